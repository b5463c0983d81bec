// Elementwise operators: shapes broadcast (multidirectional), integer data
// folds exactly so shape arithmetic stays symbolic. Covers unary math,
// activations, the softmax family, binary arithmetic, comparisons and logic,
// Where, Clip, Cast/CastLike, Identity and Dropout (opsets 7..21).
#include <cmath>
#include <limits>
#include <optional>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"
#include "fakeprop/sym/python_float.h"

namespace fakeprop::onnx::ops {

namespace {

// ---------------------------------------------------------------------------
// Folding vocabulary: elementwise evaluation of known data under broadcasting.

// Known data of input i in the element representation T.
template <class T>
std::optional<std::vector<T>> known(const OpContext& ctx, size_t i) {
  if constexpr (std::is_same_v<T, SymInt>)
    return ctx.ints(i);
  else if constexpr (std::is_same_v<T, ExprRef>)
    return ctx.float_exprs(i);
  else
    return ctx.floats(i);
}

// Applies `fn` (span<const In> -> optional<Out>) to every output element;
// nullopt when the output is symbolic or too big, an input's data is
// unknown, or `fn` gives up on one element.
template <class In, class Out, class Fn>
std::optional<std::vector<Out>> fold_elems(OpContext& ctx, const std::vector<size_t>& inputs, const SymShape& out_shape,
                                           Fn fn) {
  auto out = static_shape(out_shape);
  if (!out) return std::nullopt;
  const auto count = numel_within(*out, ctx.fold_limit());
  if (!count) return std::nullopt;
  const int64_t total = *count;
  std::vector<std::vector<In>> data;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i : inputs) {
    auto xs = known<In>(ctx, i);
    auto s = static_shape(ctx.shape(i));
    if (!xs || !s) return std::nullopt;
    if (numel_within(*s, static_cast<int64_t>(xs->size())) != static_cast<int64_t>(xs->size())) return std::nullopt;
    data.push_back(std::move(*xs));
    shapes.push_back(std::move(*s));
  }
  std::vector<Out> result;
  result.reserve(static_cast<size_t>(total));
  std::vector<In> args(data.size());
  for (int64_t f = 0; f < total; ++f) {
    for (size_t k = 0; k < data.size(); ++k) args[k] = data[k][static_cast<size_t>(broadcast_source_index(f, *out, shapes[k]))];
    std::optional<Out> r = fn(std::span<const In>(args));
    if (!r) return std::nullopt;
    result.push_back(std::move(*r));
  }
  return result;
}

// A float value as stored in `dt`; nullopt for types whose rounding we do not model.
std::optional<double> as_float_of(DType dt, double x) {
  if (dt == DType::Float64) return x;
  if (dt == DType::Float32) return round_to_float32(x);
  return std::nullopt;
}

// Bit width of an integer dtype (bool: 1), 0 for others.
int bit_width(DType dt) {
  switch (dt) {
    case DType::Bool: return 1;
    case DType::UInt8:
    case DType::Int8: return 8;
    case DType::UInt16:
    case DType::Int16: return 16;
    case DType::UInt32:
    case DType::Int32: return 32;
    case DType::UInt64:
    case DType::Int64: return 64;
    case DType::UInt4:
    case DType::Int4: return 4;
    default: return 0;
  }
}

// A static integer as stored in integer dtype `dt` (two's complement wrap);
// nullopt when it does not fit in int64 (uint64 above INT64_MAX).
std::optional<int64_t> wrap_to(DType dt, int64_t v) {
  const int bits = bit_width(dt);
  if (bits == 0 || bits == 64) {
    if (dt == DType::UInt64 && v < 0) return std::nullopt;
    return v;
  }
  if (dt == DType::Bool) return v != 0 ? 1 : 0;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const uint64_t u = static_cast<uint64_t>(v) & mask;
  if (is_signed(dt) && (u >> (bits - 1)) != 0) return static_cast<int64_t>(u | ~mask);
  return static_cast<int64_t>(u);
}

// An integer result kept as data: static values wrap to the dtype, symbolic
// ones (sizes) are simplified and assumed in range.
std::optional<SymInt> store_int(OpContext& ctx, DType dt, const SymInt& v) {
  if (v.is_static()) {
    auto w = wrap_to(dt, v.value());
    if (!w) return std::nullopt;
    return SymInt(*w);
  }
  if (bit_width(dt) < 32) return std::nullopt;  // a size does not reliably fit
  return simplified(ctx, v);
}

// A condition on known data: statically decided, else a guard on backed
// symbols (as a Python `if` on sizes is), else unknown (unbacked).
std::optional<bool> decide(OpContext& ctx, const SymBool& cond, const char* why) {
  if (cond.is_static()) return cond.value();
  if (auto v = ctx.env().maybe_evaluate_static(cond.expr())) return *v;
  if (!ctx.env().hint(cond.expr())) return std::nullopt;
  return ctx.check(cond, why);
}

// Sign-aware facts about a known integer, without guards.
bool known_nonneg(OpContext& ctx, const SymInt& v) { return known_true(ctx, sym_ge(v, 0)); }
bool known_nonpos(OpContext& ctx, const SymInt& v) { return known_true(ctx, sym_le(v, 0)); }

// Is v >= 0? Statically when possible, else a guard; nullopt when unbacked.
std::optional<bool> nonneg(OpContext& ctx, const SymInt& v, const char* why) {
  if (known_nonneg(ctx, v)) return true;
  if (known_true(ctx, sym_lt(v, 0))) return false;
  return decide(ctx, sym_ge(v, 0), why);
}

// Integer division truncating toward zero (ONNX Div on integers).
std::optional<SymInt> trunc_div(OpContext& ctx, const SymInt& a, const SymInt& b) {
  if (b.is_static() && b.value() == 0) ctx.fail(ErrorKind::DivisionByZero, "integer division by zero");
  if (a.is_static() && b.is_static()) {
    if (a.value() == std::numeric_limits<int64_t>::min() && b.value() == -1)
      throw OverflowError("integer division overflows int64");
    return SymInt(a.value() / b.value());
  }
  auto a_pos = nonneg(ctx, a, "Div: sign of the dividend");
  auto b_pos = nonneg(ctx, b, "Div: sign of the divisor");
  if (!a_pos || !b_pos) return std::nullopt;
  // floor and trunc agree when the signs agree; otherwise negate around floor.
  if (*a_pos && *b_pos) return floordiv(a, b);
  if (!*a_pos && !*b_pos) return floordiv(-a, -b);
  if (*a_pos) return -floordiv(a, -b);
  return -floordiv(-a, b);
}

// Python (sign of divisor) or C (sign of dividend, fmod=1) remainder.
std::optional<SymInt> int_mod(OpContext& ctx, const SymInt& a, const SymInt& b, bool c_fmod) {
  if (b.is_static() && b.value() == 0) ctx.fail(ErrorKind::DivisionByZero, "integer modulo by zero");
  if (!c_fmod) return mod(a, b);
  if (a.is_static() && b.is_static()) {
    if (b.value() == -1) return SymInt(0);
    return SymInt(a.value() % b.value());
  }
  auto q = trunc_div(ctx, a, b);
  if (!q) return std::nullopt;
  return a - b * *q;
}

std::optional<SymInt> int_abs(OpContext& ctx, const SymInt& a) {
  if (known_nonneg(ctx, a)) return a;
  if (known_nonpos(ctx, a)) return -a;
  auto pos = nonneg(ctx, a, "Abs: sign of the operand");
  if (!pos) return std::nullopt;
  return *pos ? a : -a;
}

std::optional<SymInt> int_sign(OpContext& ctx, const SymInt& a) {
  auto zero = decide(ctx, sym_eq(a, 0), "Sign: operand is zero");
  if (!zero) return std::nullopt;
  if (*zero) return SymInt(0);
  auto pos = nonneg(ctx, a, "Sign: sign of the operand");
  if (!pos) return std::nullopt;
  return SymInt(*pos ? 1 : -1);
}

// Static integers only (bitwise ops, shifts, pow).
bool all_static(std::span<const SymInt> xs) {
  for (const SymInt& x : xs)
    if (!x.is_static()) return false;
  return true;
}

// Writes output `out` with optional folded data.
void emit(OpContext& ctx, size_t out, DType dt, SymShape shape, std::optional<KnownData> data) {
  for (SymInt& d : shape) d = simplified(ctx, d);
  if (data)
    ctx.set_tensor(out, dt, std::move(shape), std::move(*data));
  else
    ctx.set_tensor(out, dt, std::move(shape));
}

std::vector<size_t> present_inputs(const OpContext& ctx) {
  std::vector<size_t> out;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) out.push_back(i);
  return out;
}

