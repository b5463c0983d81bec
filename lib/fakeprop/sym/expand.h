// Products of sums multiplied out.
#pragma once
#include "fakeprop/sym/expr.h"

namespace fakeprop {

// e with every product of sums multiplied out, so that equal polynomials are
// equal expressions and interval bounds are tight: s1*(s0 - 2) is
// s0*s1 - 2*s1. Floor divisions, remainders and maxima are atoms; a power
// above 4, or a result over 512 terms, is kept as a product.
ExprRef expand(ExprRef e);

// As torch's safe_expand, which produce_guards applies before printing a
// guard: expand() inside every operand too ((s1*(s0 + 1)) // 2 becomes
// (s0*s1 + s1) // 2), relations and conditions included.
ExprRef safe_expand(ExprRef e);

}  // namespace fakeprop
