// Operator versions: every model of testdata/onnx/op_versions (one op at one
// since_version, made by scripts/onnx_op_versions.py) runs through the ONNX
// interpreter; each output's shape and dtype must equal what ONNX Runtime
// 1.32 (or, below opset 7, onnx.shape_inference) recorded in expected.json,
// exactly; only a case marked data_dependent lets an unbacked size stand
// for the real one when its range holds it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/tensor/dtype.h"

namespace fakeprop::onnx {
namespace {

const std::string kDir = std::string(FAKEPROP_TESTDATA) + "/onnx/op_versions/";

nlohmann::json expected_cases() {
  std::ifstream in(kDir + "expected.json");
  if (!in) return nlohmann::json::object();
  return nlohmann::json::parse(in)["cases"];
}

std::vector<std::string> case_names() {
  std::vector<std::string> out;
  const nlohmann::json cases = expected_cases();
  for (const auto& [name, _] : cases.items()) out.push_back(name);
  return out;
}

class OpVersion : public ::testing::TestWithParam<std::string> {};

TEST(OpVersions, ExpectedJsonHasCases) { EXPECT_GT(case_names().size(), 200u); }

// Runs a case; `dynamic`: every dim of every graph input a backed symbol
// with its declared size as hint (initializers stay as they are), each
// output dim then compared through its hint.
void check_case(const std::string& case_name, bool dynamic) {
  static const nlohmann::json cases = expected_cases();
  const nlohmann::json& c = cases.at(case_name);
  Model model = load_model(kDir + c["model"].get<std::string>());
  InferOptions options;
  options.assume_static_by_default = !dynamic;
  RunResult r = run_model(model, options);
  for (const auto& e : r.errors)
    ADD_FAILURE() << "error at " << e.node << ": " << error_kind_name(e.kind) << ": " << e.message;
  for (const auto& want : c["outputs"]) {
    const std::string name = want["name"].get<std::string>();
    const Value* got = nullptr;
    for (const auto& o : r.outputs)
      if (o.name == name) got = &o.val;
    if (!got || !got->is_tensor()) {
      ADD_FAILURE() << name << ": missing or not a tensor";
      continue;
    }
    std::vector<std::string> shape, want_shape;
    const bool data_dependent = c.contains("data_dependent");
    const auto& sizes = got->tensor->meta.sizes;
    for (size_t k = 0; k < sizes.size(); ++k) {
      const SymInt d = r.env->simplify(sizes[k]);
      shape.push_back(d.to_python());
      if (dynamic && !d.is_static())
        if (auto h = r.env->hint(d)) shape.back() = std::to_string(*h);
      // A size from tensor contents (data_dependent, see expected.json): an
      // unbacked symbol whose range holds the real size stands for it.
      if (data_dependent && !d.is_static() && k < want["shape"].size()) {
        const int64_t real = want["shape"][k].get<int64_t>();
        const ValueRange range = r.env->bound(d.expr());
        EXPECT_TRUE(range.contains(real)) << name << " dim " << k << ": " << range.to_string() << " vs " << real;
        if (range.contains(real)) shape.back() = std::to_string(real);
      }
    }
    for (const auto& d : want["shape"]) want_shape.push_back(std::to_string(d.get<int64_t>()));
    EXPECT_EQ(shape, want_shape) << name << " (" << c["oracle"].get<std::string>() << ")";
    EXPECT_EQ(dtype_to_onnx(got->tensor->meta.dtype), want["elem_type"].get<int32_t>())
        << name << ": " << dtype_name(got->tensor->meta.dtype) << " vs " << want["dtype"].get<std::string>();
  }
}

TEST_P(OpVersion, MatchesOnnxRuntime) { check_case(GetParam(), false); }
TEST_P(OpVersion, MatchesOnnxRuntimeWithDynamicInputs) { check_case(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(Cases, OpVersion, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace fakeprop::onnx
