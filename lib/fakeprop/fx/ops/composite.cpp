#include "fakeprop/fx/ops/composite.h"

#include <stdexcept>

namespace fakeprop::fx::ops {

TensorValue Composite::call(const std::string& target, const ValueList& args,
                            const std::vector<std::pair<std::string_view, Value>>& kwargs) {
  const OpRule rule = OpRegistry::instance().find(target);
  if (rule == nullptr) throw std::logic_error("composite calls " + target + ", which has no rule");
  std::vector<const Value*> ptrs;
  ptrs.reserve(args.size());
  for (const Value& a : args) ptrs.push_back(&a);
  std::vector<std::pair<std::string_view, const Value*>> named;
  for (const auto& [k, v] : kwargs) named.emplace_back(k, &v);
  OpContext inner(ctx_, target, ptrs, named);
  rule(inner);
  const Value r = inner.take_result();
  if (r.kind != Value::Kind::Tensor) throw std::logic_error(target + " returned no tensor inside a composite");
  return *r.tensor;
}

Value Composite::ints(const std::vector<int64_t>& xs) {
  ValueList out;
  for (int64_t x : xs) out.push_back(Value::of_int(SymInt(x)));
  return Value::of_list(std::move(out));
}

Value Composite::sizes(const SymShape& xs) {
  ValueList out;
  for (const SymInt& x : xs) out.push_back(Value::of_int(x));
  return Value::of_list(std::move(out));
}

TensorValue Composite::permute(const TensorValue& t, const std::vector<int64_t>& perm) {
  static const std::string kPermute = "aten.permute.default";
  return call(kPermute, {tensor(t), ints(perm)});
}

TensorValue Composite::sum(const TensorValue& t, const std::vector<int64_t>& dims, bool keepdim) {
  static const std::string kSum = "aten.sum.dim_IntList";
  return call(kSum, {tensor(t), ints(dims), Value::of_bool(SymBool(keepdim))});
}

}  // namespace fakeprop::fx::ops
