// Pointwise ATen ops: unary, binary and ternary elementwise ops, comparisons,
// where / masked_fill, and their in-place variants (the refs' semantics, as
// torch 2.15's meta kernels: see pointwise_helpers.h).
#include <string_view>

#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"

namespace fakeprop::fx::ops {

namespace {

using PK = PromotionKind;

// ---- generic shapes of rules ----

// Of a float16 / bfloat16 input with symbolic sizes, a unary op's ref
// computes in float32: the input is converted first (_to_copy, whose
// allocation asks each dim == 0: Ne(s0 - 2, 0) after x[1:-1]). Measured with
// torch 2.15 on every unary op here: all but round, silu, nan_to_num and
// sigmoid (registered with ConvertsHalf false) convert.
template <PK Kind, bool ConvertsHalf = true>
void unary(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self"});
  if (ops.tensors.empty()) ctx.fail(ErrorKind::TypeError, ctx.target() + ": self must be a Tensor");
  const TensorMeta& self = *ops.tensors.front();
  if (ConvertsHalf && (self.dtype == DType::Float16 || self.dtype == DType::BFloat16) &&
      has_symbolic_sizes_strides(self))
    prim_convert_element_type_guards(ctx, self);
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, Kind)));
}

template <PK Kind>
void unary_inplace(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self"});
  if (ops.tensors.empty()) ctx.fail(ErrorKind::TypeError, ctx.target() + ": self must be a Tensor");
  set_tensor(ctx, pointwise_inplace(ctx, ops, promoted_dtype(ctx, ops, Kind)));
}

// Binary ops: `self` and `other` are tensors or numbers (at least one
// tensor); kOther names the second where it is not `other` (pow's exponent).
constexpr char kOther[] = "other", kExponent[] = "exponent", kWeight[] = "weight", kMin[] = "min", kMax[] = "max";
template <PK Kind, const char* kSecond = kOther>
void binary(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", kSecond});
  if (ops.tensors.empty()) ctx.fail(ErrorKind::TypeError, ctx.target() + ": needs a Tensor operand");
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, Kind)));
}

template <PK Kind, bool CheckCast = true, const char* kSecond = kOther>
void binary_inplace(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", kSecond});
  if (!ctx.value("self").is_tensor()) ctx.fail(ErrorKind::TypeError, ctx.target() + ": self must be a Tensor");
  set_tensor(ctx, pointwise_inplace(ctx, ops, promoted_dtype(ctx, ops, Kind), CheckCast));
}

// Ops whose kernels or refs reject some input dtypes.
bool is_bool_or_integral(DType t) { return is_integral(t, true); }

// bool inputs: no kernel (frac, hardtanh, logaddexp, ...).
template <void (*Rule)(OpContext&)>
void no_bool(OpContext& ctx) {
  const Value& self = ctx.value("self");
  if (self.is_tensor() && self.tensor->meta.dtype == DType::Bool)
    ctx.fail(ErrorKind::TypeError, ctx.target() + ": not implemented for 'Bool'");
  Rule(ctx);
}

// The refs cast these Scalar parameters to the input's Python type: a float
// parameter (given or by default) cannot go into an integral or bool input.
struct FloatParam {
  const char* name;
  bool float_default;
};
template <const FloatParam* Params, size_t N, bool Inplace = false>
void float_params(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (is_bool_or_integral(self.dtype)) {
    for (size_t i = 0; i < N; ++i) {
      const FloatParam& p = Params[i];
      const bool is_float = ctx.has(p.name) ? ctx.value(p.name).kind == Value::Kind::Float : p.float_default;
      if (is_float)
        ctx.fail(ErrorKind::TypeError, std::string(p.name) + " argument of type <class 'float'> cannot be safely cast "
                                                              "to the input's type");
    }
  }
  if (Inplace) unary_inplace<PK::Default>(ctx);
  else unary<PK::Default>(ctx);
}
constexpr FloatParam kLeakyRelu[] = {{"negative_slope", true}};
constexpr FloatParam kSoftplus[] = {{"beta", false}, {"threshold", false}};

