// Operators that move data around or compute shapes: Shape, Reshape,
// Concat, Gather, Slice, Split, Expand, Pad, ... Known data (integer shape
// vectors, small constants) flows through them so the exporter idioms
// Shape -> Gather -> Concat -> Reshape give exact symbolic shapes.
//
// Decisions on symbolic sizes follow PyTorch: branches are picked with
// statically_known_true where possible, otherwise the result is written with
// sym_min / sym_max; a real guard (ctx.check / ctx.expect) is taken only where
// a shape cannot be written without one (divisibility of a reshape, equal
// split, squeezing a named dim).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

// ---------------------------------------------------------------------------
// Vocabulary of this family.

// Slice bounds at least this large in magnitude mean "to the end" (INT64_MAX,
// INT64_MIN and friends): no tensor dim comes near them.
constexpr int64_t kHugeIndex = std::numeric_limits<int64_t>::max() / 2;

void simplify_all(OpContext& ctx, SymShape& shape) {
  for (SymInt& d : shape) d = simplified(ctx, d);
}
std::string str(const SymInt& d) { return d.to_python(); }

// a / b rounded up, written as an exact quotient when b statically divides a.
SymInt ceil_div(OpContext& ctx, const SymInt& a, const SymInt& b) {
  if (known_true(ctx, sym_eq(mod(a, b), 0))) return simplified(ctx, floordiv(a, b));
  return simplified(ctx, ceildiv(a, b));
}

// Known elements of input `i` in the form its dtype calls for (doubles or
// float expressions for floating types, SymInts otherwise).
std::optional<KnownData> known(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i) || !ctx.input(i).is_tensor()) return std::nullopt;
  if (is_floating(ctx.dtype(i))) {
    if (const auto& exprs = ctx.tensor(i).float_exprs) return float_expr_data(*exprs);
    auto xs = ctx.floats(i);
    if (!xs) return std::nullopt;
    return float_data(std::move(*xs));
  }
  auto xs = ctx.ints(i);
  if (!xs) return std::nullopt;
  return int_data(std::move(*xs));
}

// Element count of a static shape; nullopt when it overflows.
std::optional<int64_t> count_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

// A tensor whose shape is static and whose elements are all known.
struct StaticData {
  std::vector<int64_t> shape;
  KnownData data;
};

std::optional<StaticData> static_data(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i) || !ctx.input(i).is_tensor()) return std::nullopt;
  auto shape = static_shape(ctx.shape(i));
  if (!shape) return std::nullopt;
  auto data = known(ctx, i);
  if (!data) return std::nullopt;
  if (count_of(*shape) != static_cast<int64_t>(data->size())) return std::nullopt;
  return StaticData{std::move(*shape), std::move(*data)};
}

// Row-major strides of a static shape.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
  return s;
}

// Output data whose element at (c0, ..., cn) is the input's element at
// (coords[0][c0], ..., coords[n][cn]); a coordinate -1 takes `fill`.
// nullopt when the output would exceed `cap` elements.
std::optional<KnownData> pick(const StaticData& in, const std::vector<std::vector<int64_t>>& coords, int64_t cap,
                              const KnownData* fill = nullptr) {
  if (coords.size() != in.shape.size()) return std::nullopt;
  int64_t total = 1;
  for (const auto& c : coords) {
    total *= static_cast<int64_t>(c.size());
    if (total > cap) return std::nullopt;
  }
  const std::vector<int64_t> strides = strides_of(in.shape);
  KnownData out = same_form(in.data);
  if (total == 0) return out;
  std::vector<size_t> pos(coords.size(), 0);
  for (int64_t f = 0; f < total; ++f) {
    int64_t src = 0;
    bool filled = false;
    for (size_t k = 0; k < coords.size(); ++k) {
      const int64_t c = coords[k][pos[k]];
      if (c < 0) {
        filled = true;
        break;
      }
      src += c * strides[k];
    }
    if (filled) {
      if (!fill || fill->size() != 1 || fill->is_float_exprs) return std::nullopt;
      if (!out.is_float)
        out.ints.push_back(fill->is_float ? SymInt(static_cast<int64_t>(fill->floats[0])) : fill->ints[0]);
      else
        append_element(out, float_data({fill->is_float ? fill->floats[0] : static_cast<double>(fill->ints[0].value())}), 0);
    } else {
      append_element(out, in.data, static_cast<size_t>(src));
    }
    for (size_t k = coords.size(); k-- > 0;) {
      if (++pos[k] < coords[k].size()) break;
      pos[k] = 0;
    }
  }
  return out;
}

