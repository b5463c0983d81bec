// The FFT primitives the torch.fft functions lower to: _fft_r2c, _fft_c2r and
// _fft_c2c. Semantics follow torch 2.15's meta functions
// (torch/_meta_registrations.py: meta_fft_r2c / meta_fft_c2r / meta_fft_c2c
// and their helpers _exec_fft and _sort_dims), which FakeTensor runs, with
// MKL's layouts on CPU (the x86 wheels have MKL) and cuFFT's on CUDA:
//   - _exec_fft lays its output out with the batch (untransformed) dims
//     outermost, ordered by the input's strides (largest first, ties in dim
//     order), then the transformed dims innermost and contiguous, in the
//     order they are given;
//   - _sort_dims orders the dims by the input's strides, largest first
//     (all but the last for r2c);
//   - CPU: _fft_r2c and _fft_c2c run one _exec_fft over the sorted dims;
//     _fft_c2r runs a C2C over all but the last dim, then the C2R over it;
//   - CUDA: one _exec_fft when cuFFT takes all the dims at once, else an R2C
//     (or C2R) over the last dim and C2C passes of at most three dims, each
//     over the innermost dims of the previous result;
//   - _fft_c2c with no dims is a clone.
#include <algorithm>

#include "fakeprop/fx/ops/aten_helpers.h"
#include "fakeprop/fx/ops/families.h"

