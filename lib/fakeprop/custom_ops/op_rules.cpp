#include "fakeprop/custom_ops/op_rules.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <stdexcept>

#include "fakeprop/util/input_file.h"
#include "fakeprop/util/md5.h"

namespace fakeprop::custom_ops {

namespace {

using Kind = RuleLexer::Kind;

// Where an `fx` header's schema starts (its '('), or npos: torch's schema
// text is not the rule language (Tensor(a!), "quoted" defaults), so only the
// part before it is lexed.
size_t schema_start(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line.substr(i, 2) != "fx" || i + 2 >= line.size() ||
      (line[i + 2] != ' ' && line[i + 2] != '\t'))
    return std::string_view::npos;
  const size_t paren = line.find('(', i);
  const size_t comment = line.find('#', i);
  return paren < comment ? paren : std::string_view::npos;
}

// The schema's text up to a comment ('#' outside quotes).
std::string_view strip_comment(std::string_view s) {
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (quoted && s[i] == '\\') ++i;
    else if (s[i] == '"') quoted = !quoted;
    else if (!quoted && s[i] == '#') return s.substr(0, i);
  }
  return s;
}

std::string_view trim_end(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Whether a declared default is a value of its argument's type, as torch
// requires of a schema.
bool default_fits(const ArgSpec& a) {
  using D = ArgDefault::Kind;
  const D d = a.dflt.kind;
  if (d == D::Absent) return true;
  if (d == D::None) return a.optional || a.element_optional;
  if (a.list) return d == D::IntList || (d == D::Int && a.fixed_size > 0) || a.type == ArgType::Other;
  switch (a.type) {
    case ArgType::Int:
    case ArgType::SymInt: return d == D::Int;
    case ArgType::Float: return d == D::Float || d == D::Int;
    case ArgType::Bool: return d == D::Bool;
    case ArgType::Scalar: return d == D::Int || d == D::Float || d == D::Bool;
    case ArgType::Str: return d == D::Str;
    case ArgType::Tensor: return false;
    default: return true;
  }
}

// ONNX's AttributeProto type of a declared attribute type, 0 when unknown.
uint8_t onnx_attr_type(std::string_view t) {
  static const std::pair<std::string_view, uint8_t> kTypes[] = {
      {"float", 1}, {"int", 2}, {"string", 3}, {"tensor", 4}, {"graph", 5},
      {"floats", 6}, {"ints", 7}, {"strings", 8}, {"tensors", 9}, {"graphs", 10}};
  for (const auto& [name, code] : kTypes)
    if (name == t) return code;
  return 0;
}

// Reads one file's lines into rules; every problem is FILE:LINE:COL.
class RuleFileReader {
 public:
  static constexpr size_t kMaxLine = 4096;

  RuleFileReader(const std::string& path, std::vector<OpRule>& rules) : path_(path), rules_(rules) {}

  void read(std::string_view text) {
    size_t start = 0;
    while (start <= text.size()) {
      const size_t nl = text.find('\n', start);
      const std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
      ++line_no_;
      // Long lines make deep expression trees (a + a + ... nests per term).
      if (line.size() > kMaxLine) fail(0, "a line longer than " + std::to_string(kMaxLine) + " characters");
      try {
        line_ = line;
        schema_at_ = schema_start(line);
        RuleLexer lex(schema_at_ == std::string_view::npos ? line : line.substr(0, schema_at_));
        if (!lex.at_end()) clause(lex);
      } catch (const RuleSyntaxError& e) {
        fail(e.offset, e.message);
      }
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    finish_rule();
  }

 private:
  [[noreturn]] void fail(uint32_t offset, const std::string& what) const {
    throw InputError(path_ + ":" + std::to_string(line_no_) + ":" + std::to_string(offset + 1) + ": " + what);
  }
  std::string where() const { return path_ + ":" + std::to_string(line_no_); }

  void finish_rule() {
    if (!current_) return;
    if (current_->outputs.empty())
      throw InputError(current_->where + ":1: the rule for " + current_->key + " has no output clause");
    // A schema returning only tensors fixes how many outputs the rule makes.
    if (const DeclaredSchema* d = current_->schema.get()) {
      std::string_view ret = d->schema.returns;
      const bool tuple = ret.starts_with('(');
      if (tuple) ret = ret.substr(1, ret.size() >= 2 ? ret.size() - 2 : 0);
      size_t tensors = 0, all = 0;
      for (size_t start = 0; start < ret.size();) {
        size_t comma = ret.find(',', start);
        if (comma == std::string_view::npos) comma = ret.size();
        const std::string_view piece = ret.substr(start, comma - start);
        const size_t b = piece.find_first_not_of(' ');
        if (b != std::string_view::npos) {
          ++all;
          const std::string_view type = piece.substr(b, piece.find_first_of(" (", b) - b);
          tensors += type == "Tensor";
        }
        start = comma + 1;
      }
      if (tensors == all && tensors != current_->outputs.size())
        throw InputError(current_->where + ":1: the schema of " + current_->key + " returns " +
                         std::to_string(tensors) + " tensor(s); the rule has " +
                         std::to_string(current_->outputs.size()) + " output clause(s)");
    }
    current_ = nullptr;
  }

  // A schema argument of the current rule, or null.
  const ArgSpec* declared(std::string_view name) const {
    return current_->schema ? current_->schema->schema.find(name) : nullptr;
  }

  // Names a rule's expressions may use: inputs (a schema's arguments),
  // attributes, unbacked sizes so far.
  bool known(std::string_view name, bool tensor, bool attr) const {
    const OpRule& r = *current_;
    if (const ArgSpec* a = declared(name)) {
      const bool is_tensor = a->type == ArgType::Tensor && !a->list;
      return tensor ? is_tensor : attr ? !is_tensor : true;
    }
    const bool input = std::find(r.inputs.begin(), r.inputs.end(), name) != r.inputs.end();
    if (tensor) return input;
    const bool is_attr = std::any_of(r.attrs.begin(), r.attrs.end(), [&](const AttrSpec& a) { return a.name == name; });
    if (attr) return is_attr;
    const bool unbacked = std::any_of(r.steps.begin(), r.steps.end(), [&](const RuleStep& s) {
      return s.kind == RuleStep::Kind::Unbacked && s.text == name;
    });
    return input || is_attr || unbacked;
  }

  RuleExpr expr(RuleLexer& lex) {
    return parse_rule_expr(lex, [this](std::string_view n, bool t, bool a) { return known(n, t, a); });
  }

  static void expect_end(RuleLexer& lex) {
    if (!lex.at_end()) throw RuleSyntaxError{lex.peek().offset, "unexpected '" + lex.peek().text + "'"};
  }

  std::string name(RuleLexer& lex, const char* what) {
    if (lex.peek().kind != Kind::Name) throw RuleSyntaxError{lex.peek().offset, std::string("expected ") + what};
    return lex.next().text;
  }

  // `a.b.c`: names joined by dots.
  std::string dotted(RuleLexer& lex, const char* what) {
    std::string s = name(lex, what);
    while (lex.accept(".")) {
      s.push_back('.');
      s.append(name(lex, what));
    }
    return s;
  }

  void clause(RuleLexer& lex) {
    const RuleLexer::Token head = lex.next();
    if (head.kind == Kind::Name && (head.text == "fx" || head.text == "onnx")) return header(lex, head.text == "fx");
    if (!current_) throw RuleSyntaxError{head.offset, "expected a rule header ('fx NS::OP' or 'onnx DOMAIN::OP')"};
    OpRule& r = *current_;
    if (head.text == "inputs") {
      if (!r.inputs.empty() || !r.attrs.empty() || !r.steps.empty() || !r.outputs.empty())
        throw RuleSyntaxError{head.offset, "'inputs' comes once, before the rule's other clauses"};
      do {
        const uint32_t at = lex.peek().offset;
        std::string n = name(lex, "an input name");
        // With a schema the names are its arguments: `inputs` only restates them.
        if (r.schema) {
          if (!declared(n)) throw RuleSyntaxError{at, "input '" + n + "' is not an argument of the schema"};
          continue;
        }
        if (known(n, false, false)) throw RuleSyntaxError{at, "input '" + n + "' named twice"};
        r.inputs.push_back(std::move(n));
      } while (lex.accept(","));
      return expect_end(lex);
    }
    if (head.text == "attr") {
      if (r.schema) throw RuleSyntaxError{head.offset, "the schema declares the arguments; 'attr' is for a rule without one"};
      const uint32_t at = lex.peek().offset;
      AttrSpec a;
      a.name = name(lex, "an attribute name");
      if (known(a.name, false, false)) throw RuleSyntaxError{at, "'" + a.name + "' is already a name of this rule"};
      if (lex.peek().text == ":") {
        const uint32_t colon = lex.next().offset;
        if (r.frontend == OpRule::Frontend::Fx)
          throw RuleSyntaxError{colon, "an FX rule declares types in its schema: fx NS::OP(int k=2, ...) -> Tensor"};
        const RuleLexer::Token t = lex.next();
        a.type = onnx_attr_type(t.text);
        if (t.kind != Kind::Name || a.type == 0)
          throw RuleSyntaxError{t.offset, "expected an attribute type (int, ints, float, floats, string, strings, "
                                          "tensor, tensors, graph, graphs)"};
      }
      if (lex.accept("=")) a.dflt = expr(lex);
      expect_end(lex);
      r.attrs.push_back(std::move(a));
      return;
    }
    if (head.text == "require") {
      RuleStep s;
      s.kind = RuleStep::Kind::Require;
      const uint32_t from = lex.peek().offset;
      s.expr = expr(lex);
      expect_end(lex);
      s.text = std::string(lex.line().substr(from, lex.peek().offset - from));
      while (!s.text.empty() && (s.text.back() == ' ' || s.text.back() == '\t')) s.text.pop_back();
      s.where = where();
      r.steps.push_back(std::move(s));
      return;
    }
    if (head.text == "unbacked") {
      RuleStep s;
      s.kind = RuleStep::Kind::Unbacked;
      const uint32_t at = lex.peek().offset;
      s.text = name(lex, "the unbacked size's name");
      if (known(s.text, false, false)) throw RuleSyntaxError{at, "'" + s.text + "' is already a name of this rule"};
      while (!lex.at_end()) {
        const RuleLexer::Token key = lex.next();
        lex.expect("=");
        if (key.text == "min" && !s.min)
          s.min = expr(lex);
        else if (key.text == "max" && !s.max)
          s.max = expr(lex);
        else
          throw RuleSyntaxError{key.offset, "expected min= or max= (once each)"};
      }
      s.where = where();
      r.steps.push_back(std::move(s));
      return;
    }
    if (head.text == "output") return output(lex, r);
    throw RuleSyntaxError{head.offset, "unknown clause '" + head.text +
                                           "' (inputs, attr, require, unbacked, output, or a new 'fx'/'onnx' rule)"};
  }

  void header(RuleLexer& lex, bool fx) {
    finish_rule();
    OpRule r;
    r.frontend = fx ? OpRule::Frontend::Fx : OpRule::Frontend::Onnx;
    r.where = where();
    const uint32_t key_at = lex.peek().offset;
    if (fx) {
      // mylib::op.overload or mylib.op.overload
      std::string ns = name(lex, "an operator such as mylib::op.default");
      r.key = ns;
      if (lex.accept("::")) {
        r.key.push_back('.');
        r.key.append(dotted(lex, "the operator's name"));
      }
      while (lex.accept(".")) {
        r.key.push_back('.');
        r.key.append(name(lex, "an overload name"));
      }
      if (r.key.find('.') == std::string::npos)
        throw RuleSyntaxError{key_at, "an FX target names its namespace: mylib::op or mylib::op.overload"};
      if (schema_at_ != std::string_view::npos) {
        expect_end(lex);
        r.schema = schema(key_at, r.overrides);
      }
    } else {
      // com.acme::Op, or ::Op / ai.onnx::Op for the default domain
      std::string domain = lex.peek().kind == Kind::Name ? dotted(lex, "a domain") : "";
      lex.expect("::");
      const std::string op = name(lex, "an operator type");
      if (domain == "ai.onnx") domain.clear();
      r.key = domain + "::" + op;
      if (lex.accept("opset")) {
        auto bound = [&]() -> std::optional<int64_t> {
          if (lex.peek().kind != Kind::Int) return std::nullopt;
          return lex.next().value;
        };
        const uint32_t at = lex.peek().offset;
        const std::optional<int64_t> lo = bound();
        if (lex.accept("..")) {
          const std::optional<int64_t> hi = bound();
          if (!lo && !hi) throw RuleSyntaxError{at, "an opset range needs a bound: 7.., ..5 or 1..5"};
          if (lo) r.opset_min = *lo;
          if (hi) r.opset_max = *hi;
        } else if (lo) {
          r.opset_min = r.opset_max = *lo;
        } else {
          throw RuleSyntaxError{at, "expected an opset or a range: 13, 7.., ..5, 1..5"};
        }
        if (r.opset_min > r.opset_max) throw RuleSyntaxError{at, "an empty opset range"};
      }
    }
    if (lex.accept("override")) r.overrides = true;
    expect_end(lex);
    for (const OpRule& other : rules_)
      if (other.frontend == r.frontend && other.key == r.key && other.opset_min <= r.opset_max &&
          r.opset_min <= other.opset_max)
        throw RuleSyntaxError{key_at, "a second rule for " + r.key + " (the first is at " + other.where + ")"};
    rules_.push_back(std::move(r));
    current_ = &rules_.back();
  }

  void output(RuleLexer& lex, OpRule& r) {
    OutputSpec o;
    bool has_dtype = false, has_shape = false;
    // An optional name before the first key: output y dtype=...
    if (lex.peek().kind == Kind::Name && !(lex.peek(1).kind == Kind::Punct && lex.peek(1).text == "=")) lex.next();
    while (!lex.at_end()) {
      const RuleLexer::Token key = lex.next();
      lex.expect("=");
      if (key.text == "dtype" && !has_dtype) {
        o.dtype = dtype(lex);
        has_dtype = true;
      } else if (key.text == "shape" && !has_shape) {
        o.shape = expr(lex);
        has_shape = true;
      } else if (key.text == "stride") {
        o.stride = stride(lex);
      } else if (key.text == "view") {
        const RuleLexer::Token v = lex.next();
        if (!known(v.text, true, false)) throw RuleSyntaxError{v.offset, "view= names an input"};
        o.view_of = v.text;
      } else if (key.text == "offset") {
        o.offset = expr(lex);
      } else {
        throw RuleSyntaxError{key.offset, "expected dtype=, shape=, stride=, view= or offset= (each once)"};
      }
    }
    if (!has_dtype || !has_shape) throw RuleSyntaxError{static_cast<uint32_t>(lex.line().size()), "an output needs dtype= and shape="};
    if (o.offset && o.view_of.empty()) throw RuleSyntaxError{0, "offset= is for a view (view=INPUT)"};
    r.outputs.push_back(std::move(o));
  }

  DTypeSpec dtype(RuleLexer& lex) {
    DTypeSpec d;
    const RuleLexer::Token t = lex.next();
    if (t.kind != Kind::Name) throw RuleSyntaxError{t.offset, "expected a dtype, an input, or promote(...)"};
    if (t.text == "promote" && lex.accept("(")) {
      d.kind = DTypeSpec::Kind::Promote;
      do {
        const RuleLexer::Token a = lex.next();
        if (!known(a.text, true, false)) throw RuleSyntaxError{a.offset, "unknown input '" + a.text + "'"};
        d.inputs.push_back(a.text);
      } while (lex.accept(","));
      lex.expect(")");
      return d;
    }
    if (known(t.text, true, false)) {
      d.kind = DTypeSpec::Kind::Promote;
      d.inputs.push_back(t.text);
      return d;
    }
    const std::optional<DType> literal = dtype_from_name(t.text);
    if (!literal) throw RuleSyntaxError{t.offset, "'" + t.text + "' is neither a dtype nor an input"};
    d.dtype = *literal;
    return d;
  }

  StrideSpec stride(RuleLexer& lex) {
    StrideSpec s;
    if (lex.accept("contiguous")) return s;
    if (lex.peek().kind == Kind::Name && lex.peek().text == "like" && lex.peek(1).text == "(") {
      lex.next();
      lex.next();
      const RuleLexer::Token a = lex.next();
      if (!known(a.text, true, false)) throw RuleSyntaxError{a.offset, "unknown input '" + a.text + "'"};
      lex.expect(")");
      s.kind = StrideSpec::Kind::Like;
      s.input = a.text;
      return s;
    }
    s.kind = StrideSpec::Kind::Explicit;
    s.expr = expr(lex);
    return s;
  }

  // The header's schema, from its name to the end of the line: parsed as
  // torch's are (parse_aten_schema), then held to what torch.library
  // accepts. `override` may follow the returns.
  std::shared_ptr<const DeclaredSchema> schema(uint32_t key_at, bool& overrides) {
    std::string_view text = trim_end(strip_comment(line_.substr(key_at)));
    if (text.ends_with("override") && text.size() > 8 && (text[text.size() - 9] == ' ' || text[text.size() - 9] == ')')) {
      overrides = true;
      text = trim_end(text.substr(0, text.size() - 8));
    }
    auto d = std::make_shared<DeclaredSchema>();
    d->text = std::string(text);
    const uint32_t open = static_cast<uint32_t>(schema_at_);
    try {
      d->schema = parse_aten_schema(std::string_view(), d->text);
    } catch (const std::exception& e) {
      throw RuleSyntaxError{open, std::string("the schema does not parse: ") + e.what()};
    }
    if (d->schema.returns.empty())
      throw RuleSyntaxError{static_cast<uint32_t>(key_at + text.size()), "a schema ends with its returns: -> Tensor"};
    // Where a piece of the schema is on the line, for messages.
    auto at = [&](std::string_view piece) {
      return static_cast<uint32_t>(key_at + static_cast<size_t>(piece.data() - d->text.data()));
    };
    const auto& args = d->schema.args;
    for (size_t k = 0; k < args.size(); ++k) {
      const ArgSpec& a = args[k];
      if (!is_identifier(a.name)) throw RuleSyntaxError{at(a.name), "expected an argument name, not '" + std::string(a.name) + "'"};
      if (a.type == ArgType::Other)
        throw RuleSyntaxError{at(a.name), "argument '" + std::string(a.name) + "' has a type torch.library does not declare"};
      for (size_t j = 0; j < k; ++j)
        if (args[j].name == a.name) throw RuleSyntaxError{at(a.name), "argument '" + std::string(a.name) + "' declared twice"};
      if (!default_fits(a))
        throw RuleSyntaxError{at(a.dflt.text), "the default of '" + std::string(a.name) + "' is not a value of its type"};
    }
    return d;
  }

  const std::string& path_;
  std::vector<OpRule>& rules_;
  OpRule* current_ = nullptr;
  size_t line_no_ = 0;
  std::string_view line_;   // the line being read
  size_t schema_at_ = std::string_view::npos;  // its schema's '(' (schema_start)
};

}  // namespace

void OpRuleSet::add(std::string_view text, const std::string& path) {
  std::vector<OpRule> rules = rules_;  // a file that fails adds nothing
  RuleFileReader(path, rules).read(text);
  rules_ = std::move(rules);
  texts_.append(text).push_back('\0');
  digest_ = md5_hex(texts_);
}

std::shared_ptr<const OpRuleSet> OpRuleSet::load(const std::vector<std::string>& paths) {
  auto set = std::make_shared<OpRuleSet>();
  for (const std::string& path : paths) {
    std::string text;
    try {
      text = read_input_file(path);
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + " (cannot read the op rules file)");
    }
    set->add(text, path);
  }
  return set;
}

