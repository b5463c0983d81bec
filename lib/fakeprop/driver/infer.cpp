#include "fakeprop/driver/infer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <variant>
#include <unordered_map>
#include <unordered_set>

#include "fakeprop/driver/annotated_graph.h"
#include "fakeprop/fx/interpreter.h"
#include "fakeprop/fx/pt2_archive.h"
#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/ops/fallback.h"
#include "fakeprop/onnx/writer.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/identifier.h"
#include "fakeprop/util/input_file.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop {

ModelFormat detect_format(const std::string& path) {
  // POSIX calls, not a stream: this runs before every load, and a stream's
  // buffer and locale cost more than the 256 bytes it reads.
  const InputFile file = InputFile::open(path);
  char head[256];
  ssize_t got;
  do got = ::pread(file.fd(), head, sizeof head, 0);
  while (got < 0 && errno == EINTR);
  if (got < 0) throw InputError(path + ": " + std::strerror(errno));
  const std::string_view bytes(head, static_cast<size_t>(got));
  size_t i = bytes.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // a UTF-8 byte order mark
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) ++i;
  if (i < bytes.size() && bytes[i] == '{') return ModelFormat::FxJson;
  if (fx::looks_like_zip(bytes)) return ModelFormat::Pt2;
  if (onnx::looks_like_onnx(bytes)) return ModelFormat::Onnx;
  throw InputError(path + ": neither an ONNX model, a JSON FX graph nor a torch.export archive (.pt2)");
}

namespace {

// `external`: the external data files the model names (ONNX), set by the run.
RunResult run_once(const std::string& path, const InferOptions& options, std::vector<std::string>& external) {
  switch (detect_format(path)) {
    case ModelFormat::Onnx: {
      onnx::Model model = onnx::load_model(path, options.max_nodes);
      external = model.external_files;
      return onnx::run_model(std::move(model), options);
    }
    case ModelFormat::FxJson: return fx::run_graph(fx::load_graph(path, options.max_nodes, options.file_limits), options);
    case ModelFormat::Pt2: {
      RunResult r = fx::run_graph(fx::load_pt2_archive(path, options.max_nodes, options.file_limits), options);
      r.model_kind = "pt2";
      return r;
    }
  }
  throw InputError(path + ": unknown format");
}

// Overflow inside a node is recorded on the node; one that escapes a run
// happened outside any (creating the graph inputs, checking declared outputs).
template <class Run>
RunResult without_overflow(const std::string& where, const Run& run) {
  try {
    return run();
  } catch (const OverflowError& e) {
    throw InputError(where + ": " + e.what() + " (sizes of the graph inputs or outputs overflow 64 bits)");
  }
}

// mark_dynamic's promise broken: PyTorch raises ConstraintViolationError.
void check_constraints(RunResult& r) {
  const std::string violations = r.env->constraint_violations();
  if (!violations.empty()) r.errors.push_back({"", ErrorKind::ConstraintViolation, violations});
}

// "L['x']:0" -> "L['x'].size()[0]"; a spec without one dim stays as written.
std::string dim_source_of(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon + 1 >= spec.size() ||
      spec.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    return spec;
  return SourceSpecs::size_source(SourceSpecs::normalize_source(spec.substr(0, colon)),
                                  std::stoll(spec.substr(colon + 1)));
}

// One run plus a rerun per specialize_on predicate, each assuming it.
template <class RunOnce>
RunResult infer_with_specializations(const std::string& where, const RunOnce& run_once_with,
                                     const InferOptions& options) {
  RunResult result = without_overflow(where, [&] { return run_once_with(options); });
  check_constraints(result);
  const auto& marks = options.marks.entries();
  for (size_t i = 0; i < marks.size(); ++i) {
    for (size_t j = 0; j < marks[i].specialize_on.size(); ++j) {
      InferOptions assumed = options;
      assumed.marks.entries()[i].active_predicate = j;
      auto run = std::make_shared<RunResult>(without_overflow(where, [&] { return run_once_with(assumed); }));
      check_constraints(*run);
      result.specialized.push_back(
          {marks[i].text, describe_predicate(marks[i].specialize_on[j], dim_source_of(marks[i].spec)), std::move(run)});
    }
  }
  return result;
}

}  // namespace

RunResult infer_file(const std::string& path, const InferOptions& options) {
  std::vector<std::string> external;
  RunResult result =
      infer_with_specializations(path, [&](const InferOptions& o) { return run_once(path, o, external); }, options);
  result.input_files = options.input_files;
  result.input_files.push_back({path, "the input model"});
  for (std::string& data : external) result.input_files.push_back({std::move(data), "the model's external data"});
  return result;
}

RunResult infer_fx_graph(const fx::Graph& graph, const InferOptions& options) {
  if (graph.nodes.size() > options.max_nodes)
    throw InputError(graph.path + ": more than " + std::to_string(options.max_nodes) + " nodes (the node-count limit)");
  RunResult result = infer_with_specializations(
      graph.path, [&](const InferOptions& o) { return fx::run_graph(graph, o); }, options);
  result.input_files = options.input_files;
  return result;
}

int exit_status(const RunResult& result, bool strict) {
  for (const auto& e : result.errors)
    if (e.kind == ErrorKind::ConstraintViolation) return 1;
  if (strict)
    for (const auto& e : result.errors)
      if (fails_strict(e.kind)) return 1;
  return 0;
}

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

}  // namespace

namespace {

// A JSON FX graph or a .pt2 program, as a JSON FX graph with meta.
void write_annotated_graph(const RunResult& result, const std::string& model_path, const std::string& out_path) {
  if (out_path.ends_with(".onnx") || out_path.ends_with(".pt2"))
    throw InputError(out_path + ": -o writes a JSON FX graph for this model; name the file .json");
  // Refused before the model is read again.
  OutputFile out(out_path, result.input_files);
  const std::string graph_text = result.model_kind == "pt2" ? fx::graph_json(fx::load_pt2_archive(model_path))
                                                            : read_input_file(model_path);
  const nlohmann::json report = nlohmann::json::parse(report_json(result, nlohmann::json::object(), true));
  out.write(annotate_fx_graph(graph_text, report, model_path) + "\n");
  out.commit();
}

}  // namespace

void write_annotated(const RunResult& result, const std::string& model_path, const std::string& out_path) {
  if (result.model_kind != "onnx") return write_annotated_graph(result, model_path, out_path);
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

}  // namespace fakeprop
