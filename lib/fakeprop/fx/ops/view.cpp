// View ops: results alias self's storage with new sizes, strides and offset
// (view, reshape, permute, transpose, expand, slice, select, split, squeeze,
// unsqueeze, unbind, as_strided, ...).
#include <algorithm>

#include "fakeprop/fx/ops/composite.h"
#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/view_helpers.h"

namespace fakeprop::fx::ops {

// Declared in view_helpers.h: addmm and baddbmm check their self through it.
TensorValue expand_to(OpContext& ctx, const TensorMeta& self, const SymShape& target) {
  const auto n = static_cast<int64_t>(target.size());
  if (n < self.dim())
    ctx.fail(ErrorKind::InvalidArgument, "expand(" + text(self.sizes) + ", size=" + text(target) +
                                             "): the number of sizes provided (" + std::to_string(n) +
                                             ") must be greater or equal to the number of dimensions in the tensor (" +
                                             std::to_string(self.dim()) + ")");
  SymShape sizes(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
  // torch.export's fake tensors (fakified with a ShapeEnv) take the ref even
  // where every size is static (a parameter expanded to [1, 2, 8]: (8, 0, 1)).
  const bool by_ref = ctx.graph_exported() || has_symbolic_sizes_strides(self) ||
                      std::any_of(target.begin(), target.end(), [](const SymInt& x) { return !x.is_static(); });
  for (int64_t i = n - 1; i >= 0; --i) {
    const auto ui = static_cast<size_t>(i);
    const int64_t dim = self.dim() - n + i;
    SymInt size = target[ui];
    if (dim < 0) {
      if (size.is_static() && size.value() < 0)
        ctx.fail(ErrorKind::InvalidArgument, "The expanded size of the tensor (" + text(size) +
                                                 ") isn't allowed in a leading, non-existing dimension " +
                                                 std::to_string(i));
      sizes[ui] = size;
      // A new dim is broadcast (stride 0) unless it is 1. By the ref
      // (prims.broadcast_in_dim) a new 1 spans the first original dim (1 for
      // a 0-d tensor); by ATen's inferExpandGeometry (plain FakeTensorMode,
      // all static) the next dim's size times stride (0 for a 0-d tensor).
      if (!guard_or_false(ctx, sym_eq(size, 1), "expand"))
        strides[ui] = 0;
      else if (by_ref)
        strides[ui] = self.dim() == 0 ? SymInt(1) : simplified(ctx, self.strides[0] * self.sizes[0]);
      else
        strides[ui] = self.dim() == 0 ? SymInt(0) : sizes[ui + 1] * strides[ui + 1];
      continue;
    }
    const auto ud = static_cast<size_t>(dim);
    if (size.is_static() && size.value() == -1) {
      size = self.sizes[ud];
    } else if (size.is_symbolic() || self.sizes[ud].is_symbolic()) {
      // torch 2.x's expand (_refs): a symbolic size is -1 only where that is
      // known; else it must broadcast or match, and must be a size. The ref
      // checks every dim, so a symbolic size of self expanded to a constant
      // (x.expand_as(y), y static) is asked Eq(s, 1) | Eq(s, 8) before the
      // broadcast's Eq(s, 8).
      if (guard_or_false(ctx, sym_eq(size, -1), "expand")) {
        size = self.sizes[ud];
      } else {
        const std::string what = "expand: attempting to expand a dimension of length " + text(self.sizes[ud]) +
                                 " -> " + text(size) + "!";
        require(ctx, sym_or(sym_eq(self.sizes[ud], 1), sym_eq(size, self.sizes[ud])), "expand",
                ErrorKind::ShapeMismatch, what);
        require(ctx, sym_ge(size, 0), "expand", ErrorKind::InvalidArgument, what);
      }
    }
    // prims.broadcast_in_dim: a dim of size 1 keeps its stride only where it
    // is known to stay 1 (guard_or_false), so an unbacked target broadcasts.
    if (by_ref && guard_or_false(ctx, sym_eq(self.sizes[ud], 1), "expand")) {
      const bool kept = guard_or_false(ctx, sym_eq(self.sizes[ud], size), "expand");
      sizes[ui] = kept ? self.sizes[ud] : size;
      strides[ui] = kept ? self.strides[ud] : SymInt(0);
      continue;
    }
    // Not known to be 1: it must match, by torch._check (a runtime assert on
    // an unbacked size, an error where it cannot hold: Min(1, u0) == 4).
    if (by_ref && !self.sizes[ud].same(size)) {
      require(ctx, sym_eq(self.sizes[ud], size), "expand", ErrorKind::ShapeMismatch,
              [&] {  // torch formats the sizes as sympy prints them (Min, not min)
                auto str = [](const SymInt& v) { return v.is_static() ? std::to_string(v.value()) : to_sympy_string(v.expr()); };
                return "non-broadcasting semantics require " + str(self.sizes[ud]) + " == " + str(size);
              });
      sizes[ui] = self.sizes[ud];
      strides[ui] = self.strides[ud];
      continue;
    }
    if (same_size(ctx, self.sizes[ud], size, "expand")) {
      sizes[ui] = self.sizes[ud];
      strides[ui] = self.strides[ud];
      continue;
    }
    if (!same_size(ctx, self.sizes[ud], 1, "expand"))
      ctx.fail(ErrorKind::ShapeMismatch, "The expanded size of the tensor (" + text(size) +
                                             ") must match the existing size (" + text(self.sizes[ud]) +
                                             ") at non-singleton dimension " + std::to_string(i) + ".  Target sizes: " +
                                             text(target) + ".  Tensor sizes: " + text(self.sizes));
    sizes[ui] = size;
    strides[ui] = 0;
  }
  return ctx.view_of(self, sizes, strides, self.storage_offset);
}

namespace {

constexpr int64_t kMaxIndex = INT64_MAX;

std::string rank_text(int64_t r) { return std::to_string(r) + "D"; }

TensorValue view_to(OpContext& ctx, const TensorMeta& self, const std::vector<SymInt>& size) {
  const SymShape shape = infer_view_size(ctx, size, self.numel());
  if (view_has_unbacked(ctx, self.sizes, self.strides, shape))
    if (auto strides = unbacked_view_strides(ctx, self.sizes, self.strides, shape))
      return ctx.view_of(self, shape, simplified(ctx, *strides), self.storage_offset);
  auto layout = fake_view_layout(ctx, self.sizes, self.strides, shape);
  if (!layout)
    ctx.fail(ErrorKind::ViewError,
             "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
             "contiguous subspaces). Use .reshape(...) instead.");
  return ctx.view_of(self, layout->sizes, layout->strides, self.storage_offset);
}

void view(OpContext& ctx) { set_tensor(ctx, view_to(ctx, ctx.tensor("self"), ctx.int_list("size"))); }
void view_as(OpContext& ctx) { set_tensor(ctx, view_to(ctx, ctx.tensor("self"), ctx.tensor("other").sizes)); }

// reshape's view when computeStride finds one (then aten.view, whose fake
// layout fake_view_layout gives), else a contiguous copy.
TensorValue view_or_copy(OpContext& ctx, const TensorMeta& self, const SymShape& shape) {
  if (auto strides = view_strides(ctx, self.sizes, self.strides, shape)) {
    if (const auto fake = fake_view_layout(ctx, self.sizes, self.strides, shape))
      return ctx.view_of(self, fake->sizes, fake->strides, self.storage_offset);
    return ctx.view_of(self, shape, *strides, self.storage_offset);
  }
  return empty_tensor(ctx, shape, self.dtype, self.device);
}

TensorValue reshape_to(OpContext& ctx, const TensorMeta& self, const std::vector<SymInt>& size) {
  const SymShape shape = infer_view_size(ctx, size, self.numel());
  if (view_has_unbacked(ctx, self.sizes, self.strides, shape)) {
    // computeStride as C++ asks it with unbacked sizes; the view it allows is aten.view's.
    if (view_strides(ctx, self.sizes, self.strides, shape, /*oblivious=*/true))
      if (auto strides = unbacked_view_strides(ctx, self.sizes, self.strides, shape))
        return ctx.view_of(self, shape, simplified(ctx, *strides), self.storage_offset);
  }
  return view_or_copy(ctx, self, shape);
}

void reshape(OpContext& ctx) { set_tensor(ctx, reshape_to(ctx, ctx.tensor("self"), ctx.int_list("shape"))); }
void reshape_as(OpContext& ctx) {
  set_tensor(ctx, reshape_to(ctx, ctx.tensor("self"), ctx.tensor("other").sizes));
}

// unflatten.int(self, dim, sizes): dim split into sizes (one may be -1).
void unflatten(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const std::vector<SymInt> sizes = ctx.int_list("sizes");
  if (sizes.empty()) ctx.fail(ErrorKind::InvalidArgument, "unflatten: sizes must be non-empty");
  const SymShape inner = infer_view_size(ctx, sizes, self.sizes[static_cast<size_t>(dim)]);
  SymShape shape(self.sizes.begin(), self.sizes.begin() + dim);
  shape.insert(shape.end(), inner.begin(), inner.end());
  shape.insert(shape.end(), self.sizes.begin() + dim + 1, self.sizes.end());
  set_tensor(ctx, view_to(ctx, self, shape));
}

// _reshape_alias(self, size, stride): the given strides, as the meta kernel
// keeps them; the element count is checked as PyTorch's decomposition
// (aten.view) checks it, so a size baked into a graph guards instead of
// silently describing another tensor.
void reshape_alias(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  SymShape sizes = ctx.int_list("size");
  SymShape strides = ctx.int_list("stride");
  if (sizes.size() != strides.size())
    ctx.fail(ErrorKind::InvalidArgument, "mismatch in length of strides and shape");
  check_non_negative(ctx, sizes);
  (void)infer_view_size(ctx, sizes, self.numel());
  set_tensor(ctx, ctx.view_of(self, sizes, strides, self.storage_offset));
}

void as_strided(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  SymShape sizes = ctx.int_list("size");
  SymShape strides = ctx.int_list("stride");
  if (sizes.size() != strides.size())
    ctx.fail(ErrorKind::InvalidArgument, "mismatch in length of strides and shape");
  check_non_negative(ctx, sizes);
  const SymInt offset = ctx.has("storage_offset") ? ctx.int_arg("storage_offset") : self.storage_offset;
  set_tensor(ctx, ctx.view_of(self, sizes, strides, offset));
}

void alias(OpContext& ctx) { set_tensor(ctx, same_view(ctx, ctx.tensor("self"))); }

TensorValue transposed(OpContext& ctx, const TensorMeta& self, int64_t d0, int64_t d1) {
  SymShape sizes = self.sizes;
  SymShape strides = self.strides;
  std::swap(sizes[static_cast<size_t>(d0)], sizes[static_cast<size_t>(d1)]);
  std::swap(strides[static_cast<size_t>(d0)], strides[static_cast<size_t>(d1)]);
  return ctx.view_of(self, sizes, strides, self.storage_offset);
}

// transpose / swapdims (dim0, dim1) and swapaxes (axis0, axis1): kDims names them.
constexpr const char* kDimNames[] = {"dim0", "dim1"};
constexpr const char* kAxisNames[] = {"axis0", "axis1"};
template <const char* const* kDims>
void transpose(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t d0 = dim_arg(ctx, kDims[0], self.dim());
  const int64_t d1 = dim_arg(ctx, kDims[1], self.dim());
  if (self.dim() == 0) {
    set_tensor(ctx, same_view(ctx, self));
    return;
  }
  set_tensor(ctx, transposed(ctx, self, d0, d1));
}

void t(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() > 2)
    ctx.fail(ErrorKind::InvalidArgument,
             "t() expects a tensor with <= 2 dimensions, but self is " + rank_text(self.dim()));
  if (self.dim() < 2) {
    set_tensor(ctx, same_view(ctx, self));
    return;
  }
  set_tensor(ctx, transposed(ctx, self, 0, 1));
}

// numpy_T (Tensor.T): permute to the reversed dims.
void numpy_t(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  SymShape sizes(self.sizes.rbegin(), self.sizes.rend());
  SymShape strides(self.strides.rbegin(), self.strides.rend());
  set_tensor(ctx, ctx.view_of(self, std::move(sizes), std::move(strides), self.storage_offset));
}

// mT / mH / adjoint / matrix_H: transpose(-2, -1) (the conjugate views of a
// complex tensor have the same geometry).
void matrix_transpose(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() < 2)
    ctx.fail(ErrorKind::InvalidArgument, "tensor.mT is only supported on matrices or batches of matrices. Got " +
                                             rank_text(self.dim()) + " tensor.");
  set_tensor(ctx, transposed(ctx, self, self.dim() - 2, self.dim() - 1));
}

void permute(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<int64_t> dims = static_int_list(ctx, "dims");
  if (static_cast<int64_t>(dims.size()) != self.dim())
    ctx.fail(ErrorKind::InvalidArgument,
             "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
             "ordering of dimensions i.e. input.dim() = " +
                 std::to_string(self.dim()) + " is not equal to len(dims) = " + std::to_string(dims.size()));
  std::vector<bool> seen(dims.size(), false);
  SymShape sizes, strides;
  for (int64_t d : dims) {
    const auto w = static_cast<size_t>(canonical_dim(d, self.dim()));
    if (seen[w]) ctx.fail(ErrorKind::InvalidArgument, "permute(): duplicate dims are not allowed.");
    seen[w] = true;
    sizes.push_back(self.sizes[w]);
    strides.push_back(self.strides[w]);
  }
  set_tensor(ctx, ctx.view_of(self, sizes, strides, self.storage_offset));
}

// real(self) / imag(self): of a complex tensor, view_as_real(self)[..., 0]
// (or 1): the real dtype, strides and offset counted in real elements (twice
// as many), imag one further; real of a real tensor is self, imag an error.
template <bool kImag>
void real_imag(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const bool imag = kImag;
  if (!is_complex(self.dtype)) {
    if (imag) ctx.fail(ErrorKind::TypeError, "imag is not implemented for tensors with non-complex dtypes.");
    return set_tensor(ctx, ctx.view_of(self, self.sizes, self.strides, self.storage_offset));
  }
  SymShape strides;
  for (const SymInt& st : self.strides) strides.push_back(simplified(ctx, st * 2));
  TensorValue out = ctx.view_of(self, self.sizes, std::move(strides),
                                simplified(ctx, self.storage_offset * 2 + (imag ? 1 : 0)));
  out.meta.dtype = to_real(self.dtype);
  set_tensor(ctx, std::move(out));
}

void expand(OpContext& ctx) { set_tensor(ctx, expand_to(ctx, ctx.tensor("self"), ctx.int_list("size"))); }
void expand_as(OpContext& ctx) {
  set_tensor(ctx, expand_to(ctx, ctx.tensor("self"), ctx.tensor("other").sizes));
}

// Whether sympy's assumptions alone prove e >= 0, as when torch builds a
// relation: backed sizes are positive symbols, and sums and products of
// nonnegative parts with positive coefficients, FloorDiv of two, Mod, a Max
// of one and a Min of all nonnegative arguments are nonnegative. No ranges.
bool assumed_nonnegative(const ShapeEnv& env, ExprRef e) {
  auto all_args = [&](ExprRef x) {
    for (ExprRef a : x->args())
      if (!assumed_nonnegative(env, a)) return false;
    return true;
  };
  switch (e->kind()) {
    case ExprKind::Integer: return e->value() >= 0;
    case ExprKind::Symbol:
      if (e->is_float()) return false;
      try {  // a backed size (torch makes those positive symbols); unbacked ones carry no sign
        const SymbolInfo& s = env.info(e);
        return !s.unbacked && s.range.lo >= 0;
      } catch (const Error&) {
        return false;
      }
    case ExprKind::Add:
      if (e->value() < 0) return false;
      for (const auto& [term, coeff] : e->terms())
        if (coeff <= 0 || !assumed_nonnegative(env, term)) return false;
      return true;
    case ExprKind::Mul:
      if (e->value() <= 0) return false;
      for (const auto& [base, exp] : e->terms())
        if (!assumed_nonnegative(env, base)) return false;
      return true;
    case ExprKind::FloorDiv:
    case ExprKind::Min: return all_args(e);
    case ExprKind::Mod: return true;  // torch's Mod is defined on nonnegative arguments only
    case ExprKind::Max:
      for (ExprRef a : e->args())
        if (assumed_nonnegative(env, a)) return true;
      return false;
    default: return false;
  }
}

// Where a slice bound lands on a dim of `size`, as torch 2.x's fake slice
// (fake_impls._compute_slice_index) asks it: guard_or_false, so an unbacked
// bound it cannot place is nullopt instead of a data-dependent error.
// (Python code: `int <= SymInt` is the SymInt's reflected >=, so an int
// index compared with a symbolic size reads size >= index in the guards.)
std::optional<SymInt> slice_index(OpContext& ctx, const SymInt& size, const SymInt& index, const char* why) {
  const bool reflected = index.is_static() && !size.is_static();
  // sympy folds index >= 0 (and index < 0) as it builds them when its
  // assumptions settle them, so that half leaves torch's guard text.
  const bool nonnegative = index.is_static() ? index.value() >= 0 : assumed_nonnegative(ctx.env(), index.expr());
  const SymBool at_least_zero = nonnegative ? SymBool(true) : sym_ge(index, 0);
  const SymBool below_zero = nonnegative ? SymBool(false) : sym_lt(index, 0);
  auto le = [&](const SymInt& a, const SymInt& b) { return reflected ? sym_ge(b, a) : sym_le(a, b); };
  auto ge = [&](const SymInt& a, const SymInt& b) { return reflected ? sym_le(b, a) : sym_ge(a, b); };
  auto lt = [&](const SymInt& a, const SymInt& b) { return reflected ? sym_gt(b, a) : sym_lt(a, b); };
  auto gt = [&](const SymInt& a, const SymInt& b) { return reflected ? sym_lt(b, a) : sym_gt(a, b); };
  if (guard_or_false(ctx, sym_and(at_least_zero, le(index, size)), why)) return index;
  if (guard_or_false(ctx, sym_and(below_zero, ge(index, -size)), why)) return index + size;
  if (guard_or_false(ctx, lt(index, -size), why)) return SymInt(0);
  if (guard_or_false(ctx, gt(index, size), why)) return size;
  if (guard_or_false(ctx, at_least_zero, why)) return sym_min(index, size);
  if (guard_or_false(ctx, below_zero, why)) return sym_max(index + size, 0);
  return std::nullopt;
}

// Python slice semantics on one dim, clamped, as torch 2.x's fake slice: a
// length or start it cannot place becomes a fresh unbacked size (checked to
// lie in [0, size]) or storage offset (checked >= 0).
TensorValue slice_of(OpContext& ctx, const TensorMeta& self, int64_t dim, std::optional<SymInt> start_arg,
                     std::optional<SymInt> end_arg, int64_t step) {
  if (self.dim() == 0) ctx.fail(ErrorKind::InvalidArgument, "slice() cannot be applied to a 0-dim tensor.");
  if (step <= 0) ctx.fail(ErrorKind::InvalidArgument, "slice step must be positive");
  const auto d = static_cast<size_t>(dim);
  const SymInt size = self.sizes[d];
  const char* why = "slice";
  const std::optional<SymInt> start = start_arg ? slice_index(ctx, size, *start_arg, why) : SymInt(0);
  const bool to_end = !end_arg || (end_arg->is_static() && end_arg->value() == kMaxIndex);
  const std::optional<SymInt> end = to_end ? size : slice_index(ctx, size, *end_arg, why);
  std::optional<SymInt> length;
  if (start && end) {
    if (guard_or_false(ctx, sym_ge(*end, *start), why))
      length = step == 1 ? *end - *start : floordiv(*end - *start + (step - 1), step);
    else if (guard_or_false(ctx, sym_ge(*start, *end), why))
      length = SymInt(0);
    else
      length = floordiv(sym_max(*end - *start, 0) + (step - 1), step);
  }
  ShapeEnv& e = ctx.env();
  if (!length) {
    length = SymInt(e.create_unbacked_symint());
    e.defer_runtime_assert(sym_ge(*length, 0), why);
    e.defer_runtime_assert(sym_le(*length, size), why);
  }
  SymInt offset;
  if (start) {
    offset = self.storage_offset + *start * self.strides[d];
  } else {
    offset = SymInt(e.create_unbacked_symint());
    e.defer_runtime_assert(sym_ge(offset, 0), why);
  }
  SymShape sizes = self.sizes;
  SymShape strides = self.strides;
  sizes[d] = simplified(ctx, *length);
  strides[d] = simplified(ctx, strides[d] * step);
  return ctx.view_of(self, sizes, strides, simplified(ctx, offset));
}

void slice(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  set_tensor(ctx, slice_of(ctx, self, dim, ctx.optional_int("start"), ctx.optional_int("end"),
                           static_int(ctx, "step")));
}

void select(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() == 0) ctx.fail(ErrorKind::IndexError, "select() cannot be applied to a 0-dim tensor.");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const auto d = static_cast<size_t>(dim);
  const SymInt index = ctx.int_arg("index");
  const SymInt size = self.sizes[d];
  const char* why = "select";
  // fake_impls.meta_select's questions, in its order, each guard_or_false: an
  // unbacked size is in range unless known otherwise (no data-dependent error).
  if (guard_or_false(ctx, python_ge(index, size), why) || guard_or_false(ctx, python_lt(index, -size), why))
    ctx.fail(ErrorKind::IndexError, "select(): index " + text(index) + " out of range for tensor of size " +
                                        text(self.sizes) + " at dimension " + std::to_string(dim));
  SymShape sizes = self.sizes;
  SymShape strides = self.strides;
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  SymInt offset;
  if (guard_or_false(ctx, python_ge(index, 0), why))
    offset = simplified(ctx, self.storage_offset + index * self.strides[d]);
  else if (guard_or_false(ctx, python_lt(index, 0), why))
    offset = simplified(ctx, self.storage_offset + (index + size) * self.strides[d]);
  else
    offset = SymInt(ctx.env().create_unbacked_symint());  // which element is data-dependent
  set_tensor(ctx, ctx.view_of(self, sizes, strides, offset));
}

