// PyTorch's pointwise ops as fake tensors run them: broadcast shape, type
// promotion over tensors and Python numbers, common device, and elementwise
// output strides; in-place variants write into self.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "fakeprop/fx/ops/aten_helpers.h"

namespace fakeprop::fx::ops {

struct PointwiseOperands {
  std::vector<const TensorMeta*> tensors;  // in argument order
  std::vector<PromotionOperand> promotion;  // tensors and numbers that take part in promotion
  bool symbolic = false;  // some tensor has a symbolic size or stride, or some number is a SymInt
};

// Adds the argument `name`, value `v`, unless it is None.
inline void add_pointwise_operand(OpContext& ctx, PointwiseOperands& ops, const Value& v, std::string_view name) {
  if (v.is_none()) return;
  if (v.is_tensor()) {
    ops.tensors.push_back(&v.tensor->meta);
    ops.symbolic = ops.symbolic || has_symbolic_sizes_strides(v.tensor->meta);
  }
  if (v.kind == Value::Kind::Int && !v.i.is_static()) ops.symbolic = true;
  if (auto p = promotion_operand(v)) ops.promotion.push_back(*p);
  else
    ctx.fail(ErrorKind::TypeError, ctx.target() + ": argument '" + std::string(name) + "' must be a Tensor or a number");
}
// Collects the arguments `names` of the target's schema that are given.
inline PointwiseOperands pointwise_operands(OpContext& ctx, std::initializer_list<std::string_view> names) {
  PointwiseOperands ops;
  for (std::string_view name : names) add_pointwise_operand(ctx, ops, ctx.value(name), name);
  return ops;
}


inline DType promoted_dtype(OpContext& ctx, const PointwiseOperands& ops, PromotionKind kind) {
  auto d = elementwise_dtypes(ops.promotion, kind);
  if (!d) ctx.fail(ErrorKind::TypeError, ctx.target() + ": no common dtype for its operands");
  return d->result;
}

inline SymShape broadcast_all(OpContext& ctx, const std::vector<const TensorMeta*>& tensors) {
  SymShape shape;
  for (const TensorMeta* t : tensors) shape = broadcast_shapes(shape, t->sizes, ctx.env());
  return simplified(ctx, std::move(shape));
}

// FakeTensor's fast path is tried only for these, and only when some input is
// symbolic (FakeTensorMode._dispatch_impl's has_symbolic_sizes); everything
// else runs the op's ref as its meta kernel.
inline bool has_fast_binary_impl(const std::string& target) {
  return target == "aten.add.Tensor" || target == "aten.sub.Tensor" || target == "aten.mul.Tensor" ||
         target == "aten.div.Tensor";
}

// The result shape of the op's ref over `tensors` (ref_elementwise_shape).
inline SymShape ref_shape(OpContext& ctx, const std::vector<const TensorMeta*>& tensors) {
  std::vector<SymShape> shapes;
  std::vector<bool> cpu_scalar;
  for (const TensorMeta* t : tensors) {
    shapes.push_back(t->sizes);
    cpu_scalar.push_back(t->dim() == 0 && t->device.is_cpu());
  }
  return simplified(ctx, ref_elementwise_shape(shapes, cpu_scalar, ctx.env()));
}

// A fresh result of an elementwise op over `ops` with dtype `dtype`. Of
// symbolic sizes the ref gives the shape, unless FakeTensor's fast path for
// add/sub/mul/div (infer_size, then a layout it knows) takes the op.
inline TensorValue pointwise_result(OpContext& ctx, const PointwiseOperands& ops, DType dtype) {
  const Device device = common_device(ops.tensors, ctx.target());
  const bool fast = ops.symbolic && has_fast_binary_impl(ctx.target());
  SymShape shape = ops.symbolic && !fast ? ref_shape(ctx, ops.tensors) : broadcast_all(ctx, ops.tensors);
  std::optional<SymShape> strides;
  if (fast) {
    strides = fast_binary_strides(ops.tensors, shape, ctx.env());
    if (!strides) shape = ref_shape(ctx, ops.tensors);  // the slow path: the ref
  }
  if (!strides) strides = elementwise_permuted_strides(ops.tensors, shape, ctx.env());
  return ctx.new_tensor(std::move(shape), dtype, device, simplified(ctx, std::move(*strides)));
}

inline void check_writable(OpContext& ctx, const TensorMeta& self) {
  if (overlaps_itself(ctx, self))
    ctx.fail(ErrorKind::InvalidArgument,
             "unsupported operation: more than one element of the written-to tensor refers to a single memory "
             "location. Please clone() the tensor before performing the operation.");
}

// An in-place elementwise op: the result is self, which must hold the broadcast
// shape and (unless `check_cast` is off, as for mul_ and logical_*_, whose
// meta kernels skip it) be able to take the computed dtype. Fake tensors do
// not check self for internal overlap.
inline TensorValue pointwise_inplace(OpContext& ctx, const PointwiseOperands& ops, DType computed,
                                     bool check_cast = true) {
  if (ops.tensors.empty())
    ctx.fail(ErrorKind::TypeError, ctx.target() + ": self must be a tensor");  // a malformed graph
  const TensorMeta& self = *ops.tensors.front();
  const Device device = common_device(ops.tensors, ctx.target());
  if (!(device == self.device))
    ctx.fail(ErrorKind::DeviceMismatch, ctx.target() + ": the result lives on " + device.str() + " but self is on " +
                                            self.device.str());
  const SymShape shape = broadcast_all(ctx, ops.tensors);
  bool same = shape.size() == self.sizes.size();
  for (size_t i = 0; same && i < shape.size(); ++i) same = same_size(ctx, shape[i], self.sizes[i], "inplace shape");
  if (!same)
    ctx.fail(ErrorKind::ShapeMismatch,
             "output with shape " + text(self.sizes) + " doesn't match the broadcast shape " + text(shape));
  if (check_cast && !can_cast(computed, self.dtype))
    ctx.fail(ErrorKind::TypeError, "result type " + dtype_title(computed) +
                                       " can't be cast to the desired output type " + dtype_title(self.dtype));
  return same_view(ctx, self);
}

}  // namespace fakeprop::fx::ops
