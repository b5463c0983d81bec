// Joining and indexing ops: cat, stack, index_select, gather, scatter,
// index / index_put, ...
#include "fakeprop/fx/ops/composite.h"
#include "fakeprop/fx/ops/data_dependent_helpers.h"
#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"
#include "fakeprop/fx/ops/view_helpers.h"

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
  if (ts.empty()) ctx.fail(ErrorKind::InvalidArgument, "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < ts.size(); ++i) {
    if (!ts[i])
      ctx.fail(ErrorKind::TypeError, "torch.cat(): expected Tensors, got None at position " + std::to_string(i));
    if (ts[i]->dim() == 0)
      ctx.fail(ErrorKind::InvalidArgument,
               "zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
  }
  const Device device = common_device(ts, ctx.target());
  std::vector<PromotionOperand> dtypes;
  for (const TensorMeta* t : ts) dtypes.push_back({t->dtype, OperandKind::Tensor});
  const auto dtype = result_type(dtypes);
  if (!dtype) ctx.fail(ErrorKind::TypeError, "torch.cat(): no common dtype for the inputs");
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
      ctx.fail(ErrorKind::ShapeMismatch, "Tensors must have same number of dimensions: got " +
                                             std::to_string(valid->dim()) + " and " + std::to_string(t.dim()));
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == dim) continue;
      const auto ud = static_cast<size_t>(d);
      if (!same_size(ctx, t.sizes[ud], valid->sizes[ud], "cat"))
        ctx.fail(ErrorKind::ShapeMismatch, "Sizes of tensors must match except in dimension " + std::to_string(dim) +
                                               ". Expected size " + text(valid->sizes[ud]) + " but got size " +
                                               text(t.sizes[ud]) + " for tensor number " + std::to_string(i) +
                                               " in the list.");
    }
    total = total + t.sizes[static_cast<size_t>(dim)];
  }
  sizes[static_cast<size_t>(dim)] = total;
  const bool fits = format != MemoryFormat::ChannelsLast || sizes.size() == 4;
  TensorValue out = empty_tensor(ctx, std::move(sizes), *dtype, device, fits ? format : MemoryFormat::Contiguous);
  storage_size_guards(ctx, out.meta.sizes);  // cat's meta allocates through empty_strided
  return out;
}

void cat(OpContext& ctx) {
  set_tensor(ctx, cat_of(ctx, ctx.tensor_list("tensors"), static_int(ctx, "dim")));
}

// stack (at::native::stack): below the last dim, cat along dim then a view
// that splits it; at the end, cat of the inputs unsqueezed there.
void stack(OpContext& ctx) {
  const std::vector<const TensorMeta*> ts = ctx.tensor_list("tensors");
  if (ts.empty()) ctx.fail(ErrorKind::InvalidArgument, "stack expects a non-empty TensorList");
  for (const TensorMeta* t : ts)
    if (!t) ctx.fail(ErrorKind::TypeError, "stack expects Tensors");
  const int64_t dim = dim_arg(ctx, "dim", ts[0]->dim() + 1);
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorMeta& t = *ts[i];
    bool same = t.dim() == ts[0]->dim();
    for (size_t d = 0; same && d < t.sizes.size(); ++d) same = same_size(ctx, t.sizes[d], ts[0]->sizes[d], "stack");
    if (!same)
      ctx.fail(ErrorKind::ShapeMismatch, "stack expects each tensor to be equal size, but got " + text(ts[0]->sizes) +
                                             " at entry 0 and " + text(t.sizes) + " at entry " + std::to_string(i));
  }
  if (dim < ts[0]->dim()) {
    TensorValue joined = cat_of(ctx, ts, dim);
    SymShape sizes = ts[0]->sizes;
    sizes.insert(sizes.begin() + dim, SymInt(static_cast<int64_t>(ts.size())));
    // cat(...).view(sizes) through torch 2.15's fake view: with unbacked sizes
    // _view_unbacked_meta, else the refs' helper, whose guards are its own
    // (Eq(2*c, 2) where a chunk c may be 1).
    std::optional<SymShape> strides;
    if (view_has_unbacked(ctx, joined.meta.sizes, joined.meta.strides, sizes))
      strides = unbacked_view_strides(ctx, joined.meta.sizes, joined.meta.strides, sizes);
    if (!strides) {
      auto layout = fake_view_layout(ctx, joined.meta.sizes, joined.meta.strides, sizes);
      // Splitting one dim into two is always a view.
      if (!layout) ctx.fail(ErrorKind::ViewError, "stack: the concatenated result cannot be viewed");
      sizes = std::move(layout->sizes);
      strides = std::move(layout->strides);
    }
    joined.meta.sizes = sizes;
    joined.meta.strides = *strides;
    set_tensor(ctx, std::move(joined));
    return;
  }
  std::vector<TensorMeta> unsqueezed;
  for (const TensorMeta* t : ts) {
    TensorMeta u = *t;
    u.sizes.insert(u.sizes.begin() + dim, SymInt(1));
    u.strides.insert(u.strides.begin() + dim, SymInt(1));
    unsqueezed.push_back(std::move(u));
  }
  std::vector<const TensorMeta*> ptrs;
  for (const TensorMeta& u : unsqueezed) ptrs.push_back(&u);
  set_tensor(ctx, cat_of(ctx, ptrs, dim));
}

