// Reductions: Reduce* (axes an attribute or an input, as the schema in
// effect declares it; keepdims,
// noop_with_empty_axes), ArgMax/ArgMin, TopK, CumSum, LpNormalization.
// Known integer data folds through ReduceSum/Prod/Min/Max so that
// ReduceProd(Shape(x)) is numel(x), symbolically.
#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {


enum class Fold { None, Sum, Prod, Min, Max };

// Elements `xs` of a static input shape `in` combined over the reduced
// axes; nullopt when the data does not match the shape or is too big.
template <class T, class Combine>
std::optional<std::vector<std::optional<T>>> reduce_elems(const OpContext& ctx, const std::vector<int64_t>& in,
                                                          const std::vector<T>& xs, const std::vector<bool>& reduced,
                                                          bool needs_one, Combine combine) {
  std::vector<int64_t> kept, dropped;
  for (size_t k = 0; k < in.size(); ++k) (reduced[k] ? dropped : kept).push_back(in[k]);
  // Each part is bounded on its own: with a zero dim elsewhere the whole is 0
  // while the kept dims alone may not fit in int64.
  const auto total = numel_within(in, ctx.fold_limit()), out_total = numel_within(kept, ctx.fold_limit()),
             reduced_count = numel_within(dropped, ctx.fold_limit());
  if (!total || !out_total || !reduced_count || static_cast<int64_t>(xs.size()) != *total) return std::nullopt;
  if (*reduced_count == 0 && needs_one) return std::nullopt;  // Min/Max of nothing has no identity
  std::vector<std::optional<T>> acc(static_cast<size_t>(*out_total));
  for (int64_t f = 0; f < *total; ++f) {
    // Output index: the input coordinates with reduced axes dropped.
    int64_t rest = f, out_idx = 0, out_stride = 1;
    for (size_t k = in.size(); k-- > 0;) {
      const int64_t coord = rest % in[k];
      rest /= in[k];
      if (!reduced[k]) {
        out_idx += coord * out_stride;
        out_stride *= in[k];
      }
    }
    std::optional<T>& a = acc[static_cast<size_t>(out_idx)];
    const T& x = xs[static_cast<size_t>(f)];
    a = a ? combine(*a, x) : x;
  }
  return acc;
}

// Known data reduced over `axes` of a static input shape: integers by every
// fold, floats (constant or expressions over sizes) by Min and Max, the
// folds whose result does not depend on the order of evaluation.
std::optional<KnownData> fold_reduce(OpContext& ctx, const std::vector<bool>& reduced, Fold fold) {
  if (fold == Fold::None) return std::nullopt;
  auto in = static_shape(ctx.shape(0));
  if (!in) return std::nullopt;
  const bool min_max = fold == Fold::Min || fold == Fold::Max;
  if (is_floating(ctx.dtype(0))) {
    auto xs = ctx.float_exprs(0);
    if (!min_max || !xs) return std::nullopt;
    auto acc = reduce_elems<ExprRef>(ctx, *in, *xs, reduced, true, [&](ExprRef a, ExprRef x) {
      return fold == Fold::Min ? float_min(a, x) : float_max(a, x);
    });
    if (!acc) return std::nullopt;
    std::vector<ExprRef> out;
    for (auto& a : *acc) out.push_back(*a);
    return float_expr_data(std::move(out));
  }
  auto xs = ctx.ints(0);
  if (!xs) return std::nullopt;
  auto acc = reduce_elems<SymInt>(ctx, *in, *xs, reduced, min_max, [&](const SymInt& a, const SymInt& x) {
    switch (fold) {
      case Fold::Sum: return a + x;
      case Fold::Prod: return a * x;
      case Fold::Min: return sym_min(a, x);
      default: return sym_max(a, x);
    }
  });
  if (!acc) return std::nullopt;
  std::vector<SymInt> out;
  out.reserve(acc->size());
  for (auto& a : *acc) out.push_back(a ? simplified(ctx, *a) : SymInt(fold == Fold::Prod ? 1 : 0));
  return int_data(std::move(out));
}

template <Fold fold>
void reduce_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const bool keepdims = ctx.attr_int("keepdims") != 0;
  std::optional<std::vector<int64_t>> axes;
  bool noop_if_empty = false;
  if (ctx.declares_input("axes")) {  // ReduceSum from 13, the others from 18
    noop_if_empty = ctx.attr_int("noop_with_empty_axes") != 0;
    if (ctx.has_input(1)) {
      axes = ctx.static_ints(1);
      if (!axes) {
        // Axes not known: the rank is known only when every axis keeps its dim.
        const std::string why = ctx.op_type() + " axes '" + ctx.input_name(1) + "' are not known";
        auto n_axes = static_shape(ctx.shape(1));
        SymShape out;
        if (keepdims) {
          for (int64_t k = 0; k < rank; ++k) out.push_back(ctx.unknown_size(why));
        } else if (n_axes && n_axes->size() == 1 && (*n_axes)[0] > 0 && (*n_axes)[0] <= rank) {
          for (int64_t k = 0; k < rank - (*n_axes)[0]; ++k) out.push_back(ctx.unknown_size(why));
        } else {
          ctx.fail(ErrorKind::UnknownInput, why + " and the output rank depends on them");
        }
        return ctx.set_tensor(0, ctx.dtype(0), std::move(out));
      }
    } else {
      axes = std::vector<int64_t>{};
    }
  } else {
    axes = ctx.attr_ints("axes");
    if (!axes) axes = std::vector<int64_t>{};
  }
  if (axes->empty() && noop_if_empty) {
    const TensorValue& t = ctx.tensor(0);
    if (t.data) return ctx.set_tensor(0, t.meta.dtype, t.meta.sizes, *t.data);
    return same_as_input(ctx);
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), axes->empty());
  for (int64_t a : normalize_axes(ctx, *axes, rank)) reduced[static_cast<size_t>(a)] = true;
  SymShape out;
  for (int64_t k = 0; k < rank; ++k) {
    if (!reduced[static_cast<size_t>(k)])
      out.push_back(in[static_cast<size_t>(k)]);
    else if (keepdims)
      out.push_back(1);
  }
  if (auto data = fold_reduce(ctx, reduced, fold)) return ctx.set_tensor(0, ctx.dtype(0), std::move(out), std::move(*data));
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// ArgMax / ArgMin: int64 indices along `axis` (default 0), keepdims default 1;
// select_last_index (12) only changes values.
void arg_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), rank);
  const bool keepdims = ctx.attr_int("keepdims") != 0;
  SymShape out;
  for (int64_t k = 0; k < rank; ++k) {
    if (k != axis)
      out.push_back(in[static_cast<size_t>(k)]);
    else if (keepdims)
      out.push_back(1);
  }
  ctx.set_tensor(0, DType::Int64, std::move(out));
}

