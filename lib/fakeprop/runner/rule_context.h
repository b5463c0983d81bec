// What every operator rule sees, whatever its front end: the ShapeEnv every
// decision on a size goes through, fresh storages, the run's device, the
// known-data limit, and notes on lost precision. Each front end's OpContext
// derives from it and adds how the rule reads its node (ONNX inputs and
// attributes, ATen arguments by schema position or keyword).
//
// The decision vocabulary below is how rules decide; static answers never
// reach the ShapeEnv, so they leave no guard and no trace line:
//   decide          a guard on backed sizes, a data-dependent error on unbacked ones
//   same_size       decide(a == b), identical expressions equal without asking
//   require         torch._check: a guard or a runtime assert, `fail` when false
//   known_true      what the ShapeEnv already knows, never a guard
//   size_oblivious  decided as if no unbacked size were 0 or 1
//   guard_or_false  a guard when decidable, else false (unbacked: no error)
//   specialize      the size as a plain integer, guarded to its hint when symbolic
#pragma once
#include <type_traits>
#include <cstdint>
#include <string>
#include <vector>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/error.h"
#include "fakeprop/value/value.h"

namespace fakeprop {

class RuleContext {
 public:
  RuleContext(ShapeEnv& env, StorageIds& storage, const InferOptions& options)
      : env_(env), storage_(storage), device_(options.device), fold_limit_(options.max_fold_elements) {}

  ShapeEnv& env() { return env_; }
  const ShapeEnv& env() const { return env_; }
  StorageIds& storage() { return storage_; }
  // The run's device (--device): of inputs, initializers and factories without one of their own.
  Device device() const { return device_; }
  // The most elements a rule computes known data for (InferOptions::max_fold_elements).
  int64_t fold_limit() const { return fold_limit_; }

  [[noreturn]] void fail(ErrorKind kind, const std::string& message) const { throw OpError(kind, message); }
  // Decide a condition through the ShapeEnv with `why` as the rule that asked.
  bool check(const SymBool& cond, const char* why) { return env_.evaluate(cond, why); }     // evaluate()
  bool expect(const SymBool& cond, const char* why) { return env_.expect_true(cond, why); }  // expect_true()
  // A fresh size-like unbacked size in `range`.
  SymInt new_unbacked_size(ValueRange range) { return SymInt(env_.create_unbacked_symint(true, range)); }
  // One size standing for `a` or `b`, which control flow may give (torch.cond's
  // branches, ONNX If's): a fresh unbacked size whose range covers both.
  SymInt covering_size(const SymInt& a, const SymInt& b);
  // A size this rule cannot compute: a fresh size-like unbacked symbol, and a
  // "precision_lost" warning on this node saying why (the first place a dim
  // became unknown is what users need to find).
  SymInt unknown_size(const std::string& why);
  // A "precision_lost" warning on this node without a new symbol.
  void note_precision(const std::string& why) { precision_notes_.push_back(why); }
  const std::vector<std::string>& precision_notes() const { return precision_notes_; }

 private:
  ShapeEnv& env_;
  StorageIds& storage_;
  Device device_;
  int64_t fold_limit_;
  std::vector<std::string> precision_notes_;
};

inline bool decide(RuleContext& ctx, const SymBool& c, const char* why) {
  if (auto v = c.maybe_value()) return *v;
  return ctx.check(c, why);
}
inline bool same_size(RuleContext& ctx, const SymInt& a, const SymInt& b, const char* why) {
  if (a.same(b)) return true;
  return decide(ctx, sym_eq(a, b), why);
}
inline bool known_true(RuleContext& ctx, const SymBool& c) {
  if (auto v = c.maybe_value()) return *v;
  return ctx.env().statically_known_true(c);
}
// Fails with `kind` and `message` when `c` is false: statically, when the
// ShapeEnv knows it false, or when the guard it records says so.
// `message` is a string, or a callable that makes one: printing symbolic
// sizes costs more than most checks, so hot rules pass a lambda and only a
// failure pays for the text.
template <class Message>
inline void require(RuleContext& ctx, const SymBool& c, const char* why, ErrorKind kind, Message&& message) {
  auto fail = [&] {
    if constexpr (std::is_invocable_v<Message&>)
      ctx.fail(kind, std::string(message()));
    else
      ctx.fail(kind, std::string(message));
  };
  if (auto v = c.maybe_value()) {
    if (!*v) fail();
    return;
  }
  if (known_true(ctx, sym_not(c)) || !ctx.expect(c, why)) fail();
}
inline bool size_oblivious(RuleContext& ctx, const SymBool& c, const char* why) {
  if (auto v = c.maybe_value()) return *v;
  return ctx.env().guard_size_oblivious(c, why);
}
inline bool guard_or_false(RuleContext& ctx, const SymBool& c, const char* why) {
  if (auto v = c.maybe_value()) return *v;
  return ctx.env().guard_or_false(c, why);
}
inline int64_t specialize(RuleContext& ctx, const SymInt& v, const char* why) {
  return v.is_static() ? v.value() : ctx.env().evaluate_int(v, why);
}
inline SymInt simplified(RuleContext& ctx, const SymInt& v) { return v.is_static() ? v : ctx.env().simplify(v); }
inline SymShape simplified(RuleContext& ctx, SymShape s) {
  for (SymInt& d : s) d = simplified(ctx, d);
  return s;
}

}  // namespace fakeprop
