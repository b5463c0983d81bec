// Operators that create tensors: Constant, ConstantOfShape, Range, EyeLike,
// the Random* family, Multinomial, Bernoulli and the window functions.
#include <cmath>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {


// Known elements of a tensor attribute, or nullopt (too big, undecodable).
std::optional<KnownData> tensor_data(const TensorRef& t, int64_t cap) {
  if (t.storage == TensorRef::Storage::None || t.numel() > cap) return std::nullopt;
  const DType dt = t.dtype();
  if (dt == DType::String) return std::nullopt;
  if (is_floating(dt)) {
    if (auto xs = t.read_doubles(cap)) return float_data(std::move(*xs));
  } else if (auto xs = t.read_int64s(cap)) {
    return int_data(std::vector<SymInt>(xs->begin(), xs->end()));
  }
  return std::nullopt;
}

// An element-type attribute (TensorProto.DataType), `dflt` when absent.
DType dtype_attr(const OpContext& ctx, std::string_view name, DType dflt) {
  if (!ctx.has_attr(name)) return dflt;
  const int64_t code = ctx.attr_int(name, 0);
  auto dt = dtype_from_onnx(static_cast<int32_t>(code));
  if (!dt || *dt == DType::Undefined)
    ctx.fail(ErrorKind::InvalidAttribute,
             ctx.op_type() + " attribute '" + std::string(name) + "' is not an element type: " + std::to_string(code));
  return *dt;
}

// A size taken from known data must be non-negative: statically, or as a
// guard / runtime assert (as torch.empty's size check is).
void check_size(OpContext& ctx, const SymInt& d, const char* why) {
  if (d.is_static()) {
    if (d.value() < 0)
      ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + ": negative size " + std::to_string(d.value()));
    return;
  }
  if (known_true(ctx, sym_ge(d, 0))) return;
  require(ctx, sym_ge(d, 0), why, ErrorKind::InvalidShape, ctx.op_type() + ": size " + d.to_python() + " is negative");
}

void constant_rule(OpContext& ctx) {
  const Attribute* value = ctx.attr("value");
  if (value && value->t) {
    const TensorRef& t = *value->t;
    SymShape shape(t.dims.begin(), t.dims.end());
    const DType dt = t.dtype();
    if (auto data = tensor_data(t, ctx.fold_limit()))
      ctx.set_tensor(0, dt, std::move(shape), std::move(*data));
    else
      ctx.set_tensor(0, dt, std::move(shape));
    return;
  }
  // Opset 11+: a sparse constant; only its dense dims and type matter here.
  if (const Attribute* a = ctx.attr("sparse_value"); a && a->t)
    return ctx.set_tensor(0, a->t->dtype(), SymShape(a->t->dims.begin(), a->t->dims.end()));
  // Opset 12+: value_int(s) / value_float(s) / value_string(s).
  if (const Attribute* a = ctx.attr("value_int")) return ctx.set_tensor(0, DType::Int64, {}, int_data({a->i}));
  if (const Attribute* a = ctx.attr("value_ints")) {
    std::vector<SymInt> xs(a->ints.begin(), a->ints.end());
    const int64_t n = static_cast<int64_t>(xs.size());
    return ctx.set_tensor(0, DType::Int64, {n}, int_data(std::move(xs)));
  }
  if (const Attribute* a = ctx.attr("value_float")) return ctx.set_tensor(0, DType::Float32, {}, float_data({a->f}));
  if (const Attribute* a = ctx.attr("value_floats")) {
    std::vector<double> xs(a->floats().begin(), a->floats().end());
    const int64_t n = static_cast<int64_t>(xs.size());
    return ctx.set_tensor(0, DType::Float32, {n}, float_data(std::move(xs)));
  }
  if (ctx.attr("value_string")) return ctx.set_tensor(0, DType::String, {});
  if (const Attribute* a = ctx.attr("value_strings"))
    return ctx.set_tensor(0, DType::String, {static_cast<int64_t>(a->strings().size())});
  ctx.fail(ErrorKind::MissingAttribute, "Constant has no value attribute");
}