// torch._check(split_sizes[i] >= 0) of the split_with_sizes decomposition,
// each piece in turn (a guard on backed sizes, a runtime assert on unbacked).
void require_nonnegative_pieces(OpContext& ctx, const std::vector<SymInt>& lens) {
  for (const SymInt& l : lens)
    require(ctx, sym_ge(l, 0), "split_with_sizes", ErrorKind::InvalidArgument, [&] {
      return "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=" + text(lens);
    });
}

// Slices of `sizes` along dim, as split / split_with_sizes / chunk produce.
void set_pieces(OpContext& ctx, const TensorMeta& self, int64_t dim, const std::vector<SymInt>& sizes) {
  std::vector<TensorValue> pieces;
  SymInt start = 0;
  for (const SymInt& len : sizes) {
    const auto d = static_cast<size_t>(dim);
    SymShape shape = self.sizes;
    shape[d] = simplified(ctx, len);
    const SymInt offset = simplified(ctx, self.storage_offset + start * self.strides[d]);
    pieces.push_back(ctx.view_of(self, shape, self.strides, offset));
    start = start + len;
  }
  set_tuple(ctx, std::move(pieces));
}

// Pieces of split_size along dim, the last one holding the rest; how many
// there are is specialized to the hint (a tuple's length is static).
void set_equal_pieces(OpContext& ctx, const TensorMeta& self, int64_t dim, const SymInt& split_size, const char* why) {
  const SymInt& size = self.sizes[static_cast<size_t>(dim)];
  // (size + split_size - 1) // split_size, as the split decomposition writes it (guard_int).
  const int64_t count = bounded_count(
      ctx, std::max<int64_t>(specialize(ctx, simplified(ctx, floordiv(size + split_size - 1, split_size)), why), 1),
      why);
  std::vector<SymInt> lens;
  for (int64_t i = 0; i + 1 < count; ++i) lens.push_back(split_size);
  lens.push_back(simplified(ctx, size - split_size * (count - 1)));
  // The decomposition goes on through split_with_sizes: the last piece,
  // split_size - (split_size * count - size), may be negative for sizes the
  // count guard admits (chunk(4) at 5: s - 3*((s + 3)//4) >= 0).
  require_nonnegative_pieces(ctx, lens);
  set_pieces(ctx, self, dim, lens);
}

