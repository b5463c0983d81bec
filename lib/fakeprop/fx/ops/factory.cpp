// Factory ops (empty, zeros, ones, full, arange, linspace, logspace, *_like, new_*) and copies
// (clone, contiguous, _to_copy, copy_).
#include <cmath>

#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"
#include "fakeprop/sym/python_float.h"

namespace fakeprop::fx::ops {

namespace {

DType dtype_or(OpContext& ctx, DType dflt) { return ctx.dtype_arg("dtype").value_or(dflt); }
Device device_or(OpContext& ctx, Device dflt) { return ctx.device_arg("device").value_or(dflt); }

// zeros / ones / full declare no memory_format; empty.memory_format's is None.
MemoryFormat factory_format(OpContext& ctx) {
  if (!ctx.declares("memory_format")) return MemoryFormat::Contiguous;
  const MemoryFormat f = ctx.memory_format_arg("memory_format").value_or(MemoryFormat::Contiguous);
  if (f == MemoryFormat::Preserve)
    ctx.fail(ErrorKind::InvalidArgument, "Unsupported memory format torch.preserve_format for " + ctx.target());
  return f;
}

// empty / zeros / ones / rand / randn (size first).
void factory(OpContext& ctx) {
  SymShape size = ctx.int_list("size");
  check_size_nonnegative(ctx, size);
  set_tensor(ctx, empty_tensor(ctx, std::move(size), dtype_or(ctx, DType::Float32), device_or(ctx, ctx.device()),
                               factory_format(ctx)));
}

// full(size, fill_value): without dtype=, the fill value's kind picks it
// (bool, int64, or the default float), as torch.full does.
void full(OpContext& ctx) {
  SymShape size = ctx.int_list("size");
  check_size_nonnegative(ctx, size);
  DType inferred = DType::Float32;
  switch (ctx.scalar_arg("fill_value").kind) {
    case Scalar::Kind::Bool: inferred = DType::Bool; break;
    case Scalar::Kind::Int: inferred = DType::Int64; break;
    default: break;
  }
  set_tensor(ctx, empty_tensor(ctx, std::move(size), dtype_or(ctx, inferred), device_or(ctx, ctx.device()),
                               factory_format(ctx)));
}

void empty_strided_op(OpContext& ctx) {
  SymShape size = ctx.int_list("size");
  SymShape stride = ctx.int_list("stride");
  if (size.size() != stride.size())
    ctx.fail(ErrorKind::InvalidArgument, "mismatch in length of strides and shape");
  check_size_nonnegative(ctx, size);
  set_tensor(ctx, ops::empty_strided(ctx, std::move(size), std::move(stride), dtype_or(ctx, DType::Float32),
                                device_or(ctx, ctx.device())));
}

// eye(n) / eye.m(n, m): an n x m matrix; ATen's meta checks both >= 0.
void eye(OpContext& ctx) {
  const SymInt n = ctx.int_arg("n");
  const SymInt m = ctx.declares("m") ? ctx.int_arg("m") : n;  // eye.m / eye.default
  // No structured binding: clang 14 (the sanitizer build) cannot capture one.
  for (const std::pair<SymInt, const char*>& arg : {std::pair<SymInt, const char*>{n, "n"}, {m, "m"}})
    require(ctx, sym_ge(arg.first, 0), "eye", ErrorKind::InvalidArgument,
            [&] { return std::string(arg.second) + " must be greater or equal to 0, got " + text(arg.first); });
  set_tensor(ctx, empty_tensor(ctx, {n, m}, dtype_or(ctx, DType::Float32), device_or(ctx, ctx.device())));
}

void scalar_tensor(OpContext& ctx) {
  (void)ctx.scalar_arg("s");
  set_tensor(ctx, empty_tensor(ctx, {}, dtype_or(ctx, DType::Float32), device_or(ctx, ctx.device())));
}

// linspace / logspace (start, end, int steps[, base]): a contiguous 1-D
// tensor of `steps` values. steps is an `int` in ATen's schema, so a symbolic
// one is specialized; a complex Scalar bound makes the default dtype complex
// (torch._refs.linspace; a complex 0-d Tensor bound does not, measured);
// Tensor bounds must be 0-d (ATen's RangeFactories). kName names the op in
// errors; the overload's declared types say which bounds are tensors.
constexpr char kLinspace[] = "linspace", kLogspace[] = "logspace";
template <const char* kName>
void linspace_like(OpContext& ctx) {
  const std::string_view name = kName;
  const bool tensor_start = ctx.declared_type("start") == ArgType::Tensor;
  const bool tensor_end = ctx.declared_type("end") == ArgType::Tensor;
  bool complex = false;
  int64_t start_dim = 0, end_dim = 0;
  if (tensor_start) {
    const TensorMeta& s = ctx.tensor("start");
    start_dim = s.dim();
  } else {
    complex = ctx.scalar_arg("start").kind == Scalar::Kind::Complex;
  }
  if (tensor_end) {
    const TensorMeta& e = ctx.tensor("end");
    end_dim = e.dim();
  } else {
    complex = complex || ctx.scalar_arg("end").kind == Scalar::Kind::Complex;
  }
  if (start_dim != 0 || end_dim != 0)
    ctx.fail(ErrorKind::InvalidArgument, std::string(name) + " only supports 0-dimensional start and end tensors, but got start with " +
                                             std::to_string(start_dim) + " dimension(s) and end with " +
                                             std::to_string(end_dim) + " dimension(s).");
  const int64_t steps = static_int(ctx, "steps");
  if (steps < 0) ctx.fail(ErrorKind::InvalidArgument, "number of steps must be non-negative");
  const DType dtype = dtype_or(ctx, complex ? DType::Complex64 : DType::Float32);
  set_tensor(ctx, empty_tensor(ctx, {SymInt(steps)}, dtype, device_or(ctx, ctx.device())));
}

// empty_like / zeros_like / ones_like / full_like / rand_like / randn_like.
void like(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  TensorMeta base = self;
  base.device = device_or(ctx, self.device);
  set_tensor(ctx, empty_permuted_like(ctx, base, ctx.dtype_arg("dtype"), ctx.memory_format_arg("memory_format")));
}

// new_empty / new_zeros / new_ones / new_full: contiguous, self's dtype and device by default.
void new_factory(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  SymShape size = ctx.int_list("size");
  check_size_nonnegative(ctx, size);
  set_tensor(ctx, empty_tensor(ctx, std::move(size), dtype_or(ctx, self.dtype), device_or(ctx, self.device)));
}

void new_empty_strided(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  SymShape size = ctx.int_list("size");
  SymShape stride = ctx.int_list("stride");
  if (size.size() != stride.size()) ctx.fail(ErrorKind::InvalidArgument, "mismatch in length of strides and shape");
  check_size_nonnegative(ctx, size);
  set_tensor(ctx, ops::empty_strided(ctx, std::move(size), std::move(stride), dtype_or(ctx, self.dtype),
                                device_or(ctx, self.device)));
}

// arange(end) / arange(start, end) / arange(start, end, step): int64 when
// every bound is an integer, else the default float dtype.
void arange(OpContext& ctx) {
  const bool has_start = ctx.declares("start");
  const bool has_step = ctx.declares("step");
  const Value start_v = has_start ? ctx.value("start") : Value::of_int(0);
  const Value end_v = ctx.value("end");
  const Value step_v = has_step && ctx.has("step") ? ctx.value("step") : Value::of_int(1);
  auto is_int = [](const Value& v) { return v.kind == Value::Kind::Int || v.kind == Value::Kind::Bool; };
  const bool all_int = is_int(start_v) && is_int(end_v) && is_int(step_v);
  const DType dtype = dtype_or(ctx, all_int ? DType::Int64 : DType::Float32);
  SymInt length;
  if (all_int) {
    auto as_int = [](const Value& v) { return v.kind == Value::Kind::Int ? v.i : SymInt(v.b.value() ? 1 : 0); };
    const SymInt start = as_int(start_v), end = as_int(end_v), step = as_int(step_v);
    // torch._refs.arange: torch._check(step != 0), `if step > 0` (a guard),
    // then torch._check of the bounds (a runtime assert on an unbacked one:
    // arange(u0) asserts u0 >= 0), and (end - start + step - sgn) // step.
    require(ctx, sym_ne(step, 0), "arange", ErrorKind::InvalidArgument, "step must be nonzero");
    const bool up = decide(ctx, sym_gt(step, 0), "arange");
    require(ctx, up ? sym_ge(end, start) : sym_le(end, start), "arange", ErrorKind::InvalidArgument,
            "upper bound and larger bound inconsistent with step sign");
    length = simplified(ctx, floordiv(end - start + step - (up ? 1 : -1), step));
  } else {
    // torch._refs.arange: math.ceil((end - start) / step) in Python's
    // arithmetic, so a float bound over sizes stays an expression.
    auto expr_of = [&](const Value& v) -> ExprRef {
      if (v.kind == Value::Kind::Float) return v.float_expr ? v.float_expr : float_const(v.f);
      if (v.kind == Value::Kind::Int) return v.i.expr();
      if (v.kind == Value::Kind::Bool && v.b.is_static()) return integer(v.b.value() ? 1 : 0);
      ctx.fail(ErrorKind::TypeError, "arange bounds must be numbers");
    };
    const ExprRef start = expr_of(start_v), end = expr_of(end_v), step = expr_of(step_v);
    // torch._check(step != 0), then `if step > 0` (a guard), then torch._check
    // of the bounds: on an unbacked bound (item()) a runtime assert.
    if (!ctx.env().expect_true(SymBool(ne(step, integer(0))), "arange"))
      ctx.fail(ErrorKind::InvalidArgument, "step must be nonzero");
    const bool up = decide(ctx, SymBool(gt(step, integer(0))), "arange");
    if (!ctx.env().expect_true(SymBool(up ? ge(end, start) : le(end, start)), "arange"))
      ctx.fail(ErrorKind::InvalidArgument, "upper bound and larger bound inconsistent with step sign");
    for (ExprRef bound : {start, end, step})
      if (auto c = as_float(bound); c && !std::isfinite(*c))
        ctx.fail(ErrorKind::InvalidArgument, bound == step ? "step must be finite but got " + python_float_repr(*c)
                                                           : "unsupported range: " + to_python_string(start) + " -> " +
                                                                 to_python_string(end));
    const ExprRef diff = start->is_float() || end->is_float() ? float_sub(end, start) : sub(end, start);
    length = simplified(ctx, SymInt(ceil_to_int(true_div(diff, step))));
    // The allocation's size check: a guard, as torch records it, when the
    // float bounds leave the sign open.
    if (!ctx.env().expect_true(sym_ge(length, 0), "arange"))
      ctx.fail(ErrorKind::InvalidArgument, "arange: invalid number of elements");
  }
  set_tensor(ctx, empty_tensor(ctx, {length}, dtype, device_or(ctx, ctx.device())));
}

// clone and _to_copy with the preserve format. Of symbolic sizes torch runs
// them through the prims (_clone_meta, _convert_element_type_meta): a dense
// input, asked in Python (is_non_overlapping_and_dense_or_false), keeps its
// strides, and the copy is allocated with empty_strided; the C++ path of
// static sizes asks nothing. Either way the strides are empty_like's.
TensorValue preserved_copy(OpContext& ctx, const TensorMeta& like, std::optional<DType> dtype) {
  const bool symbolic = std::any_of(like.sizes.begin(), like.sizes.end(), [](const SymInt& d) { return d.is_symbolic(); });
  if (symbolic && is_non_overlapping_and_dense_or_false(like, ctx.env())) {
    TensorValue out = ctx.new_tensor(like.sizes, dtype.value_or(like.dtype), like.device, like.strides);
    storage_size_guards(ctx, out.meta.sizes);
    return out;
  }
  TensorValue out = empty_like(ctx, like, dtype, MemoryFormat::Preserve);
  if (symbolic) storage_size_guards(ctx, out.meta.sizes);
  return out;
}

void clone(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::optional<MemoryFormat> f = ctx.memory_format_arg("memory_format");
  if (f.value_or(MemoryFormat::Preserve) == MemoryFormat::Preserve) return set_tensor(ctx, preserved_copy(ctx, self, std::nullopt));
  set_tensor(ctx, empty_like(ctx, self, std::nullopt, f));
}

// lift_fresh_copy(self): a constant lifted into the graph, copied; fake
// tensors give a contiguous copy whatever self's layout.
void lift_fresh_copy(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, self.device));
}

