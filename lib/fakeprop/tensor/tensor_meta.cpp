#include "fakeprop/tensor/tensor_meta.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "fakeprop/sym/assumptions.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

// ---- small vocabulary: static values never reach the expression engine ----

SymInt mul(const SymInt& a, const SymInt& b) {
  if (a.is_static() && b.is_static()) return checked_mul(a.value(), b.value());
  return a * b;
}

enum class Rel : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

SymBool rel(const SymInt& a, Rel r, const SymInt& b) {
  if (a.is_static() && b.is_static()) {
    const int64_t x = a.value();
    const int64_t y = b.value();
    switch (r) {
      case Rel::Eq: return x == y;
      case Rel::Ne: return x != y;
      case Rel::Lt: return x < y;
      case Rel::Le: return x <= y;
      case Rel::Gt: return x > y;
      case Rel::Ge: return x >= y;
    }
  }
  if (a.same(b)) return r == Rel::Eq || r == Rel::Le || r == Rel::Ge;
  switch (r) {
    case Rel::Eq: return sym_eq(a, b);
    case Rel::Ne: return sym_ne(a, b);
    case Rel::Lt: return sym_lt(a, b);
    case Rel::Le: return sym_le(a, b);
    case Rel::Gt: return sym_gt(a, b);
    case Rel::Ge: return sym_ge(a, b);
  }
  return false;
}

// PyTorch's guard_or_false / guard_or_true, with static
// answers taken without asking the env.
bool guard_or_false(ShapeEnv& env, const SymBool& c, const char* rule) {
  if (auto v = c.maybe_value()) return *v;
  return env.guard_or_false(c, rule);
}
bool guard_or_true(ShapeEnv& env, const SymBool& c, const char* rule) {
  if (auto v = c.maybe_value()) return *v;
  return env.guard_or_true(c, rule);
}

SymInt product(std::span<const SymInt> xs) {
  SymInt p = 1;
  for (const SymInt& x : xs) p = mul(p, x);
  return p;
}

// sym_max(size, 1) as make_contiguous_strides_for and
// check_contiguous_sizes_strides take it: sympy keeps Max(1, (s0 + 2)//3)
// though the ranges prove it >= 1.
SymInt at_least_one(const SymInt& size, const ShapeEnv* env) {
  if (size.is_static()) return std::max<int64_t>(size.value(), 1);
  if (env != nullptr && positive_by_assumptions(size.expr(), positive_symbols_of(*env))) return size;
  return sym_max(SymInt(1), size);
}

// How the layout checks decide what they cannot see statically.
enum class Decide : uint8_t {
  SizeOblivious,  // the public queries: size == 1 is decided size-obliviously
  OrFalse,        // PyTorch's *_or_false variants: unknown means "no"
  Static,         // C++'s definitely_true short cuts: never guard
};

// Is `c` true?
bool holds(ShapeEnv& env, const SymBool& c, Decide how, const char* rule) {
  if (auto v = c.maybe_value()) return *v;
  switch (how) {
    case Decide::SizeOblivious: return env.guard_size_oblivious(c, rule);
    case Decide::OrFalse: return env.guard_or_false(c, rule);
    case Decide::Static: return env.statically_known_true(c);
  }
  return false;
}

// May `a` differ from `b`? Unknown counts as "yes".
bool may_differ(const SymInt& a, const SymInt& b, ShapeEnv& env, Decide how, const char* rule) {
  if (how == Decide::Static) return !holds(env, rel(a, Rel::Eq, b), how, rule);
  return guard_or_true(env, rel(a, Rel::Ne, b), rule);
}

bool is_size_one(const SymInt& size, ShapeEnv& env, Decide how, const char* rule) {
  return holds(env, rel(size, Rel::Eq, 1), how, rule);
}

bool has_few_elements(std::span<const SymInt> sizes, ShapeEnv& env, Decide how, const char* rule) {
  return holds(env, rel(product(sizes), Rel::Lt, 2), how, rule);
}

