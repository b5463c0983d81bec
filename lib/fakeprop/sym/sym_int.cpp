// SymInt / SymBool: static values take checked-math fast paths that neither
// allocate nor lock; symbolic values go through the interning builders.
#include "fakeprop/sym/sym_int.h"

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

ExprRef require_expr(ExprRef e, const char* what) {
  if (e == nullptr) throw Error(std::string(what) + " from a null expression");
  return e;
}

int64_t static_ceildiv(int64_t a, int64_t b) {
  int64_t q = python_floordiv(a, b);
  return python_mod(a, b) != 0 ? q + 1 : q;
}

template <typename StaticOp, typename SymbolicOp>
SymInt int_op(const SymInt& a, const SymInt& b, StaticOp static_op, SymbolicOp symbolic_op) {
  if (a.is_static() && b.is_static()) return SymInt(static_op(a.value(), b.value()));
  return SymInt(symbolic_op(a.expr(), b.expr()));
}

template <typename StaticOp, typename SymbolicOp>
SymBool compare_op(const SymInt& a, const SymInt& b, StaticOp static_op, SymbolicOp symbolic_op) {
  if (a.is_static() && b.is_static()) return SymBool(static_op(a.value(), b.value()));
  return SymBool(symbolic_op(a.expr(), b.expr()));
}

}  // namespace

SymInt::SymInt(ExprRef e) {
  require_expr(e, "SymInt");
  if (e->is_bool()) throw Error("SymInt from a boolean expression: " + to_sympy_string(e));
  if (e->is_integer()) {
    *this = SymInt(e->value());
  } else {
    bits_ = reinterpret_cast<uint64_t>(e) | kSymbolic;
  }
}

uint64_t SymInt::boxed(int64_t v) {
  const auto p = reinterpret_cast<uint64_t>(integer(v));
  if (p & kTagMask) throw Error("SymInt: an expression node is not 4-byte aligned");
  return p | kBoxed;
}

ExprRef SymInt::expr() const { return (bits_ & kTagMask) ? node() : integer(value()); }
std::string SymInt::to_python() const { return is_symbolic() ? to_python_string(node()) : std::to_string(value()); }
std::string SymInt::to_sympy() const { return is_symbolic() ? to_sympy_string(node()) : std::to_string(value()); }

SymInt operator+(const SymInt& a, const SymInt& b) {
  return int_op(a, b, checked_add, [](ExprRef x, ExprRef y) { return add(x, y); });
}
SymInt operator-(const SymInt& a, const SymInt& b) {
  return int_op(a, b, checked_sub, [](ExprRef x, ExprRef y) { return sub(x, y); });
}
SymInt operator-(const SymInt& a) {
  if (a.is_static()) return SymInt(checked_sub(0, a.value()));
  return SymInt(neg(a.expr()));
}
SymInt operator*(const SymInt& a, const SymInt& b) {
  return int_op(a, b, checked_mul, [](ExprRef x, ExprRef y) { return mul(x, y); });
}
SymInt floordiv(const SymInt& a, const SymInt& b) {
  return int_op(a, b, python_floordiv, [](ExprRef x, ExprRef y) { return floordiv(x, y); });
}
SymInt mod(const SymInt& a, const SymInt& b) {
  return int_op(a, b, python_mod, [](ExprRef x, ExprRef y) { return mod(x, y); });
}
SymInt ceildiv(const SymInt& a, const SymInt& b) {
  return int_op(a, b, static_ceildiv, [](ExprRef x, ExprRef y) { return ceildiv(x, y); });
}
SymInt sym_max(const SymInt& a, const SymInt& b) {
  return int_op(
      a, b, [](int64_t x, int64_t y) { return x > y ? x : y; }, [](ExprRef x, ExprRef y) { return max(x, y); });
}
SymInt sym_min(const SymInt& a, const SymInt& b) {
  return int_op(
      a, b, [](int64_t x, int64_t y) { return x < y ? x : y; }, [](ExprRef x, ExprRef y) { return min(x, y); });
}

SymBool::SymBool(ExprRef e) {
  require_expr(e, "SymBool");
  if (!e->is_bool()) throw Error("SymBool from an integer expression: " + to_sympy_string(e));
  if (e->kind() == ExprKind::BoolConst) {
    bits_ = e->value() != 0 ? kTrue : 0;
  } else {
    bits_ = reinterpret_cast<uint64_t>(e) | kSymbolic;
  }
}

ExprRef SymBool::expr() const { return is_static() ? bool_const(value()) : node(); }
std::string SymBool::to_python() const { return is_static() ? (value() ? "True" : "False") : to_python_string(node()); }
std::string SymBool::to_sympy() const { return is_static() ? (value() ? "True" : "False") : to_sympy_string(node()); }

SymBool sym_eq(const SymInt& a, const SymInt& b) {
  return compare_op(a, b, [](int64_t x, int64_t y) { return x == y; }, [](ExprRef x, ExprRef y) { return eq(x, y); });
}
SymBool sym_ne(const SymInt& a, const SymInt& b) {
  return compare_op(a, b, [](int64_t x, int64_t y) { return x != y; }, [](ExprRef x, ExprRef y) { return ne(x, y); });
}
SymBool sym_lt(const SymInt& a, const SymInt& b) {
  return compare_op(a, b, [](int64_t x, int64_t y) { return x < y; }, [](ExprRef x, ExprRef y) { return lt(x, y); });
}
SymBool sym_le(const SymInt& a, const SymInt& b) {
  return compare_op(a, b, [](int64_t x, int64_t y) { return x <= y; }, [](ExprRef x, ExprRef y) { return le(x, y); });
}
SymBool sym_gt(const SymInt& a, const SymInt& b) {
  return compare_op(a, b, [](int64_t x, int64_t y) { return x > y; }, [](ExprRef x, ExprRef y) { return gt(x, y); });
}
SymBool sym_ge(const SymInt& a, const SymInt& b) {
  return compare_op(a, b, [](int64_t x, int64_t y) { return x >= y; }, [](ExprRef x, ExprRef y) { return ge(x, y); });
}

// A static operand decides or drops out without building anything.
SymBool sym_and(const SymBool& a, const SymBool& b) {
  if (a.is_static()) return a.value() ? b : SymBool(false);
  if (b.is_static()) return b.value() ? a : SymBool(false);
  return SymBool(logical_and(a.expr(), b.expr()));
}
SymBool sym_or(const SymBool& a, const SymBool& b) {
  if (a.is_static()) return a.value() ? SymBool(true) : b;
  if (b.is_static()) return b.value() ? SymBool(true) : a;
  return SymBool(logical_or(a.expr(), b.expr()));
}
SymBool sym_not(const SymBool& a) {
  if (a.is_static()) return SymBool(!a.value());
  return SymBool(logical_not(a.expr()));
}

}  // namespace fakeprop