const OpRule* OpRuleSet::find_onnx(std::string_view domain, std::string_view op_type, int64_t opset) const {
  const std::string_view d = domain == "ai.onnx" ? std::string_view() : domain;
  for (const OpRule& r : rules_) {
    if (r.frontend != OpRule::Frontend::Onnx || opset < r.opset_min || opset > r.opset_max) continue;
    const size_t sep = r.key.find("::");
    if (std::string_view(r.key).substr(0, sep) == d && std::string_view(r.key).substr(sep + 2) == op_type) return &r;
  }
  return nullptr;
}

const OpRule* OpRuleSet::find_fx(std::string_view target) const {
  const OpRule* packet = nullptr;
  for (const OpRule& r : rules_) {
    if (r.frontend != OpRule::Frontend::Fx) continue;
    if (r.key == target) return &r;
    if (target.size() > r.key.size() && target.starts_with(r.key) && target[r.key.size()] == '.' &&
        target.find('.', r.key.size() + 1) == std::string_view::npos)
      packet = &r;
  }
  return packet;
}

// ---- running a rule ----

namespace {

class RuleRun {
 public:
  RuleRun(const OpRule& rule, const OpRuleCall& call, RuleContext& ctx) : rule_(rule), call_(call), ctx_(ctx) {
    bindings_.shape = [this](std::string_view n) -> const std::vector<SymInt>& { return tensor(n).sizes; };
    bindings_.name = [this](std::string_view n) { return name(n); };
    bindings_.attr = [this](std::string_view n) { return attr(n); };
    if (rule_.schema) bind(rule_.schema->schema);
  }

