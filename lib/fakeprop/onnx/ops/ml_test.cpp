// ai.onnx.ml rules. Each expected shape and type is what ONNX Runtime 1.32
// gives for the same node (its CPU ml kernels, run by hand on these inputs).
#include <gtest/gtest.h>

#include <functional>

#include "fakeprop/onnx/model_test_util.h"
#include "fakeprop/onnx/ops/rule_case_test_util.h"

namespace fakeprop::onnx {
namespace {

using namespace testing::dtypes;
using Strings = std::vector<std::string>;
using Build = std::function<void(ModelBuilder&)>;
using Case = testing::RuleCase;

class MlCase : public ::testing::TestWithParam<Case> {};

TEST_P(MlCase, Infers) {
  Case c = GetParam();
  c.build = [build = GetParam().build](ModelBuilder& b) {
    b.opset("ai.onnx.ml", 3);
    build(b);
  };
  testing::check_rule_case(c);
}

// An ai.onnx.ml node "n" over inputs declared by `setup`, then its attributes.
Build ml(const std::string& op, Strings inputs, Strings outputs, Build setup, Build attrs = [](ModelBuilder&) {}) {
  return [=](ModelBuilder& b) {
    setup(b);
    b.node(op, inputs, outputs, "n", "ai.onnx.ml");
    attrs(b);
  };
}

Build x_float(std::vector<ModelBuilder::DimSpec> dims) {
  return [=](ModelBuilder& b) { b.input("x", kFloat, dims); };
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"binarizer_keeps_shape_and_type", 18, ml("Binarizer", {"x"}, {"y"}, x_float({"N", 4, 5})),
       {{"y", {"N", "4", "5"}, std::nullopt, DType::Float32}}},
      {"scaler_int_input_gives_float", 18,
       ml("Scaler", {"x"}, {"y"}, [](ModelBuilder& b) { b.input("x", kInt64, {4, 5}); },
          [](ModelBuilder& b) { b.attr_floats("scale", {2.0f}).attr_floats("offset", {1.0f}); }),
       {{"y", {"4", "5"}, std::nullopt, DType::Float32}}},
      {"normalizer_1d", 18, ml("Normalizer", {"x"}, {"y"}, x_float({5}), [](ModelBuilder& b) { b.attr_string("norm", "L2"); }),
       {{"y", {"5"}, std::nullopt, DType::Float32}}},
      {"linear_regressor_targets", 18,
       ml("LinearRegressor", {"x"}, {"y"}, x_float({"N", 5}), [](ModelBuilder& b) { b.attr_int("targets", 2); }),
       {{"y", {"N", "2"}, std::nullopt, DType::Float32}}},
      {"linear_regressor_1d_is_one_sample", 18, ml("LinearRegressor", {"x"}, {"y"}, x_float({5})), {{"y", {"1", "1"}}}},
      {"linear_classifier_labels_and_scores", 18,
       ml("LinearClassifier", {"x"}, {"y", "z"}, x_float({"N", 5}),
          [](ModelBuilder& b) {
            b.attr_floats("coefficients", std::vector<float>(15, 0.1f)).attr_floats("intercepts", {0, 0, 0});
            b.attr_ints("classlabels_ints", {1, 2, 3});
          }),
       {{"y", {"N"}, std::nullopt, DType::Int64}, {"z", {"N", "3"}, std::nullopt, DType::Float32}}},
      {"linear_classifier_binary_has_two_scores", 18,
       ml("LinearClassifier", {"x"}, {"y", "z"}, x_float({4, 5}),
          [](ModelBuilder& b) {
            b.attr_floats("coefficients", std::vector<float>(5, 0.1f)).attr_floats("intercepts", {0.5f});
            b.attr_strings("classlabels_strings", {"a", "b"});
          }),
       {{"y", {"4"}, std::nullopt, DType::String}, {"z", {"4", "2"}}}},
      {"linear_classifier_without_intercepts", 18,
       ml("LinearClassifier", {"x"}, {"y", "z"}, x_float({4, 5}),
          [](ModelBuilder& b) { b.attr_floats("coefficients", {0.1f}).attr_ints("classlabels_ints", {1, 2}); }),
       {},
       "invalid_attribute"},
      {"array_feature_extractor_counts_indices", 18,
       ml("ArrayFeatureExtractor", {"x", "i"}, {"y"},
          [](ModelBuilder& b) { b.input("x", kFloat, {3, 4, 5}).input("i", kInt64, {2, 2}); }),
       {{"y", {"3", "4", "4"}}}},
      {"array_feature_extractor_1d_is_one_row", 18,
       ml("ArrayFeatureExtractor", {"x", "i"}, {"y"},
          [](ModelBuilder& b) { b.input("x", kFloat, {5}).input("i", kInt64, {3}); }),
       {{"y", {"1", "3"}}}},
      {"one_hot_encoder_appends_categories", 18,
       ml("OneHotEncoder", {"x"}, {"y"}, [](ModelBuilder& b) { b.input("x", kInt64, {2, "N", 3}); },
          [](ModelBuilder& b) { b.attr_ints("cats_int64s", {1, 2, 3, 4}); }),
       {{"y", {"2", "N", "3", "4"}, std::nullopt, DType::Float32}}},
      {"category_mapper_int_to_string", 18,
       ml("CategoryMapper", {"x"}, {"y"}, [](ModelBuilder& b) { b.input("x", kInt64, {3, 4}); },
          [](ModelBuilder& b) { b.attr_ints("cats_int64s", {1, 2, 3}).attr_strings("cats_strings", {"1", "2", "3"}); }),
       {{"y", {"3", "4"}, std::nullopt, DType::String}}},
      {"tree_ensemble_regressor_targets", 18,
       ml("TreeEnsembleRegressor", {"x"}, {"y"}, x_float({"N", 3}), [](ModelBuilder& b) { b.attr_int("n_targets", 2); }),
       {{"y", {"N", "2"}, std::nullopt, DType::Float32}}},
      {"tree_ensemble_classifier_labels_and_scores", 18,
       ml("TreeEnsembleClassifier", {"x"}, {"y", "z"}, x_float({30, 3}),
          [](ModelBuilder& b) { b.attr_ints("classlabels_int64s", {0, 1, 2, 3, 4}); }),
       {{"y", {"30"}, std::nullopt, DType::Int64}, {"z", {"30", "5"}, std::nullopt, DType::Float32}}},
      {"label_encoder_values_type", 18,
       ml("LabelEncoder", {"x"}, {"y"}, [](ModelBuilder& b) { b.input("x", kString, {1, 3}); },
          [](ModelBuilder& b) { b.attr_strings("keys_strings", {"a", "b"}).attr_ints("values_int64s", {1, 2}); }),
       {{"y", {"1", "3"}, std::nullopt, DType::Int64}}},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, MlCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace fakeprop::onnx