void split(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() == 0) ctx.fail(ErrorKind::InvalidArgument, "split expects at least a 1-dimensional tensor");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const SymInt split_size = ctx.int_arg("split_size");
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  const char* why = "split";
  // torch 2.x's split decomposition: its torch._checks are guards on backed
  // sizes and runtime asserts on unbacked ones.
  require(ctx, sym_ge(split_size, 0), why, ErrorKind::InvalidArgument,
          [&] { return "split expects split_size be non-negative, but got split_size=" + text(split_size); });
  if (decide(ctx, sym_eq(size, 0), why)) {
    set_pieces(ctx, self, dim, {size});
    return;
  }
  require(ctx, sym_gt(split_size, 0), why, ErrorKind::InvalidArgument,
          [&] { return "split_size can only be 0 if dimension size is 0, but got dimension size of " + text(size); });
  set_equal_pieces(ctx, self, dim, split_size, why);
}

// split_with_sizes(self, split_sizes, dim) and split.sizes(self, split_size, dim): kSizes names the sizes.
constexpr char kSplitSizes[] = "split_sizes", kSplitSize[] = "split_size";
template <const char* kSizes>
void split_with_sizes(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const std::vector<SymInt> lens = ctx.int_list(kSizes);
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  // Every piece >= 0 first, then the sum, as the decomposition checks them.
  require_nonnegative_pieces(ctx, lens);
  SymInt total = 0;
  for (const SymInt& l : lens) total = total + l;
  if (!total.same(size))
    require(ctx, sym_eq(total, size), "split_with_sizes", ErrorKind::ShapeMismatch, [&] {
      return "split_with_sizes expects split_sizes to sum exactly to " + text(size) + " (input tensor's size at dimension " +
             std::to_string(dim) + "), but got split_sizes=" + text(lens);
    });
  set_pieces(ctx, self, dim, lens);
}

