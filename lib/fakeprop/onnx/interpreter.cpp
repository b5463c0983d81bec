#include "fakeprop/onnx/interpreter.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <unordered_set>

#include "fakeprop/graph/expr_cap.h"
#include "fakeprop/graph/unbacked_bindings.h"
#include "fakeprop/onnx/op_context.h"
#include "fakeprop/onnx/ops/fallback.h"

namespace fakeprop::onnx {

const Value* Scope::find(const std::string& name) const {
  for (const Scope* s = this; s; s = s->parent_) {
    auto it = s->values_.find(name);
    if (it != s->values_.end()) return &it->second;
  }
  return nullptr;
}

namespace {

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

std::string qualified_op(const Node& n) {
  return is_default_domain(n.domain) ? n.op_type : n.domain + "." + n.op_type;
}

// Names a subgraph reads from enclosing scopes (recursively).
void collect_outer_reads(const Graph& g, std::unordered_set<std::string>& out) {
  std::unordered_set<std::string> defined;
  for (const auto& vi : g.inputs) defined.insert(vi.name);
  for (const auto& t : g.initializers) defined.insert(t->name);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) defined.insert(o);
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name)) out.insert(name);
  };
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) read(i);
    for (const auto& a : n.attributes) {
      std::unordered_set<std::string> inner;
      if (a.g) collect_outer_reads(*a.g, inner);
      for (const auto& sg : a.graphs) collect_outer_reads(*sg, inner);
      for (const auto& name : inner) read(name);
    }
  }
  for (const auto& o : g.outputs) read(o.name);
}

std::vector<std::string> node_reads(const Node& n) {
  std::vector<std::string> reads;
  for (const auto& i : n.inputs)
    if (!i.empty()) reads.push_back(i);
  std::unordered_set<std::string> inner;
  for (const auto& a : n.attributes) {
    if (a.g) collect_outer_reads(*a.g, inner);
    for (const auto& sg : a.graphs) collect_outer_reads(*sg, inner);
  }
  reads.insert(reads.end(), inner.begin(), inner.end());
  return reads;
}

}  // namespace

std::vector<size_t> topological_order(const Graph& g, const std::vector<std::string>& available,
                                      const std::string& path) {
  const size_t n = g.nodes.size();
  std::unordered_map<std::string, size_t> producer;
  producer.reserve(n * 2);
  for (size_t i = 0; i < n; ++i)
    for (const auto& o : g.nodes[i].outputs) {
      if (o.empty()) continue;
      if (!producer.emplace(o, i).second)
        throw InputError(path + ": node '" + g.nodes[i].name + "': value '" + o +
                         "' is produced by more than one node (also by '" + g.nodes[producer[o]].name + "')");
    }
  std::unordered_set<std::string> avail(available.begin(), available.end());
  std::vector<std::vector<size_t>> users(n);
  std::vector<size_t> pending(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (const auto& name : node_reads(g.nodes[i])) {
      auto it = producer.find(name);
      if (it != producer.end()) {
        users[it->second].push_back(i);
        ++pending[i];
      } else if (!avail.count(name)) {
        throw InputError(path + ": node '" + g.nodes[i].name + "': input '" + name +
                         "' is not produced by any node, graph input or initializer");
      }
    }
  }
  // Kahn's algorithm, taking ready nodes in file order so that a sorted file keeps its order.
  std::vector<size_t> order;
  order.reserve(n);
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push_back(i);
  std::vector<size_t> next_batch;
  while (!ready.empty()) {
    size_t i = ready.front();
    ready.pop_front();
    order.push_back(i);
    next_batch.clear();
    for (size_t u : users[i])
      if (--pending[u] == 0) next_batch.push_back(u);
    std::sort(next_batch.begin(), next_batch.end());
    for (size_t u : next_batch) ready.push_back(u);
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (pending[i] != 0)
        throw InputError(path + ": node '" + g.nodes[i].name + "': the graph has a cycle through this node");
  }
  return order;
}

