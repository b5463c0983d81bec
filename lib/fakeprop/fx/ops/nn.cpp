// Neural-network ops: convolution, matrix products, normalizations, pooling.
// Output layouts follow torch/_meta_registrations.py and the structured
// meta kernels, including their CPU / CUDA differences.
#include <algorithm>
#include <array>
#include <cmath>

#include "fakeprop/fx/ops/composite.h"
#include "fakeprop/fx/ops/families.h"
#include "fakeprop/fx/ops/pointwise_helpers.h"
#include "fakeprop/fx/ops/view_helpers.h"
#include "fakeprop/tensor/shape_functions.h"

namespace fakeprop::fx::ops {

namespace {

std::vector<const TensorMeta*> present(std::initializer_list<const TensorMeta*> ts) {
  std::vector<const TensorMeta*> out;
  for (const TensorMeta* t : ts)
    if (t) out.push_back(t);
  return out;
}

// A per-dim parameter list: one value for every dim, or a single value repeated.
std::vector<SymInt> per_dim(OpContext& ctx, std::string_view name, size_t n,
                            std::optional<std::vector<SymInt>> dflt = std::nullopt) {
  std::vector<SymInt> v = ctx.int_list(name, std::move(dflt));
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n)
    ctx.fail(ErrorKind::InvalidArgument, ctx.target() + ": expected " + std::string(name) + " to have " +
                                             std::to_string(n) + " elements, got " + std::to_string(v.size()));
  return v;
}

bool suggests_channels_last(OpContext& ctx, const TensorMeta& t) {
  return t.dim() == 4 && suggest_memory_format(t, ctx.env()) == MemoryFormat::ChannelsLast;
}

// ---- convolution ----

// The layout of convolution's result (and of convolution_backward's grad_input
// and grad_weight): FakeTensor asks the backend the real kernel would pick.
// 2-D: channels_last when the input or the weight suggests it, on CPU for
// every dtype (mkldnn or the slow kernels), on CUDA only where cuDNN takes it
// (float32 / float16). 3-D: channels_last_3d likewise, but on CPU only for
// float32 (mkldnn; the slow 3-D kernels are contiguous). 1-D convs are asked
// as 2-D ones over a contiguous input and the weight unsqueezed at dim 2, so
// only the weight's layout counts. Else contiguous.
MemoryFormat conv_memory_format(OpContext& ctx, const TensorMeta& input, const TensorMeta& weight,
                                const Device& device) {
  int64_t k = weight.dim();
  if (input.dim() != k || k < 3 || k > 5) return MemoryFormat::Contiguous;
  const TensorMeta* in = &input;
  const TensorMeta* w = &weight;
  TensorMeta w2d;
  if (k == 3) {
    w2d = weight;
    w2d.sizes.insert(w2d.sizes.begin() + 2, SymInt(1));
    w2d.strides.insert(w2d.strides.begin() + 2, weight.sizes[2] * weight.strides[2]);
    in = nullptr;
    w = &w2d;
    k = 4;
  }
  const DType t = input.dtype;
  const bool backend_takes_it = device.is_cuda() ? (t == DType::Float32 || t == DType::Float16)
                                                 : (k == 4 || t == DType::Float32);
  if (!backend_takes_it) return MemoryFormat::Contiguous;
  const MemoryFormat cl = k == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
  const bool suggested = (in && suggest_memory_format(*in, ctx.env()) == cl) || suggest_memory_format(*w, ctx.env()) == cl;
  return suggested ? cl : MemoryFormat::Contiguous;
}

// A fresh convolution result in `format`; for a 1-D conv, channels_last is
// the layout of its 2-D view with the dummy dim squeezed out again.
TensorValue conv_tensor(OpContext& ctx, SymShape sizes, DType dtype, const Device& device, MemoryFormat format) {
  if (format != MemoryFormat::ChannelsLast || sizes.size() != 3)
    return empty_tensor(ctx, std::move(sizes), dtype, device, format);
  sizes = simplified(ctx, std::move(sizes));
  const SymShape four{sizes[0], sizes[1], SymInt(1), sizes[2]};
  const SymShape st = strides_for(four, MemoryFormat::ChannelsLast, &ctx.env());
  return ctx.new_tensor(std::move(sizes), dtype, device, SymShape{st[0], st[1], st[3]});
}

// The parameters of one convolution, as aten.convolution takes them.
struct ConvParams {
  std::vector<SymInt> stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

// What FakeTensor's convolution asks before the meta kernel runs: where
// every input and weight size has a hint it picks the backend the real
// kernel would (torch._C._select_conv_backend), and that decides sizes.
// check_shape_forward: a (non-transposed) kernel no bigger than the padded
// input, dim by dim until one is not (measured, torch 2.15: F.conv2d with a
// 3x3 kernel guards 3 <= H, 3 <= W). Then, on the CPU, ConvParams::use_mkldnn
// for a float32 input, over the 2-D view of a 1-D conv (N, C, 1, W):
//   (strided || dilated || N >= 16 || kW != 1 || kH != 1 || threads > 1) &&
//   (groups > 1 || (kW > 3 && kH > 3) || N > 1 || N*C*H*W > 20480)
// in that order, each comparison a guard where it is symbolic (N*C*H*W of
// the first four dims: N*C*D*H for a 3-D conv); this machine model runs
// more than one thread, as torch.compile's hosts do. Other dtypes take no
// mkldnn there (bfloat16 / float16 only on CPUs with native support).
// torch.export asks none of this (measured, torch 2.15: a 3x3 conv over a
// batch Dim("b", max=64) exports with the range [0, 64], where torch.compile
// guards 2 <= N <= 15): a graph torch.export made skips it.
void select_conv_backend(OpContext& ctx, const TensorMeta& input, const TensorMeta& weight, const ConvParams& p,
                         const Device& device) {
  if (ctx.graph_exported()) return;
  for (const TensorMeta* t : {&input, &weight})
    for (const SymInt& d : t->sizes)
      if (d.is_symbolic() && !ctx.env().hint(d)) return;  // FakeTensor's all_hinted: no backend asked
  const char* why = "convolution backend";
  const size_t spatial = static_cast<size_t>(input.dim() - 2);
  if (!p.transposed)
    for (size_t i = 0; i < spatial; ++i) {
      const SymInt padded = simplified(ctx, input.sizes[i + 2] + p.padding[i] * 2);
      const SymInt kernel = simplified(ctx, p.dilation[i] * (weight.sizes[i + 2] - 1) + 1);
      if (decide(ctx, sym_lt(padded, kernel), why))
        ctx.fail(ErrorKind::ShapeMismatch, "Calculated padded input size per channel: (" + text(padded) +
                                               "). Kernel size: (" + text(kernel) +
                                               "). Kernel size can't be greater than actual input size");
    }
  if (!device.is_cpu() || input.dtype != DType::Float32) return;
  SymShape in = input.sizes, w = weight.sizes;
  std::vector<SymInt> stride = p.stride, dilation = p.dilation;
  if (spatial == 1) {  // view1d_as_2d
    in.insert(in.begin() + 2, SymInt(1));
    w.insert(w.begin() + 2, SymInt(1));
    stride.insert(stride.begin(), SymInt(1));
    dilation.insert(dilation.begin(), SymInt(1));
  }
  auto any_not_one = [&](const std::vector<SymInt>& v) {
    for (const SymInt& x : v)
      if (decide(ctx, sym_ne(x, 1), why)) return true;
    return false;
  };
  const SymInt& kw = w[w.size() - 1];
  const SymInt& kh = w[w.size() - 2];
  // threads > 1 closes the first disjunction, so its later terms only matter for what they ask.
  const bool first = any_not_one(stride) || any_not_one(dilation) || decide(ctx, sym_ge(in[0], 16), why) ||
                     decide(ctx, sym_ne(kw, 1), why) || decide(ctx, sym_ne(kh, 1), why) || true;
  if (!first) return;
  if (p.groups > 1) return;
  if (decide(ctx, sym_gt(kw, 3), why) && decide(ctx, sym_gt(kh, 3), why)) return;
  if (decide(ctx, sym_gt(in[0], 1), why)) return;
  (void)decide(ctx, sym_gt(simplified(ctx, in[0] * in[1] * in[2] * in[3]), 20480), why);
}

// convolution's result for a batched input ([N, C, *spatial]).
TensorValue conv_result(OpContext& ctx, const TensorMeta& input, const TensorMeta& weight, const TensorMeta* bias,
                        const ConvParams& p) {
  if (input.dim() < 3 || weight.dim() != input.dim())
    ctx.fail(ErrorKind::InvalidArgument, "convolution: expected input and weight of the same rank >= 3, got input " +
                                             text(input.sizes) + " and weight " + text(weight.sizes));
  const size_t spatial = static_cast<size_t>(input.dim() - 2);
  for (const std::vector<SymInt>* v : {&p.stride, &p.padding, &p.dilation})
    if (v->size() != spatial)
      ctx.fail(ErrorKind::InvalidArgument, ctx.target() + ": expected " + std::to_string(spatial) +
                                               " values per parameter, got " + std::to_string(v->size()));
  const int64_t groups = p.groups;
  if (groups <= 0) ctx.fail(ErrorKind::InvalidArgument, "non-positive groups is not supported");
  const Device device = common_device(present({&input, &weight, bias}), ctx.target());
  if (weight.dtype != input.dtype)
    ctx.fail(ErrorKind::TypeError, "Input type (" + dtype_title(input.dtype) + ") and weight type (" +
                                       dtype_title(weight.dtype) + ") should be the same");

  SymShape out{input.sizes[0]};
  const char* why = "convolution";
  if (!p.transposed) {
    if (!same_size(ctx, weight.sizes[1] * groups, input.sizes[1], why))
      ctx.fail(ErrorKind::ShapeMismatch, "Given groups=" + std::to_string(groups) + ", weight of size " +
                                             text(weight.sizes) + ", expected input" + text(input.sizes) + " to have " +
                                             text(weight.sizes[1] * groups) + " channels, but got " +
                                             text(input.sizes[1]) + " channels instead");
    out.push_back(weight.sizes[0]);
    for (size_t i = 0; i < spatial; ++i) {
      const SymInt& k = weight.sizes[i + 2];
      out.push_back(conv_output_size(input.sizes[i + 2], k, p.stride[i], p.padding[i] * 2, p.dilation[i]));
    }
  } else {
    if (p.output_padding.size() != spatial)
      ctx.fail(ErrorKind::InvalidArgument, ctx.target() + ": expected output_padding to have " +
                                               std::to_string(spatial) + " elements");
    if (!same_size(ctx, weight.sizes[0], input.sizes[1], why))
      ctx.fail(ErrorKind::ShapeMismatch, "Given transposed=1, weight of size " + text(weight.sizes) +
                                             ", expected input" + text(input.sizes) + " to have " +
                                             text(weight.sizes[0]) + " channels, but got " + text(input.sizes[1]) +
                                             " channels instead");
    out.push_back(weight.sizes[1] * groups);
    for (size_t i = 0; i < spatial; ++i) {
      const SymInt& k = weight.sizes[i + 2];
      out.push_back(conv_transpose_output_size(input.sizes[i + 2], k, p.stride[i], p.padding[i] * 2, p.dilation[i],
                                               p.output_padding[i]));
    }
  }
  out = simplified(ctx, std::move(out));
  // The result's strides as torch's meta makes them (max(1, H - 2) stays a
  // Max there: sympy does not prune it by the ranges the backend's guards
  // narrow), then the backend's questions, then the sizes' checks.
  const bool buildable = std::all_of(out.begin(), out.end(), [](const SymInt& s) { return !s.is_static() || s.value() >= 0; });
  std::optional<TensorValue> result;
  if (buildable)
    result = conv_tensor(ctx, out, input.dtype, device, conv_memory_format(ctx, input, weight, device));
  select_conv_backend(ctx, input, weight, p, device);
  // The meta's own check_shape_forward (calc_conv_nd_return_shape): one
  // torch._check that every padded input dim holds its kernel, a runtime
  // assert over unbacked sizes (u0 + 2 >= 3) where the backend asked nothing.
  if (!p.transposed) {
    SymBool fits(true);
    std::string padded_text, kernel_text;
    for (size_t i = 0; i < spatial; ++i) {
      const SymInt padded = simplified(ctx, input.sizes[i + 2] + p.padding[i] * 2);
      const SymInt kernel = simplified(ctx, p.dilation[i] * (weight.sizes[i + 2] - 1) + 1);
      fits = sym_and(fits, sym_ge(padded, kernel));
      padded_text += (i ? " x " : "") + text(padded);
      kernel_text += (i ? " x " : "") + text(kernel);
    }
    require(ctx, fits, why, ErrorKind::ShapeMismatch, [&] {
      return "Calculated padded input size per channel: (" + padded_text + "). Kernel size: (" + kernel_text +
             "). Kernel size can't be greater than actual input size";
    });
  }
  check_non_negative(ctx, out);
  for (const SymInt& s : out)
    if (!s.is_static())
      require(ctx, sym_ge(s, 0), why, ErrorKind::InvalidArgument, "convolution output size is negative");
  if (result) return std::move(*result);
  return conv_tensor(ctx, std::move(out), input.dtype, device, conv_memory_format(ctx, input, weight, device));
}

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
void convolution(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta& weight = ctx.tensor("weight");
  const TensorMeta* bias = ctx.optional_tensor("bias");
  if (input.dim() < 3 || weight.dim() != input.dim())
    ctx.fail(ErrorKind::InvalidArgument, "convolution: expected input and weight of the same rank >= 3, got input " +
                                             text(input.sizes) + " and weight " + text(weight.sizes));
  const size_t spatial = static_cast<size_t>(input.dim() - 2);
  ConvParams p;
  p.stride = per_dim(ctx, "stride", spatial);
  p.padding = per_dim(ctx, "padding", spatial);
  p.dilation = per_dim(ctx, "dilation", spatial);
  p.transposed = ctx.bool_arg("transposed");
  p.groups = static_int(ctx, "groups", 1);
  if (p.transposed) p.output_padding = per_dim(ctx, "output_padding", spatial);
  set_tensor(ctx, conv_result(ctx, input, weight, bias, p));
}

// conv{1,2,3}d, their .padding overloads (padding "same" / "valid") and
// conv_transpose{1,2,3}d: CompositeImplicit ops that call convolution; an
// unbatched input ([C, *spatial]) runs as a batch of one and the batch dim
// is squeezed out again (aten/src/ATen/native/Convolution.cpp).
template <int Spatial, bool Transposed>
void conv_composite(OpContext& ctx) {
  const TensorMeta& given = ctx.tensor("input");
  const TensorMeta& weight = ctx.tensor("weight");
  const TensorMeta* bias = ctx.optional_tensor("bias");
  const char* name = Transposed ? "conv_transpose" : "conv";
  const std::string op = std::string(name) + std::to_string(Spatial) + "d";
  const bool batched = given.dim() == Spatial + 2;
  if (!batched && given.dim() != Spatial + 1)
    ctx.fail(ErrorKind::InvalidArgument, "Expected " + std::to_string(Spatial + 1) + "D (unbatched) or " +
                                             std::to_string(Spatial + 2) + "D (batched) input to " + op +
                                             ", but got input of size: " + text(given.sizes));
  TensorMeta input = given;
  if (!batched) {  // unsqueeze(0)
    input.sizes.insert(input.sizes.begin(), SymInt(1));
    input.strides.insert(input.strides.begin(), simplified(ctx, given.sizes[0] * given.strides[0]));
  }
  const auto n = static_cast<size_t>(Spatial);
  const std::vector<SymInt> ones(n, SymInt(1)), zeros(n, SymInt(0));
  ConvParams p;
  p.transposed = Transposed;
  p.stride = per_dim(ctx, "stride", n, ones);
  if (Transposed) {
    // conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation)
    p.padding = per_dim(ctx, "padding", n, zeros);
    p.output_padding = per_dim(ctx, "output_padding", n, zeros);
    p.groups = static_int(ctx, "groups", 1);
    p.dilation = per_dim(ctx, "dilation", n, ones);
  } else {
    p.dilation = per_dim(ctx, "dilation", n, ones);
    p.groups = static_int(ctx, "groups", 1);
    if (ctx.declared_type("padding") == ArgType::Str) {  // conv{1,2,3}d.padding
      const std::string mode = ctx.string_arg("padding", "valid");
      if (mode == "valid") {
        p.padding = zeros;
      } else if (mode == "same") {
        // _convolution_mode: each dim pads dilation * (k - 1) in all, half on
        // each side; an odd total pads the input by one more on the right.
        for (const SymInt& s : p.stride)
          if (!same_size(ctx, s, 1, "conv padding='same'"))
            ctx.fail(ErrorKind::InvalidArgument, "padding='same' is not supported for strided convolutions");
        if (weight.dim() != input.dim())
          ctx.fail(ErrorKind::InvalidArgument, op + ": weight of size " + text(weight.sizes) +
                                                   " does not match the input " + text(input.sizes));
        for (size_t i = 0; i < n; ++i) {
          const int64_t k = specialize(ctx, weight.sizes[i + 2], "conv padding='same' kernel size");
          const int64_t total = specialize(ctx, p.dilation[i], "conv padding='same' dilation") * (k - 1);
          p.padding.push_back(total / 2);
          if (total % 2 != 0) input.sizes[i + 2] = simplified(ctx, input.sizes[i + 2] + 1);
        }
      } else {
        ctx.fail(ErrorKind::InvalidArgument, "Invalid padding string: '" + mode + "'");
      }
    } else {
      p.padding = per_dim(ctx, "padding", n, zeros);
    }
  }
  TensorValue out = conv_result(ctx, input, weight, bias, p);
  if (!batched) {  // squeeze(0) of the fresh result
    out.meta.sizes.erase(out.meta.sizes.begin());
    out.meta.strides.erase(out.meta.strides.begin());
  }
  set_tensor(ctx, std::move(out));
}

// ---- matrix products ----

void check_same_dtype(OpContext& ctx, const TensorMeta& a, const TensorMeta& b, const char* what) {
  if (a.dtype != b.dtype)
    ctx.fail(ErrorKind::TypeError, std::string("expected ") + what + " to have the same dtype, but got: " +
                                       std::string(dtype_name(a.dtype)) + " != " + std::string(dtype_name(b.dtype)));
}

void mm(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor("self");
  const TensorMeta& b = ctx.tensor("mat2");
  const Device device = common_device(present({&a, &b}), ctx.target());
  if (a.dim() != 2) ctx.fail(ErrorKind::InvalidArgument, "self must be a matrix");
  if (b.dim() != 2) ctx.fail(ErrorKind::InvalidArgument, "mat2 must be a matrix");
  if (!same_size(ctx, a.sizes[1], b.sizes[0], "mm"))
    ctx.fail(ErrorKind::ShapeMismatch, "mat1 and mat2 shapes cannot be multiplied (" + text(a.sizes[0]) + "x" +
                                           text(a.sizes[1]) + " and " + text(b.sizes[0]) + "x" + text(b.sizes[1]) +
                                           ")");
  check_same_dtype(ctx, a, b, "mat1 and mat2");
  set_tensor(ctx, empty_tensor(ctx, {a.sizes[0], b.sizes[1]}, a.dtype, device));
}

// transformers::grouped_mm_fallback(input [S, K], weight [E, K, N], offs [E])
// -> [S, N]: transformers' MoE experts as one opaque custom op. Its
// register_fake (transformers/integrations/moe.py) asserts the ranks, offs'
// length against E, K against K and an integer offs, and returns a fresh
// contiguous tensor of input's dtype and device.
void grouped_mm_fallback(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta& weight = ctx.tensor("weight");
  const TensorMeta& offs = ctx.tensor("offs");
  auto check = [&](bool ok, const std::string& message) {
    if (!ok) ctx.fail(ErrorKind::AssertionError, message);
  };
  check(input.dim() == 2, "input must be 2D (S, input_dim), got shape " + text(input.sizes));
  check(weight.dim() == 3, "weight must be 3D (num_experts, input_dim, output_dim), got shape " + text(weight.sizes));
  check(offs.dim() == 1, "offs must be 1D (num_experts,), got shape " + text(offs.sizes));
  check(same_size(ctx, offs.sizes[0], weight.sizes[0], "grouped_mm_fallback experts"),
        "offs length " + text(offs.sizes[0]) + " must match number of experts " + text(weight.sizes[0]));
  check(same_size(ctx, input.sizes[1], weight.sizes[1], "grouped_mm_fallback input_dim"),
        "input_dim mismatch: input has " + text(input.sizes[1]) + ", weight has " + text(weight.sizes[1]));
  check(offs.dtype == DType::Int32 || offs.dtype == DType::Int64,
        "offs must be an integer tensor, got torch." + std::string(dtype_name(offs.dtype)));
  set_tensor(ctx, empty_tensor(ctx, {input.sizes[0], weight.sizes[2]}, input.dtype, input.device));
}

// self.expand(target) must succeed: addmm / baddbmm broadcast self to the
// product's shape (fake tensors run that expand).
void check_expandable(OpContext& ctx, const TensorMeta& self, const SymShape& target) {
  (void)expand_to(ctx, self, target);
}

// addmm(self, mat1, mat2, *, beta, alpha): contiguous [n, m]; self must
// broadcast to it.
void addmm(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& a = ctx.tensor("mat1");
  const TensorMeta& b = ctx.tensor("mat2");
  const Device device = common_device(present({&self, &a, &b}), ctx.target());
  if (a.dim() != 2)
    ctx.fail(ErrorKind::InvalidArgument, "mat1 must be a matrix, got " + std::to_string(a.dim()) + "-D tensor");
  if (b.dim() != 2)
    ctx.fail(ErrorKind::InvalidArgument, "mat2 must be a matrix, got " + std::to_string(b.dim()) + "-D tensor");
  if (!same_size(ctx, a.sizes[1], b.sizes[0], "addmm"))
    ctx.fail(ErrorKind::ShapeMismatch, "mat1 and mat2 shapes cannot be multiplied (" + text(a.sizes[0]) + "x" +
                                           text(a.sizes[1]) + " and " + text(b.sizes[0]) + "x" + text(b.sizes[1]) +
                                           ")");
  check_same_dtype(ctx, a, b, "mat1 and mat2");
  check_same_dtype(ctx, self, a, "self and mat2");
  check_expandable(ctx, self, {a.sizes[0], b.sizes[1]});
  set_tensor(ctx, empty_tensor(ctx, {a.sizes[0], b.sizes[1]}, a.dtype, device));
}

// bmm(self, mat2) and baddbmm(self, batch1, batch2).
void bmm_like(OpContext& ctx, const TensorMeta& a, const TensorMeta& b, std::vector<const TensorMeta*> all) {
  const Device device = common_device(all, ctx.target());
  if (a.dim() != 3) ctx.fail(ErrorKind::InvalidArgument, "batch1 must be a 3D tensor");
  if (b.dim() != 3) ctx.fail(ErrorKind::InvalidArgument, "batch2 must be a 3D tensor");
  if (!same_size(ctx, a.sizes[0], b.sizes[0], "bmm") || !same_size(ctx, a.sizes[2], b.sizes[1], "bmm"))
    ctx.fail(ErrorKind::ShapeMismatch, "Expected size for first two dimensions of batch2 tensor to be: [" +
                                           text(a.sizes[0]) + ", " + text(a.sizes[2]) + "] but got: [" +
                                           text(b.sizes[0]) + ", " + text(b.sizes[1]) + "].");
  check_same_dtype(ctx, a, b, "batch1 and batch2");
  set_tensor(ctx, empty_tensor(ctx, {a.sizes[0], a.sizes[1], b.sizes[2]}, a.dtype, device));
}
void bmm(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor("self");
  const TensorMeta& b = ctx.tensor("mat2");
  bmm_like(ctx, a, b, {&a, &b});
}
void baddbmm(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& a = ctx.tensor("batch1");
  const TensorMeta& b = ctx.tensor("batch2");
  bmm_like(ctx, a, b, {&self, &a, &b});
  if (a.dim() == 3 && b.dim() == 3) check_expandable(ctx, self, {a.sizes[0], a.sizes[1], b.sizes[2]});
}

// matmul (CompositeImplicit: seen in torch.export graphs): numpy rules.
void matmul(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor("self");
  const TensorMeta& b = ctx.tensor("other");
  const Device device = common_device(present({&a, &b}), ctx.target());
  if (a.dim() == 0 || b.dim() == 0)
    ctx.fail(ErrorKind::InvalidArgument, "both arguments to matmul need to be at least 1D, but they are " +
                                             std::to_string(a.dim()) + "D and " + std::to_string(b.dim()) + "D");
  check_same_dtype(ctx, a, b, "both arguments to matmul");
  const auto [k_a, k_b] = matmul_contracted_sizes(a.sizes, b.sizes);
  if (!same_size(ctx, k_a, k_b, "matmul"))
    ctx.fail(ErrorKind::ShapeMismatch, "mat1 and mat2 shapes cannot be multiplied (" + text(a.sizes) + " and " +
                                           text(b.sizes) + ")");
  set_tensor(ctx, empty_tensor(ctx, matmul_output_shape(a.sizes, b.sizes, ctx.env()), a.dtype, device));
}

// linear(input, weight, bias=None): input[..., in] x weight[out, in]^T.
void linear(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta& weight = ctx.tensor("weight");
  const TensorMeta* bias = ctx.optional_tensor("bias");
  const Device device = common_device(present({&input, &weight, bias}), ctx.target());
  if (input.dim() == 0 || weight.dim() < 1 || weight.dim() > 2)
    ctx.fail(ErrorKind::InvalidArgument, "linear: bad ranks, input " + text(input.sizes) + " and weight " +
                                             text(weight.sizes));
  const SymInt& in_features = weight.sizes.back();
  if (!same_size(ctx, input.sizes.back(), in_features, "linear"))
    ctx.fail(ErrorKind::ShapeMismatch, "mat1 and mat2 shapes cannot be multiplied (" + text(input.sizes) + " and " +
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
    ctx.fail(ErrorKind::InvalidArgument, "batch_norm: expected at least 2D input (got " + std::to_string(input.dim()) +
                                             "D)");
  const Device device = common_device(present({&input, weight, bias, running_mean, running_var}), ctx.target());
  if (!training && (!running_mean || !running_var))
    ctx.fail(ErrorKind::InvalidArgument, "running_mean and running_var must not be None in eval mode");
  const SymInt channels = input.sizes[1];
  for (const TensorMeta* p : {weight, bias, running_mean, running_var})
    if (p && (p->dim() != 1 || !same_size(ctx, p->sizes[0], channels, "batch_norm")))
      ctx.fail(ErrorKind::ShapeMismatch, "batch_norm: expected a parameter of shape [" + text(channels) + "], got " +
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
  set_tuple(ctx, batch_norm_outputs(ctx, ctx.tensor("input"), ctx.optional_tensor("weight"),
                                    ctx.optional_tensor("bias"), ctx.optional_tensor("running_mean"),
                                    ctx.optional_tensor("running_var"), ctx.bool_arg("training"), false));
}
// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)
void batch_norm_no_stats(OpContext& ctx) {
  set_tuple(ctx, batch_norm_outputs(ctx, ctx.tensor("input"), ctx.optional_tensor("weight"),
                                    ctx.optional_tensor("bias"), nullptr, nullptr, ctx.bool_arg("training"), false));
}
// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps)
void batch_norm_no_training(OpContext& ctx) {
  set_tuple(ctx, batch_norm_outputs(ctx, ctx.tensor("input"), ctx.optional_tensor("weight"),
                                    ctx.optional_tensor("bias"), &ctx.tensor("running_mean"),
                                    &ctx.tensor("running_var"), false, false));
}
// _native_batch_norm_legit_functional: also the new running statistics.
void batch_norm_functional(OpContext& ctx) {
  set_tuple(ctx, batch_norm_outputs(ctx, ctx.tensor("input"), ctx.optional_tensor("weight"),
                                    ctx.optional_tensor("bias"), ctx.optional_tensor("running_mean"),
                                    ctx.optional_tensor("running_var"), ctx.bool_arg("training"), true));
}

// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd),
// as torch/_refs native_layer_norm (2.x): the input is made contiguous, so
// is the output; mean/rstd keep the reduced dims as 1; on CPU they take the
// input dtype, elsewhere the computation dtype (torch 1.13: float32 on both).
// Shared by native_layer_norm and layer_norm (CompositeImplicit: it calls
// native_layer_norm and keeps the output); their arguments agree.
std::vector<TensorValue> layer_norm_outputs(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const std::vector<SymInt> normalized = ctx.int_list("normalized_shape");
  const TensorMeta* weight = ctx.optional_tensor("weight");
  const TensorMeta* bias = ctx.optional_tensor("bias");
  const Device device = common_device(present({&input, weight, bias}), ctx.target());
  const auto n = static_cast<int64_t>(normalized.size());
  if (n < 1)
    ctx.fail(ErrorKind::InvalidArgument,
             "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
             "one element, but got normalized_shape = " + text(normalized));
  auto matches = [&](const SymShape& s, size_t from) {
    if (s.size() < from || s.size() - from != normalized.size()) return false;
    for (size_t i = 0; i < normalized.size(); ++i)
      if (!same_size(ctx, s[from + i], normalized[i], "layer_norm")) return false;
    return true;
  };
  if (weight && !matches(weight->sizes, 0))
    ctx.fail(ErrorKind::ShapeMismatch,
             "Expected weight to be of same shape as normalized_shape, but got weight of shape " + text(weight->sizes) +
                 " and normalized_shape = " + text(normalized));
  if (bias && !matches(bias->sizes, 0))
    ctx.fail(ErrorKind::ShapeMismatch, "Expected bias to be of same shape as normalized_shape, but got bias of shape " +
                                           text(bias->sizes) + " and normalized_shape = " + text(normalized));
  if (input.dim() < n || !matches(input.sizes, static_cast<size_t>(input.dim() - n)))
    ctx.fail(ErrorKind::ShapeMismatch, "Given normalized_shape=" + text(normalized) +
                                           ", expected input with shape [*, " + text(normalized).substr(1) +
                                           ", but got input of size" + text(input.sizes));
  SymShape stats(input.sizes.begin(), input.sizes.end() - n);
  stats.resize(input.sizes.size(), SymInt(1));
  const DType stats_dtype = device.is_cpu() ? input.dtype : computation_dtype(input.dtype);
  std::vector<TensorValue> outs;
  outs.push_back(empty_tensor(ctx, input.sizes, input.dtype, device));
  outs.push_back(empty_tensor(ctx, stats, stats_dtype, device));
  outs.push_back(empty_tensor(ctx, stats, stats_dtype, device));
  return outs;
}
void native_layer_norm(OpContext& ctx) { set_tuple(ctx, layer_norm_outputs(ctx)); }
void layer_norm(OpContext& ctx) { set_tensor(ctx, std::move(layer_norm_outputs(ctx)[0])); }

// rms_norm(input, normalized_shape, weight=None, eps=None): the trailing dims
// must be normalized_shape; a contiguous result of the input's dtype.
void rms_norm(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const std::vector<SymInt> normalized = ctx.int_list("normalized_shape");
  const TensorMeta* weight = ctx.optional_tensor("weight");
  const Device device = common_device(present({&input, weight}), ctx.target());
  const auto n = static_cast<int64_t>(normalized.size());
  bool ok = n >= 1 && input.dim() >= n;
  for (int64_t i = 0; ok && i < n; ++i)
    ok = same_size(ctx, input.sizes[static_cast<size_t>(input.dim() - n + i)], normalized[static_cast<size_t>(i)],
                   "rms_norm");
  if (!ok) {
    std::string want = text(normalized);
    ctx.fail(ErrorKind::ShapeMismatch, "Given normalized_shape=" + want + ", expected input with shape [*" +
                                           want.substr(1) + ", but got input of size" + text(input.sizes));
  }
  if (weight) {
    bool same = weight->dim() == n;
    for (int64_t i = 0; same && i < n; ++i)
      same = same_size(ctx, weight->sizes[static_cast<size_t>(i)], normalized[static_cast<size_t>(i)], "rms_norm");
    if (!same)
      ctx.fail(ErrorKind::ShapeMismatch, "Expected weight to be of same shape as normalized_shape, but got weight of "
                                         "shape " + text(weight->sizes) + " and normalized_shape = " + text(normalized));
  }
  set_tensor(ctx, empty_tensor(ctx, input.sizes, input.dtype, device));
}

// instance_norm(input, weight, bias, running_mean, running_var,
// use_input_stats, momentum, eps, cudnn_enabled): batch_norm over the input
// viewed as [1, N*C, *], viewed back: contiguous.
void instance_norm(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta* running_mean = ctx.optional_tensor("running_mean");
  const TensorMeta* running_var = ctx.optional_tensor("running_var");
  const bool use_input_stats = ctx.bool_arg("use_input_stats");
  if (!use_input_stats && (!running_mean || !running_var))
    ctx.fail(ErrorKind::InvalidArgument,
             "Expected running_mean and running_var to be defined when use_input_stats is false");
  if (input.dim() < 2)
    ctx.fail(ErrorKind::InvalidArgument, "instance_norm: expected at least 2D input, got " + text(input.sizes));
  const Device device = common_device(present({&input, ctx.optional_tensor("weight"), ctx.optional_tensor("bias"),
                                               running_mean, running_var}),
                                      ctx.target());
  set_tensor(ctx, empty_tensor(ctx, input.sizes, input.dtype, device));
}

// batch_norm(input, weight, bias, running_mean, running_var, training,
// momentum, eps, cudnn_enabled): native_batch_norm's output.
void batch_norm(OpContext& ctx) {
  std::vector<TensorValue> outs = batch_norm_outputs(
      ctx, ctx.tensor("input"), ctx.optional_tensor("weight"), ctx.optional_tensor("bias"),
      ctx.optional_tensor("running_mean"), ctx.optional_tensor("running_var"), ctx.bool_arg("training"), false);
  set_tensor(ctx, std::move(outs[0]));
}

// ---- pooling ----

// pooling_output_shape with ceil_mode and the last-window rule (padding on both sides).
SymInt pooled_size(OpContext& ctx, const SymInt& in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                   bool ceil_mode) {
  return sliding_window_size(ctx.env(), in, WindowDim{k, stride, dilation, pad, pad, ceil_mode}, "pooling ceil_mode");
}

std::pair<int64_t, int64_t> pair_arg(OpContext& ctx, std::string_view name, const char* op,
                                     std::optional<std::vector<SymInt>> dflt = std::nullopt) {
  const std::vector<int64_t> v = static_int_list(ctx, name, std::move(dflt));
  if (v.size() != 1 && v.size() != 2)
    ctx.fail(ErrorKind::InvalidArgument, std::string(op) + ": " + std::string(name) +
                                             " must either be a single int, or a tuple of two ints");
  return {v[0], v.size() == 1 ? v[0] : v[1]};
}

// stride at position 2: omitted (the kernel), one int, or two.
std::pair<int64_t, int64_t> pool2d_stride(OpContext& ctx, const char* op, int64_t kh, int64_t kw) {
  const std::vector<int64_t> stride = static_int_list(ctx, "stride", std::vector<SymInt>{});
  if (stride.size() > 2)
    ctx.fail(ErrorKind::InvalidArgument,
             std::string(op) + ": stride must either be omitted, a single int, or a tuple of two ints");
  if (stride.empty()) return {kh, kw};
  return {stride[0], stride.size() == 1 ? stride[0] : stride[1]};
}

void check_pool2d_padding(OpContext& ctx, int64_t ph, int64_t kh, int64_t pw, int64_t kw) {
  for (auto [p, k] : {std::pair{ph, kh}, std::pair{pw, kw}})
    if (p < 0 || p > k / 2)
      ctx.fail(ErrorKind::InvalidArgument, "pad should be at most half of kernel size, but got pad=" +
                                               std::to_string(p) + " and kernel_size=" + std::to_string(k));
}

// max_pool2d_with_indices(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)
struct Pool2dParams {
  int64_t kh, kw, dh, dw, ph, pw, dilh, dilw;
  bool ceil_mode;
};

std::vector<TensorValue> max_pool2d_outputs(OpContext& ctx, const TensorMeta& input, const Pool2dParams& p) {
  const auto [kh, kw, dh, dw, ph, pw, dilh, dilw, ceil_mode] = p;
  const MemoryFormat format = suggest_memory_format(input, ctx.env());
  if (format == MemoryFormat::ChannelsLast && input.dim() != 4)
    ctx.fail(ErrorKind::InvalidArgument,
             "non-empty 4D (batch mode) tensor expected for input with channels_last layout");
  if (input.dim() != 3 && input.dim() != 4)
    ctx.fail(ErrorKind::InvalidArgument, "non-empty 3D or 4D (batch mode) tensor expected for input");
  if (kh <= 0 || kw <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "kernel size should be greater than zero, but got kH: " + std::to_string(kh) +
                                             ", kW: " + std::to_string(kw));
  if (dh <= 0 || dw <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "stride should be greater than zero, but got dH: " + std::to_string(dh) +
                                             ", dW: " + std::to_string(dw));
  if (dilh <= 0 || dilw <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "dilation should be greater than zero");
  check_pool2d_padding(ctx, ph, kh, pw, kw);
  const int64_t r = input.dim();
  const SymInt& in_h = input.sizes[static_cast<size_t>(r - 2)];
  const SymInt& in_w = input.sizes[static_cast<size_t>(r - 1)];
  const SymInt out_h = pooled_size(ctx, in_h, kh, ph, dh, dilh, ceil_mode);
  const SymInt out_w = pooled_size(ctx, in_w, kw, pw, dw, dilw, ceil_mode);
  // pool2d_shape_check's torch._check calls: runtime asserts where a size is
  // unbacked. First no size of the plane dims is 0 (the batch dim may be).
  SymBool nonzero(true);
  for (int64_t d = r == 3 ? 0 : 1; d < r; ++d)
    nonzero = sym_and(nonzero, sympy_nonzero(ctx, input.sizes[static_cast<size_t>(d)]));
  require(ctx, nonzero, "max_pool2d input size", ErrorKind::InvalidArgument, [&] {
    return std::string(format == MemoryFormat::ChannelsLast
                           ? "Expected 4D (batch mode) tensor expected for input with channels_last layout"
                           : "Expected 3D or 4D (batch mode) tensor") +
           " with optional 0 dim batch size for input, but got: torch.Size(" + text(input.sizes) + ")";
  });
  auto too_small = [&] {
    return "Given input size: (" + text(input.sizes[static_cast<size_t>(r - 3)]) + "x" + text(in_h) + "x" + text(in_w) +
           "). Calculated output size: (" + text(input.sizes[static_cast<size_t>(r - 3)]) + "x" + text(out_h) + "x" +
           text(out_w) + "). Output size is too small";
  };
  require(ctx, sym_and(sym_ge(out_w, 1), sym_ge(out_h, 1)), "max_pool2d output size", ErrorKind::InvalidArgument,
          too_small);
  SymShape out(input.sizes.begin(), input.sizes.end() - 2);
  out.push_back(out_h);
  out.push_back(out_w);
  return {empty_tensor(ctx, out, input.dtype, input.device, format),
          empty_tensor(ctx, out, DType::Int64, input.device, format)};
}

void max_pool2d_with_indices(OpContext& ctx) {
  const char* op = "max_pool2d";
  Pool2dParams p;
  std::tie(p.kh, p.kw) = pair_arg(ctx, "kernel_size", op);
  std::tie(p.dh, p.dw) = pool2d_stride(ctx, op, p.kh, p.kw);
  std::tie(p.ph, p.pw) = pair_arg(ctx, "padding", op, std::vector<SymInt>{0});
  std::tie(p.dilh, p.dilw) = pair_arg(ctx, "dilation", op, std::vector<SymInt>{1});
  p.ceil_mode = ctx.bool_arg("ceil_mode", false);
  set_tuple(ctx, max_pool2d_outputs(ctx, ctx.tensor("self"), p));
}

// x.unsqueeze(-2) (a fresh dim of size 1 before the last), and the squeeze of
// that dim out of a fresh result: what the 1-D pooling composites run.
TensorMeta unsqueezed_before_last(OpContext& ctx, const TensorMeta& x) {
  TensorMeta u = x;
  const size_t last = x.sizes.size() - 1;
  u.sizes.insert(u.sizes.begin() + static_cast<int64_t>(last), SymInt(1));
  u.strides.insert(u.strides.begin() + static_cast<int64_t>(last), simplified(ctx, x.sizes[last] * x.strides[last]));
  return u;
}
TensorValue squeezed_before_last(TensorValue t) {
  const auto d = static_cast<int64_t>(t.meta.sizes.size()) - 2;
  t.meta.sizes.erase(t.meta.sizes.begin() + d);
  t.meta.strides.erase(t.meta.strides.begin() + d);
  return t;
}

// max_pool1d(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode):
// for fake tensors the composite runs max_pool2d_with_indices over
// self.unsqueeze(-2) and squeezes the output.
void max_pool1d(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("self");
  if (input.dim() != 2 && input.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "max_pool1d() Expected 2D or 3D input tensor, but got " + text(input.sizes));
  auto one = [&](std::string_view name, std::optional<std::vector<SymInt>> dflt) {
    const std::vector<int64_t> v = static_int_list(ctx, name, std::move(dflt));
    if (v.size() > 1)
      ctx.fail(ErrorKind::InvalidArgument, "max_pool1d() " + std::string(name) + " must be a single int");
    return v;
  };
  const std::vector<int64_t> k = one("kernel_size", std::nullopt);
  if (k.empty()) ctx.fail(ErrorKind::InvalidArgument, "max_pool1d() kernel_size must be a single int");
  const std::vector<int64_t> st = one("stride", std::vector<SymInt>{});
  const std::vector<int64_t> pad = one("padding", std::vector<SymInt>{0});
  const std::vector<int64_t> dil = one("dilation", std::vector<SymInt>{1});
  const Pool2dParams p{1, k[0], 1, st.empty() ? k[0] : st[0], 0, pad[0], 1, dil[0], ctx.bool_arg("ceil_mode", false)};
  std::vector<TensorValue> outs = max_pool2d_outputs(ctx, unsqueezed_before_last(ctx, input), p);
  set_tensor(ctx, squeezed_before_last(std::move(outs[0])));
}


// max_pool2d (CompositeImplicit): max_pool2d_with_indices' output.
void max_pool2d(OpContext& ctx) {
  max_pool2d_with_indices(ctx);
  Value out = (*ctx.result().list)[0];
  ctx.set_result(std::move(out));
}

// avg_pool2d(input, kernel_size, stride=[], padding=0, ceil_mode, count_include_pad, divisor_override)
void avg_pool2d(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("self");
  const char* op = "avg_pool2d";
  const auto [kh, kw] = pair_arg(ctx, "kernel_size", op);
  const auto [dh, dw] = pool2d_stride(ctx, op, kh, kw);
  const auto [ph, pw] = pair_arg(ctx, "padding", op, std::vector<SymInt>{0});
  const bool ceil_mode = ctx.bool_arg("ceil_mode", false);
  if (ctx.has("divisor_override") && static_int(ctx, "divisor_override") == 0)
    ctx.fail(ErrorKind::InvalidArgument, "divisor must be not zero");
  if (input.dim() != 3 && input.dim() != 4)
    ctx.fail(ErrorKind::InvalidArgument, "non-empty 3D or 4D (batch mode) tensor expected for input");
  if (kh <= 0 || kw <= 0 || dh <= 0 || dw <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "avg_pool2d: kernel size and stride should be greater than zero");
  check_pool2d_padding(ctx, ph, kh, pw, kw);
  const int64_t r = input.dim();
  const SymInt out_h = pooled_size(ctx, input.sizes[static_cast<size_t>(r - 2)], kh, ph, dh, 1, ceil_mode);
  const SymInt out_w = pooled_size(ctx, input.sizes[static_cast<size_t>(r - 1)], kw, pw, dw, 1, ceil_mode);
  if (decide(ctx, sym_or(sym_lt(out_h, 1), sym_lt(out_w, 1)), "avg_pool2d output size"))
    ctx.fail(ErrorKind::InvalidArgument, "Given input size: " + text(input.sizes) + ". Calculated output size: (" +
                                             text(out_h) + "x" + text(out_w) + "). Output size is too small");
  SymShape out(input.sizes.begin(), input.sizes.end() - 2);
  out.push_back(out_h);
  out.push_back(out_w);
  set_tensor(ctx, empty_tensor(ctx, out, input.dtype, input.device, suggest_memory_format(input, ctx.env())));
}

// _adaptive_avg_pool2d(self, output_size): current meta keeps the suggested
// memory format (torch 1.13 returned a contiguous result).
template <int Spatial>
void adaptive_avg_pool(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("self");
  const std::vector<SymInt> size = per_dim(ctx, "output_size", Spatial);
  if (input.dim() != Spatial + 1 && input.dim() != Spatial + 2)
    ctx.fail(ErrorKind::InvalidArgument, "Expected " + std::to_string(Spatial + 1) + "D or " +
                                             std::to_string(Spatial + 2) + "D tensor, but got " + text(input.sizes));
  for (const SymInt& s : size)
    if (s.is_static() && s.value() < 0) ctx.fail(ErrorKind::InvalidArgument, "adaptive pooling: negative output size");
  SymShape out(input.sizes.begin(), input.sizes.end() - Spatial);
  out.insert(out.end(), size.begin(), size.end());
  const MemoryFormat format = Spatial == 2 ? suggest_memory_format(input, ctx.env()) : MemoryFormat::Contiguous;
  set_tensor(ctx, empty_tensor(ctx, out, input.dtype, input.device, format));
}

// adaptive_avg_pool2d / 3d (CompositeImplicit): an output size of all ones
// is a mean over the spatial dims with keepdim (contiguous), restrided
// channels-last when the input suggests it; else _adaptive_avg_pool2d / 3d.
template <int Spatial>
void adaptive_avg_pool_composite(OpContext& ctx) {
  const std::string op = "adaptive_avg_pool" + std::to_string(Spatial) + "d";
  const TensorMeta& input = ctx.tensor("self");
  const std::vector<SymInt> size = ctx.int_list("output_size");
  if (size.size() != Spatial)
    ctx.fail(ErrorKind::InvalidArgument, op + ": output_size must be " + std::to_string(Spatial));
  bool all_ones = true;
  for (const SymInt& s : size) all_ones = all_ones && same_size(ctx, s, 1, op.c_str());
  if (!all_ones || input.dim() < Spatial) return adaptive_avg_pool<Spatial>(ctx);
  if (!is_floating(input.dtype) && !is_complex(input.dtype))
    ctx.fail(ErrorKind::TypeError, "mean(): could not infer output dtype. Input dtype must be either a floating "
                                   "point or complex dtype. Got: " + dtype_title(input.dtype));
  SymShape out(input.sizes.begin(), input.sizes.end() - Spatial);
  out.insert(out.end(), Spatial, SymInt(1));
  const MemoryFormat channels_last = Spatial == 2 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
  const bool restrided = suggest_memory_format(input, ctx.env()) == channels_last;  // 4-D or 5-D only
  set_tensor(ctx, empty_tensor(ctx, std::move(out), input.dtype, input.device,
                               restrided ? channels_last : MemoryFormat::Contiguous));
}

// adaptive_max_pool2d(self, output_size) -> (out, indices), suggested memory format.
std::vector<TensorValue> adaptive_max_pool2d_outputs(OpContext& ctx, const TensorMeta& input,
                                                     const std::vector<SymInt>& size) {
  if (input.dim() != 3 && input.dim() != 4)
    ctx.fail(ErrorKind::InvalidArgument, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got " +
                                             text(input.sizes));
  SymShape out(input.sizes.begin(), input.sizes.end() - 2);
  out.insert(out.end(), size.begin(), size.end());
  const MemoryFormat format = suggest_memory_format(input, ctx.env());
  return {empty_tensor(ctx, out, input.dtype, input.device, format),
          empty_tensor(ctx, out, DType::Int64, input.device, format)};
}
void adaptive_max_pool2d(OpContext& ctx) {
  set_tuple(ctx, adaptive_max_pool2d_outputs(ctx, ctx.tensor("self"), per_dim(ctx, "output_size", 2)));
}

// adaptive_max_pool1d(self, output_size) -> (out, indices): adaptive_max_pool2d
// over self.unsqueeze(-2) with output size [1, L], both squeezed.
void adaptive_max_pool1d(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("self");
  const std::vector<SymInt> size = per_dim(ctx, "output_size", 1);
  if (input.dim() != 2 && input.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "adaptive_max_pool1d() argument 'input' (position 1) must be 2D or 3D, got " +
                                             text(input.sizes));
  std::vector<TensorValue> outs = adaptive_max_pool2d_outputs(ctx, unsqueezed_before_last(ctx, input), {1, size[0]});
  set_tuple(ctx, {squeezed_before_last(std::move(outs[0])), squeezed_before_last(std::move(outs[1]))});
}

// An output size from a scale factor, as torch's upsample_compute_output_size
// computes it: size * int(scale) for an integral scale, else
// sym_int(size * scale), a float product truncated (TruncToInt).
SymInt scaled_size(OpContext& ctx, const SymInt& size, const Value& scale) {
  if (scale.is_symbolic_float()) {
    const SymBool integral(eq(to_float(trunc_to_int(scale.float_expr)), scale.float_expr));
    if (decide(ctx, integral, "upsample integral scale"))
      return simplified(ctx, size * SymInt(trunc_to_int(scale.float_expr)));
    return simplified(ctx, SymInt(trunc_to_int(float_mul(to_float(size.expr()), scale.float_expr))));
  }
  if (scale.kind == Value::Kind::Int) return simplified(ctx, size * scale.i);
  const double s = scale.f;
  if (std::isfinite(s) && s == std::trunc(s) && std::fabs(s) < 9.2e18)
    return simplified(ctx, size * SymInt(static_cast<int64_t>(s)));
  return simplified(ctx, SymInt(trunc_to_int(float_mul(to_float(size.expr()), float_const(s)))));
}

// upsample_{nearest,bilinear,bicubic}Nd: [N, C, *output_size] in the input's
// suggested memory format, except that the CUDA bilinear / trilinear kernels
// take their channels-last path only from 16 channels on. `.vec` overloads
// compute output_size from scales.
// kLinearCuda: bilinear2d / trilinear3d, whose CUDA kernels take the
// channels-last path only from 16 channels on.
template <int Spatial, bool kLinearCuda = false>
void upsample(OpContext& ctx) {
  const bool vec = ctx.declares("scale_factors");  // the .vec overloads, whose input is `input`, not `self`
  const TensorMeta& input = ctx.tensor(vec ? "input" : "self");
  if (input.dim() != Spatial + 2)
    ctx.fail(ErrorKind::InvalidArgument, "Expected " + std::to_string(Spatial + 2) + "D input, got " +
                                             text(input.sizes));
  std::vector<SymInt> size;
  if (ctx.has("output_size")) {
    // upsample_compute_output_size (the .vec decompositions): not both
    if (vec && ctx.has("scale_factors"))
      ctx.fail(ErrorKind::InvalidArgument, "Must specify exactly one of output_size and scale_factors");
    size = ctx.int_list("output_size");
  } else if (vec) {
    const Value& scales = ctx.value("scale_factors");
    if (scales.kind != Value::Kind::List || scales.list->size() != static_cast<size_t>(Spatial))
      ctx.fail(ErrorKind::InvalidArgument, "Must specify exactly one of output_size and scale_factors");
    for (int i = 0; i < Spatial; ++i) {
      const Value& f = (*scales.list)[static_cast<size_t>(i)];
      if (f.kind != Value::Kind::Float && f.kind != Value::Kind::Int)
        ctx.fail(ErrorKind::TypeError, "scale_factors must hold floats");
      size.push_back(scaled_size(ctx, input.sizes[static_cast<size_t>(i + 2)], f));
    }
  }
  if (size.size() != static_cast<size_t>(Spatial))
    ctx.fail(ErrorKind::InvalidArgument, "It is expected output_size equals to " + std::to_string(Spatial) +
                                             ", but got size " + std::to_string(size.size()));
  for (const SymInt& s : size)
    if (s.is_static() && s.value() <= 0)
      ctx.fail(ErrorKind::InvalidArgument, "Input and output sizes should be greater than 0, but got output size " +
                                               text(size));
  SymShape out{input.sizes[0], input.sizes[1]};
  out.insert(out.end(), size.begin(), size.end());
  MemoryFormat format = suggest_memory_format(input, ctx.env());
  if (kLinearCuda && input.device.is_cuda() && format != MemoryFormat::Contiguous &&
      decide(ctx, sym_lt(input.sizes[1], 16), "upsample channels"))
    format = MemoryFormat::Contiguous;
  set_tensor(ctx, empty_tensor(ctx, out, input.dtype, input.device, format));
}

// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse).
void embedding(OpContext& ctx) {
  const TensorMeta& weight = ctx.tensor("weight");
  const TensorMeta& indices = ctx.tensor("indices");
  if (weight.dim() != 2) ctx.fail(ErrorKind::InvalidArgument, "'weight' must be 2-D");
  if (indices.dtype != DType::Int64 && indices.dtype != DType::Int32)
    ctx.fail(ErrorKind::TypeError,
             "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
             "Int; but got " + dtype_title(indices.dtype) + " instead");
  const Device device = common_device(present({&weight, &indices}), ctx.target());
  SymShape out = indices.sizes;
  out.push_back(weight.sizes[1]);
  set_tensor(ctx, empty_tensor(ctx, out, weight.dtype, device));
}

// native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean [N, group], rstd [N, group]).
std::vector<TensorValue> group_norm_outputs(OpContext& ctx, const TensorMeta& input, const SymInt& n, const SymInt& c,
                                            const SymInt& group) {
  if (!decide(ctx, sym_eq(mod(c, group), 0), "group_norm"))
    ctx.fail(ErrorKind::InvalidArgument,
             "Expected number of channels in input to be divisible by num_groups, but got input of "
             "shape " + text(input.sizes) + " and num_groups=" + text(group));
  std::vector<TensorValue> outs;
  outs.push_back(empty_like(ctx, input));
  outs.push_back(empty_tensor(ctx, {n, group}, input.dtype, input.device));
  outs.push_back(empty_tensor(ctx, {n, group}, input.dtype, input.device));
  return outs;
}
void native_group_norm(OpContext& ctx) {
  set_tuple(ctx, group_norm_outputs(ctx, ctx.tensor("input"), ctx.int_arg("N"), ctx.int_arg("C"),
                                    ctx.int_arg("group")));
}

// group_norm(input, num_groups, weight, bias, eps, cudnn_enabled): checks
// the parameters, then native_group_norm over the input made contiguous in
// its suggested memory format; keeps the output.
void group_norm(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const SymInt group = ctx.int_arg("num_groups");
  const TensorMeta* weight = ctx.optional_tensor("weight");
  const TensorMeta* bias = ctx.optional_tensor("bias");
  if (input.dim() < 2)
    ctx.fail(ErrorKind::InvalidArgument, "group_norm: expected at least 2D input, got " + text(input.sizes));
  const SymInt& c = input.sizes[1];
  for (const auto& [t, what] : {std::pair{weight, "weight"}, std::pair{bias, "bias"}})
    if (t && (t->dim() != 1 || !same_size(ctx, t->numel(), c, "group_norm")))
      ctx.fail(ErrorKind::ShapeMismatch, std::string("Expected ") + what + " to be a vector of size equal to the "
                                             "number of channels in input, but got " + what + " of shape " +
                                             text(t->sizes) + " and input of shape " + text(input.sizes));
  common_device(present({&input, weight, bias}), ctx.target());
  TensorMeta x = input;
  x.strides = strides_for(x.sizes, suggest_memory_format(input, ctx.env()), &ctx.env());
  set_tensor(ctx, std::move(group_norm_outputs(ctx, x, input.sizes[0], c, group)[0]));
}

// native_dropout(input, p, train) -> (out, mask), as its decomposition: in
// eval mode (or p == 0) the output is the input itself.
// Dropout's output: a fresh tensor in the input's layout when it drops
// anything, else the input itself.
TensorValue dropout_output(OpContext& ctx, const TensorMeta& input, double p, bool train) {
  if (!train || p == 0) return same_view(ctx, input);
  if (p != 1 && !is_floating(input.dtype))
    ctx.fail(ErrorKind::TypeError, "result type Float can't be cast to the desired output type " +
                                       dtype_title(input.dtype));
  return empty_permuted_like(ctx, input);
}

void native_dropout(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const double p = ctx.float_arg("p");
  const bool train = !ctx.has("train") || ctx.bool_arg("train");
  set_tuple(ctx, {dropout_output(ctx, input, p, train), empty_permuted_like(ctx, input, DType::Bool)});
}

// dropout / feature_dropout / alpha_dropout / feature_alpha_dropout(input, p,
// train), CompositeImplicit (aten/src/ATen/native/Dropout.cpp): the input
// itself in eval mode, for p == 0 and for an empty input; else a fresh
// tensor (native_dropout's output on CUDA, input * noise on CPU), which
// keeps the input's layout.
void dropout(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const double p = ctx.float_arg("p");
  const bool train = ctx.bool_arg("train");
  if (p < 0 || p > 1)
    ctx.fail(ErrorKind::InvalidArgument,
             "dropout probability has to be between 0 and 1, but got " + std::to_string(p));
  if (train && p != 0 && decide(ctx, sym_eq(input.numel(), 0), "dropout of an empty input")) {
    set_tensor(ctx, same_view(ctx, input));
    return;
  }
  set_tensor(ctx, dropout_output(ctx, input, p, train));
}
// Their in-place twins return self.
void dropout_inplace(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const double p = ctx.float_arg("p");
  if (p < 0 || p > 1)
    ctx.fail(ErrorKind::InvalidArgument,
             "dropout probability has to be between 0 and 1, but got " + std::to_string(p));
  set_tensor(ctx, same_view(ctx, self));
}

// pixel_unshuffle(self, r): [*, C*r^2, H/r, W/r], in the input's suggested
// memory format on both devices.
void pixel_unshuffle(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t r = static_int(ctx, "downscale_factor");
  if (self.dim() < 3 || r <= 0)
    ctx.fail(ErrorKind::InvalidArgument,
             "pixel_unshuffle expects input to have at least 3 dimensions and a positive factor");
  const auto c = static_cast<size_t>(self.dim() - 3);
  for (size_t d : {c + 1, c + 2})
    if (!decide(ctx, sym_eq(mod(self.sizes[d], r), 0), "pixel_unshuffle"))
      ctx.fail(ErrorKind::InvalidArgument, "pixel_unshuffle expects " + std::string(d == c + 1 ? "height" : "width") +
                                               " to be divisible by downscale_factor, but input.size(" +
                                               std::to_string(static_cast<int64_t>(d) - self.dim()) + ")=" +
                                               text(self.sizes[d]) + " is not divisible by " + std::to_string(r));
  SymShape out(self.sizes.begin(), self.sizes.begin() + static_cast<int64_t>(c));
  out.push_back(self.sizes[c] * (r * r));
  out.push_back(simplified(ctx, floordiv(self.sizes[c + 1], r)));
  out.push_back(simplified(ctx, floordiv(self.sizes[c + 2], r)));
  const MemoryFormat f = suggests_channels_last(ctx, self) ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
  set_tensor(ctx, empty_tensor(ctx, out, self.dtype, self.device, f));
}

// channel_shuffle / native_channel_shuffle(self, groups): same shape, contiguous.
void channel_shuffle(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const SymInt groups = ctx.int_arg("groups");
  if (self.dim() < 3)
    ctx.fail(ErrorKind::InvalidArgument, "channel_shuffle expects input to have at least 3 dimensions, but got input "
                                         "with sizes " + text(self.sizes));
  if (groups.is_static() && groups.value() <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "Number of groups to divide channels in must be positive. Value of groups:" +
                                             text(groups));
  if (!decide(ctx, sym_eq(mod(self.sizes[1], groups), 0), "channel_shuffle"))
    ctx.fail(ErrorKind::InvalidArgument, "Number of channels must be divisible by groups. Got " + text(self.sizes[1]) +
                                             " channels and " + text(groups) + " groups.");
  set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, self.device));
}

// prelu(self, weight): _prelu_kernel(self, weight viewed to broadcast over
// the channels): an elementwise result in self's layout.
void prelu(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& weight = ctx.tensor("weight");
  if (weight.dim() > 1)
    ctx.fail(ErrorKind::InvalidArgument, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = " +
                                             std::to_string(weight.dim()));
  const SymInt channels = self.dim() >= 2 ? self.sizes[1] : SymInt(1);
  if (!same_size(ctx, weight.numel(), 1, "prelu") && !same_size(ctx, weight.numel(), channels, "prelu"))
    ctx.fail(ErrorKind::ShapeMismatch, "Mismatch of parameter numbers and input channel size. Found parameter numbers = " +
                                           text(weight.numel()) + " and channel size = " + text(channels) + ".");
  const PointwiseOperands ops = pointwise_operands(ctx, {"self"});
  common_device(present({&self, &weight}), ctx.target());
  set_tensor(ctx, pointwise_result(ctx, ops, self.dtype));
}

// glu(self, dim=-1): the dim halves (a structured kernel over the two halves).
void glu(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() == 0)
    ctx.fail(ErrorKind::InvalidArgument, "glu does not support scalars because halving size must be even");
  const auto dim = static_cast<size_t>(dim_arg(ctx, "dim", self.dim(), -1));
  if (!decide(ctx, sym_eq(mod(self.sizes[dim], 2), 0), "glu"))
    ctx.fail(ErrorKind::InvalidArgument, "Halving dimension must be even, but dimension " + std::to_string(dim) +
                                             " is size " + text(self.sizes[dim]));
  if (!is_floating(self.dtype) && !is_complex(self.dtype))
    ctx.fail(ErrorKind::TypeError, "\"glu\" not implemented for '" + dtype_title(self.dtype) + "'");
  TensorMeta half = self;
  half.sizes[dim] = simplified(ctx, floordiv(self.sizes[dim], 2));
  const TensorMeta* operands[] = {&half, &half};
  SymShape strides = elementwise_permuted_strides(operands, half.sizes, ctx.env());
  set_tensor(ctx, ctx.new_tensor(half.sizes, self.dtype, self.device, simplified(ctx, std::move(strides))));
}

// pixel_shuffle(self, r): [*, C/r^2, H*r, W*r]; a channels-last input gives a
// channels-last result on CPU and a contiguous one on CUDA (meta_pixel_shuffle).
void pixel_shuffle(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const int64_t r = static_int(ctx, "upscale_factor");
  if (self.dim() < 3 || r <= 0)
    ctx.fail(ErrorKind::InvalidArgument,
             "pixel_shuffle expects input to have at least 3 dimensions and a positive factor");
  const auto c = static_cast<size_t>(self.dim() - 3);
  if (!decide(ctx, sym_eq(mod(self.sizes[c], r * r), 0), "pixel_shuffle"))
    ctx.fail(ErrorKind::InvalidArgument,
             "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
             "of upscale_factor, but input.size(-3)=" + text(self.sizes[c]) + " is not divisible by " +
             std::to_string(r * r));
  SymShape out(self.sizes.begin(), self.sizes.begin() + static_cast<int64_t>(c));
  out.push_back(simplified(ctx, floordiv(self.sizes[c], r * r)));
  out.push_back(self.sizes[c + 1] * r);
  out.push_back(self.sizes[c + 2] * r);
  const bool cl = suggests_channels_last(ctx, self) && !self.device.is_cuda();
  set_tensor(ctx, empty_tensor(ctx, out, self.dtype, self.device, cl ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous));
}

// ---- scaled dot product attention (torch/_meta_registrations.py, 2.x) ----

void check_sdpa_inputs(OpContext& ctx, const TensorMeta& q, const TensorMeta& k, const TensorMeta& v) {
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4)
    ctx.fail(ErrorKind::InvalidArgument, "scaled_dot_product_attention kernels expect 4-D query, key and value, got " +
                                             text(q.sizes) + ", " + text(k.sizes) + ", " + text(v.sizes));
  if (q.dtype != k.dtype || q.dtype != v.dtype)
    ctx.fail(ErrorKind::TypeError, "Expected query, key, and value to have the same dtype");
}

