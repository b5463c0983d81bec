#include "fakeprop/tensor/example_strides.h"

#include <gtest/gtest.h>

namespace fakeprop {
namespace {

using V = std::vector<int64_t>;

TEST(DenseStridesLike, KeepsTheExampleLayout) {
  EXPECT_EQ(dense_strides_like(V{8, 4}, V{4, 1}, V{8, 6}), V({6, 1}));  // contiguous
  EXPECT_EQ(dense_strides_like(V{8, 4}, V{1, 8}, V{6, 4}), V({1, 6}));  // transposed
  EXPECT_EQ(dense_strides_like(V{2, 3, 4, 5}, V{60, 1, 15, 3}, V{2, 5, 4, 5}), V({100, 1, 25, 5}));  // channels last
  EXPECT_EQ(dense_strides_like(V{8, 1, 4}, V{4, 4, 1}, V{8, 3, 4}), V({12, 4, 1}));
  EXPECT_EQ(dense_strides_like(V{8, 4}, V{4, 1}, V{8, 4}), V({4, 1}));
}

// torch.empty(6, 0, 3, 2).stride() is (6, 6, 2, 1) and torch.empty(6, 0, 0, 2).stride() (2, 2, 2, 1):
// a size-0 dim steps as a size-1 one.
TEST(DenseStridesLike, AnEmptyExampleStillHasItsLayout) {
  EXPECT_EQ(dense_strides_like(V{6, 0, 3, 2}, V{6, 6, 2, 1}, V{6, 0, 0, 2}), V({2, 2, 2, 1}));
  EXPECT_EQ(dense_strides_like(V{6, 0, 3, 2}, V{6, 6, 2, 1}, V{6, 4, 3, 2}), V({24, 6, 2, 1}));
  EXPECT_EQ(dense_strides_like(V{0, 3}, V{1, 0}, V{2, 3}), std::nullopt);  // not torch's layout of any empty tensor
}

TEST(DenseStridesLike, NothingForALayoutThatIsNotDense) {
  EXPECT_EQ(dense_strides_like(V{8, 4}, V{8, 1}, V{8, 6}), std::nullopt);  // a slice
  EXPECT_EQ(dense_strides_like(V{8, 4}, V{0, 1}, V{8, 6}), std::nullopt);  // an expand
  EXPECT_EQ(dense_strides_like(V{8, 4}, V{4, 1}, V{8, 6, 2}), std::nullopt);
}

}  // namespace
}  // namespace fakeprop
