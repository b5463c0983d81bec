#include "fakeprop/report/report.h"

#include "fakeprop/report/sizing_report.h"
#include "fakeprop/report/valid_region.h"
#include "fakeprop/value/describe_value.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "fakeprop/util/json_writer.h"

namespace fakeprop {

namespace {

// Writes the report's parts. Dims are printed once per distinct expression:
// a graph's values share a handful of them.
class ReportWriter {
 public:
  ReportWriter(DocumentWriter& w, const ShapeEnv& env) : w_(w), env_(env) {}

  void dim(const SymInt& d) {
    if (d.is_static()) {
      w_.value(d.value());
      return;
    }
    auto [it, inserted] = dims_.try_emplace(d.expr());
    if (inserted) {
      const SymInt s = env_.simplify(d);
      it->second = s.is_static() ? Dim{true, s.value(), {}} : Dim{false, 0, s.to_python()};
    }
    if (it->second.is_static)
      w_.value(it->second.value);
    else
      w_.value(it->second.text);
  }

  void dims(const SymShape& ds) {
    w_.begin_array();
    for (const SymInt& d : ds) dim(d);
    w_.end_array();
  }

  void value(const Value& v) {
    switch (v.kind) {
      case Value::Kind::Tensor: {
        const TensorMeta& m = v.tensor->meta;
        w_.begin_object();
        w_.field("device", m.device.str());
        w_.field("dtype", dtype_name(m.dtype));
        w_.field("requires_grad", m.requires_grad);
        w_.key("shape");
        dims(m.sizes);
        w_.field("storage", m.storage);
        w_.key("storage_offset");
        dim(m.storage_offset);
        w_.key("stride");
        dims(m.strides);
        w_.end_object();
        return;
      }
      case Value::Kind::Int:
        w_.begin_object().key("sym");
        dim(v.i);
        w_.end_object();
        return;
      case Value::Kind::Bool:
        w_.begin_object().key("sym");
        if (v.b.is_static())
          w_.value(v.b.value());
        else
          w_.value(v.b.to_python());
        w_.end_object();
        return;
      case Value::Kind::Float:
        if (v.float_expr)
          w_.begin_object().field("sym", to_python_string(v.float_expr)).end_object();
        else
          w_.begin_object().field("sym", v.f).end_object();
        return;
      case Value::Kind::List:
        w_.begin_array();
        for (const Value& x : *v.list) value(x);
        w_.end_array();
        return;
      case Value::Kind::Map:
        w_.begin_object().key("entries");
        dim(v.map_entries());
        w_.field("key_type", dtype_name(v.map_key)).key("value");
        value(v.map_value());
        w_.end_object();
        return;
      case Value::Kind::Opaque:
        if (v.is_unranked()) {
          const TensorMeta& m = v.tensor->meta;
          w_.begin_object().field("device", m.device.str()).field("dtype", dtype_name(m.dtype)).null_field("shape");
          w_.end_object();
          return;
        }
        if (v.is_empty_optional()) {
          w_.begin_object().field("has_element", false);
          if (const std::string_view type = v.empty_optional_type(); !type.empty())
            w_.field("type", type);
          else
            w_.null_field("type");
          w_.end_object();
          return;
        }
        w_.null();
        return;
      case Value::Kind::None: w_.null(); return;
    }
    w_.null();
  }

  template <class NamedValues>  // a run's outputs (std::vector) or a record's (OutputList)
  void named_values(const NamedValues& xs) {
    w_.begin_array();
    for (const auto& o : xs) {
      w_.begin_object().field("name", o.name.view()).key("val");
      value(o.val);
      w_.end_object();
    }
    w_.end_array();
  }

  void optional_text(std::string_view k, const std::string& s) {
    if (s.empty())
      w_.null_field(k);
    else
      w_.field(k, s);
  }

  void range_end(std::string_view k, int64_t v) {
    if (v == kIntOo || v == kNegIntOo)
      w_.null_field(k);
    else
      w_.field(k, v);
  }

  void records(const std::vector<ErrorRecord>& xs) {
    w_.begin_array();
    for (const auto& e : xs) {
      w_.begin_object();
      if (!e.fixes.empty()) w_.field("fixes", e.fixes);
      w_.field("kind", error_kind_name(e.kind)).field("message", e.message);
      optional_text("node", e.node);
      w_.end_object();
    }
    w_.end_array();
  }

  void guards() {
    w_.begin_array();
    for (const auto& g : env_.produce_guards()) {
      w_.begin_object().field("expr", g.expr);
      optional_text("node", g.node);
      optional_text("rule", g.rule);
      w_.field("sym_expr", g.sym_expr).end_object();
    }
    w_.end_array();
  }

  void runtime_asserts() {
    w_.begin_array();
    for (const auto& a : env_.runtime_asserts()) {
      w_.begin_object().field("expr", env_.print_over_sources(a.expr));
      optional_text("node", a.node);
      optional_text("rule", a.rule);
      w_.field("sym_expr", to_python_string(a.expr)).end_object();
    }
    w_.end_array();
  }

