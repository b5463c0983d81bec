// Shape math shared by the ONNX and FX front ends: sliding-window output
// sizes (convolution, pooling) and numpy matmul output shapes. Attribute
// parsing and each front end's own error messages stay in the front ends;
// these functions decide through the ShapeEnv and throw OpError for input
// no front end should pass.
#pragma once
#include <cstdint>
#include <utility>

#include "fakeprop/tensor/tensor_meta.h"

namespace fakeprop {

class ShapeEnv;

// One spatial dim of a sliding window (ONNX pads split into begin and end;
// PyTorch pads both sides by the same amount).
struct WindowDim {
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_begin = 0;
  int64_t pad_end = 0;
  bool ceil_mode = false;

  // dilation*(kernel-1) + 1
  int64_t effective_kernel() const;
};

// Convolution output size, every parameter possibly symbolic (FX takes
// strides and padding as SymInts and kernels from the weight's sizes):
//   (in + pad_total - dilation*(kernel-1) - 1) // stride + 1
SymInt conv_output_size(const SymInt& in, const SymInt& kernel, const SymInt& stride, const SymInt& pad_total,
                        const SymInt& dilation);
// Transposed convolution output size:
//   (in-1)*stride - pad_total + dilation*(kernel-1) + output_padding + 1
SymInt conv_transpose_output_size(const SymInt& in, const SymInt& kernel, const SymInt& stride,
                                  const SymInt& pad_total, const SymInt& dilation, const SymInt& output_padding);

// Number of window positions over `in` (PyTorch's pooling_output_shape):
//   (in + pad_begin + pad_end - dilation*(kernel-1) - 1) // stride + 1
//   ceil_mode: the numerator gains stride - 1, and the count loses one when
//              the last window would start in the end padding.
// The last-window condition is decided statically when it can be; with no
// hint (unbacked) and pad_end <= the effective kernel it becomes
// min(count, starts before the end padding); otherwise it is a guard with
// `ceil_mode_why` as its rule. The result is simplified and may be below 1
// (callers report that in their own words). Fails (OpError InvalidArgument)
// on a non-positive kernel, stride or dilation or a negative pad.
SymInt sliding_window_size(ShapeEnv& env, const SymInt& in, const WindowDim& w, const char* ceil_mode_why);

// SAME_UPPER / SAME_LOWER padding: ceil(in / stride).
SymInt same_padded_window_size(const SymInt& in, int64_t stride);

// conv_transpose_output_size for a static window. Fails (OpError
// InvalidArgument) like sliding_window_size, or on a negative output_padding.
SymInt transposed_window_size(const SymInt& in, const WindowDim& w, int64_t output_padding);

// numpy.matmul: the two sizes that must agree (a's last dim, b's
// second-to-last, or its only dim when b is 1-D). Fails (OpError
// InvalidRank) on a 0-D operand.
std::pair<SymInt, SymInt> matmul_contracted_sizes(const SymShape& a, const SymShape& b);

// numpy.matmul output shape once the contracted sizes agree: batch dims
// broadcast (guards through `env`), then a's rows unless a is 1-D and b's
// columns unless b is 1-D. Fails (OpError InvalidRank) on a 0-D operand.
SymShape matmul_output_shape(const SymShape& a, const SymShape& b, ShapeEnv& env);

}  // namespace fakeprop