// contiguous: self itself when already laid out so, else a copy.
void contiguous(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const MemoryFormat f = ctx.memory_format_arg("memory_format").value_or(MemoryFormat::Contiguous);
  if (f == MemoryFormat::Preserve)
    ctx.fail(ErrorKind::InvalidArgument, "preserve memory format is unsupported by the contiguous operator");
  const bool already = f == MemoryFormat::Contiguous ? is_contiguous(self, ctx.env())
                                                     : (self.dim() == (f == MemoryFormat::ChannelsLast ? 4 : 5) &&
                                                        is_channels_last_contiguous(self, ctx.env()));
  if (already) {
    set_tensor(ctx, same_view(ctx, self));
    return;
  }
  set_tensor(ctx, empty_like(ctx, self, std::nullopt, f));
}

// _to_copy(self, *, dtype, layout, device, pin_memory, non_blocking, memory_format).
void to_copy(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  TensorMeta base = self;
  base.device = device_or(ctx, self.device);
  const std::optional<MemoryFormat> f = ctx.memory_format_arg("memory_format");
  if (f.value_or(MemoryFormat::Preserve) == MemoryFormat::Preserve)
    return set_tensor(ctx, preserved_copy(ctx, base, ctx.dtype_arg("dtype")));
  set_tensor(ctx, empty_like(ctx, base, ctx.dtype_arg("dtype"), f));
}