  std::vector<Value> run() {
    for (const RuleStep& s : rule_.steps) {
      if (s.kind == RuleStep::Kind::Require) {
        const RuleValue v = eval_rule_expr(s.expr, bindings_);
        if (v.kind != RuleValue::Kind::Bool) throw OpError(ErrorKind::InvalidArgument, s.where + ": require needs a condition");
        require(ctx_, v.b, s.where.c_str(), ErrorKind::AssertionError, s.where + ": requirement failed: " + s.text);
      } else {
        ValueRange range{0, kIntOo};
        if (s.min) range.lo = std::max<int64_t>(0, bound(*s.min, false));
        if (s.max) range.hi = bound(*s.max, true);
        if (range.lo > range.hi)
          throw OpError(ErrorKind::InvalidArgument, s.where + ": unbacked " + s.text + " has no size in " +
                                                        range.to_string());
        unbacked_.emplace(s.text, ctx_.new_unbacked_size(range));
      }
    }
    std::vector<Value> outs;
    for (const OutputSpec& o : rule_.outputs) outs.push_back(output(o));
    return outs;
  }

 private:
  // An unbacked size's bound: the value, or the bound of its range when symbolic.
  int64_t bound(const RuleExpr& e, bool upper) {
    const RuleValue v = eval_rule_expr(e, bindings_);
    if (v.kind != RuleValue::Kind::Int) throw OpError(ErrorKind::InvalidArgument, "min= and max= need an int");
    if (v.i.is_static()) return v.i.value();
    const ValueRange r = ctx_.env().bound(v.i.expr());
    return upper ? r.hi : r.lo;
  }

