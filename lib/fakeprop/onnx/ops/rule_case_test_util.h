// The table-driven case shared by the ONNX rule tests: build a model, run it,
// and compare named values' shapes, known data, dtypes, unbacked ranges, the
// error kind, guards and node "n"'s unbacked_bindings.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx::testing {

struct RuleExpect {
  std::string value;
  std::vector<std::string> shape;
  std::optional<std::vector<std::string>> data = std::nullopt;  // known integer elements; {} = must be unknown
  std::optional<DType> dtype = std::nullopt;
  std::optional<size_t> range_dim = std::nullopt;  // this dim is a symbol whose range is `range`
  ValueRange range = {};
};

using Bindings = std::vector<std::pair<std::string, std::string>>;  // symbol, path

struct RuleCase {
  std::string name;
  int64_t opset;
  std::function<void(ModelBuilder&)> build;
  std::vector<RuleExpect> expect;
  std::string error_kind = "";  // an error of this kind is recorded instead
  std::map<std::string, std::vector<int64_t>> hints = {};
  std::optional<std::vector<std::string>> guards = std::nullopt;  // the guards recorded, as Python text
  std::optional<Bindings> bindings = std::nullopt;  // node "n"'s unbacked_bindings; {} = it has none
};

inline std::ostream& operator<<(std::ostream& os, const RuleCase& c) { return os << c.name; }

inline std::vector<std::string> guard_texts(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& g : r.env->guards()) out.push_back(SymBool(g.expr).to_python());
  return out;
}

// The range of dim `dim` of value `name`; a static dim reads as its value.
inline ValueRange range_of(const RunResult& r, const std::string& name, size_t dim) {
  const Value* v = find_value(r, name);
  if (!v || !v->is_tensor() || dim >= v->tensor->meta.sizes.size()) return ValueRange::exactly(-999);
  const SymInt& d = v->tensor->meta.sizes[dim];
  if (!d.is_symbolic()) return ValueRange::exactly(d.value());
  return r.env->info(d.expr()).range;
}

inline Bindings bindings_of(const RunResult& r, const std::string& node) {
  for (const auto& n : r.nodes)
    if (n.name == node) return n.unbacked_bindings.to_vector();
  return {{"<no node>", node}};
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
    if constexpr (requires { e.range_dim; }) {
      if (e.range_dim) {
        const ValueRange got = range_of(r, e.value, *e.range_dim);
        EXPECT_EQ(got, e.range) << e.value << " dim " << *e.range_dim << ": " << got.to_string() << " vs "
                                << e.range.to_string();
      }
    }
  }
  if constexpr (requires { c.guards; }) {
    if (c.guards) {
      EXPECT_EQ(guard_texts(r), *c.guards);
    }
  }
  if constexpr (requires { c.bindings; }) {
    if (c.bindings) {
      EXPECT_EQ(bindings_of(r, "n"), *c.bindings);
    }
  }
}

}  // namespace fakeprop::onnx::testing