Interpreter::Interpreter(const Model& model, const InferOptions& options, RunResult& result)
    : model_(model), options_(options), result_(result) {
  for (const auto& t : model.graph.initializers) initializers_[t->name] = t.get();
  for (const auto& f : model.functions) functions_[f.domain + "::" + f.name] = &f;
}

const KnownData* Interpreter::initializer_data(const std::string& name) {
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
  initializer_cache_[name] = std::move(data);
  return out;
}

Value Interpreter::fallback_value(const std::string& value_name, const Graph& g, const std::string& why) {
  return ops::fallback_value(value_name, g, env(), storage_, options_.device, why);
}

void Interpreter::record_unbacked_bindings(NodeRecord& rec, const std::vector<Value>& outputs) {
  bind_unbacked_symbols(rec, env().take_new_unbacked(), outputs);
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
      if (a.ref_attr_name.empty()) {
        resolved.push_back(std::move(a));
        continue;
      }
      if (const Attribute* actual = call.attr(a.ref_attr_name)) {
        Attribute copy = *actual;
        copy.name = a.name;
        resolved.push_back(std::move(copy));
      } else {
        for (const auto& d : fn.attribute_defaults)
          if (d.name == a.ref_attr_name) {
            Attribute copy = d;
            copy.name = a.name;
            resolved.push_back(std::move(copy));
          }
      }
    }
    n.attributes = std::move(resolved);
    body.nodes.push_back(std::move(n));
  }
  Scope inner(nullptr);
  for (size_t i = 0; i < fn.inputs.size(); ++i) {
    const Value* v = (i < call.inputs.size() && !call.inputs[i].empty()) ? scope.find(call.inputs[i]) : nullptr;
    if (v) inner.set(fn.inputs[i], *v);
  }
  std::vector<std::string> available(fn.inputs.begin(), fn.inputs.end());
  run_nodes(body, inner, call.name + "/", depth + 1);
  outputs.clear();
  for (const auto& o : fn.outputs) {
    const Value* v = inner.find(o);
    outputs.push_back(v ? *v : Value::of_opaque("function output '" + o + "' was not computed"));
  }
}

void Interpreter::run_node(const Node& node, Scope& scope, const std::string& record_name, const Graph& g,
                           size_t depth) {
  ShapeEnv& e = env();
  e.set_current_node(record_name);
  NodeRecord rec;
  rec.name = record_name;
  rec.op = qualified_op(node);

  std::vector<const Value*> inputs;
  inputs.reserve(node.inputs.size());
  for (const auto& name : node.inputs) inputs.push_back(name.empty() ? nullptr : scope.find(name));

  std::vector<Value> outputs;
  std::string failure;  // why outputs fall back, for errors and lost-precision notes
  std::string domain = is_default_domain(node.domain) ? "" : node.domain;
  try {
    auto fn = functions_.find(node.domain + "::" + node.op_type);
    if (fn != functions_.end()) {
      run_function(*fn->second, node, scope, outputs, depth);
    } else if (OpRule rule = OpRegistry::instance().find(domain, node.op_type)) {
      int64_t opset = model_.opset(domain);
      OpContext ctx(node, opset, e, storage_, options_.device, std::move(inputs), this);
      subgraph_depth_ = depth;
      current_scope_ = &scope;
      rule(ctx);
      outputs = ctx.outputs();
      for (const auto& note : ctx.precision_notes()) result_.warnings.push_back({record_name, "precision_lost", note});
      for (size_t k = 0; k < outputs.size(); ++k)
        if (outputs[k].is_none() && ctx.wants_output(k))
          throw OpError("internal", "rule for " + rec.op + " produced no value for output '" + node.outputs[k] + "'");
    } else {
      std::string what = domain.empty() ? "no shape rule for operator " + node.op_type
                                        : "no shape rule for operator " + node.op_type + " of domain '" + domain + "'";
      result_.errors.push_back({record_name, "unsupported_op", what});
      failure = "unsupported operator " + rec.op;
    }
  } catch (const DataDependentError& err) {
    result_.errors.push_back({record_name, "data_dependent", err.what()});
    failure = "data-dependent decision at node '" + record_name + "'";
  } catch (const OpError& err) {
    result_.errors.push_back({record_name, err.kind(), err.what()});
    failure = err.kind() + " at node '" + record_name + "': " + err.what();
  } catch (const OverflowError& err) {
    result_.errors.push_back({record_name, "overflow", err.what()});
    failure = "overflow at node '" + record_name + "'";
  } catch (const InputError&) {
    throw;
  } catch (const Error& err) {
    result_.errors.push_back({record_name, "error", err.what()});
    failure = "error at node '" + record_name + "': " + err.what();
  }
  if (!failure.empty()) {
    outputs.clear();
    for (const auto& o : node.outputs) outputs.push_back(o.empty() ? Value::none() : fallback_value(o, g, failure));
  }
  outputs.resize(node.outputs.size());
  cap_expression_size(outputs, e, options_.max_expr_nodes, record_name, result_.warnings);  // graph/expr_cap.h
  record_unbacked_bindings(rec, outputs);
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (node.outputs[k].empty()) continue;
    rec.outputs.push_back({node.outputs[k], outputs[k]});
    scope.set(node.outputs[k], std::move(outputs[k]));
  }
  result_.nodes.push_back(std::move(rec));
}

