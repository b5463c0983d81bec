// Core ATen IR operators that make_fx traces rarely emit but torch.export's
// core-ATen graphs do: pairwise distances, 1-D pooling, col2im, the
// functional copy and scatter views, masked_scatter, group norm's backward,
// grid_sampler_2d, sym_is_contiguous and embedding_bag. Semantics follow
// PyTorch's meta functions (torch/_meta_registrations.py, aten/src/ATen/native/*): shape, dtype,
// device and the strides of the tensor the kernel allocates.
#include <array>

#include "fakeprop/fx/ops/aten_helpers.h"
#include "fakeprop/fx/ops/families.h"

namespace fakeprop::fx::ops {

namespace {

Device device_of(OpContext& ctx, std::initializer_list<const TensorMeta*> ts) {
  std::vector<const TensorMeta*> xs;
  for (const TensorMeta* t : ts)
    if (t) xs.push_back(t);
  return common_device(xs, ctx.target());
}

// _cdist_forward(x1 [*, P, M], x2 [*, R, M], p, compute_mode) -> [*, P, R]
// with the batch dims broadcast; contiguous, x1's dtype.
void cdist_forward(OpContext& ctx) {
  const TensorMeta& x1 = ctx.tensor(0, "x1");
  const TensorMeta& x2 = ctx.tensor(1, "x2");
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
  if (ctx.float_arg(2, "p") < 0) ctx.fail(ErrorKind::InvalidArgument, "cdist only supports non-negative p values");
  const Device device = device_of(ctx, {&x1, &x2});
  SymShape b1(x1.sizes.begin(), x1.sizes.end() - 2), b2(x2.sizes.begin(), x2.sizes.end() - 2);
  SymShape out = broadcast_shapes(b1, b2, ctx.env());
  out.push_back(x1.sizes[x1.sizes.size() - 2]);
  out.push_back(x2.sizes[x2.sizes.size() - 2]);
  set_tensor(ctx, empty_tensor(ctx, out, x1.dtype, device));
}

// _pdist_forward(self [N, M], p=2) -> [N * (N - 1) / 2], contiguous.
void pdist_forward(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  if (self.dim() != 2)
    ctx.fail(ErrorKind::InvalidArgument, "pdist only supports 2D tensors, got: " + std::to_string(self.dim()) + "D");
  if (ctx.float_arg(1, "p", 2.0) < 0) ctx.fail(ErrorKind::InvalidArgument, "pdist only supports non-negative p values");
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

int64_t single(OpContext& ctx, size_t pos, std::string_view name, const char* op, std::optional<int64_t> dflt) {
  const auto v = static_int_list(ctx, pos, name, dflt ? std::optional<std::vector<SymInt>>({SymInt(*dflt)}) : std::nullopt);
  if (v.size() != 1)
    ctx.fail(ErrorKind::InvalidArgument, std::string(op) + ": " + std::string(name) + " must be a single int");
  return v[0];
}

void avg_pool1d(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const char* op = "avg_pool1d";
  if (self.dim() != 2 && self.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "avg_pool1d() Expected 2D or 3D input tensor, but got " + text(self.sizes));
  const int64_t k = single(ctx, 1, "kernel_size", op, std::nullopt);
  const auto stride_list = static_int_list(ctx, 2, "stride", std::vector<SymInt>{});
  const int64_t stride = stride_list.empty() ? k : stride_list[0];
  const int64_t pad = single(ctx, 3, "padding", op, 0);
  const bool ceil_mode = ctx.bool_arg(4, "ceil_mode", false);
  if (k <= 0 || stride <= 0)
    ctx.fail(ErrorKind::InvalidArgument, "avg_pool1d: kernel size and stride should be greater than zero");
  if (pad > k / 2)
    ctx.fail(ErrorKind::InvalidArgument, "pad should be at most half of effective kernel size, but got pad=" +
                                             std::to_string(pad) + ", kernel_size=" + std::to_string(k));
  const SymInt out = pool_out(ctx, self.sizes.back(), k, pad, stride, ceil_mode);
  if (decide(ctx, sym_le(out, SymInt(0)), "avg_pool1d output size"))
    ctx.fail(ErrorKind::InvalidArgument, "Given input size: " + text(self.sizes) +
                                             ". Calculated output size is too small");
  SymShape sizes = self.sizes;
  sizes.back() = out;
  set_tensor(ctx, empty_tensor(ctx, sizes, self.dtype, self.device));
}

void adaptive_avg_pool1d(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  if (self.dim() != 2 && self.dim() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "adaptive_avg_pool1d() argument 'input' must be 2D or 3D, but got " +
                                             text(self.sizes));
  const auto out = ctx.int_list(1, "output_size");
  if (out.size() != 1) ctx.fail(ErrorKind::InvalidArgument, "adaptive_avg_pool1d: output_size must be 1");
  SymShape sizes = self.sizes;
  sizes.back() = out[0];
  set_tensor(ctx, empty_tensor(ctx, sizes, self.dtype, self.device));
}

// col2im(self [N?, C * kh * kw, L], output_size, kernel_size, dilation,
// padding, stride) -> [N?, C, out_h, out_w], contiguous.
void col2im(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const auto out = ctx.int_list(1, "output_size");
  const auto k = static_int_list(ctx, 2, "kernel_size");
  const auto d = static_int_list(ctx, 3, "dilation");
  const auto p = static_int_list(ctx, 4, "padding");
  const auto s = static_int_list(ctx, 5, "stride");
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

// copy(self, src, non_blocking=False): the functional copy_, as PyTorch's
// decomposition computes it: src.to(self's dtype and device), then a clone
// (src's layout) when the sizes already agree, else expand_copy to self's
// sizes (contiguous). src must broadcast to self.
void copy_functional(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const TensorMeta& src = ctx.tensor(1, "src");
  const SymShape b = broadcast_shapes(self.sizes, src.sizes, ctx.env());
  bool same = b.size() == self.sizes.size();
  for (size_t i = 0; same && i < b.size(); ++i) same = same_size(ctx, b[i], self.sizes[i], "copy broadcast");
  if (!same)
    ctx.fail(ErrorKind::ShapeMismatch, "The size of tensor a (" + text(self.sizes) +
                                           ") must match the broadcast shape " + text(b));
  bool same_shape = src.sizes.size() == self.sizes.size();
  for (size_t i = 0; same_shape && i < self.sizes.size(); ++i) same_shape = same_size(ctx, src.sizes[i], self.sizes[i], "copy");
  if (same_shape) {
    TensorMeta like = src;
    like.device = self.device;
    set_tensor(ctx, empty_like(ctx, like, self.dtype));
  } else {
    set_tensor(ctx, empty_tensor(ctx, self.sizes, self.dtype, self.device));
  }
}

// masked_scatter(self, mask, source): self expanded to the broadcast shape
// of (self, mask), cloned contiguous. mask must be bool; source of self's dtype.
void masked_scatter(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const TensorMeta& mask = ctx.tensor(1, "mask");
  const TensorMeta& source = ctx.tensor(2, "source");
  if (mask.dtype != DType::Bool)
    ctx.fail(ErrorKind::TypeError, "masked_scatter_ only supports boolean masks, but got mask with dtype " +
                                       dtype_title(mask.dtype));
  if (source.dtype != self.dtype)
    ctx.fail(ErrorKind::TypeError, "masked_scatter: expected self and source to have same dtypes but got " +
                                       dtype_title(self.dtype) + " and " + dtype_title(source.dtype));
  const Device device = device_of(ctx, {&self, &mask, &source});
  const SymShape shape = broadcast_shapes(self.sizes, mask.sizes, ctx.env());
  set_tensor(ctx, empty_tensor(ctx, shape, self.dtype, device));
}

// select_scatter / slice_scatter: self.clone() (preserve_format) with src
// written into the view; src must have the view's shape.
void check_src_matches(OpContext& ctx, const SymShape& view, const TensorMeta& src, const char* op) {
  bool same = view.size() == src.sizes.size();
  for (size_t i = 0; same && i < view.size(); ++i) same = same_size(ctx, view[i], src.sizes[i], op);
  if (!same)
    ctx.fail(ErrorKind::ShapeMismatch, std::string(op) +
                                           ": expected src to have a size equal to the slice of self. src size = " +
                                           text(src.sizes) + ", slice size = " + text(view));
}

void select_scatter(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const TensorMeta& src = ctx.tensor(1, "src");
  if (self.dim() == 0) ctx.fail(ErrorKind::IndexError, "select() cannot be applied to a 0-dim tensor.");
  const int64_t dim = dim_arg(ctx, 2, "dim", self.dim());
  const SymInt index = ctx.int_arg(3, "index");
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  if (decide(ctx, sym_or(sym_lt(index, -size), sym_ge(index, size)), "select_scatter index in range"))
    ctx.fail(ErrorKind::IndexError, "select(): index " + text(index) + " out of range for tensor of size " +
                                        text(self.sizes) + " at dimension " + std::to_string(dim));
  SymShape view = self.sizes;
  view.erase(view.begin() + dim);
  check_src_matches(ctx, view, src, "select_scatter");
  set_tensor(ctx, empty_like(ctx, self));
}

void slice_scatter(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const TensorMeta& src = ctx.tensor(1, "src");
  if (self.dim() == 0) ctx.fail(ErrorKind::IndexError, "slice() cannot be applied to a 0-dim tensor.");
  const int64_t dim = dim_arg(ctx, 2, "dim", self.dim(), 0);
  const SymInt size = self.sizes[static_cast<size_t>(dim)];
  const SymInt step = ctx.int_arg(5, "step", SymInt(1));
  if (decide(ctx, sym_le(step, SymInt(0)), "slice step"))
    ctx.fail(ErrorKind::InvalidArgument, "slice step must be positive");
  auto clamp = [&](std::optional<SymInt> v, const SymInt& dflt) {
    SymInt x = v.value_or(dflt);
    if (decide(ctx, sym_lt(x, SymInt(0)), "slice bound negative")) x = x + size;
    if (decide(ctx, sym_lt(x, SymInt(0)), "slice bound below 0")) x = SymInt(0);
    if (decide(ctx, sym_gt(x, size), "slice bound above size")) x = size;
    return simplified(ctx, x);
  };
  const SymInt start = clamp(ctx.optional_int(3, "start"), SymInt(0));
  SymInt end = clamp(ctx.optional_int(4, "end"), size);
  if (decide(ctx, sym_lt(end, start), "slice end before start")) end = start;
  SymShape view = self.sizes;
  view[static_cast<size_t>(dim)] = simplified(ctx, floordiv(end - start + step - 1, step));
  check_src_matches(ctx, view, src, "slice_scatter");
  set_tensor(ctx, empty_like(ctx, self));
}

// native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW,
// group, output_mask) -> (grad_input, grad_weight, grad_bias): grad_input
// like input in its suggested memory format, grad_weight/bias [C]; None
// where output_mask is false.
void native_group_norm_backward(OpContext& ctx) {
  const TensorMeta& grad_out = ctx.tensor(0, "grad_out");
  const TensorMeta& input = ctx.tensor(1, "input");
  const TensorMeta* weight = ctx.optional_tensor(4, "weight");
  const SymInt c = ctx.int_arg(6, "C");
  const Value& mask_v = ctx.value(9, "output_mask");
  if (mask_v.kind != Value::Kind::List || mask_v.list->size() != 3)
    ctx.fail(ErrorKind::InvalidArgument, "native_group_norm_backward: output_mask must be 3 bools");
  std::array<bool, 3> mask{};
  for (size_t i = 0; i < 3; ++i) {
    const Value& b = (*mask_v.list)[i];
    mask[i] = b.kind == Value::Kind::Bool ? (b.b.is_static() && b.b.value())
                                          : (b.kind == Value::Kind::Int && b.i.is_static() && b.i.value() != 0);
  }
  const Device device = device_of(ctx, {&grad_out, &input, weight});
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
  const TensorMeta& input = ctx.tensor(0, "input");
  const TensorMeta& grid = ctx.tensor(1, "grid");
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
  const Device device = device_of(ctx, {&input, &grid});
  set_tensor(ctx, empty_tensor(ctx, {input.sizes[0], input.sizes[1], grid.sizes[1], grid.sizes[2]}, input.dtype, device));
}

// sym_is_contiguous(self, memory_format=contiguous_format) -> SymBool.
void sym_is_contiguous(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const MemoryFormat f = ctx.memory_format_arg(1, "memory_format").value_or(MemoryFormat::Contiguous);
  bool v = false;
  if (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d)
    v = is_channels_last_contiguous(self, ctx.env());
  else
    v = is_contiguous(self, ctx.env());
  ctx.set_result(Value::of_bool(SymBool(v)));
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
  const TensorMeta& weight = ctx.tensor(0, "weight");
  const TensorMeta& indices = ctx.tensor(1, "indices");
  const TensorMeta& offsets = ctx.tensor(2, "offsets");
  const int64_t mode = static_int(ctx, 4, "mode", kModeSum);
  const TensorMeta* psw = ctx.optional_tensor(6, "per_sample_weights");
  const bool include_last_offset = ctx.bool_arg(7, "include_last_offset", false);

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

void embedding_bag_private(OpContext& ctx) { embedding_bag_outputs(ctx, static_int(ctx, 8, "padding_idx", -1), false); }
void embedding_bag_forward_only(OpContext& ctx) {
  embedding_bag_outputs(ctx, static_int(ctx, 8, "padding_idx", -1), true);
}

// embedding_bag.default / .padding_idx: a padding_idx in [-num_embeddings,
// num_embeddings) is wrapped to a non-negative one; the call goes to
// _embedding_bag when weight requires grad, else to _embedding_bag_forward_only.
void embedding_bag_composite(OpContext& ctx) {
  const TensorMeta& weight = ctx.tensor(0, "weight");
  int64_t padding_idx = -1;
  if (auto given = ctx.optional_int(8, "padding_idx")) {
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

void register_core_gap_ops(OpRegistry& r) {
  r.add("aten._cdist_forward.default", cdist_forward);
  r.add("aten._pdist_forward.default", pdist_forward);
  r.add("aten.avg_pool1d.default", avg_pool1d);
  r.add("aten.adaptive_avg_pool1d.default", adaptive_avg_pool1d);
  r.add("aten.col2im.default", col2im);
  r.add("aten.copy.default", copy_functional);
  r.add("aten.masked_scatter.default", masked_scatter);
  r.add("aten.select_scatter.default", select_scatter);
  r.add("aten.slice_scatter.default", slice_scatter);
  r.add("aten.native_group_norm_backward.default", native_group_norm_backward);
  r.add("aten.sym_is_contiguous.default", sym_is_contiguous);
  r.add("aten.grid_sampler_2d.default", grid_sampler_2d);
  // Only `output` is differentiable (derivatives.yaml output_differentiability).
  r.add("aten._embedding_bag.default", embedding_bag_private, OutputGrad::first_only());
  r.add("aten._embedding_bag_forward_only.default", embedding_bag_forward_only, OutputGrad::first_only());
  r.add("aten.embedding_bag.default", embedding_bag_composite, OutputGrad::first_only());
  r.add("aten.embedding_bag.padding_idx", embedding_bag_composite, OutputGrad::first_only());
}

}  // namespace fakeprop::fx::ops
