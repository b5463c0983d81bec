#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

SymInt numel(std::span<const SymInt> shape) {
  SymInt n = 1;
  for (const SymInt& d : shape) n = n * d;
  return n;
}

int64_t normalize_axis(const OpContext& ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    ctx.fail(ErrorKind::InvalidAxis, "axis " + std::to_string(axis) + " is out of range for rank " +
                                         std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> normalize_axes(const OpContext& ctx, std::span<const int64_t> axes, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    int64_t n = normalize_axis(ctx, a, rank);
    for (int64_t prev : out)
      if (prev == n) ctx.fail(ErrorKind::InvalidAxis, "axis " + std::to_string(a) + " is repeated");
    out.push_back(n);
  }
  return out;
}

void same_as_input(OpContext& ctx, size_t in, size_t out) { same_shape_as_input(ctx, ctx.dtype(in), in, out); }

void same_shape_as_input(OpContext& ctx, DType dtype, size_t in, size_t out) {
  ctx.set_tensor(out, dtype, ctx.shape(in));
}

SymShape broadcast_inputs(OpContext& ctx, std::initializer_list<size_t> inputs) {
  std::vector<SymShape> shapes;
  for (size_t i : inputs)
    if (ctx.has_input(i)) shapes.push_back(ctx.shape(i));
  return broadcast_shapes(shapes, ctx.env());
}

KnownData int_data(std::vector<SymInt> xs) {
  KnownData d;
  d.ints = std::move(xs);
  return d;
}

KnownData float_data(std::vector<double> xs) {
  KnownData d;
  d.is_float = true;
  d.floats = std::move(xs);
  return d;
}

std::optional<std::vector<int64_t>> static_shape(std::span<const SymInt> shape) {
  std::vector<int64_t> out;
  out.reserve(shape.size());
  for (const SymInt& d : shape) {
    if (!d.is_static()) return std::nullopt;
    out.push_back(d.value());
  }
  return out;
}

namespace {

template <class T, class Get>
std::optional<std::vector<T>> fold(const OpContext& ctx, std::initializer_list<size_t> inputs, const SymShape& out_shape,
                                   Get get, const std::function<T(std::span<const T>)>& fn, int64_t cap) {
  auto out = static_shape(out_shape);
  if (!out) return std::nullopt;
  int64_t total = 1;
  for (int64_t d : *out) total *= d;
  if (total > cap) return std::nullopt;
  std::vector<std::vector<T>> data;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i : inputs) {
    auto xs = get(i);
    auto s = static_shape(ctx.shape(i));
    if (!xs || !s) return std::nullopt;
    data.push_back(std::move(*xs));
    shapes.push_back(std::move(*s));
  }
  std::vector<T> result(static_cast<size_t>(total));
  std::vector<T> args(data.size());
  for (int64_t f = 0; f < total; ++f) {
    for (size_t k = 0; k < data.size(); ++k) {
      const int64_t src = broadcast_source_index(f, *out, shapes[k]);
      if (src < 0 || static_cast<size_t>(src) >= data[k].size()) return std::nullopt;
      args[k] = data[k][static_cast<size_t>(src)];
    }
    result[static_cast<size_t>(f)] = fn(args);
  }
  return result;
}

}  // namespace

int64_t broadcast_source_index(int64_t flat, const std::vector<int64_t>& out, const std::vector<int64_t>& in) {
  int64_t idx = 0, stride = 1;
  const size_t offset = out.size() - in.size();
  for (size_t k = out.size(); k-- > 0;) {
    const int64_t coord = flat % out[k];
    flat /= out[k];
    if (k >= offset) {
      const int64_t extent = in[k - offset];
      if (extent != 1) idx += coord * stride;
      stride *= extent;
    }
  }
  return idx;
}

std::optional<KnownData> fold_ints(const OpContext& ctx, std::initializer_list<size_t> inputs, const SymShape& out_shape,
                                   const std::function<SymInt(std::span<const SymInt>)>& fn) {
  auto r = fold<SymInt>(ctx, inputs, out_shape, [&](size_t i) { return ctx.ints(i); }, fn, ctx.fold_limit());
  if (!r) return std::nullopt;
  return int_data(std::move(*r));
}

std::optional<KnownData> fold_floats(const OpContext& ctx, std::initializer_list<size_t> inputs,
                                     const SymShape& out_shape, const std::function<double(std::span<const double>)>& fn) {
  auto r = fold<double>(ctx, inputs, out_shape, [&](size_t i) { return ctx.floats(i); }, fn, ctx.fold_limit());
  if (!r) return std::nullopt;
  return float_data(std::move(*r));
}

std::optional<SymShape> shape_from_input(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return std::nullopt;
  if (ctx.rank(i) != 1) ctx.fail(ErrorKind::InvalidShape, "shape input '" + ctx.node().inputs[i] + "' must be 1-D");
  auto xs = ctx.ints(i);
  if (!xs) return std::nullopt;
  return SymShape(xs->begin(), xs->end());
}

}  // namespace fakeprop::onnx::ops