void chunk(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() == 0) ctx.fail(ErrorKind::InvalidArgument, "chunk expects at least a 1-dimensional tensor");
  const int64_t chunks = static_int(ctx, "chunks");
  if (chunks <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  // (dim_size + chunks - 1) / chunks, as ATen's chunk writes it: torch prints ((s + 3)//4).
  const SymInt split_size = simplified(ctx, floordiv(size + (chunks - 1), chunks));
  if (decide(ctx, sym_eq(split_size, 0), "chunk") && decide(ctx, sym_eq(size, 0), "chunk")) {
    std::vector<SymInt> lens(static_cast<size_t>(bounded_count(ctx, chunks, "chunk")), split_size);
    set_pieces(ctx, self, dim, lens);
    return;
  }
  set_equal_pieces(ctx, self, dim, split_size, "chunk");
}

// tensor_split (CompositeImplicit): each piece is at::slice of self along
// dim, so Python slice bounds apply (clamped, negative from the end).
void set_slices(OpContext& ctx, const TensorMeta& self, int64_t dim, const std::vector<SymInt>& bounds) {
  std::vector<TensorValue> pieces;
  SymInt start = 0;
  for (const SymInt& end : bounds) {
    pieces.push_back(slice_of(ctx, self, dim, start, end, 1));
    start = end;
  }
  pieces.push_back(slice_of(ctx, self, dim, start, self.sizes[static_cast<size_t>(dim)], 1));
  set_tuple(ctx, std::move(pieces));
}

