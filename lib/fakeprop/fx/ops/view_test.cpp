// View rules on symbolic sizes: results share storage, sizes stay exact
// expressions, and decisions become guards only where PyTorch guards.
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

TEST(FxView, ViewAndReshapeInferTheFreeDimWithoutGuards) {
  GraphText h;
  h.symbol("s0", 6)
      .input("x", tensor({"s0", 4, 8}))
      .call("v", "aten.view.default", {node("x"), {-1, 32}})
      .call("f", "aten.view.default", {node("x"), {-1}})
      .call("u", "aten._unsafe_view.default", {node("x"), {2, -1}});
  Ran r = run(h);
  EXPECT_EQ(strs(r.tensor("v").sizes), (Strs{"s0", "32"}));
  EXPECT_EQ(strs(r.tensor("f").sizes), (Strs{"32*s0"}));
  // torch 2.15's fake view (torch._refs._reshape_view_helper) splits s0 in
  // two, then flattens s0//2, 4 and 8 back: its output keeps the prims' size
  // 32*(s0//2), which is 16*s0 only by the guard on s0 % 2 (run under
  // FakeTensorMode: aten._unsafe_view and aten.view both give [2, 32*((s0//2))]).
  EXPECT_EQ(strs(r.tensor("u").sizes), (Strs{"2", "32*(s0//2)"}));
  EXPECT_EQ(r.tensor("v").storage, r.tensor("x").storage);
  // It guards s0 != 2 and s0 % 2 == 0 on the way, as torch does.
  const Strs guards = r.guards();
  ASSERT_FALSE(guards.empty());
  EXPECT_EQ(guards[0], "s0 != 2");
  EXPECT_EQ(guards[1], "s0 % 2 == 0");
}

TEST(FxView, ASplitDimKeepsTheSizeThePrimsGive) {
  // x.view(-1, 2, 3) of [a, a, b, b]: torch splits the last b into 2 and
  // b//2, then guards b//2 == 3 but keeps b//2 as the size (no replacement
  // follows from it): FakeTensorMode gives [b*a**2, 2, b//2].
  GraphText g;
  g.symbol("s0", 8).symbol("s1", 6).input("x", tensor({"s0", "s0", "s1", "s1"}));
  g.call("v", "aten.view.default", {node("x"), {-1, 2, 3}});
  Ran r = run(g);
  EXPECT_EQ(r.error("v"), "");
  EXPECT_EQ(strs(r.tensor("v").sizes), (Strs{"s0**2*s1", "2", "s1//2"}));
  const Strs guards = r.guards();
  EXPECT_NE(std::find(guards.begin(), guards.end(), "s1//2 == 3"), guards.end());
  EXPECT_EQ(std::find(guards.begin(), guards.end(), "s1 == 6"), guards.end());
}

TEST(FxView, ViewToAFixedSizeGuardsOnTheElementCount) {
  GraphText g;
  g.symbol("s0", 6).input("x", tensor({"s0", 4})).call("v", "aten.view.default", {node("x"), {24}});
  Ran r = run(g);
  EXPECT_EQ(r.error("v"), "");
  EXPECT_EQ(r.guards(), (Strs{"4*s0 == 24"}));
}

TEST(FxView, ReshapeOfATransposeCopies) {
  GraphText g;
  g.symbol("s0", 5)
      .input("x", tensor({"s0", 3}))
      .call("t", "aten.t.default", {node("x")})
      .call("r", "aten.reshape.default", {node("t"), {-1}})
      .call("v", "aten.view.default", {node("t"), {-1}});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("t").strides), (Strs{"1", "3"}));
  EXPECT_EQ(strs(r.tensor("r").sizes), (Strs{"3*s0"}));
  EXPECT_NE(r.tensor("r").storage, r.tensor("x").storage);  // a copy
  EXPECT_NE(r.error("v").find("view size is not compatible"), std::string::npos);
}

