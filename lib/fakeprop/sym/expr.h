// Immutable, interned integer, float and boolean expressions over size symbols.
//
// Every builder returns the canonical interned node, so two expressions are
// equal exactly when their pointers are equal. Canonical forms:
//   Integer            a 64-bit constant (overflow throws OverflowError)
//   Symbol             a named size variable (s0, u3, batch)
//   Add                constant + sum of coeff*term, coeff != 0, >= 1 term,
//                      terms are never Integer, Add, or Mul with coeff != 1
//   Mul                coeff * prod(base^exp), exp >= 1, bases never Integer,
//                      Add-free products stay as Mul, a lone 1*x is just x
//   FloorDiv, Mod, CeilDiv   Python semantics (floor toward -inf)
//   Max, Min           n-ary, flattened, deduplicated, sorted
// Float expressions (SymFloat) fold only where IEEE double arithmetic as
// Python does it gives the same bits; nothing is reassociated or distributed:
//   FloatConst         a double (one NaN; -0.0 and 0.0 stay apart)
//   Symbol             a float symbol (zuf0) is a Symbol marked float
//   ToFloat            float(int expression); of an Integer, the constant
//   FloatAdd FloatMul  binary, commutative: a constant operand is the second
//                      of FloatAdd and the first of FloatMul, else by id;
//                      x*1.0 and x + -0.0 are x
//   FloatTrueDiv       float / float;  IntTrueDiv: int / int (one rounding)
//   FloatPow           float ** float;  x**1.0 is x, x**0.0 is 1.0
//   FloatSqrt          the correctly rounded square root (NaN below 0)
//   ToFloat32          a double rounded to the nearest IEEE single, as ONNX
//                      float tensors compute; idempotent, and the identity on
//                      a float32 constant and on an integral value taken from
//                      a float32 (FloorToInt(ToFloat32(x)) and kin)
//   FloatMax FloatMin  n-ary like Max and Min
//   FloorToInt CeilToInt TruncToInt RoundToInt   float to integer (round
//                      half to even); of ToFloat(n), n (sizes stay far
//                      below 2**53, where float(n) is exact)
// Relations compare two integer or two float expressions; an integer side
// facing a float side is converted with ToFloat first, as Python promotes.
//   Eq Ne Lt Le Gt Ge  relations between two integer expressions
//   And Or Not         boolean structure; True/False are constants
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fakeprop {

enum class ExprKind : uint8_t {
  Integer,
  Symbol,
  Add,
  Mul,
  FloorDiv,
  Mod,
  CeilDiv,
  Max,
  Min,
  FloatConst,
  ToFloat,
  FloatAdd,
  FloatMul,
  FloatTrueDiv,
  IntTrueDiv,
  FloatPow,
  FloatSqrt,
  ToFloat32,
  FloatMax,
  FloatMin,
  FloorToInt,
  CeilToInt,
  TruncToInt,
  RoundToInt,
  BoolConst,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  And,
  Or,
  Not,
};

// FloorToInt, CeilToInt, TruncToInt, RoundToInt: a float taken to an integer.
inline bool is_float_to_int(ExprKind k) { return k >= ExprKind::FloorToInt && k <= ExprKind::RoundToInt; }

class Expr;
using ExprRef = const Expr*;

class Expr {
 public:
  using Term = std::pair<ExprRef, int64_t>;  // (term, coefficient) or (base, exponent)

  ExprKind kind() const { return kind_; }
  size_t hash() const { return hash_; }
  // Creation order; stable within a process and used for canonical ordering.
  uint64_t id() const { return id_; }

  bool is_integer() const { return kind_ == ExprKind::Integer; }
  bool is_symbol() const { return kind_ == ExprKind::Symbol; }
  bool is_bool() const { return kind_ >= ExprKind::BoolConst; }
  bool is_relation() const { return kind_ >= ExprKind::Eq && kind_ <= ExprKind::Ge; }
  // A float-valued expression (SymFloat); neither integer nor boolean.
  bool is_float() const {
    return (kind_ >= ExprKind::FloatConst && kind_ <= ExprKind::FloatMin) || (kind_ == ExprKind::Symbol && value_ == 1);
  }
  // FloatConst: the double.
  double float_value() const;

  // Integer: the value. BoolConst: 0 or 1. Add: the constant. Mul: the coefficient.
  // Symbol: 1 for a float symbol. FloatConst: the double's bits.
  int64_t value() const { return value_; }
  // Symbol name.
  const std::string& name() const { return name_; }
  // Add: (term, coeff) pairs. Mul: (base, exponent) pairs. Sorted by id.
  std::span<const Term> terms() const { return terms_; }
  // Operands of FloorDiv, Mod, CeilDiv (2), Max/Min (n), relations (2), And/Or (n), Not (1),
  // and of the float kinds (ToFloat, FloatSqrt, ToFloat32 and the *ToInt 1, FloatMax/FloatMin n, the rest 2).
  std::span<const ExprRef> args() const { return args_; }
  ExprRef arg(size_t i) const { return args_[i]; }
  // Whether a Symbol occurs in it: fixed at construction from the children,
  // since every query of the ShapeEnv asks first.
  bool has_symbols() const { return has_symbols_; }

  // Internal: construction happens only through the interner.
  Expr(ExprKind kind, int64_t value, std::string name, std::vector<Term> terms, std::vector<ExprRef> args);
  ~Expr();
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  // Internal: to_python_string's text of this node with the default symbol
  // names, kept once computed (nodes are immutable and live as long as the
  // process), so a subexpression shared by many sizes prints once.
  struct PrintedText {
    std::string text;
    int prec;
  };
  const PrintedText* python_text() const { return python_text_.load(std::memory_order_acquire); }
  // Stores `t` unless another thread stored first; returns the kept one.
  const PrintedText* keep_python_text(PrintedText t) const;
  // Internal: free_symbols' answer for this node, kept the same way (the
  // report and every guard ask it again for the same expressions).
  const std::vector<ExprRef>* kept_free_symbols() const { return free_symbols_.load(std::memory_order_acquire); }
  const std::vector<ExprRef>* keep_free_symbols(std::vector<ExprRef> symbols) const;
  void set_identity(size_t hash, uint64_t id) {
    hash_ = hash;
    id_ = id;
  }

 private:
  ExprKind kind_;
  bool has_symbols_;
  int64_t value_;
  size_t hash_ = 0;
  uint64_t id_ = 0;
  std::string name_;
  std::vector<Term> terms_;
  std::vector<ExprRef> args_;
  mutable std::atomic<const PrintedText*> python_text_{nullptr};
  mutable std::atomic<const std::vector<ExprRef>*> free_symbols_{nullptr};
};

// ---- builders (all return canonical interned nodes) ----
ExprRef integer(int64_t v);
ExprRef symbol(std::string_view name);
ExprRef bool_const(bool v);
ExprRef true_expr();
ExprRef false_expr();

ExprRef add(ExprRef a, ExprRef b);
ExprRef sub(ExprRef a, ExprRef b);
ExprRef neg(ExprRef a);
ExprRef mul(ExprRef a, ExprRef b);
ExprRef mul(ExprRef a, int64_t c);
ExprRef pow(ExprRef a, int64_t exponent);  // exponent >= 0
// a / b when b divides a as a monomial: the coefficients divide and each
// factor of b is in a to at least its power (6*s0*s1 / (3*s0) = 2*s1); an
// integer is all coefficient, any other node but a product one factor.
// nullopt otherwise, and when b is 0.
std::optional<ExprRef> monomial_quotient(ExprRef a, ExprRef b);
ExprRef floordiv(ExprRef a, ExprRef b);    // throws Error on division by zero
ExprRef mod(ExprRef a, ExprRef b);
ExprRef ceildiv(ExprRef a, ExprRef b);
ExprRef max(ExprRef a, ExprRef b);
ExprRef min(ExprRef a, ExprRef b);
ExprRef max(std::span<const ExprRef> xs);
ExprRef min(std::span<const ExprRef> xs);

// Float builders. An integer operand is converted with to_float first.
ExprRef float_const(double v);
ExprRef float_symbol(std::string_view name);
ExprRef to_float(ExprRef a);
ExprRef float_add(ExprRef a, ExprRef b);
ExprRef float_sub(ExprRef a, ExprRef b);  // a + (-1.0)*b, which IEEE makes the same
ExprRef float_neg(ExprRef a);
ExprRef float_mul(ExprRef a, ExprRef b);
ExprRef float_truediv(ExprRef a, ExprRef b);  // throws Error on division by zero
ExprRef int_truediv(ExprRef a, ExprRef b);    // both integer; throws Error on /0
ExprRef float_pow(ExprRef a, ExprRef b);
ExprRef float_sqrt(ExprRef a);
ExprRef to_float32(ExprRef a);
ExprRef float_max(ExprRef a, ExprRef b);
ExprRef float_min(ExprRef a, ExprRef b);
ExprRef float_max(std::span<const ExprRef> xs);
ExprRef float_min(std::span<const ExprRef> xs);
// Float to integer; an integer operand is returned as it is.
ExprRef floor_to_int(ExprRef a);
ExprRef ceil_to_int(ExprRef a);
ExprRef trunc_to_int(ExprRef a);
ExprRef round_to_int(ExprRef a);
// True division as Python's `/` on these operands: IntTrueDiv for two
// integers, FloatTrueDiv otherwise.
ExprRef true_div(ExprRef a, ExprRef b);

ExprRef eq(ExprRef a, ExprRef b);
ExprRef ne(ExprRef a, ExprRef b);
ExprRef lt(ExprRef a, ExprRef b);
ExprRef le(ExprRef a, ExprRef b);
ExprRef gt(ExprRef a, ExprRef b);
ExprRef ge(ExprRef a, ExprRef b);
ExprRef logical_and(ExprRef a, ExprRef b);
ExprRef logical_or(ExprRef a, ExprRef b);
ExprRef logical_and(std::span<const ExprRef> xs);
ExprRef logical_or(std::span<const ExprRef> xs);
ExprRef logical_not(ExprRef a);

// Rebuild a node of `kind` from operands, through the simplifying builders.
ExprRef rebuild(ExprKind kind, std::span<const ExprRef> args);

// ---- queries ----
std::optional<int64_t> as_integer(ExprRef e);
std::optional<bool> as_bool(ExprRef e);
std::optional<double> as_float(ExprRef e);  // a FloatConst's value
// Free symbols, sorted by name for deterministic output.
std::vector<ExprRef> free_symbols(ExprRef e);
bool has_free_symbols(ExprRef e);
// Number of nodes in the expression tree (counting shared nodes once per use).
size_t expr_size(ExprRef e);

using Substitution = std::unordered_map<ExprRef, ExprRef>;
// Replace symbols (keys must be Symbols) and rebuild canonically.
ExprRef substitute(ExprRef e, const Substitution& subs);

// Evaluate with every free symbol bound; std::nullopt when a symbol is unbound.
// Integer results of boolean expressions are 0 / 1. Throws Error on /0.
// Float symbols take their values from `float_lookup`; without one they are unbound.
using Assignment = std::unordered_map<ExprRef, int64_t>;
using FloatLookup = std::function<std::optional<double>(ExprRef)>;
std::optional<int64_t> evaluate(ExprRef e, const Assignment& values);
std::optional<int64_t> evaluate(ExprRef e, const std::function<std::optional<int64_t>(ExprRef)>& lookup,
                                const FloatLookup& float_lookup = nullptr);
// Value of a float expression: its integer symbols from `lookup`, its float
// symbols from `float_lookup`. Throws Error where Python raises.
std::optional<double> evaluate_float(ExprRef e, const std::function<std::optional<int64_t>(ExprRef)>& lookup,
                                     const FloatLookup& float_lookup = nullptr);

// ---- printers ----
// sympy style, as PyTorch's logs show it: Eq(Mod(s0, 8), 0), 2*s0, (s0//2), Max(1, s0)
std::string to_sympy_string(ExprRef e);
// Python style, evaluable by eval() without imports: s0 % 8 == 0, s0//2,
// max(1, s0); floats as float(s0), s0 / 2, int(x // 1) (floor), -int(-x // 1)
// (ceil), int(x) (trunc), round(x), and constants in repr() form.
// `rename` (optional) maps a symbol to the text printed for it (e.g. a source).
using SymbolNamer = std::function<std::string(ExprRef)>;
std::string to_python_string(ExprRef e, const SymbolNamer& rename = nullptr);
// As torch's produce_guards prints a guard (its PythonPrinter): // and % bind
// below +, so they are wrapped inside a sum, a product or a comparison, and
// their operands are wrapped unless a symbol or a non-negative integer:
// (L['x'].size()[0] // 4) != 1, ((s1*s0) % 2) == 0.
std::string to_guard_string(ExprRef e, const SymbolNamer& rename);

// ---- checked 64-bit arithmetic (throws OverflowError) ----
int64_t checked_add(int64_t a, int64_t b);
int64_t checked_sub(int64_t a, int64_t b);
int64_t checked_mul(int64_t a, int64_t b);
int64_t python_floordiv(int64_t a, int64_t b);  // throws Error on b == 0
int64_t python_mod(int64_t a, int64_t b);       // result has the sign of b

// Number of interned nodes alive (for --stats and benchmarks).
size_t interned_expr_count();

}  // namespace fakeprop
