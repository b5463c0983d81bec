// check's change kinds and the recompile statuses: one name each, and the
// statuses the report schema lists are exactly the enum's.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fakeprop/report/baseline.h"
#include "fakeprop/report/recompile.h"

namespace fakeprop {
namespace {

TEST(ChangeKind, NamesAreUniqueAndIndexed) {
  std::set<std::string_view> seen;
  const auto kinds = change_kinds();
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(kinds[i].kind), i) << kinds[i].name;
    EXPECT_TRUE(seen.insert(kinds[i].name).second) << "duplicate name " << kinds[i].name;
    EXPECT_EQ(change_kind_name(kinds[i].kind), kinds[i].name);
  }
  EXPECT_EQ(change_kind_name(ChangeKind::OutputShape), "output_shape");
  EXPECT_EQ(change_kind_name(ChangeKind::NewGuard), "new_guard");
}

TEST(CallStatus, NamesMatchTheSchema) {
  std::set<std::string> names;
  const auto statuses = call_statuses();
  for (size_t i = 0; i < statuses.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(statuses[i].status), i) << statuses[i].name;
    EXPECT_TRUE(names.insert(std::string(statuses[i].name)).second) << "duplicate name " << statuses[i].name;
    EXPECT_EQ(call_status_name(statuses[i].status), statuses[i].name);
  }
  std::ifstream in(FAKEPROP_TESTDATA "/../schemas/report.schema.json");
  ASSERT_TRUE(in);
  const nlohmann::json schema = nlohmann::json::parse(in);
  const nlohmann::json& call = schema["properties"]["recompiles"]["properties"]["calls"]["items"];
  const nlohmann::json& listed = call["properties"]["status"]["enum"];
  ASSERT_TRUE(listed.is_array());
  EXPECT_EQ(listed.get<std::set<std::string>>(), names);
  EXPECT_EQ(listed.size(), names.size());
}

}  // namespace
}  // namespace fakeprop
