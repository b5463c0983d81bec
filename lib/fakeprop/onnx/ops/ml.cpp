// ai.onnx.ml operators that scikit-learn converters emit: per-element
// transforms, encoders, linear models, SVMs, tree ensembles and the map
// operators. Output shapes and types are ONNX Runtime's (its CPU kernels in
// core/providers/cpu/ml), checked by running it: a 1-D input is one sample
// ([1, ...] outputs), a feature axis is the last. Maps are Value::of_map: a
// key dtype, the value every entry has, and the entry count.
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

constexpr std::string_view kMl = "ai.onnx.ml";

// Elements of a list attribute (ints, floats or strings); 0 when absent.
size_t list_size(OpContext& ctx, std::string_view name) {
  const Attribute* a = ctx.attr(name);
  if (!a) return 0;
  return a->ints.size() + a->floats().size() + a->strings().size();
}

// Labels or categories given as exactly one of an int64 and a string list:
// how many, and whether they are the int64 ones.
struct Labels {
  size_t count;
  bool ints;
};
Labels int_or_string_labels(OpContext& ctx, const char* ints_name, const char* strings_name) {
  const size_t ints = list_size(ctx, ints_name), strings = list_size(ctx, strings_name);
  if ((ints == 0) == (strings == 0))
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + ": exactly one of " + ints_name + " and " + strings_name +
                                              " must be given");
  return {ints + strings, ints != 0};
}

void require_input_rank_at_least(OpContext& ctx, int64_t rank) {
  if (ctx.rank(0) < rank)
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " needs an input of rank " + std::to_string(rank) +
                                         " or more, got shape " + shape_to_string(ctx.shape(0)));
}

// The number of samples: the first dim, or 1 for a 1-D input.
SymInt samples(OpContext& ctx) {
  require_input_rank_at_least(ctx, 1);
  return ctx.rank(0) == 1 ? SymInt(1) : ctx.shape(0)[0];
}

// The SVMs and ZipMap read [N, features] or one sample of [features].
void require_input_rank_1_or_2(OpContext& ctx) {
  if (ctx.rank(0) < 1 || ctx.rank(0) > 2)
    ctx.fail(ErrorKind::InvalidRank,
             ctx.op_type() + " needs a 1-D or 2-D input, got shape " + shape_to_string(ctx.shape(0)));
}

// The input's last dim must be `features` (the kernels check it when they run).
void require_features(OpContext& ctx, int64_t features, const char* why) {
  const SymInt got = ctx.shape(0).back();
  require(ctx, sym_eq(got, SymInt(features)), "ml_features", ErrorKind::ShapeMismatch,
          ctx.op_type() + ": the input's last dim is " + simplified(ctx, got).to_python() + ", expected " +
              std::to_string(features) + " (" + why + ")");
}

// Input `i` as a map whose values are tensors.
const Value& map_input(OpContext& ctx, size_t i) {
  const Value& v = ctx.input(i);
  if (v.kind == Value::Kind::Opaque)
    ctx.fail(ErrorKind::UnknownInput,
             "input '" + ctx.input_name(i) + "' has no known type (" + v.opaque_text() + ")");
  if (!v.is_map() || !v.map_value().is_tensor())
    ctx.fail(ErrorKind::TypeError, ctx.op_type() + ": input '" + ctx.input_name(i) + "' must be a map" +
                                       (v.is_map() ? " of numbers or strings" : ""));
  return v;
}

std::string map_type_text(const Value& m) {
  const DType value = m.map_value().tensor->meta.dtype;
  return "map(" + std::string(dtype_name(m.map_key)) + ", " + std::string(dtype_name(value)) + ")";
}

// Binarizer, Imputer: the input's shape and type.
void same_as_input(OpContext& ctx) { ctx.set_tensor(0, ctx.dtype(0), ctx.shape(0)); }

// Scaler, Normalizer: the input's shape in float.
void same_shape_float(OpContext& ctx) { ctx.set_tensor(0, DType::Float32, ctx.shape(0)); }

// LinearRegressor: [N, targets].
void linear_regressor(OpContext& ctx) {
  const int64_t targets = ctx.attr_int("targets");
  if (targets <= 0) ctx.fail(ErrorKind::InvalidAttribute, "LinearRegressor: targets must be positive");
  ctx.set_tensor(0, DType::Float32, {samples(ctx), SymInt(targets)});
}

