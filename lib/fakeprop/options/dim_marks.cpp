#include "fakeprop/options/dim_marks.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/value/run_result.h"
#include "fakeprop/sym/parse.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

// Splits on commas outside parentheses (predicates may call max(a, b)).
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  parts.push_back(cur);
  return parts;
}

int64_t parse_int(const std::string& mark, const std::string& key, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw InputError("--mark " + mark + ": " + key + "=" + text + " is not an integer");
  return v;
}

// The predicate over the dim's size `size`; InputError when it is not one.
ExprRef parse_predicate(const std::string& mark, const std::string& pred, ExprRef size) {
  ExprRef e = parse_expr(pred, [&](std::string_view name) -> ExprRef {
    if (name != "x")
      throw InputError("--mark " + mark + ": specialize_on=" + pred + ": only `x` (the dim's size) may appear");
    return size;
  });
  if (!e->is_bool()) throw InputError("--mark " + mark + ": specialize_on=" + pred + " is not a condition");
  return e;
}

// torch's create_symbol, when a one-value range meets another size.
InputError static_constraint_mismatch(int64_t v, int64_t size, const std::string& dsrc) {
  return InputError("Static shape constraint of " + std::to_string(v) + " does not match input size of " +
                    std::to_string(size) + ", for " + dsrc);
}

}  // namespace

ValueRange DimMarkOptions::range() const {
  return ValueRange{min.value_or(-kIntOo), max.value_or(kIntOo)};
}

void DimMarks::add(const std::string& raw) {
  std::string text;
  for (char c : raw)
    if (c != ' ') text += c;
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--mark " + raw + ": expected SPEC=KIND[,OPTION...], e.g. \"L['x']:0=unbacked,min=2,max=64\"");
  DimMarkOptions m;
  m.text = raw;
  m.spec = text.substr(0, eq);
  const std::vector<std::string> parts = split_top_level(text.substr(eq + 1));
  const std::string& kind = parts.front();
  if (kind == "dynamic") m.kind = MarkKind::Dynamic;
  else if (kind == "maybe_dynamic") m.kind = MarkKind::MaybeDynamic;
  else if (kind == "unbacked") m.kind = MarkKind::Unbacked;
  else if (kind == "static") m.kind = MarkKind::Static;
  else throw InputError("--mark " + raw + ": unknown kind '" + kind + "'; expected dynamic, maybe_dynamic, unbacked or static");
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& opt = parts[i];
    const size_t oe = opt.find('=');
    const std::string key = opt.substr(0, oe);
    const std::string value = oe == std::string::npos ? "" : opt.substr(oe + 1);
    const bool has_value = oe != std::string::npos;
    if (key == "strict" && !has_value) m.strict = true;
    else if (key == "min" && has_value) m.min = parse_int(raw, key, value);
    else if (key == "max" && has_value) m.max = parse_int(raw, key, value);
    else if (key == "hint_override" && has_value) m.hint_override = parse_int(raw, key, value);
    else if (key == "shape_id" && has_value && !value.empty()) m.shape_id = value;
    else if (key == "specialize_on" && has_value && !value.empty()) {
      parse_predicate(raw, value, symbol("x"));  // refuse a bad predicate now, not in the run
      m.specialize_on.push_back(value);
    } else {
      throw InputError("--mark " + raw + ": unknown option '" + opt +
                       "'; expected min=N, max=N, shape_id=ID, strict, specialize_on=PRED or hint_override=N");
    }
  }
  if (m.min && m.max && *m.min > *m.max)
    throw InputError("--mark " + raw + ": min " + std::to_string(*m.min) + " is above max " + std::to_string(*m.max));
  if (m.min && *m.min < 0) throw InputError("--mark " + raw + ": min must not be negative");
  if (m.kind == MarkKind::Static && (m.min || m.max || m.strict || m.hint_override || !m.specialize_on.empty()))
    throw InputError("--mark " + raw + ": a static dim takes no options other than shape_id");
  SourceSpecs matcher;
  matcher.add(DimMark::Dynamic, m.spec);  // validates the spec; one entry
  marks_.push_back(std::move(m));
  matchers_.push_back(std::move(matcher));
}

