// Temporary stubs so the project links; replaced by the real engine.
#include "fakeprop/sym/expr.h"

#include "fakeprop/util/error.h"

namespace fakeprop {

[[noreturn]] static void todo() { throw Error("expr: not implemented yet"); }

Expr::Expr(ExprKind kind, int64_t value, std::string name, std::vector<Term> terms, std::vector<ExprRef> args)
    : kind_(kind), value_(value), name_(std::move(name)), terms_(std::move(terms)), args_(std::move(args)) {}

ExprRef integer(int64_t) { todo(); }
ExprRef symbol(std::string_view) { todo(); }
ExprRef bool_const(bool) { todo(); }
ExprRef true_expr() { todo(); }
ExprRef false_expr() { todo(); }
ExprRef add(ExprRef, ExprRef) { todo(); }
ExprRef sub(ExprRef, ExprRef) { todo(); }
ExprRef neg(ExprRef) { todo(); }
ExprRef mul(ExprRef, ExprRef) { todo(); }
ExprRef mul(ExprRef, int64_t) { todo(); }
ExprRef pow(ExprRef, int64_t) { todo(); }
ExprRef floordiv(ExprRef, ExprRef) { todo(); }
ExprRef mod(ExprRef, ExprRef) { todo(); }
ExprRef ceildiv(ExprRef, ExprRef) { todo(); }
ExprRef max(ExprRef, ExprRef) { todo(); }
ExprRef min(ExprRef, ExprRef) { todo(); }
ExprRef max(std::span<const ExprRef>) { todo(); }
ExprRef min(std::span<const ExprRef>) { todo(); }
ExprRef eq(ExprRef, ExprRef) { todo(); }
ExprRef ne(ExprRef, ExprRef) { todo(); }
ExprRef lt(ExprRef, ExprRef) { todo(); }
ExprRef le(ExprRef, ExprRef) { todo(); }
ExprRef gt(ExprRef, ExprRef) { todo(); }
ExprRef ge(ExprRef, ExprRef) { todo(); }
ExprRef logical_and(ExprRef, ExprRef) { todo(); }
ExprRef logical_or(ExprRef, ExprRef) { todo(); }
ExprRef logical_and(std::span<const ExprRef>) { todo(); }
ExprRef logical_or(std::span<const ExprRef>) { todo(); }
ExprRef logical_not(ExprRef) { todo(); }
ExprRef rebuild(ExprKind, std::span<const ExprRef>) { todo(); }
std::optional<int64_t> as_integer(ExprRef) { todo(); }
std::optional<bool> as_bool(ExprRef) { todo(); }
std::vector<ExprRef> free_symbols(ExprRef) { todo(); }
bool has_free_symbols(ExprRef) { todo(); }
size_t expr_size(ExprRef) { todo(); }
ExprRef substitute(ExprRef, const Substitution&) { todo(); }
std::optional<int64_t> evaluate(ExprRef, const Assignment&) { todo(); }
std::optional<int64_t> evaluate(ExprRef, const std::function<std::optional<int64_t>(ExprRef)>&) { todo(); }
std::string to_sympy_string(ExprRef) { todo(); }
std::string to_python_string(ExprRef, const SymbolNamer&) { todo(); }
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw OverflowError("integer overflow in " + std::to_string(a) + " + " + std::to_string(b));
  return r;
}
int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw OverflowError("integer overflow in " + std::to_string(a) + " - " + std::to_string(b));
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw OverflowError("integer overflow in " + std::to_string(a) + " * " + std::to_string(b));
  return r;
}
int64_t python_floordiv(int64_t, int64_t) { todo(); }
int64_t python_mod(int64_t, int64_t) { todo(); }
size_t interned_expr_count() { todo(); }

}  // namespace fakeprop
