// The FX interpreter around the rules: what the nodes after a failed one see.
#include <cstdlib>

#include "fakeprop/fx/ops/graph_test_util.h"
#include "fakeprop/value/describe_value.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

// A failed node without example meta is unknown; the nodes reading it say so
// (unknown_input naming the input), not that its value has the wrong type.
TEST(FxInterpreter, ReadersOfAnUnknownValueFailAsUnknownInput) {
  GraphText g;
  g.input("x", tensor({2, 5, 16}))
      .call("m", "aten.no_such_tuple_op.default", {node("x")})
      .call("g", "operator.getitem", {node("m"), 0})
      .call("r", "aten.relu.default", {node("g")})
      .call("c", "aten.cat.default", {json::array({node("x"), node("r")})});
  Ran r = run(g);
  EXPECT_EQ(r.error("m"), "unsupported_op: no shape rule for aten.no_such_tuple_op.default");
  EXPECT_EQ(r.error("g"), "unknown_input: input 'm' is unknown");
  EXPECT_EQ(r.error("r"), "unknown_input: input 'g' is unknown");
  EXPECT_EQ(r.error("c"), "unknown_input: input 'r' is unknown");
}

// An input marked dynamic whose example strides are integers: its strides
// follow the symbolic sizes as Dynamo fakifies the tensor (torch 2.15's
// _compute_symbolic_stride), and produce_guards checks them as torch.compile
// prints them for the same inputs.
TEST(FxInterpreter, MarkedInputsGetSymbolicStrides) {
  GraphText g;
  g.input("x", tensor({8, 4, 3}, "float32", "cpu", json::array({12, 3, 1})))
      .input("y", tensor({8, 5}, "float32", "cpu", json::array({1, 8})))  // a transposed [5, 8]
      .call("s", "aten.sum.dim_IntList", {node("x"), json::array({1})});
  InferOptions options;
  options.assume_static_by_default = false;  // dynamic=True: duck sized
  Ran r = run(g, options);
  ASSERT_EQ(r.error("s"), "");
  const TensorMeta& x = r.value("x").tensor->meta;
  EXPECT_EQ(strs(x.sizes), (Strs{"s77", "s27", "s53"}));
  EXPECT_EQ(strs(x.strides), (Strs{"s27*s53", "s53", "1"}));
  const TensorMeta& y = r.value("y").tensor->meta;
  EXPECT_EQ(strs(y.sizes), (Strs{"s77", "s94"}));  // 8 is duck sized to x's first dim
  EXPECT_EQ(strs(y.strides), (Strs{"1", "s77"}));
  std::vector<std::string> produced;
  for (const ProducedGuard& pg : r.result.env->produce_guards()) produced.push_back(pg.expr);
  for (const char* want : {"L['x'].stride()[0] == L['x'].size()[1]*L['x'].size()[2]",
                           "L['x'].stride()[1] == L['x'].size()[2]", "L['y'].stride()[1] == L['x'].size()[0]",
                           "L['y'].size()[0] == L['x'].size()[0]"})
    EXPECT_NE(std::find(produced.begin(), produced.end(), want), produced.end()) << want;
  for (const std::string& p : produced) EXPECT_EQ(p.find("stride()[2]"), std::string::npos) << p;  // 1 needs none
}

// Runs `g` with the dispatch cache on or off (FAKEPROP_DISPATCH_CACHE).
Ran run_cached(const GraphText& g, bool cache) {
  ::setenv("FAKEPROP_DISPATCH_CACHE", cache ? "1" : "0", 1);
  Ran r = run(g);
  ::unsetenv("FAKEPROP_DISPATCH_CACHE");
  return r;
}

// Every node's value (with its storage id) and every guard, as text.
std::vector<std::string> report_lines(const Ran& r) {
  std::vector<std::string> out;
  for (const NodeRecord& n : r.result.nodes)
    for (const auto& o : n.outputs) {
      std::string line = std::string(n.name) + " " + describe_value(o.val, *r.result.env);
      if (o.val.is_tensor()) line += " storage " + std::to_string(o.val.tensor->meta.storage);
      out.push_back(line);
    }
  for (const std::string& g : r.guards()) out.push_back("guard " + g);
  return out;
}

