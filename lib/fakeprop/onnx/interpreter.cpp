#include "fakeprop/onnx/interpreter.h"

#include "fakeprop/runner/real_values.h"

#include "fakeprop/custom_ops/op_rules.h"

#include <chrono>
#include <string_view>

#include "fakeprop/onnx/consuming_run.h"
#include "fakeprop/onnx/op_context.h"
#include "fakeprop/onnx/ops/fallback.h"
#include "fakeprop/onnx/schema.h"
#include "fakeprop/value/describe_value.h"

namespace fakeprop::onnx {

namespace {

bool is_default_domain(std::string_view d) { return d.empty() || d == "ai.onnx"; }

// "Conv", or "com.microsoft.Attention" outside the default domain.
Name qualified_op(const Node& n, NamePool& pool) {
  return is_default_domain(n.domain) ? n.op_type : pool.intern(n.domain + "." + n.op_type);
}

}  // namespace

Interpreter::Interpreter(const Model& model, const InferOptions& options, RunResult& result, RunControl control)
    : model_(model), options_(options), result_(result), runner_(result, options) {
  for (const auto& t : model.graph.initializers) initializers_[t->name] = t.get();
  for (const auto& f : model.functions) functions_[f.domain + "::" + f.name] = &f;
  // The dynamic trace logs static decisions too: a hit would drop its lines.
  if (control.dispatch_cache && options_.log_level == LogLevel::Off)
    cache_ = std::make_unique<DispatchCache>(bypass_reason_names());
  cache_initializers_ = {[this](std::string_view name) -> const TensorRef* {
                           auto it = initializers_.find(name);
                           return it == initializers_.end() ? nullptr : it->second;
                         },
                         [this](std::string_view name) { return initializer_data(name); }};
}

Interpreter::~Interpreter() = default;

DispatchStats Interpreter::dispatch_stats() const {
  if (!cache_) return {};
  return cache_->stats();
}

const KnownData* Interpreter::initializer_data(std::string_view name) {
  auto cached = initializer_cache_.find(name);
  if (cached != initializer_cache_.end()) return cached->second.get();
  auto it = initializers_.find(name);
  if (it == initializers_.end()) return nullptr;
  const TensorRef& t = *it->second;
  std::unique_ptr<KnownData> data;
  if (t.numel() <= options_.max_fold_elements) {
    DType dt = t.dtype();
    if (is_floating(dt)) {
      if (auto xs = t.read_doubles(options_.max_fold_elements)) {
        data = std::make_unique<KnownData>();
        data->is_float = true;
        data->floats = std::move(*xs);
      }
    } else if (auto xs = t.read_int64s(options_.max_fold_elements)) {
      data = std::make_unique<KnownData>();
      data->ints.assign(xs->begin(), xs->end());
    }
  }
  const KnownData* out = data.get();
  initializer_cache_.insert_or_assign(std::string(name), std::move(data));
  return out;
}

const Interpreter::ResolvedOp& Interpreter::resolve(const Node& node) {
  const std::pair<const void*, const void*> key{node.op_type.view().data(), node.domain.view().data()};
  if (auto it = resolved_.find(key); it != resolved_.end()) return it->second;
  ResolvedOp op;
  op.domain = is_default_domain(node.domain) ? "" : node.domain.str();
  op.opset = model_.opset(op.domain);
  op.rule = OpRegistry::instance().find(op.domain, node.op_type, op.opset);
  op.schema = find_schema(op.domain, node.op_type, op.opset);
  return resolved_.emplace(key, std::move(op)).first->second;
}

void Interpreter::run_function(const Function& fn, const Node& call, Scope& scope, std::vector<Value>& outputs,
                               size_t depth) {
  // Expand the body at this call site: formal inputs bound to the actuals,
  // attribute references resolved against the call's attributes.
  Graph body;
  body.name = fn.name;
  for (const auto& in : fn.inputs) body.inputs.push_back({in, {}});
  for (const auto& out : fn.outputs) body.outputs.push_back({out, {}});
  for (Node n : fn.nodes) {
    std::vector<Attribute> resolved;
    for (auto& a : n.attributes) {
      if (a.ref_attr_name().empty()) {
        resolved.push_back(std::move(a));
        continue;
      }
      if (const Attribute* actual = call.attr(a.ref_attr_name())) {
        Attribute copy = *actual;
        copy.name = a.name;
        resolved.push_back(std::move(copy));
      } else {
        for (const auto& d : fn.attribute_defaults)
          if (d.name == a.ref_attr_name()) {
            Attribute copy = d;
            copy.name = a.name;
            resolved.push_back(std::move(copy));
          }
      }
    }
    n.attributes = std::move(resolved);
    body.nodes.push_back(std::move(n));
  }
  const ValueNumbering names(body);
  Scope inner(names);
  for (size_t i = 0; i < fn.inputs.size(); ++i) {
    const Value* v = (i < call.inputs.size() && !call.inputs[i].empty()) ? scope.find(call.inputs[i]) : nullptr;
    if (v) inner.set(fn.inputs[i], *v);
  }
  run_nodes(body, inner, call.name + "/", depth + 1);
  outputs.clear();
  for (const auto& o : fn.outputs) {
    const Value* v = inner.find(o);
    outputs.push_back(v ? *v : Value::of_opaque("function output '" + o + "' was not computed"));
  }
}

// A node's rule is a model function's body, the dispatch cache's earlier
// result, or its registered rule; a failed node falls back to the types the
// model declares for its outputs.
class Interpreter::Step final : public NodeStep {
 public:
  Step(Interpreter& in, const Node& node, Name record_name, std::span<const uint32_t> input_ids, Scope& scope,
       const Graph& g, size_t depth)
      : in_(in), node_(node), record_name_(record_name), scope_(scope), graph_(g), depth_(depth) {
    inputs_.reserve(input_ids.size());
    for (uint32_t id : input_ids) inputs_.push_back(scope.find(id));
  }

