// Joining and indexing ops: cat, stack, index_select, gather, scatter,
// index / index_put, ...
#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"

namespace fakeprop::fx::ops {

namespace {

// cat's legacy rule: 1-D tensors with no elements are skipped.
bool cat_skips(OpContext& ctx, const TensorMeta& t) {
  return t.dim() == 1 && guard_or_false(ctx, sym_eq(t.sizes[0], 0), "cat");
}

// The memory format of cat's result: the inputs' common suggestion, else contiguous.
MemoryFormat cat_memory_format(OpContext& ctx, const std::vector<const TensorMeta*>& ts) {
  std::optional<MemoryFormat> format;
  for (const TensorMeta* t : ts) {
    const MemoryFormat f = suggest_memory_format(*t, ctx.env());
    if (format && *format != f) return MemoryFormat::Contiguous;
    format = f;
  }
  return format.value_or(MemoryFormat::Contiguous);
}

TensorValue cat_of(OpContext& ctx, const std::vector<const TensorMeta*>& ts, int64_t dim_arg_value) {
  if (ts.empty()) ctx.fail("invalid_argument", "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < ts.size(); ++i) {
    if (!ts[i]) ctx.fail("type_error", "torch.cat(): expected Tensors, got None at position " + std::to_string(i));
    if (ts[i]->dim() == 0)
      ctx.fail("invalid_argument",
               "zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
  }
  const Device device = common_device(ts, ctx.target());
  std::vector<PromotionOperand> dtypes;
  for (const TensorMeta* t : ts) dtypes.push_back({t->dtype, OperandKind::Tensor});
  const auto dtype = result_type(dtypes);
  if (!dtype) ctx.fail("type_error", "torch.cat(): no common dtype for the inputs");
  const MemoryFormat format = cat_memory_format(ctx, ts);
  // The first tensor that is not skipped decides the rank and wraps dim.
  const TensorMeta* valid = nullptr;
  for (const TensorMeta* t : ts)
    if (!cat_skips(ctx, *t)) {
      valid = t;
      break;
    }
  if (!valid) return empty_tensor(ctx, {SymInt(0)}, *dtype, device, MemoryFormat::Contiguous);
  const int64_t dim = canonical_dim(dim_arg_value, valid->dim());
  SymShape sizes = valid->sizes;
  SymInt total = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorMeta& t = *ts[i];
    if (cat_skips(ctx, t)) continue;
    if (t.dim() != valid->dim())
      ctx.fail("shape_mismatch", "Tensors must have same number of dimensions: got " + std::to_string(valid->dim()) +
                                     " and " + std::to_string(t.dim()));
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == dim) continue;
      const auto ud = static_cast<size_t>(d);
      if (!same_size(ctx, t.sizes[ud], valid->sizes[ud], "cat"))
        ctx.fail("shape_mismatch", "Sizes of tensors must match except in dimension " + std::to_string(dim) +
                                       ". Expected size " + text(valid->sizes[ud]) + " but got size " +
                                       text(t.sizes[ud]) + " for tensor number " + std::to_string(i) + " in the list.");
    }
    total = total + t.sizes[static_cast<size_t>(dim)];
  }
  sizes[static_cast<size_t>(dim)] = total;
  const bool fits = format != MemoryFormat::ChannelsLast || sizes.size() == 4;
  return empty_tensor(ctx, std::move(sizes), *dtype, device, fits ? format : MemoryFormat::Contiguous);
}

void cat(OpContext& ctx) {
  set_tensor(ctx, cat_of(ctx, ctx.tensor_list(0, "tensors"), static_int(ctx, 1, "dim", 0)));
}

// stack: cat of the inputs unsqueezed at dim; all shapes must be equal.
void stack(OpContext& ctx) {
  const std::vector<const TensorMeta*> ts = ctx.tensor_list(0, "tensors");
  if (ts.empty()) ctx.fail("invalid_argument", "stack expects a non-empty TensorList");
  for (const TensorMeta* t : ts)
    if (!t) ctx.fail("type_error", "stack expects Tensors");
  const int64_t dim = dim_arg(ctx, 1, "dim", ts[0]->dim() + 1, 0);
  std::vector<TensorMeta> unsqueezed;
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorMeta& t = *ts[i];
    bool same = t.dim() == ts[0]->dim();
    for (size_t d = 0; same && d < t.sizes.size(); ++d) same = same_size(ctx, t.sizes[d], ts[0]->sizes[d], "stack");
    if (!same)
      ctx.fail("shape_mismatch", "stack expects each tensor to be equal size, but got " + text(ts[0]->sizes) +
                                     " at entry 0 and " + text(t.sizes) + " at entry " + std::to_string(i));
    TensorMeta u = t;
    const auto d = static_cast<size_t>(dim);
    const SymInt stride = dim >= t.dim() ? SymInt(1) : t.sizes[d] * t.strides[d];
    u.sizes.insert(u.sizes.begin() + dim, SymInt(1));
    u.strides.insert(u.strides.begin() + dim, stride);
    unsqueezed.push_back(std::move(u));
  }
  std::vector<const TensorMeta*> ptrs;
  for (const TensorMeta& u : unsqueezed) ptrs.push_back(&u);
  set_tensor(ctx, cat_of(ctx, ptrs, dim));
}

}  // namespace

void register_indexing_ops(OpRegistry& r) {
  r.add("aten.cat.default", cat);
  r.add("aten.concat.default", cat);
  r.add("aten.concatenate.default", cat);
  r.add("aten.stack.default", stack);
}

}  // namespace fakeprop::fx::ops
