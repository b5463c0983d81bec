#include "fakeprop/custom_ops/rule_expr.h"

#include <cctype>
#include <limits>
#include <optional>

namespace fakeprop::custom_ops {

// ---- lexing ----

RuleLexer::RuleLexer(std::string_view line) : line_(line) {
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == '#') break;  // a comment to the end of the line
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.offset = static_cast<uint32_t>(i);
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      int64_t v = 0;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) {
        const int digit = line[j] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) throw RuleSyntaxError{t.offset, "integer too large"};
        v = v * 10 + digit;
        ++j;
      }
      t.kind = Kind::Int;
      t.value = v;
      t.text = std::string(line.substr(i, j - i));
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
      t.kind = Kind::Name;
      t.text = std::string(line.substr(i, j - i));
      i = j;
    } else {
      static constexpr std::string_view kTwo[] = {"//", "==", "!=", "<=", ">=", "..", "::"};
      t.kind = Kind::Punct;
      for (std::string_view two : kTwo)
        if (line.substr(i, 2) == two) t.text = std::string(two);
      if (t.text.empty()) {
        if (std::string_view("+-*%<>()[],.:=").find(c) == std::string_view::npos)
          throw RuleSyntaxError{t.offset, std::string("unexpected character '") + c + "'"};
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    tokens_.push_back(std::move(t));
  }
  Token end;
  end.offset = static_cast<uint32_t>(line.size());
  tokens_.push_back(end);
}

const RuleLexer::Token& RuleLexer::peek(size_t ahead) const {
  return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
}

