#include <gtest/gtest.h>

#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx {
namespace {

using namespace testing::dtypes;

using testing::shape_of;

struct LossCase {
  const char* op;
  const char* reduction;
  std::vector<ModelBuilder::DimSpec> input, target;
  std::vector<std::string> expected;
};

class LossTest : public ::testing::TestWithParam<LossCase> {};

TEST_P(LossTest, OutputShape) {
  const LossCase& c = GetParam();
  ModelBuilder b(13);
  b.input("x", kFloat, c.input).input("t", kInt64, c.target);
  b.node(c.op, {"x", "t"}, {"loss"}, "loss").attr_string("reduction", c.reduction);
  RunResult r = run_model(b.build(), {});
  EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
  EXPECT_EQ(shape_of(r, "loss"), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Onnx, LossTest,
    ::testing::Values(LossCase{"NegativeLogLikelihoodLoss", "mean", {3, 5}, {3}, {}},
                      LossCase{"NegativeLogLikelihoodLoss", "none", {3, 5, 2, 7}, {3, 2, 7}, {"3", "2", "7"}},
                      LossCase{"NegativeLogLikelihoodLoss", "none", {"N", 5, "D"}, {"N", "D"}, {"N", "D"}},
                      LossCase{"SoftmaxCrossEntropyLoss", "sum", {3, 5, 2}, {3, 2}, {}},
                      LossCase{"SoftmaxCrossEntropyLoss", "none", {"N", 5}, {"N"}, {"N"}}));

TEST(LossTest, SoftmaxCrossEntropyLogProbHasScoresShape) {
  ModelBuilder b(13);
  b.input("x", kFloat, {"N", 5, 4}).input("t", kInt64, {"N", 4});
  b.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss", "log_prob"}, "sce");
  RunResult r = run_model(b.build(), {});
  EXPECT_EQ(shape_of(r, "loss"), std::vector<std::string>{});
  EXPECT_EQ(shape_of(r, "log_prob"), (std::vector<std::string>{"N", "5", "4"}));
}

TEST(LossTest, TargetOfWrongRankIsAnErrorOnTheNode) {
  ModelBuilder b(13);
  b.input("x", kFloat, {3, 5}).input("t", kInt64, {3, 1, 1});
  b.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, "nll");
  RunResult r = run_model(b.build(), {});
  EXPECT_EQ(testing::error_kinds(r, "nll"), std::vector<std::string>{"shape_mismatch"});
}

TEST(DetTest, BatchOfSquareMatrices) {
  ModelBuilder b(13);
  b.input("x", kFloat, {"B", 4, 4});
  b.node("Det", {"x"}, {"d"}, "det");
  RunResult r = run_model(b.build(), {});
  EXPECT_EQ(shape_of(r, "d"), std::vector<std::string>{"B"});
}

}  // namespace
}  // namespace fakeprop::onnx