// ConstantOfShape: the shape is the known data of input 0 (symbolic dims
// stay symbolic; an empty shape gives a scalar); the element type and value
// come from the one-element `value` tensor (default float32 zero).
void constant_of_shape_rule(OpContext& ctx) {
  DType dt = DType::Float32;
  std::optional<KnownData> fill = float_data({0.0});
  if (const Attribute* value = ctx.attr("value"); value && value->t) {
    if (value->t->numel() != 1)
      ctx.fail(ErrorKind::InvalidAttribute, "ConstantOfShape value must hold one element, got " +
                                                std::to_string(value->t->numel()));
    dt = value->t->dtype();
    if (dt == DType::Undefined)
      ctx.fail(ErrorKind::TypeError, value->t->data_type == 0
                                         ? std::string("ConstantOfShape value has an undefined element type")
                                         : "ConstantOfShape value has element type " +
                                               std::to_string(value->t->data_type) + ", which fakeprop does not know");
    fill = tensor_data(*value->t, 1);
  }
  if (ctx.dtype(0) != DType::Int64)  // the schema's T1 is tensor(int64) only
    ctx.fail(ErrorKind::TypeError, "ConstantOfShape input must be int64, got " + std::string(dtype_name(ctx.dtype(0))));
  if (ctx.rank(0) != 1)
    ctx.fail(ErrorKind::InvalidShape, "ConstantOfShape input must be 1-D, got rank " + std::to_string(ctx.rank(0)));
  SymShape out;
  if (auto dims = shape_from_input(ctx, 0)) {
    for (SymInt& d : *dims) {
      check_size(ctx, d, "ConstantOfShape: sizes are non-negative");
      out.push_back(simplified(ctx, d));
    }
  } else {
    auto len = static_shape(ctx.shape(0));
    if (!len)
      ctx.fail(ErrorKind::UnknownInput, "ConstantOfShape input '" + ctx.input_name(0) + "' has unknown length");
    for (int64_t i = 0; i < (*len)[0]; ++i)
      out.push_back(ctx.unknown_size("ConstantOfShape shape '" + ctx.input_name(0) + "' is not known"));
    return ctx.set_tensor(0, dt, std::move(out));
  }
  auto n = static_shape(out);
  if (fill && n) {
    if (const auto count = numel_within(*n, ctx.fold_limit())) {
      const int64_t total = *count;
      KnownData data = *fill;
      if (data.is_float)
        data.floats.assign(static_cast<size_t>(total), fill->floats[0]);
      else
        data.ints.assign(static_cast<size_t>(total), fill->ints[0]);
      return ctx.set_tensor(0, dt, std::move(out), std::move(data));
    }
  }
  ctx.set_tensor(0, dt, std::move(out));
}

// Range(start, limit, delta): max(ceil((limit - start) / delta), 0) elements
// of start's type. Integer bounds may be symbolic (delta must be static);
// unknown bounds make the length data-dependent.
void range_rule(OpContext& ctx) {
  const DType dt = ctx.dtype(0);
  for (size_t i = 0; i < 3; ++i)
    if (ctx.rank(i) != 0 && !(ctx.rank(i) == 1 && ctx.shape(i)[0].is_static() && ctx.shape(i)[0].value() == 1))
      ctx.fail(ErrorKind::InvalidShape, "Range input '" + ctx.input_name(i) + "' must be a scalar, got shape " +
                                            shape_to_string(ctx.shape(i)));
  if (is_floating(dt)) {
    auto start = ctx.floats(0), limit = ctx.floats(1), delta = ctx.floats(2);
    if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 || delta->size() != 1)
      return ctx.set_tensor(0, dt, {ctx.new_unbacked_size({0, kIntOo})});
    const double s = (*start)[0], l = (*limit)[0], d = (*delta)[0];
    if (d == 0) ctx.fail(ErrorKind::InvalidArgument, "Range delta is zero");
    const double count = std::max(std::ceil((l - s) / d), 0.0);
    if (!std::isfinite(count) || count > 9.0e18) ctx.fail(ErrorKind::InvalidArgument, "Range has too many elements");
    const auto n = static_cast<int64_t>(count);
    if (n > ctx.fold_limit()) return ctx.set_tensor(0, dt, {n});
    std::vector<double> xs;
    xs.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const double x = s + static_cast<double>(i) * d;
      xs.push_back(dt == DType::Float32 ? static_cast<double>(static_cast<float>(x)) : x);
    }
    if (dt != DType::Float32 && dt != DType::Float64) return ctx.set_tensor(0, dt, {n});
    return ctx.set_tensor(0, dt, {n}, float_data(std::move(xs)));
  }
  auto start = ctx.scalar_int(0), limit = ctx.scalar_int(1), delta = ctx.scalar_int(2);
  if (!start || !limit || !delta || !delta->is_static())
    return ctx.set_tensor(0, dt, {ctx.new_unbacked_size({0, kIntOo})});
  const int64_t step = delta->value();
  if (step == 0) ctx.fail(ErrorKind::InvalidArgument, "Range delta is zero");
  SymInt n = simplified(ctx, ceildiv(*limit - *start, SymInt(step)));
  // An empty range is legal in ONNX: clamp at 0 unless the sign is known.
  if (!known_true(ctx, sym_ge(n, 0)))
    n = known_true(ctx, sym_le(n, 0)) ? SymInt(0) : simplified(ctx, sym_max(n, 0));
  if (n.is_static() && n.value() <= ctx.fold_limit()) {
    std::vector<SymInt> xs;
    xs.reserve(static_cast<size_t>(n.value()));
    for (int64_t i = 0; i < n.value(); ++i) xs.push_back(simplified(ctx, *start + SymInt(i) * SymInt(step)));
    return ctx.set_tensor(0, dt, {n}, int_data(std::move(xs)));
  }
  ctx.set_tensor(0, dt, {n});
}