bool is_index_dtype(DType t) { return t == DType::Int64 || t == DType::Int32; }

// gather / scatter take int32 or int64 indices; an index known to be empty
// is not checked.
void check_index_dtype(OpContext& ctx, const TensorMeta& index, const char* op) {
  if (!is_index_dtype(index.dtype) && !known_true(ctx, sym_eq(index.numel(), 0)))
    ctx.fail(ErrorKind::TypeError, std::string(op) + "(): Expected dtype int32/int64 for index");
}

// index_select(self, dim, index): self with dim resized to index.numel().
void index_select(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& index = ctx.tensor("index");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  // The meta kernel leaves the index's rank and dtype to the real kernel.
  const Device device = common_device(std::vector<const TensorMeta*>{&self, &index}, ctx.target());
  SymShape sizes = self.sizes;
  if (self.dim() > 0) sizes[static_cast<size_t>(dim)] = index.numel();
  set_tensor(ctx, empty_tensor(ctx, sizes, self.dtype, device));
}

// gather(self, dim, index, sparse_grad): index's shape, contiguous.
void gather(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& index = ctx.tensor("index");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  check_index_dtype(ctx, index, "gather");
  const Device device = common_device(std::vector<const TensorMeta*>{&self, &index}, ctx.target());
  if (!known_true(ctx, sym_eq(index.numel(), 0))) {
    if (std::max<int64_t>(index.dim(), 1) != std::max<int64_t>(self.dim(), 1))
      ctx.fail(ErrorKind::InvalidArgument, "Index tensor must have the same number of dimensions as input tensor");
    for (int64_t d = 0; d < self.dim() && d < index.dim(); ++d) {
      if (d == dim) continue;
      const auto ud = static_cast<size_t>(d);
      if (decide(ctx, sym_gt(index.sizes[ud], self.sizes[ud]), "gather"))
        ctx.fail(ErrorKind::ShapeMismatch, "Size does not match at dimension " + std::to_string(d) +
                                               " expected index " + text(index.sizes) + " to be smaller than self " +
                                               text(self.sizes) + " apart from dimension " + std::to_string(dim));
    }
  }
  set_tensor(ctx, empty_tensor(ctx, index.sizes, self.dtype, device));
}

