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

}  // namespace
}  // namespace fakeprop::fx
