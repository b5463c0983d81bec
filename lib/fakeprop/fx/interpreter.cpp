#include "fakeprop/fx/interpreter.h"

#include "fakeprop/custom_ops/op_rules.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <span>
#include <unordered_set>

#include "fakeprop/fx/op_context.h"
#include "fakeprop/fx/scalar_ops.h"
#include "fakeprop/sym/parse.h"
#include "fakeprop/tensor/example_strides.h"
#include "fakeprop/value/describe_value.h"

namespace fakeprop::fx {

namespace {

bool differentiable_dtype(DType t) { return is_floating(t) || is_complex(t); }

// "147" -> 147: the plain non-negative decimal integers examples are mostly
// made of, read without the expression parser (which gives the same SymInt).
std::optional<int64_t> plain_integer(const std::string& text) {
  if (text.empty() || text.size() > 18 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  int64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

namespace {

// Why a call bypasses the dispatch cache, by index (counted in --stats).
enum FxBypass : size_t { kInplace, kUnkeyedArgument };
constexpr std::string_view kBypassReasons[] = {"inplace", "unkeyed_argument"};

}  // namespace

Interpreter::Interpreter(const Graph& g, const InferOptions& options, RunResult& result)
    : graph_(g),
      options_(options),
      result_(result),
      runner_(result, options),
      input_dims_(*result.env, result.input_specializations, result.warnings) {
  if (dispatch_cache_enabled_by_environment() && options_.log_level == LogLevel::Off)
    cache_ = std::make_unique<DispatchCache>(std::vector<std::string_view>(std::begin(kBypassReasons), std::end(kBypassReasons)));
}

DispatchStats Interpreter::dispatch_stats() const { return cache_ ? cache_->stats() : DispatchStats{}; }

int64_t Interpreter::version_of(int64_t storage) const {
  auto it = versions_.find(storage);
  return it == versions_.end() ? 0 : it->second;
}

void Interpreter::note_data_mutation(int64_t storage) { ++versions_[storage]; }

uint32_t Interpreter::position_of(const Arg& a) const {
  uint32_t p = a.node_index;
  if (p >= graph_.nodes.size() || graph_.nodes[p].name != a.s) {
    // Not indexed by the loader (a forward reference, or a graph built by hand).
    if (positions_.empty())
      for (uint32_t k = 0; k < graph_.nodes.size(); ++k) positions_.try_emplace(graph_.nodes[k].name, k);
    auto it = positions_.find(a.s);
    p = it == positions_.end() ? Arg::kNoNode : it->second;
  }
  return p != Arg::kNoNode && values_[p] ? p : Arg::kNoNode;
}

const Interpreter::TargetInfo& Interpreter::target_info(const std::string& target) {
  auto [it, fresh] = targets_.try_emplace(target);
  TargetInfo& t = it->second;
  if (!fresh) return t;
  if (is_scalar_target(target, t.op)) {
    t.is_scalar = true;
    return t;
  }
  t.entry = OpRegistry::instance().find_entry(target);
  t.schema = find_rule_schema(target);
  // The rule's registration says whether, and how, the op mutates self.
  const Mutation mutation = t.entry ? t.entry->mutation : Mutation::None;
  t.inplace = mutation != Mutation::None;
  t.metadata_mutating = mutation == Mutation::Metadata;
  return t;
}

const Value* Interpreter::argument(const Arg& a) {
  if (a.kind == Arg::Kind::Node) return &resolve_node(a);
  return &call_values_.emplace_back(resolve(a));
}

const Value& Interpreter::resolve_node(const Arg& a) const {
  const uint32_t p = position_of(a);
  if (p == Arg::kNoNode)
    throw InputError(graph_.path + ": node '" + (current_ ? current_->name : std::string()) + "': argument refers to '" +
                     a.s + "', which is not an earlier node");
  return *values_[p];
}

Value Interpreter::resolve(const Arg& a) const {
  switch (a.kind) {
    case Arg::Kind::None: return Value::none();
    case Arg::Kind::Bool: return Value::of_bool(a.b);
    case Arg::Kind::Int: return Value::of_int(a.i);
    case Arg::Kind::Float: return Value::of_float(a.f);
    case Arg::Kind::Node: return resolve_node(a);
    case Arg::Kind::List: {
      ValueList xs;
      xs.reserve(a.list.size());
      for (const Arg& x : a.list) xs.push_back(resolve(x));
      return Value::of_list(std::move(xs));
    }
    case Arg::Kind::String:
    case Arg::Kind::DType:
    case Arg::Kind::Device:
    case Arg::Kind::MemoryFormat:
    case Arg::Kind::Layout:
    case Arg::Kind::Graph: return Value::of_opaque(a.s);
  }
  return Value::none();
}

DataDependentMemo::Key DataDependentMemo::key(const std::string& op, const TensorMeta& t, int64_t version) {
  std::string view;
  for (const SymShape* dims : {&t.sizes, &t.strides}) {
    for (const SymInt& d : *dims) {
      view.append(d.to_python());
      view.push_back(',');
    }
    view.push_back(';');
  }
  view += t.storage_offset.to_python();
  return {op, t.storage, version, std::move(view)};
}

namespace {

// The strides of an input whose sizes became symbols (marks on a graph whose
// example strides are integers), as ShapeEnv._compute_symbolic_stride makes
// them: in ascending order (the innermost first among equals), a stride that
// some dim's size times stride gives is that product (s1 for [s0, s1] with
// strides [4, 1]), 0 and 1 stay, any other is a duck-sized symbol of its own.
// A stride made from sizes is recorded for produce_guards.
SymShape symbolic_input_strides(ShapeEnv& e, const std::string& src, const SymShape& sizes,
                                const std::vector<int64_t>& ex_sizes, const std::vector<int64_t>& ex_strides) {
  const size_t n = sizes.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ex_strides[a] != ex_strides[b] ? ex_strides[a] < ex_strides[b] : a > b;
  });
  std::map<int64_t, SymInt> candidates;  // a stride value -> the expression that makes it
  SymShape out(n);
  std::vector<bool> from_sizes(n, false);
  for (size_t i : order) {
    const int64_t val = ex_strides[i];
    const bool contiguous = i + 1 < n && val == checked_mul(ex_sizes[i + 1], ex_strides[i + 1]);
    const std::string source = SourceSpecs::stride_source(src, static_cast<int64_t>(i));
    if ((val == 0 || val == 1) && !contiguous) {
      out[i] = SymInt(val);
    } else if (auto it = candidates.find(val); it != candidates.end()) {
      out[i] = it->second;
      from_sizes[i] = out[i].is_symbolic();
    } else {
      out[i] = e.create_symbol(val, source);
    }
    candidates[checked_mul(ex_sizes[i], val)] = e.simplify(sizes[i] * out[i]);
  }
  // In dim order, as produce_guards walks t.stride(): a recompile names the
  // first failing one.
  for (size_t i = 0; i < n; ++i)
    if (from_sizes[i]) e.add_input_property(SourceSpecs::stride_source(src, static_cast<int64_t>(i)), out[i].expr());
  return out;
}

}  // namespace

// item() of a 0-d CPU input whose value was known when it was traced: a
// backed symbol with that hint (zf<N> for float64, s<N> over the whole
// integer range for integers, neither duck sized nor 0/1 specialized), as
// FakeTensor's converter makes it; the source is `src.item()`. The converter
// memoizes only int64 and float64: item() of a narrower integer is a new
// unbacked size although the symbol exists. NaN and infinities get neither.
void Interpreter::memoize_item(const TensorMeta& t, const ExampleTensor::Item& item, const std::string& src) {
  if (!t.device.is_cpu() || (item.is_float && !std::isfinite(item.f))) return;
  const std::string source = src + ".item()";
  const Value v = item.is_float ? Value::of_symfloat(env().create_symfloat(item.f, source))
                                : Value::of_int(SymInt(env().create_named_symbol("", item.i, ValueRange::unknown(), source)));
  if (t.dtype == DType::Int64 || t.dtype == DType::Float64)
    memo_.entries[DataDependentMemo::key("item", t, version_of(t.storage))] = v;
}

Value Interpreter::example_to_value(const Node& n, const std::string& src) {
  ShapeEnv& e = env();
  const bool is_input = n.op == "placeholder";
  const std::string& name = n.target.empty() ? n.name : n.target;
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
      // --input wins over the hint the graph records (a .pt2 archive's export sizes).
      std::optional<int64_t> hint = fallback_hint ? fallback_hint : decl.hint;
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
  tv.meta.sizes.reserve(ex.shape.size());
  bool shape_is_default_contiguous = !ex.stride.has_value();
  for (size_t d = 0; d < ex.shape.size(); ++d) {
    const std::string& text = ex.shape[d];
    std::optional<int64_t> hint = hints ? std::optional<int64_t>((*hints)[d]) : std::nullopt;
    char* end = nullptr;
    errno = 0;
    const long long literal = std::strtoll(text.c_str(), &end, 10);
    if (*end == '\0' && errno == 0) {
      if (literal < 0) throw InputError(graph_.path + ": node '" + n.name + "': negative size " + text);
      const int64_t h = hint.value_or(literal);
      const DimPlan plan = is_input ? plan_input_dim(options_, src, static_cast<int64_t>(d), true) : DimPlan{};
      if (plan.mark == DimMark::Unmarked || plan.mark == DimMark::Static) {
        tv.meta.sizes.push_back(SymInt(plan.mark == DimMark::Static ? h : static_cast<int64_t>(literal)));
        continue;
      }
      SymInt size = input_dims_.create(plan, src, static_cast<int64_t>(d), h);
      if (!size.is_static() && plan.mark == DimMark::Dynamic &&
          std::find(ex.specialized.begin(), ex.specialized.end(), static_cast<int64_t>(d)) != ex.specialized.end()) {
        // The trace specialized this dim, by a decision outside the graph (its
        // constants then hold the size) or by the guards of the graph's own
        // ops: those are made again by the walk, in torch's words, so the
        // size stays symbolic until the walk is done.
        traced_specializations_.push_back({size, h, n.name});
      }
      tv.meta.sizes.push_back(size);
      continue;
    }
    // A symbol name binds its source; an expression is computed from symbols seen before.
    const std::string dsrc = SourceSpecs::size_source(src, static_cast<int64_t>(d));
    ExprRef expr = parse_expr(text, [&](std::string_view s) {
      const bool whole = s == text;
      return symbol_for(s, whole ? dsrc : "", whole ? hint : std::nullopt);
    });
    tv.meta.sizes.push_back(SymInt(expr));
  }
  auto unbound_expr = [&](const std::string& text) {
    if (auto v = plain_integer(text)) return SymInt(*v);
    return SymInt(parse_expr(text, [&](std::string_view s) { return symbol_for(s, "", std::nullopt); }));
  };
  // A call's strides (given, or its example's layout at the call's sizes)
  // replace the example's: those of other sizes are stale.
  std::optional<std::vector<int64_t>> call_strides;
  if (is_input) {
    if (auto it = options_.input_strides.find(name); it != options_.input_strides.end()) {
      if (it->second.size() != ex.shape.size())
        throw InputError("--call " + name + ": " + std::to_string(it->second.size()) +
                         " strides given, the graph says rank " + std::to_string(ex.shape.size()));
      call_strides = it->second;
    } else if (hints && ex.stride && ex.stride->size() == ex.shape.size()) {
      std::vector<int64_t> ex_sizes, ex_strides;
      for (size_t d = 0; d < ex.shape.size(); ++d) {
        auto size = plain_integer(ex.shape[d]);
        auto stride = plain_integer((*ex.stride)[d]);
        if (!size || !stride) break;
        ex_sizes.push_back(*size);
        ex_strides.push_back(*stride);
      }
      if (ex_sizes.size() == ex.shape.size()) call_strides = dense_strides_like(ex_sizes, ex_strides, *hints);
    }
  }
  if (ex.stride || call_strides) {
    tv.meta.strides.reserve(ex.shape.size());
    if (call_strides)
      for (int64_t v : *call_strides) tv.meta.strides.push_back(SymInt(v));
    else
      for (const std::string& text : *ex.stride) tv.meta.strides.push_back(unbound_expr(text));
    // Integer example strides of an input whose sizes became symbols follow
    // the sizes, as Dynamo fakifies such a tensor (it needs each size's example).
    std::vector<int64_t> ex_sizes, ex_strides;
    bool symbolic = false;
    for (size_t d = 0; d < tv.meta.sizes.size(); ++d) {
      // An unbacked size (mark_unbacked) has no hint, but Dynamo fakifies
      // the real tensor: its strides follow the example's size all the same
      // (8*u0 for a (5, u0, 8) input's dim 0).
      std::optional<int64_t> h = e.hint(tv.meta.sizes[d]);
      if (!h && is_input) h = hints ? std::optional<int64_t>((*hints)[d]) : plain_integer(ex.shape[d]);
      if (!h || !tv.meta.strides[d].is_static()) break;
      symbolic |= tv.meta.sizes[d].is_symbolic();
      ex_sizes.push_back(*h);
      ex_strides.push_back(tv.meta.strides[d].value());
    }
    if (is_input && symbolic && ex_sizes.size() == tv.meta.sizes.size())
      tv.meta.strides = symbolic_input_strides(e, src, tv.meta.sizes, ex_sizes, ex_strides);
  } else {
    tv.meta.strides = contiguous_strides(tv.meta.sizes, &e);
  }
  (void)shape_is_default_contiguous;
  tv.meta.storage_offset = unbound_expr(ex.storage_offset);
  const auto dtype_it = is_input ? options_.input_dtypes.find(name) : options_.input_dtypes.end();
  tv.meta.dtype = dtype_it == options_.input_dtypes.end() ? ex.dtype : dtype_it->second;
  tv.meta.device = ex.device.value_or(options_.device);
  if (ex.storage) {
    // Inputs that alias (one id in the graph) share one fake storage, as
    // FakeTensor's converter memo makes them.
    auto [it, fresh] = declared_storages_.try_emplace(*ex.storage, 0);
    if (fresh) it->second = storage_.next();
    aliased_inputs_ |= !fresh;
    tv.meta.storage = it->second;
  } else {
    tv.meta.storage = storage_.next();
  }
  tv.meta.requires_grad = ex.requires_grad;
  tv.meta.is_leaf = true;
  if (ex.item && is_input) memoize_item(tv.meta, *ex.item, src);
  return Value::of_tensor(std::move(tv));
}


namespace {

// A call reading the value of a failed node that had no example meta fails
// as unknown_input, naming that input, rather than with a type error about
// the value it got. The message leaves out the input's own failure, so that
// a chain of such nodes does not repeat it ever longer.
void require_known_inputs(const Node& n, std::span<const Value* const> args) {
  auto check = [](const Arg& a, const Value& v) {
    if (a.kind == Arg::Kind::Node && v.is_unknown())
      throw OpError(ErrorKind::UnknownInput, "input '" + a.s + "' is unknown");  // its node's error says why
  };
  for (size_t i = 0; i < n.args.size() && i < args.size(); ++i) {
    const Arg& a = n.args[i];
    check(a, *args[i]);
    if (a.kind == Arg::Kind::List && args[i]->kind == Value::Kind::List)
      for (size_t k = 0; k < a.list.size() && k < args[i]->list->size(); ++k) check(a.list[k], (*args[i]->list)[k]);
  }
}

}  // namespace

bool Interpreter::write_dispatch_key(const Node& n) {
  CacheKey& k = cache_->key();
  k.clear();
  cache_storages_.clear();
  // Which earlier tensor of the call shares each tensor's storage: rules
  // see aliasing only through the storage ids, so the pattern is the key.
  auto alias_pattern = [&](const Value& v, auto& self) -> void {
    if (v.kind == Value::Kind::List) {
      for (const Value& x : *v.list) self(x, self);
      return;
    }
    if (!v.is_tensor()) return;
    const int64_t id = v.tensor->meta.storage;
    size_t first = 0;
    while (first < cache_storages_.size() && cache_storages_[first] != id) ++first;
    k.count(first);
    if (first == cache_storages_.size()) cache_storages_.push_back(id);
  };
  auto arg = [&](const Arg& a, auto& self) -> bool {
    k.raw<uint8_t>(static_cast<uint8_t>(a.kind));
    switch (a.kind) {
      case Arg::Kind::None: return true;
      case Arg::Kind::Bool: k.raw<bool>(a.b); return true;
      case Arg::Kind::Int: k.integer(a.i); return true;
      case Arg::Kind::Float: k.raw<double>(a.f); return true;
      case Arg::Kind::DType: k.raw<uint8_t>(static_cast<uint8_t>(a.dtype)); return true;
      case Arg::Kind::String:
      case Arg::Kind::Device:
      case Arg::Kind::MemoryFormat:
      case Arg::Kind::Layout: k.str(a.s); return true;
      case Arg::Kind::Graph: return false;  // a higher-order op: its subgraph's run is not keyed
      case Arg::Kind::List:
        k.count(a.list.size());
        for (const Arg& x : a.list)
          if (!self(x, self)) return false;
        return true;
      case Arg::Kind::Node: {
        const Value& v = resolve_node(a);
        if (!k.value(v)) return false;
        alias_pattern(v, alias_pattern);
        return true;
      }
    }
    return false;
  };
  k.str(n.target);
  k.count(n.args.size());
  for (const Arg& a : n.args)
    if (!arg(a, arg)) return false;
  k.count(n.kwargs.size());
  for (const auto& [name, a] : n.kwargs) {
    k.str(name);
    if (!arg(a, arg)) return false;
  }
  return true;
}

Value Interpreter::run_rule(const Node& n, const OpEntry& entry, const TargetInfo& info,
                            std::span<const Value* const> args) {
  DispatchCache::Visit visit;
  if (cache_) {
    if (info.inplace) {
      visit = cache_->bypass(kInplace);  // its bookkeeping reads and bumps versions
    } else if (!write_dispatch_key(n)) {
      visit = cache_->bypass(kUnkeyedArgument);
    } else {
      cache_inputs_.assign(args.begin(), args.end());
      for (const auto& kw : call_kwargs_) cache_inputs_.push_back(kw.second);
      cache_outputs_.clear();
      visit = cache_->lookup(cache_inputs_, env(), storage_, cache_outputs_);
      if (visit.hit) {
        reused_ = true;
        return std::move(cache_outputs_.front());
      }
    }
  }
  state_read_ = false;
  OpContext ctx(n, info.schema, args, call_kwargs_, env(), storage_, options_, this);
  try {
    entry.rule(ctx);
  } catch (...) {
    if (cache_) cache_->failed(visit);
    throw;
  }
  Value out = ctx.take_result();
  for (const std::string& note : ctx.precision_notes())
    result_.warnings.push_back({n.name, ErrorKind::PrecisionLost, note});
  if (cache_)
    cache_->store(visit, cache_inputs_, {&out, 1}, ctx.precision_notes().empty() && !state_read_, env(), storage_);
  return out;
}

namespace {
// The overloads of a packet ("aten.sym_size"), its default first.
std::vector<const AtenSchema*> aten_overloads(std::string_view packet) {
  std::vector<const AtenSchema*> out;
  const std::string prefix = std::string(packet) + ".";
  const std::span<const AtenSchemaRow> rows = aten_schema_rows();  // sorted by target
  auto row = std::lower_bound(rows.begin(), rows.end(), prefix,
                              [](const AtenSchemaRow& r, const std::string& p) { return r.target < p; });
  for (; row != rows.end() && row->target.starts_with(prefix); ++row) {
    const AtenSchema* s = find_aten_schema(row->target);
    if (row->target.ends_with(".default")) out.insert(out.begin(), s);
    else out.push_back(s);
  }
  return out;
}
}  // namespace

void Interpreter::check_arguments(const Node& n, const TargetInfo& info, std::span<const Value* const> args) const {
  if (!info.schema) return;
  if (auto error = check_call(*info.schema, n, args, call_kwargs_)) throw OpError(error->kind, std::move(error->message));
}

Value Interpreter::run_call(const Node& n, uint32_t position) {
  reused_ = false;
  call_node_ = nullptr;
  call_args_.clear();
  call_kwargs_.clear();
  const TargetInfo& info = target_info(n.target);
  // Arguments point at the live values they name, or at values built from
  // literals in call_values_ (reserved, so the pointers stay valid).
  call_values_.clear();
  call_values_.reserve(n.args.size() + n.kwargs.size());
  for (const Arg& a : n.args) call_args_.push_back(argument(a));
  call_node_ = &n;
  const std::span<const Value* const> args(call_args_);
  require_known_inputs(n, args);
  if (info.is_scalar) return eval_scalar_call(n.target, info.op, args, env());
  const OpEntry* entry = info.entry;
  if (const custom_ops::OpRuleSet* user = options_.op_rules.get())
    if (const custom_ops::OpRule* u = user->find_fx(n.target); u && (u->overrides || !entry))
      return run_user_rule(*u, n, args);
  Value out;
  if (!entry) throw OpError(ErrorKind::UnsupportedOp, "no shape rule for " + n.target);
  // A packet's rule serves only the overloads torch has ("aten.add.Tensor"),
  // not any name with the packet's prefix; the message is torch's AttributeError.
  if (!info.schema && n.target.starts_with("aten.")) {
    const size_t dot = n.target.rfind('.');
    throw OpError(ErrorKind::UnsupportedOp, "The underlying op of '" + n.target.substr(0, dot) +
                                                "' has no overload name '" + n.target.substr(dot + 1) + "'");
  }
  // requires_grad flows from inputs that require grad to the outputs the
  // op is differentiable for (the rule's OutputGrad) that are floating.
  bool any_grad = false;
  for (const Value* a : args) {
    if (a->is_tensor()) any_grad |= a->tensor->meta.requires_grad;
    if (a->kind == Value::Kind::List)
      for (const Value& x : *a->list) any_grad |= x.is_tensor() && x.tensor->meta.requires_grad;
  }
  const bool self_is_tensor = !args.empty() && args[0]->is_tensor();
  const int64_t self_storage = self_is_tensor ? args[0]->tensor->meta.storage : 0;
  for (const auto& [k, a] : n.kwargs) call_kwargs_.emplace_back(k, argument(a));
  // A bare packet ("aten.sym_size", as symbolic traces spell some calls)
  // calls the first overload its arguments match, as torch's
  // OpOverloadPacket does, with that overload's rule (the default's error
  // when none matches). Rare, so looked up per call.
  TargetInfo overload_info;
  const TargetInfo* call_info = &info;
  if (info.schema && info.schema->target.size() == n.target.size() + 8)  // ".default" was added
    for (const AtenSchema* overload : aten_overloads(n.target))
      if (!check_call(*overload, n, args, call_kwargs_)) {
        overload_info = info;
        overload_info.schema = overload;
        if (const OpEntry* e = OpRegistry::instance().find_entry(overload->target)) entry = e;
        call_info = &overload_info;
        break;
      }
  check_arguments(n, *call_info, args);
  out = run_rule(n, *entry, *call_info, args);
  // meshgrid's output i is a view of input i alone, so it requires grad
  // exactly when that input does.
  const Value* per_input = n.target.starts_with("aten.meshgrid.") && !args.empty() &&
                                   args[0]->kind == Value::Kind::List
                               ? args[0]
                               : nullptr;
  // export's `with torch.no_grad()` block: nothing it returns requires grad.
  const bool grad_off = n.target == "higher_order.wrap_with_set_grad_enabled" && !args.empty() &&
                        args[0]->kind == Value::Kind::Bool && args[0]->b.is_static() && !args[0]->b.value();
  auto grad_in = [&](size_t output) {
    if (grad_off) return false;
    if (!per_input) return any_grad;
    if (output >= per_input->list->size()) return false;
    const Value& x = (*per_input->list)[output];
    return x.is_tensor() && x.tensor->meta.requires_grad;
  };
  // Whether set_grad below changes a tensor; most outputs keep the flags their rule gave them.
  auto grad_changes = [&](const Value& v, size_t output) {
    if (!v.is_tensor()) return false;
    const TensorMeta& m = v.tensor->meta;
    const bool wanted = grad_in(output) && entry->grad.differentiable(output) && differentiable_dtype(m.dtype);
    return m.requires_grad != wanted || (wanted && m.is_leaf);
  };
  auto set_grad = [&](Value& v, size_t output) {
    if (!v.is_tensor()) return;
    TensorValue t = *v.tensor;
    t.meta.requires_grad = grad_in(output) && entry->grad.differentiable(output) && differentiable_dtype(t.meta.dtype);
    if (t.meta.requires_grad) t.meta.is_leaf = false;
    v = Value::of_tensor(std::move(t));
  };
  if (out.kind == Value::Kind::List) {
    // A list is rebuilt (as of_list, dropping any length template) only when an element changes or it has one.
    bool rebuild = out.list_length.has_value() || out.maybe_none;
    for (size_t i = 0; i < out.list->size() && !rebuild; ++i) rebuild = grad_changes((*out.list)[i], i);
    if (rebuild) {
      ValueList xs = *out.list;
      for (size_t i = 0; i < xs.size(); ++i)
        if (grad_changes(xs[i], i)) set_grad(xs[i], i);
      out = Value::of_list(std::move(xs));
    }
  } else if (grad_changes(out, 0)) {
    set_grad(out, 0);
  }
  // Aliasing and mutation bookkeeping for in-place ops.
  if (info.inplace && self_is_tensor && !n.args.empty() && n.args[0].kind == Arg::Kind::Node) {
    const uint32_t mutated = position_of(n.args[0]);  // resolved above, so it has a value
    if (info.metadata_mutating && out.is_tensor()) {
      MutationRecord m{n.name, n.target, n.args[0].s, {}};
      for (size_t r = 0; r < result_.nodes.size(); ++r)
        for (const auto& o : result_.nodes[r].outputs)
          if (o.val.is_tensor() && o.val.tensor->meta.storage == self_storage &&
              identity_[record_positions_[r]] == identity_[mutated])
            m.stale_nodes.push_back(result_.nodes[r].name.str());
      // Inputs declared to alias it keep their own metadata, but what was
      // recorded about their shared storage through them is stale too
      // (AOTAutograd regenerates such aliases from a synthetic base).
      if (aliased_inputs_) append_aliases(m.stale_nodes, mutated, self_storage);
      result_.mutations.push_back(std::move(m));
      values_[mutated] = &replaced_values_.emplace_back(out);
    } else {
      note_data_mutation(self_storage);
      if (aliased_inputs_) note_stale_aliases(n, mutated, self_storage);
    }
    identity_[position] = identity_[mutated];
  }
  return out;
}

Value Interpreter::example_fallback(const Node& n, const std::string& why) {
  // Static dims of the example stay; symbolic ones become fresh unbacked sizes.
  if (n.example.kind != ExampleValue::Kind::Tensor) return Value::unknown(why);
  TensorValue tv;
  for (const std::string& t : n.example.tensor.shape) {
    const std::optional<int64_t> lit = plain_integer(t);
    tv.meta.sizes.push_back(lit ? SymInt(*lit) : SymInt(env().create_unbacked_symint(true)));
  }
  tv.meta.strides = contiguous_strides(tv.meta.sizes, &env());
  tv.meta.dtype = n.example.tensor.dtype;
  tv.meta.device = n.example.tensor.device.value_or(options_.device);
  tv.meta.storage = storage_.next();
  return Value::of_tensor(std::move(tv));
}

void Interpreter::ask_tensor_meta(const Value& v) {
  if (v.kind == Value::Kind::List) {
    for (const Value& x : *v.list) ask_tensor_meta(x);
    return;
  }
  if (!v.is_tensor()) return;
  const TensorMeta& m = v.tensor->meta;
  auto fixed = [](const SymShape& xs) {
    return std::all_of(xs.begin(), xs.end(), [](const SymInt& x) { return x.is_static(); });
  };
  if (fixed(m.sizes) && fixed(m.strides)) return;  // nothing to guard
  traced_memory_format(m, env());
}

// A node for the NodeRunner: a placeholder or get_attr becomes its example
// value (a failure there ends the run: it is the user's input), a call runs
// its rule and falls back to the node's example meta.
class Interpreter::Step final : public NodeStep {
 public:
  Step(Interpreter& in, const Node& n, uint32_t position, std::string* source)
      : in_(in), node_(n), position_(position), source_(source) {
    recoverable = source == nullptr;
  }

