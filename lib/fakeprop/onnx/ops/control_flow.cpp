// Control flow (If, Loop, Scan, SequenceMap), sequences and optionals.
//
// Representation (value/value.h):
//  - A sequence is a Value::Kind::List of tensors. When its elements are not
//    individually known (a length that is symbolic or data-dependent, or a
//    Loop that grows it), it is Value::of_list_of_length(template, length):
//    one template element describes every element; a template dim without
//    unbacked symbols is the same for every element, an unbacked one may
//    differ between elements.
//  - An optional is its element when it holds one, Value::empty_optional
//    (opaque, keeping its ONNX type) when it is empty, and its element with
//    maybe_none set when it may be either (If merging an empty and a full
//    optional, an optional graph input).
//
// Subgraphs run through Interpreter::run_subgraph with the calling node's
// scope as the outer scope, like torch.cond / torch.while_loop's tracing:
//  - If: a condition known statically or decidable by a guard on backed
//    sizes runs one branch; otherwise both run and the outputs merge (same
//    dtype and rank; equal dims stay, differing dims become a fresh unbacked
//    size covering both). Each branch then runs under its side of the
//    condition (ShapeEnv::push_branch): its runtime asserts are recorded as
//    implications over the condition and its facts end with it.
//  - Loop / Scan: the body runs with the initial loop-carried values; a dim
//    (or sequence length, or known data) the body changes is generalized to a
//    fresh unbacked symbol and the body runs again, until nothing changes.
//    A generalized dim whose per-iteration change is a constant c ends as
//    initial + c * trip_count when the trip count is known; otherwise as a
//    fresh unbacked size. Scan outputs get the trip count (or an unbacked
//    size) as their stacked dim. The Loop / Scan node binds the generalized
//    symbols (its unbacked_bindings, with no key path of their own): they
//    stand for a carried size at any iteration.
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

// Sequences longer than this are kept as template + length.
constexpr int64_t kMaxExplicitSequence = 4096;
// Generalization passes of a loop body before giving up.
constexpr int kMaxBodyPasses = 8;

bool is_sequence(const Value& v) { return v.kind == Value::Kind::List; }
bool is_templated(const Value& v) { return is_sequence(v) && v.list_length.has_value(); }

// Length of a sequence value (static for explicit lists).
SymInt sequence_length(const Value& v) {
  return v.list_length ? *v.list_length : SymInt(static_cast<int64_t>(v.list->size()));
}

Interpreter& interp(OpContext& ctx) {
  Interpreter* in = ctx.interpreter();
  if (!in || !in->current_scope())
    ctx.fail(ErrorKind::Internal, ctx.op_type() + " needs the interpreter to run its subgraph");
  return *in;
}

const Graph& graph_attr(OpContext& ctx, const char* name) {
  const Attribute* a = ctx.attr(name);
  if (!a || a->type != Attribute::Type::Graph || !a->g)
    ctx.fail(ErrorKind::MissingAttribute, ctx.op_type() + " needs graph attribute '" + std::string(name) + "'");
  return *a->g;
}

// The record name of the running node, the prefix of its subgraph's nodes.
std::string node_path(OpContext& ctx) { return ctx.env().current_node(); }

std::string describe_kind(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Tensor: return "a tensor";
    case Value::Kind::List: return "a sequence";
    case Value::Kind::Map: return "a map";
    case Value::Kind::Opaque: return v.opaque_text();
    case Value::Kind::None: return "no value";
    default: return "a scalar";
  }
}

Value tensor_value(OpContext& ctx, DType dtype, SymShape shape, std::optional<KnownData> data = std::nullopt) {
  for (SymInt& d : shape) d = simplified(ctx, d);
  TensorValue t = ctx.new_tensor(dtype, std::move(shape));
  t.data = std::move(data);
  return Value::of_tensor(std::move(t));
}

Value scalar_tensor(OpContext& ctx, DType dtype, std::optional<SymInt> known) {
  std::optional<KnownData> data;
  if (known) data = int_data({*known});
  return tensor_value(ctx, dtype, {}, std::move(data));
}

// A fresh copy (new storage) of a value a subgraph produced, so outputs of a
// control-flow node never alias values of the subgraph or the outer scope.
Value fresh_copy(OpContext& ctx, const Value& v) {
  Value out = v;
  if (v.is_tensor()) {
    out = tensor_value(ctx, v.tensor->meta.dtype, v.tensor->meta.sizes, v.tensor->data);
  } else if (is_sequence(v)) {
    ValueList xs;
    for (const Value& e : *v.list) xs.push_back(fresh_copy(ctx, e));
    out = Value::of_list(std::move(xs));
    out.list_length = v.list_length;
  } else if (v.is_map()) {
    out = Value::of_map(v.map_key, fresh_copy(ctx, v.map_value()), v.map_entries());
  }
  out.maybe_none = v.maybe_none;
  return out;
}

// Input `i` with its known elements attached (main-graph initializers keep
// theirs out of the value; a subgraph sees the value under another name).
Value input_with_data(OpContext& ctx, size_t i) {
  const Value& v = ctx.input(i);
  if (!v.is_tensor() || v.tensor->data) return v;
  std::optional<KnownData> data;
  if (is_floating(v.tensor->meta.dtype)) {
    if (auto xs = ctx.floats(i)) data = float_data(std::move(*xs));
  } else if (auto xs = ctx.ints(i)) {
    data = int_data(std::move(*xs));
  }
  if (!data) return v;
  TensorValue t = *v.tensor;
  t.data = std::move(data);
  Value out = Value::of_tensor(std::move(t));
  out.maybe_none = v.maybe_none;
  return out;
}

// The optional `v` with its presence unknown.
Value maybe_none(Value v) {
  v.maybe_none = true;
  v.optional = true;
  return v;
}

bool same_data(const std::optional<KnownData>& a, const std::optional<KnownData>& b) {
  if (!a || !b || a->is_float != b->is_float || a->size() != b->size()) return false;
  if (a->is_float) return a->floats == b->floats;
  for (size_t i = 0; i < a->ints.size(); ++i)
    if (!a->ints[i].same(b->ints[i])) return false;
  return true;
}

// ---------------------------------------------------------------------------
// Merging the values one output may take (If branches, loop iterations).

// How a dim (or length) that differs between the two values is replaced.
using DifferingSize = std::function<SymInt(const SymInt& a, const SymInt& b)>;

