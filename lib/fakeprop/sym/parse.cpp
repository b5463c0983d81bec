#include "fakeprop/sym/parse.h"

#include <cctype>
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
  ExprRef parse_sum() {
    ExprRef e = parse_term();
    for (;;) {
      if (eat("+")) e = add(e, parse_term());
      else if (eat("-")) e = sub(e, parse_term());
      else return e;
    }
  }
  ExprRef parse_term() {
    ExprRef e = parse_unary();
    for (;;) {
      if (eat("//")) e = floordiv(e, parse_unary());
      else if (eat("**")) fail("'**' needs a non-negative integer exponent");
      else if (eat("*")) e = mul(e, parse_power_or_unary());
      else if (eat("%")) e = mod(e, parse_unary());
      else return e;
    }
  }
  ExprRef parse_power_or_unary() { return parse_unary(); }
  ExprRef parse_unary() {
    Depth d(*this);
    if (eat("-")) return neg(parse_unary());
    if (eat("+")) return parse_unary();
    ExprRef base = parse_atom();
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
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      const std::string digits(s_.substr(start, pos_ - start));
      if (digits.size() > 19 || (digits.size() == 19 && digits > "9223372036854775807")) fail("integer out of range");
      return integer(std::stoll(digits));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string_view name = s_.substr(start, pos_ - start);
      if (name == "True") return true_expr();
      if (name == "False") return false_expr();
      if (name == "max" || name == "Max" || name == "min" || name == "Min") {
        std::vector<ExprRef> args = parse_call_args();
        if (args.empty()) fail(std::string(name) + "() needs arguments");
        return (name[1] == 'a') ? max(std::span<const ExprRef>(args)) : min(std::span<const ExprRef>(args));
      }
      ExprRef sym = symbol_(name);
      if (!sym) fail("unknown name '" + std::string(name) + "'");
      return sym;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  std::string_view s_;
  const std::function<ExprRef(std::string_view)>& symbol_;
  size_t pos_ = 0;
  size_t depth_ = 0;
};

}  // namespace

ExprRef parse_expr(std::string_view text, const std::function<ExprRef(std::string_view)>& symbol) {
  if (text.size() > kMaxLength) throw InputError("expression longer than 100000 characters");
  return Parser(text, symbol).parse();
}

}  // namespace fakeprop
