// Reduction rules: Reduce* with axes as attribute or input by opset,
// keepdims and noop_with_empty_axes; folds over known integer data
// (ReduceProd of a shape is numel); ArgMax/ArgMin; TopK with static,
// symbolic and unknown k; CumSum; LpNormalization.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>

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

class ReductionCase : public ::testing::TestWithParam<Case> {};

TEST_P(ReductionCase, Infers) { testing::check_rule_case(GetParam()); }

// A reduce node at `opset` with `axes` in the form that opset uses.
void reduce(ModelBuilder& b, int64_t opset, const std::string& op, const std::string& x, const std::string& out,
            std::optional<std::vector<int64_t>> axes, std::optional<int64_t> keepdims = std::nullopt) {
  const int64_t since = op == "ReduceSum" ? 13 : 18;
  if (axes && opset >= since) {
    b.initializer_ints(out + "_axes", {static_cast<int64_t>(axes->size())}, *axes);
    b.node(op, {x, out + "_axes"}, {out});
  } else {
    b.node(op, {x}, {out});
    if (axes) b.attr_ints("axes", *axes);
  }
  if (keepdims) b.attr_int("keepdims", *keepdims);
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // ---------------- axes forms by opset ----------------
      {"ReduceSumOpset11AxesAttribute", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 4});
         reduce(b, 11, "ReduceSum", "x", "y", std::vector<int64_t>{1});
       },
       {{"y", {"batch", "1", "4"}, std::nullopt, DType::Float32}}},
      {"ReduceSumOpset13AxesInput", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 4});
         reduce(b, 13, "ReduceSum", "x", "y", std::vector<int64_t>{1}, 0);
       },
       {{"y", {"batch", "4"}}}},
      {"ReduceMeanOpset17AxesAttribute", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 4});
         reduce(b, 17, "ReduceMean", "x", "y", std::vector<int64_t>{-1}, 0);
       },
       {{"y", {"batch", "seq"}}}},
      {"ReduceMeanOpset18AxesInput", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 4});
         reduce(b, 18, "ReduceMean", "x", "y", std::vector<int64_t>{0, 2});
       },
       {{"y", {"1", "seq", "1"}}}},
      {"ReduceAllWhenNoAxes", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 4});
         reduce(b, 18, "ReduceMax", "x", "keep", std::nullopt);
         reduce(b, 18, "ReduceMin", "x", "drop", std::nullopt, 0);
         reduce(b, 13, "ReduceL2", "x", "l2", std::nullopt, 0);
       },
       {{"keep", {"1", "1", "1"}}, {"drop", {}}, {"l2", {}}}},
      {"ReduceSumEmptyAxesInputReducesAll", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.initializer_ints("axes", {0}, {});
         b.node("ReduceSum", {"x", "axes"}, {"y"}).attr_int("keepdims", 0);
       },
       {{"y", {}}}},
      {"ReduceSumNoopWithEmptyAxes", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.node("ReduceSum", {"x"}, {"y"}).attr_int("noop_with_empty_axes", 1);
       },
       {{"y", {"batch", "3"}}}},
      {"ReduceLogSumExpOpset18Noop", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.node("ReduceLogSumExp", {"x"}, {"y"}).attr_int("noop_with_empty_axes", 1).attr_int("keepdims", 0);
       },
       {{"y", {"batch", "3"}}}},
      // Before 18 noop_with_empty_axes does not exist for ReduceMean: all axes reduce.
      {"ReduceMeanOpset13IgnoresNoop", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.node("ReduceMean", {"x"}, {"y"}).attr_int("noop_with_empty_axes", 1);
       },
       {{"y", {"1", "1"}}}},
      {"ReduceEveryKind", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, "n", 5});
         for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                                "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
           reduce(b, 18, op, "x", std::string(op) + "_y", std::vector<int64_t>{-2}, 0);
       },
       {{"ReduceSum_y", {"2", "5"}},
        {"ReduceMean_y", {"2", "5"}},
        {"ReduceMax_y", {"2", "5"}},
        {"ReduceMin_y", {"2", "5"}},
        {"ReduceProd_y", {"2", "5"}},
        {"ReduceL1_y", {"2", "5"}},
        {"ReduceL2_y", {"2", "5"}},
        {"ReduceLogSum_y", {"2", "5"}},
        {"ReduceLogSumExp_y", {"2", "5"}},
        {"ReduceSumSquare_y", {"2", "5"}}}},
      {"ReduceInvalidAxis", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         reduce(b, 13, "ReduceMean", "x", "y", std::vector<int64_t>{2});
       },
       {},
       "invalid_axis"},
      {"ReduceRepeatedAxis", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         reduce(b, 13, "ReduceMean", "x", "y", std::vector<int64_t>{1, -1});
       },
       {},
       "invalid_axis"},
      // Axes known only at run time: each kept dim is unknown, rank from keepdims.
      {"ReduceUnknownAxesKeepdims", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3, 4});
         b.input("axes", kInt64, {1});
         b.node("ReduceMax", {"x", "axes"}, {"y"});
       },
       {{"y", {"u0", "u1", "u2"}}}},
      {"ReduceUnknownAxesNoKeepdims", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3, 4});
         b.input("axes", kInt64, {2});
         b.node("ReduceMax", {"x", "axes"}, {"y"}).attr_int("keepdims", 0);
       },
       {{"y", {"u0"}}}},
      // ---------------- folds over known data ----------------
      {"ReduceProdOfShapeIsNumel", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 4});
         b.node("Shape", {"x"}, {"s"});
         b.node("ReduceProd", {"s"}, {"n"}).attr_int("keepdims", 0);
         b.node("ReduceProd", {"s"}, {"n1"});
       },
       {{"n", {}, Strings{"4*batch*seq"}, DType::Int64}, {"n1", {"1"}, Strings{"4*batch*seq"}}},
       "",
       {},
       Strings{}},
      {"ReduceSumOfShape", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 4});
         b.node("Shape", {"x"}, {"s"});
         b.node("ReduceSum", {"s"}, {"n"}).attr_int("keepdims", 0);
       },
       {{"n", {}, Strings{"batch + seq + 4"}}}},
      {"ReduceMaxMinFold2D", 18,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {2, 3}, {1, 5, 2, 7, 0, 3});
         reduce(b, 18, "ReduceMax", "x", "max1", std::vector<int64_t>{1}, 0);
         reduce(b, 18, "ReduceMin", "x", "min1", std::vector<int64_t>{1}, 0);
         reduce(b, 18, "ReduceMax", "x", "max0", std::vector<int64_t>{0});
         reduce(b, 18, "ReduceProd", "x", "prod0", std::vector<int64_t>{0}, 0);
         reduce(b, 18, "ReduceSum", "x", "sum", std::nullopt, 0);
       },
       {{"max1", {"2"}, Strings{"5", "7"}},
        {"min1", {"2"}, Strings{"1", "0"}},
        {"max0", {"1", "3"}, Strings{"7", "5", "3"}},
        {"prod0", {"3"}, Strings{"7", "0", "6"}},
        {"sum", {}, Strings{"18"}}}},
      {"ReduceMaxOfSizes", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"a", 3});
         b.node("Shape", {"x"}, {"s"});
         b.node("ReduceMax", {"s"}, {"m"}).attr_int("keepdims", 0);
       },
       {{"m", {}, Strings{"max(3, a)"}}}},
      // ---------------- ArgMax / ArgMin ----------------
      {"ArgMaxKeepdimsZero", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 10});
         b.node("ArgMax", {"x"}, {"a"}).attr_int("axis", 1).attr_int("keepdims", 0);
         b.node("ArgMin", {"x"}, {"m"}).attr_int("select_last_index", 1);
       },
       {{"a", {"batch"}, std::nullopt, DType::Int64}, {"m", {"1", "10"}, std::nullopt, DType::Int64}}},
      {"ArgMaxInvalidAxis", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.node("ArgMax", {"x"}, {"a"}).attr_int("axis", -3);
       },
       {},
       "invalid_axis"},
      // ---------------- TopK ----------------
      {"TopKOpset9Attribute", 9,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 10});
         b.node("TopK", {"x"}, {"v", "i"}).attr_int("k", 3);
       },
       {{"v", {"batch", "3"}, std::nullopt, DType::Float32}, {"i", {"batch", "3"}, std::nullopt, DType::Int64}}},
      {"TopKOpset11InputOnAxis0", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {8, "seq"});
         b.initializer_ints("k", {1}, {5});
         b.node("TopK", {"x", "k"}, {"v", "i"}).attr_int("axis", 0).attr_int("largest", 0);
       },
       {{"v", {"5", "seq"}}, {"i", {"5", "seq"}, std::nullopt, DType::Int64}}},
      // k from another input's size: symbolic, with the guard k <= dim.
      {"TopKSymbolicKGuards", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq"});
         b.input("z", kFloat, {"kdim"});
         b.node("Shape", {"z"}, {"k"});
         b.node("TopK", {"x", "k"}, {"v", "i"});
       },
       {{"v", {"batch", "kdim"}}, {"i", {"batch", "kdim"}}},
       "",
       {{"x", {2, 16}}, {"z", {4}}},
       Strings{"kdim <= seq"}},
      {"TopKKEqualToDimNeedsNoGuard", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq"});
         b.node("Shape", {"x"}, {"s"});
         b.initializer_ints("start", {1}, {1});
         b.initializer_ints("end", {1}, {2});
         b.node("Slice", {"s", "start", "end"}, {"k"});
         b.node("TopK", {"x", "k"}, {"v", "i"});
       },
       {{"v", {"batch", "seq"}}},
       "",
       {},
       Strings{}},
      {"TopKUnknownKIsUnbacked", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 10});
         b.input("k", kInt64, {1});
         b.node("TopK", {"x", "k"}, {"v", "i"});
       },
       {{"v", {"batch", "u0"}}, {"i", {"batch", "u0"}}}},
      {"TopKTooLargeFails", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 10});
         b.initializer_ints("k", {1}, {11});
         b.node("TopK", {"x", "k"}, {"v", "i"});
       },
       {},
       "invalid_argument"},
      {"TopKKMustBeOneElement", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 10});
         b.initializer_ints("k", {2}, {1, 2});
         b.node("TopK", {"x", "k"}, {"v", "i"});
       },
       {},
       "invalid_shape"},
      // ---------------- CumSum / LpNormalization ----------------
      {"CumSumSameShape", 14,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.initializer_ints("axis", {}, {1});
         b.node("CumSum", {"x", "axis"}, {"y"}).attr_int("exclusive", 1).attr_int("reverse", 1);
       },
       {{"y", {"batch", "4"}, std::nullopt, DType::Float32}}},
      {"CumProdSameShape", 26,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.initializer_ints("axis", {}, {-1});
         b.node("CumProd", {"x", "axis"}, {"y"});
       },
       {{"y", {"batch", "4"}, std::nullopt, DType::Float32}}},
      {"CumProdInvalidAxis", 26,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.initializer_ints("axis", {}, {2});
         b.node("CumProd", {"x", "axis"}, {"y"});
       },
       {},
       "invalid_axis"},
      {"CumSumInvalidAxis", 14,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.initializer_ints("axis", {}, {2});
         b.node("CumSum", {"x", "axis"}, {"y"});
       },
       {},
       "invalid_axis"},
      {"LpNormalizationSameShape", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.node("LpNormalization", {"x"}, {"y"}).attr_int("p", 1).attr_int("axis", 0);
       },
       {{"y", {"batch", "4"}, std::nullopt, DType::Float32}}},
      {"LpNormalizationBadP", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.node("LpNormalization", {"x"}, {"y"}).attr_int("p", 3);
       },
       {},
       "invalid_attribute"},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, ReductionCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(ReductionRules, TopKUnknownKIsBoundedByTheDim) {
  ModelBuilder b(11);
  b.input("x", kFloat, {3, 10});
  b.input("k", kInt64, {1});
  b.node("TopK", {"x", "k"}, {"v", "i"}, "topk");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty());
  const Value* v = find_value(r, "v");
  ASSERT_NE(v, nullptr);
  const ValueRange range = r.env->bound(v->tensor->meta.sizes[1].expr());
  EXPECT_EQ(range.lo, 0);
  EXPECT_EQ(range.hi, 10);
  for (const auto& n : r.nodes)
    if (n.name == "topk") {
      ASSERT_EQ(n.unbacked_bindings.size(), 1u);
      EXPECT_EQ(n.unbacked_bindings[0].first, "u0");
      EXPECT_EQ(n.unbacked_bindings[0].second, "[0].size()[1]");
    }
}

}  // namespace
}  // namespace fakeprop::onnx