struct Merger {
  OpContext& ctx;
  DifferingSize differ;
  // Sizes that already stand for "any size" (loop generalization symbols):
  // a value that has one keeps it.
  const std::unordered_set<ExprRef>* keep = nullptr;
  bool changed = false;  // anything of `a` was replaced

  bool kept(const SymInt& d) const { return keep && d.is_symbolic() && keep->count(d.expr()); }

  SymInt size(const SymInt& a, const SymInt& b) {
    if (a.same(b) || kept(a) || known_true(ctx, sym_eq(a, b))) return a;
    changed = true;
    return differ(a, b);
  }

  // Where `longer` is `shorter` with one dim more (a Squeeze in one case,
  // which runs only where that dim is 1): which dim, and the inputs' dims
  // whose hints (--input) would decide the case. "" otherwise.
  std::string size_one_difference(const TensorMeta& longer, const TensorMeta& shorter) {
    if (longer.dim() != shorter.dim() + 1) return "";
    for (int64_t k = 0; k < longer.dim(); ++k) {
      bool rest_equal = true;
      for (int64_t i = 0, j = 0; i < longer.dim() && rest_equal; ++i) {
        if (i == k) continue;
        const SymInt& x = longer.sizes[static_cast<size_t>(i)];
        const SymInt& y = shorter.sizes[static_cast<size_t>(j++)];
        rest_equal = x.same(y) || known_true(ctx, sym_eq(x, y));
      }
      if (!rest_equal) continue;
      const SymInt d = simplified(ctx, longer.sizes[static_cast<size_t>(k)]);
      std::string text = ", differing only by dim " + std::to_string(k) + " (" + d.to_python() +
                         "), which the shorter case drops: whether it is 1 decides the rank";
      std::string sources;
      if (d.is_symbolic())
        for (ExprRef sym : free_symbols(d.expr())) {
          const SymbolInfo& info = ctx.env().info(sym);
          if (!info.sources.empty() && info.node.empty())
            sources += (sources.empty() ? "" : ", ") + info.sources.front();
        }
      if (!sources.empty()) text += "; a hint for " + sources + " (--input) would decide it";
      return text;
    }
    return "";
  }

  Value tensor(const Value& a, const Value& b, const std::string& what) {
    const TensorMeta& ma = a.tensor->meta;
    const TensorMeta& mb = b.tensor->meta;
    if (ma.dtype != mb.dtype)
      ctx.fail(ErrorKind::TypeError, what + " is " + std::string(dtype_name(ma.dtype)) + " in one case and " +
                                         std::string(dtype_name(mb.dtype)) + " in the other");
    if (ma.dim() != mb.dim()) {  // the rank depends on which case runs
      changed = true;
      const std::string why = what + " has rank " + std::to_string(ma.dim()) + " in one case and " +
                              std::to_string(mb.dim()) + " in the other" +
                              size_one_difference(ma.dim() > mb.dim() ? ma : mb, ma.dim() > mb.dim() ? mb : ma);
      ctx.note_precision(why);
      return Value::of_unranked(ma.dtype, ma.device, why);
    }
    SymShape shape;
    bool same_shape = true;
    for (int64_t k = 0; k < ma.dim(); ++k) {
      shape.push_back(size(ma.sizes[k], mb.sizes[k]));
      same_shape = same_shape && shape.back().same(ma.sizes[k]);
    }
    std::optional<KnownData> data;
    if (same_shape && same_data(a.tensor->data, b.tensor->data)) data = a.tensor->data;
    else if (a.tensor->data) changed = true;
    return tensor_value(ctx, ma.dtype, std::move(shape), std::move(data));
  }

  // One template describing every element of `xs` (empty: nullopt).
  std::optional<Value> template_of(const ValueList& xs, const std::string& what) {
    std::optional<Value> t;
    for (const Value& x : xs) t = t ? value(*t, x, what + " element") : x;
    return t;
  }

  Value sequence(const Value& a, const Value& b, const std::string& what) {
    if (!is_templated(a) && !is_templated(b) && a.list->size() == b.list->size()) {
      ValueList xs;
      for (size_t k = 0; k < a.list->size(); ++k) xs.push_back(value((*a.list)[k], (*b.list)[k], what));
      return Value::of_list(std::move(xs));
    }
    SymInt len = size(sequence_length(a), sequence_length(b));
    if (!is_templated(a)) changed = true;
    ValueList all(a.list->begin(), a.list->end());
    all.insert(all.end(), b.list->begin(), b.list->end());
    std::optional<Value> t = template_of(all, what);
    if (!t) return Value::of_list({});
    return Value::of_list_of_length(*t, len);
  }

  // Maps: one key dtype; the values merge as values, the entry counts as sizes.
  Value map(const Value& a, const Value& b, const std::string& what) {
    if (a.map_key != b.map_key)
      ctx.fail(ErrorKind::TypeError, what + " has " + std::string(dtype_name(a.map_key)) + " keys in one case and " +
                                         std::string(dtype_name(b.map_key)) + " in the other");
    Value value_ab = value(a.map_value(), b.map_value(), what + " value");
    return Value::of_map(a.map_key, std::move(value_ab), size(a.map_entries(), b.map_entries()));
  }

  Value rank_and_dtype_of(const Value& known, const std::string& what) {
    changed = true;
    SymShape shape;
    for (size_t k = 0; k < known.tensor->meta.sizes.size(); ++k) shape.push_back(ctx.new_unbacked_size({0, kIntOo}));
    ctx.note_precision(what + ": one case is unknown, so only its dtype and rank are");
    return tensor_value(ctx, known.tensor->meta.dtype, std::move(shape), std::nullopt);
  }

  Value value(const Value& a, const Value& b, const std::string& what) {
    Value v = merged(a, b, what);
    if (a.optional || b.optional) {
      changed = changed || !a.optional;
      v.optional = true;
    }
    return v;
  }

