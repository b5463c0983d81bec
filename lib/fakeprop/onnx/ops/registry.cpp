#include "fakeprop/onnx/op_context.h"
#include "fakeprop/onnx/ops/families.h"

namespace fakeprop::onnx {

namespace {
std::string key(std::string_view domain, std::string_view op_type) {
  std::string k(domain == "ai.onnx" ? std::string_view() : domain);
  k += "::";
  k += op_type;
  return k;
}
}  // namespace

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    ops::register_elementwise_ops(r);
    ops::register_shape_ops(r);
    ops::register_generator_ops(r);
    ops::register_nn_ops(r);
    ops::register_reduction_ops(r);
    ops::register_data_dependent_ops(r);
    ops::register_control_flow_ops(r);
    ops::register_quantization_ops(r);
    ops::register_microsoft_ops(r);
    ops::register_loss_and_linalg_ops(r);
    ops::register_ml_ops(r);
    ops::register_training_ops(r);
    return r;
  }();
  return registry;
}

void OpRegistry::add(std::string_view domain, std::string_view op_type, OpRule rule) {
  entries_.push_back({domain, op_type, rule});
  by_key_[key(domain, op_type)] = rule;
}

OpRule OpRegistry::find(std::string_view domain, std::string_view op_type) const {
  auto it = by_key_.find(key(domain, op_type));
  return it == by_key_.end() ? nullptr : it->second;
}

std::vector<std::pair<std::string, std::string>> OpRegistry::all() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : entries_) out.emplace_back(std::string(e.domain), std::string(e.op_type));
  return out;
}

}  // namespace fakeprop::onnx
