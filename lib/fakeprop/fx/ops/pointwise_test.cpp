// Pointwise rules on symbolic and unbacked sizes, and where current
// PyTorch's checks differ from torch 1.13 (the golden oracle).
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

TEST(FxPointwise, BroadcastingSymbolicShapes) {
  GraphText g;
  g.symbol("s0", 5)
      .symbol("s1", 7)
      .input("a", tensor({"s0", 1, 3}))
      .input("b", tensor({"s1", 1}))
      .call("c", "aten.add.Tensor", {node("a"), node("b")});
  Ran r = run(g);
  ASSERT_EQ(r.error("c"), "");
  EXPECT_EQ(strs(r.tensor("c").sizes), (Strs{"s0", "s1", "3"}));
  EXPECT_EQ(strs(r.tensor("c").strides), (Strs{"3*s1", "3", "1"}));
}

TEST(FxPointwise, BroadcastingAnUnbackedSizeAssertsEquality) {
  // Size-oblivious: u0 is not taken to be 1; u0 == 4 becomes a runtime assert.
  GraphText g;
  g.unbacked("u0")
      .input("a", tensor({"u0"}))
      .input("b", tensor({4}))
      .call("c", "aten.mul.Tensor", {node("a"), node("b")});
  Ran r = run(g);
  ASSERT_EQ(r.error("c"), "");
  // The assert refines u0 to 4, so the result's size simplifies to 4.
  EXPECT_EQ(strs(r.tensor("c").sizes), (Strs{"4"}));
  ASSERT_EQ(r.result.env->runtime_asserts().size(), 1u);
  EXPECT_EQ(to_python_string(r.result.env->runtime_asserts()[0].expr), "u0 == 4");
}

TEST(FxPointwise, SymIntScalarsPromoteLikePythonInts) {
  GraphText g;
  g.symbol("s0", 5)
      .input("x", tensor({"s0"}, "int32"))
      .input("h", tensor({"s0"}, "float16"))
      .call("n", "aten.sym_size.int", {node("x"), 0})
      .call("a", "aten.add.Tensor", {node("x"), node("n")})
      .call("b", "aten.mul.Tensor", {node("h"), node("n")})
      .call("c", "aten.div.Tensor", {node("x"), node("n")});
  Ran r = run(g);
  EXPECT_EQ(r.tensor("a").dtype, DType::Int32);   // a Python int does not widen int32
  EXPECT_EQ(r.tensor("b").dtype, DType::Float16);
  EXPECT_EQ(r.tensor("c").dtype, DType::Float32);  // true division
}

TEST(FxPointwise, InplaceResultIsSelf) {
  GraphText g;
  g.input("x", tensor({2, 3}, "float32", "cpu", json::array({1, 2})))
      .input("y", tensor({3}))
      .call("z", "aten.mul_.Tensor", {node("x"), node("y")});
  Ran r = run(g);
  const TensorMeta& z = r.tensor("z");
  EXPECT_EQ(z.storage, r.tensor("x").storage);
  EXPECT_EQ(strs(z.strides), (Strs{"1", "2"}));
}

// Checks current PyTorch makes that torch 1.13's fake kernels skipped.
TEST(FxPointwise, CurrentPyTorchChecks) {
  struct Case {
    const char* target;
    json self;
    json other;
    const char* error;
  } cases[] = {
      // masked_fill needs a bool mask (torch/_refs masked_fill)
      {"aten.masked_fill.Scalar", tensor({2, 3}), tensor({2, 3}), "only supports boolean masks"},
      // masked_fill_ cannot broadcast self (expand_inplace)
      {"aten.masked_fill_.Scalar", tensor({3}), tensor({2, 3}, "bool"), "doesn't match the broadcast shape"},
      // floor_divide_ is div_(rounding_mode="floor"): no float into int64
      {"aten.floor_divide_.Tensor", tensor({2, 3}, "int64"), tensor({2, 3}), "can't be cast"},
  };
  for (const Case& c : cases) {
    GraphText g;
    g.input("x", c.self);
    json args = json::array({node("x")});
    if (!c.other.is_null()) {
      g.input("y", c.other);
      args.push_back(node("y"));
    }
    if (std::string(c.target).find("masked_fill") != std::string::npos) args.push_back(1.0);
    g.call("z", c.target, args);
    EXPECT_NE(run(g).error("z").find(c.error), std::string::npos) << c.target << ": " << run(g).error("z");
  }
}

TEST(FxPointwise, BoolScalarStaysBoolInScalarOverloads) {
  // Current PyTorch parses a Python bool given for a Scalar as a bool (1.13 made it an int).
  GraphText g;
  g.input("x", tensor({2}, "bool")).call("z", "aten.bitwise_and.Scalar", {node("x"), true});
  EXPECT_EQ(run(g).tensor("z").dtype, DType::Bool);
}


// min.other / max.other are minimum / maximum; diff subtracts narrowed views
// n times (n clamped to the dim's size), after concatenating prepend/append.
TEST(FxPointwise, MinMaxOtherAndDiff) {
  struct Case {
    const char* target;
    std::vector<json> args;  // x is [s0, 5], float32; h is [5] float16; p is [s0, 2] float64
    Strs shape, stride;
    DType dtype;
  };
  const json x = node("x"), h = node("h"), p = node("p");
  const Case cases[] = {
      {"aten.min.other", {x, h}, {"s0", "5"}, {"5", "1"}, DType::Float32},
      {"aten.max.other", {h, h}, {"5"}, {"1"}, DType::Float16},
      {"aten.diff.default", {x}, {"s0", "4"}, {"4", "1"}, DType::Float32},
      {"aten.diff.default", {x, 2, 0}, {"s0 - 2", "5"}, {"5", "1"}, DType::Float32},
      {"aten.diff.default", {x, 1, -1, p, nullptr}, {"s0", "6"}, {"6", "1"}, DType::Float64},
      {"aten.diff.default", {x, 0}, {"s0", "5"}, {"5", "1"}, DType::Float32},
      {"aten.diff.default", {x, 9}, {"s0", "0"}, {"1", "1"}, DType::Float32},
  };
  for (const Case& c : cases) {
    GraphText g;
    g.symbol("s0", 4)
        .input("x", tensor({"s0", 5}))
        .input("h", tensor({5}, "float16"))
        .input("p", tensor({"s0", 2}, "float64"))
        .call("y", c.target, c.args);
    Ran r = run(g);
    ASSERT_EQ(r.error("y"), "") << c.target << " " << json(c.args).dump();
    EXPECT_EQ(strs(r.tensor("y").sizes), c.shape) << c.target << " " << json(c.args).dump();
    EXPECT_EQ(strs(r.tensor("y").strides), c.stride) << c.target << " " << json(c.args).dump();
    EXPECT_EQ(r.tensor("y").dtype, c.dtype) << c.target << " " << json(c.args).dump();
    EXPECT_NE(r.tensor("y").storage, r.tensor("x").storage) << "a fresh result";
  }
  GraphText g;
  g.input("x", tensor({5})).call("y", "aten.diff.default", {node("x"), -1});
  EXPECT_NE(run(g).error("y").find("order must be non-negative"), std::string::npos);
}

}  // namespace
}  // namespace fakeprop::fx