SymShape broadcast_all(OpContext& ctx, const std::vector<size_t>& inputs) {
  std::vector<SymShape> shapes;
  for (size_t i : inputs) shapes.push_back(ctx.shape(i));
  if (shapes.empty()) ctx.fail(ErrorKind::MissingInput, ctx.op_type() + " needs at least one input");
  return broadcast_shapes(shapes, ctx.env());
}

// Integer, float and float-expression folds of one elementwise operator.
// Any may be null; an expression fold returns nullptr to give up.
using IntFold = std::optional<SymInt> (*)(OpContext&, std::span<const SymInt>);
using FloatFold = std::optional<double> (*)(std::span<const double>);
using ExprFold = ExprRef (*)(std::span<const ExprRef>);

// Output dtype `dt` over broadcast inputs; integer data folds with `ifn`
// (stored in `dt`), float data with `ffn` (rounded to `dt`), and float data
// with symbolic elements (a scale computed from sizes) with `efn`, each
// result rounded as `dt` stores it.
void fold_into(OpContext& ctx, const std::vector<size_t>& inputs, DType in_dt, DType dt, SymShape out, IntFold ifn,
               FloatFold ffn, ExprFold efn = nullptr) {
  std::optional<KnownData> data;
  if (!is_floating(in_dt) && ifn && in_dt != DType::String) {
    auto r = fold_elems<SymInt, SymInt>(ctx, inputs, out, [&](std::span<const SymInt> a) -> std::optional<SymInt> {
      auto v = ifn(ctx, a);
      if (!v) return std::nullopt;
      return store_int(ctx, dt, *v);
    });
    if (r) data = int_data(std::move(*r));
  } else if (is_floating(in_dt) && ffn && is_floating(dt)) {
    auto r = fold_elems<double, double>(ctx, inputs, out, [&](std::span<const double> a) -> std::optional<double> {
      auto v = ffn(a);
      if (!v) return std::nullopt;
      return as_float_of(dt, *v);
    });
    if (r) data = float_data(std::move(*r));
  }
  if (!data && efn && is_floating(in_dt) && is_floating(dt)) {
    auto r = fold_elems<ExprRef, ExprRef>(ctx, inputs, out, [&](std::span<const ExprRef> a) -> std::optional<ExprRef> {
      ExprRef v = efn(a);
      if (!v) return std::nullopt;
      if (ExprRef stored = round_float_expr(dt, v)) return stored;
      return std::nullopt;
    });
    if (r) data = float_expr_data(std::move(*r));
  }
  emit(ctx, 0, dt, std::move(out), std::move(data));
}

// ---------------------------------------------------------------------------
// Unary operators.

template <IntFold ifn, FloatFold ffn, ExprFold efn = nullptr>
void unary(OpContext& ctx) {
  fold_into(ctx, {0}, ctx.dtype(0), ctx.dtype(0), ctx.shape(0), ifn, ffn, efn);
}