  void arguments(NodeArguments& in) const override {
    in.args = inputs_;
    in.attribute_source = &node_;
    in.attribute_of = [](const void* source, std::string_view name) -> std::optional<std::string> {
      const Attribute* a = static_cast<const Node*>(source)->attr(name);
      if (!a) return std::nullopt;
      if (a->type == Attribute::Type::Int) return std::to_string(a->i);
      if (a->type == Attribute::Type::String) return a->s;
      return std::nullopt;
    };
  }

  void describe_inputs(std::vector<std::string>& lines) const override {
    for (size_t i = 0; i < inputs_.size(); ++i)
      lines.push_back("input " + node_.inputs[i] + ": " + (inputs_[i] ? describe_value(*inputs_[i], in_.env()) : "absent"));
  }

  void run(std::vector<Value>& outputs) override {
    if (!in_.functions_.empty())
      if (auto it = in_.functions_.find(node_.domain + "::" + node_.op_type); it != in_.functions_.end()) {
        in_.run_function(*it->second, node_, scope_, outputs, depth_);
        return;
      }
    const ResolvedOp& op = in_.resolve(node_);
    const std::string& domain = op.domain;
    const int64_t opset = op.opset;
    const OpRule rule = op.rule;
    if (const custom_ops::OpRuleSet* user = in_.options_.op_rules.get())
      if (const custom_ops::OpRule* u = user->find_onnx(domain, node_.op_type, opset);
          u && (u->overrides || !rule)) {
        run_user_rule(*u, domain, outputs);
        return;
      }
    if (!rule)
      throw OpError(ErrorKind::UnsupportedOp, domain.empty() ? "no shape rule for operator " + node_.op_type
                                                     : "no shape rule for operator " + node_.op_type +
                                                           " of domain '" + domain + "'");
    if (node_.inputs.size() > 1)
      if (const OpSchema* schema = op.schema; schema && static_cast<int64_t>(node_.inputs.size()) > schema->max_input)
        in_.result_.warnings.push_back(
            {record_name_.str(), ErrorKind::ExtraInputs,
             node_.op_type + " (opset " + std::to_string(opset) + ") takes at most " +
                 std::to_string(schema->max_input) + " input(s); the node names " +
                 std::to_string(node_.inputs.size()) + " and the rest are not read"});
    ShapeEnv& e = in_.env();
    DispatchCache* cache = in_.cache_.get();
    DispatchCache::Visit visit;
    if (cache) {
      if (auto why = write_dispatch_key(cache->key(), node_, domain, opset, inputs_, in_.cache_initializers_))
        visit = cache->bypass(static_cast<size_t>(*why));
      else
        visit = cache->lookup(inputs_, e, in_.storage_, outputs);
      if (visit.hit) {
        reused = true;
        return;
      }
    }
    OpContext ctx(node_, opset, e, in_.storage_, in_.options_, inputs_, &in_);
    in_.subgraph_depth_ = depth_;
    in_.current_scope_ = &scope_;
    try {
      ctx.check_schema();  // once, before the rule; a cache hit's key passed it
      rule(ctx);
    } catch (...) {
      if (cache) cache->failed(visit);
      throw;
    }
    outputs = ctx.outputs();
    for (const auto& note : ctx.precision_notes())
      in_.result_.warnings.push_back({record_name_.str(), ErrorKind::PrecisionLost, note});
    // An output past every one the rule gave is the node's (it names more
    // outputs than the operator has: ORT rejects such a model); a gap
    // before one it gave is the rule's.
    size_t given = 0;
    for (size_t k = 0; k < outputs.size(); ++k)
      if (!outputs[k].is_none()) given = k + 1;
    for (size_t k = 0; k < outputs.size(); ++k)
      if (outputs[k].is_none() && ctx.wants_output(k)) {
        const std::string op(qualified_op(node_, in_.result_.names).str());
        if (k >= given)
          throw OpError(ErrorKind::OutputCount, op + " gives " + std::to_string(given) + " output(s); the node names " +
                                                    std::to_string(outputs.size()) + " (output '" + node_.outputs[k] +
                                                    "' has no value)");
        throw OpError(ErrorKind::Internal, "rule for " + op + " produced no value for output '" + node_.outputs[k] + "'");
      }
    if (cache) cache->store(visit, inputs_, outputs, ctx.precision_notes().empty(), e, in_.storage_);
  }