// check_contiguous_sizes_strides: strides nested from the last dim, size-1 dims
// skipped; a stride may match the product with or without max(size, 1).
bool contiguous_sizes_strides(std::span<const SymInt> sizes, std::span<const SymInt> strides, ShapeEnv& env,
                              Decide how, const char* rule) {
  SymInt expected = 1;
  SymInt expected_max = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (is_size_one(sizes[i], env, how, rule)) continue;
    if (may_differ(strides[i], expected, env, how, rule) && may_differ(strides[i], expected_max, env, how, rule)) {
      return false;
    }
    expected_max = mul(expected_max, at_least_one(sizes[i], &env));
    expected = mul(expected, sizes[i]);
  }
  return true;
}

bool contiguous(const TensorMeta& t, ShapeEnv& env, Decide how) {
  if (has_few_elements(t.sizes, env, how, "is_contiguous")) return true;
  return contiguous_sizes_strides(t.sizes, t.strides, env, how, "is_contiguous");
}

// Channels-last order: C, then the spatial dims innermost first, then N.
std::span<const size_t> channels_last_order(int64_t rank) {
  static constexpr size_t k2d[] = {1, 3, 2, 0};
  static constexpr size_t k3d[] = {1, 4, 3, 2, 0};
  if (rank == 4) return k2d;
  if (rank == 5) return k3d;
  return {};
}

bool channels_last_contiguous(const TensorMeta& t, int64_t rank, ShapeEnv& env, Decide how) {
  if (t.dim() != rank) return false;
  SymInt expected = 1;
  for (size_t d : channels_last_order(rank)) {
    if (is_size_one(t.sizes[d], env, how, "is_channels_last_contiguous")) continue;
    if (may_differ(t.strides[d], expected, env, how, "is_channels_last_contiguous")) return false;
    expected = mul(expected, t.sizes[d]);
  }
  return true;
}

// Strides of a dense tensor whose dims, outermost first, are `physical` (a
// permutation of the logical dims).
SymShape dense_strides(std::span<const SymInt> sizes, std::span<const size_t> physical, const ShapeEnv* env) {
  SymShape strides(sizes.size());
  SymInt running = 1;
  for (size_t k = physical.size(); k-- > 0;) {
    strides[physical[k]] = running;
    running = mul(running, at_least_one(sizes[physical[k]], env));
  }
  return strides;
}

// The operand's strides seen through expand() to `out_shape`, as torch's
// elementwise refs broadcast their inputs first: a size-1 dim that grows gets
// stride 0, and so does a new leading dim, unless it has size 1.
SymShape expanded_strides(const TensorMeta& t, const SymShape& out_shape) {
  const size_t n = out_shape.size();
  const size_t r = t.sizes.size();
  if (r > n) throw Error("elementwise_output_strides: operand rank " + std::to_string(r) + " exceeds output rank " +
                         std::to_string(n));
  SymShape strides(n, SymInt(0));
  for (size_t i = n; i-- > 0;) {
    if (i < n - r) {
      const bool one = out_shape[i].is_static() && out_shape[i].value() == 1;
      strides[i] = one ? (i + 1 < n ? mul(strides[i + 1], out_shape[i + 1]) : SymInt(1)) : SymInt(0);
      continue;
    }
    const SymInt& size = t.sizes[i - (n - r)];
    const bool broadcast = !size.same(out_shape[i]) && size.is_static() && size.value() == 1;
    strides[i] = broadcast ? SymInt(0) : t.strides[i - (n - r)];
  }
  return strides;
}

// compute_elementwise_output_logical_to_physical_perm's comparison: +1 when
// dim a belongs inside dim b, -1 when outside, 0 when no tensor decides.
class DimOrder {
 public:
  DimOrder(std::span<const SymShape> strides, const SymShape& shape, ShapeEnv& env)
      : strides_(strides), shape_(shape), env_(env) {}

  int should_swap(size_t a, size_t b) {
    for (const SymShape& st : strides_) {
      const SymInt& stride_a = st[a];
      const SymInt& stride_b = st[b];
      if (known(rel(stride_a, Rel::Eq, 0)) || known(rel(stride_b, Rel::Eq, 0))) continue;
      if (known(rel(stride_a, Rel::Eq, stride_b))) {
        if (ge(shape_[b], shape_[a])) continue;
        return 1;
      }
      if (ge(stride_b, stride_a)) return -1;
      if (ge(stride_a, stride_b)) return 1;
    }
    return 0;
  }

