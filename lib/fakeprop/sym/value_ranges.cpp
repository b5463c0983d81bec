// Saturating, infinity-aware integer interval arithmetic. kIntOo / kNegIntOo
// are the infinite ends; a finite result past 64 bits becomes the infinite
// end on its side, so every bound stays sound (never narrower than the truth).
#include "fakeprop/sym/value_ranges.h"

#include "fakeprop/sym/python_float.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

bool is_inf(int64_t v) { return v == kIntOo || v == kNegIntOo; }
int sign(int64_t v) { return (v > 0) - (v < 0); }
int64_t infinity_with_sign(int s) { return s >= 0 ? kIntOo : kNegIntOo; }

ValueRange empty_range() { return {1, 0}; }

// x + y for bounds; `upper` picks the sound side for oo + -oo.
int64_t bound_add(int64_t x, int64_t y, bool upper) {
  bool xi = is_inf(x), yi = is_inf(y);
  if (xi && yi && x != y) return upper ? kIntOo : kNegIntOo;
  if (xi) return x;
  if (yi) return y;
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) return infinity_with_sign(sign(x));
  return r;
}

// x * y for bounds with 0 * oo == 0.
int64_t bound_mul(int64_t x, int64_t y) {
  if (x == 0 || y == 0) return 0;
  if (is_inf(x) || is_inf(y)) return infinity_with_sign(sign(x) * sign(y));
  int64_t r;
  if (__builtin_mul_overflow(x, y, &r)) return infinity_with_sign(sign(x) * sign(y));
  return r;
}

int64_t bound_neg(int64_t x) {
  if (x == kIntOo) return kNegIntOo;
  if (x == kNegIntOo) return kIntOo;
  return -x;  // finite values are > INT64_MIN
}

// x ** exponent (exponent >= 1) for a bound; overflow saturates by the result's sign.
int64_t bound_pow(int64_t x, int64_t exponent) {
  int result_sign = (x < 0 && exponent % 2 == 1) ? -1 : 1;
  if (x == 0 || x == 1) return x;
  if (x == -1) return result_sign;
  if (is_inf(x)) return infinity_with_sign(result_sign);
  int64_t r = 1;
  for (int64_t i = 0; i < exponent; ++i)  // |x| >= 2: overflows within 63 steps
    if (__builtin_mul_overflow(r, x, &r)) return infinity_with_sign(result_sign);
  return r;
}

// floor(x / y) for a bound x and a divisor bound y >= 1 (y may be +oo).
// `upper` says which side of an indeterminate oo/oo to take.
int64_t bound_floordiv_positive(int64_t x, int64_t y, bool upper) {
  if (y == kIntOo) {
    if (x == kIntOo) return upper ? kIntOo : 0;
    if (x == kNegIntOo) return upper ? -1 : kNegIntOo;
    return x >= 0 ? 0 : -1;
  }
  if (is_inf(x)) return x;
  return python_floordiv(x, y);
}

// a // b for b entirely >= 1.
ValueRange floordiv_positive(ValueRange a, ValueRange b) {
  // floor(x/y) rises with x; for y > 0 it falls with y when x >= 0, rises when x < 0.
  int64_t lo = bound_floordiv_positive(a.lo, a.lo >= 0 ? b.hi : b.lo, false);
  int64_t hi = bound_floordiv_positive(a.hi, a.hi >= 0 ? b.lo : b.hi, true);
  return {lo, hi};
}

// a % b for b entirely >= 1: Python's result lies in [0, b - 1].
ValueRange mod_positive(ValueRange a, ValueRange b) {
  if (b.is_singleton() && !a.lo_infinite() && !a.hi_infinite()) {
    int64_t c = b.lo;
    // Within one block [k*c, (k+1)*c) the remainder is monotone.
    if (python_floordiv(a.lo, c) == python_floordiv(a.hi, c)) return {python_mod(a.lo, c), python_mod(a.hi, c)};
  }
  int64_t hi = b.hi_infinite() ? kIntOo : b.hi - 1;
  if (a.lo >= 0) {
    if (a.hi < b.lo) return a;  // already smaller than every divisor
    hi = std::min(hi, a.hi);
  }
  return {0, hi};
}

// Apply `op`, defined for divisors >= 1, to any divisor range by splitting it
// at zero (a zero divisor raises at run time, so it contributes no value).
template <typename PositiveOp, typename NegativeOp>
ValueRange split_divisor(ValueRange a, ValueRange b, PositiveOp positive, NegativeOp negative) {
  if (a.is_empty() || b.is_empty()) return empty_range();
  ValueRange result = empty_range();
  bool any = false;
  if (b.hi >= 1) {
    result = positive(a, ValueRange{std::max<int64_t>(b.lo, 1), b.hi});
    any = true;
  }
  if (b.lo <= -1) {
    ValueRange part = negative(a, ValueRange{b.lo, std::min<int64_t>(b.hi, -1)});
    result = any ? result.hull(part) : part;
    any = true;
  }
  return any ? result : ValueRange::unknown();  // divisor exactly 0: no value
}

