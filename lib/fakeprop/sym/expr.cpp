// Interned integer/float/boolean expressions: builders with canonical
// simplification, queries, and the sympy-style / Python-style printers.
#include "fakeprop/sym/expr.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "fakeprop/sym/expand.h"
#include "fakeprop/sym/python_float.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

using Term = Expr::Term;

Expr::Expr(ExprKind kind, int64_t value, std::string name, std::vector<Term> terms, std::vector<ExprRef> args)
    : kind_(kind),
      has_symbols_(kind == ExprKind::Symbol),
      value_(value),
      name_(std::move(name)),
      terms_(std::move(terms)),
      args_(std::move(args)) {
  for (const Term& t : terms_) has_symbols_ = has_symbols_ || t.first->has_symbols();
  for (ExprRef a : args_) has_symbols_ = has_symbols_ || a->has_symbols();
}

Expr::~Expr() {
  delete python_text_.load(std::memory_order_relaxed);
  delete free_symbols_.load(std::memory_order_relaxed);
}

const Expr::PrintedText* Expr::keep_python_text(PrintedText t) const {
  auto* mine = new PrintedText(std::move(t));
  const PrintedText* expected = nullptr;
  if (python_text_.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) return mine;
  delete mine;
  return expected;
}

const std::vector<ExprRef>* Expr::keep_free_symbols(std::vector<ExprRef> symbols) const {
  auto* mine = new std::vector<ExprRef>(std::move(symbols));
  const std::vector<ExprRef>* expected = nullptr;
  if (free_symbols_.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) return mine;
  delete mine;
  return expected;
}

double Expr::float_value() const { return std::bit_cast<double>(value_); }

// ---------------------------------------------------------------------------
// checked 64-bit arithmetic
// ---------------------------------------------------------------------------

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw OverflowError("integer overflow in " + std::to_string(a) + " + " + std::to_string(b));
  return r;
}

int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    throw OverflowError("integer overflow in " + std::to_string(a) + " - " + std::to_string(b));
  return r;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw OverflowError("integer overflow in " + std::to_string(a) + " * " + std::to_string(b));
  return r;
}

int64_t python_floordiv(int64_t a, int64_t b) {
  if (b == 0) throw Error("integer division by zero: " + std::to_string(a) + " // 0");
  if (b == -1) return checked_sub(0, a);  // INT64_MIN // -1 overflows
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t python_mod(int64_t a, int64_t b) {
  if (b == 0) throw Error("integer modulo by zero: " + std::to_string(a) + " % 0");
  if (b == -1) return 0;  // INT64_MIN % -1 is UB in C++
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

namespace {

int64_t checked_pow(int64_t base, int64_t exponent) {
  int64_t result = 1;
  for (int64_t i = 0; i < exponent; ++i) {
    result = checked_mul(result, base);
    // 0, 1 and -1 stay bounded; anything else overflows within 64 steps.
    if (result == 0) return 0;
    if ((base == 1 || base == -1) && i >= 1) return (exponent % 2 == 0) ? base * base : base;
  }
  return result;
}

// ceil(a / b) with Python semantics.
int64_t python_ceildiv(int64_t a, int64_t b) {
  int64_t q = python_floordiv(a, b);
  return python_mod(a, b) != 0 ? q + 1 : q;  // |q| < 2^62 when there is a remainder
}

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// ---------------------------------------------------------------------------
// interning
// ---------------------------------------------------------------------------

uint64_t mix(uint64_t h, uint64_t v) {
  v *= 0xbf58476d1ce4e5b9ULL;
  v ^= v >> 31;
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

size_t node_hash(ExprKind kind, int64_t value, std::string_view name, std::span<const Term> terms,
                 std::span<const ExprRef> args) {
  uint64_t h = 0x100000001b3ULL * (static_cast<uint64_t>(kind) + 1);
  h = mix(h, static_cast<uint64_t>(value));
  if (!name.empty()) h = mix(h, std::hash<std::string_view>{}(name));
  for (const auto& [e, c] : terms) {
    h = mix(h, e->id());
    h = mix(h, static_cast<uint64_t>(c));
  }
  for (ExprRef a : args) h = mix(h, a->id());
  return static_cast<size_t>(h);
}

bool node_equals(const Expr& n, ExprKind kind, int64_t value, std::string_view name, std::span<const Term> terms,
                 std::span<const ExprRef> args) {
  return n.kind() == kind && n.value() == value && n.name() == name &&
         std::equal(n.terms().begin(), n.terms().end(), terms.begin(), terms.end()) &&
         std::equal(n.args().begin(), n.args().end(), args.begin(), args.end());
}

// Sharded by hash, each shard with its own lock: `fakeprop check -j` interns
// from every worker, and one table-wide mutex serialized them.
class Interner {
 public:
  static constexpr uint64_t kFreshId = UINT64_MAX;

  // `id`: a number reserve_ids handed out, or kFreshId for the next one.
  ExprRef intern(ExprKind kind, int64_t value, std::string_view name, std::span<const Term> terms,
                 std::span<const ExprRef> args, uint64_t id = kFreshId) {
    const size_t h = node_hash(kind, value, name, terms, args);
    Shard& shard = shards_[(h >> 7) % kShards];
    std::lock_guard<std::mutex> lock(shard.mu);
    auto [first, last] = shard.table.equal_range(h);
    for (auto it = first; it != last; ++it)
      if (node_equals(*it->second, kind, value, name, terms, args)) return it->second;
    auto* node = new Expr(kind, value, std::string(name), std::vector<Term>(terms.begin(), terms.end()),
                          std::vector<ExprRef>(args.begin(), args.end()));
    node->set_identity(h, id != kFreshId ? id : next_id_.fetch_add(1, std::memory_order_relaxed));
    shard.table.emplace(h, node);
    return node;
  }
  // The first of `n` consecutive ids, for nodes created later in that order.
  uint64_t reserve_ids(uint64_t n) { return next_id_.fetch_add(n, std::memory_order_relaxed); }
  size_t size() {
    size_t n = 0;
    for (Shard& shard : shards_) {
      std::lock_guard<std::mutex> lock(shard.mu);
      n += shard.table.size();
    }
    return n;
  }

 private:
  static constexpr size_t kShards = 32;
  struct Shard {
    std::mutex mu;
    std::unordered_multimap<size_t, Expr*> table;
  };
  std::array<Shard, kShards> shards_;
  std::atomic<uint64_t> next_id_{0};
};

// Never destroyed: expressions are referenced until the process exits.
Interner& interner() {
  static Interner* table = new Interner();
  return *table;
}

ExprRef make_node(ExprKind kind, int64_t value, std::string_view name, std::span<const Term> terms,
                  std::span<const ExprRef> args) {
  return interner().intern(kind, value, name, terms, args);
}

ExprRef make_node(ExprKind kind, std::span<const ExprRef> args) { return make_node(kind, 0, {}, {}, args); }

ExprRef make_node(ExprKind kind, int64_t value, std::span<const Term> terms) {
  return make_node(kind, value, {}, terms, {});
}

constexpr int64_t kSmallIntLo = -256;
constexpr int64_t kSmallIntHi = 1024;

// Small constants are looked up by value, not hashed. Their ids are reserved
// together on first use, so canonical order (by id) is the same whichever of
// them a run creates, but a node is only built when first asked for: most
// runs use few of them, and every run would pay for building them all.
struct SmallIntegers {
  static constexpr size_t kCount = static_cast<size_t>(kSmallIntHi - kSmallIntLo + 1);
  uint64_t first_id = 0;
  std::array<std::atomic<ExprRef>, kCount> nodes{};
};

SmallIntegers& small_integers() {
  static SmallIntegers* table = [] {
    auto* t = new SmallIntegers();
    t->first_id = interner().reserve_ids(SmallIntegers::kCount);
    return t;
  }();
  return *table;
}

ExprRef small_integer(int64_t v) {
  SmallIntegers& t = small_integers();
  const auto i = static_cast<size_t>(v - kSmallIntLo);
  ExprRef e = t.nodes[i].load(std::memory_order_acquire);
  if (!e) {
    // Racing threads get the same node from the interner.
    e = interner().intern(ExprKind::Integer, v, {}, {}, {}, t.first_id + i);
    t.nodes[i].store(e, std::memory_order_release);
  }
  return e;
}

bool ref_by_id(ExprRef a, ExprRef b) { return a->id() < b->id(); }

const char* kind_name(ExprKind k) {
  switch (k) {
    case ExprKind::Integer: return "Integer";
    case ExprKind::Symbol: return "Symbol";
    case ExprKind::Add: return "Add";
    case ExprKind::Mul: return "Mul";
    case ExprKind::FloorDiv: return "FloorDiv";
    case ExprKind::Mod: return "Mod";
    case ExprKind::CeilDiv: return "CeilDiv";
    case ExprKind::Max: return "Max";
    case ExprKind::Min: return "Min";
    case ExprKind::FloatConst: return "FloatConst";
    case ExprKind::ToFloat: return "ToFloat";
    case ExprKind::FloatAdd: return "FloatAdd";
    case ExprKind::FloatMul: return "FloatMul";
    case ExprKind::FloatTrueDiv: return "FloatTrueDiv";
    case ExprKind::IntTrueDiv: return "IntTrueDiv";
    case ExprKind::FloatPow: return "FloatPow";
    case ExprKind::FloatSqrt: return "FloatSqrt";
    case ExprKind::ToFloat32: return "ToFloat32";
    case ExprKind::FloatMax: return "FloatMax";
    case ExprKind::FloatMin: return "FloatMin";
    case ExprKind::FloorToInt: return "FloorToInt";
    case ExprKind::CeilToInt: return "CeilToInt";
    case ExprKind::TruncToInt: return "TruncToInt";
    case ExprKind::RoundToInt: return "RoundToInt";
    case ExprKind::BoolConst: return "BoolConst";
    case ExprKind::Eq: return "Eq";
    case ExprKind::Ne: return "Ne";
    case ExprKind::Lt: return "Lt";
    case ExprKind::Le: return "Le";
    case ExprKind::Gt: return "Gt";
    case ExprKind::Ge: return "Ge";
    case ExprKind::And: return "And";
    case ExprKind::Or: return "Or";
    case ExprKind::Not: return "Not";
  }
  return "?";
}

// The function name the sympy printer writes: PyTorch's, where it has one.
const char* sympy_function_name(ExprKind k) {
  return k == ExprKind::FloatSqrt ? "OpaqueUnaryFn_sqrt" : kind_name(k);
}

void require_int(ExprRef e, const char* op) {
  if (e == nullptr) throw Error(std::string(op) + ": null expression");
  if (e->is_bool()) throw Error(std::string(op) + ": expected an integer expression, got a boolean");
  if (e->is_float()) throw Error(std::string(op) + ": expected an integer expression, got a float");
}

// An operand of a float operation: a float as it is, an integer through ToFloat.
ExprRef float_operand(ExprRef e, const char* op);

void require_bool(ExprRef e, const char* op) {
  if (e == nullptr) throw Error(std::string(op) + ": null expression");
  if (!e->is_bool())
    throw Error(std::string(op) + ": expected a boolean expression, got " + (e->is_float() ? "a float" : "an integer"));
}

// ---------------------------------------------------------------------------
// linear forms (constant + sum coeff*term) and products (coeff * prod base^exp)
// ---------------------------------------------------------------------------

struct Linear {
  int64_t constant = 0;
  std::vector<Term> terms;  // sorted by id, coefficients nonzero
};

// A Mul with coefficient 1 and the same bases (the term a Mul contributes to an Add).
ExprRef unit_of_mul(ExprRef m) {
  auto f = m->terms();
  if (f.size() == 1 && f[0].second == 1) return f[0].first;
  return make_node(ExprKind::Mul, 1, f);
}

Linear linear_of(ExprRef e) {
  switch (e->kind()) {
    case ExprKind::Integer: return {e->value(), {}};
    case ExprKind::Add: return {e->value(), std::vector<Term>(e->terms().begin(), e->terms().end())};
    case ExprKind::Mul:
      if (e->value() != 1) return {0, {{unit_of_mul(e), e->value()}}};
      return {0, {{e, 1}}};
    default: return {0, {{e, 1}}};
  }
}

// c * t for a term t (never Integer/Add; a Mul term has coefficient 1).
ExprRef scale_term(ExprRef t, int64_t c) {
  if (c == 1) return t;
  if (t->kind() == ExprKind::Mul) return make_node(ExprKind::Mul, c, t->terms());
  Term f{t, 1};
  return make_node(ExprKind::Mul, c, std::span<const Term>(&f, 1));
}

ExprRef from_linear(int64_t constant, const std::vector<Term>& terms) {
  if (terms.empty()) return integer(constant);
  if (constant == 0 && terms.size() == 1) return scale_term(terms[0].first, terms[0].second);
  return make_node(ExprKind::Add, constant, terms);
}

ExprRef from_linear(const Linear& l) { return from_linear(l.constant, l.terms); }

// Merge two id-sorted term lists, adding coefficients of equal terms (checked).
std::vector<Term> merge_terms(std::span<const Term> a, std::span<const Term> b) {
  std::vector<Term> out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first->id() < b[j].first->id())) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].first->id() < a[i].first->id()) {
      out.push_back(b[j++]);
    } else {
      int64_t c = checked_add(a[i].second, b[j].second);
      if (c != 0) out.emplace_back(a[i].first, c);
      ++i;
      ++j;
    }
  }
  return out;
}

