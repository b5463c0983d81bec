// ai.onnx.ml rules. Each expected shape and type is what ONNX Runtime 1.32
// gives for the same node (its CPU ml kernels, run by hand on these inputs;
// the error cases are ones it refuses too).
#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "fakeprop/onnx/model_test_util.h"
#include "fakeprop/onnx/ops/rule_case_test_util.h"
#include "fakeprop/value/describe_value.h"

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

// SVMClassifier attributes: `classes` int labels, vectors_per_class (SVC
// mode; support vectors of `features` each), with prob_a/prob_b when `prob`.
Build svc(int64_t classes, std::vector<int64_t> per_class, int64_t features, bool prob = false) {
  return [=](ModelBuilder& b) {
    int64_t vectors = 0;
    for (int64_t v : per_class) vectors += v;
    const size_t pairs = static_cast<size_t>(classes * (classes - 1) / 2);
    std::vector<int64_t> labels;
    for (int64_t c = 0; c < classes; ++c) labels.push_back(c);
    b.attr_ints("classlabels_ints", labels).attr_ints("vectors_per_class", per_class);
    b.attr_floats("support_vectors", std::vector<float>(static_cast<size_t>(vectors * features), 0.1f));
    b.attr_floats("coefficients", std::vector<float>(static_cast<size_t>((classes - 1) * vectors), 0.2f));
    b.attr_floats("rho", std::vector<float>(pairs, 0.1f));
    if (prob) b.attr_floats("prob_a", std::vector<float>(pairs, 0.5f)).attr_floats("prob_b", std::vector<float>(pairs, 0.1f));
  };
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
      // SVMClassifier: scores per pair of classes for SVC without probabilities (6 for 4 classes).
      {"svm_classifier_svc_scores_per_pair", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, x_float({"N", 3}), svc(4, {1, 1, 1, 1}, 3)),
       {{"y", {"N"}, std::nullopt, DType::Int64}, {"z", {"N", "6"}, std::nullopt, DType::Float32}}},
      {"svm_classifier_svc_with_probabilities_scores_per_class", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, x_float({"N", 3}), svc(4, {1, 1, 1, 1}, 3, true)),
       {{"z", {"N", "4"}}}},
      {"svm_classifier_svc_two_classes_two_scores", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, x_float({5, 3}), svc(2, {2, 1}, 3)), {{"z", {"5", "2"}}}},
      {"svm_classifier_linear_string_labels", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, x_float({5, 4}),
          [](ModelBuilder& b) {
            b.attr_floats("coefficients", std::vector<float>(12, 0.1f)).attr_floats("rho", {0, 0, 0});
            b.attr_strings("classlabels_strings", {"a", "b", "c"});
          }),
       {{"y", {"5"}, std::nullopt, DType::String}, {"z", {"5", "3"}}}},
      {"svm_classifier_1d_is_one_sample", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, [](ModelBuilder& b) { b.input("x", kInt64, {3}); }, svc(3, {2, 1, 2}, 3)),
       {{"y", {"1"}}, {"z", {"1", "3"}}}},
      {"svm_classifier_wrong_feature_count", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, x_float({5, 4}), svc(3, {2, 1, 2}, 3)), {}, "shape_mismatch"},
      {"svm_classifier_3d_input", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, x_float({5, 2, 3}), svc(3, {2, 1, 2}, 3)), {}, "invalid_rank"},
      {"svm_classifier_vectors_per_class_not_per_class", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, x_float({5, 3}), svc(3, {2, 1}, 3)), {}, "invalid_attribute"},
      {"svm_classifier_string_input", 18,
       ml("SVMClassifier", {"x"}, {"y", "z"}, [](ModelBuilder& b) { b.input("x", kString, {5, 3}); }, svc(3, {2, 1, 2}, 3)),
       {},
       "type_error"},
      // SVMRegressor: [N, 1] float, features from the support vectors or the coefficients.
      {"svm_regressor_support_vectors", 18,
       ml("SVMRegressor", {"x"}, {"y"}, x_float({"N", 4}),
          [](ModelBuilder& b) {
            b.attr_int("n_supports", 2).attr_floats("support_vectors", std::vector<float>(8, 0.1f));
            b.attr_floats("coefficients", {1, 2}).attr_floats("rho", {0.5f});
          }),
       {{"y", {"N", "1"}, std::nullopt, DType::Float32}}},
      {"svm_regressor_linear_1d", 18,
       ml("SVMRegressor", {"x"}, {"y"}, x_float({4}),
          [](ModelBuilder& b) { b.attr_floats("coefficients", {1, 2, 3, 4}).attr_floats("rho", {0.5f}); }),
       {{"y", {"1", "1"}}}},
      {"svm_regressor_wrong_feature_count", 18,
       ml("SVMRegressor", {"x"}, {"y"}, x_float({3, 5}),
          [](ModelBuilder& b) { b.attr_floats("coefficients", {1, 2, 3, 4}).attr_floats("rho", {0.5f}); }),
       {},
       "shape_mismatch"},
      // FeatureVectorizer: [N, sum of inputdimensions]; rows are cut or padded, N is shared.
      {"feature_vectorizer_sums_inputdimensions", 18,
       ml("FeatureVectorizer", {"a", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("a", kInt64, {"N", 2}).input("b", kInt64, {"N", 3, 2}); },
          [](ModelBuilder& b) { b.attr_ints("inputdimensions", {2, 4}); }),
       {{"y", {"N", "6"}, std::nullopt, DType::Float32}}},
      {"feature_vectorizer_1d_inputs_are_one_row", 18,
       ml("FeatureVectorizer", {"a", "b"}, {"y"}, [](ModelBuilder& b) { b.input("a", kFloat, {4}).input("b", kFloat, {4}); },
          [](ModelBuilder& b) { b.attr_ints("inputdimensions", {4, 4}); }),
       {{"y", {"1", "8"}}}},
      {"feature_vectorizer_types_differ", 18,
       ml("FeatureVectorizer", {"a", "b"}, {"y"}, [](ModelBuilder& b) { b.input("a", kFloat, {5, 2}).input("b", kInt64, {5, 3}); },
          [](ModelBuilder& b) { b.attr_ints("inputdimensions", {2, 3}); }),
       {},
       "type_error"},
      {"feature_vectorizer_batch_sizes_differ", 18,
       ml("FeatureVectorizer", {"a", "b"}, {"y"}, [](ModelBuilder& b) { b.input("a", kFloat, {5, 2}).input("b", kFloat, {6, 3}); },
          [](ModelBuilder& b) { b.attr_ints("inputdimensions", {2, 3}); }),
       {},
       "shape_mismatch"},
      {"feature_vectorizer_inputdimensions_per_input", 18,
       ml("FeatureVectorizer", {"a", "b"}, {"y"}, [](ModelBuilder& b) { b.input("a", kFloat, {5, 2}).input("b", kFloat, {5, 3}); },
          [](ModelBuilder& b) { b.attr_ints("inputdimensions", {2}); }),
       {},
       "input_count"},
      // DictVectorizer: [1, vocabulary size] of the map's value type.
      {"dict_vectorizer_string_keys", 18,
       ml("DictVectorizer", {"m"}, {"y"}, [](ModelBuilder& b) { b.input_map("m", kString, kDouble); },
          [](ModelBuilder& b) { b.attr_strings("string_vocabulary", {"a", "b", "c"}); }),
       {{"y", {"1", "3"}, std::nullopt, DType::Float64}}},
      {"dict_vectorizer_int_keys_string_values", 18,
       ml("DictVectorizer", {"m"}, {"y"}, [](ModelBuilder& b) { b.input_map("m", kInt64, kString); },
          [](ModelBuilder& b) { b.attr_ints("int64_vocabulary", {3, 1}); }),
       {{"y", {"1", "2"}, std::nullopt, DType::String}}},
      {"dict_vectorizer_vocabulary_of_the_other_key_type", 18,
       ml("DictVectorizer", {"m"}, {"y"}, [](ModelBuilder& b) { b.input_map("m", kInt64, kFloat); },
          [](ModelBuilder& b) { b.attr_strings("string_vocabulary", {"a"}); }),
       {},
       "invalid_attribute"},
      {"dict_vectorizer_string_to_string", 18,
       ml("DictVectorizer", {"m"}, {"y"}, [](ModelBuilder& b) { b.input_map("m", kString, kString); },
          [](ModelBuilder& b) { b.attr_strings("string_vocabulary", {"a"}); }),
       {},
       "type_error"},
      {"dict_vectorizer_tensor_input", 18,
       ml("DictVectorizer", {"x"}, {"y"}, x_float({3}), [](ModelBuilder& b) { b.attr_strings("string_vocabulary", {"a"}); }),
       {},
       "type_error"},
      // CastMap: [1, entries] (DENSE) or [1, max_map] (SPARSE) of cast_to's type.
      {"cast_map_sparse_to_string", 18,
       ml("CastMap", {"m"}, {"y"}, [](ModelBuilder& b) { b.input_map("m", kInt64, kFloat); },
          [](ModelBuilder& b) { b.attr_string("map_form", "SPARSE").attr_int("max_map", 5).attr_string("cast_to", "TO_STRING"); }),
       {{"y", {"1", "5"}, std::nullopt, DType::String}}},
      {"cast_map_string_keys", 18,
       ml("CastMap", {"m"}, {"y"}, [](ModelBuilder& b) { b.input_map("m", kString, kFloat); }), {}, "type_error"},
      {"cast_map_unknown_cast_to", 18,
       ml("CastMap", {"m"}, {"y"}, [](ModelBuilder& b) { b.input_map("m", kInt64, kString); },
          [](ModelBuilder& b) { b.attr_string("cast_to", "TO_DOUBLE"); }),
       {},
       "invalid_attribute"},
      {"cast_map_sparse_needs_max_map", 18,
       ml("CastMap", {"m"}, {"y"}, [](ModelBuilder& b) { b.input_map("m", kInt64, kFloat); },
          [](ModelBuilder& b) { b.attr_string("map_form", "SPARSE").attr_int("max_map", 0); }),
       {},
       "invalid_attribute"},
      // ZipMap's checks (its sequence of maps: the tests below).
      {"zip_map_labels_must_match_the_last_dim", 18,
       ml("ZipMap", {"x"}, {"z"}, x_float({"N", 4}), [](ModelBuilder& b) { b.attr_ints("classlabels_int64s", {1, 2, 3}); }),
       {},
       "shape_mismatch"},
      {"zip_map_3d_input", 18,
       ml("ZipMap", {"x"}, {"z"}, x_float({2, 2, 3}), [](ModelBuilder& b) { b.attr_ints("classlabels_int64s", {1, 2, 3}); }),
       {},
       "invalid_rank"},
      {"zip_map_double_input", 18,
       ml("ZipMap", {"x"}, {"z"}, [](ModelBuilder& b) { b.input("x", kDouble, {2, 3}); },
          [](ModelBuilder& b) { b.attr_ints("classlabels_int64s", {1, 2, 3}); }),
       {},
       "type_error"},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, MlCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// A map value's parts: key dtype, value dtype and rank, entry count.
