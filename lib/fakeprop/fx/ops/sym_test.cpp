// sym_size / sym_stride / sym_numel / sym_storage_offset and the assertion ops.
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

TEST(FxSym, QueriesReturnTheSymbolicValues) {
  GraphText g;
  g.symbol("s0", 5)
      .input("x", tensor({"s0", 3, 4}, "float32", "cpu", json::array({12, 1, 3}), 2))
      .call("n", "aten.sym_numel.default", {node("x")})
      .call("s", "aten.sym_size.int", {node("x"), 0})
      .call("st", "aten.sym_stride.int", {node("x"), 2})
      .call("o", "aten.sym_storage_offset.default", {node("x")});
  Ran r = run(g);
  EXPECT_EQ(str(r.value("n").i), "12*s0");
  EXPECT_EQ(str(r.value("s").i), "s0");
  EXPECT_EQ(str(r.value("st").i), "3");
  EXPECT_EQ(str(r.value("o").i), "2");
}

// Current PyTorch wraps negative dims (TensorBase::sym_size(dim)); ops_sym.json
// holds a few; this adds sym_stride.int(-3) and an out-of-range dim.
TEST(FxSym, NegativeDimsWrap) {
  struct Case {
    const char* target;
    int64_t dim;
    const char* want;
  } cases[] = {
      {"aten.sym_size.int", -1, "4"},   {"aten.sym_size.int", -3, "2"},   {"aten.sym_stride.int", -1, "1"},
      {"aten.sym_stride.int", -3, "12"}, {"aten.sym_size.int", 2, "4"},
  };
  for (const Case& c : cases) {
    GraphText g;
    g.input("x", tensor({2, 3, 4})).call("v", c.target, {node("x"), c.dim});
    Ran r = run(g);
    EXPECT_EQ(str(r.value("v").i), c.want) << c.target << " dim " << c.dim;
  }
  GraphText bad;
  bad.input("x", tensor({2, 3, 4})).call("v", "aten.sym_size.int", {node("x"), 3});
  EXPECT_NE(run(bad).error("v").find("Dimension out of range"), std::string::npos);
}

TEST(FxSym, SymIntArithmeticFeedsViews) {
  // x.view(x.size(0) * 3, -1) as make_fx records it with dynamic shapes.
  GraphText g;
  g.symbol("s0", 4)
      .input("x", tensor({"s0", 3, 2}))
      .call("a", "aten.sym_size.int", {node("x"), 0})
      .call("b", "operator.mul", {node("a"), 3})
      .call("v", "aten.view.default", {node("x"), json::array({node("b"), -1})});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("v").sizes), (Strs{"3*s0", "2"}));
  EXPECT_EQ(strs(r.tensor("v").strides), (Strs{"2", "1"}));
  EXPECT_TRUE(r.guards().empty()) << r.guards()[0];
}

// A symbolic trace of x.reshape(x.size(0), -1) spells some queries as bare
// packets ("aten.sym_numel"); each resolves to its default overload.
TEST(FxSym, PacketsWithoutOverloadAreTheirDefault) {
  GraphText g;
  g.symbol("s0", 4)
      .input("x", tensor({"s0", 3, 2}))
      .call("b", "aten.sym_size", {node("x"), 0})
      .call("n", "aten.sym_numel", {node("x")})
      .call("st", "aten.sym_stride", {node("x"), 0})
      .call("k", "operator.floordiv", {node("n"), node("b")})
      .call("v", "aten.reshape", {node("x"), json::array({node("b"), node("k")})});
  Ran r = run(g);
  EXPECT_EQ(r.error("v"), "");
  EXPECT_EQ(str(r.value("n").i), "6*s0");
  EXPECT_EQ(str(r.value("st").i), "6");
  EXPECT_EQ(strs(r.tensor("v").sizes), (Strs{"s0", "6"}));
  GraphText unknown;
  unknown.input("x", tensor({2})).call("v", "aten.no_such_op", {node("x")});
  EXPECT_NE(run(unknown).error("v"), "");
}

TEST(FxSym, AssertScalarIsAGuardOrARuntimeAssert) {
  GraphText g;
  g.symbol("s0", 6)
      .unbacked("u0")
      .input("x", tensor({"s0"}))
      .input("y", tensor({"u0"}))
      .call("a", "aten.sym_size.int", {node("x"), 0})
      .call("c", "operator.ge", {node("a"), 4})
      .call("k", "aten._assert_scalar.default", {node("c"), "x too small"})
      .call("b", "aten.sym_size.int", {node("y"), 0})
      .call("d", "operator.le", {node("b"), 10})
      .call("k2", "aten._assert_scalar.default", {node("d"), "y too big"});
  Ran r = run(g);
  EXPECT_EQ(r.error("k"), "");
  EXPECT_EQ(r.error("k2"), "");
  EXPECT_EQ(r.guards(), (Strs{"s0 >= 4"}));
  ASSERT_EQ(r.result.env->runtime_asserts().size(), 1u);
  EXPECT_EQ(to_python_string(r.result.env->runtime_asserts()[0].expr), "u0 <= 10");
}

