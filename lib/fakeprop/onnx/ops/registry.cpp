#include <algorithm>
#include <stdexcept>
#include <string>

#include "fakeprop/onnx/op_context.h"
#include "fakeprop/onnx/ops/families.h"

namespace fakeprop::onnx {

namespace {
// "ai.onnx" and "" name the same default domain; tables use "".
std::string_view canonical_domain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

bool op_less(const OpRuleEntry& a, const OpRuleEntry& b) {
  return a.domain != b.domain ? a.domain < b.domain : a.op_type < b.op_type;
}

bool key_less(const OpRuleEntry& a, const OpRuleEntry& b) {
  if (op_less(a, b)) return true;
  if (op_less(b, a)) return false;
  return a.since_version < b.since_version;
}
}  // namespace

OpRegistry::OpRegistry() {
  const std::span<const OpRuleEntry> families[] = {
      ops::elementwise_rules(),  ops::shape_rules(),        ops::generator_rules(),
      ops::nn_rules(),           ops::reduction_rules(),    ops::data_dependent_rules(),
      ops::control_flow_rules(), ops::quantization_rules(), ops::microsoft_rules(),
      ops::loss_and_linalg_rules(), ops::ml_rules(),        ops::training_rules(),
  };
  size_t n = 0;
  for (auto family : families) n += family.size();
  sorted_.reserve(n);
  for (auto family : families) sorted_.insert(sorted_.end(), family.begin(), family.end());
  std::sort(sorted_.begin(), sorted_.end(), key_less);
  // Two rules for one op and range would make the table order decide which runs.
  const auto dup = std::adjacent_find(sorted_.begin(), sorted_.end(), [](const auto& a, const auto& b) {
    return !key_less(a, b) && !key_less(b, a);
  });
  if (dup != sorted_.end())
    throw std::logic_error("two ONNX rules for " + std::string(dup->domain) + "::" + std::string(dup->op_type) +
                           " from version " + std::to_string(dup->since_version));
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry;
  return registry;
}

OpRule OpRegistry::find(std::string_view domain, std::string_view op_type, int64_t opset) const {
  const OpRuleEntry probe{canonical_domain(domain), op_type, nullptr};
  // One binary search per dispatch; an op's ranges are few and adjacent.
  OpRule found = nullptr;
  for (auto it = std::lower_bound(sorted_.begin(), sorted_.end(), probe, op_less);
       it != sorted_.end() && !op_less(probe, *it) && it->since_version <= opset; ++it)
    found = it->rule;
  return found;
}

std::vector<int64_t> OpRegistry::since_versions(std::string_view domain, std::string_view op_type) const {
  const OpRuleEntry probe{canonical_domain(domain), op_type, nullptr};
  const auto [first, last] = std::equal_range(sorted_.begin(), sorted_.end(), probe, op_less);
  std::vector<int64_t> out;
  for (auto it = first; it != last; ++it) out.push_back(it->since_version);
  return out;
}

std::vector<std::pair<std::string, std::string>> OpRegistry::all() const {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(sorted_.size());
  for (size_t i = 0; i < sorted_.size(); ++i)
    if (i == 0 || op_less(sorted_[i - 1], sorted_[i]))
      out.emplace_back(std::string(sorted_[i].domain), std::string(sorted_[i].op_type));
  return out;
}

}  // namespace fakeprop::onnx