// e * c for an integer c.
ExprRef scale(ExprRef e, int64_t c) {
  if (c == 1) return e;
  if (c == 0) return integer(0);
  switch (e->kind()) {
    case ExprKind::Integer: return integer(checked_mul(e->value(), c));
    case ExprKind::Add: {
      std::vector<Term> terms(e->terms().begin(), e->terms().end());
      for (auto& t : terms) t.second = checked_mul(t.second, c);
      return from_linear(checked_mul(e->value(), c), terms);
    }
    case ExprKind::Mul: {
      int64_t coeff = checked_mul(e->value(), c);
      auto f = e->terms();
      if (coeff == 1 && f.size() == 1 && f[0].second == 1) return f[0].first;
      return make_node(ExprKind::Mul, coeff, f);
    }
    default: return scale_term(e, c);
  }
}

struct Product {
  int64_t coeff = 1;
  std::vector<Term> factors;  // (base, exponent) sorted by id
};

Product product_of(ExprRef e) {
  if (e->kind() == ExprKind::Mul) return {e->value(), std::vector<Term>(e->terms().begin(), e->terms().end())};
  return {1, {{e, 1}}};
}

ExprRef from_product(int64_t coeff, const std::vector<Term>& factors) {
  if (coeff == 0) return integer(0);
  if (factors.empty()) return integer(coeff);
  if (factors.size() == 1 && factors[0].second == 1) {
    ExprRef base = factors[0].first;
    if (coeff == 1) return base;
    if (base->kind() == ExprKind::Add) return scale(base, coeff);  // 2*(s0 + 1) -> 2*s0 + 2
  }
  return make_node(ExprKind::Mul, coeff, factors);
}

// Compare a and b when a - b is a constant: returns sign(a - b), else nullopt.
std::optional<int> constant_difference_sign(ExprRef a, ExprRef b) {
  if (a == b) return 0;
  if (a->is_integer() && b->is_integer()) return (a->value() > b->value()) - (a->value() < b->value());
  if (a->is_integer() != b->is_integer()) return std::nullopt;
  Linear la = linear_of(a), lb = linear_of(b);
  if (la.terms != lb.terms) return std::nullopt;
  return (la.constant > lb.constant) - (la.constant < lb.constant);
}

bool negatives(int64_t x, int64_t y) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  return x != kMin && y != kMin && x == -y;
}

// True when a == -b structurally.
bool is_negation(ExprRef a, ExprRef b) {
  Linear la = linear_of(a), lb = linear_of(b);
  if (la.terms.size() != lb.terms.size() || !negatives(la.constant, lb.constant)) return false;
  for (size_t i = 0; i < la.terms.size(); ++i) {
    if (la.terms[i].first != lb.terms[i].first || !negatives(la.terms[i].second, lb.terms[i].second)) return false;
  }
  return true;
}

std::optional<int64_t> positive_integer(ExprRef e) {
  if (e->is_integer() && e->value() > 0) return e->value();
  return std::nullopt;
}

// Split a into c*Q + R: Q collects the terms whose coefficient is divisible by
// c, and the constant when it is divisible by c (PyTorch's FloorDiv rule).
bool split_divisible(ExprRef a, int64_t c, Linear& quotient, Linear& rest) {
  Linear l = linear_of(a);
  bool moved = false;
  for (const auto& t : l.terms) {
    if (t.second % c == 0) {
      quotient.terms.emplace_back(t.first, t.second / c);
      moved = true;
    } else {
      rest.terms.push_back(t);
    }
  }
  if (l.constant != 0 && l.constant % c == 0) {
    quotient.constant = l.constant / c;
    moved = true;
  } else {
    rest.constant = l.constant;
  }
  return moved;
}

namespace {

// The results of add, mul and the relations on two expressions by their
// operands: symbolic rules build the same sums, products and comparisons for
// every layer of a model. A small
// direct-mapped table per thread and operation; expressions are never freed,
// so a slot's pointers stay valid, and a result is what recomputing gives.
template <int Operation>
class BinaryMemo {
 public:
  template <typename Compute>
  static ExprRef get(ExprRef a, ExprRef b, Compute compute) {
    thread_local std::array<Slot, kSlots> slots{};
    Slot& slot = slots[(a->id() * 0x9E3779B97F4A7C15ull ^ b->id()) % kSlots];
    if (slot.a == a && slot.b == b) return slot.result;
    ExprRef r = compute();
    slot = {a, b, r};
    return r;
  }

 private:
  static constexpr size_t kSlots = 2048;
  struct Slot {
    ExprRef a = nullptr, b = nullptr, result = nullptr;
  };
};

}  // namespace

// Relations over floats fold only between constants (and x OP x, sizes are
// never NaN); nothing is moved across the relation, which rounding forbids.
ExprRef float_relation(ExprKind kind, ExprRef a, ExprRef b) {
  a = float_operand(a, kind_name(kind));
  b = float_operand(b, kind_name(kind));
  auto x = as_float(a), y = as_float(b);
  if (x && y) {
    switch (kind) {
      case ExprKind::Eq: return bool_const(*x == *y);
      case ExprKind::Ne: return bool_const(*x != *y);
      case ExprKind::Lt: return bool_const(*x < *y);
      case ExprKind::Le: return bool_const(*x <= *y);
      case ExprKind::Gt: return bool_const(*x > *y);
      default: return bool_const(*x >= *y);
    }
  }
  if (a == b) return bool_const(kind == ExprKind::Eq || kind == ExprKind::Le || kind == ExprKind::Ge);
  if (kind == ExprKind::Eq || kind == ExprKind::Ne) {
    bool swap = (x.has_value() != y.has_value()) ? x.has_value() : a->id() > b->id();
    if (swap) std::swap(a, b);
  }
  std::array<ExprRef, 2> args{a, b};
  return make_node(kind, args);
}

ExprRef relation(ExprKind kind, ExprRef a, ExprRef b) {
  if ((a && a->is_float()) || (b && b->is_float())) return float_relation(kind, a, b);
  require_int(a, kind_name(kind));
  require_int(b, kind_name(kind));
  if (auto s = constant_difference_sign(a, b)) {
    switch (kind) {
      case ExprKind::Eq: return bool_const(*s == 0);
      case ExprKind::Ne: return bool_const(*s != 0);
      case ExprKind::Lt: return bool_const(*s < 0);
      case ExprKind::Le: return bool_const(*s <= 0);
      case ExprKind::Gt: return bool_const(*s > 0);
      default: return bool_const(*s >= 0);
    }
  }
  if ((kind == ExprKind::Eq || kind == ExprKind::Ne) && (a->is_integer() || b->is_integer())) {
    // k*x == 0 holds exactly when x == 0 (k a nonzero integer): the k that
    // sympy's Mod.eval pulls out of a Mod goes, Eq(32*(Mod(s0, 2)), 0) is
    // Eq(Mod(s0, 2), 0). Other products keep theirs, as torch's guards do
    // (Ne(2*((s0//4)), 0)), and as its ShapeEnv decides them: with s0 % 4 == 0
    // known, Eq(4*((s0//4)), 0) is Eq(s0, 0).
    ExprRef side = a->is_integer() ? b : a;
    auto has_mod = [](ExprRef m) {
      for (const auto& [base, exp] : m->terms())
        if (base->kind() == ExprKind::Mod) return true;
      return false;
    };
    if ((a->is_integer() ? a : b)->value() == 0 && side->kind() == ExprKind::Mul && side->value() != 1 &&
        has_mod(side)) {
      auto f = side->terms();
      ExprRef unit = f.size() == 1 && f[0].second == 1 ? f[0].first : make_node(ExprKind::Mul, 1, f);
      return relation(kind, unit, integer(0));
    }
  }
  if (kind == ExprKind::Eq || kind == ExprKind::Ne) {
    // One node for Eq(8, s0) and Eq(s0, 8): the non-constant (else lower id) side first.
    bool swap = a->is_integer() != b->is_integer() ? a->is_integer() : a->id() > b->id();
    if (swap) std::swap(a, b);
  }
  std::array<ExprRef, 2> args{a, b};
  return make_node(kind, args);
}

// Max / Min and FloatMax / FloatMin: flattened, constants folded into one,
// deduplicated and sorted. `operand` checks (or converts) each argument;
// `constant` reads a constant operand's value and `make` builds one.
template <typename T, typename Operand, typename Constant, typename Make>
ExprRef fold_max_min(ExprKind kind, bool is_max, const char* op, std::span<const ExprRef> xs, Operand operand,
                     Constant constant, Make make) {
  if (xs.empty()) throw Error(std::string(op) + " of no arguments");
  std::vector<ExprRef> args;
  std::optional<T> folded;
  auto take = [&](ExprRef x) {
    if (std::optional<T> v = constant(x)) {
      folded = !folded ? *v : (is_max ? std::max(*folded, *v) : std::min(*folded, *v));
    } else {
      args.push_back(x);
    }
  };
  for (ExprRef x : xs) {
    x = operand(x, op);
    if (x->kind() == kind) {
      for (ExprRef y : x->args()) take(y);
    } else {
      take(x);
    }
  }
  if (folded) args.push_back(make(*folded));
  std::sort(args.begin(), args.end(), ref_by_id);
  args.erase(std::unique(args.begin(), args.end()), args.end());
  if (args.size() == 1) return args[0];
  return make_node(kind, args);
}

ExprRef max_min(ExprKind kind, std::span<const ExprRef> xs) {
  const bool is_max = kind == ExprKind::Max;
  return fold_max_min<int64_t>(
      kind, is_max, is_max ? "Max" : "Min", xs,
      [](ExprRef x, const char* op) {
        require_int(x, op);
        return x;
      },
      [](ExprRef x) { return as_integer(x); }, [](int64_t v) { return integer(v); });
}

ExprRef and_or(ExprKind kind, std::span<const ExprRef> xs) {
  const bool is_and = kind == ExprKind::And;
  const char* op = is_and ? "And" : "Or";
  std::vector<ExprRef> args;
  for (ExprRef x : xs) {
    require_bool(x, op);
    std::span<const ExprRef> parts = x->kind() == kind ? x->args() : std::span<const ExprRef>(&x, 1);
    for (ExprRef y : parts) {
      if (auto b = as_bool(y)) {
        if (*b != is_and) return bool_const(!is_and);  // absorbing element
        continue;                                       // identity element
      }
      args.push_back(y);
    }
  }
  std::sort(args.begin(), args.end(), ref_by_id);
  args.erase(std::unique(args.begin(), args.end()), args.end());
  if (args.empty()) return bool_const(is_and);
  if (args.size() == 1) return args[0];
  return make_node(kind, args);
}

}  // namespace

// ---------------------------------------------------------------------------
// builders
// ---------------------------------------------------------------------------

ExprRef integer(int64_t v) {
  if (v >= kSmallIntLo && v <= kSmallIntHi) return small_integer(v);
  return make_node(ExprKind::Integer, v, {}, {}, {});
}

ExprRef symbol(std::string_view name) {
  if (name.empty()) throw Error("symbol name must not be empty");
  return make_node(ExprKind::Symbol, 0, name, {}, {});
}

ExprRef bool_const(bool v) {
  static const ExprRef false_node = make_node(ExprKind::BoolConst, 0, {}, {}, {});
  static const ExprRef true_node = make_node(ExprKind::BoolConst, 1, {}, {}, {});
  return v ? true_node : false_node;
}

ExprRef true_expr() { return bool_const(true); }
ExprRef false_expr() { return bool_const(false); }


ExprRef add(ExprRef a, ExprRef b) {
  require_int(a, "add");
  require_int(b, "add");
  if (a->is_integer() && b->is_integer()) return integer(checked_add(a->value(), b->value()));
  if (b->is_integer() && b->value() == 0) return a;
  if (a->is_integer() && a->value() == 0) return b;
  return BinaryMemo<0>::get(a, b, [&] {
    Linear la = linear_of(a), lb = linear_of(b);
    return from_linear(checked_add(la.constant, lb.constant), merge_terms(la.terms, lb.terms));
  });
}

ExprRef sub(ExprRef a, ExprRef b) {
  require_int(b, "sub");
  return add(a, scale(b, -1));
}

ExprRef neg(ExprRef a) {
  require_int(a, "neg");
  return scale(a, -1);
}

ExprRef mul(ExprRef a, int64_t c) {
  require_int(a, "mul");
  return scale(a, c);
}

