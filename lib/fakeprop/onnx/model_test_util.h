// Helpers for tests of ONNX rules: run a built model, read values back.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/model_builder.h"

namespace fakeprop::onnx::testing {

// ONNX TensorProto element types, as tests hand them to ModelBuilder.
namespace dtypes {
inline constexpr int32_t kFloat = 1, kUInt8 = 2, kInt8 = 3, kInt32 = 6, kInt64 = 7, kString = 8, kBool = 9,
                         kFloat16 = 10, kDouble = 11;
}  // namespace dtypes

inline RunResult run(const ModelBuilder& b, InferOptions options = {}) { return run_model(b.build(), options); }

// The value named `name` (a node output or graph input), or nullptr.
inline const Value* find_value(const RunResult& r, const std::string& name) {
  for (const auto& n : r.nodes)
    for (const auto& o : n.outputs)
      if (o.name == name) return &o.val;
  for (const auto& in : r.inputs)
    if (in.name == name) return &in.val;
  return nullptr;
}

// Shape of tensor value `name` as Python strings after final simplification
// ("3", "2*s0", "batch"); {"<missing>"} / {"<not a tensor>"} otherwise.
inline std::vector<std::string> shape_of(const RunResult& r, const std::string& name) {
  const Value* v = find_value(r, name);
  if (!v) return {"<missing>"};
  if (!v->is_tensor()) return {"<not a tensor>"};
  std::vector<std::string> out;
  for (const SymInt& d : v->tensor->meta.sizes) out.push_back(r.env->simplify(d).to_python());
  return out;
}

inline DType dtype_of(const RunResult& r, const std::string& name) {
  const Value* v = find_value(r, name);
  return v && v->is_tensor() ? v->tensor->meta.dtype : DType::Undefined;
}

// Known integer data of `name` as Python strings, empty when unknown.
inline std::vector<std::string> data_of(const RunResult& r, const std::string& name) {
  const Value* v = find_value(r, name);
  std::vector<std::string> out;
  if (!v || !v->is_tensor() || !v->tensor->data || v->tensor->data->is_float) return out;
  for (const SymInt& x : v->tensor->data->ints) out.push_back(r.env->simplify(x).to_python());
  return out;
}

// Error kinds recorded on node `node` ("" = any node).
inline std::vector<std::string> error_kinds(const RunResult& r, const std::string& node = "") {
  std::vector<std::string> out;
  for (const auto& e : r.errors)
    if (node.empty() || e.node == node) out.push_back(std::string(error_kind_name(e.kind)));
  return out;
}

}  // namespace fakeprop::onnx::testing