// _scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal, return_debug_mask, scale)
void sdpa_flash(OpContext& ctx) {
  const TensorMeta& q = ctx.tensor("query");
  const TensorMeta& k = ctx.tensor("key");
  const TensorMeta& v = ctx.tensor("value");
  check_sdpa_inputs(ctx, q, k, v);
  const SymInt &b = q.sizes[0], &h = q.sizes[1], &lq = q.sizes[2], &d = q.sizes[3], &lk = k.sizes[2];
  ValueList outs;
  outs.push_back(Value::of_tensor(empty_permuted_like(ctx, q)));
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {b, h, lq}, DType::Float32, q.device)));
  outs.push_back(Value::none());
  outs.push_back(Value::none());
  outs.push_back(Value::of_int(lq));
  outs.push_back(Value::of_int(lk));
  // The philox seed and offset: the meta kernel makes them on "meta", and fake
  // mode puts every output on the inputs' device (so do the kernels below).
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {SymInt(2)}, DType::UInt64, q.device)));
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {}, DType::UInt64, q.device)));
  if (ctx.bool_arg("return_debug_mask", false)) {
    SymInt max_k;
    if (decide(ctx, sym_le(lk, 128), "flash debug mask")) max_k = 128;
    else if (decide(ctx, sym_le(lk, 256), "flash debug mask")) max_k = 256;
    else max_k = simplified(ctx, ceildiv(lq, decide(ctx, sym_gt(d, 64), "flash debug mask") ? 128 : 256));
    outs.push_back(Value::of_tensor(empty_tensor(ctx, {b, h, lq, max_k}, q.dtype, q.device)));
  } else {
    outs.push_back(Value::of_tensor(empty_tensor(ctx, {SymInt(0)}, q.dtype, q.device)));
  }
  ctx.set_result(Value::of_list(std::move(outs)));
}

