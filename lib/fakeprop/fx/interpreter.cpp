#include "fakeprop/fx/interpreter.h"

#include <chrono>
#include <unordered_set>

#include "fakeprop/fx/op_context.h"
#include "fakeprop/graph/expr_cap.h"
#include "fakeprop/graph/unbacked_bindings.h"
#include "fakeprop/report/report.h"
#include "fakeprop/sym/parse.h"

namespace fakeprop::fx {

namespace {

// In-place ops whose metadata (not data) changes the live tensor.
const std::unordered_set<std::string>& metadata_mutating_ops() {
  static const std::unordered_set<std::string> ops = {"t_", "transpose_", "squeeze_", "unsqueeze_", "resize_",
                                                      "as_strided_", "swapdims_", "swapaxes_", "resize_as_"};
  return ops;
}

// "aten.add_.Tensor" -> "add_"; "aten.relu_" -> "relu_"; others "".
std::string aten_name(const std::string& target) {
  if (target.rfind("aten.", 0) != 0) return "";
  const std::string rest = target.substr(5);
  const size_t dot = rest.find('.');
  return dot == std::string::npos ? rest : rest.substr(0, dot);
}

bool is_inplace(const std::string& name) { return name.size() > 1 && name.back() == '_' && name.front() != '_'; }

bool differentiable_dtype(DType t) { return is_floating(t) || is_complex(t); }

}  // namespace

Interpreter::Interpreter(const Graph& g, const InferOptions& options, RunResult& result)
    : graph_(g), options_(options), result_(result), input_dims_(*result.env, result.input_specializations, result.warnings) {}

int64_t Interpreter::version_of(int64_t storage) const {
  auto it = versions_.find(storage);
  return it == versions_.end() ? 0 : it->second;
}

void Interpreter::note_data_mutation(int64_t storage) { ++versions_[storage]; }

Value Interpreter::resolve(const Arg& a) const {
  switch (a.kind) {
    case Arg::Kind::None: return Value::none();
    case Arg::Kind::Bool: return Value::of_bool(a.b);
    case Arg::Kind::Int: return Value::of_int(a.i);
    case Arg::Kind::Float: return Value::of_float(a.f);
    case Arg::Kind::Node: {
      auto it = values_.find(a.s);
      if (it == values_.end())
        throw InputError(graph_.path + ": node '" + current_node_ + "': argument refers to '" + a.s +
                         "', which is not an earlier node");
      return it->second;
    }
    case Arg::Kind::List: {
      ValueList xs;
      for (const Arg& x : a.list) xs.push_back(resolve(x));
      return Value::of_list(std::move(xs));
    }
    case Arg::Kind::String:
    case Arg::Kind::DType:
    case Arg::Kind::Device:
    case Arg::Kind::MemoryFormat:
    case Arg::Kind::Layout: return Value::of_opaque(a.s);
  }
  return Value::none();
}

Value Interpreter::example_to_value(const Node& n) {
  ShapeEnv& e = env();
  const bool is_input = n.op == "placeholder";
  const std::string name = n.target.empty() ? n.name : n.target;
  const std::string src = is_input ? SourceSpecs::input_source(name) : "L['self']." + name;
  const auto hints_it = options_.input_hints.find(name);
  const std::vector<int64_t>* hints = hints_it == options_.input_hints.end() ? nullptr : &hints_it->second;

  auto symbol_for = [&](std::string_view sym_name, const std::string& dim_source,
                        std::optional<int64_t> fallback_hint) -> ExprRef {
    const std::string key(sym_name);
    if (auto it = named_symbols_.find(key); it != named_symbols_.end()) {
      if (!dim_source.empty() && e.info(it->second).sources.end() ==
                                     std::find(e.info(it->second).sources.begin(), e.info(it->second).sources.end(), dim_source))
        e.add_source(it->second, dim_source);
      return it->second;
    }
    SymbolDecl decl;
    if (auto it = graph_.symbols.find(key); it != graph_.symbols.end()) decl = it->second;
    ExprRef s;
    if (decl.unbacked) {
      s = e.create_unbacked_symint(true, decl.range.value_or(ValueRange{0, kIntOo}));
      if (!dim_source.empty()) e.add_source(s, dim_source);
    } else {
      std::optional<int64_t> hint = decl.hint ? decl.hint : fallback_hint;
      s = e.create_named_symbol(key, hint, decl.range.value_or(ValueRange{2, kIntOo}), dim_source);
    }
    named_symbols_[key] = s;
    return s;
  };

  if (n.example.kind == ExampleValue::Kind::SymInt) {
    ExprRef v = parse_expr(n.example.sym, [&](std::string_view s) { return symbol_for(s, is_input ? src : "", std::nullopt); });
    return Value::of_int(SymInt(v));
  }
  if (n.example.kind != ExampleValue::Kind::Tensor) return Value::of_opaque("no example value");

  const ExampleTensor& ex = n.example.tensor;
  if (hints && hints->size() != ex.shape.size())
    throw InputError("--input " + name + ": " + std::to_string(hints->size()) + " dims given, the graph says rank " +
                     std::to_string(ex.shape.size()));
  TensorValue tv;
  bool shape_is_default_contiguous = !ex.stride.has_value();
  for (size_t d = 0; d < ex.shape.size(); ++d) {
    const std::string& text = ex.shape[d];
    const std::string dsrc = SourceSpecs::size_source(src, static_cast<int64_t>(d));
    std::optional<int64_t> hint = hints ? std::optional<int64_t>((*hints)[d]) : std::nullopt;
    char* end = nullptr;
    errno = 0;
    const long long literal = std::strtoll(text.c_str(), &end, 10);
    if (*end == '\0' && errno == 0) {
      if (literal < 0) throw InputError(graph_.path + ": node '" + n.name + "': negative size " + text);
      const int64_t h = hint.value_or(literal);
      const DimPlan plan = is_input ? plan_input_dim(options_, src, static_cast<int64_t>(d), true) : DimPlan{};
      if (plan.mark == DimMark::Unmarked || plan.mark == DimMark::Static)
        tv.meta.sizes.push_back(SymInt(plan.mark == DimMark::Static ? h : static_cast<int64_t>(literal)));
      else
        tv.meta.sizes.push_back(input_dims_.create(plan, src, static_cast<int64_t>(d), h));
      continue;
    }
    // A symbol name binds its source; an expression is computed from symbols seen before.
    ExprRef expr = parse_expr(text, [&](std::string_view s) {
      const bool whole = s == text;
      return symbol_for(s, whole ? dsrc : "", whole ? hint : std::nullopt);
    });
    tv.meta.sizes.push_back(SymInt(expr));
  }
  if (ex.stride) {
    for (const std::string& text : *ex.stride)
      tv.meta.strides.push_back(SymInt(parse_expr(text, [&](std::string_view s) { return symbol_for(s, "", std::nullopt); })));
  } else {
    tv.meta.strides = contiguous_strides(tv.meta.sizes, &e);
  }
  (void)shape_is_default_contiguous;
  tv.meta.storage_offset =
      SymInt(parse_expr(ex.storage_offset, [&](std::string_view s) { return symbol_for(s, "", std::nullopt); }));
  tv.meta.dtype = ex.dtype;
  tv.meta.device = ex.device.value_or(options_.device);
  tv.meta.storage = storage_.next();
  tv.meta.requires_grad = ex.requires_grad;
  tv.meta.is_leaf = true;
  return Value::of_tensor(std::move(tv));
}

namespace {

std::optional<SymInt> int_of(const Value& v) {
  if (v.kind == Value::Kind::Int) return v.i;
  if (v.kind == Value::Kind::Bool && v.b.is_static()) return SymInt(v.b.value() ? 1 : 0);
  return std::nullopt;
}

// operator.* on SymInts (and getitem on tuples): evaluated here, not by ATen rules.
std::optional<Value> eval_operator(const std::string& target, const std::vector<Value>& args, ShapeEnv& env) {
  if (target.rfind("operator.", 0) != 0 && target.rfind("_operator.", 0) != 0) return std::nullopt;
  const std::string op = target.substr(target.find('.') + 1);
  if (op == "getitem") {
    if (args.size() != 2) throw OpError("type_error", "operator.getitem takes 2 arguments");
    auto idx = int_of(args[1]);
    if (args[0].kind != Value::Kind::List || !idx || !idx->is_static())
      throw OpError("type_error", "operator.getitem needs a tuple and a constant index");
    const auto n = static_cast<int64_t>(args[0].list->size());
    int64_t i = idx->value() < 0 ? idx->value() + n : idx->value();
    if (i < 0 || i >= n) throw OpError("index_error", "tuple index out of range");
    return (*args[0].list)[static_cast<size_t>(i)];
  }
  if (op == "neg" && args.size() == 1) {
    auto a = int_of(args[0]);
    if (!a) throw OpError("type_error", "operator.neg needs an int");
    return Value::of_int(-*a);
  }
  if (args.size() != 2) throw OpError("type_error", target + " takes 2 arguments");
  auto a = int_of(args[0]), b = int_of(args[1]);
  if (!a || !b) throw OpError("type_error", target + " is supported on ints and SymInts only");
  auto simplified = [&](SymInt x) { return Value::of_int(env.simplify(x)); };
  if (op == "add") return simplified(*a + *b);
  if (op == "sub") return simplified(*a - *b);
  if (op == "mul") return simplified(*a * *b);
  if (op == "floordiv") return simplified(floordiv(*a, *b));
  if (op == "mod") return simplified(mod(*a, *b));
  auto rel = [&](SymBool c) {
    if (c.is_static()) return Value::of_bool(c);
    return Value::of_bool(SymBool(env.simplify(c.expr())));
  };
  if (op == "eq") return rel(sym_eq(*a, *b));
  if (op == "ne") return rel(sym_ne(*a, *b));
  if (op == "lt") return rel(sym_lt(*a, *b));
  if (op == "le") return rel(sym_le(*a, *b));
  if (op == "gt") return rel(sym_gt(*a, *b));
  if (op == "ge") return rel(sym_ge(*a, *b));
  throw OpError("unsupported_op", "no rule for " + target);
}

}  // namespace

void Interpreter::run_call(const Node& n, NodeRecord& rec) {
  std::vector<Value> args;
  for (const Arg& a : n.args) args.push_back(resolve(a));
  if (auto v = eval_operator(n.target, args, env())) {
    rec.outputs.push_back({n.name, *v});
    values_[n.name] = *v;
    return;
  }
  const OpEntry* entry = OpRegistry::instance().find_entry(n.target);
  Value out;
  if (!entry) {
    result_.errors.push_back({n.name, "unsupported_op", "no shape rule for " + n.target});
    // An unknown target with example meta continues with fresh unbacked sizes.
    if (n.example.kind == ExampleValue::Kind::Tensor) {
      TensorValue tv;
      for (size_t d = 0; d < n.example.tensor.shape.size(); ++d) {
        const std::string& t = n.example.tensor.shape[d];
        char* end = nullptr;
        const long long lit = std::strtoll(t.c_str(), &end, 10);
        tv.meta.sizes.push_back(*end == '\0' && lit >= 0 ? SymInt(static_cast<int64_t>(lit))
                                                         : SymInt(env().create_unbacked_symint(true)));
      }
      tv.meta.strides = contiguous_strides(tv.meta.sizes, &env());
      tv.meta.dtype = n.example.tensor.dtype;
      tv.meta.device = n.example.tensor.device.value_or(options_.device);
      tv.meta.storage = storage_.next();
      out = Value::of_tensor(std::move(tv));
    } else {
      out = Value::of_opaque("unknown: unsupported target " + n.target);
    }
  } else {
    std::vector<std::pair<std::string, Value>> kwargs;
    for (const auto& [k, a] : n.kwargs) kwargs.emplace_back(k, resolve(a));
    OpContext ctx(n, args, std::move(kwargs), env(), storage_, options_.device, this);
    entry->rule(ctx);
    out = ctx.result();
    // requires_grad flows from inputs that require grad to the outputs the
    // op is differentiable for (the rule's OutputGrad) that are floating.
    bool any_grad = false;
    for (const Value& a : args) {
      if (a.is_tensor()) any_grad |= a.tensor->meta.requires_grad;
      if (a.kind == Value::Kind::List)
        for (const Value& x : *a.list) any_grad |= x.is_tensor() && x.tensor->meta.requires_grad;
    }
    auto set_grad = [&](Value& v, size_t output) {
      if (!v.is_tensor()) return;
      TensorValue t = *v.tensor;
      t.meta.requires_grad = any_grad && entry->grad.differentiable(output) && differentiable_dtype(t.meta.dtype);
      if (t.meta.requires_grad) t.meta.is_leaf = false;
      v = Value::of_tensor(std::move(t));
    };
    if (out.kind == Value::Kind::List) {
      ValueList xs = *out.list;
      for (size_t i = 0; i < xs.size(); ++i) set_grad(xs[i], i);
      out = Value::of_list(std::move(xs));
    } else {
      set_grad(out, 0);
    }
    // Aliasing and mutation bookkeeping for in-place ops.
    const std::string name = aten_name(n.target);
    if (is_inplace(name) && !args.empty() && args[0].is_tensor() && !n.args.empty() && n.args[0].kind == Arg::Kind::Node) {
      const std::string& mutated = n.args[0].s;
      if (metadata_mutating_ops().count(name) && out.is_tensor()) {
        auto root = [&](const std::string& x) {
          auto it = identity_.find(x);
          return it == identity_.end() ? x : it->second;
        };
        MutationRecord m{n.name, n.target, mutated, {}};
        for (const auto& prev : result_.nodes)
          for (const auto& o : prev.outputs)
            if (o.val.is_tensor() && o.val.tensor->meta.storage == args[0].tensor->meta.storage &&
                root(o.name) == root(mutated))
              m.stale_nodes.push_back(prev.name);
        result_.mutations.push_back(std::move(m));
        values_[mutated] = out;
      } else {
        note_data_mutation(args[0].tensor->meta.storage);
      }
      auto it = identity_.find(mutated);
      identity_[n.name] = it == identity_.end() ? mutated : it->second;
    }
  }
  std::vector<Value> outs{out};
  bind_unbacked_symbols(rec, env().take_new_unbacked(), outs);
  rec.outputs.push_back({n.name, out});
  values_[n.name] = std::move(out);
}

void Interpreter::run() {
  ShapeEnv& e = env();
  std::vector<std::string> sources;
  for (const Node& n : graph_.nodes)
    if (n.op == "placeholder") sources.push_back(SourceSpecs::input_source(n.target.empty() ? n.name : n.target));
  options_.specs.check_all_matched(sources);
  options_.marks.check_all_matched(sources);

  bool inputs_done = false;
  for (const Node& n : graph_.nodes) {
    if (!inputs_done && n.op != "placeholder" && n.op != "get_attr") {
      input_dims_.finish();  // shape_id equalities hold before any op runs
      inputs_done = true;
    }
    current_node_ = n.name;
    e.set_current_node(n.name);
    NodeRecord rec;
    rec.name = n.name;
    rec.op = n.op == "call_function" ? n.target : n.op;
    if (e.extended_debug_enabled()) {  // the causal chain's node part
      std::vector<std::string> lines{"op " + rec.op};
      for (const Arg& a : n.args)
        if (a.kind == Arg::Kind::Node)
          if (auto it = values_.find(a.s); it != values_.end())
            lines.push_back("input " + a.s + ": " + describe_value(it->second, e));
      e.set_node_context([lines] { return lines; });
    }
    if (n.op == "placeholder" || n.op == "get_attr") {
      Value v = example_to_value(n);
      if (n.op == "placeholder")
        result_.inputs.push_back({n.name, SourceSpecs::input_source(n.target.empty() ? n.name : n.target), v});
      bind_unbacked_symbols(rec, e.take_new_unbacked(), {v});
      rec.outputs.push_back({n.name, v});
      values_[n.name] = v;
      leaves_.push_back(n.name);
    } else if (n.op == "output") {
      if (!n.args.empty()) {
        Value out = resolve(n.args[0]);
        if (out.kind == Value::Kind::List) {
          const Arg& a = n.args[0];
          for (size_t k = 0; k < out.list->size(); ++k) {
            const std::string name = k < a.list.size() && a.list[k].kind == Arg::Kind::Node ? a.list[k].s
                                                                                            : "output_" + std::to_string(k);
            result_.outputs.push_back({name, (*out.list)[k]});
          }
        } else {
          result_.outputs.push_back({n.args[0].kind == Arg::Kind::Node ? n.args[0].s : "output", out});
        }
      }
      continue;  // the output node is not recorded as a node
    } else {
      try {
        run_call(n, rec);
      } catch (const DataDependentError& err) {
        result_.errors.push_back({n.name, "data_dependent", err.what(), err.suggested_fixes()});
        rec.outputs.push_back({n.name, Value::of_opaque("unknown: data-dependent decision at node '" + n.name + "'")});
      } catch (const OpError& err) {
        result_.errors.push_back({n.name, err.kind(), err.what()});
        rec.outputs.push_back({n.name, Value::of_opaque("unknown: " + err.kind() + " at node '" + n.name + "'")});
      } catch (const InputError&) {
        throw;
      } catch (const Error& err) {
        result_.errors.push_back({n.name, "error", err.what()});
        rec.outputs.push_back({n.name, Value::of_opaque("unknown: error at node '" + n.name + "'")});
      }
      // Oversized output expressions become fresh unbacked symbols (graph/expr_cap.h).
      std::vector<Value> outs{rec.outputs.back().val};
      if (cap_expression_size(outs, e, options_.max_expr_nodes, n.name, result_.warnings) > 0) {
        bind_unbacked_symbols(rec, e.take_new_unbacked(), outs);
        rec.outputs.back().val = outs[0];
      }
      values_[n.name] = rec.outputs.back().val;
    }
    result_.nodes.push_back(std::move(rec));
  }
  e.set_current_node("");
  // Fake gradients: the layout a trainer materializes for each leaf that requires grad.
  for (const std::string& name : leaves_) {
    const Value& v = values_[name];
    if (!v.is_tensor() || !v.tensor->meta.requires_grad) continue;
    const TensorMeta& leaf = v.tensor->meta;
    TensorValue g;
    g.meta.sizes = leaf.sizes;
    g.meta.strides = is_non_overlapping_and_dense(leaf, e) ? leaf.strides : contiguous_strides(leaf.sizes, &e);
    g.meta.dtype = leaf.dtype;
    g.meta.device = leaf.device;
    g.meta.storage = storage_.next();
    result_.gradients.push_back({name, Value::of_tensor(std::move(g))});
  }
}

RunResult run_graph(const Graph& g, const InferOptions& options) {
  RunResult result;
  result.model_path = g.path;
  result.model_kind = "fx";
  result.device = options.device;
  result.env = std::make_unique<ShapeEnv>(options.settings);
  configure_shape_env(*result.env, options);
  const auto start = std::chrono::steady_clock::now();
  Interpreter interp(g, options, result);
  interp.run();
  result.dispatch.propagate_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace fakeprop::fx
