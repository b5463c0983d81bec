// The values a graph's nodes can read while it runs.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakeprop/onnx/value_numbering.h"
#include "fakeprop/value/value.h"

namespace fakeprop::onnx {

// Values visible to a graph: its own, by the graph's value ids, then the
// enclosing graphs' (outer scope), found by name. A node's outputs are not
// copied: the scope points at them in the node's record.
class Scope {
 public:
  explicit Scope(const ValueNumbering& names, const Scope* parent = nullptr)
      : names_(names), parent_(parent), values_(names.size(), nullptr) {}
  const ValueNumbering& names() const { return names_; }
  const Value* find(std::string_view name) const;
  const Value* find(uint32_t id) const {
    if (id == ValueNumbering::kNone) return nullptr;
    if (values_[id]) return values_[id];
    return parent_ ? parent_->find(names_.name(id)) : nullptr;
  }
  // `v` must outlive the scope (a value in a node's record).
  void bind(uint32_t id, Value* v) { values_[id] = v; }
  // The scope's own value for `id` (not an enclosing scope's), or null: a
  // consuming run trims the values nothing will read again.
  Value* local(uint32_t id) { return id == ValueNumbering::kNone ? nullptr : values_[id]; }
  // A value the scope keeps (graph inputs, initializers).
  void set(uint32_t id, Value v) { values_[id] = &owned_.emplace_back(std::move(v)); }
  void set(std::string_view name, Value v);
  bool has_local(uint32_t id) const { return id != ValueNumbering::kNone && values_[id]; }

 private:
  const ValueNumbering& names_;
  const Scope* parent_;
  std::vector<Value*> values_;
  std::deque<Value> owned_;  // never moves its elements
  std::unordered_map<std::string, Value> unnumbered_;  // names the graph never mentions
};

}  // namespace fakeprop::onnx