template <double (*f)(double)>
std::optional<double> float_unary(std::span<const double> a) {
  return f(a[0]);
}

double neg_f(double x) { return -x; }
double reciprocal_f(double x) { return 1.0 / x; }
double relu_f(double x) { return x > 0 ? x : 0.0; }
double sign_f(double x) { return std::isnan(x) ? x : static_cast<double>((x > 0) - (x < 0)); }
double round_f(double x) { return std::nearbyint(x); }  // half to even under the default rounding mode
double abs_f(double x) { return std::fabs(x); }
double ceil_f(double x) { return std::ceil(x); }
double floor_f(double x) { return std::floor(x); }
double sqrt_f(double x) { return std::sqrt(x); }
double exp_f(double x) { return std::exp(x); }
double log_f(double x) { return std::log(x); }

std::optional<SymInt> neg_i(OpContext&, std::span<const SymInt> a) { return -a[0]; }
std::optional<SymInt> abs_i(OpContext& ctx, std::span<const SymInt> a) { return int_abs(ctx, a[0]); }
std::optional<SymInt> sign_i(OpContext& ctx, std::span<const SymInt> a) { return int_sign(ctx, a[0]); }
std::optional<SymInt> relu_i(OpContext&, std::span<const SymInt> a) { return sym_max(a[0], 0); }
std::optional<SymInt> not_i(OpContext&, std::span<const SymInt> a) {
  if (!a[0].is_static()) return std::nullopt;
  return SymInt(a[0].value() == 0 ? 1 : 0);
}
std::optional<SymInt> bitwise_not_i(OpContext&, std::span<const SymInt> a) {
  if (!a[0].is_static()) return std::nullopt;
  return SymInt(~a[0].value());
}

// Float-only unary math and activations: same shape and dtype.
void float_unary_rule(OpContext& ctx) { same_as_input(ctx); }

void is_inf_nan_rule(OpContext& ctx) { same_shape_as_input(ctx, DType::Bool); }

// Identity passes any value through (tensors keep their known data;
// sequences and optionals, possibly empty, from opset 14/16 pass unchanged).
void identity_rule(OpContext& ctx) {
  const Value& v = ctx.input(0);
  if (!v.is_tensor() || v.optional) return ctx.set_output(0, v);
  const TensorValue& t = *v.tensor;
  if (t.data)
    ctx.set_tensor(0, t.meta.dtype, t.meta.sizes, *t.data);
  else if (t.float_exprs)
    ctx.set_tensor(0, t.meta.dtype, t.meta.sizes, float_expr_data(*t.float_exprs));
  else
    ctx.set_tensor(0, t.meta.dtype, t.meta.sizes);
}

// Softmax / LogSoftmax / Hardmax: same shape. Before 13 the axis coerces to
// 2-D, from 13 it is the reduced axis (the schema's default says which: 1,
// then -1); either way it only affects values. Versions 11+ reject an
// out-of-range axis, 13+ a 0-D input.
template <bool checks_axis, bool needs_rank>
void softmax_rule(OpContext& ctx) {
  const int64_t rank = ctx.rank(0);
  const int64_t axis = ctx.attr_int("axis");
  if (checks_axis) {
    if (needs_rank && rank == 0) ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " needs an input of rank >= 1");
    normalize_axis(ctx, axis, rank);
  }
  same_as_input(ctx);
}

// PRelu: slope broadcasts unidirectionally to X (7+). Before 7 a 1-D
// slope of X's channel count applies per channel (dim 1), and any other
// slope matches X's shape or is a single element.
template <bool per_channel>
void prelu_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const SymShape& slope = ctx.shape(1);
  if (per_channel && slope.size() == 1 && x.size() >= 2 && !known_true(ctx, sym_eq(slope[0], 1)) &&
      !known_true(ctx, sym_eq(slope[0], x.back()))) {
    require(ctx, sym_eq(slope[0], x[1]), "PRelu-6: a 1-D slope has X's channel count", ErrorKind::ShapeMismatch,
            "PRelu slope " + shape_to_string(slope) + " is not per channel of X " + shape_to_string(x));
    same_as_input(ctx);
    return;
  }
  if (slope.size() > x.size())
    ctx.fail(ErrorKind::ShapeMismatch, "PRelu slope " + shape_to_string(slope) + " does not broadcast to X " +
                                           shape_to_string(x));
  const size_t offset = x.size() - slope.size();
  for (size_t k = 0; k < slope.size(); ++k) {
    const SymInt& s = slope[k];
    const SymInt& d = x[offset + k];
    if (known_true(ctx, sym_eq(s, 1))) continue;
    require(ctx, sym_eq(s, d), "PRelu: slope dim equals X's dim or is 1", ErrorKind::ShapeMismatch, "PRelu slope " +
            shape_to_string(slope) + " does not broadcast to X " + shape_to_string(x));
  }
  same_as_input(ctx);
}

// Dropout: output like the input; mask of the same shape (T before 10,
// bool from 10).
template <bool bool_mask>
void dropout_rule(OpContext& ctx) {
  same_as_input(ctx);
  if (ctx.wants_output(1)) same_shape_as_input(ctx, bool_mask ? DType::Bool : ctx.dtype(0), 0, 1);
}

// ---------------------------------------------------------------------------
// Binary and variadic arithmetic.