 private:
  bool known(const SymBool& c) { return guard_or_false(env_, c, "elementwise_output_strides"); }
  // a >= b for non-negative a, b; divisibility counts as "bigger" for symbolic strides.
  bool ge(const SymInt& a, const SymInt& b) {
    if (known(rel(b, Rel::Eq, 0))) return true;
    if (known(rel(a, Rel::Eq, 0))) return false;
    if (known(rel(a, Rel::Ge, b))) return true;
    if (a.is_static() && b.is_static()) return false;  // a % b != 0 follows from 0 <= a < b
    return known(rel(mod(a, b), Rel::Eq, 0));
  }

  std::span<const SymShape> strides_;
  const SymShape& shape_;
  ShapeEnv& env_;
};

// compute_elementwise_output_logical_to_physical_perm: the physical order
// (outermost first) of an elementwise result over operands of `shape` with
// these (expanded) strides.
std::vector<size_t> logical_to_physical_order(std::span<const SymShape> strides, const SymShape& shape,
                                              ShapeEnv& env) {
  const size_t n = shape.size();
  std::vector<size_t> perm(n);
  if (n <= 1 || strides.empty()) {
    std::iota(perm.begin(), perm.end(), size_t{0});
    return perm;
  }
  // Unambiguously contiguous or channels-last operands need no sorting (nor its guards).
  bool all_contiguous = true;
  bool all_channels_last = true;
  for (const SymShape& st : strides) {
    TensorMeta t;
    t.sizes = shape;
    t.strides = st;
    all_contiguous = all_contiguous && contiguous(t, env, Decide::OrFalse);
    all_channels_last = all_channels_last && channels_last_contiguous(t, 4, env, Decide::OrFalse);
  }
  if (all_contiguous != all_channels_last) {
    if (all_contiguous) {
      std::iota(perm.begin(), perm.end(), size_t{0});
    } else {
      const std::span<const size_t> inner_first = channels_last_order(4);
      std::copy(inner_first.rbegin(), inner_first.rend(), perm.begin());
    }
    return perm;
  }
  // Insertion sort of the back-to-front order [n-1, ..., 0]; ties keep their place.
  for (size_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  DimOrder order(strides, shape, env);
  for (size_t i = 1; i < n; ++i) {
    size_t dim1 = i;
    for (size_t dim0 = i; dim0-- > 0;) {
      const int c = order.should_swap(perm[dim0], perm[dim1]);
      if (c > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
  std::reverse(perm.begin(), perm.end());
  return perm;
}

// The operands that take part in stride computation: CPU zero-dim tensors do not.
std::vector<const TensorMeta*> strided_operands(std::span<const TensorMeta* const> operands) {
  std::vector<const TensorMeta*> tensors;
  for (const TensorMeta* t : operands) {
    if (t != nullptr && !(t->dim() == 0 && t->device.is_cpu())) tensors.push_back(t);
  }
  return tensors;
}

std::vector<size_t> identity_order(size_t n) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  return order;
}

std::string size_text(const SymInt& s) { return s.is_static() ? std::to_string(s.value()) : s.to_python(); }

bool same_sizes(std::span<const SymInt> a, std::span<const SymInt> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const SymInt& x, const SymInt& y) { return x.same(y); });
}

}  // namespace

std::string_view memory_format_name(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return "torch.contiguous_format";
    case MemoryFormat::ChannelsLast: return "torch.channels_last";
    case MemoryFormat::ChannelsLast3d: return "torch.channels_last_3d";
    case MemoryFormat::Preserve: return "torch.preserve_format";
  }
  return "torch.contiguous_format";
}

SymInt TensorMeta::numel() const { return product(sizes); }

SymShape contiguous_strides(std::span<const SymInt> sizes, const ShapeEnv* env) {
  return dense_strides(sizes, identity_order(sizes.size()), env);
}

SymShape channels_last_strides(std::span<const SymInt> sizes, const ShapeEnv* /*env*/) {
  const std::span<const size_t> order = channels_last_order(static_cast<int64_t>(sizes.size()));
  if (order.empty()) {
    throw OpError(ErrorKind::InvalidMemoryFormat,
                  "no channels last format strides exist in " + std::to_string(sizes.size()) + " dimensions");
  }
  // Unlike contiguous strides, PyTorch multiplies by the plain sizes here.
  SymShape strides(sizes.size());
  SymInt running = 1;
  for (size_t d : order) {
    strides[d] = running;
    running = mul(running, sizes[d]);
  }
  return strides;
}

