// A value in one line for people: "float32[s0, 3]", "int 2*s0", "(float32[4], None)",
// "(N x map(int64, float32[]; 3 entries))" (a sequence of N maps).
// The human summary and the causal chain of --explain-guard both print it.
#pragma once
#include <string>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/value/value.h"

namespace fakeprop {

// Sizes are simplified under `env`'s replacements.
std::string describe_value(const Value& v, const ShapeEnv& env);

}  // namespace fakeprop