TEST(FxView, SliceToTheEndNeedsNoGuard) {
  GraphText g;
  g.symbol("s0", 10)
      .input("x", tensor({"s0", 4}))
      .call("a", "aten.slice.Tensor", {node("x"), 0, 2, INT64_MAX})
      .call("b", "aten.slice.Tensor", {node("x"), 1, 1, 3});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"s0 - 2", "4"}));
  EXPECT_EQ(str(r.tensor("a").storage_offset), "8");
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"s0", "2"}));
  EXPECT_EQ(str(r.tensor("b").storage_offset), "1");
  // start 2 < s0 needs s0 > 2: PyTorch decides start >= size with the hint.
  for (const std::string& guard : r.guards()) EXPECT_EQ(guard.find("9223372036854775807"), std::string::npos);
}

TEST(FxView, SelectAndUnsqueezeOnSymbolicStrides) {
  GraphText g;
  g.symbol("s0", 4)
      .symbol("s1", 5)
      .input("x", tensor({"s0", "s1", 3}))
      .call("s", "aten.select.int", {node("x"), 1, -1})
      .call("u", "aten.unsqueeze.default", {node("x"), 1})
      .call("e", "aten.expand.default", {node("u"), {-1, 7, -1, -1}});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("s").sizes), (Strs{"s0", "3"}));
  EXPECT_EQ(str(r.tensor("s").storage_offset), "3*s1 - 3");
  EXPECT_EQ(strs(r.tensor("u").strides), (Strs{"3*s1", "3*s1", "3", "1"}));
  EXPECT_EQ(strs(r.tensor("e").strides), (Strs{"3*s1", "0", "3", "1"}));
}

TEST(FxView, SplitOfASymbolicDimGuardsItsPieceCount) {
  GraphText g;
  g.symbol("s0", 10).input("x", tensor({"s0", 2})).call("p", "aten.split.Tensor", {node("x"), 4});
  Ran r = run(g);
  ASSERT_EQ(r.value("p").list->size(), 3u);  // ceil(10 / 4) at the hint
  EXPECT_EQ(strs(r.tensor("p", 2).sizes), (Strs{"s0 - 8", "2"}));
  EXPECT_EQ(str(r.tensor("p", 2).storage_offset), "16");
  EXPECT_EQ(r.guards(), (Strs{"(s0 + 3)//4 == 3", "s0 - 8 >= 0"}));  // the count, then the last piece
}

// The split decomposition goes through split_with_sizes, whose
// torch._check(split_sizes[i] >= 0) guards the last piece: the count guard
// alone admits s0 = 5 for chunk(4) (count 4 at 8, and at 5: pieces 2, 2, 2, -1).
TEST(FxView, ChunkAndSplitGuardTheirLastPieceNonnegative) {
  GraphText g;
  g.symbol("s0", 8)
      .input("x", tensor({"s0", 2}))
      .call("c", "aten.chunk.default", {node("x"), 4})
      .call("p", "aten.split.Tensor", {node("x"), 3});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("c", 3).sizes), (Strs{"s0 - 3*((s0 + 3)//4)", "2"}));
  EXPECT_EQ(r.guards(), (Strs{"(s0 + (s0 + 3)//4 - 1)//((s0 + 3)//4) == 4", "s0 - 3*((s0 + 3)//4) >= 0",
                              "(s0 + 2)//3 == 3", "s0 - 6 >= 0"}));
}

// Each piece >= 0, then the sum: torch._checks, so runtime asserts of an
// item() piece (the sum was a data-dependent error).
TEST(FxView, SplitWithSizesChecksEachPieceThenTheSum) {
  GraphText g;
  g.input("t", tensor(json::array(), "int64"))
      .input("x", tensor({5, 3}))
      .call("n", "aten._local_scalar_dense.default", {node("t")})
      .call("w", "aten.split_with_sizes.default", {node("x"), json::array({2, node("n")})});
  Ran r = run(g);
  EXPECT_EQ(r.error("w"), "");
  const auto& asserts = r.result.env->runtime_asserts();
  ASSERT_EQ(asserts.size(), 2u);
  EXPECT_EQ(to_python_string(asserts[0].expr), "u0 >= 0");
  EXPECT_EQ(strs(r.tensor("w", 1).sizes), (Strs{"3", "3"}));
}

