// The expressions of --op-rules files: the Python fakeprop prints, over a
// custom op's inputs and attributes.
//
//   x.shape[0]  x.shape[-1]  x.shape[1:]  x.shape  x.ndim  x.numel  len(x.shape)
//   reps  attr.reps  n            an attribute, a scalar input, an unbacked size
//   + - * // %  unary -  max(a, b, ...)  min(...)  [a, b]  list + list
//   == != < <= > >=  and  or  not  ( )
//
// A value is an int (a SymInt), a bool (a SymBool), a list of ints (a
// shape) or a float (a schema's float argument: compared and negated,
// added and multiplied where the int beside it is known). Names are checked when the file is read (Scope); kinds are checked
// when a node runs the rule, as Python would check them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/sym/sym_int.h"
#include "fakeprop/util/error.h"

namespace fakeprop::custom_ops {

struct RuleExpr {
  enum class Op : uint8_t {
    Int, Name, Attr, Shape, Ndim, Numel, Index, Slice, List, Len,
    Neg, Add, Sub, Mul, FloorDiv, Mod, Max, Min,
    Eq, Ne, Lt, Le, Gt, Ge, And, Or, Not,
  };
  Op op = Op::Int;
  int64_t value = 0;             // Int; Index: the index; Slice: start
  int64_t stop = 0;              // Slice
  bool has_start = false, has_stop = false;  // Slice
  std::string name;              // Name, Attr; Shape/Ndim/Numel: the tensor
  std::vector<RuleExpr> args;
  uint32_t offset = 0;           // in the clause's text, for messages
};

// One token stream over a line; the file reader walks it clause by clause.
class RuleLexer {
 public:
  enum class Kind : uint8_t { End, Int, Name, Punct };
  struct Token {
    Kind kind = Kind::End;
    std::string text;
    int64_t value = 0;
    uint32_t offset = 0;
  };
  // Throws RuleSyntaxError for a character no token starts with.
  explicit RuleLexer(std::string_view line);
  const Token& peek(size_t ahead = 0) const;
  Token next();
  bool at_end() const { return peek().kind == Kind::End; }
  bool accept(std::string_view punct_or_name);
  void expect(std::string_view punct);
  std::string_view line() const { return line_; }

 private:
  std::string_view line_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

// A problem at `offset` of the line; the file reader adds FILE:LINE:COL.
struct RuleSyntaxError {
  uint32_t offset;
  std::string message;
};

// Names an expression may use, for the checks at read time: true when
// `name` is known (a tensor for .shape/.ndim/.numel when `tensor`).
using NameCheck = std::function<bool(std::string_view name, bool tensor, bool attr)>;

// Parses one expression from the lexer (stopping at a token that cannot
// continue it). Throws RuleSyntaxError.
RuleExpr parse_rule_expr(RuleLexer& lex, const NameCheck& known);

// A value while a rule runs.
struct RuleValue {
  enum class Kind : uint8_t { Int, Bool, List, Float } kind = Kind::Int;
  SymInt i;
  SymBool b;
  std::vector<SymInt> list;
  double f = 0;
  static RuleValue of_int(SymInt v) { return {Kind::Int, std::move(v), {}, {}}; }
  static RuleValue of_bool(SymBool v) { return {Kind::Bool, {}, std::move(v), {}}; }
  static RuleValue of_list(std::vector<SymInt> v) { return {Kind::List, {}, {}, std::move(v)}; }
  static RuleValue of_float(double v) { return {Kind::Float, {}, {}, {}, v}; }
};

// What names mean for one call: a tensor's sizes, a scalar or list input, an
// attribute, an unbacked size. Each throws OpError when it has none.
struct RuleBindings {
  std::function<const std::vector<SymInt>&(std::string_view tensor)> shape;
  std::function<RuleValue(std::string_view name)> name;
  std::function<RuleValue(std::string_view attr)> attr;
};

// Throws OpError (invalid_argument) for a kind mismatch or an index out of range.
RuleValue eval_rule_expr(const RuleExpr& e, const RuleBindings& b);

}  // namespace fakeprop::custom_ops