std::vector<int64_t> iota(int64_t n, int64_t start = 0, int64_t step = 1) {
  std::vector<int64_t> v(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<int64_t>(i) * step;
  return v;
}

// Every coordinate of every axis of `shape`.
std::vector<std::vector<int64_t>> all_coords(const std::vector<int64_t>& shape) {
  std::vector<std::vector<int64_t>> c;
  for (int64_t d : shape) c.push_back(iota(d));
  return c;
}

void set_maybe_data(OpContext& ctx, size_t out, DType dtype, SymShape shape, std::optional<KnownData> data) {
  if (data)
    ctx.set_tensor(out, dtype, std::move(shape), std::move(*data));
  else
    ctx.set_tensor(out, dtype, std::move(shape));
}

// Same elements in the same order (Reshape, Flatten, Squeeze, Unsqueeze).
void set_reshaped(OpContext& ctx, SymShape shape) {
  std::optional<KnownData> data = known(ctx, 0);
  if (data) {
    auto n = static_shape(shape);
    if (!n || count_of(*n) != static_cast<int64_t>(data->size())) data.reset();
  }
  set_maybe_data(ctx, 0, ctx.dtype(0), std::move(shape), std::move(data));
}

// Static integer list `name` from the input of that name at `input`, where
// the version in effect declares one, or else from the attribute.
std::optional<std::vector<int64_t>> attr_or_input_ints(OpContext& ctx, const char* name, size_t input) {
  if (ctx.declares_input(name)) {
    if (!ctx.has_input(input)) return std::nullopt;
    auto xs = ctx.static_ints(input);
    if (!xs)
      ctx.fail(ErrorKind::UnknownInput, ctx.op_type() + ": input '" + ctx.input_name(input) + "' is not known");
    return xs;
  }
  return ctx.attr_ints(name);
}

// Number of axes of an axes input (13+) that is present but whose
// values are unknown; nullopt when the axes are known or absent.
std::optional<int64_t> unknown_axes_count(OpContext& ctx) {
  if (!ctx.declares_input("axes") || !ctx.has_input(1) || ctx.static_ints(1)) return std::nullopt;
  auto n = static_shape(ctx.shape(1));
  if (!n || n->size() > 1)
    ctx.fail(ErrorKind::UnknownInput, ctx.op_type() + ": axes '" + ctx.input_name(1) + "' are not known");
  return n->empty() ? 1 : (*n)[0];
}

// ---------------------------------------------------------------------------
// Shape, Size

void shape_rule(OpContext& ctx) {
  if (ctx.unranked(0)) {  // a 1-D int64 all the same, of unknown length
    ctx.set_tensor(0, DType::Int64, {ctx.unknown_size("Shape of '" + ctx.input_name(0) + "', whose rank is unknown")});
    return;
  }
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t start = 0, end = rank;
  if (ctx.declares_attribute("start")) {  // 15+: start/end attributes, clamped like Python slicing
    start = ctx.attr_int("start");
    end = ctx.attr_int("end", rank);
  }
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  start = clamp(start);
  end = clamp(end);
  std::vector<SymInt> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(simplified(ctx, in[static_cast<size_t>(i)]));
  const int64_t n = static_cast<int64_t>(dims.size());
  ctx.set_tensor(0, DType::Int64, {n}, int_data(std::move(dims)));
}

void size_rule(OpContext& ctx) {
  if (ctx.unranked(0)) {  // a scalar all the same, of unknown value
    ctx.set_tensor(0, DType::Int64, {});
    return;
  }
  ctx.set_tensor(0, DType::Int64, {}, int_data({simplified(ctx, numel(ctx.shape(0)))}));
}

// ---------------------------------------------------------------------------
// Reshape, Flatten, Squeeze, Unsqueeze

// A product split into its constant and powers of symbolic bases (products
// such as batch*seq taken apart, so they cancel against batch and seq).
struct Product {
  int64_t constant = 1;
  std::vector<std::pair<ExprRef, int64_t>> powers;  // (base, exponent)

  void multiply(ExprRef base, int64_t exponent) {
    for (auto& [b, k] : powers)
      if (b == base) {
        k += exponent;
        return;
      }
    powers.emplace_back(base, exponent);
  }
  SymInt value() const {
    SymInt v = constant;
    for (const auto& [b, k] : powers) v = v * SymInt(pow(b, k));
    return v;
  }
};

Product product_of(OpContext& ctx, std::span<const SymInt> dims) {
  Product p;
  for (const SymInt& d0 : dims) {
    const SymInt d = simplified(ctx, d0);
    if (d.is_static()) {
      p.constant = checked_mul(p.constant, d.value());
    } else if (d.expr()->kind() == ExprKind::Mul) {
      p.constant = checked_mul(p.constant, d.expr()->value());
      for (const auto& [base, exponent] : d.expr()->terms()) p.multiply(base, exponent);
    } else {
      p.multiply(d.expr(), 1);
    }
  }
  return p;
}

// Cancels the common symbolic powers and the constants' gcd of num / den.
void cancel(Product& num, Product& den) {
  for (auto& [base, k] : den.powers)
    for (auto& [nb, nk] : num.powers)
      if (nb == base) {
        const int64_t common = std::min(k, nk);
        k -= common;
        nk -= common;
      }
  auto drop_zero = [](Product& p) {
    std::erase_if(p.powers, [](const auto& bk) { return bk.second == 0; });
  };
  drop_zero(num);
  drop_zero(den);
  const int64_t g = std::gcd(num.constant, den.constant);
  if (g > 1) {
    num.constant /= g;
    den.constant /= g;
  }
}

// Reshape: 0 copies the input dim (unless allowzero), -1 is inferred from
// numel the way PyTorch's infer_size does (newsize != 0, numel % newsize == 0).
void reshape_rule(OpContext& ctx) {
  if (ctx.unranked(0)) {
    // Only the target can say the rank, and only its positive entries a size.
    auto target = shape_from_input(ctx, 1);
    if (!target) ctx.fail(ErrorKind::UnknownRank, "input '" + ctx.input_name(0) + "' has unknown rank");
    SymShape out;
    for (const SymInt& d : *target)
      out.push_back(d.is_static() && d.value() > 0 ? d
                                                   : ctx.unknown_size("Reshape of '" + ctx.input_name(0) +
                                                                      "', whose rank is unknown"));
    ctx.set_tensor(0, ctx.input(0).tensor->meta.dtype, std::move(out));
    return;
  }
  const SymShape& in = ctx.shape(0);
  auto target = shape_from_input(ctx, 1);
  if (!target) {
    auto n = ctx.unranked(1) ? std::nullopt : static_shape(ctx.shape(1));
    if (!n || n->size() != 1)
      ctx.fail(ErrorKind::UnknownRank, "Reshape's shape input '" + ctx.input_name(1) + "' has unknown length");
    SymShape out;
    for (int64_t i = 0; i < (*n)[0]; ++i)
      out.push_back(ctx.unknown_size("Reshape target shape '" + ctx.input_name(1) + "' is not known"));
    ctx.set_tensor(0, ctx.dtype(0), std::move(out));
    return;
  }
  const bool allowzero = ctx.declares_attribute("allowzero") && ctx.attr_int("allowzero") != 0;
  SymShape out;
  std::optional<size_t> infer_at;
  for (size_t i = 0; i < target->size(); ++i) {
    SymInt d = simplified(ctx, (*target)[i]);
    if (d.is_static()) {
      if (d.value() == 0 && !allowzero) {
        if (i >= in.size())
          ctx.fail(ErrorKind::InvalidShape, "Reshape: 0 at position " + std::to_string(i) +
                                                " has no input dim to copy");
        d = in[i];
      } else if (d.value() == -1) {
        if (infer_at) ctx.fail(ErrorKind::InvalidShape, "Reshape: more than one -1 in the target shape");
        if (allowzero)
          for (const SymInt& t : *target)
            if (t.is_static() && t.value() == 0)
              ctx.fail(ErrorKind::InvalidShape, "Reshape: allowzero=1 with both 0 and -1 in the target shape");
        infer_at = i;
      } else if (d.value() < -1) {
        ctx.fail(ErrorKind::InvalidShape, "Reshape: invalid size " + std::to_string(d.value()));
      }
    } else {
      // A symbolic entry is a size; if it may be 0 it would copy the input
      // dim (without allowzero) unless that dim is the same value anyway.
      require(ctx, sym_ge(d, 0), "Reshape: target entries are sizes", ErrorKind::InvalidShape,
              "Reshape: target entry " + str(d) + " may be negative");
      if (!allowzero && !(i < in.size() && known_true(ctx, sym_eq(d, in[i]))))
        require(ctx, sym_ne(d, 0), "Reshape: a 0 entry would copy the input dim", ErrorKind::InvalidShape,
                "Reshape: target entry " + str(d) + " is 0 and would copy the input dim");
    }
    out.push_back(d);
  }
  const SymInt total = simplified(ctx, numel(in));
  if (infer_at) {
    SymShape rest;
    for (size_t i = 0; i < out.size(); ++i)
      if (i != *infer_at) rest.push_back(out[i]);
    Product num = product_of(ctx, in), den = product_of(ctx, rest);
    const SymInt newsize = simplified(ctx, den.value());
    require(ctx, sym_ne(newsize, 0), "Reshape: -1 needs the other dims non-zero", ErrorKind::InvalidShape,
            "Reshape: cannot infer -1 from " + shape_to_string(in) + " into " + shape_to_string(out) +
                ": the other dims have 0 elements");
    cancel(num, den);
    if (!(den.powers.empty() && den.constant == 1))
      require(ctx, sym_eq(mod(total, newsize), 0), "Reshape: input numel divisible by the known dims",
              ErrorKind::ShapeMismatch,
              "Reshape: " + str(total) + " elements do not divide into " + shape_to_string(out));
    out[*infer_at] = simplified(ctx, floordiv(num.value(), den.value()));
  } else {
    require(ctx, sym_eq(simplified(ctx, numel(out)), total), "Reshape: numel preserved", ErrorKind::ShapeMismatch,
            "Reshape: cannot reshape " + shape_to_string(in) + " (" + str(total) + " elements) into " +
                shape_to_string(out));
  }
  simplify_all(ctx, out);
  set_reshaped(ctx, std::move(out));
}

void flatten_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.attr_int("axis");
  if (axis < 0) axis += rank;  // negative axes since opset 11
  if (axis < 0 || axis > rank)
    ctx.fail(ErrorKind::InvalidAxis, "Flatten axis " + std::to_string(ctx.attr_int("axis")) +
                                         " is out of range for rank " + std::to_string(rank));
  const auto split = in.begin() + axis;
  SymShape out = {simplified(ctx, numel(std::span<const SymInt>(in.begin(), split))),
                  simplified(ctx, numel(std::span<const SymInt>(split, in.end())))};
  set_reshaped(ctx, std::move(out));
}

