// --op-rules: what a custom operator produces, declared once by its user, as
// torch.library's register_fake declares it for fake mode. A file
// (fakeprop.op-rules/1) holds rules; each starts with a header line and
// takes the clause lines after it:
//
//   fx mylib::rms_norm.default            an FX target (mylib.rms_norm.default; no
//                                         overload: every overload)
//   fx mylib::pick_rows(Tensor x, Tensor mask, int k=2, *, bool flag=False) -> (Tensor, Tensor)
//                                         the same with its schema, as torch.library
//                                         declares it: calls are checked against it,
//                                         every argument is a name, no `inputs`
//   onnx com.acme::Tile2 opset 1..        an ONNX domain::OpType, an opset range
//                                         (1..5, 7.., ..5, 3); `override` after
//                                         either makes it win over a built-in rule
//     inputs x, w, eps                    names of the positional inputs (FX: also
//                                         keywords of these names)
//     attr reps = 2                       an ONNX attribute / FX keyword, with a default
//     attr reps: int = 2                  ONNX: its type too (int, ints, float, ...)
//     require x.shape[-1] == w.shape[0]   decided by the ShapeEnv: a guard, a runtime
//                                         assert on unbacked sizes, or an error
//     unbacked n min=0 max=x.numel        a new unbacked size-like symbol (register_fake's
//                                         ctx.new_dynamic_size)
//     output dtype=x shape=x.shape[:-1] + [w.shape[0]] [stride=contiguous|like(x)|[...]]
//            [view=x offset=...]          one per output, in order; dtype: a name
//                                         (float32, int64, ...), an input's (x) or
//                                         promote(x, w)
//
// `#` starts a comment. Expressions are rule_expr.h's. A file that does not
// parse, names an unknown input or uses an unknown name is rejected before
// any node runs: InputError "FILE:LINE:COL: what".
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/custom_ops/rule_expr.h"
#include "fakeprop/runner/torch_schema.h"
#include "fakeprop/runner/rule_context.h"
#include "fakeprop/tensor/dtype.h"
#include "fakeprop/value/value.h"

namespace fakeprop::custom_ops {

struct DTypeSpec {
  enum class Kind : uint8_t { Literal, Promote } kind = Kind::Literal;  // Promote of one input: its dtype
  DType dtype = DType::Float32;
  std::vector<std::string> inputs;
};

struct StrideSpec {
  enum class Kind : uint8_t { Contiguous, Like, Explicit } kind = Kind::Contiguous;
  std::string input;  // Like
  RuleExpr expr;      // Explicit
};

struct OutputSpec {
  DTypeSpec dtype;
  RuleExpr shape;
  StrideSpec stride;
  std::string view_of;            // a view of this input (its storage), "" for a fresh tensor
  std::optional<RuleExpr> offset;  // the view's storage offset
};

// A clause that runs before the outputs are made, in file order.
struct RuleStep {
  enum class Kind : uint8_t { Require, Unbacked } kind = Kind::Require;
  RuleExpr expr;                 // Require: the condition
  std::string text;              // Require: as written; Unbacked: the symbol's name in the rule
  std::optional<RuleExpr> min, max;  // Unbacked
  std::string where;             // "FILE:LINE"
};

// An FX rule's schema. The parse points into `text`, so copies of a rule
// share one rather than copy it.
struct DeclaredSchema {
  std::string text;  // "mylib::pick_rows(Tensor x, Tensor mask, int k=2) -> (Tensor, Tensor)"
  AtenSchema schema;
};

struct AttrSpec {
  std::string name;
  std::optional<RuleExpr> dflt;
  // ONNX's AttributeProto type when declared (INT 2, INTS 7, ...); 0: any
  // the rule can read.
  uint8_t type = 0;
};

struct OpRule {
  enum class Frontend : uint8_t { Onnx, Fx } frontend = Frontend::Fx;
  std::string key;  // ONNX: "domain::OpType" ("" domain: ai.onnx); FX: "ns.op.overload" or "ns.op"
  int64_t opset_min = 0;
  int64_t opset_max = std::numeric_limits<int64_t>::max();
  bool overrides = false;
  std::string where;  // "FILE:LINE" of the header
  std::vector<std::string> inputs;  // without a schema
  std::vector<AttrSpec> attrs;
  std::shared_ptr<const DeclaredSchema> schema;  // FX, when the header declares one
  std::vector<RuleStep> steps;
  std::vector<OutputSpec> outputs;
};

class OpRuleSet {
 public:
  // Every file's rules; throws InputError "FILE:LINE:COL: ..." for the first
  // problem, or "FILE: ..." when a file cannot be read.
  static std::shared_ptr<const OpRuleSet> load(const std::vector<std::string>& paths);
  // One file's text (tests).
  void add(std::string_view text, const std::string& path);

  // The rule for an ONNX node or an FX target, if a file has one.
  const OpRule* find_onnx(std::string_view domain, std::string_view op_type, int64_t opset) const;
  const OpRule* find_fx(std::string_view target) const;
  const std::vector<OpRule>& rules() const { return rules_; }
  // The md5 of every file's text, in order: what `check` compares (the same
  // rules read from another path are the same rules).
  const std::string& digest() const { return digest_; }

 private:
  std::vector<OpRule> rules_;
  std::string digest_;
  std::string texts_;
};

// One node's call of a rule: its positional inputs (null or None: absent)
// and its named values (ONNX attributes, FX keywords; null when absent).
// A rule with a schema binds its arguments from both, as torch does; the
// caller has checked them (fx::check_call).
struct OpRuleCall {
  std::span<const Value* const> inputs;
  std::function<std::optional<Value>(std::string_view name)> named;
};

// The rule's outputs for one call, in order. Throws OpError for a
// requirement that fails, an input or attribute it needs that is absent, or
// an expression of the wrong kind.
std::vector<Value> run_op_rule(const OpRule& rule, const OpRuleCall& call, RuleContext& ctx);

}  // namespace fakeprop::custom_ops
