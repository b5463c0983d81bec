// What sympy knows about an integer expression from its symbols' assumptions
// alone, without value ranges: torch creates a backed size symbol positive,
// an unbacked one and a backed int input only integer. sympy's Max and Min
// drop an argument only where these say it cannot win (Max(1, s0) is s0, but
// Max(1, (s0 + 2)//3) and Max(1, s0 - 1) stay, whatever s0's range), and
// make_contiguous_strides_for multiplies by such a Max.
#pragma once

#include <functional>

#include "fakeprop/sym/expr.h"

namespace fakeprop {

class ShapeEnv;

// Whether a symbol was created positive (a backed size).
using PositiveSymbol = std::function<bool(ExprRef)>;
// The env's backed integer sizes (range from 0 up), and its named hintless
// sizes known to be at least 1.
PositiveSymbol positive_symbols_of(const ShapeEnv& env);

bool positive_by_assumptions(ExprRef e, const PositiveSymbol& positive);
bool nonnegative_by_assumptions(ExprRef e, const PositiveSymbol& positive);
// a >= b, from the sign of a - b.
bool ge_by_assumptions(ExprRef a, ExprRef b, const PositiveSymbol& positive);
// sympy's Max(a, b) / Min(a, b): an operand dropped only where the other is
// known to win by assumptions (torch.sym_max of SymInts builds it so).
ExprRef max_by_assumptions(ExprRef a, ExprRef b, const PositiveSymbol& positive);
ExprRef min_by_assumptions(ExprRef a, ExprRef b, const PositiveSymbol& positive);

}  // namespace fakeprop
