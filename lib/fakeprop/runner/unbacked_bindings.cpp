#include "fakeprop/runner/unbacked_bindings.h"

#include <functional>
#include <unordered_set>

namespace fakeprop {

void bind_unbacked_symbols(NodeRecord& rec, const std::vector<ExprRef>& fresh, const std::vector<Value>& outputs) {
  if (fresh.empty()) return;
  std::unordered_set<ExprRef> wanted(fresh.begin(), fresh.end());
  auto bind = [&](const SymInt& s, const std::string& where) {
    if (!s.is_symbolic() || !wanted.count(s.expr())) return;
    rec.unbacked_bindings.emplace_back(s.expr()->name(), where);
    wanted.erase(s.expr());
  };
  std::function<void(const Value&, const std::string&)> visit = [&](const Value& v, const std::string& path) {
    if (v.is_tensor()) {
      const auto& m = v.tensor->meta;
      for (size_t d = 0; d < m.sizes.size(); ++d) bind(m.sizes[d], path + ".size()[" + std::to_string(d) + "]");
      for (size_t d = 0; d < m.strides.size(); ++d) bind(m.strides[d], path + ".stride()[" + std::to_string(d) + "]");
      bind(m.storage_offset, path + ".storage_offset()");
    } else if (v.kind == Value::Kind::Int) {
      bind(v.i, path);
    } else if (v.is_symbolic_float()) {
      bind(SymInt(v.float_expr), path);
    } else if (v.kind == Value::Kind::Bool && !v.b.is_static() && v.b.expr()->is_symbol()) {
      if (wanted.count(v.b.expr())) {
        rec.unbacked_bindings.emplace_back(v.b.expr()->name(), path);
        wanted.erase(v.b.expr());
      }
    } else if (v.kind == Value::Kind::List) {
      for (size_t k = 0; k < v.list->size(); ++k) visit((*v.list)[k], path + "[" + std::to_string(k) + "]");
    }
  };
  if (outputs.size() == 1) {
    visit(outputs[0], "");
  } else {
    for (size_t k = 0; k < outputs.size(); ++k) {
      // Built by appending: GCC 12 at -O3 warns (-Wrestrict, a false positive) on "[" + std::string.
      std::string key = "[";
      key += std::to_string(k);
      key += ']';
      visit(outputs[k], key);
    }
  }
  // A symbol used only inside a larger expression has no key path of its own.
  for (ExprRef s : fresh)
    if (wanted.count(s)) rec.unbacked_bindings.emplace_back(s->name(), "");
}

}  // namespace fakeprop