  // propagate_real_tensors: the registered rule once more, on the inputs'
  // real counterparts. A subgraph op, a function or a user rule is not run
  // again: its outputs have no real counterpart.
  bool run_real(std::vector<std::optional<Value>>& real) override {
    if (!has_real_elements(inputs_)) return false;
    const std::string domain = is_default_domain(node_.domain) ? "" : node_.domain.str();
    const OpRule rule = OpRegistry::instance().find(domain, node_.op_type, in_.model_.opset(domain));
    const std::string_view op = node_.op_type;
    if (!rule || op == "If" || op == "Loop" || op == "Scan" || op == "SequenceMap" ||
        in_.functions_.count(node_.domain + "::" + node_.op_type) ||
        (in_.options_.op_rules && in_.options_.op_rules->find_onnx(domain, node_.op_type, in_.model_.opset(domain))))
      return true;
    std::vector<std::optional<Value>> concrete;
    concrete.reserve(inputs_.size());
    for (const Value* v : inputs_) {
      concrete.push_back(v ? real_counterpart(*v, in_.env()) : std::nullopt);
      if (v && !concrete.back()) return true;
    }
    std::vector<const Value*> args;
    for (const auto& c : concrete) args.push_back(c ? &*c : nullptr);
    if (!in_.real_env_) in_.real_env_ = std::make_unique<ShapeEnv>(in_.options_.settings);
    OpContext ctx(node_, in_.model_.opset(domain), *in_.real_env_, in_.real_storage_, in_.options_, std::move(args), &in_);
    try {
      rule(ctx);
    } catch (const Error&) {
      return true;
    }
    for (const Value& v : ctx.outputs()) real.push_back(v.is_none() ? std::nullopt : std::optional<Value>(v));
    return true;
  }

