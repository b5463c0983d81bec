// Indexing rules where the goldens cannot reach: boolean masks (unbacked
// counts), current PyTorch's restrided index outputs, symbolic cat.
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

TEST(FxIndexing, BoolMaskIndexIsDataDependent) {
  GraphText g;
  g.input("x", tensor({4, 5, 6}))
      .input("m", tensor({4, 5}, "bool"))
      .call("y", "aten.index.Tensor", {node("x"), json::array({node("m")})})
      .call("n", "aten.nonzero.default", {node("m")});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  EXPECT_EQ(strs(r.tensor("y").sizes), (Strs{"u0", "6"}));
  EXPECT_EQ(r.result.env->info(symbol("u0")).range, (ValueRange{0, 20}));
  EXPECT_EQ(str(r.tensor("n").sizes[0]), "u0");  // the same mask's nonzero count
}

TEST(FxIndexing, MaskShapeMustMatch) {
  GraphText g;
  g.input("x", tensor({4, 5})).input("m", tensor({3}, "bool")).call("y", "aten.index.Tensor", {node("x"), json::array({node("m")})});
  EXPECT_NE(run(g).error("y").find("The shape of the mask [3] at index 0 does not match"), std::string::npos);
}

TEST(FxIndexing, IndexOutputFollowsSelfsLayout) {
  // meta_index_Tensor (2.x) restrides self (strides 60, 1, 0, 3 for the
  // result's [2, 3, 2, 5]) and orders dims as TensorIterator does: the
  // insertion sort from the innermost dim cannot place the stride-0 dim, so
  // it stays next to W: physical order N, W, H, C.
  GraphText g;
  g.input("x", tensor({2, 3, 4, 5}, "float32", "cpu", json::array({60, 1, 15, 3})))
      .input("i", tensor({2}, "int64"))
      .call("y", "aten.index.Tensor", {node("x"), {nullptr, nullptr, node("i")}});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  EXPECT_EQ(strs(r.tensor("y").sizes), (Strs{"2", "3", "2", "5"}));
  EXPECT_EQ(strs(r.tensor("y").strides), (Strs{"30", "1", "3", "6"}));
}

TEST(FxIndexing, UnsafeIndexIsIndexWithoutBoundsChecks) {
  // make_fx's decomposition of interpolate(scale_factor=(2.5, 1.0)) on [1, 1, 6, 1]:
  // torch 2.15's fake _unsafe_index and index both give [1, 1, 15, 1], strides (15, 15, 1, 1).
  GraphText g;
  g.input("x", tensor({1, 1, 6, 1}))
      .input("i", tensor({15, 1}, "int64"))
      .input("j", tensor({1}, "int64"))
      .call("y", "aten._unsafe_index.Tensor", {node("x"), {nullptr, nullptr, node("i"), node("j")}});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  EXPECT_EQ(strs(r.tensor("y").sizes), (Strs{"1", "1", "15", "1"}));
  EXPECT_EQ(strs(r.tensor("y").strides), (Strs{"15", "15", "1", "1"}));
}

TEST(FxIndexing, SeparatedIndicesMoveToTheFront) {
  GraphText g;
  g.symbol("s0", 7)
      .input("x", tensor({"s0", 5, 6}))
      .input("i", tensor({3}, "int64"))
      .call("y", "aten.index.Tensor", {node("x"), {node("i"), nullptr, node("i")}});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("y").sizes), (Strs{"3", "5"}));
}

TEST(FxIndexing, CatOfSymbolicAndUnbackedSizes) {
  GraphText g;
  g.symbol("s0", 4)
      .unbacked("u0")
      .input("a", tensor({"s0", 3}))
      .input("b", tensor({"u0", 3}))
      .input("e", tensor({0}))
      .call("c", "aten.cat.default", {{node("a"), node("b"), node("e")}})
      .call("s", "aten.stack.default", {{node("a"), node("a")}, 1});
  Ran r = run(g);
  ASSERT_EQ(r.error("c"), "");
  EXPECT_EQ(strs(r.tensor("c").sizes), (Strs{"s0 + u0", "3"}));  // the legacy empty tensor is skipped
  EXPECT_EQ(strs(r.tensor("s").sizes), (Strs{"s0", "2", "3"}));
  EXPECT_EQ(strs(r.tensor("s").strides), (Strs{"6", "3", "1"}));
}

