#include "fakeprop/runner/expr_cap.h"

#include <algorithm>
#include <unordered_map>

namespace fakeprop {

size_t bounded_expr_size(ExprRef e, size_t cap) {
  size_t count = 0;
  std::vector<ExprRef> stack{e};
  while (!stack.empty() && count <= cap) {
    ExprRef x = stack.back();
    stack.pop_back();
    ++count;
    for (const auto& term : x->terms()) stack.push_back(term.first);
    for (ExprRef arg : x->args()) stack.push_back(arg);
  }
  return count;
}

bool has_oversized_expression(const Value& v, size_t max_nodes) {
  auto oversized = [&](const SymInt& x) { return x.is_symbolic() && bounded_expr_size(x.expr(), max_nodes) > max_nodes; };
  switch (v.kind) {
    case Value::Kind::Tensor: {
      const TensorMeta& m = v.tensor->meta;
      for (const SymInt& d : m.sizes)
        if (oversized(d)) return true;
      for (const SymInt& d : m.strides)
        if (oversized(d)) return true;
      if (oversized(m.storage_offset)) return true;
      if (v.tensor->data && !v.tensor->data->is_float)
        for (const SymInt& x : v.tensor->data->ints)
          if (oversized(x)) return true;
      if (v.tensor->float_exprs)
        for (ExprRef x : *v.tensor->float_exprs)
          if (bounded_expr_size(x, max_nodes) > max_nodes) return true;
      return false;
    }
    case Value::Kind::Int: return oversized(v.i);
    case Value::Kind::Float: return v.float_expr && bounded_expr_size(v.float_expr, max_nodes) > max_nodes;
    case Value::Kind::List:
    case Value::Kind::Map:  // its value and entry count, in the same fields
      for (const Value& x : *v.list)
        if (has_oversized_expression(x, max_nodes)) return true;
      return v.list_length && oversized(*v.list_length);
    default: return false;
  }
}

namespace {

class Capper {
 public:
  Capper(ShapeEnv& env, size_t max_nodes) : env_(env), max_nodes_(max_nodes) {}

  void value(Value& v) {
    switch (v.kind) {
      case Value::Kind::Tensor: tensor(v); break;
      case Value::Kind::Int: v.i = symint(v.i, false); break;
      case Value::Kind::Float:
        if (v.float_expr) v.float_expr = symfloat(v.float_expr);
        break;
      case Value::Kind::List:
      case Value::Kind::Map: {
        ValueList xs = *v.list;
        for (Value& x : xs) value(x);
        v.list = std::make_shared<const ValueList>(std::move(xs));
        if (v.list_length) v.list_length = symint(*v.list_length, true);
        break;
      }
      default: break;
    }
  }

  size_t replaced() const { return replaced_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  void tensor(Value& v) {
    const size_t before = replaced_;
    TensorValue t = *v.tensor;
    for (SymInt& d : t.meta.sizes) d = symint(d, true);
    for (SymInt& d : t.meta.strides) d = symint(d, true);
    t.meta.storage_offset = symint(t.meta.storage_offset, true);
    if (t.data && !t.data->is_float)
      for (SymInt& x : t.data->ints) x = symint(x, false);
    if (t.float_exprs)
      for (ExprRef& x : *t.float_exprs) x = symfloat(x);
    if (replaced_ != before) v = Value::of_tensor(std::move(t));
  }

  SymInt symint(const SymInt& x, bool size_like) {
    if (x.is_static()) return x;
    ExprRef e = x.expr();
    auto it = replacements_.find(e);
    if (it != replacements_.end()) {
      ++replaced_;
      return SymInt(it->second);
    }
    if (bounded_expr_size(e, max_nodes_) <= max_nodes_) return x;
    ExprRef fresh = env_.create_unbacked_symint(size_like);
    replacements_.emplace(e, fresh);
    names_.push_back(fresh->name());
    ++replaced_;
    return SymInt(fresh);
  }

  // A SymFloat past the cap becomes a fresh unbacked float (zuf<N>).
  ExprRef symfloat(ExprRef e) {
    auto it = replacements_.find(e);
    if (it != replacements_.end()) {
      ++replaced_;
      return it->second;
    }
    if (bounded_expr_size(e, max_nodes_) <= max_nodes_) return e;
    ExprRef fresh = env_.create_unbacked_symfloat();
    replacements_.emplace(e, fresh);
    names_.push_back(fresh->name());
    ++replaced_;
    return fresh;
  }

  ShapeEnv& env_;
  size_t max_nodes_;
  size_t replaced_ = 0;
  std::unordered_map<ExprRef, ExprRef> replacements_;
  std::vector<std::string> names_;
};

}  // namespace

size_t cap_expression_size(std::vector<Value>& values, ShapeEnv& env, size_t max_nodes, std::string_view node,
                           std::vector<ErrorRecord>& warnings) {
  if (max_nodes == 0) return 0;  // no limit
  // The common case, checked without the copies the capper makes.
  if (std::none_of(values.begin(), values.end(), [&](const Value& v) { return has_oversized_expression(v, max_nodes); }))
    return 0;
  Capper capper(env, max_nodes);
  for (Value& v : values) capper.value(v);
  if (capper.replaced() == 0) return 0;
  std::string fresh;
  for (const auto& name : capper.names()) fresh += (fresh.empty() ? "" : ", ") + name;
  warnings.push_back({std::string(node), ErrorKind::ExpressionTooLarge,
                      "an output expression grew past " + std::to_string(max_nodes) +
                          " operations and was replaced by the fresh unbacked symbol" +
                          (capper.names().size() > 1 ? "s " : " ") + fresh +
                          " (decisions on it become runtime asserts or data-dependent errors)"});
  return capper.replaced();
}

}  // namespace fakeprop