SymShape strides_for(std::span<const SymInt> sizes, MemoryFormat format, const ShapeEnv* env) {
  switch (format) {
    case MemoryFormat::Contiguous: return contiguous_strides(sizes, env);
    case MemoryFormat::ChannelsLast:
      if (sizes.size() != 4)
        throw OpError(ErrorKind::InvalidMemoryFormat, "required rank 4 tensor to use channels_last format");
      return channels_last_strides(sizes, env);
    case MemoryFormat::ChannelsLast3d:
      if (sizes.size() != 5) {
        throw OpError(ErrorKind::InvalidMemoryFormat, "required rank 5 tensor to use channels_last_3d format");
      }
      return channels_last_strides(sizes, env);
    case MemoryFormat::Preserve: break;
  }
  throw Error("strides_for: torch.preserve_format needs a tensor to preserve (use strides_like)");
}

bool is_contiguous(const TensorMeta& t, ShapeEnv& env) { return contiguous(t, env, Decide::SizeOblivious); }
bool is_contiguous_or_false(const TensorMeta& t, ShapeEnv& env) { return contiguous(t, env, Decide::OrFalse); }

bool is_channels_last_contiguous(const TensorMeta& t, ShapeEnv& env) {
  return channels_last_contiguous(t, 4, env, Decide::SizeOblivious) ||
         channels_last_contiguous(t, 5, env, Decide::SizeOblivious);
}

std::optional<MemoryFormat> traced_memory_format(const TensorMeta& t, ShapeEnv& env) {
  if (contiguous(t, env, Decide::OrFalse)) return MemoryFormat::Contiguous;
  if (channels_last_contiguous(t, 4, env, Decide::OrFalse)) return MemoryFormat::ChannelsLast;
  if (channels_last_contiguous(t, 5, env, Decide::OrFalse)) return MemoryFormat::ChannelsLast3d;
  return std::nullopt;
}

bool is_non_overlapping_and_dense(const TensorMeta& t, ShapeEnv& env) {
  constexpr const char* kRule = "is_non_overlapping_and_dense";
  if (has_few_elements(t.sizes, env, Decide::SizeOblivious, kRule)) return true;
  // As c10's symbolic shape meta: layouts known contiguous need no sorting (nor its guards).
  if (contiguous(t, env, Decide::Static) || channels_last_contiguous(t, 4, env, Decide::Static) ||
      channels_last_contiguous(t, 5, env, Decide::Static)) {
    return true;
  }
  if (t.dim() == 1) return guard_or_false(env, rel(t.strides[0], Rel::Eq, 1), kRule);
  // Some ordering of the dims (by stride) must be contiguous.
  std::vector<size_t> dims;
  for (size_t d = 0; d < t.sizes.size(); ++d) {
    if (!is_size_one(t.sizes[d], env, Decide::SizeOblivious, kRule)) dims.push_back(d);
  }
  // Sorted by stride; a stride dividing a bigger one sorts first even when
  // ranges cannot order them (u0 before 2048*u0).
  auto stride_less = [&](size_t a, size_t b) {
    const SymInt& x = t.strides[a];
    const SymInt& y = t.strides[b];
    if (guard_or_false(env, rel(x, Rel::Lt, y), kRule)) return true;
    if (x.is_static() && y.is_static()) return false;
    const bool divides =
        guard_or_false(env, rel(x, Rel::Eq, 0), kRule) || guard_or_false(env, rel(mod(y, x), Rel::Eq, 0), kRule);
    return divides && guard_or_true(env, rel(x, Rel::Ne, y), kRule);
  };
  // Insertion sort: stable, and it never compares more pairs than it must.
  for (size_t i = 1; i < dims.size(); ++i) {
    for (size_t j = i; j > 0 && stride_less(dims[j], dims[j - 1]); --j) std::swap(dims[j], dims[j - 1]);
  }
  SymShape sizes;
  SymShape strides;
  for (size_t k = dims.size(); k-- > 0;) {
    sizes.push_back(t.sizes[dims[k]]);
    strides.push_back(t.strides[dims[k]]);
  }
  return contiguous_sizes_strides(sizes, strides, env, Decide::SizeOblivious, kRule);
}

