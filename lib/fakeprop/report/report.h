// The JSON report (contract: fakeprop.report/1) and the human summary.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>

#include "fakeprop/graph/run_result.h"

namespace fakeprop {

// A value as the report's VAL: tensors, {"sym": DIM}, arrays, null.
nlohmann::json value_to_json(const Value& v, const ShapeEnv& env);
// A DIM: an integer when static, else Python text over symbol names.
nlohmann::json dim_to_json(const SymInt& d, const ShapeEnv& env);

nlohmann::json build_report(const RunResult& r);
void print_summary(const RunResult& r, std::ostream& out);

// "float32[s0, 3, 224, 224]" for a value.
std::string describe_value(const Value& v, const ShapeEnv& env);

}  // namespace fakeprop
