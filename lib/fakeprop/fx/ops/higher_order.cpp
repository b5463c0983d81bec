// Higher-order ops (torch.ops.higher_order.*): each runs its subgraphs
// through Interpreter::run_subgraph as torch's FakeTensorMode
// implementation runs them, and builds the outputs as that implementation
// does (torch/_higher_order_ops/*.py):
//  - cond: both branches on the operands, whatever the predicate (torch does
//    not read it); outputs merged: a size stays where the branches agree, a
//    fresh unbacked size covering both where they do not.
//  - while_loop: the body once on the carried values; a carried dim the body
//    changes becomes a fresh unbacked size and the body runs again, until
//    the carried sizes are a fixed point. Integer outputs are unbacked.
//  - map_impl: the body on the first row of xs; outputs stacked (contiguous)
//    along xs's leading dim.
//  - scan: the combine function on init and the first row of xs; carries as
//    the body gives them, per-step outputs stacked along the scan length.
//  - invoke_subgraph: the subgraph on this call's operands.
//  - wrap_with_set_grad_enabled: the body on the operands, its outputs as
//    they are; none requires grad where grad is off.
//  - auto_functionalized_v2: the op's results, then a copy of each base with
//    its strides (clone_preserve_strides).
//  - with_effects: a new token (an empty float tensor), then the op's results.
//  - flex_attention: the output and its statistics from the shapes alone, as
//    torch's flex_attention_fake_impl (no subgraph runs).
// A call's FLOPs are its subgraphs' (Interpreter::scale_subgraph_flops):
// cond counts both branches, as FlopCounterMode does once anything was
// counted before it; map and scan count the body once per row; while_loop
// counts none (its trip count is data; torch's counter refuses it).
#include <algorithm>
#include <map>
#include <optional>

#include "fakeprop/fx/interpreter.h"
#include "fakeprop/fx/ops/aten_helpers.h"
#include "fakeprop/fx/ops/families.h"

