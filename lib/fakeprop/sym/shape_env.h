// ShapeEnv: owns the symbols of one run and every decision taken on them.
// Each decision on a symbolic condition is either statically known (no
// guard), decided by the backed hints (a guard, with the node and rule that
// asked), deferred to run time (a runtime assert, for unbacked symbols), or a
// data-dependent error, as in torch.fx.experimental.symbolic_shapes.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakeprop/sym/expr.h"
#include "fakeprop/sym/dynamic_log.h"
#include "fakeprop/sym/sym_int.h"
#include "fakeprop/sym/value_ranges.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

class DynamicLog;

struct ShapeEnvSettings {
  bool specialize_zero_one = true;     // hint 0/1 on a backed size becomes the constant
  bool duck_shape = true;              // same hint -> same symbol
  bool backed_size_oblivious = false;  // size-oblivious reasoning for backed sizes too
};

enum class DimDynamic {
  Duck,     // dynamic, duck sized when settings.duck_shape
  Dynamic,  // dynamic, never duck sized
  Static,   // the hint becomes the constant
};

struct SymbolInfo {
  ExprRef sym = nullptr;
  bool unbacked = false;
  bool hintless = false;  // a front end's named size without an example: unbacked in behaviour
  bool size_like = false;
  bool is_float = false;  // a SymFloat: backed zf<N> or unbacked zuf<N>; the rest are integers
  std::optional<int64_t> hint;
  std::optional<double> float_hint;  // a backed SymFloat's example value
  ValueRange range;
  std::optional<ValueRange> creation_range;  // a backed size's range when created (its log line's)
  std::vector<std::string> sources;  // first one is the canonical source
  std::string node;                  // node that created it ("" for inputs)
  // Marked dynamic: specializing it to a constant other than 0 or 1 is a
  // constraint violation (RelaxedUnspecConstraint). With a marked range
  // (mark min/max: StrictMinMaxConstraint) so are a specialization to 0 or 1,
  // unifying it with another size and a guard that excludes part of the range.
  bool marked_dynamic = false;
  std::optional<ValueRange> marked_range;
  std::optional<int64_t> hint_override;    // a hint for reports only (mark_unbacked's hint_override)
  ExprRef declared_equal = nullptr;        // the symbol a shape_id (torch.export's shared Dim) equates it with
};

// As PyTorch prints them: the hint ("6", "2.5") or "None"; the range, with
// sympy's "[-oo, oo]" for a float symbol.
std::string hint_text(const SymbolInfo& s);
std::string range_text(const SymbolInfo& s);

// The constraint-violation line of a marked dim specialized to `value`, in torch 2.15's words.
std::string marked_dim_specialized(const std::string& source, int64_t value);

struct GuardRecord {
  ExprRef expr;      // the decided condition (true as recorded)
  std::string node;  // graph node that asked, "" outside any node
  std::string rule;  // rule / helper that asked
};

struct SpecializationRecord {
  ExprRef sym;
  int64_t value;
  std::string node;
  std::string reason;
};

// One guard as produce_guards prints it.
struct ProducedGuard {
  std::string expr;      // over sources: L['x'].size()[0] % 8 == 0
  std::string sym_expr;  // over symbols: s0 % 8 == 0
  std::string node;      // "" when it comes from inputs or ranges
  std::string rule;      // the rule or helper that asked, "" for input equalities and ranges
};

// PyTorch's GuardOnDataDependentSymNode.
class DataDependentError : public Error {
 public:
  DataDependentError(const std::string& what, ExprRef cond, std::vector<std::string> fixes)
      : Error(what), cond_(cond), fixes_(std::move(fixes)) {}
  ExprRef cond() const { return cond_; }
  // torch._check(...) calls that would let propagation continue.
  const std::vector<std::string>& suggested_fixes() const { return fixes_; }

 private:
  ExprRef cond_;
  std::vector<std::string> fixes_;
};