// _scaled_dot_product_efficient_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, scale)
void sdpa_efficient(OpContext& ctx) {
  const TensorMeta& q = ctx.tensor("query");
  const TensorMeta& k = ctx.tensor("key");
  const TensorMeta& v = ctx.tensor("value");
  check_sdpa_inputs(ctx, q, k, v);
  const SymInt &b = q.sizes[0], &h = q.sizes[1], &m = q.sizes[2], &kv = v.sizes[3];
  // A [B, M, H, Kv] buffer seen as [B, H, M, Kv].
  SymShape buffer = contiguous_strides(SymShape{b, m, h, kv}, &ctx.env());
  TensorValue res = empty_strided(ctx, {b, h, m, kv}, {buffer[0], buffer[2], buffer[1], buffer[3]}, q.dtype, q.device);
  const bool lse = ctx.bool_arg("compute_log_sumexp");
  const SymInt lse_len = lse ? simplified(ctx, ceildiv(m, 32) * 32) : SymInt(0);
  ValueList outs;
  outs.push_back(Value::of_tensor(std::move(res)));
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {b, h, lse_len}, DType::Float32, q.device)));
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {}, DType::Int64, q.device)));
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {}, DType::Int64, q.device)));
  ctx.set_result(Value::of_list(std::move(outs)));
}

