// Operators whose output size depends on the values of their inputs:
// NonZero, Unique, Compress, NonMaxSuppression, StringNormalizer,
// StringSplit. Such a size is a fresh unbacked symbol with the tightest range
// the input shapes allow (PyTorch: nonzero's count is in [0, numel]); when
// the values are known the result is folded exactly instead.
#include <algorithm>
#include <cmath>
#include <map>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

// The range a size may take, from its symbols' ranges.
ValueRange range_of(OpContext& ctx, const SymInt& d) {
  const SymInt s = simplified(ctx, d);
  if (s.is_static()) return ValueRange::exactly(s.value());
  return ctx.env().bound(s.expr());
}

// Upper end of a size's range (int_oo when unbounded).
int64_t upper(OpContext& ctx, const SymInt& d) { return range_of(ctx, d).hi; }

// Known element values as plain numbers: ints when every element is a static
// integer, doubles for floating dtypes.
struct Elements {
  bool is_float = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  size_t size() const { return is_float ? floats.size() : ints.size(); }
  bool nonzero(size_t i) const { return is_float ? floats[i] != 0.0 : ints[i] != 0; }
};

std::optional<Elements> static_elements(OpContext& ctx, size_t i) {
  if (!ctx.has_input(i) || !ctx.input(i).is_tensor()) return std::nullopt;
  auto shape = static_shape(ctx.shape(i));
  if (!shape) return std::nullopt;
  int64_t n = 1;
  for (int64_t d : *shape)
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  Elements e;
  if (is_floating(ctx.dtype(i))) {
    auto xs = ctx.floats(i);
    if (!xs) return std::nullopt;
    e.is_float = true;
    e.floats = std::move(*xs);
  } else {
    auto xs = ctx.ints(i);
    if (!xs) return std::nullopt;
    for (const SymInt& x : *xs) {
      const SymInt s = simplified(ctx, x);
      if (!s.is_static()) return std::nullopt;
      e.ints.push_back(s.value());
    }
  }
  if (static_cast<int64_t>(e.size()) != n) return std::nullopt;
  return e;
}

std::vector<SymInt> as_symints(const std::vector<int64_t>& xs) { return std::vector<SymInt>(xs.begin(), xs.end()); }

// ---------------------------------------------------------------------------

// NonZero: [rank, u] int64 indices of the non-zero elements, u in [0, numel].
void nonzero_rule(OpContext& ctx) {
  if (ctx.unranked(0)) {  // [rank, count]: still 2-D
    const SymInt rank = ctx.unknown_size("NonZero of '" + ctx.input_name(0) + "', whose rank is unknown");
    ctx.set_tensor(0, DType::Int64, {rank, ctx.new_unbacked_size({0, kIntOo})});
    return;
  }
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  if (auto e = static_elements(ctx, 0)) {
    const auto shape = *static_shape(in);
    std::vector<int64_t> hits;
    for (size_t i = 0; i < e->size(); ++i)
      if (e->nonzero(i)) hits.push_back(static_cast<int64_t>(i));
    const int64_t count = static_cast<int64_t>(hits.size());
    // Row k holds coordinate k of every hit, in row-major order of the hits.
    std::vector<SymInt> coords(static_cast<size_t>(rank * count));
    for (int64_t h = 0; h < count; ++h) {
      int64_t flat = hits[static_cast<size_t>(h)];
      for (int64_t k = rank - 1; k >= 0; --k) {
        const int64_t d = shape[static_cast<size_t>(k)];
        coords[static_cast<size_t>(k * count + h)] = flat % d;
        flat /= d;
      }
    }
    ctx.set_tensor(0, DType::Int64, {rank, count}, int_data(std::move(coords)));
    return;
  }
  const SymInt n = simplified(ctx, numel(in));
  const SymInt u = ctx.new_unbacked_size({0, upper(ctx, n)});
  ctx.set_tensor(0, DType::Int64, {rank, u});
}