// Raised when a symbol marked dynamic (mark_dynamic / strict) is specialized.
class ConstraintViolation : public Error {
 public:
  using Error::Error;
};

class ShapeEnv {
 public:
  explicit ShapeEnv(ShapeEnvSettings settings = {});
  ~ShapeEnv();
  ShapeEnv(const ShapeEnv&) = delete;
  ShapeEnv& operator=(const ShapeEnv&) = delete;

  const ShapeEnvSettings& settings() const { return settings_; }

  // ---- symbols ----
  // A backed size for `source` with example value `hint`. Returns a constant
  // under 0/1 specialization or DimDynamic::Static; reuses a symbol under duck
  // sizing; otherwise a fresh symbol with range [2, int_oo] intersected with
  // `constraint`, named `preferred_name` when given and free, else s<N> with
  // N as PyTorch numbers it: SHA-256 of `source` modulo 100, the next free
  // id up on a collision (ids shared with zf<N>).
  SymInt create_symbol(int64_t hint, const std::string& source, DimDynamic dyn = DimDynamic::Duck,
                       ValueRange constraint = {}, const std::string& preferred_name = "");
  // A symbol without duck sizing or 0/1 specialization, named `name` when
  // free (an ONNX dim_param, a symbol named in an FX graph), else s<N> from
  // `source` as create_symbol names it (an empty source hashes as ""). A
  // name s<N> or zf<N> takes id N from the hashed names. With a hint it is
  // backed; without one it is hintless: size-like and unbacked for every
  // decision (runtime asserts, size-oblivious reasoning), listed as unbacked.
  ExprRef create_named_symbol(const std::string& name, std::optional<int64_t> hint, ValueRange range,
                              const std::string& source);
  // A fresh unbacked u<N>, counting from u0 (unbacked names are not hashed,
  // as in PyTorch). size_like: range [0, int_oo] (narrowed by `range`).
  ExprRef create_unbacked_symint(bool size_like = false, ValueRange range = {});
  // A fresh unbacked u<N> in [0, 1]; returns the condition Eq(u<N>, 1), as PyTorch does.
  ExprRef create_unbacked_symbool();
  // A fresh unbacked float zuf<N> (item() of a float tensor), with its own
  // counter as in PyTorch. It only travels as a value: nothing decides on it,
  // and a rule that needs its value raises the data-dependent error
  // (evaluate_float).
  ExprRef create_unbacked_symfloat();
  // A backed float zf<N> (N from `source` as for s<N>, from the same ids)
  // with example value `hint` and range [-oo, oo]
  // (create_unspecified_symbol of a float: item() of a 0-d float64 input
  // whose value is known). Decisions on it are guards evaluated at the hint.
  ExprRef create_symfloat(double hint, const std::string& source);
  // Narrow a symbol's range (constrain_symbol_range); a singleton becomes a replacement.
  void constrain_symbol_range(ExprRef sym, ValueRange range, const std::string& reason = "");
  void add_source(ExprRef sym, const std::string& source);
  // mark_dynamic (SymbolInfo::marked_dynamic): `range` is the user's min/max.
  void mark_dynamic(ExprRef sym, std::optional<ValueRange> range = std::nullopt);
  void set_hint_override(ExprRef sym, int64_t hint) { mutable_info(sym).hint_override = hint; }
  // `sym` equals `other` by the user's declaration (a shared shape_id): the
  // unification that follows is what was asked, not a constraint violation.
  void declare_equal(ExprRef sym, ExprRef other) { mutable_info(sym).declared_equal = other; }
  // A violation found outside ShapeEnv (a marked dim 0/1-specialized at creation).
  void note_constraint_violation(const std::string& source, const std::string& line);

  // An input's tensor property (a stride) that equals an expression over the
  // input sizes: produce_guards checks it unless it is a constant
  // (L['x'].stride()[0] == L['x'].size()[1]).
  void add_input_property(const std::string& source, ExprRef expr) { input_properties_.emplace_back(source, expr); }