// elu / selu: their refs scale by a float whatever the arguments.
template <bool Inplace>
void float_only_activation_any(OpContext& ctx) {
  if (is_bool_or_integral(ctx.tensor("self").dtype))
    ctx.fail(ErrorKind::TypeError, ctx.target() + ": input_scale argument of type <class 'float'> cannot be safely "
                                                  "cast to the input's type");
  if (Inplace) unary_inplace<PK::Default>(ctx);
  else unary<PK::Default>(ctx);
}

// softshrink: torch.finfo of the input.
void softshrink(OpContext& ctx) {
  if (!is_floating(ctx.tensor("self").dtype))
    ctx.fail(ErrorKind::TypeError, "torch.finfo() requires a floating point input type");
  unary<PK::Default>(ctx);
}

// add / sub / rsub: sub_check rejects bool operands (numbers included);
// alpha must not be a float for integral results.
void check_alpha(OpContext& ctx, const PointwiseOperands& ops, DType result, bool is_sub) {
  // The sub ref rejects bool only between two tensors (a number may meet a bool tensor).
  if (is_sub && ops.tensors.size() == 2) {
    for (const TensorMeta* t : ops.tensors)
      if (t->dtype == DType::Bool)
        ctx.fail(ErrorKind::TypeError,
                 "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                 "`logical_xor()` operator instead.");
  }
  if (!ctx.has("alpha")) return;
  const Value& alpha = ctx.value("alpha");
  if (is_integral(result, true) && alpha.kind == Value::Kind::Float)
    ctx.fail(ErrorKind::TypeError, "For integral input tensors, argument alpha must not be a floating point number.");
  if (result == DType::Bool && alpha.kind == Value::Kind::Int)
    ctx.fail(ErrorKind::TypeError, "Boolean alpha only supported for Boolean results.");
}

template <bool IsSub>
void add_sub(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "other"});
  if (ops.tensors.empty()) ctx.fail(ErrorKind::TypeError, ctx.target() + ": needs a Tensor operand");
  const DType dtype = promoted_dtype(ctx, ops, PK::Default);
  check_alpha(ctx, ops, dtype, IsSub);
  set_tensor(ctx, pointwise_result(ctx, ops, dtype));
}

template <bool IsSub>
void add_sub_inplace(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "other"});
  if (!ctx.value("self").is_tensor()) ctx.fail(ErrorKind::TypeError, ctx.target() + ": self must be a Tensor");
  const DType dtype = promoted_dtype(ctx, ops, PK::Default);
  check_alpha(ctx, ops, dtype, IsSub);
  set_tensor(ctx, pointwise_inplace(ctx, ops, dtype));
}

// div with rounding_mode: true division promotes ints to float, trunc/floor do not.
void div_mode(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "other"});
  const bool rounding = ctx.has("rounding_mode");
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, rounding ? PK::Default : PK::IntToFloat)));
}
void div_mode_inplace(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "other"});
  const bool rounding = ctx.has("rounding_mode");
  set_tensor(ctx, pointwise_inplace(ctx, ops, promoted_dtype(ctx, ops, rounding ? PK::Default : PK::IntToFloat)));
}

void neg(OpContext& ctx) {
  if (ctx.tensor("self").dtype == DType::Bool)
    ctx.fail(ErrorKind::TypeError,
             "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
             "the `~` or `logical_not()` operator instead.");
  unary<PK::Default>(ctx);
}

// positive: self itself, except for bool.
void positive(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dtype == DType::Bool)
    ctx.fail(ErrorKind::TypeError, "The `+` operator, on a bool tensor is not supported.");
  set_tensor(ctx, same_view(ctx, self));
}

