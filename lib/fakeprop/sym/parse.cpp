#include "fakeprop/sym/parse.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

constexpr size_t kMaxDepth = 200;
constexpr size_t kMaxLength = 100000;

class Parser {
 public:
  Parser(std::string_view text, const std::function<ExprRef(std::string_view)>& symbol)
      : s_(text), symbol_(symbol) {}

  ExprRef parse() {
    ExprRef e = parse_or();
    skip_space();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("cannot parse expression '" + std::string(s_.substr(0, 80)) + "': " + what + " at position " +
                     std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip_space();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    // Keywords must not run into an identifier (and / or / not).
    if (std::isalpha(static_cast<unsigned char>(tok[0])) && pos_ + tok.size() < s_.size() &&
        (std::isalnum(static_cast<unsigned char>(s_[pos_ + tok.size()])) || s_[pos_ + tok.size()] == '_'))
      return false;
    pos_ += tok.size();
    return true;
  }
  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth) p_.fail("nested too deeply");
    }
    ~Depth() { --p_.depth_; }
    Parser& p_;
  };

  ExprRef parse_or() {
    Depth d(*this);
    ExprRef e = parse_and();
    while (eat("or")) e = logical_or(e, parse_and());
    return e;
  }
  ExprRef parse_and() {
    ExprRef e = parse_not();
    while (eat("and")) e = logical_and(e, parse_not());
    return e;
  }
  ExprRef parse_not() {
    Depth d(*this);
    if (eat("not")) return logical_not(parse_not());
    return parse_comparison();
  }
  ExprRef parse_comparison() {
    ExprRef lhs = parse_sum();
    ExprRef result = nullptr;
    // Python chains: a <= b <= c means a <= b and b <= c.
    for (;;) {
      ExprRef (*rel)(ExprRef, ExprRef) = nullptr;
      if (eat("==")) rel = eq;
      else if (eat("!=")) rel = ne;
      else if (eat("<=")) rel = le;
      else if (eat(">=")) rel = ge;
      else if (eat("<")) rel = lt;
      else if (eat(">")) rel = gt;
      if (!rel) break;
      ExprRef rhs = parse_sum();
      ExprRef c = rel(lhs, rhs);
      result = result ? logical_and(result, c) : c;
      lhs = rhs;
    }
    return result ? result : lhs;
  }
  // Python's arithmetic: an operation with a float operand is a float one.
  static bool floats(ExprRef a, ExprRef b) { return a->is_float() || b->is_float(); }
  ExprRef parse_sum() {
    ExprRef e = parse_term();
    for (;;) {
      if (eat("+")) {
        ExprRef b = parse_term();
        e = floats(e, b) ? float_add(e, b) : add(e, b);
      } else if (eat("-")) {
        ExprRef b = parse_term();
        e = floats(e, b) ? float_sub(e, b) : sub(e, b);
      } else {
        return e;
      }
    }
  }
  ExprRef parse_term() {
    ExprRef e = parse_unary();
    for (;;) {
      if (eat("//")) {
        ExprRef b = parse_unary();
        // x // 1 of a float is its floor, as a float: how the Python form writes math.floor.
        if (e->is_float() && (as_integer(b) == 1 || as_float(b) == 1.0)) e = to_float(floor_to_int(e));
        else e = floordiv(e, b);
      } else if (eat("**")) {
        fail("'**' needs a non-negative integer exponent");
      } else if (eat("*")) {
        ExprRef b = parse_unary();
        e = floats(e, b) ? float_mul(e, b) : mul(e, b);
      } else if (eat("/")) {
        e = true_div(e, parse_unary());
      } else if (eat("%")) {
        e = mod(e, parse_unary());
      } else {
        return e;
      }
    }
  }
  ExprRef parse_unary() {
    Depth d(*this);
    if (eat("-")) {
      ExprRef x = parse_unary();
      return x->is_float() ? float_neg(x) : neg(x);
    }
    if (eat("+")) return parse_unary();
    ExprRef base = parse_atom();
    skip_space();
    if (s_.substr(pos_, 2) == "**" && (base->is_float() || next_is_float_literal(pos_ + 2))) {
      pos_ += 2;
      return float_pow(base, parse_unary());
    }
    if (eat("**")) {
      skip_space();
      size_t start = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (start == pos_ || pos_ - start > 3) fail("'**' needs a small non-negative integer exponent");
      return pow(base, std::stoll(std::string(s_.substr(start, pos_ - start))));
    }
    return base;
  }
  std::vector<ExprRef> parse_call_args() {
    std::vector<ExprRef> args;
    if (!eat("(")) fail("expected '('");
    if (eat(")")) return args;
    do {
      args.push_back(parse_or());
    } while (eat(","));
    if (!eat(")")) fail("expected ')'");
    return args;
  }
  ExprRef parse_atom() {
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      ExprRef e = parse_or();
      if (!eat(")")) fail("expected ')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      if (next_is_float_literal(pos_)) return float_literal();
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      const std::string digits(s_.substr(start, pos_ - start));
      if (digits.size() > 19 || (digits.size() == 19 && digits > "9223372036854775807")) fail("integer out of range");
      return integer(std::stoll(digits));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string_view name = s_.substr(start, pos_ - start);
      if (name == "math" && s_.substr(pos_, 5) == ".sqrt") {  // the Python printer's math.sqrt
        pos_ += 5;
        name = s_.substr(start, pos_ - start);
      }
      if (name == "torch" && (s_.substr(pos_, 8) == ".sym_max" || s_.substr(pos_, 8) == ".sym_min")) {
        pos_ += 8;  // a guard's torch.sym_max(a, b): max of two
        name = s_.substr(pos_ - 3, 3);
      }
      if (name == "True") return true_expr();
      if (name == "False") return false_expr();
      if (name == "max" || name == "Max" || name == "min" || name == "Min") {
        std::vector<ExprRef> args = parse_call_args();
        if (args.empty()) fail(std::string(name) + "() needs arguments");
        const bool any_float = std::any_of(args.begin(), args.end(), [](ExprRef a) { return a->is_float(); });
        const std::span<const ExprRef> xs(args);
        if (any_float) return name[1] == 'a' ? float_max(xs) : float_min(xs);
        return name[1] == 'a' ? max(xs) : min(xs);
      }
      if (auto f = float_function(name)) return *f;
      ExprRef sym = symbol_(name);
      if (!sym) fail("unknown name '" + std::string(name) + "'");
      return sym;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  // 1.5, 2e-05, 1.7000000000000000: a float literal (digits, then '.' or an exponent).
  bool next_is_float_literal(size_t at) const {
    while (at < s_.size() && std::isspace(static_cast<unsigned char>(s_[at]))) ++at;
    if (at >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[at]))) return false;
    while (at < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at]))) ++at;
    return at < s_.size() && (s_[at] == '.' || s_[at] == 'e' || s_[at] == 'E');
  }
  // strtod rounds a decimal literal correctly, as Python's float() does.
  ExprRef float_literal() {
    const std::string rest(s_.substr(pos_, 64));
    char* end = nullptr;
    const double v = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) fail("bad float literal");
    pos_ += static_cast<size_t>(end - rest.c_str());
    return float_const(v);
  }
  // The float functions both printers write (sympy style and Python style).
  std::optional<ExprRef> float_function(std::string_view name) {
    using Unary = ExprRef (*)(ExprRef);
    using Binary = ExprRef (*)(ExprRef, ExprRef);
    Unary unary = name == "ToFloat" || name == "float" ? to_float
                  : name == "FloorToInt"               ? floor_to_int
                  : name == "CeilToInt"                ? ceil_to_int
                  : name == "TruncToInt" || name == "int" ? trunc_to_int
                  : name == "RoundToInt" || name == "round" ? round_to_int
                  : name == "OpaqueUnaryFn_sqrt" || name == "math.sqrt" ? float_sqrt
                  : name == "ToFloat32" || name == "float32" ? to_float32
                                                           : nullptr;
    Binary binary = name == "IntTrueDiv" ? int_truediv
                    : name == "FloatTrueDiv" ? float_truediv
                    : name == "FloatPow" ? float_pow
                                         : nullptr;
    if (!unary && !binary) return std::nullopt;
    std::vector<ExprRef> args = parse_call_args();
    if (args.size() != (unary ? 1u : 2u)) fail(std::string(name) + "() takes " + (unary ? "1 argument" : "2 arguments"));
    if (unary == to_float && args[0]->is_float()) return args[0];  // float(x) of a float is x
    return unary ? unary(args[0]) : binary(args[0], args[1]);
  }

  std::string_view s_;
  const std::function<ExprRef(std::string_view)>& symbol_;
  size_t pos_ = 0;
  size_t depth_ = 0;
};

}  // namespace

ExprRef parse_expr(std::string_view text, const std::function<ExprRef(std::string_view)>& symbol) {
  if (text.size() > kMaxLength) throw InputError("expression longer than 100000 characters");
  try {
    return Parser(text, symbol).parse();
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {  // a builder's type error or division by zero
    throw InputError("cannot parse expression '" + std::string(text.substr(0, 80)) + "': " + e.what());
  }
}

}  // namespace fakeprop