// Shape checks shared by scatter / scatter_add / scatter_reduce.
void check_scatter(OpContext& ctx, const TensorMeta& self, int64_t dim, const TensorMeta& index,
                   const TensorMeta* src, const char* op) {
  check_index_dtype(ctx, index, op);
  if (src && src->dtype != self.dtype)
    ctx.fail(ErrorKind::TypeError, std::string(op) + "(): Expected self.dtype to be equal to src.dtype");
  if (known_true(ctx, sym_eq(index.numel(), 0))) return;
  if (std::max<int64_t>(index.dim(), 1) != std::max<int64_t>(self.dim(), 1))
    ctx.fail(ErrorKind::InvalidArgument, "Index tensor must have the same number of dimensions as self tensor");
  for (int64_t d = 0; d < index.dim(); ++d) {
    const auto ud = static_cast<size_t>(d);
    if (d != dim && self.dim() > d && decide(ctx, sym_gt(index.sizes[ud], self.sizes[ud]), op))
      ctx.fail(ErrorKind::ShapeMismatch, "Expected index " + text(index.sizes) + " to be smaller than self " +
                                             text(self.sizes) + " apart from dimension " + std::to_string(dim));
    if (src && src->dim() > d && decide(ctx, sym_gt(index.sizes[ud], src->sizes[ud]), op))
      ctx.fail(ErrorKind::ShapeMismatch, "Expected index " + text(index.sizes) + " to be smaller than src " +
                                             text(src->sizes));
  }
}

// scatter(self, dim, index, src|value[, reduce]) and scatter_add / scatter_reduce:
// the structured meta allocates a contiguous self-shaped result.
template <bool Inplace>
void scatter(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const TensorMeta& index = ctx.tensor("index");
  // scatter.value / value_reduce take a number, `value`, where the others take `src`.
  const Value& third = ctx.value(ctx.declares("src") ? "src" : "value");
  const TensorMeta* src = third.is_tensor() ? &third.tensor->meta : nullptr;
  check_scatter(ctx, self, dim, index, src, "scatter");
  std::vector<const TensorMeta*> all{&self, &index};
  if (src) all.push_back(src);
  const Device device = common_device(all, ctx.target());
  if constexpr (Inplace) {
    check_writable(ctx, self);
    set_tensor(ctx, same_view(ctx, self));
  } else {
    set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, device));
  }
}

// index_add / index_copy(self, dim, index, source): contiguous self-shaped;
// index_fill(self, dim, index, value) preserves self's layout (clone then fill).
template <bool Inplace>
void index_func(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const TensorMeta& index = ctx.tensor("index");
  if (index.dim() > 1) ctx.fail(ErrorKind::InvalidArgument, "Index is supposed to be a vector");
  if (!is_index_dtype(index.dtype))
    ctx.fail(ErrorKind::TypeError, "index_add_(): Expected dtype int32/int64 for index");
  // index_fill's fourth argument is `value` (a number, or a 0-d tensor checked as a source).
  const bool fill = !ctx.declares("source");
  const Value& source_v = ctx.value(fill ? "value" : "source");
  if (source_v.is_tensor()) {
    const TensorMeta& source = source_v.tensor->meta;
    if (source.dtype != self.dtype)
      ctx.fail(ErrorKind::TypeError, "index_add_(): self (" + dtype_title(self.dtype) + ") and source (" +
                                         dtype_title(source.dtype) + ") must have the same scalar type");
    if (source.dim() > 0 && self.dim() > 0 &&
        !same_size(ctx, source.sizes[static_cast<size_t>(std::min(dim, source.dim() - 1))], index.numel(), "index_add"))
      ctx.fail(ErrorKind::ShapeMismatch, "index_add_(): Number of indices (" + text(index.numel()) +
                                             ") should be equal to source.size(dim)");
  }
  if constexpr (Inplace) {
    check_writable(ctx, self);
    set_tensor(ctx, same_view(ctx, self));
  } else if (fill) {
    set_tensor(ctx, empty_like(ctx, self));
  } else {
    set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, self.device));
  }
}