void require_nonzero_rank(OpContext& ctx, const TensorMeta& self) {
  if (self.dim() == 0)
    ctx.fail(ErrorKind::InvalidArgument,
             "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
}

void tensor_split_indices(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  require_nonzero_rank(ctx, self);
  set_slices(ctx, self, dim_arg(ctx, "dim", self.dim()), ctx.int_list("indices"));
}

// `sections` pieces, the first size % sections of them one longer, each
// sliced from its start to its start plus its length (as ATen's loop does,
// the last one too).
void split_into_sections(OpContext& ctx, const TensorMeta& self, int64_t dim, const SymInt& sections_arg) {
  const int64_t sections = bounded_count(ctx, specialize(ctx, sections_arg, "tensor_split sections"), "tensor_split");
  if (sections <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "number of sections must be larger than 0, got " + std::to_string(sections));
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  const SymInt least = simplified(ctx, floordiv(size, sections));
  const SymInt extra = simplified(ctx, mod(size, sections));
  std::vector<TensorValue> pieces;
  SymInt start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const SymInt end = simplified(ctx, start + (decide(ctx, sym_gt(extra, i), "tensor_split") ? least + 1 : least));
    pieces.push_back(slice_of(ctx, self, dim, start, end, 1));
    start = end;
  }
  set_tuple(ctx, std::move(pieces));
}

void tensor_split_sections(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  require_nonzero_rank(ctx, self);
  split_into_sections(ctx, self, dim_arg(ctx, "dim", self.dim()), ctx.int_arg("sections"));
}

// hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for a 1-D hsplit), 0
// or 2; a count of sections must divide that dim.
template <int Rank>
struct DirectionalSplit {
  static constexpr const char* op = Rank == 1 ? "torch.hsplit" : Rank == 2 ? "torch.vsplit" : "torch.dsplit";
  static int64_t dim(OpContext& ctx, const TensorMeta& self) {
    if (self.dim() < Rank)
      ctx.fail(ErrorKind::InvalidArgument, std::string(op) + " requires a tensor with at least " + std::to_string(Rank) +
                                               " dimension, but got a tensor with " + std::to_string(self.dim()) +
                                               " dimensions!");
    return Rank == 1 ? (self.dim() == 1 ? 0 : 1) : Rank == 2 ? 0 : 2;
  }
  static void indices(OpContext& ctx) {
    const TensorMeta& self = ctx.tensor("self");
    set_slices(ctx, self, dim(ctx, self), ctx.int_list("indices"));
  }
  static void sections(OpContext& ctx) {
    const TensorMeta& self = ctx.tensor("self");
    const int64_t d = dim(ctx, self);
    const SymInt count = ctx.int_arg("sections");
    const SymInt& size = self.sizes[static_cast<size_t>(d)];
    if (decide(ctx, sym_eq(count, 0), op) || !decide(ctx, sym_eq(mod(size, count), 0), op))
      ctx.fail(ErrorKind::InvalidArgument, std::string(op) + " attempted to split along dimension " +
                                               std::to_string(d) + ", but the size of the dimension " + text(size) +
                                               " is not divisible by the split_size " + text(count) + "!");
    split_into_sections(ctx, self, d, count);
  }
};

void unbind(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() == 0) ctx.fail(ErrorKind::InvalidArgument, "Dimension specified as 0 but tensor has no dimensions");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const auto d = static_cast<size_t>(dim);
  const int64_t count = bounded_count(ctx, specialize(ctx, self.sizes[d], "unbind"), "unbind");
  SymShape sizes = self.sizes;
  SymShape strides = self.strides;
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  std::vector<TensorValue> pieces;
  for (int64_t i = 0; i < count; ++i)
    pieces.push_back(ctx.view_of(self, sizes, strides, simplified(ctx, self.storage_offset + self.strides[d] * i)));
  set_tuple(ctx, std::move(pieces));
}

// kFunctional: unsqueeze (its ref's guards), not unsqueeze_.
template <bool kFunctional>
void unsqueeze(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim() + 1);
  const auto d = static_cast<size_t>(dim);
  // Of symbolic sizes the ref's prims.expand_dims is a broadcast_in_dim.
  if (kFunctional && has_symbolic_sizes_strides(self))
    broadcast_in_dim_guards(ctx, self.sizes);
  SymShape sizes = self.sizes;
  SymShape strides = self.strides;
  const SymInt stride = dim >= self.dim() ? SymInt(1) : simplified(ctx, self.sizes[d] * self.strides[d]);
  sizes.insert(sizes.begin() + dim, SymInt(1));
  strides.insert(strides.begin() + dim, stride);
  set_tensor(ctx, ctx.view_of(self, sizes, strides, self.storage_offset));
}

