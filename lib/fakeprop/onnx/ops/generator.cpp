// Operators that create tensors: Constant, ConstantOfShape, Range, ...
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

constexpr int64_t kConstantFoldCap = 1 << 16;

void constant_rule(OpContext& ctx) {
  const Attribute* value = ctx.attr("value");
  if (value && value->t) {
    const TensorRef& t = *value->t;
    SymShape shape(t.dims.begin(), t.dims.end());
    const DType dt = t.dtype();
    std::optional<KnownData> data;
    if (t.numel() <= kConstantFoldCap) {
      if (is_floating(dt)) {
        if (auto xs = t.read_doubles(kConstantFoldCap)) data = float_data(std::move(*xs));
      } else if (auto xs = t.read_int64s(kConstantFoldCap)) {
        data = int_data(std::vector<SymInt>(xs->begin(), xs->end()));
      }
    }
    if (data)
      ctx.set_tensor(0, dt, std::move(shape), std::move(*data));
    else
      ctx.set_tensor(0, dt, std::move(shape));
    return;
  }
  // Opset 12+: value_int(s) / value_float(s).
  if (const Attribute* a = ctx.attr("value_int")) return ctx.set_tensor(0, DType::Int64, {}, int_data({a->i}));
  if (const Attribute* a = ctx.attr("value_ints")) {
    std::vector<SymInt> xs(a->ints.begin(), a->ints.end());
    const int64_t n = static_cast<int64_t>(xs.size());
    return ctx.set_tensor(0, DType::Int64, {n}, int_data(std::move(xs)));
  }
  if (const Attribute* a = ctx.attr("value_float")) return ctx.set_tensor(0, DType::Float32, {}, float_data({a->f}));
  if (const Attribute* a = ctx.attr("value_floats")) {
    std::vector<double> xs(a->floats.begin(), a->floats.end());
    const int64_t n = static_cast<int64_t>(xs.size());
    return ctx.set_tensor(0, DType::Float32, {n}, float_data(std::move(xs)));
  }
  if (ctx.attr("value_string")) return ctx.set_tensor(0, DType::String, {});
  if (const Attribute* a = ctx.attr("value_strings"))
    return ctx.set_tensor(0, DType::String, {static_cast<int64_t>(a->strings.size())});
  ctx.fail("missing_attribute", "Constant has no value attribute");
}

}  // namespace

void register_generator_ops(OpRegistry& r) { r.add("", "Constant", constant_rule); }

}  // namespace fakeprop::onnx::ops