// alloc_with_matching_layout: query's layout when the shapes agree, else
// dense in the order of query's strides (largest first, stable).
TensorValue matching_layout(OpContext& ctx, const TensorMeta& q, const SymShape& shape) {
  bool same = q.sizes.size() == shape.size();
  for (size_t i = 0; same && i < shape.size(); ++i) same = q.sizes[i].same(shape[i]);
  if (same) return empty_like(ctx, q);
  std::vector<size_t> order{0, 1, 2, 3};
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return decide(ctx, sym_gt(q.strides[a], q.strides[b]), "sdpa layout");
  });
  SymShape physical;
  for (size_t d : order) physical.push_back(shape[d]);
  const SymShape dense = contiguous_strides(physical, &ctx.env());
  SymShape strides(4);
  for (size_t k = 0; k < 4; ++k) strides[order[k]] = dense[k];
  return empty_strided(ctx, shape, strides, q.dtype, q.device);
}

// _scaled_dot_product_cudnn_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, return_debug_mask, scale)
void sdpa_cudnn(OpContext& ctx) {
  const TensorMeta& q = ctx.tensor("query");
  const TensorMeta& k = ctx.tensor("key");
  const TensorMeta& v = ctx.tensor("value");
  check_sdpa_inputs(ctx, q, k, v);
  const SymInt &b = q.sizes[0], &h = q.sizes[1], &sq = q.sizes[2], &skv = k.sizes[2], &dv = v.sizes[3];
  ValueList outs;
  outs.push_back(Value::of_tensor(matching_layout(ctx, q, {b, h, sq, dv})));
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {b, h, sq, SymInt(1)}, DType::Float32, q.device)));
  outs.push_back(Value::none());
  outs.push_back(Value::none());
  outs.push_back(Value::of_int(sq));
  outs.push_back(Value::of_int(skv));
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {}, DType::Int64, q.device)));
  outs.push_back(Value::of_tensor(empty_tensor(ctx, {}, DType::Int64, q.device)));
  outs.push_back(Value::none());
  ctx.set_result(Value::of_list(std::move(outs)));
}

// _scaled_dot_product_flash_attention_for_cpu(q, k, v, dropout_p, is_causal, attn_mask, scale)
// -> (out like query, logsumexp [B, H, L] stored as [B, L, H]).
void sdpa_flash_cpu(OpContext& ctx) {
  const TensorMeta& q = ctx.tensor("query");
  const TensorMeta& k = ctx.tensor("key");
  const TensorMeta& v = ctx.tensor("value");
  check_sdpa_inputs(ctx, q, k, v);
  const SymInt &b = q.sizes[0], &h = q.sizes[1], &l = q.sizes[2];
  const SymShape buffer = contiguous_strides(SymShape{b, l, h}, &ctx.env());
  set_tuple(ctx, {empty_permuted_like(ctx, q),
                  empty_strided(ctx, {b, h, l}, {buffer[0], buffer[2], buffer[1]}, DType::Float32, q.device)});
}

