// ai.onnx.ml operators that scikit-learn converters emit: per-element
// transforms, encoders and linear models. Output shapes and types are ONNX
// Runtime's (its CPU kernels in core/providers/cpu/ml), checked by running it:
// a 1-D input is one sample ([1, ...] outputs), a feature axis is the last.
#include <optional>
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

// Binarizer, Imputer: the input's shape and type.
void same_as_input(OpContext& ctx) { ctx.set_tensor(0, ctx.dtype(0), ctx.shape(0)); }

// Scaler, Normalizer: the input's shape in float.
void same_shape_float(OpContext& ctx) { ctx.set_tensor(0, DType::Float32, ctx.shape(0)); }

// LinearRegressor: [N, targets].
void linear_regressor(OpContext& ctx) {
  const int64_t targets = ctx.attr_int("targets", 1);
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
  if (ctx.opset() < 2) {
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

}  // namespace

void register_ml_ops(OpRegistry& r) {
  r.add(kMl, "TreeEnsemble", tree_ensemble);
  r.add(kMl, "TreeEnsembleRegressor", tree_ensemble_regressor);
  r.add(kMl, "TreeEnsembleClassifier", tree_ensemble_classifier);
  r.add(kMl, "Binarizer", same_as_input);
  r.add(kMl, "Imputer", same_as_input);
  r.add(kMl, "Scaler", same_shape_float);
  r.add(kMl, "Normalizer", same_shape_float);
  r.add(kMl, "LinearRegressor", linear_regressor);
  r.add(kMl, "LinearClassifier", linear_classifier);
  r.add(kMl, "ArrayFeatureExtractor", array_feature_extractor);
  r.add(kMl, "OneHotEncoder", one_hot_encoder);
  r.add(kMl, "CategoryMapper", category_mapper);
  r.add(kMl, "LabelEncoder", label_encoder);
}

}  // namespace fakeprop::onnx::ops