  void describe_inputs(std::vector<std::string>& lines) const override {
    for (const Arg& a : node_.args)
      if (a.kind == Arg::Kind::Node)
        if (const uint32_t p = in_.position_of(a); p != Arg::kNoNode)
          lines.push_back("input " + a.s + ": " + describe_value(*in_.values_[p], in_.env()));
  }
  void run(std::vector<Value>& outputs) override {
    in_.subgraph_flops_ = nullptr;
    outputs.push_back(source_ ? in_.example_to_value(node_, *source_) : in_.run_call(node_, position_));
    reused = !source_ && in_.reused_;
  }
  void arguments(NodeArguments& in) const override {
    if (source_ || in_.call_node_ != &node_) return;  // a leaf, or a call that failed before its arguments
    in.args = in_.call_args_;
    in.kwargs = in_.call_kwargs_;
  }
  ExprRef nested_flops() const override { return source_ ? nullptr : in_.subgraph_flops_; }
  void fallback(std::vector<Value>& outputs, const std::string& why, bool) override {
    outputs.push_back(in_.example_fallback(node_, why));
  }
  bool run_real(std::vector<std::optional<Value>>& real) override {
    if (!node_.real) return false;
    real.push_back(*node_.real);
    return true;
  }

 private:
  Interpreter& in_;
  const Node& node_;
  uint32_t position_;
  std::string* source_;  // a leaf's source; null for a call
};

void Interpreter::run() {
  ShapeEnv& e = env();
  const size_t count = graph_.nodes.size();
  if (count >= Arg::kNoNode) throw InputError(graph_.path + ": too many nodes");
  values_.assign(count, nullptr);
  identity_.resize(count);
  for (uint32_t p = 0; p < count; ++p) identity_[p] = p;
  record_positions_.reserve(count);

  std::vector<std::string> input_names;  // of the placeholders, in order
  for (const Node& n : graph_.nodes)
    if (n.op == "placeholder") input_names.push_back(n.target.empty() ? n.name : n.target);
  if (is_subgraph_ && input_names.size() != sub_inputs_.size())
    throw OpError(ErrorKind::InvalidArgument, "subgraph " + graph_.path + " takes " + std::to_string(input_names.size()) +
                                                  " inputs, the call gives " + std::to_string(sub_inputs_.size()));
  // A subgraph's inputs are the call's operands: the user's --input and marks are not about them.
  std::vector<std::string> input_sources =
      is_subgraph_ ? std::vector<std::string>(input_names.size()) : checked_input_sources(options_, input_names);
  if (!options_.real_inputs.empty() && !is_subgraph_)
    result_.warnings.push_back({"", ErrorKind::PrecisionLost,
                                "--real-input: a JSON FX graph takes only the real inputs' sizes; the package's "
                                "propagate(..., real_inputs=...) runs the program on them"});
  result_.inputs.reserve(result_.inputs.size() + input_names.size());
  size_t next_input = 0;

  bool inputs_done = false;
  for (uint32_t position = 0; position < count; ++position) {
    const Node& n = graph_.nodes[position];
    const bool is_placeholder = n.op == "placeholder";
    const bool is_leaf = is_placeholder || n.op == "get_attr";
    if (!inputs_done && !is_leaf) {
      input_dims_.finish();  // shape_id equalities hold before any op runs
      inputs_done = true;
    }
    current_ = &n;
    if (n.op == "output") {
      record_outputs(n);
      continue;  // the output node is not recorded as a node
    }
    std::string source;
    if (is_leaf)
      source = is_placeholder ? std::move(input_sources[next_input++])
                              : "L['self']." + (n.target.empty() ? n.name : n.target);
    if (is_placeholder && is_subgraph_) {
      values_[position] = &replaced_values_.emplace_back(sub_inputs_[next_input - 1]);
      leaves_.push_back(position);
      continue;
    }
    Step step(*this, n, position, is_leaf ? &source : nullptr);
    const NodeRecord& rec = runner_.run(n.record_name, n.record_op, {&n.record_name, 1}, step);
    if (is_placeholder) {
      InputRecord& input = result_.inputs.emplace_back();
      input.name = n.name;
      input.source = std::move(source);
      input.val = rec.outputs[0].val;
    }
    if (is_leaf) leaves_.push_back(position);
    record_positions_.push_back(position);
    values_[position] = &rec.outputs[0].val;
  }
  // AOTAutograd traces the graph Dynamo built, after it: the layout guards
  // of its tensor_meta come after every op's own, value by value.
  if (graph_.traced_by_make_fx && !graph_.exported && !is_subgraph_) {
    for (const uint32_t position : record_positions_) {
      current_ = &graph_.nodes[position];
      e.set_current_node(current_->name);
      ask_tensor_meta(*values_[position]);
    }
  }
  for (const TracedSpecialization& t : traced_specializations_)
    if (e.simplify(t.size).is_symbolic()) {
      e.set_current_node(t.placeholder);
      (void)e.evaluate(sym_eq(t.size, t.value), "specialized in the traced graph");
    }
  // AOTAutograd's retrace makes each data-dependent count again, bounded by
  // its numel's range after Dynamo's trace (a size the trace specialized, or
  // a guard narrowed, after the count was made), and renames it to the
  // first, whose range becomes the intersection: nonzero of a [2, 6] dim
  // that a later op specialized to 5 ends in [0, 5].
  if (graph_.traced_by_make_fx && !graph_.exported && !is_subgraph_) {
    for (const CountBound& c : count_bounds_) {
      const ExprRef u = e.simplify(c.count.expr());
      if (!u->is_symbol()) continue;
      const ValueRange numel = e.bound(c.numel.expr());
      if (numel.hi_infinite() || numel.hi <= c.unbounded_to || numel.hi >= e.info(u).range.hi) continue;
      e.constrain_symbol_range(u, ValueRange{0, numel.hi});
    }
  }
  e.set_current_node("");
  current_ = nullptr;
  // Fake gradients: the layout a trainer materializes for each leaf that
  // requires grad, or that the graph declares a gradient for.
  std::unordered_set<uint32_t> declared;
  for (const auto& [out, leaf] : graph_.gradients) {
    const uint32_t g = position_named(out), l = position_named(leaf);
    if (l == Arg::kNoNode || (graph_.nodes[l].op != "placeholder" && graph_.nodes[l].op != "get_attr")) {
      result_.errors.push_back({leaf, ErrorKind::InvalidArgument,
                                "gradients: '" + leaf + "' (the leaf of gradient '" + out + "') is not a placeholder or get_attr"});
      continue;
    }
    declared.insert(l);
    if (g == Arg::kNoNode || !values_[g] || !values_[g]->is_tensor() || !values_[l] || !values_[l]->is_tensor()) {
      result_.errors.push_back({leaf, ErrorKind::UnknownInput,
                                "gradients: the gradient '" + out + "' of '" + leaf + "' is not a known tensor"});
      continue;
    }
    e.set_current_node(leaf);  // the guards the size comparison records are the leaf's
    std::optional<ErrorRecord> bad;
    try {
      bad = check_gradient(leaf, values_[g]->tensor->meta, values_[l]->tensor->meta);
    } catch (const DataDependentError& err) {
      bad = ErrorRecord{leaf, ErrorKind::DataDependent, err.what(), err.suggested_fixes()};
    }
    e.set_current_node("");
    if (bad) {
      result_.errors.push_back(*bad);
      continue;
    }
    result_.gradients.push_back({leaf, Value::of_tensor(accumulated_gradient(values_[l]->tensor->meta))});
  }
  for (const uint32_t position : leaves_) {
    const Value& v = *values_[position];
    if (declared.count(position) || !v.is_tensor() || !v.tensor->meta.requires_grad) continue;
    result_.gradients.push_back({graph_.nodes[position].name, Value::of_tensor(accumulated_gradient(v.tensor->meta))});
  }
}

std::vector<Value> Interpreter::run_subgraph(const Graph& sub, std::span<const Value> inputs) {
  if (depth_ >= kMaxArgDepth)
    throw OpError(ErrorKind::InvalidArgument, "subgraphs nested deeper than " + std::to_string(kMaxArgDepth) + " levels");
  // The subgraph's run borrows this run's ShapeEnv (its guards, asserts and
  // symbols are the program's) and continues its storage ids (its tensors
  // never alias the operands by accident); its records are its own.
  RunResult inner;
  inner.model_path = sub.path;
  inner.model_kind = result_.model_kind;
  inner.device = result_.device;
  const std::string node = env().current_node();
  struct Lend {
    RunResult& from;
    RunResult& to;
    const std::string& node;
    Lend(RunResult& f, RunResult& t, const std::string& n) : from(f), to(t), node(n) { to.env = std::move(from.env); }
    ~Lend() {
      from.env = std::move(to.env);
      from.env->set_current_node(node);
    }
  } lend(result_, inner, node);
  Interpreter child(sub, options_, inner);
  child.sub_inputs_ = inputs;
  child.is_subgraph_ = true;
  child.depth_ = depth_ + 1;
  child.storage_ = storage_;
  child.run();
  storage_ = child.storage_;
  if (!inner.errors.empty()) {
    const ErrorRecord& e = inner.errors.front();
    throw OpError(e.kind, sub.path + ": node '" + e.node + "': " + e.message);
  }
  for (const NodeRecord& r : inner.nodes)
    if (r.flops) subgraph_flops_ = subgraph_flops_ ? add(subgraph_flops_, r.flops) : r.flops;
  std::vector<Value> outs;
  outs.reserve(inner.outputs.size());
  for (NamedValue& o : inner.outputs) outs.push_back(std::move(o.val));
  return outs;
}

void Interpreter::scale_subgraph_flops(const SymInt& times) {
  if (subgraph_flops_) subgraph_flops_ = mul(subgraph_flops_, times.expr());
}

uint32_t Interpreter::position_named(const std::string& name) const {
  for (uint32_t p = 0; p < graph_.nodes.size(); ++p)
    if (graph_.nodes[p].name == name) return p;
  return Arg::kNoNode;
}

namespace {

// PyTorch's get_device() (-1 off CUDA) and device type name.
std::string device_index(const Device& d) { return std::to_string(d.is_cuda() ? std::max<int>(d.index, 0) : -1); }
std::string device_type_name(const Device& d) {
  const std::string s = d.str();
  return s.substr(0, s.find(':'));
}
std::string sizes_text(const SymShape& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + sizes[i].to_python();
  return out + "]";
}

// The element type's name as a C++ TypeMeta prints it, as .grad's checks do.
std::string cpp_type_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "unsigned char";
    case DType::Int8: return "signed char";
    case DType::Int16: return "short int";
    case DType::Int32: return "int";
    case DType::Int64: return "long int";
    case DType::UInt16: return "short unsigned int";
    case DType::UInt32: return "unsigned int";
    case DType::UInt64: return "long unsigned int";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Complex32: return "c10::complex<c10::Half>";
    case DType::Complex64: return "c10::complex<float>";
    case DType::Complex128: return "c10::complex<double>";
    default: return "c10::" + std::string(dtype_c10_name(t));
  }
}

}  // namespace