TEST(FxView, ExpandOfAnUnbackedSizeAssertsInsteadOfGuarding) {
  GraphText g;
  g.unbacked("u0").input("x", tensor({"u0", 1})).call("e", "aten.expand.default", {node("x"), {-1, 5}});
  Ran r = run(g);
  EXPECT_EQ(r.error("e"), "");
  EXPECT_EQ(strs(r.tensor("e").sizes), (Strs{"u0", "5"}));
  EXPECT_EQ(strs(r.tensor("e").strides), (Strs{"1", "0"}));
}

// prims.broadcast_in_dim: a size not known to be 1 must equal its target, by
// torch._check: a runtime assert on an unbacked size, torch's error where it
// cannot hold (x[:1] of an unbacked size is Min(1, u0), never 4).
TEST(FxView, ExpandOfASizeNotKnownToBeOneChecksItMatches) {
  GraphText g;
  g.unbacked("u0").input("x", tensor({"u0", 3})).call("e", "aten.expand.default", {node("x"), {5, -1}});
  Ran r = run(g);
  EXPECT_EQ(r.error("e"), "");
  Strs asserts;
  for (const GuardRecord& a : r.result.env->runtime_asserts()) asserts.push_back(to_python_string(a.expr));
  EXPECT_NE(std::find(asserts.begin(), asserts.end(), "u0 == 5"), asserts.end());

  GraphText h;  // x[:1].expand(4, -1)
  h.unbacked("u0")
      .input("x", tensor({"u0", 3}))
      .call("s", "aten.slice.Tensor", {node("x"), 0, 0, 1})
      .call("f", "aten.expand.default", {node("s"), {4, -1}});
  EXPECT_EQ(run(h).error("f"), "shape_mismatch: non-broadcasting semantics require Min(1, u0) == 4");
}

// torch's expand ref checks every dim, sym_or(size == 1, requested == size),
// so a symbolic size expanded to a constant (x.expand_as(y), y static) asks
// that before broadcast_in_dim's equality.
TEST(FxView, ExpandOfASymbolicSizeToAConstantAsksBroadcastOrMatchFirst) {
  GraphText g;
  g.symbol("s0", 8).input("x", tensor({"s0"})).call("e", "aten.expand.default", {node("x"), {8}});
  Ran r = run(g);
  EXPECT_EQ(r.error("e"), "");
  EXPECT_EQ(str(r.result.env->simplify(r.tensor("e").sizes[0])), "8");
  EXPECT_EQ(r.guards(), (Strs{"s0 == 1 or s0 == 8", "s0 == 8"}));
}

// torch's _view_unbacked_meta asks is_contiguous_or_false: numel < 2 and
// size == 1 of an item() size are assumed False, not a data-dependent error.
TEST(FxView, ViewOfAnUnbackedOnesAssumesItContiguous) {
  GraphText g;
  g.input("a", tensor(json::array(), "int64"))
      .input("b", tensor(json::array(), "int64"))
      .call("n", "aten._local_scalar_dense.default", {node("a")})
      .call("m", "aten._local_scalar_dense.default", {node("b")})
      .call("o", "aten.ones.default", {json::array({node("n")})})
      .call("v", "aten.view.default", {node("o"), json::array({node("m"), -1})});
  Ran r = run(g);
  ASSERT_EQ(r.error("v"), "");
  EXPECT_EQ(strs(r.tensor("v").sizes), (Strs{"u1", "u0//u1"}));
  // make_contiguous_strides_for: sym_max(l, 1), and u0//u1 may be 0.
  EXPECT_EQ(strs(r.tensor("v").strides), (Strs{"max(1, u0//u1)", "1"}));
  EXPECT_EQ(r.tensor("v").storage, r.tensor("o").storage);
  EXPECT_TRUE(r.guards().empty());
}