void squeeze_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  if (auto k = unknown_axes_count(ctx)) {
    // Which dims go is unknown, but dims known not to be 1 must stay: when
    // they are exactly as many as the output has, the output is known.
    const int64_t kept = rank - *k;
    if (kept < 0)
      ctx.fail(ErrorKind::InvalidAxis, "Squeeze: " + std::to_string(*k) + " axes for rank " + std::to_string(rank));
    SymShape out;
    for (const SymInt& d : in)
      if (known_true(ctx, sym_ne(d, 1))) out.push_back(d);
    if (static_cast<int64_t>(out.size()) > kept)
      ctx.fail(ErrorKind::InvalidShape, "Squeeze: " + shape_to_string(in) + " has fewer than " + std::to_string(*k) +
                                            " dims that can be 1");
    if (static_cast<int64_t>(out.size()) != kept) {
      out.clear();
      for (int64_t i = 0; i < kept; ++i)
        out.push_back(ctx.unknown_size("Squeeze axes '" + ctx.input_name(1) + "' are not known"));
    }
    set_reshaped(ctx, std::move(out));
    return;
  }
  auto axes = attr_or_input_ints(ctx, "axes", 1);
  // An empty axes list (attribute before 13, input since) counts as none:
  // ORT drops every dim of 1 (libonnx's inference keeps them).
  if (axes && axes->empty()) axes.reset();
  std::vector<bool> drop(in.size(), false);
  if (axes) {
    for (int64_t a : normalize_axes(ctx, *axes, rank)) {
      const SymInt& d = in[static_cast<size_t>(a)];
      require(ctx, sym_eq(d, 1), "Squeeze: squeezed dim is 1", ErrorKind::InvalidShape,
              "Squeeze: dim " + std::to_string(a) + " has size " + str(d) + ", not 1");
      drop[static_cast<size_t>(a)] = true;
    }
  } else {
    // No axes: drop the dims that are 1. A symbolic dim is dropped only when
    // it is known (or, backed, guarded) to be 1: guard_or_false semantics.
    for (size_t k = 0; k < in.size(); ++k) {
      const SymInt& d = in[k];
      if (d.is_static()) {
        drop[k] = d.value() == 1;
      } else if (guard_or_false(ctx, sym_eq(d, 1), "Squeeze: drop dims of size 1")) {
        drop[k] = true;
      } else if (!known_true(ctx, sym_ne(d, 1))) {
        ctx.note_precision("Squeeze without axes keeps dim " + std::to_string(k) + " (" + str(d) +
                           "): it may be 1 at run time, where ONNX would drop it");
      }
    }
  }
  SymShape out;
  for (size_t k = 0; k < in.size(); ++k)
    if (!drop[k]) out.push_back(in[k]);
  set_reshaped(ctx, std::move(out));
}

void unsqueeze_rule(OpContext& ctx) {
  if (auto k = unknown_axes_count(ctx)) {
    // Where the 1s go is unknown; only an all-ones input stays all ones.
    const SymShape& in = ctx.shape(0);
    const bool ones = std::all_of(in.begin(), in.end(), [](const SymInt& d) { return d.is_static() && d.value() == 1; });
    SymShape out;
    for (size_t i = 0; i < in.size() + static_cast<size_t>(*k); ++i)
      out.push_back(ones ? SymInt(1) : ctx.unknown_size("Unsqueeze axes '" + ctx.input_name(1) + "' are not known"));
    set_reshaped(ctx, std::move(out));
    return;
  }
  auto axes = attr_or_input_ints(ctx, "axes", 1);
  if (!axes) ctx.fail(ErrorKind::UnknownInput, "Unsqueeze needs axes");
  const SymShape& in = ctx.shape(0);
  const int64_t out_rank = static_cast<int64_t>(in.size() + axes->size());
  std::vector<bool> is_new(static_cast<size_t>(out_rank), false);
  for (int64_t a : normalize_axes(ctx, *axes, out_rank)) is_new[static_cast<size_t>(a)] = true;
  SymShape out;
  size_t next = 0;
  for (int64_t d = 0; d < out_rank; ++d) out.push_back(is_new[static_cast<size_t>(d)] ? SymInt(1) : in[next++]);
  set_reshaped(ctx, std::move(out));
}

// ---------------------------------------------------------------------------
// Transpose, Concat, Split

void transpose_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> perm;
  if (auto p = ctx.attr_ints("perm")) {
    if (static_cast<int64_t>(p->size()) != rank)
      ctx.fail(ErrorKind::InvalidPerm, "Transpose perm has " + std::to_string(p->size()) + " entries for rank " +
                                           std::to_string(rank));
    perm = normalize_axes(ctx, *p, rank);
  } else {
    for (int64_t k = rank - 1; k >= 0; --k) perm.push_back(k);
  }
  SymShape out;
  for (int64_t p : perm) out.push_back(in[static_cast<size_t>(p)]);
  std::optional<KnownData> data;
  if (auto src = static_data(ctx, 0)) {
    const auto out_shape = *static_shape(out);
    const auto in_strides = strides_of(src->shape);
    const int64_t total = count_of(out_shape).value_or(kIntOo);
    if (total <= ctx.fold_limit()) {
      // Output coordinate k walks input axis perm[k].
      KnownData d = same_form(src->data);
      std::vector<int64_t> pos(out_shape.size(), 0);
      for (int64_t f = 0; f < total; ++f) {
        int64_t s = 0;
        for (size_t k = 0; k < pos.size(); ++k) s += pos[k] * in_strides[static_cast<size_t>(perm[k])];
        append_element(d, src->data, static_cast<size_t>(s));
        for (size_t k = pos.size(); k-- > 0;) {
          if (++pos[k] < out_shape[k]) break;
          pos[k] = 0;
        }
      }
      data = std::move(d);
    }
  }
  set_maybe_data(ctx, 0, ctx.dtype(0), std::move(out), std::move(data));
}