// The checks of assigning `grad` to the leaf's .grad, in PyTorch's order and
// words (torch/csrc/autograd/python_variable.cpp); sizes are compared
// through the ShapeEnv, as sym_sizes().equals guards.
std::optional<ErrorRecord> Interpreter::check_gradient(const std::string& leaf, const TensorMeta& grad,
                                                       const TensorMeta& var) {
  if (grad.dtype != var.dtype)
    return ErrorRecord{leaf, ErrorKind::TypeError,
                       "attempting to assign a gradient with dtype '" + cpp_type_name(grad.dtype) +
                           "' to a tensor with grad_dtype '" + std::string(dtype_c10_name(var.dtype)) +
                           "'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You "
                           "can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                           "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
                           "break downstream systems that assume they match."};
  if (grad.device.type != var.device.type)
    return ErrorRecord{leaf, ErrorKind::DeviceMismatch,
                       "attempting to assign a gradient with device type '" + device_type_name(grad.device) +
                           "' to a tensor with device type '" + device_type_name(var.device) +
                           "'. Please ensure that the gradient and the tensor are on the same device"};
  if (device_index(grad.device) != device_index(var.device))
    return ErrorRecord{leaf, ErrorKind::DeviceMismatch,
                       "attempting to assign a gradient located on device with index '" + device_index(grad.device) +
                           "' to a tensor located on device with index '" + device_index(var.device) +
                           "'. Please ensure that the gradient and the tensor are on the same device"};
  bool same = grad.sizes.size() == var.sizes.size();
  for (size_t d = 0; same && d < var.sizes.size(); ++d)
    same = grad.sizes[d].same(var.sizes[d]) || env().evaluate(sym_eq(grad.sizes[d], var.sizes[d]), "AccumulateGrad");
  if (!same)
    return ErrorRecord{leaf, ErrorKind::ShapeMismatch,
                       "attempting to assign a gradient of size '" + sizes_text(grad.sizes) + "' to a tensor of size '" +
                           sizes_text(var.sizes) + "'. Please ensure that the gradient and the tensor are the same size"};
  return std::nullopt;
}

