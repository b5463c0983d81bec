// Checks and shape pieces shared by the default-domain neural-network rules
// (nn.cpp) and the com.microsoft rules (microsoft.cpp).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "fakeprop/onnx/op_context.h"

namespace fakeprop::onnx::ops {

// a == b: statically false fails (ErrorKind::ShapeMismatch); symbolic becomes a guard
// (or a runtime assert for unbacked sizes) with `why` as its origin.
void require_equal(OpContext& ctx, const SymInt& a, const SymInt& b, const char* why);
// a % divisor == 0, decided the same way.
void require_divisible(OpContext& ctx, const SymInt& a, const SymInt& divisor, const char* why);
// Input i is a 1-D tensor of `length` elements.
void require_vector(OpContext& ctx, size_t i, const SymInt& length, const std::string& what);
void simplify_all(OpContext& ctx, SymShape& shape);

// Gemm's (M, N) of 2-D inputs a_index and b_index under transA / transB,
// after checking the ranks and that the inner dims agree. `op` names the
// operator in the errors.
SymShape gemm_output(OpContext& ctx, size_t a_index, size_t b_index, const std::string& op);

// numpy.matmul output shape (1-D operands promoted then dropped; batch dims broadcast).
SymShape matmul_shape(OpContext& ctx, SymShape a, SymShape b);

// Layer-norm style outputs: output 0 like input 0; each of `stat_outputs`
// (mean / inverse std) has input 0's dims before `axis` and 1 from `axis`
// on, with the dtype `stash_type` (a TensorProto element type).
void layer_norm_outputs(OpContext& ctx, int64_t axis, std::initializer_list<size_t> stat_outputs, int64_t stash_type);

// floor(in * scale) for each of `axes` into `out` (Resize, Upsample). A
// scale on a symbolic size is exact when it is a small dyadic rational
// (2.0 -> 2*s0, 0.5 -> s0//2, 1.5 -> (3*s0)//2); otherwise the size is unknown.
void apply_scales(OpContext& ctx, const std::vector<double>& scales, const std::vector<int64_t>& axes, SymShape& out);
// The same with the scales read from input `i` (unknown scales: unknown sizes).
void resize_by_scales(OpContext& ctx, size_t i, const std::vector<int64_t>& axes, SymShape& out);
// Resize's keep_aspect_ratio_policy not_larger / not_smaller over `sizes`.
void keep_aspect_ratio(OpContext& ctx, bool not_larger, const std::vector<int64_t>& axes,
                       const std::vector<SymInt>& sizes, SymShape& out);

}  // namespace fakeprop::onnx::ops