// torch 2.15 keeps a tensor's marks as attributes that each call edits:
// mark_dynamic sets the dim dynamic, replaces its range (none without min/max)
// and takes it over from maybe_mark_dynamic; maybe_mark_dynamic is ignored on a
// dim mark_dynamic holds; mark_unbacked records bounds of its own, and with
// strict=True records only the strictness. builder.py then reads them: unbacked
// wins, then mark_dynamic's constraint, then a maybe_mark_dynamic range (a
// warning only), then strictness; a static mark loses to any of them.
std::optional<DimMarkOptions> DimMarks::for_dim(const std::string& tensor_source, int64_t dim) const {
  const DimMarkOptions* dynamic = nullptr;  // the dim's range holder: mark_dynamic or maybe_mark_dynamic
  bool marked_dynamic = false, unbacked = false, strict_unbacked = false;
  const DimMarkOptions *unbacked_mark = nullptr, *last = nullptr;
  std::optional<int64_t> hint_override;
  std::string shape_id;
  std::optional<size_t> specializing;  // the entry whose specialize_on list holds
  for (size_t i = 0; i < marks_.size(); ++i) {
    if (matchers_[i].classify(tensor_source, dim) == DimMark::Unmarked) continue;
    const DimMarkOptions& m = marks_[i];
    last = &m;
    if (!m.shape_id.empty() && !(m.kind == MarkKind::Unbacked && m.strict)) shape_id = m.shape_id;
    switch (m.kind) {
      case MarkKind::Dynamic:
        marked_dynamic = true;
        dynamic = &m;
        if (m.hint_override) hint_override = m.hint_override;
        specializing = i;
        break;
      case MarkKind::MaybeDynamic:
        if (marked_dynamic) break;
        dynamic = &m;
        if (!m.specialize_on.empty()) specializing = i;  // fakeprop's extension: torch's takes none
        break;
      case MarkKind::Unbacked:
        if (m.strict) {
          strict_unbacked = true;
          break;
        }
        unbacked = true;
        unbacked_mark = &m;
        if (m.hint_override) hint_override = m.hint_override;
        specializing = i;
        break;
      case MarkKind::Static: break;
    }
  }
  if (!last) return std::nullopt;
  DimMarkOptions c;
  c.text = last->text;
  c.spec = last->spec;
  c.hint_override = hint_override;
  if (specializing) {
    c.specialize_on = marks_[*specializing].specialize_on;
    c.active_predicate = marks_[*specializing].active_predicate;
  }
  c.shape_id = shape_id;
  const bool ranged = dynamic && (dynamic->min || dynamic->max);
  if (unbacked) {
    c.kind = MarkKind::Unbacked;
    c.min = unbacked_mark->min;
    c.max = unbacked_mark->max;
    c.strict = marked_dynamic || (strict_unbacked && !ranged);
    if (marked_dynamic && ranged) c.unbacked_constraint = dynamic->range().intersect({0, kIntOo});
  } else if (dynamic) {
    c.kind = dynamic->kind;
    c.min = dynamic->min;
    c.max = dynamic->max;
    c.strict = strict_unbacked && !marked_dynamic && !ranged;
  } else if (strict_unbacked) {
    // torch 2.15's mark_unbacked(strict=True) alone: a backed dim without a
    // range whose specialization is a constraint violation.
    c.kind = MarkKind::MaybeDynamic;
    c.strict = true;
  } else {
    c.kind = MarkKind::Static;
  }
  return c;
}

void DimMarks::check_all_matched(const std::vector<std::string>& sources) const {
  for (size_t i = 0; i < marks_.size(); ++i) {
    try {
      matchers_[i].check_all_matched(sources);
    } catch (const InputError& e) {
      throw InputError("--mark " + marks_[i].text + ": " + e.what());
    }
  }
}

DimPlan plan_input_dim(const InferOptions& o, const std::string& tensor_source, int64_t dim, bool fixed_in_model) {
  DimPlan plan;
  const DimMark by_specs = o.specs.classify(tensor_source, dim);
  if (by_specs == DimMark::Static) {
    plan.mark = DimMark::Static;
    return plan;
  }
  if (std::optional<DimMarkOptions> combined = o.marks.for_dim(tensor_source, dim)) {
    const DimMarkOptions* m = &*combined;
    switch (m->kind) {
      case MarkKind::Static: plan.mark = DimMark::Static; break;
      case MarkKind::Unbacked: plan.mark = DimMark::Unbacked; break;
      case MarkKind::Dynamic:
      case MarkKind::MaybeDynamic: plan.mark = DimMark::Dynamic; break;
    }
    plan.options = std::make_shared<const DimMarkOptions>(std::move(*combined));
    return plan;
  }
  plan.mark = by_specs;
  if (plan.mark == DimMark::Unmarked && fixed_in_model && !o.assume_static_by_default) {
    plan.mark = DimMark::Dynamic;
    plan.duck = true;
  }
  return plan;
}

