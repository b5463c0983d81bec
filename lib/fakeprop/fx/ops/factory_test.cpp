// Factory rules on symbolic sizes and where current PyTorch differs from 1.13.
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

TEST(FxFactory, SymbolicSizesAndArange) {
  GraphText g;
  g.symbol("s0", 9)
      .input("x", tensor({"s0", 3}))
      .call("n", "aten.sym_size.int", {node("x"), 0})
      .call("e", "aten.empty.memory_format", {{node("n"), 3, 4, 5}}, {{"memory_format", {{"memory_format", "channels_last"}}}})
      .call("a", "aten.arange.default", {node("n")})
      .call("b", "aten.arange.start_step", {1, node("n"), 2})
      .call("f", "aten.full.default", {{2, node("n")}, 1.5}, {{"dtype", dtype("float16")}});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("e").strides), (Strs{"60", "1", "15", "3"}));
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"s0"}));
  EXPECT_EQ(r.tensor("a").dtype, DType::Int64);
  // ceil((s0 - 1) / 2), checked by value
  ASSERT_EQ(r.tensor("b").sizes.size(), 1u);
  for (int64_t s0 : {2, 9, 10, 11}) {
    auto v = evaluate(r.result.env->simplify(r.tensor("b").sizes[0].expr()), Assignment{{symbol("s0"), s0}});
    EXPECT_EQ(v, (s0 - 1 + 1) / 2) << "s0 = " << s0;
  }
  EXPECT_EQ(strs(r.tensor("f").sizes), (Strs{"2", "s0"}));
  EXPECT_EQ(r.tensor("f").dtype, DType::Float16);
}

// prims.convert_element_type: a dense input keeps its strides (a transpose
// too), another gets dense strides in its own order; the dtype is the new one.
TEST(FxFactory, PrimsConvertElementType) {
  GraphText g;
  g.symbol("s0", 6)
      .input("x", tensor({"s0", 4}))
      .call("t", "aten.t.default", {node("x")})
      .call("a", "prims.convert_element_type.default", {node("t"), dtype("float16")})
      .call("s", "aten.slice.Tensor", {node("x"), 1, 0, 4, 2})
      .call("b", "prims.convert_element_type.default", {node("s"), dtype("int64")});
  Ran r = run(g);
  ASSERT_EQ(r.error("a"), "");
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"4", "s0"}));
  EXPECT_EQ(strs(r.tensor("a").strides), (Strs{"1", "4"}));
  EXPECT_EQ(r.tensor("a").dtype, DType::Float16);
  EXPECT_NE(r.tensor("a").storage, r.tensor("x").storage);
  ASSERT_EQ(r.error("b"), "");
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"s0", "2"}));
  EXPECT_EQ(strs(r.tensor("b").strides), (Strs{"2", "1"}));
  EXPECT_EQ(r.tensor("b").dtype, DType::Int64);
}

TEST(FxFactory, ArangeOfFloatsIsTheDefaultFloat) {
  // torch 1.13's arange meta rounded a float end up and returned int64.
  GraphText g;
  g.call("a", "aten.arange.default", {5.5}).call("b", "aten.arange.start_step", {0, 1, 0.25});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"6"}));
  EXPECT_EQ(r.tensor("a").dtype, DType::Float32);
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"4"}));
}

TEST(FxFactory, CopyIntoChecksBroadcastAndOverlap) {
  // meta_copy_ (2.x): src must expand to self; self must not overlap itself.
  GraphText g;
  g.input("x", tensor({3, 4}))
      .input("big", tensor({2, 3, 4}))
      .input("e", tensor({2, 3}, "float32", "cpu", json::array({0, 1})))
      .input("s", tensor({3}))
      .call("a", "aten.copy_.default", {node("x"), node("big")})
      .call("b", "aten.copy_.default", {node("e"), node("s")})
      .call("c", "aten.copy_.default", {node("big"), node("x")});
  Ran r = run(g);
  EXPECT_NE(r.error("a").find("doesn't match the broadcast shape"), std::string::npos);
  EXPECT_NE(r.error("b").find("more than one element"), std::string::npos);
  EXPECT_EQ(r.error("c"), "");
  EXPECT_EQ(r.tensor("c").storage, r.tensor("big").storage);
}

TEST(FxFactory, ToCopyMovesDevicesAndKeepsLayout) {
  GraphText g;
  g.input("x", tensor({2, 3, 4, 5}, "float32", "cpu", json::array({60, 1, 15, 3})))
      .call("y", "aten._to_copy.default", {node("x")},
            {{"dtype", dtype("bfloat16")}, {"device", {{"device", "cuda:0"}}}});
  Ran r = run(g);
  EXPECT_EQ(r.tensor("y").dtype, DType::BFloat16);
  EXPECT_EQ(r.tensor("y").device, Device::cuda(0));
  EXPECT_EQ(strs(r.tensor("y").strides), (Strs{"60", "1", "15", "3"}));
}

TEST(FxFactory, RandomOps) {
  GraphText g;
  g.input("x", tensor({3}, "int64"))
      .input("p", tensor({2, 5}))
      .call("r", "aten.random_.from", {node("x"), 2, 5})
      .call("m", "aten.multinomial.default", {node("p"), 3, true});
  Ran r = run(g);
  EXPECT_EQ(r.tensor("r").storage, r.tensor("x").storage);  // in place
  EXPECT_EQ(strs(r.tensor("m").sizes), (Strs{"2", "3"}));
  EXPECT_EQ(r.tensor("m").dtype, DType::Int64);
}