std::optional<SymInt> add_i(OpContext&, std::span<const SymInt> a) { return a[0] + a[1]; }
std::optional<SymInt> sub_i(OpContext&, std::span<const SymInt> a) { return a[0] - a[1]; }
std::optional<SymInt> mul_i(OpContext&, std::span<const SymInt> a) { return a[0] * a[1]; }
std::optional<SymInt> div_i(OpContext& ctx, std::span<const SymInt> a) { return trunc_div(ctx, a[0], a[1]); }
std::optional<SymInt> pow_i(OpContext&, std::span<const SymInt> a) {
  if (!a[1].is_static() || a[1].value() < 0 || a[1].value() > 64) return std::nullopt;
  if (!a[0].is_static() && a[1].value() > 8) return std::nullopt;
  SymInt r = 1;
  for (int64_t k = 0; k < a[1].value(); ++k) r = r * a[0];
  return r;
}
std::optional<SymInt> sum_i(OpContext&, std::span<const SymInt> a) {
  SymInt r = a[0];
  for (size_t k = 1; k < a.size(); ++k) r = r + a[k];
  return r;
}
std::optional<SymInt> max_i(OpContext&, std::span<const SymInt> a) {
  SymInt r = a[0];
  for (size_t k = 1; k < a.size(); ++k) r = sym_max(r, a[k]);
  return r;
}
std::optional<SymInt> min_i(OpContext&, std::span<const SymInt> a) {
  SymInt r = a[0];
  for (size_t k = 1; k < a.size(); ++k) r = sym_min(r, a[k]);
  return r;
}

std::optional<double> add_f(std::span<const double> a) { return a[0] + a[1]; }
std::optional<double> sub_f(std::span<const double> a) { return a[0] - a[1]; }
std::optional<double> mul_f(std::span<const double> a) { return a[0] * a[1]; }
std::optional<double> div_f(std::span<const double> a) { return a[0] / a[1]; }
std::optional<double> pow_f(std::span<const double> a) { return std::pow(a[0], a[1]); }
std::optional<double> sum_f(std::span<const double> a) {
  double r = 0;
  for (double x : a) r += x;
  return r;
}
std::optional<double> mean_f(std::span<const double> a) { return *sum_f(a) / static_cast<double>(a.size()); }
// NaN propagates through Max/Min (numpy maximum/minimum semantics).
std::optional<double> max_f(std::span<const double> a) {
  double r = a[0];
  for (double x : a) r = (std::isnan(r) || std::isnan(x)) ? std::numeric_limits<double>::quiet_NaN() : std::max(r, x);
  return r;
}
std::optional<double> min_f(std::span<const double> a) {
  double r = a[0];
  for (double x : a) r = (std::isnan(r) || std::isnan(x)) ? std::numeric_limits<double>::quiet_NaN() : std::min(r, x);
  return r;
}

// Float-expression folds: one IEEE double operation each (fold_into rounds
// the result to the tensor's type). A division by a constant zero, which
// ONNX makes an infinity, is left unknown.
ExprRef add_e(std::span<const ExprRef> a) { return float_add(a[0], a[1]); }
ExprRef sub_e(std::span<const ExprRef> a) { return float_sub(a[0], a[1]); }
ExprRef mul_e(std::span<const ExprRef> a) { return float_mul(a[0], a[1]); }
ExprRef div_e(std::span<const ExprRef> a) {
  if (auto d = as_float(a[1]); d && *d == 0) return nullptr;
  return float_truediv(a[0], a[1]);
}
ExprRef pow_e(std::span<const ExprRef> a) {
  if (as_float(a[0]) && as_float(a[1])) return nullptr;  // constants fold with pow_f (IEEE, not Python's errors)
  return float_pow(a[0], a[1]);
}
ExprRef sum_e(std::span<const ExprRef> a) {
  ExprRef r = a[0];
  for (ExprRef x : a.subspan(1)) r = float_add(r, x);
  return r;
}
ExprRef max_e(std::span<const ExprRef> a) { return float_max(a); }
ExprRef min_e(std::span<const ExprRef> a) { return float_min(a); }
ExprRef neg_e(std::span<const ExprRef> a) { return float_neg(a[0]); }
ExprRef reciprocal_e(std::span<const ExprRef> a) {
  if (auto d = as_float(a[0]); d && *d == 0) return nullptr;
  return float_truediv(float_const(1.0), a[0]);
}
ExprRef sqrt_e(std::span<const ExprRef> a) { return float_sqrt(a[0]); }
// Floor, Ceil, Round give a float: the integer converted back. A constant
// element (of a tensor with symbolic ones) folds in IEEE arithmetic, where
// an infinity or NaN stays as it is.
template <ExprRef (*to_int)(ExprRef), double (*fold)(double)>
ExprRef integral_e(std::span<const ExprRef> a) {
  if (auto c = as_float(a[0])) return float_const(fold(*c));
  return to_float(to_int(a[0]));
}

// The output shape of a two-input elementwise op. From opset 7 A and B
// broadcast multidirectionally. Before (Add/Sub/Mul/Div 1 and 6,
// Pow/And/Or/Xor/Equal/Greater/Less 1) broadcast=1 matched B against a
// contiguous run of A's dims starting at `axis` (default: A's last dims), a B
// dim of 1 standing for any, and the output took A's shape; broadcast=0
// wanted equal shapes.
bool legacy_broadcast(const OpContext& ctx) {
  return ctx.declares_attribute("broadcast") && ctx.attr_int("broadcast") != 0;
}

SymShape binary_shape(OpContext& ctx) {
  if (!legacy_broadcast(ctx)) return broadcast_inputs(ctx, {0, 1});
  const SymShape& a = ctx.shape(0);
  const SymShape& b = ctx.shape(1);
  const auto ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
  int64_t axis = ctx.has_attr("axis") ? ctx.attr_int("axis", 0) : ra - rb;
  if (axis < 0) axis += ra;
  if (rb > ra || axis < 0 || axis + rb > ra)
    ctx.fail(ErrorKind::ShapeMismatch, ctx.op_type() + "-" + std::to_string(ctx.opset()) + ": B " +
                                           shape_to_string(b) + " is not a run of A " + shape_to_string(a) +
                                           " at axis " + std::to_string(axis));
  for (int64_t k = 0; k < rb; ++k) {
    const SymInt& d = b[static_cast<size_t>(k)];
    if (known_true(ctx, sym_eq(d, 1))) continue;
    require(ctx, sym_eq(d, a[static_cast<size_t>(axis + k)]), "legacy broadcast: B's dim equals A's or is 1",
            ErrorKind::ShapeMismatch, "B " + shape_to_string(b) + " does not match A " + shape_to_string(a) +
                                          " at axis " + std::to_string(axis));
  }
  return a;
}

