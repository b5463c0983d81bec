// Shared vocabulary of the ATen rules: static integer arguments, dim
// wrapping, decisions on sizes, fresh tensors in a memory format, type
// promotion operands and tuple results. Header-only so that every family
// file can use it without a new translation unit.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "fakeprop/fx/op_context.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/tensor/tensor_meta.h"

namespace fakeprop::fx::ops {

inline std::string text(const SymInt& v) { return v.is_static() ? std::to_string(v.value()) : v.to_python(); }
inline std::string text(const SymShape& s) { return shape_to_string(s); }

// size != 0 as sympy builds it: torch makes a backed size symbol positive
// by assumption, so Ne of one (or of a product of them) is True at once and
// drops out of a torch._check's conjunction; an unbacked size's stays.
inline SymBool sympy_nonzero(const OpContext& ctx, const SymInt& size) {
  if (size.is_static()) return size.value() != 0;
  ExprRef e = size.expr();
  auto positive_symbol = [&](ExprRef s) {
    return s->is_symbol() && ctx.env().is_symbol_known(s) && !ctx.env().info(s).unbacked;
  };
  bool positive = positive_symbol(e);
  if (e->kind() == ExprKind::Mul && e->value() > 0) {
    positive = true;
    for (const auto& [base, exponent] : e->terms()) positive = positive && positive_symbol(base);
  }
  return positive ? SymBool(true) : sym_ne(size, 0);
}

// a < b as a Python meta function evaluates it: with an int on the left,
// Python calls the SymInt's reflected __gt__, so sympy holds b > a.
inline SymBool python_lt(const SymInt& a, const SymInt& b) {
  return a.is_static() && !b.is_static() ? sym_gt(b, a) : sym_lt(a, b);
}
// a >= b likewise: an int on the left makes it b <= a.
inline SymBool python_ge(const SymInt& a, const SymInt& b) {
  return a.is_static() && !b.is_static() ? sym_le(b, a) : sym_ge(a, b);
}

// The decision vocabulary (decide, same_size, require, known_true,
// size_oblivious, guard_or_false, simplified) is runner/rule_context.h's.

// FakeTensor's has_symbolic_sizes_strides: such inputs take the Python refs
// and decompositions where static ones take the C++ meta kernels.
inline bool has_symbolic_sizes_strides(const TensorMeta& t) {
  auto sym = [](const SymInt& x) { return !x.is_static(); };
  return std::any_of(t.sizes.begin(), t.sizes.end(), sym) || std::any_of(t.strides.begin(), t.strides.end(), sym);
}

inline SymInt product(const SymShape& s) {
  SymInt p = 1;
  for (const SymInt& d : s) p = p * d;
  return p;
}

// ---- arguments ----

inline std::vector<int64_t> static_ints(OpContext& ctx, const std::vector<SymInt>& xs) {
  std::vector<int64_t> out;
  out.reserve(xs.size());
  for (const SymInt& x : xs) out.push_back(specialize(ctx, x, "static int argument"));
  return out;
}
// An int argument that the rule needs as a plain integer (a dim, a count);
// its place and default come from the schema.
inline int64_t static_int(OpContext& ctx, std::string_view name, std::optional<int64_t> dflt = std::nullopt) {
  const SymInt v = ctx.int_arg(name, dflt ? std::optional<SymInt>(*dflt) : std::nullopt);
  return specialize(ctx, v, "static int argument");
}
inline std::vector<int64_t> static_int_list(OpContext& ctx, std::string_view name,
                                            std::optional<std::vector<SymInt>> dflt = std::nullopt) {
  return static_ints(ctx, ctx.int_list(name, std::move(dflt)));
}
// A dim argument wrapped into [0, rank).
inline int64_t dim_arg(OpContext& ctx, std::string_view name, int64_t rank, std::optional<int64_t> dflt = std::nullopt,
                       bool wrap_scalar = true) {
  return canonical_dim(static_int(ctx, name, dflt), rank, wrap_scalar);
}
// Reduction dims: wrapped, duplicates rejected; empty means every dim.
inline std::vector<bool> reduction_mask(OpContext& ctx, const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<bool> mask(static_cast<size_t>(std::max<int64_t>(rank, 1)), dims.empty());
  if (rank == 0) mask.assign(1, true);
  for (int64_t d : dims) {
    const int64_t w = canonical_dim(d, rank);
    if (rank > 0 && mask[static_cast<size_t>(w)] && !dims.empty())
      ctx.fail(ErrorKind::InvalidArgument, "dim " + std::to_string(w) + " appears multiple times in the list of dims");
    mask[static_cast<size_t>(w)] = true;
  }
  return mask;
}

// Sizes that must not be negative (factory sizes, view targets).
inline void check_non_negative(OpContext& ctx, const SymShape& sizes) {
  for (const SymInt& s : sizes)
    if (s.is_static() && s.value() < 0)
      ctx.fail(ErrorKind::InvalidArgument,
               "Trying to create tensor with negative dimension " + std::to_string(s.value()) + ": " + text(sizes));
}
// A factory's sizes, as ATen's check_size_nonnegative takes them
// (SymInt::expect_size): a symbolic size whose sign is not known is a guard,
// or a runtime assert when unbacked.
inline void check_size_nonnegative(OpContext& ctx, const SymShape& sizes) {
  check_non_negative(ctx, sizes);
  for (const SymInt& s : sizes)
    if (s.is_symbolic())
      require(ctx, sym_ge(s, 0), "check_size_nonnegative", ErrorKind::InvalidArgument,
              [&] { return "Trying to create tensor with negative dimension " + text(s) + ": " + text(sizes); });
}

// ---- results ----

inline TensorValue empty_tensor(OpContext& ctx, SymShape sizes, DType dtype, Device device,
                                MemoryFormat format = MemoryFormat::Contiguous) {
  sizes = simplified(ctx, std::move(sizes));
  SymShape strides = strides_for(sizes, format, &ctx.env());
  return ctx.new_tensor(std::move(sizes), dtype, device, std::move(strides));
}
// What allocating through empty_strided asks of the sizes: c10's
// computeStorageNbytes tests each dim == 0 in turn (guard_or_false, so a
// backed size that may be 0 is guarded, an unbacked one is not).
inline void storage_size_guards(OpContext& ctx, const SymShape& sizes) {
  for (const SymInt& d : sizes)
    if (guard_or_false(ctx, sym_eq(d, 0), "computeStorageNbytes")) return;
}
// ---- what torch's Python refs ask ----
// Of symbolic sizes FakeTensor runs many ops through their Python ref or
// decomposition; these ask fakeprop's ShapeEnv what the prims there ask, so
// the same guards are recorded (static sizes answer them without asking).

// prims.broadcast_in_dim (keepdim reductions, unsqueeze's expand_dims, the
// refs' expand) asks of each dim of its operand whether it is 1, to give a
// broadcast dim stride 0 (guard_or_false).
inline void broadcast_in_dim_guards(OpContext& ctx, const SymShape& sizes) {
  for (const SymInt& d : sizes) (void)guard_or_false(ctx, sym_eq(d, 1), "broadcast_in_dim");
}
// The refs' _maybe_broadcast of a tensor and Python numbers: _broadcast_shapes
// starts from a shape of 1s, so each dim is asked whether it is 1.
inline void ref_broadcast_guards(OpContext& ctx, const SymShape& sizes) {
  for (const SymInt& d : sizes) (void)guard_or_false(ctx, sym_eq(d, 1), "_broadcast_shapes");
}
// A prim's elementwise meta over these operands (broadcast to `shape`) orders
// the output dims as compute_elementwise_output_logical_to_physical_perm does:
// from rank 2 each operand is asked is_contiguous_or_false (numel < 2 first),
// then the strides are compared. Returns the output strides.
inline SymShape prim_elementwise_strides(OpContext& ctx, std::span<const TensorMeta* const> operands,
                                         const SymShape& shape) {
  return elementwise_permuted_strides(operands, shape, ctx.env());
}
inline void prim_elementwise_guards(OpContext& ctx, const TensorMeta& t) {
  const TensorMeta* operands[] = {&t};
  (void)prim_elementwise_strides(ctx, operands, t.sizes);
}
// prims.clone (_clone_meta) of preserve format: compute_elementwise_output_strides
// keeps a dense input's strides from rank 2 (is_non_overlapping_and_dense_or_false),
// then empty_strided.
inline void prim_clone_guards(OpContext& ctx, const TensorMeta& t) {
  if (t.dim() > 1) (void)is_non_overlapping_and_dense_or_false(t, ctx.env());
  storage_size_guards(ctx, t.sizes);
}
// prims.convert_element_type (_maybe_convert_to_dtype in the refs): a dense
// input keeps its strides (is_non_overlapping_and_dense_or_false), then the
// result is allocated through empty_strided.
inline void prim_convert_element_type_guards(OpContext& ctx, const TensorMeta& t) {
  (void)is_non_overlapping_and_dense_or_false(t, ctx.env());
  storage_size_guards(ctx, t.sizes);
}
// get_computation_dtype: the refs compute half precision in float.
inline DType computation_dtype(DType t) {
  switch (t) {
    case DType::Float16:
    case DType::BFloat16: return DType::Float32;
    case DType::Complex32: return DType::Complex64;
    default: return t;
  }
}
// A binary add/sub/mul/div of symbolic sizes inside a decomposition goes
// through FakeTensor's fast_binary_impl: infer_size, then the layout checks.
// Returns the result's sizes and strides.
inline TensorMeta fast_binary_meta(OpContext& ctx, const TensorMeta& a, const TensorMeta& b) {
  TensorMeta out = a;
  out.sizes = simplified(ctx, broadcast_shapes(a.sizes, b.sizes, ctx.env()));
  const TensorMeta* operands[] = {&a, &b};
  std::optional<SymShape> strides = fast_binary_strides(operands, out.sizes, ctx.env());
  out.strides = strides ? *strides : prim_elementwise_strides(ctx, operands, out.sizes);
  out.storage_offset = 0;
  return out;
}
inline TensorValue empty_strided(OpContext& ctx, SymShape sizes, SymShape strides, DType dtype, Device device) {
  return ctx.new_tensor(simplified(ctx, std::move(sizes)), dtype, device, simplified(ctx, std::move(strides)));
}
// empty_like(like, memory_format=preserve) with `sizes` (defaults to like's).
inline TensorValue empty_like(OpContext& ctx, const TensorMeta& like, std::optional<DType> dtype = std::nullopt,
                              std::optional<MemoryFormat> format = std::nullopt) {
  const MemoryFormat f = format.value_or(MemoryFormat::Preserve);
  if (f != MemoryFormat::Preserve) return empty_tensor(ctx, like.sizes, dtype.value_or(like.dtype), like.device, f);
  return ctx.new_tensor(like.sizes, dtype.value_or(like.dtype), like.device, strides_like(like, like.sizes, ctx.env()));
}
// empty_like(like, preserve_format) as torch 2.x's FakeTensor allocates it
// for the *_like factories and the ops built on them (fill, flip, index_put,
// dropout): the reference empty_like, empty_permuted in like's stride order,
// where a size-1 dim gets its contiguous stride (eager's kernel, and clone
// or _to_copy under FakeTensor, copy like's strides instead).
inline TensorValue empty_permuted_like(OpContext& ctx, const TensorMeta& like, std::optional<DType> dtype = std::nullopt,
                                       std::optional<MemoryFormat> format = std::nullopt) {
  if (format && *format != MemoryFormat::Preserve) return empty_like(ctx, like, dtype, format);
  const TensorMeta* operands[] = {&like};
  return ctx.new_tensor(like.sizes, dtype.value_or(like.dtype), like.device,
                        elementwise_permuted_strides(operands, like.sizes, ctx.env()));
}
// at::has_internal_overlap == Yes: some dim of size > 1 has stride 0, so
// writing to self would write one memory location twice.
inline bool overlaps_itself(OpContext& ctx, const TensorMeta& t) {
  for (size_t d = 0; d < t.sizes.size(); ++d)
    if (known_true(ctx, sym_eq(t.strides[d], 0)) && known_true(ctx, sym_gt(t.sizes[d], 1))) return true;
  return false;
}
// ATen's clone_preserve_strides(t), the start of the functional scatters
// (copy, slice_scatter) under torch 2.x's FakeTensor: t's sizes, strides and
// storage offset in new storage; a preserve-format clone when t overlaps itself.
inline TensorValue clone_preserve_strides(OpContext& ctx, const TensorMeta& t) {
  if (overlaps_itself(ctx, t)) return empty_like(ctx, t);
  TensorValue out = ctx.new_tensor(t.sizes, t.dtype, t.device, t.strides);
  out.meta.storage_offset = t.storage_offset;
  return out;
}
inline TensorValue same_view(OpContext& ctx, const TensorMeta& t) {
  return ctx.view_of(t, t.sizes, t.strides, t.storage_offset);
}
// A count of pieces or steps that a rule makes one at a time, taken from a
// size or an argument: past the known-data limit the node fails rather than
// loop billions of times.
inline int64_t bounded_count(OpContext& ctx, int64_t n, const char* what) {
  if (n > ctx.fold_limit())
    ctx.fail(ErrorKind::NotImplemented, std::string(what) + ": " + std::to_string(n) + " is more than the " +
                                            std::to_string(ctx.fold_limit()) +
                                            " that fakeprop makes one at a time (its known-data limit)");
  return n;
}
inline void set_tensor(OpContext& ctx, TensorValue t) { ctx.set_result(Value::of_tensor(std::move(t))); }
inline void set_tuple(OpContext& ctx, std::vector<TensorValue> ts) {
  ValueList xs;
  xs.reserve(ts.size());
  for (TensorValue& t : ts) xs.push_back(Value::of_tensor(std::move(t)));
  ctx.set_result(Value::of_list(std::move(xs)));
}

// ---- type promotion ----

// A promotion operand for an argument that is a tensor or a Python number.
inline std::optional<PromotionOperand> promotion_operand(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Tensor:
      return PromotionOperand{v.tensor->meta.dtype,
                              v.tensor->meta.dim() == 0 ? OperandKind::ZeroDimTensor : OperandKind::Tensor};
    case Value::Kind::Bool: return PromotionOperand{DType::Bool, OperandKind::Scalar};
    case Value::Kind::Int: return PromotionOperand{DType::Int64, OperandKind::Scalar};
    case Value::Kind::Float: return PromotionOperand{DType::Float64, OperandKind::Scalar};
    default: return std::nullopt;
  }
}

// torch.can_cast(from, to): no float -> integral, complex -> real, non-bool -> bool.
inline bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

inline std::string dtype_title(DType t) { return std::string(dtype_c10_name(t)); }
// The dtype as Python prints it in error messages: "torch.float32".
inline std::string torch_dtype(DType t) { return "torch." + std::string(dtype_name(t)); }

}  // namespace fakeprop::fx::ops