TEST(FxFactory, FullTakesItsDtypeFromTheFillValue) {
  const std::tuple<json, json, DType> cases[] = {
      {7, json::object(), DType::Int64},
      {true, json::object(), DType::Bool},
      {1.5, json::object(), DType::Float32},
      {7, {{"dtype", dtype("float16")}}, DType::Float16},  // dtype= wins
  };
  for (const auto& [fill, kwargs, want] : cases) {
    GraphText g;
    g.call("f", "aten.full.default", {{2, 3}, fill}, kwargs);
    Ran r = run(g);
    ASSERT_EQ(r.error("f"), "") << fill;
    EXPECT_EQ(r.tensor("f").dtype, want) << fill << " " << kwargs;
  }
}


// lift_fresh_copy: a contiguous copy whatever the layout (fake tensors' clone
// of a lifted constant).
TEST(FxFactory, LiftFreshCopyIsAContiguousCopy) {
  GraphText g;
  g.symbol("s0", 3)
      .input("x", tensor({"s0", 4}, "float16", "cpu", json::array({1, "s0"}), 2))
      .call("y", "aten.lift_fresh_copy.default", {node("x")});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  EXPECT_EQ(strs(r.tensor("y").strides), (Strs{"4", "1"}));
  EXPECT_EQ(str(r.tensor("y").storage_offset), "0");
  EXPECT_EQ(r.tensor("y").dtype, DType::Float16);
  EXPECT_NE(r.tensor("y").storage, r.tensor("x").storage);
}

// Values from torch 2.15's FakeTensorMode on the same calls (the issue 39 fuzzer's s1_p0018, s1_p0093).
TEST(FxFactory, EyeIsAnNByMMatrix) {
  GraphText g;
  g.symbol("s0", 5)
      .symbol("s1", 7)
      .input("x", tensor({"s0", "s1"}))
      .call("n", "aten.sym_size.int", {node("x"), 0})
      .call("m", "aten.sym_size.int", {node("x"), 1})
      .call("a", "aten.eye.default", {node("n")})
      .call("b", "aten.eye.m", {node("n"), node("m")}, {{"dtype", dtype("int32")}})
      .call("c", "aten.eye.default", {-1});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"s0", "s0"}));
  EXPECT_EQ(strs(r.tensor("a").strides), (Strs{"s0", "1"}));
  EXPECT_EQ(r.tensor("a").dtype, DType::Float32);
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"s0", "s1"}));
  EXPECT_EQ(strs(r.tensor("b").strides), (Strs{"s1", "1"}));
  EXPECT_EQ(r.tensor("b").dtype, DType::Int32);
  EXPECT_EQ(r.error("c"), "invalid_argument: n must be greater or equal to 0, got -1");
}

// linspace's steps is an int in ATen's schema: a symbolic one is specialized,
// as torch.linspace(0, 1, x.shape[0]) guards Eq(s77, 8) under dynamic=True.
TEST(FxFactory, LinspaceSpecializesItsSteps) {
  GraphText g;
  g.symbol("s0", 5)
      .input("x", tensor({"s0"}))
      .call("n", "aten.sym_size.int", {node("x"), 0})
      .call("a", "aten.linspace.default", {0, 1, node("n")})
      .call("b", "aten.logspace.Tensor_Scalar", {node("x"), 2, 3}, {{"dtype", dtype("float64")}})
      .call("c", "aten.linspace.default", {0, 1, -1});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), Strs{"5"});
  EXPECT_EQ(r.tensor("a").dtype, DType::Float32);
  EXPECT_EQ(r.guards(), Strs{"s0 == 5"});
  EXPECT_EQ(r.error("b"), "invalid_argument: logspace only supports 0-dimensional start and end tensors, but got "
                          "start with 1 dimension(s) and end with 0 dimension(s).");
  EXPECT_EQ(r.error("c"), "invalid_argument: number of steps must be non-negative");
}

// A dim the trace held as a constant although it traced symbolic sizes (the
// graph's `specialized`): made symbolic, it is guarded equal to its size and
// is the constant, as the trace's own guard made it.
TEST(FxFactory, ADimTheTraceSpecializedIsGuardedToItsSize) {
  GraphText g;
  json x = tensor({8, 4});
  x["specialized"] = {0};
  g.input("x", x).call("a", "aten.linspace.default", {0, 1, 8}).call("b", "aten.neg.default", {node("x")});
  InferOptions dynamic_true;
  dynamic_true.assume_static_by_default = false;
  Ran r = run(g, dynamic_true);
  // Taken after the walk (the ops might have made it, with their own guards): the report simplifies
  // each size by the ShapeEnv's replacements.
  EXPECT_EQ(str(r.result.env->simplify(r.tensor("b").sizes[0])), "8");
  EXPECT_NE(str(r.result.env->simplify(r.tensor("b").sizes[1])), "4");  // dim 1 stays a symbol
  ASSERT_EQ(r.guards().size(), 1u);
  EXPECT_TRUE(r.guards()[0].ends_with(" == 8")) << r.guards()[0];
  EXPECT_EQ(run(g).guards(), Strs{});  // static: nothing to specialize
}

}  // namespace
}  // namespace fakeprop::fx