// copysign and float floor_divide are compositions in their refs, whose
// outermost op is a where() led by an operand computed from the broadcast
// `other` alone: its layout, not self's, decides the result's. A number
// operand becomes a zero-dim tensor on the other operand's device.
struct Composed {
  const TensorMeta* self;
  const TensorMeta* other;
  TensorMeta wrapped;  // a number operand as scalar_tensor
};
void composed_operands(OpContext& ctx, Composed& c) {
  const Value& a = ctx.value("self");
  const Value& b = ctx.value("other");
  c.wrapped.device = a.is_tensor() ? a.tensor->meta.device : (b.is_tensor() ? b.tensor->meta.device : Device::cpu());
  c.self = a.is_tensor() ? &a.tensor->meta : &c.wrapped;
  c.other = b.is_tensor() ? &b.tensor->meta : &c.wrapped;
}

// where(f(other), g(self, other), g(self, other)) over the broadcast operands.
TensorValue composed_result(OpContext& ctx, const PointwiseOperands& ops, DType dtype, bool pair) {
  Composed c{nullptr, nullptr, {}};
  composed_operands(ctx, c);
  TensorValue r = pointwise_result(ctx, ops, dtype);
  const SymShape& shape = r.meta.sizes;
  const TensorMeta* lead_ops[] = {c.other};
  TensorMeta lead;
  lead.sizes = shape;
  lead.strides = elementwise_permuted_strides(lead_ops, shape, ctx.env());
  lead.device = c.other->device;
  std::vector<const TensorMeta*> body_ops = {c.self};
  if (pair) body_ops.push_back(c.other);
  TensorMeta body;
  body.sizes = shape;
  body.strides = elementwise_permuted_strides(body_ops, shape, ctx.env());
  body.device = r.meta.device;
  // A wrapped number stays zero-dim there (no broadcast): it decides nothing.
  const bool other_is_number = c.other == &c.wrapped;
  const TensorMeta* where_ops[] = {other_is_number ? nullptr : &lead, &body, &body};
  r.meta.strides = simplified(ctx, elementwise_permuted_strides(where_ops, shape, ctx.env()));
  return r;
}

void floor_divide(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "other"});
  const DType dtype = promoted_dtype(ctx, ops, PK::Default);
  if (dtype == DType::Bool) ctx.fail(ErrorKind::TypeError, "torch.bool not supported for floor_divide");
  // Integers divide in one prim; floats go through _floor_divide_float.
  set_tensor(ctx, is_floating(dtype) ? composed_result(ctx, ops, dtype, true) : pointwise_result(ctx, ops, dtype));
}

// copysign(self, other) = where(signbit(other), -abs(self), abs(self)).
void copysign(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "other"});
  set_tensor(ctx, composed_result(ctx, ops, promoted_dtype(ctx, ops, PK::IntToFloat), false));
}
void floor_divide_inplace(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "other"});
  const DType dtype = promoted_dtype(ctx, ops, PK::Default);
  if (dtype == DType::Bool) ctx.fail(ErrorKind::TypeError, "torch.bool not supported for floor_divide");
  set_tensor(ctx, pointwise_inplace(ctx, ops, dtype));
}

// heaviside(self, values): its ref promotes mixed dtypes.
template <bool Inplace>
void heaviside(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "values"});
  const DType dtype = promoted_dtype(ctx, ops, PK::Default);
  set_tensor(ctx, Inplace ? pointwise_inplace(ctx, ops, dtype) : pointwise_result(ctx, ops, dtype));
}

// pow.Scalar: a number raised to a tensor.
void pow_scalar_base(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "exponent"});
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, PK::Default)));
}

// where(condition, self, other): the condition takes part in shape, device
// and strides but not in promotion.
void where(OpContext& ctx) {
  const PointwiseOperands values = pointwise_operands(ctx, {"self", "other"});
  PointwiseOperands all = pointwise_operands(ctx, {"condition", "self", "other"});
  if (ctx.tensor("condition").dtype != DType::Bool && ctx.tensor("condition").dtype != DType::UInt8)
    ctx.fail(ErrorKind::TypeError, "where expected condition to be a boolean tensor, but got a tensor with dtype " +
                                       dtype_title(ctx.tensor("condition").dtype));
  set_tensor(ctx, pointwise_result(ctx, all, promoted_dtype(ctx, values, PK::NoOpmath)));
}

