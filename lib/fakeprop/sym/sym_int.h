// SymInt / SymBool: a plain value, or an interned expression. A static value
// never allocates; arithmetic on two static values is checked 64-bit math.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "fakeprop/sym/expr.h"

namespace fakeprop {

class SymInt {
 public:
  SymInt() = default;
  SymInt(int64_t v) : value_(v) {}  // NOLINT: implicit by design, like c10::SymInt
  SymInt(int v) : value_(v) {}      // NOLINT
  explicit SymInt(ExprRef e);       // an Integer expression becomes a plain value

  bool is_static() const { return expr_ == nullptr; }
  bool is_symbolic() const { return expr_ != nullptr; }
  // Precondition: is_static().
  int64_t value() const { return value_; }
  std::optional<int64_t> maybe_value() const {
    return is_static() ? std::optional<int64_t>(value_) : std::nullopt;
  }
  // The expression (an interned Integer for static values).
  ExprRef expr() const;
  // Identity: same value or the same interned expression.
  bool same(const SymInt& o) const { return expr_ == o.expr_ && (expr_ || value_ == o.value_); }

  std::string to_python() const;  // "3", "2*s0"
  std::string to_sympy() const;

 private:
  int64_t value_ = 0;
  ExprRef expr_ = nullptr;
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

class SymBool {
 public:
  SymBool() = default;
  SymBool(bool v) : value_(v) {}  // NOLINT
  explicit SymBool(ExprRef e);    // a BoolConst becomes a plain value

  bool is_static() const { return expr_ == nullptr; }
  bool value() const { return value_; }
  std::optional<bool> maybe_value() const { return is_static() ? std::optional<bool>(value_) : std::nullopt; }
  ExprRef expr() const;
  std::string to_python() const;
  std::string to_sympy() const;

 private:
  bool value_ = false;
  ExprRef expr_ = nullptr;
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
