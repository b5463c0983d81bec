#include "fakeprop/runner/rule_context.h"

namespace fakeprop {

SymInt RuleContext::unknown_size(const std::string& why) {
  SymInt s = new_unbacked_size({0, kIntOo});
  precision_notes_.push_back(s.to_python() + ": " + why);
  return s;
}

}  // namespace fakeprop