// clamp(self, min, max) and friends: numbers and tensors as bounds promote with self.
void clamp(OpContext& ctx) {
  if (!ctx.has("min") && !ctx.has("max"))
    ctx.fail(ErrorKind::InvalidArgument, "torch.clamp: At least one of 'min' or 'max' must not be None");
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "min", "max"});
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, PK::Default)));
}
void clamp_inplace(OpContext& ctx) {
  if (!ctx.has("min") && !ctx.has("max"))
    ctx.fail(ErrorKind::InvalidArgument, "torch.clamp: At least one of 'min' or 'max' must not be None");
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "min", "max"});
  set_tensor(ctx, pointwise_inplace(ctx, ops, promoted_dtype(ctx, ops, PK::Default)));
}

// Ternary ops over three tensors: addcmul / addcdiv / lerp.
template <PK Kind>
void ternary(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "tensor1", "tensor2"});
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, Kind)));
}
template <PK Kind>
void ternary_inplace(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "tensor1", "tensor2"});
  set_tensor(ctx, pointwise_inplace(ctx, ops, promoted_dtype(ctx, ops, Kind)));
}

// masked_fill(self, mask, value): self's dtype; mask broadcasts into self.
void masked_fill(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& mask = ctx.tensor("mask");
  if (mask.dtype != DType::Bool)
    ctx.fail(ErrorKind::TypeError, "masked_fill_ only supports boolean masks, but got mask with dtype " +
                                       dtype_title(mask.dtype));
  // The ref is where(mask, value, self).contiguous(), ATen's a clone of the
  // broadcast self in the contiguous format: contiguous either way (HF Doge's
  // mask over an expanded self was given where's layout).
  PointwiseOperands ops = pointwise_operands(ctx, {"mask", "self"});
  const TensorValue r = pointwise_result(ctx, ops, self.dtype);
  set_tensor(ctx, empty_tensor(ctx, r.meta.sizes, r.meta.dtype, r.meta.device));
}
void masked_fill_inplace(OpContext& ctx) {
  const TensorMeta& mask = ctx.tensor("mask");
  if (mask.dtype != DType::Bool)
    ctx.fail(ErrorKind::TypeError, "masked_fill_ only supports boolean masks, but got mask with dtype " +
                                       dtype_title(mask.dtype));
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "mask"});
  set_tensor(ctx, pointwise_inplace(ctx, ops, ctx.tensor("self").dtype));
}

// lerp(self, end, weight): self and end share a dtype; a tensor weight joins the iteration.
template <bool Inplace>
void lerp(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "end", "weight"});
  if (ctx.tensor("self").dtype != ctx.tensor("end").dtype)
    ctx.fail(ErrorKind::TypeError, "expected dtype " + dtype_title(ctx.tensor("self").dtype) +
                                       " for `end` but got dtype " + dtype_title(ctx.tensor("end").dtype));
  PointwiseOperands values = ops;
  values.promotion.resize(2);
  const DType dtype = promoted_dtype(ctx, values, PK::Default);
  set_tensor(ctx, Inplace ? pointwise_inplace(ctx, ops, dtype) : pointwise_result(ctx, ops, dtype));
}

// native_dropout_backward(grad_output, mask, scale): grad_output's dtype.
// Its decomposition clones the product in grad_output's suggested memory format.
void native_dropout_backward(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"grad_output", "mask"});
  const TensorMeta& grad = ctx.tensor("grad_output");
  TensorValue r = pointwise_result(ctx, ops, grad.dtype);
  r.meta.strides = strides_for(r.meta.sizes, suggest_memory_format(grad, ctx.env()), &ctx.env());
  set_tensor(ctx, std::move(r));
}

// Registration of an op name for its functional and in-place forms.
struct Names {
  const char* functional;
  const char* inplace;
};


}  // namespace