// prims.convert_element_type(a, dtype) (AOTAutograd's decompositions emit
// it): _convert_element_type_meta keeps a's strides when a is dense
// (is_non_overlapping_and_dense_or_false), else compute_elementwise_output_strides;
// TensorMeta then allocates through empty_strided.
void convert_element_type(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor("a");
  const std::optional<DType> dtype = ctx.dtype_arg("dtype");
  if (!dtype) ctx.fail(ErrorKind::InvalidArgument, "convert_element_type expects a dtype");
  SymShape strides;
  if (is_non_overlapping_and_dense_or_false(a, ctx.env())) {
    strides = a.strides;
  } else {
    const TensorMeta* operands[] = {&a};
    strides = prim_elementwise_strides(ctx, operands, a.sizes);
  }
  storage_size_guards(ctx, a.sizes);
  set_tensor(ctx, ctx.new_tensor(a.sizes, *dtype, a.device, std::move(strides)));
}

// copy_(self, src): src broadcasts into self; the result is self.
void copy_inplace(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& src = ctx.tensor("src");
  if (overlaps_itself(ctx, self))
    ctx.fail(ErrorKind::InvalidArgument,
             "more than one element of the written-to tensor refers to a single memory location");
  const SymShape shape = broadcast_shapes(self.sizes, src.sizes, ctx.env());
  bool same = shape.size() == self.sizes.size();
  for (size_t i = 0; same && i < shape.size(); ++i) same = same_size(ctx, shape[i], self.sizes[i], "copy_");
  if (!same)
    ctx.fail(ErrorKind::ShapeMismatch, "output with shape " + text(self.sizes) + " doesn't match the broadcast shape " +
                                           text(shape));
  set_tensor(ctx, same_view(ctx, self));
}