// Binary op: broadcast A and B, dtype of A.
template <IntFold ifn, FloatFold ffn, ExprFold efn = nullptr>
void binary(OpContext& ctx) {
  SymShape out = binary_shape(ctx);
  if (legacy_broadcast(ctx)) return emit(ctx, 0, ctx.dtype(0), std::move(out), std::nullopt);  // no numpy-style folds
  fold_into(ctx, {0, 1}, ctx.dtype(0), ctx.dtype(0), std::move(out), ifn, ffn, efn);
}

// Sum / Mean / Max / Min: variadic, broadcast (opset 8+; earlier versions
// required equal shapes, which broadcasting accepts too).
template <IntFold ifn, FloatFold ffn, ExprFold efn = nullptr>
void variadic(OpContext& ctx) {
  const std::vector<size_t> ins = present_inputs(ctx);
  SymShape out = broadcast_all(ctx, ins);
  fold_into(ctx, ins, ctx.dtype(ins[0]), ctx.dtype(ins[0]), std::move(out), ifn, ffn, efn);
}

// Mod: fmod=0 Python remainder (integers only), fmod=1 C fmod.
void mod_rule(OpContext& ctx) {
  SymShape out = broadcast_inputs(ctx, {0, 1});
  const bool c_fmod = ctx.attr_int("fmod") != 0;
  const DType dt = ctx.dtype(0);
  if (is_floating(dt) && !c_fmod) ctx.fail(ErrorKind::InvalidAttribute, "Mod on floating-point inputs needs fmod=1");
  std::optional<KnownData> data;
  if (!is_floating(dt)) {
    auto r = fold_elems<SymInt, SymInt>(ctx, {0, 1}, out, [&](std::span<const SymInt> a) -> std::optional<SymInt> {
      auto v = int_mod(ctx, a[0], a[1], c_fmod);
      if (!v) return std::nullopt;
      return store_int(ctx, dt, *v);
    });
    if (r) data = int_data(std::move(*r));
  } else {
    auto r = fold_elems<double, double>(ctx, {0, 1}, out, [&](std::span<const double> a) {
      return as_float_of(dt, std::fmod(a[0], a[1]));
    });
    if (r) data = float_data(std::move(*r));
  }
  emit(ctx, 0, dt, std::move(out), std::move(data));
}