  // Every declared argument by name: positional or keyword as given, else
  // its default, as torch binds a call to its schema.
  void bind(const AtenSchema& schema) {
    for (const ArgSpec& a : schema.args) {
      const Value* v = !a.kwarg_only && a.position < call_.inputs.size() ? call_.inputs[a.position] : nullptr;
      std::optional<Value> given;
      if (v && !v->is_none()) given = *v;
      else if (call_.named) given = call_.named(a.name);
      if (!given || given->is_none()) given = default_value(a.dflt);
      if (!given) continue;
      // One int stands for all of an int[N], in a call as in a default.
      if (a.list && a.fixed_size > 0 && given->kind == Value::Kind::Int) {
        ValueList xs(a.fixed_size, *given);
        given = Value::of_list(std::move(xs));
      }
      bound_.emplace(std::string(a.name), std::move(*given));
    }
  }

  static std::optional<Value> default_value(const ArgDefault& d) {
    switch (d.kind) {
      case ArgDefault::Kind::Int: return Value::of_int(SymInt(d.i));
      case ArgDefault::Kind::Bool: return Value::of_bool(SymBool(d.b));
      case ArgDefault::Kind::Float: return Value::of_float(d.f);
      case ArgDefault::Kind::IntList: {
        ValueList xs;
        for (int64_t x : d.ints) xs.push_back(Value::of_int(SymInt(x)));
        return Value::of_list(std::move(xs));
      }
      default: return std::nullopt;  // None, or a value rules cannot read (a string, a dtype)
    }
  }

