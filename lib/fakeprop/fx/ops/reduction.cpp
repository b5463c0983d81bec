// Reductions (sum, mean, amax, argmax, var, any, ...) and the softmax family.
// Structured reduction kernels allocate contiguous outputs of the reduced
// shape; the dtype rules differ per op.
#include <algorithm>
#include <cmath>

#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/aten_helpers.h"
#include "fakeprop/fx/ops/composite.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"
#include "fakeprop/sym/python_float.h"

namespace fakeprop::fx::ops {

namespace {

SymShape reduced_shape(const TensorMeta& self, const std::vector<bool>& mask, bool keepdim) {
  SymShape out;
  for (size_t d = 0; d < self.sizes.size(); ++d) {
    if (!mask[d]) out.push_back(self.sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// The `dim` argument: a list, a single int, or None (every dim).
std::vector<bool> dims_mask(OpContext& ctx, const TensorMeta& self) {
  std::vector<int64_t> dims;
  if (ctx.has("dim")) dims = static_ints(ctx, ctx.int_list("dim"));
  return reduction_mask(ctx, dims, self.dim());
}

// Reducing a dim of size 0 has no identity for max/min/argmax.
void check_nonempty_reduction(OpContext& ctx, const TensorMeta& self, const std::vector<bool>& mask, const char* op) {
  if (self.dim() == 0) return;
  for (size_t d = 0; d < self.sizes.size(); ++d)
    if (mask[d] && decide(ctx, sym_eq(self.sizes[d], 0), op))
      ctx.fail(ErrorKind::InvalidArgument, std::string(op) + "(): Expected reduction dim " + std::to_string(d) +
                                               " to have non-zero size.");
}

TensorValue reduction_out(OpContext& ctx, const TensorMeta& self, const std::vector<bool>& mask, bool keepdim,
                          DType dtype) {
  return empty_tensor(ctx, reduced_shape(self, mask, keepdim), dtype, self.device);
}

// The reductions torch runs through its refs (_reduction): self converted to
// the computation dtype first where it differs (the result's, in float for
// half precision; a complex self of a real result stays), the prim's output,
// the reduced dims dropped, allocated with empty_strided, which asks each
// dim == 0 (storage_size_guards); keepdim then broadcasts it back to self's
// rank with prims.broadcast_in_dim, which asks each of its dims == 1.
TensorValue strided_reduction_out(OpContext& ctx, const TensorMeta& self, const std::vector<bool>& mask, bool keepdim,
                                  DType dtype) {
  const bool complex_to_real = is_complex(self.dtype) && !is_complex(dtype);
  if (!complex_to_real && self.dtype != computation_dtype(dtype) && has_symbolic_sizes_strides(self))
    prim_convert_element_type_guards(ctx, self);
  TensorValue out = reduction_out(ctx, self, mask, keepdim, dtype);
  const SymShape prim = simplified(ctx, reduced_shape(self, mask, false));
  storage_size_guards(ctx, prim);
  if (keepdim) broadcast_in_dim_guards(ctx, prim);
  return out;
}

// amax / amin: a reduction without identity. Of symbolic sizes the ref checks
// every reduced dim > 0 (torch._check); the C++ meta of static sizes names the dim.
void check_nonempty_ref_reduction(OpContext& ctx, const TensorMeta& self, const std::vector<bool>& mask,
                                  const char* op) {
  if (!has_symbolic_sizes_strides(self)) return check_nonempty_reduction(ctx, self, mask, op);
  if (self.dim() == 0) return;
  SymBool valid = true;
  for (size_t d = 0; d < self.sizes.size(); ++d)
    if (mask[d]) valid = sym_and(valid, sym_gt(self.sizes[d], 0));
  require(ctx, valid, "_reduction", ErrorKind::InvalidArgument,
          "reducing over zero-size dimension for reduction operation without identity");
}

// amax / amin through the ref, as the decompositions call it.
TensorValue ref_amax(OpContext& ctx, const TensorMeta& self, const std::vector<bool>& mask, bool keepdim,
                     const char* op) {
  check_nonempty_ref_reduction(ctx, self, mask, op);
  return strided_reduction_out(ctx, self, mask, keepdim, self.dtype);
}

DType sum_dtype(OpContext& ctx, const TensorMeta& self) {
  if (auto d = ctx.dtype_arg("dtype")) return *d;
  return is_integral(self.dtype, true) ? DType::Int64 : self.dtype;
}

// sum.dim_IntList(self, dim, keepdim=False, *, dtype) / sum.default(self, *, dtype).
void sum(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const bool has_dims = ctx.declares("dim");
  const std::vector<bool> mask = has_dims ? dims_mask(ctx, self) : reduction_mask(ctx, {}, self.dim());
  const bool keepdim = has_dims && ctx.bool_arg("keepdim");
  set_tensor(ctx, strided_reduction_out(ctx, self, mask, keepdim, sum_dtype(ctx, self)));
}

void prod(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const bool has_dim = ctx.declares("dim");
  std::vector<bool> mask = reduction_mask(ctx, {}, self.dim());
  if (has_dim) mask = reduction_mask(ctx, {static_int(ctx, "dim")}, self.dim());
  const bool keepdim = has_dim && ctx.bool_arg("keepdim");
  set_tensor(ctx, strided_reduction_out(ctx, self, mask, keepdim, sum_dtype(ctx, self)));
}

void mean(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const bool has_dims = ctx.declares("dim");
  const std::optional<DType> requested = ctx.dtype_arg("dtype");
  const DType dtype = requested.value_or(self.dtype);
  if (!is_floating(dtype) && !is_complex(dtype))
    ctx.fail(ErrorKind::TypeError,
             std::string("mean(): could not infer output dtype. ") + (requested ? "Optional" : "Input") +
                 " dtype must be either a floating point or complex dtype. Got: " + dtype_title(dtype));
  const std::vector<bool> mask = has_dims ? dims_mask(ctx, self) : reduction_mask(ctx, {}, self.dim());
  const bool keepdim = has_dims && ctx.bool_arg("keepdim");
  TensorValue out = strided_reduction_out(ctx, self, mask, keepdim, dtype);
  // The ref divides the sum by the count: true_divide(sum, nelem) broadcasts
  // a number (_maybe_broadcast), then runs prims.div.
  ref_broadcast_guards(ctx, out.meta.sizes);
  prim_elementwise_guards(ctx, out.meta);
  set_tensor(ctx, std::move(out));
}

// pow(t, e) of a number e in the ref: t is broadcast with the number, then
// e == 1 clones, e == 2 multiplies t by itself (fast_binary_impl), e == 0.5
// takes sqrt and other exponents run prims.pow.
void ref_pow_scalar_guards(OpContext& ctx, const TensorMeta& t, double e) {
  ref_broadcast_guards(ctx, t.sizes);
  if (e == 1.0) return prim_clone_guards(ctx, t);
  if (e == 2.0) return (void)fast_binary_meta(ctx, t, t);
  prim_elementwise_guards(ctx, t);  // prims.sqrt or prims.pow
}

// What linalg_vector_norm's ref asks: ord 0 sums a comparison, +-inf takes
// amax / amin of abs; any other ord tests whether the reduced dims are all 1
// (then it only takes abs), else pow(sum(pow(|x|, ord)), 1 / ord).
TensorValue vector_norm_ref(OpContext& ctx, const TensorMeta& x, const std::vector<bool>& mask, bool dim_none,
                            bool keepdim, double ord, DType dtype) {
  if (ord == 0.0) {  // sum(ne(x, 0), dtype): the ref's ne broadcasts a number, then prims.ne
    ref_broadcast_guards(ctx, x.sizes);
    prim_elementwise_guards(ctx, x);
    TensorMeta ne = x;
    ne.dtype = DType::Bool;
    return strided_reduction_out(ctx, ne, mask, keepdim, dtype);
  }
  if (std::isinf(ord)) {
    prim_elementwise_guards(ctx, x);  // abs
    TensorValue out = ref_amax(ctx, x, mask, keepdim, ord > 0 ? "amax" : "amin");
    out.meta.dtype = dtype;
    return out;
  }
  bool trivial = false;
  if (dim_none) {
    trivial = guard_or_false(ctx, sym_eq(x.numel(), 1), "vector_norm");
  } else if (x.dim() > 0) {
    trivial = true;
    for (size_t d = 0; d < x.sizes.size() && trivial; ++d)
      if (mask[d]) trivial = guard_or_false(ctx, sym_eq(x.sizes[d], 1), "vector_norm");
  }
  const bool even = std::fmod(ord, 2.0) == 0.0;
  if (trivial || !(even && is_floating(x.dtype))) prim_elementwise_guards(ctx, x);  // abs
  if (trivial) return reduction_out(ctx, x, mask, keepdim, dtype);
  ref_pow_scalar_guards(ctx, x, ord);
  TensorValue out = strided_reduction_out(ctx, x, mask, keepdim, dtype);
  ref_pow_scalar_guards(ctx, out.meta, 1.0 / ord);
  return out;
}

// linalg.vector_norm's input checks (the ref's _check_norm_dtype for a
// requested dtype): a floating or complex input; a floating or complex
// dtype, complex exactly when the input is, that the input widens to.
void require_norm_input(OpContext& ctx, DType input, std::optional<DType> requested) {
  if (!is_floating(input) && !is_complex(input))
    ctx.fail(ErrorKind::TypeError, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got " +
                                       dtype_title(input));
  if (!requested) return;
  const DType d = *requested;
  if (!is_floating(d) && !is_complex(d))
    ctx.fail(ErrorKind::TypeError, "linalg.vector_norm: dtype should be floating point or complex. Got " +
                                       dtype_title(d));
  if (is_complex(d) != is_complex(input))
    ctx.fail(ErrorKind::TypeError, std::string("linalg.vector_norm: dtype should be ") +
                                       (is_complex(input) ? "complex" : "real") + " for " +
                                       (is_complex(input) ? "complex" : "real") + " inputs. Got " + dtype_title(d));
  if (promote_types(d, input) != d)
    ctx.fail(ErrorKind::TypeError, "linalg.vector_norm: the dtype of the input (" + dtype_title(input) +
                                       ") should be convertible without narrowing to the specified dtype (" +
                                       dtype_title(d) + ")");
}

// linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):
// a real result (the dtype given, else self's real counterpart), contiguous.
void linalg_vector_norm(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::optional<DType> requested = ctx.dtype_arg("dtype");
  require_norm_input(ctx, self.dtype, requested);
  const DType dtype = to_real(requested.value_or(self.dtype));
  const std::vector<bool> mask = dims_mask(ctx, self);
  const bool keepdim = ctx.bool_arg("keepdim");
  const double ord = ctx.float_arg("ord");
  const bool dim_none = !ctx.has("dim") || ctx.int_list("dim").empty();
  set_tensor(ctx, vector_norm_ref(ctx, self, mask, dim_none, keepdim, ord, dtype));
}

// linalg_matrix_norm's checks (_linalg_matrix_norm_checks): a batch of
// matrices, floating or complex (no half / bfloat16 where svd is taken), two
// different dims, a dtype that A widens to. Returns the wrapped dims.
std::pair<int64_t, int64_t> matrix_norm_checks(OpContext& ctx, const TensorMeta& a, const std::vector<int64_t>& dim,
                                               std::optional<DType> requested, bool low_precision) {
  if (a.dim() < 2)
    ctx.fail(ErrorKind::InvalidArgument,
             "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  if (!is_floating(a.dtype) && !is_complex(a.dtype))
    ctx.fail(ErrorKind::TypeError, "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got " +
                                       dtype_title(a.dtype));
  if (!low_precision && (a.dtype == DType::Float16 || a.dtype == DType::BFloat16))
    ctx.fail(ErrorKind::TypeError, "linalg.matrix_norm: Low precision dtypes not supported. Got " + dtype_title(a.dtype));
  if (dim.size() != 2)
    ctx.fail(ErrorKind::InvalidArgument, "linalg.matrix_norm: dim must be a 2-tuple. Got " + std::to_string(dim.size()) +
                                             " dims");
  const int64_t d0 = canonical_dim(dim[0], a.dim()), d1 = canonical_dim(dim[1], a.dim());
  if (d0 == d1)
    ctx.fail(ErrorKind::InvalidArgument, "linalg.matrix_norm: dims must be different. Got (" + std::to_string(d0) +
                                             ", " + std::to_string(d1) + ")");
  require_norm_input(ctx, a.dtype, requested);
  return {d0, d1};
}

std::vector<bool> one_dim_mask(size_t rank, int64_t d) {
  std::vector<bool> mask(rank, false);
  mask[static_cast<size_t>(d)] = true;
  return mask;
}

// The svd-based matrix norms (ord +-2: amax / amin of the singular values;
// 'nuc': their sum): svdvals of A with dims (d0, d1) moved last gives a fresh
// contiguous batch + [Min(m, n)] (the meta's min of SymInts, no guard); with
// keepdim the reduced result is unsqueezed and permuted back.
TensorValue svd_matrix_norm(OpContext& ctx, const TensorMeta& a, int64_t d0, int64_t d1, bool keepdim, DType dtype,
                            const char* reduce) {
  std::vector<int64_t> perm;
  SymShape batch;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (d != d0 && d != d1) {
      perm.push_back(d);
      batch.push_back(a.sizes[static_cast<size_t>(d)]);
    }
  perm.push_back(d0);
  perm.push_back(d1);
  const SymInt& m = a.sizes[static_cast<size_t>(d0)];
  const SymInt& n = a.sizes[static_cast<size_t>(d1)];
  batch.push_back(sym_min(m, n));
  const TensorValue s = ctx.new_tensor(batch, to_real(dtype), a.device);
  const std::vector<bool> last = one_dim_mask(batch.size(), static_cast<int64_t>(batch.size()) - 1);
  TensorValue out = std::string(reduce) == "sum" ? strided_reduction_out(ctx, s.meta, last, keepdim, s.meta.dtype)
                                                 : ref_amax(ctx, s.meta, last, keepdim, reduce);
  if (!keepdim) return out;
  Composite c(ctx);
  out = c.call("aten.unsqueeze.default", {Composite::tensor(out), Value::of_int(SymInt(-1))});
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return c.permute(out, inverse);
}

// linalg_matrix_norm of a number ord: +-2 through svd; +-1 (+-inf) the
// vector 1-norm over the rows (columns), then amax / amin over the other dim.
TensorValue matrix_norm_scalar(OpContext& ctx, const TensorMeta& a, double ord, std::vector<int64_t> dim,
                               bool keepdim, std::optional<DType> requested) {
  const double abs_ord = std::fabs(ord);
  if (abs_ord != 2.0 && abs_ord != 1.0 && !std::isinf(abs_ord))
    ctx.fail(ErrorKind::InvalidArgument, "linalg.matrix_norm: Order " + python_float_repr(ord) + " not supported.");
  auto [d0, d1] = matrix_norm_checks(ctx, a, dim, requested, abs_ord != 2.0);
  const char* reduce = ord > 0 ? "amax" : "amin";
  if (abs_ord == 2.0) return svd_matrix_norm(ctx, a, d0, d1, keepdim, requested.value_or(a.dtype), reduce);
  if (std::isinf(abs_ord)) std::swap(d0, d1);
  if (!keepdim && d0 < d1) --d1;
  const TensorValue rows =
      vector_norm_ref(ctx, a, one_dim_mask(a.sizes.size(), d0), false, keepdim, 1.0, to_real(requested.value_or(a.dtype)));
  return ref_amax(ctx, rows.meta, one_dim_mask(rows.meta.sizes.size(), d1), keepdim, reduce);
}

// linalg_matrix_norm of ord 'fro' (the vector 2-norm over both dims) or 'nuc'.
TensorValue matrix_norm_str(OpContext& ctx, const TensorMeta& a, const std::string& ord, const std::vector<int64_t>& dim,
                            bool keepdim, std::optional<DType> requested) {
  if (ord != "fro" && ord != "nuc")
    ctx.fail(ErrorKind::InvalidArgument, "linalg.matrix_norm: Order " + ord + " not supported.");
  auto [d0, d1] = matrix_norm_checks(ctx, a, dim, requested, ord != "nuc");
  if (ord == "nuc") return svd_matrix_norm(ctx, a, d0, d1, keepdim, requested.value_or(a.dtype), "sum");
  std::vector<bool> mask(a.sizes.size(), false);
  mask[static_cast<size_t>(d0)] = mask[static_cast<size_t>(d1)] = true;
  return vector_norm_ref(ctx, a, mask, false, keepdim, 2.0, to_real(requested.value_or(a.dtype)));
}

// linalg_matrix_norm(self, ord='fro' | number, dim=(-2, -1), keepdim, *, dtype).
void linalg_matrix_norm(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor("self");
  const std::vector<int64_t> dim = static_int_list(ctx, "dim", std::vector<SymInt>{-2, -1});
  const bool keepdim = ctx.bool_arg("keepdim");
  const std::optional<DType> requested = ctx.dtype_arg("dtype");
  if (ctx.declared_type("ord") == ArgType::Str)
    return set_tensor(ctx, matrix_norm_str(ctx, a, ctx.string_arg("ord", std::string("fro")), dim, keepdim, requested));
  set_tensor(ctx, matrix_norm_scalar(ctx, a, ctx.float_arg("ord"), dim, keepdim, requested));
}

// linalg_norm(self, ord=None, dim=None, keepdim=False, *, dtype=None) and its
// ord_str overload (C++ composite): a matrix norm when an ord is given over
// two dims (or a 2D input without dim), else the vector norm (ord 2 when
// None). OWL-ViT / OWLv2 normalize their embeddings with it.
void linalg_norm(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const bool has_dim = ctx.has("dim");
  const size_t ndims = has_dim ? ctx.int_list("dim").size() : 0;
  const bool str_ord = ctx.declared_type("ord") == ArgType::Str;
  const bool has_ord = str_ord || ctx.has("ord");
  if (has_dim && ndims != 1 && ndims != 2)
    ctx.fail(ErrorKind::InvalidArgument,
             "linalg.norm: If dim is specified, it must be of length 1 or 2. Got " + std::to_string(ndims) + " dims");
  if (!has_dim && has_ord && self.dim() != 1 && self.dim() != 2)
    ctx.fail(ErrorKind::InvalidArgument, "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got " +
                                             std::to_string(self.dim()) + "D");
  const std::optional<DType> requested = ctx.dtype_arg("dtype");
  const bool keepdim = ctx.bool_arg("keepdim");
  if (str_ord || (has_ord && (ndims == 2 || (!has_dim && self.dim() == 2)))) {
    const std::vector<int64_t> dim = has_dim ? static_int_list(ctx, "dim") : std::vector<int64_t>{0, 1};
    if (str_ord) return set_tensor(ctx, matrix_norm_str(ctx, self, ctx.string_arg("ord"), dim, keepdim, requested));
    return set_tensor(ctx, matrix_norm_scalar(ctx, self, ctx.float_arg("ord"), dim, keepdim, requested));
  }
  require_norm_input(ctx, self.dtype, requested);
  const DType dtype = to_real(requested.value_or(self.dtype));
  const double ord = has_ord ? ctx.float_arg("ord") : 2.0;
  set_tensor(ctx, vector_norm_ref(ctx, self, dims_mask(ctx, self), !has_dim, keepdim, ord, dtype));
}

// t.to(dtype) of a fresh dense tensor (a norm): its own strides, a new storage.
TensorValue converted(OpContext& ctx, const TensorValue& t, DType dtype) {
  if (t.meta.dtype == dtype) return t;
  storage_size_guards(ctx, t.meta.sizes);
  return ctx.new_tensor(t.meta.sizes, dtype, t.meta.device, t.meta.strides);
}


// _weight_norm_interface's decomposition (torch/_decomp, which FakeTensor
// runs): norm = v.norm(2, every dim but `dim`, keepdim=True, dtype=float32
// for a half or bfloat16 g, else g's) -- `dim` is not wrapped, so -1 reduces
// every dim -- or |v| when no dim is left; w = v * (g / norm.to(g.dtype)).
std::pair<TensorValue, TensorValue> weight_norm_fused(OpContext& ctx, const TensorValue& v, const TensorValue& g,
                                                      int64_t dim) {
  const DType norm_dtype = g.meta.dtype == DType::Float16 || g.meta.dtype == DType::BFloat16 ? DType::Float32
                                                                                               : g.meta.dtype;
  std::vector<bool> mask(v.meta.sizes.size());
  bool any = false;
  for (size_t i = 0; i < mask.size(); ++i) any |= mask[i] = static_cast<int64_t>(i) != dim;
  Composite c(ctx);
  TensorValue norm;
  if (any) {
    require_norm_input(ctx, v.meta.dtype, norm_dtype);
    norm = vector_norm_ref(ctx, v.meta, mask, false, true, 2.0, norm_dtype);
  } else {
    norm = converted(ctx, c.call("aten.abs.default", {Composite::tensor(v)}), norm_dtype);
  }
  const TensorValue scale =
      c.call("aten.div.Tensor", {Composite::tensor(g), Composite::tensor(converted(ctx, norm, g.meta.dtype))});
  return {c.call("aten.mul.Tensor", {Composite::tensor(v), Composite::tensor(scale)}), std::move(norm)};
}

// _weight_norm_interface(v, g, dim=0) -> (w, norm); only w is differentiable.
void weight_norm_interface(OpContext& ctx) {
  auto [w, norm] = weight_norm_fused(ctx, ctx.tensor_value("v"), ctx.tensor_value("g"),
                                     static_int(ctx, "dim"));
  set_tuple(ctx, {std::move(w), std::move(norm)});
}

// _weight_norm(v, g, dim=0), ATen's composite (WeightNorm.cpp): v and g made
// contiguous; for dim 0 or the last dim _weight_norm_interface's w, else
// v * (g / norm_except_dim(v, 2, dim)), where norm_except_dim is v.norm(2)
// for dim -1 and otherwise the norm over all but dim of v.transpose(0, dim)
// made contiguous and viewed as [size, -1], viewed back and transposed.
void weight_norm(OpContext& ctx) {
  const TensorValue& v_in = ctx.tensor_value("v");
  const TensorValue& g_in = ctx.tensor_value("g");
  if (!(v_in.meta.device == g_in.meta.device))
    ctx.fail(ErrorKind::DeviceMismatch, "weight_norm: expected v_in and g_in to be on the same device, but v_in is on " +
                                            v_in.meta.device.str() + " and g_in is on " + g_in.meta.device.str());
  const int64_t dim = static_int(ctx, "dim");
  Composite c(ctx);
  const std::string contiguous = "aten.contiguous.default";
  const TensorValue v = c.call(contiguous, {Composite::tensor(v_in)});
  const TensorValue g = c.call(contiguous, {Composite::tensor(g_in)});
  const int64_t rank = v.meta.dim();
  if (dim == 0 || dim == rank - 1) return set_tensor(ctx, weight_norm_fused(ctx, v, g, dim).first);
  const DType real = to_real(v.meta.dtype);
  require_norm_input(ctx, v.meta.dtype, std::nullopt);
  TensorValue norm;
  if (dim == -1) {
    norm = vector_norm_ref(ctx, v.meta, std::vector<bool>(v.meta.sizes.size(), true), true, false, 2.0, real);
  } else {
    const Value d0 = Value::of_int(SymInt(0)), dd = Value::of_int(SymInt(dim));
    const TensorValue t = c.call("aten.transpose.int", {Composite::tensor(v), d0, dd});
    const TensorValue flat = c.call("aten.view.default", {Composite::tensor(c.call(contiguous, {Composite::tensor(t)})),
                                                          Composite::sizes({t.meta.sizes[0], SymInt(-1)})});
    norm = vector_norm_ref(ctx, flat.meta, {false, true}, false, false, 2.0, real);
    SymShape back(static_cast<size_t>(rank), SymInt(1));
    back[0] = t.meta.sizes[0];
    norm = c.call("aten.view.default", {Composite::tensor(norm), Composite::sizes(back)});
    norm = c.call("aten.transpose.int", {Composite::tensor(norm), d0, dd});
  }
  const TensorValue scale = c.call("aten.div.Tensor", {Composite::tensor(g), Composite::tensor(norm)});
  set_tensor(ctx, c.call("aten.mul.Tensor", {Composite::tensor(v), Composite::tensor(scale)}));
}

// amax / amin(self, dim=[], keepdim=False); kOp names the op in errors.
template <const char* kOp>
void amax(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<bool> mask = dims_mask(ctx, self);
  set_tensor(ctx, ref_amax(ctx, self, mask, ctx.bool_arg("keepdim"), kOp));
}
constexpr char kMax[] = "max", kMin[] = "min", kAmax[] = "amax", kAmin[] = "amin";

// max.dim / min.dim(self, dim, keepdim=False) -> (values, indices).
template <const char* kOp>
void max_dim(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<bool> mask = reduction_mask(ctx, {static_int(ctx, "dim")}, self.dim());
  // Of symbolic sizes FakeTensor runs the Python meta (meta_max_dim), which
  // checks no dim: an unbacked reduced dim gets no assert (torch 2.15).
  if (!has_symbolic_sizes_strides(self)) check_nonempty_reduction(ctx, self, mask, kOp);
  const bool keepdim = ctx.bool_arg("keepdim");
  TensorValue values = reduction_out(ctx, self, mask, keepdim, self.dtype);
  TensorValue indices = reduction_out(ctx, self, mask, keepdim, DType::Int64);
  set_tuple(ctx, {std::move(values), std::move(indices)});
}

// max.default / min.default: a 0-dim result (the meta kernel leaves the
// empty-input check to the real kernel).
void max_all(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  set_tensor(ctx, empty_tensor(ctx, {}, self.dtype, self.device));
}

// argmax / argmin(self, dim=None, keepdim=False), as torch's meta checks them
// (check_argmax_argmin: torch._check, so an unbacked size gets a runtime
// assert; the meta names both ops "argmax").
void argmax(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const bool keepdim = ctx.bool_arg("keepdim");
  if (!ctx.has("dim")) {
    require(ctx, sym_ne(self.numel(), 0), "argmax", ErrorKind::InvalidArgument,
            "argmax: Expected reduction dim to be specified for input.numel() == 0.");
    const std::vector<bool> all = reduction_mask(ctx, {}, self.dim());
    set_tensor(ctx, reduction_out(ctx, self, all, keepdim, DType::Int64));
    return;
  }
  const int64_t dim = static_int(ctx, "dim");
  const std::vector<bool> mask = reduction_mask(ctx, {dim}, self.dim());
  if (self.dim() > 0) {
    const int64_t d = canonical_dim(dim, self.dim(), true);
    require(ctx, sym_ne(self.sizes[static_cast<size_t>(d)], 0), "argmax", ErrorKind::IndexError,
            [&] { return "argmax: Expected reduction dim " + std::to_string(d) + " to have non-zero size."; });
  }
  set_tensor(ctx, reduction_out(ctx, self, mask, keepdim, DType::Int64));
}

// any / all: bool results (uint8 stays uint8).
void any_all(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  std::vector<bool> mask = reduction_mask(ctx, {}, self.dim());
  bool keepdim = false;
  if (ctx.declares("dim")) {  // .dim / .dims
    mask = dims_mask(ctx, self);
    keepdim = ctx.bool_arg("keepdim");
  }
  set_tensor(ctx, reduction_out(ctx, self, mask, keepdim, self.dtype == DType::UInt8 ? DType::UInt8 : DType::Bool));
}

// _is_all_true / _is_any_true(self): what torch.export records for
// torch._check(t.all()) (HF VITS checks its spline inputs' range so), then
// item(). ATen's composite asserts a bool self and returns self.all() (or
// any()): a 0-dim bool.
void is_all_or_any_true(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dtype != DType::Bool)
    ctx.fail(ErrorKind::TypeError, ctx.target() + ": self.scalar_type() == at::kBool INTERNAL ASSERT FAILED");
  set_tensor(ctx, empty_tensor(ctx, {}, DType::Bool, self.device));
}

// var / std.correction(self, dim=None, *, correction, keepdim): real dtype;
// var_mean / std_mean (kWithMean) also return the mean.
template <bool kWithMean>
void var(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (!is_floating(self.dtype) && !is_complex(self.dtype))
    ctx.fail(ErrorKind::TypeError, "std and var only support floating point and complex dtypes");
  std::vector<bool> mask = reduction_mask(ctx, {}, self.dim());
  bool keepdim = false;
  if (ctx.declares("dim")) {  // .correction / .dim; .default reduces every dim
    mask = dims_mask(ctx, self);
    keepdim = ctx.bool_arg("keepdim");
  }
  TensorValue out = strided_reduction_out(ctx, self, mask, keepdim, to_real(self.dtype));
  if (kWithMean) {
    TensorValue m = reduction_out(ctx, self, mask, keepdim, self.dtype);
    set_tuple(ctx, {std::move(out), std::move(m)});
    return;
  }
  set_tensor(ctx, std::move(out));
}

// logsumexp(self, dim, keepdim): integral inputs give the default float. Of
// symbolic sizes its ref asks: maxes = amax(self, dim, keepdim=True), then
// maxes.abs() (prims.abs), self - maxes (fast_binary_impl) and the sum.
void logsumexp(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<bool> mask = dims_mask(ctx, self);
  const DType dtype = is_integral(self.dtype, true) ? DType::Float32 : self.dtype;
  if (has_symbolic_sizes_strides(self)) {
    const TensorValue maxes = ref_amax(ctx, self, mask, true, "amax");
    prim_elementwise_guards(ctx, maxes.meta);
    (void)fast_binary_meta(ctx, self, maxes.meta);
  }
  set_tensor(ctx, strided_reduction_out(ctx, self, mask, ctx.bool_arg("keepdim"), dtype));
}

// What torch's _log_softmax decomposition asks of symbolic sizes: x.contiguous(),
// whether the dim is non-empty (guard_or_false), x_max = amax(x, dim,
// keepdim=True), shifted = x - x_max, the sum of exp(shifted) with keepdim,
// and shifted minus its log.
void log_softmax_decomposition_guards(OpContext& ctx, const TensorMeta& self, int64_t dim) {
  TensorMeta x = self;
  if (!is_contiguous_or_false(x, ctx.env())) x.strides = contiguous_strides(x.sizes, &ctx.env());
  const std::vector<bool> mask = reduction_mask(ctx, {dim}, x.dim());
  TensorMeta x_max;
  if (x.dim() == 0 || guard_or_false(ctx, sym_gt(x.sizes[static_cast<size_t>(dim)], 0), "_softmax_unbacked_safe_amax"))
    x_max = ref_amax(ctx, x, mask, true, "amax").meta;
  else
    x_max = reduction_out(ctx, x, mask, true, x.dtype).meta;  // amax over x padded with -inf
  const TensorMeta shifted = fast_binary_meta(ctx, x, x_max);
  const TensorValue lse = strided_reduction_out(ctx, shifted, mask, true, shifted.dtype);
  (void)fast_binary_meta(ctx, shifted, lse.meta);
}

// _softmax / _log_softmax (kLog)(self, dim, half_to_float): contiguous output.
template <bool kLog>
void softmax_internal(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const bool half_to_float = ctx.bool_arg("half_to_float");
  if (kLog && has_symbolic_sizes_strides(self))
    log_softmax_decomposition_guards(ctx, self, dim);
  set_tensor(ctx, empty_tensor(ctx, self.sizes, half_to_float ? DType::Float32 : self.dtype, self.device));
}

// softmax.int / log_softmax.int(self, dim, dtype=None): composite, they reach
// FakeTensor as _softmax / _log_softmax.
template <bool kLog>
void softmax_public(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  if (kLog && has_symbolic_sizes_strides(self))
    log_softmax_decomposition_guards(ctx, self, dim);
  const DType dtype = ctx.dtype_arg("dtype").value_or(self.dtype);
  set_tensor(ctx, empty_tensor(ctx, self.sizes, dtype, self.device));
}

// What torch's cumsum / cumprod ref (_cumsumprod_common) asks of symbolic
// sizes: a.unsqueeze(dim + 1); a [n, n] mask rg.unsqueeze(1) <= rg of
// rg = arange(n), n = a.size(dim), unsqueezed to a's rank (prims.le, then
// broadcast_in_dim); where(mask, a, init) (prims.where); the sum or prod over dim.
// Returns the result's sizes: the mask, expanded to the refs' common shape,
// gives where's shape, so a size that is 1 at its hint becomes the literal 1
// (falcon_h1's SSM chunk count, (s + pad)//256 at s = 16).
SymShape cumulative_ref_sizes(OpContext& ctx, const TensorMeta& self, int64_t dim) {
  const auto d = static_cast<size_t>(dim);
  TensorMeta a = self;  // a.unsqueeze(dim + 1)
  broadcast_in_dim_guards(ctx, a.sizes);
  const SymInt inner =
      d + 1 == self.sizes.size() ? SymInt(1) : simplified(ctx, self.sizes[d + 1] * self.strides[d + 1]);
  a.sizes.insert(a.sizes.begin() + dim + 1, SymInt(1));
  a.strides.insert(a.strides.begin() + dim + 1, inner);
  const SymInt n = self.sizes[d];
  TensorMeta rg;  // arange(n)
  rg.sizes = {n};
  rg.strides = {1};
  rg.device = self.device;
  broadcast_in_dim_guards(ctx, rg.sizes);  // rg.unsqueeze(1)
  TensorMeta rg_col = rg;
  rg_col.sizes = {n, 1};
  rg_col.strides = {1, 1};
  TensorMeta mask;  // rg.unsqueeze(1) <= rg
  mask.device = self.device;
  mask.dtype = DType::Bool;
  mask.sizes = broadcast_shapes(rg_col.sizes, rg.sizes, ctx.env());
  broadcast_in_dim_guards(ctx, rg_col.sizes);
  const TensorMeta* le_operands[] = {&rg_col, &rg};
  mask.strides = prim_elementwise_strides(ctx, le_operands, mask.sizes);
  for (size_t k = d + 1; k < self.sizes.size(); ++k) {  // mask.unsqueeze(-1)
    broadcast_in_dim_guards(ctx, mask.sizes);
    mask.sizes.push_back(1);
    mask.strides.push_back(1);
  }
  TensorMeta masked = a;  // where(mask, a, init)
  const SymShape where_shapes[] = {mask.sizes, a.sizes};
  masked.sizes = simplified(ctx, ref_elementwise_shape(where_shapes, {}, ctx.env()));
  broadcast_in_dim_guards(ctx, mask.sizes);
  broadcast_in_dim_guards(ctx, a.sizes);
  const TensorMeta* where_operands[] = {&mask, &a};
  masked.strides = prim_elementwise_strides(ctx, where_operands, masked.sizes);
  (void)strided_reduction_out(ctx, masked, reduction_mask(ctx, {dim}, masked.dim()), false, masked.dtype);
  SymShape out = masked.sizes;
  out.erase(out.begin() + dim);
  return out;
}

// cumsum / cumprod(self, dim, *, dtype): integral inputs accumulate in int64.
void cumulative(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  const bool ref = self.dim() > 0 && has_symbolic_sizes_strides(self);
  TensorValue out = empty_tensor(ctx, ref ? cumulative_ref_sizes(ctx, self, dim) : self.sizes, sum_dtype(ctx, self),
                                 self.device);
  set_tensor(ctx, std::move(out));
}

// kthvalue(self, k, dim=-1, keepdim) / median.dim / mode (self, dim, keepdim) -> (values, indices).
void select_along_dim(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const bool kth = ctx.declares("k");
  const int64_t dim = dim_arg(ctx, "dim", self.dim());
  if (kth) {
    // kthvalue_meta: torch._check(k >= 1 and k <= size), a guard on a backed
    // size and a runtime assert on an unbacked one (u >= 1 for k = 1).
    const SymInt k = ctx.int_arg("k");
    const SymInt size = self.dim() > 0 ? self.sizes[static_cast<size_t>(dim)] : SymInt(1);
    // An int k makes Python ask size.__ge__(k): u0 >= 1, as torch prints it.
    const SymBool upper = k.is_static() ? sym_ge(size, k) : sym_le(k, size);
    require(ctx, sym_and(sym_ge(k, 1), upper), "kthvalue", ErrorKind::IndexError,
            [&] { return "kthvalue(): selected number k out of range for dimension " + std::to_string(dim); });
  }
  const std::vector<bool> mask = reduction_mask(ctx, {dim}, self.dim());
  const bool keepdim = ctx.bool_arg("keepdim");
  set_tuple(ctx, {reduction_out(ctx, self, mask, keepdim, self.dtype), reduction_out(ctx, self, mask, keepdim, DType::Int64)});
}

// median.default / nanmedian.default: a 0-dim result.
void median_all(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  set_tensor(ctx, empty_tensor(ctx, {}, self.dtype, self.device));
}

// cummax / cummin(self, dim) -> (values, indices); logcumsumexp(self, dim).
void cummax(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  (void)dim_arg(ctx, "dim", self.dim());
  set_tuple(ctx, {empty_tensor(ctx, self.sizes, self.dtype, self.device),
                  empty_tensor(ctx, self.sizes, DType::Int64, self.device)});
}
void logcumsumexp(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  (void)dim_arg(ctx, "dim", self.dim());
  set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, self.device));
}

// count_nonzero(self, dim=None) / count_nonzero.dim_IntList(self, dim): an
// int64 count with the dims removed (every dim when none is given).
void count_nonzero_dims(OpContext& ctx, const TensorMeta& self, const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (canonical_dim(dims[i], self.dim()) == canonical_dim(dims[j], self.dim()))
        ctx.fail(ErrorKind::InvalidArgument, "duplicate value in the list of dims");
  set_tensor(ctx, reduction_out(ctx, self, reduction_mask(ctx, dims, self.dim()), false, DType::Int64));
}
void count_nonzero(OpContext& ctx) {  // int? dim=None
  const TensorMeta& self = ctx.tensor("self");
  std::vector<int64_t> dims;
  if (ctx.has("dim")) dims = {static_int(ctx, "dim")};
  count_nonzero_dims(ctx, self, dims);
}
void count_nonzero_list(OpContext& ctx) {  // int[] dim
  const TensorMeta& self = ctx.tensor("self");
  count_nonzero_dims(ctx, self, static_int_list(ctx, "dim"));
}

}  // namespace

// histc(self, bins=100, min=0, max=0): a contiguous [bins] tensor of
// self's dtype (floating only); not differentiable.
void histc(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t bins = static_int(ctx, "bins");
  if (bins <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "torch.histc(): bins must be > 0, but got " + std::to_string(bins));
  if (!is_floating(self.dtype))
    ctx.fail(ErrorKind::NotImplemented, "\"histogram_cpu\" not implemented for '" +
                                            std::string(dtype_c10_name(self.dtype)) + "'");
  set_tensor(ctx, empty_tensor(ctx, {SymInt(bins)}, self.dtype, self.device));
}

// bucketize.Tensor(self, boundaries, *, out_int32=False, right=False): the
// bucket index of every element, contiguous, int64 (int32 with out_int32).
void bucketize(OpContext& ctx) {
  const TensorMeta& boundaries = ctx.tensor("boundaries");
  if (boundaries.dim() != 1)
    ctx.fail(ErrorKind::InvalidArgument, "boundaries tensor must be 1 dimension, but got dim(" +
                                             std::to_string(boundaries.dim()) + ")");
  const DType dtype = ctx.bool_arg("out_int32") ? DType::Int32 : DType::Int64;
  const Value& self = ctx.value("self");
  if (self.is_tensor()) {
    const TensorMeta& s = self.tensor->meta;
    set_tensor(ctx, empty_tensor(ctx, s.sizes, dtype, s.device));
  } else {
    set_tensor(ctx, empty_tensor(ctx, {}, dtype, boundaries.device));
  }
}

void register_reduction_ops(OpRegistry& r) {
  r.add("aten.linalg_vector_norm.default", linalg_vector_norm);
  r.add("aten.linalg_norm.default", linalg_norm);
  r.add("aten.linalg_norm.ord_str", linalg_norm);
  r.add("aten.linalg_matrix_norm.default", linalg_matrix_norm);
  r.add("aten.linalg_matrix_norm.str_ord", linalg_matrix_norm);
  r.add("aten._weight_norm_interface.default", weight_norm_interface, OutputGrad::first_only());
  r.add("aten._weight_norm.default", weight_norm);
  r.add("aten.sum.dim_IntList", sum);
  r.add("aten.sum.default", sum);
  r.add("aten.count_nonzero.default", count_nonzero);
  r.add("aten.count_nonzero.dim_IntList", count_nonzero_list);
  r.add("aten.prod.default", prod);
  r.add("aten.prod.dim_int", prod);
  r.add("aten.mean.dim", mean);
  r.add("aten.mean.default", mean);
  r.add("aten.amax.default", amax<kAmax>);
  r.add("aten.amin.default", amax<kAmin>);
  r.add("aten.max.dim", max_dim<kMax>);
  r.add("aten.min.dim", max_dim<kMin>);
  r.add("aten.max.default", max_all);
  r.add("aten.min.default", max_all);
  r.add("aten.argmax.default", argmax);
  r.add("aten.histc.default", histc, OutputGrad::none());
  r.add("aten.bucketize.Tensor", bucketize);
  r.add("aten.argmin.default", argmax);
  for (const char* name : {"aten.any.default", "aten.any.dim", "aten.any.dims", "aten.all.default", "aten.all.dim",
                           "aten.all.dims"})
    r.add(name, any_all);
  r.add("aten._is_all_true.default", is_all_or_any_true, OutputGrad::none());
  r.add("aten._is_any_true.default", is_all_or_any_true, OutputGrad::none());
  for (const char* name : {"aten.var.correction", "aten.var.default", "aten.var.dim", "aten.std.correction",
                           "aten.std.default", "aten.std.dim"})
    r.add(name, var<false>);
  r.add("aten.var_mean.correction", var<true>);
  r.add("aten.std_mean.correction", var<true>);
  r.add("aten.logsumexp.default", logsumexp);
  r.add("aten._softmax.default", softmax_internal<false>);
  r.add("aten._log_softmax.default", softmax_internal<true>);
  r.add("aten.softmax.int", softmax_public<false>);
  r.add("aten.log_softmax.int", softmax_public<true>);
  r.add("aten.cumsum.default", cumulative);
  r.add("aten.cumprod.default", cumulative);
  r.add("aten.kthvalue.default", select_along_dim);
  r.add("aten.median.dim", select_along_dim);
  r.add("aten.nanmedian.dim", select_along_dim);
  r.add("aten.mode.default", select_along_dim);
  r.add("aten.median.default", median_all);
  r.add("aten.nanmedian.default", median_all);
  r.add("aten.cummax.default", cummax);
  r.add("aten.cummin.default", cummax);
  r.add("aten.logcumsumexp.default", logcumsumexp);
}

}  // namespace fakeprop::fx::ops