RuleLexer::Token RuleLexer::next() {
  Token t = peek();
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool RuleLexer::accept(std::string_view text) {
  if (peek().kind == Kind::Int || peek().kind == Kind::End || peek().text != text) return false;
  next();
  return true;
}

void RuleLexer::expect(std::string_view punct) {
  if (!accept(punct)) {
    const Token& t = peek();
    throw RuleSyntaxError{t.offset, "expected '" + std::string(punct) + "'" +
                                        (t.kind == Kind::End ? " at the end of the line" : ", found '" + t.text + "'")};
  }
}

// ---- parsing ----

namespace {

using Op = RuleExpr::Op;
using Kind = RuleLexer::Kind;

class Parser {
 public:
  Parser(RuleLexer& lex, const NameCheck& known) : lex_(lex), known_(known) {}

  RuleExpr expr() {
    const Nesting nest(*this);
    return or_expr();
  }

 private:
  // Nesting deeper than kMaxDepth (parentheses, lists, calls, chains of
  // unary - or not) is refused before the recursion can exhaust the stack.
  static constexpr int kMaxDepth = 200;
  struct Nesting {
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth)
        throw RuleSyntaxError{p_.lex_.peek().offset, "nested deeper than " + std::to_string(kMaxDepth) + " levels"};
    }
    ~Nesting() { --p_.depth_; }
    Parser& p_;
  };

  static RuleExpr node(Op op, uint32_t offset, std::vector<RuleExpr> args = {}) {
    RuleExpr e;
    e.op = op;
    e.offset = offset;
    e.args = std::move(args);
    return e;
  }

  RuleExpr or_expr() {
    RuleExpr e = and_expr();
    while (lex_.peek().kind == Kind::Name && lex_.peek().text == "or") {
      const uint32_t at = lex_.next().offset;
      e = node(Op::Or, at, {std::move(e), and_expr()});
    }
    return e;
  }

  RuleExpr and_expr() {
    RuleExpr e = not_expr();
    while (lex_.peek().kind == Kind::Name && lex_.peek().text == "and") {
      const uint32_t at = lex_.next().offset;
      e = node(Op::And, at, {std::move(e), not_expr()});
    }
    return e;
  }

  RuleExpr not_expr() {
    if (lex_.peek().kind == Kind::Name && lex_.peek().text == "not") {
      const uint32_t at = lex_.next().offset;
      const Nesting nest(*this);
      return node(Op::Not, at, {not_expr()});
    }
    return comparison();
  }

  RuleExpr comparison() {
    RuleExpr e = sum();
    static constexpr std::pair<std::string_view, Op> kCmp[] = {{"==", Op::Eq}, {"!=", Op::Ne}, {"<=", Op::Le},
                                                               {">=", Op::Ge}, {"<", Op::Lt},  {">", Op::Gt}};
    if (lex_.peek().kind != Kind::Punct) return e;
    for (const auto& [text, op] : kCmp)
      if (lex_.peek().text == text) {
        const uint32_t at = lex_.next().offset;
        return node(op, at, {std::move(e), sum()});
      }
    return e;
  }

  RuleExpr sum() {
    RuleExpr e = product();
    while (lex_.peek().kind == Kind::Punct && (lex_.peek().text == "+" || lex_.peek().text == "-")) {
      const RuleLexer::Token t = lex_.next();
      e = node(t.text == "+" ? Op::Add : Op::Sub, t.offset, {std::move(e), product()});
    }
    return e;
  }

  RuleExpr product() {
    RuleExpr e = unary();
    while (lex_.peek().kind == Kind::Punct &&
           (lex_.peek().text == "*" || lex_.peek().text == "//" || lex_.peek().text == "%")) {
      const RuleLexer::Token t = lex_.next();
      const Op op = t.text == "*" ? Op::Mul : t.text == "//" ? Op::FloorDiv : Op::Mod;
      e = node(op, t.offset, {std::move(e), unary()});
    }
    return e;
  }

  RuleExpr unary() {
    if (lex_.peek().kind == Kind::Punct && lex_.peek().text == "-") {
      const uint32_t at = lex_.next().offset;
      const Nesting nest(*this);
      return node(Op::Neg, at, {unary()});
    }
    return postfix(primary());
  }

  // An integer literal, possibly negative, for an index or a slice bound.
  std::optional<int64_t> literal() {
    const bool negative = lex_.accept("-");
    if (lex_.peek().kind != Kind::Int) {
      if (negative) throw RuleSyntaxError{lex_.peek().offset, "expected an integer"};
      return std::nullopt;
    }
    const int64_t v = lex_.next().value;
    return negative ? -v : v;
  }

  RuleExpr postfix(RuleExpr e) {
    while (lex_.peek().kind == Kind::Punct && lex_.peek().text == "[") {
      const uint32_t at = lex_.next().offset;
      const std::optional<int64_t> start = literal();
      if (lex_.accept(":")) {
        const std::optional<int64_t> stop = literal();
        RuleExpr s = node(Op::Slice, at, {std::move(e)});
        s.has_start = start.has_value();
        s.value = start.value_or(0);
        s.has_stop = stop.has_value();
        s.stop = stop.value_or(0);
        e = std::move(s);
      } else {
        if (!start) throw RuleSyntaxError{lex_.peek().offset, "an index is an integer literal, such as [0] or [-1]"};
        RuleExpr i = node(Op::Index, at, {std::move(e)});
        i.value = *start;
        e = std::move(i);
      }
      lex_.expect("]");
    }
    return e;
  }

  std::vector<RuleExpr> arguments(std::string_view close) {
    std::vector<RuleExpr> args;
    if (lex_.accept(close)) return args;
    do {
      args.push_back(expr());
    } while (lex_.accept(","));
    lex_.expect(close);
    return args;
  }

  RuleExpr primary() {
    const RuleLexer::Token t = lex_.next();
    if (t.kind == Kind::Int) {
      RuleExpr e = node(Op::Int, t.offset);
      e.value = t.value;
      return e;
    }
    if (t.kind == Kind::Punct && t.text == "(") {
      RuleExpr e = expr();
      lex_.expect(")");
      return e;
    }
    if (t.kind == Kind::Punct && t.text == "[") return node(Op::List, t.offset, arguments("]"));
    if (t.kind != Kind::Name)
      throw RuleSyntaxError{t.offset, t.kind == Kind::End ? "expected an expression at the end of the line"
                                                          : "expected an expression, found '" + t.text + "'"};
    if ((t.text == "max" || t.text == "min" || t.text == "len") && lex_.accept("(")) {
      RuleExpr e = node(t.text == "max" ? Op::Max : t.text == "min" ? Op::Min : Op::Len, t.offset, arguments(")"));
      if (e.args.empty() || (e.op == Op::Len && e.args.size() != 1))
        throw RuleSyntaxError{t.offset, t.text + "() takes " + (e.op == Op::Len ? "one argument" : "arguments")};
      return e;
    }
    if (t.text == "attr" && lex_.accept(".")) {
      const RuleLexer::Token a = lex_.next();
      if (a.kind != Kind::Name) throw RuleSyntaxError{a.offset, "expected an attribute name after 'attr.'"};
      if (!known_(a.text, false, true)) throw RuleSyntaxError{a.offset, "unknown attribute '" + a.text + "'"};
      RuleExpr e = node(Op::Attr, a.offset);
      e.name = a.text;
      return e;
    }
    if (lex_.accept(".")) {
      const RuleLexer::Token m = lex_.next();
      Op op;
      if (m.text == "shape")
        op = Op::Shape;
      else if (m.text == "ndim")
        op = Op::Ndim;
      else if (m.text == "numel")
        op = Op::Numel;
      else
        throw RuleSyntaxError{m.offset, "expected shape, ndim or numel after '" + t.text + ".'"};
      if (!known_(t.text, true, false)) throw RuleSyntaxError{t.offset, "unknown input '" + t.text + "'"};
      if (op == Op::Numel && lex_.accept("(")) lex_.expect(")");
      RuleExpr e = node(op, t.offset);
      e.name = t.text;
      return e;
    }
    if (!known_(t.text, false, false)) throw RuleSyntaxError{t.offset, "unknown name '" + t.text + "'"};
    RuleExpr e = node(Op::Name, t.offset);
    e.name = t.text;
    return e;
  }

  RuleLexer& lex_;
  const NameCheck& known_;
  int depth_ = 0;
};

