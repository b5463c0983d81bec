// What an ATen rule sees: the call's arguments resolved to values (by schema
// position or keyword), the ShapeEnv, and helpers to produce fresh tensors
// and views with PyTorch's exact metadata.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/fx/aten_schema.h"
#include "fakeprop/fx/graph.h"
#include "fakeprop/runner/rule_context.h"
#include "fakeprop/value/value.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/error_kind.h"
#include "fakeprop/util/string_map.h"

namespace fakeprop::fx {

class Interpreter;

// A Python number argument, with its kind for type promotion.
struct Scalar {
  enum class Kind : uint8_t { Bool, Int, Float, Complex } kind = Kind::Int;
  SymInt i;    // Bool / Int
  double f = 0;  // Float
};

class OpContext : public RuleContext {
 public:
  // `args` and `kwargs` (by keyword, in the node's order) must outlive the
  // context. `schema` is the target's row (find_aten_schema), which the
  // interpreter looks up once per target; by default it is looked up here.
  OpContext(const Node& node, std::span<const Value* const> args,
            std::span<const std::pair<std::string_view, const Value*>> kwargs, ShapeEnv& env, StorageIds& storage,
            const InferOptions& options, Interpreter* interp);
  OpContext(const Node& node, const AtenSchema* schema, std::span<const Value* const> args,
            std::span<const std::pair<std::string_view, const Value*>> kwargs, ShapeEnv& env, StorageIds& storage,
            const InferOptions& options, Interpreter* interp);

  // The same call with other arguments: a composite's rule (conv2d) running
  // the rule of the op it decomposes into (convolution) on the same node.
  OpContext(const OpContext& outer, std::span<const Value* const> args,
            std::span<const std::pair<std::string_view, const Value*>> kwargs = {})
      : RuleContext(outer), node_(outer.node_), args_(args), kwargs_(kwargs), interp_(outer.interp_),
        schema_(outer.schema_) {}
  // A call of another op, `target`, inside a composite's rule (einsum's
  // permutes and bmm): its arguments are `args` alone, never the node's.
  OpContext(const OpContext& outer, const std::string& target, std::span<const Value* const> args,
            std::span<const std::pair<std::string_view, const Value*>> kwargs = {})
      : RuleContext(outer), node_(outer.node_), args_(args), kwargs_(kwargs), interp_(outer.interp_),
        schema_(find_aten_schema(target)), target_(&target), node_args_(false) {}

  const Node& node() const { return node_; }
  const std::string& target() const { return target_ ? *target_ : node_.target; }
  // The interpreter's state beyond the arguments (the data-dependent memo):
  // a rule that asks for it is never stored in the dispatch cache.
  Interpreter* interpreter();
  // Whether the graph is torch.export's (Graph::exported): fixed for the
  // run, so reading it keeps the result cacheable.
  bool graph_exported() const;
  // Whether the graph was traced from a program (make_fx or torch.export),
  // so a CompositeImplicit op that shows as the op it chose already made the
  // composite's decisions; false for a graph run op by op (FakeTensorProp).
  bool graph_traced() const;