// _scaled_dot_product_flash_attention_for_cpu_backward(grad_out, q, k, v, out, logsumexp, dropout_p,
// is_causal, attn_mask, scale) -> (grad_q, grad_k, grad_v): each its input's size, in the CPU
// kernel's [B, L, H, E] buffer (torch's meta: empty_permuted with order (0, 2, 1, 3)).
void sdpa_flash_cpu_backward(OpContext& ctx) {
  auto gradient = [&](const char* name) {
    const TensorMeta& t = ctx.tensor(name);
    if (t.dim() != 4)
      ctx.fail(ErrorKind::InvalidArgument, std::string("_scaled_dot_product_flash_attention_for_cpu_backward: ") +
                                               name + " must be 4-D, got " + text(t.sizes));
    const SymShape buffer = contiguous_strides(SymShape{t.sizes[0], t.sizes[2], t.sizes[1], t.sizes[3]}, &ctx.env());
    return empty_strided(ctx, t.sizes, {buffer[0], buffer[2], buffer[1], buffer[3]}, t.dtype, t.device);
  };
  set_tuple(ctx, {gradient("query"), gradient("key"), gradient("value")});
}

// scaled_dot_product_attention (CompositeImplicit, in torch.export graphs):
// [*, L, Ev] in query's dtype. On CPU the composite runs the flash kernel
// when its gates pass (sdp_utils_cpp's use_flash_attention_cpp: 4-D inputs
// of a floating dtype, no dropout, equal batch counts, key/value heads equal
// to the query's or one, a mask that does not require grad and broadcasts,
// equal head dims, unit last strides), whose output is laid out like the
// query (a [B, L, H, E] buffer for HF's transposed queries); otherwise the
// math path's matmul result is contiguous.
void sdpa(OpContext& ctx) {
  const TensorMeta& q = ctx.tensor("query");
  const TensorMeta& k = ctx.tensor("key");
  const TensorMeta& v = ctx.tensor("value");
  if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2)
    ctx.fail(ErrorKind::InvalidArgument, "scaled_dot_product_attention expects query, key and value of rank >= 2");
  if (!same_size(ctx, q.sizes.back(), k.sizes.back(), "sdpa"))
    ctx.fail(ErrorKind::ShapeMismatch, "scaled_dot_product_attention: query and key embedding sizes differ: " +
                                           text(q.sizes) + " and " + text(k.sizes));
  const Device device = common_device(present({&q, &k, &v}), ctx.target());
  // The leading dims broadcast (the math path's matmuls); with enable_gqa the
  // key/value heads divide the query's.
  const bool enable_gqa = ctx.bool_arg("enable_gqa", false);
  for (const TensorMeta* kv : {&k, &v}) {
    if (kv->dim() != q.dim()) continue;
    for (size_t i = 0; i + 2 < q.sizes.size(); ++i) {
      const SymInt &a = q.sizes[i], &b = kv->sizes[i];
      if (same_size(ctx, a, b, "sdpa") || same_size(ctx, b, 1, "sdpa") || same_size(ctx, a, 1, "sdpa")) continue;
      if (enable_gqa && i + 3 == q.sizes.size()) {
        if (decide(ctx, sym_eq(mod(a, b), 0), "sdpa gqa")) continue;
        ctx.fail(ErrorKind::ShapeMismatch, "Number of heads in key and value must divide the number of heads in query");
      }
      ctx.fail(ErrorKind::ShapeMismatch, "The size of tensor a (" + text(a) + ") must match the size of tensor b (" +
                                             text(b) + ") at non-singleton dimension " + std::to_string(i));
    }
  }
  // On CPU the composite picks the flash kernel when its gates pass
  // (sdp_utils_cpp.cpp's use_flash_attention_cpp, in its order: no dropout,
  // 4-D, equal batch and heads, an attn_mask that does not require grad and
  // is 2-D or 4-D broadcasting to [B, H, L, S], one head dim, non-empty
  // sequences, unit last strides, a float dtype); its output is
  // empty_like(query). Everything else (and every fake CUDA call) runs the
  // math path, whose matmul gives a contiguous result. The sizes are asked
  // as TORCH_GUARD_OR_FALSE asks them: a guard where they are backed.
  const char* why = "sdpa backend choice";
  const TensorMeta* mask = ctx.optional_tensor("attn_mask");
  // check_attn_mask_shape: a mask dim matches when it equals the target
  // (guard_or_false) or is the constant 1.
  auto mask_dim_fits = [&](const SymInt& m, const SymInt& target) {
    if (guard_or_false(ctx, sym_eq(m, target), why)) return true;
    return m.is_static() && m.value() == 1;
  };
  auto mask_fits = [&] {
    if (mask == nullptr) return true;
    if (mask->requires_grad || mask->dim() < 2) return false;
    const size_t r = mask->sizes.size();
    if (!mask_dim_fits(mask->sizes[r - 2], q.sizes[2]) || !mask_dim_fits(mask->sizes[r - 1], k.sizes[2])) return false;
    if (r == 2) return true;
    return r == 4 && mask_dim_fits(mask->sizes[0], q.sizes[0]) && mask_dim_fits(mask->sizes[1], q.sizes[1]);
  };
  auto flash_cpu = [&] {
    if (!device.is_cpu()) return false;
    if (ctx.float_arg("dropout_p", 0.0) > 0) return false;
    if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) return false;
    if (!same_size(ctx, q.sizes[0], k.sizes[0], why) || !same_size(ctx, q.sizes[0], v.sizes[0], why)) return false;
    // Key and value heads: the query's, one (broadcast), or with enable_gqa any.
    const bool gqa = ctx.bool_arg("enable_gqa", false);
    for (const TensorMeta* kv : {&k, &v})
      if (!gqa && !same_size(ctx, q.sizes[1], kv->sizes[1], why) && !same_size(ctx, kv->sizes[1], 1, why)) return false;
    if (!mask_fits()) return false;
    if (!same_size(ctx, q.sizes[3], k.sizes[3], why) || !same_size(ctx, q.sizes[3], v.sizes[3], why)) return false;
    if (decide(ctx, sym_or(sym_eq(q.sizes[2], 0), sym_eq(k.sizes[2], 0)), why)) return false;
    for (const TensorMeta* t3 : {&q, &k, &v})
      if (!same_size(ctx, t3->strides[3], 1, why)) return false;
    const DType t = q.dtype;
    if (t != DType::Float32 && t != DType::Float64 && t != DType::BFloat16 && t != DType::Float16) return false;
    return k.dtype == t && v.dtype == t;
  };
  if (flash_cpu()) {
    set_tensor(ctx, empty_permuted_like(ctx, q));
    return;
  }
  SymShape out(q.sizes.begin(), q.sizes.end() - 1);
  out.push_back(v.sizes.back());
  set_tensor(ctx, empty_tensor(ctx, out, q.dtype, device));
}

// _native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
// proj_weight, proj_bias, mask, need_weights, average_attn_weights, mask_type): nn.MultiheadAttention's
// fast path. Like torch's fake kernel, the weights are [B, T, T] (or [B, heads, T, T]) over the
// query's length, and a query known to be empty gives empty outputs.
void native_multi_head_attention(OpContext& ctx) {
  const TensorMeta& q = ctx.tensor("query");
  const TensorMeta& proj_weight = ctx.tensor("proj_weight");
  if (guard_or_false(ctx, sym_eq(q.numel(), 0), "_native_multi_head_attention")) {
    set_tuple(ctx, {empty_tensor(ctx, q.sizes, q.dtype, q.device), empty_tensor(ctx, {SymInt(0)}, q.dtype, q.device)});
    return;
  }
  if (q.dim() < 2 || proj_weight.dim() < 1)
    ctx.fail(ErrorKind::InvalidArgument, "_native_multi_head_attention expects a query of rank >= 2, got " +
                                             text(q.sizes));
  const SymInt &b = q.sizes[0], &t = q.sizes[1];
  TensorValue weights;
  if (!ctx.bool_arg("need_weights", true))
    weights = empty_tensor(ctx, {SymInt(0)}, q.dtype, q.device);
  else if (ctx.bool_arg("average_attn_weights", true))
    weights = empty_tensor(ctx, {b, t, t}, q.dtype, q.device);
  else
    weights = empty_tensor(ctx, {b, ctx.int_arg("num_head"), t, t}, q.dtype, q.device);
  set_tuple(ctx, {empty_tensor(ctx, {b, t, proj_weight.sizes[0]}, q.dtype, q.device), std::move(weights)});
}

// ---- losses and backward ops (AOTAutograd / make_fx training graphs) ----

// nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight)
// nll_loss2d_forward(self [N, C, H, W], target [N, H, W], weight, reduction,
// ignore_index) -> (output, total_weight): output is [N, H, W] without
// reduction, else a scalar; total_weight a scalar of self's dtype.
void nll_loss2d_forward(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& target = ctx.tensor("target");
  const int64_t reduction = static_int(ctx, "reduction", 1);
  if (self.dim() != 4)
    ctx.fail(ErrorKind::InvalidArgument,
             "only batches of spatial inputs supported (4D tensors), but got input of dimension: " +
                 std::to_string(self.dim()));
  if (target.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument,
             "only batches of spatial targets supported (3D tensors) but got targets of dimension: " +
                 std::to_string(target.dim()));
  const char* why = "nll_loss2d";
  if (!same_size(ctx, self.sizes[0], target.sizes[0], why) || !same_size(ctx, self.sizes[2], target.sizes[1], why) ||
      !same_size(ctx, self.sizes[3], target.sizes[2], why))
    ctx.fail(ErrorKind::ShapeMismatch, "input and target batch or spatial sizes don't match: target " +
                                           text(target.sizes) + ", input " + text(self.sizes));
  const Device device = common_device(present({&self, &target}), ctx.target());
  SymShape out;
  if (reduction == 0) out = {self.sizes[0], self.sizes[2], self.sizes[3]};
  set_tuple(ctx, {empty_tensor(ctx, out, self.dtype, device), empty_tensor(ctx, {}, self.dtype, device)});
}

void nll_loss_forward(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& target = ctx.tensor("target");
  const int64_t reduction = static_int(ctx, "reduction", 1);
  if (self.dim() < 1 || self.dim() > 2) ctx.fail(ErrorKind::InvalidArgument, "input tensor should be 1D or 2D");
  if (target.dim() > 1)
    ctx.fail(ErrorKind::InvalidArgument, "0D or 1D target tensor expected, multi-target not supported");
  const bool no_batch = self.dim() == 1 && target.dim() == 0;
  if (!no_batch && !same_size(ctx, self.sizes[0], target.sizes.empty() ? SymInt(1) : target.sizes[0], "nll_loss"))
    ctx.fail(ErrorKind::ShapeMismatch, "Expected input batch_size (" + text(self.sizes[0]) +
                                           ") to match target batch_size (" +
                                           text(target.sizes.empty() ? SymInt(1) : target.sizes[0]) + ").");
  const Device device = common_device(present({&self, &target}), ctx.target());
  SymShape out;
  if (reduction == 0 && self.dim() == 2) out.push_back(self.sizes[0]);
  set_tuple(ctx, {empty_tensor(ctx, out, self.dtype, device), empty_tensor(ctx, {}, self.dtype, device)});
}

// nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight): like self, contiguous.
void nll_loss_backward(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, self.device));
}

// _softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim, input_dtype):
// contiguous, grad's dtype except float grads of half inputs.
void softmax_backward(OpContext& ctx) {
  const TensorMeta& grad = ctx.tensor("grad_output");
  (void)dim_arg(ctx, "dim", grad.dim());
  const std::optional<DType> input_dtype = ctx.dtype_arg("input_dtype");
  const DType dtype = grad.dtype == DType::Float32 && input_dtype == DType::Float16 ? DType::Float16 : grad.dtype;
  set_tensor(ctx, empty_tensor(ctx, grad.sizes, dtype, grad.device));
}

// gelu_backward(grad_output, self, approximate) and friends: TensorIterator
// binary ops over (grad_output, self). threshold_backward's iterator, and the
// decompositions that select on self (hardtanh, leaky_relu, hardsigmoid,
// hardswish, softplus, elu backward), take self first, which decides the
// layout when the two differ.
// kInput names the second operand: self, or the forward's output (sigmoid / tanh_backward).
constexpr char kSelf[] = "self", kOutput[] = "output";
template <const char* kInput>
void binary_backward(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"grad_output", kInput});
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, PromotionKind::Default)));
}
void threshold_backward(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self", "grad_output"});
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, PromotionKind::Default)));
}

// select_backward / slice_backward(grad_output, input_sizes, ...): zeros of input_sizes.
void index_backward(OpContext& ctx) {
  const TensorMeta& grad = ctx.tensor("grad_output");
  SymShape sizes = ctx.int_list("input_sizes");
  check_non_negative(ctx, sizes);
  set_tensor(ctx, empty_tensor(ctx, std::move(sizes), grad.dtype, grad.device));
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask) -> (grad_input, grad_weight, grad_bias):
// grad_input and grad_weight take the forward's backend layout (from input and
// weight, not grad_output); grad_bias is contiguous.
void convolution_backward(OpContext& ctx) {
  const TensorMeta& grad = ctx.tensor("grad_output");
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta& weight = ctx.tensor("weight");
  const Value& mask_v = ctx.value("output_mask");
  auto wanted = [&](size_t i) {
    if (mask_v.kind != Value::Kind::List || mask_v.list->size() != 3)
      ctx.fail(ErrorKind::InvalidArgument, "convolution_backward: output_mask must hold 3 bools");
    const Value& m = (*mask_v.list)[i];
    return m.kind == Value::Kind::Bool ? m.b.value() : m.i.value() != 0;
  };
  ValueList outs;
  const MemoryFormat format = conv_memory_format(ctx, input, weight, input.device);
  outs.push_back(wanted(0) ? Value::of_tensor(conv_tensor(ctx, input.sizes, grad.dtype, grad.device, format))
                           : Value::none());
  outs.push_back(wanted(1) ? Value::of_tensor(conv_tensor(ctx, weight.sizes, grad.dtype, grad.device, format))
                           : Value::none());
  if (wanted(2)) {
    SymShape bias = ctx.optional_int_list("bias_sizes").value_or(SymShape{weight.sizes[0]});
    outs.push_back(Value::of_tensor(empty_tensor(ctx, bias, grad.dtype, grad.device)));
  } else {
    outs.push_back(Value::none());
  }
  ctx.set_result(Value::of_list(std::move(outs)));
}

bool mask_bit(OpContext& ctx, std::string_view name, size_t i) {
  const Value& m = ctx.value(name);
  if (m.kind != Value::Kind::List || m.list->size() <= i) ctx.fail(ErrorKind::InvalidArgument, "bad output_mask");
  const Value& b = (*m.list)[i];
  return b.kind == Value::Kind::Bool ? b.b.value() : b.i.value() != 0;
}

// native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
// save_invstd, train, eps, output_mask) -> (grad_input like input, grad_weight [C], grad_bias [C]).
void batch_norm_backward(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta* weight = ctx.optional_tensor("weight");
  if (input.dim() < 2)  // the decomposition's assertion, which fake tensors run
    ctx.fail(ErrorKind::InvalidArgument, "rank of the input must be at least 2, got " + std::to_string(input.dim()));
  const SymInt channels = input.sizes[1];
  const DType param_dtype = weight ? weight->dtype : input.dtype;
  ValueList outs;
  outs.push_back(mask_bit(ctx, "output_mask", 0) ? Value::of_tensor(normalized_output(ctx, input, input.device))
                                                    : Value::none());
  for (size_t i : {1, 2})
    outs.push_back(mask_bit(ctx, "output_mask", i)
                       ? Value::of_tensor(empty_tensor(ctx, {channels}, param_dtype, input.device))
                       : Value::none());
  ctx.set_result(Value::of_list(std::move(outs)));
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask).
// grad_input is laid out as the decomposition computes it: grad_out and input
// enter as .to(computation dtype, contiguous_format), which keeps a tensor
// as it is when no cast is needed and it does not suggest channels-last; the
// last step multiplies rstd (broadcast over the normalized dims) by a term
// laid out from grad_out, then input. Empty inputs give zeros (contiguous).
void layer_norm_backward(OpContext& ctx) {
  const TensorMeta& grad = ctx.tensor("grad_out");
  const TensorMeta& input = ctx.tensor("input");
  const size_t normalized = ctx.int_list("normalized_shape").size();
  const TensorMeta& rstd = ctx.tensor("rstd");
  const TensorMeta* weight = ctx.optional_tensor("weight");
  const TensorMeta* bias = ctx.optional_tensor("bias");
  auto as_computed = [&](const TensorMeta& t) {
    TensorMeta c = t;
    if (computation_dtype(t.dtype) != t.dtype || suggest_memory_format(t, ctx.env()) != MemoryFormat::Contiguous)
      c.strides = contiguous_strides(t.sizes, &ctx.env());
    return c;
  };
  auto grad_input = [&]() {
    const size_t axis = input.sizes.size() - std::min(normalized, input.sizes.size());
    const SymShape outer(input.sizes.begin(), input.sizes.begin() + static_cast<int64_t>(axis));
    const SymShape inner(input.sizes.begin() + static_cast<int64_t>(axis), input.sizes.end());
    if (known_true(ctx, sym_eq(product(outer), 0)) || known_true(ctx, sym_eq(product(inner), 0)))
      return empty_tensor(ctx, input.sizes, input.dtype, input.device);
    const TensorMeta g = as_computed(grad), x = as_computed(input);
    const TensorMeta* ops[] = {&rstd, &g, &x};
    SymShape strides = elementwise_output_strides(ops, input.sizes, ctx.env());
    return ctx.new_tensor(input.sizes, input.dtype, input.device, simplified(ctx, std::move(strides)));
  };
  ValueList outs;
  outs.push_back(mask_bit(ctx, "output_mask", 0) ? Value::of_tensor(grad_input()) : Value::none());
  outs.push_back(mask_bit(ctx, "output_mask", 1) && weight ? Value::of_tensor(empty_like(ctx, *weight)) : Value::none());
  outs.push_back(mask_bit(ctx, "output_mask", 2) && bias ? Value::of_tensor(empty_like(ctx, *bias)) : Value::none());
  ctx.set_result(Value::of_list(std::move(outs)));
}

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
// ceil_mode, indices): like self in its suggested memory format.
void max_pool2d_backward(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const TensorMeta& grad = ctx.tensor("grad_output");
  set_tensor(ctx, empty_tensor(ctx, self.sizes, grad.dtype, self.device, suggest_memory_format(self, ctx.env())));
}

