#include "fakeprop/onnx/ops/nn_common.h"

#include <cmath>
#include <sstream>

#include "fakeprop/onnx/ops/helpers.h"
#include "fakeprop/sym/python_float.h"
#include "fakeprop/tensor/shape_functions.h"
#include "fakeprop/util/error.h"

namespace fakeprop::onnx::ops {

namespace {
// "Op: why", without repeating the op when `why` already names it.
std::string failure_text(const OpContext& ctx, const char* why) {
  const std::string w(why);
  return w.rfind(ctx.op_type() + ":", 0) == 0 ? w : ctx.op_type() + ": " + w;
}
}  // namespace

void require_equal(OpContext& ctx, const SymInt& a, const SymInt& b, const char* why) {
  if (!ctx.expect(sym_eq(a, b), why))
    ctx.fail(ErrorKind::ShapeMismatch, failure_text(ctx, why) + " (" + simplified(ctx, a).to_python() + " vs " +
                                           simplified(ctx, b).to_python() + ")");
}

void require_divisible(OpContext& ctx, const SymInt& a, const SymInt& divisor, const char* why) {
  if (!ctx.expect(sym_eq(mod(a, divisor), 0), why))
    ctx.fail(ErrorKind::ShapeMismatch, failure_text(ctx, why) + " (" + simplified(ctx, a).to_python() + " % " +
                                           simplified(ctx, divisor).to_python() + " != 0)");
}

void require_vector(OpContext& ctx, size_t i, const SymInt& length, const std::string& what) {
  const SymShape& s = ctx.shape(i);
  if (s.size() != 1) ctx.fail(ErrorKind::InvalidRank, what + " must be 1-D, got shape " + shape_to_string(s));
  if (!ctx.expect(sym_eq(s[0], length), "vector length"))
    ctx.fail(ErrorKind::ShapeMismatch, what + " must have " + simplified(ctx, length).to_python() +
                                           " elements, got " + s[0].to_python());
}

void simplify_all(OpContext& ctx, SymShape& shape) {
  for (SymInt& d : shape) d = simplified(ctx, d);
}

SymShape gemm_output(OpContext& ctx, size_t a_index, size_t b_index, const std::string& op) {
  const SymShape& a = ctx.shape(a_index);
  const SymShape& b = ctx.shape(b_index);
  if (a.size() != 2 || b.size() != 2)
    ctx.fail(ErrorKind::InvalidRank,
             op + " needs 2-D A and B, got " + shape_to_string(a) + " and " + shape_to_string(b));
  const bool trans_a = ctx.attr_int("transA", 0) != 0, trans_b = ctx.attr_int("transB", 0) != 0;
  require_equal(ctx, trans_a ? a[0] : a[1], trans_b ? b[1] : b[0], "Gemm: inner dims of A and B agree");
  return {trans_a ? a[1] : a[0], trans_b ? b[0] : b[1]};
}

SymShape matmul_shape(OpContext& ctx, SymShape a, SymShape b) {
  if (a.empty() || b.empty()) ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " operands must have rank >= 1");
  const auto [k_a, k_b] = matmul_contracted_sizes(a, b);
  require_equal(ctx, k_a, k_b, "matmul: contraction dims agree");
  SymShape out = matmul_output_shape(a, b, ctx.env());
  simplify_all(ctx, out);
  return out;
}

void layer_norm_outputs(OpContext& ctx, int64_t axis, std::initializer_list<size_t> stat_outputs, int64_t stash_type) {
  const SymShape& x = ctx.shape(0);
  ctx.set_tensor(0, ctx.dtype(0), x);
  bool wanted = false;
  for (size_t o : stat_outputs) wanted = wanted || ctx.wants_output(o);
  if (!wanted) return;
  auto dtype = dtype_from_onnx(static_cast<int32_t>(stash_type));
  if (!dtype || !is_floating(*dtype))
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " stash_type " + std::to_string(stash_type) +
                                              " is not a float type");
  SymShape stats(x.begin(), x.begin() + axis);
  stats.resize(x.size(), SymInt(1));
  for (size_t o : stat_outputs)
    if (ctx.wants_output(o)) ctx.set_tensor(o, *dtype, stats);
}

namespace {

// s = numerator / 2^shift with small terms (every float is dyadic; only
// short ones give readable, exact expressions).
std::optional<std::pair<int64_t, int>> small_dyadic(double s) {
  for (int shift = 0; shift <= 16; ++shift) {
    const double scaled = std::ldexp(s, shift);
    if (scaled == std::floor(scaled)) {
      if (scaled > 65536.0) return std::nullopt;
      return std::make_pair(static_cast<int64_t>(scaled), shift);
    }
  }
  return std::nullopt;
}

std::string scale_text(double s) {
  std::ostringstream os;
  os.precision(9);
  os << s;
  return os.str();
}

// int64((float)in * scale) in single precision, as ONNX Runtime computes
// an output size from a scale.
SymInt single_precision_scaled(OpContext& ctx, const SymInt& in, ExprRef scale) {
  ExprRef size = trunc_to_int(to_float32(float_mul(to_float32(to_float(in.expr())), scale)));
  return simplified(ctx, SymInt(settle_float_sizes(ctx, size)));
}

SymInt scaled_size(OpContext& ctx, const SymInt& in, double scale, int64_t axis) {
  if (!std::isfinite(scale) || scale <= 0)
    ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + " scale " + scale_text(scale) + " of axis " +
                                          std::to_string(axis) + " must be positive");
  if (in.is_static()) {
    // ONNX Runtime multiplies in single precision: (float)in * scale, truncated.
    const double v = std::trunc(round_to_float32(round_to_float32(static_cast<double>(in.value())) * scale));
    if (v > 9.0e18)
      ctx.fail(ErrorKind::Overflow, ctx.op_type() + " output size of axis " + std::to_string(axis) + " overflows");
    return static_cast<int64_t>(v);
  }
  if (auto d = small_dyadic(scale)) {
    const SymInt num = in * d->first;
    return d->second == 0 ? num : floordiv(num, int64_t{1} << d->second);
  }
  return single_precision_scaled(ctx, in, float_const(scale));
}

}  // namespace

