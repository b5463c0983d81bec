// Symbolic sizes through the tensor model: strides, layout queries and
// broadcasting with a ShapeEnv, and which guards / runtime asserts they leave.
#include <gtest/gtest.h>

#include <vector>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/tensor/tensor_meta.h"

namespace fakeprop {
namespace {

// ---- symbolic sizes ----

class TensorMetaSymbolic : public ::testing::Test {
 protected:
  SymInt backed(int64_t hint, const std::string& source) {
    return env.create_symbol(hint, source, DimDynamic::Dynamic);
  }
  SymInt size_like_unbacked() { return SymInt(env.create_unbacked_symint(/*size_like=*/true)); }

  ShapeEnv env;
};

TEST_F(TensorMetaSymbolic, ContiguousStridesKeepSizesKnownPositive) {
  const SymInt s0 = backed(5, "L['x'].size()[0]");
  const SymInt s1 = backed(7, "L['x'].size()[2]");
  const SymShape sizes = {s0, 3, s1};
  const SymShape strides = contiguous_strides(sizes, &env);
  EXPECT_EQ(shape_to_string(strides), "[3*" + s1.to_python() + ", " + s1.to_python() + ", 1]");
  EXPECT_TRUE(strides[0].same(SymInt(3) * s1));
  // Without an env nothing is known about s1: PyTorch's sym_max(s1, 1) stays.
  const SymShape plain = contiguous_strides(sizes);
  EXPECT_EQ(plain[1].to_python(), "max(1, " + s1.to_python() + ")");
  EXPECT_TRUE(env.guards().empty());
}

// sympy keeps Max(1, e) unless e is positive by its symbols' assumptions:
// torch.empty(s0 // 2, s1 - 1, s1).stride() is (s1*Max(1, s1 - 1), s1, 1) in
// torch 2.15 though s1 >= 2, and so is a chunk's (s0 + 2)//3.
TEST_F(TensorMetaSymbolic, ContiguousStridesKeepMaxOfSizesNotPositiveByAssumptions) {
  const SymInt s0 = backed(8, "L['x'].size()[0]");
  const SymInt s1 = backed(5, "L['x'].size()[1]");
  const SymShape sizes = {floordiv(s0, 2), s1 - 1, s1};
  const SymShape strides = contiguous_strides(sizes, &env);
  EXPECT_EQ(strides[0].to_python(), s1.to_python() + "*max(1, " + s1.to_python() + " - 1)");
  const SymShape chunked = contiguous_strides(SymShape{s1, floordiv(s0 + 2, 3)}, &env);
  EXPECT_EQ(chunked[0].to_python().rfind("max(1, ", 0), 0u) << chunked[0].to_python();
  // A sum or product of sizes is positive: no Max.
  const SymShape sums = contiguous_strides(SymShape{2, s0 + 1, s0 * s1}, &env);
  EXPECT_TRUE(sums[0].same((s0 + 1) * (s0 * s1))) << sums[0].to_python();
  EXPECT_TRUE(env.guards().empty());
}

TEST_F(TensorMetaSymbolic, ContiguousStridesOfUnbackedKeepMax) {
  const SymInt u0 = size_like_unbacked();
  const SymShape sizes = {2, u0, 4};
  const SymShape strides = contiguous_strides(sizes, &env);
  EXPECT_EQ(strides[0].to_python(), "4*max(1, " + u0.to_python() + ")");
  EXPECT_EQ(strides[1].value(), 4);
  // Such a tensor still counts as contiguous, without a guard.
  TensorMeta t;
  t.sizes = sizes;
  t.strides = strides;
  EXPECT_TRUE(is_contiguous(t, env));
  EXPECT_TRUE(is_non_overlapping_and_dense(t, env));
  EXPECT_TRUE(env.guards().empty());
}

TEST_F(TensorMetaSymbolic, BroadcastBackedSizesGuardsAndUnifies) {
  const SymInt s0 = backed(4, "L['x'].size()[0]");
  const SymInt s1 = backed(4, "L['y'].size()[0]");
  ASSERT_FALSE(s0.same(s1));
  const SymShape out = broadcast_shapes(SymShape{s0}, SymShape{s1}, env);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].same(s0));
  EXPECT_EQ(env.guards().size(), 1u);
  // The guard Eq(s0, s1) is solved into a replacement of one by the other.
  EXPECT_TRUE(env.simplify(s1).same(env.simplify(s0)));
  EXPECT_FALSE(env.replacements().empty());
  EXPECT_TRUE(env.runtime_asserts().empty());
}