// avg_pool2d_backward / _adaptive_avg_pool2d_backward: like self in its suggested memory format.
void pool_backward_like_self(OpContext& ctx) {
  const TensorMeta& grad = ctx.tensor("grad_output");
  const TensorMeta& self = ctx.tensor("self");
  set_tensor(ctx, empty_tensor(ctx, self.sizes, grad.dtype, self.device, suggest_memory_format(self, ctx.env())));
}

// embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq)
void embedding_dense_backward(OpContext& ctx) {
  const TensorMeta& grad = ctx.tensor("grad_output");
  const SymInt num = ctx.int_arg("num_weights");
  set_tensor(ctx, empty_tensor(ctx, {num, grad.sizes.back()}, grad.dtype, grad.device));
}

// mv(self, vec) -> [n]; dot(self, tensor) -> [].
void mv(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor("self");
  const TensorMeta& v = ctx.tensor("vec");
  if (a.dim() != 2 || v.dim() != 1)
    ctx.fail(ErrorKind::InvalidArgument, "vector + matrix @ vector expected, got " + std::to_string(a.dim()) + ", " +
                                             std::to_string(v.dim()));
  if (!same_size(ctx, a.sizes[1], v.sizes[0], "mv"))
    ctx.fail(ErrorKind::ShapeMismatch, "size mismatch, got input (" + text(a.sizes[0]) + "), mat (" + text(a.sizes[0]) +
                                           "x" + text(a.sizes[1]) + "), vec (" + text(v.sizes[0]) + ")");
  check_same_dtype(ctx, a, v, "self and vec");
  set_tensor(ctx, empty_tensor(ctx, {a.sizes[0]}, a.dtype, common_device(present({&a, &v}), ctx.target())));
}
void dot(OpContext& ctx) {
  const TensorMeta& a = ctx.tensor("self");
  const TensorMeta& b = ctx.tensor("tensor");
  if (a.dim() != 1 || b.dim() != 1)
    ctx.fail(ErrorKind::InvalidArgument, "1D tensors expected, but got " + std::to_string(a.dim()) + "D and " +
                                             std::to_string(b.dim()) + "D tensors");
  if (a.dtype != b.dtype)
    ctx.fail(ErrorKind::TypeError, "dot : expected both vectors to have same dtype, but found " + torch_dtype(a.dtype) +
                                       " and " + torch_dtype(b.dtype));
  if (!same_size(ctx, a.sizes[0], b.sizes[0], "dot"))
    ctx.fail(ErrorKind::ShapeMismatch, "inconsistent tensor size, expected tensor [" + text(a.sizes[0]) +
                                           "] and src [" + text(b.sizes[0]) + "] to have the same number of elements");
  set_tensor(ctx, empty_tensor(ctx, {}, a.dtype, common_device(present({&a, &b}), ctx.target())));
}

// mse_loss / binary_cross_entropy_with_logits(self, target, ..., reduction):
// elementwise for reduction none (0), else a 0-dim result.
void pointwise_loss(OpContext& ctx) {
  const bool logits = ctx.declares("pos_weight");  // binary_cross_entropy_with_logits
  const int64_t reduction = static_int(ctx, "reduction", 1);
  PointwiseOperands ops = pointwise_operands(ctx, {"self", "target"});
  if (logits) {
    for (std::string_view name : {"weight", "pos_weight"})
      if (const TensorMeta* t = ctx.optional_tensor(name)) ops.tensors.push_back(t);
  }
  const DType dtype = promoted_dtype(ctx, ops, PromotionKind::Default);
  TensorValue elementwise = pointwise_result(ctx, ops, dtype);
  if (reduction == 0) {
    set_tensor(ctx, std::move(elementwise));
    return;
  }
  set_tensor(ctx, empty_tensor(ctx, {}, dtype, elementwise.meta.device));
}

// elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result).
void elu_backward(OpContext& ctx) {
  const PointwiseOperands ops = pointwise_operands(ctx, {"self_or_result", "grad_output"});
  set_tensor(ctx, pointwise_result(ctx, ops, promoted_dtype(ctx, ops, PromotionKind::Default)));
}

// reflection_pad{1,2,3}d / replication_pad{1,2,3}d(self, padding): the last
// `Spatial` dims grow by their pads (reflection pads must be < the size).
template <int Spatial>
TensorValue pad_nd_result(OpContext& ctx, const TensorMeta& self, const std::vector<SymInt>& pad, bool reflection) {
  if (pad.size() != static_cast<size_t>(2 * Spatial))
    ctx.fail(ErrorKind::InvalidArgument, "padding size is expected to be " + std::to_string(2 * Spatial) +
                                             ", but got: " + std::to_string(pad.size()));
  if (self.dim() != Spatial + 1 && self.dim() != Spatial + 2)
    ctx.fail(ErrorKind::InvalidArgument,
             "Expected " + std::to_string(Spatial + 1) + "D or " + std::to_string(Spatial + 2) +
             "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
             "for input, but got: " + text(self.sizes));
  // The meta's torch._check calls (runtime asserts where a size is
  // unbacked): every dim but a batch dim is non-zero, each reflection pad is
  // below its size, then every output size is at least 1.
  SymBool nonzero(true);
  for (size_t d = self.dim() == Spatial + 2 ? 1 : 0; d < self.sizes.size(); ++d)
    nonzero = sym_and(nonzero, sympy_nonzero(ctx, self.sizes[d]));
  require(ctx, nonzero, "pad input size", ErrorKind::InvalidArgument, [&] {
    return "Expected " + std::to_string(Spatial + 1) + "D or " + std::to_string(Spatial + 2) +
           "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: " +
           text(self.sizes);
  });
  SymShape out = self.sizes;
  for (int i = 0; i < Spatial && reflection; ++i) {
    const size_t d = out.size() - 1 - static_cast<size_t>(i);
    const SymInt& l = pad[2 * static_cast<size_t>(i)];
    const SymInt& r = pad[2 * static_cast<size_t>(i) + 1];
    require(ctx, sym_and(python_lt(l, self.sizes[d]), python_lt(r, self.sizes[d])), "reflection_pad",
            ErrorKind::InvalidArgument, [&] {
              return "Argument #" + std::to_string(4 + 2 * i) +
                     ": Padding size should be less than the corresponding input dimension, but got: padding (" +
                     text(l) + ", " + text(r) + ") at dimension " + std::to_string(d) + " of input " + text(self.sizes);
            });
  }
  SymBool positive(true);
  for (int i = 0; i < Spatial; ++i) {
    const size_t d = out.size() - 1 - static_cast<size_t>(i);
    out[d] = simplified(ctx, out[d] + pad[2 * static_cast<size_t>(i)] + pad[2 * static_cast<size_t>(i) + 1]);
    positive = sym_and(positive, sym_ge(out[d], 1));
  }
  require(ctx, positive, "pad output size", ErrorKind::InvalidArgument,
          [&] { return "input (" + text(self.sizes) + ") is too small. Calculated output " + text(out); });
  // The CPU 2-D kernels keep a batched channels-last input's layout; CUDA and
  // the 1-D / 3-D kernels allocate contiguous results.
  const bool cl = Spatial == 2 && !self.device.is_cuda() && suggests_channels_last(ctx, self);
  return empty_tensor(ctx, out, self.dtype, self.device, cl ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
}
// reflection_pad{1,2,3}d (kReflection) / replication_pad{1,2,3}d.
template <int Spatial, bool kReflection>
void pad_nd(OpContext& ctx) {
  set_tensor(ctx, pad_nd_result<Spatial>(ctx, ctx.tensor("self"), ctx.int_list("padding"), kReflection));
}

// _pad_circular(self, pad): the last pad.size() / 2 dims grow by their pads,
// each at most the size; a contiguous copy.
TensorValue pad_circular_result(OpContext& ctx, const TensorMeta& self, const std::vector<SymInt>& pad) {
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size() / 2) > self.dim())
    ctx.fail(ErrorKind::InvalidArgument, "_pad_circular: bad padding " + text(pad) + " for input " + text(self.sizes));
  SymShape out = self.sizes;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t d = out.size() - 1 - i;
    for (const SymInt& p : {pad[2 * i], pad[2 * i + 1]})
      if (decide(ctx, sym_gt(p, self.sizes[d]), "_pad_circular"))
        ctx.fail(ErrorKind::InvalidArgument, "Padding value causes wrapping around more than once.");
    out[d] = simplified(ctx, out[d] + pad[2 * i] + pad[2 * i + 1]);
  }
  return empty_tensor(ctx, out, self.dtype, self.device);
}
void pad_circular(OpContext& ctx) {
  set_tensor(ctx, pad_circular_result(ctx, ctx.tensor("self"), ctx.int_list("pad")));
}

// pad(self, pad, mode="constant", value=None), CompositeImplicit: constant
// padding is constant_pad_nd; reflect / replicate / circular take 2, 4 or 6
// pads over a 1-D, 2-D or 3-D (batched or not) input.
void pad(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<SymInt> pads = ctx.int_list("pad");
  const std::string mode = ctx.string_arg("mode", "constant");
  if (pads.size() % 2 != 0) ctx.fail(ErrorKind::InvalidArgument, "Padding length must be divisible by 2");
  if (static_cast<int64_t>(pads.size()) > 2 * self.dim())
    ctx.fail(ErrorKind::InvalidArgument,
             "Padding length should be less than or equal to two times the input dimension but got padding length " +
                 std::to_string(pads.size()) + " and input of dimension " + std::to_string(self.dim()));
  if (mode == "constant") return constant_pad_nd(ctx);
  if (mode != "reflect" && mode != "replicate" && mode != "circular")
    ctx.fail(ErrorKind::InvalidArgument, "Unrecognised padding mode " + mode);
  if (ctx.has("value") && ctx.float_arg("value") != 0)
    ctx.fail(ErrorKind::InvalidArgument, "Padding mode \"" + mode + "\" doesn't take in value argument");
  const auto n = static_cast<int64_t>(pads.size() / 2);
  if (n < 1 || n > 3 || (self.dim() != n + 1 && self.dim() != n + 2))
    ctx.fail(ErrorKind::InvalidArgument, "Padding size " + std::to_string(pads.size()) + " is not supported for " +
                                           std::to_string(self.dim()) + "D input tensor.");
  if (mode == "circular") return set_tensor(ctx, pad_circular_result(ctx, self, pads));
  const bool reflection = mode == "reflect";
  if (n == 1) return set_tensor(ctx, pad_nd_result<1>(ctx, self, pads, reflection));
  if (n == 2) return set_tensor(ctx, pad_nd_result<2>(ctx, self, pads, reflection));
  set_tensor(ctx, pad_nd_result<3>(ctx, self, pads, reflection));
}

// max_pool3d_with_indices / avg_pool3d (kernel, stride, padding[, dilation], ceil_mode, ...).
void pool3d(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("self");
  const bool is_max = ctx.declares("dilation");  // max_pool3d_with_indices; avg_pool3d has none
  auto triple = [&](std::string_view name, std::optional<std::vector<SymInt>> dflt) {
    std::vector<int64_t> v = static_int_list(ctx, name, std::move(dflt));
    if (v.size() == 1) v.assign(3, v[0]);
    if (v.size() != 3)
      ctx.fail(ErrorKind::InvalidArgument, std::string(name) + " must be a single int or a tuple of three ints");
    return v;
  };
  const std::vector<int64_t> k = triple("kernel_size", std::nullopt);
  std::vector<int64_t> st = static_int_list(ctx, "stride", std::vector<SymInt>{});
  if (st.empty()) st = k;
  if (st.size() == 1) st.assign(3, st[0]);
  const std::vector<int64_t> pad = triple("padding", std::vector<SymInt>{0});
  const std::vector<int64_t> dil = is_max ? triple("dilation", std::vector<SymInt>{1}) : std::vector<int64_t>{1, 1, 1};
  const bool ceil_mode = ctx.bool_arg("ceil_mode", false);
  if (input.dim() != 4 && input.dim() != 5)
    ctx.fail(ErrorKind::InvalidArgument, "non-empty 4D or 5D (batch mode) tensor expected for input");
  SymShape out(input.sizes.begin(), input.sizes.end() - 3);
  for (size_t i = 0; i < 3; ++i) {
    if (pad[i] > k[i] / 2)
      ctx.fail(ErrorKind::InvalidArgument, "pad should be smaller than or equal to half of kernel size");
    const SymInt o = pooled_size(ctx, input.sizes[input.sizes.size() - 3 + i], k[i], pad[i], st[i], dil[i], ceil_mode);
    if (decide(ctx, sym_lt(o, 1), "pool3d output size"))
      ctx.fail(ErrorKind::InvalidArgument, "Given input size " + text(input.sizes) +
                                               ": calculated output size is too small");
    out.push_back(o);
  }
  // avg_pool3d allocates contiguous results; max_pool3d keeps channels_last_3d
  // (meta_max_pool3d_with_indices, 2.x; torch 1.13 returned contiguous).
  if (!is_max) {
    set_tensor(ctx, empty_tensor(ctx, out, input.dtype, input.device));
    return;
  }
  const bool cl3d = input.dim() == 5 && suggest_memory_format(input, ctx.env()) == MemoryFormat::ChannelsLast3d;
  const MemoryFormat format = cl3d ? MemoryFormat::ChannelsLast3d : MemoryFormat::Contiguous;
  set_tuple(ctx, {empty_tensor(ctx, out, input.dtype, input.device, format),
                  empty_tensor(ctx, out, DType::Int64, input.device, format)});
}

// max_pool3d (CompositeImplicit): max_pool3d_with_indices' output.
void max_pool3d(OpContext& ctx) {
  pool3d(ctx);
  Value out = (*ctx.result().list)[0];
  ctx.set_result(std::move(out));
}

// Core ATen IR ops that torch.export emits and make_fx rarely does; semantics
// follow PyTorch's meta functions (torch/_meta_registrations.py).

// _cdist_forward(x1 [*, P, M], x2 [*, R, M], p, compute_mode) -> [*, P, R]
// with the batch dims broadcast; contiguous, x1's dtype.
void cdist_forward(OpContext& ctx) {
  const TensorMeta& x1 = ctx.tensor("x1");
  const TensorMeta& x2 = ctx.tensor("x2");
  if (x1.dim() < 2)
    ctx.fail(ErrorKind::InvalidArgument, "cdist only supports at least 2D tensors, X1 got: " +
                                             std::to_string(x1.dim()) + "D");
  if (x2.dim() < 2)
    ctx.fail(ErrorKind::InvalidArgument, "cdist only supports at least 2D tensors, X2 got: " +
                                             std::to_string(x2.dim()) + "D");
  if (!same_size(ctx, x1.sizes.back(), x2.sizes.back(), "cdist"))
    ctx.fail(ErrorKind::ShapeMismatch, "X1 and X2 must have the same number of columns. X1: " + text(x1.sizes.back()) +
                                           " X2: " + text(x2.sizes.back()));
  if (!is_floating(x1.dtype))
    ctx.fail(ErrorKind::TypeError, "cdist only supports floating-point dtypes, X1 got: " + dtype_title(x1.dtype));
  if (x1.dtype != x2.dtype) ctx.fail(ErrorKind::TypeError, "cdist: X1 and X2 must have the same dtype");
  const double p = ctx.float_arg("p");
  if (p < 0) ctx.fail(ErrorKind::InvalidArgument, "cdist only supports non-negative p values");
  // torch.cdist (Distance.cpp) is a composite: it came here only after
  // asking whether an input is empty and, for p = 2 by default, whether a
  // row count exceeds 25 (above it, the matrix-multiply path).
  if (ctx.graph_traced()) {
    const bool empty = decide(ctx, sym_eq(x1.numel(), 0), "cdist of an empty input") ||
                       decide(ctx, sym_eq(x2.numel(), 0), "cdist of an empty input");
    const std::optional<SymInt> mode = ctx.optional_int("compute_mode");
    if (!empty && p == 2 && (!mode || mode->maybe_value() == std::optional<int64_t>(0)))
      (void)(decide(ctx, sym_gt(x1.sizes[x1.dim() - 2], 25), "cdist matrix-multiply path") ||
             decide(ctx, sym_gt(x2.sizes[x2.dim() - 2], 25), "cdist matrix-multiply path"));
  }
  const Device device = common_device(present({&x1, &x2}), ctx.target());
  SymShape b1(x1.sizes.begin(), x1.sizes.end() - 2), b2(x2.sizes.begin(), x2.sizes.end() - 2);
  SymShape out = broadcast_shapes(b1, b2, ctx.env());
  out.push_back(x1.sizes[x1.sizes.size() - 2]);
  out.push_back(x2.sizes[x2.sizes.size() - 2]);
  set_tensor(ctx, empty_tensor(ctx, out, x1.dtype, device));
}