  // The value of input or argument `n`; null when absent or None.
  const Value* input(std::string_view n) const {
    if (rule_.schema) {
      const auto it = bound_.find(n);
      return it == bound_.end() ? nullptr : &it->second;
    }
    const auto it = std::find(rule_.inputs.begin(), rule_.inputs.end(), n);
    const size_t i = static_cast<size_t>(it - rule_.inputs.begin());
    const Value* v = i < call_.inputs.size() ? call_.inputs[i] : nullptr;
    if (v && !v->is_none()) return v;
    if (call_.named) {
      if (std::optional<Value> kw = call_.named(n); kw && !kw->is_none()) {
        keywords_.push_back(std::move(*kw));
        return &keywords_.back();
      }
    }
    return nullptr;
  }

  const TensorMeta& tensor(std::string_view n) const {
    const Value* v = input(n);
    if (!v)
      throw OpError(ErrorKind::MissingInput, rule_.where + (rule_.schema ? ": argument '" : ": input '") + std::string(n) +
                                                 (rule_.schema ? "' is absent (None)" : "' is absent"));
    if (!v->is_tensor()) throw OpError(ErrorKind::TypeError, rule_.where + ": input '" + std::string(n) + "' is not a tensor");
    return v->tensor->meta;
  }

  static RuleValue scalar(const Value& v, std::string_view n, const std::string& where) {
    switch (v.kind) {
      case Value::Kind::Int: return RuleValue::of_int(v.i);
      case Value::Kind::Bool: return RuleValue::of_bool(v.b);
      case Value::Kind::Float:
        if (v.is_symbolic_float())
          throw OpError(ErrorKind::TypeError, where + ": '" + std::string(n) + "' is a symbolic float, which rules cannot read");
        return RuleValue::of_float(v.f);
      case Value::Kind::List: {
        std::vector<SymInt> xs;
        for (const Value& x : *v.list) {
          if (x.kind != Value::Kind::Int) break;
          xs.push_back(x.i);
        }
        if (xs.size() == v.list->size()) return RuleValue::of_list(std::move(xs));
        break;
      }
      default: break;
    }
    throw OpError(ErrorKind::TypeError, where + ": '" + std::string(n) + "' is not an int, a float, a bool or a list of ints" +
                                            (v.is_tensor() ? " (a tensor: use " + std::string(n) + ".shape)" : ""));
  }

