#include "fakeprop/util/error_kind.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace fakeprop {
namespace {

nlohmann::json report_schema() {
  std::ifstream in(FAKEPROP_TESTDATA "/../schemas/report.schema.json");
  EXPECT_TRUE(in) << "no schemas/report.schema.json";
  return nlohmann::json::parse(in);
}

TEST(ErrorKind, TableIsInEnumeratorOrder) {
  const auto kinds = error_kinds();
  ASSERT_FALSE(kinds.empty());
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(kinds[i].kind), i) << kinds[i].name;
    EXPECT_EQ(&error_kind_info(kinds[i].kind), &kinds[i]);
  }
}

TEST(ErrorKind, NamesAreUniqueAndRoundTrip) {
  std::set<std::string_view> seen;
  for (const ErrorKindInfo& k : error_kinds()) {
    EXPECT_TRUE(seen.insert(k.name).second) << "duplicate name " << k.name;
    EXPECT_FALSE(k.description.empty()) << k.name;
    EXPECT_EQ(error_kind_name(k.kind), k.name);
    EXPECT_EQ(parse_error_kind(k.name), k.kind) << k.name;
  }
  EXPECT_EQ(parse_error_kind(""), std::nullopt);
  EXPECT_EQ(parse_error_kind("Shape_Mismatch"), std::nullopt);
}

TEST(ErrorKind, MergedSynonymsAreGone) {
  for (const char* old : {"index_out_of_range", "type_mismatch", "rank_mismatch", "missing_argument", "attribute_type",
                          "invalid_outputs", "invalid_inputs", "invalid_value", "unknown_axes", "unknown_shape"})
    EXPECT_EQ(parse_error_kind(old), std::nullopt) << old;
}

TEST(ErrorKind, StrictPolicyAndWarnings) {
  std::set<std::string_view> strict, warnings;
  for (const ErrorKindInfo& k : error_kinds()) {
    if (k.fails_strict) strict.insert(k.name);
    if (k.warning) warnings.insert(k.name);
    EXPECT_EQ(fails_strict(k.kind), k.fails_strict);
  }
  EXPECT_EQ(strict, (std::set<std::string_view>{"constraint_violation", "data_dependent", "unsupported_op"}));
  EXPECT_EQ(warnings, (std::set<std::string_view>{"expression_too_large", "precision_lost", "specialized_input",
                                                 "unknown_rank", "negative_dim", "unknown_opset",
                                                 "duplicate_input", "extra_inputs"}));
}

// The schema's problem kinds are the table's, with the same descriptions.
TEST(ErrorKind, SchemaListsEveryKind) {
  const nlohmann::json schema = report_schema();
  const nlohmann::json& one_of = schema["$defs"]["problem"]["properties"]["kind"]["oneOf"];
  ASSERT_TRUE(one_of.is_array());
  std::map<std::string, std::string> listed;
  for (const auto& entry : one_of) {
    const std::string name = entry.at("const").get<std::string>();
    EXPECT_TRUE(listed.emplace(name, entry.at("description").get<std::string>()).second) << "listed twice: " << name;
    EXPECT_TRUE(parse_error_kind(name)) << "the schema lists " << name << ", which is no ErrorKind";
  }
  for (const ErrorKindInfo& k : error_kinds()) {
    auto it = listed.find(std::string(k.name));
    if (it == listed.end()) {
      ADD_FAILURE() << "the schema does not list " << k.name;
      continue;
    }
    EXPECT_EQ(it->second, k.description) << k.name;
  }
  EXPECT_EQ(listed.size(), error_kinds().size());
}

}  // namespace
}  // namespace fakeprop