  Value merged(const Value& a, const Value& b, const std::string& what) {
    const bool opt = a.maybe_none || b.maybe_none;
    if (opt && !a.maybe_none) changed = true;
    if (a.is_tensor() && b.is_tensor()) return opt ? maybe_none(tensor(a, b, what)) : tensor(a, b, what);
    if (is_sequence(a) && is_sequence(b)) return opt ? maybe_none(sequence(a, b, what)) : sequence(a, b, what);
    if (a.is_map() && b.is_map()) return opt ? maybe_none(map(a, b, what)) : map(a, b, what);
    if (a.is_empty_optional() && b.is_empty_optional()) return a;
    if (a.is_empty_optional() && (b.is_tensor() || is_sequence(b) || b.is_map())) {
      changed = true;
      return maybe_none(b);
    }
    if (b.is_empty_optional() && (a.is_tensor() || is_sequence(a) || a.is_map())) {
      if (!a.maybe_none) changed = true;
      return maybe_none(a);
    }
    // An unknown rank on either side stays unknown; the element type must agree.
    const bool ranked_a = a.is_tensor(), ranked_b = b.is_tensor();
    if ((a.is_unranked() || ranked_a) && (b.is_unranked() || ranked_b) && !(ranked_a && ranked_b)) {
      if (a.tensor->meta.dtype != b.tensor->meta.dtype)
        ctx.fail(ErrorKind::TypeError, what + " is " + std::string(dtype_name(a.tensor->meta.dtype)) +
                                           " in one case and " + std::string(dtype_name(b.tensor->meta.dtype)) +
                                           " in the other");
      if (ranked_a) changed = true;
      const Value& out = ranked_a ? b : a;
      return opt ? maybe_none(out) : out;
    }
    // A failed node left one side unknown; the two sides' ONNX types agree,
    // so the other's dtype and rank still hold, with sizes no longer known.
    if (a.is_unknown() && b.is_tensor()) return rank_and_dtype_of(b, what);
    if (b.is_unknown() && a.is_tensor()) return rank_and_dtype_of(a, what);
    if (a.kind == Value::Kind::Opaque) return a;
    if (b.kind == Value::Kind::Opaque) return b;
    ctx.fail(ErrorKind::TypeError, what + " is " + describe_kind(a) + " in one case and " + describe_kind(b) +
                                       " in the other");
  }
};

// ---------------------------------------------------------------------------
// If

void if_rule(OpContext& ctx) {
  Interpreter& in = interp(ctx);
  const Scope& outer = *in.current_scope();
  const Graph& then_g = graph_attr(ctx, "then_branch");
  const Graph& else_g = graph_attr(ctx, "else_branch");
  // Any shape holding one element will do ([1, 1] too, as the spec allows).
  for (const SymInt& d : ctx.shape(0))
    if (!known_true(ctx, sym_eq(d, 1)))
      ctx.fail(ErrorKind::ShapeMismatch, "If: the condition must hold a single element, got shape " +
                                             shape_to_string(ctx.shape(0)));
  // A condition over backed sizes is decided by a guard, as Dynamo decides
  // the Python `if` an exporter turned into this If; over unbacked ones (or
  // data) both branches run and merge.
  std::optional<bool> cond;
  ExprRef cond_expr = nullptr;  // stays null for a condition of unknown data
  if (auto c = ctx.scalar_int(0)) {
    if (c->is_static()) cond = c->value() != 0;
    else if (guard_or_false(ctx, sym_ne(*c, 0), "If condition")) cond = true;
    else if (guard_or_false(ctx, sym_eq(*c, 0), "If condition")) cond = false;
    else cond_expr = sym_ne(*c, 0).expr();
  }
  const std::string path = node_path(ctx);
  // While both branches run, each one's runtime asserts hold only under its side of the condition.
  struct BranchScope {
    ShapeEnv& env;
    ExprRef& cond;
    BranchScope(ShapeEnv& e, ExprRef& c, bool negated) : env(e), cond(c) { env.push_branch(cond, negated); }
    ~BranchScope() { cond = env.pop_branch(); }
  };
  auto run = [&](const Graph& g, const char* which) {
    std::optional<BranchScope> scope;
    if (!cond) scope.emplace(ctx.env(), cond_expr, &g == &else_g);
    std::vector<Value> outs = in.run_subgraph(g, {}, outer, path);
    if (outs.size() != ctx.num_outputs())
      ctx.fail(ErrorKind::OutputCount, std::string("If: ") + which + " has " + std::to_string(outs.size()) +
                                           " outputs, the node " + std::to_string(ctx.num_outputs()));
    return outs;
  };
  if (cond) {
    std::vector<Value> outs = run(*cond ? then_g : else_g, *cond ? "then_branch" : "else_branch");
    for (size_t k = 0; k < outs.size(); ++k) ctx.set_output(k, fresh_copy(ctx, outs[k]));
    return;
  }
  std::vector<Value> then_outs = run(then_g, "then_branch");
  std::vector<Value> else_outs = run(else_g, "else_branch");
  Merger m{ctx, [&ctx](const SymInt& a, const SymInt& b) { return ctx.covering_size(a, b); }};
  for (size_t k = 0; k < then_outs.size(); ++k) {
    if (!ctx.wants_output(k)) continue;
    ctx.set_output(k, m.value(then_outs[k], else_outs[k], "output '" + ctx.node().outputs[k] + "'"));
  }
}

// ---------------------------------------------------------------------------
// Loop-carried values (Loop, Scan)

struct CarriedState {
  std::unordered_set<ExprRef> gen;  // generalization symbols
  std::vector<ExprRef> made;        // the same in creation order: the Loop / Scan node binds them
};

bool mentions(const SymInt& d, const std::unordered_set<ExprRef>& syms) {
  if (!d.is_symbolic()) return false;
  for (ExprRef s : free_symbols(d.expr()))
    if (syms.count(s)) return true;
  return false;
}

// Replace every size mentioning a generalization symbol by a fresh unbacked size.
Value detach(OpContext& ctx, const Value& v, const std::unordered_set<ExprRef>& gen) {
  if (v.is_tensor()) {
    SymShape shape = v.tensor->meta.sizes;
    bool any = false;
    for (SymInt& d : shape) {
      d = simplified(ctx, d);
      if (mentions(d, gen)) {
        d = ctx.new_unbacked_size({0, kIntOo});
        any = true;
      }
    }
    std::optional<KnownData> data = v.tensor->data;
    if (data && !data->is_float)
      for (const SymInt& x : data->ints)
        if (mentions(x, gen)) data.reset();
    (void)any;
    return tensor_value(ctx, v.tensor->meta.dtype, std::move(shape), std::move(data));
  }
  if (is_sequence(v)) {
    ValueList xs;
    for (const Value& e : *v.list) xs.push_back(detach(ctx, e, gen));
    Value out = Value::of_list(std::move(xs));
    if (v.list_length) {
      SymInt len = simplified(ctx, *v.list_length);
      out.list_length = mentions(len, gen) ? ctx.new_unbacked_size({0, kIntOo}) : len;
    }
    return out;
  }
  return v;
}