bool is_non_overlapping_and_dense_or_false(const TensorMeta& t, ShapeEnv& env) {
  constexpr const char* kRule = "is_non_overlapping_and_dense_or_false";
  if (has_few_elements(t.sizes, env, Decide::OrFalse, kRule)) return true;
  if (t.dim() == 1) return guard_or_false(env, rel(t.strides[0], Rel::Eq, 1), kRule);
  // Dims by stride, largest first (a stable sort, as Python's sorted).
  std::vector<size_t> dims(t.sizes.size());
  std::iota(dims.begin(), dims.end(), 0);
  for (size_t i = 1; i < dims.size(); ++i)
    for (size_t j = i; j > 0 && guard_or_false(env, rel(t.strides[dims[j]], Rel::Lt, t.strides[dims[j - 1]]), kRule); --j)
      std::swap(dims[j], dims[j - 1]);
  SymShape sizes, strides;
  for (size_t k = dims.size(); k-- > 0;) {
    sizes.push_back(t.sizes[dims[k]]);
    strides.push_back(t.strides[dims[k]]);
  }
  return contiguous_sizes_strides(sizes, strides, env, Decide::OrFalse, kRule);
}

MemoryFormat suggest_memory_format(const TensorMeta& t, ShapeEnv& env) {
  constexpr const char* kRule = "suggest_memory_format";
  const std::span<const size_t> order = channels_last_order(t.dim());
  if (order.empty()) return MemoryFormat::Contiguous;
  // are_strides_like_channels_last_or_false
  const SymShape& size = t.sizes;
  const SymShape& stride = t.strides;
  if (guard_or_true(env, rel(stride[1], Rel::Eq, 0), kRule)) return MemoryFormat::Contiguous;
  SymInt min = 0;
  for (size_t d : order) {
    if (guard_or_true(env, rel(size[d], Rel::Eq, 0), kRule)) return MemoryFormat::Contiguous;
    if (guard_or_true(env, rel(stride[d], Rel::Lt, min), kRule)) return MemoryFormat::Contiguous;
    // N111-like ambiguity falls back to contiguous.
    if (d == 0 && guard_or_false(env, rel(min, Rel::Eq, stride[1]), kRule)) return MemoryFormat::Contiguous;
    min = mul(stride[d], size[d]);
  }
  return t.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
}

SymShape elementwise_permuted_strides(std::span<const TensorMeta* const> operands, const SymShape& out_shape,
                                      ShapeEnv& env) {
  const size_t n = out_shape.size();
  if (n == 0) return {};
  const std::vector<const TensorMeta*> tensors = strided_operands(operands);
  if (tensors.empty() || n == 1) return contiguous_strides(out_shape, &env);
  std::vector<SymShape> strides;
  strides.reserve(tensors.size());
  for (const TensorMeta* t : tensors) strides.push_back(expanded_strides(*t, out_shape));
  return dense_strides(out_shape, logical_to_physical_order(strides, out_shape, env), &env);
}

SymShape elementwise_output_strides(std::span<const TensorMeta* const> operands, const SymShape& out_shape,
                                    ShapeEnv& env) {
  const size_t n = out_shape.size();
  if (n == 0) return {};
  const std::vector<const TensorMeta*> tensors = strided_operands(operands);
  // Each operand in its own shape: all contiguous wins first, then all
  // channels-last (the layout checks the FX decomposition rules guard on).
  auto all_of = [&](auto pred) { return std::all_of(tensors.begin(), tensors.end(), pred); };
  if (!tensors.empty() && all_of([&](const TensorMeta* t) { return contiguous(*t, env, Decide::OrFalse); }))
    return contiguous_strides(out_shape, &env);
  if (!tensors.empty() && n == 4 &&
      all_of([&](const TensorMeta* t) { return channels_last_contiguous(*t, 4, env, Decide::OrFalse); }))
    return channels_last_strides(out_shape, &env);
  if (tensors.size() == 1 && n > 1) {
    // A lone non-overlapping, dense operand keeps its strides.
    TensorMeta expanded;
    expanded.sizes = out_shape;
    expanded.strides = expanded_strides(*tensors[0], out_shape);
    if (is_non_overlapping_and_dense(expanded, env)) return expanded.strides;
  }
  return elementwise_permuted_strides(operands, out_shape, env);
}