// ---- evaluation ----

[[noreturn]] void kind_error(const std::string& what) { throw OpError(ErrorKind::InvalidArgument, what); }

const char* kind_name(RuleValue::Kind k) {
  switch (k) {
    case RuleValue::Kind::Int: return "an int";
    case RuleValue::Kind::Bool: return "a bool";
    case RuleValue::Kind::List: return "a list";
    case RuleValue::Kind::Float: return "a float";
  }
  return "?";
}

SymInt as_int(const RuleValue& v, const char* where) {
  if (v.kind == RuleValue::Kind::Int) return v.i;
  if (v.kind == RuleValue::Kind::Bool) {
    if (auto b = v.b.maybe_value()) return SymInt(*b ? 1 : 0);
  }
  kind_error(std::string(where) + " needs an int, not " + kind_name(v.kind));
}

SymBool as_bool(const RuleValue& v, const char* where) {
  if (v.kind == RuleValue::Kind::Bool) return v.b;
  if (v.kind == RuleValue::Kind::Int) return sym_ne(v.i, SymInt(0));
  if (v.kind == RuleValue::Kind::Float) return SymBool(v.f != 0);
  kind_error(std::string(where) + " needs a bool, not " + kind_name(v.kind));
}

const std::vector<SymInt>& as_list(const RuleValue& v, const char* where) {
  if (v.kind != RuleValue::Kind::List) kind_error(std::string(where) + " needs a list, not " + kind_name(v.kind));
  return v.list;
}

bool is_float(const RuleValue& v) { return v.kind == RuleValue::Kind::Float; }

// A number beside a float: Python compares and adds a SymInt and a float by
// guarding the int, which a rule has no hint to do, so it must be known.
double as_double(const RuleValue& v, const char* where) {
  if (v.kind == RuleValue::Kind::Float) return v.f;
  const SymInt i = as_int(v, where);
  if (!i.is_static()) kind_error(std::string(where) + " of a float and a symbolic int");
  return static_cast<double>(i.value());
}

