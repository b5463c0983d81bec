// The small vocabulary operator rules are written in: axis handling,
// broadcasting, "same as input", and folding of known element values.
#pragma once
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "fakeprop/onnx/op_context.h"

namespace fakeprop::onnx::ops {

SymInt numel(std::span<const SymInt> shape);
// ONNX axis in [-rank, rank-1] -> [0, rank); OpError(ErrorKind::InvalidAxis) otherwise.
int64_t normalize_axis(const OpContext& ctx, int64_t axis, int64_t rank);
std::vector<int64_t> normalize_axes(const OpContext& ctx, std::span<const int64_t> axes, int64_t rank);

// Output `out` gets input `in`'s dtype and shape (fresh contiguous storage).
void same_as_input(OpContext& ctx, size_t in = 0, size_t out = 0);
void same_shape_as_input(OpContext& ctx, DType dtype, size_t in = 0, size_t out = 0);
// Multidirectional (numpy) broadcast of the given inputs' shapes; absent inputs are skipped.
SymShape broadcast_inputs(OpContext& ctx, std::initializer_list<size_t> inputs);

// The flat index into a row-major input of shape `in` that output element
// `flat` (of shape `out`) reads under broadcasting.
int64_t broadcast_source_index(int64_t flat, const std::vector<int64_t>& out, const std::vector<int64_t>& in);

// Known integer data as a KnownData.
KnownData int_data(std::vector<SymInt> xs);
KnownData float_data(std::vector<double> xs);
// Float elements as expressions (some may be symbolic).
KnownData float_expr_data(std::vector<ExprRef> xs);
// Empty data in the form of `like` (integers, floats or float expressions).
KnownData same_form(const KnownData& like);
// Appends element `at` of `in` to `out`; float data meeting float
// expressions becomes expressions. `in` and `out` are both integer or both float.
void append_element(KnownData& out, const KnownData& in, size_t at);
// A double result rounded as a float tensor of `dt` stores it: ToFloat32 for
// float32, as is for float64; nullptr for the types whose rounding is not modelled.
ExprRef round_float_expr(DType dt, ExprRef e);
// Float arithmetic on sizes as the integer arithmetic it equals, for a
// float that becomes a size: float32(float(n)) is float(n) where n fits
// float32's 24-bit significand (known, or recorded as a runtime assert or
// guard, "n <= 16777216", at this node); float(n) / 2**k floors and ceils to
// n // 2**k and ceildiv(n, 2**k); 2**k * float(n) is float(2**k * n); the
// max and min of floats of integers are the float of their max and min.
// Other forms stay as they are (exact, only longer).
ExprRef settle_float_sizes(OpContext& ctx, ExprRef e);
// A static shape as int64s, nullopt when any dim is symbolic.
std::optional<std::vector<int64_t>> static_shape(std::span<const SymInt> shape);

// The element count of static `dims` when it is at most `cap`, nullopt when
// larger (or a dim is negative). Never overflows: fuzzed models carry dims
// whose product does not fit in int64.
std::optional<int64_t> numel_within(std::span<const int64_t> dims, int64_t cap);

// Shape of a 1-D known-int input read as dims (e.g. Reshape's shape, Expand's shape).
std::optional<SymShape> shape_from_input(const OpContext& ctx, size_t i);

}  // namespace fakeprop::onnx::ops
