// The valid region's lines: what a guard adds beyond the range.
#include "fakeprop/report/valid_region.h"

#include <gtest/gtest.h>

namespace fakeprop {
namespace {

RunResult one_input(std::unique_ptr<ShapeEnv> env, const SymInt& size) {
  RunResult r;
  TensorValue t;
  t.meta.sizes = {size};
  t.meta.strides = {SymInt(1)};
  r.inputs.push_back({"x", "L['x']", Value::of_tensor(std::move(t))});
  r.env = std::move(env);
  return r;
}

// A guard that a later one makes redundant (s != 2 once s >= 3) is not
// repeated beside the range; one the range does not imply is.
TEST(ValidRegion, GuardsImpliedByTheRangeAreLeftOut) {
  auto env = std::make_unique<ShapeEnv>();
  const SymInt s = env->create_symbol(4, "L['x'].size()[0]");
  EXPECT_TRUE(env->evaluate(sym_ne(s, SymInt(2)), "test"));
  EXPECT_TRUE(env->evaluate(sym_ne(s, SymInt(5)), "test"));
  EXPECT_TRUE(env->evaluate(sym_ge(s, SymInt(3)), "test"));
  const RunResult r = one_input(std::move(env), s);
  const std::vector<ValidRegion> regions = valid_regions(r);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].min, 3);
  EXPECT_EQ(regions[0].also, std::vector<std::string>{"L['x'].size()[0] != 5"});
  EXPECT_EQ(regions[0].text, "L['x'].size()[0]: 3..int_oo, L['x'].size()[0] != 5");
}

}  // namespace
}  // namespace fakeprop
