#include "fakeprop/onnx/scope.h"

namespace fakeprop::onnx {

const Value* Scope::find(std::string_view name) const {
  if (const uint32_t id = names_.id(name); id != ValueNumbering::kNone) return find(id);
  if (auto it = unnumbered_.find(std::string(name)); it != unnumbered_.end()) return &it->second;
  return parent_ ? parent_->find(name) : nullptr;
}

void Scope::set(std::string_view name, Value v) {
  if (const uint32_t id = names_.id(name); id != ValueNumbering::kNone)
    set(id, std::move(v));
  else
    unnumbered_.insert_or_assign(std::string(name), std::move(v));
}

}  // namespace fakeprop::onnx
