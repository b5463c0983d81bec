// Data-dependent ATen ops: fresh unbacked symbols with PyTorch's ranges,
// layouts and memoization (torch/_subclasses/fake_impls.py).
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

TEST(FxDataDependent, NonzeroIsUnbackedCountByRankWithColumnMajorStrides) {
  GraphText g;
  g.input("x", tensor({3, 4})).call("nz", "aten.nonzero.default", {node("x")});
  Ran r = run(g);
  const TensorMeta& t = r.tensor("nz");
  EXPECT_EQ(strs(t.sizes), (Strs{"u0", "2"}));
  EXPECT_EQ(strs(t.strides), (Strs{"1", "u0"}));  // new_empty_strided((nnz, dim), (1, nnz))
  EXPECT_EQ(t.dtype, DType::Int64);
  const SymbolInfo& u0 = r.result.env->info(t.sizes[0].expr());
  EXPECT_TRUE(u0.unbacked);
  EXPECT_TRUE(u0.size_like);
  EXPECT_EQ(u0.range, (ValueRange{0, 12}));  // at most numel elements
  ASSERT_EQ(r.result.nodes.back().unbacked_bindings.size(), 1u);
  EXPECT_EQ(r.result.nodes.back().unbacked_bindings[0].second, ".size()[0]");
}

TEST(FxDataDependent, BincountIsAnUnbackedLengthOfAtLeastMinlength) {
  GraphText g;
  g.input("x", tensor({6}, "int64"))
      .input("w", tensor({6}, "float16"))
      .input("e", tensor({0}, "int64"))
      .call("counts", "aten.bincount.default", {node("x")})
      .call("weighted", "aten.bincount.default", {node("x"), node("w"), 4})
      .call("empty", "aten.bincount.default", {node("e"), nullptr, 3});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("counts").sizes), (Strs{"u0"}));
  EXPECT_EQ(r.tensor("counts").dtype, DType::Int64);
  EXPECT_TRUE(r.result.env->info(r.tensor("counts").sizes[0].expr()).size_like);
  EXPECT_EQ(strs(r.tensor("weighted").sizes), (Strs{"u1"}));
  EXPECT_EQ(r.tensor("weighted").dtype, DType::Float64);  // weights that are not float32 count in float64
  EXPECT_EQ(r.result.env->info(r.tensor("weighted").sizes[0].expr()).range.lo, 4);  // u1 >= minlength
  EXPECT_EQ(strs(r.tensor("empty").sizes), (Strs{"3"}));  // no elements: minlength bins, no symbol
}

TEST(FxDataDependent, NonzeroOfSymbolicInputIsBoundedByTheSizeRange) {
  GraphText g;
  g.input("x", tensor({"s0", 4})).call("nz", "aten.nonzero.default", {node("x")});
  g.symbol("s0", 5);
  Ran r = run(g);
  const TensorMeta& t = r.tensor("nz");
  // numel 4*s0 has no finite upper bound: sys.maxsize - 1.
  EXPECT_EQ(r.result.env->info(t.sizes[0].expr()).range, (ValueRange{0, INT64_MAX - 1}));
}

// AOTAutograd retraces Dynamo's graph: nonzero's count is made again,
// bounded by the numel a later op decided (s0 == 5 by the broadcast), and
// renamed to the first, whose range becomes [0, 5]. FakeTensorProp, one pass,
// keeps the bound it made the count with.
TEST(FxDataDependent, NonzeroCountNarrowsToTheSizeALaterOpDecided) {
  for (const bool compiled : {true, false}) {
    GraphText g;
    g.input("x", tensor({"s0"})).input("y", tensor({5}));
    g.call("nz", "aten.nonzero.default", {node("x")}).call("sum", "aten.add.Tensor", {node("x"), node("y")});
    g.symbol("s0", 5).returns({"nz", "sum"});
    if (compiled) g.traced_by_make_fx();
    Ran r = run(g);
    const ValueRange range = r.result.env->info(r.tensor("nz").sizes[0].expr()).range;
    EXPECT_EQ(range, (ValueRange{0, compiled ? 5 : INT64_MAX - 1})) << (compiled ? "compiled" : "FakeTensorProp");
  }
}

