#include "fakeprop/util/name_pool.h"

#include <gtest/gtest.h>

#include <sstream>
#include <utility>
#include <vector>

namespace fakeprop {
namespace {

TEST(NamePool, InternsEachStringOnceAndKeepsItsNamesAcrossMoves) {
  NamePool pool;
  std::vector<std::pair<std::string, Name>> kept;
  for (int i = 0; i < 3000; ++i) {
    std::string s = "/features/features." + std::to_string(i % 700) + "/attn/Reshape_output_0";
    kept.emplace_back(s, pool.intern(s));
  }
  EXPECT_EQ(pool.size(), 700u);
  NamePool moved = std::move(pool);
  for (const auto& [s, name] : kept) {
    EXPECT_EQ(name.view(), s);
    EXPECT_EQ(name.size(), s.size());
    EXPECT_TRUE(name == moved.intern(s));  // same pointer: found, not added
  }
  EXPECT_EQ(moved.size(), 700u);
  EXPECT_TRUE(moved.intern("").empty());
  EXPECT_EQ(moved.intern("").view(), "");
}

TEST(NamePool, NamesReadAsStrings) {
  NamePool a, b;
  const Name x = a.intern("Conv_3");
  EXPECT_TRUE(x == b.intern("Conv_3"));  // other pool: by content
  EXPECT_FALSE(x == b.intern("Conv_4"));
  EXPECT_TRUE(x == std::string_view("Conv_3"));
  EXPECT_TRUE(x == std::string("Conv_3"));
  EXPECT_EQ("node '" + x + "'", "node 'Conv_3'");
  EXPECT_EQ(x + "/body", "Conv_3/body");
  EXPECT_EQ(std::string("at ") + x, "at Conv_3");
  std::ostringstream out;
  out << x << '|' << Name();
  EXPECT_EQ(out.str(), "Conv_3|");
  const std::string long_name(100000, 'n');  // larger than an arena block
  EXPECT_EQ(a.intern(long_name).view(), long_name);
}

TEST(NamePool, ReleasingTheIndexKeepsNamesAndStillInterns) {
  NamePool pool;
  const Name a = pool.intern("Reshape_output_0");
  const size_t stored = pool.bytes();
  pool.release_index();
  EXPECT_EQ(a.view(), "Reshape_output_0");
  const Name again = pool.intern("Reshape_output_0");  // stored a second time
  EXPECT_EQ(again.view(), "Reshape_output_0");
  EXPECT_TRUE(a == again);
  EXPECT_GT(pool.bytes(), stored);
}

}  // namespace
}  // namespace fakeprop