  // ---- arguments by name: where the target's schema row puts `name` ----
  // (position, or keyword-only). An argument not given reads as the
  // schema's default unless the rule passes its own. A name the row does not
  // declare, or a target without a row, is an Internal error.
  const AtenSchema* schema() const { return schema_; }
  // Whether this overload has an argument `name` (sum.dim_IntList's dim;
  // sum.default has none): how a rule shared by overloads tells them apart.
  bool declares(std::string_view name) const { return schema_ && schema_->find(name); }
  // The declared type of `name` (linspace.Tensor_Scalar's start is a Tensor); Other when undeclared.
  ArgType declared_type(std::string_view name) const {
    const ArgSpec* a = schema_ ? schema_->find(name) : nullptr;
    return a ? a->type : ArgType::Other;
  }
  bool has(std::string_view name) const { return has(position(name), name); }
  const Value& value(std::string_view name) const { return value(position(name), name); }
  const TensorMeta& tensor(std::string_view name) const { return tensor(position(name), name); }
  const TensorValue& tensor_value(std::string_view name) const { return tensor_value(position(name), name); }
  const TensorMeta* optional_tensor(std::string_view name) const { return optional_tensor(position(name), name); }
  std::vector<const TensorMeta*> tensor_list(std::string_view name) const { return tensor_list(position(name), name); }
  SymInt int_arg(std::string_view name, std::optional<SymInt> dflt = std::nullopt) const;
  std::optional<SymInt> optional_int(std::string_view name) const;
  std::vector<SymInt> int_list(std::string_view name, std::optional<std::vector<SymInt>> dflt = std::nullopt,
                               size_t expand_to = 0) const;
  std::optional<std::vector<SymInt>> optional_int_list(std::string_view name) const;
  double float_arg(std::string_view name, std::optional<double> dflt = std::nullopt);
  bool bool_arg(std::string_view name, std::optional<bool> dflt = std::nullopt) const;
  std::string string_arg(std::string_view name, std::optional<std::string> dflt = std::nullopt) const;
  std::optional<DType> dtype_arg(std::string_view name) const { return dtype_arg(position(name), name); }
  std::optional<Device> device_arg(std::string_view name) const { return device_arg(position(name), name); }
  std::optional<MemoryFormat> memory_format_arg(std::string_view name) const;
  Scalar scalar_arg(std::string_view name, std::optional<Scalar> dflt = std::nullopt) const;
  // The node's own argument `name` as written (a HOP's subgraph); null when not given.
  const Arg* node_arg(std::string_view name) const;
  // A schema with `...` (a HOP's *args): the positional values past the
  // declared ones, and the node's arguments they come from.
  std::span<const Value* const> varargs() const;
  std::span<const Arg> node_varargs() const;
  // A schema with `**kwargs` (a HOP's wrapped op's keywords): keyword
  // `name`, declared or not; null when not given.
  const Value* keyword(std::string_view name) const;
  size_t num_args() const { return args_.size(); }

 private:
  // ---- by position: index `pos` of the schema, or keyword `name` ----
  // What the by-name readers resolve to, once spec() has found the position.
  bool has(size_t pos, std::string_view name) const;  // given and not None
  const Value& value(size_t pos, std::string_view name) const;  // Value::none() when absent
  const TensorMeta& tensor(size_t pos, std::string_view name) const;  // OpError unless a tensor
  const TensorValue& tensor_value(size_t pos, std::string_view name) const;
  const TensorMeta* optional_tensor(size_t pos, std::string_view name) const;
  std::vector<const TensorMeta*> tensor_list(size_t pos, std::string_view name) const;  // Tensor[] (None kept as nullptr)
  SymInt int_arg(size_t pos, std::string_view name, std::optional<SymInt> dflt = std::nullopt) const;
  std::optional<SymInt> optional_int(size_t pos, std::string_view name) const;
  // int[] / SymInt[]: a list, or a single int broadcast to `expand_to` entries when expand_to > 0.
  std::vector<SymInt> int_list(size_t pos, std::string_view name, std::optional<std::vector<SymInt>> dflt = std::nullopt,
                               size_t expand_to = 0) const;
  std::optional<std::vector<SymInt>> optional_int_list(size_t pos, std::string_view name) const;
  // A SymFloat argument is guarded to its hint (guard_float); an unbacked one raises.
  double float_arg(size_t pos, std::string_view name, std::optional<double> dflt = std::nullopt);
  bool bool_arg(size_t pos, std::string_view name, std::optional<bool> dflt = std::nullopt) const;
  std::string string_arg(size_t pos, std::string_view name, std::optional<std::string> dflt = std::nullopt) const;
  std::optional<DType> dtype_arg(size_t pos, std::string_view name) const;
  std::optional<Device> device_arg(size_t pos, std::string_view name) const;
  std::optional<MemoryFormat> memory_format_arg(size_t pos, std::string_view name) const;
  // A Scalar argument (Python number or SymInt).
  Scalar scalar_arg(size_t pos, std::string_view name, std::optional<Scalar> dflt = std::nullopt) const;

 public:

  // ---- results ----
  void set_result(Value v) { result_ = std::move(v); }
  const Value& result() const { return result_; }
  Value take_result() { return std::move(result_); }  // for the interpreter, once the rule is done
  // A fresh tensor (new storage) with contiguous strides unless given.
  TensorValue new_tensor(SymShape sizes, DType dtype, Device device, std::optional<SymShape> strides = std::nullopt);
  // A view of `base` (same storage, requires_grad inherited).
  TensorValue view_of(const TensorMeta& base, SymShape sizes, SymShape strides, SymInt storage_offset);
  Value tensor_result(TensorValue t) { return Value::of_tensor(std::move(t)); }

 private:
  // A position past every call's arguments: lookup finds it by keyword only.
  static constexpr size_t kKeywordOnly = 1000;
  const Value* lookup(size_t pos, std::string_view name) const;
  // The row's argument `name`; an Internal error when there is none.
  const ArgSpec& spec(std::string_view name) const;
  // Where lookup finds `name`: its position, or kKeywordOnly.
  size_t position(std::string_view name) const;
  // The schema's default of `name` when it is not given (nullptr when given or without one).
  const ArgDefault* missing_default(std::string_view name) const;
  const Node& node_;
  std::span<const Value* const> args_;
  std::span<const std::pair<std::string_view, const Value*>> kwargs_;
  Interpreter* interp_;
  const AtenSchema* schema_ = nullptr;
  const std::string* target_ = nullptr;  // set in a call of another op
  bool node_args_ = true;  // string, dtype, device and format arguments come from the node's literals
  Value result_;
};

using OpRule = void (*)(OpContext& ctx);

// Which outputs of an op autograd can mark requires_grad, as data on the
// rule: PyTorch's derivatives.yaml `output_differentiability`, and ops that
// are not differentiable at all (detach, the *_like / new_* factories).
// Bit i set: output i (tuple index; 0 for a single tensor) never requires
// grad. Outputs that are differentiable here still need a floating or
// complex dtype and an input that requires grad.
struct OutputGrad {
  uint32_t nondiff = 0;
  static constexpr OutputGrad all() { return {0}; }
  static constexpr OutputGrad none() { return {~0u}; }
  static constexpr OutputGrad first_only() { return {~1u}; }
  constexpr bool differentiable(size_t output) const {
    return ((nondiff >> (output < 31 ? output : 31)) & 1u) == 0;
  }
};

// What an op does to its first argument (self), beside what it returns.
enum class Mutation : uint8_t {
  None,      // functional: self is only read
  Data,      // in-place (add_, relu_, copy_, ...): self's data changes, its metadata stays
  Metadata,  // in-place on metadata (t_, transpose_, resize_, ...): self's sizes/strides change
};

struct OpEntry {
  OpRule rule = nullptr;
  OutputGrad grad;
  Mutation mutation = Mutation::None;
};
class OpRegistry;
// Defined in ops/registry.cpp: calls every family's registration function.
void register_all_aten_ops(OpRegistry& r);

// One registry of ATen rules keyed by the full target ("aten.add.Tensor");
// a rule registered for a packet ("aten.add") serves every overload without
// its own entry.
class OpRegistry {
 public:
  static const OpRegistry& instance();
  OpRule find(std::string_view target) const;
  const OpEntry* find_entry(std::string_view target) const;
  void add(std::string_view target, OpRule rule, OutputGrad grad = OutputGrad::all());
  // Registers an in-place twin ("aten.add_", "aten.t_.default"), whose rule
  // returns self as the op leaves it. logic_error unless the ATen name ends
  // in '_' and mutation is Data or Metadata.
  void add_inplace(std::string_view target, OpRule rule, Mutation mutation = Mutation::Data,
                   OutputGrad grad = OutputGrad::all());
  // Sets the differentiability of an already registered target (logic_error if none).
  void set_output_grad(std::string_view target, OutputGrad grad);
  std::vector<std::string> all() const;


 private:
  // Keyed by target, looked up by string_view without a copy (lookups are
  // few: the interpreter keeps each target's entry).
  StringMap<OpEntry> rules_;
};

}  // namespace fakeprop::fx