// Unique: Y, indices, inverse_indices, counts. Without axis the input is
// flattened; with an axis the slices along it are compared.
void unique_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const bool sorted = ctx.attr_int("sorted") != 0;
  const bool has_axis = ctx.has_attr("axis");
  const int64_t axis = has_axis ? normalize_axis(ctx, ctx.attr_int("axis", 0), rank) : 0;
  const SymInt n = simplified(ctx, has_axis ? in[static_cast<size_t>(axis)] : numel(in));

  if (!has_axis) {
    if (auto e = static_elements(ctx, 0); e && !e->is_float) {
      // Fold: unique values (sorted or in order of first occurrence).
      std::map<int64_t, std::pair<int64_t, int64_t>> seen;  // value -> (first index, count)
      std::vector<int64_t> order;
      for (size_t i = 0; i < e->ints.size(); ++i) {
        auto [it, fresh] = seen.try_emplace(e->ints[i], static_cast<int64_t>(i), 0);
        ++it->second.second;
        if (fresh) order.push_back(e->ints[i]);
      }
      if (sorted) std::sort(order.begin(), order.end());
      std::map<int64_t, int64_t> position;
      std::vector<int64_t> first, counts;
      for (size_t k = 0; k < order.size(); ++k) {
        position[order[k]] = static_cast<int64_t>(k);
        first.push_back(seen[order[k]].first);
        counts.push_back(seen[order[k]].second);
      }
      std::vector<int64_t> inverse;
      for (int64_t v : e->ints) inverse.push_back(position[v]);
      const int64_t u = static_cast<int64_t>(order.size());
      ctx.set_tensor(0, ctx.dtype(0), {u}, int_data(as_symints(order)));
      ctx.set_tensor(1, DType::Int64, {u}, int_data(as_symints(first)));
      ctx.set_tensor(2, DType::Int64, {static_cast<int64_t>(inverse.size())}, int_data(as_symints(inverse)));
      ctx.set_tensor(3, DType::Int64, {u}, int_data(as_symints(counts)));
      return;
    }
  }
  // At least one unique entry whenever there is any entry.
  SymInt u;
  if (n.is_static() && n.value() == 0)
    u = 0;
  else
    u = ctx.new_unbacked_size({known_true(ctx, sym_ge(n, 1)) ? 1 : 0, upper(ctx, n)});
  SymShape y = {u};
  if (has_axis) {
    y = in;
    y[static_cast<size_t>(axis)] = u;
  }
  ctx.set_tensor(0, ctx.dtype(0), std::move(y));
  ctx.set_tensor(1, DType::Int64, {u});
  ctx.set_tensor(2, DType::Int64, {n});
  ctx.set_tensor(3, DType::Int64, {u});
}

// Compress: the slices (or, without axis, the flattened elements) whose
// condition entry is true; a shorter condition drops the rest.
void compress_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const SymShape& cond = ctx.shape(1);
  if (cond.size() != 1)
    ctx.fail(ErrorKind::InvalidShape, "Compress: condition must be 1-D, got " + shape_to_string(cond));
  const bool has_axis = ctx.has_attr("axis");
  const int64_t axis = has_axis ? normalize_axis(ctx, ctx.attr_int("axis", 0), rank) : 0;
  const SymInt n = simplified(ctx, has_axis ? in[static_cast<size_t>(axis)] : numel(in));

  SymInt u;
  std::optional<std::vector<int64_t>> selected;  // indices along the axis when known
  if (auto c = static_elements(ctx, 1)) {
    // The condition is known: count its true entries that fall inside the dim.
    std::vector<int64_t> picked;
    for (size_t i = 0; i < c->size(); ++i)
      if (c->nonzero(i)) picked.push_back(static_cast<int64_t>(i));
    const int64_t last = picked.empty() ? -1 : picked.back();
    if (guard_or_false(ctx, sym_gt(n, last), "Compress: the known condition fits the dim")) {
      u = static_cast<int64_t>(picked.size());
      selected = std::move(picked);
    } else if (n.is_static()) {
      ctx.fail(ErrorKind::IndexError, "Compress: condition selects index " + std::to_string(last) +
                                          " of a dim of size " + std::to_string(n.value()));
    }
  }
  if (!selected) {
    const ValueRange len = range_of(ctx, cond[0]), dim = range_of(ctx, n);
    u = ctx.new_unbacked_size({0, std::min(len.hi, dim.hi)});
  }
  SymShape out = {u};
  if (has_axis) {
    out = in;
    out[static_cast<size_t>(axis)] = u;
  }
  // Fold the selected data of a small known input.
  std::optional<KnownData> data;
  if (selected) {
    auto shape = static_shape(in);
    auto e = static_elements(ctx, 0);
    if (shape && e && static_cast<int64_t>(e->size()) <= ctx.fold_limit()) {
      int64_t outer = 1, inner = 1;
      const int64_t a = has_axis ? axis : 0;
      const int64_t extent = has_axis ? (*shape)[static_cast<size_t>(a)] : static_cast<int64_t>(e->size());
      if (has_axis) {
        for (int64_t k = 0; k < a; ++k) outer *= (*shape)[static_cast<size_t>(k)];
        for (int64_t k = a + 1; k < rank; ++k) inner *= (*shape)[static_cast<size_t>(k)];
      }
      KnownData d;
      d.is_float = e->is_float;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t s : *selected)
          for (int64_t i = 0; i < inner; ++i) {
            const size_t src = static_cast<size_t>((o * extent + s) * inner + i);
            if (d.is_float)
              d.floats.push_back(e->floats[src]);
            else
              d.ints.push_back(e->ints[src]);
          }
      data = std::move(d);
    }
  }
  if (data)
    ctx.set_tensor(0, ctx.dtype(0), std::move(out), std::move(*data));
  else
    ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// NonMaxSuppression: selected_indices [u, 3] int64 of (batch, class, box);