// The advanced indices of index.Tensor / index_put: bool and uint8 masks
// become one int64 index per mask dim (nonzero's columns, data-dependent).
std::vector<std::optional<TensorMeta>> expand_masks(OpContext& ctx, const TensorMeta& self,
                                                    const std::vector<const TensorMeta*>& indices) {
  std::vector<std::optional<TensorMeta>> out;
  for (size_t i = 0; i < indices.size(); ++i) {
    const TensorMeta* index = indices[i];
    if (!index) {
      out.emplace_back();
      continue;
    }
    if (index->dtype != DType::Int64 && index->dtype != DType::Int32 && index->dtype != DType::Bool &&
        index->dtype != DType::UInt8 && index->dtype != DType::Int8)
      ctx.fail(ErrorKind::IndexError, "tensors used as indices must be long, int, byte or bool tensors");
    if (index->dtype != DType::Bool && index->dtype != DType::UInt8) {
      out.emplace_back(*index);
      continue;
    }
    const size_t k = out.size();
    if (k + index->sizes.size() > self.sizes.size())
      ctx.fail(ErrorKind::IndexError, "too many indices for tensor of dimension " + std::to_string(self.dim()));
    for (size_t j = 0; j < index->sizes.size(); ++j)
      if (!same_size(ctx, index->sizes[j], self.sizes[k + j], "index mask"))
        ctx.fail(ErrorKind::IndexError, "The shape of the mask " + text(index->sizes) + " at index " +
                                            std::to_string(i) + " does not match the shape of the indexed tensor " +
                                            text(self.sizes) + " at index " + std::to_string(k + j));
    const SymInt count = nonzero_count(ctx, *index);
    TensorMeta column = *index;
    column.sizes = {count};
    column.strides = {SymInt(1)};
    column.dtype = DType::Int64;
    for (size_t j = 0; j < index->sizes.size(); ++j) out.emplace_back(column);
  }
  if (out.size() > self.sizes.size())
    ctx.fail(ErrorKind::IndexError, "too many indices for tensor of dimension " + std::to_string(self.dim()) +
                                        " (got " + std::to_string(out.size()) + ")");
  return out;
}

// index.Tensor(self, indices): torch/_meta_registrations.py meta_index_Tensor
// (2.x): broadcast indices replace their dims (moved to the front when not
// adjacent); strides follow self as TensorIterator restrides it.
void index_tensor(OpContext& ctx) {
  const TensorMeta& self0 = ctx.tensor("self");
  const std::vector<const TensorMeta*> given = ctx.tensor_list("indices");
  if (given.empty()) ctx.fail(ErrorKind::InvalidArgument, "at least one index must be provided");
  std::vector<const TensorMeta*> all{&self0};
  for (const TensorMeta* t : given)
    if (t) all.push_back(t);
  const Device device = common_device(all, ctx.target());
  std::vector<std::optional<TensorMeta>> indices = expand_masks(ctx, self0, given);
  SymShape index_shape;
  for (const auto& index : indices)
    if (index) index_shape = broadcast_shapes(index_shape, index->sizes, ctx.env());
  indices.resize(self0.sizes.size());
  // Adjacent advanced indices stay in place; otherwise they move to the front.
  int state = 0;
  bool contiguous_subspace = true;
  for (const auto& index : indices) {
    if (state == 0 && index) state = 1;
    else if (state == 1 && !index) state = 2;
    else if (state == 2 && index) contiguous_subspace = false;
  }
  TensorMeta self = self0;
  if (!contiguous_subspace) {
    std::vector<size_t> order;
    for (size_t d = 0; d < indices.size(); ++d)
      if (indices[d]) order.push_back(d);
    for (size_t d = 0; d < indices.size(); ++d)
      if (!indices[d]) order.push_back(d);
    std::vector<std::optional<TensorMeta>> moved;
    for (size_t d : order) {
      self.sizes[moved.size()] = self0.sizes[d];
      self.strides[moved.size()] = self0.strides[d];
      moved.push_back(indices[d]);
    }
    indices = std::move(moved);
  }
  SymShape before, after;
  bool seen = false;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (indices[d]) seen = true;
    else (seen ? after : before).push_back(self.sizes[d]);
  }
  SymShape out = before;
  out.insert(out.end(), index_shape.begin(), index_shape.end());
  out.insert(out.end(), after.begin(), after.end());
  out = simplified(ctx, std::move(out));
  if (size_oblivious(ctx, sym_eq(self.numel(), 0), "index")) {
    set_tensor(ctx, empty_tensor(ctx, out, self.dtype, device));
    return;
  }
  // restride_src: the indexed dims become the broadcast index dims with stride 0.
  TensorMeta restrided = self;
  restrided.sizes = out;
  restrided.strides.clear();
  for (size_t d = 0; d < before.size(); ++d) restrided.strides.push_back(self.strides[d]);
  for (size_t d = 0; d < index_shape.size(); ++d) restrided.strides.push_back(0);
  for (size_t d = self.strides.size() - after.size(); d < self.strides.size(); ++d)
    restrided.strides.push_back(self.strides[d]);
  const TensorMeta* ops[] = {&restrided};
  SymShape strides = elementwise_output_strides(ops, out, ctx.env());
  set_tensor(ctx, ctx.new_tensor(out, self.dtype, device, simplified(ctx, std::move(strides))));
}