// fill.Scalar / fill.Tensor (out of place): like self.
void fill(OpContext& ctx) { set_tensor(ctx, empty_permuted_like(ctx, ctx.tensor("self"))); }
void fill_inplace(OpContext& ctx) { set_tensor(ctx, same_view(ctx, ctx.tensor("self"))); }

// to.dtype / to.device / to.dtype_layout / to.other (CompositeImplicit, in
// pre-dispatch graphs): self itself when nothing changes and no copy is
// asked, else _to_copy.
void to(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  std::optional<DType> dtype;
  std::optional<Device> device;
  if (ctx.declares("other")) {  // to.other; type_as(self, other) is self.to(other)
    const TensorMeta& other = ctx.tensor("other");
    dtype = other.dtype;
    device = other.device;
  } else {  // to.dtype (no device), to.device, to.dtype_layout
    if (ctx.declares("device")) device = ctx.device_arg("device");
    dtype = ctx.dtype_arg("dtype");
  }
  // type_as declares neither copy nor memory_format.
  const bool copy = ctx.declares("copy") && ctx.bool_arg("copy");
  const std::optional<MemoryFormat> format =
      ctx.declares("memory_format") ? ctx.memory_format_arg("memory_format") : std::nullopt;
  // to_will_alias: nothing changes, and the format is preserve or the one self suggests.
  const bool same = dtype.value_or(self.dtype) == self.dtype && device.value_or(self.device) == self.device &&
                    (!format || *format == MemoryFormat::Preserve || *format == suggest_memory_format(self, ctx.env()));
  if (same && !copy) {
    set_tensor(ctx, same_view(ctx, self));
    return;
  }
  TensorMeta base = self;
  base.device = device.value_or(self.device);
  set_tensor(ctx, empty_like(ctx, base, dtype, format));
}

