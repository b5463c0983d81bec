// fakeprop's com.microsoft rules against ONNX Runtime: each case of
// testdata/onnx/contrib_ops_ort.json (scripts/contrib_ops_ort.py) is a small
// model with the output shapes and dtypes ORT's CPU provider produced for it
// (or, for ops with CUDA-only kernels, the ones ORT's schema inference
// gives, worked out by hand and named in "expected_from").
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fakeprop/onnx/model.h"
#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx {
namespace {

using json = nlohmann::json;

const std::string kJson = std::string(FAKEPROP_TESTDATA) + "/onnx/contrib_ops_ort.json";

const json& document() {
  static const json doc = [] {
    std::ifstream in(kJson);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str(), nullptr, false);
  }();
  return doc;
}

std::vector<json> cases() {
  const json& doc = document();
  if (doc.is_discarded() || !doc.contains("cases")) return {};
  return std::vector<json>(doc["cases"].begin(), doc["cases"].end());
}

class ContribOrt : public ::testing::TestWithParam<json> {};

TEST(ContribOrtTable, HasCases) {
  ASSERT_FALSE(document().is_discarded()) << kJson << " is missing or not JSON";
  EXPECT_GE(cases().size(), 20u);
  EXPECT_TRUE(document().contains("ort_version"));
}

TEST_P(ContribOrt, ShapesAndDtypesMatchOrt) {
  const json& c = GetParam();
  RunResult r = run_model(load_model(std::string(FAKEPROP_TESTDATA) + "/onnx/" + c["model"].get<std::string>()), {});
  for (const auto& e : r.errors)
    ADD_FAILURE() << "error at " << e.node << ": " << error_kind_name(e.kind) << ": " << e.message;
  for (const auto& o : c["outputs"]) {
    const std::string name = o["name"];
    std::vector<std::string> want;
    for (const auto& d : o["shape"]) want.push_back(d.is_string() ? d.get<std::string>() : std::to_string(d.get<int64_t>()));
    EXPECT_EQ(testing::shape_of(r, name), want) << name;
    const auto dt = dtype_from_onnx(o["elem_type"].get<int32_t>());
    ASSERT_TRUE(dt.has_value()) << name;
    EXPECT_EQ(testing::dtype_of(r, name), *dt) << name << ": " << dtype_name(testing::dtype_of(r, name)) << " vs "
                                               << dtype_name(*dt);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ContribOrt, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<json>& i) { return i.param["name"].get<std::string>(); });

}  // namespace
}  // namespace fakeprop::onnx
