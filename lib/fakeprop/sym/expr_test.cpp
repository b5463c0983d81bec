#include "fakeprop/sym/expr.h"

#include <gtest/gtest.h>

#include <limits>

#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(ExprCheckedMath, OverflowThrows) {
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
  EXPECT_THROW(checked_add(kMax, 1), OverflowError);
  EXPECT_THROW(checked_sub(kMin, 1), OverflowError);
  EXPECT_THROW(checked_mul(kMax / 2 + 1, 2), OverflowError);
}

}  // namespace
}  // namespace fakeprop