// masked_select's retraced count has a bound only past 2, as its first.
TEST(FxDataDependent, MaskedSelectCountNarrowsOnlyPastTwo) {
  for (const int64_t size : {5, 2}) {
    GraphText g;
    g.input("x", tensor({"s0"})).input("y", tensor({size}));
    g.call("gt", "aten.gt.Scalar", {node("x"), 0}).call("sel", "aten.masked_select.default", {node("x"), node("gt")});
    g.call("sum", "aten.add.Tensor", {node("x"), node("y")});
    g.symbol("s0", size).returns({"sel", "sum"}).traced_by_make_fx();
    Ran r = run(g);
    const ValueRange range = r.result.env->info(r.tensor("sel").sizes[0].expr()).range;
    EXPECT_EQ(range, (ValueRange{0, size > 2 ? size : INT64_MAX - 1})) << size;
  }
}

TEST(FxDataDependent, NonzeroOfNoElementsIsStaticallyEmpty) {
  GraphText g;
  g.input("x", tensor({0, 3, 2})).call("nz", "aten.nonzero.default", {node("x")});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("nz").sizes), (Strs{"0", "3"}));
  EXPECT_TRUE(r.result.env->symbols().empty());
}

TEST(FxDataDependent, NonzeroIsMemoizedUntilTheInputIsMutated) {
  GraphText g;
  g.input("x", tensor({5}))
      .call("a", "aten.nonzero.default", {node("x")})
      .call("b", "aten.nonzero.default", {node("x")})
      .call("m", "aten.add_.Tensor", {node("x"), 1})
      .call("c", "aten.nonzero.default", {node("x")});
  Ran r = run(g);
  EXPECT_EQ(str(r.tensor("a").sizes[0]), "u0");
  EXPECT_EQ(str(r.tensor("b").sizes[0]), "u0");  // same tensor version: same count
  EXPECT_EQ(str(r.tensor("c").sizes[0]), "u1");  // mutated in between: a new count
  EXPECT_NE(r.tensor("a").storage, r.tensor("b").storage);
}

TEST(FxDataDependent, ItemGivesAnUnbackedScalarOfTheTensorsKind) {
  GraphText g;
  g.input("i", tensor(json::array(), "int64"))
      .input("b", tensor({1}, "bool"))
      .input("f", tensor(json::array(), "float32"))
      .call("iv", "aten._local_scalar_dense.default", {node("i")})
      .call("iv2", "aten.item.default", {node("i")})
      .call("bv", "aten._local_scalar_dense.default", {node("b")})
      .call("fv", "aten._local_scalar_dense.default", {node("f")});
  Ran r = run(g);
  const Value& iv = r.value("iv");
  ASSERT_EQ(iv.kind, Value::Kind::Int);
  EXPECT_EQ(str(iv.i), "u0");
  const SymbolInfo& u0 = r.result.env->info(iv.i.expr());
  EXPECT_FALSE(u0.size_like);  // item() is any integer, not a size
  EXPECT_EQ(u0.range, ValueRange::unknown());
  EXPECT_EQ(str(r.value("iv2").i), "u0");  // memoized per tensor
  const Value& bv = r.value("bv");
  ASSERT_EQ(bv.kind, Value::Kind::Bool);
  EXPECT_EQ(bv.b.to_python(), "u1 == 1");
  EXPECT_EQ(r.result.env->info(symbol("u1")).range, ValueRange::boolean());
  // A float tensor's item() is an unbacked SymFloat with its own counter
  // (current PyTorch's create_unbacked_symfloat: zuf0; 1.13 named it f0).
  const Value& fv = r.value("fv");
  ASSERT_TRUE(fv.is_symbolic_float());
  EXPECT_EQ(fv.float_expr->name(), "zuf0");
  EXPECT_TRUE(r.result.env->info(fv.float_expr).is_float);
  EXPECT_TRUE(r.result.env->info(fv.float_expr).unbacked);
  const NodeRecord& fv_node = r.result.nodes.back();
  ASSERT_EQ(fv_node.unbacked_bindings.size(), 1u);
  EXPECT_EQ(fv_node.unbacked_bindings[0], (std::pair<std::string, std::string>{"zuf0", ""}));
}