  // A --op-rules rule: attributes are its named values (ints, lists of ints).
  void run_user_rule(const custom_ops::OpRule& u, const std::string& domain, std::vector<Value>& outputs) {
    // A declared attribute type is checked as the runner checks a schema's.
    for (const custom_ops::AttrSpec& spec : u.attrs) {
      const Attribute* a = spec.type ? node_.attr(spec.name) : nullptr;
      if (a && a->ref_attr_name().empty() && a->type != static_cast<Attribute::Type>(spec.type))
        throw OpError(ErrorKind::InvalidAttribute, "attribute '" + spec.name + "' of " + node_.op_type + " must be " +
                                                       attr_type_name(static_cast<Attribute::Type>(spec.type)) +
                                                       ", got " + attr_type_name(a->type));
    }
    OpContext ctx(node_, in_.model_.opset(domain), in_.env(), in_.storage_, in_.options_, inputs_, &in_);
    custom_ops::OpRuleCall call;
    call.inputs = inputs_;
    call.named = [this](std::string_view name) -> std::optional<Value> {
      const Attribute* a = node_.attr(name);
      if (!a) return std::nullopt;
      if (a->type == Attribute::Type::Int) return Value::of_int(SymInt(a->i));
      if (a->type == Attribute::Type::Float) return Value::of_float(a->f);
      if (a->type == Attribute::Type::Ints) {
        ValueList xs;
        for (int64_t v : a->ints) xs.push_back(Value::of_int(SymInt(v)));
        return Value::of_list(std::move(xs));
      }
      throw OpError(ErrorKind::InvalidAttribute, "attribute '" + std::string(name) + "' is not an int, ints or a float");
    };
    outputs = custom_ops::run_op_rule(u, call, ctx);
    if (outputs.size() < node_.outputs.size())
      throw OpError(ErrorKind::OutputCount, u.where + ": the rule gives " + std::to_string(outputs.size()) +
                                                " outputs; the node has " + std::to_string(node_.outputs.size()));
    outputs.resize(node_.outputs.size());
    in_.result_.op_rule_uses.push_back({record_name_.str(), u.key, u.where});
  }

  // A tensor of `rank` fresh unbacked sizes, contiguous.
  Value ranked_unknown(DType dtype, size_t rank) {
    TensorValue tv;
    for (size_t d = 0; d < rank; ++d) tv.meta.sizes.emplace_back(in_.env().create_unbacked_symint(true));
    tv.meta.strides = contiguous_strides(tv.meta.sizes, &in_.env());
    tv.meta.dtype = dtype;
    tv.meta.device = in_.options_.device;
    tv.meta.storage = in_.storage_.next();
    return Value::of_tensor(std::move(tv));
  }

  // A declared type wins; else an output keeps the element type its schema
  // gives it, and the rank its schema fixes from its inputs' (unranked where
  // an input's rank is unknown).
  void fallback(std::vector<Value>& outputs, const std::string& why, bool rank_unknown) override {
    const std::string domain = is_default_domain(node_.domain) ? "" : node_.domain.str();
    for (size_t k = 0; k < node_.outputs.size(); ++k) {
      const Name& o = node_.outputs[k];
      if (o.empty()) {
        outputs.push_back(Value::none());
        continue;
      }
      if (!ops::declared_type(graph_, o)) {
        const auto dtype = ops::schema_output_dtype(domain, node_.op_type, k, inputs_);
        const auto rank = ops::schema_output_rank(domain, node_.op_type, k, inputs_);
        if (dtype && rank) {  // the op fixes the rank: only the sizes are unknown
          outputs.push_back(ranked_unknown(*dtype, *rank));
          continue;
        }
        if (dtype && rank_unknown) {
          outputs.push_back(Value::of_unranked(*dtype, in_.options_.device, why));
          continue;
        }
      }
      outputs.push_back(
          ops::fallback_value(o, graph_, in_.env(), in_.storage_, in_.options_.device, why, in_.dim_params_));
    }
  }

