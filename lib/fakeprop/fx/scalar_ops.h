// Python-level calls on scalars in an FX graph: operator.* (and getitem on
// tuples), math.floor / ceil / trunc, round, torch.sym_float / sym_int /
// sym_max / sym_min / sym_not, on ints, floats and bools that may be
// symbolic (SymInt, SymFloat, SymBool). Python's promotion rules decide the
// result type: int op float is float, int / int is float.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/value/value.h"

namespace fakeprop::fx {

// Whether `target` names a scalar call evaluated by eval_scalar_call; `op`
// is then the name it is dispatched on ("add", "math.floor", "sym_float").
bool is_scalar_target(std::string_view target, std::string_view& op);

// Throws OpError (type_error, unsupported_op, index_error) on bad operands.
Value eval_scalar_call(const std::string& target, std::string_view op, std::span<const Value* const> args,
                       ShapeEnv& env);

}  // namespace fakeprop::fx
