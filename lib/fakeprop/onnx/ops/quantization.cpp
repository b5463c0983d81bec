// Quantization operators: QuantizeLinear / DequantizeLinear (per-tensor,
// per-axis from 13, blocked from 21), DynamicQuantizeLinear, the integer
// and QLinear forms of MatMul and Conv; and the com.microsoft quantized ops
// that ONNX Runtime's quantizer emits (QLinearAdd, QGemm, QAttention's
// integer MatMuls, ...), whose rules live here beside their ONNX relatives.
#include <algorithm>

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
  const std::string name = "'" + ctx.input_name(param) + "'";
  const int64_t block = ctx.declares_attribute("block_size") ? ctx.attr_int("block_size") : 0;  // 21+
  if (block < 0) ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " block_size is negative");
  if (ps.empty() || (ps.size() == 1 && ps[0].is_static() && ps[0].value() == 1 && block == 0)) return;
  if (!ctx.declares_attribute("axis"))  // per-axis parameters come with the axis attribute (13)
    ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + " " + name + " must be a scalar before opset 13, got " +
                                          shape_to_string(ps));
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(xs.size()));
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
  if (ctx.declares_attribute("output_dtype")) {  // 21+
    if (const int64_t code = ctx.attr_int("output_dtype"); code != 0) {
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
template <bool scale_typed>
void dequantize_linear_rule(OpContext& ctx) {
  check_quant_param(ctx, 0, 1);
  check_quant_param(ctx, 0, 2);
  DType dt = scale_typed ? ctx.dtype(1) : DType::Float32;
  if (ctx.declares_attribute("output_dtype"))  // 23+
    if (const int64_t code = ctx.attr_int("output_dtype"); code != 0) dt = dtype_code(ctx, code, "output_dtype");
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

SymShape conv_shape(OpContext& ctx, size_t ix, size_t iw) {
  return conv_output_shape(ctx, ctx.shape(ix), ctx.shape(iw));
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


// ---------------------------------------------------------------- com.microsoft

constexpr std::string_view kMs = "com.microsoft";

void same_as_input_rule(OpContext& ctx) { same_as_input(ctx); }

// QuantizeLinear (com.microsoft): the zero point's type, uint8 without one;
// per-tensor or per-axis parameters with no opset gate.
void ms_quantize_linear_rule(OpContext& ctx) {
  same_shape_as_input(ctx, ctx.has_input(2) ? ctx.dtype(2) : DType::UInt8);
}

// DequantizeLinear (com.microsoft): the scale's type (float or float16).
void ms_dequantize_linear_rule(OpContext& ctx) { same_shape_as_input(ctx, ctx.dtype(1)); }

// MatMulInteger16: ORT's inference sets int32 whatever the operand signs.
void matmul_integer16_rule(OpContext& ctx) {
  ctx.set_tensor(0, DType::Int32, matmul_shape(ctx, ctx.shape(0), ctx.shape(1)));
}

// MatMulIntegerToFloat: an integer product rescaled to a_scale's float type.
void matmul_integer_to_float_rule(OpContext& ctx) {
  ctx.set_tensor(0, ctx.dtype(2), matmul_shape(ctx, ctx.shape(0), ctx.shape(1)));
}

// DynamicQuantizeMatMul: float A quantized on the fly times quantized B -> A's type.
void dynamic_quantize_matmul_rule(OpContext& ctx) {
  ctx.set_tensor(0, ctx.dtype(0), matmul_shape(ctx, ctx.shape(0), ctx.shape(1)));
}

// QLinearAdd / QLinearMul: A (0) and B (3) broadcast; A's type.
void qlinear_binary_rule(OpContext& ctx) {
  SymShape out = broadcast_inputs(ctx, {0, 3});
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// QLinearWhere: condition (0), X (1), Y (4) broadcast; X's type.
void qlinear_where_rule(OpContext& ctx) {
  SymShape out = broadcast_inputs(ctx, {0, 1, 4});
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(1), std::move(out));
}

// QLinearConcat: Y_scale, Y_zero_point, then (tensor, scale, zero point)
// triples; the tensors concatenate on axis into Y_zero_point's type.
void qlinear_concat_rule(OpContext& ctx) {
  if (ctx.num_inputs() < 5 || (ctx.num_inputs() - 2) % 3 != 0)
    ctx.fail(ErrorKind::InvalidArgument, "QLinearConcat takes Y_scale, Y_zero_point and (x, scale, zero point) triples");
  const SymShape& first = ctx.shape(2);
  const int64_t rank = static_cast<int64_t>(first.size());
  const size_t axis = static_cast<size_t>(normalize_axis(ctx, ctx.required_attr_int("axis"), rank));
  SymShape out = first;
  for (size_t i = 5; i < ctx.num_inputs(); i += 3) {
    const SymShape& s = ctx.shape(i);
    if (static_cast<int64_t>(s.size()) != rank)
      ctx.fail(ErrorKind::ShapeMismatch, "QLinearConcat inputs must have the same rank: " + shape_to_string(first) +
                                             " vs " + shape_to_string(s));
    for (size_t d = 0; d < s.size(); ++d)
      if (d != axis) require_equal(ctx, s[d], out[d], "QLinearConcat: inputs agree off the axis");
    out[axis] = out[axis] + s[axis];
  }
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(1), std::move(out));
}

// QLinearAveragePool: AveragePool's window over NCHW, or NHWC with channels_last.
void qlinear_average_pool_rule(OpContext& ctx) {
  const bool nhwc = ctx.attr_int("channels_last", 0) != 0;
  const SymShape& x = ctx.shape(0);
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, "QLinearAveragePool needs input of rank >= 3, got " + shape_to_string(x));
  auto kernel = ctx.attr_ints("kernel_shape");
  if (!kernel || kernel->size() != x.size() - 2)
    ctx.fail(ErrorKind::InvalidAttribute, "QLinearAveragePool needs one kernel_shape entry per spatial dim");
  const SymShape nchw = nhwc ? to_nchw(x) : x;
  const WindowAttrs attrs = read_window_attrs(ctx, std::move(*kernel), false, true);
  SymShape out = {nchw[0], nchw[1]};
  SymShape sizes = window_output_sizes(ctx, std::span<const SymInt>(nchw).subspan(2), attrs);
  out.insert(out.end(), sizes.begin(), sizes.end());
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), nhwc ? to_nhwc(out) : std::move(out));
}