 private:
  Interpreter& in_;
  const Node& node_;
  Name record_name_;
  Scope& scope_;
  const Graph& graph_;
  size_t depth_;
  std::vector<const Value*> inputs_;
};

void Interpreter::run_node(const Node& node, std::span<const uint32_t> input_ids,
                           std::span<const uint32_t> output_ids, Scope& scope, Name record_name, const Graph& g,
                           size_t depth) {
  Step step(*this, node, record_name, input_ids, scope, g, depth);
  NodeRecord& rec = runner_.run(record_name, qualified_op(node, result_.names), node.outputs, step);
  // The scope points into the stored record, which never moves.
  for (size_t k = 0, j = 0; k < node.outputs.size(); ++k)
    if (!node.outputs[k].empty()) scope.bind(output_ids[k], &rec.outputs[j++].val);
}

namespace {

// "float32[2, 3]" for a declared tensor type, with "?" for unknown dims.
std::string declared_text(const TypeInfo& t) {
  auto dt = dtype_from_onnx(t.elem_type);
  std::string out = dt ? std::string(dtype_name(*dt)) : "?";
  if (!t.shape) return out + "[...]";
  out += "[";
  for (size_t i = 0; i < t.shape->size(); ++i) {
    const Dim& d = (*t.shape)[i];
    out += (i ? ", " : "") + (d.kind == Dim::Kind::Value ? std::to_string(d.value) : d.kind == Dim::Kind::Param ? d.param : "?");
  }
  return out + "]";
}

// Whether a graph input's declared type contradicts the initializer of its name.
bool contradicts(const TypeInfo& declared, const TensorRef& t) {
  if (declared.kind != TypeInfo::Kind::Tensor) return false;
  if (declared.elem_type != 0 && declared.elem_type != t.data_type) return true;
  if (!declared.shape) return false;
  if (declared.shape->size() != t.dims.size()) return true;
  for (size_t i = 0; i < t.dims.size(); ++i)
    if ((*declared.shape)[i].kind == Dim::Kind::Value && (*declared.shape)[i].value != t.dims[i]) return true;
  return false;
}

}  // namespace

void Interpreter::run_nodes(const Graph& g, Scope& scope, const std::string& prefix, size_t depth) {
  if (depth > options_.max_subgraph_depth)
    throw InputError(model_.path + ": subgraphs nested deeper than " + std::to_string(options_.max_subgraph_depth));
  const ValueNumbering& names = scope.names();
  for (const auto& t : g.initializers) {
    const uint32_t id = names.id(t->name);
    if (id == ValueNumbering::kNone || scope.has_local(id)) continue;  // unnamed: nothing can read it
    // An initializer is its graph input's default value (IR 4 and later; before, every initializer
    // is an input): the value fakeprop propagates, so a declaration that contradicts it is an error.
    for (const ValueInfo& vi : g.inputs) {
      if (vi.name != t->name || !contradicts(vi.type, *t)) continue;
      TypeInfo given{TypeInfo::Kind::Tensor, t->data_type, std::vector<Dim>{}, nullptr, 0};
      for (int64_t d : t->dims) given.shape->push_back(Dim{Dim::Kind::Value, d, {}});
      result_.errors.push_back({prefix + t->name, ErrorKind::ValueInfoConflict,
                                "graph input '" + t->name + "': declared " + declared_text(vi.type) +
                                    ", its initializer is " + declared_text(given) + " (the initializer is used)"});
    }
    TensorValue tv;
    for (int64_t d : t->dims) tv.meta.sizes.emplace_back(d);
    tv.meta.strides = contiguous_strides(tv.meta.sizes);
    tv.meta.dtype = t->dtype();
    tv.meta.device = options_.device;
    tv.meta.storage = storage_.next();
    // Initializers of subgraphs are not in initializer_data's table: their
    // known elements travel with the value.
    if (depth > 0 && t->numel() <= options_.max_fold_elements) {
      if (is_floating(tv.meta.dtype)) {
        if (auto xs = t->read_doubles(options_.max_fold_elements)) tv.data = KnownData::of_floats(std::move(*xs));
      } else if (auto xs = t->read_int64s(options_.max_fold_elements)) {
        tv.data = KnownData::of_ints(std::vector<SymInt>(xs->begin(), xs->end()));
      }
    }
    Value v = Value::of_tensor(std::move(tv));
    if (depth == 0) result_.parameters.push_back({t->name, "", v});
    scope.set(id, std::move(v));
  }
  // Defined outside the nodes: inputs, initializers and, in a subgraph, what
  // the enclosing scopes hold.
  std::vector<bool> available = names.inputs_and_initializers(g);
  if (depth > 0)
    for (uint32_t id = 0; id < names.size(); ++id)
      if (!available[id] && scope.find(id)) available[id] = true;
  const std::vector<size_t> order = topological_order(g, names, available, model_.path);
  std::optional<ConsumingRun> consuming;
  if (&g == releasable_) consuming.emplace(*releasable_, names, order);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const size_t i = order[pos];
    const Node& node = g.nodes[i];
    run_node(node, names.inputs(i), names.outputs(i), scope,
             prefix.empty() ? node.name : result_.names.intern(prefix + node.name), g, depth);
    if (consuming) consuming->node_ran(pos, scope);
  }
}