// squeeze.dim / squeeze.dims / squeeze.default: drop the chosen dims of size 1.
void squeeze(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const bool has_dim = ctx.declares("dim") && ctx.has("dim");  // squeeze.default declares none
  std::vector<bool> chosen(static_cast<size_t>(self.dim()), !has_dim);
  if (has_dim) {
    for (int64_t d : static_int_list(ctx, "dim")) {
      const int64_t w = canonical_dim(d, self.dim());
      if (self.dim() > 0) chosen[static_cast<size_t>(w)] = true;
    }
  }
  SymShape sizes, strides;
  for (size_t d = 0; d < self.sizes.size(); ++d) {
    if (chosen[d] && size_oblivious(ctx, sym_eq(self.sizes[d], 1), "squeeze")) continue;
    sizes.push_back(self.sizes[d]);
    strides.push_back(self.strides[d]);
  }
  set_tensor(ctx, ctx.view_of(self, sizes, strides, self.storage_offset));
}

// flatten.using_ints appears in torch.export graphs (make_fx decomposes it).
void flatten(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t rank = std::max<int64_t>(self.dim(), 1);
  const int64_t start = dim_arg(ctx, "start_dim", rank);
  const int64_t end = dim_arg(ctx, "end_dim", rank);
  if (start > end)
    ctx.fail(ErrorKind::InvalidArgument, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (self.dim() == 0) {
    set_tensor(ctx, ctx.view_of(self, {SymInt(1)}, {SymInt(1)}, self.storage_offset));
    return;
  }
  if (start == end) {
    set_tensor(ctx, same_view(ctx, self));
    return;
  }
  SymShape shape(self.sizes.begin(), self.sizes.begin() + start);
  SymInt merged = 1;
  for (int64_t d = start; d <= end; ++d) merged = merged * self.sizes[static_cast<size_t>(d)];
  shape.push_back(simplified(ctx, merged));
  shape.insert(shape.end(), self.sizes.begin() + end + 1, self.sizes.end());
  set_tensor(ctx, view_or_copy(ctx, self, shape));
}

void narrow(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  SymInt start = ctx.int_arg("start");
  const SymInt length = ctx.int_arg("length");
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  if (decide(ctx, sym_lt(start, 0), "narrow")) start = start + size;
  if (decide(ctx, sym_gt(start + length, size), "narrow"))
    ctx.fail(ErrorKind::IndexError, "start (" + text(start) + ") + length (" + text(length) +
                                        ") exceeds dimension size (" + text(size) + ").");
  set_tensor(ctx, slice_of(ctx, self, dim, start, start + length, 1));
}

// movedim(self, source, destination): a permutation.
void movedim(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<int64_t> src = static_int_list(ctx, "source");
  const std::vector<int64_t> dst = static_int_list(ctx, "destination");
  if (src.size() != dst.size())
    ctx.fail(ErrorKind::InvalidArgument, "movedim: Invalid source or destination dims: source (" +
                                             std::to_string(src.size()) +
                                             " dims) should contain the same number of dims as destination (" +
                                             std::to_string(dst.size()) + " dims)");
  const auto n = static_cast<size_t>(self.dim());
  std::vector<int64_t> order(n, -1);
  std::vector<bool> used(n, false);
  for (size_t i = 0; i < src.size(); ++i) {
    const auto s0 = static_cast<size_t>(canonical_dim(src[i], self.dim()));
    const auto d0 = static_cast<size_t>(canonical_dim(dst[i], self.dim()));
    if (order[d0] != -1 || used[s0])
      ctx.fail(ErrorKind::InvalidArgument, "movedim: repeated dim in `source` or `destination`");
    order[d0] = static_cast<int64_t>(s0);
    used[s0] = true;
  }
  size_t next = 0;
  for (size_t d = 0; d < n; ++d) {
    if (order[d] != -1) continue;
    while (used[next]) ++next;
    order[d] = static_cast<int64_t>(next);
    used[next] = true;
  }
  SymShape sizes, strides;
  for (int64_t d : order) {
    sizes.push_back(self.sizes[static_cast<size_t>(d)]);
    strides.push_back(self.strides[static_cast<size_t>(d)]);
  }
  set_tensor(ctx, ctx.view_of(self, sizes, strides, self.storage_offset));
}

// diagonal(self, offset=0, dim1=0, dim2=1): a view with the two dims merged at the end.
void diagonal(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t offset = static_int(ctx, "offset");
  const int64_t d1 = dim_arg(ctx, "dim1", self.dim());
  const int64_t d2 = dim_arg(ctx, "dim2", self.dim());
  if (d1 == d2)
    ctx.fail(ErrorKind::InvalidArgument, "diagonal dimensions cannot be identical " + std::to_string(d1) + ", " +
                                             std::to_string(d2));
  const SymInt& n1 = self.sizes[static_cast<size_t>(d1)];
  const SymInt& n2 = self.sizes[static_cast<size_t>(d2)];
  const SymInt& st1 = self.strides[static_cast<size_t>(d1)];
  const SymInt& st2 = self.strides[static_cast<size_t>(d2)];
  SymInt len = offset >= 0 ? sym_min(n1, n2 - offset) : sym_min(n1 + offset, n2);
  len = simplified(ctx, sym_max(len, 0));
  SymInt storage_offset = self.storage_offset;
  if (!(len.is_static() && len.value() == 0))
    storage_offset = simplified(ctx, offset >= 0 ? storage_offset + st2 * offset : storage_offset - st1 * offset);
  SymShape sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.sizes[static_cast<size_t>(d)]);
    strides.push_back(self.strides[static_cast<size_t>(d)]);
  }
  sizes.push_back(len);
  strides.push_back(simplified(ctx, st1 + st2));
  set_tensor(ctx, ctx.view_of(self, sizes, strides, storage_offset));
}

// diag_embed(self, offset=0, dim1=-2, dim2=-1): a new contiguous tensor of
// one more dim, self's last size plus |offset| at dim1 and at dim2.
void diag_embed(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() == 0) ctx.fail(ErrorKind::IndexError, "dimension specified as -1 but tensor has no dimensions");
  const int64_t rank = self.dim() + 1;
  const int64_t offset = static_int(ctx, "offset");
  int64_t d1 = dim_arg(ctx, "dim1", rank);
  int64_t d2 = dim_arg(ctx, "dim2", rank);
  if (d1 == d2)
    ctx.fail(ErrorKind::InvalidArgument, "diagonal dimensions cannot be identical " + std::to_string(d1) + ", " +
                                             std::to_string(d2));
  if (d1 > d2) std::swap(d1, d2);
  const SymInt side = simplified(ctx, self.sizes.back() + (offset < 0 ? -offset : offset));
  SymShape sizes(self.sizes.begin(), self.sizes.end() - 1);
  sizes.insert(sizes.begin() + d1, side);
  sizes.insert(sizes.begin() + d2, side);
  set_tensor(ctx, empty_tensor(ctx, std::move(sizes), self.dtype, self.device));
}