// AccumulateGrad's layout contract: the leaf's strides when it is
// non-overlapping and dense, else contiguous.
TensorValue Interpreter::accumulated_gradient(const TensorMeta& leaf) {
  TensorValue g;
  g.meta.sizes = leaf.sizes;
  g.meta.strides = is_non_overlapping_and_dense(leaf, env()) ? leaf.strides : contiguous_strides(leaf.sizes, &env());
  g.meta.dtype = leaf.dtype;
  g.meta.device = leaf.device;
  g.meta.storage = storage_.next();
  return g;
}

void Interpreter::record_outputs(const Node& n) {
  if (n.args.empty()) return;
  Value out = resolve(n.args[0]);
  if (out.kind != Value::Kind::List) {
    result_.outputs.push_back({result_.names.intern(n.args[0].kind == Arg::Kind::Node ? n.args[0].s : "output"), out});
    return;
  }
  const Arg& a = n.args[0];
  for (size_t k = 0; k < out.list->size(); ++k) {
    const std::string name =
        k < a.list.size() && a.list[k].kind == Arg::Kind::Node ? a.list[k].s : "output_" + std::to_string(k);
    result_.outputs.push_back({result_.names.intern(name), (*out.list)[k]});
  }
}

// A data write through `mutated` (on `storage`): the inputs the graph
// declares aliases of that storage see the new data, and are stale.
void Interpreter::note_stale_aliases(const Node& n, uint32_t mutated, int64_t storage) {
  MutationRecord m{n.name, n.target, n.args[0].s, {}};
  append_aliases(m.stale_nodes, mutated, storage);
  if (!m.stale_nodes.empty()) result_.mutations.push_back(std::move(m));
}

