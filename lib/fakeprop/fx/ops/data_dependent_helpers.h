// Data-dependent counts shared by nonzero, boolean-mask indexing and the
// like: fresh size-like unbacked symbols bounded as fake_impls bounds them,
// memoized per input tensor version as FakeTensor memoizes nonzero.
#pragma once
#include <string>

#include "fakeprop/fx/interpreter.h"
#include "fakeprop/fx/ops/aten_helpers.h"

namespace fakeprop::fx::ops {

// The memo slot for (op, input tensor, its version), or nullptr outside an
// interpreter; *fresh tells whether it was just created.
inline Value* memo_slot(OpContext& ctx, const std::string& op, const TensorMeta& t, bool* fresh) {
  Interpreter* in = ctx.interpreter();
  *fresh = true;
  if (!in) return nullptr;
  auto [it, inserted] = in->memo().entries.try_emplace(DataDependentMemo::key(op, t, in->version_of(t.storage)));
  *fresh = inserted;
  return &it->second;
}

// The largest count over `numel` elements: numel itself, its range's upper
// end, or sys.maxsize - 1.
inline int64_t count_bound(OpContext& ctx, const SymInt& numel) {
  if (numel.is_static()) return numel.value();
  const ValueRange r = ctx.env().bound(numel.expr());
  return r.hi_infinite() ? kIntOo - 1 : r.hi;
}

// A size-like unbacked count in [0, bound]; 0 when there are no elements.
inline SymInt data_dependent_count(OpContext& ctx, const SymInt& numel) {
  if (numel.is_static() && numel.value() == 0) return 0;
  const SymInt count = ctx.new_unbacked_size(ValueRange{0, count_bound(ctx, numel)});
  if (Interpreter* in = ctx.interpreter()) in->note_count_bound(count, numel);
  return count;
}

// The number of true elements of `mask` (nonzero's row count), shared with
// aten.nonzero on the same tensor version.
inline SymInt nonzero_count(OpContext& ctx, const TensorMeta& mask) {
  bool fresh = false;
  Value* slot = memo_slot(ctx, "nonzero", mask, &fresh);
  if (slot && !fresh) return slot->tensor->meta.sizes[0];
  const SymInt count = data_dependent_count(ctx, mask.numel());
  if (slot) {
    TensorValue t;
    t.meta.sizes = {count, SymInt(mask.dim())};
    t.meta.strides = {SymInt(1), count};
    t.meta.dtype = DType::Int64;
    t.meta.device = mask.device;
    *slot = Value::of_tensor(std::move(t));
  }
  return count;
}

}  // namespace fakeprop::fx::ops
