#include "fakeprop/driver/plan.h"

#include <algorithm>
#include <sstream>

#include "fakeprop/driver/infer.h"
#include "fakeprop/options/source_spec.h"
#include "fakeprop/report/sizing_report.h"
#include "fakeprop/sizing/plan.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

std::string symbols_listed(const ShapeEnv& env) {
  std::string out;
  for (const SymbolInfo* s : env.symbols()) {
    if (s->is_float) continue;
    out += (out.empty() ? "" : ", ") + s->sym->name();
    if (!s->sources.empty()) out += " = " + s->sources[0];
  }
  return out.empty() ? "none" : out;
}

// A symbol by its name, a source (L['x'].size()[0]) or a dim spec (x:0).
ExprRef resolve_symbol(const ShapeEnv& env, const std::string& name, const std::string& model) {
  std::vector<std::string> spellings{name, SourceSpecs::normalize_source(name)};
  if (const size_t colon = name.rfind(':'); colon != std::string::npos && colon + 1 < name.size() &&
                                            name.find_first_not_of("0123456789", colon + 1) == std::string::npos)
    spellings.push_back(SourceSpecs::size_source(SourceSpecs::normalize_source(name.substr(0, colon)),
                                                 std::stoll(name.substr(colon + 1))));
  for (const SymbolInfo* s : env.symbols()) {
    if (s->is_float) continue;
    bool match = false;
    for (const std::string& spelled : spellings)
      match |= s->sym->name() == spelled || std::find(s->sources.begin(), s->sources.end(), spelled) != s->sources.end();
    if (!match) continue;
    const ExprRef now = env.simplify(s->sym);
    if (now->is_symbol()) return now;
    throw InputError(model + ": " + name + " is not free: the run fixed it to " + to_python_string(now) +
                     " (see its guards and specializations)");
  }
  throw InputError(model + ": no symbol '" + name + "'; its symbols: " + symbols_listed(env));
}

int64_t parse_int(const std::string& text, const std::string& what) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw InputError(what + ": expected NAME=INT");
  return v;
}

std::vector<std::pair<ExprRef, int64_t>> parse_values(const std::string& text, const ShapeEnv& env,
                                                      const std::string& model, const std::string& option) {
  std::vector<std::pair<ExprRef, int64_t>> out;
  std::stringstream ss(text);
  std::string item;
  // Split on commas outside brackets: a source L['x'].size()[0] has none, but be safe.
  while (std::getline(ss, item, ',')) {
    const size_t eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(option + " " + text + ": expected NAME=INT[,NAME=INT...]");
    out.emplace_back(resolve_symbol(env, item.substr(0, eq), model),
                     parse_int(item.substr(eq + 1), option + " " + text));
  }
  return out;
}

nlohmann::json live_list(const MemoryAnalysis& a, const MemoryAt& m, const SymbolValues& values, size_t most) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < m.live_at_peak.size() && i < most; ++i) {
    const StorageLife& s = a.storages[m.live_at_peak[i]];
    out.push_back({{"value", std::string(s.value)}, {"kind", storage_kind_name(s.kind)}, {"bytes", value_at(s.bytes, values)}});
  }
  return out;
}

nlohmann::json point_json(const Planner& planner, const SymbolValues& values) {
  const Planner::Point p = planner.at(values);
  const MemoryAnalysis& a = planner.memory();
  nlohmann::json j{{"peak_bytes", p.peak},
                   {"peak_node", a.order.empty() ? nlohmann::json() : nlohmann::json(a.order[p.memory.peak_position]->name.str())},
                   {"flops", p.flops ? nlohmann::json(*p.flops) : nlohmann::json()},
                   {"parameter_bytes", p.memory.parameter_bytes},
                   {"input_bytes", p.memory.input_bytes},
                   {"admissible", !p.violation},
                   {"violation", p.violation ? nlohmann::json(*p.violation) : nlohmann::json()},
                   {"live", live_list(a, p.memory, values, 8)}};
  return j;
}

}  // namespace

