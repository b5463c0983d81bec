#include "fakeprop/util/thin_vector.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace fakeprop {
namespace {

TEST(ThinVector, IsOnePointerAndEmptyUntilFirstPush) {
  static_assert(sizeof(ThinVector<std::string>) == sizeof(void*));
  ThinVector<std::string> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(v.begin(), v.end());
  v.push_back("a");
  v.emplace_back(2, 'b');
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v.front(), "a");
  EXPECT_EQ(v.back(), "bb");
  std::string joined;
  for (const auto& s : v) joined += s;
  EXPECT_EQ(joined, "abb");
  EXPECT_EQ(v.to_vector(), (std::vector<std::string>{"a", "bb"}));
}

TEST(ThinVector, CopiesDeeplyAndMoves) {
  ThinVector<std::pair<std::string, std::string>> a;
  a.emplace_back("u0", ".size()[0]");
  ThinVector<std::pair<std::string, std::string>> b = a;
  b[0].second = "";
  EXPECT_EQ(a[0].second, ".size()[0]");  // the copy is its own
  EXPECT_FALSE(a == b);
  b = a;
  EXPECT_TRUE(a == b);
  ThinVector<std::pair<std::string, std::string>> c = std::move(b);
  EXPECT_EQ(c.size(), 1u);
  EXPECT_TRUE(ThinVector<int>() == ThinVector<int>());
}

}  // namespace
}  // namespace fakeprop
