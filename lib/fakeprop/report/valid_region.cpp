#include "fakeprop/report/valid_region.h"

#include <numeric>

#include "fakeprop/options/source_spec.h"

namespace fakeprop {

namespace {

std::string end_text(int64_t v) {
  if (v >= kIntOo) return "int_oo";
  if (v <= -kIntOo) return "-int_oo";
  return std::to_string(v);
}

// `cond` (over `sym` alone) is a bound or a divisibility the region states already.
bool stated_by_range_or_divisor(ExprRef cond, ExprRef sym) {
  if (!cond->is_relation()) return false;
  ExprRef a = cond->arg(0), b = cond->arg(1);
  const bool const_a = as_integer(a).has_value(), const_b = as_integer(b).has_value();
  if ((a == sym && const_b) || (b == sym && const_a)) return cond->kind() != ExprKind::Ne;
  // Eq(Mod(sym, d), 0)
  if (cond->kind() == ExprKind::Eq && const_b && *as_integer(b) == 0 && a->kind() == ExprKind::Mod && a->arg(0) == sym)
    return true;
  return false;
}

}  // namespace

std::vector<ValidRegion> valid_regions(const RunResult& r) {
  const ShapeEnv& env = *r.env;
  std::vector<ValidRegion> out;
  std::unordered_map<ExprRef, std::string> described;  // symbol -> first source described
  std::unordered_map<ExprRef, int64_t> divisor;
  for (const auto& [e, d] : env.divisibility_facts())
    if (e->is_symbol()) divisor[e] = std::lcm(divisor.count(e) ? divisor[e] : 1, d);

  for (const InputRecord& in : r.inputs) {
    if (!in.val.is_tensor()) continue;
    const auto& sizes = in.val.tensor->meta.sizes;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (!sizes[d].is_symbolic()) continue;
      ValidRegion v;
      v.source = SourceSpecs::size_source(in.source, static_cast<int64_t>(d));
      ExprRef now = env.simplify(sizes[d].expr());
      if (auto c = as_integer(now)) {
        v.value = *c;
        v.text = v.source + ": = " + std::to_string(*c) + " (specialized)";
      } else if (!now->is_symbol() || described.count(now)) {
        v.equals = described.count(now) ? described[now] : env.print_over_sources(now);
        v.text = v.source + ": == " + v.equals;
      } else {
        described[now] = v.source;
        const SymbolInfo& info = env.info(now);
        ValueRange range = env.bound(now);
        // A size is never negative: a size-like symbol's region starts at 0.
        if (info.size_like && range.lo < 0) range.lo = 0;
        if (auto it = divisor.find(now); it != divisor.end() && it->second > 1) v.multiple_of = it->second;
        // The ends a multiple can take: 2..64, multiple of 8 is 8..64.
        const int64_t m = v.multiple_of;
        if (m > 1 && range.lo > -kIntOo && range.lo < kIntOo && (range.lo % m + m) % m != 0)
          range.lo += m - (range.lo % m + m) % m;
        if (m > 1 && range.hi > -kIntOo && range.hi < kIntOo) range.hi -= (range.hi % m + m) % m;
        v.min = range.lo;
        v.max = range.hi;
        v.text = v.source + ": " + end_text(range.lo) + ".." + end_text(range.hi);
        if (m > 1) v.text += ", multiple of " + std::to_string(m);
        auto consider = [&](const GuardRecord& g) {
          const auto syms = free_symbols(g.expr);
          if (syms.size() != 1 || syms.front() != now) return;
          if (stated_by_range_or_divisor(g.expr, now)) return;
          // Implied by the range alone (s != 1 over 2..64): nothing to add.
          if (const ValueRange b = env.bound(g.expr); b.lo == 1 && b.hi == 1) return;
          const std::string text = env.print_over_sources(g.expr);
          for (const auto& a : v.also)
            if (a == text) return;
          v.also.push_back(text);
        };
        for (const GuardRecord& g : env.guards()) consider(g);
        for (const GuardRecord& g : env.runtime_asserts()) consider(g);
        for (const auto& a : v.also) v.text += ", " + a;
      }
      out.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace fakeprop