namespace {

// diff(self, n=1, dim=-1, prepend=None, append=None), CompositeImplicit
// (aten/src/ATen/native/ReduceOps.cpp): prepend and append are concatenated
// along dim, then n times narrow(dim, 1, len-1) - narrow(dim, 0, len-1)
// (logical_xor for bool), n clamped to the size of dim; n == 0 clones self.
void diff(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t n = static_int(ctx, "n", 1);
  const TensorMeta* prepend = ctx.optional_tensor("prepend");
  const TensorMeta* append = ctx.optional_tensor("append");
  if (self.dim() == 0)
    ctx.fail(ErrorKind::InvalidArgument, "diff expects input to be at least one-dimensional");
  if (n < 0) ctx.fail(ErrorKind::InvalidArgument, "order must be non-negative but got " + std::to_string(n));
  const auto dim = static_cast<size_t>(dim_arg(ctx, "dim", self.dim(), -1));
  std::vector<const TensorMeta*> all{&self};
  for (const TensorMeta* t : {prepend, append}) {
    if (!t) continue;
    if (t->dim() != self.dim())
      ctx.fail(ErrorKind::InvalidArgument, "diff expects prepend or append to be the same dimension as input");
    for (size_t d = 0; d < self.sizes.size(); ++d)
      if (d != dim && !same_size(ctx, t->sizes[d], self.sizes[d], "diff"))
        ctx.fail(ErrorKind::ShapeMismatch, "diff expects the shape of tensor to prepend or append to match that of "
                                           "input except along the differencing dimension");
    all.push_back(t);
  }
  const Device device = common_device(all, ctx.target());
  if (n == 0) {
    set_tensor(ctx, empty_like(ctx, self));
    return;
  }
  TensorMeta cur = self;
  if (all.size() > 1) {  // cat([prepend, self, append], dim): promoted dtype, contiguous
    std::vector<PromotionOperand> promotion;
    SymInt len = 0;
    for (const TensorMeta* t : all) {
      promotion.push_back({t->dtype, OperandKind::Tensor});
      len = len + t->sizes[dim];
    }
    cur.dtype = result_type(promotion).value_or(self.dtype);
    cur.sizes[dim] = simplified(ctx, len);
    cur.strides = contiguous_strides(cur.sizes, &ctx.env());
    cur.storage_offset = 0;
  }
  const SymInt len = cur.sizes[dim];
  const int64_t steps = bounded_count(
      ctx, decide(ctx, sym_gt(SymInt(n), len), "diff order") ? specialize(ctx, len, "diff order") : n, "diff");
  const bool is_bool = cur.dtype == DType::Bool;
  for (int64_t i = 0; i < steps; ++i) {
    TensorMeta part = cur;
    part.sizes[dim] = simplified(ctx, len - (i + 1));
    const TensorMeta* operands[] = {&part, &part};
    std::optional<SymShape> strides;
    if (!is_bool && has_symbolic_sizes_strides(part)) strides = fast_binary_strides(operands, part.sizes, ctx.env());
    if (!strides) strides = elementwise_permuted_strides(operands, part.sizes, ctx.env());
    cur.sizes = part.sizes;
    cur.strides = simplified(ctx, std::move(*strides));
  }
  set_tensor(ctx, ctx.new_tensor(cur.sizes, cur.dtype, device, cur.strides));
}

}  // namespace

