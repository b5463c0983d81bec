#include "fakeprop/onnx/ops/conv_shape.h"

#include <algorithm>

namespace fakeprop::onnx::ops {

namespace {

std::string list_text(std::span<const int64_t> xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
  return s + "]";
}

// A per-spatial-dim attribute: `dflt` repeated when absent, else exactly n values.
std::vector<int64_t> spatial_attr(const OpContext& ctx, std::string_view name, size_t n, int64_t dflt) {
  auto v = ctx.attr_ints(name);
  if (!v) return std::vector<int64_t>(n, dflt);
  if (v->size() != n)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " attribute '" + std::string(name) + "' has " +
                                              std::to_string(v->size()) + " values, expected " + std::to_string(n));
  return *v;
}

void require_positive(const OpContext& ctx, std::string_view name, std::span<const int64_t> xs) {
  for (int64_t x : xs)
    if (x <= 0)
      ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " attribute '" + std::string(name) +
                                                "' must be positive, got " + list_text(xs));
}

// The output size must be at least 1; a static violation fails, a symbolic
// one is decided (guard, or runtime assert for unbacked sizes).
SymInt require_nonempty(OpContext& ctx, SymInt out, const SymInt& in, size_t dim) {
  out = ctx.env().simplify(out);
  if (out.is_static()) {
    if (out.value() < 1)
      ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + ": computed output size " + std::to_string(out.value()) +
                                            " of spatial dim " + std::to_string(dim) + " is too small (input size " +
                                            in.to_python() + ")");
    return out;
  }
  if (!ctx.env().statically_known_true(sym_ge(out, 1))) ctx.expect(sym_ge(out, 1), "window: output size >= 1");
  return out;
}

}  // namespace

int64_t WindowAttrs::effective_kernel(size_t i) const {
  return checked_add(checked_mul(checked_sub(kernel[i], 1), dilations[i]), 1);
}

WindowAttrs read_window_attrs(const OpContext& ctx, std::vector<int64_t> kernel, bool use_dilations,
                              bool use_ceil_mode) {
  WindowAttrs w;
  const size_t n = kernel.size();
  w.kernel = std::move(kernel);
  require_positive(ctx, "kernel_shape", w.kernel);
  w.strides = spatial_attr(ctx, "strides", n, 1);
  require_positive(ctx, "strides", w.strides);
  w.dilations = use_dilations ? spatial_attr(ctx, "dilations", n, 1) : std::vector<int64_t>(n, 1);
  require_positive(ctx, "dilations", w.dilations);
  w.auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  if (w.auto_pad != "NOTSET" && w.auto_pad != "VALID" && !w.same_padding())
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " auto_pad '" + w.auto_pad +
                                              "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  w.pads = spatial_attr(ctx, "pads", 2 * n, 0);
  for (int64_t p : w.pads)
    if (p < 0)
      ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " pads must not be negative, got " + list_text(w.pads));
  const bool any_pad = std::any_of(w.pads.begin(), w.pads.end(), [](int64_t p) { return p != 0; });
  if (w.auto_pad != "NOTSET" && any_pad)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " pads " + list_text(w.pads) +
                                              " cannot be used together with auto_pad " + w.auto_pad);
  if (w.auto_pad != "NOTSET") std::fill(w.pads.begin(), w.pads.end(), 0);
  w.ceil_mode = use_ceil_mode && ctx.attr_int("ceil_mode", 0) != 0;
  for (size_t i = 0; i < n; ++i) (void)w.effective_kernel(i);  // overflow check up front
  return w;
}

SymShape window_output_sizes(OpContext& ctx, std::span<const SymInt> in, const WindowAttrs& w) {
  if (in.size() != w.rank())
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + ": input has " + std::to_string(in.size()) +
                                         " spatial dims but the kernel has " + std::to_string(w.rank()));
  const size_t n = w.rank();
  SymShape out;
  for (size_t i = 0; i < n; ++i) {
    const int64_t stride = w.strides[i];
    if (w.same_padding()) {
      out.push_back(require_nonempty(ctx, ceildiv(in[i], stride), in[i], i));
      continue;
    }
    const int64_t pad_begin = w.pads[i], pad_total = checked_add(w.pads[i], w.pads[i + n]);
    SymInt numerator = in[i] + SymInt(checked_sub(pad_total, w.effective_kernel(i)));
    if (w.ceil_mode) numerator = numerator + SymInt(stride - 1);
    SymInt size = floordiv(numerator, stride) + 1;
    if (w.ceil_mode) {
      // The last window must start inside the input or its begin padding;
      // PyTorch decides this with a guard.
      const SymBool starts_in_end_pad = sym_ge((size - 1) * stride, in[i] + pad_begin);
      ShapeEnv& env = ctx.env();
      if (auto known = starts_in_end_pad.maybe_value()) {
        if (*known) size = size - 1;
      } else if (auto decided = env.maybe_evaluate_static(starts_in_end_pad.expr())) {
        if (*decided) size = size - 1;
      } else if (!env.hint(env.simplify(starts_in_end_pad.expr())) && w.pads[i + n] <= w.effective_kernel(i)) {
        // No hint to guard on: with end padding at most the kernel, at most
        // one window is dropped, so the count is exactly the smaller of the
        // ceil count and the number of starts before the end padding.
        size = sym_min(size, floordiv(in[i] + (pad_begin - 1), stride) + 1);
      } else if (ctx.check(starts_in_end_pad, "pooling: ceil_mode last window")) {
        size = size - 1;
      }
    }
    out.push_back(require_nonempty(ctx, size, in[i], i));
  }
  return out;
}

SymShape transpose_output_sizes(OpContext& ctx, std::span<const SymInt> in, const WindowAttrs& w,
                                std::span<const int64_t> output_padding) {
  const size_t n = w.rank();
  if (in.size() != n)
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + ": input has " + std::to_string(in.size()) +
                                         " spatial dims but the kernel has " + std::to_string(n));
  if (output_padding.size() != n)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " output_padding has " +
                                              std::to_string(output_padding.size()) + " values, expected " +
                                              std::to_string(n));
  SymShape out;
  for (size_t i = 0; i < n; ++i) {
    if (output_padding[i] < 0)
      ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " output_padding must not be negative, got " +
                                                list_text(output_padding));
    if (w.same_padding()) {
      out.push_back(require_nonempty(ctx, in[i] * w.strides[i], in[i], i));
      continue;
    }
    const int64_t extra = checked_sub(checked_add(output_padding[i], w.effective_kernel(i)),
                                      checked_add(w.pads[i], w.pads[i + n]));
    out.push_back(require_nonempty(ctx, (in[i] - 1) * w.strides[i] + extra, in[i], i));
  }
  return out;
}

}  // namespace fakeprop::onnx::ops
