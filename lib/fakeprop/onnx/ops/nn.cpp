// Neural-network operators: MatMul, Gemm, Conv, pooling, normalization, ...
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

// numpy.matmul: 1-D operands are promoted and the added dim removed after;
// batch dims broadcast.
void matmul_rule(OpContext& ctx) {
  SymShape a = ctx.shape(0), b = ctx.shape(1);
  if (a.empty() || b.empty()) ctx.fail("invalid_rank", "MatMul operands must have rank >= 1");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), SymInt(1));
  if (b_vec) b.push_back(SymInt(1));
  ctx.expect(sym_eq(a.back(), b[b.size() - 2]), "MatMul: contraction dims agree");
  SymShape batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  SymShape out = broadcast_shapes(batch_a, batch_b, ctx.env());
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  for (SymInt& d : out) d = ctx.env().simplify(d);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

}  // namespace

void register_nn_ops(OpRegistry& r) { r.add("", "MatMul", matmul_rule); }

}  // namespace fakeprop::onnx::ops
