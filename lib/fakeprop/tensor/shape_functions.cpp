#include "fakeprop/tensor/shape_functions.h"

#include <algorithm>
#include <string>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

void require_valid_window(const WindowDim& w) {
  if (w.kernel <= 0 || w.stride <= 0 || w.dilation <= 0)
    throw OpError(ErrorKind::InvalidArgument, "sliding window: kernel " + std::to_string(w.kernel) + ", stride " +
                                                  std::to_string(w.stride) + " and dilation " +
                                                  std::to_string(w.dilation) + " must be positive");
  if (w.pad_begin < 0 || w.pad_end < 0)
    throw OpError(ErrorKind::InvalidArgument, "sliding window: pads " + std::to_string(w.pad_begin) + " and " +
                                                  std::to_string(w.pad_end) + " must not be negative");
}

SymInt simplified(ShapeEnv& env, const SymInt& v) { return v.is_static() ? v : env.simplify(v); }

void require_matmul_operands(const SymShape& a, const SymShape& b) {
  if (a.empty() || b.empty())
    throw OpError(ErrorKind::InvalidRank, "matmul operands must have rank >= 1, got " + std::to_string(a.size()) +
                                              "D and " + std::to_string(b.size()) + "D");
}

}  // namespace

int64_t WindowDim::effective_kernel() const { return checked_add(checked_mul(checked_sub(kernel, 1), dilation), 1); }

SymInt conv_output_size(const SymInt& in, const SymInt& kernel, const SymInt& stride, const SymInt& pad_total,
                        const SymInt& dilation) {
  return floordiv(in + pad_total - dilation * (kernel - 1) - 1, stride) + 1;
}

SymInt conv_transpose_output_size(const SymInt& in, const SymInt& kernel, const SymInt& stride,
                                  const SymInt& pad_total, const SymInt& dilation, const SymInt& output_padding) {
  return (in - 1) * stride - pad_total + dilation * (kernel - 1) + output_padding + 1;
}

SymInt sliding_window_size(ShapeEnv& env, const SymInt& in, const WindowDim& w, const char* ceil_mode_why) {
  require_valid_window(w);
  (void)w.effective_kernel();  // overflow check
  // ceil_mode counts like stride - 1 more end padding.
  const int64_t pad_total = checked_add(checked_add(w.pad_begin, w.pad_end), w.ceil_mode ? w.stride - 1 : 0);
  SymInt size = simplified(env, conv_output_size(in, w.kernel, w.stride, pad_total, w.dilation));
  if (!w.ceil_mode) return size;
  // The last window must start inside the input or its begin padding;
  // PyTorch decides this with a guard.
  const SymBool starts_in_end_pad = sym_ge((size - 1) * w.stride, in + w.pad_begin);
  if (auto known = starts_in_end_pad.maybe_value()) return *known ? simplified(env, size - 1) : size;
  if (auto decided = env.maybe_evaluate_static(starts_in_end_pad.expr()))
    return *decided ? simplified(env, size - 1) : size;
  if (!env.hint(env.simplify(starts_in_end_pad.expr())) && w.pad_end <= w.effective_kernel()) {
    // No hint to guard on: with end padding at most the kernel, at most one
    // window is dropped, so the count is exactly the smaller of the ceil
    // count and the number of starts before the end padding.
    return simplified(env, sym_min(size, floordiv(in + (w.pad_begin - 1), w.stride) + 1));
  }
  return env.evaluate(starts_in_end_pad, ceil_mode_why) ? simplified(env, size - 1) : size;
}

SymInt same_padded_window_size(const SymInt& in, int64_t stride) {
  if (stride <= 0)
    throw OpError(ErrorKind::InvalidArgument, "sliding window: stride " + std::to_string(stride) + " must be positive");
  return ceildiv(in, stride);
}

SymInt transposed_window_size(const SymInt& in, const WindowDim& w, int64_t output_padding) {
  require_valid_window(w);
  if (output_padding < 0)
    throw OpError(ErrorKind::InvalidArgument,
                  "transposed window: output_padding " + std::to_string(output_padding) + " must not be negative");
  (void)w.effective_kernel();  // overflow check
  return conv_transpose_output_size(in, w.kernel, w.stride, checked_add(w.pad_begin, w.pad_end), w.dilation,
                                    output_padding);
}

std::pair<SymInt, SymInt> matmul_contracted_sizes(const SymShape& a, const SymShape& b) {
  require_matmul_operands(a, b);
  return {a.back(), b.size() == 1 ? b[0] : b[b.size() - 2]};
}

SymShape matmul_output_shape(const SymShape& a, const SymShape& b, ShapeEnv& env) {
  require_matmul_operands(a, b);
  const SymShape batch_a(a.begin(), a.end() - static_cast<std::ptrdiff_t>(std::min<size_t>(a.size(), 2)));
  const SymShape batch_b(b.begin(), b.end() - static_cast<std::ptrdiff_t>(std::min<size_t>(b.size(), 2)));
  SymShape out = broadcast_shapes(batch_a, batch_b, env);
  if (a.size() >= 2) out.push_back(a[a.size() - 2]);
  if (b.size() >= 2) out.push_back(b.back());
  return out;
}

}  // namespace fakeprop