  RuleValue name(std::string_view n) {
    if (const auto it = unbacked_.find(std::string(n)); it != unbacked_.end()) return RuleValue::of_int(it->second);
    if (rule_.schema) return argument(n);
    if (std::find(rule_.inputs.begin(), rule_.inputs.end(), n) != rule_.inputs.end()) {
      const Value* v = input(n);
      if (!v) throw OpError(ErrorKind::MissingInput, rule_.where + ": input '" + std::string(n) + "' is absent");
      return scalar(*v, n, rule_.where);
    }
    return attr(n);
  }

  // A schema's argument, given or defaulted.
  RuleValue argument(std::string_view n) {
    const Value* v = input(n);
    if (!v) throw OpError(ErrorKind::MissingInput, rule_.where + ": argument '" + std::string(n) + "' is absent (None)");
    return scalar(*v, n, rule_.where);
  }

  RuleValue attr(std::string_view n) {
    if (rule_.schema) return argument(n);
    if (call_.named)
      if (std::optional<Value> v = call_.named(n); v && !v->is_none()) return scalar(*v, n, rule_.where);
    for (const AttrSpec& a : rule_.attrs)
      if (a.name == n && a.dflt) return eval_rule_expr(*a.dflt, bindings_);
    throw OpError(ErrorKind::MissingAttribute, rule_.where + ": attribute '" + std::string(n) + "' is absent");
  }