struct MapParts {
  DType key;
  DType value;
  int64_t value_rank;
  std::string entries;
  bool operator==(const MapParts&) const = default;
};

std::ostream& operator<<(std::ostream& os, const MapParts& m) {
  return os << "map(" << dtype_name(m.key) << ", " << dtype_name(m.value) << " rank " << m.value_rank << "; "
            << m.entries << " entries)";
}

MapParts map_parts(const RunResult& r, const Value& v) {
  if (!v.is_map() || !v.map_value().is_tensor()) return {DType::Undefined, DType::Undefined, -1, "<not a map>"};
  const TensorMeta& m = v.map_value().tensor->meta;
  return {v.map_key, m.dtype, m.dim(), r.env->simplify(v.map_entries()).to_python()};
}

ModelBuilder zip_map_model(std::vector<ModelBuilder::DimSpec> dims, Build labels) {
  ModelBuilder b(18);
  b.opset("ai.onnx.ml", 3).input("x", kFloat, dims);
  b.node("ZipMap", {"x"}, {"z"}, "n", "ai.onnx.ml");
  labels(b);
  return b;
}

// ZipMap: a sequence of N maps (one per row), each from the labels to a float.
TEST(MlZipMap, OneMapPerRow) {
  const RunResult r = testing::run(zip_map_model({"N", 3}, [](ModelBuilder& b) { b.attr_ints("classlabels_int64s", {1, 2, 3}); }));
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  const Value* z = testing::find_value(r, "z");
  ASSERT_TRUE(z && z->kind == Value::Kind::List && z->list_length && z->list->size() == 1);
  EXPECT_EQ(r.env->simplify(*z->list_length).to_python(), "N");
  EXPECT_EQ(map_parts(r, z->list->front()), (MapParts{DType::Int64, DType::Float32, 0, "3"}));
  EXPECT_EQ(describe_value(*z, *r.env), "(N x map(int64, float32[]; 3 entries))");
}

