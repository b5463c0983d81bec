#include "fakeprop/util/chunked_vector.h"

#include <gtest/gtest.h>

#include <string>

namespace fakeprop {
namespace {

TEST(ChunkedVector, IndexesAndIteratesLikeAVector) {
  ChunkedVector<std::string, 4> v;
  EXPECT_TRUE(v.empty());
  for (int i = 0; i < 10; ++i) v.push_back("item " + std::to_string(i));
  v.emplace_back(3, 'x');
  ASSERT_EQ(v.size(), 11u);
  EXPECT_EQ(v.front(), "item 0");
  EXPECT_EQ(v[5], "item 5");
  EXPECT_EQ(v.back(), "xxx");
  size_t n = 0;
  for (const std::string& s : v) EXPECT_EQ(s, v[n++]);
  EXPECT_EQ(n, v.size());
  EXPECT_EQ(v.live_chunks(), 3u);
}

TEST(ChunkedVector, ElementsNeverMoveAsItGrows) {
  ChunkedVector<std::string, 4> v;
  v.push_back("first");
  const std::string* first = &v[0];
  for (int i = 0; i < 100; ++i) v.push_back(std::to_string(i));
  EXPECT_EQ(first, &v[0]);
}

TEST(ChunkedVector, FreesAChunkOnceEveryElementInItIsReleased) {
  ChunkedVector<std::string, 4> v;
  for (int i = 0; i < 9; ++i) v.push_back(std::string(40, static_cast<char>('a' + i)));
  ASSERT_EQ(v.live_chunks(), 3u);
  // Out of order, as a topological walk may release them.
  v.release(2);
  v.release(0);
  v.release(3);
  EXPECT_EQ(v.live_chunks(), 3u);
  EXPECT_TRUE(v[0].empty());           // released elements are reset
  EXPECT_EQ(v[1], std::string(40, 'b'));  // the others are untouched
  v.release(1);
  EXPECT_EQ(v.live_chunks(), 2u);
  EXPECT_EQ(v[4], std::string(40, 'e'));  // later chunks still read
  for (size_t i = 4; i < 9; ++i) v.release(i);
  EXPECT_EQ(v.live_chunks(), 0u);
  EXPECT_EQ(v.size(), 9u);  // the size is the list's, not what is still held
}

}  // namespace
}  // namespace fakeprop
