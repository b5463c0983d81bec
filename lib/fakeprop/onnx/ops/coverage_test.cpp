// Every operator of ONNX's default domain (as libonnx's schema registry lists
// it, over all opset versions) has a shape rule, except the few left out on
// purpose below.
#include <onnx/defs/schema.h>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "fakeprop/onnx/op_context.h"

namespace {

struct LeftOut {
  const char* domain;
  const char* op_type;
  const char* reason;
};

// Deliberately without a rule. Default-domain entries must be rare and justified.
constexpr LeftOut kLeftOut[] = {
    {"ai.onnx.preview.training", "Adagrad", "training-only optimizer update, never in inference models"},
    {"ai.onnx.preview.training", "Adam", "training-only optimizer update, never in inference models"},
    {"ai.onnx.preview.training", "Momentum", "training-only optimizer update, never in inference models"},
    {"ai.onnx.preview.training", "Gradient", "training-only autodiff marker, never in inference models"},
};

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

TEST(OnnxOpCoverage, EveryDefaultDomainOpHasARule) {
  const auto& registry = fakeprop::onnx::OpRegistry::instance();
  std::vector<std::string> missing;
  size_t total = 0;
  for (const auto& [domain, op] : all_schema_ops()) {
    if (!domain.empty() || left_out(domain, op)) continue;
    ++total;
    if (!registry.find("", op)) missing.push_back(op);
  }
  EXPECT_GT(total, 150u) << "libonnx's schema registry looks incomplete";
  std::string list;
  for (const auto& op : missing) list += " " + op;
  EXPECT_TRUE(missing.empty()) << missing.size() << " of " << total
                               << " default-domain operators have no rule:" << list;
}

TEST(OnnxOpCoverage, LeftOutListIsCurrent) {
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