std::optional<SymShape> fast_binary_strides(std::span<const TensorMeta* const> operands, const SymShape& out_shape,
                                            ShapeEnv& env) {
  // Some operand must already have the broadcast shape.
  const bool one_full = std::any_of(operands.begin(), operands.end(), [&](const TensorMeta* t) {
    if (t == nullptr || t->sizes.size() != out_shape.size()) return false;
    for (size_t i = 0; i < out_shape.size(); ++i)
      if (!guard_or_false(env, rel(t->sizes[i], Rel::Eq, out_shape[i]), "fast_binary_impl")) return false;
    return true;
  });
  if (!one_full) return std::nullopt;
  // Each operand in its own shape: all contiguous wins first, then all channels-last.
  auto all_of = [&](auto pred) {
    return std::all_of(operands.begin(), operands.end(), [&](const TensorMeta* t) { return t == nullptr || pred(*t); });
  };
  if (all_of([&](const TensorMeta& t) { return contiguous(t, env, Decide::OrFalse); }))
    return contiguous_strides(out_shape, &env);
  if (all_of([&](const TensorMeta& t) { return channels_last_contiguous(t, 4, env, Decide::OrFalse); }))
    return strides_for(out_shape, MemoryFormat::ChannelsLast, &env);
  return std::nullopt;
}

SymShape strides_like(const TensorMeta& like, std::span<const SymInt> sizes, ShapeEnv& env) {
  if (like.sizes.size() != sizes.size()) return contiguous_strides(sizes, &env);
  // C++ empty_like: a dense input's strides are kept as they are; any other
  // strided input gets dense strides in the order of its own strides.
  if (is_non_overlapping_and_dense(like, env) && same_sizes(like.sizes, sizes)) return like.strides;
  const SymShape strides[] = {like.strides};
  return dense_strides(sizes, logical_to_physical_order(strides, like.sizes, env), &env);
}

SymShape empty_like_strides(const TensorMeta& like, ShapeEnv& env) {
  const SymShape strides[] = {like.strides};
  return dense_strides(like.sizes, logical_to_physical_order(strides, like.sizes, env), &env);
}

SymShape broadcast_shapes(const SymShape& a, const SymShape& b, ShapeEnv& env) {
  constexpr const char* kRule = "broadcast_shapes";
  const size_t n = std::max(a.size(), b.size());
  SymShape out(n);
  for (size_t k = 0; k < n; ++k) {  // k counts from the last dim
    const size_t i = n - 1 - k;
    const SymInt size_a = k < a.size() ? a[a.size() - 1 - k] : SymInt(1);
    const SymInt size_b = k < b.size() ? b[b.size() - 1 - k] : SymInt(1);
    // Broadcasting is tested first, as current PyTorch's infer_size does with
    // guard_or_false: a size that may or may not be 1 without a hint (e.g.
    // (w - 1)//4 + 1 of a hintless w) is taken as not 1, and only then
    // equality becomes a check (a runtime assert unless statically known).
    if (guard_or_false(env, rel(size_a, Rel::Eq, 1), kRule)) {
      out[i] = size_b;
      continue;
    }
    out[i] = size_a;
    if (guard_or_false(env, rel(size_b, Rel::Eq, 1), kRule)) continue;
    const SymBool equal = rel(size_a, Rel::Eq, size_b);
    const bool ok = equal.is_static() ? equal.value() : env.expect_true(equal, kRule);
    if (!ok) {
      throw OpError(ErrorKind::ShapeMismatch, "The size of tensor a (" + size_text(size_a) +
                                                  ") must match the size of tensor b (" + size_text(size_b) +
                                                  ") at non-singleton dimension " + std::to_string(i));
    }
  }
  return out;
}

