// Elementwise operators: shapes broadcast (multidirectional), integer data
// folds exactly so shape arithmetic stays symbolic.
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

using IntFn = SymInt (*)(const SymInt&, const SymInt&);

// A binary arithmetic op: broadcast shape, A's dtype, folded data when known.
template <IntFn fn>
void arithmetic(OpContext& ctx) {
  SymShape out = broadcast_inputs(ctx, {0, 1});
  const DType dt = ctx.dtype(0);
  if (!is_floating(dt)) {
    if (auto data = fold_ints(ctx, {0, 1}, out, [](std::span<const SymInt> a) { return fn(a[0], a[1]); })) {
      ctx.set_tensor(0, dt, std::move(out), std::move(*data));
      return;
    }
  }
  ctx.set_tensor(0, dt, std::move(out));
}

SymInt add_fn(const SymInt& a, const SymInt& b) { return a + b; }
SymInt sub_fn(const SymInt& a, const SymInt& b) { return a - b; }
SymInt mul_fn(const SymInt& a, const SymInt& b) { return a * b; }
// Integer Div truncates toward zero; sizes are non-negative, where it equals floor.
SymInt div_fn(const SymInt& a, const SymInt& b) {
  if (a.is_static() && b.is_static()) {
    if (b.value() == 0) throw OpError("division_by_zero", "integer division by zero");
    return a.value() / b.value();
  }
  return floordiv(a, b);
}

void unary_same(OpContext& ctx) { same_as_input(ctx); }

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  r.add("", "Add", arithmetic<add_fn>);
  r.add("", "Sub", arithmetic<sub_fn>);
  r.add("", "Mul", arithmetic<mul_fn>);
  r.add("", "Div", arithmetic<div_fn>);
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Neg", "Abs", "Identity"})
    r.add("", op, unary_same);
}

}  // namespace fakeprop::onnx::ops