// unfold(self, dimension, size, step): windows along a dim as a new last dim.
void unfold(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dimension", self.dim());
  const SymInt size = ctx.int_arg("size");
  const int64_t step = static_int(ctx, "step");
  const SymInt extent = self.dim() == 0 ? SymInt(1) : self.sizes[static_cast<size_t>(dim)];
  // torch._check, as _get_unfold_shape_stride asks it: an unbacked extent
  // gets the runtime assert (and its range), not a data-dependent error.
  require(ctx, sym_le(size, extent), "unfold", ErrorKind::InvalidArgument, [&] {
    return "maximum size for tensor at dimension " + std::to_string(dim) + " is " + text(extent) +
           " but size is " + text(size);
  });
  if (step <= 0) ctx.fail(ErrorKind::InvalidArgument, "step is " + std::to_string(step) + " but must be > 0");
  SymShape sizes = self.sizes, strides = self.strides;
  if (self.dim() == 0) {
    sizes = {size};
    strides = {SymInt(1)};
  } else {
    const auto d = static_cast<size_t>(dim);
    sizes[d] = simplified(ctx, floordiv(extent - size, step) + 1);
    strides[d] = simplified(ctx, strides[d] * step);
    sizes.push_back(size);
    strides.push_back(self.strides[d]);
  }
  set_tensor(ctx, ctx.view_of(self, sizes, strides, self.storage_offset));
}

// resize_(self, size, memory_format) / resize_as_(self, the_template, memory_format):
// self with new sizes and dense strides; the storage stays.
TensorValue resized(OpContext& ctx, const TensorMeta& self, const SymShape& size, MemoryFormat format) {
  check_non_negative(ctx, size);
  return ctx.view_of(self, size, strides_for(size, format, &ctx.env()), self.storage_offset);
}
void resize_inplace(OpContext& ctx) {
  const MemoryFormat f = ctx.memory_format_arg("memory_format").value_or(MemoryFormat::Contiguous);
  if (f == MemoryFormat::Preserve)
    ctx.fail(ErrorKind::InvalidArgument, "Unsupported memory format torch.preserve_format");
  set_tensor(ctx, resized(ctx, ctx.tensor("self"), ctx.int_list("size"), f));
}
void resize_as_inplace(OpContext& ctx) {
  const TensorMeta& like = ctx.tensor("the_template");
  MemoryFormat f = ctx.memory_format_arg("memory_format").value_or(MemoryFormat::Contiguous);
  if (f == MemoryFormat::Preserve) f = suggest_memory_format(like, ctx.env());
  set_tensor(ctx, resized(ctx, ctx.tensor("self"), like.sizes, f));
}

// select_scatter: self.clone() (preserve_format) with src written into the
// view; slice_scatter: clone_preserve_strides(self). src must have the view's shape.
void check_src_matches(OpContext& ctx, const SymShape& view, const TensorMeta& src, const char* op) {
  bool same = view.size() == src.sizes.size();
  for (size_t i = 0; same && i < view.size(); ++i) same = same_size(ctx, view[i], src.sizes[i], op);
  if (!same)
    ctx.fail(ErrorKind::ShapeMismatch, std::string(op) +
                                           ": expected src to have a size equal to the slice of self. src size = " +
                                           text(src.sizes) + ", slice size = " + text(view));
}

void select_scatter(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& src = ctx.tensor("src");
  if (self.dim() == 0) ctx.fail(ErrorKind::IndexError, "select() cannot be applied to a 0-dim tensor.");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const SymInt index = ctx.int_arg("index");
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  if (decide(ctx, sym_or(sym_lt(index, -size), sym_ge(index, size)), "select_scatter index in range"))
    ctx.fail(ErrorKind::IndexError, "select(): index " + text(index) + " out of range for tensor of size " +
                                        text(self.sizes) + " at dimension " + std::to_string(dim));
  SymShape view = self.sizes;
  view.erase(view.begin() + dim);
  check_src_matches(ctx, view, src, "select_scatter");
  set_tensor(ctx, empty_like(ctx, self));
}

void slice_scatter(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& src = ctx.tensor("src");
  if (self.dim() == 0) ctx.fail(ErrorKind::IndexError, "slice() cannot be applied to a 0-dim tensor.");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  const SymInt step = ctx.int_arg("step");
  if (decide(ctx, sym_le(step, SymInt(0)), "slice step"))
    ctx.fail(ErrorKind::InvalidArgument, "slice step must be positive");
  auto clamp = [&](std::optional<SymInt> v, const SymInt& dflt) {
    SymInt x = v.value_or(dflt);
    if (decide(ctx, sym_lt(x, SymInt(0)), "slice bound negative")) x = x + size;
    if (decide(ctx, sym_lt(x, SymInt(0)), "slice bound below 0")) x = SymInt(0);
    if (decide(ctx, sym_gt(x, size), "slice bound above size")) x = size;
    return simplified(ctx, x);
  };
  const SymInt start = clamp(ctx.optional_int("start"), SymInt(0));
  SymInt end = clamp(ctx.optional_int("end"), size);
  if (decide(ctx, sym_lt(end, start), "slice end before start")) end = start;
  SymShape view = self.sizes;
  view[static_cast<size_t>(dim)] = simplified(ctx, floordiv(end - start + step - 1, step));
  check_src_matches(ctx, view, src, "slice_scatter");
  set_tensor(ctx, clone_preserve_strides(ctx, self));  // ATen's kernel, which torch 2.x's FakeTensor runs
}

}  // namespace

