// Generator rules: Constant, ConstantOfShape, Range (static, symbolic and
// data-dependent lengths), EyeLike, the Random* family, Multinomial,
// Bernoulli and the window functions. Expected values follow the ONNX spec
// (Range: max(ceil((limit - start) / delta), 0) elements).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>

#include "fakeprop/onnx/ops/helpers.h"
#include "fakeprop/onnx/ops/rule_case_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::data_of;
using testing::dtype_of;
using testing::error_kinds;
using testing::find_value;
using testing::run;
using testing::shape_of;

using namespace testing::dtypes;

using Strings = std::vector<std::string>;

using Expect = testing::RuleExpect;
using Case = testing::RuleCase;
using testing::guard_texts;

class GeneratorCase : public ::testing::TestWithParam<Case> {};

TEST_P(GeneratorCase, Infers) { testing::check_rule_case(GetParam()); }

void scalar(ModelBuilder& b, const std::string& name, int64_t v) { b.initializer_ints(name, {}, {v}); }

// Shape(x)[k] as a scalar int64 named `out`.
void dim_of(ModelBuilder& b, const std::string& x, int64_t k, const std::string& out) {
  b.initializer_ints(out + "_idx", {}, {k});
  b.node("Shape", {x}, {out + "_shape"});
  b.node("Gather", {out + "_shape", out + "_idx"}, {out}).attr_int("axis", 0);
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // ---------------- Constant ----------------
      {"ConstantTensorValue", 13,
       [](ModelBuilder& b) { b.node("Constant", {}, {"c"}).attr_tensor_ints("value", {2, 2}, {1, 2, 3, 4}); },
       {{"c", {"2", "2"}, Strings{"1", "2", "3", "4"}, DType::Int64}}},
      {"ConstantValueIntsAndInt", 13,
       [](ModelBuilder& b) {
         b.node("Constant", {}, {"v"}).attr_ints("value_ints", {4, -1, 2});
         b.node("Constant", {}, {"s"}).attr_int("value_int", 9);
         b.node("Constant", {}, {"f"}).attr_floats("value_floats", {0.5f, 1.5f});
       },
       {{"v", {"3"}, Strings{"4", "-1", "2"}, DType::Int64},
        {"s", {}, Strings{"9"}, DType::Int64},
        {"f", {"2"}, std::nullopt, DType::Float32}}},
      {"ConstantSparseValueGivesDims", 13,
       [](ModelBuilder& b) {
         b.node("Constant", {}, {"c"});
         Attribute a;
         a.name = "sparse_value";
         a.type = Attribute::Type::SparseTensor;
         a.t = std::make_shared<TensorRef>();
         a.t->dims = {3, 4};
         a.t->data_type = kFloat;
         b.graph().nodes.back().attributes.push_back(a);
       },
       {{"c", {"3", "4"}, std::nullopt, DType::Float32}}},
      {"ConstantWithoutValueFails", 13, [](ModelBuilder& b) { b.node("Constant", {}, {"c"}); }, {}, "missing_attribute"},
      // ---------------- ConstantOfShape ----------------
      {"ConstantOfShapeDefaultFloatZero", 9,
       [](ModelBuilder& b) {
         b.initializer_ints("shape", {2}, {2, 3});
         b.node("ConstantOfShape", {"shape"}, {"y"});
       },
       {{"y", {"2", "3"}, std::nullopt, DType::Float32}}},
      {"ConstantOfShapeIntValueFolds", 9,
       [](ModelBuilder& b) {
         b.initializer_ints("shape", {1}, {3});
         b.node("ConstantOfShape", {"shape"}, {"y"}).attr_tensor_ints("value", {1}, {5});
       },
       {{"y", {"3"}, Strings{"5", "5", "5"}, DType::Int64}}},
      {"ConstantOfShapeInt32Value", 9,
       [](ModelBuilder& b) {
         b.initializer_ints("shape", {2}, {1, 2});
         b.node("ConstantOfShape", {"shape"}, {"y"}).attr_tensor_ints("value", {1}, {-1}, kInt32);
       },
       {{"y", {"1", "2"}, Strings{"-1", "-1"}, DType::Int32}}},
      {"ConstantOfShapeOfSymbolicShape", 9,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.node("Shape", {"x"}, {"s"});
         b.node("ConstantOfShape", {"s"}, {"y"}).attr_tensor_ints("value", {1}, {1}, kBool);
       },
       {{"y", {"batch", "4"}, Strings{}, DType::Bool}},
       "",
       {},
       Strings{}},
      {"ConstantOfShapeEmptyShapeIsScalar", 9,
       [](ModelBuilder& b) {
         b.initializer_ints("shape", {0}, {});
         b.node("ConstantOfShape", {"shape"}, {"y"}).attr_tensor_ints("value", {1}, {7});
       },
       {{"y", {}, Strings{"7"}, DType::Int64}}},
      {"ConstantOfShapeNegativeFails", 9,
       [](ModelBuilder& b) {
         b.initializer_ints("shape", {2}, {2, -1});
         b.node("ConstantOfShape", {"shape"}, {"y"});
       },
       {},
       "invalid_shape"},
      {"ConstantOfShapeInt32ShapeFails", 9,
       [](ModelBuilder& b) {
         b.initializer_ints("shape", {2}, {2, 3}, kInt32);
         b.node("ConstantOfShape", {"shape"}, {"y"});
       },
       {},
       "type_error"},
      {"ConstantOfShapeTwoElementValueFails", 9,
       [](ModelBuilder& b) {
         b.initializer_ints("shape", {1}, {2});
         b.node("ConstantOfShape", {"shape"}, {"y"}).attr_tensor_ints("value", {2}, {1, 2});
       },
       {},
       "invalid_attribute"},
      // Shape data not known: the length is, so each dim is a fresh unbacked size.
      {"ConstantOfShapeUnknownDataUnknownSizes", 9,
       [](ModelBuilder& b) {
         b.input("dims", kInt64, {2});
         b.node("ConstantOfShape", {"dims"}, {"y"});
       },
       {{"y", {"u0", "u1"}, std::nullopt, DType::Float32}}},
      // ---------------- Range ----------------
      {"RangeZeroToSeq", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq"});
         dim_of(b, "x", 1, "n");
         scalar(b, "zero", 0);
         scalar(b, "one", 1);
         b.node("Range", {"zero", "n", "one"}, {"r"});
       },
       {{"r", {"seq"}, std::nullopt, DType::Int64}},
       "",
       {},
       Strings{}},
      {"RangeOneToSeqBacked", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"seq"});
         dim_of(b, "x", 0, "n");
         scalar(b, "one", 1);
         b.node("Range", {"one", "n", "one"}, {"r"});
       },
       {{"r", {"seq - 1"}}},
       "",
       {{"x", {8}}},
       Strings{}},
      // A hintless size may be 0, so the length clamps at 0 without a guard.
      {"RangeOneToSeqHintlessClamps", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"seq"});
         dim_of(b, "x", 0, "n");
         scalar(b, "one", 1);
         b.node("Range", {"one", "n", "one"}, {"r"});
       },
       {{"r", {"max(0, seq - 1)"}}},
       "",
       {},
       Strings{}},
      {"RangeStepTwoOnSymbol", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"seq"});
         dim_of(b, "x", 0, "n");
         scalar(b, "zero", 0);
         scalar(b, "two", 2);
         b.node("Range", {"zero", "n", "two"}, {"r"});
       },
       {{"r", {"-((-seq)//2)"}}},
       "",
       {{"x", {8}}}},
      {"RangeStaticFolds", 11,
       [](ModelBuilder& b) {
         scalar(b, "start", 0);
         scalar(b, "limit", 10);
         scalar(b, "delta", 3);
         b.node("Range", {"start", "limit", "delta"}, {"r"});
       },
       {{"r", {"4"}, Strings{"0", "3", "6", "9"}, DType::Int64}}},
      {"RangeNegativeDelta", 11,
       [](ModelBuilder& b) {
         scalar(b, "start", 10);
         scalar(b, "limit", 4);
         scalar(b, "delta", -3);
         b.node("Range", {"start", "limit", "delta"}, {"r"});
       },
       {{"r", {"2"}, Strings{"10", "7"}}}},
      {"RangeEmpty", 11,
       [](ModelBuilder& b) {
         scalar(b, "start", 5);
         scalar(b, "limit", 1);
         scalar(b, "delta", 1);
         b.node("Range", {"start", "limit", "delta"}, {"r"});
       },
       {{"r", {"0"}}}},
      {"RangeInt32SymbolicStart", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"seq"});
         b.node("Shape", {"x"}, {"s"});
         b.node("Cast", {"s"}, {"s32"}).attr_int("to", kInt32);
         b.initializer_ints("idx", {}, {0});
         b.node("Gather", {"s32", "idx"}, {"n"}).attr_int("axis", 0);
         b.initializer_ints("three", {}, {3}, kInt32);
         b.node("Add", {"n", "three"}, {"lim"});
         b.initializer_ints("one", {}, {1}, kInt32);
         b.node("Range", {"n", "lim", "one"}, {"r"});
       },
       {{"r", {"3"}, Strings{"seq", "seq + 1", "seq + 2"}, DType::Int32}}},
      {"RangeFloatBounds", 11,
       [](ModelBuilder& b) {
         b.initializer_floats({}, "start", {1.0f});
         b.initializer_floats({}, "limit", {5.0f});
         b.initializer_floats({}, "delta", {2.0f});
         b.node("Range", {"start", "limit", "delta"}, {"r"});
         b.initializer_floats({}, "start2", {10.0f});
         b.initializer_floats({}, "limit2", {6.0f});
         b.initializer_floats({}, "delta2", {-3.0f});
         b.node("Range", {"start2", "limit2", "delta2"}, {"r2"});
       },
       {{"r", {"2"}, std::nullopt, DType::Float32}, {"r2", {"2"}, std::nullopt, DType::Float32}}},
      {"RangeZeroDeltaFails", 11,
       [](ModelBuilder& b) {
         scalar(b, "start", 0);
         scalar(b, "limit", 4);
         scalar(b, "delta", 0);
         b.node("Range", {"start", "limit", "delta"}, {"r"});
       },
       {},
       "invalid_argument"},
      {"RangeNonScalarFails", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("start", {2}, {0, 1});
         scalar(b, "limit", 4);
         scalar(b, "delta", 1);
         b.node("Range", {"start", "limit", "delta"}, {"r"});
       },
       {},
       "invalid_shape"},
      // ---------------- EyeLike / Random* / Multinomial / Bernoulli ----------------
      {"EyeLikeDtypeAttribute", 9,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 4});
         b.node("EyeLike", {"x"}, {"e"}).attr_int("dtype", kInt64).attr_int("k", 1);
         b.node("EyeLike", {"x"}, {"f"});
       },
       {{"e", {"n", "4"}, std::nullopt, DType::Int64}, {"f", {"n", "4"}, std::nullopt, DType::Float32}}},
      {"EyeLikeNeedsRankTwo", 9,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, 4});
         b.node("EyeLike", {"x"}, {"e"});
       },
       {},
       "invalid_rank"},
      {"RandomNormalAndUniformShapeAttribute", 13,
       [](ModelBuilder& b) {
         b.node("RandomNormal", {}, {"n"}).attr_ints("shape", {2, 5});
         b.node("RandomUniform", {}, {"u"}).attr_ints("shape", {3}).attr_int("dtype", kDouble);
       },
       {{"n", {"2", "5"}, std::nullopt, DType::Float32}, {"u", {"3"}, std::nullopt, DType::Float64}}},
      {"RandomNormalNeedsShape", 13, [](ModelBuilder& b) { b.node("RandomNormal", {}, {"n"}); }, {}, "missing_attribute"},
      {"RandomLikeKeepsShape", 13,
       [](ModelBuilder& b) {
         b.input("x", kDouble, {"batch", 3});
         b.node("RandomUniformLike", {"x"}, {"u"});
         b.node("RandomNormalLike", {"x"}, {"n"}).attr_int("dtype", kFloat16);
       },
       {{"u", {"batch", "3"}, std::nullopt, DType::Float64}, {"n", {"batch", "3"}, std::nullopt, DType::Float16}}},
      {"MultinomialSamples", 7,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 10});
         b.node("Multinomial", {"x"}, {"m"}).attr_int("sample_size", 5);
         b.node("Multinomial", {"x"}, {"m64"}).attr_int("dtype", kInt64);
       },
       {{"m", {"batch", "5"}, std::nullopt, DType::Int32}, {"m64", {"batch", "1"}, std::nullopt, DType::Int64}}},
      {"BernoulliKeepsShape", 15,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.node("Bernoulli", {"x"}, {"y"});
         b.node("Bernoulli", {"x"}, {"yb"}).attr_int("dtype", kBool);
       },
       {{"y", {"batch", "3"}, std::nullopt, DType::Float32}, {"yb", {"batch", "3"}, std::nullopt, DType::Bool}}},
      // ---------------- window functions ----------------
      {"WindowsFromSizes", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"seq"});
         scalar(b, "ten", 10);
         b.node("HannWindow", {"ten"}, {"hann"});
         b.node("BlackmanWindow", {"ten"}, {"black"}).attr_int("output_datatype", kDouble).attr_int("periodic", 0);
         dim_of(b, "x", 0, "n");
         b.node("HammingWindow", {"n"}, {"ham"});
       },
       {{"hann", {"10"}, std::nullopt, DType::Float32},
        {"black", {"10"}, std::nullopt, DType::Float64},
        {"ham", {"seq"}, std::nullopt, DType::Float32}}},
      {"WindowNegativeSizeFails", 17,
       [](ModelBuilder& b) {
         scalar(b, "n", -2);
         b.node("HannWindow", {"n"}, {"w"});
       },
       {},
       "invalid_shape"},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, GeneratorCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(GeneratorRules, RangeWithUnknownBoundsIsUnbacked) {
  ModelBuilder b(11);
  b.input("lim", kInt64, {});
  b.initializer_ints("zero", {}, {0});
  b.initializer_ints("one", {}, {1});
  b.node("Range", {"zero", "lim", "one"}, {"r"}, "range");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "r"), Strings{"u0"});
  const NodeRecord* rec = nullptr;
  for (const auto& n : r.nodes)
    if (n.name == "range") rec = &n;
  ASSERT_NE(rec, nullptr);
  ASSERT_EQ(rec->unbacked_bindings.size(), 1u);
  EXPECT_EQ(rec->unbacked_bindings[0].first, "u0");
  EXPECT_EQ(rec->unbacked_bindings[0].second, ".size()[0]");
  // A length is never negative.
  const Value* v = find_value(r, "r");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(r.env->bound(v->tensor->meta.sizes[0].expr()).lo, 0);
}