TEST_F(TensorMetaSymbolic, BroadcastBackedMismatchNamesSymbols) {
  const SymInt s0 = backed(3, "L['x'].size()[0]");
  const SymInt s1 = backed(4, "L['y'].size()[0]");
  try {
    broadcast_shapes(SymShape{s0}, SymShape{s1}, env);
    ADD_FAILURE() << "no error";
  } catch (const OpError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
    EXPECT_EQ(std::string(e.what()), "The size of tensor a (" + s0.to_python() + ") must match the size of tensor b (" +
                                         s1.to_python() + ") at non-singleton dimension 0");
  }
  EXPECT_EQ(env.guards().size(), 1u);  // the decision Ne(s0, s1) is itself a guard
}

TEST_F(TensorMetaSymbolic, BroadcastUnbackedDefersARuntimeAssert) {
  const SymInt u0 = size_like_unbacked();
  const SymInt s1 = backed(5, "L['y'].size()[0]");
  const SymShape out = broadcast_shapes(SymShape{u0}, SymShape{s1}, env);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].same(u0));
  EXPECT_TRUE(env.guards().empty());
  EXPECT_EQ(env.runtime_asserts().size(), 1u);
}

// A hintless size that may or may not be 1, such as (u - 1)//4 + 1 after a stride-4 stem: current
// PyTorch's infer_size asks guard_or_false(size == 1), takes it as not 1, and then needs only the
// sizes to be equal (statically true for a residual Add; a runtime assert otherwise). Before, the
// size-oblivious question stopped on a data-dependent error.
TEST_F(TensorMetaSymbolic, BroadcastMaybeOneHintlessSizeIsNotABroadcast) {
  const SymInt u0 = size_like_unbacked();
  const SymInt reduced = floordiv(u0 - SymInt(1), SymInt(4)) + SymInt(1);
  ASSERT_FALSE(reduced.is_static());
  const SymShape same = broadcast_shapes(SymShape{2, reduced}, SymShape{2, reduced}, env);
  EXPECT_TRUE(same[1].same(reduced));
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(env.runtime_asserts().empty());
  const SymShape other = broadcast_shapes(SymShape{reduced}, SymShape{u0}, env);
  EXPECT_TRUE(other[0].same(reduced));
  EXPECT_TRUE(env.guards().empty());
  EXPECT_EQ(env.runtime_asserts().size(), 1u);
}

TEST_F(TensorMetaSymbolic, BroadcastAgainstOneNeedsNoGuard) {
  const SymInt s0 = backed(6, "L['x'].size()[0]");
  const SymShape out = broadcast_shapes(SymShape{s0, 1}, SymShape{1, 5}, env);
  EXPECT_EQ(shape_to_string(out), "[" + s0.to_python() + ", 5]");
  EXPECT_TRUE(out[0].same(s0));
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(env.runtime_asserts().empty());
}