// The inputs the graph declares aliases of `storage`, other than `mutated` itself.
void Interpreter::append_aliases(std::vector<std::string>& names, uint32_t mutated, int64_t storage) const {
  for (const uint32_t leaf : leaves_) {
    const Value* v = values_[leaf];
    if (identity_[leaf] != identity_[mutated] && graph_.nodes[leaf].example.tensor.storage && v && v->is_tensor() &&
        v->tensor->meta.storage == storage &&
        std::find(names.begin(), names.end(), graph_.nodes[leaf].name) == names.end())
      names.push_back(graph_.nodes[leaf].name);
  }
}

// A --op-rules rule: positional arguments are its inputs (or its schema's), keywords its named values.
Value Interpreter::run_user_rule(const custom_ops::OpRule& u, const Node& n, std::span<const Value* const> args) {
  call_kwargs_.clear();
  for (const auto& [k, a] : n.kwargs) call_kwargs_.emplace_back(k, argument(a));
  // A declared schema is checked as torch checks a call, before the rule.
  if (u.schema)
    if (std::optional<CallError> e = check_call(u.schema->schema, n, args, call_kwargs_))
      throw OpError(e->kind, std::move(e->message));
  RuleContext ctx(env(), storage_, options_);
  custom_ops::OpRuleCall call;
  call.inputs = args;
  call.named = [this](std::string_view name) -> std::optional<Value> {
    for (const auto& [k, v] : call_kwargs_)
      if (k == name) return *v;
    return std::nullopt;
  };
  std::vector<Value> outs = custom_ops::run_op_rule(u, call, ctx);
  result_.op_rule_uses.push_back({n.name, n.target, u.where});
  return outs.size() == 1 ? std::move(outs[0]) : Value::of_list(std::move(outs));
}