ValueRange range_from_flags(bool can_be_true, bool can_be_false) {
  if (!can_be_false) return ValueRange::exactly(1);
  if (!can_be_true) return ValueRange::exactly(0);
  return ValueRange::boolean();
}

}  // namespace

ValueRange ValueRange::intersect(const ValueRange& o) const { return {std::max(lo, o.lo), std::min(hi, o.hi)}; }

ValueRange ValueRange::hull(const ValueRange& o) const {
  if (is_empty()) return o;
  if (o.is_empty()) return *this;
  return {std::min(lo, o.lo), std::max(hi, o.hi)};
}

std::string ValueRange::to_string() const {
  auto end = [](int64_t v) -> std::string {
    if (v == kIntOo) return "int_oo";
    if (v == kNegIntOo) return "-int_oo";
    return std::to_string(v);
  };
  return "[" + end(lo) + ", " + end(hi) + "]";
}

ValueRange range_add(ValueRange a, ValueRange b) {
  if (a.is_empty() || b.is_empty()) return empty_range();
  return {bound_add(a.lo, b.lo, false), bound_add(a.hi, b.hi, true)};
}

ValueRange range_neg(ValueRange a) {
  if (a.is_empty()) return empty_range();
  return {bound_neg(a.hi), bound_neg(a.lo)};
}

ValueRange range_mul(ValueRange a, ValueRange b) {
  if (a.is_empty() || b.is_empty()) return empty_range();
  std::array<int64_t, 4> corners{bound_mul(a.lo, b.lo), bound_mul(a.lo, b.hi), bound_mul(a.hi, b.lo),
                                 bound_mul(a.hi, b.hi)};
  return {*std::min_element(corners.begin(), corners.end()), *std::max_element(corners.begin(), corners.end())};
}

ValueRange range_mul(ValueRange a, int64_t c) { return range_mul(a, ValueRange::exactly(c)); }

ValueRange range_pow(ValueRange a, int64_t exponent) {
  if (exponent < 0) throw Error("range_pow: negative exponent");
  if (a.is_empty()) return empty_range();
  if (exponent == 0) return ValueRange::exactly(1);
  int64_t plo = bound_pow(a.lo, exponent), phi = bound_pow(a.hi, exponent);
  if (exponent % 2 == 1 || a.lo >= 0) return {plo, phi};  // monotone
  if (a.hi <= 0) return {phi, plo};                       // even power, decreasing
  return {0, std::max(plo, phi)};                         // even power across zero
}

ValueRange range_floordiv(ValueRange a, ValueRange b) {
  return split_divisor(a, b, floordiv_positive, [](ValueRange x, ValueRange y) {
    return floordiv_positive(range_neg(x), range_neg(y));  // x // y == (-x) // (-y)
  });
}

ValueRange range_ceildiv(ValueRange a, ValueRange b) {
  // ceil(x / y) == -floor(-x / y)
  return range_neg(range_floordiv(range_neg(a), b));
}

ValueRange range_mod(ValueRange a, ValueRange b) {
  return split_divisor(a, b, mod_positive, [](ValueRange x, ValueRange y) {
    return range_neg(mod_positive(range_neg(x), range_neg(y)));  // x % y == -((-x) % (-y))
  });
}

ValueRange range_max(ValueRange a, ValueRange b) {
  if (a.is_empty() || b.is_empty()) return empty_range();
  return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
}

ValueRange range_min(ValueRange a, ValueRange b) {
  if (a.is_empty() || b.is_empty()) return empty_range();
  return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
}

FloatRange FloatRange::of(const ValueRange& r) {
  FloatRange f;
  if (r.is_empty()) return f;
  if (!r.lo_infinite()) f.lo = static_cast<double>(r.lo);
  if (!r.hi_infinite()) f.hi = static_cast<double>(r.hi);
  return f;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The hull of op over the four corners. An infinite end stands for
// "unbounded": a corner without a value (0 * oo, oo / oo) is left out, as
// interval arithmetic does; the corners beside it hold the extremes.
template <typename Op>
FloatRange corners(const FloatRange& a, const FloatRange& b, Op op) {
  const double c[4] = {op(a.lo, b.lo), op(a.lo, b.hi), op(a.hi, b.lo), op(a.hi, b.hi)};
  FloatRange r{kInf, -kInf};
  for (double x : c) {
    if (std::isnan(x)) continue;
    r.lo = std::min(r.lo, x);
    r.hi = std::max(r.hi, x);
  }
  return r.lo > r.hi ? FloatRange::unknown() : r;
}

// An integer bound from a float one through a monotone rounding `to_int`;
// ends beyond int64 become infinite.
template <typename Round>
ValueRange to_int_range(const FloatRange& f, Round to_int) {
  auto end = [&](double x, int64_t infinite) {
    if (std::isnan(x) || std::isinf(x)) return infinite;
    const double r = to_int(x);
    if (r < -9223372036854775808.0) return kNegIntOo;
    if (r >= 9223372036854775808.0) return kIntOo;
    return static_cast<int64_t>(r);
  };
  return {end(f.lo, kNegIntOo), end(f.hi, kIntOo)};
}

double round_half_even(double x) {
  double r = std::round(x);
  if (std::fabs(x - r) == 0.5) r = 2.0 * std::round(x / 2.0);
  return r;
}

}  // namespace