ExprRef mul(ExprRef a, ExprRef b) {
  require_int(a, "mul");
  require_int(b, "mul");
  if (a->is_integer()) return scale(b, a->value());
  if (b->is_integer()) return scale(a, b->value());
  return BinaryMemo<1>::get(a, b, [&] {
    Product pa = product_of(a), pb = product_of(b);
    return from_product(checked_mul(pa.coeff, pb.coeff), merge_terms(pa.factors, pb.factors));
  });
}

ExprRef pow(ExprRef a, int64_t exponent) {
  require_int(a, "pow");
  if (exponent < 0) throw Error("pow: negative exponent " + std::to_string(exponent));
  if (exponent == 0) return integer(1);
  if (exponent == 1) return a;
  if (a->is_integer()) return integer(checked_pow(a->value(), exponent));
  Product p = product_of(a);
  p.coeff = checked_pow(p.coeff, exponent);
  for (auto& f : p.factors) f.second = checked_mul(f.second, exponent);
  return from_product(p.coeff, p.factors);
}

std::optional<ExprRef> monomial_quotient(ExprRef a, ExprRef b) {
  auto split = [](ExprRef e) { return e->is_integer() ? Product{e->value(), {}} : product_of(e); };
  Product x = split(a);
  const Product y = split(b);
  if (y.coeff == 0 || x.coeff % y.coeff != 0) return std::nullopt;
  for (const Term& want : y.factors) {
    auto it = std::find_if(x.factors.begin(), x.factors.end(), [&](const Term& f) { return f.first == want.first; });
    if (it == x.factors.end() || it->second < want.second) return std::nullopt;
    it->second -= want.second;
  }
  std::erase_if(x.factors, [](const Term& f) { return f.second == 0; });
  return from_product(x.coeff / y.coeff, x.factors);
}

namespace {

// p and q over their common factor, as torch's simple_floordiv_gcd finds it:
// the gcd of every integer coefficient and constant of both, times each
// factor of a product q that every term of p holds as it is (the same base to
// the same power); nullopt when that factor is 1.
// The terms of `e` with the integer content of every sum inside a product
// moved into the term's coefficient: (9*x + 9)*y is 9 * ((x + 1)*y). Two
// expressions equal as polynomials in their sums' primitive parts then have
// the same terms. nullopt on overflow.
std::optional<std::unordered_map<ExprRef, int64_t>> primitive_terms(const Linear& l) {
  std::unordered_map<ExprRef, int64_t> out;
  try {
    for (const Term& t : l.terms) {
      const Product pr = product_of(t.first);
      int64_t coeff = t.second;
      if (__builtin_mul_overflow(coeff, pr.coeff, &coeff)) return std::nullopt;
      ExprRef unit = integer(1);
      for (const auto& [base, exponent] : pr.factors) {
        ExprRef b = base;
        if (base->kind() == ExprKind::Add) {
          Linear lb = linear_of(base);
          uint64_t g = magnitude(lb.constant);
          for (const Term& x : lb.terms) g = gcd_u64(g, magnitude(x.second));
          if (g > 1) {
            const auto gi = static_cast<int64_t>(g);
            lb.constant /= gi;
            for (Term& x : lb.terms) x.second /= gi;
            b = from_linear(lb);
            for (int64_t i = 0; i < exponent; ++i)
              if (__builtin_mul_overflow(coeff, gi, &coeff)) return std::nullopt;
          }
        }
        unit = mul(unit, pow(b, exponent));
      }
      if (__builtin_add_overflow(out[unit], coeff, &out[unit])) return std::nullopt;
    }
  } catch (const OverflowError&) {
    return std::nullopt;
  }
  return out;
}

// k when p is k*q for an integer k (q a sum or product, not a constant),
// term by term after pulling out the integer content of sums in products.
std::optional<int64_t> exact_multiple(ExprRef p, ExprRef q) {
  const Linear lp = linear_of(p), lq = linear_of(q);
  if (lq.terms.empty()) return std::nullopt;
  auto tp = primitive_terms(lp), tq = primitive_terms(lq);
  if (!tp || !tq) return std::nullopt;
  std::erase_if(*tp, [](const auto& x) { return x.second == 0; });
  std::erase_if(*tq, [](const auto& x) { return x.second == 0; });
  if (tq->empty() || tp->size() != tq->size()) return std::nullopt;
  const auto& [lead, lead_coeff] = *tq->begin();
  auto it = tp->find(lead);
  if (it == tp->end() || it->second % lead_coeff != 0) return std::nullopt;
  const int64_t k = it->second / lead_coeff;
  int64_t scaled;
  if (__builtin_mul_overflow(lq.constant, k, &scaled) || scaled != lp.constant) return std::nullopt;
  for (const auto& [unit, c] : *tq) {
    auto pi = tp->find(unit);
    if (pi == tp->end() || __builtin_mul_overflow(c, k, &scaled) || scaled != pi->second) return std::nullopt;
  }
  return k;
}

std::optional<std::pair<ExprRef, ExprRef>> cancel_common_factor(ExprRef p, ExprRef q) {
  const Linear lp = linear_of(p), lq = linear_of(q);
  uint64_t g = gcd_u64(magnitude(lp.constant), magnitude(lq.constant));
  for (const Linear* l : {&lp, &lq})
    for (const Term& t : l->terms) g = gcd_u64(g, magnitude(t.second));
  auto holds = [](ExprRef term, const Term& factor) {
    const Product f = product_of(term);
    return std::find(f.factors.begin(), f.factors.end(), factor) != f.factors.end();
  };
  std::vector<Term> common;
  if (lp.constant == 0 && lq.constant == 0 && lq.terms.size() == 1)
    for (const Term& x : product_of(lq.terms[0].first).factors)
      if (std::all_of(lp.terms.begin(), lp.terms.end(), [&](const Term& t) { return holds(t.first, x); }))
        common.push_back(x);
  if (g <= 1 && common.empty()) return std::nullopt;
  const auto gi = static_cast<int64_t>(g);
  auto divided = [&](const Linear& l) {
    ExprRef out = integer(l.constant / gi);
    for (const Term& t : l.terms) {
      std::vector<Term> rest;
      for (const Term& x : product_of(t.first).factors)
        if (std::find(common.begin(), common.end(), x) == common.end()) rest.push_back(x);
      out = add(out, from_product(t.second / gi, rest));
    }
    return out;
  };
  return std::pair{divided(lp), divided(lq)};
}

}  // namespace

ExprRef floordiv(ExprRef a, ExprRef b) {
  require_int(a, "FloorDiv");
  require_int(b, "FloorDiv");
  if (b->is_integer() && b->value() == 0) throw Error("division by zero in FloorDiv(" + to_sympy_string(a) + ", 0)");
  if (a->is_integer() && b->is_integer()) return integer(python_floordiv(a->value(), b->value()));
  if (a->is_integer() && a->value() == 0) return a;
  if (b->is_integer() && b->value() == 1) return a;
  if (b->is_integer() && b->value() == -1) return neg(a);
  if (auto c = positive_integer(b)) {
    // (a // d) // c is a // (d*c) for a positive c whatever d is, as torch's
    // FloorDiv.eval rewrites it: a split of s//(s//6) by 2 is s//(2*(s//6)).
    // (torch rewrites a symbolic c too, where a negative c breaks it.)
    if (a->kind() == ExprKind::FloorDiv) {
      int64_t dc;
      auto d = positive_integer(a->arg(1));
      if (!d) return floordiv(a->arg(0), mul(a->arg(1), b));
      if (!__builtin_mul_overflow(*d, *c, &dc)) return floordiv(a->arg(0), integer(dc));
    }
    Linear quotient, rest;
    if (split_divisible(a, *c, quotient, rest)) return add(from_linear(quotient), floordiv(from_linear(rest), b));
    // floor(g*x / (g*c')) == floor(x / c') for a common integer factor g > 1.
    uint64_t g = gcd_u64(magnitude(rest.constant), static_cast<uint64_t>(*c));
    for (const auto& t : rest.terms) g = gcd_u64(g, magnitude(t.second));
    if (g > 1) {
      auto gi = static_cast<int64_t>(g);
      for (auto& t : rest.terms) t.second /= gi;
      rest.constant /= gi;
      return floordiv(from_linear(rest), integer(*c / gi));
    }
  }
  if (!b->is_integer()) {
    if (a == b) return integer(1);
    // floor(k*q / q) == k, as sympy's gcd of the two finds: (9*s0 + 9*s1)//(s0 + s1) == 9.
    if (auto k = exact_multiple(a, b)) return integer(*k);
    // floor(g*p / (g*q)) == floor(p / q) for any common factor g != 0: (6*s0)//s0 == 6.
    if (auto reduced = cancel_common_factor(a, b)) return floordiv(reduced->first, reduced->second);
  }
  std::array<ExprRef, 2> args{a, b};
  return make_node(ExprKind::FloorDiv, args);
}

ExprRef mod(ExprRef a, ExprRef b) {
  require_int(a, "Mod");
  require_int(b, "Mod");
  if (b->is_integer() && b->value() == 0) throw Error("modulo by zero in Mod(" + to_sympy_string(a) + ", 0)");
  if (a->is_integer() && b->is_integer()) return integer(python_mod(a->value(), b->value()));
  if (a->is_integer() && a->value() == 0) return a;
  if (b->is_integer() && (b->value() == 1 || b->value() == -1)) return integer(0);
  if (a == b || is_negation(a, b)) return integer(0);
  if (auto c = positive_integer(b)) {
    // (x mod m) mod c == x mod c when c divides m.
    if (a->kind() == ExprKind::Mod) {
      if (auto m = positive_integer(a->arg(1)); m && *m % *c == 0) return mod(a->arg(0), b);
    }
    Linear l = linear_of(a);
    Linear reduced;
    reduced.constant = python_mod(l.constant, *c);
    for (const auto& t : l.terms)
      if (t.second % *c != 0) reduced.terms.push_back(t);
    if (reduced.terms.empty()) return integer(reduced.constant);
    // g*x mod g*q == g*(x mod q) for the common integer factor g > 1 of every
    // coefficient, the constant and the modulus (sympy's Mod.eval pulls out the gcd).
    uint64_t g = gcd_u64(magnitude(reduced.constant), static_cast<uint64_t>(*c));
    for (const auto& t : reduced.terms) g = gcd_u64(g, magnitude(t.second));
    if (g > 1) {
      auto gi = static_cast<int64_t>(g);
      for (auto& t : reduced.terms) t.second /= gi;
      reduced.constant /= gi;
      return scale(mod(from_linear(reduced), integer(*c / gi)), gi);
    }
    if (reduced.constant != l.constant || reduced.terms.size() != l.terms.size())
      return mod(from_linear(reduced), b);
  }
  std::array<ExprRef, 2> args{a, b};
  return make_node(ExprKind::Mod, args);
}

ExprRef ceildiv(ExprRef a, ExprRef b) {
  require_int(a, "CeilDiv");
  require_int(b, "CeilDiv");
  if (b->is_integer() && b->value() == 0) throw Error("division by zero in CeilDiv(" + to_sympy_string(a) + ", 0)");
  if (a->is_integer() && b->is_integer()) return integer(python_ceildiv(a->value(), b->value()));
  if (a->is_integer() && a->value() == 0) return a;
  if (b->is_integer() && b->value() == 1) return a;
  if (b->is_integer() && b->value() == -1) return neg(a);
  if (auto c = positive_integer(b)) {
    // ceil((c*Q + R) / c) == Q + ceil(R / c).
    Linear quotient, rest;
    if (split_divisible(a, *c, quotient, rest)) return add(from_linear(quotient), ceildiv(from_linear(rest), b));
  }
  std::array<ExprRef, 2> args{a, b};
  return make_node(ExprKind::CeilDiv, args);
}

ExprRef max(ExprRef a, ExprRef b) {
  std::array<ExprRef, 2> xs{a, b};
  return max_min(ExprKind::Max, xs);
}
ExprRef min(ExprRef a, ExprRef b) {
  std::array<ExprRef, 2> xs{a, b};
  return max_min(ExprKind::Min, xs);
}
ExprRef max(std::span<const ExprRef> xs) { return max_min(ExprKind::Max, xs); }
ExprRef min(std::span<const ExprRef> xs) { return max_min(ExprKind::Min, xs); }

// ---------------------------------------------------------------------------
// float builders
// ---------------------------------------------------------------------------

