// What an ONNX operator rule sees: its node, its input values, attribute
// accessors with defaults, the schema version in effect (schema.h) and the
// ShapeEnv for every decision.
#pragma once
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakeprop/value/value.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/onnx/schema.h"
#include "fakeprop/runner/rule_context.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/error_kind.h"

namespace fakeprop::onnx {

class Interpreter;

class OpContext : public RuleContext {
 public:
  OpContext(const Node& node, int64_t opset, ShapeEnv& env, StorageIds& storage, const InferOptions& options,
            std::vector<const Value*> inputs, Interpreter* interp);

  const Node& node() const { return node_; }
  // Input i's name for a message: "" when the node has no input i (an
  // omitted trailing input, or one the model left out).
  std::string input_name(size_t i) const { return i < node_.inputs.size() ? node_.inputs[i].str() : std::string(); }
  Name op_type() const { return node_.op_type; }
  int64_t opset() const { return opset_; }  // of the node's domain
  // ONNX's schema of the op in effect at the opset, resolved once when the
  // context is made; nullptr for contrib domains and ops newer than the opset.
  const OpSchema* schema() const { return schema_; }
  // Throws OpError where the node does not fit its schema (schema.h's
  // check_node); nothing without one. The interpreter calls it before the rule.
  void check_schema() const;
  // Facts of the version in effect, read in place of opset comparisons (of
  // the op's first version where the opset predates it, as `opset < N` read).
  bool declares_input(std::string_view name) const { return declared_ && declared_->declares_input(name); }
  bool declares_attribute(std::string_view name) const { return declared_ && declared_->declares_attribute(name); }
  bool declares_output(std::string_view name) const { return declared_ && declared_->declares_output(name); }
  Interpreter* interpreter() { return interp_; }

  // ---- inputs ----
  size_t num_inputs() const { return inputs_.size(); }
  bool has_input(size_t i) const;  // present and not the empty name
  const Value& input(size_t i) const;  // OpError when absent
  const TensorValue& tensor(size_t i) const;  // OpError when absent or not a tensor
  const SymShape& shape(size_t i) const { return tensor(i).meta.sizes; }
  DType dtype(size_t i) const { return tensor(i).meta.dtype; }
  // Input i is a tensor of unknown rank (Value::of_unranked): its element
  // type is still input(i).tensor->meta.dtype. Rules that can say something
  // without the rank ask this before tensor(i), which fails on it.
  bool unranked(size_t i) const { return has_input(i) && input(i).is_unranked(); }
  int64_t rank(size_t i) const { return tensor(i).meta.dim(); }
  // Known integer elements (shape tensors, constants, folded values).
  std::optional<std::vector<SymInt>> ints(size_t i) const;
  // Known integer elements that must be static (e.g. axes); nullopt otherwise.
  std::optional<std::vector<int64_t>> static_ints(size_t i) const;
  std::optional<std::vector<double>> floats(size_t i) const;
  // Known elements as float expressions: symbolic ones (TensorValue::float_exprs),
  // float constants, or integers converted with ToFloat. nullopt when unknown.
  std::optional<std::vector<ExprRef>> float_exprs(size_t i) const;
  // A scalar (or 1-element) integer input.
  std::optional<SymInt> scalar_int(size_t i) const;

  // ---- attributes ----
  const Attribute* attr(std::string_view name) const { return node_.attr(name); }
  bool has_attr(std::string_view name) const { return attr(name) != nullptr; }
  int64_t attr_int(std::string_view name, int64_t dflt) const;
  float attr_float(std::string_view name, float dflt) const;
  std::string attr_string(std::string_view name, std::string_view dflt) const;
  std::optional<std::vector<int64_t>> attr_ints(std::string_view name) const;
  std::optional<std::vector<float>> attr_floats(std::string_view name) const;
  int64_t required_attr_int(std::string_view name) const;  // OpError when missing or mistyped
  // The attribute, or the default the schema in effect declares for it (the
  // op's first version where the opset predates it): rules do not repeat
  // ONNX's defaults. An Internal error where the schema has none.
  int64_t attr_int(std::string_view name) const;
  float attr_float(std::string_view name) const;
  std::string attr_string(std::string_view name) const;

  // ---- outputs ----
  size_t num_outputs() const { return node_.outputs.size(); }
  bool wants_output(size_t i) const;  // present and not the empty name
  void set_output(size_t i, Value v);
  // A fresh contiguous tensor on the context's device (new storage).
  TensorValue new_tensor(DType dtype, SymShape shape);
  void set_tensor(size_t i, DType dtype, SymShape shape);
  // Data in the float-expression form lands in TensorValue::float_exprs
  // (or, when every element is constant, as plain floats).
  void set_tensor(size_t i, DType dtype, SymShape shape, KnownData data);
  const std::vector<Value>& outputs() const { return outputs_; }

 private:
  const AttrRow& schema_default(std::string_view name, AttrType type) const;

  const Node& node_;
  int64_t opset_;
  const OpSchema* schema_;
  const OpSchema* declared_;  // schema_, or the op's first version when the opset predates it
  std::vector<const Value*> inputs_;
  std::vector<Value> outputs_;
  Interpreter* interp_;
};

using OpRule = void (*)(OpContext& ctx);

struct OpRuleEntry {
  std::string_view domain;   // "" default (also for "ai.onnx"), "com.microsoft", ...
  std::string_view op_type;
  OpRule rule;
  // A rule whose operator changed at a schema version registers once per
  // range: this row holds from its since_version (one of the schema's) to
  // the next row's of the same op. 0: from the first version.
  int64_t since_version = 0;
};

// The one registry of ONNX operator rules. Each family file defines a
// constant table (ops/families.h); the registry merges them once into one
// table sorted by (domain, op_type, since_version), so building it allocates
// once and runs no family code, and a lookup is a binary search without a copy.
class OpRegistry {
 public:
  static const OpRegistry& instance();
  // The rule in effect at `opset` (the newest by default); nullptr when no
  // rule is registered.
  OpRule find(std::string_view domain, std::string_view op_type,
              int64_t opset = std::numeric_limits<int64_t>::max()) const;
  // The since_version of each range `op_type` has a rule for, in order.
  std::vector<int64_t> since_versions(std::string_view domain, std::string_view op_type) const;
  std::vector<std::pair<std::string, std::string>> all() const;  // (domain, op_type), each once

 private:
  OpRegistry();
  std::vector<OpRuleEntry> sorted_;
};

}  // namespace fakeprop::onnx
