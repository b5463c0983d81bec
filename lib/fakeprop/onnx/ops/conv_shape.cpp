#include "fakeprop/onnx/ops/conv_shape.h"

#include <algorithm>

#include "fakeprop/onnx/ops/helpers.h"

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
  out = simplified(ctx, out);
  if (out.is_static()) {
    if (out.value() < 1)
      ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + ": computed output size " + std::to_string(out.value()) +
                                            " of spatial dim " + std::to_string(dim) + " is too small (input size " +
                                            in.to_python() + ")");
    return out;
  }
  if (!known_true(ctx, sym_ge(out, 1))) ctx.expect(sym_ge(out, 1), "window: output size >= 1");
  return out;
}

}  // namespace

int64_t WindowAttrs::effective_kernel(size_t i) const {
  return WindowDim{kernel[i], 1, dilations[i], 0, 0, false}.effective_kernel();
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

namespace {

WindowDim window_dim(const WindowAttrs& w, size_t i) {
  return WindowDim{w.kernel[i], w.strides[i], w.dilations[i], w.pads[i], w.pads[i + w.rank()], w.ceil_mode};
}

}  // namespace

SymShape window_output_sizes(OpContext& ctx, std::span<const SymInt> in, const WindowAttrs& w) {
  if (in.size() != w.rank())
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + ": input has " + std::to_string(in.size()) +
                                         " spatial dims but the kernel has " + std::to_string(w.rank()));
  SymShape out;
  for (size_t i = 0; i < w.rank(); ++i) {
    const SymInt size = w.same_padding()
                            ? same_padded_window_size(in[i], w.strides[i])
                            : sliding_window_size(ctx.env(), in[i], window_dim(w, i), "pooling: ceil_mode last window");
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
    // SAME: in * stride, as far as non-negative pads reach. Unpadded, the
    // output is stride*(in-1) + reach; ORT pads max(0, that - in*stride), so
    // a reach below the stride leaves the unpadded size.
    const int64_t reach = output_padding[i] + w.effective_kernel(i);
    const SymInt size = !w.same_padding() ? transposed_window_size(in[i], window_dim(w, i), output_padding[i])
                        : reach >= w.strides[i] ? in[i] * w.strides[i]
                                                : (in[i] - 1) * w.strides[i] + reach;
    out.push_back(require_nonempty(ctx, size, in[i], i));
  }
  return out;
}

SymShape conv_output_shape(OpContext& ctx, const SymShape& x, const SymShape& w) {
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " input must have rank >= 3, got " + shape_to_string(x));
  if (w.size() != x.size())
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " weights " + shape_to_string(w) + " must have the input's rank " +
                                         std::to_string(x.size()));
  const int64_t group = ctx.attr_int("group", 1);
  if (group < 1)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " group must be positive, got " + std::to_string(group));
  require(ctx, sym_eq(x[1], w[1] * SymInt(group)), "Conv: input channels equal weight channels * group",
          ErrorKind::ShapeMismatch, ctx.op_type() + ": input channels " + x[1].to_python() + " != weight channels " +
          w[1].to_python() + " * group " + std::to_string(group));
  const size_t spatial = x.size() - 2;
  SymShape out{x[0], w[0]};
  std::vector<int64_t> kernel;
  if (auto ks = ctx.attr_ints("kernel_shape")) {
    kernel = *ks;
    if (kernel.size() != spatial)
      ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " kernel_shape has " + std::to_string(kernel.size()) +
                                                " entries for " + std::to_string(spatial) + " spatial dims");
    for (size_t i = 0; i < spatial; ++i)
      require(ctx, sym_eq(w[2 + i], kernel[i]), "Conv: kernel_shape matches the weights", ErrorKind::ShapeMismatch,
              ctx.op_type() + " kernel_shape does not match weights " + shape_to_string(w));
  } else if (auto wk = static_shape(std::span<const SymInt>(w).subspan(2))) {
    kernel = *wk;
  } else {
    // A symbolic kernel size: the window formula needs it as a number.
    for (size_t i = 0; i < spatial; ++i)
      out.push_back(ctx.unknown_size(ctx.op_type() + ": kernel size from symbolic weight dims " + shape_to_string(w)));
    return out;
  }
  const WindowAttrs attrs = read_window_attrs(ctx, std::move(kernel));
  SymShape sizes = window_output_sizes(ctx, std::span<const SymInt>(x).subspan(2), attrs);
  out.insert(out.end(), sizes.begin(), sizes.end());
  return out;
}


SymShape to_nchw(const SymShape& x) {
  SymShape s = {x[0], x.back()};
  s.insert(s.end(), x.begin() + 1, x.end() - 1);
  return s;
}
SymShape to_nhwc(const SymShape& x) {
  SymShape s = {x[0]};
  s.insert(s.end(), x.begin() + 2, x.end());
  s.push_back(x[1]);
  return s;
}

}  // namespace fakeprop::onnx::ops
