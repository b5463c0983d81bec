// Quantization operators: QuantizeLinear / DequantizeLinear (per-tensor,
// per-axis from 13, blocked from 21), DynamicQuantizeLinear, the integer
// and QLinear forms of MatMul and Conv.
#include "fakeprop/onnx/ops/conv_shape.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"
#include "fakeprop/onnx/ops/nn_common.h"

namespace fakeprop::onnx::ops {

namespace {

// Checks a scale (or zero point) input against x: a scalar / one element
// (per tensor), a 1-D vector of x[axis] entries (per axis, opset 13+), or
// with block_size (opset 21) x's rank with ceil(x[axis] / block_size) on the axis.
void check_quant_param(OpContext& ctx, size_t x, size_t param) {
  if (!ctx.has_input(param)) return;
  const SymShape& xs = ctx.shape(x);
  const SymShape& ps = ctx.shape(param);
  const std::string name = "'" + ctx.node().inputs[param] + "'";
  const int64_t block = ctx.opset() >= 21 ? ctx.attr_int("block_size", 0) : 0;
  if (block < 0) ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " block_size is negative");
  if (ps.empty() || (ps.size() == 1 && ps[0].is_static() && ps[0].value() == 1 && block == 0)) return;
  if (ctx.opset() < 13)
    ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + " " + name + " must be a scalar before opset 13, got " +
                                          shape_to_string(ps));
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 1), static_cast<int64_t>(xs.size()));
  const SymInt& dim = xs[static_cast<size_t>(axis)];
  if (block == 0) {
    if (ps.size() != 1)
      ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + " " + name + " must be a scalar or 1-D, got " +
                                            shape_to_string(ps));
    require(ctx, sym_eq(ps[0], dim), "quantization: per-axis parameter length equals x's axis dim",
            ErrorKind::ShapeMismatch, ctx.op_type() + " " + name + " has " + ps[0].to_python() +
            " entries for axis size " + dim.to_python());
    return;
  }
  if (ps.size() != xs.size())
    ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + " blocked " + name + " must have x's rank, got " +
                                          shape_to_string(ps));
  auto mismatch = [&] {
    ctx.fail(ErrorKind::ShapeMismatch, ctx.op_type() + " " + name + " shape " + shape_to_string(ps) +
                                           " does not match blocks of " + std::to_string(block) + " over x " +
                                           shape_to_string(xs));
  };
  for (size_t k = 0; k < xs.size(); ++k) {
    if (static_cast<int64_t>(k) != axis) {
      if (!ctx.expect(sym_eq(ps[k], xs[k]), "quantization: blocked parameter shape")) mismatch();
      continue;
    }
    // The spec accepts ceil(D/B) <= blocks <= ceil(D/(B-1)) - 1 on the blocked axis.
    if (ps[k].is_static() && xs[k].is_static()) {
      const int64_t d = xs[k].value(), blocks = ps[k].value();
      const int64_t lo = (d + block - 1) / block;
      const int64_t hi = block == 1 ? d : (d + block - 2) / (block - 1) - 1;
      if (blocks < lo || blocks > hi) mismatch();
    }
  }
}

DType dtype_code(const OpContext& ctx, int64_t code, const char* what) {
  auto dt = dtype_from_onnx(static_cast<int32_t>(code));
  if (!dt || *dt == DType::Undefined)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " " + what + " is not an element type: " +
                                              std::to_string(code));
  return *dt;
}

// QuantizeLinear: x's shape; the type of y_zero_point, uint8 without one,
// or (21) the output_dtype attribute.
void quantize_linear_rule(OpContext& ctx) {
  check_quant_param(ctx, 0, 1);
  check_quant_param(ctx, 0, 2);
  DType dt = ctx.has_input(2) ? ctx.dtype(2) : DType::UInt8;
  if (ctx.opset() >= 21) {
    if (const int64_t code = ctx.attr_int("output_dtype", 0); code != 0) {
      const DType want = dtype_code(ctx, code, "output_dtype");
      if (ctx.has_input(2) && want != dt)
        ctx.fail(ErrorKind::TypeError, "QuantizeLinear output_dtype " + std::string(dtype_name(want)) +
                                           " differs from y_zero_point's " + std::string(dtype_name(dt)));
      dt = want;
    }
  }
  same_shape_as_input(ctx, dt);
}

// DequantizeLinear: x's shape; float32 before 19, the scale's type from 19
// (and an explicit output_dtype from 23).
void dequantize_linear_rule(OpContext& ctx) {
  check_quant_param(ctx, 0, 1);
  check_quant_param(ctx, 0, 2);
  DType dt = ctx.opset() >= 19 ? ctx.dtype(1) : DType::Float32;
  if (ctx.opset() >= 23)
    if (const int64_t code = ctx.attr_int("output_dtype", 0); code != 0) dt = dtype_code(ctx, code, "output_dtype");
  same_shape_as_input(ctx, dt);
}

