// What a value becomes when its node could not be evaluated, and the check
// of computed values against the types the model declares.
#pragma once
#include <string>

#include "fakeprop/value/run_result.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/util/string_map.h"

namespace fakeprop::onnx::ops {

// Rank and dtype from the graph's value_info / outputs when declared, with
// fresh unbacked sizes; otherwise an opaque value that says why it is unknown.
// A failed node's output from its declared type: static dims stay, a dim_param
// that names a graph input's dim is that input's size (ONNX's dim_params name
// one size across a graph), any other dim is a fresh unbacked size.
Value fallback_value(std::string_view value_name, const Graph& g, ShapeEnv& env, StorageIds& storage,
                     Device device, const std::string& why, const StringMap<SymInt>& input_params);

// The declared type of `value_name` in g (value_info, then outputs), or nullptr.
const TypeInfo* declared_type(const Graph& g, std::string_view value_name);

// Errors of kind ErrorKind::ValueInfoConflict where a computed tensor provably
// contradicts the model's declared element type, rank or static dims.
void check_declared_types(const Graph& g, RunResult& result, ShapeEnv& env);

}  // namespace fakeprop::onnx::ops