// A 1-D input is one row; duplicate string labels are one key.
TEST(MlZipMap, OneDimensionalInputAndDuplicateLabels) {
  const RunResult r =
      testing::run(zip_map_model({3}, [](ModelBuilder& b) { b.attr_strings("classlabels_strings", {"a", "a", "b"}); }));
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  const Value* z = testing::find_value(r, "z");
  ASSERT_TRUE(z && z->kind == Value::Kind::List && z->list_length);
  EXPECT_EQ(r.env->simplify(*z->list_length).to_python(), "1");
  EXPECT_EQ(map_parts(r, z->list->front()), (MapParts{DType::String, DType::Float32, 0, "2"}));
}

// Map graph inputs: key and value types from the model, an unbacked entry
// count per map, and a sequence of them with an unbacked length; CastMap
// DENSE is as wide as the map has entries.
TEST(MlMaps, MapInputsAndCastMap) {
  ModelBuilder b(18);
  b.opset("ai.onnx.ml", 3).input_map("m", kInt64, kString).input_map("ms", kString, kFloat, true);
  b.node("CastMap", {"m"}, {"y"}, "n", "ai.onnx.ml").attr_string("cast_to", "TO_INT64");
  const RunResult r = testing::run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  const Value* m = testing::find_value(r, "m");
  ASSERT_TRUE(m);
  const MapParts parts = map_parts(r, *m);
  EXPECT_EQ(parts, (MapParts{DType::Int64, DType::String, 0, parts.entries}));
  EXPECT_TRUE(m->map_entries().is_symbolic());
  EXPECT_EQ(testing::shape_of(r, "y"), (std::vector<std::string>{"1", parts.entries}));
  EXPECT_EQ(testing::dtype_of(r, "y"), DType::Int64);
  const Value* ms = testing::find_value(r, "ms");
  ASSERT_TRUE(ms && ms->kind == Value::Kind::List && ms->list_length && ms->list_length->is_symbolic());
  EXPECT_EQ(map_parts(r, ms->list->front()).key, DType::String);
}

// A map where a tensor is expected is a type error, not a crash.
TEST(MlMaps, MapWhereATensorIsExpected) {
  ModelBuilder b(18);
  b.opset("ai.onnx.ml", 3).input_map("m", kInt64, kFloat);
  b.node("Binarizer", {"m"}, {"y"}, "n", "ai.onnx.ml");
  EXPECT_EQ(testing::error_kinds(testing::run(b)), std::vector<std::string>{"type_error"});
}

}  // namespace
}  // namespace fakeprop::onnx
