#include "fakeprop/report/baseline.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "fakeprop/report/report.h"
#include "fakeprop/sizing/memory.h"
#include "fakeprop/util/enum_table.h"

namespace fakeprop {

using nlohmann::json;

namespace {

using C = ChangeKind;
constexpr std::array kChangeKinds = {
    ChangeKindInfo{C::OutputRemoved, "output_removed"},
    ChangeKindInfo{C::OutputAdded, "output_added"},
    ChangeKindInfo{C::OutputDtype, "output_dtype"},
    ChangeKindInfo{C::OutputShape, "output_shape"},
    ChangeKindInfo{C::NodeDtype, "node_dtype"},
    ChangeKindInfo{C::NodeShape, "node_shape"},
    ChangeKindInfo{C::NewGuard, "new_guard"},
    ChangeKindInfo{C::RemovedGuard, "removed_guard"},
    ChangeKindInfo{C::NewSpecialization, "new_specialization"},
    ChangeKindInfo{C::RemovedSpecialization, "removed_specialization"},
    ChangeKindInfo{C::NewError, "new_error"},
    ChangeKindInfo{C::FixedError, "fixed_error"},
    ChangeKindInfo{C::PrecisionLost, "precision_lost"},
    ChangeKindInfo{C::PrecisionRegained, "precision_regained"},
    ChangeKindInfo{C::SpecializedInput, "specialized_input"},
    ChangeKindInfo{C::NarrowerRange, "narrower_range"},
    ChangeKindInfo{C::WiderRange, "wider_range"},
    ChangeKindInfo{C::NewUnbacked, "new_unbacked"},
    ChangeKindInfo{C::OpRulesChanged, "op_rules_changed"},
    ChangeKindInfo{C::NewRuntimeAssert, "new_runtime_assert"},
    ChangeKindInfo{C::RemovedRuntimeAssert, "removed_runtime_assert"},
    ChangeKindInfo{C::OptionsChanged, "options_changed"},
    ChangeKindInfo{C::PeakMemoryGrew, "peak_memory_grew"},
    ChangeKindInfo{C::PeakMemoryShrank, "peak_memory_shrank"},
    ChangeKindInfo{C::PeakMemoryChanged, "peak_memory_changed"},
    ChangeKindInfo{C::FlopsChanged, "flops_changed"},
};
static_assert(indexed_by_enum(kChangeKinds, [](const ChangeKindInfo& e) { return e.kind; }, C::FlopsChanged),
              "kChangeKinds is indexed by ChangeKind and lists every kind");

// Dims printed over sources: L['x'].size()[0] instead of s0 (names are not stable across edits).
std::string dim_text(const SymInt& d, const ShapeEnv& env) {
  SymInt s = env.simplify(d);
  if (s.is_static()) return std::to_string(s.value());
  return env.print_over_sources(s.expr());
}

json value_summary(const Value& v, const ShapeEnv& env) {
  if (v.is_tensor()) {
    json shape = json::array();
    for (const SymInt& d : v.tensor->meta.sizes) shape.push_back(dim_text(d, env));
    return {{"dtype", std::string(dtype_name(v.tensor->meta.dtype))}, {"shape", shape}};
  }
  if (v.kind == Value::Kind::Int) return {{"sym", dim_text(v.i, env)}};
  if (v.kind == Value::Kind::List) {
    json a = json::array();
    for (const Value& x : *v.list) a.push_back(value_summary(x, env));
    return a;
  }
  if (v.is_map())
    return {{"entries", dim_text(v.map_entries(), env)},
            {"key_type", std::string(dtype_name(v.map_key))},
            {"value", value_summary(v.map_value(), env)}};
  if (v.is_empty_optional()) return {{"empty_optional", std::string(v.empty_optional_type())}};
  if (v.kind == Value::Kind::Opaque) return {{"unknown", v.opaque_text()}};
  return nullptr;
}

std::string range_text(const ValueRange& r) {
  auto end = [](int64_t v) {
    return v == kIntOo ? std::string("int_oo") : v == kNegIntOo ? std::string("-int_oo") : std::to_string(v);
  };
  return "[" + end(r.lo) + ", " + end(r.hi) + "]";
}

bool mentions_unbacked(const json& v) {
  // Sources of unbacked symbols print as their names (u0, ...): an unknown size.
  const std::string s = v.dump();
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] == 'u' && std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
        (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]))))
      return true;
  return v.contains("unknown");
}

