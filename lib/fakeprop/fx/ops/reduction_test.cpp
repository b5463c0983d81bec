// Reductions on symbolic sizes.
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

TEST(FxReduction, SymbolicReducedShapesAreContiguous) {
  GraphText g;
  g.symbol("s0", 6)
      .symbol("s1", 5)
      .input("x", tensor({"s0", 3, "s1"}, "float32", "cpu", json::array({1, "s0*s1", "s0"})))
      .call("a", "aten.sum.dim_IntList", {node("x"), {1}, true})
      .call("b", "aten.amax.default", {node("x"), {-1}})
      .call("c", "aten.max.dim", {node("x"), 0})
      .call("d", "aten._softmax.default", {node("x"), -1, false});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"s0", "1", "s1"}));
  EXPECT_EQ(strs(r.tensor("a").strides), (Strs{"s1", "s1", "1"}));
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"s0", "3"}));
  EXPECT_EQ(strs(r.tensor("c", 1).sizes), (Strs{"3", "s1"}));
  EXPECT_EQ(r.tensor("c", 1).dtype, DType::Int64);
  EXPECT_EQ(strs(r.tensor("d").strides), (Strs{"3*s1", "s1", "1"}));
}

TEST(FxReduction, EmptyReductionDimsAreErrorsForMaxLikeOps) {
  GraphText g;
  g.unbacked("u0").input("x", tensor({0, 3})).call("a", "aten.amax.default", {node("x"), {0}});
  EXPECT_NE(run(g).error("a").find("Expected reduction dim 0 to have non-zero size"), std::string::npos);
}

TEST(FxReduction, AnyAllOverSeveralDims) {
  GraphText g;
  g.input("x", tensor({2, 3, 4}, "uint8"))
      .input("f", tensor({2, 3, 4}))
      .call("a", "aten.any.dims", {node("x"), {0, 2}})
      .call("b", "aten.all.dims", {node("f"), {1}, true});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"3"}));
  EXPECT_EQ(r.tensor("a").dtype, DType::UInt8);  // uint8 stays uint8
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"2", "1", "4"}));
  EXPECT_EQ(r.tensor("b").dtype, DType::Bool);
}

TEST(FxReduction, VarAndStdOfIntegersRaise) {
  // The real kernels reject integer input. torch 2.15's fake var / std return
  // the input dtype instead (fx_golden_test.cpp lists that case as a known
  // difference); fakeprop follows the kernels.
  for (const char* target : {"aten.var.correction", "aten.std.correction", "aten.var_mean.correction"}) {
    GraphText g;
    g.input("x", tensor({2, 3}, "int64")).call("v", target, {node("x"), json::array({1})}, {{"correction", 1}});
    EXPECT_NE(run(g).error("v").find("only support floating point and complex"), std::string::npos) << target;
  }
}


// linalg_vector_norm: reduced over dim (every dim when None), real dtype.
TEST(FxReduction, LinalgVectorNorm) {
  struct Case {
    json input;
    std::vector<json> args;
    json kwargs;
    Strs shape;
    DType dtype;
  };
  const Case cases[] = {
      {tensor({"s0", 3, 4}), {2}, json::object(), {}, DType::Float32},
      {tensor({"s0", 3, 4}), {2, json::array({1, -1}), true}, json::object(), {"s0", "1", "1"}, DType::Float32},
      {tensor({"s0", 3}, "complex64"), {2, json::array({0})}, json::object(), {"3"}, DType::Float32},
      {tensor({"s0", 3}, "float16"), {1.0, nullptr, false}, {{"dtype", dtype("float64")}}, {}, DType::Float64},
  };
  for (const Case& c : cases) {
    GraphText g;
    json args = c.args;
    args.insert(args.begin(), node("x"));
    g.symbol("s0", 5).input("x", c.input).call("y", "aten.linalg_vector_norm.default", args, c.kwargs);
    Ran r = run(g);
    ASSERT_EQ(r.error("y"), "") << args.dump();
    EXPECT_EQ(strs(r.tensor("y").sizes), c.shape) << args.dump();
    EXPECT_EQ(r.tensor("y").dtype, c.dtype) << args.dump();
  }
  GraphText g;
  g.input("x", tensor({3}, "int64")).call("y", "aten.linalg_vector_norm.default", {node("x")});
  EXPECT_NE(run(g).error("y").find("Expected a floating point or complex tensor"), std::string::npos);
}

// Matrix norms of a symbolic matrix, as torch 2.15's make_fx gives them: the
// svd ones reduce Min(s0, 3) singular values without a guard; +-1 / +-inf
// reduce one dim by the vector 1-norm, then amax / amin the other.
TEST(FxReduction, LinalgMatrixNormOfSymbolicSizes) {
  GraphText g;
  g.symbol("s0", 5)
      .input("x", tensor({2, "s0", 3}))
      .call("a", "aten.linalg_matrix_norm.default", {node("x"), -2, {1, 2}, true})
      .call("b", "aten.linalg_norm.ord_str", {node("x"), "nuc", {2, 1}})
      .call("c", "aten.linalg_norm.default", {node("x"), -1, {1, 0}})
      .call("d", "aten.linalg_matrix_norm.str_ord", {node("x")});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"2", "1", "1"}));
  EXPECT_EQ(strs(r.tensor("a").strides), (Strs{"1", "1", "1"}));
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"2"}));
  EXPECT_EQ(strs(r.tensor("c").sizes), (Strs{"3"}));
  EXPECT_EQ(strs(r.tensor("d").sizes), (Strs{"2"}));
  EXPECT_TRUE(r.guards().empty());
  GraphText bad;
  bad.input("x", tensor({4})).call("y", "aten.linalg_matrix_norm.str_ord", {node("x"), "fro"});
  EXPECT_NE(run(bad).error("y").find("at least 2 dimensions"), std::string::npos);
}

// Values from torch 2.15's FakeTensorMode on the same calls (the issue 39 fuzzer's s1_p0035).
TEST(FxReduction, CountNonzeroDropsItsDimsAsInt64) {
  GraphText g;
  g.symbol("s0", 5)
      .input("x", tensor({3, "s0", 4}))
      .call("a", "aten.count_nonzero.default", {node("x"), 0})
      .call("b", "aten.count_nonzero.default", {node("x")})
      .call("c", "aten.count_nonzero.dim_IntList", {node("x"), {0, -1}})
      .call("d", "aten.count_nonzero.dim_IntList", {node("x"), {0, -3}});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"s0", "4"}));
  EXPECT_EQ(strs(r.tensor("a").strides), (Strs{"4", "1"}));
  EXPECT_EQ(r.tensor("a").dtype, DType::Int64);
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{}));
  EXPECT_EQ(strs(r.tensor("c").sizes), (Strs{"s0"}));
  EXPECT_EQ(r.error("d"), "invalid_argument: duplicate value in the list of dims");
}

}  // namespace
}  // namespace fakeprop::fx