// Float arithmetic and comparison; nullopt unless a side is a float.
std::optional<RuleValue> float_op(RuleExpr::Op op, const RuleValue& l, const RuleValue& r) {
  using Op = RuleExpr::Op;
  if (!is_float(l) && !is_float(r)) return std::nullopt;
  const char* name = op == Op::Add ? "+" : op == Op::Sub ? "-" : op == Op::Mul ? "*" : "a comparison";
  const double a = as_double(l, name), b = as_double(r, name);
  switch (op) {
    case Op::Add: return RuleValue::of_float(a + b);
    case Op::Sub: return RuleValue::of_float(a - b);
    case Op::Mul: return RuleValue::of_float(a * b);
    case Op::Eq: return RuleValue::of_bool(SymBool(a == b));
    case Op::Ne: return RuleValue::of_bool(SymBool(a != b));
    case Op::Lt: return RuleValue::of_bool(SymBool(a < b));
    case Op::Le: return RuleValue::of_bool(SymBool(a <= b));
    case Op::Gt: return RuleValue::of_bool(SymBool(a > b));
    case Op::Ge: return RuleValue::of_bool(SymBool(a >= b));
    default: kind_error(std::string("a float in ") + name);
  }
}

}  // namespace

RuleExpr parse_rule_expr(RuleLexer& lex, const NameCheck& known) { return Parser(lex, known).expr(); }

