// Every operator of ONNX's default domain, ai.onnx.ml and
// ai.onnx.preview.training (as libonnx's schema registry lists them, over all
// opset versions) has a shape rule, except any left out on purpose below.
#include <onnx/defs/schema.h>

#include <gtest/gtest.h>

#include <array>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "fakeprop/onnx/op_context.h"
#include "fakeprop/onnx/schema.h"

namespace {

struct LeftOut {
  const char* domain;
  const char* op_type;
  const char* reason;
};

// Deliberately without a rule: entries must be rare and justified. (The
// training optimizers and Gradient were here until they got rules.)
constexpr std::array<LeftOut, 0> kLeftOut{};

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

bool left_out(const std::string& domain, const std::string& op) {
  for (const auto& l : kLeftOut)
    if (domain == l.domain && op == l.op_type) return true;
  return false;
}

std::set<std::pair<std::string, std::string>> all_schema_ops() {
  std::set<std::pair<std::string, std::string>> ops;
  for (const auto& s : ::onnx::OpSchemaRegistry::get_all_schemas_with_history())
    ops.emplace(is_default_domain(s.domain()) ? "" : s.domain(), s.Name());
  return ops;
}

struct Domain {
  const char* name;  // "" is the default domain
  size_t at_least;   // fewer operators than this means libonnx's registry is incomplete
};

void PrintTo(const Domain& d, std::ostream* os) { *os << (*d.name ? d.name : "the default domain"); }

class OnnxOpCoverage : public ::testing::TestWithParam<Domain> {};

TEST_P(OnnxOpCoverage, EveryOpOfTheDomainHasARule) {
  const std::string domain = GetParam().name;
  const auto& registry = fakeprop::onnx::OpRegistry::instance();
  std::vector<std::string> missing;
  size_t total = 0;
  for (const auto& [d, op] : all_schema_ops()) {
    if (d != domain || left_out(d, op)) continue;
    ++total;
    if (!registry.find(d, op)) missing.push_back(op);
  }
  EXPECT_GE(total, GetParam().at_least) << "libonnx's schema registry looks incomplete for '" << domain << "'";
  std::string list;
  for (const auto& op : missing) list += " " + op;
  EXPECT_TRUE(missing.empty()) << missing.size() << " of " << total << " operators of '" << domain
                               << "' have no rule:" << list;
}

INSTANTIATE_TEST_SUITE_P(Domains, OnnxOpCoverage,
                         ::testing::Values(Domain{"", 150}, Domain{"ai.onnx.ml", 18},
                                           Domain{"ai.onnx.preview.training", 4}),
                         [](const ::testing::TestParamInfo<Domain>& i) {
                           std::string name = *i.param.name ? i.param.name : "default";
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

TEST(OnnxOpCoverageList, LeftOutListIsCurrent) {
  const auto ops = all_schema_ops();
  const auto& registry = fakeprop::onnx::OpRegistry::instance();
  for (const auto& l : kLeftOut) {
    EXPECT_TRUE(ops.count({l.domain, l.op_type})) << l.domain << "." << l.op_type << " is not an ONNX operator";
    EXPECT_EQ(registry.find(l.domain, l.op_type), nullptr)
        << l.domain << "." << l.op_type << " has a rule now; remove it from kLeftOut";
    EXPECT_STRNE(l.reason, "");
  }
}

}  // namespace

// The generated schema table (onnx/schemas.inc) agrees with the libonnx
// linked here on every version both hold: a released version does not
// change, so a difference is a generator bug.
TEST(OnnxSchemaTable, AgreesWithLibonnx) {
  size_t compared = 0;
  for (const auto& s : ::onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    const std::string domain = is_default_domain(s.domain()) ? "" : s.domain();
    const std::string what = domain + "::" + s.Name() + "-" + std::to_string(s.SinceVersion());
    const fakeprop::onnx::OpSchema* row = fakeprop::onnx::find_schema(domain, s.Name(), s.SinceVersion());
    if (!row || row->since_version != s.SinceVersion()) continue;  // a version newer than the table's onnx
    ++compared;
    EXPECT_EQ(row->min_input, s.min_input()) << what;
    EXPECT_EQ(row->max_input, s.max_input()) << what;
    EXPECT_EQ(row->min_output, s.min_output()) << what;
    EXPECT_EQ(row->max_output, s.max_output()) << what;
    ASSERT_EQ(row->inputs().size(), s.inputs().size()) << what;
    for (size_t i = 0; i < s.inputs().size(); ++i) EXPECT_EQ(row->inputs()[i].name, s.inputs()[i].GetName()) << what;
    EXPECT_EQ(row->attributes().size(), s.attributes().size()) << what;
    for (const auto& [name, a] : s.attributes()) {
      const fakeprop::onnx::AttrRow* attr = row->attribute(name);
      ASSERT_NE(attr, nullptr) << what << " " << name;
      EXPECT_EQ(static_cast<int>(attr->type), static_cast<int>(a.type)) << what << " " << name;
      EXPECT_EQ(attr->required, a.required) << what << " " << name;
    }
  }
  EXPECT_GT(compared, 400u);  // 444 with the libonnx of this image
}