TEST(FxIndexing, UnsafeIndexPutIsLikeSelf) {
  GraphText g;
  g.input("x", tensor({4, 5}, "float32", "cpu", json::array({1, 4})))
      .input("i", tensor({3}, "int64"))
      .input("v", tensor({5}))
      .call("y", "aten._unsafe_index_put.default", {node("x"), json::array({node("i")}), node("v")});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("y").strides), (Strs{"1", "4"}));  // empty_like(self)
  EXPECT_NE(r.tensor("y").storage, r.tensor("x").storage);
}

TEST(FxIndexing, GatherAndScatterTakeInt32Indices) {
  struct Case {
    const char* target;
    const char* index_dtype;
    std::vector<int64_t> index_shape;
    bool ok;
  };
  const Case cases[] = {
      {"aten.gather.default", "int32", {2, 2}, true},
      {"aten.gather.default", "int16", {2, 2}, false},
      {"aten.gather.default", "int16", {0, 2}, true},  // an empty index is not checked
      {"aten.scatter_add.default", "int32", {2, 2}, true},
      {"aten.scatter.value", "int16", {2, 2}, false},
  };
  for (const Case& c : cases) {
    const std::string target = c.target;
    json args = json::array({node("x"), 0, node("i")});
    if (target == "aten.scatter_add.default") args.push_back(node("src"));
    if (target == "aten.scatter.value") args.push_back(1.0);
    GraphText g;
    g.input("x", tensor({4, 5}))
        .input("i", tensor(c.index_shape, c.index_dtype))
        .input("src", tensor({2, 2}))
        .call("y", target, args);
    const std::string err = run(g).error("y");
    if (c.ok)
      EXPECT_EQ(err, "") << target << " " << c.index_dtype;
    else
      EXPECT_NE(err.find("Expected dtype int32/int64 for index"), std::string::npos) << target << ": " << err;
  }
}

// topk_meta checks k <= sliceSize with torch._check: on an unbacked size a
// runtime assert u0 >= 1 (it was a data-dependent error), its range then [1, int_oo].
TEST(FxIndexing, TopkOnAnUnbackedSizeAssertsK) {
  GraphText g;
  g.unbacked("u0").input("x", tensor({"u0"})).call("t", "aten.topk.default", {node("x"), 1, 0});
  Ran r = run(g);
  ASSERT_EQ(r.error("t"), "");
  EXPECT_EQ(strs(r.tensor("t", 0).sizes), (Strs{"1"}));
  std::vector<std::string> asserts;
  for (const GuardRecord& a : r.result.env->runtime_asserts()) asserts.push_back(to_sympy_string(a.expr));
  EXPECT_EQ(asserts, (std::vector<std::string>{"u0 >= 1"}));
}

TEST(FxIndexing, RollIsContiguous) {
  // torch 2.15's roll decomposes into index_select per dim (or a flatten and
  // view when dims is empty): contiguous whatever self's layout.
  const json perm = json::array({1, 4});
  const std::pair<json, json> calls[] = {
      {json::array({1}), json::array({0})},
      {json::array({1, 2}), json::array({0, 1})},
      {json::array({3}), json::array()},
  };
  for (const auto& [shifts, dims] : calls) {
    GraphText g;
    g.input("x", tensor({4, 5}, "float32", "cpu", perm)).call("y", "aten.roll.default", {node("x"), shifts, dims});
    Ran r = run(g);
    ASSERT_EQ(r.error("y"), "") << shifts << dims;
    EXPECT_EQ(strs(r.tensor("y").strides), (Strs{"5", "1"})) << shifts << dims;
  }
  const std::tuple<json, json, const char*> errors[] = {
      {json::array({1, 2}), json::array({0}), "shifts and dimensions must align"},
      {json::array(), json::array({0}), "`shifts` required"},
  };
  for (const auto& [shifts, dims, want] : errors) {
    GraphText g;
    g.input("x", tensor({4, 5})).call("y", "aten.roll.default", {node("x"), shifts, dims});
    EXPECT_NE(run(g).error("y").find(want), std::string::npos) << want;
  }
  GraphText scalar;
  scalar.input("x", tensor(json::array())).call("y", "aten.roll.default", {node("x"), json::array({1}), json::array({0})});
  EXPECT_NE(run(scalar).error("y").find("but tensor has no dimensions"), std::string::npos);
}

}  // namespace
}  // namespace fakeprop::fx