// meshgrid(tensors, *, indexing="ij"): ATen's composite (TensorShape.cpp),
// which FakeTensor runs: each 0-D or 1-D input t_i is viewed as [1, .., -1
// (dim i), .., 1] and expanded to [numel(t_0), ..., numel(t_n-1)], so
// output i is a view of input i alone. "xy" swaps the first two inputs
// before and the first two outputs after. .default is "ij".
void meshgrid(OpContext& ctx) {
  std::vector<const TensorValue*> tensors;
  const Value& list = ctx.value("tensors");
  if (list.kind != Value::Kind::List || list.list_length)
    ctx.fail(ErrorKind::TypeError, "meshgrid(): argument 'tensors' (position 1) must be a list of tensors");
  for (const Value& v : *list.list) {
    if (!v.is_tensor()) ctx.fail(ErrorKind::TypeError, "meshgrid expects its inputs to be tensors");
    tensors.push_back(&*v.tensor);
  }
  if (tensors.empty()) ctx.fail(ErrorKind::InvalidArgument, "meshgrid expects a non-empty TensorList");
  for (size_t i = 0; i + 1 < tensors.size(); ++i) {
    if (tensors[i]->meta.dtype != tensors[i + 1]->meta.dtype)
      ctx.fail(ErrorKind::TypeError, "meshgrid expects all tensors to have the same dtype");
    if (!(tensors[i]->meta.device == tensors[i + 1]->meta.device))
      ctx.fail(ErrorKind::DeviceMismatch, "meshgrid expects all tensors to have the same device");
  }
  const std::string indexing = ctx.declares("indexing") ? ctx.string_arg("indexing") : "ij";  // .indexing / .default
  if (indexing != "xy" && indexing != "ij")
    ctx.fail(ErrorKind::InvalidArgument,
             "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: " + indexing);
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  if (swap) std::swap(tensors[0], tensors[1]);
  SymShape shape;
  for (const TensorValue* t : tensors) {
    if (t->meta.dim() > 1)
      ctx.fail(ErrorKind::InvalidArgument,
               "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of sizes " +
                   text(t->meta.sizes));
    shape.push_back(t->meta.dim() == 0 ? SymInt(1) : t->meta.sizes[0]);
  }
  Composite c(ctx);
  std::vector<TensorValue> grids;
  SymShape view_shape(shape.size(), SymInt(1));
  for (size_t i = 0; i < tensors.size(); ++i) {
    view_shape[i] = -1;
    const TensorValue viewed = c.call("aten.view.default", {Composite::tensor(*tensors[i]), Composite::sizes(view_shape)});
    grids.push_back(c.call("aten.expand.default", {Composite::tensor(viewed), Composite::sizes(shape)}));
    view_shape[i] = 1;
  }
  if (swap) std::swap(grids[0], grids[1]);
  set_tuple(ctx, std::move(grids));
}

void register_view_ops(OpRegistry& r) {
  r.add("aten.view.default", view);
  r.add("aten._unsafe_view.default", view);
  r.add("aten._reshape_alias.default", reshape_alias);
  r.add("aten.reshape.default", reshape);
  r.add("aten.as_strided.default", as_strided);
  r.add("aten.alias.default", alias);
  r.add("aten.detach.default", alias, OutputGrad::none());
  // detach_ returns self with requires_grad cleared; its view geometry stays,
  // so it is a Data twin (Metadata twins re-view self).
  r.add_inplace("aten.detach_.default", alias, Mutation::Data, OutputGrad::none());
  r.add("aten.lift_fresh.default", alias);
  r.add("aten.t.default", t);
  r.add("aten.transpose.int", transpose<kDimNames>);
  r.add("aten.swapaxes.default", transpose<kAxisNames>);
  r.add("aten.swapdims.default", transpose<kDimNames>);
  r.add("aten.permute.default", permute);
  r.add("aten.expand.default", expand);
  r.add("aten.real.default", real_imag<false>);
  r.add("aten.imag.default", real_imag<true>);
  r.add("aten.slice.Tensor", slice);
  r.add("aten.select.int", select);
  r.add("aten.split.Tensor", split);
  r.add("aten.split_with_sizes.default", split_with_sizes<kSplitSizes>);
  r.add("aten.split.sizes", split_with_sizes<kSplitSize>);  // CompositeImplicit: split_with_sizes
  r.add("aten.numpy_T.default", numpy_t);
  for (const char* name : {"aten.mT.default", "aten.mH.default", "aten.adjoint.default", "aten.matrix_H.default"})
    r.add(name, matrix_transpose);
  r.add("aten.chunk.default", chunk);
  r.add("aten.tensor_split.indices", tensor_split_indices);
  r.add("aten.tensor_split.sections", tensor_split_sections);
  r.add("aten.hsplit.int", DirectionalSplit<1>::sections);
  r.add("aten.hsplit.array", DirectionalSplit<1>::indices);
  r.add("aten.vsplit.int", DirectionalSplit<2>::sections);
  r.add("aten.vsplit.array", DirectionalSplit<2>::indices);
  r.add("aten.dsplit.int", DirectionalSplit<3>::sections);
  r.add("aten.dsplit.array", DirectionalSplit<3>::indices);
  r.add("aten.unbind.int", unbind);
  r.add("aten.unsqueeze.default", unsqueeze<true>);
  r.add("aten.squeeze.dim", squeeze);
  r.add("aten.squeeze.dims", squeeze);
  r.add("aten.squeeze.default", squeeze);
  r.add("aten.flatten.using_ints", flatten);
  r.add("aten.narrow.default", narrow);
  r.add("aten.view_as.default", view_as);
  r.add("aten.reshape_as.default", reshape_as);
  r.add("aten.expand_as.default", expand_as);
  // broadcast_to(self, size): ATen's composite is self.expand(size) (HF WavLM's
  // attention weights, spread over the heads).
  r.add("aten.broadcast_to.default", expand);
  r.add("aten.unflatten.int", unflatten);
  r.add("aten.movedim.intlist", movedim);
  r.add("aten.movedim.int", movedim);
  r.add("aten.moveaxis.intlist", movedim);
  r.add("aten.moveaxis.int", movedim);
  r.add("aten.diagonal.default", diagonal);
  r.add("aten.diag_embed.default", diag_embed);
  r.add("aten.unfold.default", unfold);
  r.add("aten.meshgrid.default", meshgrid);
  r.add("aten.meshgrid.indexing", meshgrid);
  // In-place metadata changes: the interpreter replaces self with the result.
  r.add_inplace("aten.t_.default", t, Mutation::Metadata);
  r.add_inplace("aten.transpose_.default", transpose<kDimNames>, Mutation::Metadata);
  r.add_inplace("aten.swapdims_.default", transpose<kDimNames>, Mutation::Metadata);
  r.add_inplace("aten.swapaxes_.default", transpose<kAxisNames>, Mutation::Metadata);
  r.add_inplace("aten.squeeze_.default", squeeze, Mutation::Metadata);
  r.add_inplace("aten.squeeze_.dim", squeeze, Mutation::Metadata);
  r.add_inplace("aten.squeeze_.dims", squeeze, Mutation::Metadata);
  r.add_inplace("aten.unsqueeze_.default", unsqueeze<false>, Mutation::Metadata);
  r.add_inplace("aten.as_strided_.default", as_strided, Mutation::Metadata);
  r.add_inplace("aten.resize_.default", resize_inplace, Mutation::Metadata);
  r.add_inplace("aten.resize_as_.default", resize_as_inplace, Mutation::Metadata);
  r.add("aten.select_scatter.default", select_scatter);
  r.add("aten.slice_scatter.default", slice_scatter);
}

}  // namespace fakeprop::fx::ops