// randint(high, size) / randint.low(low, high, size): int64 by default.
void randint(OpContext& ctx) {
  SymShape size = ctx.int_list("size");
  check_size_nonnegative(ctx, size);
  // The schema's default, ScalarType 4, is int64.
  set_tensor(ctx, empty_tensor(ctx, std::move(size), dtype_or(ctx, DType::Int64), device_or(ctx, ctx.device())));
}

// randperm(n): [n] int64.
void randperm(OpContext& ctx) {
  const SymInt n = ctx.int_arg("n");
  if (n.is_static() && n.value() < 0) ctx.fail(ErrorKind::InvalidArgument, "n must be non-negative, got" + text(n));
  set_tensor(ctx, empty_tensor(ctx, {n}, dtype_or(ctx, DType::Int64), device_or(ctx, ctx.device())));
}

// bernoulli(self[, p]): empty_like(self, LEGACY_CONTIGUOUS_MEMORY_FORMAT).
void random_like(OpContext& ctx) {
  set_tensor(ctx, empty_like(ctx, ctx.tensor("self"), std::nullopt, MemoryFormat::Contiguous));
}

// multinomial(self, num_samples, replacement): [*, num_samples] int64.
void multinomial(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() < 1 || self.dim() > 2) ctx.fail(ErrorKind::InvalidArgument, "prob_dist must be 1 or 2 dim");
  SymShape out(self.sizes.begin(), self.sizes.end() - 1);
  out.push_back(ctx.int_arg("num_samples"));
  set_tensor(ctx, empty_tensor(ctx, out, DType::Int64, self.device));
}

// copy(self, src, non_blocking=False): the functional copy_. torch 2.x's
// FakeTensor runs ATen's kernel, clone_preserve_strides(self) then copy_(src).
// src must broadcast to self.
void copy_functional(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& src = ctx.tensor("src");
  const SymShape b = broadcast_shapes(self.sizes, src.sizes, ctx.env());
  bool same = b.size() == self.sizes.size();
  for (size_t i = 0; same && i < b.size(); ++i) same = same_size(ctx, b[i], self.sizes[i], "copy broadcast");
  if (!same)
    ctx.fail(ErrorKind::ShapeMismatch, "The size of tensor a (" + text(self.sizes) +
                                           ") must match the broadcast shape " + text(b));
  set_tensor(ctx, clone_preserve_strides(ctx, self));
}

}  // namespace

