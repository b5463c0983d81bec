// ShapeEnv, after torch/fx/experimental/symbolic_shapes.py: symbol creation,
// simplification under replacements / ranges / divisibility, decisions
// (static, guard, runtime assert, data-dependent error), refinement of what a
// decision teaches, and produce_guards.
#include "fakeprop/sym/shape_env.h"

#include "fakeprop/sym/assumptions.h"
#include "fakeprop/sym/expand.h"

#include "fakeprop/util/identifier.h"

#include "fakeprop/sym/python_float.h"
#include "fakeprop/util/sha256.h"

#include <algorithm>
#include <map>
#include <cctype>
#include <cmath>
#include <numeric>
#include <set>
#include <utility>

namespace fakeprop {

namespace {
// Creation order: the one order of expressions that does not depend on memory layout.
bool by_id(ExprRef a, ExprRef b) { return a->id() < b->id(); }
}  // namespace

namespace {

constexpr int64_t kObliviousLowerBound = 2;  // size-oblivious sizes are never 0 or 1

std::string bool_text(bool v) { return v ? "True" : "False"; }

// ---- 128-bit helpers for bounds: values that leave int64 become infinite ends ----
using Wide = __int128;

Wide floor_div(Wide a, Wide b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
Wide ceil_div(Wide a, Wide b) { return -floor_div(-a, b); }

int64_t upper_end(Wide v) {
  if (v >= static_cast<Wide>(kIntOo)) return kIntOo;
  if (v <= static_cast<Wide>(kNegIntOo)) return kNegIntOo + 1;
  return static_cast<int64_t>(v);
}
int64_t lower_end(Wide v) {
  if (v <= static_cast<Wide>(kNegIntOo)) return kNegIntOo;
  if (v >= static_cast<Wide>(kIntOo)) return kIntOo - 1;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> checked_lcm(int64_t a, int64_t b) {  // a, b > 0
  int64_t r;
  if (__builtin_mul_overflow(a / std::gcd(a, b), b, &r)) return std::nullopt;
  return r;
}

// |v| as a divisor; 0 means "divisible by everything" (the value zero).
int64_t divisor_of_constant(int64_t v) {
  if (v == kNegIntOo) return 1;  // |INT64_MIN| does not fit; claim nothing
  return v < 0 ? -v : v;
}

// Largest known d with d | (a*b) given d_a | a, d_b | b (0 = zero value).
int64_t combine_product(int64_t da, int64_t db) {
  if (da == 0 || db == 0) return 0;
  int64_t r;
  if (__builtin_mul_overflow(da, db, &r)) return 1;
  return r;
}

ExprKind flipped(ExprKind k) {  // a OP b  <=>  -a OP' -b
  switch (k) {
    case ExprKind::Lt: return ExprKind::Gt;
    case ExprKind::Le: return ExprKind::Ge;
    case ExprKind::Gt: return ExprKind::Lt;
    case ExprKind::Ge: return ExprKind::Le;
    default: return k;
  }
}

// Whether `d OP 0` is decided by the interval of d.
std::optional<bool> decide_against_zero(ExprKind op, const ValueRange& d) {
  switch (op) {
    case ExprKind::Eq:
      if (d.lo > 0 || d.hi < 0) return false;
      if (d.lo == 0 && d.hi == 0) return true;
      return std::nullopt;
    case ExprKind::Ne:
      if (d.lo > 0 || d.hi < 0) return true;
      if (d.lo == 0 && d.hi == 0) return false;
      return std::nullopt;
    case ExprKind::Lt:
      if (d.hi < 0) return true;
      if (d.lo >= 0) return false;
      return std::nullopt;
    case ExprKind::Le:
      if (d.hi <= 0) return true;
      if (d.lo > 0) return false;
      return std::nullopt;
    case ExprKind::Gt:
      if (d.lo > 0) return true;
      if (d.hi <= 0) return false;
      return std::nullopt;
    case ExprKind::Ge:
      if (d.lo >= 0) return true;
      if (d.hi < 0) return false;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// Rebuild `e` with every direct child mapped through `f`.
template <typename F>
ExprRef map_children(ExprRef e, F&& f) {
  switch (e->kind()) {
    case ExprKind::Integer:
    case ExprKind::Symbol:
    case ExprKind::BoolConst:
      return e;
    case ExprKind::Add:
    case ExprKind::Mul: {
      // Most calls change nothing: keep e then, rather than sum or multiply it up again.
      std::vector<ExprRef> mapped;
      mapped.reserve(e->terms().size());
      bool changed = false;
      for (const auto& t : e->terms()) {
        mapped.push_back(f(t.first));
        changed = changed || mapped.back() != t.first;
      }
      if (!changed) return e;
      ExprRef out = integer(e->value());
      size_t i = 0;
      for (const auto& [child, n] : e->terms())
        out = e->kind() == ExprKind::Add ? add(out, mul(mapped[i++], n)) : mul(out, pow(mapped[i++], n));
      return out;
    }
    default: {
      std::vector<ExprRef> args;
      args.reserve(e->args().size());
      bool changed = false;
      for (ExprRef a : e->args()) {
        args.push_back(f(a));
        changed = changed || args.back() != a;
      }
      return changed ? rebuild(e->kind(), args) : e;
    }
  }
}

bool contains_kind(ExprRef e, ExprKind kind) {
  if (e->kind() == kind) return true;
  if (e->kind() == ExprKind::Add || e->kind() == ExprKind::Mul) {
    for (const auto& t : e->terms())
      if (contains_kind(t.first, kind)) return true;
    return false;
  }
  for (ExprRef a : e->args())
    if (contains_kind(a, kind)) return true;
  return false;
}

bool mentions(ExprRef e, ExprRef sym) {  // a walk, without free_symbols' allocations
  if (e == sym) return true;
  if (e->kind() == ExprKind::Add || e->kind() == ExprKind::Mul) {
    for (const auto& t : e->terms())
      if (mentions(t.first, sym)) return true;
    return false;
  }
  for (ExprRef a : e->args())
    if (mentions(a, sym)) return true;
  return false;
}

// d == coeff*x + rest with x absent from rest (x enters d linearly).
struct Linear {
  int64_t coeff;
  ExprRef rest;
};

std::optional<Linear> isolate(ExprRef d, ExprRef x) {
  if (d == x) return Linear{1, integer(0)};
  if (d->kind() == ExprKind::Mul && d->terms().size() == 1 && d->terms()[0].first == x &&
      d->terms()[0].second == 1)
    return Linear{d->value(), integer(0)};
  if (d->kind() != ExprKind::Add) return std::nullopt;
  std::optional<int64_t> coeff;
  ExprRef rest = integer(d->value());
  for (const auto& [term, c] : d->terms()) {
    if (term == x) {
      coeff = c;
    } else {
      if (mentions(term, x)) return std::nullopt;
      rest = add(rest, mul(term, c));
    }
  }
  if (!coeff) return std::nullopt;
  return Linear{*coeff, rest};
}

// e / c when every coefficient and the constant are multiples of c.
std::optional<ExprRef> exact_div(ExprRef e, int64_t c) {
  if (c == 1) return e;
  if (c == -1) return neg(e);
  if (c == 0 || c == kNegIntOo) return std::nullopt;
  if (auto v = as_integer(e)) {
    if (*v % c != 0) return std::nullopt;
    return integer(*v / c);
  }
  if (e->kind() == ExprKind::Mul) {
    if (e->value() % c != 0) return std::nullopt;
    ExprRef out = integer(e->value() / c);
    for (const auto& [base, exponent] : e->terms()) out = mul(out, pow(base, exponent));
    return out;
  }
  if (e->kind() == ExprKind::Add) {
    if (e->value() % c != 0) return std::nullopt;
    ExprRef out = integer(e->value() / c);
    for (const auto& [term, coeff] : e->terms()) {
      if (coeff % c != 0) return std::nullopt;
      out = add(out, mul(term, coeff / c));
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace

// Helpers with access to ShapeEnv's state, kept out of the header.
struct ShapeEnvInternals {
  using Env = ShapeEnv;

  static std::string where(const Env& env) {
    return env.current_node_.empty() ? "" : " at " + env.current_node_;
  }

  static const SymbolInfo* find(const Env& env, ExprRef sym) {
    auto it = env.symbol_index_.find(sym);
    return it == env.symbol_index_.end() ? nullptr : &env.symbols_[it->second];
  }

  static size_t age(const Env& env, ExprRef sym) { return env.symbol_index_.at(sym); }

  static bool size_oblivious_symbol(const Env& env, const SymbolInfo& info) {
    return info.size_like || (env.settings_.backed_size_oblivious && !info.unbacked);
  }

  static ValueRange symbol_range(const Env& env, ExprRef sym, bool size_oblivious) {
    const SymbolInfo* info = find(env, sym);
    if (!info) return ValueRange::unknown();
    ValueRange r = info->range;
    if (size_oblivious && size_oblivious_symbol(env, *info)) {
      // As if the size were never 0 or 1 (PyTorch skips this when it would empty the range).
      ValueRange clamped{std::max(r.lo, kObliviousLowerBound), r.hi};
      if (!clamped.is_empty()) r = clamped;
    }
    return r;
  }

  static SymbolRanges ranges(const Env& env, bool size_oblivious) {
    return [&env, size_oblivious](ExprRef sym) { return symbol_range(env, sym, size_oblivious); };
  }

  // ---- divisibility ----
  // Largest d known to divide e (0: e is zero; 1: nothing known).
  static int64_t known_divisor(const Env& env, ExprRef e, bool use_facts = true) {
    int64_t structural = 1;
    switch (e->kind()) {
      case ExprKind::Integer:
        return divisor_of_constant(e->value());
      case ExprKind::Add: {
        int64_t g = divisor_of_constant(e->value());
        for (const auto& [term, coeff] : e->terms())
          g = std::gcd(g, combine_product(divisor_of_constant(coeff), known_divisor(env, term, use_facts)));
        structural = g;
        break;
      }
      case ExprKind::Mul: {
        int64_t d = divisor_of_constant(e->value());
        bool overflow = false;
        for (const auto& [base, exponent] : e->terms()) {
          int64_t db = known_divisor(env, base, use_facts);
          if (db <= 1) continue;
          for (int64_t i = 0; i < exponent && !overflow; ++i) overflow = __builtin_mul_overflow(d, db, &d);
        }
        structural = overflow ? 1 : d;  // on overflow claim nothing
        break;
      }
      default:
        break;
    }
    if (!use_facts || structural == 0) return structural;
    auto it = env.divisible_.find(e);
    if (it == env.divisible_.end()) return structural;
    return checked_lcm(structural, it->second).value_or(it->second);
  }

  // ---- simplification ----
  // Range- and divisibility-based rewriting, bottom up (replacements already applied).
  // use_facts: whether divisibility learnt from guards may be used.
  static ExprRef cleanup(const Env& env, ExprRef e, bool size_oblivious, bool use_facts,
                         std::unordered_map<ExprRef, ExprRef>& memo, bool for_value = false) {
    if (!has_free_symbols(e)) return e;
    if (auto it = memo.find(e); it != memo.end()) return it->second;
    ExprRef out = map_children(
        e, [&](ExprRef c) { return cleanup(env, c, size_oblivious, use_facts, memo, for_value); });
    out = cleanup_node(env, out, size_oblivious, use_facts, for_value);
    memo.emplace(e, out);
    return out;
  }

  // torch's simplify rewrites nothing by ranges: s//100 and Mod(s, 100) of
  // an s in [2, 64] stay as they are, and so does Mod(s, s//3) of an s in
  // [6, 7] (measured, torch 2.15); only deciding bounds the whole expression.
  // Left here: a multiple of d modulo d, and, for a decision, Max/Min
  // arguments a range rules out (torch's simplify, under _maybe_evaluate_static).
  // A value (a size a rule computes, a guard as recorded) folds Max and Min
  // only as sympy does, from its symbols' assumptions: torch keeps
  // Max(1, (s0//2)) in a split's sizes and in the guards over them, and folds
  // it by ranges only when it decides something (_maybe_evaluate_static).
  static ExprRef cleanup_node(const Env& env, ExprRef e, bool size_oblivious, bool use_facts, bool for_value) {
    switch (e->kind()) {
      case ExprKind::Mod:
        if (auto d = as_integer(e->arg(1)); d && *d > 0 && known_divisor(env, e->arg(0), use_facts) % *d == 0)
          return integer(0);
        return e;
      case ExprKind::Max:
      case ExprKind::Min:
        if (for_value) {
          if (e->args().size() != 2) return e;
          const PositiveSymbol positive = positive_symbols_of(env);
          return e->kind() == ExprKind::Max ? max_by_assumptions(e->arg(0), e->arg(1), positive)
                                            : min_by_assumptions(e->arg(0), e->arg(1), positive);
        }
        return prune_dominated(env, e, ranges(env, size_oblivious));
      default:
        return e;
    }
  }

  // Max drops an argument that never exceeds another one; Min one never below another.
  // Max(0 or 1, e) also asks the decided facts (torch's static fallback in simplify).
  static ExprRef prune_dominated(const Env& env, ExprRef e, const SymbolRanges& rng) {
    bool is_max = e->kind() == ExprKind::Max;
    if (e->args().size() == 2) {  // the common max(1, s): no vectors
      const ValueRange a = bound_expr(e->arg(0), rng), b = bound_expr(e->arg(1), rng);
      if (is_max ? a.hi <= b.lo : a.lo >= b.hi) return e->arg(1);
      if (is_max ? b.hi <= a.lo : b.lo >= a.hi) return e->arg(0);
      if (is_max)
        for (size_t k = 0; k < 2; ++k)
          if (auto c = as_integer(e->arg(k)); c && (*c == 0 || *c == 1)) {
            ExprRef asked = difference_form(le(e->arg(k), e->arg(1 - k)));
            if (asked && env.known_true_.count(asked)) return e->arg(1 - k);
          }
      return e;
    }
    std::vector<ExprRef> args(e->args().begin(), e->args().end());
    std::vector<ValueRange> bounds;
    for (ExprRef a : args) bounds.push_back(bound_expr(a, rng));
    std::vector<bool> dropped(args.size(), false);
    for (size_t i = 0; i < args.size(); ++i) {
      for (size_t j = 0; j < args.size(); ++j) {
        if (i == j || dropped[j]) continue;
        bool dominated = is_max ? bounds[i].hi <= bounds[j].lo : bounds[i].lo >= bounds[j].hi;
        if (dominated) {
          dropped[i] = true;
          break;
        }
      }
    }
    std::vector<ExprRef> kept;
    for (size_t i = 0; i < args.size(); ++i)
      if (!dropped[i]) kept.push_back(args[i]);
    if (kept.size() == args.size()) return e;
    return is_max ? max(kept) : min(kept);
  }

  // Replacements are kept closed (targets never mention replaced symbols), so
  // one substitution of e's own replaced symbols is enough.
  static ExprRef apply_replacements(const Env& env, ExprRef e) {
    if (env.replacements_.empty()) return e;
    Substitution subs;
    for (ExprRef s : free_symbols(e))
      if (auto it = env.replacements_.find(s); it != env.replacements_.end()) subs.emplace(s, it->second);
    return subs.empty() ? e : substitute(e, subs);
  }

  static ExprRef simplify(const Env& env, ExprRef e, bool size_oblivious, bool use_facts = true,
                          bool for_value = false) {
    if (!has_free_symbols(e)) return e;
    e = apply_replacements(env, e);
    if (use_facts) {
      // After the replacements no replaced symbol is left, so a subexpression's
      // cleanup is its simplification: share the ShapeEnv's table of them.
      env.refresh_memos();
      return cleanup(env, e, size_oblivious, use_facts, env.simplify_memo_[for_value ? 2 : size_oblivious], for_value);
    }
    std::unordered_map<ExprRef, ExprRef> memo;
    return cleanup(env, e, size_oblivious, use_facts, memo, for_value);
  }

  // ---- static reasoning ----
  // use_facts: decided guards, runtime asserts and divisibility may be used (not
  // for produce_guards, where a guard must not justify itself).
  static std::optional<bool> static_value(const Env& env, ExprRef s, bool size_oblivious, bool use_facts) {
    if (auto b = as_bool(s)) return b;
    if (use_facts) {
      if (env.known_true_.count(s)) return true;
      if (s->is_bool() && env.known_true_.count(logical_not(s))) return false;
      if (ExprRef d = difference_form(s); d && d->is_relation()) {
        if (env.known_true_.count(d)) return true;
        if (env.known_true_.count(logical_not(d))) return false;
      }
    }
    switch (s->kind()) {
      case ExprKind::And:
      case ExprKind::Or: {
        bool is_and = s->kind() == ExprKind::And;
        bool all_decided = true;
        for (ExprRef a : s->args()) {
          auto v = static_value(env, a, size_oblivious, use_facts);
          if (v && *v != is_and) return !is_and;  // a false conjunct / a true disjunct
          all_decided = all_decided && v.has_value();
        }
        if (all_decided) return is_and;
        return std::nullopt;
      }
      case ExprKind::Not: {
        auto v = static_value(env, s->arg(0), size_oblivious, use_facts);
        if (v) return !*v;
        return std::nullopt;
      }
      default:
        break;
    }
    if (!s->is_relation()) return std::nullopt;
    auto rng = ranges(env, size_oblivious);
    ValueRange b = bound_expr(s, rng);
    if (b.is_singleton() && (b.lo == 0 || b.lo == 1)) return b.lo == 1;
    if (is_float_relation(s)) return std::nullopt;  // no difference is exact in floats
    // The difference of both sides often bounds better than each side alone.
    ExprRef d = sub(s->arg(0), s->arg(1));
    if (auto v = decide_against_zero(s->kind(), bound_expr(d, rng))) return v;
    // torch's simplify expands products first (safe_expand): s1*s0 - s1*(s0 - 1)
    // is s1, so a contiguity check's Ne(s1*s0, s1*(s0 - 1)) is decided.
    if (contains_kind(d, ExprKind::Mul))
      if (ExprRef expanded = expand(d); expanded != d)
        if (auto v = decide_against_zero(s->kind(), bound_expr(expanded, rng))) return v;
    if (auto v = monomial_ratio(s, rng)) return v;
    // c*X + k == 0 is impossible when the divisor of c*X does not divide k.
    if ((s->kind() == ExprKind::Eq || s->kind() == ExprKind::Ne) && d->kind() == ExprKind::Add) {
      ExprRef variable_part = sub(d, integer(d->value()));
      int64_t g = known_divisor(env, variable_part, use_facts);
      if (g > 1 && d->value() % g != 0) return s->kind() == ExprKind::Ne;
    }
    if (use_facts && (!env.divisible_.empty() || contains_kind(s, ExprKind::FloorDiv)))
      if (ExprRef exact = exact_divisions(env, s); exact != s) return static_value(env, exact, size_oblivious, use_facts);
    if (contains_kind(s, ExprKind::Mod))
      if (ExprRef reduced = static_mods(env, s, rng, size_oblivious, use_facts); reduced != s)
        return static_value(env, reduced, size_oblivious, use_facts);
    return std::nullopt;
  }

  // torch's Mod.eval runs again when _maybe_evaluate_static substitutes each
  // symbol by a positive dummy plus its lower bound: Mod(p, q) of a symbolic
  // q is 0 where q divides p as a monomial, and p where p and q are positive
  // and p < q is then provable (Mod(s1, s1*s2) of s1, s2 >= 2 is s1, so
  // torch's reshape decides Ne(Mod(s1, s1*s2), 0) with no guard; measured,
  // torch 2.15). The creation-time Mod keeps its form: only deciding sees this.
  static ExprRef static_mods(const Env& env, ExprRef e, const SymbolRanges& rng, bool size_oblivious, bool use_facts) {
    if (!has_free_symbols(e) || !contains_kind(e, ExprKind::Mod)) return e;
    e = map_children(e, [&](ExprRef c) { return static_mods(env, c, rng, size_oblivious, use_facts); });
    if (e->kind() != ExprKind::Mod || as_integer(e->arg(1))) return e;
    ExprRef p = e->arg(0), q = e->arg(1);
    if (monomial_quotient(p, q)) return integer(0);
    if (bound_expr(p, rng).lo < 1 || bound_expr(q, rng).lo < 1) return e;
    if (static_value(env, lt(p, q), size_oblivious, use_facts) == std::optional<bool>(true)) return p;
    return e;
  }

  // torch's _maybe_evaluate_static also decides a relation with each symbol
  // shifted to a positive dummy plus its lower bound, where sympy sees
  // s0*s1 - s0 = s0*(s1 - 1) > 0 for s0, s1 >= 2 (measured: Ne(s0*s1, s0)
  // is statically true in torch 2.15); interval arithmetic alone cannot. Of
  // two monomials: one side is the other, a positive value, times a factor
  // whose range is >= 2 (then strictly bigger) or >= 1 (not smaller).
  static std::optional<bool> monomial_ratio(ExprRef s, const SymbolRanges& rng) {
    auto monomial = [](ExprRef e) {
      return !(e->kind() == ExprKind::Integer || e->kind() == ExprKind::Add || e->is_bool()) &&
             (e->kind() != ExprKind::Mul || e->value() > 0);
    };
    if (!monomial(s->arg(0)) || !monomial(s->arg(1))) return std::nullopt;
    // cmp > 0: lhs > rhs; cmp == 0: lhs >= rhs; likewise < for the other way.
    auto compare = [&](ExprRef big, ExprRef small_e) -> std::optional<int> {
      const std::optional<ExprRef> q = monomial_quotient(big, small_e);
      if (!q) return std::nullopt;
      if (bound_expr(small_e, rng).lo < 1) return std::nullopt;
      const int64_t lo = bound_expr(*q, rng).lo;
      if (lo >= 2) return 1;
      if (lo >= 1) return 0;
      return std::nullopt;
    };
    // `lhs OP rhs` once lhs >= rhs is known (> when strict); rhs >= lhs is the flipped relation's case.
    auto decided = [](ExprKind op, bool strict) -> std::optional<bool> {
      switch (op) {
        case ExprKind::Lt: return false;
        case ExprKind::Ge: return true;
        case ExprKind::Eq: return strict ? std::optional<bool>(false) : std::nullopt;
        case ExprKind::Ne: return strict ? std::optional<bool>(true) : std::nullopt;
        case ExprKind::Gt: return strict ? std::optional<bool>(true) : std::nullopt;
        case ExprKind::Le: return strict ? std::optional<bool>(false) : std::nullopt;
        default: return std::nullopt;
      }
    };
    if (auto c = compare(s->arg(0), s->arg(1))) return decided(s->kind(), *c > 0);
    if (auto c = compare(s->arg(1), s->arg(0))) return decided(flipped(s->kind()), *c > 0);
    return std::nullopt;
  }

  static bool is_float_relation(ExprRef r) { return r->is_relation() && r->arg(0)->is_float(); }

  // torch's ShapeEnv.simplify divides exactly where a size is known to
  // divide (CleanDiv) and then cancels a CleanDiv against its own divisor in
  // a product: d*(p//d) of a p divisible by d is p, so 4*(s//4) >= 2 of an s
  // divisible by 4 is s >= 2; 16*(s//4) stays (no factor 4 to cancel), and
  // torch asks 16*((s//4)) >= 2. Only deciding uses it; shapes keep the floor
  // division, as torch's do.
  static ExprRef exact_divisions(const Env& env, ExprRef e) {
    if (!has_free_symbols(e)) return e;
    e = map_children(e, [&](ExprRef c) { return exact_divisions(env, c); });
    // torch's simplify: p // (p // d) is d where p % (p // d) == 0 and p % d
    // == 0 are both known (its pass over nested FloorDivs), so a view(-1, 3)
    // of 5*s elements decides (5*s) // ((5*s) // 3) == 3 with no guard.
    if (e->kind() == ExprKind::FloorDiv && e->arg(1)->kind() == ExprKind::FloorDiv && e->arg(0) == e->arg(1)->arg(0)) {
      ExprRef p = e->arg(0), d = e->arg(1)->arg(1);
      const auto c = as_integer(d);
      const bool p_by_d = c ? *c > 0 && known_divisor(env, p, true) % *c == 0
                            : env.known_true_.count(eq(mod(p, d), integer(0))) != 0;
      if (p_by_d && env.known_true_.count(eq(mod(p, e->arg(1)), integer(0)))) return d;
    }
    if (e->kind() == ExprKind::Add) {
      ExprRef out = integer(e->value());
      for (const auto& [term, coeff] : e->terms()) out = add(out, exact_product(env, mul(term, coeff)));
      return out;
    }
    return exact_product(env, e);
  }

  static ExprRef exact_product(const Env& env, ExprRef e) {
    const bool is_mul = e->kind() == ExprKind::Mul;
    const int64_t coeff = is_mul ? e->value() : 1;
    auto exact = [&](ExprRef base) -> ExprRef {
      if (base->kind() != ExprKind::FloorDiv) return nullptr;
      auto d = as_integer(base->arg(1));
      if (!d || *d <= 0 || coeff != *d || known_divisor(env, base->arg(0), true) % *d != 0) return nullptr;
      return base->arg(0);
    };
    if (!is_mul) return exact(e) ? exact(e) : e;
    for (const auto& [base, exponent] : e->terms()) {
      if (exponent != 1) continue;
      ExprRef r = exact(base);
      if (!r) continue;
      for (const auto& [other, x] : e->terms())
        if (other != base) r = mul(r, pow(other, x));
      return r;
    }
    // A symbolic divisor: q*(p//q) is p once Mod(p, q) == 0 was guarded
    // (torch adds every such Mod to `divisible`, whatever its divisor), so a
    // reshape's s1*s2*(s0//s2) of an s0 divisible by s2 is s1*s0. torch
    // cancels only a q that is itself a factor of the product (sympy's Mul
    // args): s2**2*(s0//s2) and (s1*s2)*(s0//(s1*s2)) stay.
    for (const auto& [base, exponent] : e->terms()) {
      if (exponent != 1 || base->kind() != ExprKind::FloorDiv || as_integer(base->arg(1))) continue;
      ExprRef p = base->arg(0), q = base->arg(1);
      if (q->kind() == ExprKind::Mul || !env.known_true_.count(eq(mod(p, q), integer(0)))) continue;
      const auto& terms = e->terms();
      if (std::none_of(terms.begin(), terms.end(), [&](const auto& t) { return t.first == q && t.second == 1; })) continue;
      ExprRef r = mul(integer(coeff), p);
      for (const auto& [other, x] : terms)
        if (other != base && other != q) r = mul(r, pow(other, x));
      return r;
    }
    return e;
  }

  // ---- facts ----
  static void insert_relation(Env& env, ExprRef r) {
    if (r->is_relation() && env.known_true_.insert(r).second) env.fact_added();
  }

  // An inequality as a difference against 0 (torch's canonicalize_bool_expr):
  // s//2 <= s and s - s//2 >= 0 are one fact. Eq and Ne are left as written:
  // torch canonicalizes them too, but its static answers are cached until a
  // replacement or a runtime assert, not a guard, so make_fx asks
  // Ne(s0 - 3, 1) again after guarding Ne(s0, 4) (FxView test); fakeprop
  // does not model that cache. nullptr for anything else.
  static ExprRef difference_form(ExprRef r) {
    if (!r->is_relation() || is_float_relation(r)) return nullptr;
    ExprRef a = r->arg(0), b = r->arg(1), zero = integer(0);
    switch (r->kind()) {
      case ExprKind::Le: return ge(lowest_terms(sub(b, a)), zero);
      case ExprKind::Lt: return gt(lowest_terms(sub(b, a)), zero);
      case ExprKind::Ge: return ge(lowest_terms(sub(a, b)), zero);
      case ExprKind::Gt: return gt(lowest_terms(sub(a, b)), zero);
      default: return nullptr;
    }
  }

  // A sum divided by the gcd of its constant and coefficients (torch's
  // _reduce_to_lowest_terms): 4*s0*s1 - 2 >= 0 is 2*s0*s1 - 1 >= 0.
  static ExprRef lowest_terms(ExprRef d) {
    if (d->kind() != ExprKind::Add) return d;
    uint64_t g = d->value() < 0 ? static_cast<uint64_t>(-(d->value() + 1)) + 1 : static_cast<uint64_t>(d->value());
    for (const auto& [t, c] : d->terms()) g = std::gcd(g, c < 0 ? static_cast<uint64_t>(-(c + 1)) + 1 : static_cast<uint64_t>(c));
    if (g <= 1 || g > static_cast<uint64_t>(INT64_MAX)) return d;
    const auto gi = static_cast<int64_t>(g);
    ExprRef out = integer(d->value() / gi);
    for (const auto& [t, c] : d->terms()) out = add(out, mul(t, c / gi));
    return out;
  }

  // Record `fact` as known true, with the relations it implies (get_implications).
  static void add_fact(Env& env, ExprRef fact) {
    if (fact->kind() == ExprKind::And) {
      for (ExprRef a : fact->args()) add_fact(env, a);
      return;
    }
    if (as_bool(fact)) return;
    if (env.known_true_.insert(fact).second) env.fact_added();
    if (!fact->is_relation() || is_float_relation(fact)) return;
    ExprRef a = fact->arg(0);
    ExprRef b = fact->arg(1);
    ExprRef one = integer(1);
    switch (fact->kind()) {
      case ExprKind::Eq:
        for (ExprRef r : {le(a, b), ge(a, b), le(b, a), ge(b, a)}) insert_relation(env, r);
        break;
      case ExprKind::Lt:
        for (ExprRef r : {le(a, b), ne(a, b), le(a, sub(b, one)), gt(b, a), ge(b, a), ge(sub(b, one), a)})
          insert_relation(env, r);
        break;
      case ExprKind::Le:
        for (ExprRef r : {lt(a, add(b, one)), ge(b, a), gt(add(b, one), a)}) insert_relation(env, r);
        break;
      case ExprKind::Gt:
        add_fact(env, lt(b, a));
        break;
      case ExprKind::Ge:
        add_fact(env, le(b, a));
        break;
      default:
        break;
    }
    if (ExprRef d = difference_form(fact); d && d->is_relation()) {
      insert_relation(env, d);
      if (d->kind() == ExprKind::Gt) insert_relation(env, ge(d->arg(0), d->arg(1)));
    }
  }

  // After replacing `x`, the facts and divisibility keys that mention it are
  // rewritten in terms of its replacement.
  static void resimplify_state(Env& env, ExprRef x) {
    env.facts_changed();
    std::vector<ExprRef> stale;
    for (ExprRef f : env.known_true_)
      if (mentions(f, x)) stale.push_back(f);
    // Rewritten in creation order, not the hash tables' (which follows where
    // the allocator put the nodes): the order decides which new expressions
    // are interned first, and so canonical order.
    std::sort(stale.begin(), stale.end(), by_id);
    for (ExprRef f : stale) env.known_true_.erase(f);
    for (ExprRef f : stale) add_fact(env, simplify(env, f, false));
    std::vector<std::pair<ExprRef, int64_t>> stale_divisors;
    for (const auto& [p, d] : env.divisible_)
      if (mentions(p, x)) stale_divisors.emplace_back(p, d);
    std::sort(stale_divisors.begin(), stale_divisors.end(),
              [](const auto& a, const auto& b) { return by_id(a.first, b.first); });
    for (const auto& [p, d] : stale_divisors) {
      env.divisible_.erase(p);
      ExprRef np = apply_replacements(env, p);
      if (has_free_symbols(np)) add_divisor(env, np, d);
    }
  }

  static void add_divisor(Env& env, ExprRef p, int64_t d) {
    env.facts_changed();
    auto [it, inserted] = env.divisible_.emplace(p, d);
    if (!inserted) it->second = checked_lcm(it->second, d).value_or(it->second);
  }

  // What a refinement rests on: the decided expression (its text made only
  // when a specialization records it) or a text given as is.
  struct Cause {
    ExprRef decided = nullptr;
    std::string given;
    std::string text(const Env& env) const { return decided ? cause_of(env, decided) : given; }
  };

  // ---- ranges ----
  // Intersect a symbol's range with `r`; false when nothing changed.
  static bool narrow_range(Env& env, ExprRef sym, ValueRange r) {
    const SymbolInfo& current = env.info(sym);
    // A size-like symbol never learns it is below 2 (size-oblivious tests would
    // contradict it), as _update_var_to_range does.
    if (current.size_like && r.hi < 2) r.hi = 2;
    ValueRange next = current.range.intersect(r);
    if (next == current.range) return false;
    SymbolInfo& info = env.mutable_info(sym);
    if (next.is_empty())
      throw Error("range of " + sym->name() + " " + info.range.to_string() + " cannot also be in " +
                  r.to_string());
    if (info.hint && !next.contains(*info.hint))
      throw Error("range of " + sym->name() + " narrowed to " + next.to_string() + " excludes its hint " +
                  std::to_string(*info.hint));
    info.range = next;
    FP_LOG_DEBUG(env.log(), "_update_var_to_range " + sym->name() + " = VR" + next.to_string() + " (update)");
    return true;
  }

  // Narrow ranges from `rel` (a relation, simplified), as _refine_ranges does for
  // every symbol try_solve isolates in it. Ne narrows nothing: _maybe_guard_rel
  // returns before _refine_ranges for it (u1 != 0 keeps u1 in [0, int_oo]).
  static void refine_ranges(Env& env, ExprRef rel, const Cause& cause) {
    if (rel->kind() == ExprKind::Ne) return;
    ExprRef d = sub(rel->arg(0), rel->arg(1));
    for (ExprRef x : free_symbols(d)) {
      const SymbolInfo* info = find(env, x);
      if (!info || env.replacements_.count(x)) continue;
      refine_symbol(env, rel->kind(), d, x, cause, kSolveTrials);
    }
  }

  static constexpr int kSolveTrials = 5;  // try_solve's trials

  // x's range from `d OP 0`, where x enters d linearly or inside a floor
  // division by a positive constant (try_solve's FloorDiv rewrite).
  static void refine_symbol(Env& env, ExprKind op, ExprRef d, ExprRef x, const Cause& cause, int trials) {
    auto lin = isolate(d, x);
    if (!lin) {
      if (trials <= 0) return;
      if (op == ExprKind::Eq) {
        // a // k == q is k*q <= a < k*(q + 1); sympy drops the half its
        // assumptions decide (a positive size is at least 1) and try_solve
        // goes on with the other, so Eq((s0 + 2)//3, 1) gives s0 < 4.
        auto ge = through_floordiv(ExprKind::Ge, d, x);
        auto lt = through_floordiv(ExprKind::Le, d, x);
        if (ge && lt && assumed_nonnegative(env, ge->second))
          refine_symbol(env, lt->first, lt->second, x, cause, trials - 1);
        return;
      }
      if (auto inner = through_floordiv(op, d, x)) refine_symbol(env, inner->first, inner->second, x, cause, trials - 1);
      return;
    }
    if (lin->coeff == 0 || lin->coeff == kNegIntOo) return;
    Wide c = lin->coeff;
    ExprRef rest = lin->rest;
    if (c < 0) {  // keep a positive coefficient: c*x + rest OP 0
      c = -c;
      rest = neg(rest);
      op = flipped(op);
    }
    // torch refines only when the bound -rest/c is an integer expression.
    if (!exact_div(rest, static_cast<int64_t>(c))) return;
    ValueRange rb = bound_expr(rest, ranges(env, false));
    ValueRange next = ValueRange::unknown();
    bool strict = op == ExprKind::Lt || op == ExprKind::Gt;
    if ((op == ExprKind::Eq || op == ExprKind::Lt || op == ExprKind::Le) && !rb.lo_infinite())
      next.hi = upper_end(floor_div(-static_cast<Wide>(rb.lo) - (strict ? 1 : 0), c));
    if ((op == ExprKind::Eq || op == ExprKind::Gt || op == ExprKind::Ge) && !rb.hi_infinite())
      next.lo = lower_end(ceil_div(-static_cast<Wide>(rb.hi) + (strict ? 1 : 0), c));
    if (narrow_range(env, x, next) && find(env, x)->range.is_singleton())
      set_replacement(env, x, integer(find(env, x)->range.lo), "range_refined_to_singleton", cause);
  }

  // `d >= 0` as sympy's assumptions decide it: a backed size symbol
  // (create_symbol's) is a positive integer, so c*m + c0 for one monomial m of such symbols and
  // c > 0 holds when c + c0 >= 0. sympy decides no sum of two terms.
  static bool assumed_nonnegative(Env& env, ExprRef d) {
    if (auto v = as_integer(d)) return *v >= 0;
    int64_t c0 = 0;
    int64_t c = 1;
    ExprRef m = d;
    if (d->kind() == ExprKind::Add) {
      if (d->terms().size() != 1) return false;
      c0 = d->value();
      m = d->terms()[0].first;
      c = d->terms()[0].second;
    }
    if (m->kind() == ExprKind::Mul) {
      if (__builtin_mul_overflow(c, m->value(), &c)) return false;
      for (const auto& [base, power] : m->terms())
        if (!base->is_symbol() || power <= 0) return false;
    } else if (!m->is_symbol()) {
      return false;
    }
    for (ExprRef sym : free_symbols(m)) {
      const SymbolInfo* info = find(env, sym);
      if (!info || info->unbacked || info->is_float || !info->creation_range) return false;  // create_symbol's
    }
    int64_t least = 0;
    return c > 0 && !__builtin_add_overflow(c, c0, &least) && least >= 0;
  }

  // `m*(a // k) + rest OP 0` with x only in a and k > 0, as the relation on a
  // that try_solve rewrites it to: a // k >= q is a >= k*q, a // k < q is
  // a < k*q (> and <= move q by one). Eq and Ne give no single relation.
  static std::optional<std::pair<ExprKind, ExprRef>> through_floordiv(ExprKind op, ExprRef d, ExprRef x) {
    ExprRef quotient = nullptr;
    int64_t m = 0;
    ExprRef rest = integer(0);
    auto take = [&](ExprRef term, int64_t coeff) {
      if (!mentions(term, x)) {
        rest = add(rest, mul(term, coeff));
        return true;
      }
      if (quotient || term->kind() != ExprKind::FloorDiv) return false;
      quotient = term;
      m = coeff;
      return true;
    };
    if (d->kind() == ExprKind::Add) {
      rest = integer(d->value());
      for (const auto& [t, c] : d->terms())
        if (!take(t, c)) return std::nullopt;
    } else if (d->kind() == ExprKind::Mul && d->terms().size() == 1 && d->terms()[0].second == 1) {
      if (!take(d->terms()[0].first, d->value())) return std::nullopt;
    } else if (!take(d, 1)) {
      return std::nullopt;
    }
    if (!quotient || m == 0 || m == kNegIntOo) return std::nullopt;
    const auto k = as_integer(quotient->arg(1));
    if (!k || *k <= 0 || mentions(quotient->arg(1), x)) return std::nullopt;
    if (m < 0) {
      m = -m;
      rest = neg(rest);
      op = flipped(op);
    }
    auto q = exact_div(neg(rest), m);  // quotient OP q
    if (!q) return std::nullopt;
    ExprRef a = quotient->arg(0);
    switch (op) {
      case ExprKind::Ge: return std::pair{ExprKind::Ge, sub(a, mul(*q, *k))};
      case ExprKind::Gt: return std::pair{ExprKind::Ge, sub(a, mul(add(*q, integer(1)), *k))};
      case ExprKind::Lt: return std::pair{ExprKind::Lt, sub(a, mul(*q, *k))};
      case ExprKind::Le: return std::pair{ExprKind::Lt, sub(a, mul(add(*q, integer(1)), *k))};
      default: return std::nullopt;
    }
  }

  // ---- replacements ----
  // Replace `x` by `target` everywhere (PyTorch's _set_replacement); false when
  // skipped because the target's bound would lose x's range.
  static bool set_replacement(Env& env, ExprRef x, ExprRef target, const char* reason, const Cause& cause) {
    if (!find(env, x)) return false;
    target = simplify(env, target, false);
    if (target == x || mentions(target, x)) return false;
    if (auto it = env.replacements_.find(x); it != env.replacements_.end()) return it->second == target;

    // x == target: x's range bounds the target's symbols, and the target's bound x.
    ValueRange src = find(env, x)->range;
    std::vector<ExprRef> target_symbols = free_symbols(target);
    if (target_symbols.size() == 1 && find(env, target_symbols[0])) {
      ExprRef y = target_symbols[0];
      if (auto lin = isolate(target, y); lin && as_integer(lin->rest) && lin->coeff != 0 &&
                                         lin->coeff != kNegIntOo) {
        // target = c*y + k, so y = (x - k) / c over x's range.
        Wide c = lin->coeff;
        Wide k = *as_integer(lin->rest);
        ValueRange yr = ValueRange::unknown();
        Wide lo_num = src.lo_infinite() ? 0 : static_cast<Wide>(src.lo) - k;
        Wide hi_num = src.hi_infinite() ? 0 : static_cast<Wide>(src.hi) - k;
        if (c > 0) {
          if (!src.lo_infinite()) yr.lo = lower_end(ceil_div(lo_num, c));
          if (!src.hi_infinite()) yr.hi = upper_end(floor_div(hi_num, c));
        } else {
          if (!src.hi_infinite()) yr.lo = lower_end(ceil_div(-hi_num, -c));
          if (!src.lo_infinite()) yr.hi = upper_end(floor_div(-lo_num, -c));
        }
        narrow_range(env, y, yr);
      }
    }
    ValueRange tgt_bound = bound_expr(target, ranges(env, false));
    narrow_range(env, x, tgt_bound);
    src = find(env, x)->range;
    if (!src.contains(tgt_bound)) {
      FP_LOG_DEBUG(env.log(), "skipped set_replacement " + x->name() + " = " + to_sympy_string(target) + " (" +
                                  reason + ") [VR" + tgt_bound.to_string() + " not subset of VR" +
                                  src.to_string() + "]");
      return false;
    }
    if (find(env, x)->size_like) {
      ValueRange tgt_so = bound_expr(target, ranges(env, true));
      ValueRange src_so = symbol_range(env, x, true);
      if (!src_so.contains(tgt_so)) {
        FP_LOG_DEBUG(env.log(), "skipped set_replacement " + x->name() + " = " + to_sympy_string(target) + " (" +
                                    reason + ") [size-oblivious bound not subset]");
        return false;
      }
    }
    // Size-likeness survives exact equality between symbols only.
    if (target->is_symbol() && find(env, target)) {
      SymbolInfo& xi = env.mutable_info(x);
      SymbolInfo& ti = env.mutable_info(target);
      if (xi.size_like) ti.size_like = true;
      if (ti.size_like) xi.size_like = true;
    }

    FP_LOG_INFO(env.log(), "set_replacement " + x->name() + " = " + to_sympy_string(target) + " (" + reason +
                               ") VR" + tgt_bound.to_string());
    commit_replacement(env, x, target);
    if (auto value = as_integer(target)) {
      std::string why = cause.text(env);
      env.specializations_.push_back({x, *value, env.current_node_, why.empty() ? reason : std::move(why)});
    }
    return true;
  }

  // x -> target in the table, in the replacements that mention x, and in every fact.
  static void commit_replacement(Env& env, ExprRef x, ExprRef target) {
    env.facts_changed();
    Substitution step{{x, target}};
    std::vector<ExprRef> rewritten;  // in creation order, as above
    for (const auto& [sym, tgt] : env.replacements_)
      if (mentions(tgt, x)) rewritten.push_back(sym);
    std::sort(rewritten.begin(), rewritten.end(), by_id);
    for (ExprRef sym : rewritten) env.replacements_[sym] = substitute(env.replacements_[sym], step);
    env.replacements_[x] = target;
    resimplify_state(env, x);
  }

  // Eq(zf, c) for a float symbol and a constant: zf is c from now on, as
  // PyTorch's _maybe_guard_rel replaces a trivial left-hand side (float
  // equalities are not solved any further: no rewrite may change a rounding).
  static void replace_float_symbol(Env& env, ExprRef eq_rel) {
    ExprRef x = eq_rel->arg(0), c = eq_rel->arg(1);
    if (!x->is_symbol()) std::swap(x, c);
    if (!x->is_symbol() || !as_float(c) || !find(env, x) || env.replacements_.count(x)) return;
    const std::string value = to_sympy_string(c);
    FP_LOG_INFO(env.log(), "set_replacement " + x->name() + " = " + value + " (trivial_lhs) VR[" + value + ", " + value + "]");
    commit_replacement(env, x, c);
  }

  // Solve a decided equality for one of its symbols, or record a divisibility
  // fact (_maybe_guard_rel). Unbacked symbols first, the newest first; then
  // backed ones in PyTorch's order: the largest hint, then the name that sorts
  // last (s77 before s17: which symbol stays depends on the hashed names).
  static void solve_equality(Env& env, ExprRef eq_rel, const Cause& cause) {
    ExprRef lhs = eq_rel->arg(0);
    ExprRef rhs = eq_rel->arg(1);
    for (auto [m, other] : {std::pair{lhs, rhs}, std::pair{rhs, lhs}}) {
      if (m->kind() != ExprKind::Mod || as_integer(other) != std::optional<int64_t>(0)) continue;
      if (auto q = as_integer(m->arg(1)); q && *q > 0) add_divisor(env, m->arg(0), *q);
      return;
    }
    if (contains_kind(eq_rel, ExprKind::Mod) || contains_kind(eq_rel, ExprKind::FloorDiv) ||
        contains_kind(eq_rel, ExprKind::CeilDiv))
      return;
    ExprRef d = sub(lhs, rhs);
    std::vector<ExprRef> candidates;
    for (ExprRef s : free_symbols(d))
      if (find(env, s)) candidates.push_back(s);
    std::sort(candidates.begin(), candidates.end(), [&](ExprRef a, ExprRef b) {
      const SymbolInfo &ia = *find(env, a), &ib = *find(env, b);
      if (ia.unbacked != ib.unbacked) return ia.unbacked;
      if (ia.unbacked) return age(env, a) > age(env, b);
      const int64_t ha = ia.hint.value_or(INT64_MAX), hb = ib.hint.value_or(INT64_MAX);
      if (ha != hb) return ha > hb;
      return a->name() > b->name();
    });
    for (ExprRef x : candidates) {
      auto lin = isolate(d, x);
      if (!lin) continue;
      auto target = exact_div(neg(lin->rest), lin->coeff);
      if (!target || !allowed_target(env, x, *target)) continue;
      const char* reason = "solve";
      if (find(env, x)->unbacked && x == lhs) reason = "trivial_lhs";
      if (find(env, x)->unbacked && x == rhs) reason = "trivial_rhs";
      if (set_replacement(env, x, *target, reason, cause)) return;
    }
  }

  // A backed size is never rewritten in terms of unbacked symbols; an unbacked
  // one only in terms of older unbacked symbols (bound before it at run time).
  static bool allowed_target(const Env& env, ExprRef x, ExprRef target) {
    bool x_unbacked = find(env, x)->unbacked;
    for (ExprRef s : free_symbols(target)) {
      const SymbolInfo* info = find(env, s);
      if (!info) return false;
      if (!info->unbacked) continue;
      if (!x_unbacked || age(env, s) > age(env, x)) return false;
    }
    return true;
  }

  // What a decided condition teaches: ranges, replacements, divisibility.
  static void refine(Env& env, ExprRef decided, const Cause& cause) {
    ExprRef e = simplify(env, decided, false);
    if (e->kind() == ExprKind::And) {
      for (ExprRef a : e->args()) refine(env, a, cause);
      return;
    }
    if (e->kind() == ExprKind::Eq && is_float_relation(e)) return replace_float_symbol(env, e);
    if (!e->is_relation() || is_float_relation(e)) return;  // a float relation teaches no range
    refine_ranges(env, e, cause);
    e = simplify(env, e, false);
    if (e->kind() == ExprKind::Eq) solve_equality(env, e, cause);
  }

  // A runtime assert inside a branch teaches the symbols born in that branch
  // (made since it opened, `first` on): they exist only while it runs, so a
  // range or a replacement for them holds wherever they appear. Older symbols
  // learn nothing (the assert is an implication for them). A replacement is
  // made only where the target's bound lies in the symbol's range, so that no
  // older symbol's range is narrowed by it.
  static void refine_in_branch(Env& env, ExprRef decided, size_t first) {
    ExprRef e = simplify(env, decided, false);
    if (e->kind() == ExprKind::And) {
      for (ExprRef a : e->args()) refine_in_branch(env, a, first);
      return;
    }
    if (!e->is_relation() || is_float_relation(e) || e->kind() == ExprKind::Ne) return;
    auto local = [&](ExprRef x) {
      const SymbolInfo* info = find(env, x);
      if (!info || !info->unbacked || age(env, x) < first || env.replacements_.count(x)) return false;
      for (const auto& b : env.branches_)  // a branch's condition is no size the branch made
        if (b.cond && mentions(b.cond, x)) return false;
      return true;
    };
    const Cause cause{e, {}};
    ExprRef d = sub(e->arg(0), e->arg(1));
    for (ExprRef x : free_symbols(d))
      if (local(x)) refine_symbol(env, e->kind(), d, x, cause, kSolveTrials);
    e = simplify(env, e, false);
    if (e->kind() != ExprKind::Eq || contains_kind(e, ExprKind::Mod) || contains_kind(e, ExprKind::FloorDiv) ||
        contains_kind(e, ExprKind::CeilDiv))
      return;
    d = sub(e->arg(0), e->arg(1));
    std::vector<ExprRef> candidates;
    for (ExprRef x : free_symbols(d))
      if (local(x)) candidates.push_back(x);
    std::sort(candidates.begin(), candidates.end(), [&](ExprRef a, ExprRef b) { return age(env, a) > age(env, b); });
    for (ExprRef x : candidates) {
      auto lin = isolate(d, x);
      if (!lin || lin->coeff == 0 || lin->coeff == kNegIntOo) continue;
      auto target = exact_div(neg(lin->rest), lin->coeff);
      if (!target || !allowed_target(env, x, *target)) continue;
      if (!find(env, x)->range.contains(bound_expr(simplify(env, *target, false), ranges(env, false)))) continue;
      if (set_replacement(env, x, *target, "branch", cause)) return;
    }
  }

  static std::string cause_of(const Env& env, ExprRef decided) {
    std::string cause = to_sympy_string(decided);
    if (!env.current_node_.empty()) cause += " at node " + env.current_node_;
    return cause;
  }

  static std::string runtime_assert_failure(const Env& env, ExprRef cond) {
    std::string msg = "Runtime assertion failed for expression " + to_sympy_string(cond);
    if (!env.current_node_.empty()) msg += " on node '" + env.current_node_ + "'";
    return msg;
  }
};

using In = ShapeEnvInternals;

// ---------------------------------------------------------------------------
// construction and symbols

std::string hint_text(const SymbolInfo& s) {
  if (s.hint) return std::to_string(*s.hint);
  if (s.float_hint) return python_float_repr(*s.float_hint);
  return "None";
}

std::string range_text(const SymbolInfo& s) { return s.is_float ? "[-oo, oo]" : s.range.to_string(); }

ShapeEnv::ShapeEnv(ShapeEnvSettings settings) : settings_(settings), log_(std::make_unique<DynamicLog>()) {}
ShapeEnv::~ShapeEnv() = default;

std::string ShapeEnv::fresh_name(std::string_view prefix) {
  int& counter = prefix == "u" ? next_unbacked_ : next_unbacked_float_;
  while (true) {
    std::string name = std::string(prefix) + std::to_string(counter++);
    if (!used_names_.count(name)) return name;
  }
}

// PyTorch's _generate_unique_id: the source name's SHA-256 modulo 100, then
// the next id up (no wrap) until one is free; s and zf share the ids. A name
// thus depends on its source, not on what was created before it.
std::string ShapeEnv::backed_name(std::string_view prefix, const std::string& source) {
  const uint32_t start = sha256_mod(source, 100);
  uint32_t id = start;
  for (auto it = backed_ids_.find(id); it != backed_ids_.end(); it = backed_ids_.find(id)) id = it->second;
  // Every id passed over is in use: point them all past the one taken now.
  for (uint32_t at = start; at != id;) {
    uint32_t& next = backed_ids_.at(at);
    at = next;
    next = id + 1;
  }
  reserve_backed_id(id);
  return std::string(prefix) + std::to_string(id);
}

namespace {

// N of a name s<N> or zf<N> (N without leading zeros), as backed_name makes them.
std::optional<uint32_t> backed_id_of(std::string_view name) {
  std::string_view digits = name.starts_with("zf") ? name.substr(2) : name.starts_with("s") ? name.substr(1) : "";
  if (digits.empty() || digits.size() > 9 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  uint32_t id = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    id = id * 10 + static_cast<uint32_t>(c - '0');
  }
  return id;
}

}  // namespace

ExprRef ShapeEnv::new_symbol(const std::string& name, SymbolInfo info) {
  facts_changed();
  ExprRef sym = info.is_float ? float_symbol(name) : symbol(name);
  info.sym = sym;
  used_names_.insert(name);
  // A name given by the model or graph (torch's s77 in an exported program)
  // takes its id, so that no hashed name repeats it.
  if (auto id = backed_id_of(name)) reserve_backed_id(*id);
  symbol_index_[sym] = symbols_.size();
  if (info.unbacked) unbacked_order_.push_back(sym);
  symbols_.push_back(std::move(info));
  if (debug_symbols_.count(name)) explain("create_symbol " + name, sym);
  return sym;
}

SymInt ShapeEnv::create_symbol(int64_t hint, const std::string& source, DimDynamic dyn, ValueRange constraint,
                               const std::string& preferred_name) {
  if (dyn == DimDynamic::Static) return SymInt(hint);
  if (settings_.specialize_zero_one && (hint == 0 || hint == 1)) return SymInt(hint);
  // A user range makes the size dynamic, never duck sized (as PyTorch's constraint_dim).
  bool duck = dyn == DimDynamic::Duck && settings_.duck_shape && constraint == ValueRange::unknown();
  if (duck) {
    if (auto it = hint_to_symbol_.find(hint); it != hint_to_symbol_.end()) {
      add_source(it->second, source);
      FP_LOG_DEBUG(*log_, "create_symbol " + it->second->name() + " duck sized " + source);
      return SymInt(it->second);
    }
  }
  ValueRange range{settings_.specialize_zero_one ? 2 : 0, kIntOo};
  range = range.intersect(constraint);
  if (!range.contains(hint))
    throw InputError("size " + std::to_string(hint) + " of " + source + " is not in range " + range.to_string());
  std::string name = preferred_name;
  if (!is_identifier(name) || used_names_.count(name)) name = backed_name("s", source);
  SymbolInfo info;
  info.hint = hint;
  info.range = range;
  info.creation_range = range;
  info.sources.push_back(source);
  info.node = current_node_;
  ExprRef sym = new_symbol(name, std::move(info));
  if (duck) hint_to_symbol_[hint] = sym;
  FP_LOG_INFO(*log_, "create_symbol " + name + " = " + std::to_string(hint) + " for " + source + " " +
                         range.to_string() + In::where(*this));
  return SymInt(sym);
}

ExprRef ShapeEnv::create_named_symbol(const std::string& name, std::optional<int64_t> hint, ValueRange range,
                                      const std::string& source) {
  if (range.is_empty()) throw InputError("empty range " + range.to_string() + " for " + source);
  if (hint && !range.contains(*hint))
    throw InputError("size " + std::to_string(*hint) + " of " + source + " is not in range " + range.to_string());
  // Without a source (a fallback's dim_param) the empty name is hashed, as
  // PyTorch would hash a source whose name is empty.
  std::string chosen = is_identifier(name) && !used_names_.count(name) ? name : backed_name("s", source);
  SymbolInfo info;
  info.hint = hint;
  info.range = range;
  // Without a hint nothing can be decided by example: the symbol behaves as a
  // size-like unbacked one (asserts instead of guards) but keeps its name.
  if (!hint) {
    info.unbacked = true;
    info.hintless = true;
    info.size_like = true;
    info.range = range.intersect({0, kIntOo});
  }
  if (!source.empty()) info.sources.push_back(source);
  info.node = current_node_;
  ExprRef sym = new_symbol(chosen, std::move(info));
  FP_LOG_INFO(*log_, "create_symbol " + chosen + " = " + (hint ? std::to_string(*hint) : "None") + " for " +
                         (source.empty() ? chosen : source) + " " + range.to_string() + In::where(*this));
  return sym;
}

ExprRef ShapeEnv::create_unbacked_symint(bool size_like, ValueRange range) {
  SymbolInfo info;
  info.unbacked = true;
  info.node = current_node_;
  std::string name = fresh_name("u");
  ExprRef sym = new_symbol(name, std::move(info));
  FP_LOG_INFO(*log_, "create_unbacked_symint " + name + " " + ValueRange::unknown().to_string() + In::where(*this));
  // _constrain_range_for_size narrows before it marks the symbol size-like,
  // so a bound under 2 (nonzero of one element: [0, 1]) is kept at creation.
  if (size_like) range = range.intersect({0, kIntOo});
  if (range != ValueRange::unknown()) constrain_symbol_range(sym, range);
  if (size_like) mutable_info(sym).size_like = true;
  return sym;
}

ExprRef ShapeEnv::create_unbacked_symfloat() {
  SymbolInfo info;
  info.unbacked = true;
  info.is_float = true;
  info.node = current_node_;
  std::string name = fresh_name("zuf");
  ExprRef sym = new_symbol(name, std::move(info));
  FP_LOG_INFO(*log_, "create_unbacked_symfloat " + name + " [-oo, oo]" + In::where(*this));  // a float range: sympy oo
  return sym;
}

ExprRef ShapeEnv::create_symfloat(double hint, const std::string& source) {
  SymbolInfo info;
  info.is_float = true;
  info.float_hint = hint;
  info.sources.push_back(source);
  info.node = current_node_;
  std::string name = backed_name("zf", source);
  ExprRef sym = new_symbol(name, std::move(info));
  FP_LOG_INFO(*log_, "create_symbol " + name + " = " + hint_text(ShapeEnv::info(sym)) + " for " + source + " " +
                         range_text(ShapeEnv::info(sym)) + In::where(*this));
  return sym;
}

ExprRef ShapeEnv::create_unbacked_symbool() {
  SymbolInfo info;
  info.unbacked = true;
  info.range = ValueRange::boolean();
  info.node = current_node_;
  std::string name = fresh_name("u");
  ExprRef sym = new_symbol(name, std::move(info));
  FP_LOG_INFO(*log_, "create_unbacked_symbool " + name + " " + ValueRange::boolean().to_string() + In::where(*this));
  return eq(sym, integer(1));
}

void ShapeEnv::constrain_symbol_range(ExprRef sym, ValueRange range, const std::string& reason) {
  const SymbolInfo& known = info(sym);  // throws for an unknown symbol
  (void)known;
  ExprRef target = simplify(sym);
  if (auto value = as_integer(target)) {
    if (!range.contains(*value))
      throw Error(sym->name() + " = " + std::to_string(*value) + " is not in range " + range.to_string());
    return;
  }
  if (!target->is_symbol()) return;  // replaced by an expression: its own range stays as it was
  if (!In::narrow_range(*this, target, range)) return;
  const ValueRange& now = info(target).range;
  FP_LOG_INFO(*log_, "constrain_symbol_range " + target->name() + " " + now.to_string());
  if (now.is_singleton())
    In::set_replacement(*this, target, integer(now.lo), "range_refined_to_singleton", In::Cause{nullptr, reason});
}

void ShapeEnv::add_source(ExprRef sym, const std::string& source) {
  SymbolInfo& i = mutable_info(sym);
  if (std::find(i.sources.begin(), i.sources.end(), source) == i.sources.end()) i.sources.push_back(source);
}

void ShapeEnv::mark_dynamic(ExprRef sym, std::optional<ValueRange> range) {
  SymbolInfo& i = mutable_info(sym);
  i.marked_dynamic = true;
  i.marked_range = range;
}

std::string marked_dim_specialized(const std::string& source, int64_t value) {
  return "You marked " + source + " as dynamic but your code specialized it to be a constant (" +
         std::to_string(value) +
         "). If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using "
         "Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO.";
}

void ShapeEnv::set_extended_debug(std::string guard_added, std::vector<std::string> create_symbol) {
  debug_guard_ = std::move(guard_added);
  debug_symbols_ = {create_symbol.begin(), create_symbol.end()};
}

void ShapeEnv::explain(const std::string& event, ExprRef e) const {
  std::string msg = event + (current_node_.empty() ? " while creating inputs" : " at node " + current_node_);
  if (node_context_ && !current_node_.empty())
    for (const std::string& line : node_context_()) msg += "\n    " + line;
  for (ExprRef s : free_symbols(e)) {
    const SymbolInfo* i = In::find(*this, s);
    if (!i) continue;
    msg += "\n    " + s->name() + ": ";
    if (!i->sources.empty()) msg += i->sources.front();
    else msg += "created at node " + (i->node.empty() ? std::string("?") : i->node);
    msg += i->unbacked ? ", unbacked" : ", backed";
    if (i->hint || i->float_hint) msg += ", hint " + hint_text(*i);
    msg += ", range " + range_text(*i);
  }
  log_->always(__FILE__, __LINE__, msg);
}

void ShapeEnv::note_constraint_violation(const std::string& source, const std::string& line) {
  noted_violations_.emplace_back(source, line);
}

bool ShapeEnv::is_symbol_known(ExprRef sym) const { return symbol_index_.count(sym) != 0; }

const SymbolInfo& ShapeEnv::info(ExprRef sym) const {
  const SymbolInfo* found = In::find(*this, sym);
  if (!found) throw Error("unknown symbol " + (sym ? to_sympy_string(sym) : std::string("<null>")));
  return *found;
}

SymbolInfo& ShapeEnv::mutable_info(ExprRef sym) {
  facts_changed();
  return const_cast<SymbolInfo&>(info(sym));
}

std::vector<const SymbolInfo*> ShapeEnv::symbols() const {
  std::vector<const SymbolInfo*> out;
  out.reserve(symbols_.size());
  for (const SymbolInfo& i : symbols_) out.push_back(&i);
  return out;
}

std::vector<ExprRef> ShapeEnv::take_new_unbacked() {
  std::vector<ExprRef> fresh(unbacked_order_.begin() + static_cast<std::ptrdiff_t>(unbacked_seen_),
                             unbacked_order_.end());
  unbacked_seen_ = unbacked_order_.size();
  return fresh;
}

// ---------------------------------------------------------------------------
// simplification and static reasoning

void ShapeEnv::refresh_memos() const {
  if (memo_version_ == facts_version_) return;
  if (simplify_memo_version_ != rewrite_version_) {
    for (auto& m : simplify_memo_) m.clear();
    simplify_memo_version_ = rewrite_version_;
  }
  for (auto& m : static_memo_) m.clear();
  memo_version_ = facts_version_;
}

ExprRef ShapeEnv::simplified(ExprRef e, bool size_oblivious) const {
  if (!e->has_symbols()) return e;
  refresh_memos();
  auto& memo = simplify_memo_[size_oblivious];
  if (auto it = memo.find(e); it != memo.end()) return it->second;
  ExprRef s = In::simplify(*this, e, size_oblivious);
  memo.emplace(e, s);
  return s;
}

ExprRef ShapeEnv::simplify(ExprRef e) const {
  if (!e->has_symbols()) return e;
  refresh_memos();
  auto& memo = simplify_memo_[2];
  if (auto it = memo.find(e); it != memo.end()) return it->second;
  ExprRef s = In::simplify(*this, e, false, true, /*for_value=*/true);
  memo.emplace(e, s);
  return s;
}

SymInt ShapeEnv::simplify(const SymInt& v) const {
  if (v.is_static()) return v;
  return SymInt(simplify(v.expr()));
}

ValueRange ShapeEnv::bound(ExprRef e, bool size_oblivious) const {
  return bound_expr(simplified(e, size_oblivious), In::ranges(*this, size_oblivious));
}

std::optional<double> ShapeEnv::symbol_float_hint(ExprRef sym) const {
  const SymbolInfo* i = In::find(*this, sym);
  return i && !i->unbacked ? i->float_hint : std::nullopt;
}

std::optional<int64_t> ShapeEnv::hint(ExprRef e) const {
  ExprRef s = simplify(e);
  if (auto v = as_integer(s)) return v;
  auto lookup = [this](ExprRef sym) -> std::optional<int64_t> {
    const SymbolInfo* i = In::find(*this, sym);
    if (!i || i->unbacked) return std::nullopt;
    return i->hint;
  };
  auto float_lookup = [this](ExprRef sym) { return symbol_float_hint(sym); };
  if (auto v = fakeprop::evaluate(s, lookup, float_lookup)) return v;
  ValueRange b = bound_expr(s, In::ranges(*this, false));
  if (b.is_singleton() && !b.lo_infinite() && !b.hi_infinite()) return b.lo;
  return std::nullopt;
}

std::optional<int64_t> ShapeEnv::hint(const SymInt& v) const {
  if (v.is_static()) return v.value();
  return hint(v.expr());
}

std::optional<double> ShapeEnv::float_hint(ExprRef e) const {
  ExprRef s = simplify(e);
  return fakeprop::evaluate_float(
      s, [this](ExprRef sym) { return hint(sym); }, [this](ExprRef sym) { return symbol_float_hint(sym); });
}

std::optional<bool> ShapeEnv::maybe_evaluate_static(ExprRef cond, bool size_oblivious) const {
  refresh_memos();
  auto& memo = static_memo_[size_oblivious];
  if (auto it = memo.find(cond); it != memo.end())
    return it->second == 2 ? std::nullopt : std::optional<bool>(it->second == 1);
  // A guard is recorded as its value (Max kept); asked again, it is known.
  ExprRef v = simplify(cond);
  std::optional<bool> known;
  if (known_true_.count(v)) known = true;
  else if (v->is_bool() && known_true_.count(logical_not(v))) known = false;
  ExprRef s = simplified(cond, size_oblivious);
  if (!known) known = In::static_value(*this, s, size_oblivious, /*use_facts=*/true);
  memo[cond] = known ? uint8_t(*known) : uint8_t(2);
  return known;
}

bool ShapeEnv::has_unbacked(ExprRef e) const {
  // Anything without a hint (unbacked, hint-less or foreign symbols) cannot be guarded on.
  for (ExprRef s : free_symbols(e)) {
    const SymbolInfo* i = In::find(*this, s);
    if (!i || i->unbacked || !(i->hint || i->float_hint)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// decisions

void ShapeEnv::record_guard(ExprRef decided, const char* rule) {
  bool duplicate = known_true_.count(decided) &&
                   std::any_of(guards_.begin(), guards_.end(), [&](const GuardRecord& g) { return g.expr == decided; });
  FP_LOG_INFO(*log_, "eval " + to_sympy_string(decided) + " [guard added]" + In::where(*this));
  if (duplicate) return;
  if (!debug_guard_.empty() && to_sympy_string(decided) == debug_guard_)
    explain("eval " + debug_guard_ + " [guard added] by rule " + (rule ? rule : "?"), decided);
  guards_.push_back({decided, current_node_, rule ? rule : ""});
  In::add_fact(*this, decided);
  maybe_refine(decided, rule, false);
}

void ShapeEnv::maybe_refine(ExprRef decided, const char* /*rule*/, bool /*is_runtime_assert*/) {
  In::refine(*this, decided, In::Cause{decided, {}});
}

void ShapeEnv::set_replacement(ExprRef sym, ExprRef target, const char* reason) {
  In::set_replacement(*this, sym, target, reason, In::Cause{});
}

void ShapeEnv::specialize(ExprRef sym, int64_t value, const char* reason) {
  In::set_replacement(*this, sym, integer(value), reason, In::Cause{});
}


void ShapeEnv::raise_data_dependent(ExprRef simplified, Extract what) const {
  const bool is_guard = what == Extract::Guard;
  Substitution hints;
  std::vector<std::string> size_like;
  for (ExprRef s : free_symbols(simplified)) {
    const SymbolInfo* i = In::find(*this, s);
    if (!i) continue;
    if (!i->unbacked && i->hint) hints.emplace(s, integer(*i->hint));
    if (!i->unbacked && i->float_hint) hints.emplace(s, float_const(*i->float_hint));
    if (In::size_oblivious_symbol(*this, *i)) size_like.push_back(s->name());
  }
  ExprRef hinted = hints.empty() ? simplified : substitute(simplified, hints);
  std::string size_like_text;
  for (const std::string& n : size_like) size_like_text += (size_like_text.empty() ? "" : ", ") + n;
  std::string msg = std::string(what == Extract::Int     ? "Could not extract specialized integer from data-dependent expression "
                                : what == Extract::Float ? "Could not extract specialized float from data-dependent expression "
                                                         : "Could not guard on data-dependent expression ") +
                    to_sympy_string(hinted) + " (unhinted: " + to_sympy_string(simplified) +
                    ").  (Size-like symbols: " + (size_like_text.empty() ? "none" : size_like_text) + ")\n\n";
  if (is_guard)
    msg += "consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and "
           "statically_known_true\n";
  msg += current_node_.empty() ? "Caused by: a decision outside any node\n"
                               : "Caused by: node '" + current_node_ + "'\n";
  msg += "For more information, run with TORCH_LOGS=\"dynamic\"";
  std::vector<std::string> fixes;
  if (is_guard) {
    fixes.push_back("torch._check(" + to_python_string(hinted) + ")");
    fixes.push_back("torch._check(" + to_python_string(logical_not(hinted)) + ")");
    msg += "\nTo fix the error, insert one of the following checks before this call:";
    for (size_t i = 0; i < fixes.size(); ++i) msg += "\n  " + std::to_string(i + 1) + ". " + fixes[i];
  }
  throw DataDependentError(msg, hinted, std::move(fixes));
}

std::optional<int64_t> ShapeEnv::concrete_value(ExprRef e) const {
  if (std::optional<int64_t> h = hint(e)) return h;
  return real_values_.empty() ? std::nullopt : real_value_of(simplify(e));
}

std::optional<int64_t> ShapeEnv::real_value_of(ExprRef s) const {
  if (real_values_.empty()) return std::nullopt;
  auto lookup = [this](ExprRef sym) -> std::optional<int64_t> {
    const SymbolInfo* i = In::find(*this, sym);
    if (!i) return std::nullopt;
    if (i->unbacked || !i->hint) {
      const auto it = real_values_.find(sym->name());
      return it == real_values_.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    return i->hint;
  };
  return fakeprop::evaluate(s, lookup, [this](ExprRef sym) { return symbol_float_hint(sym); });
}

void ShapeEnv::decide_by_real_values(ExprRef s, ExprRef decided, int64_t result, bool is_int, const char* rule) {
  FP_LOG_INFO(*log_, "propagate_real_tensors evaluate_expr(" + to_sympy_string(s) + ") -> " +
                         (is_int ? std::to_string(result) : bool_text(result != 0)) + In::where(*this));
  real_decisions_.push_back({s, result, is_int, current_node_});
  if (record_runtime_assert(decided, rule)) {
    In::add_fact(*this, decided);
    maybe_refine(decided, rule, true);
  }
}

bool ShapeEnv::evaluate(const SymBool& cond, const char* rule) {
  if (cond.is_static()) return cond.value();
  ExprRef orig = cond.expr();
  if (auto known = maybe_evaluate_static(orig)) {
    FP_LOG_DEBUG(*log_, "eval " + to_sympy_string(orig) + " == " + bool_text(*known) + " [statically known]");
    return *known;
  }
  ExprRef s = simplify(orig);
  if (has_unbacked(s)) {
    if (const std::optional<int64_t> real = real_value_of(s)) {
      decide_by_real_values(s, *real != 0 ? s : logical_not(s), *real != 0, false, rule);
      return *real != 0;
    }
    raise_data_dependent(s, Extract::Guard);
  }
  auto h = hint(s);
  if (!h) raise_data_dependent(s, Extract::Guard);
  bool value = *h != 0;
  record_guard(value ? s : logical_not(s), rule);
  return value;
}

int64_t ShapeEnv::evaluate_int(const SymInt& v, const char* rule) {
  if (v.is_static()) return v.value();
  ExprRef s = simplify(v.expr());
  if (auto value = as_integer(s)) return *value;
  ValueRange b = bound_expr(s, In::ranges(*this, false));
  if (b.is_singleton() && !b.lo_infinite() && !b.hi_infinite()) {
    FP_LOG_DEBUG(*log_, "eval " + to_sympy_string(v.expr()) + " == " + std::to_string(b.lo) + " [statically known]");
    return b.lo;
  }
  if (has_unbacked(s)) {
    if (const std::optional<int64_t> real = real_value_of(s)) {
      decide_by_real_values(s, eq(s, integer(*real)), *real, true, rule);
      return *real;
    }
    raise_data_dependent(s, Extract::Int);
  }
  auto h = hint(s);
  if (!h) raise_data_dependent(s, Extract::Int);
  record_guard(eq(s, integer(*h)), rule);
  return *h;
}

double ShapeEnv::evaluate_float(ExprRef v, const char* rule) {
  ExprRef s = simplify(v);
  if (auto value = as_float(s)) return *value;
  if (!s->is_float()) s = to_float(s);
  if (has_unbacked(s)) raise_data_dependent(s, Extract::Float);
  const std::optional<double> h = float_hint(s);
  if (!h) raise_data_dependent(s, Extract::Float);
  // A NaN equals nothing, so no guard could hold it; PyTorch specializes
  // NaN inputs before they become symbols.
  if (!std::isnan(*h)) record_guard(eq(s, float_const(*h)), rule);
  return *h;
}

bool ShapeEnv::statically_known_true(const SymBool& cond) const {
  if (cond.is_static()) return cond.value();
  return maybe_evaluate_static(cond.expr()) == std::optional<bool>(true);
}

namespace {
bool guard_or_default(ShapeEnv& env, const SymBool& cond, const char* rule, bool fallback) {
  if (cond.is_static()) return cond.value();
  if (auto known = env.maybe_evaluate_static(cond.expr())) return *known;
  ExprRef s = env.simplify(cond.expr());
  if (!env.hint(s)) {
    FP_LOG_INFO(env.log(), "could not evaluate " + to_sympy_string(s) + " due to data dependency, it was assumed to be " +
                               bool_text(fallback) + " with no runtime assertions" +
                               (env.current_node().empty() ? "" : " at " + env.current_node()));
    return fallback;
  }
  return env.evaluate(cond, rule);
}
}  // namespace

bool ShapeEnv::guard_or_false(const SymBool& cond, const char* rule) {
  return guard_or_default(*this, cond, rule, false);
}

bool ShapeEnv::guard_or_true(const SymBool& cond, const char* rule) {
  return guard_or_default(*this, cond, rule, true);
}

bool ShapeEnv::guard_size_oblivious(const SymBool& cond, const char* rule) {
  if (cond.is_static()) return cond.value();
  ExprRef orig = cond.expr();
  if (auto known = maybe_evaluate_static(orig, /*size_oblivious=*/true)) {
    FP_LOG_DEBUG(*log_, "eval size_oblivious(" + to_sympy_string(orig) + ") == " + bool_text(*known) +
                            " [statically known]");
    return *known;
  }
  ExprRef s = simplify(orig);
  if (has_unbacked(s) && !real_value_of(s)) raise_data_dependent(s, Extract::Guard);
  return evaluate(cond, rule);
}

bool ShapeEnv::expect_true(const SymBool& cond, const char* rule) {
  if (cond.is_static()) return cond.value();
  if (maybe_evaluate_static(cond.expr()) == std::optional<bool>(true)) return true;
  if (has_unbacked(simplify(cond.expr()))) {
    defer_runtime_assert(cond, rule);
    return true;
  }
  return evaluate(cond, rule);
}

void ShapeEnv::defer_runtime_assert(const SymBool& cond, const char* rule) {
  ExprRef orig = cond.is_static() ? (cond.value() ? true_expr() : false_expr()) : cond.expr();
  std::optional<bool> known = as_bool(orig);
  if (!known) known = maybe_evaluate_static(orig);
  if (known) {
    FP_LOG_DEBUG(*log_, "runtime_assert " + to_sympy_string(orig) + " == " + bool_text(*known) +
                            " [statically known]");
    if (*known) return;
    // Inside a branch this only says that the branch must not run.
    if (in_branch()) record_runtime_assert(logical_not(branch_assumption()), rule);
    throw Error(In::runtime_assert_failure(*this, orig) +
                (in_branch() ? " (inside a branch, which therefore must not run)" : ""));
  }
  ExprRef s = simplify(orig);
  if (in_branch()) {  // an implication, even over backed sizes: the branch may not run
    record_runtime_assert(logical_or(logical_not(branch_assumption()), s), rule);
    In::add_fact(*this, s);
    In::refine_in_branch(*this, s, branches_.back().symbols_before);
    return;
  }
  if (!has_unbacked(s)) {  // every symbol has a hint: an ordinary guard
    if (!evaluate(cond, rule)) throw Error(In::runtime_assert_failure(*this, s));
    return;
  }
  if (record_runtime_assert(s, rule)) {
    In::add_fact(*this, s);
    maybe_refine(s, rule, true);
  }
}

bool ShapeEnv::record_runtime_assert(ExprRef s, const char* rule) {
  FP_LOG_INFO(*log_, "runtime_assert " + to_sympy_string(s) + " [guard added]" + In::where(*this));
  bool duplicate = std::any_of(runtime_asserts_.begin(), runtime_asserts_.end(),
                               [&](const GuardRecord& g) { return g.expr == s; });
  if (duplicate) return false;
  if (!debug_guard_.empty() && to_sympy_string(s) == debug_guard_)
    explain("runtime_assert " + debug_guard_ + " [guard added] by rule " + (rule ? rule : "?"), s);
  runtime_asserts_.push_back({s, current_node_, rule ? rule : ""});
  return true;
}

// ---------------------------------------------------------------------------
// branches

void ShapeEnv::push_branch(ExprRef cond, bool negated) {
  branches_.push_back({cond, negated, current_node_, known_true_, guards_.size(), replacements_.size(), symbols_.size()});
  if (cond) In::add_fact(*this, negated ? logical_not(cond) : cond);
}

ExprRef ShapeEnv::branch_condition(Branch& b) {
  if (!b.cond) {
    std::string node = std::exchange(current_node_, b.node);
    b.cond = create_unbacked_symbool();
    current_node_ = std::move(node);
  }
  return b.negated ? logical_not(b.cond) : b.cond;
}

ExprRef ShapeEnv::branch_assumption() {
  std::vector<ExprRef> conds;
  for (Branch& b : branches_) conds.push_back(branch_condition(b));
  return simplify(logical_and(conds));
}

ExprRef ShapeEnv::pop_branch() {
  Branch b = std::move(branches_.back());
  branches_.pop_back();
  // The branch's own facts go; its guards' facts stay, rewritten under any
  // replacement a guard made meanwhile.
  known_true_ = std::move(b.facts_before);
  if (replacements_.size() != b.replacements_before) {
    std::vector<ExprRef> kept(known_true_.begin(), known_true_.end());
    std::sort(kept.begin(), kept.end(), by_id);
    known_true_.clear();
    for (ExprRef f : kept) In::add_fact(*this, simplify(f));
  }
  for (size_t k = b.guards_before; k < guards_.size(); ++k) In::add_fact(*this, simplify(guards_[k].expr));
  facts_changed();
  return b.cond;
}

// ---------------------------------------------------------------------------
// results

std::vector<std::pair<ExprRef, int64_t>> ShapeEnv::divisibility_facts() const {
  std::vector<std::pair<ExprRef, int64_t>> out(divisible_.begin(), divisible_.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first->id() < b.first->id(); });
  return out;
}

std::string ShapeEnv::source_of(ExprRef sym) const {
  const SymbolInfo* i = In::find(*this, sym);
  if (i && !i->sources.empty()) return i->sources.front();
  return sym->is_symbol() ? sym->name() : to_sympy_string(sym);
}

std::string ShapeEnv::print_over_sources(ExprRef e) const {
  return to_guard_string(e, [this](ExprRef sym) { return source_of(sym); });
}

// "L['x'].size()[0]", "L['x'].stride()[1]", "L['x'].storage_offset()": a
// TensorPropertySource in torch's terms.
static bool is_tensor_property_source(const std::string& source) {
  return source.ends_with(".storage_offset()") ||
         (source.ends_with("]") && (source.find(".size()[") != std::string::npos ||
                                    source.find(".stride()[") != std::string::npos));
}

std::vector<ProducedGuard> ShapeEnv::produce_guards() const {
  FP_LOG_INFO(*log_, "produce_guards");
  std::vector<ProducedGuard> out;
  std::unordered_set<std::string> emitted;
  auto emit = [&](std::string expr, std::string sym_expr, std::string node, std::string rule = "") {
    if (emitted.insert(expr).second)
      out.push_back({std::move(expr), std::move(sym_expr), std::move(node), std::move(rule)});
  };

  // A symbol is printed as the first input source (in creation order) of all
  // the symbols that stand for it now, as PyTorch collects the sources under
  // the replaced symbol: s77 = s17 prints s17 as L['x'].size()[0] when x came
  // first. Which symbol is replaced follows the names, the sources do not.
  std::unordered_map<ExprRef, const std::string*> first_source;
  std::vector<ExprRef> by_first_source;  // those symbols, in that order
  for (const SymbolInfo& i : symbols_) {
    if (i.sources.empty()) continue;
    ExprRef now = simplify(i.sym);
    if (now->is_symbol() && first_source.try_emplace(now, &i.sources.front()).second) by_first_source.push_back(now);
  }
  auto over_sources = [&](ExprRef e) {
    return to_guard_string(e, [&](ExprRef sym) {
      auto it = first_source.find(sym);
      return it != first_source.end() ? *it->second : source_of(sym);
    });
  };

  // 1. Every input source equals the expression its symbol stands for now;
  // not a tensor's size, stride or offset that is now a constant: Dynamo's
  // tensor match checks those (produce_guards' ignore_static), and the report
  // holds them as the input's static size and a specialization.
  for (const SymbolInfo& i : symbols_) {
    if (i.sources.empty()) continue;
    ExprRef target = simplify(i.sym);
    if (as_integer(target) && std::all_of(i.sources.begin(), i.sources.end(), is_tensor_property_source)) continue;
    const std::string* first = target->is_symbol() && first_source.count(target) ? first_source[target] : nullptr;
    const std::string sym_expr = i.sym->name() + " == " + to_python_string(target);
    for (const std::string& src : i.sources)
      if (!first || src != *first) emit(src + " == " + over_sources(target), sym_expr, "");
  }

  // Input strides that are expressions over the sizes (a constant one is the
  // tensor match's static stride, which PyTorch skips here).
  for (const auto& [src, e] : input_properties_) {
    ExprRef now = simplify(e);
    if (!as_integer(now)) emit(src + " == " + over_sources(now), src + " == " + to_python_string(now), "");
  }

  // 2. Every guard not implied by replacements and ranges alone.
  std::unordered_set<ExprRef> issued;
  for (const GuardRecord& g : guards_) {
    ExprRef s = In::simplify(*this, g.expr, false, /*use_facts=*/false);
    // torch's simplify divides exactly where Mod(p, q) == 0 is known, with the
    // divisibility of every guard by the end: p // (p // 6) of a p divisible
    // by both prints as 6.
    if (contains_kind(s, ExprKind::FloorDiv)) s = In::exact_divisions(*this, s);
    if (In::static_value(*this, s, false, /*use_facts=*/false)) continue;
    if (!issued.insert(s).second) continue;
    emit(over_sources(s), to_python_string(s), g.node, g.rule);
  }

  // 3. Every input symbol stays in its range, in the order of its first source.
  for (ExprRef sym : by_first_source) {
    const SymbolInfo* found = In::find(*this, sym);
    if (!found || found->sources.empty() || replacements_.count(sym)) continue;
    const SymbolInfo& i = *found;
    const ValueRange& r = i.range;
    // torch prints every finite lower end of a symbol with a source, so an
    // unbacked input size (mark_unbacked) gets "0 <= ...". A backed or
    // hintless size leaves out a lower end of 0: it would stand beside every
    // dim of a model whose sizes are not given, and a size is never negative.
    const bool vacuous_lo = r.lo_infinite() || (i.size_like && (!i.unbacked || i.hintless) && r.lo <= 0);
    const std::string& src = *first_source[sym];
    const std::string name = i.sym->name();
    if (!vacuous_lo || !r.hi_infinite()) {
      std::string lo = vacuous_lo ? "" : std::to_string(r.lo) + " <= ";
      std::string hi = r.hi_infinite() ? "" : " <= " + std::to_string(r.hi);
      emit(lo + src + hi, lo + name + hi, "");
    }
    // A float input is assumed not NaN, as torch's framework specializes it
    // (an equality guard on a NaN would hold nothing it claims).
    if (i.is_float) emit("not math.isnan(" + src + ")", "not math.isnan(" + name + ")", "");
  }
  return out;
}

// _render_range_for_constraint_violation: the ends of the user's range that
// say more than the default range ([2, int_oo], [0, int_oo] without 0/1
// specialization), " 4 <= x <= 16", " x <= 16" or " 4 <= x"; "" for neither.
static std::string range_for_violation(const std::string& name, const ValueRange& r, bool specialize_zero_one) {
  const int64_t default_lo = specialize_zero_one ? 2 : 0;
  const bool lo = !r.lo_infinite() && r.lo > default_lo;
  const bool hi = !r.hi_infinite();
  if (lo && hi) return " " + std::to_string(r.lo) + " <= " + name + " <= " + std::to_string(r.hi);
  if (hi) return " " + name + " <= " + std::to_string(r.hi);
  if (lo) return " " + std::to_string(r.lo) + " <= " + name;
  return "";
}

std::string ShapeEnv::constraint_violations() const {
  std::set<std::string> names;
  std::vector<std::string> lines;
  for (const auto& [src, line] : noted_violations_) {
    names.insert(src);
    lines.push_back("  - " + line);
  }
  // Symbols by what they stand for now, in creation order (input order).
  std::unordered_map<ExprRef, std::vector<const SymbolInfo*>> classes;
  for (const SymbolInfo& i : symbols_)
    if (ExprRef now = simplify(i.sym); now->is_symbol()) classes[now].push_back(&i);
  auto strict = [](const SymbolInfo* i) { return i->marked_dynamic && i->marked_range.has_value(); };
  for (const SymbolInfo& i : symbols_) {
    if (!i.marked_dynamic) continue;
    const std::string src = source_of(i.sym);
    ExprRef now = simplify(i.sym);
    if (auto value = as_integer(now)) {
      if (!strict(&i) && (*value == 0 || *value == 1)) continue;  // PyTorch expects to compile these anyway
      names.insert(src);
      lines.push_back("  - " + marked_dim_specialized(src, *value));
      continue;
    }
    if (!strict(&i)) continue;  // a relaxed mark allows any guard short of a constant
    if (!now->is_symbol()) {  // an expression over other inputs' sizes
      names.insert(src);
      lines.push_back("  - The values of " + src + " = " + src + " and " + print_over_sources(now) + " = " +
                      print_over_sources(now) + " must always be equal.");
      continue;
    }
    // Unified with other inputs' sizes: as torch.export's produce_guards, every
    // source but the class's first must be declared equal to it (a shared
    // shape_id) unless either is relaxed (no range). Which symbol was replaced
    // does not matter.
    const std::vector<const SymbolInfo*>& members = classes[now];
    const SymbolInfo* first = members.front();
    if (&i != first && strict(first) && !(i.declared_equal && simplify(i.declared_equal) == now)) {
      names.insert(src);
      const std::string f = source_of(first->sym);
      lines.push_back("  - The values of " + src + " = " + src + " and " + f + " = " + f + " must always be equal.");
      continue;
    }
    // A guard over this symbol alone that some value of the marked range fails.
    // Values are tried from the low end (4096 of them): a violation reported
    // is real; one that only values beyond them would show is missed.
    const ValueRange wanted = *i.marked_range;
    const int64_t lo = wanted.lo_infinite() ? 0 : wanted.lo;
    const int64_t hi = wanted.hi_infinite() ? lo + 4095 : std::min(wanted.hi, lo + 4095);
    bool by_guard = false;
    for (const GuardRecord& g : guards_) {
      const auto syms = free_symbols(g.expr);  // as recorded: simplified, a decided guard is true
      if (syms.size() != 1 || simplify(syms.front()) != now) continue;
      bool fails = false;
      for (int64_t v = lo; v <= hi && !fails; ++v) {
        auto ok = fakeprop::evaluate(g.expr, Assignment{{syms.front(), v}});
        fails = ok && *ok == 0;
      }
      if (!fails) continue;
      by_guard = true;
      names.insert(src);
      lines.push_back("  - Not all values of " + src + " = " + src + " in the specified range" +
                      range_for_violation(src, wanted, settings_.specialize_zero_one) + " satisfy the generated guard " +
                      print_over_sources(g.expr) + ".");
    }
    // The symbol's own range, which produce_guards prints as its bounds: an
    // unbacked size narrowed by runtime asserts (mark_unbacked's min/max beside
    // mark_dynamic's range) has no guard, but its bounds leave out part of the
    // marked range.
    const SymbolInfo* info = In::find(*this, now);
    if (by_guard || !info) continue;
    const ValueRange r = info->range;
    const ValueRange asked = wanted.intersect({settings_.specialize_zero_one ? 2 : 0, kIntOo});
    if (asked.is_empty() || r.contains(asked)) continue;
    std::string bounds;
    if (!r.lo_infinite()) bounds = std::to_string(r.lo) + " <= " + src;
    if (!r.hi_infinite()) bounds += (bounds.empty() ? "" : " and ") + src + " <= " + std::to_string(r.hi);
    names.insert(src);
    lines.push_back("  - Not all values of " + src + " = " + src + " in the specified range" +
                    range_for_violation(src, wanted, settings_.specialize_zero_one) + " satisfy the generated guard " +
                    bounds);
  }
  if (lines.empty()) return "";
  std::string joined_names;
  for (const std::string& n : names) joined_names += (joined_names.empty() ? "" : ", ") + n;
  std::string msg = "Constraints violated (" + joined_names + ")! For more information, run with TORCH_LOGS=\"+dynamic\".";
  for (const std::string& l : lines) msg += "\n" + l;
  return msg;
}

}  // namespace fakeprop