  bool is_symbol_known(ExprRef sym) const;
  const SymbolInfo& info(ExprRef sym) const;  // throws Error for an unknown symbol
  std::vector<const SymbolInfo*> symbols() const;  // creation order
  // Unbacked symbols created since the last call (for unbacked_bindings).
  std::vector<ExprRef> take_new_unbacked();
  // Symbols a node made before the nodes it runs inside it (a Loop body's
  // generalized sizes): the next take_new_unbacked returns them again, so
  // that the node binds them rather than the first node of its body.
  void rebind_unbacked(const std::vector<ExprRef>& syms) {
    unbacked_order_.insert(unbacked_order_.end(), syms.begin(), syms.end());
  }

  // ---- where decisions come from ----
  void set_current_node(std::string_view node) { current_node_.assign(node); }  // reuses the buffer
  // TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED / _CREATE_SYMBOL: print the causal
  // chain (node, rule, the node's inputs, the symbols' origins) when the guard
  // with this sympy text is added, or when one of these symbols is created.
  void set_extended_debug(std::string guard_added, std::vector<std::string> create_symbol);
  // Lines describing the node being run (its op and inputs), from the front end.
  void set_node_context(std::function<std::vector<std::string>()> context) { node_context_ = std::move(context); }
  std::vector<std::string> node_context() const { return node_context_ ? node_context_() : std::vector<std::string>{}; }
  bool extended_debug_enabled() const { return !debug_guard_.empty() || !debug_symbols_.empty(); }
  const std::string& current_node() const { return current_node_; }

  // ---- simplification and static reasoning ----
  ExprRef simplify(ExprRef e) const;  // replacements, divisibility; Max/Min folded as sympy folds them
  SymInt simplify(const SymInt& v) const;
  ValueRange bound(ExprRef e, bool size_oblivious = false) const;
  // The value under backed hints; nullopt when an unbacked symbol remains.
  std::optional<int64_t> hint(ExprRef e) const;
  std::optional<int64_t> hint(const SymInt& v) const;
  // A float expression's value under backed hints (zf<N> included).
  std::optional<double> float_hint(ExprRef e) const;
  // Decided without any guard (replacements, ranges, divisibility, known facts).
  std::optional<bool> maybe_evaluate_static(ExprRef cond, bool size_oblivious = false) const;

  // ---- decisions ----
  bool evaluate(const SymBool& cond, const char* rule);      // guard or DataDependentError
  int64_t evaluate_int(const SymInt& v, const char* rule);   // guard Eq(v, value)
  double evaluate_float(ExprRef v, const char* rule);        // guard Eq(v, value) (guard_float)
  bool statically_known_true(const SymBool& cond) const;     // never guards
  bool guard_or_false(const SymBool& cond, const char* rule);
  bool guard_or_true(const SymBool& cond, const char* rule);
  bool guard_size_oblivious(const SymBool& cond, const char* rule);
  // True on unbacked symbols by deferring a runtime assert; else evaluate().
  bool expect_true(const SymBool& cond, const char* rule);
  // Record `cond` as a runtime assert unless statically true (torch._check).
  // Throws Error when it is statically false.
  void defer_runtime_assert(const SymBool& cond, const char* rule);

  // ---- branches ----
  // A branch that runs only when its condition holds: `cond`, or Not(cond)
  // when `negated` (the two sides of an ONNX If whose condition is not
  // decided). A null `cond` is opaque data; a fresh unbacked symbool stands
  // for it once something needs it. Until pop_branch, each runtime assert A is
  // recorded as Or(Not(condition), A) (the conditions of every open branch),
  // and the condition and A are facts only inside the branch; A narrows or
  // replaces only symbols made since the branch opened (they exist only
  // while it runs), never an older one. Guards stay guards: they hold at the hints whichever side runs, as
  // when torch.cond traces both branches.
  void push_branch(ExprRef cond, bool negated = false);
  // Ends the innermost branch; returns its `cond` (the symbool made for an opaque one, or null).
  ExprRef pop_branch();
  bool in_branch() const { return !branches_.empty(); }

