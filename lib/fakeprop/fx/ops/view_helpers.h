// View geometry shared by view / reshape / flatten-like rules: -1 inference
// (at::infer_size) and the strides a view of new sizes can have over old
// sizes and strides (at::detail::computeStride), both deciding symbolic
// sizes through the ShapeEnv.
#pragma once
#include <optional>

#include "fakeprop/fx/ops/aten_helpers.h"

namespace fakeprop::fx::ops {

// self.expand(target): a view with stride 0 where a size-1 (or missing
// leading) dim grows; a ShapeMismatch where a dim can neither match nor be 1.
TensorValue expand_to(OpContext& ctx, const TensorMeta& self, const SymShape& target);

// a / b when b divides a as a monomial (6*s0*s1 / (3*s0) = 2*s1), as
// sympy cancels common factors in FloorDiv; nullopt otherwise.
inline std::optional<SymInt> exact_quotient(const SymInt& a, const SymInt& b) {
  if (a.is_static() && b.is_static()) {  // the same answer without building expressions
    if (b.value() == 0 || a.value() % b.value() != 0) return std::nullopt;
    return SymInt(a.value() / b.value());
  }
  auto as_expr = [](const SymInt& v) { return v.is_static() ? integer(v.value()) : v.expr(); };
  const std::optional<ExprRef> q = monomial_quotient(as_expr(a), as_expr(b));
  if (!q) return std::nullopt;
  return SymInt(*q);
}

// torch 2.x's infer_size (_prims_common): a dim is -1 only where that is
// known (guard_or_false); every check is torch._check's, so a guard on
// backed sizes and a runtime assert on unbacked ones.
inline SymShape infer_view_size(OpContext& ctx, const std::vector<SymInt>& shape, const SymInt& numel) {
  const char* why = "infer_size";
  auto invalid = [&] { return "shape '" + text(shape) + "' is invalid for input of size " + text(numel); };
  SymShape res = shape;
  SymInt newsize = 1;
  std::optional<size_t> infer_dim;
  for (size_t d = 0; d < shape.size(); ++d) {
    const SymInt& s = shape[d];
    if (guard_or_false(ctx, sym_eq(s, -1), why)) {
      if (infer_dim) ctx.fail(ErrorKind::InvalidArgument, "only one dimension can be inferred");
      infer_dim = d;
      continue;
    }
    require(ctx, sym_ge(s, 0), why, ErrorKind::InvalidArgument, [&] { return "invalid shape dimension " + text(s); });
    newsize = newsize * s;
  }
  if (!infer_dim) {
    if (!numel.same(newsize)) require(ctx, sym_eq(numel, newsize), why, ErrorKind::ShapeMismatch, invalid);
    return res;
  }
  const SymBool nonzero = sym_ne(newsize, 0);
  if (known_true(ctx, sym_not(nonzero)) || !ctx.expect(nonzero, why)) {
    if (guard_or_false(ctx, sym_eq(numel, 0), why))
      ctx.fail(ErrorKind::InvalidArgument, "cannot reshape tensor of 0 elements into shape " + text(shape) +
                                               " because the unspecified dimension size -1 can be any value and is ambiguous");
    ctx.fail(ErrorKind::ShapeMismatch, invalid());
  }
  const std::optional<SymInt> quotient = exact_quotient(numel, newsize);
  if (!quotient) require(ctx, sym_eq(mod(numel, newsize), 0), why, ErrorKind::ShapeMismatch, invalid);
  res[*infer_dim] = simplified(ctx, quotient ? *quotient : floordiv(numel, newsize));
  require(ctx, sym_ge(res[*infer_dim], 0), why, ErrorKind::ShapeMismatch, invalid);
  return res;
}

// Strides of a view with `newshape` over a tensor of `oldshape`/`oldstride`,
// or nullopt when some new dim would span two non-contiguous chunks
// (computeStride). `oblivious`: what it cannot decide counts as a chunk end,
// a dim it cannot take is left for the next chunk, as fake_impls'
// _compute_stride(size_oblivious=True) asks with guard_or_true/false, so
// unbacked sizes give nullopt instead of a data-dependent error.
inline std::optional<SymShape> view_strides(OpContext& ctx, const SymShape& oldshape, const SymShape& oldstride,
                                            const SymShape& newshape, bool oblivious = false) {
  const char* why = "view strides";
  auto guard_or_true = [&](const SymBool& c) { return c.is_static() ? c.value() : ctx.env().guard_or_true(c, why); };
  auto differ = [&](const SymInt& a, const SymInt& b) {
    return oblivious ? !a.same(b) && guard_or_true(sym_ne(a, b)) : !same_size(ctx, a, b, why);
  };
  auto holds = [&](const SymBool& c, bool unknown) {
    if (!oblivious) return decide(ctx, c, why);
    return unknown ? guard_or_true(c) : guard_or_false(ctx, c, why);
  };
  SymShape newstride(newshape.size());
  if (oldshape.empty()) return SymShape(newshape.size(), SymInt(1));
  const SymInt numel = product(oldshape);
  if (guard_or_false(ctx, sym_eq(numel, 0), why)) {
    bool same = oldshape.size() == newshape.size();
    for (size_t i = 0; same && i < oldshape.size(); ++i) same = !differ(oldshape[i], newshape[i]);
    if (same) return oldstride;
    return contiguous_strides(newshape, &ctx.env());
  }
  int64_t view_d = static_cast<int64_t>(newshape.size()) - 1;
  SymInt chunk_base_stride = oldstride.back();
  SymInt tensor_numel = 1;
  SymInt view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    const auto td = static_cast<size_t>(tensor_d);
    tensor_numel = tensor_numel * oldshape[td];
    const bool chunk_end = tensor_d == 0 || (differ(oldshape[td - 1], 1) &&
                                             differ(oldstride[td - 1], tensor_numel * chunk_base_stride));
    if (!chunk_end) continue;
    while (view_d >= 0) {
      const auto vd = static_cast<size_t>(view_d);
      const bool take = holds(sym_lt(view_numel, tensor_numel), true) || !differ(newshape[vd], 1);
      if (!take) break;
      newstride[vd] = simplified(ctx, view_numel * chunk_base_stride);
      view_numel = view_numel * newshape[vd];
      --view_d;
    }
    if (differ(view_numel, tensor_numel)) return std::nullopt;
    if (tensor_d > 0) {
      chunk_base_stride = oldstride[td - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

// Whether a view involves sizes or strides without a hint (unbacked): torch
// 2.15's fake view then takes _view_unbacked_meta (_view_has_unbacked_input).
inline bool view_has_unbacked(OpContext& ctx, const SymShape& sizes, const SymShape& strides, const SymShape& shape) {
  for (const SymShape* xs : {&sizes, &strides, &shape})
    for (const SymInt& x : *xs)
      if (x.is_symbolic() && !ctx.env().hint(x.expr())) return true;
  return false;
}

// The strides of fake_impls._view_unbacked_meta's first pass: the same shape
// keeps its strides, a tensor is_contiguous_or_false says is contiguous gets
// contiguous ones (its numel < 2 and size == 1 questions assumed False where
// undecided: ones(u0).view(u1, -1) compiles), else computeStride
// size-obliviously; nullopt when none gives a view (torch then tries again,
// deciding, as the callers do).
inline std::optional<SymShape> unbacked_view_strides(OpContext& ctx, const SymShape& sizes, const SymShape& strides,
                                                     const SymShape& shape) {
  if (sizes.size() == shape.size()) {
    bool same = true;
    for (size_t d = 0; same && d < sizes.size(); ++d)
      same = sizes[d].same(shape[d]) || guard_or_false(ctx, sym_eq(sizes[d], shape[d]), "view");
    if (same) return strides;
  }
  TensorMeta probe;
  probe.sizes = sizes;
  probe.strides = strides;
  if (is_contiguous_or_false(probe, ctx.env())) return contiguous_strides(shape, &ctx.env());
  return view_strides(ctx, sizes, strides, shape, /*oblivious=*/true);
}

// The strides torch 2.15's fake view gives (FakeTensor's aten.view impl is
// torch._refs._reshape_view_helper), asking what it asks in its order: the
// target dims are built left to right, a dim of the right length kept as it
// is, else the next dims collapsed (prims._collapse_view_helper, when they
// can be) until the length divides them, then split (prims.split_dim);
// extra trailing dims of size 1 are split off the last dim, leftover ones
// squeezed. Where torch branches on a SymBool it guards (decide); its
// guard_or_false / guard_or_true and torch._check are this file's too.
// Unlike computeStride (view_strides), a size-1 dim keeps the stride it had.
// The sizes are the prims' too: a dim that split_dim made (s//2) stays that
// expression where a guard said it equals the requested length (3), as
// torch's fake output does. nullopt when a collapse cannot be a view.
struct ViewLayout {
  SymShape sizes, strides;
};
inline std::optional<ViewLayout> fake_view_layout(OpContext& ctx, const SymShape& sizes, const SymShape& strides,
                                                  const SymShape& shape) {
  const char* why = "view strides";
  auto guard_or_true = [&](const SymBool& c) { return c.is_static() ? c.value() : ctx.env().guard_or_true(c, why); };
  const SymInt numel = product(sizes);
  if (guard_or_false(ctx, sym_eq(numel, 0), why)) return ViewLayout{shape, contiguous_strides(shape, &ctx.env())};
  if (sizes.empty()) {
    for (const SymInt& length : shape) (void)decide(ctx, sym_ne(length, 1), why);
    return ViewLayout{shape, SymShape(shape.size(), SymInt(1))};
  }
  if (shape.empty()) {
    for (const SymInt& length : sizes) (void)decide(ctx, sym_ne(length, 1), why);
    return ViewLayout{};
  }
  TensorMeta probe;
  probe.sizes = sizes;
  probe.strides = strides;
  if (is_contiguous_or_false(probe, ctx.env())) {
    if (shape.size() == 1 && sizes.size() > 1) return ViewLayout{{simplified(ctx, numel)}, {SymInt(1)}};
    if (shape.size() == 2 && sizes.size() == 1) return ViewLayout{shape, {shape[1], SymInt(1)}};
  }
  const SymInt shape_numel = product(shape);
  if (!numel.same(shape_numel))
    require(ctx, sym_eq(numel, shape_numel), why, ErrorKind::ShapeMismatch, [&] {
      return "Could not reshape a tensor with shape " + text(sizes) + " as a tensor with shape " + text(shape) + "!";
    });
  // accum % length != 0, as torch asks it (the ShapeEnv evaluates Mod as
  // torch's Mod.eval does: a monomial multiple is 0).
  auto divides = [&](const SymInt& a, const SymInt& b) {
    if (exact_quotient(a, b)) return true;
    return !decide(ctx, sym_ne(mod(a, b), 0), why);
  };
  SymShape sz = sizes, st = strides;
  size_t idx = 0;
  for (const SymInt& length : shape) {
    if (idx >= sz.size()) {  // a tail unsqueeze: split_dim(last, its own length)
      (void)decide(ctx, sym_ne(length, 1), why);
      st.push_back(st.back());
      sz.push_back(SymInt(1));
      ++idx;
      continue;
    }
    if (same_size(ctx, length, sz[idx], why)) {
      ++idx;
      continue;
    }
    SymInt accum = sz[idx];
    size_t end = idx;
    while (!divides(accum, length)) {
      if (++end >= sz.size()) return std::nullopt;
      accum = simplified(ctx, accum * sz[end]);
    }
    if (end != idx) {  // prims._collapse_view_helper(a_, idx, end)
      const SymInt count = product(sz);
      SymBool valid(true);
      if (guard_or_false(ctx, sym_ne(count, 0), why))
        for (size_t i = end; i-- > idx;)
          valid = sym_and(valid, sym_or(sym_or(sym_eq(sz[i], 1), sym_eq(sz[i + 1], 1)),
                                        sym_eq(st[i], st[i + 1] * sz[i + 1])));
      valid = sym_or(valid, sym_eq(count, 0));
      if (!guard_or_false(ctx, valid, why)) return std::nullopt;
      SymInt stride = st[end];
      for (size_t i = end; i-- > idx;)
        if (decide(ctx, sym_ne(sz[i], 1), why) && decide(ctx, sym_lt(st[i], stride), why)) stride = st[i];
      SymInt length_c = sz[end];
      if (guard_or_true(sym_ne(length_c, 0))) {
        for (size_t i = end; i-- > idx;) {
          if (guard_or_false(ctx, sym_eq(sz[i], 0), why)) {
            length_c = 0;
            stride = 0;
            break;
          }
          length_c = length_c * sz[i];
        }
      } else {
        stride = 0;
      }
      (void)guard_or_false(ctx, sym_eq(count, 0), why);
      sz.erase(sz.begin() + static_cast<int64_t>(idx) + 1, sz.begin() + static_cast<int64_t>(end) + 1);
      st.erase(st.begin() + static_cast<int64_t>(idx) + 1, st.begin() + static_cast<int64_t>(end) + 1);
      sz[idx] = simplified(ctx, length_c);
      st[idx] = stride;
    }
    if (!same_size(ctx, accum, length, why)) {  // prims.split_dim(idx, length)
      require(ctx, sym_ge(length, 0), why, ErrorKind::ShapeMismatch, [&] { return "invalid dim length " + text(length); });
      const std::optional<SymInt> q = exact_quotient(sz[idx], length);
      const SymInt inner = simplified(ctx, q ? *q : floordiv(sz[idx], length));
      if (!q && decide(ctx, sym_ne(mod(sz[idx], length), 0), why))
        ctx.fail(ErrorKind::ShapeMismatch, "Attempting to split dimension of length " + text(sz[idx]) +
                                               ", but outer length of " + text(length) + " divides it with a remainder!");
      sz[idx] = length;
      sz.insert(sz.begin() + static_cast<int64_t>(idx) + 1, inner);
      st.insert(st.begin() + static_cast<int64_t>(idx) + 1, st[idx]);
      st[idx] = simplified(ctx, st[idx] * inner);
    }
    ++idx;
  }
  while (idx < sz.size()) {  // squeeze the tail
    require(ctx, sym_eq(sz[idx], 1), why, ErrorKind::ShapeMismatch,
            [&] { return "a.size(" + std::to_string(idx) + ") expected to be 1 but got " + text(sz[idx]); });
    sz.erase(sz.begin() + static_cast<int64_t>(idx));
    st.erase(st.begin() + static_cast<int64_t>(idx));
  }
  return ViewLayout{simplified(ctx, std::move(sz)), simplified(ctx, std::move(st))};
}

}  // namespace fakeprop::fx::ops