// A dim after `trips` iterations: `init` before, `gen_in` as the generalized
// body saw it, `out` what the body made of it.
SymInt final_size(OpContext& ctx, const SymInt& init, const SymInt& gen_in, const SymInt& out,
                  const std::optional<SymInt>& trips, const std::unordered_set<ExprRef>& gen) {
  if (!mentions(gen_in, gen)) return init;
  SymInt step = simplified(ctx, out - gen_in);
  if (step.is_static()) {
    if (step.value() == 0) return init;
    if (trips) return simplified(ctx, init + step * *trips);
  }
  return ctx.new_unbacked_size({0, kIntOo});
}

Value final_value(OpContext& ctx, const Value& init, const Value& gen_in, const Value& out,
                  const std::optional<SymInt>& trips, const std::unordered_set<ExprRef>& gen) {
  if (init.is_tensor() && gen_in.is_tensor() && out.is_tensor() && init.tensor->meta.dim() == gen_in.tensor->meta.dim() &&
      out.tensor->meta.dim() == gen_in.tensor->meta.dim()) {
    SymShape shape;
    bool unchanged = true;
    for (int64_t k = 0; k < init.tensor->meta.dim(); ++k) {
      shape.push_back(final_size(ctx, init.tensor->meta.sizes[k], gen_in.tensor->meta.sizes[k],
                                 out.tensor->meta.sizes[k], trips, gen));
      unchanged = unchanged && !mentions(gen_in.tensor->meta.sizes[k], gen);
    }
    std::optional<KnownData> data;
    if (unchanged && gen_in.tensor->data && same_data(init.tensor->data, gen_in.tensor->data)) data = init.tensor->data;
    return tensor_value(ctx, init.tensor->meta.dtype, std::move(shape), std::move(data));
  }
  if (is_sequence(init) && is_templated(gen_in) && !gen_in.list->empty() && is_sequence(out)) {
    SymInt len = final_size(ctx, sequence_length(init), *gen_in.list_length, sequence_length(out), trips, gen);
    return Value::of_list_of_length(detach(ctx, gen_in.list->front(), gen), len);
  }
  return detach(ctx, gen_in, gen);
}

// Runs a loop body until the loop-carried values are stable. `make_inputs`
// builds the body's inputs from the carried values; the body's outputs
// [0, n) are the next carried values. Returns the last pass's outputs and
// leaves the generalized carried values in `carried`.
std::vector<Value> run_body_to_fixpoint(OpContext& ctx, const Graph& body, std::vector<Value>& carried,
                                        const std::function<std::vector<Value>(const std::vector<Value>&)>& make_inputs,
                                        size_t first_carried_output, CarriedState& st) {
  Interpreter& in = interp(ctx);
  const Scope& outer = *in.current_scope();
  const std::string path = node_path(ctx);
  ShapeEnv& env = ctx.env();
  for (int pass = 0;; ++pass) {
    std::vector<Value> outs = in.run_subgraph(body, make_inputs(carried), outer,
                                              pass == 0 ? path : path + "#" + std::to_string(pass));
    if (outs.size() < first_carried_output + carried.size())
      ctx.fail(ErrorKind::OutputCount, ctx.op_type() + ": the body has " + std::to_string(outs.size()) +
                                           " outputs, needs at least " +
                                           std::to_string(first_carried_output + carried.size()));
    Merger m{ctx,
             [&](const SymInt&, const SymInt&) {
               SymInt u(env.create_unbacked_symint(true));
               st.gen.insert(u.expr());
               st.made.push_back(u.expr());
               return u;
             },
             &st.gen};
    std::vector<Value> next;
    for (size_t k = 0; k < carried.size(); ++k)
      next.push_back(m.value(carried[k], outs[first_carried_output + k],
                             "loop-carried value " + std::to_string(k)));
    env.take_new_unbacked();  // bound by the Loop / Scan node, not by the body's first node
    if (!m.changed) return outs;
    if (pass + 1 >= kMaxBodyPasses)
      ctx.fail(ErrorKind::LoopNotStable, ctx.op_type() + ": loop-carried shapes still change after " +
                                             std::to_string(kMaxBodyPasses) + " passes of the body");
    carried = std::move(next);
  }
}

// ---------------------------------------------------------------------------
// Loop

// The body's condition output provably true (given a true condition input).
bool stays_true(OpContext& ctx, const Value& cond_out) {
  if (!cond_out.is_tensor() || !cond_out.tensor->data || cond_out.tensor->data->is_float ||
      cond_out.tensor->data->ints.size() != 1)
    return false;
  const SymInt& c = cond_out.tensor->data->ints[0];
  return c.is_static() ? c.value() != 0 : known_true(ctx, sym_ne(c, 0));
}