TEST(FxDataDependent, FloatItemPromotesAsAPythonFloatAndIsMemoized) {
  GraphText g;
  g.input("f", tensor(json::array(), "float64"))
      .input("x", tensor({2, 3}, "int32"))
      .input("h", tensor({4}, "float16"))
      .call("a", "aten._local_scalar_dense.default", {node("f")})
      .call("b", "aten.item.default", {node("f")})
      .call("xi", "aten.mul.Tensor", {node("x"), node("a")})
      .call("hf", "aten.add.Tensor", {node("h"), node("a")});
  Ran r = run(g);
  EXPECT_EQ(r.value("b").float_expr, r.value("a").float_expr);  // memoized per tensor version
  EXPECT_EQ(r.tensor("xi").dtype, DType::Float32);  // int tensor * Python float -> default dtype
  EXPECT_EQ(r.tensor("hf").dtype, DType::Float16);  // a float scalar does not widen a float tensor
  EXPECT_EQ(strs(r.tensor("xi").sizes), (Strs{"2", "3"}));
}

// torch 2.15 exports arange(0.0, f.item(), 1.0) with the size
// CeilToInt(FloatTrueDiv(zuf0, 1.0)) (x / 1.0 is x here); torch._check of
// the bounds and the size's check become runtime asserts.
TEST(FxDataDependent, ArangeToAnUnbackedFloatHasAFloatExpressionSize) {
  GraphText g;
  g.input("f", tensor(json::array(), "float32"))
      .call("end", "aten._local_scalar_dense.default", {node("f")})
      .call("r", "aten.arange.start_step", {0.0, node("end"), 1.0});
  Ran r = run(g);
  ASSERT_EQ(r.error("r"), "");
  EXPECT_EQ(r.tensor("r").sizes[0].to_sympy(), "CeilToInt(zuf0)");
  EXPECT_EQ(r.tensor("r").dtype, DType::Float32);
  std::vector<std::string> asserts;
  for (const GuardRecord& a : r.result.env->runtime_asserts()) asserts.push_back(to_sympy_string(a.expr));
  EXPECT_EQ(asserts, (std::vector<std::string>{"zuf0 >= 0.0", "CeilToInt(zuf0) >= 0"}));
}

// arange(u0) of an int item(): torch._refs.arange's torch._check(end >=
// start) is a runtime assert (it was a data-dependent error), and the length
// is u0, now known nonnegative.
TEST(FxDataDependent, ArangeToAnUnbackedIntAssertsItsBound) {
  GraphText g;
  g.input("t", tensor(json::array(), "int64"))
      .call("n", "aten._local_scalar_dense.default", {node("t")})
      .call("r", "aten.arange.default", {node("n")})
      .call("q", "aten.arange.start_step", {0, node("n"), 2});
  Ran r = run(g);
  ASSERT_EQ(r.error("r"), "");
  ASSERT_EQ(r.error("q"), "");
  EXPECT_EQ(strs(r.tensor("r").sizes), (Strs{"u0"}));
  EXPECT_EQ(r.tensor("r").dtype, DType::Int64);
  EXPECT_EQ(strs(r.tensor("q").sizes), (Strs{"(u0 + 1)//2"}));
  std::vector<std::string> asserts;
  for (const GuardRecord& a : r.result.env->runtime_asserts()) asserts.push_back(to_sympy_string(a.expr));
  EXPECT_EQ(asserts, (std::vector<std::string>{"u0 >= 0"}));
  EXPECT_EQ(r.result.env->info(symbol("u0")).range.to_string(), "[0, int_oo]");
}

// An upsample scale from item() must be decided (is it integral?), which
// raises torch's data-dependent error.
TEST(FxDataDependent, AnUnbackedFloatScaleIsADataDependentError) {
  GraphText g;
  g.input("f", tensor(json::array(), "float32"))
      .input("x", tensor({1, 3, 8, 8}))
      .call("s", "aten._local_scalar_dense.default", {node("f")})
      .call("r", "aten.upsample_nearest2d.vec", {node("x"), nullptr, json::array({node("s"), node("s")})});
  Ran r = run(g);
  EXPECT_NE(r.error("r").find("data_dependent: Could not guard on data-dependent expression"), std::string::npos)
      << r.error("r");
}

TEST(FxDataDependent, ItemOfSeveralElementsIsAnError) {
  GraphText g;
  g.input("x", tensor({2, 2})).call("v", "aten._local_scalar_dense.default", {node("x")});
  Ran r = run(g);
  EXPECT_NE(r.error("v").find("a Tensor with 4 elements cannot be converted to Scalar"), std::string::npos);
}

