#include "fakeprop/util/string_ids.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace fakeprop {
namespace {

TEST(StringIds, IdsAreDenseInFirstSeenOrder) {
  StringIds ids;
  EXPECT_EQ(ids.insert("x"), std::make_pair(0u, true));
  EXPECT_EQ(ids.insert("y"), std::make_pair(1u, true));
  EXPECT_EQ(ids.insert("x"), std::make_pair(0u, false));
  EXPECT_EQ(ids.insert(""), std::make_pair(2u, true));
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids.find("y"), 1u);
  EXPECT_EQ(ids.find(""), 2u);
  EXPECT_EQ(ids.find("z"), StringIds::kNone);
  EXPECT_EQ(ids.name(1), "y");
}

// Against std::unordered_map through many growths, with names that share
// prefixes and lengths (as exporters' names do).
TEST(StringIds, AgreesWithUnorderedMapThroughGrowth) {
  std::mt19937 rng(7);
  std::vector<std::string> pool;
  for (int i = 0; i < 20000; ++i) pool.push_back("/layer" + std::to_string(rng() % 5000) + "/Add_" + std::to_string(rng() % 7));
  StringIds ids(4);  // far too small: forces rehashing
  std::unordered_map<std::string, uint32_t> expect;
  for (const std::string& s : pool) {
    auto [id, added] = ids.insert(s);
    auto [it, inserted] = expect.emplace(s, static_cast<uint32_t>(expect.size()));
    ASSERT_EQ(added, inserted) << s;
    ASSERT_EQ(id, it->second) << s;
  }
  EXPECT_EQ(ids.size(), expect.size());
  for (const auto& [s, id] : expect) {
    EXPECT_EQ(ids.find(s), id);
    EXPECT_EQ(ids.name(id), s);
  }
  EXPECT_EQ(ids.find("/layer5000/Add_0"), StringIds::kNone);
}

}  // namespace
}  // namespace fakeprop