// _pdist_forward(self [N, M], p=2) -> [N * (N - 1) / 2], contiguous.
void pdist_forward(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() != 2)
    ctx.fail(ErrorKind::InvalidArgument, "pdist only supports 2D tensors, got: " + std::to_string(self.dim()) + "D");
  if (ctx.float_arg("p", 2.0) < 0) ctx.fail(ErrorKind::InvalidArgument, "pdist only supports non-negative p values");
  const SymInt n = self.sizes[0];
  const SymInt pairs = decide(ctx, sym_le(n, SymInt(1)), "pdist of one row") ? SymInt(0) : floordiv(n * (n - 1), 2);
  set_tensor(ctx, empty_tensor(ctx, {simplified(ctx, pairs)}, self.dtype, self.device));
}

// avg_pool1d / adaptive_avg_pool1d are composites over their 2-D versions
// (unsqueeze(-2), pool, squeeze(-2)); on a [*, C, L] input the result is a
// fresh contiguous [*, C, L_out].
SymInt pool_out(OpContext& ctx, const SymInt& in, int64_t k, int64_t pad, int64_t stride, bool ceil_mode) {
  SymInt out = floordiv(in + pad * 2 - (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  out = simplified(ctx, out);
  if (ceil_mode && decide(ctx, sym_ge((out - 1) * stride, in + pad), "pooling ceil_mode")) out = simplified(ctx, out - 1);
  return out;
}

int64_t single(OpContext& ctx, std::string_view name, const char* op, std::optional<int64_t> dflt) {
  const auto v = static_int_list(ctx, name, dflt ? std::optional<std::vector<SymInt>>({SymInt(*dflt)}) : std::nullopt);
  if (v.size() != 1)
    ctx.fail(ErrorKind::InvalidArgument, std::string(op) + ": " + std::string(name) + " must be a single int");
  return v[0];
}

void avg_pool1d(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const char* op = "avg_pool1d";
  if (self.dim() != 2 && self.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "avg_pool1d() Expected 2D or 3D input tensor, but got " + text(self.sizes));
  const int64_t k = single(ctx, "kernel_size", op, std::nullopt);
  const auto stride_list = static_int_list(ctx, "stride", std::vector<SymInt>{});
  const int64_t stride = stride_list.empty() ? k : stride_list[0];
  const int64_t pad = single(ctx, "padding", op, 0);
  const bool ceil_mode = ctx.bool_arg("ceil_mode", false);
  if (k <= 0 || stride <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "avg_pool1d: kernel size and stride should be greater than zero");
  if (pad > k / 2)
    ctx.fail(ErrorKind::InvalidArgument, "pad should be at most half of effective kernel size, but got pad=" +
                                             std::to_string(pad) + ", kernel_size=" + std::to_string(k));
  const SymInt out = pool_out(ctx, self.sizes.back(), k, pad, stride, ceil_mode);
  if (decide(ctx, sym_le(out, SymInt(0)), "avg_pool1d output size"))
    ctx.fail(ErrorKind::InvalidArgument, "Given input size: " + text(self.sizes) +
                                             ". Calculated output size is too small");
  // ATen's composite: avg_pool2d(self.unsqueeze(-2), {1, k}, ...).squeeze(-2),
  // so a transposed [B, C, L] pools channels-last (HF SEW's conv position
  // embedding: torch gives (C*L, 1, C), not contiguous).
  Composite c(ctx);
  const TensorValue u = c.call("aten.unsqueeze.default", {ctx.value("self"), Value::of_int(-2)});
  const TensorValue p = c.call("aten.avg_pool2d.default",
                               {Composite::tensor(u), Composite::ints({1, k}), Composite::ints({1, stride}),
                                Composite::ints({0, pad}), Value::of_bool(SymBool(ceil_mode)),
                                Value::of_bool(SymBool(ctx.bool_arg("count_include_pad", true)))});
  set_tensor(ctx, c.call("aten.squeeze.dim", {Composite::tensor(p), Value::of_int(-2)}));
}

void adaptive_avg_pool1d(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (self.dim() != 2 && self.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "adaptive_avg_pool1d() argument 'input' must be 2D or 3D, but got " +
                                             text(self.sizes));
  const auto out = ctx.int_list("output_size");
  if (out.size() != 1) ctx.fail(ErrorKind::InvalidArgument, "adaptive_avg_pool1d: output_size must be 1");
  // ATen's composite: adaptive_avg_pool2d(self.unsqueeze(-2), {1, L}).squeeze(-2),
  // so the 2-D op's memory format decides the strides: a transposed
  // [B, C, L] suggests channels-last (HF FocalNet's pooled [B, C, 1] is (C, 1, C)).
  Composite c(ctx);
  const TensorValue u = c.call("aten.unsqueeze.default", {ctx.value("self"), Value::of_int(-2)});
  const TensorValue p =
      c.call("aten.adaptive_avg_pool2d.default", {Composite::tensor(u), Composite::sizes({SymInt(1), out[0]})});
  set_tensor(ctx, c.call("aten.squeeze.dim", {Composite::tensor(p), Value::of_int(-2)}));
}

// col2im(self [N?, C * kh * kw, L], output_size, kernel_size, dilation,
// padding, stride) -> [N?, C, out_h, out_w], contiguous.
void col2im(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const auto out = ctx.int_list("output_size");
  const auto k = static_int_list(ctx, "kernel_size");
  const auto d = static_int_list(ctx, "dilation");
  const auto p = static_int_list(ctx, "padding");
  const auto s = static_int_list(ctx, "stride");
  if (out.size() != 2 || k.size() != 2 || d.size() != 2 || p.size() != 2 || s.size() != 2)
    ctx.fail(ErrorKind::InvalidArgument,
             "col2im: output_size, kernel_size, dilation, padding and stride must each have 2 entries");
  if (self.dim() != 2 && self.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument,
             "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: " +
                 text(self.sizes));
  const bool batched = self.dim() == 3;
  const SymInt cols = self.sizes[batched ? 1 : 0];
  const SymInt blocks = self.sizes[batched ? 2 : 1];
  const int64_t kernel = k[0] * k[1];
  if (decide(ctx, sym_ne(mod(cols, SymInt(kernel)), SymInt(0)), "col2im channels"))
    ctx.fail(ErrorKind::InvalidArgument,
             "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=" +
                 text(cols) + " and kernel_size=(" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ")");
  SymInt expected(1);
  for (int i = 0; i < 2; ++i)
    expected = expected * (floordiv(out[static_cast<size_t>(i)] + 2 * p[i] - (d[i] * (k[i] - 1) + 1), SymInt(s[i])) + 1);
  if (!same_size(ctx, blocks, simplified(ctx, expected), "col2im blocks"))
    ctx.fail(ErrorKind::ShapeMismatch,
             "Given output_size=(" + text(out[0]) + ", " + text(out[1]) + "), kernel_size=(" + std::to_string(k[0]) +
                 ", " + std::to_string(k[1]) +
                 "), expected size of input's dimension 2 to match the calculated number of sliding blocks " +
                 text(simplified(ctx, expected)) + ", but got input.size(2)=" + text(blocks) + ".");
  SymShape sizes;
  if (batched) sizes.push_back(self.sizes[0]);
  sizes.push_back(simplified(ctx, floordiv(cols, SymInt(kernel))));
  sizes.push_back(out[0]);
  sizes.push_back(out[1]);
  set_tensor(ctx, empty_tensor(ctx, sizes, self.dtype, self.device));
}

// im2col(self [N?, C, H, W], kernel_size, dilation, padding, stride) ->
// [N?, C * kh * kw, L], L the sliding blocks over H and W. Its
// decomposition (torch/_decomp, which fake tensors run) checks the lists,
// the spatial sizes and the blocks, and reshapes an index result: contiguous.
void im2col(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const auto k = static_int_list(ctx, "kernel_size");
  const auto d = static_int_list(ctx, "dilation");
  const auto p = static_int_list(ctx, "padding");
  const auto s = static_int_list(ctx, "stride");
  const std::pair<const std::vector<int64_t>*, const char*> lists[] = {
      {&k, "kernel"}, {&d, "dilation"}, {&p, "padding"}, {&s, "stride"}};
  for (const auto& [list, name] : lists)
    if (list->size() != 2) ctx.fail(ErrorKind::InvalidArgument, std::string("im2col(): only 2D ") + name + " supported");
  auto positive = [&](const std::vector<int64_t>& v, const char* name, bool strict) {
    for (int64_t x : v)
      if (strict ? x <= 0 : x < 0)
        ctx.fail(ErrorKind::InvalidArgument, std::string(name) + " should be greater than zero, but got [" +
                                                 std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]");
  };
  positive(k, "kernel_size", true);
  positive(d, "dilation", true);
  positive(d, "padding", false);  // the decomposition checks dilation twice, never padding
  positive(s, "stride", true);
  const std::string bad_input =
      "Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size and non-zero dimensions, but got: " +
      text(self.sizes);
  if (self.dim() != 3 && self.dim() != 4) ctx.fail(ErrorKind::InvalidArgument, bad_input);
  for (int64_t i = self.dim() - 3; i < self.dim(); ++i)
    require(ctx, sym_ne(self.sizes[static_cast<size_t>(i)], 0), "im2col", ErrorKind::InvalidArgument, bad_input);
  SymInt blocks(1);
  SymInt per_dim[2];
  for (size_t i = 0; i < 2; ++i) {
    const SymInt in = self.sizes[self.sizes.size() - 2 + i];
    const SymInt n = simplified(ctx, floordiv(in + 2 * p[i] - d[i] * (k[i] - 1) - 1, SymInt(s[i])) + 1);
    require(ctx, sym_gt(n, 0), "im2col", ErrorKind::InvalidArgument, [&] {
      return "the calculated shape of the array of sliding blocks is " + text(n) +
             ", but its components must be at least one.";
    });
    blocks = blocks * n;
    per_dim[i] = n;
  }
  SymShape sizes;
  if (self.dim() == 4) sizes.push_back(self.sizes[0]);
  sizes.push_back(simplified(ctx, self.sizes[self.sizes.size() - 3] * (k[0] * k[1])));
  sizes.push_back(simplified(ctx, blocks));
  TensorValue out = empty_tensor(ctx, sizes, self.dtype, self.device);
  // One block: the reshape is a view of the index result, whose size-1 block
  // dims leave the last dim torch's fake stride kw (eager gives 1; timm and
  // HF MobileViTv2's 2x2 unfold of a 2x2 map).
  if (guard_or_false(ctx, sym_eq(per_dim[0], 1), "im2col") && guard_or_false(ctx, sym_eq(per_dim[1], 1), "im2col"))
    out.meta.strides.back() = SymInt(k[1]);
  set_tensor(ctx, std::move(out));
}

// native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW,
// group, output_mask) -> (grad_input, grad_weight, grad_bias): grad_input
// like input in its suggested memory format, grad_weight/bias [C]; None
// where output_mask is false.
void native_group_norm_backward(OpContext& ctx) {
  const TensorMeta& grad_out = ctx.tensor("grad_out");
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta* weight = ctx.optional_tensor("weight");
  const SymInt c = ctx.int_arg("C");
  const Value& mask_v = ctx.value("output_mask");
  if (mask_v.kind != Value::Kind::List || mask_v.list->size() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "native_group_norm_backward: output_mask must be 3 bools");
  std::array<bool, 3> mask{};
  for (size_t i = 0; i < 3; ++i) {
    const Value& b = (*mask_v.list)[i];
    mask[i] = b.kind == Value::Kind::Bool ? (b.b.is_static() && b.b.value())
                                          : (b.kind == Value::Kind::Int && b.i.is_static() && b.i.value() != 0);
  }
  const Device device = common_device(present({&grad_out, &input, weight}), ctx.target());
  ValueList outs;
  if (mask[0]) {
    const MemoryFormat f = suggest_memory_format(input, ctx.env());
    outs.push_back(Value::of_tensor(empty_tensor(ctx, input.sizes, input.dtype, device, f)));
  } else {
    outs.push_back(Value::none());
  }
  for (size_t i = 1; i < 3; ++i)
    outs.push_back(mask[i] ? Value::of_tensor(empty_tensor(ctx, {c}, input.dtype, device)) : Value::none());
  ctx.set_result(Value::of_list(std::move(outs)));
}

// grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2], interpolation,
// padding, align_corners) -> [N, C, Ho, Wo], contiguous on both devices.
void grid_sampler_2d(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta& grid = ctx.tensor("grid");
  if (input.dim() != 4 || grid.dim() != 4)
    ctx.fail(ErrorKind::InvalidArgument,
             "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes " +
                 text(input.sizes) + " and grid with sizes " + text(grid.sizes));
  if (!same_size(ctx, input.sizes[0], grid.sizes[0], "grid_sampler batch"))
    ctx.fail(ErrorKind::ShapeMismatch,
             "grid_sampler(): expected grid and input to have same batch size, but got input with sizes " +
                 text(input.sizes) + " and grid with sizes " + text(grid.sizes));
  if (!same_size(ctx, grid.sizes[3], SymInt(2), "grid_sampler last dim"))
    ctx.fail(ErrorKind::ShapeMismatch,
             "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes " +
                 text(grid.sizes));
  if (input.dtype != grid.dtype)
    ctx.fail(ErrorKind::TypeError, "grid_sampler(): expected input and grid to have same dtype, but input has " +
                                       dtype_title(input.dtype) + " and grid has " + dtype_title(grid.dtype));
  const Device device = common_device(present({&input, &grid}), ctx.target());
  set_tensor(ctx, empty_tensor(ctx, {input.sizes[0], input.sizes[1], grid.sizes[1], grid.sizes[2]}, input.dtype, device));
}

// lstm.input(input, hx [h0, c0], params, has_biases, num_layers, dropout,
// train, bidirectional, batch_first) -> (output, h_n, c_n), as torch's
// decomposition (torch/_decomp lstm_impl, which fake tensors run; timm's
// Sequencer): the layers' [T, B, D * H_out] output, contiguous, transposed
// back when batch_first; h_n and c_n the final states stacked, contiguous,
// in hx's dtypes (mkldnn_rnn_layer's hx.new_empty on CPU).
void lstm(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const Value& hx = ctx.value("hx");
  if (hx.kind != Value::Kind::List || hx.list->size() != 2 || !(*hx.list)[0].is_tensor() ||
      !(*hx.list)[1].is_tensor())
    ctx.fail(ErrorKind::InvalidArgument, "lstm expects two hidden states");
  const TensorMeta& h0 = (*hx.list)[0].tensor->meta;
  const TensorMeta& c0 = (*hx.list)[1].tensor->meta;
  const int64_t layers = static_int(ctx, "num_layers");
  const bool bidirectional = ctx.bool_arg("bidirectional", false);
  const bool batch_first = ctx.bool_arg("batch_first", false);
  if (input.dim() != 3 || h0.dim() != 3 || c0.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "lstm: expected a 3-D input and 3-D hidden states, got " +
                                             text(input.sizes) + ", " + text(h0.sizes) + ", " + text(c0.sizes));
  const int64_t dirs = bidirectional ? 2 : 1;
  const SymInt steps = input.sizes[batch_first ? 1 : 0], batch = input.sizes[batch_first ? 0 : 1];
  TensorValue out = empty_tensor(ctx, {steps, batch, simplified(ctx, h0.sizes[2] * dirs)}, input.dtype, input.device);
  if (batch_first) {
    std::swap(out.meta.sizes[0], out.meta.sizes[1]);
    std::swap(out.meta.strides[0], out.meta.strides[1]);
  }
  const SymInt stacked(layers * dirs);
  set_tuple(ctx, {std::move(out), empty_tensor(ctx, {stacked, h0.sizes[1], h0.sizes[2]}, h0.dtype, h0.device),
                  empty_tensor(ctx, {stacked, c0.sizes[1], c0.sizes[2]}, c0.dtype, c0.device)});
}

// grid_sampler_3d(input [N, C, D, H, W], grid [N, Do, Ho, Wo, 3], ...) ->
// [N, C, Do, Ho, Wo] (torch's meta: check_grid_sampler_common and _3d, then
// new_empty).
void grid_sampler_3d(OpContext& ctx) {
  const TensorMeta& input = ctx.tensor("input");
  const TensorMeta& grid = ctx.tensor("grid");
  const Device device = common_device(present({&input, &grid}), ctx.target());
  if (!same_size(ctx, input.sizes[0], grid.sizes[0], "grid_sampler batch"))
    ctx.fail(ErrorKind::ShapeMismatch,
             "grid_sampler(): expected grid and input to have same batch size, but got input with sizes " +
                 text(input.sizes) + " and grid with sizes " + text(grid.sizes));
  if (grid.dim() < 1 || !same_size(ctx, grid.sizes.back(), SymInt(input.dim() - 2), "grid_sampler last dim"))
    ctx.fail(ErrorKind::ShapeMismatch, "grid_sampler(): expected grid to have size " + std::to_string(input.dim() - 2) +
                                           " in last dimension, but got grid with sizes " + text(grid.sizes));
  if (input.dim() != 5 || grid.dim() != 5)
    ctx.fail(ErrorKind::InvalidArgument,
             "grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with sizes " +
                 text(input.sizes) + " and grid with sizes " + text(grid.sizes));
  set_tensor(ctx, empty_tensor(ctx, {input.sizes[0], input.sizes[1], grid.sizes[1], grid.sizes[2], grid.sizes[3]},
                               input.dtype, device));
}

// grid_sampler(input, grid, ...), ATen's composite (GridSampler.cpp): the 2-D
// kernel for a 4-D input, else the 3-D one; export keeps the composite
// (HF Deformable DETR). cuDNN's path, when taken, gives the same value.
void grid_sampler(OpContext& ctx) {
  if (ctx.tensor("input").dim() == 4)
    grid_sampler_2d(ctx);
  else
    grid_sampler_3d(ctx);
}

// ---- embedding_bag ----
// Current PyTorch's meta_embedding_bag / meta_embedding_bag_forward_only
// (torch/_meta_registrations.py, pytorch/pytorch at 0015748b977f) and the
// CompositeImplicit embedding_bag overloads (aten/src/ATen/native/EmbeddingBag.cpp).
// Outputs (output, offset2bag, bag_size, max_indices):
//   output [num_bags, weight.size(1)], weight's dtype, where num_bags is
//   offsets.size(0), less one with include_last_offset;
//   off CPU (decided by offsets' device): offset2bag [indices.size(0)],
//   bag_size [offsets.size(0)], max_indices [num_bags, D] for mode max else
//   [0], all of indices' dtype;
//   on CPU, of offsets' dtype: offset2bag [indices.size(0)] unless mode sum
//   takes the fast path (float/half weight with unit stride(1), padding_idx
//   < 0, per_sample_weights of unit stride), then [0]; bag_size [num_bags]
//   ([offsets.size(0)] for _forward_only); max_indices [num_bags, D] for
//   mode max, else [num_bags].
// Every output lands on the inputs' common device, as FakeTensor puts it.
constexpr int64_t kModeSum = 0, kModeMean = 1, kModeMax = 2;

void embedding_bag_outputs(OpContext& ctx, int64_t padding_idx, bool forward_only) {
  const TensorMeta& weight = ctx.tensor("weight");
  const TensorMeta& indices = ctx.tensor("indices");
  const TensorMeta& offsets = ctx.tensor("offsets");
  const int64_t mode = static_int(ctx, "mode", kModeSum);
  const TensorMeta* psw = ctx.optional_tensor("per_sample_weights");
  const bool include_last_offset = ctx.bool_arg("include_last_offset", false);

  if (indices.dtype != DType::Int64 && indices.dtype != DType::Int32)
    ctx.fail(ErrorKind::TypeError, "expected indices to be long or int, got " + torch_dtype(indices.dtype));
  if (offsets.dtype != DType::Int64 && offsets.dtype != DType::Int32)
    ctx.fail(ErrorKind::TypeError, "expected offsets to be long or int, got " + torch_dtype(offsets.dtype));
  if (!is_floating(weight.dtype))
    ctx.fail(ErrorKind::TypeError, "expected weight to be floating point type, got " + torch_dtype(weight.dtype));
  canonical_dim(0, offsets.dim(), /*wrap_scalar=*/false);  // offsets.size(0)
  SymInt num_bags = offsets.sizes[0];
  if (include_last_offset) {
    require(ctx, sym_ge(num_bags, SymInt(1)), "embedding_bag include_last_offset", ErrorKind::InvalidArgument,
            "include_last_offset: numBags should be at least 1");
    num_bags = simplified(ctx, num_bags - 1);
  }
  canonical_dim(1, weight.dim(), /*wrap_scalar=*/false);  // weight.size(1)
  const SymInt features = weight.sizes[1];
  if (psw) {
    if (mode != kModeSum)
      ctx.fail(ErrorKind::InvalidArgument, "embedding_bag: per_sample_weights only supported with mode='sum'");
    if (psw->dim() != 1)
      ctx.fail(ErrorKind::InvalidArgument, "expected per_sample_weights to be 1D tensor, got " +
                                               std::to_string(psw->dim()) + "D");
    require(ctx, sym_eq(psw->numel(), indices.numel()), "embedding_bag per_sample_weights numel",
            ErrorKind::ShapeMismatch,
            "expected per_sample_weights.numel() (" + text(psw->numel()) + " to be the same as indices.numel() (" +
                text(indices.numel()) + ")");
  }
  canonical_dim(0, indices.dim(), /*wrap_scalar=*/false);  // indices.size(0)
  const SymInt num_indices = indices.sizes[0];

  std::vector<const TensorMeta*> operands{&weight, &indices, &offsets};
  if (psw) operands.push_back(psw);
  const Device device = common_device(operands, ctx.target());

  std::vector<TensorValue> outs;
  outs.push_back(empty_tensor(ctx, {num_bags, features}, weight.dtype, device));
  if (!offsets.device.is_cpu()) {
    const DType t = indices.dtype;
    outs.push_back(empty_tensor(ctx, {num_indices}, t, device));
    outs.push_back(empty_tensor(ctx, offsets.sizes, t, device));
    outs.push_back(mode == kModeMax ? empty_tensor(ctx, {num_bags, features}, t, device)
                                    : empty_tensor(ctx, {SymInt(0)}, t, device));
  } else {
    // The fast path test runs whatever the mode, in its short-circuit order
    // (the output's stride(1) is 1: it is a fresh contiguous 2-D tensor).
    const bool fast_path = (weight.dtype == DType::Float32 || weight.dtype == DType::Float16) &&
                           same_size(ctx, weight.strides[1], SymInt(1), "embedding_bag fast path") &&
                           padding_idx < 0 &&
                           (!psw || same_size(ctx, psw->strides[0], SymInt(1), "embedding_bag fast path"));
    const DType t = offsets.dtype;
    const bool needs_offset2bag = mode == kModeMean || mode == kModeMax || !fast_path;
    outs.push_back(empty_tensor(ctx, {needs_offset2bag ? num_indices : SymInt(0)}, t, device));
    outs.push_back(empty_tensor(ctx, forward_only ? offsets.sizes : SymShape{num_bags}, t, device));
    outs.push_back(mode == kModeMax ? empty_tensor(ctx, {num_bags, features}, t, device)
                                    : empty_tensor(ctx, {num_bags}, t, device));
  }
  set_tuple(ctx, std::move(outs));
}

void embedding_bag_private(OpContext& ctx) { embedding_bag_outputs(ctx, static_int(ctx, "padding_idx", -1), false); }
void embedding_bag_forward_only(OpContext& ctx) {
  embedding_bag_outputs(ctx, static_int(ctx, "padding_idx", -1), true);
}

// embedding_bag.default / .padding_idx: a padding_idx in [-num_embeddings,
// num_embeddings) is wrapped to a non-negative one; the call goes to
// _embedding_bag when weight requires grad, else to _embedding_bag_forward_only.
void embedding_bag_composite(OpContext& ctx) {
  const TensorMeta& weight = ctx.tensor("weight");
  int64_t padding_idx = -1;
  // embedding_bag.padding_idx declares it; embedding_bag.default does not.
  if (auto given = ctx.declares("padding_idx") ? ctx.optional_int("padding_idx") : std::nullopt) {
    const SymInt idx = *given;
    canonical_dim(0, weight.dim(), /*wrap_scalar=*/false);  // weight.size(0)
    const SymInt n = weight.sizes[0];
    if (!decide(ctx, sym_and(sym_ge(idx, -n), sym_lt(idx, n)), "embedding_bag padding_idx in range"))
      ctx.fail(ErrorKind::InvalidArgument, "padding_idx must be within the number of embeddings, -" + text(n) +
                                               " through " + text(simplified(ctx, n - 1)) + ", but got " + text(idx));
    padding_idx = 0;  // wrapped into [0, num_embeddings): only its sign matters from here on
  }
  embedding_bag_outputs(ctx, padding_idx, !weight.requires_grad);
}

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.add("aten.convolution.default", convolution);
  r.add("aten._convolution.default", convolution);
  r.add("aten.conv1d.default", conv_composite<1, false>);
  r.add("aten.conv2d.default", conv_composite<2, false>);
  r.add("aten.conv3d.default", conv_composite<3, false>);
  r.add("aten.conv1d.padding", conv_composite<1, false>);
  r.add("aten.conv2d.padding", conv_composite<2, false>);
  r.add("aten.conv3d.padding", conv_composite<3, false>);
  r.add("aten.conv_transpose1d.default", conv_composite<1, true>);
  r.add("aten.conv_transpose2d.input", conv_composite<2, true>);
  r.add("aten.conv_transpose3d.input", conv_composite<3, true>);
  r.add("aten.mm.default", mm);
  r.add("transformers.grouped_mm_fallback.default", grouped_mm_fallback);
  r.add("aten.addmm.default", addmm);
  r.add("aten.bmm.default", bmm);
  r.add("aten.baddbmm.default", baddbmm);
  r.add("aten.matmul.default", matmul);
  r.add("aten.linear.default", linear);
  // The saved statistics (and the functional variant's new running stats)
  // are not differentiable outputs; native_group_norm's mean/rstd are.
  constexpr OutputGrad kOutputOnly{0b110};
  r.add("aten.native_batch_norm.default", native_batch_norm, kOutputOnly);
  r.add("aten._native_batch_norm_legit.default", native_batch_norm, kOutputOnly);
  r.add("aten._native_batch_norm_legit.no_stats", batch_norm_no_stats, kOutputOnly);
  r.add("aten._native_batch_norm_legit_no_training.default", batch_norm_no_training, kOutputOnly);
  r.add("aten._native_batch_norm_legit_functional.default", batch_norm_functional, OutputGrad{0b11110});
  r.add("aten.native_layer_norm.default", native_layer_norm, kOutputOnly);
  // CompositeImplicit ops that torch.export's default IR keeps.
  r.add("aten.layer_norm.default", layer_norm);
  r.add("aten.batch_norm.default", batch_norm);
  r.add("aten.group_norm.default", group_norm);
  for (const char* name : {"aten.dropout.default", "aten.feature_dropout.default", "aten.alpha_dropout.default",
                           "aten.feature_alpha_dropout.default"})
    r.add(name, dropout);
  for (const char* name : {"aten.dropout_.default", "aten.feature_dropout_.default", "aten.alpha_dropout_.default",
                           "aten.feature_alpha_dropout_.default"})
    r.add_inplace(name, dropout_inplace);
  r.add("aten.adaptive_avg_pool2d.default", adaptive_avg_pool_composite<2>);
  r.add("aten.adaptive_avg_pool3d.default", adaptive_avg_pool_composite<3>);
  r.add("aten.max_pool2d.default", max_pool2d);
  r.add("aten.max_pool1d.default", max_pool1d);
  r.add("aten.max_pool3d.default", max_pool3d);
  r.add("aten.adaptive_max_pool1d.default", adaptive_max_pool1d);
  r.add("aten.pad.default", pad);
  r.add("aten._pad_circular.default", pad_circular);
  r.add("aten.rms_norm.default", rms_norm);
  r.add("aten.instance_norm.default", instance_norm);
  r.add("aten.pixel_unshuffle.default", pixel_unshuffle);
  r.add("aten.channel_shuffle.default", channel_shuffle);
  r.add("aten.native_channel_shuffle.default", channel_shuffle);
  r.add("aten.prelu.default", prelu);
  r.add("aten.glu.default", glu);
  r.add("aten.max_pool2d_with_indices.default", max_pool2d_with_indices);
  r.add("aten.avg_pool2d.default", avg_pool2d);
  r.add("aten._adaptive_avg_pool2d.default", adaptive_avg_pool<2>);
  r.add("aten._adaptive_avg_pool3d.default", adaptive_avg_pool<3>);
  r.add("aten.adaptive_max_pool2d.default", adaptive_max_pool2d);
  for (const char* name : {"aten.upsample_nearest1d.default", "aten.upsample_nearest1d.vec",
                           "aten._upsample_nearest_exact1d.default", "aten._upsample_nearest_exact1d.vec",
                           "aten.upsample_linear1d.default", "aten.upsample_linear1d.vec"})
    r.add(name, upsample<1>);
  for (const char* name : {"aten.upsample_nearest2d.default", "aten.upsample_nearest2d.vec",
                           "aten._upsample_nearest_exact2d.default", "aten._upsample_nearest_exact2d.vec",
                           "aten.upsample_bicubic2d.default", "aten.upsample_bicubic2d.vec",
                           // antialiased (F.interpolate(antialias=True)): the same meta, without
                           // the CUDA bilinear kernel's channels-last threshold
                           "aten._upsample_bilinear2d_aa.default", "aten._upsample_bilinear2d_aa.vec",
                           "aten._upsample_bicubic2d_aa.default", "aten._upsample_bicubic2d_aa.vec",
                           "aten._upsample_lanczos2d_aa.default", "aten._upsample_lanczos2d_aa.vec"})
    r.add(name, upsample<2>);
  r.add("aten.upsample_bilinear2d.default", upsample<2, true>);
  r.add("aten.upsample_bilinear2d.vec", upsample<2, true>);
  r.add("aten.upsample_nearest3d.default", upsample<3>);
  r.add("aten.upsample_nearest3d.vec", upsample<3>);
  r.add("aten.upsample_trilinear3d.default", upsample<3, true>);
  r.add("aten.upsample_trilinear3d.vec", upsample<3, true>);
  r.add("aten.embedding.default", embedding);
  r.add("aten.native_group_norm.default", native_group_norm);
  r.add("aten.native_dropout.default", native_dropout);
  r.add("aten.pixel_shuffle.default", pixel_shuffle);
  // Only the attention output is differentiable (derivatives.yaml
  // output_differentiability of each variant); logsumexp, seeds and offsets are not.
  r.add("aten._scaled_dot_product_flash_attention.default", sdpa_flash, OutputGrad::first_only());
  r.add("aten._scaled_dot_product_efficient_attention.default", sdpa_efficient, OutputGrad::first_only());
  r.add("aten._scaled_dot_product_cudnn_attention.default", sdpa_cudnn, OutputGrad::first_only());
  r.add("aten._scaled_dot_product_flash_attention_for_cpu.default", sdpa_flash_cpu, OutputGrad::first_only());
  r.add("aten._scaled_dot_product_flash_attention_for_cpu_backward.default", sdpa_flash_cpu_backward);
  r.add("aten.scaled_dot_product_attention.default", sdpa);
  r.add("aten._native_multi_head_attention.default", native_multi_head_attention);
  r.add("aten.mv.default", mv);
  r.add("aten.dot.default", dot);
  r.add("aten.mse_loss.default", pointwise_loss);
  r.add("aten.binary_cross_entropy_with_logits.default", pointwise_loss);
  r.add("aten.nll_loss_forward.default", nll_loss_forward, OutputGrad{0b10});  // total_weight is not differentiable
  r.add("aten.nll_loss2d_forward.default", nll_loss2d_forward, OutputGrad{0b10});
  r.add("aten.nll_loss_backward.default", nll_loss_backward);
  r.add("aten._softmax_backward_data.default", softmax_backward);
  r.add("aten._log_softmax_backward_data.default", softmax_backward);
  r.add("aten.threshold_backward.default", threshold_backward);
  r.add("aten.gelu_backward.default", binary_backward<kSelf>);
  r.add("aten.silu_backward.default", binary_backward<kSelf>);
  r.add("aten.mish_backward.default", binary_backward<kSelf>);
  r.add("aten.sigmoid_backward.default", binary_backward<kOutput>);
  r.add("aten.tanh_backward.default", binary_backward<kOutput>);
  for (const char* name : {"aten.hardtanh_backward.default", "aten.leaky_relu_backward.default",
                           "aten.hardsigmoid_backward.default", "aten.hardswish_backward.default",
                           "aten.softplus_backward.default"})
    r.add(name, threshold_backward);
  r.add("aten.elu_backward.default", elu_backward);
  r.add("aten.reflection_pad1d.default", pad_nd<1, true>);
  r.add("aten.reflection_pad2d.default", pad_nd<2, true>);
  r.add("aten.reflection_pad3d.default", pad_nd<3, true>);
  r.add("aten.replication_pad1d.default", pad_nd<1, false>);
  r.add("aten.replication_pad2d.default", pad_nd<2, false>);
  r.add("aten.replication_pad3d.default", pad_nd<3, false>);
  r.add("aten.max_pool3d_with_indices.default", pool3d);
  r.add("aten.avg_pool3d.default", pool3d);
  r.add("aten.select_backward.default", index_backward);
  r.add("aten.slice_backward.default", index_backward);
  r.add("aten.convolution_backward.default", convolution_backward);
  r.add("aten.native_batch_norm_backward.default", batch_norm_backward);
  r.add("aten.native_layer_norm_backward.default", layer_norm_backward);
  r.add("aten.max_pool2d_with_indices_backward.default", max_pool2d_backward);
  r.add("aten.avg_pool2d_backward.default", pool_backward_like_self);
  r.add("aten._adaptive_avg_pool2d_backward.default", pool_backward_like_self);
  r.add("aten.embedding_dense_backward.default", embedding_dense_backward);
  // Core ATen ops torch.export emits: distances, 1-D pooling, col2im, grid
  // sampling, group norm's backward and embedding_bag.
  r.add("aten._cdist_forward.default", cdist_forward);
  r.add("aten._pdist_forward.default", pdist_forward);
  r.add("aten.avg_pool1d.default", avg_pool1d);
  r.add("aten.adaptive_avg_pool1d.default", adaptive_avg_pool1d);
  r.add("aten.col2im.default", col2im);
  r.add("aten.im2col.default", im2col);
  r.add("aten.native_group_norm_backward.default", native_group_norm_backward);
  r.add("aten.grid_sampler_2d.default", grid_sampler_2d);
  r.add("aten.grid_sampler_3d.default", grid_sampler_3d);
  r.add("aten.grid_sampler.default", grid_sampler);
  r.add("aten.lstm.input", lstm);
  // Only `output` is differentiable (derivatives.yaml output_differentiability).
  r.add("aten._embedding_bag.default", embedding_bag_private, OutputGrad::first_only());
  r.add("aten._embedding_bag_forward_only.default", embedding_bag_forward_only, OutputGrad::first_only());
  r.add("aten.embedding_bag.default", embedding_bag_composite, OutputGrad::first_only());
  r.add("aten.embedding_bag.padding_idx", embedding_bag_composite, OutputGrad::first_only());
}

}  // namespace fakeprop::fx::ops
