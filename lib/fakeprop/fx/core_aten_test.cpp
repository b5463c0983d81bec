// Every operator of PyTorch's core ATen IR (testdata/fx/core_aten_ops.txt,
// written by scripts/core_aten_ops.py from the ops tagged `core` in current
// PyTorch's native_functions.yaml) has an FX rule, except the few listed in
// kNotYetCovered with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fakeprop/fx/op_context.h"
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

namespace fs = std::filesystem;

// Core ops without a rule, each with why (none at present).
const std::map<std::string, std::string> kNotYetCovered = {};

std::vector<std::string> core_ops() {
  std::ifstream in(fs::path(FAKEPROP_TESTDATA) / "fx" / "core_aten_ops.txt");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

TEST(CoreAten, EveryCoreOpHasARule) {
  const auto ops = core_ops();
  ASSERT_GT(ops.size(), 150u) << "testdata/fx/core_aten_ops.txt missing or truncated";
  std::vector<std::string> missing;
  size_t covered = 0;
  for (const std::string& op : ops) {
    const bool has_rule = OpRegistry::instance().find(op) != nullptr;
    if (has_rule) ++covered;
    if (has_rule) {
      EXPECT_EQ(kNotYetCovered.count(op), 0u) << op << " has a rule now: take it off kNotYetCovered";
    } else if (kNotYetCovered.count(op) == 0) {
      missing.push_back(op);
    }
  }
  std::cout << "[core aten] " << covered << "/" << ops.size() << " core ATen ops have a rule, "
            << kNotYetCovered.size() << " allowlisted\n";
  for (const std::string& m : missing) ADD_FAILURE() << "core ATen op without a rule: " << m;
}

TEST(CoreAten, AllowlistNamesOnlyCoreOps) {
  const auto ops = core_ops();
  for (const auto& [op, why] : kNotYetCovered) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op << " is not a core op";
    EXPECT_FALSE(why.empty()) << op;
  }
}

// sym_is_contiguous is newer than torch 1.13 (no golden): current PyTorch
// answers TensorImpl::sym_is_contiguous(memory_format), as Tensor.is_contiguous does.
TEST(CoreAten, SymIsContiguous) {
  using namespace testing;
  GraphText g;
  g.input("x", tensor({2, 3, 4, 5}))
      .input("p", tensor({2, 3, 4, 5}, "float32", "cpu", json::array({60, 1, 15, 3})))
      .call("a", "aten.sym_is_contiguous.default", {node("x")})
      .call("b", "aten.sym_is_contiguous.default", {node("p")})
      .call("c", "aten.sym_is_contiguous.default", {node("p")}, {{"memory_format", {{"memory_format", "channels_last"}}}});
  Ran r = run(g);
  for (const char* n : {"a", "b", "c"}) ASSERT_EQ(r.error(n), "") << n;
  ASSERT_EQ(r.value("a").kind, Value::Kind::Bool);
  EXPECT_TRUE(r.value("a").b.value());
  EXPECT_FALSE(r.value("b").b.value());
  EXPECT_TRUE(r.value("c").b.value());
}

}  // namespace
}  // namespace fakeprop::fx