namespace fakeprop::fx::ops {

namespace {

// cuFFT plans at most this many dims at once (cufft_max_ndim).
constexpr size_t kCufftMaxDims = 3;

struct Layout {
  SymShape sizes;
  SymShape strides;
};

Layout contiguous_layout(OpContext& ctx, const SymShape& sizes) {
  return {sizes, contiguous_strides(sizes, &ctx.env())};
}

// a > b for the sort below; an expression is never greater than itself.
bool stride_greater(OpContext& ctx, const SymInt& a, const SymInt& b) {
  if (a.same(b)) return false;
  return decide(ctx, sym_gt(a, b), "fft batch dims in stride order");
}

// Python's list.sort(key=stride, reverse=True): larger strides first, and
// dims with equal strides keep their order (the sort is stable).
void sort_by_stride_descending(OpContext& ctx, std::vector<int64_t>& dims, const SymShape& strides) {
  for (size_t i = 1; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    size_t j = i;
    for (; j > 0 && stride_greater(ctx, strides[static_cast<size_t>(d)], strides[static_cast<size_t>(dims[j - 1])]); --j)
      dims[j] = dims[j - 1];
    dims[j] = d;
  }
}

// _sort_dims: the dims by the input's strides, largest first; the last one
// stays last when `exclude_last` (r2c's halved dim).
std::vector<int64_t> sort_dims(OpContext& ctx, std::vector<int64_t> dims, const SymShape& strides, bool exclude_last) {
  if (exclude_last && !dims.empty()) {
    const int64_t last = dims.back();
    dims.pop_back();
    sort_by_stride_descending(ctx, dims, strides);
    dims.push_back(last);
  } else {
    sort_by_stride_descending(ctx, dims, strides);
  }
  return dims;
}

// The layout _exec_fft gives its output when it transforms `dims` (in the
// order given) of an input laid out as `in`, with result sizes `out_sizes`.
Layout exec_fft(OpContext& ctx, const Layout& in, const SymShape& out_sizes, const std::vector<int64_t>& dims,
                const char* op) {
  const size_t rank = in.sizes.size();
  std::vector<bool> transformed(rank, false);
  for (int64_t d : dims) transformed[static_cast<size_t>(d)] = true;
  std::vector<int64_t> batch;  // ascending, then by stride
  for (size_t d = 0; d < rank; ++d)
    if (!transformed[d]) batch.push_back(static_cast<int64_t>(d));
  sort_by_stride_descending(ctx, batch, in.strides);

  // The input is reshaped to [-1, *signal sizes]: the -1 cannot be inferred
  // when a transformed dim is empty.
  SymShape signal_sizes;
  for (int64_t d : dims) signal_sizes.push_back(in.sizes[static_cast<size_t>(d)]);
  const SymInt signal_numel = simplified(ctx, product(signal_sizes));
  std::string shape_text = "[-1";
  for (const SymInt& s : signal_sizes) shape_text += ", " + text(s);
  shape_text += "]";
  require(ctx, sym_ne(signal_numel, SymInt(0)), "fft signal not empty", ErrorKind::InvalidArgument,
          std::string(op) + ": cannot reshape tensor of 0 elements into shape " + shape_text +
              " because the unspecified dimension size -1 can be any value and is ambiguous");

  // The output is first a contiguous [batch, *out sizes of dims in the given order] ...
  SymShape batched{SymInt(1)};
  for (int64_t d : batch) batched[0] = batched[0] * in.sizes[static_cast<size_t>(d)];
  for (int64_t d : dims) batched.push_back(out_sizes[static_cast<size_t>(d)]);
  batched = simplified(ctx, batched);
  const SymShape batched_strides = contiguous_strides(batched, &ctx.env());

  // ... then viewed back with the batch dims unflattened (innermost last)
  // and the transformed dims, in the order given, taking the inner strides.
  SymShape strides(rank, SymInt(0));
  SymInt running(1);
  for (size_t i = batch.size(); i-- > 0;) {
    const auto d = static_cast<size_t>(batch[i]);
    strides[d] = simplified(ctx, running * batched_strides[0]);
    running = running * out_sizes[d];
  }
  for (size_t k = 0; k < dims.size(); ++k) strides[static_cast<size_t>(dims[k])] = batched_strides[1 + k];
  return {out_sizes, strides};
}

// The dim list, wrapped; an FFT over a 0-d tensor or over a dim twice is an error.
std::vector<int64_t> fft_dims(OpContext& ctx, const std::vector<int64_t>& raw, int64_t rank, const char* op) {
  std::vector<int64_t> dims;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (int64_t d : raw) {
    const int64_t w = canonical_dim(d, rank, /*wrap_scalar=*/false);
    if (seen[static_cast<size_t>(w)])
      ctx.fail(ErrorKind::InvalidArgument, std::string(op) + ": FFT dims must be unique");
    seen[static_cast<size_t>(w)] = true;
    dims.push_back(w);
  }
  return dims;
}

// fft_dims for the transforms that halve or resize the last dim given:
// at least one dim.
std::vector<int64_t> transform_dims(OpContext& ctx, const std::vector<int64_t>& raw, int64_t rank, const char* op) {
  std::vector<int64_t> dims = fft_dims(ctx, raw, rank, op);
  if (dims.empty()) ctx.fail(ErrorKind::IndexError, std::string(op) + ": dim must name at least one dimension");
  return dims;
}

void require_complex(OpContext& ctx, const TensorMeta& self, const char* op) {
  if (!is_complex(self.dtype))
    ctx.fail(ErrorKind::TypeError, std::string(op) + ": expected a complex input, got " + torch_dtype(self.dtype));
}

// use_optimized_cufft_path: one cuFFT plan over all dims, unless there are
// more than cuFFT takes or the dims (as given, unwrapped) start 0, 1.
bool cufft_takes_all(const std::vector<int64_t>& raw) {
  if (raw.size() > kCufftMaxDims) return false;
  return !(raw.size() >= 2 && raw[0] == 0 && raw[1] == 1);
}

// meta_fft_c2c's layout: a clone for no dims; on CPU one _exec_fft over the
// sorted dims; on CUDA passes of at most three dims, each over the innermost
// dims of the previous result (ping-ponging with a fresh contiguous buffer).
Layout c2c_layout(OpContext& ctx, const TensorMeta& self, const std::vector<int64_t>& dims) {
  const char* op = "_fft_c2c";
  if (dims.empty()) return {self.sizes, strides_like(self, self.sizes, ctx.env())};
  const Layout in{self.sizes, self.strides};
  if (!self.device.is_cuda()) return exec_fft(ctx, in, self.sizes, sort_dims(ctx, dims, self.strides, false), op);
  std::vector<int64_t> rest = dims;
  Layout working = in, output = contiguous_layout(ctx, self.sizes);
  bool working_is_self = true;
  while (true) {
    sort_by_stride_descending(ctx, rest, working.strides);
    const size_t take = std::min(kCufftMaxDims, rest.size());
    const std::vector<int64_t> pass(rest.end() - static_cast<std::ptrdiff_t>(take), rest.end());
    output = exec_fft(ctx, working, self.sizes, pass, op);
    rest.resize(rest.size() - take);
    if (rest.empty()) return output;
    if (working_is_self) {
      working = output;
      output = contiguous_layout(ctx, self.sizes);
      working_is_self = false;
    } else {
      std::swap(output, working);
    }
  }
}

// _fft_r2c(self, dim, normalization, onesided): real -> complex; the last
// dim of `dim` keeps n // 2 + 1 entries when onesided.
void fft_r2c(OpContext& ctx) {
  const char* op = "_fft_r2c";
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<int64_t> raw = static_int_list(ctx, "dim");
  const bool onesided = ctx.bool_arg("onesided");
  if (!is_floating(self.dtype))
    ctx.fail(ErrorKind::TypeError, "_fft_r2c: expected a real floating point input, got " + torch_dtype(self.dtype));
  const DType out_dtype = to_complex(self.dtype);
  if (!is_complex(out_dtype))
    ctx.fail(ErrorKind::TypeError, "_fft_r2c: " + torch_dtype(self.dtype) + " has no corresponding complex dtype");
  const std::vector<int64_t> dims = transform_dims(ctx, raw, self.dim(), op);
  const auto last = static_cast<size_t>(dims.back());
  SymShape out_sizes = self.sizes;
  SymShape onesided_sizes = self.sizes;
  onesided_sizes[last] = simplified(ctx, floordiv(self.sizes[last], SymInt(2)) + 1);
  if (onesided) out_sizes[last] = onesided_sizes[last];

  const Layout in{self.sizes, self.strides};
  if (!self.device.is_cuda()) {
    const Layout out = exec_fft(ctx, in, out_sizes, sort_dims(ctx, dims, self.strides, true), op);
    set_tensor(ctx, empty_strided(ctx, out.sizes, out.strides, out_dtype, self.device));
    return;
  }
  if (cufft_takes_all(raw)) {
    const Layout out = exec_fft(ctx, in, out_sizes, dims, op);
    set_tensor(ctx, empty_strided(ctx, out.sizes, out.strides, out_dtype, self.device));
    return;
  }
  // R2C over the last dim (here always with more dims to go: onesided
  // sizes), then C2C passes over the rest, ping-ponging two buffers, each
  // pass taking the (up to) three innermost dims of the previous result.
  Layout output = exec_fft(ctx, in, onesided_sizes, {dims.back()}, op);
  Layout working = contiguous_layout(ctx, out_sizes);
  std::vector<int64_t> rest(dims.begin(), dims.end() - 1);
  while (!rest.empty()) {
    std::swap(output, working);
    sort_by_stride_descending(ctx, rest, working.strides);
    const size_t take = std::min(kCufftMaxDims, rest.size());
    const std::vector<int64_t> pass(rest.end() - static_cast<std::ptrdiff_t>(take), rest.end());
    output = exec_fft(ctx, working, onesided_sizes, pass, op);
    rest.resize(rest.size() - take);
  }
  // A two-sided result is the onesided one resized (contiguous) to full size.
  if (!onesided && !onesided_sizes[last].same(out_sizes[last]) &&
      decide(ctx, sym_ne(onesided_sizes[last], out_sizes[last]), "fft two-sided size"))
    output = contiguous_layout(ctx, out_sizes);
  set_tensor(ctx, empty_strided(ctx, output.sizes, output.strides, out_dtype, self.device));
}

// _fft_c2r(self, dim, normalization, last_dim_size): complex -> real, the
// last dim of `dim` resized to last_dim_size.
void fft_c2r(OpContext& ctx) {
  const char* op = "_fft_c2r";
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<int64_t> raw = static_int_list(ctx, "dim");
  const SymInt last_size = ctx.int_arg("last_dim_size");
  require_complex(ctx, self, op);
  const std::vector<int64_t> dims = transform_dims(ctx, raw, self.dim(), op);
  const auto last = static_cast<size_t>(dims.back());
  SymShape out_sizes = self.sizes;
  out_sizes[last] = last_size;
  check_non_negative(ctx, out_sizes);
  const DType out_dtype = to_real(self.dtype);
  const std::vector<int64_t> leading(dims.begin(), dims.end() - 1);

  Layout out;
  if (self.device.is_cuda() && cufft_takes_all(raw)) {
    // one C2R plan over a contiguous copy of the input
    out = exec_fft(ctx, contiguous_layout(ctx, self.sizes), out_sizes, dims, op);
  } else {
    // C2C over the leading dims first, then C2R over the last one (CUDA
    // comes here only with two or more dims)
    const Layout input = leading.empty() ? Layout{self.sizes, self.strides} : c2c_layout(ctx, self, leading);
    out = exec_fft(ctx, input, out_sizes, {dims.back()}, op);
  }
  set_tensor(ctx, empty_strided(ctx, out.sizes, out.strides, out_dtype, self.device));
}

// _fft_c2c(self, dim, normalization, forward): complex -> complex, same sizes.
void fft_c2c(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  const std::vector<int64_t> raw = static_int_list(ctx, "dim");
  require_complex(ctx, self, "_fft_c2c");
  const std::vector<int64_t> dims = fft_dims(ctx, raw, self.dim(), "_fft_c2c");
  const Layout out = c2c_layout(ctx, self, dims);
  set_tensor(ctx, empty_strided(ctx, out.sizes, out.strides, self.dtype, self.device));
}

// fft_fftn(self, s=None, dim=None, norm=None), ATen's composite
// (SpectralOps.cpp), which export keeps (HF FNet): the input promoted to
// complex (an integer one through the default float; a copy keeping a dense
// input's strides), then one _fft_c2c over `dim` (every dim by default). A
// given `s` resizes the input first, which this rule does not model.
void fft_fftn(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (ctx.has("s")) ctx.fail(ErrorKind::NotImplemented, "fft_fftn with s: the input's resize is not modelled");
  std::vector<int64_t> raw;
  if (ctx.has("dim")) {
    raw = static_int_list(ctx, "dim");
  } else {
    for (int64_t i = 0; i < self.dim(); ++i) raw.push_back(i);
  }
  DType dtype = is_integral(self.dtype, true) ? DType::Float32 : self.dtype;
  if (!is_complex(dtype)) dtype = to_complex(dtype);
  const TensorMeta x = dtype == self.dtype ? self : empty_like(ctx, self, dtype).meta;
  const std::vector<int64_t> dims = fft_dims(ctx, raw, x.dim(), "fftn");
  const Layout out = c2c_layout(ctx, x, dims);
  set_tensor(ctx, empty_strided(ctx, out.sizes, out.strides, x.dtype, x.device));
}

}  // namespace

void register_spectral_ops(OpRegistry& r) {
  r.add("aten.fft_fftn.default", fft_fftn);
  r.add("aten._fft_r2c.default", fft_r2c);
  r.add("aten._fft_c2r.default", fft_c2r);
  r.add("aten._fft_c2c.default", fft_c2c);
}

}  // namespace fakeprop::fx::ops