// at most max_output_boxes_per_class boxes (and at most every box) per batch
// and class.
void non_max_suppression_rule(OpContext& ctx) {
  const SymShape& boxes = ctx.shape(0);
  const SymShape& scores = ctx.shape(1);
  if (boxes.size() != 3 || scores.size() != 3)
    ctx.fail(ErrorKind::InvalidRank, "NonMaxSuppression: boxes " + shape_to_string(boxes) + " and scores " +
                                         shape_to_string(scores) + " must be 3-D");
  auto agree = [&](const SymInt& a, const SymInt& b, const std::string& what) {
    const SymBool same = sym_eq(a, b);
    if (known_true(ctx, sym_not(same)) || !ctx.expect(same, "NonMaxSuppression: boxes and scores agree"))
      ctx.fail(ErrorKind::ShapeMismatch, "NonMaxSuppression: " + what + " differs: " + a.to_python() + " vs " +
                                             b.to_python());
  };
  agree(boxes[0], scores[0], "num_batches");
  agree(boxes[1], scores[2], "spatial_dimension");
  agree(boxes[2], 4, "box size");
  // Absent max_output_boxes_per_class means 0: nothing is selected.
  std::optional<SymInt> max_out = SymInt(0);
  if (ctx.has_input(2)) max_out = ctx.scalar_int(2);
  if (max_out && max_out->is_static() && max_out->value() <= 0) {
    ctx.set_tensor(0, DType::Int64, {0, 3});
    return;
  }
  const int64_t per_class =
      max_out ? std::min(upper(ctx, *max_out), upper(ctx, boxes[1])) : upper(ctx, boxes[1]);
  const ValueRange total = range_mul(range_mul(range_of(ctx, boxes[0]), range_of(ctx, scores[1])),
                                     ValueRange{0, per_class});
  const SymInt u = ctx.new_unbacked_size({0, total.hi});
  ctx.set_tensor(0, DType::Int64, {u, 3});
}

// StringNormalizer: [C] or [1, C] strings; stopwords may remove entries, and
// an all-removed input leaves one empty string.
void string_normalizer_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  if (in.empty() || in.size() > 2 || (in.size() == 2 && !known_true(ctx, sym_eq(in[0], 1))))
    ctx.fail(ErrorKind::InvalidShape, "StringNormalizer: input must be [C] or [1, C], got " + shape_to_string(in));
  const std::string mode = ctx.attr_string("case_change_action");
  if (mode != "NONE" && mode != "LOWER" && mode != "UPPER")
    ctx.fail(ErrorKind::InvalidAttribute, "StringNormalizer: unknown case_change_action '" + mode + "'");
  const Attribute* stop = ctx.attr("stopwords");
  if (!stop || stop->strings().empty()) {
    same_as_input(ctx);
    return;
  }
  const SymInt& c = in.back();
  const int64_t lo = known_true(ctx, sym_ge(c, 1)) ? 1 : 0;
  const SymInt u = ctx.new_unbacked_size({lo, std::max<int64_t>(upper(ctx, c), 1)});
  SymShape out = in;
  out.back() = u;
  ctx.set_tensor(0, DType::String, std::move(out));
}

// StringSplit (opset 20): Y [*X, u] substrings padded with "", Z [*X] counts.
void string_split_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  int64_t hi = kIntOo;
  if (ctx.has_attr("maxsplit")) {
    const int64_t m = ctx.attr_int("maxsplit", 0);
    if (m < 0) ctx.fail(ErrorKind::InvalidAttribute, "StringSplit: maxsplit must be non-negative");
    hi = m + 1;
  }
  SymShape y = in;
  y.push_back(ctx.new_unbacked_size({0, hi}));
  ctx.set_tensor(0, DType::String, std::move(y));
  ctx.set_tensor(1, DType::Int64, in);
}

// TfIdfVectorizer: [C] -> [max(ngram_indexes) + 1], [N, C] -> [N, ...]; float.
void tfidf_vectorizer_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  if (in.empty() || in.size() > 2)
    ctx.fail(ErrorKind::InvalidShape, "TfIdfVectorizer: input must be [C] or [N, C], got " + shape_to_string(in));
  auto idx = ctx.attr_ints("ngram_indexes");
  if (!idx || idx->empty()) ctx.fail(ErrorKind::MissingAttribute, "TfIdfVectorizer needs 'ngram_indexes'");
  const int64_t width = checked_add(*std::max_element(idx->begin(), idx->end()), 1);
  if (width < 0) ctx.fail(ErrorKind::InvalidAttribute, "TfIdfVectorizer: negative ngram_indexes");
  SymShape out = in.size() == 2 ? SymShape{in[0], width} : SymShape{width};
  ctx.set_tensor(0, DType::Float32, std::move(out));
}

}  // namespace

std::span<const OpRuleEntry> data_dependent_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {"", "NonZero", nonzero_rule},
      {"", "Unique", unique_rule},
      {"", "Compress", compress_rule},
      {"", "NonMaxSuppression", non_max_suppression_rule},
      {"", "StringNormalizer", string_normalizer_rule},
      {"", "StringSplit", string_split_rule},
      {"", "TfIdfVectorizer", tfidf_vectorizer_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