namespace {

ExprRef float_operand(ExprRef e, const char* op) {
  if (e == nullptr) throw Error(std::string(op) + ": null expression");
  if (e->is_bool()) throw Error(std::string(op) + ": expected a float expression, got a boolean");
  return e->is_float() ? e : to_float(e);
}

ExprRef float_node(ExprKind kind, ExprRef a, ExprRef b) {
  std::array<ExprRef, 2> args{a, b};
  return make_node(kind, args);
}

ExprRef float_node(ExprKind kind, ExprRef a) { return make_node(kind, std::span<const ExprRef>(&a, 1)); }

// Commutative operands in canonical order: `constant_last` puts a constant
// second (FloatAdd), otherwise first (FloatMul); two non-constants by id.
std::array<ExprRef, 2> commuted(ExprRef a, ExprRef b, bool constant_last) {
  const bool ca = a->kind() == ExprKind::FloatConst, cb = b->kind() == ExprKind::FloatConst;
  bool swap = ca != cb ? (constant_last ? ca : cb) : a->id() > b->id();
  if (swap) std::swap(a, b);
  return {a, b};
}

bool is_float_const(ExprRef e, double v) {
  return e->kind() == ExprKind::FloatConst && std::bit_cast<int64_t>(e->float_value()) == std::bit_cast<int64_t>(v);
}

ExprRef float_max_min(ExprKind kind, std::span<const ExprRef> xs) {
  const bool is_max = kind == ExprKind::FloatMax;
  return fold_max_min<double>(kind, is_max, is_max ? "FloatMax" : "FloatMin", xs, float_operand,
                              [](ExprRef x) { return as_float(x); }, [](double v) { return float_const(v); });
}

// FloorToInt and its kin: an integer stays, a constant folds, and an integer
// converted to float comes back as itself.
template <int64_t (*Fold)(double)>
ExprRef float_to_int(ExprKind kind, ExprRef a, const char* op) {
  if (a == nullptr) throw Error(std::string(op) + ": null expression");
  if (a->is_bool()) throw Error(std::string(op) + ": expected a float expression, got a boolean");
  if (!a->is_float()) return a;
  if (auto v = as_float(a)) return integer(Fold(*v));
  if (a->kind() == ExprKind::ToFloat) return a->arg(0);
  return float_node(kind, a);
}

}  // namespace

ExprRef float_const(double v) {
  if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();  // one NaN node
  return make_node(ExprKind::FloatConst, std::bit_cast<int64_t>(v), {}, {}, {});
}

ExprRef float_symbol(std::string_view name) {
  if (name.empty()) throw Error("symbol name must not be empty");
  return make_node(ExprKind::Symbol, 1, name, {}, {});
}

ExprRef to_float(ExprRef a) {
  require_int(a, "ToFloat");
  if (a->is_integer()) return float_const(python_int_to_float(a->value()));
  return float_node(ExprKind::ToFloat, a);
}

ExprRef float_add(ExprRef a, ExprRef b) {
  a = float_operand(a, "FloatAdd");
  b = float_operand(b, "FloatAdd");
  auto x = as_float(a), y = as_float(b);
  if (x && y) return float_const(*x + *y);
  if (is_float_const(b, -0.0)) return a;  // x + -0.0 is x for every x, -0.0 included
  if (is_float_const(a, -0.0)) return b;
  auto [p, q] = commuted(a, b, true);
  return float_node(ExprKind::FloatAdd, p, q);
}

ExprRef float_neg(ExprRef a) { return float_mul(float_const(-1.0), a); }

ExprRef float_sub(ExprRef a, ExprRef b) {
  b = float_operand(b, "FloatSub");
  if (auto y = as_float(b)) return float_add(a, float_const(-*y));
  return float_add(a, float_neg(b));
}

ExprRef float_mul(ExprRef a, ExprRef b) {
  a = float_operand(a, "FloatMul");
  b = float_operand(b, "FloatMul");
  auto x = as_float(a), y = as_float(b);
  if (x && y) return float_const(*x * *y);
  if (is_float_const(b, 1.0)) return a;
  if (is_float_const(a, 1.0)) return b;
  // -1.0 * (c * x) is (-c) * x: negation is exact and rounding symmetric.
  if (is_float_const(b, -1.0)) std::swap(a, b);
  if (is_float_const(a, -1.0) && b->kind() == ExprKind::FloatMul && b->arg(0)->kind() == ExprKind::FloatConst)
    return float_mul(float_const(-b->arg(0)->float_value()), b->arg(1));
  auto [p, q] = commuted(a, b, false);
  return float_node(ExprKind::FloatMul, p, q);
}

ExprRef float_truediv(ExprRef a, ExprRef b) {
  a = float_operand(a, "FloatTrueDiv");
  b = float_operand(b, "FloatTrueDiv");
  auto x = as_float(a), y = as_float(b);
  if (y && *y == 0) throw Error("float division by zero");
  if (x && y) return float_const(python_float_truediv(*x, *y));
  if (is_float_const(b, 1.0)) return a;
  return float_node(ExprKind::FloatTrueDiv, a, b);
}

ExprRef int_truediv(ExprRef a, ExprRef b) {
  require_int(a, "IntTrueDiv");
  require_int(b, "IntTrueDiv");
  if (b->is_integer() && b->value() == 0) throw Error("division by zero");
  if (a->is_integer() && b->is_integer()) return float_const(python_int_truediv(a->value(), b->value()));
  if (b->is_integer() && b->value() == 1) return to_float(a);
  return float_node(ExprKind::IntTrueDiv, a, b);
}

ExprRef true_div(ExprRef a, ExprRef b) {
  if (a != nullptr && b != nullptr && !a->is_float() && !b->is_float()) return int_truediv(a, b);
  return float_truediv(a, b);
}

ExprRef float_pow(ExprRef a, ExprRef b) {
  a = float_operand(a, "FloatPow");
  b = float_operand(b, "FloatPow");
  auto x = as_float(a), y = as_float(b);
  if (x && y) return float_const(python_float_pow(*x, *y));
  if (y && *y == 0) return float_const(1.0);  // x ** 0.0 is 1.0 for every x, NaN included
  if (is_float_const(b, 1.0)) return a;
  return float_node(ExprKind::FloatPow, a, b);
}

ExprRef float_sqrt(ExprRef a) {
  a = float_operand(a, "FloatSqrt");
  if (auto x = as_float(a)) return float_const(std::sqrt(*x));
  return float_node(ExprKind::FloatSqrt, a);
}

ExprRef to_float32(ExprRef a) {
  a = float_operand(a, "ToFloat32");
  if (auto x = as_float(a)) return float_const(round_to_float32(*x));
  if (a->kind() == ExprKind::ToFloat32) return a;
  // The floor (ceil, trunc, round) of a float32 is an integer with at most 24
  // significant bits: float() of it is exact, and a float32 already.
  if (a->kind() == ExprKind::ToFloat && is_float_to_int(a->arg(0)->kind()) &&
      a->arg(0)->arg(0)->kind() == ExprKind::ToFloat32)
    return a;
  return float_node(ExprKind::ToFloat32, a);
}

ExprRef float_max(ExprRef a, ExprRef b) {
  std::array<ExprRef, 2> xs{a, b};
  return float_max_min(ExprKind::FloatMax, xs);
}
ExprRef float_min(ExprRef a, ExprRef b) {
  std::array<ExprRef, 2> xs{a, b};
  return float_max_min(ExprKind::FloatMin, xs);
}
ExprRef float_max(std::span<const ExprRef> xs) { return float_max_min(ExprKind::FloatMax, xs); }
ExprRef float_min(std::span<const ExprRef> xs) { return float_max_min(ExprKind::FloatMin, xs); }

ExprRef floor_to_int(ExprRef a) { return float_to_int<python_floor_to_int>(ExprKind::FloorToInt, a, "FloorToInt"); }
ExprRef ceil_to_int(ExprRef a) { return float_to_int<python_ceil_to_int>(ExprKind::CeilToInt, a, "CeilToInt"); }
ExprRef trunc_to_int(ExprRef a) { return float_to_int<python_trunc_to_int>(ExprKind::TruncToInt, a, "TruncToInt"); }
ExprRef round_to_int(ExprRef a) { return float_to_int<python_round_to_int>(ExprKind::RoundToInt, a, "RoundToInt"); }

namespace {
template <ExprKind Kind>
ExprRef memo_relation(ExprRef a, ExprRef b) {
  return BinaryMemo<2 + static_cast<int>(Kind)>::get(a, b, [&] { return relation(Kind, a, b); });
}
}  // namespace

ExprRef eq(ExprRef a, ExprRef b) { return memo_relation<ExprKind::Eq>(a, b); }
ExprRef ne(ExprRef a, ExprRef b) { return memo_relation<ExprKind::Ne>(a, b); }
ExprRef lt(ExprRef a, ExprRef b) { return memo_relation<ExprKind::Lt>(a, b); }
ExprRef le(ExprRef a, ExprRef b) { return memo_relation<ExprKind::Le>(a, b); }
ExprRef gt(ExprRef a, ExprRef b) { return memo_relation<ExprKind::Gt>(a, b); }
ExprRef ge(ExprRef a, ExprRef b) { return memo_relation<ExprKind::Ge>(a, b); }

ExprRef logical_and(ExprRef a, ExprRef b) {
  std::array<ExprRef, 2> xs{a, b};
  return and_or(ExprKind::And, xs);
}
ExprRef logical_or(ExprRef a, ExprRef b) {
  std::array<ExprRef, 2> xs{a, b};
  return and_or(ExprKind::Or, xs);
}
ExprRef logical_and(std::span<const ExprRef> xs) { return and_or(ExprKind::And, xs); }
ExprRef logical_or(std::span<const ExprRef> xs) { return and_or(ExprKind::Or, xs); }

ExprRef logical_not(ExprRef a) {
  require_bool(a, "Not");
  switch (a->kind()) {
    case ExprKind::BoolConst: return bool_const(a->value() == 0);
    case ExprKind::Not: return a->arg(0);
    case ExprKind::Eq: return ne(a->arg(0), a->arg(1));
    case ExprKind::Ne: return eq(a->arg(0), a->arg(1));
    case ExprKind::Lt: return ge(a->arg(0), a->arg(1));
    case ExprKind::Le: return gt(a->arg(0), a->arg(1));
    case ExprKind::Gt: return le(a->arg(0), a->arg(1));
    case ExprKind::Ge: return lt(a->arg(0), a->arg(1));
    default: return make_node(ExprKind::Not, std::span<const ExprRef>(&a, 1));
  }
}

ExprRef rebuild(ExprKind kind, std::span<const ExprRef> args) {
  auto need = [&](size_t n) {
    if (args.size() != n)
      throw Error(std::string("rebuild ") + kind_name(kind) + ": expected " + std::to_string(n) + " operands, got " +
                  std::to_string(args.size()));
  };
  switch (kind) {
    case ExprKind::Integer:
    case ExprKind::Symbol:
    case ExprKind::FloatConst:
    case ExprKind::BoolConst: throw Error(std::string("rebuild ") + kind_name(kind) + ": a leaf has no operands");
    case ExprKind::ToFloat: need(1); return to_float(args[0]);
    case ExprKind::FloatAdd: need(2); return float_add(args[0], args[1]);
    case ExprKind::FloatMul: need(2); return float_mul(args[0], args[1]);
    case ExprKind::FloatTrueDiv: need(2); return float_truediv(args[0], args[1]);
    case ExprKind::IntTrueDiv: need(2); return int_truediv(args[0], args[1]);
    case ExprKind::FloatPow: need(2); return float_pow(args[0], args[1]);
    case ExprKind::FloatSqrt: need(1); return float_sqrt(args[0]);
    case ExprKind::ToFloat32: need(1); return to_float32(args[0]);
    case ExprKind::FloatMax: return float_max(args);
    case ExprKind::FloatMin: return float_min(args);
    case ExprKind::FloorToInt: need(1); return floor_to_int(args[0]);
    case ExprKind::CeilToInt: need(1); return ceil_to_int(args[0]);
    case ExprKind::TruncToInt: need(1); return trunc_to_int(args[0]);
    case ExprKind::RoundToInt: need(1); return round_to_int(args[0]);
    case ExprKind::Add: {
      ExprRef sum = integer(0);
      for (ExprRef x : args) sum = add(sum, x);
      return sum;
    }
    case ExprKind::Mul: {
      ExprRef product = integer(1);
      for (ExprRef x : args) product = mul(product, x);
      return product;
    }
    case ExprKind::FloorDiv: need(2); return floordiv(args[0], args[1]);
    case ExprKind::Mod: need(2); return mod(args[0], args[1]);
    case ExprKind::CeilDiv: need(2); return ceildiv(args[0], args[1]);
    case ExprKind::Max: return max(args);
    case ExprKind::Min: return min(args);
    case ExprKind::Eq: need(2); return eq(args[0], args[1]);
    case ExprKind::Ne: need(2); return ne(args[0], args[1]);
    case ExprKind::Lt: need(2); return lt(args[0], args[1]);
    case ExprKind::Le: need(2); return le(args[0], args[1]);
    case ExprKind::Gt: need(2); return gt(args[0], args[1]);
    case ExprKind::Ge: need(2); return ge(args[0], args[1]);
    case ExprKind::And: return logical_and(args);
    case ExprKind::Or: return logical_or(args);
    case ExprKind::Not: need(1); return logical_not(args[0]);
  }
  throw Error("rebuild: unknown kind");
}

// ---------------------------------------------------------------------------
// queries
// ---------------------------------------------------------------------------

