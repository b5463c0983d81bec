// SymInt / SymBool: a plain value, or an interned expression. A static value
// never allocates; arithmetic on two static values is checked 64-bit math.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "fakeprop/sym/expr.h"

namespace fakeprop {

// One word, like c10::SymInt: the two low bits tell what the rest holds.
//   00  a static value in bits 63..2 (|v| < 2^61, every size in practice)
//   01  a symbolic expression: its interned pointer | 1
//   10  a static value too large to inline: its interned Integer node | 2
// Every value has exactly one encoding, so equal words mean the same value.
// Sizes and strides of every recorded tensor are SymInts, so their size is a
// large share of a run's memory.
class SymInt {
 public:
  SymInt() = default;
  SymInt(int64_t v) : bits_(fits_inline(v) ? static_cast<uint64_t>(v) << 2 : boxed(v)) {}  // NOLINT: implicit by design
  SymInt(int v) : bits_(static_cast<uint64_t>(static_cast<int64_t>(v)) << 2) {}           // NOLINT
  explicit SymInt(ExprRef e);  // an Integer expression becomes a static value

  bool is_static() const { return (bits_ & kSymbolic) == 0; }
  bool is_symbolic() const { return (bits_ & kSymbolic) != 0; }
  // Precondition: is_static() (a symbolic value reads as 0).
  int64_t value() const {
    if ((bits_ & kTagMask) == 0) return static_cast<int64_t>(bits_) >> 2;
    return (bits_ & kBoxed) ? node()->value() : 0;
  }
  std::optional<int64_t> maybe_value() const {
    return is_static() ? std::optional<int64_t>(value()) : std::nullopt;
  }
  // The expression (an interned Integer for static values).
  ExprRef expr() const;
  // Identity: same value or the same interned expression.
  bool same(const SymInt& o) const { return bits_ == o.bits_; }

  std::string to_python() const;  // "3", "2*s0"
  std::string to_sympy() const;

 private:
  static constexpr uint64_t kSymbolic = 1, kBoxed = 2, kTagMask = 3;
  static bool fits_inline(int64_t v) { return v >= -(int64_t{1} << 61) && v < (int64_t{1} << 61); }
  static uint64_t boxed(int64_t v);  // the Integer node's pointer | kBoxed
  ExprRef node() const { return reinterpret_cast<ExprRef>(bits_ & ~kTagMask); }

  uint64_t bits_ = 0;
};

SymInt operator+(const SymInt& a, const SymInt& b);
SymInt operator-(const SymInt& a, const SymInt& b);
SymInt operator-(const SymInt& a);
SymInt operator*(const SymInt& a, const SymInt& b);
SymInt floordiv(const SymInt& a, const SymInt& b);
SymInt mod(const SymInt& a, const SymInt& b);
SymInt ceildiv(const SymInt& a, const SymInt& b);
SymInt sym_max(const SymInt& a, const SymInt& b);
SymInt sym_min(const SymInt& a, const SymInt& b);

// One word: 0 false, 2 true, or an interned expression's pointer | 1.
class SymBool {
 public:
  SymBool() = default;
  SymBool(bool v) : bits_(v ? kTrue : 0) {}  // NOLINT
  explicit SymBool(ExprRef e);    // a BoolConst becomes a plain value

  bool is_static() const { return (bits_ & kSymbolic) == 0; }
  bool value() const { return bits_ == kTrue; }  // Precondition: is_static() (a symbolic value reads as false)
  std::optional<bool> maybe_value() const { return is_static() ? std::optional<bool>(value()) : std::nullopt; }
  ExprRef expr() const;
  std::string to_python() const;
  std::string to_sympy() const;

 private:
  static constexpr uint64_t kSymbolic = 1, kTrue = 2;
  ExprRef node() const { return reinterpret_cast<ExprRef>(bits_ & ~kSymbolic); }

  uint64_t bits_ = 0;
};

SymBool sym_eq(const SymInt& a, const SymInt& b);
SymBool sym_ne(const SymInt& a, const SymInt& b);
SymBool sym_lt(const SymInt& a, const SymInt& b);
SymBool sym_le(const SymInt& a, const SymInt& b);
SymBool sym_gt(const SymInt& a, const SymInt& b);
SymBool sym_ge(const SymInt& a, const SymInt& b);
SymBool sym_and(const SymBool& a, const SymBool& b);
SymBool sym_or(const SymBool& a, const SymBool& b);
SymBool sym_not(const SymBool& a);

}  // namespace fakeprop
