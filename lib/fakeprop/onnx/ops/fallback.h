// What a value becomes when its node could not be evaluated, and the check
// of computed values against the types the model declares.
#pragma once
#include <optional>
#include <span>
#include <string>

#include "fakeprop/value/run_result.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/util/string_map.h"

namespace fakeprop::onnx::ops {

// A failed node's output from its declared type (the graph's value_info or
// outputs), or else an opaque value that says why it is unknown. Static dims
// stay; ONNX's dim_params name one size across a model, so a dim_param in
// `dim_params` (a graph input's dim, or one met earlier here) is that size,
// and a new one becomes a fresh unbacked size of that name (u<N> where the
// text is no identifier), added to `dim_params`; a dim without either is a
// fresh unbacked u<N>.
Value fallback_value(std::string_view value_name, const Graph& g, ShapeEnv& env, StorageIds& storage,
                     Device device, const std::string& why, StringMap<SymInt>& dim_params);

// The element type that ONNX's schema of `op` gives its output k
// (output_type_tie of its newest version, schema.h): an input's, when that
// input's element type is known, or a fixed one; nullopt else.
std::optional<DType> schema_output_dtype(std::string_view domain, std::string_view op, size_t k,
                                         std::span<const Value* const> inputs);

// The rank ONNX's schema fixes for output 0 of `op` from its inputs' ranks:
// an op that keeps its input's rank (Slice, Transpose, Cast, unary
// elementwise ops, Softmax, Pad, ...) or broadcasts its inputs (binary
// elementwise ops, Where: the largest rank). nullopt for other ops, other
// outputs, or an input of unknown rank. A failed node keeps it: its
// output's sizes are unknown, its rank is not.
std::optional<size_t> schema_output_rank(std::string_view domain, std::string_view op, size_t k,
                                         std::span<const Value* const> inputs);

// The declared type of `value_name` in g (value_info, then outputs), or nullptr.
const TypeInfo* declared_type(const Graph& g, std::string_view value_name);

// Why a computed tensor contradicts its declared type ("" when it does not):
// the element type, the rank, or a static dim that differs from the computed
// size. On a graph output, a dim_param that reads as a number ("1", as some
// exporters write a size they specialized) is that size too, and a computed
// size not known to equal it contradicts it (the declaration holds only at
// some sizes).
std::string declaration_conflict(const TypeInfo& t, const Value& v, const ShapeEnv& env, bool is_graph_output);

// Errors of kind ErrorKind::ValueInfoConflict where a computed tensor
// contradicts the model's declared type (declaration_conflict).
void check_declared_types(const Graph& g, RunResult& result, ShapeEnv& env);

}  // namespace fakeprop::onnx::ops