void loop_rule(OpContext& ctx) {
  const Graph& body = graph_attr(ctx, "body");
  const size_t n_carried = ctx.num_inputs() > 2 ? ctx.num_inputs() - 2 : 0;
  if (body.inputs.size() != n_carried + 2)
    ctx.fail(ErrorKind::InputCount, "Loop: the body has " + std::to_string(body.inputs.size()) + " inputs, expected " +
                                        std::to_string(n_carried + 2) + " (iteration number, condition, " +
                                        std::to_string(n_carried) + " loop-carried)");
  std::optional<SymInt> max_trips;
  if (ctx.has_input(0)) {
    max_trips = ctx.scalar_int(0);
    if (max_trips) max_trips = simplified(ctx, sym_max(*max_trips, 0));
  }
  std::optional<bool> cond0 = true;  // absent: true
  if (ctx.has_input(1)) {
    cond0.reset();
    if (auto c = ctx.scalar_int(1); c && c->is_static()) cond0 = c->value() != 0;
  }
  std::vector<Value> initial;
  for (size_t k = 0; k < n_carried; ++k) {
    if (!ctx.has_input(k + 2))
      ctx.fail(ErrorKind::MissingInput, "Loop: loop-carried input " + std::to_string(k) + " is missing");
    initial.push_back(input_with_data(ctx, k + 2));
  }
  CarriedState st;
  std::vector<Value> carried = initial;
  // Every iteration that runs sees a true condition.
  auto make_inputs = [&](const std::vector<Value>& vs) {
    std::vector<Value> xs{scalar_tensor(ctx, DType::Int64, std::nullopt), scalar_tensor(ctx, DType::Bool, SymInt(1))};
    xs.insert(xs.end(), vs.begin(), vs.end());
    return xs;
  };
  std::vector<Value> outs = run_body_to_fixpoint(ctx, body, carried, make_inputs, 1, st);
  if (outs.size() != 1 + n_carried + (ctx.num_outputs() - std::min(ctx.num_outputs(), n_carried)))
    ctx.fail(ErrorKind::OutputCount, "Loop: the body has " + std::to_string(outs.size()) + " outputs, the node " +
                                         std::to_string(ctx.num_outputs()) + " (+1 condition)");

  // Number of iterations: known when the condition is false from the start,
  // or provably stays true (then the limit, if any, is the count).
  std::optional<SymInt> trips;
  if (cond0 && !*cond0) {
    trips = SymInt(0);
  } else if (cond0 && max_trips && stays_true(ctx, outs[0])) {
    trips = max_trips;
  }
  if (max_trips && max_trips->is_static() && max_trips->value() == 0) trips = SymInt(0);
  for (size_t k = 0; k < n_carried; ++k) {
    if (!ctx.wants_output(k)) continue;
    if (trips && trips->is_static() && trips->value() == 0) ctx.set_output(k, fresh_copy(ctx, initial[k]));
    else ctx.set_output(k, final_value(ctx, initial[k], carried[k], outs[1 + k], trips, st.gen));
  }
  // Scan outputs: per-iteration values stacked on a new leading dim.
  std::optional<SymInt> stacked = trips;
  for (size_t k = n_carried; k < ctx.num_outputs(); ++k) {
    if (!ctx.wants_output(k)) continue;
    const Value& per_iter = outs[1 + k];
    if (!per_iter.is_tensor())
      ctx.fail(ErrorKind::TypeError, "Loop: scan output '" + ctx.node().outputs[k] + "' must be a tensor");
    if (!stacked) {
      ValueRange r{0, kIntOo};
      if (max_trips) r.hi = ctx.env().bound(max_trips->expr()).hi;
      stacked = ctx.new_unbacked_size(r);
    }
    Value elem = detach(ctx, per_iter, st.gen);
    SymShape shape{*stacked};
    for (const SymInt& d : elem.tensor->meta.sizes) shape.push_back(d);
    ctx.set_output(k, tensor_value(ctx, elem.tensor->meta.dtype, std::move(shape)));
  }
  ctx.env().rebind_unbacked(st.made);
}

// ---------------------------------------------------------------------------
// Scan

SymShape without_axis(const SymShape& s, int64_t axis) {
  SymShape out;
  for (int64_t k = 0; k < static_cast<int64_t>(s.size()); ++k)
    if (k != axis) out.push_back(s[static_cast<size_t>(k)]);
  return out;
}

void require_equal(OpContext& ctx, const SymInt& a, const SymInt& b, const std::string& message) {
  SymBool eq = sym_eq(a, b);
  if (known_true(ctx, eq)) return;
  if (known_true(ctx, sym_not(eq)) || !ctx.expect(eq, "Scan"))
    ctx.fail(ErrorKind::ShapeMismatch, message);
}

void scan_rule(OpContext& ctx) {
  const Graph& body = graph_attr(ctx, "body");
  const int64_t n_scan = ctx.required_attr_int("num_scan_inputs");
  // Scan-8: batch dim 0, optional sequence_lens first.
  const bool batched = ctx.declares_input("sequence_lens");
  const size_t first = batched ? 1 : 0;
  if (n_scan < 1 || static_cast<size_t>(n_scan) + first > ctx.num_inputs())
    ctx.fail(ErrorKind::InvalidAttribute, "Scan: num_scan_inputs " + std::to_string(n_scan) + " does not fit " +
                                              std::to_string(ctx.num_inputs()) + " inputs");
  const size_t n_state = ctx.num_inputs() - first - static_cast<size_t>(n_scan);
  const size_t n_scan_out = ctx.num_outputs() >= n_state ? ctx.num_outputs() - n_state : 0;
  if (body.inputs.size() != n_state + static_cast<size_t>(n_scan))
    ctx.fail(ErrorKind::InputCount, "Scan: the body has " + std::to_string(body.inputs.size()) + " inputs, expected " +
                                        std::to_string(n_state + n_scan));

  std::vector<int64_t> in_axes(static_cast<size_t>(n_scan), batched ? 1 : 0);
  if (!batched)
    if (auto a = ctx.attr_ints("scan_input_axes")) {
      if (a->size() != static_cast<size_t>(n_scan))
        ctx.fail(ErrorKind::InvalidAttribute, "Scan: scan_input_axes needs one axis per scan input");
      in_axes = *a;
    }
  SymInt seq_len, batch;
  std::vector<Value> slices;
  for (int64_t j = 0; j < n_scan; ++j) {
    const size_t i = first + n_state + static_cast<size_t>(j);
    const SymShape& s = ctx.shape(i);
    const int64_t axis = normalize_axis(ctx, in_axes[static_cast<size_t>(j)], static_cast<int64_t>(s.size()));
    if (batched && s.size() < 2) ctx.fail(ErrorKind::InvalidRank, "Scan: scan inputs need a batch and a sequence dim");
    if (j == 0) seq_len = s[static_cast<size_t>(axis)];
    else
      require_equal(ctx, s[static_cast<size_t>(axis)], seq_len,
                    "Scan: scan inputs have different sequence lengths " + s[static_cast<size_t>(axis)].to_python() +
                        " and " + seq_len.to_python());
    SymShape slice = without_axis(s, axis);
    if (batched) slice = without_axis(slice, 0);
    slices.push_back(tensor_value(ctx, ctx.dtype(i), slice));
  }
  std::vector<Value> initial;
  for (size_t k = 0; k < n_state; ++k) {
    if (!batched) {
      initial.push_back(input_with_data(ctx, first + k));
      continue;
    }
    const TensorValue& t = ctx.tensor(first + k);
    if (t.meta.sizes.empty()) ctx.fail(ErrorKind::InvalidRank, "Scan: state inputs need a batch dim");
    initial.push_back(tensor_value(ctx, t.meta.dtype, without_axis(t.meta.sizes, 0)));
  }
  if (batched) {
    batch = ctx.shape(first)[0];
    for (size_t i = first; i < ctx.num_inputs(); ++i)
      require_equal(ctx, ctx.shape(i).at(0), batch, "Scan: inputs have different batch sizes");
  }
  CarriedState st;
  std::vector<Value> carried = initial;
  auto make_inputs = [&](const std::vector<Value>& vs) {
    std::vector<Value> xs = vs;
    xs.insert(xs.end(), slices.begin(), slices.end());
    return xs;
  };
  std::vector<Value> outs = run_body_to_fixpoint(ctx, body, carried, make_inputs, 0, st);
  if (outs.size() != n_state + n_scan_out)
    ctx.fail(ErrorKind::OutputCount, "Scan: the body has " + std::to_string(outs.size()) + " outputs, the node " +
                                         std::to_string(ctx.num_outputs()));
  for (size_t k = 0; k < n_state; ++k) {
    Value v = final_value(ctx, initial[k], carried[k], outs[k], seq_len, st.gen);
    if (batched && v.is_tensor()) {
      SymShape s{batch};
      for (const SymInt& d : v.tensor->meta.sizes) s.push_back(d);
      v = tensor_value(ctx, v.tensor->meta.dtype, std::move(s));
    }
    ctx.set_output(k, v);
  }
  std::vector<int64_t> out_axes(n_scan_out, 0);
  if (!batched)
    if (auto a = ctx.attr_ints("scan_output_axes")) {
      if (a->size() != n_scan_out)
        ctx.fail(ErrorKind::InvalidAttribute, "Scan: scan_output_axes needs one axis per scan output");
      out_axes = *a;
    }
  for (size_t j = 0; j < n_scan_out; ++j) {
    Value elem = detach(ctx, outs[n_state + j], st.gen);
    if (!elem.is_tensor()) ctx.fail(ErrorKind::TypeError, "Scan: scan outputs must be tensors");
    SymShape s = elem.tensor->meta.sizes;
    if (batched) {
      s.insert(s.begin(), seq_len);
      s.insert(s.begin(), batch);
    } else {
      const int64_t axis = normalize_axis(ctx, out_axes[j], static_cast<int64_t>(s.size()) + 1);
      s.insert(s.begin() + axis, seq_len);
    }
    ctx.set_output(n_state + j, tensor_value(ctx, elem.tensor->meta.dtype, std::move(s)));
  }
  ctx.env().rebind_unbacked(st.made);
}