  void specializations(const RunResult& r) {
    w_.begin_array();
    for (const auto& s : r.input_specializations)
      w_.begin_object().null_field("node").field("reason", s.reason).field("source", s.source).field("value", s.value).end_object();
    for (const auto& s : env_.specializations()) {
      w_.begin_object();
      optional_text("node", s.node);
      w_.field("reason", s.reason).field("source", env_.source_of(s.sym)).field("value", s.value).end_object();
    }
    w_.end_array();
  }

  void nodes(const ChunkedVector<NodeRecord>& ns) {
    w_.begin_array();
    for (const auto& n : ns) {
      w_.begin_object().field("name", n.name.view()).field("op", n.op.view()).key("outputs");
      named_values(n.outputs);
      w_.key("unbacked_bindings").begin_object();
      if (!n.unbacked_bindings.empty()) {
        std::map<std::string_view, std::string_view> sorted;  // later bindings of a symbol win
        for (const auto& [sym, path] : n.unbacked_bindings) sorted[sym] = path;
        for (const auto& [sym, path] : sorted) w_.field(sym, path);
      }
      w_.end_object().end_object();
    }
    w_.end_array();
  }

  void symbols() {
    w_.begin_array();
    for (const SymbolInfo* s : env_.symbols()) {
      w_.begin_object();
      if (s->hint)
        w_.field("hint", *s->hint);
      else if (s->float_hint)
        w_.key("hint").value(*s->float_hint);
      else
        w_.null_field("hint");
      if (s->hint_override) w_.field("hint_override", *s->hint_override);
      w_.field("kind", s->unbacked ? "unbacked" : "backed").field("name", s->sym->name());
      w_.key("range").begin_array();
      for (int64_t end : {s->range.lo, s->range.hi}) {
        if (end == kIntOo || end == kNegIntOo)
          w_.null();
        else
          w_.value(end);
      }
      w_.end_array().field("sources", s->sources);
      if (s->is_float) w_.field("type", "float");
      w_.end_object();
    }
    w_.end_array();
  }

  void valid_region(const RunResult& r) {
    w_.begin_array();
    for (const auto& v : valid_regions(r)) {
      w_.begin_object();
      if (!v.also.empty()) w_.field("also", v.also);
      if (!v.equals.empty()) w_.field("equals", v.equals);
      if (v.max) range_end("max", *v.max);
      if (v.min) range_end("min", *v.min);
      if (v.multiple_of > 1) w_.field("multiple_of", v.multiple_of);
      w_.field("source", v.source).field("text", v.text);
      if (v.value) w_.field("value", *v.value);
      w_.end_object();
    }
    w_.end_array();
  }

  void mutations(const std::vector<MutationRecord>& ms) {
    w_.begin_array();
    for (const auto& m : ms)
      w_.begin_object()
          .field("mutated", m.mutated)
          .field("node", m.node)
          .field("op", m.op)
          .field("stale_nodes", m.stale_nodes)
          .end_object();
    w_.end_array();
  }

  void gradients(const std::vector<GradientRecord>& gs) {
    w_.begin_array();
    for (const auto& g : gs) {
      w_.begin_object().key("grad");
      value(g.grad);
      w_.field("name", g.name).end_object();
    }
    w_.end_array();
  }