TEST(FxDataDependent, ItemFeedsLaterShapes) {
  // torch.zeros(x.item()) after torch._check_is_size: the size is the symbol.
  GraphText g;
  g.input("x", tensor(json::array(), "int64"))
      .call("n", "aten._local_scalar_dense.default", {node("x")})
      .call("c", "aten.sym_constrain_range_for_size.default", {node("n")})
      .call("z", "aten.zeros.default", {json::array({node("n"), 3})});
  Ran r = run(g);
  EXPECT_EQ(r.error("z"), "");
  EXPECT_EQ(strs(r.tensor("z").sizes), (Strs{"u0", "3"}));
  EXPECT_EQ(r.result.env->info(symbol("u0")).range.lo, 0);
}

TEST(FxDataDependent, MaskedSelectAndUnique) {
  GraphText g;
  g.input("x", tensor({2, 3}))
      .input("m", tensor({3}, "bool"))
      .call("s", "aten.masked_select.default", {node("x"), node("m")})
      .call("u", "aten._unique2.default", {node("x"), true, true, false});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("s").sizes), (Strs{"u0"}));
  EXPECT_EQ(r.result.env->info(symbol("u0")).range, (ValueRange{0, 6}));
  EXPECT_EQ(strs(r.tensor("u", 0).sizes), (Strs{"u1"}));
  EXPECT_EQ(strs(r.tensor("u", 1).sizes), (Strs{"2", "3"}));  // inverse indices
  EXPECT_EQ(strs(r.tensor("u", 2).sizes), (Strs{"0"}));       // no counts asked
}

// fake_impls.masked_select bounds the count by self's numel (the mask may
// broadcast it larger) and only when that exceeds 2.
TEST(FxDataDependent, MaskedSelectBoundsByTheSelfNumelPastTwo) {
  GraphText g;
  g.input("x", tensor({1, 3}))
      .input("m", tensor({4, 3}, "bool"))
      .input("y", tensor({2}))
      .input("n", tensor({3, 2}, "bool"))
      .call("s", "aten.masked_select.default", {node("x"), node("m")})
      .call("t", "aten.masked_select.default", {node("y"), node("n")});
  Ran r = run(g);
  EXPECT_EQ(r.result.env->info(symbol("u0")).range, (ValueRange{0, 3}));
  EXPECT_EQ(r.result.env->info(symbol("u1")).range, (ValueRange{0, kIntOo - 1}));
}

TEST(FxDataDependent, ArgwhereAndRepeatInterleave) {
  GraphText g;
  g.input("x", tensor({2, 3}))
      .input("r", tensor({3}, "int64"))
      .call("w", "aten.argwhere.default", {node("x")})
      .call("a", "aten.repeat_interleave.Tensor", {node("r")})
      .call("b", "aten.repeat_interleave.Tensor", {node("r")}, {{"output_size", 7}});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("w").sizes), (Strs{"u0", "2"}));
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"u1"}));
  EXPECT_TRUE(r.result.env->info(symbol("u1")).size_like);
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"7"}));
  EXPECT_EQ(r.tensor("b").dtype, DType::Int64);
}

// input.size(dim) of a 0-d input, as ATen asks it (a fuzz finding: the rule
// wrapped the dim as for a 1-d tensor and read a dim that is not there).
TEST(FxDataDependent, RepeatInterleaveAlongADimOfAScalarIsAnIndexError) {
  GraphText g;
  g.input("x", tensor(json::array(), "float32"))
      .input("r", tensor({1}, "int64"))
      .call("a", "aten.repeat_interleave.self_Tensor", {node("x"), node("r"), 0})
      .call("b", "aten.repeat_interleave.self_Tensor", {node("x"), node("r")});
  Ran r = run(g);
  EXPECT_EQ(r.error("a"), "index_error: Dimension specified as 0 but tensor has no dimensions");
  EXPECT_EQ(r.error("b"), "");  // flattened first: dim 0 of a 1-element tensor
}

TEST(FxDataDependent, OneHotWithoutAClassCountIsUnbacked) {
  GraphText g;
  g.input("x", tensor({2, 3}, "int64"))
      .call("a", "aten.one_hot.default", {node("x")})
      .call("b", "aten.one_hot.default", {node("x"), -1})
      .call("c", "aten.one_hot.default", {node("x"), 4});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"2", "3", "u0"}));
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"2", "3", "u0"}));  // max() of the same tensor: memoized
  EXPECT_EQ(strs(r.tensor("c").sizes), (Strs{"2", "3", "4"}));
  EXPECT_EQ(r.tensor("c").dtype, DType::Int64);
}

}  // namespace
}  // namespace fakeprop::fx