// QLinearGlobalAveragePool: every spatial dim becomes 1 (the last dim is
// the channels with channels_last).
void qlinear_global_average_pool_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, "QLinearGlobalAveragePool needs input of rank >= 3, got " + shape_to_string(x));
  const bool nhwc = ctx.attr_int("channels_last", 0) != 0;
  SymShape out(x.size(), SymInt(1));
  out[0] = x[0];
  if (nhwc) out.back() = x.back();
  else out[1] = x[1];
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// QLinearConv (com.microsoft): QLinearConv's inputs; channels_last reads x
// and writes y as NHWC (the weights stay M x C/group x k...).
void ms_qlinear_conv_rule(OpContext& ctx) {
  if (ctx.attr_int("channels_last", 0) == 0) return qlinear_conv_rule(ctx);
  const SymShape& x = ctx.shape(0);
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, "QLinearConv input must have rank >= 3, got " + shape_to_string(x));
  SymShape out = conv_output_shape(ctx, to_nchw(x), ctx.shape(3));
  ctx.set_tensor(0, ctx.dtype(7), to_nhwc(out));
}

// QLinearReduceMean: ReduceMean over the `axes` attribute, keepdims required.
void qlinear_reduce_mean_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const auto axes_attr = ctx.attr_ints("axes");
  if (!axes_attr) ctx.fail(ErrorKind::MissingAttribute, "QLinearReduceMean needs attribute 'axes'");
  const auto axes = normalize_axes(ctx, *axes_attr, static_cast<int64_t>(x.size()));
  const bool keep = ctx.required_attr_int("keepdims") != 0;
  SymShape out;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (!reduced) out.push_back(x[d]);
    else if (keep) out.push_back(1);
  }
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// QGemm: A (0) and B (3) 2-D with transA/transB; float output, or the type
// of y_zero_point (8) when it is given.
void qgemm_rule(OpContext& ctx) {
  SymShape out = gemm_output(ctx, 0, 3, "QGemm");
  const DType dt = ctx.has_input(8) ? ctx.dtype(8) : DType::Float32;
  ctx.set_tensor(0, dt, std::move(out));
}