  Value output(const OutputSpec& o) {
    TensorValue t;
    TensorMeta& m = t.meta;
    const RuleValue shape = eval_rule_expr(o.shape, bindings_);
    if (shape.kind != RuleValue::Kind::List)
      throw OpError(ErrorKind::InvalidShape, rule_.where + ": shape= needs a list such as [x.shape[0], 4]");
    m.sizes = shape.list;
    for (const SymInt& d : m.sizes)
      require(ctx_, sym_ge(d, SymInt(0)), rule_.where.c_str(), ErrorKind::InvalidShape,
              rule_.where + ": a size of the output is negative");
    if (o.dtype.kind == DTypeSpec::Kind::Literal) {
      m.dtype = o.dtype.dtype;
    } else {
      m.dtype = tensor(o.dtype.inputs[0]).dtype;
      for (size_t k = 1; k < o.dtype.inputs.size(); ++k) {
        const std::optional<DType> p = promote_types(m.dtype, tensor(o.dtype.inputs[k]).dtype);
        if (!p) throw OpError(ErrorKind::TypeError, rule_.where + ": the inputs' dtypes do not promote");
        m.dtype = *p;
      }
    }
    // The device and requires_grad of the inputs, as a registered fake kernel's
    // outputs follow them; a view shares its input's storage.
    m.device = ctx_.device();
    bool device_set = false;
    auto follow = [&](const Value* v) {
      if (!v || !v->is_tensor()) return;
      if (!device_set) m.device = v->tensor->meta.device;
      device_set = true;
      m.requires_grad |= v->tensor->meta.requires_grad && is_floating(m.dtype);
    };
    if (rule_.schema) {
      for (const ArgSpec& a : rule_.schema->schema.args) follow(input(a.name));
    } else {
      for (const std::string& name : rule_.inputs) follow(input(name));
    }
    switch (o.stride.kind) {
      case StrideSpec::Kind::Contiguous: m.strides = contiguous_strides(m.sizes, &ctx_.env()); break;
      case StrideSpec::Kind::Like: {
        const TensorMeta& like = tensor(o.stride.input);
        if (like.sizes.size() != m.sizes.size())
          throw OpError(ErrorKind::InvalidShape, rule_.where + ": stride=like(" + o.stride.input + ") needs the same rank");
        m.strides = like.strides;
        break;
      }
      case StrideSpec::Kind::Explicit: {
        const RuleValue s = eval_rule_expr(o.stride.expr, bindings_);
        if (s.kind != RuleValue::Kind::List || s.list.size() != m.sizes.size())
          throw OpError(ErrorKind::InvalidShape, rule_.where + ": stride= needs a list of one stride per dim");
        m.strides = s.list;
        break;
      }
    }
    if (!o.view_of.empty()) {
      const TensorMeta& base = tensor(o.view_of);
      m.storage = base.storage;
      m.device = base.device;
      m.is_leaf = false;
      if (o.offset) {
        const RuleValue off = eval_rule_expr(*o.offset, bindings_);
        if (off.kind != RuleValue::Kind::Int) throw OpError(ErrorKind::InvalidArgument, rule_.where + ": offset= needs an int");
        m.storage_offset = off.i;
      } else {
        m.storage_offset = base.storage_offset;
      }
    } else {
      m.storage = ctx_.storage().next();
    }
    return Value::of_tensor(std::move(t));
  }

  const OpRule& rule_;
  const OpRuleCall& call_;
  RuleContext& ctx_;
  RuleBindings bindings_;
  std::map<std::string, SymInt> unbacked_;
  std::map<std::string, Value, std::less<>> bound_;  // a schema's arguments
  mutable std::deque<Value> keywords_;  // keyword values found by input(), kept while the rule runs
};

}  // namespace

std::vector<Value> run_op_rule(const OpRule& rule, const OpRuleCall& call, RuleContext& ctx) {
  return RuleRun(rule, call, ctx).run();
}

}  // namespace fakeprop::custom_ops