// index_put(self, indices, values, accumulate): like self (index_put_: self).
template <bool Inplace>
void index_put(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& values = ctx.tensor("values");
  const std::vector<const TensorMeta*> given = ctx.tensor_list("indices");
  if (values.dtype != self.dtype)
    ctx.fail(ErrorKind::TypeError, "Index put requires the source and destination dtypes match, got " +
                                       dtype_title(self.dtype) + " for the destination and " +
                                       dtype_title(values.dtype) + " for the source.");
  (void)expand_masks(ctx, self, given);
  if constexpr (Inplace) {
    check_writable(ctx, self);
    set_tensor(ctx, same_view(ctx, self));
  } else {
    set_tensor(ctx, empty_permuted_like(ctx, self));
  }
}

// repeat(self, repeats): contiguous, leading dims added.
void repeat(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<SymInt> repeats = ctx.int_list("repeats");
  if (static_cast<int64_t>(repeats.size()) < self.dim())
    ctx.fail(ErrorKind::InvalidArgument,
             "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const size_t lead = repeats.size() - self.sizes.size();
  SymShape out;
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i].is_static() && repeats[i].value() < 0)
      ctx.fail(ErrorKind::InvalidArgument, "Trying to create tensor with negative dimension " +
                                               std::to_string(repeats[i].value()) + ": " + text(repeats));
    out.push_back(i < lead ? repeats[i] : self.sizes[i - lead] * repeats[i]);
  }
  set_tensor(ctx, empty_tensor(ctx, out, self.dtype, self.device));
}

// tile(self, dims) (ATen's composite, as numpy.tile): dims shorter than
// self's rank get leading 1s, then it is repeat. SAM 3's ViT tiles its
// position embedding.
void tile(OpContext& ctx) {
  const TensorValue& self = ctx.tensor_value("self");
  std::vector<SymInt> reps = ctx.int_list("dims");
  if (reps.size() < self.meta.sizes.size()) reps.insert(reps.begin(), self.meta.sizes.size() - reps.size(), SymInt(1));
  Composite c(ctx);
  set_tensor(ctx, c.call("aten.repeat.default", {Composite::tensor(self), Composite::sizes(reps)}));
}

