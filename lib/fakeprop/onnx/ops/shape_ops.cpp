// Operators that move data around or compute shapes: Shape, Reshape,
// Concat, Gather, Unsqueeze, ... Known integer data flows through them so
// Shape -> Gather -> Concat -> Reshape gives exact symbolic shapes.
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

void shape_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  // Opset 15: start/end attributes, clamped like Python slicing.
  int64_t start = ctx.attr_int("start", 0), end = ctx.attr_int("end", rank);
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  start = clamp(start);
  end = clamp(end);
  std::vector<SymInt> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(in[static_cast<size_t>(i)]);
  const int64_t n = static_cast<int64_t>(dims.size());
  ctx.set_tensor(0, DType::Int64, {n}, int_data(std::move(dims)));
}

void gather_rule(OpContext& ctx) {
  const SymShape& data = ctx.shape(0);
  const SymShape& indices = ctx.shape(1);
  const int64_t rank = static_cast<int64_t>(data.size());
  if (rank == 0) ctx.fail("invalid_rank", "Gather needs data of rank >= 1");
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), rank);
  SymShape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  // Fold Gather over known 1-D data (the Shape -> Gather idiom).
  auto values = ctx.ints(0);
  auto idx = ctx.static_ints(1);
  if (values && idx && rank == 1 && !is_floating(ctx.dtype(0))) {
    const auto n = static_cast<int64_t>(values->size());
    std::vector<SymInt> picked;
    for (int64_t i : *idx) {
      if (i < -n || i >= n) ctx.fail("index_error", "Gather index " + std::to_string(i) + " out of range for size " + std::to_string(n));
      picked.push_back((*values)[static_cast<size_t>(i < 0 ? i + n : i)]);
    }
    ctx.set_tensor(0, ctx.dtype(0), std::move(out), int_data(std::move(picked)));
    return;
  }
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void concat_rule(OpContext& ctx) {
  const int64_t rank = ctx.rank(0);
  const int64_t axis = normalize_axis(ctx, ctx.required_attr_int("axis"), rank);
  SymShape out = ctx.shape(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const SymShape& s = ctx.shape(i);
    if (static_cast<int64_t>(s.size()) != rank)
      ctx.fail("shape_mismatch", "Concat inputs must have the same rank: " + shape_to_string(out) + " vs " + shape_to_string(s));
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) continue;
      ctx.expect(sym_eq(out[static_cast<size_t>(d)], s[static_cast<size_t>(d)]), "Concat: inputs agree off the axis");
    }
    out[static_cast<size_t>(axis)] = out[static_cast<size_t>(axis)] + s[static_cast<size_t>(axis)];
  }
  for (SymInt& d : out) d = ctx.env().simplify(d);
  // Known data concatenates along axis 0 of 1-D tensors (shape vectors).
  if (rank == 1 && !is_floating(ctx.dtype(0))) {
    std::vector<SymInt> all;
    bool known = true;
    for (size_t i = 0; i < ctx.num_inputs() && known; ++i) {
      auto xs = ctx.ints(i);
      known = xs.has_value();
      if (known) all.insert(all.end(), xs->begin(), xs->end());
    }
    if (known) {
      ctx.set_tensor(0, ctx.dtype(0), std::move(out), int_data(std::move(all)));
      return;
    }
  }
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void unsqueeze_rule(OpContext& ctx) {
  std::optional<std::vector<int64_t>> axes =
      ctx.opset() >= 13 ? ctx.static_ints(1) : ctx.attr_ints("axes");
  if (!axes) ctx.fail("unknown_axes", "Unsqueeze axes are not known");
  const SymShape& in = ctx.shape(0);
  const int64_t out_rank = static_cast<int64_t>(in.size() + axes->size());
  std::vector<int64_t> norm = normalize_axes(ctx, *axes, out_rank);
  std::vector<bool> is_new(static_cast<size_t>(out_rank), false);
  for (int64_t a : norm) is_new[static_cast<size_t>(a)] = true;
  SymShape out;
  size_t next = 0;
  for (int64_t d = 0; d < out_rank; ++d) out.push_back(is_new[static_cast<size_t>(d)] ? SymInt(1) : in[next++]);
  const TensorValue& t = ctx.tensor(0);
  if (t.data || ctx.ints(0)) {
    auto xs = ctx.ints(0);
    if (xs) {
      ctx.set_tensor(0, t.meta.dtype, std::move(out), int_data(std::move(*xs)));
      return;
    }
  }
  ctx.set_tensor(0, t.meta.dtype, std::move(out));
}

// Reshape: 0 copies the input dim (unless allowzero), -1 is inferred from numel.
void reshape_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  auto target = shape_from_input(ctx, 1);
  if (!target) {
    auto n = static_shape(ctx.shape(1));
    if (!n || n->size() != 1) ctx.fail("unknown_shape", "Reshape's shape input has unknown length");
    SymShape out;
    for (int64_t i = 0; i < (*n)[0]; ++i)
      out.push_back(ctx.unknown_size("Reshape target shape '" + ctx.node().inputs[1] + "' is not known"));
    ctx.set_tensor(0, ctx.dtype(0), std::move(out));
    return;
  }
  const bool allowzero = ctx.attr_int("allowzero", 0) != 0;
  SymShape out;
  std::optional<size_t> infer_at;
  for (size_t i = 0; i < target->size(); ++i) {
    SymInt d = (*target)[i];
    if (d.is_static() && d.value() == 0 && !allowzero) {
      if (i >= in.size()) ctx.fail("invalid_shape", "Reshape: 0 at position " + std::to_string(i) + " has no input dim to copy");
      d = in[i];
    } else if (d.is_static() && d.value() == -1) {
      if (infer_at) ctx.fail("invalid_shape", "Reshape: more than one -1 in the target shape");
      infer_at = i;
    } else if (d.is_static() && d.value() < -1) {
      ctx.fail("invalid_shape", "Reshape: invalid size " + std::to_string(d.value()));
    }
    out.push_back(d);
  }
  const SymInt total = numel(in);
  if (infer_at) {
    SymInt known = 1;
    for (size_t i = 0; i < out.size(); ++i)
      if (i != *infer_at) known = known * out[i];
    // numel must divide evenly: a guard (or runtime assert) s % k == 0, as PyTorch's view does.
    ctx.expect(sym_eq(mod(total, known), 0), "Reshape: input numel divisible by the known dims");
    out[*infer_at] = ctx.env().simplify(floordiv(total, known));
  } else {
    ctx.expect(sym_eq(numel(out), total), "Reshape: numel preserved");
  }
  for (SymInt& d : out) d = ctx.env().simplify(d);
  const TensorValue& t = ctx.tensor(0);
  if (t.data && !t.data->is_float) {
    ctx.set_tensor(0, t.meta.dtype, std::move(out), *t.data);
    return;
  }
  ctx.set_tensor(0, t.meta.dtype, std::move(out));
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
  r.add("", "Shape", shape_rule);
  r.add("", "Gather", gather_rule);
  r.add("", "Concat", concat_rule);
  r.add("", "Unsqueeze", unsqueeze_rule);
  r.add("", "Reshape", reshape_rule);
}

}  // namespace fakeprop::onnx::ops