FloatRange bound_float_expr(ExprRef e, const SymbolRanges& symbol_range) {
  auto bound = [&](ExprRef x) { return bound_float_expr(x, symbol_range); };
  if (!e->is_float()) return FloatRange::of(bound_expr(e, symbol_range));
  switch (e->kind()) {
    case ExprKind::FloatConst: return {e->float_value(), e->float_value()};
    case ExprKind::ToFloat: return FloatRange::of(bound_expr(e->arg(0), symbol_range));
    case ExprKind::FloatAdd: {
      FloatRange a = bound(e->arg(0)), b = bound(e->arg(1));
      FloatRange r{a.lo + b.lo, a.hi + b.hi};
      if (std::isnan(r.lo)) r.lo = -kInf;
      if (std::isnan(r.hi)) r.hi = kInf;
      return r;
    }
    case ExprKind::FloatMul: return corners(bound(e->arg(0)), bound(e->arg(1)), [](double x, double y) { return x * y; });
    case ExprKind::FloatTrueDiv:
    case ExprKind::IntTrueDiv: {
      FloatRange a = bound(e->arg(0)), b = bound(e->arg(1));
      // A nonnegative quotient over a divisor in [0, hi]: at 0 the division
      // fails, elsewhere it is at least a.lo / hi.
      if (a.lo >= 0 && b.lo == 0 && b.hi > 0) return {a.lo / b.hi, kInf};
      if (b.lo <= 0 && b.hi >= 0) return FloatRange::unknown();
      return corners(a, b, [](double x, double y) { return x / y; });
    }
    case ExprKind::FloatPow: {
      // A nonnegative base to a constant power is monotone in the base.
      FloatRange a = bound(e->arg(0));
      auto k = as_float(e->arg(1));
      if (!k || a.lo < 0 || (*k < 0 && a.lo == 0)) return FloatRange::unknown();
      FloatRange r{std::pow(a.lo, *k), std::pow(a.hi, *k)};
      if (*k < 0) std::swap(r.lo, r.hi);
      return r;
    }
    case ExprKind::FloatSqrt: {  // monotone; NaN below 0
      FloatRange a = bound(e->arg(0));
      if (!(a.lo >= 0)) return FloatRange::unknown();
      return {std::sqrt(a.lo), std::sqrt(a.hi)};
    }
    case ExprKind::ToFloat32: {  // rounding is monotone
      FloatRange a = bound(e->arg(0));
      return {round_to_float32(a.lo), round_to_float32(a.hi)};
    }
    case ExprKind::FloatMax:
    case ExprKind::FloatMin: {
      const bool is_max = e->kind() == ExprKind::FloatMax;
      FloatRange r = bound(e->arg(0));
      for (ExprRef a : e->args().subspan(1)) {
        FloatRange b = bound(a);
        r = is_max ? FloatRange{std::max(r.lo, b.lo), std::max(r.hi, b.hi)}
                   : FloatRange{std::min(r.lo, b.lo), std::min(r.hi, b.hi)};
      }
      return r;
    }
    default: return FloatRange::unknown();  // a float symbol
  }
}

