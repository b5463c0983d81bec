// Complex views and constructors (Llama 4's rotary embedding: polar, then
// view_as_complex / view_as_real around the product), as torch 2.15's fake
// tensors run them: the views are ATen's (ComplexHelper.h), complex is its
// meta (meta_complex) and polar its ref (_refs/_conversions.py).
#include <string>

#include "fakeprop/fx/op_context.h"
#include "fakeprop/fx/ops/aten_helpers.h"
#include "fakeprop/fx/ops/composite.h"
#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"

namespace fakeprop::fx::ops {

namespace {

std::string torch_dtype(DType t) { return "torch." + std::string(dtype_name(t)); }

bool half_float_or_double(DType t) { return t == DType::Float16 || t == DType::Float32 || t == DType::Float64; }

// view_as_real(self): sizes + [2], strides doubled and a last stride of 1, the
// offset doubled, the real dtype.
void view_as_real(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (!is_complex(self.dtype)) ctx.fail(ErrorKind::TypeError, "view_as_real is only supported for complex tensors");
  SymShape sizes = self.sizes, strides;
  sizes.push_back(SymInt(2));
  for (const SymInt& st : self.strides) strides.push_back(simplified(ctx, st * 2));
  strides.push_back(SymInt(1));
  TensorValue out = ctx.view_of(self, std::move(sizes), std::move(strides), simplified(ctx, self.storage_offset * 2));
  out.meta.dtype = to_real(self.dtype);
  ctx.set_result(ctx.tensor_result(std::move(out)));
}

// view_as_complex(self): drops a last dim of size 2 and stride 1, halves the
// other strides and the offset, which must be even (checked in that order).
void view_as_complex(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (!half_float_or_double(self.dtype))
    ctx.fail(ErrorKind::NotImplemented,
             "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: " +
                 std::string(dtype_name(self.dtype)));
  if (self.dim() == 0) ctx.fail(ErrorKind::InvalidArgument, "Input tensor must have one or more dimensions");
  const size_t last = static_cast<size_t>(self.dim() - 1);
  if (!decide(ctx, sym_eq(self.sizes[last], 2), "view_as_complex"))
    ctx.fail(ErrorKind::InvalidArgument, "Tensor must have a last dimension of size 2");
  if (!decide(ctx, sym_eq(self.strides[last], 1), "view_as_complex"))
    ctx.fail(ErrorKind::InvalidArgument, "Tensor must have a last dimension with stride 1");
  SymShape sizes(self.sizes.begin(), self.sizes.begin() + static_cast<std::ptrdiff_t>(last)), strides;
  for (size_t d = 0; d < last; ++d) {
    if (!decide(ctx, sym_eq(mod(self.strides[d], SymInt(2)), 0), "view_as_complex"))
      ctx.fail(ErrorKind::InvalidArgument, "Tensor must have a stride divisible by 2 for all but last dimension");
    strides.push_back(simplified(ctx, floordiv(self.strides[d], SymInt(2))));
  }
  if (!decide(ctx, sym_eq(mod(self.storage_offset, SymInt(2)), 0), "view_as_complex"))
    ctx.fail(ErrorKind::InvalidArgument, "Tensor must have a storage_offset divisible by 2");
  TensorValue out = ctx.view_of(self, std::move(sizes), std::move(strides),
                                simplified(ctx, floordiv(self.storage_offset, SymInt(2))));
  out.meta.dtype = to_complex(self.dtype);
  ctx.set_result(ctx.tensor_result(std::move(out)));
}

DType wider_complex(DType a, DType b) {
  auto rank = [](DType t) { return t == DType::Complex128 ? 2 : t == DType::Complex64 ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

// complex(real, imag): both floating; an elementwise result of the promoted
// complex dtype.
void complex_op(OpContext& ctx) {
  PointwiseOperands ops = pointwise_operands(ctx, {"real", "imag"});
  const TensorMeta& real = ctx.tensor("real");
  const TensorMeta& imag = ctx.tensor("imag");
  for (const TensorMeta* t : {&real, &imag})
    if (!is_floating(t->dtype))
      ctx.fail(ErrorKind::AssertionError, std::string(t == &real ? "real" : "imag") +
                                              " must be floating point, got " + torch_dtype(t->dtype));
  for (const TensorMeta* t : {&real, &imag})
    if (!half_float_or_double(t->dtype))
      ctx.fail(ErrorKind::TypeError, "complex: no complex dtype for " + torch_dtype(t->dtype));
  const DType dtype = wider_complex(to_complex(real.dtype), to_complex(imag.dtype));
  ctx.set_result(ctx.tensor_result(pointwise_result(ctx, ops, dtype)));
}

// polar(abs, angle): the ref, complex(abs * cos(angle), abs * sin(angle)),
// after its dtype checks.
void polar(OpContext& ctx) {
  const TensorValue& abs = ctx.tensor_value("abs");
  const TensorValue& angle = ctx.tensor_value("angle");
  if (!half_float_or_double(abs.meta.dtype) || !half_float_or_double(angle.meta.dtype))
    ctx.fail(ErrorKind::NotImplemented, "Expected both inputs to be Half, Float or Double tensors but got " +
                                            torch_dtype(abs.meta.dtype) + " and " + torch_dtype(angle.meta.dtype));
  if (abs.meta.dtype != angle.meta.dtype)
    ctx.fail(ErrorKind::InvalidArgument, "Expected object of scalar type " + torch_dtype(abs.meta.dtype) +
                                             " but got scalar type " + torch_dtype(angle.meta.dtype) +
                                             " for second argument");
  Composite c(ctx);
  const TensorValue re = c.call("aten.mul.Tensor", {Composite::tensor(abs), Composite::tensor(c.call("aten.cos.default", {Composite::tensor(angle)}))});
  const TensorValue im = c.call("aten.mul.Tensor", {Composite::tensor(abs), Composite::tensor(c.call("aten.sin.default", {Composite::tensor(angle)}))});
  ctx.set_result(ctx.tensor_result(c.call("aten.complex.default", {Composite::tensor(re), Composite::tensor(im)})));
}

}  // namespace

void register_complex_ops(OpRegistry& r) {
  r.add("aten.view_as_real.default", view_as_real);
  r.add("aten.view_as_complex.default", view_as_complex);
  r.add("aten.complex.default", complex_op);
  r.add("aten.polar.default", polar);
}

}  // namespace fakeprop::fx::ops
