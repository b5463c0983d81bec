#include "fakeprop/onnx/ops/fallback.h"

#include "fakeprop/onnx/schema.h"

#include "fakeprop/util/identifier.h"
#include <algorithm>
#include <cctype>
#include <charconv>
#include <unordered_map>

namespace fakeprop::onnx::ops {


std::optional<DType> schema_output_dtype(std::string_view domain, std::string_view op, size_t k,
                                         std::span<const Value* const> inputs) {
  // The newest version: versions add allowed types but do not re-tie outputs to inputs.
  const auto versions = schema_versions(domain, op);
  if (versions.empty()) return std::nullopt;
  const OutputTypeTie tie = output_type_tie(versions.back(), k);
  if (tie.fixed) return dtype_from_onnx(tie.fixed);
  if (tie.input < 0 || static_cast<size_t>(tie.input) >= inputs.size()) return std::nullopt;
  const Value* in = inputs[static_cast<size_t>(tie.input)];
  if (!in || !in->tensor || !(in->is_tensor() || in->is_unranked())) return std::nullopt;
  return in->tensor->meta.dtype;
}

std::optional<size_t> schema_output_rank(std::string_view domain, std::string_view op, size_t k,
                                         std::span<const Value* const> inputs) {
  // Output 0 has input 0's rank.
  static constexpr std::string_view kKeepsRank[] = {
      "Abs",        "Acos",         "Acosh",      "Asin",          "Asinh",     "Atan",
      "Atanh",      "BitwiseNot",   "Cast",       "CastLike",      "Ceil",      "Celu",
      "Clip",       "Cos",          "Cosh",       "CumSum",        "DepthToSpace", "Dropout",
      "Elu",        "Erf",          "Exp",        "Floor",         "Gelu",      "HardSigmoid",
      "HardSwish",  "Hardmax",      "Identity",   "IsInf",         "IsNaN",     "LayerNormalization",
      "LeakyRelu",  "Log",          "LogSoftmax", "LpNormalization", "Mish",    "Neg",
      "Not",        "Pad",          "Reciprocal", "Relu",          "Resize",    "ReverseSequence",
      "Round",      "Selu",         "Shrink",     "Sigmoid",       "Sign",      "Sin",
      "Sinh",       "Softmax",      "Softplus",   "Softsign",      "SpaceToDepth", "Sqrt",
      "Tan",        "Tanh",         "ThresholdedRelu", "Tile",     "Transpose", "Trilu",
      "Upsample",   "Slice",        "Scatter",    "ScatterElements", "ScatterND", "InstanceNormalization",
      "BatchNormalization", "GroupNormalization", "RMSNormalization", "LRN", "MeanVarianceNormalization",
  };
  // Output 0 broadcasts every input: the largest rank.
  static constexpr std::string_view kBroadcasts[] = {
      "Add",     "And",  "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div",   "Equal",
      "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Max", "Mean", "Min", "Mod",
      "Mul",     "Or",   "PRelu",    "Pow",        "Sub",       "Sum",        "Where", "Xor",
  };
  if (k != 0 || !(domain.empty() || domain == "ai.onnx") || inputs.empty()) return std::nullopt;
  auto rank_of = [](const Value* v) -> std::optional<size_t> {
    if (!v || !v->is_tensor()) return std::nullopt;
    return v->tensor->meta.sizes.size();
  };
  auto listed = [&](std::span<const std::string_view> ops) { return std::find(ops.begin(), ops.end(), op) != ops.end(); };
  if (listed(kKeepsRank)) return rank_of(inputs[0]);
  if (!listed(kBroadcasts)) return std::nullopt;
  size_t rank = 0;
  for (const Value* v : inputs) {
    if (!v) continue;  // an omitted optional input
    const std::optional<size_t> r = rank_of(v);
    if (!r) return std::nullopt;
    rank = std::max(rank, *r);
  }
  return rank;
}

const TypeInfo* declared_type(const Graph& g, std::string_view value_name) {
  for (const auto& vi : g.value_info)
    if (vi.name == value_name) return &vi.type;
  for (const auto& vi : g.outputs)
    if (vi.name == value_name) return &vi.type;
  return nullptr;
}

Value fallback_value(std::string_view value_name, const Graph& g, ShapeEnv& env, StorageIds& storage,
                     Device device, const std::string& why, StringMap<SymInt>& dim_params) {
  const TypeInfo* t = declared_type(g, value_name);
  if (!t || t->kind != TypeInfo::Kind::Tensor) return Value::unknown(why);
  auto dtype = dtype_from_onnx(t->elem_type);
  if (!dtype) return Value::unknown(why);
  if (!t->shape) return Value::of_unranked(*dtype, device, why);
  TensorValue tv;
  for (const Dim& d : *t->shape) {
    if (d.kind == Dim::Kind::Value && d.value >= 0) {
      tv.meta.sizes.emplace_back(d.value);
    } else if (d.kind == Dim::Kind::Param && !d.param.empty()) {
      auto it = dim_params.find(d.param);
      if (it == dim_params.end()) {
        // A dim_param that cannot name a symbol ("past_len + 1") is a fresh
        // unbacked u<N> like any size a failed node leaves unknown, never
        // an s<N> that reads as an input's size with no source.
        const SymInt size = is_identifier(d.param)
                                ? SymInt(env.create_named_symbol(d.param, std::nullopt, ValueRange{0, kIntOo}, ""))
                                : SymInt(env.create_unbacked_symint(true));
        it = dim_params.emplace(d.param, size).first;
      }
      tv.meta.sizes.push_back(it->second);
    } else {
      tv.meta.sizes.emplace_back(env.create_unbacked_symint(true));
    }
  }
  tv.meta.strides = contiguous_strides(tv.meta.sizes, &env);
  tv.meta.dtype = *dtype;
  tv.meta.device = device;
  tv.meta.storage = storage.next();
  return Value::of_tensor(std::move(tv));
}

namespace {

std::string declared_shape_string(const TypeInfo& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape->size(); ++i) {
    const Dim& d = (*t.shape)[i];
    if (i) s += ", ";
    // A dim_param that reads as a number is quoted: the exporter's text, not a dim_value.
    const bool numeric = d.kind == Dim::Kind::Param && !d.param.empty() &&
                         std::all_of(d.param.begin(), d.param.end(), [](char c) { return c >= '0' && c <= '9'; });
    s += d.kind == Dim::Kind::Value ? std::to_string(d.value)
         : numeric                  ? "\"" + d.param + "\""
         : d.kind == Dim::Kind::Param ? d.param
                                      : "?";
  }
  return s + "]";
}

}  // namespace

