#include "fakeprop/sym/assumptions.h"

#include <algorithm>

#include "fakeprop/sym/shape_env.h"

namespace fakeprop {

namespace {

enum class Sign { Positive, Nonnegative };

bool has_sign(ExprRef e, Sign want, const PositiveSymbol& positive) {
  auto pos = [&](ExprRef x) { return has_sign(x, Sign::Positive, positive); };
  auto nonneg = [&](ExprRef x) { return has_sign(x, Sign::Nonnegative, positive); };
  auto term_ok = [&](ExprRef x) { return want == Sign::Positive ? pos(x) : nonneg(x); };
  switch (e->kind()) {
    case ExprKind::Integer: return want == Sign::Positive ? e->value() > 0 : e->value() >= 0;
    case ExprKind::Symbol: return !e->is_float() && positive(e);
    case ExprKind::Add:  // the constant, then coefficient * term
      if (e->value() < 0) return false;
      return std::all_of(e->terms().begin(), e->terms().end(),
                         [&](const Expr::Term& t) { return t.second > 0 && term_ok(t.first); });
    case ExprKind::Mul:  // the coefficient, then base ** exponent
      if (want == Sign::Positive ? e->value() <= 0 : e->value() < 0) return false;
      return std::all_of(e->terms().begin(), e->terms().end(), [&](const Expr::Term& t) { return term_ok(t.first); });
    case ExprKind::Max: return std::any_of(e->args().begin(), e->args().end(), term_ok);
    case ExprKind::Min: return std::all_of(e->args().begin(), e->args().end(), term_ok);
    // torch's FloorDiv is non-negative over non-negative operands, its Mod by
    // a positive divisor; neither is known positive.
    case ExprKind::FloorDiv: return want == Sign::Nonnegative && nonneg(e->arg(0)) && nonneg(e->arg(1));
    case ExprKind::Mod: return want == Sign::Nonnegative && pos(e->arg(1));
    default: return false;
  }
}

}  // namespace

PositiveSymbol positive_symbols_of(const ShapeEnv& env) {
  return [&env](ExprRef sym) {
    if (!env.is_symbol_known(sym)) return false;
    const SymbolInfo& i = env.info(sym);
    // A front end's named size without a hint (an ONNX dim_param) has no
    // torch counterpart: positive where its range says so (batch may be 0).
    if (i.hintless) return !i.is_float && i.range.lo >= 1;
    return !i.unbacked && !i.is_float && i.range.lo >= 0;
  };
}

bool positive_by_assumptions(ExprRef e, const PositiveSymbol& positive) {
  return has_sign(e, Sign::Positive, positive);
}

bool nonnegative_by_assumptions(ExprRef e, const PositiveSymbol& positive) {
  return has_sign(e, Sign::Nonnegative, positive);
}

bool ge_by_assumptions(ExprRef a, ExprRef b, const PositiveSymbol& positive) {
  if (a == b) return true;
  ExprRef d = sub(a, b);
  if (d->is_integer()) return d->value() >= 0;
  if (nonnegative_by_assumptions(d, positive)) return true;
  // A positive integer is at least 1: s0 - 1 >= 0.
  if (d->kind() == ExprKind::Add && d->value() == -1) return positive_by_assumptions(add(d, integer(1)), positive);
  return false;
}

ExprRef max_by_assumptions(ExprRef a, ExprRef b, const PositiveSymbol& positive) {
  if (ge_by_assumptions(a, b, positive)) return a;
  if (ge_by_assumptions(b, a, positive)) return b;
  return max(a, b);
}

ExprRef min_by_assumptions(ExprRef a, ExprRef b, const PositiveSymbol& positive) {
  if (ge_by_assumptions(a, b, positive)) return b;
  if (ge_by_assumptions(b, a, positive)) return a;
  return min(a, b);
}

}  // namespace fakeprop