// EyeLike: a 2-D input's shape; dtype attribute or the input's.
void eye_like_rule(OpContext& ctx) {
  if (ctx.rank(0) != 2)
    ctx.fail(ErrorKind::InvalidRank, "EyeLike needs a 2-D input, got rank " + std::to_string(ctx.rank(0)));
  same_shape_as_input(ctx, dtype_attr(ctx, "dtype", ctx.dtype(0)));
}

// RandomNormal / RandomUniform: `shape` attribute, dtype default float32.
void random_rule(OpContext& ctx) {
  auto shape = ctx.attr_ints("shape");
  if (!shape) ctx.fail(ErrorKind::MissingAttribute, ctx.op_type() + " needs attribute 'shape'");
  for (int64_t d : *shape)
    if (d < 0) ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + ": negative size " + std::to_string(d));
  ctx.set_tensor(0, dtype_attr(ctx, "dtype", DType::Float32), SymShape(shape->begin(), shape->end()));
}

// RandomNormalLike / RandomUniformLike / Bernoulli: the input's shape;
// dtype attribute or the input's.
void random_like_rule(OpContext& ctx) { same_shape_as_input(ctx, dtype_attr(ctx, "dtype", ctx.dtype(0))); }

// Multinomial: [batch_size, class_size] -> [batch_size, sample_size], int32 by default.
void multinomial_rule(OpContext& ctx) {
  if (ctx.rank(0) != 2)
    ctx.fail(ErrorKind::InvalidRank, "Multinomial needs a 2-D input [batch_size, class_size], got rank " +
                                         std::to_string(ctx.rank(0)));
  const int64_t samples = ctx.attr_int("sample_size");
  if (samples < 0)
    ctx.fail(ErrorKind::InvalidAttribute, "Multinomial sample_size is negative: " + std::to_string(samples));
  const DType dt = dtype_attr(ctx, "dtype", DType::Int32);
  if (dt != DType::Int32 && dt != DType::Int64)
    ctx.fail(ErrorKind::InvalidAttribute, "Multinomial dtype must be int32 or int64");
  ctx.set_tensor(0, dt, {ctx.shape(0)[0], samples});
}

// BlackmanWindow / HannWindow / HammingWindow (opset 17): [size] of
// output_datatype (default float32); `periodic` only changes values.
void window_rule(OpContext& ctx) {
  const DType dt = dtype_attr(ctx, "output_datatype", DType::Float32);
  SymInt n;
  if (auto size = ctx.scalar_int(0)) {
    check_size(ctx, *size, "window size is non-negative");
    n = simplified(ctx, *size);
  } else {
    n = ctx.new_unbacked_size({0, kIntOo});
  }
  ctx.set_tensor(0, dt, {n});
}

}  // namespace

std::span<const OpRuleEntry> generator_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {"", "Constant", constant_rule},
      {"", "ConstantOfShape", constant_of_shape_rule},
      {"", "Range", range_rule},
      {"", "EyeLike", eye_like_rule},
      {"", "RandomNormal", random_rule},
      {"", "RandomUniform", random_rule},
      {"", "RandomNormalLike", random_like_rule},
      {"", "RandomUniformLike", random_like_rule},
      {"", "Bernoulli", random_like_rule},
      {"", "Multinomial", multinomial_rule},
      {"", "BlackmanWindow", window_rule},
      {"", "HannWindow", window_rule},
      {"", "HammingWindow", window_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