// TopK: values and int64 indices with the axis dim replaced by k (an
// attribute before 10, a 1-element input from 10). k must lie in [0, dim];
// an unknown k is a fresh unbacked size in that range.
void topk_rule(OpContext& ctx) {
  SymShape out = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(out.size());
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), rank);
  const SymInt dim = out[static_cast<size_t>(axis)];
  std::optional<SymInt> k;
  if (!ctx.declares_input("K")) {  // an attribute before 10
    k = SymInt(ctx.required_attr_int("k"));
  } else {
    auto ks = static_shape(ctx.shape(1));
    if (!ks || ks->size() > 1 || (ks->size() == 1 && (*ks)[0] != 1))
      ctx.fail(ErrorKind::InvalidShape, "TopK's K must be a 1-D tensor of one element, got shape " +
                                            shape_to_string(ctx.shape(1)));
    k = ctx.scalar_int(1);
  }
  SymInt kk;
  if (k) {
    kk = simplified(ctx, *k);
    if (kk.is_static() && kk.value() < 0)
      ctx.fail(ErrorKind::InvalidArgument, "TopK k is negative: " + std::to_string(kk.value()));
    require(ctx, sym_ge(kk, 0), "TopK: k >= 0", ErrorKind::InvalidArgument, "TopK k = " + kk.to_python() +
            " is negative");
    if (kk.is_static() && dim.is_static() && kk.value() > dim.value())
      ctx.fail(ErrorKind::InvalidArgument, "TopK k = " + std::to_string(kk.value()) + " exceeds the axis size " +
                                               std::to_string(dim.value()));
    require(ctx, sym_le(kk, dim), "TopK: k <= dim", ErrorKind::InvalidArgument, "TopK k = " + kk.to_python() +
            " exceeds the axis size " + dim.to_python());
  } else {
    kk = ctx.new_unbacked_size({0, dim.is_static() ? dim.value() : kIntOo});
    if (!dim.is_static()) ctx.expect(sym_le(kk, dim), "TopK: k <= dim");
  }
  out[static_cast<size_t>(axis)] = kk;
  ctx.set_tensor(0, ctx.dtype(0), out);
  if (ctx.wants_output(1)) ctx.set_tensor(1, DType::Int64, std::move(out));
}

// CumSum (11), CumProd (26): the input's shape; axis is a scalar input (0-D
// or one element).
void cumulative_rule(OpContext& ctx) {
  if (ctx.has_input(1)) {
    if (ctx.rank(1) > 1)
      ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + " axis must be a scalar, got shape " + shape_to_string(ctx.shape(1)));
    if (auto axis = ctx.static_ints(1); axis && axis->size() == 1) normalize_axis(ctx, (*axis)[0], ctx.rank(0));
  }
  same_as_input(ctx);
}

// LpNormalization: same shape; axis default -1, p in {1, 2}.
void lp_normalization_rule(OpContext& ctx) {
  normalize_axis(ctx, ctx.attr_int("axis"), ctx.rank(0));
  const int64_t p = ctx.attr_int("p");
  if (p != 1 && p != 2)
    ctx.fail(ErrorKind::InvalidAttribute, "LpNormalization p must be 1 or 2, got " + std::to_string(p));
  same_as_input(ctx);
}

}  // namespace

std::span<const OpRuleEntry> reduction_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {"", "ReduceSum", reduce_rule<Fold::Sum>},
      {"", "ReduceProd", reduce_rule<Fold::Prod>},
      {"", "ReduceMin", reduce_rule<Fold::Min>},
      {"", "ReduceMax", reduce_rule<Fold::Max>},
      {"", "ReduceMean", reduce_rule<Fold::None>},
      {"", "ReduceL1", reduce_rule<Fold::None>},
      {"", "ReduceL2", reduce_rule<Fold::None>},
      {"", "ReduceLogSum", reduce_rule<Fold::None>},
      {"", "ReduceLogSumExp", reduce_rule<Fold::None>},
      {"", "ReduceSumSquare", reduce_rule<Fold::None>},
      {"", "ArgMax", arg_rule},
      {"", "ArgMin", arg_rule},
      {"", "TopK", topk_rule},
      {"", "CumSum", cumulative_rule},
      {"", "CumProd", cumulative_rule},
      {"", "LpNormalization", lp_normalization_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