// LinearClassifier: labels [N] (int64 or string, as the class labels), scores
// [N, classes]; one intercept over two labels is the binary case, two columns.
void linear_classifier(OpContext& ctx) {
  const Labels labels = int_or_string_labels(ctx, "classlabels_ints", "classlabels_strings");
  size_t classes = list_size(ctx, "intercepts");
  if (classes == 0) ctx.fail(ErrorKind::InvalidAttribute, "LinearClassifier: intercepts must not be empty");
  if (classes == 1 && labels.count == 2) classes = 2;
  const SymInt n = samples(ctx);
  ctx.set_tensor(0, labels.ints ? DType::Int64 : DType::String, {n});
  if (ctx.wants_output(1)) ctx.set_tensor(1, DType::Float32, {n, SymInt(static_cast<int64_t>(classes))});
}

// ArrayFeatureExtractor(X, Y): X's last dim becomes Y's element count
// ([1, count] for a 1-D X).
void array_feature_extractor(OpContext& ctx) {
  require_input_rank_at_least(ctx, 1);
  const SymInt count = simplified(ctx, numel(ctx.shape(1)));
  SymShape out = ctx.shape(0);
  if (out.size() == 1) out = {SymInt(1), count};
  else out.back() = count;
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// OneHotEncoder: the input's shape and a last dim of one entry per category, float.
void one_hot_encoder(OpContext& ctx) {
  const Labels cats = int_or_string_labels(ctx, "cats_int64s", "cats_strings");
  SymShape out = ctx.shape(0);
  out.push_back(SymInt(static_cast<int64_t>(cats.count)));
  ctx.set_tensor(0, DType::Float32, std::move(out));
}

// CategoryMapper: int64 <-> string, same shape.
void category_mapper(OpContext& ctx) {
  if (list_size(ctx, "cats_int64s") == 0 || list_size(ctx, "cats_int64s") != list_size(ctx, "cats_strings"))
    ctx.fail(ErrorKind::InvalidAttribute, "CategoryMapper: cats_int64s and cats_strings must be given, of one length");
  const DType in = ctx.dtype(0);
  if (in != DType::Int64 && in != DType::String)
    ctx.fail(ErrorKind::TypeError, "CategoryMapper: input must be int64 or string, got " + std::string(dtype_name(in)));
  ctx.set_tensor(0, in == DType::Int64 ? DType::String : DType::Int64, ctx.shape(0));
}

// LabelEncoder: same shape; the type of the values (opset 2: values_*,
// opset 4: values_tensor; opset 1: classes_strings maps string <-> int64).
void label_encoder(OpContext& ctx) {
  DType out;
  if (ctx.declares_attribute("classes_strings")) {  // version 1
    out = ctx.dtype(0) == DType::String ? DType::Int64 : DType::String;
  } else if (list_size(ctx, "values_int64s")) {
    out = DType::Int64;
  } else if (list_size(ctx, "values_floats")) {
    out = DType::Float32;
  } else if (list_size(ctx, "values_strings")) {
    out = DType::String;
  } else if (const Attribute* t = ctx.attr("values_tensor"); t && t->t) {
    out = t->t->dtype();
  } else {
    ctx.fail(ErrorKind::InvalidAttribute, "LabelEncoder: no values attribute");
  }
  ctx.set_tensor(0, out, ctx.shape(0));
}

// The element count and dtype of a tensor attribute, or nullopt when absent.
std::optional<std::pair<int64_t, DType>> tensor_attr(OpContext& ctx, std::string_view name) {
  const Attribute* a = ctx.attr(name);
  if (!a || !a->t) return std::nullopt;
  return std::make_pair(a->t->numel(), a->t->dtype());
}

// TreeEnsemble (opset 5): [N, n_targets] of the input's type. Every nodes_*
// list has one entry per interior node, leaf_weights one per leaf, and the
// split and weight tensors have the input's type, as the kernel reads them.
void tree_ensemble(OpContext& ctx) {
  const size_t nodes = list_size(ctx, "nodes_featureids");
  for (const char* name : {"nodes_truenodeids", "nodes_falsenodeids", "nodes_trueleafs", "nodes_falseleafs"})
    if (list_size(ctx, name) != nodes)
      ctx.fail(ErrorKind::InvalidAttribute, std::string("TreeEnsemble: ") + name + " must have one entry per node (" +
                                                std::to_string(nodes) + ")");
  const DType in = ctx.dtype(0);
  for (const char* name : {"nodes_splits", "nodes_modes", "leaf_weights"}) {
    const auto t = tensor_attr(ctx, name);
    if (!t) ctx.fail(ErrorKind::InvalidAttribute, std::string("TreeEnsemble: ") + name + " is required");
    const bool per_node = std::string_view(name) != "leaf_weights";
    const auto want = static_cast<int64_t>(per_node ? nodes : list_size(ctx, "leaf_targetids"));
    if (t->first != want)
      ctx.fail(ErrorKind::InvalidAttribute, std::string("TreeEnsemble: ") + name + " has " + std::to_string(t->first) +
                                                " entries, expected " + std::to_string(want));
    if (std::string_view(name) != "nodes_modes" && t->second != in)
      ctx.fail(ErrorKind::TypeError, std::string("TreeEnsemble: ") + name + " must have the input's type " +
                                         std::string(dtype_name(in)));
  }
  ctx.set_tensor(0, in, {samples(ctx), SymInt(ctx.required_attr_int("n_targets"))});
}

// TreeEnsembleRegressor: [N, n_targets] float.
void tree_ensemble_regressor(OpContext& ctx) {
  ctx.set_tensor(0, DType::Float32, {samples(ctx), SymInt(ctx.attr_int("n_targets", 1))});
}

// TreeEnsembleClassifier: labels [N] (int64 or string), scores [N, classes].
void tree_ensemble_classifier(OpContext& ctx) {
  const Labels labels = int_or_string_labels(ctx, "classlabels_int64s", "classlabels_strings");
  const SymInt n = samples(ctx);
  ctx.set_tensor(0, labels.ints ? DType::Int64 : DType::String, {n});
  if (ctx.wants_output(1)) ctx.set_tensor(1, DType::Float32, {n, SymInt(static_cast<int64_t>(labels.count))});
}

// SVMClassifier: labels [N] (int64 or string), scores [N, K]. K is one per
// class, except for SVC (support vectors given) without prob_a/prob_b: one
// per pair of classes, and 2 for two classes. Features: the length of a
// support vector, or coefficients per class (linear mode).
void svm_classifier(OpContext& ctx) {
  const Labels labels = int_or_string_labels(ctx, "classlabels_ints", "classlabels_strings");
  const auto classes = static_cast<int64_t>(labels.count);
  const std::vector<int64_t> per_class = ctx.attr_ints("vectors_per_class").value_or(std::vector<int64_t>{});
  int64_t vectors = 0;
  for (int64_t v : per_class)
    if (v < 0 || __builtin_add_overflow(vectors, v, &vectors))
      ctx.fail(ErrorKind::InvalidAttribute, "SVMClassifier: vectors_per_class must be counts of support vectors");
  const auto coefficients = static_cast<int64_t>(list_size(ctx, "coefficients"));
  if (coefficients == 0) ctx.fail(ErrorKind::InvalidAttribute, "SVMClassifier: coefficients must not be empty");
  const size_t prob = list_size(ctx, "prob_a");
  if (prob != list_size(ctx, "prob_b"))
    ctx.fail(ErrorKind::InvalidAttribute, "SVMClassifier: prob_a and prob_b must have one length");
  const bool svc = vectors > 0;
  if (svc && per_class.size() != labels.count)
    ctx.fail(ErrorKind::InvalidAttribute, "SVMClassifier: vectors_per_class has " + std::to_string(per_class.size()) +
                                              " entries, one per class (" + std::to_string(classes) + ") expected");
  const DType in = ctx.dtype(0);
  if (in != DType::Float32 && in != DType::Float64 && in != DType::Int32 && in != DType::Int64)
    ctx.fail(ErrorKind::TypeError, "SVMClassifier: input must be float, double, int32 or int64, got " +
                                       std::string(dtype_name(in)));
  require_input_rank_1_or_2(ctx);
  if (svc)
    require_features(ctx, static_cast<int64_t>(list_size(ctx, "support_vectors")) / vectors, "a support vector's length");
  else
    require_features(ctx, coefficients / classes, "coefficients per class");
  int64_t scores = classes;
  if (svc && prob == 0) scores = classes > 2 ? classes * (classes - 1) / 2 : 2;
  const SymInt n = samples(ctx);
  ctx.set_tensor(0, labels.ints ? DType::Int64 : DType::String, {n});
  if (ctx.wants_output(1)) ctx.set_tensor(1, DType::Float32, {n, SymInt(scores)});
}

// SVMRegressor: [N, 1] float. Features: the length of a support vector
// (n_supports of them), or the coefficients (linear mode). ONNX Runtime's
// kernel takes float only; the other input types ONNX allows are accepted.
void svm_regressor(OpContext& ctx) {
  const int64_t supports = ctx.attr_int("n_supports");
  if (supports < 0) ctx.fail(ErrorKind::InvalidAttribute, "SVMRegressor: n_supports must not be negative");
  const auto coefficients = static_cast<int64_t>(list_size(ctx, "coefficients"));
  if (coefficients == 0) ctx.fail(ErrorKind::InvalidAttribute, "SVMRegressor: coefficients must not be empty");
  const DType in = ctx.dtype(0);
  if (in != DType::Float32 && in != DType::Float64 && in != DType::Int32 && in != DType::Int64)
    ctx.fail(ErrorKind::TypeError, "SVMRegressor: input must be float, double, int32 or int64, got " +
                                       std::string(dtype_name(in)));
  require_input_rank_1_or_2(ctx);
  if (supports > 0)
    require_features(ctx, static_cast<int64_t>(list_size(ctx, "support_vectors")) / supports, "a support vector's length");
  else
    require_features(ctx, coefficients, "one coefficient per feature");
  ctx.set_tensor(0, DType::Float32, {samples(ctx), SymInt(1)});
}

// ZipMap: a sequence of maps, one per row of [N, C] (one for a 1-D input),
// each from the C class labels (duplicates collapse into one key) to a float.
void zip_map(OpContext& ctx) {
  const Labels labels = int_or_string_labels(ctx, "classlabels_int64s", "classlabels_strings");
  if (ctx.dtype(0) != DType::Float32)
    ctx.fail(ErrorKind::TypeError, "ZipMap: input must be float, got " + std::string(dtype_name(ctx.dtype(0))));
  require_input_rank_1_or_2(ctx);
  require_features(ctx, static_cast<int64_t>(labels.count), "one per class label");
  const Attribute& keys = *ctx.attr(labels.ints ? "classlabels_int64s" : "classlabels_strings");
  const size_t distinct = labels.ints ? std::set<int64_t>(keys.ints.begin(), keys.ints.end()).size()
                                      : std::set<std::string>(keys.strings().begin(), keys.strings().end()).size();
  Value value = Value::of_tensor(ctx.new_tensor(DType::Float32, {}));
  Value map = Value::of_map(labels.ints ? DType::Int64 : DType::String, std::move(value),
                            SymInt(static_cast<int64_t>(distinct)));
  ctx.set_output(0, Value::of_list_of_length(std::move(map), samples(ctx)));
}

// CastMap: a map(int64, string|float) as a [1, K] tensor of cast_to's type;
// K is the map's entry count (map_form DENSE) or max_map (SPARSE: the keys
// are positions, missing ones padded).
void cast_map(OpContext& ctx) {
  const Value& m = map_input(ctx, 0);
  const DType value = m.map_value().tensor->meta.dtype;
  if (m.map_key != DType::Int64 || (value != DType::String && value != DType::Float32))
    ctx.fail(ErrorKind::TypeError,
             "CastMap: input must be map(int64, string) or map(int64, float32), got " + map_type_text(m));
  const std::string to = ctx.attr_string("cast_to");
  DType out;
  if (to == "TO_FLOAT") out = DType::Float32;
  else if (to == "TO_INT64") out = DType::Int64;
  else if (to == "TO_STRING") out = DType::String;
  else ctx.fail(ErrorKind::InvalidAttribute, "CastMap: cast_to must be TO_FLOAT, TO_INT64 or TO_STRING, got " + to);
  const std::string form = ctx.attr_string("map_form");
  SymInt width;
  if (form == "DENSE") {
    width = m.map_entries();
  } else if (form == "SPARSE") {
    const int64_t max_map = ctx.attr_int("max_map");
    if (max_map <= 0) ctx.fail(ErrorKind::InvalidAttribute, "CastMap: max_map must be positive for map_form SPARSE");
    width = SymInt(max_map);
  } else {
    ctx.fail(ErrorKind::InvalidAttribute, "CastMap: map_form must be DENSE or SPARSE, got " + form);
  }
  ctx.set_tensor(0, out, {SymInt(1), width});
}

// DictVectorizer: [1, vocabulary size] of the map's value type; string keys
// read string_vocabulary, int64 keys int64_vocabulary.
void dict_vectorizer(OpContext& ctx) {
  const Value& m = map_input(ctx, 0);
  const DType value = m.map_value().tensor->meta.dtype;
  const bool floating = value == DType::Float32 || value == DType::Float64;
  const bool string_keys = m.map_key == DType::String;
  if (!(string_keys && (floating || value == DType::Int64)) &&
      !(m.map_key == DType::Int64 && (floating || value == DType::String)))
    ctx.fail(ErrorKind::TypeError, "DictVectorizer: input must map string keys to int64, float or double, or int64 "
                                   "keys to string, float or double, got " + map_type_text(m));
  const char* vocabulary = string_keys ? "string_vocabulary" : "int64_vocabulary";
  const char* other = string_keys ? "int64_vocabulary" : "string_vocabulary";
  if (!ctx.has_attr(vocabulary) || ctx.has_attr(other))
    ctx.fail(ErrorKind::InvalidAttribute, "DictVectorizer: a " + map_type_text(m) + " input needs " + vocabulary +
                                              " (and not " + other + ")");
  ctx.set_tensor(0, value, {SymInt(1), SymInt(static_cast<int64_t>(list_size(ctx, vocabulary)))});
}

// FeatureVectorizer: [N, sum of inputdimensions] float. Each input's rows
// (its dims after the first, flattened) are cut or zero-padded to its
// inputdimensions entry; the inputs share one type and N (1 for a 1-D input).
void feature_vectorizer(OpContext& ctx) {
  const std::vector<int64_t> dims = ctx.attr_ints("inputdimensions").value_or(std::vector<int64_t>{});
  if (dims.empty()) ctx.fail(ErrorKind::InvalidAttribute, "FeatureVectorizer: inputdimensions must not be empty");
  if (dims.size() != ctx.num_inputs())
    ctx.fail(ErrorKind::InputCount, "FeatureVectorizer: " + std::to_string(ctx.num_inputs()) +
                                        " inputs, inputdimensions has " + std::to_string(dims.size()) + " entries");
  int64_t total = 0;
  for (int64_t d : dims)
    if (d < 0 || __builtin_add_overflow(total, d, &total))
      ctx.fail(ErrorKind::InvalidAttribute, "FeatureVectorizer: inputdimensions must be sizes");
  const DType type = ctx.dtype(0);
  if (type != DType::Float32 && type != DType::Float64 && type != DType::Int32 && type != DType::Int64)
    ctx.fail(ErrorKind::TypeError, "FeatureVectorizer: inputs must be float, double, int32 or int64, got " +
                                       std::string(dtype_name(type)));
  SymInt n;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (ctx.dtype(i) != type)
      ctx.fail(ErrorKind::TypeError, "FeatureVectorizer: inputs must share one type, input " + std::to_string(i) +
                                         " is " + std::string(dtype_name(ctx.dtype(i))) + ", input 0 " +
                                         std::string(dtype_name(type)));
    if (ctx.rank(i) < 1)
      ctx.fail(ErrorKind::InvalidRank, "FeatureVectorizer: input " + std::to_string(i) + " must have a dim");
    const SymInt rows = ctx.rank(i) == 1 ? SymInt(1) : ctx.shape(i)[0];
    if (i == 0) n = rows;
    else
      require(ctx, sym_eq(rows, n), "FeatureVectorizer", ErrorKind::ShapeMismatch,
              "FeatureVectorizer: every input needs input 0's batch size " + simplified(ctx, n).to_python() +
                  ", input " + std::to_string(i) + " has " + simplified(ctx, rows).to_python());
  }
  ctx.set_tensor(0, DType::Float32, {n, SymInt(total)});
}

}  // namespace

std::span<const OpRuleEntry> ml_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {kMl, "TreeEnsemble", tree_ensemble},
      {kMl, "TreeEnsembleRegressor", tree_ensemble_regressor},
      {kMl, "TreeEnsembleClassifier", tree_ensemble_classifier},
      {kMl, "Binarizer", same_as_input},
      {kMl, "Imputer", same_as_input},
      {kMl, "Scaler", same_shape_float},
      {kMl, "Normalizer", same_shape_float},
      {kMl, "LinearRegressor", linear_regressor},
      {kMl, "LinearClassifier", linear_classifier},
      {kMl, "ArrayFeatureExtractor", array_feature_extractor},
      {kMl, "OneHotEncoder", one_hot_encoder},
      {kMl, "CategoryMapper", category_mapper},
      {kMl, "LabelEncoder", label_encoder},
      {kMl, "SVMClassifier", svm_classifier},
      {kMl, "SVMRegressor", svm_regressor},
      {kMl, "ZipMap", zip_map},
      {kMl, "CastMap", cast_map},
      {kMl, "DictVectorizer", dict_vectorizer},
      {kMl, "FeatureVectorizer", feature_vectorizer},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