std::optional<int64_t> as_integer(ExprRef e) {
  if (e != nullptr && e->is_integer()) return e->value();
  return std::nullopt;
}

std::optional<bool> as_bool(ExprRef e) {
  if (e != nullptr && e->kind() == ExprKind::BoolConst) return e->value() != 0;
  return std::nullopt;
}

std::optional<double> as_float(ExprRef e) {
  if (e != nullptr && e->kind() == ExprKind::FloatConst) return e->float_value();
  return std::nullopt;
}

namespace {

template <typename Visit>
void for_each_child(ExprRef e, Visit&& visit) {
  for (const auto& t : e->terms()) visit(t.first);
  for (ExprRef a : e->args()) visit(a);
}

}  // namespace

std::vector<ExprRef> free_symbols(ExprRef e) {
  if (!e->has_symbols()) return {};
  if (e->is_symbol()) return {e};
  if (const std::vector<ExprRef>* kept = e->kept_free_symbols()) return *kept;
  std::vector<ExprRef> out;
  std::unordered_set<ExprRef> seen;
  std::vector<ExprRef> stack{e};
  while (!stack.empty()) {
    ExprRef x = stack.back();
    stack.pop_back();
    if (!seen.insert(x).second) continue;
    if (x->is_symbol()) out.push_back(x);
    for_each_child(x, [&](ExprRef c) { stack.push_back(c); });
  }
  std::sort(out.begin(), out.end(), [](ExprRef a, ExprRef b) { return a->name() < b->name(); });
  return *e->keep_free_symbols(std::move(out));
}

bool has_free_symbols(ExprRef e) { return e->has_symbols(); }

size_t expr_size(ExprRef e) {
  size_t n = 1;
  for_each_child(e, [&](ExprRef c) { n += expr_size(c); });
  return n;
}

namespace {

ExprRef substitute_memo(ExprRef e, const Substitution& subs, std::unordered_map<ExprRef, ExprRef>& memo) {
  switch (e->kind()) {
    case ExprKind::Integer:
    case ExprKind::FloatConst:
    case ExprKind::BoolConst: return e;
    case ExprKind::Symbol: {
      auto it = subs.find(e);
      return it == subs.end() ? e : it->second;
    }
    default: break;
  }
  if (auto it = memo.find(e); it != memo.end()) return it->second;
  ExprRef result = e;
  if (e->kind() == ExprKind::Add) {
    result = integer(e->value());
    for (const auto& [t, c] : e->terms()) result = add(result, scale(substitute_memo(t, subs, memo), c));
  } else if (e->kind() == ExprKind::Mul) {
    result = integer(e->value());
    for (const auto& [b, k] : e->terms()) result = mul(result, pow(substitute_memo(b, subs, memo), k));
  } else {
    std::vector<ExprRef> args;
    bool changed = false;
    for (ExprRef a : e->args()) {
      args.push_back(substitute_memo(a, subs, memo));
      changed = changed || args.back() != a;
    }
    if (changed) result = rebuild(e->kind(), args);
  }
  memo.emplace(e, result);
  return result;
}

// The values of integer symbols, and of float symbols (null: none).
struct Lookup {
  const std::function<std::optional<int64_t>(ExprRef)>& ints;
  const FloatLookup& floats;
};

std::optional<int64_t> eval_node(ExprRef e, const Lookup& lookup);

std::optional<double> eval_float_node(ExprRef e, const Lookup& lookup) {
  switch (e->kind()) {
    case ExprKind::FloatConst: return e->float_value();
    case ExprKind::Symbol: return lookup.floats ? lookup.floats(e) : std::nullopt;
    case ExprKind::ToFloat:
    case ExprKind::IntTrueDiv: {
      std::vector<int64_t> v;
      for (ExprRef a : e->args()) {
        auto x = eval_node(a, lookup);
        if (!x) return std::nullopt;
        v.push_back(*x);
      }
      return e->kind() == ExprKind::ToFloat ? python_int_to_float(v[0]) : python_int_truediv(v[0], v[1]);
    }
    default: break;
  }
  if (!e->is_float()) {
    auto v = eval_node(e, lookup);
    if (!v) return std::nullopt;
    return python_int_to_float(*v);
  }
  std::vector<double> v;
  for (ExprRef a : e->args()) {
    auto x = eval_float_node(a, lookup);
    if (!x) return std::nullopt;
    v.push_back(*x);
  }
  switch (e->kind()) {
    case ExprKind::FloatAdd: return v[0] + v[1];
    case ExprKind::FloatMul: return v[0] * v[1];
    case ExprKind::FloatTrueDiv: return python_float_truediv(v[0], v[1]);
    case ExprKind::FloatPow: return python_float_pow(v[0], v[1]);
    case ExprKind::FloatSqrt: return std::sqrt(v[0]);
    case ExprKind::ToFloat32: return round_to_float32(v[0]);
    case ExprKind::FloatMax: return *std::max_element(v.begin(), v.end());
    case ExprKind::FloatMin: return *std::min_element(v.begin(), v.end());
    default: throw Error("evaluate: unexpected float node kind");
  }
}

std::optional<int64_t> eval_node(ExprRef e, const Lookup& lookup) {
  auto eval_args = [&](std::vector<int64_t>& out) {
    for (ExprRef a : e->args()) {
      auto v = eval_node(a, lookup);
      if (!v) return false;
      out.push_back(*v);
    }
    return true;
  };
  switch (e->kind()) {
    case ExprKind::Integer:
    case ExprKind::BoolConst: return e->value();
    case ExprKind::Symbol:
      if (e->is_float()) return std::nullopt;  // a float symbol is no integer
      return lookup.ints(e);
    case ExprKind::FloorToInt:
    case ExprKind::CeilToInt:
    case ExprKind::TruncToInt:
    case ExprKind::RoundToInt: {
      auto x = eval_float_node(e->arg(0), lookup);
      if (!x) return std::nullopt;
      switch (e->kind()) {
        case ExprKind::FloorToInt: return python_floor_to_int(*x);
        case ExprKind::CeilToInt: return python_ceil_to_int(*x);
        case ExprKind::TruncToInt: return python_trunc_to_int(*x);
        default: return python_round_to_int(*x);
      }
    }
    case ExprKind::Add: {
      int64_t sum = e->value();
      for (const auto& [t, c] : e->terms()) {
        auto v = eval_node(t, lookup);
        if (!v) return std::nullopt;
        sum = checked_add(sum, checked_mul(c, *v));
      }
      return sum;
    }
    case ExprKind::Mul: {
      int64_t product = e->value();
      for (const auto& [b, k] : e->terms()) {
        auto v = eval_node(b, lookup);
        if (!v) return std::nullopt;
        product = checked_mul(product, checked_pow(*v, k));
      }
      return product;
    }
    case ExprKind::And:
    case ExprKind::Or: {
      // Order-independent short circuit: a deciding operand wins over an
      // operand that is unbound or divides by zero.
      const int64_t decider = e->kind() == ExprKind::And ? 0 : 1;
      std::exception_ptr failure;
      bool unbound = false;
      for (ExprRef a : e->args()) {
        try {
          auto v = eval_node(a, lookup);
          if (!v) {
            unbound = true;
          } else if ((*v != 0) == (decider != 0)) {
            return decider;
          }
        } catch (const Error&) {
          if (!failure) failure = std::current_exception();
        }
      }
      if (failure) std::rethrow_exception(failure);
      if (unbound) return std::nullopt;
      return 1 - decider;
    }
    default: break;
  }
  if (e->is_float()) throw Error("evaluate: " + to_sympy_string(e) + " is a float");
  if (e->is_relation() && e->arg(0)->is_float()) {
    auto x = eval_float_node(e->arg(0), lookup), y = eval_float_node(e->arg(1), lookup);
    if (!x || !y) return std::nullopt;
    switch (e->kind()) {
      case ExprKind::Eq: return *x == *y;
      case ExprKind::Ne: return *x != *y;
      case ExprKind::Lt: return *x < *y;
      case ExprKind::Le: return *x <= *y;
      case ExprKind::Gt: return *x > *y;
      default: return *x >= *y;
    }
  }
  std::vector<int64_t> v;
  if (!eval_args(v)) return std::nullopt;
  switch (e->kind()) {
    case ExprKind::FloorDiv: return python_floordiv(v[0], v[1]);
    case ExprKind::Mod: return python_mod(v[0], v[1]);
    case ExprKind::CeilDiv: return python_ceildiv(v[0], v[1]);
    case ExprKind::Max: return *std::max_element(v.begin(), v.end());
    case ExprKind::Min: return *std::min_element(v.begin(), v.end());
    case ExprKind::Eq: return v[0] == v[1];
    case ExprKind::Ne: return v[0] != v[1];
    case ExprKind::Lt: return v[0] < v[1];
    case ExprKind::Le: return v[0] <= v[1];
    case ExprKind::Gt: return v[0] > v[1];
    case ExprKind::Ge: return v[0] >= v[1];
    case ExprKind::Not: return v[0] == 0;
    default: throw Error("evaluate: unexpected node kind");
  }
}

}  // namespace

ExprRef substitute(ExprRef e, const Substitution& subs) {
  for (const auto& [k, v] : subs) {
    if (k == nullptr || !k->is_symbol()) throw Error("substitute: keys must be symbols");
    if (v == nullptr) throw Error("substitute: null replacement for " + k->name());
  }
  if (subs.empty()) return e;
  std::unordered_map<ExprRef, ExprRef> memo;
  return substitute_memo(e, subs, memo);
}

std::optional<int64_t> evaluate(ExprRef e, const Assignment& values) {
  return evaluate(e, [&](ExprRef s) -> std::optional<int64_t> {
    auto it = values.find(s);
    if (it == values.end()) return std::nullopt;
    return it->second;
  });
}

std::optional<int64_t> evaluate(ExprRef e, const std::function<std::optional<int64_t>(ExprRef)>& lookup,
                                const FloatLookup& float_lookup) {
  return eval_node(e, Lookup{lookup, float_lookup});
}

std::optional<double> evaluate_float(ExprRef e, const std::function<std::optional<int64_t>(ExprRef)>& lookup,
                                     const FloatLookup& float_lookup) {
  return eval_float_node(e, Lookup{lookup, float_lookup});
}

size_t interned_expr_count() { return interner().size(); }

// ---------------------------------------------------------------------------
// printing order: sympy's default_sort_key and Add term order
// ---------------------------------------------------------------------------