// randint_like(self, high) / (self, low, high): self's metadata (dtype
// defaults to self's, not int64). PyTorch (1.13 and 2.15 alike, ops_grad.json)
// marks the result requires_grad when self does (no output_differentiability
// entry), so it keeps the default OutputGrad, unlike the other *_like factories.
void randint_like(OpContext& ctx) { like(ctx); }

void register_factory_ops(OpRegistry& r) {
  for (const char* name : {"aten.empty.memory_format", "aten.zeros.default", "aten.ones.default",
                           "aten.rand.default", "aten.randn.default"})
    r.add(name, factory);
  r.add("aten.full.default", full);
  r.add("aten.empty_strided.default", empty_strided_op);
  r.add("aten.scalar_tensor.default", scalar_tensor);
  r.add("aten.eye.default", eye);
  r.add("aten.eye.m", eye);
  for (const char* name : {"aten.empty_like.default", "aten.zeros_like.default", "aten.ones_like.default",
                           "aten.full_like.default", "aten.rand_like.default", "aten.randn_like.default"})
    r.add(name, like, OutputGrad::none());  // factories: take metadata, not autograd history
  for (const char* name : {"aten.new_empty.default", "aten.new_zeros.default", "aten.new_ones.default",
                           "aten.new_full.default"})
    r.add(name, new_factory, OutputGrad::none());
  r.add("aten.new_empty_strided.default", new_empty_strided, OutputGrad::none());
  r.add("aten.randint_like.default", randint_like);
  r.add("aten.arange.default", arange);
  r.add("aten.arange.start", arange);
  r.add("aten.arange.start_step", arange);
  for (const char* name : {"aten.linspace.default", "aten.linspace.Tensor_Tensor", "aten.linspace.Tensor_Scalar",
                           "aten.linspace.Scalar_Tensor"})
    r.add(name, linspace_like<kLinspace>, OutputGrad::none());
  for (const char* name : {"aten.logspace.default", "aten.logspace.Tensor_Tensor", "aten.logspace.Tensor_Scalar",
                           "aten.logspace.Scalar_Tensor"})
    r.add(name, linspace_like<kLogspace>, OutputGrad::none());
  r.add("aten.clone.default", clone);
  r.add("aten.lift_fresh_copy.default", lift_fresh_copy);
  r.add("aten.contiguous.default", contiguous);
  r.add("aten._to_copy.default", to_copy);
  r.add("prims.convert_element_type.default", convert_element_type);
  r.add_inplace("aten.copy_.default", copy_inplace);
  r.add("aten.fill.Scalar", fill);
  r.add("aten.fill.Tensor", fill);
  r.add_inplace("aten.fill_.Scalar", fill_inplace);
  r.add_inplace("aten.fill_.Tensor", fill_inplace);
  r.add_inplace("aten.zero_.default", fill_inplace);
  for (const char* name : {"aten.to.dtype", "aten.to.device", "aten.to.other", "aten.to.dtype_layout",
                           "aten.type_as.default"})
    r.add(name, to);
  r.add("aten.randint.default", randint);
  r.add("aten.randint.low", randint);
  r.add("aten.randperm.default", randperm);
  r.add("aten.bernoulli.default", random_like);
  r.add("aten.bernoulli.p", random_like);
  r.add("aten.multinomial.default", multinomial);
  // In-place random fills return self.
  for (const char* name : {"aten.uniform_.default", "aten.normal_.default", "aten.bernoulli_.float",
                           "aten.exponential_.default", "aten.random_.default", "aten.random_.from", "aten.random_.to"})
    r.add_inplace(name, fill_inplace);
  r.add("aten.copy.default", copy_functional);
}

}  // namespace fakeprop::fx::ops
