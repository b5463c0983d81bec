// Integer intervals with infinite ends, and the bound of an expression
// computed from its symbols' intervals. Arithmetic is infinity-aware and
// saturating: a finite result that would overflow becomes the infinite end,
// which keeps every bound sound.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "fakeprop/sym/expr.h"

namespace fakeprop {

inline constexpr int64_t kIntOo = std::numeric_limits<int64_t>::max();      // int_oo
inline constexpr int64_t kNegIntOo = std::numeric_limits<int64_t>::min();   // -int_oo

struct ValueRange {
  int64_t lo = kNegIntOo;
  int64_t hi = kIntOo;

  static ValueRange unknown() { return {}; }
  static ValueRange exactly(int64_t v) { return {v, v}; }
  static ValueRange boolean() { return {0, 1}; }

  bool is_singleton() const { return lo == hi; }
  bool is_empty() const { return lo > hi; }
  bool lo_infinite() const { return lo == kNegIntOo; }
  bool hi_infinite() const { return hi == kIntOo; }
  bool contains(int64_t v) const { return lo <= v && v <= hi; }
  bool contains(const ValueRange& o) const { return lo <= o.lo && o.hi <= hi; }
  bool operator==(const ValueRange&) const = default;

  ValueRange intersect(const ValueRange& o) const;
  ValueRange hull(const ValueRange& o) const;  // smallest interval holding both

  // "[2, int_oo]" as PyTorch prints it.
  std::string to_string() const;
};

ValueRange range_add(ValueRange a, ValueRange b);
ValueRange range_neg(ValueRange a);
ValueRange range_mul(ValueRange a, ValueRange b);
ValueRange range_mul(ValueRange a, int64_t c);
ValueRange range_pow(ValueRange a, int64_t exponent);
ValueRange range_floordiv(ValueRange a, ValueRange b);
ValueRange range_ceildiv(ValueRange a, ValueRange b);
ValueRange range_mod(ValueRange a, ValueRange b);
ValueRange range_max(ValueRange a, ValueRange b);
ValueRange range_min(ValueRange a, ValueRange b);

using SymbolRanges = std::function<ValueRange(ExprRef)>;

// Interval of a float expression: closed, with infinite ends. IEEE rounding
// is monotone, so rounding the ends of an interval as the operation rounds
// its value keeps the bound sound.
struct FloatRange {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  static FloatRange unknown() { return {}; }
  static FloatRange of(const ValueRange& r);  // ToFloat of an integer range
  bool is_singleton() const { return lo == hi; }
  bool operator==(const FloatRange&) const = default;
};

// Interval of a float expression `e` (an integer one is converted). A
// division whose divisor interval holds 0 is unknown.
FloatRange bound_float_expr(ExprRef e, const SymbolRanges& symbol_range);

// Interval of values `e` may take when each free symbol ranges over
// `symbol_range(sym)`. Boolean expressions give a subrange of [0, 1]
// (exactly(1): provably true, exactly(0): provably false).
ValueRange bound_expr(ExprRef e, const SymbolRanges& symbol_range);

}  // namespace fakeprop