namespace {

// Mirrors sympy's sort_key tuple: (class_key, args, exp, coeff).
struct SortKey {
  int class_rank = 0;  // class_key()[0]
  int class_sub = 0;   // class_key()[1]
  std::string_view class_name;
  int arity = 0;  // 0: Number, 1 with is_atom: an atom's (1, (name,)), else len(args)
  bool is_atom = false;
  std::string atom_name;
  std::vector<SortKey> args;
  int64_t exp = 1;
  int64_t coeff = 1;
};

int compare_keys(const SortKey& x, const SortKey& y) {
  auto cmp = [](auto a, auto b) { return (a > b) - (a < b); };
  if (int c = cmp(x.class_rank, y.class_rank)) return c;
  if (int c = cmp(x.class_sub, y.class_sub)) return c;
  if (int c = x.class_name.compare(y.class_name)) return c < 0 ? -1 : 1;
  if (int c = cmp(x.arity, y.arity)) return c;
  if (x.is_atom && y.is_atom) {
    if (int c = x.atom_name.compare(y.atom_name)) return c < 0 ? -1 : 1;
  } else {
    for (size_t i = 0; i < x.args.size() && i < y.args.size(); ++i)
      if (int c = compare_keys(x.args[i], y.args[i])) return c;
    if (int c = cmp(x.args.size(), y.args.size())) return c;
  }
  if (int c = cmp(x.exp, y.exp)) return c;
  return cmp(x.coeff, y.coeff);
}

SortKey sort_key(ExprRef e);
std::vector<Term> ordered_add_terms(ExprRef add);
std::vector<ExprRef> ordered_args(ExprRef e);

SortKey leaf_key(int rank, std::string_view cls, std::string name) {
  SortKey k;
  k.class_rank = rank;
  k.class_name = cls;
  k.arity = 1;
  k.is_atom = true;
  k.atom_name = std::move(name);
  return k;
}

SortKey compound_key(int rank, int sub, std::string_view cls, std::vector<SortKey> args) {
  SortKey k;
  k.class_rank = rank;
  k.class_sub = sub;
  k.class_name = cls;
  k.arity = static_cast<int>(args.size());
  k.args = std::move(args);
  return k;
}

void sort_keys(std::vector<SortKey>& keys) {
  std::sort(keys.begin(), keys.end(), [](const SortKey& a, const SortKey& b) { return compare_keys(a, b) < 0; });
}

// Key of c * t where t is a term of an Add (or the constant when t is null).
SortKey scaled_key(ExprRef t, int64_t c) {
  SortKey k = sort_key(t);
  k.coeff = c;
  return k;
}

SortKey factor_key(ExprRef base, int64_t exponent) {
  SortKey k = sort_key(base);
  k.exp = exponent;
  return k;
}

SortKey sort_key(ExprRef e) {
  switch (e->kind()) {
    case ExprKind::Integer: {
      SortKey k;
      k.class_rank = 1;
      k.class_name = "Number";
      k.arity = 0;
      k.coeff = e->value();
      return k;
    }
    case ExprKind::Symbol: return leaf_key(2, "Symbol", e->name());
    case ExprKind::FloatConst: return leaf_key(1, "Float", python_float_repr(e->float_value()));
    case ExprKind::BoolConst: return leaf_key(2, e->value() ? "BooleanTrue" : "BooleanFalse", e->value() ? "True" : "False");
    case ExprKind::Mul: {
      auto f = e->terms();
      SortKey k;
      if (f.size() == 1) {
        k = factor_key(f[0].first, f[0].second);
      } else {
        std::vector<SortKey> factors;
        for (const auto& [b, x] : f) factors.push_back(factor_key(b, x));
        sort_keys(factors);
        k = compound_key(3, 0, "Mul", std::move(factors));
      }
      k.coeff = e->value();
      return k;
    }
    case ExprKind::Add: {
      std::vector<SortKey> terms;
      for (const auto& [t, c] : ordered_add_terms(e)) terms.push_back(t == nullptr ? sort_key(integer(c)) : scaled_key(t, c));
      return compound_key(3, 1, "Add", std::move(terms));
    }
    default: break;
  }
  std::vector<SortKey> args;
  for (ExprRef a : e->args()) args.push_back(sort_key(a));
  switch (e->kind()) {
    case ExprKind::FloorDiv: return compound_key(4, 10000, "FloorDiv", std::move(args));
    case ExprKind::Mod: return compound_key(4, 10000, "Mod", std::move(args));
    case ExprKind::CeilDiv: return compound_key(4, 10000, "CeilDiv", std::move(args));
    case ExprKind::Eq: return compound_key(5, 0, "Equality", std::move(args));
    case ExprKind::Ne: return compound_key(5, 0, "Unequality", std::move(args));
    case ExprKind::Lt: return compound_key(5, 0, "StrictLessThan", std::move(args));
    case ExprKind::Le: return compound_key(5, 0, "LessThan", std::move(args));
    case ExprKind::Gt: return compound_key(5, 0, "StrictGreaterThan", std::move(args));
    case ExprKind::Ge: return compound_key(5, 0, "GreaterThan", std::move(args));
    case ExprKind::Not: return compound_key(5, 0, "Not", std::move(args));
    case ExprKind::FloatAdd: return compound_key(3, 1, "Add", std::move(args));
    case ExprKind::FloatMul: return compound_key(3, 0, "Mul", std::move(args));
    case ExprKind::ToFloat:
    case ExprKind::FloatTrueDiv:
    case ExprKind::IntTrueDiv:
    case ExprKind::FloatPow:
    case ExprKind::FloatSqrt:
    case ExprKind::ToFloat32:
    case ExprKind::FloorToInt:
    case ExprKind::CeilToInt:
    case ExprKind::TruncToInt:
    case ExprKind::RoundToInt: return compound_key(5, 0, sympy_function_name(e->kind()), std::move(args));
    default: break;
  }
  // Max, Min, And, Or hold their arguments in sympy's ordered() order.
  args.clear();
  for (ExprRef a : ordered_args(e)) args.push_back(sort_key(a));
  switch (e->kind()) {
    case ExprKind::Max:
    case ExprKind::FloatMax: return compound_key(5, 0, "Max", std::move(args));
    case ExprKind::Min:
    case ExprKind::FloatMin: return compound_key(5, 0, "Min", std::move(args));
    case ExprKind::And: return compound_key(5, 0, "And", std::move(args));
    default: return compound_key(5, 0, "Or", std::move(args));
  }
}

// The generators (base, exponent) of one Add term, sorted by sort key.
std::vector<std::pair<SortKey, int64_t>> term_generators(ExprRef t) {
  std::vector<std::pair<SortKey, int64_t>> gens;
  if (t == nullptr) return gens;
  if (t->kind() == ExprKind::Mul) {
    for (const auto& [b, k] : t->terms()) gens.emplace_back(sort_key(b), k);
  } else {
    gens.emplace_back(sort_key(t), 1);
  }
  std::sort(gens.begin(), gens.end(), [](const auto& a, const auto& b) { return compare_keys(a.first, b.first) < 0; });
  return gens;
}

// sympy's as_ordered_terms(): lex order on exponent vectors over generators
// sorted by sort key, highest first; a constant comes last, except that
// `1 - x` keeps the positive constant first. Constant is (nullptr, value).
std::vector<Term> ordered_add_terms(ExprRef add) {
  std::vector<Term> terms(add->terms().begin(), add->terms().end());
  int64_t constant = add->value();
  if (constant > 0 && terms.size() == 1 && terms[0].second < 0) {
    ExprRef t = terms[0].first;
    bool single_factor = t->kind() != ExprKind::Mul || t->terms().size() == 1;
    if (single_factor) return {{nullptr, constant}, terms[0]};
  }
  if (terms.size() == 1) {  // nothing to order: skip building sort keys
    if (constant != 0) terms.emplace_back(nullptr, constant);
    return terms;
  }
  std::vector<std::pair<Term, std::vector<std::pair<SortKey, int64_t>>>> keyed;
  for (const auto& t : terms) keyed.emplace_back(t, term_generators(t.first));
  auto before = [](const auto& x, const auto& y) {
    const auto& gx = x.second;
    const auto& gy = y.second;
    size_t i = 0, j = 0;
    while (i < gx.size() || j < gy.size()) {
      if (j == gy.size()) return true;
      if (i == gx.size()) return false;
      int c = compare_keys(gx[i].first, gy[j].first);
      if (c < 0) return true;   // x has a generator y lacks, earlier in lex order
      if (c > 0) return false;
      if (gx[i].second != gy[j].second) return gx[i].second > gy[j].second;
      ++i;
      ++j;
    }
    return x.first.second < y.first.second;
  };
  std::stable_sort(keyed.begin(), keyed.end(), before);
  std::vector<Term> out;
  for (auto& k : keyed) out.push_back(k.first);
  if (constant != 0) out.emplace_back(nullptr, constant);
  return out;
}

// Number of nodes of e in sympy's tree (e.g. 2*s0 is Mul(2, s0): 3 nodes).
size_t sympy_node_count(ExprRef e) {
  switch (e->kind()) {
    case ExprKind::Add: {
      size_t n = 1 + (e->value() != 0 ? 1 : 0);
      for (const auto& [t, c] : e->terms()) {
        size_t term = sympy_node_count(t);
        if (c != 1) term = t->kind() == ExprKind::Mul ? term + 1 : term + 2;  // coefficient joins the Mul
        n += term;
      }
      return n;
    }
    case ExprKind::Mul: {
      size_t n = (e->value() != 1 ? 1 : 0);
      for (const auto& [b, k] : e->terms()) n += sympy_node_count(b) + (k != 1 ? 2 : 0);
      // A lone power b**k is a Pow node, otherwise a Mul node holds the factors.
      bool lone_power = e->value() == 1 && e->terms().size() == 1;
      return lone_power ? n : n + 1;
    }
    default: {
      size_t n = 1;
      for (ExprRef a : e->args()) n += sympy_node_count(a);
      return n;
    }
  }
}

// sympy's ordered(): fewer nodes first, then default_sort_key.
std::vector<ExprRef> ordered_args(ExprRef e) {
  struct Keyed {
    size_t nodes;
    SortKey key;
    ExprRef arg;
  };
  if (e->args().size() == 1) return {e->args().begin(), e->args().end()};
  std::vector<Keyed> keyed;
  for (ExprRef a : e->args()) keyed.push_back({sympy_node_count(a), sort_key(a), a});
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.nodes != b.nodes) return a.nodes < b.nodes;
    return compare_keys(a.key, b.key) < 0;
  });
  std::vector<ExprRef> out;
  for (auto& k : keyed) out.push_back(k.arg);
  return out;
}

std::vector<Term> ordered_factors(ExprRef mul) {
  if (mul->terms().size() == 1) return {mul->terms().begin(), mul->terms().end()};
  std::vector<std::pair<SortKey, Term>> keyed;
  for (const auto& f : mul->terms()) keyed.emplace_back(factor_key(f.first, f.second), f);
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return compare_keys(a.first, b.first) < 0; });
  std::vector<Term> out;
  for (auto& k : keyed) out.push_back(k.second);
  return out;
}

std::string magnitude_string(uint64_t m) { return std::to_string(m); }

// ---------------------------------------------------------------------------
// sympy-style printer (precedences from sympy.printing.precedence)
// ---------------------------------------------------------------------------

namespace sp {
constexpr int kOr = 20, kAnd = 30, kRelational = 35, kAdd = 40, kMul = 50, kPow = 60, kFunc = 70, kNot = 100,
              kAtom = 1000, kBitwiseOr = 36, kBitwiseAnd = 38;
}

// c of c*x for a FloatMul with a negative constant c (printed as a subtraction).
std::optional<double> negative_coefficient(ExprRef e) {
  if (e->kind() != ExprKind::FloatMul) return std::nullopt;
  auto c = as_float(e->arg(0));
  if (!c || !(*c < 0)) return std::nullopt;
  return c;
}

// The operands of a FloatAdd or FloatMul in the order they print: a constant
// where the canonical form puts it; in a sum, a negated term or a nested sum
// second (`a - b`, `a + (b + c)`); otherwise by sympy's sort key, as its Add
// and Mul print. Both operations commute exactly, so any order evaluates the same.
std::pair<ExprRef, ExprRef> printed_order(ExprRef e) {
  ExprRef a = e->arg(0), b = e->arg(1);
  if (a->kind() == ExprKind::FloatConst || b->kind() == ExprKind::FloatConst) return {a, b};
  if (e->kind() == ExprKind::FloatAdd) {
    auto rank = [](ExprRef x) { return negative_coefficient(x) ? 2 : x->kind() == ExprKind::FloatAdd ? 1 : 0; };
    if (rank(a) != rank(b)) return rank(a) < rank(b) ? std::pair{a, b} : std::pair{b, a};
  }
  if (compare_keys(sort_key(b), sort_key(a)) < 0) std::swap(a, b);
  return {a, b};
}

class SympyPrinter {
 public:
  std::string print(ExprRef e) {
    switch (e->kind()) {
      case ExprKind::Integer: return std::to_string(e->value());
      case ExprKind::Symbol: return e->name();
      case ExprKind::BoolConst: return e->value() ? "True" : "False";
      case ExprKind::Add: return print_add(e);
      case ExprKind::Mul: return print_scaled(e, magnitude(e->value()), e->value() < 0);
      case ExprKind::FloorDiv:
        return "(" + paren(e->arg(0), sp::kAtom - 1) + "//" + paren(e->arg(1), sp::kAtom - 1) + ")";
      case ExprKind::Mod: return "Mod(" + print(e->arg(0)) + ", " + print(e->arg(1)) + ")";
      case ExprKind::CeilDiv: return "CeilDiv(" + print(e->arg(0)) + ", " + print(e->arg(1)) + ")";
      case ExprKind::Max: return "Max(" + join(ordered_args(e), ", ", 0) + ")";
      case ExprKind::Min: return "Min(" + join(ordered_args(e), ", ", 0) + ")";
      case ExprKind::Eq: return "Eq(" + print(e->arg(0)) + ", " + print(e->arg(1)) + ")";
      case ExprKind::Ne: return "Ne(" + print(e->arg(0)) + ", " + print(e->arg(1)) + ")";
      case ExprKind::Lt: return infix(e, " < ");
      case ExprKind::Le: return infix(e, " <= ");
      case ExprKind::Gt: return infix(e, " > ");
      case ExprKind::Ge: return infix(e, " >= ");
      case ExprKind::And: return join(ordered_args(e), " & ", sp::kBitwiseAnd);
      case ExprKind::Or: return join(ordered_args(e), " | ", sp::kBitwiseOr);
      case ExprKind::Not: return "~" + paren(e->arg(0), sp::kNot);
      case ExprKind::FloatConst: {
        const double v = e->float_value();
        if (std::isinf(v)) return v < 0 ? "-oo" : "oo";
        return python_float_repr(v);
      }
      case ExprKind::FloatAdd: return float_add_text(e);
      case ExprKind::FloatMul: {
        if (is_minus_one(e->arg(0))) return "-" + paren(e->arg(1), sp::kMul);
        auto [a, b] = printed_order(e);
        return paren(a, sp::kMul - 1) + "*" + paren(b, sp::kMul);
      }
      case ExprKind::FloatMax: return "Max(" + join(ordered_args(e), ", ", 0) + ")";
      case ExprKind::FloatMin: return "Min(" + join(ordered_args(e), ", ", 0) + ")";
      case ExprKind::ToFloat:
      case ExprKind::FloatTrueDiv:
      case ExprKind::IntTrueDiv:
      case ExprKind::FloatPow:
      case ExprKind::FloatSqrt:
      case ExprKind::ToFloat32:
      case ExprKind::FloorToInt:
      case ExprKind::CeilToInt:
      case ExprKind::TruncToInt:
      case ExprKind::RoundToInt: {
        std::vector<ExprRef> args(e->args().begin(), e->args().end());
        return std::string(sympy_function_name(e->kind())) + "(" + join(args, ", ", 0) + ")";
      }
    }
    return "?";
  }