// repeat_interleave(self, int repeats, dim=None, *, output_size=None), a
// composite: self (flattened without a dim) gets a new dim after `dim`,
// expanded to `repeats`, cloned contiguous and viewed back, as ATen does.
void repeat_interleave_int(OpContext& ctx) {
  const TensorValue& self = ctx.tensor_value("self");
  const SymInt repeats = ctx.int_arg("repeats");
  const std::optional<SymInt> dim_arg = ctx.optional_int("dim");
  const std::optional<SymInt> output_size = ctx.optional_int("output_size");
  Composite c(ctx);
  TensorValue input = self;
  int64_t dim = 0;
  if (dim_arg) {
    dim = canonical_dim(specialize(ctx, *dim_arg, "repeat_interleave dim"), std::max<int64_t>(self.meta.dim(), 1));
    if (self.meta.dim() == 0) ctx.fail(ErrorKind::InvalidArgument, "repeat_interleave: a 0-d tensor has no dim");
  } else {
    input = c.call("aten.reshape.default", {Composite::tensor(self), Composite::ints({-1})});
  }
  if (!decide(ctx, sym_ge(repeats, 0), "repeat_interleave"))
    ctx.fail(ErrorKind::InvalidArgument, "Repeats must be non-negative");
  input = c.call("aten.unsqueeze.default", {Composite::tensor(input), Value::of_int(SymInt(dim + 1))});
  SymShape expanded = input.meta.sizes;
  expanded[static_cast<size_t>(dim + 1)] = repeats;
  input = c.call("aten.expand.default", {Composite::tensor(input), Composite::sizes(expanded)});
  SymShape final_shape = input.meta.sizes;
  final_shape[static_cast<size_t>(dim)] = simplified(ctx, final_shape[static_cast<size_t>(dim)] * repeats);
  final_shape.erase(final_shape.begin() + dim + 1);
  if (output_size && !same_size(ctx, *output_size, final_shape[static_cast<size_t>(dim)], "repeat_interleave"))
    ctx.fail(ErrorKind::InvalidArgument, "repeat_interleave: Invalid output_size, expected " +
                                             text(final_shape[static_cast<size_t>(dim)]) + " but got " +
                                             text(*output_size));
  input = empty_like(ctx, input.meta, std::nullopt, MemoryFormat::Contiguous);  // clone(memory_format=contiguous)
  set_tensor(ctx, c.call("aten.view.default", {Composite::tensor(input), Composite::sizes(final_shape)}));
}

// repeat_interleave(self, Tensor repeats, dim=None, *, output_size=None), a
// composite: index_select of self (flattened without a dim) with the
// data-dependent repeat_interleave(repeats), one repeats broadcast first.
void repeat_interleave_tensor(OpContext& ctx) {
  const TensorValue& self = ctx.tensor_value("self");
  const TensorValue& repeats = ctx.tensor_value("repeats");
  const std::optional<SymInt> dim_arg = ctx.optional_int("dim");
  const Value& output_size = ctx.value("output_size");
  Composite c(ctx);
  TensorValue input = self;
  int64_t dim = 0;
  if (dim_arg)  // input.size(dim): a 0-d input has no dim 0
    dim = canonical_dim(specialize(ctx, *dim_arg, "repeat_interleave dim"), self.meta.dim(), /*wrap_scalar=*/false);
  else
    input = c.call("aten.reshape.default", {Composite::tensor(self), Composite::ints({-1})});
  const SymInt along = input.meta.sizes[static_cast<size_t>(dim)];
  TensorValue counts = repeats;
  if (repeats.meta.dim() == 0 ||
      (repeats.meta.dim() == 1 && guard_or_false(ctx, sym_eq(repeats.meta.sizes[0], 1), "repeat_interleave"))) {
    counts = c.call("aten.reshape.default", {Composite::tensor(repeats), Composite::ints({1})});
    counts = c.call("aten.expand.default", {Composite::tensor(counts), Composite::sizes({along})});
  } else if (repeats.meta.dim() == 1) {
    if (!same_size(ctx, repeats.meta.sizes[0], along, "repeat_interleave"))
      ctx.fail(ErrorKind::ShapeMismatch,
               "repeats must have the same size as input along dim, but got repeats.size(0) = " +
                   text(repeats.meta.sizes[0]) + " and input.size(" + std::to_string(dim) + ") = " + text(along));
  } else {
    ctx.fail(ErrorKind::InvalidArgument, "repeats must be 0-dim or 1-dim tensor");
  }
  const TensorValue index =
      c.call("aten.repeat_interleave.Tensor", {Composite::tensor(counts)}, {{"output_size", output_size}});
  set_tensor(ctx, c.call("aten.index_select.default",
                         {Composite::tensor(input), Value::of_int(SymInt(dim)), Composite::tensor(index)}));
}