void apply_scales(OpContext& ctx, const std::vector<double>& scales, const std::vector<int64_t>& axes, SymShape& out) {
  if (scales.size() != axes.size())
    ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + " has " + std::to_string(scales.size()) + " scales for " +
                                          std::to_string(axes.size()) + " axes");
  for (size_t i = 0; i < axes.size(); ++i) {
    SymInt& d = out[static_cast<size_t>(axes[i])];
    d = scaled_size(ctx, d, scales[i], axes[i]);
  }
}

void resize_by_scales(OpContext& ctx, size_t i, const std::vector<int64_t>& axes, SymShape& out) {
  if (auto scales = ctx.floats(i)) {
    apply_scales(ctx, *scales, axes, out);
    return;
  }
  // Scales computed from sizes.
  if (auto scales = ctx.float_exprs(i); scales && scales->size() == axes.size()) {
    for (size_t k = 0; k < axes.size(); ++k) {
      SymInt& d = out[static_cast<size_t>(axes[k])];
      ExprRef scale = to_float32((*scales)[k]);
      if (auto c = as_float(scale)) {
        d = scaled_size(ctx, d, *c, axes[k]);
        continue;
      }
      require(ctx, SymBool(gt(scale, float_const(0.0))), "scales are positive",
              ErrorKind::InvalidShape, ctx.op_type() + " scale of axis " + std::to_string(axes[k]) + " must be positive");
      d = single_precision_scaled(ctx, d, scale);
    }
    return;
  }
  auto n = static_shape(ctx.shape(i));
  if (n && n->size() == 1 && static_cast<size_t>((*n)[0]) != axes.size())
    ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + " has " + std::to_string((*n)[0]) + " scales for " +
                                          std::to_string(axes.size()) + " axes");
  const std::string why = ctx.op_type() + " scales '" + ctx.input_name(i) + "' are not known";
  for (int64_t a : axes) out[static_cast<size_t>(a)] = ctx.unknown_size(why);
}

void keep_aspect_ratio(OpContext& ctx, bool not_larger, const std::vector<int64_t>& axes,
                       const std::vector<SymInt>& sizes, SymShape& out) {
  bool known = true;
  double scale = not_larger ? HUGE_VAL : -HUGE_VAL;
  for (size_t i = 0; i < axes.size() && known; ++i) {
    const SymInt& in = out[static_cast<size_t>(axes[i])];
    known = in.is_static() && sizes[i].is_static() && in.value() > 0;
    if (!known) break;
    const double s = static_cast<double>(sizes[i].value()) / static_cast<double>(in.value());
    scale = not_larger ? std::min(scale, s) : std::max(scale, s);
  }
  if (known) {
    for (int64_t a : axes) {
      SymInt& d = out[static_cast<size_t>(a)];
      const double size = std::round(scale * static_cast<double>(d.value()));
      if (!(size >= -0x1p63 && size < 0x1p63))  // also NaN: the conversion would be undefined
        throw OverflowError(ctx.op_type() + ": keep_aspect_ratio_policy gives axis " + std::to_string(a) +
                            " the size " + scale_text(size) + ", which overflows int64");
      d = SymInt(static_cast<int64_t>(size));
    }
    return;
  }
  // Backed sizes: the axis k of the smallest (not_larger) or largest ratio
  // sizes[k] / in[k] sets the scale, found by comparing the integer products
  // sizes[i] * in[k] and sizes[k] * in[i] (guards). Then axis k becomes
  // sizes[k] and every other axis a round(sizes[k] * in[a] / in[k]), that
  // is floor((2 * sizes[k] * in[a] + in[k]) / (2 * in[k])) for positive sizes.
  bool backed = true;
  for (size_t i = 0; i < axes.size(); ++i) {
    const SymInt& in = out[static_cast<size_t>(axes[i])];
    backed = backed && ctx.env().hint(in) && ctx.env().hint(sizes[i]) && *ctx.env().hint(in) > 0;
  }
  if (!backed) {
    for (int64_t a : axes)
      out[static_cast<size_t>(a)] =
          ctx.unknown_size(ctx.op_type() + ": keep_aspect_ratio_policy needs backed input and target sizes");
    return;
  }
  size_t k = 0;
  for (size_t i = 1; i < axes.size(); ++i) {
    const SymInt lhs = sizes[i] * out[static_cast<size_t>(axes[k])];
    const SymInt rhs = sizes[k] * out[static_cast<size_t>(axes[i])];
    if (decide(ctx, not_larger ? sym_lt(lhs, rhs) : sym_gt(lhs, rhs), "Resize: keep_aspect_ratio_policy scale"))
      k = i;
  }
  const SymInt in_k = out[static_cast<size_t>(axes[k])];
  for (size_t i = 0; i < axes.size(); ++i) {
    SymInt& d = out[static_cast<size_t>(axes[i])];
    d = i == k ? sizes[k] : floordiv(sizes[k] * d * 2 + in_k, in_k * 2);
  }
}

}  // namespace fakeprop::onnx::ops