std::set<std::string> as_set(const json& a) {
  std::set<std::string> s;
  if (a.is_array())
    for (const auto& x : a) s.insert(x.is_string() ? x.get<std::string>() : x.dump());
  return s;
}

}  // namespace

json make_baseline(const RunResult& r, bool with_nodes) {
  const ShapeEnv& env = *r.env;
  json b;
  b["format"] = "fakeprop.baseline/1";
  json outputs = json::object();
  for (const auto& o : r.outputs) outputs[o.name.str()] = value_summary(o.val, env);
  b["outputs"] = std::move(outputs);

  std::set<std::string> guards;
  for (const auto& g : env.produce_guards()) guards.insert(g.expr);
  b["guards"] = guards;

  std::set<std::string> asserts;
  for (const auto& a : env.runtime_asserts()) asserts.insert(env.print_over_sources(a.expr));
  b["runtime_asserts"] = asserts;

  std::set<std::string> specs;
  for (const auto& s : r.input_specializations) specs.insert(s.source + " == " + std::to_string(s.value));
  for (const auto& s : env.specializations()) specs.insert(env.source_of(s.sym) + " == " + std::to_string(s.value));
  b["specializations"] = specs;

  // Valid range of each input size symbol, by source.
  json ranges = json::object();
  for (const SymbolInfo* s : env.symbols())
    for (const auto& src : s->sources) ranges[src] = range_text(s->range);
  b["ranges"] = std::move(ranges);

  size_t unbacked = 0;
  for (const SymbolInfo* s : env.symbols()) unbacked += s->unbacked && s->sources.empty();
  b["unbacked_symbols"] = unbacked;

  std::set<std::string> errors;
  for (const auto& e : r.errors)
    errors.insert((e.node.empty() ? "" : e.node + ": ") + std::string(error_kind_name(e.kind)));
  b["errors"] = errors;
  std::set<std::string> lost;
  for (const auto& w : r.warnings)
    if (w.kind == ErrorKind::PrecisionLost) lost.insert(w.node);
  b["precision_lost"] = lost;

  if (r.op_rules_given) {
    std::set<std::string> nodes;
    for (const OpRuleUse& u : r.op_rule_uses) nodes.insert(u.node);
    b["op_rules"] = {{"digest", r.op_rules_digest}, {"nodes", nodes}};
  }

  // Peak memory and FLOPs over sources (symbol names are not stable across edits), with their values at the hints.
  try {
    const MemoryAnalysis memory = analyze_memory(r);
    const ComputeAnalysis compute = analyze_compute(r);
    auto hint = [&](ExprRef e) { return env.hint(e) ? json(*env.hint(e)) : json(); };
    b["memory"] = {{"peak", env.print_over_sources(memory.peak)},
                   {"peak_hint", hint(memory.peak)},
                   {"flops", env.print_over_sources(compute.flops)},
                   {"flops_hint", hint(compute.flops)}};
  } catch (const Error&) {  // sizes past 64 bits: the baseline has no memory member
  }

  if (with_nodes) {
    json nodes = json::object();
    for (const auto& n : r.nodes) {
      json outs = json::object();
      for (const auto& o : n.outputs) outs[o.name.str()] = value_summary(o.val, env);
      nodes[n.name.str()] = std::move(outs);
    }
    b["nodes"] = std::move(nodes);
  }
  return b;
}