SymInt InputDimFactory::create(const DimPlan& plan, const std::string& tensor_source, int64_t dim,
                               std::optional<int64_t> hint, const std::string& preferred_name) {
  const std::string dsrc = SourceSpecs::size_source(tensor_source, dim);
  const DimMarkOptions* m = plan.options.get();
  SymInt size;
  switch (plan.mark) {
    case DimMark::Unmarked: throw Error("internal: InputDimFactory::create on an unmarked dim " + dsrc);
    case DimMark::Static:
      if (!hint) throw InputError(dsrc + " is marked static but has no size; give one with --input");
      size = *hint;
      break;
    case DimMark::Unbacked: {
      // create_symbol's check comes first: mark_dynamic(min=v, max=v) beside
      // mark_unbacked makes the dim the static v.
      if (m && m->unbacked_constraint && m->unbacked_constraint->is_singleton()) {
        const int64_t v = m->unbacked_constraint->lo;
        if (hint && *hint != v) throw static_constraint_mismatch(v, *hint, dsrc);
        size = SymInt(v);
        break;
      }
      ExprRef u = env_.create_unbacked_symint(true);
      env_.add_source(u, dsrc);
      if (m) {
        // mark_unbacked's min/max are checks on the value (runtime asserts).
        if (m->min) env_.defer_runtime_assert(SymBool(ge(u, integer(*m->min))), "mark_unbacked(min)");
        if (m->max) env_.defer_runtime_assert(SymBool(le(u, integer(*m->max))), "mark_unbacked(max)");
        if (m->is_strict()) env_.mark_dynamic(u, m->unbacked_constraint);
        if (m->hint_override) env_.set_hint_override(u, *m->hint_override);
      }
      size = SymInt(u);
      if (m && m->active_predicate) {
        int64_t h = m->hint_override.value_or(m->min.value_or(2));
        apply_predicate(*m, dsrc, size, h);
      }
      break;
    }
    case DimMark::Dynamic:
      if (!hint) {  // a dim_param without a hint: hintless, as the front ends make them
        ExprRef s = env_.create_named_symbol(preferred_name, std::nullopt,
                                             m ? m->range().intersect({0, kIntOo}) : ValueRange{0, kIntOo}, dsrc);
        if (m && m->is_strict()) env_.mark_dynamic(s, m->marked_range({0, kIntOo}));
        size = SymInt(s);
        break;
      }
      size = create_dynamic(plan, tensor_source, dim, *hint, preferred_name);
      break;
  }
  if (m && !m->shape_id.empty()) shape_ids_.push_back({m->shape_id, dsrc, size});
  return size;
}

SymInt InputDimFactory::create_dynamic(const DimPlan& plan, const std::string& tensor_source, int64_t dim,
                                       int64_t hint, const std::string& preferred_name) {
  const std::string dsrc = SourceSpecs::size_source(tensor_source, dim);
  const DimMarkOptions* m = plan.options.get();
  if (m && m->active_predicate) {
    // A specialize_on run: the hint must satisfy the predicate it assumes.
    SymInt probe(hint);
    if (apply_predicate(*m, dsrc, probe, hint)) return probe;
  }
  // torch's create_symbol: a StrictMinMaxConstraint of one value
  // (mark_dynamic(min=v, max=v)) makes the dim static, and another size an error.
  // maybe_mark_dynamic(min=v, max=v) gives one too (warn_only, which this
  // check does not read).
  if (m && (m->is_strict() || m->kind == MarkKind::MaybeDynamic))
    if (const std::optional<ValueRange> r = m->marked_range({0, kIntOo}); r && r->is_singleton()) {
      if (r->lo != hint) throw static_constraint_mismatch(r->lo, hint, dsrc);
      return SymInt(hint);
    }
  const DimDynamic dyn = plan.duck && !m && preferred_name.empty() ? DimDynamic::Duck : DimDynamic::Dynamic;
  SymInt size = env_.create_symbol(hint, dsrc, dyn, m ? m->range() : ValueRange{}, preferred_name);
  if (size.is_static()) {
    record_zero_one(tensor_source, dim, size.value());
    // 0/1 specialization breaks a mark only when it has a range (StrictMinMaxConstraint).
    if (m && m->is_strict() && (m->marked_range({0, kIntOo}) || (size.value() != 0 && size.value() != 1)))
      env_.note_constraint_violation(dsrc, marked_dim_specialized(dsrc, size.value()));
    return size;
  }
  if (m && m->is_strict()) env_.mark_dynamic(size.expr(), m->marked_range({2, kIntOo}));
  if (m && m->hint_override) env_.set_hint_override(size.expr(), *m->hint_override);
  if (m && m->active_predicate) apply_predicate(*m, dsrc, size, hint);
  return size;
}

