#include "fakeprop/onnx/interpreter.h"

#include <algorithm>
#include <chrono>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string_view>
#include <type_traits>

#include "fakeprop/graph/expr_cap.h"
#include "fakeprop/graph/unbacked_bindings.h"
#include "fakeprop/onnx/op_context.h"
#include "fakeprop/report/report.h"
#include "fakeprop/onnx/ops/fallback.h"

namespace fakeprop::onnx {

const Value* Scope::find(std::string_view name) const {
  if (const uint32_t id = names_.id(name); id != ValueNumbering::kNone) return find(id);
  if (auto it = unnumbered_.find(std::string(name)); it != unnumbered_.end()) return &it->second;
  return parent_ ? parent_->find(name) : nullptr;
}

void Scope::set(std::string_view name, Value v) {
  if (const uint32_t id = names_.id(name); id != ValueNumbering::kNone)
    set(id, std::move(v));
  else
    unnumbered_.insert_or_assign(std::string(name), std::move(v));
}

namespace {

bool is_default_domain(std::string_view d) { return d.empty() || d == "ai.onnx"; }

// "Conv", or "com.microsoft.Attention" outside the default domain.
Name qualified_op(const Node& n, NamePool& pool) {
  return is_default_domain(n.domain) ? n.op_type : pool.intern(n.domain + "." + n.op_type);
}

// By value id: the position in `order` of the last node reading it, or
// kNeverDead for values the graph returns and values no node reads.
constexpr uint32_t kNeverDead = UINT32_MAX;
std::vector<uint32_t> last_reads(const Graph& g, const ValueNumbering& names, const std::vector<size_t>& order) {
  std::vector<uint32_t> last(names.size(), kNeverDead);
  for (size_t pos = 0; pos < order.size(); ++pos)
    for (auto ids : {names.inputs(order[pos]), names.implicit_inputs(order[pos])})
      for (uint32_t id : ids)
        if (id != ValueNumbering::kNone) last[id] = static_cast<uint32_t>(pos);
  for (const auto& o : g.outputs)
    if (const uint32_t id = names.id(o.name); id != ValueNumbering::kNone) last[id] = kNeverDead;
  return last;
}

// Drops a tensor's known elements, unless another value (a dispatch cache
// entry, an Identity's output) shares the tensor and may still be read.
void drop_known_elements(Value& v) {
  if (!v.is_tensor() || !v.tensor->data || v.tensor.use_count() != 1) return;
  v.tensor = std::make_shared<const TensorValue>(TensorValue{v.tensor->meta, {}});
}

// Hands the pages of freed memory inside the heap back to the system. A
// consuming run frees the model as fast as it records, and glibc keeps those
// holes resident: trimming every 512 nodes took swin_t's peak from 11.25 to
// 11.0 MB.
void release_free_pages() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// ---- dispatch cache helpers ----

// The ShapeEnv's observable state: every decision that is not statically known
// adds a guard, a runtime assert, a specialization or a replacement, and every
// new symbol (unbacked sizes of data-dependent rules) grows the symbol table;
// ranges and facts only change along with one of these.
struct EnvFingerprint {
  size_t guards = 0, asserts = 0, specializations = 0, replacements = 0, symbols = 0;
  bool operator==(const EnvFingerprint&) const = default;
};

EnvFingerprint fingerprint(const ShapeEnv& e) {
  return {e.guards().size(), e.runtime_asserts().size(), e.specializations().size(), e.replacements().size(),
          e.symbols().size()};
}

// The next id StorageIds would hand out, without taking it.
int64_t peek_storage(const StorageIds& ids) {
  StorageIds copy = ids;
  return copy.next();
}

void put_raw(std::string& k, const void* p, size_t n) { k.append(static_cast<const char*>(p), n); }
template <class T>
void put(std::string& k, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  put_raw(k, &v, sizeof v);
}
// Counts and sizes as LEB128 varints: most are small, and the keys of 900
// entries were 0.7 MB of swin_t's peak at 9 bytes per size.
void put_varint(std::string& k, uint64_t v) {
  for (; v >= 0x80; v >>= 7) k.push_back(static_cast<char>(v | 0x80));
  k.push_back(static_cast<char>(v));
}
uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
void put_str(std::string& k, std::string_view s) {
  put_varint(k, s.size());
  k.append(s);
}
// A static value below 2^61 in magnitude as its zigzag code with a clear low
// bit; anything else as its interned expression's id with the low bit set
// (interned nodes are never freed, so the id identifies them; a static value
// out of that range has the id of its Integer node).
void put_sym(std::string& k, const SymInt& v) {
  constexpr int64_t kInline = int64_t{1} << 61;
  if (v.is_static() && v.value() > -kInline && v.value() < kInline)
    put_varint(k, zigzag(v.value()) << 1);
  else
    put_varint(k, (v.expr()->id() << 1) | 1);
}
void put_sym(std::string& k, const SymBool& v) {
  if (v.is_static())
    put_varint(k, v.value() ? 2 : 0);
  else
    put_varint(k, (v.expr()->id() << 1) | 1);
}
void put_data(std::string& k, const KnownData* d) {
  if (!d) {
    put<char>(k, 'n');
    return;
  }
  put<char>(k, d->is_float ? 'f' : 'd');
  put_varint(k, d->size());
  if (d->is_float)
    put_raw(k, d->floats.data(), d->floats.size() * sizeof(double));
  else
    for (const SymInt& x : d->ints) put_sym(k, x);
}

// Initializers up to this many elements are keyed by their elements, larger
// ones by identity.
constexpr int64_t kMaxKeyedInitializerElements = 512;

// The key buffer reused from node to node is dropped after a key longer than this.
constexpr size_t kKeptKeyBufferBytes = 16 * 1024;

// Constant tensors in attributes up to this size are part of the key; larger
// ones make the node uncacheable (hashing them would cost more than the rule).
constexpr size_t kMaxKeyedTensorBytes = 4096;

bool put_attribute(std::string& k, const Attribute& a) {
  put_str(k, a.name);
  put<uint8_t>(k, static_cast<uint8_t>(a.type));
  switch (a.type) {
    case Attribute::Type::Float: put<float>(k, a.f); return true;
    case Attribute::Type::Int: put_varint(k, zigzag(a.i)); return true;
    case Attribute::Type::String: put_str(k, a.s); return true;
    case Attribute::Type::Floats:
      put_varint(k, a.floats().size());
      put_raw(k, a.floats().data(), a.floats().size() * sizeof(float));
      return true;
    case Attribute::Type::Ints:
      put_varint(k, a.ints.size());
      for (int64_t x : a.ints) put_varint(k, zigzag(x));
      return true;
    case Attribute::Type::Strings:
      put_varint(k, a.strings().size());
      for (const auto& x : a.strings()) put_str(k, x);
      return true;
    case Attribute::Type::Tensor: {
      if (!a.t) return false;
      const TensorRef& t = *a.t;
      // External data and typed fields split into chunks are not keyed.
      if (t.storage == TensorRef::Storage::External || !t.typed_chunks.empty()) return false;
      if (t.bytes.size() > kMaxKeyedTensorBytes) return false;
      put<int32_t>(k, t.data_type);
      put_varint(k, t.dims.size());
      for (int64_t x : t.dims) put_varint(k, zigzag(x));
      put<uint8_t>(k, static_cast<uint8_t>(t.storage));
      put<int32_t>(k, t.typed_field);
      put<bool>(k, t.typed_packed);
      put_str(k, t.bytes);
      return true;
    }
    default:
      return false;  // graphs, sparse tensors, type protos: not cached
  }
}

void put_meta(std::string& k, const TensorMeta& m) {
  put<uint8_t>(k, static_cast<uint8_t>(m.dtype));
  put<uint8_t>(k, static_cast<uint8_t>(m.device.type));
  put<int32_t>(k, m.device.index);
  put<bool>(k, m.requires_grad);
  put<bool>(k, m.is_leaf);
  put_varint(k, m.sizes.size());
  for (const SymInt& d : m.sizes) put_sym(k, d);
  put_varint(k, m.strides.size());
  for (const SymInt& d : m.strides) put_sym(k, d);
  put_sym(k, m.storage_offset);
}

}  // namespace

// Where a cached output's storage id comes from on a hit.
struct CachedOutput {
  Value value;
  int kind = 0;          // 0: not a tensor; 1: fresh (offset from the rule's first id); 2: input `index`'s storage
  int64_t index = 0;
};

struct CacheEntry {
  std::vector<CachedOutput> outputs;
  int64_t storage_consumed = 0;  // ids the rule took (kept so numbering matches an uncached run)
};

struct Interpreter::DispatchCache {
  EnvFingerprint fp;  // the state every entry was computed under
  std::unordered_map<std::string, CacheEntry> entries;
};

bool dispatch_cache_enabled_by_environment() {
  const char* v = std::getenv("FAKEPROP_DISPATCH_CACHE");
  return !(v && (std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0));
}

bool Interpreter::dispatch_key(const Node& node, const std::string& domain, int64_t opset,
                               const std::vector<const Value*>& inputs, std::string& key) {
  key.clear();
  put_str(key, domain);
  put_str(key, node.op_type);
  put_varint(key, static_cast<uint64_t>(opset));
  put_varint(key, node.outputs.size());
  for (const auto& o : node.outputs) put<bool>(key, o.empty());
  put_varint(key, node.attributes.size());
  for (const auto& a : node.attributes)
    if (!a.ref_attr_name().empty() || !put_attribute(key, a)) return false;
  put_varint(key, inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = inputs[i];
    if (!v) {
      put<char>(key, node.inputs[i].empty() ? '-' : '?');
      continue;
    }
    if (v->maybe_none || v->list_length) return false;
    put<uint8_t>(key, static_cast<uint8_t>(v->kind));
    switch (v->kind) {
      case Value::Kind::None: break;
      case Value::Kind::Int: put_sym(key, v->i); break;
      case Value::Kind::Bool: put_sym(key, v->b); break;
      case Value::Kind::Float: put<double>(key, v->f); break;
      case Value::Kind::Tensor: {
        const TensorValue& t = *v->tensor;
        put_meta(key, t.meta);
        // Rules read an initializer's elements by the input's name when the
        // value carries none (OpContext::ints): key what they would read. A
        // small one (a shape constant, repeated per block) by its elements; a
        // large one (a weight) by the initializer itself, since decoding every
        // weight to key it cost more than the rules (resnet50: 16 ms with the
        // cache, 4.6 ms without).
        auto init = t.data ? initializers_.end() : initializers_.find(node.inputs[i]);
        if (init == initializers_.end()) {
          put_data(key, t.data ? &*t.data : nullptr);
        } else if (init->second->numel() <= kMaxKeyedInitializerElements) {
          put_data(key, initializer_data(node.inputs[i]));
        } else {
          put<char>(key, 'i');
          put<const void*>(key, init->second);
        }
        break;
      }
      default:
        return false;  // sequences and opaque values
    }
  }
  return true;
}

Interpreter::Interpreter(const Model& model, const InferOptions& options, RunResult& result, RunControl control)
    : model_(model), options_(options), result_(result), control_(control) {
  for (const auto& t : model.graph.initializers) initializers_[t->name] = t.get();
  for (const auto& f : model.functions) functions_[f.domain + "::" + f.name] = &f;
  // The dynamic trace logs static decisions too: a hit would drop its lines.
  if (control_.dispatch_cache && options_.log_level == LogLevel::Off) {
    cache_ = std::make_unique<DispatchCache>();
    stats_.enabled = true;
  }
}

Interpreter::~Interpreter() = default;

size_t Interpreter::cache_entries() const { return cache_ ? cache_->entries.size() : 0; }

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

Value Interpreter::fallback_value(std::string_view value_name, const Graph& g, const std::string& why) {
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

void Interpreter::run_node(const Node& node, std::span<const uint32_t> input_ids,
                           std::span<const uint32_t> output_ids, Scope& scope, Name record_name,
                           const Graph& g, size_t depth) {
  ShapeEnv& e = env();
  e.set_current_node(record_name);
  NodeRecord rec;
  rec.name = record_name;
  rec.op = qualified_op(node, result_.names);

  std::vector<const Value*> inputs;
  inputs.reserve(node.inputs.size());
  for (uint32_t id : input_ids) inputs.push_back(scope.find(id));
  if (e.extended_debug_enabled()) {  // the causal chain's node part, copied: nodes nest
    std::vector<std::string> lines{"op " + rec.op};
    for (size_t i = 0; i < inputs.size(); ++i)
      lines.push_back("input " + node.inputs[i] + ": " + (inputs[i] ? describe_value(*inputs[i], e) : "absent"));
    e.set_node_context([lines] { return lines; });
  }

  std::vector<Value> outputs;
  bool from_cache = false;
  std::string failure;  // why outputs fall back, for errors and lost-precision notes
  std::string domain = is_default_domain(node.domain) ? "" : node.domain.str();
  try {
    const Function* fn = nullptr;
    if (!functions_.empty())
      if (auto it = functions_.find(node.domain + "::" + node.op_type); it != functions_.end()) fn = it->second;
    if (fn) {
      run_function(*fn, node, scope, outputs, depth);
    } else if (OpRule rule = OpRegistry::instance().find(domain, node.op_type)) {
      int64_t opset = model_.opset(domain);
      // Dispatch cache: same operator, attributes and input metadata under the
      // same ShapeEnv state give the same outputs, up to fresh storage ids.
      // The key's buffer is reused from node to node (taken, not shared: a
      // rule may run a subgraph's nodes before this key is stored).
      std::string key = std::move(key_buffer_);
      EnvFingerprint before_fp;
      int64_t before_storage = 0;
      bool cacheable = false;
      if (cache_) {
        before_fp = fingerprint(e);
        if (!(cache_->fp == before_fp)) {  // the state moved on: old entries can never hit again
          cache_->entries.clear();
          cache_->fp = before_fp;
        }
        cacheable = dispatch_key(node, domain, opset, inputs, key);
        if (!cacheable) {
          ++stats_.bypasses;
        } else if (auto hit = cache_->entries.find(key); hit != cache_->entries.end()) {
          ++stats_.hits;
          from_cache = true;
          const int64_t first = peek_storage(storage_);
          for (int64_t n = 0; n < hit->second.storage_consumed; ++n) storage_.next();
          outputs.reserve(hit->second.outputs.size());
          for (const CachedOutput& c : hit->second.outputs) {
            if (c.kind == 0) {
              outputs.push_back(c.value);
              continue;
            }
            TensorValue tv = *c.value.tensor;
            tv.meta.storage = c.kind == 1 ? first + c.index : inputs[static_cast<size_t>(c.index)]->tensor->meta.storage;
            outputs.push_back(Value::of_tensor(std::move(tv)));
          }
          rule = nullptr;
        } else {
          ++stats_.misses;
          before_storage = peek_storage(storage_);
        }
      }
      if (rule) {
        std::vector<const Value*> rule_inputs = inputs;
        OpContext ctx(node, opset, e, storage_, options_.device, std::move(rule_inputs), this);
        subgraph_depth_ = depth;
        current_scope_ = &scope;
        try {
          rule(ctx);
        } catch (...) {
          if (cacheable) ++stats_.not_stored;
          throw;
        }
        outputs = ctx.outputs();
        for (const auto& note : ctx.precision_notes()) result_.warnings.push_back({record_name.str(), ErrorKind::PrecisionLost, note});
        for (size_t k = 0; k < outputs.size(); ++k)
          if (outputs[k].is_none() && ctx.wants_output(k))
            throw OpError(ErrorKind::Internal, "rule for " + rec.op + " produced no value for output '" + node.outputs[k] + "'");
        if (cacheable) {
          const int64_t after_storage = peek_storage(storage_);
          CacheEntry entry;
          entry.storage_consumed = after_storage - before_storage;
          bool store = ctx.precision_notes().empty() && fingerprint(e) == before_fp;
          for (size_t k = 0; store && k < outputs.size(); ++k) {
            const Value& v = outputs[k];
            CachedOutput c;
            c.value = v;
            if (v.kind == Value::Kind::List || v.kind == Value::Kind::Opaque || v.maybe_none || v.list_length) {
              store = false;
            } else if (v.is_tensor()) {
              const int64_t id = v.tensor->meta.storage;
              if (id >= before_storage && id < after_storage) {
                c.kind = 1;
                c.index = id - before_storage;
              } else {
                c.kind = 0;
                for (size_t i = 0; i < inputs.size(); ++i)
                  if (inputs[i] && inputs[i]->is_tensor() && inputs[i]->tensor->meta.storage == id) {
                    c.kind = 2;
                    c.index = static_cast<int64_t>(i);
                    break;
                  }
                if (c.kind == 0) store = false;  // a storage from elsewhere
              }
            }
            entry.outputs.push_back(std::move(c));
          }
          if (store)
            cache_->entries.emplace(key, std::move(entry));
          else
            ++stats_.not_stored;
        }
      }
      // One ScatterND over a folded index tensor keyed 100 KB: do not hold
      // the largest key's buffer for the rest of the run.
      if (key.capacity() <= kKeptKeyBufferBytes) key_buffer_ = std::move(key);
    } else {
      std::string what = domain.empty() ? "no shape rule for operator " + node.op_type
                                        : "no shape rule for operator " + node.op_type + " of domain '" + domain + "'";
      result_.errors.push_back({record_name.str(), ErrorKind::UnsupportedOp, what});
      failure = "unsupported operator " + rec.op;
    }
  } catch (const DataDependentError& err) {
    result_.errors.push_back({record_name.str(), ErrorKind::DataDependent, err.what(), err.suggested_fixes()});
    failure = "data-dependent decision at node '" + record_name + "'";
  } catch (const OpError& err) {
    result_.errors.push_back({record_name.str(), err.kind(), err.what()});
    failure = std::string(error_kind_name(err.kind())) + " at node '" + record_name + "': " + err.what();
  } catch (const OverflowError& err) {
    result_.errors.push_back({record_name.str(), ErrorKind::Overflow, err.what()});
    failure = "overflow at node '" + record_name + "'";
  } catch (const InputError&) {
    throw;
  } catch (const Error& err) {
    result_.errors.push_back({record_name.str(), ErrorKind::Error, err.what()});
    failure = "error at node '" + record_name + "': " + err.what();
  }
  if (!failure.empty()) {
    outputs.clear();
    for (const auto& o : node.outputs) outputs.push_back(o.empty() ? Value::none() : fallback_value(o, g, failure));
  }
  outputs.resize(node.outputs.size());
  // Oversized expressions become fresh symbols (graph/expr_cap.h). A hit's
  // outputs never need it: capping adds a symbol, which clears the cache.
  if (!from_cache) cap_expression_size(outputs, e, options_.max_expr_nodes, record_name, result_.warnings);
  record_unbacked_bindings(rec, outputs);
  for (size_t k = 0; k < node.outputs.size(); ++k)
    if (!node.outputs[k].empty()) rec.outputs.push_back({node.outputs[k], std::move(outputs[k])});
  // The scope points into the stored record, which never moves (ChunkedVector).
  NodeRecord& stored = result_.nodes.emplace_back(std::move(rec));
  for (size_t k = 0, j = 0; k < node.outputs.size(); ++k)
    if (!node.outputs[k].empty()) scope.bind(output_ids[k], &stored.outputs[j++].val);
}

void Interpreter::run_nodes(const Graph& g, Scope& scope, const std::string& prefix, size_t depth) {
  if (depth > options_.max_subgraph_depth)
    throw InputError(model_.path + ": subgraphs nested deeper than " + std::to_string(options_.max_subgraph_depth));
  const ValueNumbering& names = scope.names();
  for (const auto& t : g.initializers) {
    const uint32_t id = names.id(t->name);
    if (id == ValueNumbering::kNone || scope.has_local(id)) continue;  // unnamed: nothing can read it
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
    scope.set(id, Value::of_tensor(std::move(tv)));
  }
  // Defined outside the nodes: inputs, initializers and, in a subgraph, what
  // the enclosing scopes hold.
  std::vector<bool> available = names.inputs_and_initializers(g);
  if (depth > 0)
    for (uint32_t id = 0; id < names.size(); ++id)
      if (!available[id] && scope.find(id)) available[id] = true;
  const std::vector<size_t> order = topological_order(g, names, available, model_.path);
  const bool consuming = &g == releasable_;
  const std::vector<uint32_t> last_read = consuming ? last_reads(g, names, order) : std::vector<uint32_t>{};
  // Sixteen trims at most: each walks the allocator's free lists.
  const size_t trim_every = std::max<size_t>(512, order.size() / 16);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const size_t i = order[pos];
    const Node& node = g.nodes[i];
    run_node(node, names.inputs(i), names.outputs(i), scope, prefix.empty() ? node.name : result_.names.intern(prefix + node.name),
             g, depth);
    if (!consuming) continue;
    // A consuming run keeps what its report reads and no more. Nothing reads
    // a main-graph node once it ran (records hold pooled names), and nothing
    // reads a value's known elements once its last reader ran: the report
    // never prints them (swin_t's folded shape vectors and masks: 0.4 MB).
    releasable_->nodes.release(i);
    for (auto ids : {names.inputs(i), names.implicit_inputs(i)})
      for (uint32_t id : ids)
        if (id != ValueNumbering::kNone && last_read[id] == pos)
          if (Value* v = scope.local(id)) drop_known_elements(*v);
    if ((pos + 1) % trim_every == 0) release_free_pages();
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
  RunResult result;
  result.model_path = model.path;
  result.model_kind = "onnx";
  result.device = options.device;
  result.env = std::make_unique<ShapeEnv>(options.settings);
  result.borrowed_names.push_back(model.names);  // records point at the model's node and value names
  configure_shape_env(*result.env, options);
  const auto start = std::chrono::steady_clock::now();
  Interpreter interp(model, options, result, control);
  if (release_as_run) interp.release_nodes_as_run(*release_as_run);
  interp.run_main_graph();
  result.dispatch = interp.dispatch_stats();
  result.dispatch.entries = interp.cache_entries();
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
