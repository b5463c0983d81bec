// The com.microsoft contrib operators that ONNX Runtime registers, as
// scripts/contrib_ops.py lists them in testdata/onnx/contrib_ops.tsv: each one
// a released ORT tool emits has a rule or a reason for leaving it out, and
// the table's `rule` status agrees with fakeprop's registry both ways.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "fakeprop/onnx/op_context.h"

namespace {

constexpr const char* kMs = "com.microsoft";

struct Row {
  std::string emitted_by, status, reason;
};

std::map<std::string, Row> read_table() {
  std::ifstream in(std::string(FAKEPROP_TESTDATA) + "/onnx/contrib_ops.tsv");
  EXPECT_TRUE(in.good()) << "testdata/onnx/contrib_ops.tsv is missing; run scripts/contrib_ops.py";
  std::map<std::string, Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("op\t", 0) == 0) continue;
    std::istringstream cols(line);
    std::string op;
    Row r;
    std::getline(cols, op, '\t');
    std::getline(cols, r.emitted_by, '\t');
    std::getline(cols, r.status, '\t');
    std::getline(cols, r.reason);
    rows[op] = r;
  }
  return rows;
}

// fakeprop rules in com.microsoft for ops ORT registers in another domain.
const std::set<std::string> kNotContribSchemas = {
    "SimplifiedLayerNormalization",  // ORT's schema is in the default domain; models use both
};

TEST(ContribOpCoverage, TableReadsWell) {
  const auto rows = read_table();
  EXPECT_GE(rows.size(), 100u) << "contrib_ops.tsv looks truncated";
  for (const auto& [op, r] : rows)
    EXPECT_TRUE(r.status == "rule" || r.status == "left_out") << op << ": status '" << r.status << "'";
}

TEST(ContribOpCoverage, RuleStatusMeansARule) {
  const auto& registry = fakeprop::onnx::OpRegistry::instance();
  for (const auto& [op, r] : read_table()) {
    if (r.status == "rule")
      EXPECT_TRUE(registry.find(kMs, op) != nullptr) << op << " is marked rule but has no com.microsoft rule";
    else
      EXPECT_TRUE(registry.find(kMs, op) == nullptr) << op << " has a rule now; mark it rule in contrib_ops.tsv";
  }
}

TEST(ContribOpCoverage, EveryRuleIsListed) {
  const auto rows = read_table();
  for (const auto& [domain, op] : fakeprop::onnx::OpRegistry::instance().all()) {
    if (domain != kMs || kNotContribSchemas.count(op)) continue;
    auto it = rows.find(op);
    EXPECT_TRUE(it != rows.end() && it->second.status == "rule") << op << " has a rule but is not listed as rule";
  }
}

TEST(ContribOpCoverage, EmittedOpsHaveARuleOrAReason) {
  std::string missing;
  for (const auto& [op, r] : read_table())
    if (r.emitted_by != "-" && r.status != "rule" && r.reason.empty()) missing += " " + op;
  EXPECT_TRUE(missing.empty()) << "emitted by ORT tools, with no rule and no reason:" << missing;
}

}  // namespace