void concat_rule(OpContext& ctx) {
  const int64_t rank = ctx.rank(0);
  // Required from 4 (the schema check has asked for it); before, 1 when absent.
  const int64_t axis_attr = ctx.attr_int("axis", 1);
  const int64_t axis = normalize_axis(ctx, axis_attr, rank);
  SymShape out = ctx.shape(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const SymShape& s = ctx.shape(i);
    if (static_cast<int64_t>(s.size()) != rank)
      ctx.fail(ErrorKind::ShapeMismatch,
               "Concat inputs must have the same rank: " + shape_to_string(out) + " vs " + shape_to_string(s));
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) continue;
      const size_t k = static_cast<size_t>(d);
      require(ctx, sym_eq(out[k], s[k]), "Concat: inputs agree off the axis", ErrorKind::ShapeMismatch,
              "Concat: input " + std::to_string(i) + " has shape " + shape_to_string(s) + ", expected " +
                  str(out[k]) + " at dim " + std::to_string(d));
    }
    out[static_cast<size_t>(axis)] = out[static_cast<size_t>(axis)] + s[static_cast<size_t>(axis)];
  }
  simplify_all(ctx, out);
  // Known data concatenates block by block: outer dims x (each input's axis slab).
  std::optional<KnownData> data;
  std::vector<StaticData> parts;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    auto p = static_data(ctx, i);
    if (!p) break;
    parts.push_back(std::move(*p));
  }
  const auto out_static = static_shape(out);
  if (parts.size() == ctx.num_inputs() && out_static) {
    if (count_of(*out_static).value_or(kIntOo) <= ctx.fold_limit()) {
      int64_t outer = 1;
      for (int64_t d = 0; d < axis; ++d) outer *= parts[0].shape[static_cast<size_t>(d)];
      KnownData d = same_form(parts[0].data);
      bool mixed = false;
      for (const auto& p : parts) mixed |= p.data.is_float != d.is_float;
      if (!mixed) {
        for (int64_t o = 0; o < outer; ++o)
          for (const auto& p : parts) {
            const int64_t block = outer == 0 ? 0 : static_cast<int64_t>(p.data.size()) / outer;
            for (int64_t e = o * block; e < (o + 1) * block; ++e) append_element(d, p.data, static_cast<size_t>(e));
          }
        data = std::move(d);
      }
    }
  }
  set_maybe_data(ctx, 0, ctx.dtype(0), std::move(out), std::move(data));
}

// Output sizes of Split along one dim of size `dim` into `n` parts.
SymShape split_sizes(OpContext& ctx, const SymInt& dim, int64_t n, bool ceil_parts) {
  if (n <= 0) ctx.fail(ErrorKind::InvalidSplit, "Split needs at least one output");
  const SymInt parts = n;
  if (!ceil_parts || known_true(ctx, sym_eq(mod(dim, parts), 0))) {
    require(ctx, sym_eq(mod(dim, parts), 0), "Split: dim divides evenly into the outputs", ErrorKind::InvalidSplit,
            "Split: dim of size " + str(dim) + " does not split evenly into " + std::to_string(n) + " outputs");
    return SymShape(static_cast<size_t>(n), simplified(ctx, floordiv(dim, parts)));
  }
  // num_outputs (opset 18): chunks of ceil(dim / n), the last one smaller.
  const SymInt chunk = ceil_div(ctx, dim, parts);
  SymInt last = n == 2 ? floordiv(dim, parts) : dim - chunk * SymInt(n - 1);
  last = simplified(ctx, last);
  require(ctx, sym_ge(last, 0), "Split: the last chunk has a non-negative size", ErrorKind::InvalidSplit,
          "Split: dim of size " + str(dim) + " cannot be cut into " + std::to_string(n) + " chunks of " + str(chunk));
  SymShape sizes(static_cast<size_t>(n - 1), chunk);
  sizes.push_back(last);
  return sizes;
}

void split_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), rank);
  const SymInt& dim = in[static_cast<size_t>(axis)];
  const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
  std::optional<SymShape> sizes;
  bool split_unknown = false;
  // An input from 13; version 1 has both, and the input wins when given.
  if (ctx.declares_input("split") && (!ctx.declares_attribute("split") || ctx.has_input(1))) {
    if (ctx.has_input(1)) {
      if (auto xs = ctx.ints(1))
        sizes = SymShape(xs->begin(), xs->end());
      else
        split_unknown = true;
    }
  } else if (auto xs = ctx.attr_ints("split")) {
    sizes = SymShape(xs->begin(), xs->end());
  }
  const bool has_num_outputs = ctx.declares_attribute("num_outputs") && ctx.has_attr("num_outputs");
  if (has_num_outputs) {
    const int64_t k = ctx.attr_int("num_outputs", 0);
    if (k != n_out)
      ctx.fail(ErrorKind::InvalidSplit, "Split: num_outputs is " + std::to_string(k) + " but the node has " +
                                            std::to_string(n_out) + " outputs");
    if (sizes || split_unknown) ctx.fail(ErrorKind::InvalidSplit, "Split: both 'split' and 'num_outputs' are given");
  }
  if (split_unknown) {
    for (int64_t k = 0; k < n_out; ++k) {
      SymShape out = in;
      out[static_cast<size_t>(axis)] = ctx.unknown_size("Split sizes '" + ctx.input_name(1) + "' are not known");
      ctx.set_tensor(static_cast<size_t>(k), ctx.dtype(0), std::move(out));
    }
    return;
  }
  if (sizes) {
    if (static_cast<int64_t>(sizes->size()) != n_out)
      ctx.fail(ErrorKind::InvalidSplit, "Split: " + std::to_string(sizes->size()) + " sizes for " +
                                            std::to_string(n_out) + " outputs");
    SymInt sum = 0;
    for (SymInt& s : *sizes) {
      s = simplified(ctx, s);
      require(ctx, sym_ge(s, 0), "Split: sizes are non-negative", ErrorKind::InvalidSplit,
              "Split: negative size " + str(s));
      sum = sum + s;
    }
    require(ctx, sym_eq(simplified(ctx, sum), dim), "Split: sizes add up to the dim", ErrorKind::InvalidSplit,
            "Split: sizes add up to " + str(simplified(ctx, sum)) + ", the dim has size " + str(dim));
  } else {
    sizes = split_sizes(ctx, dim, n_out, has_num_outputs);
  }
  auto src = static_data(ctx, 0);
  SymInt offset = 0;
  for (int64_t k = 0; k < n_out; ++k) {
    const SymInt& len = (*sizes)[static_cast<size_t>(k)];
    SymShape out = in;
    out[static_cast<size_t>(axis)] = len;
    std::optional<KnownData> data;
    if (src && offset.is_static() && len.is_static()) {
      auto coords = all_coords(src->shape);
      coords[static_cast<size_t>(axis)] = iota(len.value(), offset.value());
      data = pick(*src, coords, ctx.fold_limit());
    }
    offset = simplified(ctx, offset + len);
    if (ctx.wants_output(static_cast<size_t>(k)))
      set_maybe_data(ctx, static_cast<size_t>(k), ctx.dtype(0), std::move(out), std::move(data));
  }
}

// ---------------------------------------------------------------------------
// Slice

// Bounds of one sliced axis: the clamped start (nullopt where a bound's sign
// cannot be placed) and the length.
struct SliceAxis {
  std::optional<SymInt> start;
  SymInt len;
};