// BitShift (uint types): direction LEFT or RIGHT; shifted-out bits vanish.
void bitshift_rule(OpContext& ctx) {
  const std::string dir = ctx.attr_string("direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    ctx.fail(ErrorKind::InvalidAttribute, "BitShift direction must be LEFT or RIGHT, got '" + dir + "'");
  SymShape out = broadcast_inputs(ctx, {0, 1});
  const DType dt = ctx.dtype(0);
  const bool left = dir == "LEFT";
  auto r = fold_elems<SymInt, SymInt>(ctx, {0, 1}, out, [&](std::span<const SymInt> a) -> std::optional<SymInt> {
    if (!all_static(a) || a[0].value() < 0 || a[1].value() < 0) return std::nullopt;
    const auto x = static_cast<uint64_t>(a[0].value());
    const int64_t n = a[1].value();
    const uint64_t v = n >= 64 ? 0 : (left ? x << n : x >> n);
    return store_int(ctx, dt, static_cast<int64_t>(v));
  });
  emit(ctx, 0, dt, std::move(out), r ? std::optional<KnownData>(int_data(std::move(*r))) : std::nullopt);
}

enum class BitOp { And, Or, Xor };

// BitwiseAnd/Or/Xor (opset 18) on integers and And/Or/Xor on bools.
template <BitOp op>
std::optional<SymInt> bitwise_i(OpContext&, std::span<const SymInt> a) {
  if (!all_static(a)) return std::nullopt;
  const int64_t x = a[0].value(), y = a[1].value();
  switch (op) {
    case BitOp::And: return SymInt(x & y);
    case BitOp::Or: return SymInt(x | y);
    case BitOp::Xor: return SymInt(x ^ y);
  }
  return std::nullopt;
}

template <BitOp op>
void logical_rule(OpContext& ctx) {
  SymShape out = binary_shape(ctx);
  if (legacy_broadcast(ctx)) return emit(ctx, 0, DType::Bool, std::move(out), std::nullopt);
  fold_into(ctx, {0, 1}, ctx.dtype(0), DType::Bool, std::move(out), bitwise_i<op>, nullptr);
}

void not_rule(OpContext& ctx) { fold_into(ctx, {0}, ctx.dtype(0), DType::Bool, ctx.shape(0), not_i, nullptr); }

// ---------------------------------------------------------------------------
// Comparisons: bool output; known integer data folds, a symbolic comparison
// is decided statically when possible, else guarded like a Python `if`.

enum class Cmp { Eq, Lt, Gt, Le, Ge };

template <Cmp op>
void compare_rule(OpContext& ctx) {
  SymShape out = binary_shape(ctx);
  if (legacy_broadcast(ctx)) return emit(ctx, 0, DType::Bool, std::move(out), std::nullopt);
  std::optional<std::vector<SymInt>> r;
  if (is_floating(ctx.dtype(0)) || is_floating(ctx.dtype(1))) {
    r = fold_elems<double, SymInt>(ctx, {0, 1}, out, [](std::span<const double> a) -> std::optional<SymInt> {
      bool v = false;
      switch (op) {
        case Cmp::Eq: v = a[0] == a[1]; break;
        case Cmp::Lt: v = a[0] < a[1]; break;
        case Cmp::Gt: v = a[0] > a[1]; break;
        case Cmp::Le: v = a[0] <= a[1]; break;
        case Cmp::Ge: v = a[0] >= a[1]; break;
      }
      return SymInt(v ? 1 : 0);
    });
  } else if (ctx.dtype(0) != DType::String) {
    r = fold_elems<SymInt, SymInt>(ctx, {0, 1}, out, [&](std::span<const SymInt> a) -> std::optional<SymInt> {
      SymBool c;
      switch (op) {
        case Cmp::Eq: c = sym_eq(a[0], a[1]); break;
        case Cmp::Lt: c = sym_lt(a[0], a[1]); break;
        case Cmp::Gt: c = sym_gt(a[0], a[1]); break;
        case Cmp::Le: c = sym_le(a[0], a[1]); break;
        case Cmp::Ge: c = sym_ge(a[0], a[1]); break;
      }
      auto v = decide(ctx, c, "comparison of known integer data");
      if (!v) return std::nullopt;
      return SymInt(*v ? 1 : 0);
    });
  }
  emit(ctx, 0, DType::Bool, std::move(out), r ? std::optional<KnownData>(int_data(std::move(*r))) : std::nullopt);
}

// ---------------------------------------------------------------------------
// Where, Clip, Cast.

// Where(cond, X, Y): broadcast of all three, X's dtype; folds when the
// condition is known and the picked side's data is known.
void where_rule(OpContext& ctx) {
  SymShape out = broadcast_inputs(ctx, {0, 1, 2});
  const DType dt = ctx.dtype(1);
  std::optional<KnownData> data;
  auto cond = ctx.static_ints(0);
  auto out_static = static_shape(out);
  auto s0 = static_shape(ctx.shape(0)), s1 = static_shape(ctx.shape(1)), s2 = static_shape(ctx.shape(2));
  if (cond && out_static && s0 && s1 && s2) {
    if (const auto count = numel_within(*out_static, ctx.fold_limit())) {
      const int64_t total = *count;
      const bool floats = is_floating(dt);
      auto xi = floats ? std::nullopt : ctx.ints(1), yi = floats ? std::nullopt : ctx.ints(2);
      auto xf = floats ? ctx.floats(1) : std::nullopt, yf = floats ? ctx.floats(2) : std::nullopt;
      KnownData d;
      d.is_float = floats;
      bool ok = numel(ctx.shape(0)).value() == static_cast<int64_t>(cond->size());
      for (int64_t f = 0; f < total && ok; ++f) {
        const bool pick_x = (*cond)[static_cast<size_t>(broadcast_source_index(f, *out_static, *s0))] != 0;
        const auto src = static_cast<size_t>(broadcast_source_index(f, *out_static, pick_x ? *s1 : *s2));
        if (floats) {
          const auto& side = pick_x ? xf : yf;
          ok = side && src < side->size();
          if (ok) d.floats.push_back((*side)[src]);
        } else {
          const auto& side = pick_x ? xi : yi;
          ok = side && src < side->size();
          if (ok) d.ints.push_back((*side)[src]);
        }
      }
      if (ok) data = std::move(d);
    }
  }
  emit(ctx, 0, dt, std::move(out), std::move(data));
}

// Clip: bounds are attributes min/max before 11, optional inputs 1 and 2
// from 11. Known data clamps as numpy.clip: min(max(x, lo), hi).
void clip_rule(OpContext& ctx) {
  const DType dt = ctx.dtype(0);
  std::optional<KnownData> data;
  auto out_shape = static_shape(ctx.shape(0));
  if (out_shape) {
    if (!ctx.declares_input("min")) {  // attributes before 11
      const double lo = ctx.attr_float("min", -std::numeric_limits<float>::max());
      const double hi = ctx.attr_float("max", std::numeric_limits<float>::max());
      if (auto xs = ctx.floats(0); xs && is_floating(dt)) {
        std::vector<double> ys;
        for (double x : *xs) ys.push_back(std::min(std::max(x, lo), hi));
        data = float_data(std::move(ys));
      }
    } else if (!is_floating(dt)) {
      auto xs = ctx.ints(0);
      std::optional<SymInt> lo, hi;
      bool ok = xs.has_value();
      if (ctx.has_input(1)) ok = ok && (lo = ctx.scalar_int(1)).has_value();
      if (ctx.has_input(2)) ok = ok && (hi = ctx.scalar_int(2)).has_value();
      if (ok) {
        std::vector<SymInt> ys;
        for (SymInt x : *xs) {
          if (lo) x = sym_max(x, *lo);
          if (hi) x = sym_min(x, *hi);
          ys.push_back(simplified(ctx, x));
        }
        data = int_data(std::move(ys));
      }
    } else if (auto xs = ctx.floats(0)) {
      std::optional<std::vector<double>> lo, hi;
      bool ok = true;
      if (ctx.has_input(1)) ok = (lo = ctx.floats(1)).has_value() && lo->size() == 1;
      if (ctx.has_input(2)) ok = ok && (hi = ctx.floats(2)).has_value() && hi->size() == 1;
      if (ok) {
        std::vector<double> ys;
        for (double x : *xs) {
          if (lo) x = std::max(x, (*lo)[0]);
          if (hi) x = std::min(x, (*hi)[0]);
          ys.push_back(x);
        }
        data = float_data(std::move(ys));
      }
    }
  }
  emit(ctx, 0, dt, ctx.shape(0), std::move(data));
}

// Known data of input 0 converted to `to`: ints wrap to the target width,
// floats truncate toward zero into integers, ints become exact doubles.
std::optional<KnownData> cast_data(OpContext& ctx, DType from, DType to) {
  if (from == DType::String || to == DType::String) return std::nullopt;
  std::optional<std::vector<SymInt>> ints;
  std::optional<std::vector<double>> floats;
  if (is_floating(from)) {
    floats = ctx.floats(0);
  } else {
    ints = ctx.ints(0);
  }
  if (is_floating(to)) {
    std::vector<double> out;
    if (floats) {
      for (double x : *floats) {
        auto v = as_float_of(to, x);
        if (!v) return std::nullopt;
        out.push_back(*v);
      }
    } else if (ints) {
      for (const SymInt& x : *ints) {
        if (!x.is_static()) return std::nullopt;
        auto v = as_float_of(to, from == DType::Bool ? (x.value() != 0) : static_cast<double>(x.value()));
        if (!v) return std::nullopt;
        out.push_back(*v);
      }
    } else {
      return std::nullopt;
    }
    return float_data(std::move(out));
  }
  if (bit_width(to) == 0) return std::nullopt;
  std::vector<SymInt> out;
  if (floats) {
    for (double x : *floats) {
      if (to == DType::Bool) {
        out.emplace_back(x != 0 ? 1 : 0);
        continue;
      }
      // Out-of-range float -> int conversion is undefined in ONNX; do not fold it.
      if (!std::isfinite(x) || std::fabs(x) >= 9.2e18) return std::nullopt;
      auto v = wrap_to(to, static_cast<int64_t>(std::trunc(x)));
      if (!v) return std::nullopt;
      out.emplace_back(*v);
    }
  } else if (ints) {
    for (const SymInt& x : *ints) {
      if (to == DType::Bool && !x.is_static()) {
        auto nz = decide(ctx, sym_ne(x, 0), "Cast to bool of known integer data");
        if (!nz) return std::nullopt;
        out.emplace_back(*nz ? 1 : 0);
        continue;
      }
      auto v = store_int(ctx, to, x);
      if (!v) return std::nullopt;
      out.push_back(*v);
    }
  } else {
    return std::nullopt;
  }
  return int_data(std::move(out));
}

// Cast of data with symbolic float elements, or of symbolic integers to a
// float type: ToFloat in, TruncToInt out (ONNX casts float to int toward
// zero), ToFloat32 where float32 stores the value.
std::optional<KnownData> cast_float_exprs(OpContext& ctx, DType from, DType to) {
  if (from == DType::Bool || to == DType::Bool) return std::nullopt;
  if (!is_floating(from) && !is_floating(to)) return std::nullopt;
  auto xs = ctx.float_exprs(0);
  if (!xs) return std::nullopt;
  if (is_floating(to)) {
    for (ExprRef& x : *xs)
      if (!(x = round_float_expr(to, x))) return std::nullopt;
    return float_expr_data(std::move(*xs));
  }
  if (bit_width(to) < 32) return std::nullopt;  // a size does not reliably fit
  std::vector<SymInt> out;
  for (ExprRef x : *xs) {
    // Out-of-range float -> int conversion is undefined in ONNX; do not fold it.
    if (auto c = as_float(x); c && (!std::isfinite(*c) || std::fabs(*c) >= 9.2e18)) return std::nullopt;
    out.push_back(simplified(ctx, SymInt(settle_float_sizes(ctx, trunc_to_int(x)))));
  }
  return int_data(std::move(out));
}

void cast_to(OpContext& ctx, DType to) {
  std::optional<KnownData> data = cast_data(ctx, ctx.dtype(0), to);
  if (!data) data = cast_float_exprs(ctx, ctx.dtype(0), to);
  emit(ctx, 0, to, ctx.shape(0), std::move(data));
}

// Cast: `to` attribute (opset 19's saturate only affects float8 values).
void cast_rule(OpContext& ctx) {
  const int64_t to = ctx.required_attr_int("to");
  auto dt = dtype_from_onnx(static_cast<int32_t>(to));
  if (!dt || *dt == DType::Undefined)
    ctx.fail(ErrorKind::InvalidAttribute, "Cast to unknown element type " + std::to_string(to));
  cast_to(ctx, *dt);
}

// CastLike (opset 15): the target type is input 1's.
void cast_like_rule(OpContext& ctx) { cast_to(ctx, ctx.dtype(1)); }

// Bits per element as stored (bool: 8), for BitCast.
int64_t storage_bits(DType t) {
  switch (t) {
    case DType::UInt4: case DType::Int4: case DType::Float4_e2m1fn_x2: return 4;  // ONNX's 4-bit types
    default: return element_size(t) * 8;
  }
}

// BitCast (opset 26): the same shape in `to`, a type of the input's bit width.
void bit_cast_rule(OpContext& ctx) {
  const int64_t to = ctx.required_attr_int("to");
  const auto dt = dtype_from_onnx(static_cast<int32_t>(to));
  if (!dt || *dt == DType::Undefined || *dt == DType::String)
    ctx.fail(ErrorKind::InvalidAttribute, "BitCast to element type " + std::to_string(to) + " is not possible");
  if (ctx.dtype(0) == DType::String) ctx.fail(ErrorKind::TypeError, "BitCast of a string tensor");
  if (storage_bits(*dt) != storage_bits(ctx.dtype(0)))
    ctx.fail(ErrorKind::TypeError, "BitCast from " + std::string(dtype_name(ctx.dtype(0))) + " to " +
                                       std::string(dtype_name(*dt)) + " changes the bit width");
  same_shape_as_input(ctx, *dt);
}

// StringConcat (opset 20): the broadcast shape, strings.
void string_concat_rule(OpContext& ctx) {
  if (ctx.dtype(0) != DType::String || ctx.dtype(1) != DType::String)
    ctx.fail(ErrorKind::TypeError, "StringConcat needs string inputs");
  ctx.set_tensor(0, DType::String, broadcast_inputs(ctx, {0, 1}));
}

// RegexFullMatch (opset 20): one bool per string.
void regex_full_match_rule(OpContext& ctx) {
  if (ctx.dtype(0) != DType::String) ctx.fail(ErrorKind::TypeError, "RegexFullMatch needs a string input");
  same_shape_as_input(ctx, DType::Bool);
}

}  // namespace