SymShape ref_broadcast_shapes(std::span<const SymShape> shapes, ShapeEnv& env) {
  constexpr const char* kRule = "_broadcast_shapes";
  size_t n = 0;
  for (const SymShape& shape : shapes) n = std::max(n, shape.size());
  SymShape common(n, SymInt(1));
  for (const SymShape& shape : shapes) {
    for (size_t k = 0; k < shape.size(); ++k) {  // k counts from the last dim
      const size_t i = n - 1 - k;
      const SymInt& size = shape[shape.size() - 1 - k];
      if (guard_or_false(env, rel(size, Rel::Eq, common[i]), kRule)) continue;
      if (guard_or_false(env, rel(common[i], Rel::Eq, 1), kRule)) common[i] = size;
      if (guard_or_false(env, rel(size, Rel::Eq, 1), kRule)) continue;
      const SymBool equal = rel(common[i], Rel::Eq, size);
      const bool ok = equal.is_static() ? equal.value() : env.expect_true(equal, kRule);
      if (!ok) {
        throw OpError(ErrorKind::ShapeMismatch, "The size of tensor a (" + size_text(common[i]) +
                                                    ") must match the size of tensor b (" + size_text(size) +
                                                    ") at non-singleton dimension " + std::to_string(i));
      }
    }
  }
  return common;
}

SymShape ref_elementwise_shape(std::span<const SymShape> shapes, const std::vector<bool>& cpu_scalar, ShapeEnv& env) {
  constexpr const char* kRule = "_maybe_broadcast";
  SymShape common = ref_broadcast_shapes(shapes, env);
  for (size_t t = 0; t < shapes.size(); ++t) {
    if (t < cpu_scalar.size() && cpu_scalar[t]) continue;
    const SymShape& shape = shapes[t];
    if (shape.size() != common.size()) return common;
    for (size_t i = 0; i < shape.size(); ++i) {  // should_expand(shape, common)
      if (guard_or_false(env, rel(shape[i], Rel::Ne, common[i]), kRule)) return common;
      if (guard_or_false(env, sym_and(rel(shape[i], Rel::Eq, 1), rel(common[i], Rel::Eq, 1)), kRule)) continue;
      if (guard_or_false(env, sym_or(rel(shape[i], Rel::Eq, 1), rel(common[i], Rel::Eq, 1)), kRule)) return common;
    }
    return shape;
  }
  return common;  // only CPU scalars: their shape, []
}

SymShape broadcast_shapes(std::span<const SymShape> shapes, ShapeEnv& env) {
  SymShape out;
  for (const SymShape& shape : shapes) out = broadcast_shapes(out, shape, env);
  return out;
}

int64_t canonical_dim(int64_t dim, int64_t rank, bool wrap_scalar) {
  if (rank < 0) throw OpError(ErrorKind::IndexError, "Rank cannot be negative but got " + std::to_string(rank));
  if (rank == 0) {
    if (!wrap_scalar) {
      throw OpError(ErrorKind::IndexError, "Dimension specified as " + std::to_string(dim) +
                                               " but tensor has no dimensions");
    }
    rank = 1;
  }
  // -rank <= dim < rank, written so that no extreme `dim` can overflow.
  if (dim < -rank || dim >= rank) {
    throw OpError(ErrorKind::IndexError, "Dimension out of range (expected to be in range of [" +
                                             std::to_string(-rank) + ", " + std::to_string(rank - 1) + "], but got " +
                                             std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + rank : dim;
}

Device common_device(std::span<const TensorMeta* const> operands, const std::string& op) {
  std::optional<Device> common;
  bool common_is_cpu_scalar = false;
  for (const TensorMeta* t : operands) {
    if (t == nullptr) continue;
    const bool cpu_scalar = t->device.is_cpu() && t->dim() == 0;
    if (!common) {
      common = t->device;
      common_is_cpu_scalar = cpu_scalar;
      continue;
    }
    if (t->device == *common) {
      common_is_cpu_scalar = common_is_cpu_scalar && cpu_scalar;
      continue;
    }
    if (cpu_scalar) continue;  // a CPU scalar tensor yields to the other device
    if (common_is_cpu_scalar) {
      common = t->device;
      common_is_cpu_scalar = false;
      continue;
    }
    (void)op;  // FakeTensorDeviceMismatchError does not name the op
    throw OpError(ErrorKind::DeviceMismatch, "Expected all tensors to be on the same device, but found at least two "
                                             "devices, " + common->str() + " and " + t->device.str() + "!");
  }
  // Only Python numbers: the result lives on the CPU.
  return common.value_or(Device::cpu());
}

std::string shape_to_string(std::span<const SymInt> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += size_text(shape[i]);
  }
  out += "]";
  return out;
}

}  // namespace fakeprop
