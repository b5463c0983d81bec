#include "fakeprop/report/report.h"
#include "fakeprop/report/valid_region.h"

#include <algorithm>
#include <set>

namespace fakeprop {

using nlohmann::json;

json dim_to_json(const SymInt& d, const ShapeEnv& env) {
  SymInt s = env.simplify(d);
  if (s.is_static()) return s.value();
  return s.to_python();
}

namespace {

json shape_json(const SymShape& dims, const ShapeEnv& env) {
  json a = json::array();
  for (const SymInt& d : dims) a.push_back(dim_to_json(d, env));
  return a;
}

json range_end(int64_t v) { return (v == kIntOo || v == kNegIntOo) ? json(nullptr) : json(v); }

}  // namespace

json value_to_json(const Value& v, const ShapeEnv& env) {
  switch (v.kind) {
    case Value::Kind::Tensor: {
      const TensorMeta& m = v.tensor->meta;
      return json{{"shape", shape_json(m.sizes, env)},
                  {"stride", shape_json(m.strides, env)},
                  {"storage_offset", dim_to_json(m.storage_offset, env)},
                  {"dtype", std::string(dtype_name(m.dtype))},
                  {"device", m.device.str()},
                  {"storage", m.storage},
                  {"requires_grad", m.requires_grad}};
    }
    case Value::Kind::Int:
      return json{{"sym", dim_to_json(v.i, env)}};
    case Value::Kind::Bool:
      return v.b.is_static() ? json{{"sym", v.b.value()}} : json{{"sym", v.b.to_python()}};
    case Value::Kind::Float:
      return json{{"sym", v.f}};
    case Value::Kind::List: {
      json a = json::array();
      for (const Value& x : *v.list) a.push_back(value_to_json(x, env));
      return a;
    }
    case Value::Kind::None:
    case Value::Kind::Opaque:
      return nullptr;
  }
  return nullptr;
}

std::string describe_value(const Value& v, const ShapeEnv& env) {
  switch (v.kind) {
    case Value::Kind::Tensor: {
      SymShape dims;
      for (const SymInt& d : v.tensor->meta.sizes) dims.push_back(env.simplify(d));
      return std::string(dtype_name(v.tensor->meta.dtype)) + shape_to_string(dims);
    }
    case Value::Kind::Int: return "int " + env.simplify(v.i).to_python();
    case Value::Kind::Bool: return "bool " + v.b.to_python();
    case Value::Kind::Float: return "float";
    case Value::Kind::List: {
      std::string s = "(";
      for (size_t i = 0; i < v.list->size(); ++i) s += (i ? ", " : "") + describe_value((*v.list)[i], env);
      return s + ")";
    }
    case Value::Kind::None: return "None";
    case Value::Kind::Opaque: return "<" + v.opaque + ">";
  }
  return "?";
}

json build_report(const RunResult& r) {
  const ShapeEnv& env = *r.env;
  json rep;
  rep["format"] = "fakeprop.report/1";
  rep["model"] = {{"path", r.model_path}, {"kind", r.model_kind}};
  rep["device"] = r.device.is_cpu() ? "cpu" : r.device.str();

  json inputs = json::array();
  for (const auto& in : r.inputs)
    inputs.push_back({{"name", in.name}, {"source", in.source}, {"val", value_to_json(in.val, env)}});
  rep["inputs"] = std::move(inputs);

  json outputs = json::array();
  for (const auto& o : r.outputs) outputs.push_back({{"name", o.name}, {"val", value_to_json(o.val, env)}});
  rep["outputs"] = std::move(outputs);

  json nodes = json::array();
  for (const auto& n : r.nodes) {
    json outs = json::array();
    for (const auto& o : n.outputs) outs.push_back({{"name", o.name}, {"val", value_to_json(o.val, env)}});
    json bindings = json::object();
    for (const auto& [sym, path] : n.unbacked_bindings) bindings[sym] = path;
    nodes.push_back({{"name", n.name}, {"op", n.op}, {"outputs", std::move(outs)}, {"unbacked_bindings", std::move(bindings)}});
  }
  rep["nodes"] = std::move(nodes);

  json symbols = json::array();
  for (const SymbolInfo* s : env.symbols()) {
    symbols.push_back({{"name", s->sym->name()},
                       {"kind", s->unbacked ? "unbacked" : "backed"},
                       {"hint", s->hint ? json(*s->hint) : json(nullptr)},
                       {"range", json::array({range_end(s->range.lo), range_end(s->range.hi)})},
                       {"sources", s->sources}});
    if (s->hint_override) symbols.back()["hint_override"] = *s->hint_override;
  }
  rep["symbols"] = std::move(symbols);

  json guards = json::array();
  for (const auto& g : env.produce_guards())
    guards.push_back({{"expr", g.expr},
                      {"sym_expr", g.sym_expr},
                      {"node", g.node.empty() ? json(nullptr) : json(g.node)},
                      {"rule", g.rule.empty() ? json(nullptr) : json(g.rule)}});
  rep["guards"] = std::move(guards);

  json asserts = json::array();
  for (const auto& a : env.runtime_asserts())
    asserts.push_back({{"expr", env.print_over_sources(a.expr)},
                       {"sym_expr", to_python_string(a.expr)},
                       {"node", a.node.empty() ? json(nullptr) : json(a.node)},
                       {"rule", a.rule.empty() ? json(nullptr) : json(a.rule)}});
  rep["runtime_asserts"] = std::move(asserts);

  json regions = json::array();
  for (const auto& v : valid_regions(r)) {
    json region = {{"source", v.source}, {"text", v.text}};
    if (v.value) region["value"] = *v.value;
    if (!v.equals.empty()) region["equals"] = v.equals;
    if (v.min) region["min"] = range_end(*v.min);
    if (v.max) region["max"] = range_end(*v.max);
    if (v.multiple_of > 1) region["multiple_of"] = v.multiple_of;
    if (!v.also.empty()) region["also"] = v.also;
    regions.push_back(std::move(region));
  }
  rep["valid_region"] = std::move(regions);

  json specs = json::array();
  for (const auto& s : r.input_specializations)
    specs.push_back({{"source", s.source}, {"value", s.value}, {"node", nullptr}, {"reason", s.reason}});
  for (const auto& s : env.specializations()) {
    specs.push_back({{"source", env.source_of(s.sym)},
                     {"value", s.value},
                     {"node", s.node.empty() ? json(nullptr) : json(s.node)},
                     {"reason", s.reason}});
  }
  rep["specializations"] = std::move(specs);

  json errors = json::array();
  for (const auto& e : r.errors) {
    errors.push_back({{"node", e.node.empty() ? json(nullptr) : json(e.node)}, {"kind", e.kind}, {"message", e.message}});
    if (!e.fixes.empty()) errors.back()["fixes"] = e.fixes;
  }
  rep["errors"] = std::move(errors);
  json warnings = json::array();
  for (const auto& e : r.warnings)
    warnings.push_back({{"node", e.node.empty() ? json(nullptr) : json(e.node)}, {"kind", e.kind}, {"message", e.message}});
  rep["warnings"] = std::move(warnings);

  json mutations = json::array();
  for (const auto& m : r.mutations)
    mutations.push_back({{"node", m.node}, {"op", m.op}, {"mutated", m.mutated}, {"stale_nodes", m.stale_nodes}});
  rep["mutations"] = std::move(mutations);
  json gradients = json::array();
  for (const auto& g : r.gradients) gradients.push_back({{"name", g.name}, {"grad", value_to_json(g.grad, env)}});
  rep["gradients"] = std::move(gradients);
  if (!r.specialized.empty()) {
    json runs = json::array();
    for (const auto& s : r.specialized) {
      json sub = build_report(*s.run);
      runs.push_back({{"mark", s.mark},
                      {"predicate", s.predicate},
                      {"outputs", sub["outputs"]},
                      {"guards", sub["guards"]},
                      {"runtime_asserts", sub["runtime_asserts"]},
                      {"specializations", sub["specializations"]},
                      {"errors", sub["errors"]}});
    }
    rep["specialize_on"] = std::move(runs);
  }
  return rep;
}

void print_summary(const RunResult& r, std::ostream& out) {
  const ShapeEnv& env = *r.env;
  out << r.model_path << " (" << r.model_kind << ", device " << (r.device.is_cpu() ? "cpu" : r.device.str()) << ")\n";
  out << "inputs:\n";
  for (const auto& in : r.inputs) out << "  " << in.name << ": " << describe_value(in.val, env) << "\n";
  if (!env.symbols().empty()) {
    out << "symbols:\n";
    for (const SymbolInfo* s : env.symbols()) {
      out << "  " << s->sym->name() << " = " << (s->sources.empty() ? std::string("(data-dependent)") : s->sources[0]);
      out << "  " << (s->unbacked ? "unbacked" : "backed");
      if (s->hint) out << ", hint " << *s->hint;
      out << ", range " << s->range.to_string();
      if (auto it = env.replacements().find(s->sym); it != env.replacements().end())
        out << ", replaced by " << to_python_string(env.simplify(s->sym));
      out << "\n";
    }
  }
  out << "outputs:\n";
  for (const auto& o : r.outputs) out << "  " << o.name << ": " << describe_value(o.val, env) << "\n";
  out << "nodes: " << r.nodes.size() << ", errors: " << r.errors.size() << ", warnings: " << r.warnings.size() << "\n";

  auto guards = env.produce_guards();
  out << "guards (" << guards.size() << "):\n";
  for (const auto& g : guards) {
    out << "  " << g.expr;
    if (!g.node.empty()) out << "    # node " << g.node << (g.rule.empty() ? "" : " (" + g.rule + ")");
    out << "\n";
  }
  if (!env.runtime_asserts().empty()) {
    out << "runtime asserts (" << env.runtime_asserts().size() << "):\n";
    for (const auto& a : env.runtime_asserts()) {
      out << "  " << env.print_over_sources(a.expr);
      if (!a.node.empty()) out << "    # node " << a.node << (a.rule.empty() ? "" : " (" + a.rule + ")");
      out << "\n";
    }
  }
  const auto regions = valid_regions(r);
  if (!regions.empty()) {
    out << "valid region:\n";
    for (const auto& v : regions) out << "  " << v.text << "\n";
  }
  const size_t nspec = r.input_specializations.size() + env.specializations().size();
  if (nspec) {
    out << "specializations (" << nspec << "):\n";
    for (const auto& s : r.input_specializations) out << "  " << s.source << " = " << s.value << "    # " << s.reason << "\n";
    for (const auto& s : env.specializations())
      out << "  " << env.source_of(s.sym) << " = " << s.value << "    # " << s.reason << "\n";
  }
  if (!r.errors.empty()) {
    out << "errors (" << r.errors.size() << "):\n";
    for (const auto& e : r.errors) {
      out << "  " << (e.node.empty() ? "" : "[" + e.node + "] ") << e.kind << ": " << e.message << "\n";
      if (!e.fixes.empty()) {
        out << "    candidate fixes:";
        for (size_t i = 0; i < e.fixes.size(); ++i) out << (i ? " or " : " ") << e.fixes[i];
        out << "\n";
      }
    }
  }
  if (!r.warnings.empty()) {
    out << "warnings (" << r.warnings.size() << "):\n";
    for (const auto& e : r.warnings)
      out << "  " << (e.node.empty() ? "" : "[" + e.node + "] ") << e.kind << ": " << e.message << "\n";
  }
  for (const auto& s : r.specialized) {
    out << "specialize_on " << s.predicate << "  (--mark " << s.mark << "):\n";
    for (const auto& o : s.run->outputs) out << "  " << o.name << ": " << describe_value(o.val, *s.run->env) << "\n";
    auto sg = s.run->env->produce_guards();
    out << "  guards (" << sg.size() << "):\n";
    for (const auto& g : sg) out << "    " << g.expr << "\n";
    for (const auto& e : s.run->errors) out << "  error: " << e.kind << ": " << e.message << "\n";
  }
}

}  // namespace fakeprop