std::span<const OpRuleEntry> elementwise_rules() {
  static constexpr OpRuleEntry kRules[] = {
      // Arithmetic.
      {"", "Add", binary<add_i, add_f, add_e>},
      {"", "Sub", binary<sub_i, sub_f, sub_e>},
      {"", "Mul", binary<mul_i, mul_f, mul_e>},
      {"", "Div", binary<div_i, div_f, div_e>},
      {"", "Pow", binary<pow_i, pow_f, pow_e>},  // dtype of the base
      {"", "Mod", mod_rule},
      {"", "Sum", variadic<sum_i, sum_f, sum_e>},
      {"", "Mean", variadic<nullptr, mean_f>},
      {"", "Max", variadic<max_i, max_f, max_e>},
      {"", "Min", variadic<min_i, min_f, min_e>},
      {"", "BitShift", bitshift_rule},
      {"", "BitwiseAnd", binary<bitwise_i<BitOp::And>, nullptr>},
      {"", "BitwiseOr", binary<bitwise_i<BitOp::Or>, nullptr>},
      {"", "BitwiseXor", binary<bitwise_i<BitOp::Xor>, nullptr>},
      {"", "And", logical_rule<BitOp::And>},
      {"", "Or", logical_rule<BitOp::Or>},
      {"", "Xor", logical_rule<BitOp::Xor>},
      {"", "Not", not_rule},
      {"", "BitwiseNot", unary<bitwise_not_i, nullptr>},
      // Comparisons.
      {"", "Equal", compare_rule<Cmp::Eq>},
      {"", "Less", compare_rule<Cmp::Lt>},
      {"", "Greater", compare_rule<Cmp::Gt>},
      {"", "LessOrEqual", compare_rule<Cmp::Le>},
      {"", "GreaterOrEqual", compare_rule<Cmp::Ge>},
      // Unary math with folds.
      {"", "Neg", unary<neg_i, float_unary<neg_f>, neg_e>},
      {"", "Abs", unary<abs_i, float_unary<abs_f>>},
      {"", "Sign", unary<sign_i, float_unary<sign_f>>},
      {"", "Relu", unary<relu_i, float_unary<relu_f>>},
      {"", "Ceil", unary<nullptr, float_unary<ceil_f>, integral_e<ceil_to_int, ceil_f>>},
      {"", "Floor", unary<nullptr, float_unary<floor_f>, integral_e<floor_to_int, floor_f>>},
      {"", "Round", unary<nullptr, float_unary<round_f>, integral_e<round_to_int, round_f>>},
      {"", "Sqrt", unary<nullptr, float_unary<sqrt_f>, sqrt_e>},
      {"", "Reciprocal", unary<nullptr, float_unary<reciprocal_f>, reciprocal_e>},
      {"", "Exp", unary<nullptr, float_unary<exp_f>>},
      {"", "Log", unary<nullptr, float_unary<log_f>>},
      // Unary math and activations without folds: same shape and dtype.
      {"", "Acos", float_unary_rule},
      {"", "Acosh", float_unary_rule},
      {"", "Asin", float_unary_rule},
      {"", "Asinh", float_unary_rule},
      {"", "Atan", float_unary_rule},
      {"", "Atanh", float_unary_rule},
      {"", "Cos", float_unary_rule},
      {"", "Cosh", float_unary_rule},
      {"", "Erf", float_unary_rule},
      {"", "Sin", float_unary_rule},
      {"", "Sinh", float_unary_rule},
      {"", "Tan", float_unary_rule},
      {"", "Tanh", float_unary_rule},
      {"", "LeakyRelu", float_unary_rule},
      {"", "Elu", float_unary_rule},
      {"", "Selu", float_unary_rule},
      {"", "Celu", float_unary_rule},
      {"", "ThresholdedRelu", float_unary_rule},
      {"", "HardSigmoid", float_unary_rule},
      {"", "HardSwish", float_unary_rule},
      {"", "Sigmoid", float_unary_rule},
      {"", "Softplus", float_unary_rule},
      {"", "Softsign", float_unary_rule},
      {"", "Mish", float_unary_rule},
      {"", "Gelu", float_unary_rule},
      {"", "Shrink", float_unary_rule},
      {"", "Swish", float_unary_rule},
      {"", "IsInf", is_inf_nan_rule},
      {"", "IsNaN", is_inf_nan_rule},
      {"", "PRelu", prelu_rule<true>},
      {"", "PRelu", prelu_rule<false>, 7},
      {"", "Softmax", softmax_rule<false, false>},
      {"", "Softmax", softmax_rule<true, false>, 11},
      {"", "Softmax", softmax_rule<true, true>, 13},
      {"", "LogSoftmax", softmax_rule<false, false>},
      {"", "LogSoftmax", softmax_rule<true, false>, 11},
      {"", "LogSoftmax", softmax_rule<true, true>, 13},
      {"", "Hardmax", softmax_rule<false, false>},
      {"", "Hardmax", softmax_rule<true, false>, 11},
      {"", "Hardmax", softmax_rule<true, true>, 13},
      {"", "Identity", identity_rule},
      {"", "Dropout", dropout_rule<false>},
      {"", "Dropout", dropout_rule<true>, 10},
      {"", "Where", where_rule},
      {"", "Clip", clip_rule},
      {"", "Cast", cast_rule},
      {"", "CastLike", cast_like_rule},
      {"", "BitCast", bit_cast_rule},
      // Strings.
      {"", "StringConcat", string_concat_rule},
      {"", "RegexFullMatch", regex_full_match_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