TEST(FxView, SqueezeOfASizeLikeUnbackedDimKeepsIt) {
  // Size-oblivious: u0 == 1 is taken as false, so the dim stays.
  GraphText g;
  g.unbacked("u0").input("x", tensor({"u0", 3})).call("s", "aten.squeeze.dim", {node("x"), 0});
  Ran r = run(g);
  EXPECT_EQ(r.error("s"), "");
  EXPECT_EQ(strs(r.tensor("s").sizes), (Strs{"u0", "3"}));
}

TEST(FxView, SqueezeDimsAndLiftFresh) {
  GraphText g;
  g.input("x", tensor({1, 2, 1, 3}))
      .call("s", "aten.squeeze.dims", {node("x"), {0, 2, 3}})
      .call("l", "aten.lift_fresh.default", {node("x")});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("s").sizes), (Strs{"2", "3"}));  // dim 3 has size 3: kept
  EXPECT_EQ(strs(r.tensor("s").strides), (Strs{"3", "1"}));
  EXPECT_EQ(r.tensor("l").storage, r.tensor("x").storage);
}

TEST(FxView, InplaceMetadataOpsReplaceSelf) {
  GraphText g;
  g.input("x", tensor({1, 2, 1, 3}))
      .call("v", "aten.view.default", {node("x"), {2, 3}})
      .call("s", "aten.squeeze_.dims", {node("x"), {0, 2}})
      .call("t", "aten.t_.default", {node("x")});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("s").sizes), (Strs{"2", "3"}));
  EXPECT_EQ(strs(r.tensor("t").sizes), (Strs{"3", "2"}));  // t_ sees the squeezed x
  EXPECT_EQ(strs(r.tensor("t").strides), (Strs{"1", "3"}));
  EXPECT_EQ(r.tensor("t").storage, r.tensor("x").storage);
  ASSERT_EQ(r.result.mutations.size(), 2u);
  EXPECT_EQ(r.result.mutations[1].op, "aten.t_.default");
}


// detach_ returns self (one storage, same geometry) without requires_grad.
TEST(FxView, DetachInPlaceReturnsSelf) {
  json x = tensor({"s0", 4}, "float32", "cpu", json::array({1, "s0"}), 1);
  x["requires_grad"] = true;
  GraphText g;
  g.symbol("s0", 3).input("x", x).call("y", "aten.detach_.default", {node("x")});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  const TensorMeta& y = r.tensor("y");
  EXPECT_EQ(y.storage, r.tensor("x").storage);
  EXPECT_EQ(strs(y.strides), (Strs{"1", "s0"}));
  EXPECT_EQ(str(y.storage_offset), "1");
  EXPECT_FALSE(y.requires_grad);
}


// numpy_T reverses the dims; mT (and mH, adjoint) swaps the last two.
TEST(FxView, MatrixTransposes) {
  struct Case {
    const char* target;
    Strs shape, stride;
  };
  const Case cases[] = {
      {"aten.numpy_T.default", {"4", "3", "s0"}, {"1", "4", "12"}},
      {"aten.mT.default", {"s0", "4", "3"}, {"12", "1", "4"}},
      {"aten.adjoint.default", {"s0", "4", "3"}, {"12", "1", "4"}},
  };
  for (const Case& c : cases) {
    GraphText g;
    g.symbol("s0", 2).input("x", tensor({"s0", 3, 4})).call("y", c.target, {node("x")});
    Ran r = run(g);
    ASSERT_EQ(r.error("y"), "") << c.target;
    EXPECT_EQ(strs(r.tensor("y").sizes), c.shape) << c.target;
    EXPECT_EQ(strs(r.tensor("y").strides), c.stride) << c.target;
    EXPECT_EQ(r.tensor("y").storage, r.tensor("x").storage) << c.target;
  }
  GraphText g;
  g.input("x", tensor({4})).call("y", "aten.mT.default", {node("x")});
  EXPECT_NE(run(g).error("y").find("only supported on matrices"), std::string::npos);
}

