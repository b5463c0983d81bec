#include "fakeprop/onnx/ops/helpers.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "fakeprop/sym/python_float.h"

namespace fakeprop::onnx::ops {

SymInt numel(std::span<const SymInt> shape) {
  SymInt n = 1;
  for (const SymInt& d : shape) n = n * d;
  return n;
}

int64_t normalize_axis(const OpContext& ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    ctx.fail(ErrorKind::InvalidAxis, "axis " + std::to_string(axis) + " is out of range for rank " +
                                         std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> normalize_axes(const OpContext& ctx, std::span<const int64_t> axes, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    int64_t n = normalize_axis(ctx, a, rank);
    for (int64_t prev : out)
      if (prev == n) ctx.fail(ErrorKind::InvalidAxis, "axis " + std::to_string(a) + " is repeated");
    out.push_back(n);
  }
  return out;
}

void same_as_input(OpContext& ctx, size_t in, size_t out) { same_shape_as_input(ctx, ctx.dtype(in), in, out); }

void same_shape_as_input(OpContext& ctx, DType dtype, size_t in, size_t out) {
  ctx.set_tensor(out, dtype, ctx.shape(in));
}

SymShape broadcast_inputs(OpContext& ctx, std::initializer_list<size_t> inputs) {
  std::vector<SymShape> shapes;
  for (size_t i : inputs)
    if (ctx.has_input(i)) shapes.push_back(ctx.shape(i));
  return broadcast_shapes(shapes, ctx.env());
}

KnownData int_data(std::vector<SymInt> xs) { return KnownData::of_ints(std::move(xs)); }

KnownData float_data(std::vector<double> xs) { return KnownData::of_floats(std::move(xs)); }

KnownData float_expr_data(std::vector<ExprRef> xs) {
  KnownData d;
  d.is_float = d.is_float_exprs = true;
  d.float_exprs = std::move(xs);
  return d;
}

KnownData same_form(const KnownData& like) {
  KnownData d;
  d.is_float = like.is_float;
  d.is_float_exprs = like.is_float_exprs;
  return d;
}

namespace {
// Brings float data into the float-expression form.
void to_float_exprs(KnownData& d) {
  if (!d.is_float || d.is_float_exprs) return;
  for (double x : d.floats) d.float_exprs.push_back(float_const(x));
  d.floats.clear();
  d.is_float_exprs = true;
}
}  // namespace

void append_element(KnownData& out, const KnownData& in, size_t at) {
  if (in.is_float_exprs) to_float_exprs(out);
  if (!out.is_float)
    out.ints.push_back(in.ints[at]);
  else if (!out.is_float_exprs)
    out.floats.push_back(in.floats[at]);
  else
    out.float_exprs.push_back(in.is_float_exprs ? in.float_exprs[at] : float_const(in.floats[at]));
}

namespace {

// 2**k for a small k >= 0 as an int64, when c is that float constant.
std::optional<int64_t> power_of_two(ExprRef c) {
  auto v = as_float(c);
  if (!v || *v < 1 || *v > 1073741824.0 || *v != std::floor(*v)) return std::nullopt;
  const auto n = static_cast<int64_t>(*v);
  if ((n & (n - 1)) != 0) return std::nullopt;
  return n;
}

class SizeSettler {
 public:
  explicit SizeSettler(OpContext& ctx) : ctx_(ctx) {}

  ExprRef settle(ExprRef e) {
    if (e->args().empty()) return e;
    if (!e->is_float() && !is_float_to_int(e->kind())) return e;
    auto it = memo_.find(e);
    if (it != memo_.end()) return it->second;
    if (e->kind() == ExprKind::ToFloat32 && float32_exact(e->arg(0))) {
      ExprRef out = settle(e->arg(0));
      memo_.emplace(e, out);
      return out;
    }
    std::vector<ExprRef> args;
    for (ExprRef a : e->args()) args.push_back(settle(a));
    ExprRef out = rewrite(e->kind(), args);
    memo_.emplace(e, out);
    return out;
  }

 private:
  static bool is_int_float(ExprRef e) { return e->kind() == ExprKind::ToFloat; }

  // Is `e` a float32 value by its form? A float32 constant or rounding, the
  // floor (ceil, trunc, round) of one, and such an integer times or over
  // 2**k (int64 magnitudes stay far inside float32's exponent range).
  static bool float32_exact(ExprRef e) {
    switch (e->kind()) {
      case ExprKind::FloatConst: return is_float32_value(e->float_value());
      case ExprKind::ToFloat32: return true;
      case ExprKind::ToFloat: return is_float_to_int(e->arg(0)->kind()) && float32_exact(e->arg(0)->arg(0));
      case ExprKind::FloatMul:
        return (power_of_two(e->arg(0)) && is_int_float(e->arg(1)) && float32_exact(e->arg(1))) ||
               (power_of_two(e->arg(1)) && is_int_float(e->arg(0)) && float32_exact(e->arg(0)));
      case ExprKind::FloatTrueDiv:
        return power_of_two(e->arg(1)) && is_int_float(e->arg(0)) && float32_exact(e->arg(0));
      default: return false;
    }
  }

  // Does float32's significand hold n exactly? Known from ranges, else
  // expected (a runtime assert for hintless sizes, a guard for backed ones).
  bool fits_float32(const SymInt& n) {
    constexpr int64_t kSignificand = int64_t{1} << 24;
    if (n.is_symbolic() && n.expr()->kind() == ExprKind::Max && known_true(ctx_, sym_ge(n, 0))) {
      // max(a, b) <= 2**24 is a <= 2**24 and b <= 2**24: one condition per size.
      for (ExprRef x : n.expr()->args())
        if (!fits_float32(SymInt(x))) return false;
      return true;
    }
    if (known_true(ctx_, sym_le(n, kSignificand)) && known_true(ctx_, sym_ge(n, -kSignificand))) return true;
    if (known_true(ctx_, sym_gt(n, kSignificand)) || known_true(ctx_, sym_lt(n, -kSignificand))) return false;
    const char* why = "float32 holds the size exactly";
    if (!known_true(ctx_, sym_ge(n, -kSignificand)) && !ctx_.expect(sym_ge(n, -kSignificand), why)) return false;
    return ctx_.expect(sym_le(n, kSignificand), why);
  }

  ExprRef rewrite(ExprKind kind, const std::vector<ExprRef>& a) {
    switch (kind) {
      case ExprKind::ToFloat32:
        if (is_int_float(a[0]) && fits_float32(SymInt(a[0]->arg(0)))) return a[0];
        // float(n) / 2**k with n in float32 is exact in float32 too.
        if (a[0]->kind() == ExprKind::FloatTrueDiv && is_int_float(a[0]->arg(0)) && power_of_two(a[0]->arg(1)))
          return a[0];
        break;
      case ExprKind::FloatMul:
        for (size_t i : {0u, 1u})
          if (auto k = power_of_two(a[i]); k && is_int_float(a[1 - i]))
            return to_float((SymInt(a[1 - i]->arg(0)) * *k).expr());
        break;
      case ExprKind::FloatMax:
      case ExprKind::FloatMin:
        if (std::all_of(a.begin(), a.end(), is_int_float)) {
          std::vector<ExprRef> ints;
          for (ExprRef x : a) ints.push_back(x->arg(0));
          return to_float(kind == ExprKind::FloatMax ? max(ints) : min(ints));
        }
        break;
      case ExprKind::FloorToInt:
      case ExprKind::CeilToInt:
        // float(n) / 2**k is exact below 2**53, where sizes stay.
        if (a[0]->kind() == ExprKind::FloatTrueDiv && is_int_float(a[0]->arg(0)))
          if (auto k = power_of_two(a[0]->arg(1))) {
            const SymInt n(a[0]->arg(0)->arg(0));
            return (kind == ExprKind::FloorToInt ? floordiv(n, *k) : ceildiv(n, *k)).expr();
          }
        break;
      default: break;
    }
    return rebuild(kind, a);
  }

  OpContext& ctx_;
  std::unordered_map<ExprRef, ExprRef> memo_;
};

}  // namespace

ExprRef settle_float_sizes(OpContext& ctx, ExprRef e) { return SizeSettler(ctx).settle(e); }

ExprRef round_float_expr(DType dt, ExprRef e) {
  if (dt == DType::Float64) return e;
  if (dt == DType::Float32) return to_float32(e);
  return nullptr;
}

std::optional<std::vector<int64_t>> static_shape(std::span<const SymInt> shape) {
  std::vector<int64_t> out;
  out.reserve(shape.size());
  for (const SymInt& d : shape) {
    if (!d.is_static()) return std::nullopt;
    out.push_back(d.value());
  }
  return out;
}

std::optional<int64_t> numel_within(std::span<const int64_t> dims, int64_t cap) {
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) return 0;  // before any overflow a later dim could cause
  }
  int64_t total = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(total, d, &total) || total > cap) return std::nullopt;
  return total;
}

int64_t broadcast_source_index(int64_t flat, const std::vector<int64_t>& out, const std::vector<int64_t>& in) {
  int64_t idx = 0, stride = 1;
  const size_t offset = out.size() - in.size();
  for (size_t k = out.size(); k-- > 0;) {
    const int64_t coord = flat % out[k];
    flat /= out[k];
    if (k >= offset) {
      const int64_t extent = in[k - offset];
      if (extent != 1) idx += coord * stride;
      stride *= extent;
    }
  }
  return idx;
}

std::optional<SymShape> shape_from_input(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return std::nullopt;
  if (ctx.rank(i) != 1) ctx.fail(ErrorKind::InvalidShape, "shape input '" + ctx.input_name(i) + "' must be 1-D");
  auto xs = ctx.ints(i);
  if (!xs) return std::nullopt;
  return SymShape(xs->begin(), xs->end());
}

}  // namespace fakeprop::onnx::ops
