#include "fakeprop/report/sizing_report.h"

#include <cstdio>
#include <optional>
#include <unordered_map>

#include "fakeprop/sizing/memory.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

SymbolValues hints_of(const ShapeEnv& env) {
  return [&env](ExprRef s) { return env.hint(s); };
}

std::optional<int64_t> hint_of(ExprRef e, const ShapeEnv& env) {
  try {
    if (auto c = as_integer(e)) return *c;
    return env.hint(e);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string text_of(ExprRef e) { return to_python_string(e); }

// {"expr": "2*s0 + 4", "hint": 8}; hint null when an unbacked size has none.
void quantity(DocumentWriter& w, ExprRef e, const ShapeEnv& env) {
  w.begin_object().field("expr", text_of(e)).key("hint");
  if (auto h = hint_of(e, env)) w.value(*h);
  else w.null();
  w.end_object();
}

std::string scaled(double v, const char* const* units, int count, double step) {
  int u = 0;
  while (v >= step && u + 1 < count) {
    v /= step;
    ++u;
  }
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f %s", v, units[0]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace

std::string byte_text(int64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return scaled(static_cast<double>(bytes), units, 7, 1024.0);
}

std::string flop_text(int64_t flops) {
  static const char* const units[] = {"FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  return scaled(static_cast<double>(flops), units, 7, 1000.0);
}

void write_memory_section(const RunResult& r, DocumentWriter& w) {
  const ShapeEnv& env = *r.env;
  MemoryAnalysis a;
  try {
    a = analyze_memory(r);
  } catch (const Error& e) {  // sizes past 64 bits
    w.begin_object().field("error", std::string("not computed: ") + e.what()).end_object();
    return;
  }
  std::optional<MemoryAt> at_hints;
  try {
    at_hints = memory_at(a, hints_of(env));
  } catch (const Error&) {
    // an unbacked size without a hint: the figures stay expressions
  }
  w.begin_object();
  w.field("alloc_round", r.sizing.alloc_round);
  w.field("complete", a.unknown.empty());
  w.key("input_bytes");
  quantity(w, a.input_bytes, env);
  w.key("nodes").begin_array();
  for (size_t p = 0; p < a.order.size(); ++p) {
    w.begin_object().field("alloc", text_of(a.allocated[p])).key("live_hint");
    if (at_hints) w.value(at_hints->live[p]);
    else w.null();
    w.field("node", a.order[p]->name.view()).end_object();
  }
  w.end_array();
  w.key("output_bytes");
  quantity(w, a.output_bytes, env);
  w.key("parameter_bytes");
  quantity(w, a.parameter_bytes, env);
  w.key("peak").begin_object();
  w.key("candidates").begin_array();
  for (size_t p : a.peak_candidates) w.value(a.order[p]->name.view());
  w.end_array();
  w.field("expr", text_of(a.peak)).key("hint");
  if (at_hints) w.value(at_hints->peak);
  else w.null();
  w.key("live").begin_array();
  if (at_hints) {
    for (size_t i : at_hints->live_at_peak) {
      const StorageLife& s = a.storages[i];
      w.begin_object().field("bytes", text_of(s.bytes)).key("hint");
      if (auto h = hint_of(s.bytes, env)) w.value(*h);
      else w.null();
      w.field("kind", storage_kind_name(s.kind)).field("value", s.value).end_object();
    }
  }
  w.end_array();
  w.key("node");
  if (at_hints && !a.order.empty()) w.value(a.order[at_hints->peak_position]->name.view());
  else w.null();
  w.key("position");
  if (at_hints && !a.order.empty()) w.value(at_hints->peak_position);
  else w.null();
  w.end_object();
  w.key("unknown_nodes").value(a.unknown);
  w.end_object();
}

void write_compute_section(const RunResult& r, DocumentWriter& w) {
  const ShapeEnv& env = *r.env;
  ComputeAnalysis c;
  try {
    c = analyze_compute(r);
  } catch (const Error& e) {
    w.begin_object().field("error", std::string("not computed: ") + e.what()).end_object();
    return;
  }
  w.begin_object();
  w.key("bytes_read");
  quantity(w, c.bytes_read, env);
  w.key("bytes_written");
  quantity(w, c.bytes_written, env);
  w.key("flops");
  quantity(w, c.flops, env);
  w.key("nodes").begin_array();
  std::unordered_map<ExprRef, std::optional<int64_t>> hints;  // nodes share a handful of counts
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    const NodeRecord* n = c.nodes[i];
    w.begin_object();
    if (n->bytes_read) w.field("bytes_read", text_of(n->bytes_read));
    else w.null_field("bytes_read");
    w.field("bytes_written", text_of(c.written[i])).field("flops", text_of(n->flops)).key("flops_hint");
    auto [it, fresh] = hints.try_emplace(n->flops);
    if (fresh) it->second = hint_of(n->flops, env);
    if (it->second) w.value(*it->second);
    else w.null();
    w.field("node", n->name.view()).field("op", n->op.view()).end_object();
  }
  w.end_array();
  w.end_object();
}

void print_sizing_summary(const RunResult& r, std::ostream& out) {
  const ShapeEnv& env = *r.env;
  try {
    const MemoryAnalysis a = analyze_memory(r);
    std::optional<MemoryAt> m;
    try {
      m = memory_at(a, hints_of(env));
    } catch (const Error&) {
    }
    out << "memory: peak ";
    if (m) {
      out << byte_text(m->peak);
      if (!a.order.empty()) out << " at node " << a.order[m->peak_position]->name;
    } else {
      out << "unknown at the hints";
    }
    if (has_free_symbols(a.peak)) out << "; over every size " << text_of(a.peak) << " bytes";
    if (m)
      out << "; parameters " << byte_text(m->parameter_bytes) << ", inputs " << byte_text(m->input_bytes);
    if (!a.unknown.empty()) out << "; " << a.unknown.size() << " node(s) of unknown size not counted";
    out << "\n";
    const ComputeAnalysis c = analyze_compute(r);
    out << "compute: ";
    if (auto h = hint_of(c.flops, env)) out << flop_text(*h);
    else out << "unknown at the hints";
    if (has_free_symbols(c.flops)) out << "; over every size " << text_of(c.flops);
    out << " (" << c.nodes.size() << " node(s) with FLOPs)\n";
  } catch (const Error& e) {
    out << "memory: not computed: " << e.what() << "\n";
  }
}

}  // namespace fakeprop
