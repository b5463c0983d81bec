// Neural-network ops: convolution, matrix products, normalizations, pooling.
// Output layouts follow torch/_meta_registrations.py and the structured
// meta kernels, including their CPU / CUDA differences.
#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"

namespace fakeprop::fx::ops {

namespace {

std::vector<const TensorMeta*> present(std::initializer_list<const TensorMeta*> ts) {
  std::vector<const TensorMeta*> out;
  for (const TensorMeta* t : ts)
    if (t) out.push_back(t);
  return out;
}

// A per-dim parameter list: one value for every dim, or a single value repeated.
std::vector<SymInt> per_dim(OpContext& ctx, size_t pos, std::string_view name, size_t n,
                            std::optional<std::vector<SymInt>> dflt = std::nullopt) {
  std::vector<SymInt> v = ctx.int_list(pos, name, std::move(dflt));
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n)
    ctx.fail("invalid_argument", ctx.target() + ": expected " + std::string(name) + " to have " + std::to_string(n) +
                                     " elements, got " + std::to_string(v.size()));
  return v;
}

bool suggests_channels_last(OpContext& ctx, const TensorMeta& t) {
  return t.dim() == 4 && suggest_memory_format(t, ctx.env()) == MemoryFormat::ChannelsLast;
}

// ---- convolution ----

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
void convolution(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor(0, "input");
  const TensorMeta& weight = ctx.tensor(1, "weight");
  const TensorMeta* bias = ctx.optional_tensor(2, "bias");
  if (input.dim() < 3 || weight.dim() != input.dim())
    ctx.fail("invalid_argument", "convolution: expected input and weight of the same rank >= 3, got input " +
                                     text(input.sizes) + " and weight " + text(weight.sizes));
  const size_t spatial = static_cast<size_t>(input.dim() - 2);
  const std::vector<SymInt> stride = per_dim(ctx, 3, "stride", spatial);
  const std::vector<SymInt> padding = per_dim(ctx, 4, "padding", spatial);
  const std::vector<SymInt> dilation = per_dim(ctx, 5, "dilation", spatial);
  const bool transposed = ctx.bool_arg(6, "transposed");
  const int64_t groups = static_int(ctx, 8, "groups", 1);
  if (groups <= 0) ctx.fail("invalid_argument", "non-positive groups is not supported");
  const Device device = common_device(present({&input, &weight, bias}), ctx.target());
  if (weight.dtype != input.dtype)
    ctx.fail("type_error", "Input type (" + dtype_title(input.dtype) + ") and weight type (" +
                               dtype_title(weight.dtype) + ") should be the same");

  SymShape out{input.sizes[0]};
  const char* why = "convolution";
  if (!transposed) {
    if (!same_size(ctx, weight.sizes[1] * groups, input.sizes[1], why))
      ctx.fail("shape_mismatch", "Given groups=" + std::to_string(groups) + ", weight of size " + text(weight.sizes) +
                                     ", expected input" + text(input.sizes) + " to have " +
                                     text(weight.sizes[1] * groups) + " channels, but got " + text(input.sizes[1]) +
                                     " channels instead");
    out.push_back(weight.sizes[0]);
    for (size_t i = 0; i < spatial; ++i) {
      const SymInt& k = weight.sizes[i + 2];
      out.push_back(floordiv(input.sizes[i + 2] + padding[i] * 2 - dilation[i] * (k - 1) - 1, stride[i]) + 1);
    }
  } else {
    const std::vector<SymInt> output_padding = per_dim(ctx, 7, "output_padding", spatial);
    if (!same_size(ctx, weight.sizes[0], input.sizes[1], why))
      ctx.fail("shape_mismatch", "Given transposed=1, weight of size " + text(weight.sizes) + ", expected input" +
                                     text(input.sizes) + " to have " + text(weight.sizes[0]) +
                                     " channels, but got " + text(input.sizes[1]) + " channels instead");
    out.push_back(weight.sizes[1] * groups);
    for (size_t i = 0; i < spatial; ++i) {
      const SymInt& k = weight.sizes[i + 2];
      out.push_back((input.sizes[i + 2] - 1) * stride[i] - padding[i] * 2 + dilation[i] * (k - 1) +
                    output_padding[i] + 1);
    }
  }
  out = simplified(ctx, std::move(out));
  check_non_negative(ctx, out);
  for (const SymInt& s : out)
    if (!s.is_static()) require(ctx, sym_ge(s, 0), why, "invalid_argument", "convolution output size is negative");
  // meta_conv: channels_last when the input suggests it; on CUDA also when the weight does.
  const bool channels_last = suggests_channels_last(ctx, input) ||
                             (device.is_cuda() && suggests_channels_last(ctx, weight));
  set_tensor(ctx, empty_tensor(ctx, std::move(out), input.dtype, device,
                               channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous));
}

// ---- matrix products ----

void check_same_dtype(OpContext& ctx, const TensorMeta& a, const TensorMeta& b, const char* what) {
  if (a.dtype != b.dtype)
    ctx.fail("type_error", std::string("expected ") + what + " to have the same dtype, but got: " +
                               std::string(dtype_name(a.dtype)) + " != " + std::string(dtype_name(b.dtype)));
}

void mm(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor(0, "self");
  const TensorMeta& b = ctx.tensor(1, "mat2");
  const Device device = common_device(present({&a, &b}), ctx.target());
  if (a.dim() != 2) ctx.fail("invalid_argument", "self must be a matrix");
  if (b.dim() != 2) ctx.fail("invalid_argument", "mat2 must be a matrix");
  if (!same_size(ctx, a.sizes[1], b.sizes[0], "mm"))
    ctx.fail("shape_mismatch", "mat1 and mat2 shapes cannot be multiplied (" + text(a.sizes[0]) + "x" +
                                   text(a.sizes[1]) + " and " + text(b.sizes[0]) + "x" + text(b.sizes[1]) + ")");
  check_same_dtype(ctx, a, b, "mat1 and mat2");
  set_tensor(ctx, empty_tensor(ctx, {a.sizes[0], b.sizes[1]}, a.dtype, device));
}

// addmm(self, mat1, mat2, *, beta, alpha): the structured meta checks the
// matrices only; self's broadcast is checked by the kernel, not by fake tensors.
void addmm(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const TensorMeta& a = ctx.tensor(1, "mat1");
  const TensorMeta& b = ctx.tensor(2, "mat2");
  const Device device = common_device(present({&self, &a, &b}), ctx.target());
  if (a.dim() != 2) ctx.fail("invalid_argument", "mat1 must be a matrix, got " + std::to_string(a.dim()) + "-D tensor");
  if (b.dim() != 2) ctx.fail("invalid_argument", "mat2 must be a matrix, got " + std::to_string(b.dim()) + "-D tensor");
  if (!same_size(ctx, a.sizes[1], b.sizes[0], "addmm"))
    ctx.fail("shape_mismatch", "mat1 and mat2 shapes cannot be multiplied (" + text(a.sizes[0]) + "x" +
                                   text(a.sizes[1]) + " and " + text(b.sizes[0]) + "x" + text(b.sizes[1]) + ")");
  check_same_dtype(ctx, a, b, "mat1 and mat2");
  check_same_dtype(ctx, self, a, "self and mat2");
  set_tensor(ctx, empty_tensor(ctx, {a.sizes[0], b.sizes[1]}, a.dtype, device));
}

// bmm(self, mat2) and baddbmm(self, batch1, batch2).
void bmm_like(OpContext& ctx, const TensorMeta& a, const TensorMeta& b, std::vector<const TensorMeta*> all) {
  const Device device = common_device(all, ctx.target());
  if (a.dim() != 3) ctx.fail("invalid_argument", "batch1 must be a 3D tensor");
  if (b.dim() != 3) ctx.fail("invalid_argument", "batch2 must be a 3D tensor");
  if (!same_size(ctx, a.sizes[0], b.sizes[0], "bmm") || !same_size(ctx, a.sizes[2], b.sizes[1], "bmm"))
    ctx.fail("shape_mismatch", "Expected size for first two dimensions of batch2 tensor to be: [" + text(a.sizes[0]) +
                                   ", " + text(a.sizes[2]) + "] but got: [" + text(b.sizes[0]) + ", " +
                                   text(b.sizes[1]) + "].");
  check_same_dtype(ctx, a, b, "batch1 and batch2");
  set_tensor(ctx, empty_tensor(ctx, {a.sizes[0], a.sizes[1], b.sizes[2]}, a.dtype, device));
}
void bmm(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor(0, "self");
  const TensorMeta& b = ctx.tensor(1, "mat2");
  bmm_like(ctx, a, b, {&a, &b});
}
void baddbmm(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const TensorMeta& a = ctx.tensor(1, "batch1");
  const TensorMeta& b = ctx.tensor(2, "batch2");
  bmm_like(ctx, a, b, {&self, &a, &b});
}

// matmul (CompositeImplicit: seen in torch.export graphs): numpy rules.
void matmul(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor(0, "self");
  const TensorMeta& b = ctx.tensor(1, "other");
  const Device device = common_device(present({&a, &b}), ctx.target());
  if (a.dim() == 0 || b.dim() == 0)
    ctx.fail("invalid_argument", "both arguments to matmul need to be at least 1D, but they are " +
                                     std::to_string(a.dim()) + "D and " + std::to_string(b.dim()) + "D");
  check_same_dtype(ctx, a, b, "both arguments to matmul");
  const SymInt& k_a = a.sizes.back();
  const SymInt& k_b = b.dim() == 1 ? b.sizes[0] : b.sizes[static_cast<size_t>(b.dim() - 2)];
  if (!same_size(ctx, k_a, k_b, "matmul"))
    ctx.fail("shape_mismatch", "mat1 and mat2 shapes cannot be multiplied (" + text(a.sizes) + " and " +
                                   text(b.sizes) + ")");
  SymShape batch_a(a.sizes.begin(), a.sizes.end() - std::min<int64_t>(a.dim(), 2));
  SymShape batch_b(b.sizes.begin(), b.sizes.end() - std::min<int64_t>(b.dim(), 2));
  SymShape out = broadcast_shapes(batch_a, batch_b, ctx.env());
  if (a.dim() >= 2) out.push_back(a.sizes[static_cast<size_t>(a.dim() - 2)]);
  if (b.dim() >= 2) out.push_back(b.sizes.back());
  set_tensor(ctx, empty_tensor(ctx, std::move(out), a.dtype, device));
}

// linear(input, weight, bias=None): input[..., in] x weight[out, in]^T.
void linear(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor(0, "input");
  const TensorMeta& weight = ctx.tensor(1, "weight");
  const TensorMeta* bias = ctx.optional_tensor(2, "bias");
  const Device device = common_device(present({&input, &weight, bias}), ctx.target());
  if (input.dim() == 0 || weight.dim() < 1 || weight.dim() > 2)
    ctx.fail("invalid_argument", "linear: bad ranks, input " + text(input.sizes) + " and weight " + text(weight.sizes));
  const SymInt& in_features = weight.sizes.back();
  if (!same_size(ctx, input.sizes.back(), in_features, "linear"))
    ctx.fail("shape_mismatch", "mat1 and mat2 shapes cannot be multiplied (" + text(input.sizes) + " and " +
                                   text(weight.sizes) + "^T)");
  check_same_dtype(ctx, input, weight, "input and weight");
  SymShape out(input.sizes.begin(), input.sizes.end() - 1);
  if (weight.dim() == 2) out.push_back(weight.sizes[0]);
  set_tensor(ctx, empty_tensor(ctx, std::move(out), input.dtype, device));
}

// ---- normalizations ----

DType computation_dtype(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t; }

// The elementwise output of a normalization over `input` (follows input's layout).
TensorValue normalized_output(OpContext& ctx, const TensorMeta& input, Device device) {
  const TensorMeta* ops[] = {&input};
  SymShape strides = elementwise_output_strides(ops, input.sizes, ctx.env());
  return ctx.new_tensor(input.sizes, input.dtype, device, simplified(ctx, std::move(strides)));
}

// The three outputs of batch norm as current PyTorch's native_batch_norm_helper
// (torch/_decomp/decompositions.py, 2.x) gives them: in training the batch
// statistics [C]; in eval CUDA returns the running statistics [C] and CPU
// returns empty [0] tensors; on CPU the statistics take the input dtype, on
// other devices the computation dtype (float32 for half inputs). torch 1.13
// returned [C] float32 on CPU in eval too.
std::vector<TensorValue> batch_norm_outputs(OpContext& ctx, const TensorMeta& input, const TensorMeta* weight,
                                            const TensorMeta* bias, const TensorMeta* running_mean,
                                            const TensorMeta* running_var, bool training, bool functional) {
  if (input.dim() < 2)
    ctx.fail("invalid_argument", "batch_norm: expected at least 2D input (got " + std::to_string(input.dim()) + "D)");
  const Device device = common_device(present({&input, weight, bias, running_mean, running_var}), ctx.target());
  if (!training && (!running_mean || !running_var))
    ctx.fail("invalid_argument", "running_mean and running_var must not be None in eval mode");
  const SymInt channels = input.sizes[1];
  for (const TensorMeta* p : {weight, bias, running_mean, running_var})
    if (p && (p->dim() != 1 || !same_size(ctx, p->sizes[0], channels, "batch_norm")))
      ctx.fail("shape_mismatch", "batch_norm: expected a parameter of shape [" + text(channels) + "], got " +
                                     text(p->sizes));
  const DType compute = computation_dtype(input.dtype);
  const DType stats_dtype = device.is_cpu() ? input.dtype : compute;
  std::vector<TensorValue> outs;
  outs.push_back(normalized_output(ctx, input, device));
  const bool empty_stats = !training && device.is_cpu();
  const SymShape stats_shape{empty_stats ? SymInt(0) : channels};
  outs.push_back(empty_tensor(ctx, stats_shape, stats_dtype, device));
  outs.push_back(empty_tensor(ctx, stats_shape, stats_dtype, device));
  if (functional) {
    auto running = [&](const TensorMeta* r) {
      if (!r) return empty_tensor(ctx, {SymInt(0)}, compute, device);
      const PromotionOperand ops[] = {{compute, OperandKind::Tensor}, {r->dtype, OperandKind::Tensor}};
      const DType d = training ? result_type(ops).value_or(compute) : compute;
      return empty_tensor(ctx, {channels}, d, device);
    };
    outs.push_back(running(running_mean));
    outs.push_back(running(running_var));
  }
  return outs;
}

// native_batch_norm / _native_batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps)
void native_batch_norm(OpContext& ctx) {
  set_tuple(ctx, batch_norm_outputs(ctx, ctx.tensor(0, "input"), ctx.optional_tensor(1, "weight"),
                                    ctx.optional_tensor(2, "bias"), ctx.optional_tensor(3, "running_mean"),
                                    ctx.optional_tensor(4, "running_var"), ctx.bool_arg(5, "training"), false));
}
// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)
void batch_norm_no_stats(OpContext& ctx) {
  set_tuple(ctx, batch_norm_outputs(ctx, ctx.tensor(0, "input"), ctx.optional_tensor(1, "weight"),
                                    ctx.optional_tensor(2, "bias"), nullptr, nullptr, ctx.bool_arg(3, "training"), false));
}
// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps)
void batch_norm_no_training(OpContext& ctx) {
  set_tuple(ctx, batch_norm_outputs(ctx, ctx.tensor(0, "input"), ctx.optional_tensor(1, "weight"),
                                    ctx.optional_tensor(2, "bias"), &ctx.tensor(3, "running_mean"),
                                    &ctx.tensor(4, "running_var"), false, false));
}
// _native_batch_norm_legit_functional: also the new running statistics.
void batch_norm_functional(OpContext& ctx) {
  set_tuple(ctx, batch_norm_outputs(ctx, ctx.tensor(0, "input"), ctx.optional_tensor(1, "weight"),
                                    ctx.optional_tensor(2, "bias"), ctx.optional_tensor(3, "running_mean"),
                                    ctx.optional_tensor(4, "running_var"), ctx.bool_arg(5, "training"), true));
}

// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd),
// as torch/_refs native_layer_norm (2.x): the input is made contiguous, so
// is the output; mean/rstd keep the reduced dims as 1; on CPU they take the
// input dtype, elsewhere the computation dtype (torch 1.13: float32 on both).
void native_layer_norm(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor(0, "input");
  const std::vector<SymInt> normalized = ctx.int_list(1, "normalized_shape");
  const TensorMeta* weight = ctx.optional_tensor(2, "weight");
  const TensorMeta* bias = ctx.optional_tensor(3, "bias");
  const Device device = common_device(present({&input, weight, bias}), ctx.target());
  const auto n = static_cast<int64_t>(normalized.size());
  if (n < 1)
    ctx.fail("invalid_argument", "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                                 "one element, but got normalized_shape = " + text(normalized));
  auto matches = [&](const SymShape& s, size_t from) {
    if (s.size() < from || s.size() - from != normalized.size()) return false;
    for (size_t i = 0; i < normalized.size(); ++i)
      if (!same_size(ctx, s[from + i], normalized[i], "layer_norm")) return false;
    return true;
  };
  if (weight && !matches(weight->sizes, 0))
    ctx.fail("shape_mismatch", "Expected weight to be of same shape as normalized_shape, but got weight of shape " +
                                   text(weight->sizes) + " and normalized_shape = " + text(normalized));
  if (bias && !matches(bias->sizes, 0))
    ctx.fail("shape_mismatch", "Expected bias to be of same shape as normalized_shape, but got bias of shape " +
                                   text(bias->sizes) + " and normalized_shape = " + text(normalized));
  if (input.dim() < n || !matches(input.sizes, static_cast<size_t>(input.dim() - n)))
    ctx.fail("shape_mismatch", "Given normalized_shape=" + text(normalized) + ", expected input with shape [*, " +
                                   text(normalized).substr(1) + ", but got input of size" + text(input.sizes));
  SymShape stats(input.sizes.begin(), input.sizes.end() - n);
  stats.resize(input.sizes.size(), SymInt(1));
  const DType stats_dtype = device.is_cpu() ? input.dtype : computation_dtype(input.dtype);
  std::vector<TensorValue> outs;
  outs.push_back(empty_tensor(ctx, input.sizes, input.dtype, device));
  outs.push_back(empty_tensor(ctx, stats, stats_dtype, device));
  outs.push_back(empty_tensor(ctx, stats, stats_dtype, device));
  set_tuple(ctx, std::move(outs));
}

// ---- pooling ----

// pooling_output_shape with ceil_mode and the last-window rule.
SymInt pooled_size(OpContext& ctx, const SymInt& in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                   bool ceil_mode) {
  SymInt out = floordiv(in + pad * 2 - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  out = simplified(ctx, out);
  if (ceil_mode && decide(ctx, sym_ge((out - 1) * stride, in + pad), "pooling ceil_mode")) out = simplified(ctx, out - 1);
  return out;
}

std::pair<int64_t, int64_t> pair_arg(OpContext& ctx, size_t pos, std::string_view name, const char* op,
                                     std::optional<std::vector<SymInt>> dflt = std::nullopt) {
  const std::vector<int64_t> v = static_int_list(ctx, pos, name, std::move(dflt));
  if (v.size() != 1 && v.size() != 2)
    ctx.fail("invalid_argument", std::string(op) + ": " + std::string(name) +
                                     " must either be a single int, or a tuple of two ints");
  return {v[0], v.size() == 1 ? v[0] : v[1]};
}

// max_pool2d_with_indices(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)
void max_pool2d_with_indices(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor(0, "self");
  const char* op = "max_pool2d";
  const auto [kh, kw] = pair_arg(ctx, 1, "kernel_size", op);
  std::vector<int64_t> stride = static_int_list(ctx, 2, "stride", std::vector<SymInt>{});
  if (stride.size() > 2)
    ctx.fail("invalid_argument", "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  const int64_t dh = stride.empty() ? kh : stride[0];
  const int64_t dw = stride.empty() ? kw : stride.size() == 1 ? stride[0] : stride[1];
  const auto [ph, pw] = pair_arg(ctx, 3, "padding", op, std::vector<SymInt>{0});
  const auto [dilh, dilw] = pair_arg(ctx, 4, "dilation", op, std::vector<SymInt>{1});
  const bool ceil_mode = ctx.bool_arg(5, "ceil_mode", false);
  const MemoryFormat format = suggest_memory_format(input, ctx.env());
  if (format == MemoryFormat::ChannelsLast && input.dim() != 4)
    ctx.fail("invalid_argument", "non-empty 4D (batch mode) tensor expected for input with channels_last layout");
  if (input.dim() != 3 && input.dim() != 4)
    ctx.fail("invalid_argument", "non-empty 3D or 4D (batch mode) tensor expected for input");
  if (kh <= 0 || kw <= 0)
    ctx.fail("invalid_argument", "kernel size should be greater than zero, but got kH: " + std::to_string(kh) +
                                     ", kW: " + std::to_string(kw));
  if (dh <= 0 || dw <= 0)
    ctx.fail("invalid_argument", "stride should be greater than zero, but got dH: " + std::to_string(dh) +
                                     ", dW: " + std::to_string(dw));
  if (dilh <= 0 || dilw <= 0)
    ctx.fail("invalid_argument", "dilation should be greater than zero");
  for (auto [p, k] : {std::pair{ph, kh}, std::pair{pw, kw}})
    if (p < 0 || p > k / 2)
      ctx.fail("invalid_argument", "pad should be at most half of kernel size, but got pad=" + std::to_string(p) +
                                       " and kernel_size=" + std::to_string(k));
  const int64_t r = input.dim();
  const SymInt& in_h = input.sizes[static_cast<size_t>(r - 2)];
  const SymInt& in_w = input.sizes[static_cast<size_t>(r - 1)];
  const SymInt out_h = pooled_size(ctx, in_h, kh, ph, dh, dilh, ceil_mode);
  const SymInt out_w = pooled_size(ctx, in_w, kw, pw, dw, dilw, ceil_mode);
  if (decide(ctx, sym_or(sym_lt(out_h, 1), sym_lt(out_w, 1)), "max_pool2d output size"))
    ctx.fail("invalid_argument", "Given input size: (" + text(input.sizes[static_cast<size_t>(r - 3)]) + "x" +
                                     text(in_h) + "x" + text(in_w) + "). Calculated output size: (" +
                                     text(input.sizes[static_cast<size_t>(r - 3)]) + "x" + text(out_h) + "x" +
                                     text(out_w) + "). Output size is too small");
  SymShape out(input.sizes.begin(), input.sizes.end() - 2);
  out.push_back(out_h);
  out.push_back(out_w);
  set_tuple(ctx, {empty_tensor(ctx, out, input.dtype, input.device, format),
                  empty_tensor(ctx, out, DType::Int64, input.device, format)});
}

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.add("aten.convolution.default", convolution);
  r.add("aten.mm.default", mm);
  r.add("aten.addmm.default", addmm);
  r.add("aten.bmm.default", bmm);
  r.add("aten.baddbmm.default", baddbmm);
  r.add("aten.matmul.default", matmul);
  r.add("aten.linear.default", linear);
  r.add("aten.native_batch_norm.default", native_batch_norm);
  r.add("aten._native_batch_norm_legit.default", native_batch_norm);
  r.add("aten._native_batch_norm_legit.no_stats", batch_norm_no_stats);
  r.add("aten._native_batch_norm_legit_no_training.default", batch_norm_no_training);
  r.add("aten._native_batch_norm_legit_functional.default", batch_norm_functional);
  r.add("aten.native_layer_norm.default", native_layer_norm);
  r.add("aten.max_pool2d_with_indices.default", max_pool2d_with_indices);
}

}  // namespace fakeprop::fx::ops