// torch.sym_ite(b, t, f) on ints: a condition decided without a guard picks
// its side; item()'s SymBool Eq(u, 1), u in [0, 1], gives f + (t - f)*u, as
// torch's Piecewise; any other an unbacked int within both sides' ranges.
TEST(FxSym, SymIteOnInts) {
  GraphText g;
  g.symbol("s0", 6)
      .input("x", tensor({"s0"}))
      .input("m", tensor(json::array(), "bool"))
      .call("a", "aten.sym_size.int", {node("x"), 0})
      .call("known", "operator.ge", {node("a"), 1})
      .call("k", "torch.sym_ite", {node("known"), 7, 3})
      .call("open", "operator.ge", {node("a"), 4})
      .call("o", "torch.sym_ite", {node("open"), 7, 3})
      .call("i", "aten.item.default", {node("m")})
      .call("ind", "torch.sym_ite", {node("i"), 5, 2});
  Ran r = run(g);
  EXPECT_EQ(r.error("k") + r.error("o") + r.error("ind"), "");
  EXPECT_EQ(str(r.value("k").i), "7");
  const ExprRef o = r.value("o").i.expr();
  ASSERT_TRUE(o->is_symbol());
  EXPECT_EQ(r.result.env->bound(o).lo, 3);
  EXPECT_EQ(r.result.env->bound(o).hi, 7);
  EXPECT_EQ(str(r.value("ind").i), "3*u1 + 2");
  EXPECT_TRUE(r.guards().empty());
}

TEST(FxSym, FalseAssertionFails) {
  GraphText g;
  g.input("x", tensor({3})).call("a", "aten.sym_size.int", {node("x"), 0}).call("c", "operator.ge", {node("a"), 4});
  g.call("k", "aten._assert_scalar.default", {node("c"), "x too small"});
  EXPECT_NE(run(g).error("k").find("x too small"), std::string::npos);
}

TEST(FxSym, WholeShapeQueriesAndRangeConstraints) {
  GraphText g;
  g.symbol("s0", 5)
      .input("x", tensor({"s0", 3}))
      .input("t", tensor(json::array(), "int64"))
      .call("sz", "aten.sym_size.default", {node("x")})
      .call("st", "aten.sym_stride.default", {node("x")})
      .call("v", "aten._local_scalar_dense.default", {node("t")})
      .call("c", "aten.sym_constrain_range.default", {node("v")}, {{"min", 2}, {"max", 9}})
      .call("a", "aten._assert_async.msg", {node("x"), "tensor assert"});
  Ran r = run(g);
  const Value& sz = r.value("sz");
  ASSERT_EQ(sz.kind, Value::Kind::List);
  EXPECT_EQ(str((*sz.list)[0].i), "s0");
  EXPECT_EQ(str((*r.value("st").list)[0].i), "3");
  EXPECT_EQ(r.result.env->info(symbol("u0")).range, (ValueRange{2, 9}));
  EXPECT_EQ(r.error("a"), "");  // nothing is known about a tensor's value
}


// _assert_tensor_metadata: None when the tensor matches, else an
// AssertionError naming what differs.
TEST(FxSym, AssertTensorMetadata) {
  struct Case {
    std::vector<json> args;
    json kwargs;
    const char* error;  // "" when it holds
  };
  const json x = node("x");
  const Case cases[] = {
      {{x}, {{"dtype", dtype("float32")}, {"device", {{"device", "cpu"}}}, {"layout", {{"layout", "strided"}}}}, ""},
      {{x, json::array({node("n"), 3}), json::array({3, 1})}, json::object(), ""},
      {{x, nullptr, nullptr, dtype("int64")}, json::object(), "Tensor dtype mismatch! Expected: torch.int64"},
      {{x, json::array({3, node("n")})}, json::object(), "Tensor size mismatch!"},
      {{x, nullptr, json::array({1, 3})}, json::object(), "Tensor stride mismatch!"},
      {{x}, {{"device", {{"device", "cuda:0"}}}}, "Tensor device mismatch! Expected: cuda:0, Got: cpu"},
  };
  for (const Case& c : cases) {
    GraphText g;
    g.symbol("s0", 2)
        .input("x", tensor({"s0", 3}))
        .call("n", "aten.sym_size.int", {x, 0})
        .call("y", "aten._assert_tensor_metadata.default", c.args, c.kwargs);
    Ran r = run(g);
    if (*c.error == '\0') {
      EXPECT_EQ(r.error("y"), "") << json(c.args).dump();
      EXPECT_TRUE(r.value("y").is_none());
    } else {
      EXPECT_NE(r.error("y").find(c.error), std::string::npos) << r.error("y");
      EXPECT_EQ(r.error("y").rfind("assertion_error: ", 0), 0u) << r.error("y");
    }
  }
}

}  // namespace
}  // namespace fakeprop::fx
