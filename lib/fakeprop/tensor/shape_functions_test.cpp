// The shared shape math: sliding windows (static, backed, unbacked, ceil_mode
// last window, dilation, invalid windows) and numpy matmul shapes.
#include "fakeprop/tensor/shape_functions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

struct StaticWindowCase {
  const char* name;
  int64_t in;
  WindowDim window;
  int64_t expected;
};

TEST(SlidingWindowSize, StaticSizes) {
  const std::vector<StaticWindowCase> cases = {
      {"kernel 3", 10, {3, 1, 1, 0, 0, false}, 8},
      {"stride 2, pad 1", 10, {3, 2, 1, 1, 1, false}, 5},
      {"asymmetric pads", 10, {3, 2, 1, 0, 2, false}, 5},
      {"dilation 2", 10, {3, 1, 2, 0, 0, false}, 6},
      {"floor drops the partial window", 5, {2, 2, 1, 0, 0, false}, 2},
      {"ceil_mode keeps the partial window", 5, {2, 2, 1, 0, 0, true}, 3},
      // ceil count 2, but the second window would start in the end padding.
      {"ceil_mode last window in end padding", 1, {2, 2, 1, 1, 1, true}, 1},
      {"too small stays below 1", 2, {5, 1, 1, 0, 0, false}, -2},
  };
  for (const StaticWindowCase& c : cases) {
    ShapeEnv env;
    const SymInt out = sliding_window_size(env, SymInt(c.in), c.window, "test window");
    ASSERT_TRUE(out.is_static()) << c.name;
    EXPECT_EQ(out.value(), c.expected) << c.name;
    EXPECT_TRUE(env.guards().empty()) << c.name;
  }
}

TEST(SlidingWindowSize, InvalidWindowsFailWithInvalidArgument) {
  const std::vector<WindowDim> invalid = {
      {0, 1, 1, 0, 0, false}, {3, 0, 1, 0, 0, false}, {3, 1, 0, 0, 0, false},
      {3, 1, 1, -1, 0, false}, {3, 1, 1, 0, -1, false},
  };
  for (const WindowDim& w : invalid) {
    ShapeEnv env;
    try {
      (void)sliding_window_size(env, SymInt(10), w, "test window");
      ADD_FAILURE() << "kernel " << w.kernel << " stride " << w.stride << " dilation " << w.dilation << " pads "
                    << w.pad_begin << "," << w.pad_end << " accepted";
    } catch (const OpError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    }
  }
  try {
    (void)transposed_window_size(SymInt(4), {3, 2, 1, 0, 0, false}, -1);
    ADD_FAILURE() << "negative output_padding accepted";
  } catch (const OpError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

TEST(SlidingWindowSize, BackedSymbolicFloorNeedsNoGuard) {
  ShapeEnv env;
  const SymInt s0 = env.create_symbol(32, "L['x'].size()[2]", DimDynamic::Dynamic);
  const SymInt out = sliding_window_size(env, s0, {3, 2, 1, 1, 1, false}, "test window");
  EXPECT_EQ(out.to_python(), "(" + s0.to_python() + " - 1)//2 + 1");
  EXPECT_TRUE(env.guards().empty());
}

TEST(SlidingWindowSize, BackedSymbolicCeilModeGuardsOnTheLastWindow) {
  ShapeEnv env;
  const SymInt s0 = env.create_symbol(5, "L['x'].size()[2]", DimDynamic::Dynamic);
  const SymInt out = sliding_window_size(env, s0, {2, 2, 1, 0, 0, true}, "test ceil_mode");
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].rule, "test ceil_mode");
  ASSERT_TRUE(env.hint(out));
  EXPECT_EQ(*env.hint(out), 3);  // hint 5: windows start at 0, 2, 4
}

TEST(SlidingWindowSize, UnbackedCeilModeTakesTheSmallerCountWithoutGuards) {
  ShapeEnv env;
  const SymInt u0(env.create_unbacked_symint(/*size_like=*/true));
  // kernel 2, stride 3, pad 1: the ceil count can exceed the starts before the end padding.
  const SymInt out = sliding_window_size(env, u0, {2, 3, 1, 1, 1, true}, "test ceil_mode");
  EXPECT_TRUE(env.guards().empty());
  EXPECT_NE(out.to_python().find("min("), std::string::npos) << out.to_python();
  // End padding wider than the kernel: more than one window could be dropped, so it must guard (and cannot).
  EXPECT_ANY_THROW((void)sliding_window_size(env, u0, {1, 2, 1, 2, 2, true}, "test ceil_mode"));
}

TEST(SlidingWindowSize, SameAndTransposedSizes) {
  EXPECT_EQ(same_padded_window_size(SymInt(10), 3).value(), 4);
  EXPECT_EQ(transposed_window_size(SymInt(4), {3, 2, 1, 1, 1, false}, 1).value(), 8);  // 2*3 + 1 + 3 - 2
  EXPECT_EQ(transposed_window_size(SymInt(4), {3, 1, 2, 0, 0, false}, 0).value(), 8);  // 3 + 5
}

struct MatmulCase {
  SymShape a, b;
  const char* contracted;  // "k_a k_b"
  const char* expected;
};

TEST(MatmulShape, NumpyRules) {
  const std::vector<MatmulCase> cases = {
      {{3}, {3}, "3 3", "[]"},
      {{2, 3}, {3}, "3 3", "[2]"},
      {{3}, {3, 4}, "3 3", "[4]"},
      {{2, 3}, {3, 4}, "3 3", "[2, 4]"},
      {{5, 1, 2, 3}, {4, 3, 6}, "3 3", "[5, 4, 2, 6]"},
      {{7, 2, 3}, {3}, "3 3", "[7, 2]"},
      {{3}, {7, 3, 4}, "3 3", "[7, 4]"},
  };
  for (const MatmulCase& c : cases) {
    ShapeEnv env;
    const auto [k_a, k_b] = matmul_contracted_sizes(c.a, c.b);
    EXPECT_EQ(k_a.to_python() + " " + k_b.to_python(), c.contracted);
    EXPECT_EQ(shape_to_string(matmul_output_shape(c.a, c.b, env)), c.expected)
        << shape_to_string(c.a) << " @ " << shape_to_string(c.b);
  }
}

TEST(MatmulShape, SymbolicBatchBroadcastGuards) {
  ShapeEnv env;
  const SymInt s0 = env.create_symbol(4, "L['a'].size()[0]", DimDynamic::Dynamic);
  const SymInt s1 = env.create_symbol(4, "L['b'].size()[0]", DimDynamic::Dynamic);
  const SymShape out = matmul_output_shape({s0, 2, 3}, {s1, 3, 5}, env);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].to_python(), "2");
  EXPECT_EQ(out[2].to_python(), "5");
  EXPECT_FALSE(env.guards().empty());  // the batch dims must agree
}

TEST(MatmulShape, ZeroDimOperandsFailWithInvalidRank) {
  ShapeEnv env;
  for (const auto& [a, b] : std::vector<std::pair<SymShape, SymShape>>{{{}, {3}}, {{3}, {}}}) {
    try {
      (void)matmul_output_shape(a, b, env);
      ADD_FAILURE() << "0-D operand accepted";
    } catch (const OpError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidRank);
    }
    EXPECT_THROW((void)matmul_contracted_sizes(a, b), OpError);
  }
}

}  // namespace
}  // namespace fakeprop