namespace {

// Compare two "[lo, hi]" texts: narrower means a valid input is now rejected.
std::pair<int64_t, int64_t> parse_range(const std::string& s) {
  auto parse_end = [](std::string t, bool lo) -> int64_t {
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    if (t == "int_oo") return kIntOo;
    if (t == "-int_oo") return kNegIntOo;
    try {
      return std::stoll(t);
    } catch (...) {
      return lo ? kNegIntOo : kIntOo;
    }
  };
  const size_t comma = s.find(',');
  if (s.size() < 2 || comma == std::string::npos) return {kNegIntOo, kIntOo};
  return {parse_end(s.substr(1, comma - 1), true), parse_end(s.substr(comma + 1, s.size() - comma - 2), false)};
}

void diff_sets(const json& before, const json& after, const std::string& field, ChangeKind added_kind,
               ChangeKind removed_kind, bool added_regresses, std::vector<BaselineChange>& out) {
  const auto a = as_set(before.value(field, json::array()));
  const auto b = as_set(after.value(field, json::array()));
  for (const auto& x : b)
    if (!a.count(x)) out.push_back({added_regresses, added_kind, x});
  for (const auto& x : a)
    if (!b.count(x)) out.push_back({!added_regresses, removed_kind, x});
}

void diff_values(const std::string& where, const json& before, const json& after, ChangeKind dtype_kind,
                 ChangeKind shape_kind, std::vector<BaselineChange>& out) {
  if (before == after) return;
  if (before.is_object() && after.is_object() && before.contains("dtype") && after.contains("dtype") &&
      before["dtype"] != after["dtype"])
    out.push_back({true, dtype_kind,
                   where + ": dtype " + before["dtype"].get<std::string>() + " -> " + after["dtype"].get<std::string>()});
  const json bs = before.is_object() ? before.value("shape", json()) : json();
  const json as = after.is_object() ? after.value("shape", json()) : json();
  if (bs != as || !before.is_object() || !after.is_object()) {
    const bool lost = mentions_unbacked(after) && !mentions_unbacked(before);
    out.push_back({true, lost ? C::PrecisionLost : shape_kind,
                   where + ": " + (bs.is_null() ? before.dump() : bs.dump()) + " -> " +
                       (as.is_null() ? after.dump() : as.dump())});
  }
}

}  // namespace

std::span<const ChangeKindInfo> change_kinds() { return kChangeKinds; }
std::string_view change_kind_name(ChangeKind k) { return kChangeKinds[static_cast<size_t>(k)].name; }