// a <= b without a guard: statically known, or through the structure of
// max/min (max(x, y) <= b when both are; a <= min(x, y) when a is below both),
// which interval reasoning alone misses for clamped slice bounds.
bool known_le(OpContext& ctx, const SymInt& a, const SymInt& b, int depth = 0) {
  if (known_true(ctx, sym_le(a, b))) return true;
  if (depth > 4) return false;
  auto args = [](const SymInt& v, ExprKind kind) {
    std::vector<SymInt> out;
    if (v.is_symbolic() && v.expr()->kind() == kind)
      for (ExprRef e : v.expr()->args()) out.emplace_back(e);
    return out;
  };
  auto all = [&](const std::vector<SymInt>& xs, auto&& pred) {
    return !xs.empty() && std::all_of(xs.begin(), xs.end(), pred);
  };
  auto any = [&](const std::vector<SymInt>& xs, auto&& pred) { return std::any_of(xs.begin(), xs.end(), pred); };
  return all(args(a, ExprKind::Max), [&](const SymInt& x) { return known_le(ctx, x, b, depth + 1); }) ||
         all(args(b, ExprKind::Min), [&](const SymInt& y) { return known_le(ctx, a, y, depth + 1); }) ||
         any(args(a, ExprKind::Min), [&](const SymInt& x) { return known_le(ctx, x, b, depth + 1); }) ||
         any(args(b, ExprKind::Max), [&](const SymInt& y) { return known_le(ctx, a, y, depth + 1); });
}

// min(max(x, lo), hi), with each branch dropped when statically decided.
SymInt clamp_sym(OpContext& ctx, SymInt x, const SymInt& lo, const SymInt& hi) {
  if (!known_le(ctx, lo, x)) x = known_le(ctx, x, lo) ? lo : simplified(ctx, sym_max(x, lo));
  if (!known_le(ctx, x, hi)) x = known_le(ctx, hi, x) ? hi : simplified(ctx, sym_min(x, hi));
  return simplified(ctx, x);
}

// ONNX Slice clamping (as in the spec and libonnx): a negative index counts
// from the end; starts are clamped to [0, dim] (step > 0) or [0, dim-1]
// (step < 0), ends to [0, dim] or [-1, dim-1]; the length is
// max(0, ceil((end - start) / step)). Whether a symbolic bound counts from
// the end is asked as torch's fake slice asks it (guard_or_false each way): a
// backed bound is guarded, and one whose sign no fact settles (an unbacked
// `-n` with n possibly 0) leaves the length a fresh unbacked size in
// [0, dim], asserted at run time, rather than a data-dependent error.
SliceAxis slice_axis(OpContext& ctx, const SymInt& dim, const SymInt& start, const SymInt& end, int64_t step) {
  constexpr const char* kWhy = "Slice: index counts from the end";
  auto adjust = [&](const SymInt& x, const SymInt& lo, const SymInt& hi) -> std::optional<SymInt> {
    if (x.is_static() && x.value() >= kHugeIndex) return hi;
    if (x.is_static() && x.value() <= -kHugeIndex) return clamp_sym(ctx, lo, lo, hi);
    bool negative;
    if (x.is_static())
      negative = x.value() < 0;
    else if (known_true(ctx, sym_ge(x, 0)))
      negative = false;
    else if (known_true(ctx, sym_lt(x, 0)))
      negative = true;
    else if (guard_or_false(ctx, sym_lt(x, 0), kWhy))
      negative = true;
    else if (guard_or_false(ctx, sym_ge(x, 0), kWhy))
      negative = false;
    else
      return std::nullopt;
    return clamp_sym(ctx, negative ? dim + x : x, lo, hi);
  };
  SliceAxis r;
  std::optional<SymInt> lower, upper;  // span = upper - lower, clipped at 0
  if (step > 0) {
    r.start = adjust(start, 0, dim);
    lower = r.start;
    upper = adjust(end, 0, dim);
  } else {
    const SymInt last = simplified(ctx, dim - 1);
    r.start = adjust(start, 0, last);
    lower = adjust(end, -1, last);
    upper = r.start;
  }
  if (!lower || !upper) {
    r.len = SymInt(ctx.env().create_unbacked_symint(true));
    ctx.env().defer_runtime_assert(sym_le(r.len, dim), "Slice: a bound of unknown sign");
    return r;
  }
  SymInt span = simplified(ctx, *upper - *lower);
  if (!known_le(ctx, *lower, *upper)) span = known_le(ctx, *upper, *lower) ? SymInt(0) : sym_max(span, 0);
  const int64_t stride = step > 0 ? step : -step;
  r.len = stride == 1 ? simplified(ctx, span) : ceil_div(ctx, span, stride);
  return r;
}

void slice_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::optional<std::vector<SymInt>> starts, ends;
  std::optional<std::vector<int64_t>> axes, steps;
  bool axes_unknown = false, steps_unknown = false;
  size_t n = 0;
  if (!ctx.declares_input("starts")) {  // attributes before 10
    auto s = ctx.attr_ints("starts"), e = ctx.attr_ints("ends");
    if (!s || !e) ctx.fail(ErrorKind::MissingAttribute, "Slice needs 'starts' and 'ends'");
    starts = std::vector<SymInt>(s->begin(), s->end());
    ends = std::vector<SymInt>(e->begin(), e->end());
    axes = ctx.attr_ints("axes");
    n = s->size();
  } else {
    starts = ctx.ints(1);
    ends = ctx.ints(2);
    if (ctx.has_input(3)) {
      axes = ctx.static_ints(3);
      axes_unknown = !axes;
    }
    if (ctx.has_input(4)) {
      steps = ctx.static_ints(4);
      steps_unknown = !steps;
    }
    if (starts) {
      n = starts->size();
    } else {
      auto len = static_shape(ctx.shape(1));
      if (!len || len->size() != 1) ctx.fail(ErrorKind::InvalidShape, "Slice starts must be a 1-D tensor");
      n = static_cast<size_t>((*len)[0]);
    }
  }
  if ((starts && starts->size() != n) || (ends && ends->size() != n) || (axes && axes->size() != n) ||
      (steps && steps->size() != n))
    ctx.fail(ErrorKind::InvalidSlice, "Slice: starts, ends, axes and steps must have the same length");
  if (!axes && !axes_unknown) axes = iota(static_cast<int64_t>(n));
  std::vector<int64_t> norm_axes;
  if (axes) norm_axes = normalize_axes(ctx, *axes, rank);
  if (steps)
    for (int64_t s : *steps)
      if (s == 0) ctx.fail(ErrorKind::InvalidSlice, "Slice: steps cannot be 0");

  SymShape out = in;
  if (!starts || !ends || !axes || steps_unknown) {
    const std::string why = "Slice " + std::string(!axes ? "axes" : !starts || !ends ? "starts/ends" : "steps") +
                            " are not known";
    if (axes) {
      for (int64_t a : norm_axes) out[static_cast<size_t>(a)] = ctx.unknown_size(why);
    } else {
      for (SymInt& d : out) d = ctx.unknown_size(why);
    }
    ctx.set_tensor(0, ctx.dtype(0), std::move(out));
    return;
  }
  auto src = static_data(ctx, 0);
  std::vector<std::vector<int64_t>> coords;
  if (src) coords = all_coords(src->shape);
  for (size_t i = 0; i < n; ++i) {
    const size_t a = static_cast<size_t>(norm_axes[i]);
    const int64_t step = steps ? (*steps)[i] : 1;
    SliceAxis r = slice_axis(ctx, in[a], (*starts)[i], (*ends)[i], step);
    out[a] = r.len;
    if (src) {
      if (r.start && r.start->is_static() && r.len.is_static())
        coords[a] = iota(r.len.value(), r.start->value(), step);
      else
        src.reset();
    }
  }
  std::optional<KnownData> data;
  if (src) data = pick(*src, coords, ctx.fold_limit());
  set_maybe_data(ctx, 0, ctx.dtype(0), std::move(out), std::move(data));
}