// GatherBlockQuantized: Gather on gather_axis; the output is dequantized to
// the scales' type, and uint8 data packs 8 / bits values per byte along
// quantize_axis, which the output unpacks.
void gather_block_quantized_rule(OpContext& ctx) {
  const SymShape& data = ctx.shape(0);
  const SymShape& idx = ctx.shape(1);
  const int64_t r = static_cast<int64_t>(data.size());
  const size_t gather = static_cast<size_t>(normalize_axis(ctx, ctx.attr_int("gather_axis", 0), r));
  const size_t quant = static_cast<size_t>(normalize_axis(ctx, ctx.attr_int("quantize_axis", 1), r));
  const int64_t bits = ctx.attr_int("bits", 4);
  int64_t per_byte = 1;
  if (ctx.dtype(0) == DType::UInt8) {
    if (bits != 2 && bits != 4 && bits != 8)
      ctx.fail(ErrorKind::InvalidAttribute, "GatherBlockQuantized bits must be 2, 4 or 8 for uint8 data");
    per_byte = 8 / bits;
  }
  if (per_byte > 1 && gather == quant)
    ctx.fail(ErrorKind::InvalidAttribute, "GatherBlockQuantized: packed data needs gather_axis != quantize_axis");
  SymShape out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(gather));
  out.insert(out.end(), idx.begin(), idx.end());
  for (size_t d = gather + 1; d < data.size(); ++d) out.push_back(d == quant ? data[d] * SymInt(per_byte) : data[d]);
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(2), std::move(out));
}

// MatMulBnb4: A (..., K) times the 4-bit (N, K) weight, transposed by
// default -> (..., N); with transB = 0 A is (..., N) and the output (..., K).
void matmul_bnb4_rule(OpContext& ctx) {
  const SymShape& a = ctx.shape(0);
  if (a.empty()) ctx.fail(ErrorKind::InvalidRank, "MatMulBnb4 input A must have rank >= 1");
  const int64_t k = ctx.required_attr_int("K"), n = ctx.required_attr_int("N");
  const bool trans_b = ctx.attr_int("transB", 1) != 0;
  require_equal(ctx, a.back(), trans_b ? k : n, "MatMulBnb4: A's last dim matches B");
  SymShape out = a;
  out.back() = trans_b ? n : k;
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

}  // namespace

std::span<const OpRuleEntry> quantization_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {"", "QuantizeLinear", quantize_linear_rule},
      {"", "DequantizeLinear", dequantize_linear_rule<false>},
      {"", "DequantizeLinear", dequantize_linear_rule<true>, 19},
      {"", "DynamicQuantizeLinear", dynamic_quantize_linear_rule},
      {"", "MatMulInteger", matmul_integer_rule},
      {"", "QLinearMatMul", qlinear_matmul_rule},
      {"", "ConvInteger", conv_integer_rule},
      {"", "QLinearConv", qlinear_conv_rule},
      {kMs, "QuantizeLinear", ms_quantize_linear_rule},
      {kMs, "DequantizeLinear", ms_dequantize_linear_rule},
      {kMs, "MatMulInteger16", matmul_integer16_rule},
      {kMs, "MatMulIntegerToFloat", matmul_integer_to_float_rule},
      {kMs, "DynamicQuantizeMatMul", dynamic_quantize_matmul_rule},
      {kMs, "QLinearAdd", qlinear_binary_rule},
      {kMs, "QLinearMul", qlinear_binary_rule},
      {kMs, "QLinearSigmoid", same_as_input_rule},
      {kMs, "QLinearLeakyRelu", same_as_input_rule},
      {kMs, "QLinearSoftmax", same_as_input_rule},
      {kMs, "QLinearWhere", qlinear_where_rule},
      {kMs, "QLinearConcat", qlinear_concat_rule},
      {kMs, "QLinearAveragePool", qlinear_average_pool_rule},
      {kMs, "QLinearGlobalAveragePool", qlinear_global_average_pool_rule},
      {kMs, "QLinearConv", ms_qlinear_conv_rule},
      {kMs, "QLinearReduceMean", qlinear_reduce_mean_rule},
      {kMs, "QGemm", qgemm_rule},
      {kMs, "GatherBlockQuantized", gather_block_quantized_rule},
      {kMs, "MatMulBnb4", matmul_bnb4_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