// ---------------------------------------------------------------------------
// Sequences

const Value& sequence_input(OpContext& ctx, size_t i) {
  const Value& v = ctx.input(i);
  if (!is_sequence(v)) {
    if (v.kind == Value::Kind::Opaque)
      ctx.fail(ErrorKind::UnknownInput, ctx.op_type() + ": input '" + ctx.input_name(i) + "' is unknown (" +
                                            v.opaque_text() + ")");
    ctx.fail(ErrorKind::TypeError, ctx.op_type() + ": input '" + ctx.input_name(i) + "' is not a sequence");
  }
  return v;
}

// A template list whose every element is `t` merged with the elements of `seq`.
Merger loose_merger(OpContext& ctx) {
  return Merger{ctx, [&ctx](const SymInt&, const SymInt&) { return ctx.new_unbacked_size({0, kIntOo}); }};
}

Value sequence_template(OpContext& ctx, const Value& seq, const std::optional<Value>& extra, const SymInt& length) {
  Merger m = loose_merger(ctx);
  ValueList all(seq.list->begin(), seq.list->end());
  if (extra) all.push_back(*extra);
  std::optional<Value> t = m.template_of(all, "sequence");
  if (!t) return Value::of_list({});
  return Value::of_list_of_length(*t, simplified(ctx, length));
}

void check_element_dtype(OpContext& ctx, const Value& seq, DType dtype) {
  for (const Value& e : *seq.list)
    if (e.is_tensor() && e.tensor->meta.dtype != dtype)
      ctx.fail(ErrorKind::TypeError, ctx.op_type() + ": sequence holds " +
                                         std::string(dtype_name(e.tensor->meta.dtype)) + " tensors, the tensor is " +
                                         std::string(dtype_name(dtype)));
}

// A known position in [-n, n] (inclusive end when `allow_end`) normalized to [0, n].
std::optional<int64_t> known_position(OpContext& ctx, size_t i, const SymInt& n, bool allow_end) {
  if (!ctx.has_input(i)) return std::nullopt;
  auto p = ctx.scalar_int(i);
  if (!p || !p->is_static()) return std::nullopt;
  int64_t pos = p->value();
  if (!n.is_static()) {
    if (pos < 0) return std::nullopt;
    return pos;
  }
  const int64_t len = n.value();
  const int64_t hi = allow_end ? len : len - 1;
  if (pos < -len || pos > hi)
    ctx.fail(ErrorKind::IndexError, ctx.op_type() + ": position " + std::to_string(pos) +
                                        " is out of range for a sequence of " + std::to_string(len) + " elements");
  return pos < 0 ? pos + len : pos;
}

void sequence_empty_rule(OpContext& ctx) {
  const int64_t dt = ctx.attr_int("dtype", 1);
  if (!dtype_from_onnx(static_cast<int32_t>(dt)))
    ctx.fail(ErrorKind::InvalidAttribute, "SequenceEmpty: unknown dtype " + std::to_string(dt));
  ctx.set_output(0, Value::of_list({}));
}

void sequence_construct_rule(OpContext& ctx) {
  ValueList xs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const TensorValue& t = ctx.tensor(i);
    if (i > 0 && t.meta.dtype != ctx.dtype(0))
      ctx.fail(ErrorKind::TypeError, "SequenceConstruct: inputs have different dtypes " +
                                         std::string(dtype_name(ctx.dtype(0))) + " and " +
                                         std::string(dtype_name(t.meta.dtype)));
    xs.push_back(fresh_copy(ctx, input_with_data(ctx, i)));
  }
  ctx.set_output(0, Value::of_list(std::move(xs)));
}

void sequence_length_rule(OpContext& ctx) {
  const Value& seq = sequence_input(ctx, 0);
  ctx.set_tensor(0, DType::Int64, {}, int_data({simplified(ctx, sequence_length(seq))}));
}

void sequence_at_rule(OpContext& ctx) {
  const Value& seq = sequence_input(ctx, 0);
  if (!ctx.has_input(1)) ctx.fail(ErrorKind::MissingInput, "SequenceAt needs a position");
  if (seq.list->empty()) ctx.fail(ErrorKind::IndexError, "SequenceAt: the sequence is empty");
  if (is_templated(seq)) {
    ctx.set_output(0, fresh_copy(ctx, seq.list->front()));
    return;
  }
  if (auto pos = known_position(ctx, 1, sequence_length(seq), false)) {
    ctx.set_output(0, fresh_copy(ctx, (*seq.list)[static_cast<size_t>(*pos)]));
    return;
  }
  Merger m = loose_merger(ctx);
  ctx.set_output(0, fresh_copy(ctx, *m.template_of(*seq.list, "SequenceAt element")));
}