// ---------------------------------------------------------------------------
// Gather family

// Static indices (simplified; symbolic ones that simplify to constants count).
std::optional<std::vector<int64_t>> static_indices(OpContext& ctx, size_t i) {
  auto xs = ctx.ints(i);
  if (!xs) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(xs->size());
  for (const SymInt& x : *xs) {
    SymInt s = simplified(ctx, x);
    if (!s.is_static()) return std::nullopt;
    out.push_back(s.value());
  }
  return out;
}

void gather_rule(OpContext& ctx) {
  const SymShape& data = ctx.shape(0);
  const SymShape& indices = ctx.shape(1);
  const int64_t rank = static_cast<int64_t>(data.size());
  if (rank == 0) ctx.fail(ErrorKind::InvalidRank, "Gather needs data of rank >= 1");
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), rank);
  const SymInt& extent = data[static_cast<size_t>(axis)];
  SymShape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  auto idx = static_indices(ctx, 1);
  if (idx && extent.is_static()) {
    const int64_t n = extent.value();
    for (int64_t& i : *idx) {
      if (i < -n || i >= n)
        ctx.fail(ErrorKind::IndexError, "Gather index " + std::to_string(i) + " is out of range for a dim of size " +
                                            std::to_string(n));
      if (i < 0) i += n;
    }
  }
  std::optional<KnownData> picked;
  if (idx && extent.is_static()) {
    if (auto src = static_data(ctx, 0)) {
      // The indices, flattened, walk the axis; the output's index dims are that walk.
      auto coords = all_coords(src->shape);
      coords[static_cast<size_t>(axis)] = *idx;
      picked = pick(*src, coords, ctx.fold_limit());
    }
  }
  set_maybe_data(ctx, 0, ctx.dtype(0), std::move(out), std::move(picked));
}

void gather_elements_rule(OpContext& ctx) {
  const SymShape& data = ctx.shape(0);
  const SymShape& indices = ctx.shape(1);
  if (data.size() != indices.size())
    ctx.fail(ErrorKind::ShapeMismatch, "GatherElements: data " + shape_to_string(data) + " and indices " +
                                           shape_to_string(indices) + " must have the same rank");
  if (data.empty()) ctx.fail(ErrorKind::InvalidRank, "GatherElements needs rank >= 1");
  normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(data.size()));
  ctx.set_tensor(0, ctx.dtype(0), indices);
}

void gather_nd_rule(OpContext& ctx) {
  const SymShape& data = ctx.shape(0);
  const SymShape& indices = ctx.shape(1);
  const int64_t r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(indices.size());
  const int64_t b = ctx.declares_attribute("batch_dims") ? ctx.attr_int("batch_dims") : 0;  // 12+
  if (r < 1 || q < 1) ctx.fail(ErrorKind::InvalidRank, "GatherND needs data and indices of rank >= 1");
  if (b < 0 || b >= std::min(r, q))
    ctx.fail(ErrorKind::InvalidAttribute, "GatherND batch_dims " + std::to_string(b) + " must be less than both ranks");
  // The output rank depends on indices.shape[-1]: a symbolic one is specialized
  // (a guard on a backed size, a data-dependent error on an unbacked one).
  const int64_t m = specialize(ctx, indices.back(), "GatherND: indices.shape[-1] sets the output rank");
  if (m < 1 || m > r - b)
    ctx.fail(ErrorKind::InvalidShape, "GatherND: indices.shape[-1] = " + std::to_string(m) + " must be in [1, " +
                                          std::to_string(r - b) + "]");
  for (int64_t i = 0; i < b; ++i) {
    const size_t k = static_cast<size_t>(i);
    require(ctx, sym_eq(indices[k], data[k]), "GatherND: batch dims agree", ErrorKind::ShapeMismatch,
            "GatherND: batch dim " + std::to_string(i) + " differs: " + str(indices[k]) + " vs " + str(data[k]));
  }
  SymShape out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + b + m, data.end());
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// Scatter, ScatterElements, ScatterND: data's shape; updates must fit.
void scatter_rule(OpContext& ctx) {
  const SymShape& data = ctx.shape(0);
  if (ctx.op_type() != "ScatterND") {
    const SymShape& indices = ctx.shape(1);
    const SymShape& updates = ctx.shape(2);
    if (indices.size() != data.size() || updates.size() != data.size())
      ctx.fail(ErrorKind::ShapeMismatch, ctx.op_type() + ": data " + shape_to_string(data) + ", indices " +
                                             shape_to_string(indices) + " and updates " + shape_to_string(updates) +
                                             " must have the same rank");
    normalize_axis(ctx, ctx.attr_int("axis", 0), static_cast<int64_t>(data.size()));
  } else {
    const SymShape& indices = ctx.shape(1);
    if (indices.empty()) ctx.fail(ErrorKind::InvalidRank, "ScatterND: indices must have rank >= 1");
    const int64_t k = specialize(ctx, indices.back(), "ScatterND: indices.shape[-1] sets the updates rank");
    if (k < 1 || k > static_cast<int64_t>(data.size()))
      ctx.fail(ErrorKind::InvalidShape, "ScatterND: indices.shape[-1] = " + std::to_string(k) +
                                            " exceeds the data rank");
    const size_t want = indices.size() - 1 + data.size() - static_cast<size_t>(k);
    if (ctx.shape(2).size() != want)
      ctx.fail(ErrorKind::ShapeMismatch, "ScatterND: updates " + shape_to_string(ctx.shape(2)) + " must have rank " +
                                             std::to_string(want));
  }
  same_as_input(ctx);
}

// ---------------------------------------------------------------------------
// Expand, Tile, Pad

// Coordinates that broadcast a static input dim of `in` to `out`.
std::vector<int64_t> broadcast_coords(int64_t in, int64_t out) {
  return in == 1 ? std::vector<int64_t>(static_cast<size_t>(out), 0) : iota(out);
}