TEST_F(TensorMetaSymbolic, BroadcastStaticMismatchWithSymbolicRank) {
  const SymInt s0 = backed(6, "L['x'].size()[0]");
  try {
    broadcast_shapes(SymShape{s0, 3}, SymShape{4}, env);
    ADD_FAILURE() << "no error";
  } catch (const OpError& e) {
    EXPECT_EQ(std::string(e.what()), "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  }
  EXPECT_TRUE(env.guards().empty());
}

TEST_F(TensorMetaSymbolic, LayoutQueriesWithoutGuards) {
  const SymInt s0 = backed(8, "L['x'].size()[0]");
  const SymInt s1 = backed(16, "L['x'].size()[2]");
  // [s0, 3, s1, s1] channels-last: strides (3*s1*s1, 1, 3*s1, 3).
  TensorMeta t;
  t.sizes = {s0, 3, s1, s1};
  t.strides = channels_last_strides(t.sizes, &env);
  EXPECT_FALSE(is_contiguous(t, env));
  EXPECT_TRUE(is_channels_last_contiguous(t, env));
  EXPECT_TRUE(is_non_overlapping_and_dense(t, env));
  EXPECT_EQ(suggest_memory_format(t, env), MemoryFormat::ChannelsLast);
  // A contiguous operand with a channels-last one: the sort decides.
  TensorMeta c;
  c.sizes = t.sizes;
  c.strides = contiguous_strides(c.sizes, &env);
  EXPECT_TRUE(is_contiguous(c, env));
  const std::vector<const TensorMeta*> both_cl = {&t, &t};
  EXPECT_EQ(shape_to_string(elementwise_output_strides(both_cl, t.sizes, env)), shape_to_string(t.strides));
  EXPECT_EQ(shape_to_string(strides_like(t, t.sizes, env)), shape_to_string(t.strides));
  for (const GuardRecord& g : env.guards()) ADD_FAILURE() << "guard " << to_sympy_string(g.expr) << " from " << g.rule;
  // Mixed layouts must compare strides such as 3*s1 and 3*s1**2, which ranges
  // alone cannot order: those comparisons become guards, as in PyTorch.
  const std::vector<const TensorMeta*> mixed = {&t, &c};
  EXPECT_EQ(shape_to_string(elementwise_output_strides(mixed, t.sizes, env)), shape_to_string(t.strides));
}

TEST_F(TensorMetaSymbolic, PermutedOperandsOrderBySymbolicStrides) {
  const SymInt s0 = backed(3, "L['x'].size()[0]");
  const SymInt s1 = backed(5, "L['x'].size()[1]");
  // x: [s0, s1] transposed storage (strides 1, s0); y: contiguous [s0, s1].
  TensorMeta x;
  x.sizes = {s0, s1};
  x.strides = {1, s0};
  TensorMeta y;
  y.sizes = x.sizes;
  y.strides = contiguous_strides(y.sizes, &env);
  EXPECT_FALSE(is_contiguous(x, env));
  EXPECT_TRUE(is_non_overlapping_and_dense(x, env));
  // The first operand decides: x's order gives strides (1, s0).
  const std::vector<const TensorMeta*> xy = {&x, &y};
  EXPECT_EQ(shape_to_string(elementwise_output_strides(xy, x.sizes, env)), "[1, " + s0.to_python() + "]");
  const std::vector<const TensorMeta*> yx = {&y, &x};
  EXPECT_EQ(shape_to_string(elementwise_output_strides(yx, x.sizes, env)), "[" + s1.to_python() + ", 1]");
  // empty_like keeps x's layout.
  EXPECT_EQ(shape_to_string(strides_like(x, x.sizes, env)), "[1, " + s0.to_python() + "]");
}

TEST_F(TensorMetaSymbolic, BroadcastOperandGetsZeroStrides) {
  const SymInt s0 = backed(4, "L['x'].size()[0]");
  // A channels-last [s0, 3, 8, 8] plus a [3, 1, 1] bias keeps channels-last.
  TensorMeta x;
  x.sizes = {s0, 3, 8, 8};
  x.strides = channels_last_strides(x.sizes, &env);
  TensorMeta bias;
  bias.sizes = {3, 1, 1};
  bias.strides = {1, 1, 1};
  const SymShape out = broadcast_shapes(x.sizes, bias.sizes, env);
  const std::vector<const TensorMeta*> ops = {&x, &bias};
  EXPECT_EQ(shape_to_string(elementwise_output_strides(ops, out, env)), "[192, 1, 24, 3]");
  EXPECT_TRUE(env.guards().empty());
}

TEST_F(TensorMetaSymbolic, NumelAndShapeText) {
  const SymInt s0 = backed(4, "L['x'].size()[0]");
  TensorMeta t;
  t.sizes = {SymInt(2) * s0, 3};
  EXPECT_EQ(shape_to_string(t.sizes), "[2*" + s0.to_python() + ", 3]");
  EXPECT_TRUE(t.numel().same(SymInt(6) * s0));
}

}  // namespace
}  // namespace fakeprop