  static int precedence(ExprRef e) {
    switch (e->kind()) {
      case ExprKind::Integer: return e->value() < 0 ? sp::kAdd : sp::kAtom;
      case ExprKind::Add: return sp::kAdd;
      case ExprKind::Mul: return scaled_precedence(e, magnitude(e->value()), e->value() < 0);
      case ExprKind::FloorDiv:
      case ExprKind::Mod: return sp::kRelational;  // PyTorch gives both precedence 35
      case ExprKind::CeilDiv: return sp::kFunc;
      case ExprKind::Eq:
      case ExprKind::Ne: return sp::kMul;
      case ExprKind::Lt:
      case ExprKind::Le:
      case ExprKind::Gt:
      case ExprKind::Ge: return sp::kRelational;
      case ExprKind::And: return sp::kAnd;
      case ExprKind::Or: return sp::kOr;
      case ExprKind::Not: return sp::kNot;
      case ExprKind::FloatConst: return e->float_value() < 0 ? sp::kAdd : sp::kAtom;
      case ExprKind::FloatAdd: return sp::kAdd;
      case ExprKind::FloatMul: return is_minus_one(e->arg(0)) ? sp::kAdd : sp::kMul;
      case ExprKind::FloatTrueDiv:
      case ExprKind::IntTrueDiv: return sp::kRelational;  // as PyTorch gives its TrueDivs
      default: return sp::kAtom;  // Symbol, BoolConst, Max, Min, the other functions
    }
  }

 private:
  static bool is_minus_one(ExprRef e) { return e->kind() == ExprKind::FloatConst && e->float_value() == -1.0; }

  // a + b, or a - y for b = -1.0*y or a negative constant. The right operand
  // is wrapped when it is itself a sum: float addition does not associate.
  std::string float_add_text(ExprRef e) {
    auto [a, b] = printed_order(e);
    std::string left = paren(a, sp::kAdd - 1);
    if (b->kind() == ExprKind::FloatMul && is_minus_one(b->arg(0))) return left + " - " + paren(b->arg(1), sp::kAdd);
    if (auto c = negative_coefficient(b)) return left + " - " + print(float_mul(float_const(-*c), b->arg(1)));
    if (auto v = as_float(b); v && (*v < 0 || std::signbit(*v)) && !std::isnan(*v))
      return left + " - " + print(float_const(-*v));
    return left + " + " + paren(b, sp::kAdd);
  }

  // Precedence of (negative ? -m : m) * t (a Mul's own coefficient is ignored).
  static int scaled_precedence(ExprRef t, uint64_t m, bool negative) {
    if (negative) return sp::kAdd;
    if (t->kind() != ExprKind::Mul) return m == 1 ? precedence(t) : sp::kMul;
    if (m == 1 && t->terms().size() == 1) return sp::kPow;
    return sp::kMul;
  }

  // Non-strict parenthesize: wrap when precedence(e) <= level.
  std::string paren(ExprRef e, int level) {
    std::string s = print(e);
    return precedence(e) <= level ? "(" + s + ")" : s;
  }

  std::string join(const std::vector<ExprRef>& xs, const char* sep, int level) {
    std::string out;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i) out += sep;
      out += level ? paren(xs[i], level) : print(xs[i]);
    }
    return out;
  }

  std::string infix(ExprRef e, const char* op) {
    return paren(e->arg(0), sp::kRelational) + op + paren(e->arg(1), sp::kRelational);
  }

  std::string power(ExprRef base, int64_t exponent) {
    if (exponent == 1) return print(base);
    return paren(base, sp::kPow) + "**" + std::to_string(exponent);
  }

  // Text of (negative ? -m : m) * t (a Mul's own coefficient is ignored).
  std::string print_scaled(ExprRef t, uint64_t m, bool negative) {
    int level = negative ? sp::kAdd : sp::kMul;
    std::vector<std::string> parts;
    if (m != 1) parts.push_back(magnitude_string(m));
    if (t->kind() == ExprKind::Mul) {
      for (const auto& [b, k] : ordered_factors(t)) parts.push_back(k == 1 ? paren(b, level) : power(b, k));
    } else {
      parts.push_back(m == 1 && !negative ? print(t) : paren(t, level));
    }
    std::string out = negative ? "-" : "";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? "*" : "") + parts[i];
    return out;
  }

  // sympy's _print_Add: the sign comes out of each term; a term binding
  // looser than + (FloorDiv, Mod) is wrapped.
  std::string print_add(ExprRef e) {
    std::string out;
    bool first = true;
    for (const auto& [t, c] : ordered_add_terms(e)) {
      bool negative = c < 0;
      uint64_t m = magnitude(c);
      std::string text;
      if (t == nullptr) {
        text = magnitude_string(m);
      } else {
        text = print_scaled(t, m, false);
        if (scaled_precedence(t, m, false) < sp::kAdd) text = "(" + text + ")";
      }
      out += first ? (negative ? "-" : "") : (negative ? " - " : " + ");
      out += text;
      first = false;
    }
    return out;
  }
};

// ---------------------------------------------------------------------------
// Python-style printer
// ---------------------------------------------------------------------------

namespace py {
constexpr int kOr = 1, kAnd = 2, kNot = 3, kCompare = 4, kAdd = 5, kMul = 6, kUnary = 7, kPow = 8, kAtom = 9;
}

// sympy's argument order (Basic.compare), which torch's ExprPrinter prints
// a sum's and a product's arguments in: classes in sympy's ordering_of_classes
// order (numbers, Symbol, Pow, Mul, Add; others after, by name), then the
// length of the content, then the content.
struct SympyNode {
  std::string cls;
  int64_t number = 0;      // an Integer's value
  std::string name;        // a Symbol's
  size_t content_size = 0;
  std::vector<SympyNode> args;
};

int sympy_class_index(const std::string& cls) {
  static const char* const kOrder[] = {"Zero",  "One", "Half",          "Infinity", "NaN",  "NegativeOne",
                                       "NegativeInfinity", "Integer", "Rational", "Float", "Exp1", "Pi",
                                       "ImaginaryUnit", "Symbol", "Wild", "Pow", "Mul", "Add"};
  for (size_t i = 0; i < std::size(kOrder); ++i)
    if (cls == kOrder[i]) return static_cast<int>(i);
  return -1;
}

int sympy_compare(const SympyNode& a, const SympyNode& b) {
  if (a.cls != b.cls) {
    const int i = sympy_class_index(a.cls), j = sympy_class_index(b.cls);
    if (i < 0 && j < 0) return a.cls < b.cls ? -1 : 1;
    if (i < 0) return 1;
    if (j < 0) return -1;
    return i < j ? -1 : 1;
  }
  if (a.content_size != b.content_size) return a.content_size < b.content_size ? -1 : 1;
  if (a.cls == "Integer" || a.cls == "Zero" || a.cls == "One" || a.cls == "NegativeOne")
    return a.number == b.number ? 0 : (a.number < b.number ? -1 : 1);
  if (a.cls == "Symbol") return a.name == b.name ? 0 : (a.name < b.name ? -1 : 1);
  for (size_t i = 0; i < a.args.size() && i < b.args.size(); ++i)
    if (int c = sympy_compare(a.args[i], b.args[i])) return c;
  return 0;
}

SympyNode sympy_integer(int64_t v) {
  SympyNode n;
  n.cls = v == 0 ? "Zero" : v == 1 ? "One" : v == -1 ? "NegativeOne" : "Integer";
  n.number = v;
  n.content_size = 1;
  return n;
}

SympyNode sympy_node(ExprRef e);

SympyNode sympy_compound(std::string cls, std::vector<SympyNode> args) {
  SympyNode n;
  n.cls = std::move(cls);
  n.content_size = args.size();
  n.args = std::move(args);
  return n;
}

void sort_sympy_args(std::vector<SympyNode>& xs, size_t from) {
  std::stable_sort(xs.begin() + static_cast<std::ptrdiff_t>(from), xs.end(),
                   [](const SympyNode& a, const SympyNode& b) { return sympy_compare(a, b) < 0; });
}

// A Mul's factor b**k: b itself, or Pow(b, k).
SympyNode sympy_factor(ExprRef b, int64_t k) {
  return k == 1 ? sympy_node(b) : sympy_compound("Pow", {sympy_node(b), sympy_integer(k)});
}

// c * (the factors of t) as sympy's Mul holds it: the coefficient first.
SympyNode sympy_product(int64_t c, ExprRef t) {
  if (t->kind() == ExprKind::Mul) c *= t->value();
  std::vector<SympyNode> args;
  if (c != 1) args.push_back(sympy_integer(c));
  const size_t from = args.size();
  if (t->kind() == ExprKind::Mul) {
    for (const auto& [b, k] : t->terms()) args.push_back(sympy_factor(b, k));
  } else {
    args.push_back(sympy_node(t));
  }
  sort_sympy_args(args, from);
  if (args.size() == 1) return args.front();
  return sympy_compound("Mul", std::move(args));
}

SympyNode sympy_node(ExprRef e) {
  switch (e->kind()) {
    case ExprKind::Integer: return sympy_integer(e->value());
    case ExprKind::Symbol: {
      SympyNode n;
      n.cls = "Symbol";
      n.name = e->name();
      // Backed sizes carry more assumptions (positive) than unbacked ones: longer content.
      n.content_size = e->name().starts_with("u") ? 1 : 2;
      return n;
    }
    case ExprKind::Mul: return sympy_product(1, e);
    case ExprKind::Add: {
      std::vector<SympyNode> args;
      if (e->value() != 0) args.push_back(sympy_integer(e->value()));
      const size_t from = args.size();
      for (const auto& [t, c] : e->terms()) args.push_back(sympy_product(c, t));
      sort_sympy_args(args, from);
      return sympy_compound("Add", std::move(args));
    }
    default: break;
  }
  std::vector<SympyNode> args;
  for (ExprRef a : e->args()) args.push_back(sympy_node(a));
  const char* cls = e->kind() == ExprKind::FloorDiv ? "FloorDiv"
                    : e->kind() == ExprKind::Mod    ? "Mod"
                    : e->kind() == ExprKind::Max    ? "Max"
                    : e->kind() == ExprKind::Min    ? "Min"
                                                    : sympy_function_name(e->kind());
  return sympy_compound(cls, std::move(args));
}

// The terms of an Add in sympy's argument order: (term, coefficient), the
// constant as (nullptr, value), first.
std::vector<Term> sympy_add_order(ExprRef add) {
  std::vector<std::pair<SympyNode, Term>> keyed;
  for (const auto& [t, c] : add->terms()) keyed.emplace_back(sympy_product(c, t), Term{t, c});
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return sympy_compare(a.first, b.first) < 0; });
  std::vector<Term> out;
  if (add->value() != 0) out.emplace_back(nullptr, add->value());
  for (auto& k : keyed) out.push_back(k.second);
  return out;
}

// The factors of a Mul in sympy's argument order.
std::vector<Term> sympy_mul_order(ExprRef mul) {
  std::vector<std::pair<SympyNode, Term>> keyed;
  for (const auto& [b, k] : mul->terms())
    keyed.emplace_back(sympy_factor(b, k), Term{b, k});
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return sympy_compare(a.first, b.first) < 0; });
  std::vector<Term> out;
  for (auto& k : keyed) out.push_back(k.second);
  return out;
}

class PythonPrinter {
 public:
  PythonPrinter(const SymbolNamer& rename, bool torch_guard) : rename_(rename), torch_guard_(torch_guard) {}

  // Returns the text and sets `prec` to the precedence of its top operator.
  std::string print(ExprRef e, int& prec) {
    if (rename_ || torch_guard_ || e->kind() == ExprKind::Integer || e->kind() == ExprKind::Symbol)
      return print_node(e, prec);
    const Expr::PrintedText* kept = e->python_text();
    if (kept == nullptr) {
      int p = 0;
      std::string text = print_node(e, p);
      kept = e->keep_python_text({std::move(text), p});
    }
    prec = kept->prec;
    return kept->text;
  }