// flip keeps self's layout (empty_like).
void flip(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  for (int64_t d : static_int_list(ctx, "dims")) {
    const auto w = static_cast<size_t>(canonical_dim(d, self.dim()));
    if (seen[w])
      ctx.fail(ErrorKind::InvalidArgument, "dims has duplicates, original flip dims size=" + std::to_string(w));
    seen[w] = true;
  }
  set_tensor(ctx, empty_permuted_like(ctx, self));
}
// roll(self, shifts, dims): PyTorch's reference rolls one dim at a time with
// index_select (dims empty: over the flattened tensor), so the result is
// contiguous; only an empty self is cloned, keeping its layout.
void roll(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<int64_t> shifts = static_int_list(ctx, "shifts");
  const std::vector<int64_t> dims = static_int_list(ctx, "dims");
  for (int64_t d : dims) (void)canonical_dim(d, self.dim());
  if (decide(ctx, sym_eq(self.numel(), 0), "roll")) return set_tensor(ctx, empty_like(ctx, self));
  if (self.dim() == 0 && !dims.empty())
    ctx.fail(ErrorKind::IndexError, "Dimension specified as " + std::to_string(dims[0]) + " but tensor has no dimensions");
  if (shifts.empty()) ctx.fail(ErrorKind::InvalidArgument, "`shifts` required");
  if (!(dims.empty() && shifts.size() == 1) && shifts.size() != dims.size())
    ctx.fail(ErrorKind::InvalidArgument, "shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
                                             ", dims: " + std::to_string(dims.size()));
  set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, self.device));
}
// tril / triu: the structured meta checks nothing (the kernel wants 2-D).
void tril(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, self.device));
}

// topk(self, k, dim=-1, largest, sorted) -> (values, indices).
void topk(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const SymInt k = ctx.int_arg("k");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const SymInt size = self.dim() > 0 ? self.sizes[static_cast<size_t>(dim)] : SymInt(1);
  // topk_meta: torch._check(k >= 0), then torch._check(k <= sliceSize): a
  // guard on a backed size, a runtime assert on an unbacked one (u0 >= 1 for
  // k = 1, as Python asks size.__ge__(k) for an int k).
  require(ctx, sym_ge(k, 0), "topk", ErrorKind::IndexError, [] { return std::string("selected index k out of range"); });
  require(ctx, k.is_static() ? sym_ge(size, k) : sym_le(k, size), "topk", ErrorKind::IndexError,
          [] { return std::string("k not in range for dimension"); });
  SymShape out = self.sizes;
  if (self.dim() > 0) out[static_cast<size_t>(dim)] = k;
  set_tuple(ctx, {empty_tensor(ctx, out, self.dtype, self.device), empty_tensor(ctx, out, DType::Int64, self.device)});
}

// sort(self, dim=-1, descending) / sort.stable: dense in self's order;
// argsort (kArgsort) is sort's indices.
template <bool kArgsort>
void sort(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  (void)dim_arg(ctx, "dim", self.dim());
  const SymShape strides = strides_like(self, self.sizes, ctx.env());
  TensorValue indices = ctx.new_tensor(self.sizes, DType::Int64, self.device, strides);
  if (kArgsort) {
    set_tensor(ctx, std::move(indices));
    return;
  }
  set_tuple(ctx, {ctx.new_tensor(self.sizes, self.dtype, self.device, strides), std::move(indices)});
}

// masked_scatter(self, mask, source): self expanded to the broadcast shape
// of (self, mask), cloned contiguous. mask must be bool; source of self's dtype.
void masked_scatter(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& mask = ctx.tensor("mask");
  const TensorMeta& source = ctx.tensor("source");
  if (mask.dtype != DType::Bool)
    ctx.fail(ErrorKind::TypeError, "masked_scatter_ only supports boolean masks, but got mask with dtype " +
                                       dtype_title(mask.dtype));
  if (source.dtype != self.dtype)
    ctx.fail(ErrorKind::TypeError, "masked_scatter: expected self and source to have same dtypes but got " +
                                       dtype_title(self.dtype) + " and " + dtype_title(source.dtype));
  const Device device = common_device(std::vector<const TensorMeta*>{&self, &mask, &source}, ctx.target());
  const SymShape shape = broadcast_shapes(self.sizes, mask.sizes, ctx.env());
  set_tensor(ctx, empty_tensor(ctx, shape, self.dtype, device));
}

}  // namespace