 private:
  struct Dim {
    bool is_static;
    int64_t value;
    std::string text;
  };
  DocumentWriter& w_;
  const ShapeEnv& env_;
  std::unordered_map<ExprRef, Dim> dims_;
};

// A JSON object whose members are written in key order, as nlohmann's
// std::map-backed objects print them, whatever order they were added in.
class SortedMembers {
 public:
  void add(std::string key, std::function<void()> write) { members_.emplace_back(std::move(key), std::move(write)); }
  void write(DocumentWriter& w) {
    std::stable_sort(members_.begin(), members_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    w.begin_object();
    for (auto& [key, write_value] : members_) {
      w.key(key);
      write_value();
    }
    w.end_object();
  }

 private:
  std::vector<std::pair<std::string, std::function<void()>>> members_;
};

}  // namespace

void write_report(const RunResult& r, const nlohmann::json& extra, DocumentWriter& w) {
  ReportWriter rw(w, *r.env);
  SortedMembers top;
  top.add("format", [&] { w.value("fakeprop.report/1"); });
  top.add("model", [&] { w.begin_object().field("kind", r.model_kind).field("path", r.model_path).end_object(); });
  top.add("device", [&] { w.value(r.device.is_cpu() ? std::string("cpu") : r.device.str()); });
  top.add("inputs", [&] {
    w.begin_array();
    for (const auto& in : r.inputs) {
      w.begin_object().field("name", in.name).field("source", in.source).key("val");
      rw.value(in.val);
      w.end_object();
    }
    w.end_array();
  });
  top.add("outputs", [&] { rw.named_values(r.outputs); });
  top.add("nodes", [&] { rw.nodes(r.nodes); });
  top.add("symbols", [&] { rw.symbols(); });
  top.add("guards", [&] { rw.guards(); });
  top.add("runtime_asserts", [&] { rw.runtime_asserts(); });
  top.add("valid_region", [&] { rw.valid_region(r); });
  top.add("specializations", [&] { rw.specializations(r); });
  top.add("errors", [&] { rw.records(r.errors); });
  top.add("warnings", [&] { rw.records(r.warnings); });
  top.add("mutations", [&] { rw.mutations(r.mutations); });
  top.add("memory", [&] { write_memory_section(r, w); });
  top.add("compute", [&] { write_compute_section(r, w); });
  top.add("gradients", [&] { rw.gradients(r.gradients); });
  if (r.real_values_given) {
    top.add("real_values", [&] {
      w.begin_object();
      for (const auto& [name, value] : r.env->real_values()) w.field(name, value);
      w.end_object();
    });
    top.add("real_value_decisions", [&] {
      w.begin_array();
      for (const auto& d : r.env->real_value_decisions()) {
        w.begin_object().field("expr", r.env->print_over_sources(d.expr));
        rw.optional_text("node", d.node);
        if (d.is_int)
          w.field("result", d.result);
        else
          w.field("result", d.result != 0);
        w.field("sym_expr", to_python_string(d.expr)).end_object();
      }
      w.end_array();
    });
  }
  if (r.op_rules_given) {
    top.add("op_rules", [&] {
      w.begin_array();
      for (const OpRuleUse& u : r.op_rule_uses)
        w.begin_object().field("node", u.node).field("op", u.op).field("rule", u.rule).end_object();
      w.end_array();
    });
  }
  if (!r.specialized.empty()) {
    top.add("specialize_on", [&] {
      w.begin_array();
      for (const auto& s : r.specialized) {
        const RunResult& sub = *s.run;
        ReportWriter sw(w, *sub.env);
        w.begin_object().key("errors");
        sw.records(sub.errors);
        w.key("guards");
        sw.guards();
        w.field("mark", s.mark).key("outputs");
        sw.named_values(sub.outputs);
        w.field("predicate", s.predicate).key("runtime_asserts");
        sw.runtime_asserts();
        w.key("specializations");
        sw.specializations(sub);
        w.end_object();
      }
      w.end_array();
    });
  }
  if (extra.is_object())
    for (auto it = extra.begin(); it != extra.end(); ++it) {
      const nlohmann::json* member = &it.value();
      top.add(it.key(), [&w, member] { w.value(*member); });
    }
  top.write(w);
}

std::string report_json(const RunResult& r, const nlohmann::json& extra, bool compact) {
  std::string out;
  out.reserve(4096 + r.nodes.size() * 512);  // about what a node with one tensor output takes
  JsonWriter w(out);
  if (compact) w.compact();
  write_report(r, extra, w);
  return out;
}

void stream_report_json(const RunResult& r, const nlohmann::json& extra, const TextSink& sink, size_t chunk) {
  std::string buffer;
  buffer.reserve(chunk + 4096);
  JsonWriter w(buffer, sink, chunk);
  write_report(r, extra, w);
  buffer.push_back('\n');
  w.finish();
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
      if (s->hint || s->float_hint) out << ", hint " << hint_text(*s);
      out << ", range " << range_text(*s);
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
  if (r.real_values_given && !env.real_values().empty()) {
    out << "real values (" << env.real_values().size() << "):";
    for (const auto& [name, value] : env.real_values()) out << " " << name << "=" << value;
    out << "\n";
  }
  if (!env.real_value_decisions().empty()) {
    out << "decided by real values (" << env.real_value_decisions().size() << ", hold only for this data):\n";
    for (const auto& d : env.real_value_decisions())
      out << "  " << env.print_over_sources(d.expr) << " -> "
          << (d.is_int ? std::to_string(d.result) : std::string(d.result ? "True" : "False"))
          << (d.node.empty() ? "" : "    # node " + d.node) << "\n";
  }
  if (!r.op_rule_uses.empty()) {
    out << "op rules (" << r.op_rule_uses.size() << " nodes):\n";
    for (const auto& u : r.op_rule_uses) out << "  " << u.node << ": " << u.op << "    # " << u.rule << "\n";
  }
  if (!r.errors.empty()) {
    out << "errors (" << r.errors.size() << "):\n";
    for (const auto& e : r.errors) {
      out << "  " << (e.node.empty() ? "" : "[" + e.node + "] ") << error_kind_name(e.kind) << ": " << e.message
          << "\n";
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
      out << "  " << (e.node.empty() ? "" : "[" + e.node + "] ") << error_kind_name(e.kind) << ": " << e.message
          << "\n";
  }
  print_sizing_summary(r, out);
  for (const auto& s : r.specialized) {
    out << "specialize_on " << s.predicate << "  (--mark " << s.mark << "):\n";
    for (const auto& o : s.run->outputs) out << "  " << o.name << ": " << describe_value(o.val, *s.run->env) << "\n";
    auto sg = s.run->env->produce_guards();
    out << "  guards (" << sg.size() << "):\n";
    for (const auto& g : sg) out << "    " << g.expr << "\n";
    for (const auto& e : s.run->errors) out << "  error: " << error_kind_name(e.kind) << ": " << e.message << "\n";
  }
}

}  // namespace fakeprop