void register_pointwise_ops(OpRegistry& r) {
  // Unary ops that keep integer dtypes (PromotionKind::Default).
  const Names keep_dtype[] = {
      {"aten.relu", "aten.relu_"},           {"aten.ceil", "aten.ceil_"},
      {"aten.floor", "aten.floor_"},         {"aten.round", "aten.round_"},
      {"aten.trunc", "aten.trunc_"},         {"aten.sign", "aten.sign_"},
      {"aten.sgn", "aten.sgn_"},             {"aten.hardswish", "aten.hardswish_"},
      {"aten.hardsigmoid", "aten.hardsigmoid_"}, {"aten.gelu", "aten.gelu_"},
      {"aten.silu", "aten.silu_"},           {"aten.mish", "aten.mish_"},
      {"aten.threshold", "aten.threshold_"},
      {"aten.bitwise_not", "aten.bitwise_not_"}, {"aten.celu", "aten.celu_"},
      {"aten.nan_to_num", "aten.nan_to_num_"},
  };
  auto own_half_path = [](std::string_view name) {
    return name == "aten.round" || name == "aten.silu" || name == "aten.nan_to_num" || name == "aten.sigmoid";
  };
  for (const Names& n : keep_dtype) {
    r.add(n.functional, own_half_path(n.functional) ? unary<PK::Default, false> : unary<PK::Default>);
    if (n.inplace) r.add_inplace(n.inplace, unary_inplace<PK::Default>);
  }
  for (const Names& n : {Names{"aten.frac", "aten.frac_"}, Names{"aten.hardtanh", "aten.hardtanh_"}}) {
    r.add(n.functional, no_bool<unary<PK::Default>>);
    r.add_inplace(n.inplace, no_bool<unary_inplace<PK::Default>>);
  }
  // Composites of the export IR: relu6 is hardtanh(0, 6), square is pow(2),
  // log_sigmoid is log_sigmoid_forward's output.
  r.add("aten.relu6.default", no_bool<unary<PK::Default>>);
  r.add("aten.square.default", unary<PK::BoolToLong>);
  r.add("aten.log_sigmoid.default", unary<PK::IntToFloat>);
  r.add("aten._prelu_kernel.default", binary<PK::Default, kWeight>);  // (self, weight) broadcast
  r.add("aten.leaky_relu", float_params<kLeakyRelu, 1>);
  r.add_inplace("aten.leaky_relu_", float_params<kLeakyRelu, 1, true>);
  r.add("aten.softplus", float_params<kSoftplus, 2>);
  for (const Names& n : {Names{"aten.elu", "aten.elu_"}, Names{"aten.selu", "aten.selu_"}}) {
    r.add(n.functional, float_only_activation_any<false>);
    r.add_inplace(n.inplace, float_only_activation_any<true>);
  }
  // hardshrink promotes bool to int64 (its ref multiplies by the mask).
  r.add("aten.hardshrink", unary<PK::BoolToLong>);
  r.add("aten.softshrink", softshrink);
  r.add("aten.neg", neg);
  r.add_inplace("aten.neg_", unary_inplace<PK::Default>);
  r.add("aten.positive", positive);
  // abs and the logical ops fill an empty({0}) result: contiguous.
  r.add("aten.abs", unary<PK::ComplexToFloat>);
  r.add_inplace("aten.abs_", unary_inplace<PK::ComplexToFloat>);
  // Unary ops that compute in floating point (PromotionKind::IntToFloat).
  const Names to_float[] = {
      {"aten.sin", "aten.sin_"},       {"aten.cos", "aten.cos_"},         {"aten.tan", "aten.tan_"},
      {"aten.asin", "aten.asin_"},     {"aten.acos", "aten.acos_"},       {"aten.atan", "aten.atan_"},
      {"aten.sinh", "aten.sinh_"},     {"aten.cosh", "aten.cosh_"},       {"aten.tanh", "aten.tanh_"},
      {"aten.asinh", "aten.asinh_"},   {"aten.acosh", "aten.acosh_"},     {"aten.atanh", "aten.atanh_"},
      {"aten.exp", "aten.exp_"},       {"aten.exp2", "aten.exp2_"},       {"aten.expm1", "aten.expm1_"},
      {"aten.log", "aten.log_"},       {"aten.log2", "aten.log2_"},       {"aten.log10", "aten.log10_"},
      {"aten.log1p", "aten.log1p_"},   {"aten.sqrt", "aten.sqrt_"},       {"aten.rsqrt", "aten.rsqrt_"},
      {"aten.sigmoid", "aten.sigmoid_"}, {"aten.erf", "aten.erf_"},       {"aten.erfc", "aten.erfc_"},
      {"aten.erfinv", "aten.erfinv_"}, {"aten.reciprocal", "aten.reciprocal_"}, {"aten.lgamma", "aten.lgamma_"},
      {"aten.digamma", "aten.digamma_"}, {"aten.logit", "aten.logit_"},  {"aten.sinc", "aten.sinc_"},
      {"aten.deg2rad", "aten.deg2rad_"}, {"aten.rad2deg", "aten.rad2deg_"},
  };
  for (const Names& n : to_float) {
    r.add(n.functional, own_half_path(n.functional) ? unary<PK::IntToFloat, false> : unary<PK::IntToFloat>);
    r.add_inplace(n.inplace, unary_inplace<PK::IntToFloat>);
  }
  // Predicates.
  for (const char* name : {"aten.isnan", "aten.isfinite", "aten.signbit", "aten.isneginf", "aten.isposinf"})
    r.add(name, unary<PK::AlwaysBool>);
  r.add("aten.isinf", unary<PK::AlwaysBool>);
  r.add("aten.logical_not", unary<PK::AlwaysBool>);
  r.add_inplace("aten.logical_not_", unary_inplace<PK::AlwaysBool>);

  // Binary arithmetic.
  r.add("aten.add", add_sub<false>);
  r.add_inplace("aten.add_", add_sub_inplace<false>);
  r.add("aten.sub", add_sub<true>);
  r.add_inplace("aten.sub_", add_sub_inplace<true>);
  r.add("aten.rsub", add_sub<true>);
  r.add("aten.mul", binary<PK::Default>);
  r.add_inplace("aten.mul_", binary_inplace<PK::Default, false>);
  r.add("aten.multiply", binary<PK::Default>);  // mul's alias, kept by export (HF ConvBERT)
  r.add_inplace("aten.multiply_", binary_inplace<PK::Default, false>);
  r.add("aten.div.Tensor", binary<PK::IntToFloat>);
  r.add("aten.div.Scalar", binary<PK::IntToFloat>);
  r.add("aten.div.Tensor_mode", div_mode);
  r.add("aten.div.Scalar_mode", div_mode);
  r.add_inplace("aten.div_.Tensor", binary_inplace<PK::IntToFloat>);
  r.add_inplace("aten.div_.Scalar", binary_inplace<PK::IntToFloat>);
  r.add_inplace("aten.div_.Tensor_mode", div_mode_inplace);
  r.add_inplace("aten.div_.Scalar_mode", div_mode_inplace);
  r.add("aten.true_divide", binary<PK::IntToFloat>);
  r.add_inplace("aten.true_divide_", binary_inplace<PK::IntToFloat>);
  const Names keep_binary[] = {
      {"aten.remainder", "aten.remainder_"},
      {"aten.fmod", "aten.fmod_"},                 {"aten.maximum", nullptr},
      {"aten.minimum", nullptr},                   {"aten.fmax", nullptr},
      {"aten.fmin", nullptr},                      {"aten.bitwise_and", "aten.bitwise_and_"},
      {"aten.min.other", nullptr},                 {"aten.max.other", nullptr},
      {"aten.bitwise_or", "aten.bitwise_or_"},     {"aten.bitwise_xor", "aten.bitwise_xor_"},
      {"aten.bitwise_left_shift", "aten.bitwise_left_shift_"},
      {"aten.bitwise_right_shift", "aten.bitwise_right_shift_"},
      {"aten.hypot", "aten.hypot_"},
  };
  for (const Names& n : keep_binary) {
    r.add(n.functional, binary<PK::Default>);
    if (n.inplace) r.add_inplace(n.inplace, binary_inplace<PK::Default>);
  }
  for (const Names& n : {Names{"aten.clamp_min.default", "aten.clamp_min_.default"},
                         Names{"aten.clamp_min.Tensor", "aten.clamp_min_.Tensor"}}) {
    r.add(n.functional, binary<PK::Default, kMin>);
    r.add_inplace(n.inplace, binary_inplace<PK::Default, true, kMin>);
  }
  for (const Names& n : {Names{"aten.clamp_max.default", "aten.clamp_max_.default"},
                         Names{"aten.clamp_max.Tensor", "aten.clamp_max_.Tensor"}}) {
    r.add(n.functional, binary<PK::Default, kMax>);
    r.add_inplace(n.inplace, binary_inplace<PK::Default, true, kMax>);
  }
  // __iand__, __ior__ and __ixor__ return self like the other twins, but are
  // registered as plain ops: the interpreter has never recorded them as
  // mutating self, and reports keep that.
  for (const Names& n : {Names{"aten.__and__", "aten.__iand__"}, Names{"aten.__or__", "aten.__ior__"},
                         Names{"aten.__xor__", "aten.__ixor__"}}) {
    r.add(n.functional, binary<PK::Default>);
    r.add(n.inplace, binary_inplace<PK::Default>);
  }
  // pow promotes bool to int64.
  r.add("aten.pow.Tensor_Tensor", binary<PK::BoolToLong, kExponent>);
  r.add_inplace("aten.pow_.Tensor", binary_inplace<PK::BoolToLong, true, kExponent>);
  r.add("aten.pow.Tensor_Scalar", binary<PK::BoolToLong, kExponent>);
  r.add_inplace("aten.pow_.Scalar", binary_inplace<PK::BoolToLong, true, kExponent>);
  r.add("aten.logaddexp", no_bool<binary<PK::Default>>);
  r.add("aten.logaddexp2", no_bool<binary<PK::Default>>);
  r.add("aten.pow.Scalar", pow_scalar_base);
  r.add("aten.heaviside", heaviside<false>);
  r.add_inplace("aten.heaviside_", heaviside<true>);
  r.add("aten.floor_divide", floor_divide);
  r.add_inplace("aten.floor_divide_", floor_divide_inplace);
  r.add("aten.copysign", copysign);
  r.add_inplace("aten.copysign_", binary_inplace<PK::IntToFloat>);
  for (const Names& n : {Names{"aten.atan2", "aten.atan2_"}, Names{"aten.xlogy.Tensor", "aten.xlogy_.Tensor"}}) {
    r.add(n.functional, binary<PK::IntToFloat>);
    if (n.inplace) r.add_inplace(n.inplace, binary_inplace<PK::IntToFloat>);
  }
  // Comparisons and logical ops.
  for (const char* op : {"logical_and", "logical_or", "logical_xor"}) {
    r.add(std::string("aten.") + op, binary<PK::AlwaysBool>);
    r.add_inplace(std::string("aten.") + op + "_", binary_inplace<PK::AlwaysBool, false>);
  }
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
                         "not_equal"}) {
    r.add(std::string("aten.") + op, binary<PK::AlwaysBool>);
    r.add_inplace(std::string("aten.") + op + "_", binary_inplace<PK::AlwaysBool>);
  }
  r.add("aten.where.self", where);
  r.add("aten.where.ScalarSelf", where);
  r.add("aten.where.ScalarOther", where);
  r.add("aten.where.Scalar", where);
  r.add("aten.clamp", clamp);
  r.add_inplace("aten.clamp_", clamp_inplace);
  r.add("aten.clip", clamp);
  r.add_inplace("aten.clip_", clamp_inplace);
  r.add("aten.addcmul", ternary<PK::Default>);
  r.add_inplace("aten.addcmul_", ternary_inplace<PK::Default>);
  r.add("aten.addcdiv", ternary<PK::Default>);
  r.add_inplace("aten.addcdiv_", ternary_inplace<PK::Default>);
  r.add("aten.lerp", lerp<false>);
  r.add_inplace("aten.lerp_", lerp<true>);
  r.add("aten.native_dropout_backward.default", native_dropout_backward);
  r.add("aten.masked_fill", masked_fill);
  r.add_inplace("aten.masked_fill_", masked_fill_inplace);
  r.add("aten.diff.default", diff);
}

}  // namespace fakeprop::fx::ops