// constant_pad_nd(self, pad, value): pad pairs from the last dim; the result
// keeps self's suggested memory format.
void constant_pad_nd(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<SymInt> pad = ctx.int_list("pad");
  if (pad.size() % 2 != 0) ctx.fail(ErrorKind::InvalidArgument, "Length of pad must be even but instead it equals " +
                                                                    std::to_string(pad.size()));
  if (static_cast<int64_t>(pad.size() / 2) > self.dim())
    ctx.fail(ErrorKind::InvalidArgument,
             "Length of pad should be no more than twice the number of dimensions of the input. "
             "Pad length is " + std::to_string(pad.size()) + " while the input has " + std::to_string(self.dim()) +
             " dimensions.");
  SymShape out = self.sizes;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t d = out.size() - 1 - i;
    out[d] = simplified(ctx, out[d] + pad[2 * i] + pad[2 * i + 1]);
    // torch._check in the meta: a runtime assert on an unbacked size.
    require(ctx, sym_ge(out[d], 0), "constant_pad_nd", ErrorKind::InvalidArgument, [&] {
      return "The input size " + text(self.sizes[d]) + ", plus negative padding " + text(pad[2 * i]) + " and " +
             text(pad[2 * i + 1]) + " resulted in a negative output size, which is invalid. Check dimension " +
             std::to_string(d) + " of your input.";
    });
  }
  const MemoryFormat format = suggest_memory_format(self, ctx.env());
  set_tensor(ctx, empty_tensor(ctx, out, self.dtype, self.device, format));
}

void register_indexing_ops(OpRegistry& r) {
  r.add("aten.cat.default", cat);
  r.add("aten.concat.default", cat);
  r.add("aten.concatenate.default", cat);
  r.add("aten.stack.default", stack);
  r.add("aten.index_select.default", index_select);
  r.add("aten.gather.default", gather);
  for (const char* name : {"aten.scatter.src", "aten.scatter.value", "aten.scatter.reduce", "aten.scatter.value_reduce",
                           "aten.scatter_add.default", "aten.scatter_reduce.two"})
    r.add(name, scatter<false>);
  for (const char* name : {"aten.scatter_.src", "aten.scatter_.value", "aten.scatter_.reduce",
                           "aten.scatter_.value_reduce", "aten.scatter_add_.default", "aten.scatter_reduce_.two"})
    r.add_inplace(name, scatter<true>);
  for (const char* name : {"aten.index_add.default", "aten.index_copy.default", "aten.index_fill.int_Scalar",
                           "aten.index_fill.int_Tensor"})
    r.add(name, index_func<false>);
  for (const char* name : {"aten.index_add_.default", "aten.index_copy_.default", "aten.index_fill_.int_Scalar",
                           "aten.index_fill_.int_Tensor"})
    r.add_inplace(name, index_func<true>);
  r.add("aten.index.Tensor", index_tensor);
  r.add("aten._unsafe_index.Tensor", index_tensor);  // index without bounds checks (inductor decompositions)
  r.add("aten.index_put.default", index_put<false>);
  r.add_inplace("aten.index_put_.default", index_put<true>);
  r.add("aten._unsafe_index_put.default", index_put<false>);
  r.add("aten.repeat.default", repeat);
  r.add("aten.tile.default", tile);
  r.add("aten.repeat_interleave.self_int", repeat_interleave_int);
  r.add("aten.repeat_interleave.self_Tensor", repeat_interleave_tensor);
  r.add("aten.flip.default", flip);
  r.add("aten.roll.default", roll);
  r.add("aten.tril.default", tril);
  r.add("aten.triu.default", tril);
  r.add("aten.topk.default", topk);
  r.add("aten.sort.default", sort<false>);
  r.add("aten.sort.stable", sort<false>);
  r.add("aten.argsort.default", sort<true>);
  r.add("aten.argsort.stable", sort<true>);
  r.add("aten.constant_pad_nd.default", constant_pad_nd);
  r.add("aten.masked_scatter.default", masked_scatter);
}

}  // namespace fakeprop::fx::ops
