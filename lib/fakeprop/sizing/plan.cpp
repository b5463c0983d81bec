#include "fakeprop/sizing/plan.h"

#include <cctype>
#include <cmath>
#include <string>

#include "fakeprop/util/error.h"

namespace fakeprop {

Planner::Planner(const RunResult& r, const MemoryAnalysis& memory, const ComputeAnalysis& compute)
    : env_(*r.env), memory_(memory), compute_(compute) {}

SymbolValues Planner::values_with(ExprRef symbol, int64_t value) const {
  return [this, symbol, value](ExprRef s) -> std::optional<int64_t> {
    if (s == symbol) return value;
    if (auto it = values_.find(s); it != values_.end()) return it->second;
    return env_.hint(s);
  };
}

std::optional<std::string> Planner::violation(const SymbolValues& values) const {
  for (const SymbolInfo* s : env_.symbols()) {
    if (s->is_float) continue;
    const auto v = values(s->sym);
    if (v && !s->range.contains(*v))
      return s->sym->name() + " = " + std::to_string(*v) + " is outside its range " + range_text(*s);
  }
  auto check = [&](const std::vector<GuardRecord>& records, const char* what) -> std::optional<std::string> {
    for (const GuardRecord& g : records) {
      std::optional<int64_t> holds;
      try {
        holds = evaluate(g.expr, values);
      } catch (const Error&) {
        holds = 0;  // a division by zero at these sizes: the program fails there too
      }
      if (holds && *holds == 0)
        return std::string(what) + " " + env_.print_over_sources(g.expr) + (g.node.empty() ? "" : " (node " + g.node + ")") +
               " is false";
    }
    return std::nullopt;
  };
  if (auto v = check(env_.guards(), "the guard")) return v;
  return check(env_.runtime_asserts(), "the runtime assert");
}

Planner::Point Planner::at(const SymbolValues& values) const {
  Point p;
  p.memory = memory_at(memory_, values);
  p.peak = p.memory.peak;
  try {
    p.flops = value_at(compute_.flops, values);
  } catch (const Error&) {
  }
  p.violation = violation(values);
  return p;
}

std::optional<int64_t> Planner::peak_with(ExprRef symbol, int64_t v) const {
  try {
    return peak_at(memory_, values_with(symbol, v));
  } catch (const OverflowError&) {
    return std::nullopt;
  }
}

std::optional<int64_t> Planner::smallest_admissible(ExprRef symbol, int64_t from, int64_t to) const {
  // Guards that exclude sizes are divisibility and bounds: a short walk finds the next admissible one.
  for (int64_t v = from, steps = 0; v <= to && steps < (1 << 16); ++v, ++steps)
    if (!violation(values_with(symbol, v))) return v;
  return std::nullopt;
}

Planner::Solution Planner::solve(ExprRef symbol, int64_t budget) const {
  Solution s;
  ValueRange range;
  for (const SymbolInfo* info : env_.symbols())
    if (info->sym == symbol) range = info->range;
  const int64_t lo = range.lo_infinite() ? 0 : std::max<int64_t>(range.lo, 0);
  const int64_t hi = range.hi;
  const auto smallest = smallest_admissible(symbol, lo, hi);
  if (!smallest) throw Error("no size of " + symbol->name() + " satisfies the program's guards");
  const auto smallest_peak = peak_with(symbol, *smallest);
  if (!smallest_peak || *smallest_peak > budget) {
    s.value = *smallest;
    s.peak = smallest_peak.value_or(INT64_MAX);
    return s;
  }
  // Largest v in [smallest, hi] with peak(v) <= budget: double until it does not fit, then bisect.
  int64_t good = *smallest, bad = -1;
  for (int64_t step = 1;;) {
    const int64_t probe = good > hi - step ? hi : good + step;
    const auto p = peak_with(symbol, probe);
    if (p && *p <= budget) {
      good = probe;
      if (probe == hi) break;
      step = step > INT64_MAX / 2 ? INT64_MAX : step * 2;
    } else {
      bad = probe;
      break;
    }
  }
  if (bad >= 0) {
    while (bad - good > 1) {
      const int64_t mid = good + (bad - good) / 2;
      const auto p = peak_with(symbol, mid);
      if (p && *p <= budget) good = mid;
      else bad = mid;
    }
  }
  // The largest that fits may break a guard (a divisibility): step down to an admissible one.
  int64_t answer = good;
  for (int64_t steps = 0; violation(values_with(symbol, answer)); ++steps, --answer)
    if (answer <= *smallest || steps >= (1 << 16)) {
      answer = *smallest;
      break;
    }
  s.fits = true;
  s.value = answer;
  s.peak = *peak_with(symbol, answer);
  s.limited_by = bad < 0 ? "range" : answer == good ? "budget" : "guards";
  if (answer < hi) {
    s.next_value = answer + 1;
    s.next_peak = peak_with(symbol, answer + 1);
    s.next_violation = violation(values_with(symbol, answer + 1));
  }
  return s;
}

std::optional<int64_t> parse_byte_count(std::string_view text) {
  std::string t;
  for (char c : text)
    if (c != ' ' && c != '_') t.push_back(c);
  size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  double number = 0;
  try {
    size_t used = 0;
    number = std::stod(t.substr(0, i), &used);
    if (used != i) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = t.substr(i);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KIB") scale = 1024.0;
  else if (unit == "M" || unit == "MIB") scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GIB") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TIB") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "KB") scale = 1e3;
  else if (unit == "MB") scale = 1e6;
  else if (unit == "GB") scale = 1e9;
  else if (unit == "TB") scale = 1e12;
  else return std::nullopt;
  const double bytes = std::floor(number * scale);
  if (!(bytes >= 0) || bytes >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(bytes);
}

}  // namespace fakeprop
