#include "fakeprop/util/byte_arena.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace fakeprop {
namespace {

TEST(ByteArena, CopiesStayValidAcrossBlocksAndMoves) {
  ByteArena arena(64);
  std::vector<std::pair<std::string, std::string_view>> kept;
  for (int i = 0; i < 200; ++i) {
    std::string s(static_cast<size_t>(i % 23), static_cast<char>('a' + i % 26));
    s += std::to_string(i);
    kept.emplace_back(s, arena.copy(s));
  }
  const std::string big(1000, 'z');  // larger than a block: a block of its own
  const std::string_view big_view = arena.copy(big);
  const std::string_view after_big = arena.copy("tail");
  ByteArena moved = std::move(arena);
  for (const auto& [original, view] : kept) {
    EXPECT_EQ(view, original);
    EXPECT_NE(static_cast<const void*>(view.data()), static_cast<const void*>(original.data()));
  }
  EXPECT_EQ(big_view, big);
  EXPECT_EQ(after_big, "tail");
  size_t total = big.size() + 4;
  for (const auto& k : kept) total += k.first.size();
  EXPECT_EQ(moved.used(), total);
  EXPECT_TRUE(moved.copy("").empty());
}

}  // namespace
}  // namespace fakeprop