void sequence_insert_rule(OpContext& ctx) {
  const Value& seq = sequence_input(ctx, 0);
  const TensorValue& t = ctx.tensor(1);
  check_element_dtype(ctx, seq, t.meta.dtype);
  const Value elem = fresh_copy(ctx, input_with_data(ctx, 1));
  const SymInt n = sequence_length(seq);
  if (!is_templated(seq)) {
    std::optional<int64_t> pos = ctx.has_input(2) ? known_position(ctx, 2, n, true) : std::optional<int64_t>(n.value());
    if (pos) {
      ValueList xs(seq.list->begin(), seq.list->end());
      xs.insert(xs.begin() + *pos, elem);
      ctx.set_output(0, Value::of_list(std::move(xs)));
      return;
    }
  }
  ctx.set_output(0, sequence_template(ctx, seq, elem, n + 1));
}

void sequence_erase_rule(OpContext& ctx) {
  const Value& seq = sequence_input(ctx, 0);
  const SymInt n = sequence_length(seq);
  if (!is_templated(seq)) {
    if (seq.list->empty()) ctx.fail(ErrorKind::IndexError, "SequenceErase: the sequence is empty");
    std::optional<int64_t> pos = ctx.has_input(1) ? known_position(ctx, 1, n, false) : std::optional<int64_t>(n.value() - 1);
    if (pos) {
      ValueList xs(seq.list->begin(), seq.list->end());
      xs.erase(xs.begin() + *pos);
      ctx.set_output(0, Value::of_list(std::move(xs)));
      return;
    }
  } else {
    ctx.expect(sym_ge(n, 1), "SequenceErase");
  }
  ctx.set_output(0, sequence_template(ctx, seq, std::nullopt, n - 1));
}

void split_to_sequence_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  const DType dtype = ctx.dtype(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), rank);
  const SymInt dim = in[static_cast<size_t>(axis)];
  auto piece = [&](const SymInt& size, bool keep) {
    SymShape s = in;
    if (keep) s[static_cast<size_t>(axis)] = size;
    else s.erase(s.begin() + axis);
    return tensor_value(ctx, dtype, std::move(s));
  };
  auto emit = [&](const std::vector<SymInt>& sizes, bool keep) {
    ValueList xs;
    for (const SymInt& s : sizes) xs.push_back(piece(s, keep));
    ctx.set_output(0, Value::of_list(std::move(xs)));
  };
  auto fits = [](const SymInt& n) { return n.is_static() && n.value() <= kMaxExplicitSequence; };

  if (!ctx.has_input(1)) {  // pieces of size 1, squeezed unless keepdims
    const bool keep = ctx.attr_int("keepdims") != 0;
    if (fits(dim)) emit(std::vector<SymInt>(static_cast<size_t>(dim.value()), SymInt(1)), keep);
    else ctx.set_output(0, Value::of_list_of_length(piece(1, keep), dim));
    return;
  }
  const SymShape& split_shape = ctx.shape(1);
  if (split_shape.size() > 1) ctx.fail(ErrorKind::InvalidRank, "SplitToSequence: split must be a scalar or 1-D");
  if (split_shape.empty()) {  // equal pieces of `split`, the last one smaller
    auto s = ctx.scalar_int(1);
    if (!s) {
      SymInt n = ctx.unknown_size("SplitToSequence: the split size is not known");
      ctx.set_output(0, Value::of_list_of_length(piece(ctx.unknown_size("SplitToSequence: piece size"), true), n));
      return;
    }
    require(ctx, sym_gt(*s, 0), "SplitToSequence", ErrorKind::InvalidSplit, "SplitToSequence: split must be positive");
    SymInt n = simplified(ctx, ceildiv(dim, *s));
    if (fits(n) && dim.is_static() && s->is_static()) {
      std::vector<SymInt> sizes(static_cast<size_t>(n.value()), *s);
      if (n.value() > 0) sizes.back() = dim.value() - (n.value() - 1) * s->value();
      emit(sizes, true);
      return;
    }
    SymInt size = known_true(ctx, sym_eq(mod(dim, *s), 0)) ? *s : ctx.new_unbacked_size({0, kIntOo});
    ctx.set_output(0, Value::of_list_of_length(piece(size, true), n));
    return;
  }
  if (auto sizes = ctx.ints(1)) {
    SymInt total = 0;
    for (const SymInt& s : *sizes) total = total + s;
    require_equal(ctx, total, dim,
                  "SplitToSequence: split sizes add up to " + simplified(ctx, total).to_python() + ", the dim is " +
                      dim.to_python());
    emit(*sizes, true);
    return;
  }
  const SymInt n = split_shape[0];
  if (fits(n)) {
    std::vector<SymInt> sizes;
    for (int64_t k = 0; k < n.value(); ++k) sizes.push_back(ctx.new_unbacked_size({0, kIntOo}));
    emit(sizes, true);
  } else {
    ctx.set_output(0, Value::of_list_of_length(piece(ctx.new_unbacked_size({0, kIntOo}), true), n));
  }
}

void concat_from_sequence_rule(OpContext& ctx) {
  const Value& seq = sequence_input(ctx, 0);
  const int64_t axis_attr = ctx.required_attr_int("axis");
  const bool new_axis = ctx.attr_int("new_axis") != 0;
  if (seq.list->empty()) ctx.fail(ErrorKind::EmptySequence, "ConcatFromSequence: the sequence is empty");
  for (const Value& e : *seq.list)
    if (!e.is_tensor()) ctx.fail(ErrorKind::TypeError, "ConcatFromSequence: elements must be tensors");
  const TensorMeta& first = seq.list->front().tensor->meta;
  const int64_t rank = first.dim();
  const int64_t axis = normalize_axis(ctx, axis_attr, new_axis ? rank + 1 : rank);
  const SymInt n = sequence_length(seq);
  for (const Value& e : *seq.list) {
    const TensorMeta& m = e.tensor->meta;
    if (m.dtype != first.dtype) ctx.fail(ErrorKind::TypeError, "ConcatFromSequence: elements have different dtypes");
    if (m.dim() != rank) ctx.fail(ErrorKind::InvalidRank, "ConcatFromSequence: elements have different ranks");
    for (int64_t k = 0; k < rank; ++k)
      if (new_axis || k != axis)
        require_equal(ctx, m.sizes[static_cast<size_t>(k)], first.sizes[static_cast<size_t>(k)],
                      "ConcatFromSequence: elements differ in dim " + std::to_string(k));
  }
  SymShape shape = first.sizes;
  if (new_axis) {
    shape.insert(shape.begin() + axis, n);
  } else if (is_templated(seq)) {
    const SymInt d = first.sizes[static_cast<size_t>(axis)];
    const bool common = d.is_static() || ctx.env().hint(d).has_value();  // no unbacked symbol: same in every element
    shape[static_cast<size_t>(axis)] = common ? d * n : ctx.unknown_size("ConcatFromSequence: pieces of a sequence of unknown length");
  } else {
    SymInt total = 0;
    for (const Value& e : *seq.list) total = total + e.tensor->meta.sizes[static_cast<size_t>(axis)];
    shape[static_cast<size_t>(axis)] = total;
  }
  ctx.set_output(0, tensor_value(ctx, first.dtype, std::move(shape)));
}