void InputDimFactory::record_zero_one(const std::string& tensor_source, int64_t dim, int64_t value) {
  const std::string dsrc = SourceSpecs::size_source(tensor_source, dim);
  const std::string spec = tensor_source + ":" + std::to_string(dim);
  specializations_.push_back({dsrc, value,
                              "0/1 specialization: the size is " + std::to_string(value) +
                                  ", and sizes 0 and 1 are specialized (as PyTorch does); use --unbacked " + spec +
                                  " to keep it symbolic, or give a hint of 2 or more with --input"});
  warnings_.push_back({"", ErrorKind::SpecializedInput,
                       dsrc + " stays " + std::to_string(value) + ": " + specializations_.back().reason});
}

// Assumes the run's specialize_on predicate: `x == c` makes the dim c (true
// returned, `size` set); any other predicate first moves the hint to satisfy
// it (on a static `size`), then becomes a guard (or, unbacked, a runtime
// assert) of this specialized result, whose facts later rules use.
bool InputDimFactory::apply_predicate(const DimMarkOptions& m, const std::string& dsrc, SymInt& size, int64_t& hint) {
  const std::string& pred = m.specialize_on.at(*m.active_predicate);
  ExprRef x = symbol("x");
  ExprRef cond = parse_predicate(m.text, pred, x);
  auto holds = [&](int64_t v) {
    auto r = evaluate(cond, Assignment{{x, v}});
    return r && *r != 0;
  };
  if (size.is_static()) {
    // Before the symbol exists: find the hint. `x == c` has exactly one value.
    const int64_t lo = std::max<int64_t>(m.min.value_or(0), 0);
    std::optional<int64_t> only;
    int64_t count = 0;
    for (int64_t v = lo; v <= lo + 4096 && count < 2; ++v)
      if (holds(v)) {
        only = v;
        ++count;
      }
    const bool singleton = count == 1 && cond->kind() == ExprKind::Eq;
    if (singleton) {
      size = *only;
      specializations_.push_back({dsrc, *only, "specialize_on " + describe_predicate(pred, dsrc)});
      return true;
    }
    int64_t h = std::max(hint, lo);
    while (!holds(h) && h < hint + 100000) ++h;
    if (!holds(h))
      throw InputError("--mark " + m.text + ": no size near " + std::to_string(hint) + " satisfies " + pred);
    hint = h;
    return false;
  }
  ExprRef on_size = substitute(cond, Substitution{{x, size.expr()}});
  if (size.is_symbolic() && env_.info(size.expr()).unbacked)
    env_.defer_runtime_assert(SymBool(on_size), "specialize_on");
  else if (!env_.evaluate(SymBool(on_size), "specialize_on"))
    throw InputError("--mark " + m.text + ": the hint does not satisfy " + pred);
  return false;
}

void InputDimFactory::finish() {
  for (size_t i = 0; i < shape_ids_.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (shape_ids_[j].id != shape_ids_[i].id) continue;
      const Member& a = shape_ids_[j];
      const Member& b = shape_ids_[i];
      const SymBool same(eq(b.size.is_static() ? integer(b.size.value()) : b.size.expr(),
                            a.size.is_static() ? integer(a.size.value()) : a.size.expr()));
      if (same.is_static()) {
        if (!same.value())
          throw InputError("shape_id " + a.id + ": " + b.source + " = " + std::to_string(b.size.value()) + " but " +
                           a.source + " = " + std::to_string(a.size.value()));
        break;
      }
      auto hb = env_.hint(b.size), ha = env_.hint(a.size);
      if (ha && hb) {
        if (*ha != *hb)
          throw InputError("shape_id " + a.id + ": " + b.source + " has hint " + std::to_string(*hb) + " but " +
                           a.source + " has " + std::to_string(*ha));
        if (!a.size.is_static() && !b.size.is_static() && a.size.expr()->is_symbol() && b.size.expr()->is_symbol()) {
          env_.declare_equal(b.size.expr(), a.size.expr());
          env_.declare_equal(a.size.expr(), b.size.expr());
        }
        env_.evaluate(same, "shape_id");
      } else {
        env_.defer_runtime_assert(same, "shape_id");
      }
      break;  // equal to the first member is enough
    }
  }
}

std::string describe_predicate(const std::string& predicate, const std::string& dim_source) {
  ExprRef x = symbol("x");
  ExprRef cond = parse_expr(predicate, [&](std::string_view) { return x; });
  return to_python_string(cond, [&](ExprRef) { return dim_source; });
}

}  // namespace fakeprop
