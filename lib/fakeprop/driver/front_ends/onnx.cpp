// The ONNX front end's record: an ONNX model (protobuf), run by onnx/'s
// interpreter; -o writes it again with value_info for every value.
#include <cctype>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "fakeprop/driver/front_ends/front_ends.h"
#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/onnx/ops/fallback.h"
#include "fakeprop/onnx/writer.h"
#include "fakeprop/util/identifier.h"

namespace fakeprop {

namespace {

// The ONNX type of a tensor, a map of tensors, a sequence of either, or an
// optional of those, as -o writes it; nullopt for other values (unknown,
// empty optionals). A sequence's element type keeps what all its elements share:
// a dim that differs between elements (or holds an unbacked symbol of a
// template element) is unknown, and so is the rank when the ranks differ.
// `params`: the model's own dim_param text for a symbol that could not take
// it as its name (not an identifier: "Batch Size") or that has a name of
// fakeprop's making only (a data-dependent u0); a dim that is exactly that symbol
// is written with it, so -o keeps the model's names.
using ParamNames = std::unordered_map<ExprRef, std::string>;

// `s` as Python text with each symbol that stands for a model dim_param
// written as that text in parentheses: "2*(past_sequence_length + sequence_length)".
std::string with_param_names(const SymInt& s, const ParamNames& params) {
  std::unordered_map<std::string, const std::string*> by_name;
  for (const auto& [sym, text] : params) by_name.emplace(sym->name(), &text);
  const std::string text = s.to_python();
  std::string out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < text.size();) {
    if (!word(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && word(text[j])) ++j;
    const std::string token = text.substr(i, j - i);
    const auto it = by_name.find(token);
    out += it == by_name.end() ? token : "(" + *it->second + ")";
    i = j;
  }
  return out;
}

std::optional<onnx::OutputValueInfo> value_type(const Value& v, const ShapeEnv& env, const ParamNames& params) {
  using Dims = std::vector<std::variant<int64_t, std::string>>;
  auto dim = [&](const SymInt& d, bool may_differ) -> std::variant<int64_t, std::string> {
    const SymInt s = env.simplify(d);
    if (s.is_static()) return s.value();
    if (auto it = params.find(s.expr()); it != params.end()) return it->second;
    if (!params.empty()) {  // an expression over such a symbol: its text, parenthesized
      bool named = false;
      for (ExprRef sym : free_symbols(s.expr())) named |= params.count(sym) > 0;
      if (named) return with_param_names(s, params);
    }
    // In a sequence's one element standing for all, an unbacked size may
    // differ from element to element; a graph input's size (a dim_param)
    // is the same in every element.
    if (may_differ)
      for (ExprRef sym : free_symbols(s.expr())) {
        const SymbolInfo& info = env.info(sym);
        if (info.unbacked && (info.sources.empty() || !info.node.empty())) return std::string();
      }
    return s.to_python();
  };
  using Wrapper = onnx::OutputValueInfo::Wrapper;
  onnx::OutputValueInfo vi;
  if (v.maybe_none || v.optional) vi.wrappers.push_back(Wrapper::Optional);
  // A map's value is a tensor: maps of other values are not written.
  auto map_value = [&](const Value& m) -> const Value* {
    if (!m.is_map() || !m.map_value().is_tensor()) return nullptr;
    if (vi.map_key_type != 0 && vi.map_key_type != dtype_to_onnx(m.map_key)) return nullptr;
    vi.map_key_type = dtype_to_onnx(m.map_key);
    return &m.map_value();
  };
  const Value* leaf = v.is_map() ? map_value(v) : &v;
  if (!leaf) return std::nullopt;
  if (v.is_map()) vi.wrappers.push_back(Wrapper::Map);
  if (leaf->is_tensor()) {
    vi.elem_type = dtype_to_onnx(leaf->tensor->meta.dtype);
    Dims dims;
    for (const SymInt& d : leaf->tensor->meta.sizes) dims.push_back(dim(d, false));
    vi.shape = std::move(dims);
    return vi;
  }
  if (v.is_unranked()) {  // the element type alone, as onnx writes a value of unknown rank
    vi.elem_type = dtype_to_onnx(v.tensor->meta.dtype);
    return vi;
  }
  if (v.kind != Value::Kind::List || !v.list) return std::nullopt;
  vi.wrappers.push_back(Wrapper::Sequence);
  const bool templated = v.list_length.has_value();
  const bool of_maps = !v.list->empty() && v.list->front().is_map();
  if (of_maps) vi.wrappers.push_back(Wrapper::Map);
  std::optional<Dims> shape;
  bool first = true;
  for (const Value& item : *v.list) {
    if (item.maybe_none || item.is_map() != of_maps) return std::nullopt;  // one type of element
    const Value* e = of_maps ? map_value(item) : &item;
    if (!e || !e->is_tensor()) return std::nullopt;  // sequences hold tensors or maps of them
    const int32_t elem = dtype_to_onnx(e->tensor->meta.dtype);
    Dims dims;
    for (const SymInt& d : e->tensor->meta.sizes) dims.push_back(dim(d, templated));
    if (first) {
      vi.elem_type = elem;
      shape = std::move(dims);
      first = false;
      continue;
    }
    if (elem != vi.elem_type) return std::nullopt;
    if (shape && shape->size() != dims.size()) {
      shape.reset();
    } else if (shape) {
      for (size_t i = 0; i < dims.size(); ++i)
        if ((*shape)[i] != dims[i]) (*shape)[i] = std::string();
    }
  }
  if (first) return std::nullopt;  // an empty sequence: its element type is not known here
  vi.shape = std::move(shape);
  return vi;
}

// optional(T) for T a tensor type or a sequence of one, as a model declares
// it (an Optional node's `type`); nullopt for other types.
std::optional<onnx::OutputValueInfo> declared_optional_type(const onnx::TypeInfo& t) {
  using Wrapper = onnx::OutputValueInfo::Wrapper;
  onnx::OutputValueInfo vi;
  vi.wrappers.push_back(Wrapper::Optional);
  const onnx::TypeInfo* leaf = &t;
  if (t.kind == onnx::TypeInfo::Kind::Sequence) {
    if (!t.elem) return std::nullopt;
    vi.wrappers.push_back(Wrapper::Sequence);
    leaf = t.elem.get();
  }
  if (leaf->kind != onnx::TypeInfo::Kind::Tensor) return std::nullopt;
  vi.elem_type = leaf->elem_type;
  if (leaf->shape) {
    std::vector<std::variant<int64_t, std::string>> dims;
    for (const onnx::Dim& d : *leaf->shape) {
      if (d.kind == onnx::Dim::Kind::Value) dims.emplace_back(d.value);
      else dims.emplace_back(d.kind == onnx::Dim::Kind::Param ? d.param : std::string());
    }
    vi.shape = std::move(dims);
  }
  return vi;
}

RunResult run_onnx(const std::string& path, const InferOptions& options, std::vector<std::string>& external) {
  onnx::Model model = onnx::load_model(path, options.max_nodes);
  external = model.external_files;
  return onnx::run_model(std::move(model), options);
}

void write_annotated_onnx(const RunResult& result, const std::string& model_path, const std::string& out_path) {
  onnx::Model model = onnx::load_model(model_path);
  const ShapeEnv& env = *result.env;
  // The main graph's values, told apart from its subgraphs' by the model's
  // own scopes (ONNX keeps value names unique across them; node names such
  // as torch's "/block/conv/Conv" may hold '/'). A failed node's outputs are
  // fallbacks: the model's own declarations of them stay, and only an element
  // type its schema gives (a value of unknown rank) is added.
  std::unordered_set<std::string_view> main_values;
  for (const onnx::Node& node : model.graph.nodes)
    for (const Name& o : node.outputs) main_values.insert(o.view());
  // The model's dim_param texts that no symbol could be named by, from its
  // declarations of graph inputs and values.
  std::unordered_map<std::string_view, const Value*> values;
  for (const auto& in : result.inputs) values.emplace(in.name, &in.val);
  for (const auto& n : result.nodes)
    for (const auto& o : n.outputs) values.emplace(o.name.view(), &o.val);
  ParamNames params;
  for (const auto* declarations : {&model.graph.inputs, &model.graph.value_info})
    for (const onnx::ValueInfo& vi : *declarations) {
      const auto it = values.find(vi.name);
      if (!vi.type.shape || it == values.end() || !it->second->is_tensor()) continue;
      const SymShape& sizes = it->second->tensor->meta.sizes;
      for (size_t d = 0; d < vi.type.shape->size() && d < sizes.size(); ++d) {
        const onnx::Dim& declared = (*vi.type.shape)[d];
        const SymInt s = env.simplify(sizes[d]);
        if (declared.kind != onnx::Dim::Kind::Param || declared.param.empty() || !s.is_symbolic() ||
            !s.expr()->is_symbol() || s.expr()->name() == declared.param)
          continue;
        const std::string& p = declared.param;
        const bool identifier = is_identifier(p);
        const SymbolInfo& info = env.info(s.expr());
        if (!identifier || (info.unbacked && info.sources.empty())) params.emplace(s.expr(), p);
      }
    }
  // A graph output's declaration that contradicts the inferred type (a
  // value_info_conflict in the report, which keeps the exporter's text) is
  // replaced by it.
  std::unordered_map<std::string_view, const onnx::TypeInfo*> declared_outputs;
  for (const onnx::ValueInfo& out : model.graph.outputs) declared_outputs.emplace(out.name, &out.type);
  // An empty optional keeps the type its Optional node declares, shape included.
  std::unordered_map<std::string_view, const onnx::TypeInfo*> optional_types;
  for (const onnx::Node& node : model.graph.nodes)
    if (node.op_type == "Optional" && (node.domain.empty() || node.domain == "ai.onnx") && node.inputs.empty() &&
        !node.outputs.empty())
      if (const onnx::Attribute* a = node.attr("type"); a && a->tp()) optional_types.emplace(node.outputs[0].view(), a->tp().get());
  std::vector<onnx::OutputValueInfo> infos;
  for (const auto& n : result.nodes) {
    for (const auto& o : n.outputs) {
      if (!main_values.count(o.name.view()) || (n.fallback && !o.val.is_unranked())) continue;
      if (const auto it = optional_types.find(o.name.view()); it != optional_types.end() && o.val.is_empty_optional()) {
        if (std::optional<onnx::OutputValueInfo> vi = declared_optional_type(*it->second)) {
          vi->name = o.name.str();
          infos.push_back(std::move(*vi));
        }
        continue;
      }
      if (std::optional<onnx::OutputValueInfo> vi = value_type(o.val, env, params)) {
        vi->name = o.name.str();
        if (const auto it = declared_outputs.find(o.name.view()); it != declared_outputs.end())
          vi->replaces_declaration = !onnx::ops::declaration_conflict(*it->second, o.val, env, true).empty();
        infos.push_back(std::move(*vi));
      }
    }
  }
  onnx::write_annotated_model(model, infos, out_path, result.input_files);
}

// Each node's inputs: the node that produced each, or the graph input or
// initializer it names. The main graph's nodes only (a subgraph's values
// show on the node that owns the subgraph).
nlohmann::json onnx_inputs_of(const std::string& model_path) {
  const onnx::Model model = onnx::load_model(model_path);
  std::unordered_map<std::string_view, std::string_view> producer;
  for (const onnx::Node& n : model.graph.nodes)
    for (const Name& o : n.outputs)
      if (!o.view().empty()) producer.emplace(o.view(), n.name.view());
  nlohmann::json inputs_of = nlohmann::json::object();
  for (const onnx::Node& n : model.graph.nodes) {
    nlohmann::json ins = nlohmann::json::array();
    for (const Name& i : n.inputs) {
      if (i.view().empty()) continue;  // an omitted optional input
      const auto p = producer.find(i.view());
      ins.push_back(std::string(p != producer.end() ? p->second : i.view()));
    }
    inputs_of[n.name.str()] = std::move(ins);
  }
  return inputs_of;
}

}  // namespace

FrontEnd onnx_front_end() {
  return {ModelFormat::Onnx, "onnx", onnx::looks_like_onnx, run_onnx, write_annotated_onnx, onnx_inputs_of};
}

}  // namespace fakeprop