TEST(GeneratorRules, ConstantOfShapeUnknownDataNotesPrecisionLoss) {
  ModelBuilder b(9);
  b.input("dims", kInt64, {3});
  b.node("ConstantOfShape", {"dims"}, {"y"}, "cos");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty());
  size_t notes = 0;
  for (const auto& w : r.warnings)
    if (w.node == "cos" && w.kind == ErrorKind::PrecisionLost) ++notes;
  EXPECT_EQ(notes, 3u);
  EXPECT_EQ(shape_of(r, "y").size(), 3u);
}

// A static shape whose element count does not fit in int64 is a node error,
// never an overflowing fold (a fuzz finding under UBSan).
TEST(GeneratorRules, ConstantOfShapeOverflowingCountIsANodeError) {
  ModelBuilder b(9);
  b.initializer_ints("dims", {3}, {int64_t(1) << 32, int64_t(1) << 32, 4});
  b.node("ConstantOfShape", {"dims"}, {"y"}, "cos");
  RunResult r = run(b);
  EXPECT_EQ(error_kinds(r), Strings{"overflow"});
}

TEST(OnnxHelpers, NumelWithinNeverOverflows) {
  const int64_t big = int64_t(1) << 32;
  EXPECT_EQ(ops::numel_within(std::vector<int64_t>{2, 3}, 6), 6);
  EXPECT_EQ(ops::numel_within(std::vector<int64_t>{2, 3}, 5), std::nullopt);
  EXPECT_EQ(ops::numel_within(std::vector<int64_t>{}, 1), 1);
  EXPECT_EQ(ops::numel_within(std::vector<int64_t>{big, big, 4}, INT64_MAX), std::nullopt);
  EXPECT_EQ(ops::numel_within(std::vector<int64_t>{big, big, 0}, 10), 0);  // a zero anywhere wins
  EXPECT_EQ(ops::numel_within(std::vector<int64_t>{3, -1}, 10), std::nullopt);
}

}  // namespace
}  // namespace fakeprop::onnx