void expand_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  auto target = shape_from_input(ctx, 1);
  SymShape out;
  if (target) {
    for (const SymInt& t : *target)
      if (t.is_static() && t.value() < 0)
        ctx.fail(ErrorKind::InvalidShape, "Expand: negative size " + std::to_string(t.value()) +
                                              " in the target shape");
    out = broadcast_shapes(in, *target, ctx.env());
  } else {
    auto n = static_shape(ctx.shape(1));
    if (!n || n->size() != 1) ctx.fail(ErrorKind::UnknownRank, "Expand's shape input has unknown length");
    const size_t out_rank = std::max(in.size(), static_cast<size_t>((*n)[0]));
    const size_t offset = out_rank - in.size();
    for (size_t k = 0; k < out_rank; ++k) {
      // An input dim that is not 1 survives whatever the (unknown) target holds there.
      if (k >= offset && known_true(ctx, sym_ne(in[k - offset], 1)))
        out.push_back(in[k - offset]);
      else
        out.push_back(ctx.unknown_size("Expand target shape '" + ctx.input_name(1) + "' is not known"));
    }
  }
  simplify_all(ctx, out);
  std::optional<KnownData> data;
  auto src = static_data(ctx, 0);
  auto out_static = static_shape(out);
  if (src && out_static && count_of(*out_static).value_or(kIntOo) <= ctx.fold_limit()) {
    StaticData padded = *src;
    padded.shape.insert(padded.shape.begin(), out_static->size() - src->shape.size(), 1);
    std::vector<std::vector<int64_t>> coords;
    for (size_t k = 0; k < out_static->size(); ++k) coords.push_back(broadcast_coords(padded.shape[k], (*out_static)[k]));
    data = pick(padded, coords, ctx.fold_limit());
  }
  set_maybe_data(ctx, 0, ctx.dtype(0), std::move(out), std::move(data));
}

void tile_rule(OpContext& ctx) {
  if (!ctx.has_input(1)) ctx.fail(ErrorKind::MissingInput, "Tile needs input 1 (repeats)");
  const SymShape& in = ctx.shape(0);
  SymShape out = in;
  auto repeats = ctx.ints(1);
  if (!repeats) {
    for (SymInt& d : out)
      if (!(d.is_static() && d.value() == 0))
        d = ctx.unknown_size("Tile repeats '" + ctx.input_name(1) + "' are not known");
    ctx.set_tensor(0, ctx.dtype(0), std::move(out));
    return;
  }
  if (repeats->size() != in.size())
    ctx.fail(ErrorKind::InvalidShape, "Tile: " + std::to_string(repeats->size()) + " repeats for an input of rank " +
                                          std::to_string(in.size()));
  for (size_t k = 0; k < in.size(); ++k) {
    const SymInt& r = (*repeats)[k];
    require(ctx, sym_ge(r, 0), "Tile: repeats are non-negative", ErrorKind::InvalidShape,
            "Tile: negative repeat " + str(r));
    out[k] = simplified(ctx, in[k] * r);
  }
  std::optional<KnownData> data;
  auto src = static_data(ctx, 0);
  auto out_static = static_shape(out);
  if (src && out_static && count_of(*out_static).value_or(kIntOo) <= ctx.fold_limit()) {
    std::vector<std::vector<int64_t>> coords;
    for (size_t k = 0; k < in.size(); ++k) {
      std::vector<int64_t> c;
      for (int64_t j = 0; j < (*out_static)[k]; ++j) c.push_back(j % src->shape[k]);
      coords.push_back(std::move(c));
    }
    data = pick(*src, coords, ctx.fold_limit());
  }
  set_maybe_data(ctx, 0, ctx.dtype(0), std::move(out), std::move(data));
}

// Source coordinate of padded position j (j - begin in the input) under `mode`; -1 = the constant.
int64_t pad_source(int64_t src, int64_t d, const std::string& mode) {
  if (src >= 0 && src < d) return src;
  if (mode == "constant" || d == 0) return -1;
  if (mode == "edge") return std::clamp<int64_t>(src, 0, d - 1);
  if (mode == "wrap") return ((src % d) + d) % d;
  // reflect: mirror without repeating the edge, period 2(d-1).
  if (d == 1) return 0;
  const int64_t period = 2 * (d - 1);
  int64_t m = ((src % period) + period) % period;
  return m < d ? m : period - m;
}

// Pads come from an attribute ("paddings" in version 1, "pads" in 2) or,
// from 11, an input, as do the constant value and (18) the axes; "wrap" is
// a mode from 19.
template <bool wraps>
void pad_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const std::string mode = ctx.attr_string("mode");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && !(mode == "wrap" && wraps))
    ctx.fail(ErrorKind::InvalidAttribute, "Pad: unsupported mode '" + mode + "'");
  std::optional<std::vector<SymInt>> pads;
  if (!ctx.declares_input("pads")) {
    auto p = ctx.attr_ints(ctx.declares_attribute("paddings") ? "paddings" : "pads");
    if (!p) ctx.fail(ErrorKind::MissingAttribute, "Pad needs 'pads'");
    pads = std::vector<SymInt>(p->begin(), p->end());
  } else {
    pads = ctx.ints(1);
  }
  std::vector<int64_t> axes;
  if (ctx.declares_input("axes") && ctx.has_input(3)) {
    auto a = ctx.static_ints(3);
    if (!a) {
      SymShape out = in;
      for (SymInt& d : out) d = ctx.unknown_size("Pad axes '" + ctx.input_name(3) + "' are not known");
      ctx.set_tensor(0, ctx.dtype(0), std::move(out));
      return;
    }
    axes = normalize_axes(ctx, *a, rank);
  } else {
    axes = iota(rank);
  }
  SymShape out = in;
  if (!pads) {
    for (int64_t a : axes) out[static_cast<size_t>(a)] = ctx.unknown_size("Pad pads '" + ctx.input_name(1) + "' are not known");
    ctx.set_tensor(0, ctx.dtype(0), std::move(out));
    return;
  }
  const size_t n = axes.size();
  if (pads->size() != 2 * n)
    ctx.fail(ErrorKind::InvalidShape, "Pad: " + std::to_string(pads->size()) + " pads for " + std::to_string(n) +
                                          " axes (need 2 per axis)");
  for (size_t i = 0; i < n; ++i) {
    const size_t a = static_cast<size_t>(axes[i]);
    // The two pads first, as onnx does: [1, -1] cancel even on a dim of INT64_MAX.
    const SymInt d = simplified(ctx, in[a] + ((*pads)[i] + (*pads)[i + n]));
    require(ctx, sym_ge(d, 0), "Pad: padded dims are non-negative", ErrorKind::InvalidShape,
            "Pad: dim " + std::to_string(a) + " of size " + str(in[a]) + " padded to " + str(d));
    out[a] = d;
  }
  std::optional<KnownData> data;
  auto src = static_data(ctx, 0);
  auto out_static = static_shape(out);
  if (src && out_static && count_of(*out_static).value_or(kIntOo) <= ctx.fold_limit()) {
    std::vector<std::vector<int64_t>> coords = all_coords(src->shape);
    bool ok = true;
    for (size_t i = 0; i < n && ok; ++i) {
      const size_t a = static_cast<size_t>(axes[i]);
      ok = (*pads)[i].is_static();
      if (!ok) break;
      const int64_t begin = (*pads)[i].value();
      std::vector<int64_t> c;
      for (int64_t j = 0; j < (*out_static)[a]; ++j) c.push_back(pad_source(j - begin, src->shape[a], mode));
      coords[a] = std::move(c);
    }
    std::optional<KnownData> fill;
    if (ctx.declares_input("constant_value") && ctx.has_input(2))
      fill = known(ctx, 2);
    else
      fill = src->data.is_float ? float_data({ctx.attr_float("value", 0.0f)}) : int_data({SymInt(0)});
    if (ok && fill) data = pick(*src, coords, ctx.fold_limit(), &*fill);
  }
  set_maybe_data(ctx, 0, ctx.dtype(0), std::move(out), std::move(data));
}

