// Higher-order ops on small graphs with subgraphs: what torch's fake
// implementations give, and what fakeprop adds where torch would refuse
// (a loop whose carried sizes change). Goldens from torch for one program
// per op are in testdata/pt2/hop_*.golden.json (pt2_golden_test.cpp).
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

GraphText branch(const std::string& rows) {
  GraphText g;
  g.input("a", tensor({"s0", 3}))
      .call("sl", "aten.slice.Tensor", {node("a"), 0, 0, std::stoi(rows)})
      .call("c", "aten.clone.default", {node("sl")})
      .call("t", "aten.t.default", {node("a")})
      .call("tc", "aten.clone.default", {node("t")})
      .returns({"c", "tc"});
  return g;
}

// Both branches run whatever the predicate (a constant here), as torch's
// cond_fake_tensor_mode runs them: rows 2 and 3 merge into one unbacked size
// in [2, 3]; the transposed output keeps its sizes and its strides, rebuilt
// in its stride order.
TEST(FxHigherOrder, CondMergesTheBranches) {
  GraphText g;
  g.symbol("s0", 6)
      .input("x", tensor({"s0", 3}))
      .subgraph("t", branch("2"))
      .subgraph("f", branch("3"))
      .call("cond", "higher_order.cond", {true, {{"graph", "t"}}, {{"graph", "f"}}, json::array({node("x")})})
      .call("r", "operator.getitem", {node("cond"), 0})
      .call("tr", "operator.getitem", {node("cond"), 1});
  Ran r = run(g);
  ASSERT_EQ(r.error("cond"), "");
  const TensorMeta& rows = r.tensor("r");
  ASSERT_TRUE(rows.sizes[0].is_symbolic());
  EXPECT_FALSE(r.result.env->hint(rows.sizes[0]).has_value());
  const ValueRange range = r.result.env->bound(rows.sizes[0].expr());
  EXPECT_EQ(range.lo, 2);
  EXPECT_EQ(range.hi, 3);
  EXPECT_EQ(strs(r.tensor("tr").sizes), (Strs{"3", "s0"}));
  EXPECT_EQ(strs(r.tensor("tr").strides), (Strs{"1", "3"}));  // clone keeps the transpose's strides
}

TEST(FxHigherOrder, CondBranchesOfAnotherDtypeFail) {
  GraphText t, f;
  t.input("a", tensor({2})).call("c", "aten.clone.default", {node("a")}).returns({"c"});
  f.input("a", tensor({2})).call("c", "aten.to.dtype", {node("a"), dtype("float64")}).returns({"c"});
  GraphText g;
  g.input("x", tensor({2}))
      .subgraph("t", t)
      .subgraph("f", f)
      .call("cond", "higher_order.cond", {true, {{"graph", "t"}}, {{"graph", "f"}}, json::array({node("x")})});
  Ran r = run(g);
  EXPECT_EQ(r.error("cond"), "type_error: When merging two branches' output in torch.cond, expected same dtype but got "
                             "float32 and float64.");
}

// A body that grows its carried tensor: torch refuses it (the body's output
// must match the carried input); fakeprop generalizes the dim to an unbacked
// size and runs the body again, until the carried sizes are a fixed point.
TEST(FxHigherOrder, WhileLoopGeneralizesCarriedSizesToAFixedPoint) {
  GraphText body;
  body.input("i", tensor(json::array(), "int64"))
      .input("x", tensor({4, 2}))
      .call("j", "aten.add.Tensor", {node("i"), 1})
      .call("y", "aten.cat.default", {json::array({node("x"), node("x")})})
      .returns({"j", "y"});
  GraphText cond_fn;
  cond_fn.input("i", tensor(json::array(), "int64")).input("x", tensor({4, 2})).call("lt", "aten.lt.Scalar", {node("i"), 3});
  GraphText g;
  g.input("i0", tensor(json::array(), "int64"))
      .input("x0", tensor({4, 2}))
      .subgraph("cond_fn", cond_fn)
      .subgraph("body_fn", body)
      .call("loop", "higher_order.while_loop",
            {{{"graph", "cond_fn"}}, {{"graph", "body_fn"}}, json::array({node("i0"), node("x0")}), json::array()})
      .call("x", "operator.getitem", {node("loop"), 1});
  Ran r = run(g);
  ASSERT_EQ(r.error("loop"), "");
  const TensorMeta& x = r.tensor("x");
  EXPECT_TRUE(x.sizes[0].is_symbolic());
  EXPECT_EQ(str(x.sizes[1]), "2");
}

// A subgraph's failing node fails the call, naming the subgraph and its node.
TEST(FxHigherOrder, ASubgraphErrorNamesItsNode) {
  GraphText body;
  body.input("a", tensor({3})).call("bad", "aten.no_such_op.default", {node("a")}).returns({"bad"});
  GraphText g;
  g.input("x", tensor({5, 3}))
      .subgraph("body", body)
      .call("m", "higher_order.map_impl", {{{"graph", "body"}}, json::array({node("x")}), json::array()});
  Ran r = run(g);
  EXPECT_EQ(r.error("m"), "unsupported_op: body: node 'bad': no shape rule for aten.no_such_op.default");
}

TEST(FxHigherOrder, AMissingSubgraphIsAnError) {
  GraphText g;
  g.input("x", tensor({5, 3})).call("m", "higher_order.invoke_subgraph", {{{"graph", "nowhere"}}, "id", node("x")});
  Ran r = run(g);
  EXPECT_EQ(r.error("m"), "invalid_argument: higher_order.invoke_subgraph: the program has no subgraph 'nowhere'");
}

TEST(FxHigherOrder, AutoFunctionalizedV1IsRefused) {
  GraphText g;
  g.input("x", tensor({5, 3})).call("af", "higher_order.auto_functionalized", {"mylib.scale_.default"}, {{"x", node("x")}});
  Ran r = run(g);
  EXPECT_EQ(r.error("af"), "unsupported_op: auto_functionalized (v1) is not supported: which arguments it returns "
                           "copies of is in the op's schema, which the program does not carry; torch.export writes "
                           "auto_functionalized_v2");
}

// torch's flex_attention_fake_impl: a query transposed from [B, L, H, E] puts
// the output's heads inside its sequence; the statistics are float32 [B, H, L].
TEST(FxHigherOrder, FlexAttentionTakesTheQuerysFillOrder) {
  GraphText score;
  score.input("s", tensor(json::array())).returns({"s"});
  GraphText g;
  g.input("q", tensor({2, 4, 16, 8}, "float16", "cpu", json::array({512, 8, 32, 1})))
      .input("k", tensor({2, 4, 16, 8}, "float16"))
      .input("v", tensor({2, 4, 16, 6}, "float16"))
      .subgraph("score", score)
      .call("flex", "higher_order.flex_attention",
            {node("q"), node("k"), node("v"), {{"graph", "score"}}, json::array(), 0.35, json::array(), json::array(),
             json::array()});
  Ran r = run(g);
  ASSERT_EQ(r.error("flex"), "");
  EXPECT_EQ(strs(r.tensor("flex", 0).sizes), (Strs{"2", "4", "16", "6"}));
  EXPECT_EQ(strs(r.tensor("flex", 0).strides), (Strs{"384", "6", "24", "1"}));
  EXPECT_EQ(r.tensor("flex", 0).dtype, DType::Float16);
  EXPECT_EQ(strs(r.tensor("flex", 1).sizes), (Strs{"2", "4", "16"}));
  EXPECT_EQ(r.tensor("flex", 2).dtype, DType::Float32);
}

}  // namespace
}  // namespace fakeprop::fx