PlanOutcome run_plan(const PlanRequest& request) {
  return plan_run(std::make_unique<RunResult>(infer_file(request.model, request.options)), request);
}

PlanOutcome plan_run(std::unique_ptr<RunResult> result, const PlanRequest& request) {
  PlanOutcome out;
  const RunResult& r = *result;
  const ShapeEnv& env = *r.env;
  const std::string& model = request.model;
  std::optional<int64_t> budget;
  if (!request.budget.empty()) {
    budget = parse_byte_count(request.budget);
    if (!budget)
      throw InputError("--budget " + request.budget + ": expected a byte count such as 80GiB, 512MB or 1073741824");
  }
  if (request.solve.size() > 2) throw InputError("--solve: at most two symbols (batch,seq)");
  if (!request.solve.empty() && !budget) throw InputError("--solve needs --budget");

  const MemoryAnalysis memory = analyze_memory(r);
  const ComputeAnalysis compute = analyze_compute(r);
  Planner planner(r, memory, compute);
  for (const std::string& s : request.set)
    for (const auto& [sym, v] : parse_values(s, env, model, "--set")) planner.set(sym, v);
  std::vector<ExprRef> solve;
  for (const std::string& s : request.solve) solve.push_back(resolve_symbol(env, s, model));
  if (solve.size() == 2 && solve[0] == solve[1]) throw InputError("--solve: the two symbols are the same");

  const bool asks = budget || !request.at.empty();
  if (asks && !memory.unknown.empty())
    throw InputError(model + ": the peak needs the sizes of " + std::to_string(memory.unknown.size()) +
                     " node(s) fakeprop could not compute (first: " + memory.unknown.front() +
                     "); `fakeprop " + model + "` lists their errors");
  if (asks) {
    // An unbacked size with no value: the peak is an expression over it, never a guess.
    const SymbolValues base = planner.values_with();
    for (ExprRef s : free_symbols(memory.peak)) {
      if (std::find(solve.begin(), solve.end(), s) != solve.end() || base(s)) continue;
      const SymbolInfo* info = nullptr;
      for (const SymbolInfo* i : env.symbols())
        if (i->sym == s) info = i;
      const bool input = info && !info->sources.empty();
      throw InputError(model + ": peak memory depends on " +
                       (input ? "the input size " + s->name() + " (" + info->sources[0] + "), which has no example value"
                              : "the data-dependent size " + s->name()) +
                       (info ? " (range " + range_text(*info) + ")" : std::string()) + ": peak = " +
                       to_python_string(memory.peak) + " bytes; give it a value with --set " + s->name() + "=N" +
                       (input ? " or --input" : ""));
    }
  }

  nlohmann::json& j = out.report;
  j["format"] = "fakeprop.plan/1";
  j["model"] = model;
  j["alloc_round"] = r.sizing.alloc_round;
  j["budget"] = budget ? nlohmann::json(*budget) : nlohmann::json();
  j["peak_bytes"] = to_python_string(memory.peak);
  j["parameter_bytes"] = to_python_string(memory.parameter_bytes);
  j["flops"] = to_python_string(compute.flops);
  nlohmann::json symbols = nlohmann::json::array();
  const SymbolValues values = planner.values_with();
  for (const SymbolInfo* s : env.symbols()) {
    if (s->is_float || !env.simplify(s->sym)->is_symbol() || env.simplify(s->sym) != s->sym) continue;
    const auto v = values(s->sym);
    symbols.push_back({{"name", s->sym->name()},
                       {"source", s->sources.empty() ? nlohmann::json() : nlohmann::json(s->sources[0])},
                       {"value", v ? nlohmann::json(*v) : nlohmann::json()},
                       {"range", range_text(*s)},
                       {"unbacked", s->unbacked}});
  }
  j["symbols"] = symbols;
  try {
    j["at_values"] = point_json(planner, values);
  } catch (const Error&) {  // a size without a value (an unbacked one)
    j["at_values"] = nullptr;
  }

  nlohmann::json table = nlohmann::json::array();
  for (const std::string& row : request.at) {
    const auto given = parse_values(row, env, model, "--at");
    std::unordered_map<ExprRef, int64_t> fixed;
    for (const auto& [sym, v] : given) fixed[sym] = v;
    const SymbolValues row_values = [&](ExprRef s) -> std::optional<int64_t> {
      if (auto it = fixed.find(s); it != fixed.end()) return it->second;
      return values(s);
    };
    nlohmann::json point;
    try {
      point = point_json(planner, row_values);
    } catch (const OverflowError& e) {
      throw InputError("--at " + row + ": sizes overflow 64 bits");
    } catch (const Error& e) {
      throw InputError("--at " + row + ": " + e.what());
    }
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [sym, v] : given) sizes[sym->name()] = v;
    point["sizes"] = sizes;
    point["live_bytes"] = memory_at(memory, row_values).live;
    table.push_back(point);
  }
  j["table"] = table;

  auto solution_json = [&](ExprRef sym, const Planner& p) {
    const Planner::Solution s = p.solve(sym, *budget);
    nlohmann::json sj{{"symbol", sym->name()},
                      {"source", env.source_of(sym)},
                      {"fits", s.fits},
                      {"value", s.value},
                      {"peak_bytes", s.peak},
                      {"limited_by", s.fits ? nlohmann::json(s.limited_by) : nlohmann::json()}};
    if (s.next_value) {
      sj["next"] = {{"value", *s.next_value},
                    {"peak_bytes", s.next_peak ? nlohmann::json(*s.next_peak) : nlohmann::json()},
                    {"violation", s.next_violation ? nlohmann::json(*s.next_violation) : nlohmann::json()}};
    }
    return std::make_pair(s, sj);
  };
  if (!solve.empty()) {
    auto [s, sj] = solution_json(solve[0], planner);
    if (s.fits || s.peak != INT64_MAX) {
      const SymbolValues at_answer = planner.values_with(solve[0], s.value);
      try {
        const nlohmann::json p = point_json(planner, at_answer);
        sj["peak_node"] = p["peak_node"];
        sj["live"] = p["live"];
        sj["flops"] = p["flops"];
      } catch (const Error&) {
      }
    }
    j["solve"] = sj;
    if (!s.fits) out.status = 1;
    if (!request.html_path.empty() && s.fits) {
      const MemoryAt solved = memory_at(memory, planner.values_with(solve[0], s.value));
      out.html_extra["plan"] = {{"label", solve[0]->name() + " = " + std::to_string(s.value) + " (solved)"},
                                {"live", solved.live}};
    }
    if (solve.size() == 2 && s.fits) {
      // The frontier: for sizes of the first up to its largest, the largest of the second.
      std::vector<int64_t> firsts;
      ValueRange range;
      for (const SymbolInfo* i : env.symbols())
        if (i->sym == solve[0]) range = i->range;
      const int64_t lo = range.lo_infinite() ? 1 : std::max<int64_t>(range.lo, 1);
      for (int64_t v = lo; v < s.value && firsts.size() < 40; v = v > INT64_MAX / 2 ? s.value : v * 2) firsts.push_back(v);
      firsts.push_back(s.value);
      nlohmann::json frontier = nlohmann::json::array();
      for (int64_t v : firsts) {
        Planner row = planner;  // the --set values, and this size of the first
        row.set(solve[0], v);
        const Planner::Solution second = row.solve(solve[1], *budget);
        frontier.push_back({{solve[0]->name(), v},
                            {solve[1]->name(), second.fits ? nlohmann::json(second.value) : nlohmann::json()},
                            {"peak_bytes", second.fits ? nlohmann::json(second.peak) : nlohmann::json()}});
      }
      j["frontier"] = frontier;
    }
  }
  if (!request.html_path.empty())
    write_html(*result, out.html_extra, request.model, request.html_path);
  out.result = std::move(result);
  return out;
}

