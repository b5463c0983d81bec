#include "fakeprop/runner/rule_context.h"

namespace fakeprop {

SymInt RuleContext::unknown_size(const std::string& why) {
  SymInt s = new_unbacked_size({0, kIntOo});
  precision_notes_.push_back(s.to_python() + ": " + why);
  return s;
}

SymInt RuleContext::covering_size(const SymInt& a, const SymInt& b) {
  auto range = [&](const SymInt& s) { return s.is_static() ? ValueRange{s.value(), s.value()} : env_.bound(s.expr()); };
  const ValueRange r = range(a).hull(range(b));
  return new_unbacked_size({std::max<int64_t>(r.lo, 0), r.hi});
}

}  // namespace fakeprop
