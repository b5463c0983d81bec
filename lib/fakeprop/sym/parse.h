// Parses the Python-style expressions fakeprop prints (and FX graphs carry
// in example shapes): integers, names, + - * // % unary -, parentheses,
// max(...)/min(...), the comparison and boolean forms of guards, and floats:
// float literals, `/`, `**` with a float, float(), int(), round(),
// math.sqrt(), float32(), `x // 1` of a float, and the sympy names ToFloat,
// FloorToInt, CeilToInt, TruncToInt, RoundToInt, IntTrueDiv, FloatTrueDiv,
// FloatPow, OpaqueUnaryFn_sqrt, ToFloat32.
#pragma once
#include <functional>
#include <string_view>

#include "fakeprop/sym/expr.h"

namespace fakeprop {

// `symbol` maps each name to its Symbol expression (it may create it).
// Throws InputError with the position of the first problem. Nesting deeper
// than 200 levels or input longer than 100,000 characters is refused.
ExprRef parse_expr(std::string_view text, const std::function<ExprRef(std::string_view)>& symbol);

}  // namespace fakeprop