std::string plan_text(const nlohmann::json& j) {
  std::ostringstream out;
  auto bytes = [](const nlohmann::json& v) {
    return v.is_number_integer() ? byte_text(v.get<int64_t>()) + " (" + std::to_string(v.get<int64_t>()) + " bytes)"
                                 : std::string("unknown");
  };
  out << j["model"].get<std::string>() << ": peak memory " << j["peak_bytes"].get<std::string>() << " bytes"
      << (j["alloc_round"].get<int64_t>() > 1 ? " (storages rounded to " + j["alloc_round"].dump() + " bytes)" : "")
      << "\n";
  out << "  parameters " << j["parameter_bytes"].get<std::string>() << " bytes; FLOPs " << j["flops"].get<std::string>()
      << "\n";
  std::string at;
  for (const auto& s : j["symbols"])
    at += (at.empty() ? "" : ", ") + s["name"].get<std::string>() + "=" + (s["value"].is_null() ? "?" : s["value"].dump());
  if (j.contains("at_values") && !j["at_values"].is_null()) {
    const auto& p = j["at_values"];
    out << "at " << (at.empty() ? "the model's sizes" : at) << ": peak " << bytes(p["peak_bytes"]) << " at node "
        << (p["peak_node"].is_null() ? "-" : p["peak_node"].get<std::string>());
    if (p["flops"].is_number_integer()) out << ", " << flop_text(p["flops"].get<int64_t>());
    out << "\n";
  }
  for (const auto& row : j["table"]) {
    std::string sizes;
    for (const auto& [k, v] : row["sizes"].items()) sizes += (sizes.empty() ? "" : ", ") + k + "=" + v.dump();
    out << "at " << sizes << ": peak " << bytes(row["peak_bytes"]) << " at node "
        << (row["peak_node"].is_null() ? "-" : row["peak_node"].get<std::string>());
    if (row["flops"].is_number_integer()) out << ", " << flop_text(row["flops"].get<int64_t>());
    if (!row["admissible"].get<bool>()) out << "  (not accepted: " << row["violation"].get<std::string>() << ")";
    out << "\n";
  }
  if (j.contains("solve")) {
    const auto& s = j["solve"];
    const std::string name = s["symbol"].get<std::string>();
    out << "budget " << bytes(j["budget"]) << ", solving " << name << " (" << s["source"].get<std::string>() << "):\n";
    if (s["fits"].get<bool>()) {
      out << "  largest " << name << " = " << s["value"].dump() << ": peak " << bytes(s["peak_bytes"]);
      if (s.contains("peak_node") && !s["peak_node"].is_null()) out << " at node " << s["peak_node"].get<std::string>();
      out << " (limited by the " << s["limited_by"].get<std::string>() << ")\n";
      if (s.contains("next")) {
        const auto& n = s["next"];
        out << "  " << name << " = " << n["value"].dump() << ": peak " << bytes(n["peak_bytes"]);
        if (!n["violation"].is_null()) out << " (not accepted: " << n["violation"].get<std::string>() << ")";
        out << "\n";
      }
      if (s.contains("live")) {
        out << "  live at the peak:";
        for (const auto& l : s["live"])
          out << " " << l["value"].get<std::string>() << " (" << byte_text(l["bytes"].get<int64_t>()) << ")";
        out << "\n";
      }
    } else {
      out << "  no size fits: the smallest, " << s["value"].dump() << ", needs " << bytes(s["peak_bytes"]) << "\n";
    }
  }
  if (j.contains("frontier")) {
    out << "frontier:\n";
    for (const auto& row : j["frontier"]) {
      out << " ";
      for (const auto& [k, v] : row.items())
        if (k != "peak_bytes") out << " " << k << "=" << (v.is_null() ? "none" : v.dump());
      out << "  peak " << bytes(row["peak_bytes"]) << "\n";
    }
  }
  return out.str();
}

}  // namespace fakeprop