 private:
  std::string print_node(ExprRef e, int& prec) {
    switch (e->kind()) {
      case ExprKind::Integer:
        // sympy gives a negative number the precedence of +.
        prec = e->value() < 0 ? (torch_guard_ ? py::kAdd : py::kUnary) : py::kAtom;
        return std::to_string(e->value());
      case ExprKind::Symbol:
        prec = py::kAtom;
        return rename_ ? rename_(e) : e->name();
      case ExprKind::BoolConst:
        prec = py::kAtom;
        return e->value() ? "True" : "False";
      case ExprKind::Add: prec = py::kAdd; return torch_guard_ ? torch_add(e) : print_add(e);
      case ExprKind::Mul:
        if (torch_guard_) return torch_product(1, e, prec);
        return print_scaled(e, magnitude(e->value()), e->value() < 0, prec);
      case ExprKind::FloorDiv:
        if (torch_guard_) return torch_division(e, " // ", prec);
        prec = py::kMul;
        return operand(e->arg(0)) + "//" + operand(e->arg(1));
      case ExprKind::Mod:
        if (torch_guard_) return torch_division(e, " % ", prec);
        prec = py::kMul;
        return operand(e->arg(0)) + " % " + operand(e->arg(1));
      case ExprKind::CeilDiv:
        prec = py::kUnary;
        return "-((-" + operand(e->arg(0)) + ")//" + operand(e->arg(1)) + ")";
      case ExprKind::Max: return min_max(e, true, prec);
      case ExprKind::Min: return min_max(e, false, prec);
      case ExprKind::Eq: return compare(e, " == ", prec);
      case ExprKind::Ne: return compare(e, " != ", prec);
      case ExprKind::Lt: return compare(e, " < ", prec);
      case ExprKind::Le: return compare(e, " <= ", prec);
      case ExprKind::Gt: return compare(e, " > ", prec);
      case ExprKind::Ge: return compare(e, " >= ", prec);
      case ExprKind::And: prec = py::kAnd; return join(ordered_args(e), " and ", py::kAnd);
      case ExprKind::Or: prec = py::kOr; return join(ordered_args(e), " or ", py::kOr);
      case ExprKind::Not: {
        prec = py::kNot;
        int ignored;
        return "not (" + print(e->arg(0), ignored) + ")";
      }
      case ExprKind::FloatConst: return float_constant(e->float_value(), prec);
      case ExprKind::ToFloat: return call("float", e->arg(0), prec);
      case ExprKind::FloatAdd: {
        prec = py::kAdd;
        auto [a, b] = printed_order(e);
        std::string left = paren(a, py::kAdd - 1);
        if (b->kind() == ExprKind::FloatMul && is_minus_one(b->arg(0))) return left + " - " + paren(b->arg(1), py::kAdd);
        if (auto c = negative_coefficient(b)) {
          int ignored;
          return left + " - " + print(float_mul(float_const(-*c), b->arg(1)), ignored);
        }
        if (auto v = as_float(b); v && std::signbit(*v) && !std::isnan(*v)) {
          int ignored;
          return left + " - " + float_constant(-*v, ignored);
        }
        return left + " + " + paren(b, py::kAdd);
      }
      case ExprKind::FloatMul:
        if (is_minus_one(e->arg(0))) {
          prec = py::kUnary;
          return "-" + paren(e->arg(1), py::kUnary - 1);
        }
        prec = py::kMul;
        {
          auto [a, b] = printed_order(e);
          return factor(a) + "*" + paren(b, py::kMul);
        }
      case ExprKind::FloatTrueDiv:
      case ExprKind::IntTrueDiv:  // int / int is true division in Python too
        prec = py::kMul;
        return paren(e->arg(0), py::kMul - 1) + " / " + paren(e->arg(1), py::kMul);
      case ExprKind::FloatPow:
        prec = py::kPow;
        return paren(e->arg(0), py::kPow) + " ** " + paren(e->arg(1), py::kPow - 1);
      case ExprKind::FloatMax: return min_max(e, true, prec);
      case ExprKind::FloatMin: return min_max(e, false, prec);
      // math.floor and math.ceil without an import: float // 1 is the exact floor.
      case ExprKind::FloorToInt: prec = py::kAtom; return "int(" + paren(e->arg(0), py::kMul) + " // 1)";
      case ExprKind::CeilToInt: prec = py::kUnary; return "-int(-" + paren(e->arg(0), py::kUnary - 1) + " // 1)";
      case ExprKind::TruncToInt: return call("int", e->arg(0), prec);
      case ExprKind::FloatSqrt: return call("math.sqrt", e->arg(0), prec);
      case ExprKind::ToFloat32: return call("float32", e->arg(0), prec);
      case ExprKind::RoundToInt: return call("round", e->arg(0), prec);
    }
    prec = py::kAtom;
    return "?";
  }

 private:
  // Wrap when the operand's precedence is <= level.
  std::string paren(ExprRef e, int level) {
    int p;
    std::string s = print(e, p);
    return p <= level ? "(" + s + ")" : s;
  }

  // Operands of //, %, ceildiv and factors: anything but an atom or power is wrapped.
  std::string operand(ExprRef e) { return paren(e, py::kUnary); }

  // torch's PythonPrinter: FloorDiv and PythonMod take sympy's relational
  // precedence (below +), and wrap every operand but a symbol and a
  // non-negative integer.
  std::string torch_division(ExprRef e, const char* op, int& prec) {
    auto arg = [&](ExprRef a) {
      int p;
      std::string s = print(a, p);
      return a->is_symbol() || (a->is_integer() && a->value() >= 0) ? s : "(" + s + ")";
    };
    prec = py::kCompare;
    return arg(e->arg(0)) + op + arg(e->arg(1));
  }

  std::string call(const char* fn, ExprRef arg, int& prec) {
    int inner;
    std::string text = std::string(fn) + "(" + print(arg, inner) + ")";
    prec = py::kAtom;
    return text;
  }

  // Python's max(...) / min(...); guards print torch.sym_max / torch.sym_min,
  // nested two operands a call from the right: a guard is evaluated against
  // SymInts, and Python's max() would guard on the comparison it makes.
  std::string min_max(ExprRef e, bool is_max, int& prec) {
    prec = py::kAtom;
    const std::vector<ExprRef> xs = ordered_args(e);
    if (!torch_guard_) return std::string(is_max ? "max(" : "min(") + join(xs, ", ", 0) + ")";
    const std::string fn = is_max ? "torch.sym_max(" : "torch.sym_min(";
    int p;
    std::string out = print(xs.back(), p);
    for (size_t i = xs.size() - 1; i-- > 0;) out = fn + print(xs[i], p) + ", " + out + ")";
    return out;
  }

  std::string join(const std::vector<ExprRef>& xs, const char* sep, int level) {
    std::string out;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i) out += sep;
      int p;
      out += level ? paren(xs[i], level) : print(xs[i], p);
    }
    return out;
  }

  std::string compare(ExprRef e, const char* op, int& prec) {
    prec = py::kCompare;
    // sympy ranks == and != with *: a guard wraps a sum or product beside them.
    const bool equality = e->kind() == ExprKind::Eq || e->kind() == ExprKind::Ne;
    const int level = torch_guard_ && equality ? py::kMul : py::kCompare;
    return paren(e->arg(0), level) + op + paren(e->arg(1), level);
  }

  // torch's ExprPrinter._print_Add: the arguments in sympy's order joined by
  // " + ", each wrapped when sympy ranks it at or below +.
  std::string torch_add(ExprRef e) {
    std::string out;
    for (const auto& [t, c] : sympy_add_order(e)) {
      if (!out.empty()) out += " + ";
      int p;
      std::string text = t == nullptr ? print(integer(c), p) : (c == 1 ? print(t, p) : torch_product(c, t, p));
      out += p <= py::kAdd ? "(" + text + ")" : text;
    }
    return out;
  }

  // torch's ExprPrinter._print_Mul over c * t: the coefficient, then the
  // factors in sympy's order, joined by "*"; sympy's precedence_Mul ranks it
  // with + when the coefficient is negative, unless a factor is a // or %.
  std::string torch_product(int64_t c, ExprRef t, int& prec) {
    std::vector<std::pair<ExprRef, int64_t>> factors;
    if (t->kind() == ExprKind::Mul) {
      c = c * t->value();
      for (const auto& f : sympy_mul_order(t)) factors.push_back(f);
    } else {
      factors.emplace_back(t, 1);
    }
    bool divides = false;
    for (const auto& [b, k] : factors)
      divides = divides || b->kind() == ExprKind::FloorDiv || b->kind() == ExprKind::Mod;
    prec = c < 0 && !divides ? py::kAdd : py::kMul;
    const int level = prec;
    std::vector<std::string> parts;
    if (c != 1) parts.push_back(c < 0 ? "(" + std::to_string(c) + ")" : std::to_string(c));
    for (const auto& [b, k] : factors) {
      std::string f = k == 1 ? paren(b, level) : power(b, k);
      parts.push_back(f.starts_with("-") ? "(" + f + ")" : f);  // a ceil division's leading minus
    }
    if (parts.size() == 1 && c == 1) {  // a lone factor, or a power (sympy's Pow ranks above *)
      const auto& [b, k] = factors.front();
      if (k != 1) {
        prec = py::kPow;
        return power(b, k);
      }
      return print(b, prec);
    }
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? "*" : "") + parts[i];
    return out;
  }

  std::string power(ExprRef base, int64_t exponent) {
    if (exponent == 1) return operand(base);
    if (torch_guard_) {  // torch's PythonPrinter._print_Pow: the base repeated, joined by *
      const std::string b = paren(base, py::kMul);
      std::string out = b;
      for (int64_t i = 1; i < exponent; ++i) out += "*" + b;
      return out;
    }
    return paren(base, py::kPow) + "**" + std::to_string(exponent);
  }

  // Text of (negative ? -m : m) * t.
  std::string print_scaled(ExprRef t, uint64_t m, bool negative, int& prec) {
    std::vector<std::string> parts;
    if (m != 1) parts.push_back(magnitude_string(m));
    if (t->kind() == ExprKind::Mul) {
      bool repeated = false;  // a guard's b**k printed b*b*...: a product
      for (const auto& [b, k] : ordered_factors(t)) {
        parts.push_back(power(b, k));
        repeated = repeated || (torch_guard_ && k > 1);
      }
      prec = parts.size() > 1 || repeated ? py::kMul : (negative ? py::kUnary : py::kPow);
    } else if (m == 1) {
      std::string s = negative ? operand(t) : print(t, prec);
      if (negative) prec = py::kUnary;
      parts.push_back(s);
    } else {
      parts.push_back(operand(t));
      prec = py::kMul;
    }
    std::string out = negative ? "-" : "";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? "*" : "") + parts[i];
    return out;
  }

  std::string print_add(ExprRef e) {
    std::string out;
    bool first = true;
    for (const auto& [t, c] : ordered_add_terms(e)) {
      bool negative = c < 0;
      std::string text;
      if (t == nullptr) {
        text = magnitude_string(magnitude(c));
      } else {
        int p;
        text = print_scaled(t, magnitude(c), false, p);
        // `-a//b` would mean `(-a)//b`: a leading minus needs the term wrapped
        // when its top operator is // or %; a term already starting with a
        // minus (ceildiv) is wrapped after any sign.
        bool starts_negative = !text.empty() && text[0] == '-';
        bool divides = t->kind() == ExprKind::FloorDiv || t->kind() == ExprKind::Mod;
        if (starts_negative || (first && negative && divides && magnitude(c) == 1) || p < py::kAdd)
          text = "(" + text + ")";
      }
      if (first) {
        out += negative ? "-" : "";
      } else {
        out += negative ? " - " : " + ";
      }
      out += text;
      first = false;
    }
    return out;
  }

  static bool is_minus_one(ExprRef e) { return e->kind() == ExprKind::FloatConst && e->float_value() == -1.0; }

  // The left factor of a float product: a quotient is wrapped for the reader,
  // though Python would group `a / b*c` the same way.
  std::string factor(ExprRef e) {
    const bool quotient = e->kind() == ExprKind::FloatTrueDiv || e->kind() == ExprKind::IntTrueDiv;
    return paren(e, quotient ? py::kMul : py::kMul - 1);
  }

  static std::string float_constant(double v, int& prec) {
    prec = std::signbit(v) && !std::isnan(v) ? py::kUnary : py::kAtom;
    if (std::isnan(v)) return "float('nan')";
    if (std::isinf(v)) return v < 0 ? "-float('inf')" : "float('inf')";
    return python_float_repr(v);
  }

  const SymbolNamer& rename_;
  const bool torch_guard_;  // to_guard_string
};

}  // namespace

std::string to_sympy_string(ExprRef e) {
  if (e == nullptr) return "<null>";
  return SympyPrinter().print(e);
}

std::string to_python_string(ExprRef e, const SymbolNamer& rename) {
  if (e == nullptr) return "<null>";
  int prec;
  return PythonPrinter(rename, false).print(e, prec);
}

std::string to_guard_string(ExprRef e, const SymbolNamer& rename) {
  if (e == nullptr) return "<null>";
  int prec;
  return PythonPrinter(rename, true).print(safe_expand(e), prec);  // produce_guards simplifies (safe_expand) first
}

}  // namespace fakeprop