namespace fakeprop::fx::ops {

namespace {

// Passes of a loop body over generalized carried sizes before giving up.
constexpr int kMaxBodyPasses = 8;

Interpreter& interp(OpContext& ctx) {
  Interpreter* in = ctx.interpreter();
  if (!in) ctx.fail(ErrorKind::Internal, ctx.target() + " needs the interpreter to run its subgraphs");
  return *in;
}

// Argument `name` (higher_order_schemas.inc), a subgraph of the graph being run.
const Graph& subgraph(OpContext& ctx, std::string_view name) {
  const Arg* arg = ctx.node_arg(name);
  if (!arg || arg->kind != Arg::Kind::Graph)
    ctx.fail(ErrorKind::InvalidArgument, ctx.target() + ": argument '" + std::string(name) + "' is not a subgraph");
  const Arg& a = *arg;
  const Graph& g = interp(ctx).graph();
  const size_t i = static_cast<size_t>(a.i);
  if (i < g.subgraphs.size() && g.subgraphs[i]->path == a.s) return *g.subgraphs[i];
  if (const Graph* sub = g.subgraph(a.s)) return *sub;
  ctx.fail(ErrorKind::InvalidArgument, ctx.target() + ": the program has no subgraph '" + a.s + "'");
}

// A list argument's elements (operands, carried values).
std::vector<Value> elements(OpContext& ctx, const Value& v, std::string_view name) {
  if (v.kind == Value::Kind::None) return {};
  if (v.kind != Value::Kind::List) ctx.fail(ErrorKind::TypeError, ctx.target() + ": '" + std::string(name) + "' must be a list");
  return std::vector<Value>(v.list->begin(), v.list->end());
}

// A **kwargs keyword that is given and not None.
bool given(OpContext& ctx, const std::string& name) {
  const Value* v = ctx.keyword(name);
  return v && !v->is_none();
}

// A **kwargs keyword's ints (an int alone when `single`).
std::vector<SymInt> int_list(OpContext& ctx, const std::string& name, bool single = false) {
  const Value* v = ctx.keyword(name);
  if (!v || v->is_none()) ctx.fail(ErrorKind::MissingInput, ctx.target() + " needs argument '" + name + "'");
  // As OpContext reads an int: a constant bool counts as 0 or 1.
  auto as_int = [](const Value& x) -> std::optional<SymInt> {
    if (x.kind == Value::Kind::Int) return x.i;
    if (x.kind == Value::Kind::Bool && x.b.is_static()) return SymInt(x.b.value() ? 1 : 0);
    return std::nullopt;
  };
  if (std::optional<SymInt> i = as_int(*v)) return {*i};
  if (v->kind == Value::Kind::List && !single) {
    std::vector<SymInt> out;
    for (const Value& x : *v->list) {
      const std::optional<SymInt> i = as_int(x);
      if (!i) ctx.fail(ErrorKind::TypeError, ctx.target() + ": argument '" + name + "' must hold ints");
      out.push_back(*i);
    }
    return out;
  }
  ctx.fail(ErrorKind::TypeError, ctx.target() + ": argument '" + name + "' must be " + (single ? "an int" : "a list of ints"));
}

std::vector<Value> concat(std::vector<Value> a, const std::vector<Value>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const TensorMeta& tensor_of(OpContext& ctx, const Value& v, const std::string& what) {
  if (!v.is_tensor()) ctx.fail(ErrorKind::TypeError, ctx.target() + ": " + what + " must be a tensor");
  return v.tensor->meta;
}

// A new tensor (its own storage) with `t`'s sizes and strides: what a
// subgraph's output becomes outside it.
Value fresh_like(OpContext& ctx, const TensorMeta& t) {
  TensorValue out = ctx.new_tensor(t.sizes, t.dtype, t.device, t.strides);
  return Value::of_tensor(std::move(out));
}

Value fresh_copy(OpContext& ctx, const Value& v) {
  if (v.is_tensor()) return fresh_like(ctx, v.tensor->meta);
  if (v.kind == Value::Kind::List) {
    ValueList xs;
    for (const Value& x : *v.list) xs.push_back(fresh_copy(ctx, x));
    return Value::of_list(std::move(xs));
  }
  return v;
}

// x.select_copy(0, 0): a contiguous row, as torch's first_slice_copy gives each step.
Value first_row(OpContext& ctx, const Value& v, const std::string& what) {
  const TensorMeta& t = tensor_of(ctx, v, what);
  if (t.sizes.empty()) ctx.fail(ErrorKind::InvalidArgument, ctx.target() + ": " + what + " is 0-d; it has no rows");
  SymShape row(t.sizes.begin() + 1, t.sizes.end());
  return Value::of_tensor(ctx.new_tensor(std::move(row), t.dtype, t.device));
}

// y.unsqueeze(0).expand(n, ...).clone(contiguous_format).
Value stacked(OpContext& ctx, const Value& v, const SymInt& n) {
  if (!v.is_tensor()) return v;
  const TensorMeta& t = v.tensor->meta;
  SymShape sizes{n};
  sizes.insert(sizes.end(), t.sizes.begin(), t.sizes.end());
  return Value::of_tensor(ctx.new_tensor(std::move(sizes), t.dtype, t.device));
}

bool has_unbacked(OpContext& ctx, const SymInt& s) { return !s.is_static() && !ctx.env().hint(s).has_value(); }

// The key a stride takes in _bound_stride's table: its expression's text.
std::string key_of(OpContext& ctx, const SymInt& s) { return text(simplified(ctx, s)); }

// The dims in ascending stride order (ties: the inner dim first), as inductor's argsort orders them.
std::vector<size_t> stride_order(OpContext& ctx, const SymShape& strides) {
  std::vector<int64_t> hints;
  for (const SymInt& s : strides) hints.push_back(ctx.env().hint(s).value_or(0));
  std::vector<size_t> order(strides.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return hints[a] < hints[b]; });
  return order;
}

// torch.cond's _merge_output for one output of the two branches.
Value merge_output(OpContext& ctx, const Value& a, const Value& b, const std::string& what) {
  if (a.kind == Value::Kind::None || b.kind == Value::Kind::None) {
    if (a.kind != b.kind) ctx.fail(ErrorKind::TypeError, "cond: " + what + " is None in one branch only");
    return a;
  }
  if (a.kind == Value::Kind::Int && b.kind == Value::Kind::Int)
    return a.i.same(b.i) ? a : Value::of_int(ctx.covering_size(a.i, b.i));
  if (!a.is_tensor() || !b.is_tensor()) ctx.fail(ErrorKind::TypeError, "cond: " + what + " must be a tensor in both branches");
  const TensorMeta& x = a.tensor->meta;
  const TensorMeta& y = b.tensor->meta;
  if (x.dtype != y.dtype)
    ctx.fail(ErrorKind::TypeError, "When merging two branches' output in torch.cond, expected same dtype but got " +
                                       std::string(dtype_name(x.dtype)) + " and " + std::string(dtype_name(y.dtype)) + ".");
  if (x.device != y.device)
    ctx.fail(ErrorKind::DeviceMismatch, "When merging two branches' output in torch.cond, expected same device but got " +
                                            x.device.str() + " and " + y.device.str() + ".");
  if (x.dim() != y.dim())
    ctx.fail(ErrorKind::ShapeMismatch, "When merging two branches' output in torch.cond, expected same dim but got " +
                                           std::to_string(x.dim()) + " and " + std::to_string(y.dim()) + ".");
  SymShape sizes;
  for (size_t d = 0; d < x.sizes.size(); ++d) {
    const bool same = !has_unbacked(ctx, x.sizes[d]) && !has_unbacked(ctx, y.sizes[d]) &&
                      simplified(ctx, x.sizes[d]).same(simplified(ctx, y.sizes[d]));
    sizes.push_back(same ? x.sizes[d] : ctx.covering_size(x.sizes[d], y.sizes[d]));
  }
  // Strides rebuilt over the merged sizes in the branches' common stride
  // order (torch's _bound_stride): a stride is 0, 1, or an earlier dim's
  // stride times its size.
  const std::vector<size_t> order = stride_order(ctx, x.strides);
  if (order != stride_order(ctx, y.strides))
    ctx.fail(ErrorKind::InvalidArgument,
             "The sorted order of strides of the two branches' output doesn't match.this indicates the contiguousness "
             "of the two branches are different. True branch has stride " + text(x.strides) + " but false branch has "
             "stride " + text(y.strides) + ".Consider using contiguous() to make the two branches have the same "
             "contiguousness.");
  std::map<std::string, SymInt> by_stride;
  SymShape strides(x.sizes.size());
  for (const size_t d : order) {
    const std::string k = key_of(ctx, x.strides[d]);
    if (x.strides[d].is_static() && x.strides[d].value() == 0) {
      strides[d] = 0;
      continue;
    }
    if (auto it = by_stride.find(k); it != by_stride.end()) strides[d] = it->second;
    else if (x.strides[d].is_static() && x.strides[d].value() == 1) strides[d] = 1;
    else
      ctx.fail(ErrorKind::InvalidArgument,
               "It seems one of cond's output stride is not a simple accumulative multiplication of sizes. This could "
               "be because cond returns a slice of a tensor, which is not dense in memory. True branch has size " +
                   text(x.sizes) + ", stride " + text(x.strides) + " and false branch has size " + text(y.sizes) +
                   ", stride " + text(y.strides) + ". Hint: can call t.contiguous(). ");
    const SymInt next = simplified(ctx, strides[d] * sizes[d]);
    by_stride[key_of(ctx, x.strides[d] * x.sizes[d])] = next;
    by_stride.try_emplace(key_of(ctx, x.strides[d] * sym_max(x.sizes[d], SymInt(1))), next);
  }
  return Value::of_tensor(ctx.new_tensor(std::move(sizes), x.dtype, x.device, std::move(strides)));
}

void cond(OpContext& ctx) {
  Interpreter& in = interp(ctx);
  const Graph& true_graph = subgraph(ctx, "true_fn");
  const Graph& false_graph = subgraph(ctx, "false_fn");
  const std::vector<Value> operands = elements(ctx, ctx.value("operands"), "operands");
  const std::vector<Value> t = in.run_subgraph(true_graph, operands);
  const std::vector<Value> f = in.run_subgraph(false_graph, operands);
  if (t.size() != f.size())
    ctx.fail(ErrorKind::OutputCount, "Unmatched output spec from torch.cond branches: the true branch returns " +
                                         std::to_string(t.size()) + " values, the false branch " + std::to_string(f.size()));
  ValueList out;
  for (size_t k = 0; k < t.size(); ++k) out.push_back(merge_output(ctx, t[k], f[k], "output " + std::to_string(k)));
  ctx.set_result(Value::of_list(std::move(out)));
}

// `v` with each dim in `which` (by carried index, dim) a fresh unbacked size.
Value generalized(OpContext& ctx, const Value& v, const std::vector<bool>& dims) {
  if (!v.is_tensor()) return v;
  const TensorMeta& t = v.tensor->meta;
  SymShape sizes = t.sizes;
  bool any = false;
  for (size_t d = 0; d < sizes.size() && d < dims.size(); ++d)
    if (dims[d]) {
      sizes[d] = ctx.new_unbacked_size({0, kIntOo});
      any = true;
    }
  if (!any) return v;
  return Value::of_tensor(ctx.new_tensor(std::move(sizes), t.dtype, t.device));
}

void while_loop(OpContext& ctx) {
  Interpreter& in = interp(ctx);
  const Graph& body = subgraph(ctx, "body_fn");
  const std::vector<Value> initial = elements(ctx, ctx.value("carried_inputs"), "carried_inputs");
  const std::vector<Value> additional = elements(ctx, ctx.value("additional_inputs"), "additional_inputs");
  // Which dims of each carried tensor vary from one iteration to the next.
  std::vector<std::vector<bool>> varies(initial.size());
  for (size_t k = 0; k < initial.size(); ++k)
    if (initial[k].is_tensor()) varies[k].assign(initial[k].tensor->meta.sizes.size(), false);
  std::vector<Value> outs;
  for (int pass = 0;; ++pass) {
    if (pass == kMaxBodyPasses)
      ctx.fail(ErrorKind::LoopNotStable, "while_loop: the carried sizes do not settle in " + std::to_string(kMaxBodyPasses) + " passes");
    std::vector<Value> carried;
    for (size_t k = 0; k < initial.size(); ++k) carried.push_back(generalized(ctx, initial[k], varies[k]));
    outs = in.run_subgraph(body, concat(carried, additional));
    if (outs.size() != carried.size())
      ctx.fail(ErrorKind::OutputCount, "while_loop: the body returns " + std::to_string(outs.size()) + " values for " +
                                           std::to_string(carried.size()) + " carried inputs");
    bool changed = false;
    for (size_t k = 0; k < carried.size(); ++k) {
      if (!carried[k].is_tensor()) continue;
      const TensorMeta& c = carried[k].tensor->meta;
      const TensorMeta& o = tensor_of(ctx, outs[k], "the body's output " + std::to_string(k));
      if (o.dtype != c.dtype || o.dim() != c.dim())
        ctx.fail(ErrorKind::TypeError, "while_loop: the body's output " + std::to_string(k) + " is " +
                                           std::string(dtype_name(o.dtype)) + text(o.sizes) + " for the carried " +
                                           std::string(dtype_name(c.dtype)) + text(c.sizes));
      for (size_t d = 0; d < c.sizes.size(); ++d)
        if (!varies[k][d] && !simplified(ctx, o.sizes[d]).same(simplified(ctx, c.sizes[d]))) varies[k][d] = changed = true;
    }
    if (!changed) break;
  }
  in.drop_subgraph_flops();
  ValueList result;
  for (size_t k = 0; k < outs.size(); ++k) {
    const Value& o = outs[k];
    if (o.kind == Value::Kind::Int) result.push_back(Value::of_int(SymInt(ctx.env().create_unbacked_symint())));
    // A dim that varies is the size at whichever iteration the loop ends: unbacked.
    else if (o.is_tensor() && std::find(varies[k].begin(), varies[k].end(), true) != varies[k].end())
      result.push_back(generalized(ctx, o, varies[k]));
    else result.push_back(fresh_copy(ctx, o));
  }
  ctx.set_result(Value::of_list(std::move(result)));
}

void map_impl(OpContext& ctx) {
  Interpreter& in = interp(ctx);
  const Graph& body = subgraph(ctx, "f");
  const std::vector<Value> xs = elements(ctx, ctx.value("xs"), "xs");
  const std::vector<Value> pos_args = elements(ctx, ctx.value("pos_args"), "pos_args");
  if (xs.empty()) ctx.fail(ErrorKind::InvalidArgument, "map: no xs to map over");
  const SymInt batch = tensor_of(ctx, xs[0], "xs[0]").sizes.empty() ? SymInt(0) : xs[0].tensor->meta.sizes[0];
  std::vector<Value> rows;
  for (size_t k = 0; k < xs.size(); ++k) rows.push_back(first_row(ctx, xs[k], "xs[" + std::to_string(k) + "]"));
  ValueList out;
  for (const Value& o : in.run_subgraph(body, concat(rows, pos_args))) out.push_back(stacked(ctx, o, batch));
  in.scale_subgraph_flops(batch);
  ctx.set_result(Value::of_list(std::move(out)));
}

void scan(OpContext& ctx) {
  Interpreter& in = interp(ctx);
  const Graph& combine = subgraph(ctx, "combine_fn");
  const std::vector<Value> init = elements(ctx, ctx.value("init"), "init");
  const std::vector<Value> xs = elements(ctx, ctx.value("xs"), "xs");
  const std::vector<Value> additional = elements(ctx, ctx.value("additional_inputs"), "additional_inputs");
  if (xs.empty()) ctx.fail(ErrorKind::InvalidArgument, "scan: no xs to scan over");
  const TensorMeta& x0 = tensor_of(ctx, xs[0], "xs[0]");
  if (x0.sizes.empty()) ctx.fail(ErrorKind::InvalidArgument, "scan: xs[0] is 0-d; it has no rows");
  const SymInt length = x0.sizes[0];
  std::vector<Value> rows;
  for (size_t k = 0; k < xs.size(); ++k) rows.push_back(first_row(ctx, xs[k], "xs[" + std::to_string(k) + "]"));
  const std::vector<Value> outs = in.run_subgraph(combine, concat(concat(init, rows), additional));
  in.scale_subgraph_flops(length);
  if (outs.size() < init.size())
    ctx.fail(ErrorKind::OutputCount, "scan: the combine function returns " + std::to_string(outs.size()) +
                                         " values for " + std::to_string(init.size()) + " carries");
  ValueList out;
  for (size_t k = 0; k < outs.size(); ++k) out.push_back(k < init.size() ? fresh_copy(ctx, outs[k]) : stacked(ctx, outs[k], length));
  ctx.set_result(Value::of_list(std::move(out)));
}

void invoke_subgraph(OpContext& ctx) {
  Interpreter& in = interp(ctx);
  const Graph& body = subgraph(ctx, "subgraph");
  std::vector<Value> operands;
  for (const Value* v : ctx.varargs()) operands.push_back(*v);
  ValueList out;
  for (const Value& o : in.run_subgraph(body, operands)) out.push_back(fresh_copy(ctx, o));
  ctx.set_result(Value::of_list(std::move(out)));
}

// wrap_with_set_grad_enabled(enabled, body, *args): export's wrapper of a
// `with torch.no_grad()` (or enable_grad) block. torch runs the body under
// that grad mode and returns its outputs as they are (no copy); with grad
// off none of them requires grad (the interpreter's grad step clears it).
void wrap_with_set_grad_enabled(OpContext& ctx) {
  Interpreter& in = interp(ctx);
  const Value& enabled = ctx.value("enable_grad");
  if (enabled.kind != Value::Kind::Bool || !enabled.b.is_static())
    ctx.fail(ErrorKind::TypeError, ctx.target() + ": enable_grad must be a constant bool");
  const Graph& body = subgraph(ctx, "wrapped_func");
  std::vector<Value> operands;
  for (const Value* v : ctx.varargs()) operands.push_back(*v);
  const std::vector<Value> outs = in.run_subgraph(body, operands);
  ctx.set_result(Value::of_list(ValueList(outs.begin(), outs.end())));
}

// The op an auto_functionalized / with_effects call wraps, as a target name ("aten.add.Tensor").
std::string wrapped_op(OpContext& ctx, const Arg& a) {
  if (a.kind != Arg::Kind::String) ctx.fail(ErrorKind::InvalidArgument, ctx.target() + ": the wrapped op is not named");
  std::string t = a.s;
  if (t.rfind("torch.ops.", 0) == 0) t.erase(0, 10);
  return t;
}

// Runs `target` on the HOP's *args (none for auto_functionalized_v2) and
// its **kwargs (those not starting with '_'): a one-call subgraph, so that
// the call goes through the interpreter as any other (its rule, or an
// --op-rules rule).
std::vector<Value> call_wrapped(OpContext& ctx, const std::string& target,
                                const std::vector<std::pair<std::string, Value>>& replaced = {}) {
  const Node& n = ctx.node();
  GraphBuilder b(ctx.target() + " of " + target, 1 << 16);
  std::vector<Value> inputs;
  auto input = [&](const Value& v) {
    Node& p = b.add("arg" + std::to_string(inputs.size()));
    p.op = "placeholder";
    p.target = p.name;
    b.finish(p);
    inputs.push_back(v);
    return b.node_ref(static_cast<uint32_t>(inputs.size() - 1));
  };
  std::vector<Arg> args;
  std::vector<std::pair<std::string, Arg>> kwargs;
  // A literal stays one (rules read strings and dtypes from the node); a value of the program is an input.
  auto refers = [](const Arg& a, auto& self) -> bool {
    if (a.kind == Arg::Kind::Node) return true;
    return a.kind == Arg::Kind::List && std::any_of(a.list.begin(), a.list.end(), [&](const Arg& x) { return self(x, self); });
  };
  auto literal_or_input = [&](const Arg& a, const Value* v) { return refers(a, refers) ? input(*v) : a; };
  if (ctx.schema()->varargs) {
    const std::span<const Arg> written = ctx.node_varargs();
    const std::span<const Value* const> values = ctx.varargs();
    for (size_t k = 0; k < written.size() && k < values.size(); ++k) args.push_back(literal_or_input(written[k], values[k]));
  }
  for (const auto& kwarg : n.kwargs) {
    const std::string& name = kwarg.first;
    const Arg& a = kwarg.second;
    if (name.starts_with("_")) continue;
    auto r = std::find_if(replaced.begin(), replaced.end(), [&](const auto& x) { return x.first == name; });
    if (r != replaced.end()) kwargs.emplace_back(name, input(r->second));
    else kwargs.emplace_back(name, literal_or_input(a, ctx.keyword(name)));
  }
  for (const auto& [name, v] : replaced)
    if (!n.kwarg(name)) kwargs.emplace_back(name, input(v));
  Node& call = b.add("call");
  call.op = "call_function";
  call.target = target;
  call.args = std::move(args);
  call.kwargs = std::move(kwargs);
  b.finish(call);
  Node& out = b.add("output");
  out.op = "output";
  out.target = "output";
  out.args.push_back(b.node_ref(static_cast<uint32_t>(inputs.size())));
  b.finish(out);
  Graph g = b.take();
  g.exported = interp(ctx).graph().exported;
  std::vector<Value> outs = interp(ctx).run_subgraph(g, inputs);
  if (outs.size() == 1 && outs[0].kind == Value::Kind::List) return std::vector<Value>(outs[0].list->begin(), outs[0].list->end());
  return outs;
}

// auto_functionalized_v2(op, ..., _x_base_index=i, [_x_size, _x_stride,
// _x_storage_offset | _x_slice_dim, _x_slice_start, _x_slice_end], _all_bases=[...]):
// the op runs on copies of its mutable arguments (each a base, or a view of
// one), then returns its results and the bases it wrote, as new tensors.
void auto_functionalized_v2(OpContext& ctx) {
  const Node& n = ctx.node();
  const Arg* op_arg = ctx.node_arg("_mutable_op");
  if (!op_arg) ctx.fail(ErrorKind::InvalidArgument, "auto_functionalized_v2: no op");
  const std::string op = wrapped_op(ctx, *op_arg);
  const std::vector<Value> bases = elements(ctx, ctx.value("_all_bases"), "_all_bases");
  ValueList copies;
  for (size_t k = 0; k < bases.size(); ++k) {
    const TensorMeta& b = tensor_of(ctx, bases[k], "_all_bases[" + std::to_string(k) + "]");
    copies.push_back(fresh_like(ctx, b));  // clone_preserve_strides: offset 0
  }
  // The mutable arguments, rebuilt over the copies as views.
  std::vector<std::pair<std::string, Value>> mutable_args;
  for (const auto& [key, a] : n.kwargs) {
    if (!key.starts_with("_") || !key.ends_with("_base_index")) continue;
    const std::string name = key.substr(1, key.size() - 1 - std::string("_base_index").size());
    static const Value none;
    const Value* given_index = ctx.keyword(key);
    const Value& index = given_index ? *given_index : none;
    if (index.kind == Value::Kind::None) {
      mutable_args.emplace_back(name, Value::none());
      continue;
    }
    if (index.kind != Value::Kind::Int || !index.i.is_static() || index.i.value() < 0 ||
        static_cast<size_t>(index.i.value()) >= copies.size())
      ctx.fail(ErrorKind::InvalidArgument, "auto_functionalized_v2: " + key + " is not a base's index");
    const TensorMeta& base = copies[static_cast<size_t>(index.i.value())].tensor->meta;
    if (given(ctx, "_" + name + "_size")) {
      const std::vector<SymInt> size = int_list(ctx, "_" + name + "_size");
      const std::vector<SymInt> stride = int_list(ctx, "_" + name + "_stride");
      const SymInt offset =
          given(ctx, "_" + name + "_storage_offset") ? int_list(ctx, "_" + name + "_storage_offset", true)[0] : SymInt(0);
      mutable_args.emplace_back(name, Value::of_tensor(ctx.view_of(base, size, stride, offset)));
    } else if (given(ctx, "_" + name + "_slice_dim")) {
      ctx.fail(ErrorKind::NotImplemented, "auto_functionalized_v2: a mutable argument that is a slice of its base");
    } else {
      mutable_args.emplace_back(name, Value::of_tensor(ctx.view_of(base, base.sizes, base.strides, base.storage_offset)));
    }
  }
  // The op's results come first; how many the program declares says how many there are.
  const size_t declared = n.declared_outputs;
  const size_t results = declared > copies.size() ? declared - copies.size() : 1;
  ValueList out;
  std::vector<Value> got;
  try {
    got = call_wrapped(ctx, op, mutable_args);
  } catch (const OpError& e) {
    if (e.kind() != ErrorKind::UnsupportedOp) throw;
    // What the op writes is the bases' copies, rule or not; only its results need its rule.
    ctx.note_precision("no shape rule for " + op + " (--op-rules gives one): its results are unknown");
    got.assign(results, Value::unknown("no shape rule for " + op));
  }
  if (got.size() == 1 && got[0].kind == Value::Kind::None) got.clear();
  for (size_t k = 0; k < results; ++k) out.push_back(k < got.size() ? fresh_copy(ctx, got[k]) : Value::none());
  for (Value& c : copies) out.push_back(std::move(c));
  ctx.set_result(Value::of_list(std::move(out)));
}

void auto_functionalized(OpContext& ctx) {
  ctx.fail(ErrorKind::UnsupportedOp,
           "auto_functionalized (v1) is not supported: which arguments it returns copies of is in the op's schema, "
           "which the program does not carry; torch.export writes auto_functionalized_v2");
}

void with_effects(OpContext& ctx) {
  const Arg* op_arg = ctx.node_arg("op");
  if (!ctx.node_arg("token") || !op_arg) ctx.fail(ErrorKind::InvalidArgument, "with_effects: expects a token and an op");
  const std::string op = wrapped_op(ctx, *op_arg);
  std::vector<Value> got = call_wrapped(ctx, op);
  ValueList out;
  out.push_back(Value::of_tensor(ctx.new_tensor({SymInt(0)}, DType::Float32, Device::parse("cpu").value())));
  for (const Value& v : got)
    if (v.kind != Value::Kind::None) out.push_back(fresh_copy(ctx, v));
  ctx.set_result(Value::of_list(std::move(out)));
}

// flex_attention(query, key, value, score_mod, block_mask, scale, kernel_options, ...) ->
// (out, logsumexp, max_scores): torch's fake implementation runs neither
// score_mod nor the block mask's mask_mod; out is [B, Hq, L, Ev] laid out in
// the query's fill order with a unit last stride, the statistics float32 [B, Hq, L].
void flex_attention(OpContext& ctx) {
  const TensorMeta& q = ctx.tensor("query");
  const TensorMeta& v = ctx.tensor("value");
  if (q.dim() != 4 || v.dim() != 4)
    ctx.fail(ErrorKind::InvalidRank, "flex_attention: query and value must be 4-d, got " + text(q.sizes) + " and " + text(v.sizes));
  const SymShape sizes{q.sizes[0], q.sizes[1], q.sizes[2], v.sizes[3]};
  auto strides_in = [&](std::vector<size_t> fill) {
    SymShape st(4);
    SymInt running = 1;
    for (const size_t d : fill) {
      st[d] = running;
      running = simplified(ctx, running * sizes[d]);
    }
    return st;
  };
  std::vector<size_t> fill = stride_order(ctx, q.strides);
  SymShape strides = strides_in(fill);
  if (!(strides[3].is_static() && strides[3].value() == 1)) {
    fill.erase(std::find(fill.begin(), fill.end(), size_t{3}));
    fill.insert(fill.begin(), 3);
    strides = strides_in(fill);
  }
  ValueList out;
  out.push_back(Value::of_tensor(ctx.new_tensor(sizes, q.dtype, q.device, strides)));
  for (int k = 0; k < 2; ++k)
    out.push_back(Value::of_tensor(ctx.new_tensor({q.sizes[0], q.sizes[1], q.sizes[2]}, DType::Float32, q.device)));
  ctx.set_result(Value::of_list(std::move(out)));
}

}  // namespace

void register_higher_order_ops(OpRegistry& r) {
  // requires_grad as autograd gives it for the ops a subgraph runs: from any input that requires it
  // (with_effects' token never does).
  r.add("higher_order.cond", cond);
  r.add("higher_order.while_loop", while_loop);
  r.add("higher_order.map_impl", map_impl);
  r.add("higher_order.scan", scan);
  r.add("higher_order.invoke_subgraph", invoke_subgraph);
  r.add("higher_order.wrap_with_set_grad_enabled", wrap_with_set_grad_enabled);
  r.add("higher_order.auto_functionalized", auto_functionalized);
  r.add("higher_order.auto_functionalized_v2", auto_functionalized_v2);
  r.add("higher_order.with_effects", with_effects, OutputGrad{1u});
  r.add("higher_order.flex_attention", flex_attention);
}

}  // namespace fakeprop::fx::ops