// ---------------------------------------------------------------------------
// SequenceMap

void sequence_map_rule(OpContext& ctx) {
  Interpreter& in = interp(ctx);
  const Scope& outer = *in.current_scope();
  const Graph& body = graph_attr(ctx, "body");
  const Value& first = sequence_input(ctx, 0);
  if (body.inputs.size() != ctx.num_inputs())
    ctx.fail(ErrorKind::InputCount, "SequenceMap: the body has " + std::to_string(body.inputs.size()) +
                                        " inputs, the node " + std::to_string(ctx.num_inputs()));
  const SymInt n = sequence_length(first);
  bool explicit_lists = !is_templated(first) && n.value() <= kMaxExplicitSequence;
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const Value& v = ctx.input(i);
    if (!is_sequence(v)) continue;
    require_equal(ctx, sequence_length(v), n, "SequenceMap: input sequences have different lengths");
    explicit_lists = explicit_lists && !is_templated(v);
  }
  const std::string path = node_path(ctx);
  auto element_inputs = [&](size_t k, bool templated) {
    std::vector<Value> xs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Value& v = ctx.input(i);
      if (!is_sequence(v)) xs.push_back(input_with_data(ctx, i));
      else if (templated) xs.push_back(v.list->empty() ? Value::of_opaque("element of an empty sequence") : v.list->front());
      else xs.push_back((*v.list)[k]);
    }
    return xs;
  };
  const size_t n_out = ctx.num_outputs();
  if (explicit_lists) {
    std::vector<ValueList> results(n_out);
    for (size_t k = 0; k < first.list->size(); ++k) {
      std::vector<Value> outs = in.run_subgraph(body, element_inputs(k, false), outer, path + "[" + std::to_string(k) + "]");
      if (outs.size() != n_out)
        ctx.fail(ErrorKind::OutputCount, "SequenceMap: the body and the node have different output counts");
      for (size_t j = 0; j < n_out; ++j) results[j].push_back(fresh_copy(ctx, outs[j]));
    }
    for (size_t j = 0; j < n_out; ++j) ctx.set_output(j, Value::of_list(std::move(results[j])));
    return;
  }
  if (first.list->empty()) {
    for (size_t j = 0; j < n_out; ++j) ctx.set_output(j, Value::of_list({}));
    return;
  }
  std::vector<Value> outs = in.run_subgraph(body, element_inputs(0, true), outer, path);
  if (outs.size() != n_out)
    ctx.fail(ErrorKind::OutputCount, "SequenceMap: the body and the node have different output counts");
  for (size_t j = 0; j < n_out; ++j) ctx.set_output(j, Value::of_list_of_length(fresh_copy(ctx, outs[j]), n));
}

// ---------------------------------------------------------------------------
// Optionals

void optional_rule(OpContext& ctx) {
  if (ctx.has_input(0)) {
    Value v = fresh_copy(ctx, input_with_data(ctx, 0));
    v.optional = true;
    ctx.set_output(0, std::move(v));
  } else if (!ctx.has_attr("type"))
    ctx.fail(ErrorKind::MissingAttribute, "Optional without an input needs attribute 'type'");
  else if (const auto& type = ctx.attr("type")->tp()) ctx.set_output(0, Value::empty_optional("optional(" + type_string(*type) + ")"));
  else ctx.set_output(0, Value::empty_optional(""));
}

void optional_has_element_rule(OpContext& ctx) {
  std::optional<SymInt> known;
  if (!ctx.has_input(0) || ctx.input(0).is_empty_optional()) known = SymInt(0);
  else if ((ctx.input(0).is_tensor() || is_sequence(ctx.input(0))) && !ctx.input(0).maybe_none) known = SymInt(1);
  ctx.set_output(0, scalar_tensor(ctx, DType::Bool, known));
}

void optional_get_element_rule(OpContext& ctx) {
  const Value& v = ctx.input(0);
  if (v.is_empty_optional())
    ctx.fail(ErrorKind::EmptyOptional, "OptionalGetElement: the optional '" + ctx.input_name(0) + "' is empty");
  if (!v.is_tensor() && !is_sequence(v))
    ctx.fail(ErrorKind::UnknownInput, "OptionalGetElement: input '" + ctx.input_name(0) + "' is unknown (" +
                                          describe_kind(v) + ")");
  Value out = fresh_copy(ctx, v);
  out.maybe_none = false;  // reading it requires the element, as ONNX does
  out.optional = false;
  ctx.set_output(0, out);
}

}  // namespace

std::span<const OpRuleEntry> control_flow_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {"", "If", if_rule},
      {"", "Loop", loop_rule},
      {"", "Scan", scan_rule},
      {"", "SequenceMap", sequence_map_rule},
      {"", "SequenceEmpty", sequence_empty_rule},
      {"", "SequenceConstruct", sequence_construct_rule},
      {"", "SequenceLength", sequence_length_rule},
      {"", "SequenceAt", sequence_at_rule},
      {"", "SequenceInsert", sequence_insert_rule},
      {"", "SequenceErase", sequence_erase_rule},
      {"", "SplitToSequence", split_to_sequence_rule},
      {"", "ConcatFromSequence", concat_from_sequence_rule},
      {"", "Optional", optional_rule},
      {"", "OptionalHasElement", optional_has_element_rule},
      {"", "OptionalGetElement", optional_get_element_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
