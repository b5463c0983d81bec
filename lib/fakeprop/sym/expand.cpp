// Multiplying out products of sums: for the sizing analysis (equal
// polynomials become equal expressions) and for guards as torch prints them.
#include "fakeprop/sym/expand.h"

#include <utility>
#include <vector>

namespace fakeprop {

namespace {

size_t term_count(ExprRef e) { return e->kind() == ExprKind::Add ? e->terms().size() + 1 : 1; }

ExprRef times_expanded(ExprRef a, ExprRef b) {
  if (a->kind() != ExprKind::Add && b->kind() == ExprKind::Add) std::swap(a, b);
  // Two large sums stay a product: their expansion would be larger than any use of it.
  if (a->kind() != ExprKind::Add || term_count(a) * term_count(b) > 4096) return mul(a, b);
  ExprRef r = times_expanded(integer(a->value()), b);
  for (const auto& [term, coeff] : a->terms()) r = add(r, mul(times_expanded(term, b), coeff));
  return r;
}

}  // namespace

ExprRef expand(ExprRef e) {
  switch (e->kind()) {
    case ExprKind::Add: {
      ExprRef r = integer(e->value());
      for (const auto& [term, coeff] : e->terms()) r = add(r, mul(expand(term), coeff));
      return r;
    }
    case ExprKind::Mul: {
      // A sum is multiplied out up to a small power, and while the result
      // stays small; past that the product is kept as it is (a file may
      // hold any expression, and expanding must not blow up on it).
      constexpr int64_t kMostPower = 4;
      constexpr size_t kMostTerms = 512;
      ExprRef r = integer(e->value());
      for (const auto& [base, exponent] : e->terms()) {
        const ExprRef b = expand(base);
        if (b->kind() != ExprKind::Add || exponent > kMostPower) {
          r = times_expanded(r, pow(b, exponent));
        } else {
          for (int64_t i = 0; i < exponent; ++i) r = times_expanded(r, b);
        }
        if (r->kind() == ExprKind::Add && r->terms().size() > kMostTerms) return e;
      }
      return r;
    }
    default: return e;  // symbols, constants, floor divisions, maxima: atoms
  }
}

ExprRef safe_expand(ExprRef e) {
  switch (e->kind()) {
    case ExprKind::Integer:
    case ExprKind::Symbol:
    case ExprKind::FloatConst:
    case ExprKind::BoolConst: return e;
    case ExprKind::Add: {  // each term's operands first, then the sum
      ExprRef r = integer(e->value());
      for (const auto& [term, coeff] : e->terms()) r = add(r, mul(safe_expand(term), coeff));
      return expand(r);
    }
    case ExprKind::Mul: {  // each base's operands first, then the product
      ExprRef r = integer(e->value());
      for (const auto& [base, exponent] : e->terms()) r = mul(r, pow(safe_expand(base), exponent));
      return expand(r);
    }
    default: {
      std::vector<ExprRef> args;
      args.reserve(e->args().size());
      for (ExprRef a : e->args()) args.push_back(safe_expand(a));
      return rebuild(e->kind(), args);
    }
  }
}

}  // namespace fakeprop