  // ---- propagate_real_tensors ----
  // Values of unbacked symbols known from a real run (--unbacked-value
  // u0=37), by name. A data-dependent decision whose symbols all have one is
  // taken by those values and recorded as a runtime assert (never a guard),
  // as PyTorch's fake_tensor_propagate_real_tensors does; the decisions are
  // listed apart (real_value_decisions), for they hold only for this data.
  void set_real_values(std::map<std::string, int64_t> values) { real_values_ = std::move(values); }
  // A real value learned during the run (a node's output on the real
  // inputs); a value the user gave for `sym` is kept.
  void set_real_value(ExprRef sym, int64_t value) { real_values_.emplace(sym->name(), value); }
  // The value of `v` under backed hints and real values; nullopt when a
  // symbol has neither.
  // A condition evaluates to 0 or 1.
  std::optional<int64_t> concrete_value(ExprRef e) const;
  std::optional<int64_t> concrete_value(const SymInt& v) const {
    return v.is_static() ? std::optional<int64_t>(v.value()) : concrete_value(v.expr());
  }
  std::optional<int64_t> known_real_value(ExprRef sym) const {
    const auto it = real_values_.find(sym->name());
    return it == real_values_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  const std::map<std::string, int64_t>& real_values() const { return real_values_; }
  struct RealValueDecision {
    ExprRef expr;      // the condition or integer expression decided
    int64_t result;    // 0/1 for a condition
    bool is_int;
    std::string node;
  };
  const std::vector<RealValueDecision>& real_value_decisions() const { return real_decisions_; }

  // ---- results ----
  const std::vector<GuardRecord>& guards() const { return guards_; }
  const std::vector<GuardRecord>& runtime_asserts() const { return runtime_asserts_; }
  const std::vector<SpecializationRecord>& specializations() const { return specializations_; }
  const std::unordered_map<ExprRef, ExprRef>& replacements() const { return replacements_; }
  // Divisors d with e % d == 0 known for a symbol-free-of-replacement expr.
  std::vector<std::pair<ExprRef, int64_t>> divisibility_facts() const;
  std::vector<ProducedGuard> produce_guards() const;
  // The canonical source of a symbol ("L['x'].size()[0]"), or its name.
  std::string source_of(ExprRef sym) const;
  // Python text over sources, as produce_guards prints a guard (to_guard_string).
  std::string print_over_sources(ExprRef e) const;
  // Constraint-violation text for marked-dynamic symbols, "" when none.
  std::string constraint_violations() const;

  DynamicLog& log() { return *log_; }

 private:
  friend class ShapeEnvTestPeer;
  friend struct ShapeEnvInternals;  // shape_env.cpp's helpers (range refinement, solving)
  SymbolInfo& mutable_info(ExprRef sym);
  ExprRef new_symbol(const std::string& name, SymbolInfo info);
  std::string fresh_name(std::string_view prefix);  // "u" and "zuf", each counting from 0
  // "s" or "zf" with the id PyTorch gives `source` (hash of its name, probed up).
  std::string backed_name(std::string_view prefix, const std::string& source);
  bool has_unbacked(ExprRef e) const;
  std::optional<double> symbol_float_hint(ExprRef sym) const;  // a backed float symbol's hint
  void record_guard(ExprRef decided, const char* rule);
  bool record_runtime_assert(ExprRef s, const char* rule);  // false for a duplicate
  void maybe_refine(ExprRef decided, const char* rule, bool is_runtime_assert);
  void set_replacement(ExprRef sym, ExprRef target, const char* reason);
  void specialize(ExprRef sym, int64_t value, const char* reason);
  enum class Extract { Guard, Int, Float };
  [[noreturn]] void raise_data_dependent(ExprRef simplified, Extract what) const;

  ShapeEnvSettings settings_;
  std::string current_node_;
  std::vector<SymbolInfo> symbols_;
  std::unordered_map<ExprRef, size_t> symbol_index_;
  std::unordered_set<std::string> used_names_;
  std::map<int64_t, ExprRef> hint_to_symbol_;  // duck sizing
  // Ids of s<N> and zf<N> in use, each with an id past it to probe next
  // (every id between is in use too), so that probing stays linear in the
  // number of symbols.
  std::unordered_map<uint32_t, uint32_t> backed_ids_;
  void reserve_backed_id(uint32_t id) { backed_ids_.try_emplace(id, id + 1); }
  int next_unbacked_ = 0;
  int next_unbacked_float_ = 0;
  size_t unbacked_seen_ = 0;
  std::vector<ExprRef> unbacked_order_;
  std::unordered_map<ExprRef, ExprRef> replacements_;
  std::unordered_map<ExprRef, int64_t> divisible_;  // expr -> known divisor (lcm)
  std::unordered_set<ExprRef> known_true_;         // decided guards and asserts
  // Simplified expressions and maybe_evaluate_static's answers (0 false, 1
  // true, 2 undecided), one table each per size_oblivious, valid while
  // facts_version_ stays what it was when they were filled. Every change to
  // what static reasoning reads (facts, divisibility, replacements, a
  // symbol's info, a new symbol) bumps it.
  // Simplification reads no decided fact (known_true_), only replacements,
  // divisibility and symbol info: its table lives on while facts are only
  // added, by rewrite_version_.
  uint64_t facts_version_ = 0;
  uint64_t rewrite_version_ = 0;
  mutable uint64_t memo_version_ = 0;
  mutable uint64_t simplify_memo_version_ = 0;
  // [size_oblivious] for reasoning (Max/Min folded by ranges); [2] for values.
  mutable std::unordered_map<ExprRef, ExprRef> simplify_memo_[3];
  mutable std::unordered_map<ExprRef, uint8_t> static_memo_[2];
  void facts_changed() {
    ++facts_version_;
    ++rewrite_version_;
  }
  void fact_added() { ++facts_version_; }
  void refresh_memos() const;
  ExprRef simplified(ExprRef e, bool size_oblivious) const;
  struct Branch {
    ExprRef cond;
    bool negated;
    std::string node;                          // the node that opened it
    std::unordered_set<ExprRef> facts_before;  // known_true_ at push_branch
    size_t guards_before;
    size_t replacements_before;
    size_t symbols_before;  // symbols made before it opened: the rest are born in it
  };
  std::vector<Branch> branches_;
  ExprRef branch_condition(Branch& b);
  ExprRef branch_assumption();  // And of every open branch's condition
  std::vector<std::pair<std::string, ExprRef>> input_properties_;
  std::vector<GuardRecord> guards_;
  std::vector<GuardRecord> runtime_asserts_;
  std::vector<SpecializationRecord> specializations_;
  std::vector<std::pair<std::string, std::string>> noted_violations_;  // source, line
  std::string debug_guard_;
  std::unordered_set<std::string> debug_symbols_;
  std::function<std::vector<std::string>()> node_context_;
  void explain(const std::string& event, ExprRef e) const;
  std::unique_ptr<DynamicLog> log_;
  std::map<std::string, int64_t> real_values_;
  std::vector<RealValueDecision> real_decisions_;
  // The value of `s` with backed hints and real values; nullopt when a
  // symbol has neither.
  std::optional<int64_t> real_value_of(ExprRef s) const;
  // A data-dependent decision taken by real values: a runtime assert of
  // `decided`, a propagate_real_tensors log line, a RealValueDecision.
  void decide_by_real_values(ExprRef s, ExprRef decided, int64_t result, bool is_int, const char* rule);
};

}  // namespace fakeprop