std::vector<BaselineChange> compare_baselines(const json& before, const json& after) {
  std::vector<BaselineChange> out;
  const json brules = before.value("op_rules", json::object()), arules = after.value("op_rules", json::object());
  const bool rules_changed = brules.value("digest", "") != arules.value("digest", "");
  const json bo = before.value("outputs", json::object()), ao = after.value("outputs", json::object());
  for (const auto& [name, v] : bo.items()) {
    if (!ao.contains(name))
      out.push_back({true, C::OutputRemoved, "output '" + name + "' is gone"});
    else
      diff_values("output '" + name + "'", v, ao[name], C::OutputDtype, C::OutputShape, out);
  }
  for (const auto& [name, v] : ao.items())
    if (!bo.contains(name)) out.push_back({false, C::OutputAdded, "output '" + name + "': " + v.dump()});

  diff_sets(before, after, "guards", C::NewGuard, C::RemovedGuard, true, out);
  diff_sets(before, after, "specializations", C::NewSpecialization, C::RemovedSpecialization, true, out);
  diff_sets(before, after, "runtime_asserts", C::NewRuntimeAssert, C::RemovedRuntimeAssert, true, out);
  diff_sets(before, after, "errors", C::NewError, C::FixedError, true, out);
  diff_sets(before, after, "precision_lost", C::PrecisionLost, C::PrecisionRegained, true, out);

  const json br = before.value("ranges", json::object()), ar = after.value("ranges", json::object());
  for (const auto& [src, r] : br.items()) {
    if (!ar.contains(src)) {
      out.push_back({true, C::SpecializedInput, src + " was " + r.get<std::string>() + ", now static"});
      continue;
    }
    auto [blo, bhi] = parse_range(r.get<std::string>());
    auto [alo, ahi] = parse_range(ar[src].get<std::string>());
    if (alo > blo || ahi < bhi)
      out.push_back({true, C::NarrowerRange, src + ": " + r.get<std::string>() + " -> " + ar[src].get<std::string>()});
    else if (alo < blo || ahi > bhi)
      out.push_back({false, C::WiderRange, src + ": " + r.get<std::string>() + " -> " + ar[src].get<std::string>()});
  }
  const int64_t bu = before.value("unbacked_symbols", 0), au = after.value("unbacked_symbols", 0);
  if (au > bu)
    out.push_back({true, C::NewUnbacked, std::to_string(bu) + " -> " + std::to_string(au) + " data-dependent sizes"});

  if (before.contains("memory") && after.contains("memory")) {
    const json &bm = before["memory"], &am = after["memory"];
    if (bm.value("peak", "") != am.value("peak", "") || bm["peak_hint"] != am["peak_hint"]) {
      const bool known = bm["peak_hint"].is_number() && am["peak_hint"].is_number();
      const int64_t b = known ? bm["peak_hint"].get<int64_t>() : 0, a = known ? am["peak_hint"].get<int64_t>() : 0;
      const ChangeKind kind = !known || a == b ? C::PeakMemoryChanged : a > b ? C::PeakMemoryGrew : C::PeakMemoryShrank;
      out.push_back({false, kind,
                     "peak memory " + bm["peak_hint"].dump() + " -> " + am["peak_hint"].dump() + " bytes at the hints (" +
                         bm.value("peak", "") + " -> " + am.value("peak", "") + ")"});
    }
    if (bm.value("flops", "") != am.value("flops", ""))
      out.push_back({false, C::FlopsChanged,
                     "FLOPs " + bm.value("flops", "") + " -> " + am.value("flops", "") + " (" + bm["flops_hint"].dump() +
                         " -> " + am["flops_hint"].dump() + " at the hints)"});
  }

  if (before.contains("nodes") && after.contains("nodes")) {
    const json& bn = before["nodes"];
    const json& an = after["nodes"];
    for (const auto& [node, outs] : bn.items()) {
      if (!an.contains(node)) continue;  // structural edits are not shape regressions by themselves
      for (const auto& [name, v] : outs.items())
        if (an[node].contains(name))
          diff_values("node '" + node + "' value '" + name + "'", v, an[node][name], C::NodeDtype, C::NodeShape, out);
    }
  }
  // Under other op rules the model's shapes are not comparable: every change
  // is listed, none counts as a regression of the model.
  // A baseline without "options" predates them: its options are not known to differ.
  const bool options_changed = before.contains("options") && after.contains("options") &&
                               before["options"] != after["options"];
  if (options_changed) {
    for (BaselineChange& c : out) c.regression = false;
    out.insert(out.begin(), {false, C::OptionsChanged,
                             "options " + before["options"].dump() + " -> " + after["options"].dump() +
                                 ": the baseline was made with other options; the changes below are not counted "
                                 "as regressions; review them and --update"});
  }
  if (rules_changed) {
    for (BaselineChange& c : out) c.regression = false;
    const std::string b = brules.value("digest", ""), a = arules.value("digest", "");
    out.insert(out.begin(), {false, C::OpRulesChanged,
                             (b.empty() ? "op rules given now" : a.empty() ? "op rules no longer given" : "op rules changed") +
                                 std::string(" (") + (b.empty() ? "-" : b) + " -> " + (a.empty() ? "-" : a) +
                                 "): the changes below are not counted as regressions; review them and --update"});
  }
  return out;
}

}  // namespace fakeprop