std::vector<Value> Interpreter::run_subgraph(const Graph& g, const std::vector<Value>& inputs, const Scope& outer,
                                             const std::string& parent_node) {
  const ValueNumbering names(g);
  Scope inner(names, &outer);
  for (size_t i = 0; i < g.inputs.size() && i < inputs.size(); ++i) inner.set(g.inputs[i].name, inputs[i]);
  const std::string saved = env().current_node();
  run_nodes(g, inner, parent_node + "/" + (g.name.empty() ? "" : g.name + "/"), subgraph_depth_ + 1);
  env().set_current_node(saved);
  std::vector<Value> outs;
  for (const auto& o : g.outputs) {
    const Value* v = inner.find(o.name);
    outs.push_back(v ? *v : Value::of_opaque("subgraph output '" + o.name + "' was not computed"));
  }
  return outs;
}

void Interpreter::run_main_graph() {
  const Graph& g = model_.graph;
  const ValueNumbering names(g);
  Scope scope(names);
  create_inputs(g, scope);
  env().take_new_unbacked();  // input symbols are bound by their sources, not by a node
  run_nodes(g, scope, "", 0);
  env().set_current_node("");
  for (const auto& o : g.outputs) {
    const Value* v = scope.find(o.name);
    result_.outputs.push_back({result_.names.intern(o.name), v ? *v : Value::of_opaque("not computed")});
  }
  ops::check_declared_types(g, result_, env());
}

namespace {

RunResult run(const Model& model, Graph* release_as_run, const InferOptions& options, const RunControl& control) {
  RunResult result = begin_run("onnx", model.path, options);
  result.borrowed_names.push_back(model.names);  // records point at the model's node and value names
  for (const LoadWarning& w : model.warnings) result.warnings.push_back({w.node, w.kind, w.message});
  const auto start = std::chrono::steady_clock::now();
  Interpreter interp(model, options, result, control);
  if (release_as_run) interp.release_nodes_as_run(*release_as_run);
  interp.run_main_graph();
  result.dispatch = interp.dispatch_stats();
  result.dispatch.propagate_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

RunResult run_model(const Model& model, const InferOptions& options, const RunControl& control) {
  return run(model, nullptr, options, control);
}

RunResult run_model(Model&& model, const InferOptions& options, const RunControl& control) {
  return run(model, &model.graph, options, control);
}

}  // namespace fakeprop::onnx