// CenterCropPad (opset 18): the listed axes take the requested sizes.
void center_crop_pad_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes;
  if (auto a = ctx.attr_ints("axes"))
    axes = normalize_axes(ctx, *a, rank);
  else
    axes = iota(rank);
  SymShape out = in;
  auto sizes = ctx.ints(1);
  if (sizes && sizes->size() != axes.size())
    ctx.fail(ErrorKind::InvalidShape, "CenterCropPad: " + std::to_string(sizes->size()) + " sizes for " +
                                          std::to_string(axes.size()) + " axes");
  for (size_t i = 0; i < axes.size(); ++i) {
    SymInt& d = out[static_cast<size_t>(axes[i])];
    if (!sizes) {
      d = ctx.unknown_size("CenterCropPad shape '" + ctx.input_name(1) + "' is not known");
      continue;
    }
    d = simplified(ctx, (*sizes)[i]);
    require(ctx, sym_ge(d, 0), "CenterCropPad: sizes are non-negative", ErrorKind::InvalidShape,
            "CenterCropPad: negative size " + str(d));
  }
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// ---------------------------------------------------------------------------
// DepthToSpace, SpaceToDepth, OneHot, same-shape ops

int64_t block_size(OpContext& ctx) {
  const int64_t b = ctx.required_attr_int("blocksize");
  if (b <= 0)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + ": blocksize must be positive, got " + std::to_string(b));
  return b;
}

void depth_to_space_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  if (in.size() != 4) ctx.fail(ErrorKind::InvalidRank, "DepthToSpace needs a 4-D input, got " + shape_to_string(in));
  const int64_t b = block_size(ctx);
  const std::string mode = ctx.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    ctx.fail(ErrorKind::InvalidAttribute, "DepthToSpace: unknown mode '" + mode + "'");
  const SymInt bb = checked_mul(b, b);
  require(ctx, sym_eq(mod(in[1], bb), 0), "DepthToSpace: channels divisible by blocksize^2", ErrorKind::ShapeMismatch,
          "DepthToSpace: " + str(in[1]) + " channels are not divisible by blocksize^2 = " + str(bb));
  SymShape out = {in[0], floordiv(in[1], bb), in[2] * SymInt(b), in[3] * SymInt(b)};
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void space_to_depth_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  if (in.size() != 4) ctx.fail(ErrorKind::InvalidRank, "SpaceToDepth needs a 4-D input, got " + shape_to_string(in));
  const int64_t b = block_size(ctx);
  for (size_t k : {size_t{2}, size_t{3}})
    require(ctx, sym_eq(mod(in[k], b), 0), "SpaceToDepth: spatial dims divisible by blocksize",
            ErrorKind::ShapeMismatch,
            "SpaceToDepth: dim " + std::to_string(k) + " of size " + str(in[k]) + " is not divisible by " +
                std::to_string(b));
  SymShape out = {in[0], in[1] * SymInt(checked_mul(b, b)), floordiv(in[2], b), floordiv(in[3], b)};
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void one_hot_rule(OpContext& ctx) {
  const SymShape& indices = ctx.shape(0);
  const int64_t out_rank = static_cast<int64_t>(indices.size()) + 1;
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), out_rank);
  if (ctx.rank(1) > 1 || (ctx.rank(1) == 1 && !known_true(ctx, sym_eq(ctx.shape(1)[0], 1))))
    ctx.fail(ErrorKind::InvalidShape, "OneHot: depth must be a scalar or a 1-element tensor");
  const SymShape& values = ctx.shape(2);
  if (values.size() != 1)
    ctx.fail(ErrorKind::InvalidShape, "OneHot: values must be 1-D, got " + shape_to_string(values));
  require(ctx, sym_eq(values[0], 2), "OneHot: values holds (off, on)", ErrorKind::InvalidShape,
          "OneHot: values must have 2 elements, got " + str(values[0]));
  SymInt depth;
  if (auto d = ctx.scalar_int(1)) {
    depth = simplified(ctx, *d);
  } else if (auto f = ctx.floats(1); f && f->size() == 1 && std::isfinite((*f)[0]) && std::fabs((*f)[0]) < 9.0e15) {
    // Cast to int64 (truncation) as the schema says and ORT does: 4.7 gives
    // 4 (ONNX's Python reference, numpy.arange(depth), would give 5).
    depth = static_cast<int64_t>(std::trunc((*f)[0]));
  } else {
    depth = ctx.unknown_size("OneHot depth '" + ctx.input_name(1) + "' is not known");
  }
  require(ctx, sym_ge(depth, 1), "OneHot: depth is positive", ErrorKind::InvalidShape,
          "OneHot: depth " + str(depth) + " must be positive");
  SymShape out = indices;
  out.insert(out.begin() + axis, depth);
  ctx.set_tensor(0, ctx.dtype(2), std::move(out));
}

void trilu_rule(OpContext& ctx) {
  if (ctx.rank(0) < 2) ctx.fail(ErrorKind::InvalidRank, "Trilu needs rank >= 2, got " + shape_to_string(ctx.shape(0)));
  same_as_input(ctx);
}

void reverse_sequence_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  if (in.size() < 2) ctx.fail(ErrorKind::InvalidRank, "ReverseSequence needs rank >= 2, got " + shape_to_string(in));
  const int64_t batch_axis = ctx.attr_int("batch_axis"), time_axis = ctx.attr_int("time_axis");
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    ctx.fail(ErrorKind::InvalidAttribute, "ReverseSequence: batch_axis/time_axis must be 0 and 1");
  const SymShape& lens = ctx.shape(1);
  if (lens.size() != 1) ctx.fail(ErrorKind::InvalidShape, "ReverseSequence: sequence_lens must be 1-D");
  const size_t b = static_cast<size_t>(batch_axis);
  require(ctx, sym_eq(lens[0], in[b]), "ReverseSequence: one length per batch entry", ErrorKind::ShapeMismatch,
          "ReverseSequence: " + str(lens[0]) + " lengths for a batch of " + str(in[b]));
  same_as_input(ctx);
}

}  // namespace

std::span<const OpRuleEntry> shape_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {"", "Shape", shape_rule},
      {"", "Size", size_rule},
      {"", "Reshape", reshape_rule},
      {"", "Flatten", flatten_rule},
      {"", "Squeeze", squeeze_rule},
      {"", "Unsqueeze", unsqueeze_rule},
      {"", "Transpose", transpose_rule},
      {"", "Concat", concat_rule},
      {"", "Split", split_rule},
      {"", "Slice", slice_rule},
      {"", "Gather", gather_rule},
      {"", "GatherElements", gather_elements_rule},
      {"", "GatherND", gather_nd_rule},
      {"", "Scatter", scatter_rule},
      {"", "ScatterElements", scatter_rule},
      {"", "ScatterND", scatter_rule},
      {"", "Expand", expand_rule},
      {"", "Tile", tile_rule},
      {"", "Pad", pad_rule<false>},
      {"", "Pad", pad_rule<true>, 19},
      {"", "CenterCropPad", center_crop_pad_rule},
      {"", "DepthToSpace", depth_to_space_rule},
      {"", "SpaceToDepth", space_to_depth_rule},
      {"", "OneHot", one_hot_rule},
      {"", "Trilu", trilu_rule},
      {"", "ReverseSequence", reverse_sequence_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