// A size-1 dim keeps its stride through view (torch 2.15's fake view).
TEST(FxView, ViewKeepsTheStridesOfSizeOneDims) {
  GraphText g;
  g.symbol("s0", 2)
      .input("x", tensor({"s0", 1, 16, 49, 49, 1}, "float32", "cpu", json::array({38416, 49, 2401, 49, 1, 49})))
      .call("n", "aten.sym_size.int", {node("x"), 0})
      .call("y", "aten.view.default", {node("x"), json::array({node("n"), 1, 16, 49, 49})});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  EXPECT_EQ(strs(r.tensor("y").strides), (Strs{"38416", "49", "2401", "49", "1"}));
}

// A split into more pieces than the known-data limit fails the node in
// constant time; a count of chunks larger than the dim is still fine.
TEST(FxView, PieceCountsPastTheFoldLimitFailTheNode) {
  GraphText g;
  g.input("x", tensor({1000000000, 4}))
      .call("a", "aten.tensor_split.sections", {node("x"), int64_t{5000000000}})
      .call("b", "aten.unbind.int", {node("x")})
      .call("c", "aten.split.Tensor", {node("x"), 1})
      .call("d", "aten.chunk.default", {node("x"), int64_t{1} << 40, 1})
      .call("e", "aten.hsplit.int", {node("x"), 4});
  Ran r = run(g);
  EXPECT_EQ(r.error("a"), "not_implemented: tensor_split: 5000000000 is more than the 65536 that fakeprop makes "
                          "one at a time (its known-data limit)");
  EXPECT_NE(r.error("b").find("unbind: 1000000000 is more than"), std::string::npos);
  EXPECT_NE(r.error("c").find("split: 1000000000 is more than"), std::string::npos);
  EXPECT_EQ(r.error("d"), "");
  ASSERT_EQ(r.value("d").list->size(), 4u);
  EXPECT_EQ(r.error("e"), "");
}

// tensor_split by sections on a symbolic size: the first size % n pieces are
// one longer, each decided by a guard, and the last piece ends at its start
// plus its length, as ATen's loop slices it.
TEST(FxView, TensorSplitSectionsOnASymbolicSize) {
  GraphText g;
  g.symbol("s0", 7)
      .input("x", tensor({"s0", 2}))
      .call("a", "aten.tensor_split.sections", {node("x"), 3})
      .call("b", "aten.tensor_split.indices", {node("x"), {2, -1}});
  Ran r = run(g);
  ASSERT_EQ(r.error("a"), "");
  EXPECT_EQ(strs(r.tensor("a", 0).sizes), (Strs{"s0//3 + 1", "2"}));
  EXPECT_EQ(strs(r.tensor("a", 2).sizes), (Strs{"s0//3", "2"}));
  EXPECT_EQ(str(r.tensor("a", 2).storage_offset), "4*(s0//3) + 2");
  // Each piece's length is decided before it is sliced, as in ATen's loop.
  EXPECT_EQ(r.guards(), (Strs{"s0 % 3 > 0", "s0//3 + 1 <= s0", "s0 % 3 <= 1", "2*(s0//3) + 1 <= s0",
                              "3*(s0//3) + 1 <= s0", "s0 - 1 >= 2"}));
  EXPECT_EQ(strs(r.tensor("b", 1).sizes), (Strs{"s0 - 3", "2"}));
}

// Values from torch 2.15's FakeTensorMode on the same calls (the issue 39 fuzzer's s1_p0059).
TEST(FxView, DiagEmbedAddsADimOfTheLastSizePlusTheOffset) {
  GraphText g;
  g.symbol("s0", 5)
      .input("x", tensor({3, "s0", 4}))
      .call("a", "aten.diag_embed.default", {node("x")})
      .call("b", "aten.diag_embed.default", {node("x"), 2, 0, 2})
      .call("c", "aten.diag_embed.default", {node("x"), -1, 3, 1})
      .call("d", "aten.diag_embed.default", {node("x"), 0, 1, 1});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"3", "s0", "4", "4"}));
  EXPECT_EQ(strs(r.tensor("a").strides), (Strs{"16*s0", "16", "4", "1"}));
  EXPECT_EQ(strs(r.tensor("b").sizes), (Strs{"6", "3", "6", "s0"}));
  EXPECT_EQ(strs(r.tensor("b").strides), (Strs{"18*s0", "6*s0", "s0", "1"}));
  EXPECT_EQ(strs(r.tensor("c").sizes), (Strs{"3", "5", "s0", "5"}));
  EXPECT_EQ(strs(r.tensor("c").strides), (Strs{"25*s0", "5*s0", "5", "1"}));
  EXPECT_EQ(r.error("d"), "invalid_argument: diagonal dimensions cannot be identical 1, 1");
}