void Interpreter::run_nodes(const Graph& g, Scope& scope, const std::string& prefix, size_t depth) {
  if (depth > options_.max_subgraph_depth)
    throw InputError(model_.path + ": subgraphs nested deeper than " + std::to_string(options_.max_subgraph_depth));
  std::vector<std::string> available;
  for (const auto& vi : g.inputs) available.push_back(vi.name);
  for (const auto& t : g.initializers) available.push_back(t->name);
  if (depth > 0) {
    // Outer-scope names are visible to subgraphs.
    std::unordered_set<std::string> reads;
    collect_outer_reads(g, reads);
    for (const auto& r : reads)
      if (scope.find(r)) available.push_back(r);
  }
  for (const auto& t : g.initializers) {
    if (scope.has_local(t->name)) continue;
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
        if (auto xs = t->read_doubles(options_.max_fold_elements)) tv.data = KnownData{{}, std::move(*xs), true};
      } else if (auto xs = t->read_int64s(options_.max_fold_elements)) {
        tv.data = KnownData{std::vector<SymInt>(xs->begin(), xs->end()), {}, false};
      }
    }
    scope.set(t->name, Value::of_tensor(std::move(tv)));
  }
  for (size_t i : topological_order(g, available, model_.path)) {
    const Node& node = g.nodes[i];
    run_node(node, scope, prefix + node.name, g, depth);
  }
}

std::vector<Value> Interpreter::run_subgraph(const Graph& g, const std::vector<Value>& inputs, const Scope& outer,
                                             const std::string& parent_node) {
  Scope inner(&outer);
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
  Scope scope;
  create_inputs(g, scope);
  env().take_new_unbacked();  // input symbols are bound by their sources, not by a node
  run_nodes(g, scope, "", 0);
  env().set_current_node("");
  for (const auto& o : g.outputs) {
    const Value* v = scope.find(o.name);
    result_.outputs.push_back({o.name, v ? *v : Value::of_opaque("not computed")});
  }
  ops::check_declared_types(g, result_, env());
}

RunResult run_model(const Model& model, const InferOptions& options) {
  RunResult result;
  result.model_path = model.path;
  result.model_kind = "onnx";
  result.device = options.device;
  result.env = std::make_unique<ShapeEnv>(options.settings);
  result.env->log().set_level(options.log_level);
  Interpreter interp(model, options, result);
  interp.run_main_graph();
  return result;
}

}  // namespace fakeprop::onnx