// Two identical blocks over two inputs: the second block's calls are hits,
// views of the second input keep its storage, and the report (values,
// storage ids, guards) is the one a run without the cache gives.
TEST(FxDispatchCache, RepeatedBlocksHitAndReportTheSame) {
  GraphText g;
  g.symbol("s0", 4)
      .input("x", tensor({"s0", 16}))
      .input("y", tensor({"s0", 16}))
      .call("a1", "aten.relu.default", {node("x")})
      .call("t1", "aten.transpose.int", {node("a1"), 0, 1})
      .call("m1", "aten.mul.Tensor", {node("t1"), node("t1")})
      .call("a2", "aten.relu.default", {node("y")})
      .call("t2", "aten.transpose.int", {node("a2"), 0, 1})
      .call("m2", "aten.mul.Tensor", {node("t2"), node("t2")})
      .call("v2", "aten.transpose.int", {node("y"), 0, 1})
      .call("c", "aten.cat.default", {json::array({node("m1"), node("m2"), node("v2")})});
  Ran off = run_cached(g, false);
  Ran on = run_cached(g, true);
  EXPECT_FALSE(off.result.dispatch.enabled);
  ASSERT_TRUE(on.result.dispatch.enabled);
  EXPECT_EQ(report_lines(on), report_lines(off));
  EXPECT_EQ(on.result.dispatch.hits, 3u);  // a2, t2, m2; v2 misses: y is a leaf, a1 is not
  EXPECT_EQ(on.value("t2").tensor->meta.storage, on.value("a2").tensor->meta.storage);
  EXPECT_EQ(on.value("v2").tensor->meta.storage, on.value("y").tensor->meta.storage);
  EXPECT_NE(on.value("a2").tensor->meta.storage, on.value("a1").tensor->meta.storage);
}

// A run that adds a guard is not stored, so the guard stays with the node
// that asked; the same call after it decides statically and is stored.
TEST(FxDispatchCache, RunsThatGuardAreNotStored) {
  GraphText g;
  g.symbol("s0", 4)
      .input("x", tensor({"s0"}))
      .call("v1", "aten.view.default", {node("x"), json::array({2, -1})})
      .call("v2", "aten.view.default", {node("x"), json::array({2, -1})})
      .call("v3", "aten.view.default", {node("x"), json::array({2, -1})});
  Ran on = run_cached(g, true);
  const DispatchStats& d = on.result.dispatch;
  EXPECT_EQ(d.misses, 2u);
  EXPECT_EQ(d.not_stored, 1u);
  EXPECT_EQ(d.hits, 1u);
  ASSERT_EQ(on.result.env->guards().size(), 1u);
  EXPECT_EQ(on.result.env->guards()[0].node, "v1");
  EXPECT_EQ(report_lines(on), report_lines(run_cached(g, false)));
}

// In-place calls bypass the cache: their bookkeeping bumps versions.
TEST(FxDispatchCache, InplaceCallsBypass) {
  GraphText g;
  g.input("x", tensor({3, 4}))
      .input("y", tensor({3, 4}))
      .call("a", "aten.add_.Tensor", {node("x"), node("y")})
      .call("b", "aten.add_.Tensor", {node("x"), node("y")});
  Ran on = run_cached(g, true);
  const DispatchStats& d = on.result.dispatch;
  EXPECT_EQ(d.hits + d.misses, 0u);
  EXPECT_EQ(d.bypasses, 2u);
  uint64_t inplace = 0;
  for (const auto& [reason, count] : d.bypass_reasons)
    if (reason == "inplace") inplace = count;
  EXPECT_EQ(inplace, 2u);
  EXPECT_EQ(on.value("b").tensor->meta.storage, on.value("x").tensor->meta.storage);
}

}  // namespace
}  // namespace fakeprop::fx
