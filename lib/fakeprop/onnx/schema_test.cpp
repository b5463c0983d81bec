#include "fakeprop/onnx/schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "fakeprop/onnx/model_test_util.h"
#include "fakeprop/onnx/op_context.h"

namespace fakeprop::onnx {
namespace {

using namespace testing;
using namespace testing::dtypes;

ErrorRecord only_error(const RunResult& r) {
  EXPECT_EQ(r.errors.size(), 1u);
  return r.errors.at(0);
}

TEST(OnnxSchema, TheVersionInEffectIsTheNewestNotAfterTheOpset) {
  EXPECT_EQ(find_schema("", "ReduceSum", 12)->since_version, 11);
  EXPECT_EQ(find_schema("", "ReduceSum", 13)->since_version, 13);
  EXPECT_EQ(find_schema("", "ReduceSum", 99)->since_version, 13);
  EXPECT_EQ(find_schema("", "Gelu", 19), nullptr);  // the op is newer than the opset
  EXPECT_EQ(find_schema("com.microsoft", "FastGelu", 1), nullptr);  // contrib ops have no schema here
  EXPECT_NE(find_schema("ai.onnx.ml", "LabelEncoder", 2), nullptr);
  EXPECT_FALSE(schema_onnx_version().empty());
}

TEST(OnnxSchema, VersionsAnswerWhatTheyDeclare) {
  EXPECT_FALSE(find_schema("", "ReduceMax", 13)->declares_input("axes"));
  EXPECT_TRUE(find_schema("", "ReduceMax", 18)->declares_input("axes"));
  EXPECT_FALSE(find_schema("", "Reshape", 13)->declares_attribute("allowzero"));
  EXPECT_TRUE(find_schema("", "Reshape", 14)->declares_attribute("allowzero"));
  EXPECT_FALSE(find_schema("", "MaxPool", 7)->declares_output("Indices"));
  EXPECT_TRUE(find_schema("", "MaxPool", 8)->declares_output("Indices"));
  EXPECT_EQ(find_schema("", "Resize", 11)->input_index("scales"), 2);
}

TEST(OnnxSchema, DefaultsAreTheVersionsOwn) {
  const AttrRow* axis12 = find_schema("", "Softmax", 12)->attribute("axis");
  const AttrRow* axis13 = find_schema("", "Softmax", 13)->attribute("axis");
  ASSERT_TRUE(axis12 && axis13);
  EXPECT_EQ(axis12->type, AttrType::Int);
  EXPECT_EQ(axis12->i, 1);
  EXPECT_EQ(axis13->i, -1);
  const AttrRow* mode = find_schema("", "Pad", 19)->attribute("mode");
  ASSERT_TRUE(mode && mode->has_default);
  EXPECT_EQ(mode->s, "constant");
  const AttrRow* eps = find_schema("", "LayerNormalization", 17)->attribute("epsilon");
  ASSERT_TRUE(eps && eps->has_default);
  EXPECT_FLOAT_EQ(eps->f, 1e-5f);
  EXPECT_TRUE(find_schema("", "Concat", 13)->attribute("axis")->required);
}

TEST(OnnxSchema, OutputTypesTieToAnInputOrAFixedType) {
  const auto tie = [](std::string_view op, int64_t opset, size_t k) {
    return output_type_tie(*find_schema("", op, opset), k);
  };
  EXPECT_EQ(tie("Add", 14, 0).input, 0);
  EXPECT_EQ(tie("ArgMax", 13, 0).fixed, 7);  // int64
  EXPECT_EQ(tie("CastLike", 19, 0).input, 1);
  EXPECT_EQ(tie("Split", 18, 5).input, 0);  // a variadic output's pieces
  const OutputTypeTie loop = tie("Loop", 19, 0);  // heterogeneous
  EXPECT_EQ(loop.input, -1);
  EXPECT_EQ(loop.fixed, 0);
}

// Every rule registered for a version range starts at one of the schema's versions.
TEST(OnnxSchema, RuleRangesStartAtSchemaVersions) {
  const auto& registry = OpRegistry::instance();
  for (const auto& [domain, op] : registry.all()) {
    const auto versions = schema_versions(domain, op);
    for (int64_t since : registry.since_versions(domain, op)) {
      if (since == 0) continue;
      EXPECT_TRUE(std::any_of(versions.begin(), versions.end(),
                              [&](const OpSchema& s) { return s.since_version == since; }))
          << domain << "::" << op << " has a rule from " << since << ", not a version of its schema";
    }
  }
}

// Issue 43's rule: version logic lives in the schema layer, so no rule
// compares the opset (it asks declares_* or registers per range).
TEST(OnnxSchema, NoRuleComparesTheOpset) {
  const std::filesystem::path ops =
      std::filesystem::path(FAKEPROP_TESTDATA) / ".." / "lib" / "fakeprop" / "onnx" / "ops";
  const std::regex comparison(R"(opset\(\)\s*(<|>|==|!=))");
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ops)) {
    if (entry.path().extension() != ".cpp" || entry.path().filename().string().ends_with("_test.cpp")) continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_FALSE(std::regex_search(text.str(), comparison)) << entry.path().filename() << " compares ctx.opset()";
  }
  EXPECT_GT(files, 10u);
}

TEST(OnnxSchema, ARuleRegisteredPerRangeRunsInItsRange) {
  const auto& registry = OpRegistry::instance();
  EXPECT_EQ(registry.find("", "Softmax", 10), registry.find("", "Softmax", 1));
  EXPECT_NE(registry.find("", "Softmax", 11), registry.find("", "Softmax", 10));
  EXPECT_NE(registry.find("", "Softmax", 13), registry.find("", "Softmax", 12));
  EXPECT_EQ(registry.find("", "Softmax"), registry.find("", "Softmax", 13));
}