ValueRange bound_expr(ExprRef e, const SymbolRanges& symbol_range) {
  auto bound = [&](ExprRef x) { return bound_expr(x, symbol_range); };
  auto bound_float = [&](ExprRef x) { return bound_float_expr(x, symbol_range); };
  if (e->is_float()) throw Error("bound_expr: " + to_sympy_string(e) + " is a float (bound_float_expr bounds it)");
  if (e->is_relation() && e->arg(0)->is_float()) {
    FloatRange a = bound_float(e->arg(0)), b = bound_float(e->arg(1));
    const bool disjoint = a.hi < b.lo || b.hi < a.lo, same_point = a.is_singleton() && a == b;
    switch (e->kind()) {
      case ExprKind::Eq: return range_from_flags(!disjoint, !same_point);
      case ExprKind::Ne: return range_from_flags(!same_point, !disjoint);
      case ExprKind::Lt: return range_from_flags(a.lo < b.hi, a.hi >= b.lo);
      case ExprKind::Le: return range_from_flags(a.lo <= b.hi, a.hi > b.lo);
      case ExprKind::Gt: return range_from_flags(a.hi > b.lo, a.lo <= b.hi);
      default: return range_from_flags(a.hi >= b.lo, a.lo < b.hi);
    }
  }
  switch (e->kind()) {
    case ExprKind::FloorToInt: return to_int_range(bound_float(e->arg(0)), [](double x) { return std::floor(x); });
    case ExprKind::CeilToInt: return to_int_range(bound_float(e->arg(0)), [](double x) { return std::ceil(x); });
    case ExprKind::TruncToInt: return to_int_range(bound_float(e->arg(0)), [](double x) { return std::trunc(x); });
    case ExprKind::RoundToInt: return to_int_range(bound_float(e->arg(0)), round_half_even);
    case ExprKind::FloatConst:
    case ExprKind::ToFloat:
    case ExprKind::FloatAdd:
    case ExprKind::FloatMul:
    case ExprKind::FloatTrueDiv:
    case ExprKind::IntTrueDiv:
    case ExprKind::FloatPow:
    case ExprKind::FloatSqrt:
    case ExprKind::ToFloat32:
    case ExprKind::FloatMax:
    case ExprKind::FloatMin: return ValueRange::unknown();  // floats: refused above
    case ExprKind::Integer:
    case ExprKind::BoolConst: return ValueRange::exactly(e->value());
    case ExprKind::Symbol: return symbol_range(e);
    case ExprKind::Add: {
      ValueRange r = ValueRange::exactly(e->value());
      for (const auto& [t, c] : e->terms()) r = range_add(r, range_mul(bound(t), c));
      return r;
    }
    case ExprKind::Mul: {
      ValueRange r = ValueRange::exactly(e->value());
      for (const auto& [b, k] : e->terms()) r = range_mul(r, range_pow(bound(b), k));
      return r;
    }
    case ExprKind::FloorDiv: return range_floordiv(bound(e->arg(0)), bound(e->arg(1)));
    case ExprKind::Mod: return range_mod(bound(e->arg(0)), bound(e->arg(1)));
    case ExprKind::CeilDiv: return range_ceildiv(bound(e->arg(0)), bound(e->arg(1)));
    case ExprKind::Max:
    case ExprKind::Min: {
      ValueRange r = bound(e->arg(0));
      for (ExprRef a : e->args().subspan(1))
        r = e->kind() == ExprKind::Max ? range_max(r, bound(a)) : range_min(r, bound(a));
      return r;
    }
    case ExprKind::Eq:
    case ExprKind::Ne:
    case ExprKind::Lt:
    case ExprKind::Le:
    case ExprKind::Gt:
    case ExprKind::Ge: {
      // Bounding lhs - rhs lets common terms cancel: s0 < s0 + s1 with s1 >= 1.
      ValueRange d;
      try {
        d = bound(sub(e->arg(0), e->arg(1)));
      } catch (const OverflowError&) {  // lhs - rhs has no 64-bit coefficients
        d = range_add(bound(e->arg(0)), range_neg(bound(e->arg(1))));
      }
      if (d.is_empty()) return ValueRange::boolean();
      switch (e->kind()) {
        case ExprKind::Eq: return range_from_flags(d.contains(0), !(d.lo == 0 && d.hi == 0));
        case ExprKind::Ne: return range_from_flags(!(d.lo == 0 && d.hi == 0), d.contains(0));
        case ExprKind::Lt: return range_from_flags(d.lo < 0, d.hi >= 0);
        case ExprKind::Le: return range_from_flags(d.lo <= 0, d.hi > 0);
        case ExprKind::Gt: return range_from_flags(d.hi > 0, d.lo <= 0);
        default: return range_from_flags(d.hi >= 0, d.lo < 0);
      }
    }
    case ExprKind::And:
    case ExprKind::Or: {
      bool is_and = e->kind() == ExprKind::And;
      bool all_decided = true;
      for (ExprRef a : e->args()) {
        ValueRange r = bound(a);
        if (r == ValueRange::exactly(is_and ? 0 : 1)) return r;  // absorbing
        if (!r.is_singleton()) all_decided = false;
      }
      return all_decided ? ValueRange::exactly(is_and ? 1 : 0) : ValueRange::boolean();
    }
    case ExprKind::Not: {
      ValueRange r = bound(e->arg(0));
      if (r.is_singleton()) return ValueRange::exactly(r.lo == 0 ? 1 : 0);
      return ValueRange::boolean();
    }
  }
  return ValueRange::unknown();
}

}  // namespace fakeprop
