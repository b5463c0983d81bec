// The table-driven case shared by the ONNX rule tests: build a model, run it,
// and compare named values' shapes, known data, dtypes, error kind and guards.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx::testing {

struct RuleExpect {
  std::string value;
  std::vector<std::string> shape;
  std::optional<std::vector<std::string>> data = std::nullopt;  // known integer elements; {} = must be unknown
  std::optional<DType> dtype = std::nullopt;
};

struct RuleCase {
  std::string name;
  int64_t opset;
  std::function<void(ModelBuilder&)> build;
  std::vector<RuleExpect> expect;
  std::string error_kind = "";  // an error of this kind is recorded instead
  std::map<std::string, std::vector<int64_t>> hints = {};
  std::optional<std::vector<std::string>> guards = std::nullopt;  // the guards recorded, as Python text
};

inline std::ostream& operator<<(std::ostream& os, const RuleCase& c) { return os << c.name; }

inline std::vector<std::string> guard_texts(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& g : r.env->guards()) out.push_back(SymBool(g.expr).to_python());
  return out;
}

// Runs a case. Tests whose expectations have no known data (or whose cases
// record no guards) may pass their own structs with the fields they use.
template <class Case>
void check_rule_case(const Case& c) {
  ModelBuilder b(c.opset);
  c.build(b);
  InferOptions options;
  options.input_hints = c.hints;
  RunResult r = run(b, options);
  if (!c.error_kind.empty()) {
    EXPECT_EQ(error_kinds(r), std::vector<std::string>{c.error_kind});
    return;
  }
  for (const auto& e : r.errors)
    ADD_FAILURE() << "error at " << e.node << ": " << error_kind_name(e.kind) << ": " << e.message;
  for (const auto& e : c.expect) {
    EXPECT_EQ(shape_of(r, e.value), e.shape) << e.value;
    if constexpr (requires { e.data; }) {
      if (e.data) {
        EXPECT_EQ(data_of(r, e.value), *e.data) << e.value;
      }
    }
    if (e.dtype) {
      EXPECT_EQ(dtype_of(r, e.value), *e.dtype) << e.value;
    }
  }
  if constexpr (requires { c.guards; }) {
    if (c.guards) {
      EXPECT_EQ(guard_texts(r), *c.guards);
    }
  }
}

}  // namespace fakeprop::onnx::testing
