// Ops whose output sizes or values depend on tensor data: fresh unbacked
// symbols, memoized per input tensor version as FakeTensor memoizes them
// (torch/_subclasses/fake_impls.py).
#include "fakeprop/fx/ops/data_dependent_helpers.h"
#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"

namespace fakeprop::fx::ops {

namespace {

// nonzero(self): (u0, self.dim()) int64 with strides (1, u0).
void nonzero(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const SymInt count = nonzero_count(ctx, self);
  set_tensor(ctx, empty_strided(ctx, {count, SymInt(self.dim())}, {SymInt(1), count}, DType::Int64, self.device));
}

// _local_scalar_dense / item: an unbacked symbol of the tensor's kind.
void local_scalar_dense(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (!same_size(ctx, self.numel(), 1, "item"))
    ctx.fail(ErrorKind::InvalidArgument, "a Tensor with " + text(self.numel()) +
                                             " elements cannot be converted to Scalar");
  bool fresh = false;
  Value* slot = memo_slot(ctx, "item", self, &fresh);
  if (slot && !fresh) {
    ctx.set_result(*slot);
    return;
  }
  Value v;
  if (self.dtype == DType::Bool) {
    v = Value::of_bool(SymBool(ctx.env().create_unbacked_symbool()));
  } else if (is_integral(self.dtype, false)) {
    v = Value::of_int(SymInt(ctx.env().create_unbacked_symint(false)));
  } else if (is_floating(self.dtype)) {
    v = Value::of_symfloat(ctx.env().create_unbacked_symfloat());
  } else {
    // Complex scalars have no symbolic form (PyTorch has no SymComplex either).
    v = Value::unknown("data-dependent complex from " + ctx.target());
  }
  if (slot) *slot = v;
  ctx.set_result(v);
}

// masked_select(self, mask): 1-D, as many elements as the mask selects. Its
// fake impl bounds the count by self's numel, not the broadcast's, and only
// past 2 (below that the bound stays sys.maxsize - 1); even an empty self
// gets a fresh symbol.
void masked_select(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& mask = ctx.tensor("mask");
  if (mask.dtype != DType::Bool) ctx.fail(ErrorKind::TypeError, "masked_select: expected BoolTensor for mask");
  const Device device = common_device(std::vector<const TensorMeta*>{&self, &mask}, ctx.target());
  broadcast_shapes(self.sizes, mask.sizes, ctx.env());  // checks the two broadcast
  const SymInt numel = simplified(ctx, self.numel());
  int64_t bound = count_bound(ctx, numel);
  if (bound <= 2) bound = kIntOo - 1;
  const SymInt count = ctx.new_unbacked_size(ValueRange{0, bound});
  if (Interpreter* in = ctx.interpreter()) in->note_count_bound(count, numel, 2);
  set_tensor(ctx, empty_tensor(ctx, {count}, self.dtype, device));
}

// _unique2(self, sorted, return_inverse, return_counts) -> (output, inverse, counts).
void unique2(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  bool fresh = false;
  Value* slot = memo_slot(ctx, "unique", self, &fresh);
  SymInt count;
  if (slot && !fresh) count = slot->i;
  else count = data_dependent_count(ctx, self.numel());
  if (slot) *slot = Value::of_int(count);
  const bool inverse = ctx.bool_arg("return_inverse");
  const bool counts = ctx.bool_arg("return_counts");
  std::vector<TensorValue> outs;
  outs.push_back(empty_tensor(ctx, {count}, self.dtype, self.device));
  outs.push_back(inverse ? empty_tensor(ctx, self.sizes, DType::Int64, self.device)
                         : empty_tensor(ctx, {SymInt(0)}, DType::Int64, self.device));
  outs.push_back(counts ? empty_tensor(ctx, {count}, DType::Int64, self.device)
                        : empty_tensor(ctx, {SymInt(0)}, DType::Int64, self.device));
  set_tuple(ctx, std::move(outs));
}

// repeat_interleave.Tensor(repeats, *, output_size=None): indices into repeats.
void repeat_interleave(OpContext& ctx) {
  const TensorMeta& repeats = ctx.tensor("repeats");
  if (repeats.dim() > 1) ctx.fail(ErrorKind::InvalidArgument, "repeat_interleave only accept 1D vector as repeat");
  SymInt count;
  if (auto given = ctx.optional_int("output_size")) count = *given;
  else count = ctx.new_unbacked_size(ValueRange{0, kIntOo - 1});
  set_tensor(ctx, empty_tensor(ctx, {count}, repeats.dtype, repeats.device));
}

// one_hot(self, num_classes=-1): int64 [*self.shape, C]; C is data-dependent
// (max + 1) unless given.
void one_hot(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dtype != DType::Int64)
    ctx.fail(ErrorKind::TypeError, "one_hot is only applicable to index tensor of type LongTensor.");
  SymInt classes = ctx.int_arg("num_classes");
  if (classes.is_static() && classes.value() == -1) {
    bool fresh = false;
    Value* slot = memo_slot(ctx, "one_hot", self, &fresh);
    if (slot && !fresh) {
      classes = slot->i;
    } else {
      classes = ctx.new_unbacked_size(ValueRange{0, kIntOo - 1});
      if (slot) *slot = Value::of_int(classes);
    }
  } else if (classes.is_static() && classes.value() < -1) {
    ctx.fail(ErrorKind::InvalidArgument, "num_classes should be positive");
  }
  SymShape out = self.sizes;
  out.push_back(classes);
  set_tensor(ctx, empty_tensor(ctx, out, DType::Int64, self.device));
}

// bincount(self, weights=None, minlength=0): 1-D, max(self) + 1 bins at
// least minlength, a fresh size-like unbacked length (fake_impls.bincount;
// not memoized there); int64 counts, or the weights' float32 / float64.
void bincount(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta* weights = ctx.optional_tensor("weights");
  const SymInt minlength = ctx.int_arg("minlength");
  if (self.numel().is_static() && self.numel().value() == 0) {
    set_tensor(ctx, empty_tensor(ctx, {minlength}, DType::Int64, self.device));
    return;
  }
  const SymInt bins = ctx.new_unbacked_size(ValueRange{0, kIntOo - 1});
  ctx.env().defer_runtime_assert(sym_ge(bins, minlength), "bincount");
  if (!weights) {
    set_tensor(ctx, empty_tensor(ctx, {bins}, DType::Int64, self.device));
    return;
  }
  const DType dtype = weights->dtype == DType::Float32 ? DType::Float32 : DType::Float64;
  set_tensor(ctx, empty_tensor(ctx, {bins}, dtype, weights->device));
}

}  // namespace

void register_data_dependent_ops(OpRegistry& r) {
  r.add("aten.nonzero.default", nonzero);
  r.add("aten.argwhere.default", nonzero);
  r.add("aten._local_scalar_dense.default", local_scalar_dense);
  r.add("aten.item.default", local_scalar_dense);
  r.add("aten.masked_select.default", masked_select);
  r.add("aten._unique2.default", unique2);
  r.add("aten.repeat_interleave.Tensor", repeat_interleave);
  r.add("aten.one_hot.default", one_hot);
  r.add("aten.bincount.default", bincount);
}

}  // namespace fakeprop::fx::ops