RuleValue eval_rule_expr(const RuleExpr& e, const RuleBindings& b) {
  auto arg = [&](size_t k) { return eval_rule_expr(e.args[k], b); };
  switch (e.op) {
    case Op::Int: return RuleValue::of_int(SymInt(e.value));
    case Op::Name: return b.name(e.name);
    case Op::Attr: return b.attr(e.name);
    case Op::Shape: return RuleValue::of_list(b.shape(e.name));
    case Op::Ndim: return RuleValue::of_int(SymInt(static_cast<int64_t>(b.shape(e.name).size())));
    case Op::Numel: {
      SymInt n(1);
      for (const SymInt& d : b.shape(e.name)) n = n * d;
      return RuleValue::of_int(n);
    }
    case Op::Index: {
      const RuleValue v = arg(0);
      const std::vector<SymInt>& xs = as_list(v, "an index");
      const auto size = static_cast<int64_t>(xs.size());
      const int64_t i = e.value < 0 ? e.value + size : e.value;
      if (i < 0 || i >= size)
        kind_error("index " + std::to_string(e.value) + " is out of range for a list of " + std::to_string(size));
      return RuleValue::of_int(xs[static_cast<size_t>(i)]);
    }
    case Op::Slice: {
      const RuleValue v = arg(0);
      const std::vector<SymInt>& xs = as_list(v, "a slice");
      const auto size = static_cast<int64_t>(xs.size());
      auto clamp = [&](int64_t x) { return std::min(size, std::max<int64_t>(0, x < 0 ? x + size : x)); };
      const int64_t start = e.has_start ? clamp(e.value) : 0, stop = e.has_stop ? clamp(e.stop) : size;
      std::vector<SymInt> out;
      for (int64_t k = start; k < stop; ++k) out.push_back(xs[static_cast<size_t>(k)]);
      return RuleValue::of_list(std::move(out));
    }
    case Op::List: {
      std::vector<SymInt> out;
      for (size_t k = 0; k < e.args.size(); ++k) out.push_back(as_int(arg(k), "a list element"));
      return RuleValue::of_list(std::move(out));
    }
    case Op::Len: return RuleValue::of_int(SymInt(static_cast<int64_t>(as_list(arg(0), "len()").size())));
    case Op::Neg: {
      const RuleValue v = arg(0);
      return is_float(v) ? RuleValue::of_float(-v.f) : RuleValue::of_int(-as_int(v, "-"));
    }
    case Op::Add: {
      const RuleValue l = arg(0), r = arg(1);
      if (auto f = float_op(e.op, l, r)) return std::move(*f);
      if (l.kind == RuleValue::Kind::List || r.kind == RuleValue::Kind::List) {
        std::vector<SymInt> out = as_list(l, "+");
        for (const SymInt& x : as_list(r, "+")) out.push_back(x);
        return RuleValue::of_list(std::move(out));
      }
      return RuleValue::of_int(as_int(l, "+") + as_int(r, "+"));
    }
    case Op::Sub:
    case Op::Mul:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge: {
      const RuleValue l = arg(0), r = arg(1);
      if (auto f = float_op(e.op, l, r)) return std::move(*f);
      switch (e.op) {
        case Op::Sub: return RuleValue::of_int(as_int(l, "-") - as_int(r, "-"));
        case Op::Mul: return RuleValue::of_int(as_int(l, "*") * as_int(r, "*"));
        case Op::Lt: return RuleValue::of_bool(sym_lt(as_int(l, "<"), as_int(r, "<")));
        case Op::Le: return RuleValue::of_bool(sym_le(as_int(l, "<="), as_int(r, "<=")));
        case Op::Gt: return RuleValue::of_bool(sym_gt(as_int(l, ">"), as_int(r, ">")));
        default: return RuleValue::of_bool(sym_ge(as_int(l, ">="), as_int(r, ">=")));
      }
    }
    case Op::FloorDiv:
    case Op::Mod: {
      const SymInt l = as_int(arg(0), e.op == Op::Mod ? "%" : "//"), r = as_int(arg(1), e.op == Op::Mod ? "%" : "//");
      if (r.is_static() && r.value() == 0)
        throw OpError(ErrorKind::DivisionByZero, e.op == Op::Mod ? "modulo by zero" : "division by zero");
      return RuleValue::of_int(e.op == Op::Mod ? mod(l, r) : floordiv(l, r));
    }
    case Op::Max:
    case Op::Min: {
      std::vector<SymInt> xs;
      if (e.args.size() == 1) {
        xs = as_list(arg(0), e.op == Op::Max ? "max()" : "min()");
        if (xs.empty()) kind_error(std::string(e.op == Op::Max ? "max()" : "min()") + " of an empty list");
      } else {
        for (size_t k = 0; k < e.args.size(); ++k) xs.push_back(as_int(arg(k), e.op == Op::Max ? "max()" : "min()"));
      }
      SymInt out = xs[0];
      for (size_t k = 1; k < xs.size(); ++k) out = e.op == Op::Max ? sym_max(out, xs[k]) : sym_min(out, xs[k]);
      return RuleValue::of_int(out);
    }
    case Op::Eq:
    case Op::Ne: {
      const RuleValue l = arg(0), r = arg(1);
      if (auto f = float_op(e.op, l, r)) return std::move(*f);
      SymBool same(true);
      if (l.kind == RuleValue::Kind::List || r.kind == RuleValue::Kind::List) {
        const std::vector<SymInt>&a = as_list(l, "=="), &c = as_list(r, "==");
        if (a.size() != c.size()) {
          same = SymBool(false);
        } else {
          for (size_t k = 0; k < a.size(); ++k) same = sym_and(same, sym_eq(a[k], c[k]));
        }
      } else {
        same = sym_eq(as_int(l, "=="), as_int(r, "=="));
      }
      return RuleValue::of_bool(e.op == Op::Eq ? same : sym_not(same));
    }
    case Op::And: return RuleValue::of_bool(sym_and(as_bool(arg(0), "and"), as_bool(arg(1), "and")));
    case Op::Or: return RuleValue::of_bool(sym_or(as_bool(arg(0), "or"), as_bool(arg(1), "or")));
    case Op::Not: return RuleValue::of_bool(sym_not(as_bool(arg(0), "not")));
  }
  kind_error("unknown expression");
}

}  // namespace fakeprop::custom_ops
