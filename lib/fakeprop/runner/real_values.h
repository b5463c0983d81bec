// propagate_real_tensors beside the fake run: each node whose inputs carry
// real elements (TensorValue::real) runs its rule a second time on the
// concrete inputs, and what that run gives ties the fake outputs to this data.
// An unbacked symbol of a fake output learns its real value from the same
// place of the real output, so later data-dependent decisions on it are taken
// by that value (ShapeEnv records them apart, as runtime asserts); real
// elements travel on to the next nodes. Fake results never change.
#pragma once
#include <optional>
#include <vector>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/value/value.h"

namespace fakeprop {

// Whether any of `inputs` (absent ones are null) carries real elements.
bool has_real_elements(const std::vector<const Value*>& inputs);

// `v` on the real inputs: every size, stride and integer concrete (backed
// hints and known real values), a tensor's elements its real ones where it
// has them; nullopt when something has neither hint nor real value.
std::optional<Value> real_counterpart(const Value& v, const ShapeEnv& env);

// Ties each of `outputs` to its real counterpart (same index; a missing or
// failed one is nullopt): unbacked symbols get real values, and tensors whose
// elements the fake result does not hold concretely take the real ones.
// Stale real elements (copied from an input by a rule) are dropped.
void tie_to_real(std::vector<Value>& outputs, const std::vector<std::optional<Value>>& real, ShapeEnv& env);

// Drops the real elements of outputs that a rule copied from its inputs
// when no real run took place.
void drop_real_elements(std::vector<Value>& outputs);

}  // namespace fakeprop
