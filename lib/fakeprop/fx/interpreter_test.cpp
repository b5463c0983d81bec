// The FX interpreter around the rules: what the nodes after a failed one see.
#include "fakeprop/fx/ops/graph_test_util.h"

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

}  // namespace
}  // namespace fakeprop::fx