namespace {
// The graph with a placeholder, read by no node, in front for each frame
// input (InferOptions::frame_inputs): its example is the call's tensor.
Graph with_frame_inputs(const Graph& g, const InferOptions& options) {
  Graph out = g;
  std::vector<Node> front;
  for (const std::string& name : options.frame_inputs) {
    auto sizes = options.input_hints.find(name);
    if (sizes == options.input_hints.end()) continue;
    Node n;
    n.name = n.target = name;
    n.op = "placeholder";
    n.example.kind = ExampleValue::Kind::Tensor;
    for (int64_t d : sizes->second) n.example.tensor.shape.push_back(std::to_string(d));
    // Dense strides, so that a dim made dynamic gives its stride guards as any input's do.
    std::vector<std::string> strides(sizes->second.size());
    int64_t step = 1;
    for (size_t d = strides.size(); d-- > 0;) {
      strides[d] = std::to_string(step);
      step = checked_mul(step, std::max<int64_t>(sizes->second[d], 1));
    }
    n.example.tensor.stride = std::move(strides);
    if (auto dt = options.input_dtypes.find(name); dt != options.input_dtypes.end()) n.example.tensor.dtype = dt->second;
    n.record_name = out.names->intern(n.name);
    n.record_op = out.names->intern(n.op);
    front.push_back(std::move(n));
  }
  out.nodes.insert(out.nodes.begin(), std::make_move_iterator(front.begin()), std::make_move_iterator(front.end()));
  return out;
}
}  // namespace

RunResult run_graph(const Graph& g, const InferOptions& options) {
  if (!options.frame_inputs.empty()) {
    InferOptions rest = options;
    rest.frame_inputs.clear();
    const Graph framed = with_frame_inputs(g, options);
    return run_graph(framed, rest);
  }
  RunResult result = begin_run("fx", g.path, options);
  result.borrowed_names.push_back(g.names);  // records point at the graph's names
  // The rule table is built once per process (on first use): setup, like the
  // operator registrations torch makes at import, not part of walking this
  // graph's nodes, so it is done before the propagate clock starts.
  (void)OpRegistry::instance();
  const auto start = std::chrono::steady_clock::now();
  Interpreter interp(g, options, result);
  interp.run();
  result.dispatch = interp.dispatch_stats();
  result.dispatch.propagate_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace fakeprop::fx