namespace {

// A declared dim's size: its dim_value, or a dim_param that reads as a
// non-negative decimal number.
std::optional<int64_t> numeric_dim(const Dim& d) {
  if (d.kind == Dim::Kind::Value && d.value >= 0) return d.value;
  if (d.kind != Dim::Kind::Param || d.param.empty() || d.param.size() > 18) return std::nullopt;
  int64_t v = 0;
  const char* end = d.param.data() + d.param.size();
  auto [ptr, ec] = std::from_chars(d.param.data(), end, v);
  if (ec != std::errc() || ptr != end || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::string declaration_conflict(const TypeInfo& t, const Value& v, const ShapeEnv& env, bool is_graph_output) {
  if (!v.is_tensor() || t.kind != TypeInfo::Kind::Tensor) return "";
  const TensorMeta& m = v.tensor->meta;
  const auto declared = dtype_from_onnx(t.elem_type);
  std::string problem;
  if (t.elem_type != 0 && declared && *declared != m.dtype)
    problem = "element type " + std::string(dtype_name(*declared)) + " declared, " + std::string(dtype_name(m.dtype)) +
              " inferred";
  if (t.shape) {
    const auto& dims = *t.shape;
    if (dims.size() != m.sizes.size()) {
      problem = "rank " + std::to_string(dims.size()) + " declared, " + std::to_string(m.sizes.size()) + " inferred";
    } else {
      for (size_t i = 0; i < dims.size() && problem.empty(); ++i) {
        // A dim_param that reads as a number ("1") is the exporter's claim of that size.
        const bool literal_param = dims[i].kind == Dim::Kind::Param;
        const std::optional<int64_t> want = numeric_dim(dims[i]);
        if (!want || (literal_param && !is_graph_output)) continue;
        const SymInt got = env.simplify(m.sizes[i]);
        if (got.is_static() ? got.value() != *want
                            : literal_param && !env.statically_known_true(sym_eq(got, SymInt(*want))))
          problem = "dim " + std::to_string(i) + " differs";
      }
    }
    if (!problem.empty())
      problem += " (declared " + declared_shape_string(t) + ", inferred " + shape_to_string(m.sizes) + ")";
  }
  return problem;
}

void check_declared_types(const Graph& g, RunResult& result, ShapeEnv& env) {
  // Only declared names are looked up: one probe per node output, no copies.
  struct Found {
    const Name* node = nullptr;
    const Value* value = nullptr;
  };
  std::unordered_map<std::string_view, Found> declared_values;
  declared_values.reserve(g.value_info.size() + g.outputs.size());
  for (const auto& vi : g.value_info) declared_values.emplace(vi.name, Found{});
  for (const auto& vi : g.outputs) declared_values.emplace(vi.name, Found{});
  for (const auto& n : result.nodes)
    for (const auto& o : n.outputs)
      if (auto it = declared_values.find(o.name); it != declared_values.end()) it->second = {&n.name, &o.val};
  auto check = [&](const ValueInfo& vi, const Value& v, bool is_graph_output) {
    const std::string problem = declaration_conflict(vi.type, v, env, is_graph_output);
    if (problem.empty()) return;
    const Found& found = declared_values.at(vi.name);
    result.errors.push_back(
        {found.node ? found.node->str() : "", ErrorKind::ValueInfoConflict, "value '" + vi.name + "': " + problem});
  };
  for (const auto& vi : g.value_info)
    if (const Value* v = declared_values.at(vi.name).value) check(vi, *v, false);
  for (const auto& vi : g.outputs)
    if (const Value* v = declared_values.at(vi.name).value) check(vi, *v, true);
}

}  // namespace fakeprop::onnx::ops