// meshgrid of symbolic lengths: output i is a view of input i expanded to
// [s0, s1] (torch 2.15's ATen composite: view, then expand), without guards;
// "xy" swaps the grid's first two dims.
TEST(FxView, MeshgridOfSymbolicLengthsViewsEachInput) {
  GraphText g;
  g.symbol("s0", 5)
      .symbol("s1", 7)
      .input("a", tensor({"s0"}))
      .input("b", tensor({"s1"}))
      .call("ij", "aten.meshgrid.indexing", {json::array({node("a"), node("b")})}, {{"indexing", "ij"}})
      .call("xy", "aten.meshgrid.indexing", {json::array({node("a"), node("b")})}, {{"indexing", "xy"}});
  Ran r = run(g);
  ASSERT_EQ(r.error("ij"), "");
  ASSERT_EQ(r.error("xy"), "");
  EXPECT_EQ(strs(r.tensor("ij", 0).sizes), (Strs{"s0", "s1"}));
  EXPECT_EQ(strs(r.tensor("ij", 0).strides), (Strs{"1", "0"}));
  EXPECT_EQ(strs(r.tensor("ij", 1).strides), (Strs{"0", "1"}));
  EXPECT_EQ(strs(r.tensor("xy", 0).sizes), (Strs{"s1", "s0"}));
  EXPECT_EQ(strs(r.tensor("xy", 0).strides), (Strs{"0", "1"}));
  EXPECT_EQ(strs(r.tensor("xy", 1).strides), (Strs{"1", "0"}));
  EXPECT_EQ(r.tensor("xy", 1).storage, r.tensor("b").storage);
  EXPECT_EQ(r.guards(), std::vector<std::string>{});
}

// torch.compile's AOTAutograd traces the graph with make_fx, whose tensor_meta
// asks each value's layout after every op has run: x[:, -4:] of stride (s, 1)
// guards s != 4 (torch 2.15, check_contiguous_sizes_strides). An op-level run
// (FakeTensorProp) and torch.export's graphs ask nothing more.
TEST(FxView, MakeFxTensorMetaGuardsEachValuesLayoutAfterTheOps) {
  auto graph = [] {
    GraphText g;
    g.symbol("s0", 5)
        .input("x", tensor({8, "s0"}))
        .call("a", "aten.slice.Tensor", {node("x"), 1, -4, INT64_MAX})
        .call("p", "aten.split.Tensor", {node("x"), 3, 1});
    return g;
  };
  const Strs ops = run(graph()).guards();  // the split's count and last piece
  ASSERT_EQ(ops.size(), 2u);
  GraphText compiled = graph();
  compiled.traced_by_make_fx();
  Ran r = run(compiled);
  ASSERT_EQ(r.error("p"), "");
  const Strs all = r.guards();
  ASSERT_GT(all.size(), ops.size() + 1);
  EXPECT_EQ(Strs(all.begin(), all.begin() + 2), ops);
  EXPECT_EQ(all[2], "s0 != 4");  // a (8, 4) of stride (s0, 1), traced before the split's pieces
  EXPECT_EQ(all[3], "s0 - 3 != 1");  // piece 1, (8, s0 - 3): is its size 1?
  json exported = graph().doc();
  exported["tracer"] = "export";
  Ran e;
  e.graph = parse_graph(exported.dump(), "test");
  e.result = run_graph(e.graph, InferOptions{});
  EXPECT_EQ(e.guards(), ops);
}

}  // namespace
}  // namespace fakeprop::fx