// DynamicQuantizeLinear (11): y uint8 like x, scalar float scale and uint8 zero point.
void dynamic_quantize_linear_rule(OpContext& ctx) {
  same_shape_as_input(ctx, DType::UInt8);
  if (ctx.wants_output(1)) ctx.set_tensor(1, DType::Float32, {});
  if (ctx.wants_output(2)) ctx.set_tensor(2, DType::UInt8, {});
}

// MatMulInteger (10): int32 result.
void matmul_integer_rule(OpContext& ctx) { ctx.set_tensor(0, DType::Int32, matmul_shape(ctx, ctx.shape(0), ctx.shape(1))); }

// QLinearMatMul: a (0), b (3); the type of y_zero_point (7).
void qlinear_matmul_rule(OpContext& ctx) { ctx.set_tensor(0, ctx.dtype(7), matmul_shape(ctx, ctx.shape(0), ctx.shape(3))); }

// Conv output shape for x (input ix) and weights w (input iw):
// [N, M, spatial...] with the window sizes of conv_shape.h.
SymShape conv_shape(OpContext& ctx, size_t ix, size_t iw) {
  const SymShape& x = ctx.shape(ix);
  const SymShape& w = ctx.shape(iw);
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " input must have rank >= 3, got " + shape_to_string(x));
  if (w.size() != x.size())
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " weights " + shape_to_string(w) + " must have the input's rank " +
                                         std::to_string(x.size()));
  const int64_t group = ctx.attr_int("group", 1);
  if (group < 1)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " group must be positive, got " + std::to_string(group));
  require(ctx, sym_eq(x[1], w[1] * SymInt(group)), "Conv: input channels equal weight channels * group",
          ErrorKind::ShapeMismatch, ctx.op_type() + ": input channels " + x[1].to_python() + " != weight channels " +
          w[1].to_python() + " * group " + std::to_string(group));
  const size_t spatial = x.size() - 2;
  SymShape out{x[0], w[0]};
  std::vector<int64_t> kernel;
  if (auto ks = ctx.attr_ints("kernel_shape")) {
    kernel = *ks;
    if (kernel.size() != spatial)
      ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " kernel_shape has " + std::to_string(kernel.size()) +
                                                " entries for " + std::to_string(spatial) + " spatial dims");
    for (size_t i = 0; i < spatial; ++i)
      require(ctx, sym_eq(w[2 + i], kernel[i]), "Conv: kernel_shape matches the weights", ErrorKind::ShapeMismatch,
              ctx.op_type() + " kernel_shape does not match weights " + shape_to_string(w));
  } else if (auto wk = static_shape(std::span<const SymInt>(w).subspan(2))) {
    kernel = *wk;
  } else {
    // A symbolic kernel size: the window formula needs it as a number.
    for (size_t i = 0; i < spatial; ++i)
      out.push_back(ctx.unknown_size(ctx.op_type() + ": kernel size from symbolic weight dims " + shape_to_string(w)));
    return out;
  }
  const WindowAttrs attrs = read_window_attrs(ctx, std::move(kernel));
  SymShape sizes = window_output_sizes(ctx, std::span<const SymInt>(x).subspan(2), attrs);
  out.insert(out.end(), sizes.begin(), sizes.end());
  return out;
}

// ConvInteger (10): int32 result.
void conv_integer_rule(OpContext& ctx) { ctx.set_tensor(0, DType::Int32, conv_shape(ctx, 0, 1)); }

// QLinearConv: x (0), w (3); the type of y_zero_point (7); optional bias (8) of M entries.
void qlinear_conv_rule(OpContext& ctx) {
  SymShape out = conv_shape(ctx, 0, 3);
  if (ctx.has_input(8)) {
    const SymShape& b = ctx.shape(8);
    if (b.size() != 1 || !ctx.expect(sym_eq(b[0], out[1]), "QLinearConv: bias length equals output channels"))
      ctx.fail(ErrorKind::ShapeMismatch, "QLinearConv bias " + shape_to_string(b) + " must be 1-D of " +
                                             out[1].to_python());
  }
  ctx.set_tensor(0, ctx.dtype(7), std::move(out));
}

}  // namespace

void register_quantization_ops(OpRegistry& r) {
  r.add("", "QuantizeLinear", quantize_linear_rule);
  r.add("", "DequantizeLinear", dequantize_linear_rule);
  r.add("", "DynamicQuantizeLinear", dynamic_quantize_linear_rule);
  r.add("", "MatMulInteger", matmul_integer_rule);
  r.add("", "QLinearMatMul", qlinear_matmul_rule);
  r.add("", "ConvInteger", conv_integer_rule);
  r.add("", "QLinearConv", qlinear_conv_rule);
}

}  // namespace fakeprop::onnx::ops