TEST(OnnxSchemaCheck, AStringTensorIntoReduceSumIsATypeError) {
  ModelBuilder b(13);
  b.input("x", kString, {2, 3});
  b.node("ReduceSum", {"x"}, {"y"}, "sum");
  const ErrorRecord e = only_error(run(b));
  EXPECT_EQ(e.node, "sum");
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_EQ(e.message,
            "(op_type:ReduceSum, node name: sum): data typestr: T, has unsupported type: tensor(string) (allowed: "
            "tensor(uint32), tensor(uint64), tensor(int32), tensor(int64), tensor(float16), tensor(float), "
            "tensor(double), tensor(bfloat16))");
}

TEST(OnnxSchemaCheck, InputsOfOneTypeVariableShareTheirType) {
  ModelBuilder b(13);
  b.input("x", kFloat, {2}).input("i", kInt64, {2});
  b.node("Add", {"x", "i"}, {"y"}, "add");
  const ErrorRecord e = only_error(run(b));
  EXPECT_EQ(e.kind, ErrorKind::TypeError);
  EXPECT_EQ(e.message,
            "(op_type:Add, node name: add): B has inconsistent type tensor(int64) (typestr T is bound to "
            "tensor(float) by A)");
}

TEST(OnnxSchemaCheck, AVariadicOfOneTypeBindsEveryElement) {
  ModelBuilder b(13);
  b.input("x", kFloat, {2}).input("d", kDouble, {2});
  b.node("Concat", {"x", "x", "d"}, {"y"}, "cat").attr_int("axis", 0);
  EXPECT_EQ(only_error(run(b)).kind, ErrorKind::TypeError);
}

TEST(OnnxSchemaCheck, TooFewInputsIsAMissingInput) {
  ModelBuilder b(13);
  b.input("x", kFloat, {2});
  b.node("Add", {"x"}, {"y"}, "add");
  const ErrorRecord e = only_error(run(b));
  EXPECT_EQ(e.kind, ErrorKind::MissingInput);
  EXPECT_EQ(e.message, "Add needs input 1 (B)");
}

TEST(OnnxSchemaCheck, TooFewOutputsIsAnOutputCountError) {
  ModelBuilder b(13);
  b.input("x", kFloat, {4});
  b.node("Split", {"x"}, {}, "split");
  const ErrorRecord e = only_error(run(b));
  EXPECT_EQ(e.kind, ErrorKind::OutputCount);
  EXPECT_EQ(e.message, "(op_type:Split, node name: split): Node with schema(::Split:13) has output size 0 not in "
                       "range [min=1, max=2147483647].");
}

TEST(OnnxSchemaCheck, AnAttributeOfTheWrongTypeIsInvalid) {
  ModelBuilder b(13);
  b.input("x", kFloat, {2, 3});
  b.node("ReduceSum", {"x"}, {"y"}, "sum").attr_float("keepdims", 0.5f);
  const ErrorRecord e = only_error(run(b));
  EXPECT_EQ(e.kind, ErrorKind::InvalidAttribute);
  EXPECT_EQ(e.message, "attribute 'keepdims' of ReduceSum must be INT, got FLOAT");
}

TEST(OnnxSchemaCheck, ARequiredAttributeMustBeThere) {
  ModelBuilder b(13);
  b.input("x", kFloat, {2});
  b.node("Concat", {"x", "x"}, {"y"}, "cat");
  const ErrorRecord e = only_error(run(b));
  EXPECT_EQ(e.kind, ErrorKind::MissingAttribute);
  EXPECT_EQ(e.message, "Concat needs attribute 'axis'");
}

TEST(OnnxSchemaCheck, ContribOpsKeepTheirRules) {
  ModelBuilder b(17);
  b.opset("com.microsoft", 1);
  b.input("x", kString, {2});  // no schema here to reject it: FastGelu's rule decides
  b.node("FastGelu", {"x"}, {"y"}, "gelu", "com.microsoft");
  const RunResult r = run(b);
  for (const auto& e : r.errors) EXPECT_NE(e.kind, ErrorKind::TypeError) << e.message;
}

TEST(OnnxSchemaDefaults, AnAbsentAttributeIsTheSchemasDefault) {
  ModelBuilder b(13);
  b.input("x", kFloat, {2, 3});
  b.node("ReduceSum", {"x"}, {"kept"}, "kept");  // keepdims: the schema's 1
  b.node("ReduceSum", {"x"}, {"dropped"}, "dropped").attr_int("keepdims", 0);
  const RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(shape_of(r, "kept"), (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(shape_of(r, "dropped"), std::vector<std::string>{});
}

TEST(OnnxSchemaDefaults, TheDefaultIsTheVersionInEffects) {
  // Softmax's axis: 1 before 13 (out of range for a 1-D input), -1 from 13.
  for (const auto& [opset, fails] : {std::pair{11, true}, std::pair{13, false}}) {
    ModelBuilder b(opset);
    b.input("x", kFloat, {4});
    b.node("Softmax", {"x"}, {"y"}, "softmax");
    const RunResult r = run(b);
    ASSERT_EQ(r.errors.size(), fails ? 1u : 0u) << opset;
    if (fails) {
      EXPECT_EQ(r.errors[0].kind, ErrorKind::InvalidAxis);
    }
  }
}

}  // namespace
}  // namespace fakeprop::onnx
