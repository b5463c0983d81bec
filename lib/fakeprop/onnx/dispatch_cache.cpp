#include "fakeprop/onnx/dispatch_cache.h"

#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <unordered_map>

namespace fakeprop::onnx {

namespace {

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
// Counts and sizes as LEB128 varints: most are small, and fixed-width sizes
// made the keys a visible share of a large model's peak memory.
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

// Appends `a` to the key, or says why it cannot be keyed.
std::optional<BypassReason> put_attribute(std::string& k, const Attribute& a) {
  put_str(k, a.name);
  put<uint8_t>(k, static_cast<uint8_t>(a.type));
  switch (a.type) {
    case Attribute::Type::Float: put<float>(k, a.f); return std::nullopt;
    case Attribute::Type::Int: put_varint(k, zigzag(a.i)); return std::nullopt;
    case Attribute::Type::String: put_str(k, a.s); return std::nullopt;
    case Attribute::Type::Floats:
      put_varint(k, a.floats().size());
      put_raw(k, a.floats().data(), a.floats().size() * sizeof(float));
      return std::nullopt;
    case Attribute::Type::Ints:
      put_varint(k, a.ints.size());
      for (int64_t x : a.ints) put_varint(k, zigzag(x));
      return std::nullopt;
    case Attribute::Type::Strings:
      put_varint(k, a.strings().size());
      for (const auto& x : a.strings()) put_str(k, x);
      return std::nullopt;
    case Attribute::Type::Tensor: {
      if (!a.t) return BypassReason::LargeConstant;
      const TensorRef& t = *a.t;
      // External data and typed fields split into chunks are not keyed.
      if (t.storage == TensorRef::Storage::External || !t.typed_chunks.empty()) return BypassReason::LargeConstant;
      if (t.bytes.size() > kMaxKeyedTensorBytes) return BypassReason::LargeConstant;
      put<int32_t>(k, t.data_type);
      put_varint(k, t.dims.size());
      for (int64_t x : t.dims) put_varint(k, zigzag(x));
      put<uint8_t>(k, static_cast<uint8_t>(t.storage));
      put<int32_t>(k, t.typed_field);
      put<bool>(k, t.typed_packed);
      put_str(k, t.bytes);
      return std::nullopt;
    }
    default:
      return BypassReason::GraphAttribute;  // graphs, sparse tensors, type protos
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


// Where a cached output's storage id comes from on a hit.
struct CachedOutput {
  enum class Storage : uint8_t { None, Fresh, OfInput } storage = Storage::None;
  Value value;
  int64_t index = 0;  // Fresh: offset from the rule's first id; OfInput: the input
};

struct CacheEntry {
  std::vector<CachedOutput> outputs;
  int64_t storage_consumed = 0;  // ids the rule took (kept so numbering matches an uncached run)
};

}  // namespace

struct DispatchCache::State {
  EnvFingerprint fp;  // the state every entry was computed under
  std::unordered_map<std::string, CacheEntry> entries;
};

bool dispatch_cache_enabled_by_environment() {
  const char* v = std::getenv("FAKEPROP_DISPATCH_CACHE");
  return !(v && (std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0));
}

std::string_view bypass_reason_name(BypassReason r) {
  switch (r) {
    case BypassReason::AttributeReference: return "attribute_reference";
    case BypassReason::GraphAttribute: return "graph_attribute";
    case BypassReason::LargeConstant: return "large_constant";
    case BypassReason::SequenceOrOptional: return "sequence_or_optional";
    case BypassReason::kCount: break;
  }
  return "?";
}

DispatchCache::DispatchCache(FindInitializer find, InitializerData data)
    : find_initializer_(std::move(find)), initializer_data_(std::move(data)), state_(std::make_unique<State>()) {
  stats_.enabled = true;
  for (size_t r = 0; r < static_cast<size_t>(BypassReason::kCount); ++r)
    stats_.bypass_reasons.emplace_back(bypass_reason_name(static_cast<BypassReason>(r)), 0);
}

DispatchCache::~DispatchCache() = default;

size_t DispatchCache::entries() const { return state_->entries.size(); }

std::optional<BypassReason> DispatchCache::make_key(const Node& node, std::string_view domain, int64_t opset,
                                                    std::span<const Value* const> inputs) {
  std::string& key = key_;
  key.clear();
  put_str(key, domain);
  put_str(key, node.op_type);
  put_varint(key, static_cast<uint64_t>(opset));
  put_varint(key, node.outputs.size());
  for (const auto& o : node.outputs) put<bool>(key, o.empty());
  put_varint(key, node.attributes.size());
  for (const auto& a : node.attributes) {
    if (!a.ref_attr_name().empty()) return BypassReason::AttributeReference;
    if (auto why = put_attribute(key, a)) return why;
  }
  put_varint(key, inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = inputs[i];
    if (!v) {
      put<char>(key, node.inputs[i].empty() ? '-' : '?');
      continue;
    }
    if (v->maybe_none || v->list_length) return BypassReason::SequenceOrOptional;
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
        // large one (a weight) by the initializer itself: decoding every
        // weight to key it costs more than the rules.
        const TensorRef* init = t.data ? nullptr : find_initializer_(node.inputs[i]);
        if (!init) {
          put_data(key, t.data ? &*t.data : nullptr);
        } else if (init->numel() <= kMaxKeyedInitializerElements) {
          put_data(key, initializer_data_(node.inputs[i]));
        } else {
          put<char>(key, 'i');
          put<const void*>(key, init);
        }
        if (t.float_exprs) {
          put<char>(key, 'x');
          put_varint(key, t.float_exprs->size());
          for (ExprRef e : *t.float_exprs) put_varint(key, e->id());
        }
        break;
      }
      default:
        return BypassReason::SequenceOrOptional;  // sequences and opaque values
    }
  }
  return std::nullopt;
}

void DispatchCache::give_back(std::string&& key) {
  // A node over a large folded index tensor (a ScatterND) has a huge key: do
  // not hold the largest key's buffer for the rest of the run.
  if (key.capacity() <= kKeptKeyBufferBytes) key_ = std::move(key);
}

DispatchCache::Visit DispatchCache::lookup(const Node& node, std::string_view domain, int64_t opset,
                                           std::span<const Value* const> inputs, const ShapeEnv& env,
                                           StorageIds& storage, std::vector<Value>& outputs) {
  Visit v;
  v.before = fingerprint(env);
  if (!(state_->fp == v.before)) {  // the state moved on: old entries can never hit again
    state_->entries.clear();
    state_->fp = v.before;
  }
  if (auto why = make_key(node, domain, opset, inputs)) {
    ++stats_.bypasses;
    ++stats_.bypass_reasons[static_cast<size_t>(*why)].second;
    return v;
  }
  v.cacheable = true;
  auto hit = state_->entries.find(key_);
  if (hit == state_->entries.end()) {
    ++stats_.misses;
    v.storage_before = peek_storage(storage);
    v.key = std::move(key_);
    return v;
  }
  ++stats_.hits;
  v.hit = true;
  const int64_t first = peek_storage(storage);
  for (int64_t n = 0; n < hit->second.storage_consumed; ++n) storage.next();
  outputs.reserve(hit->second.outputs.size());
  for (const CachedOutput& c : hit->second.outputs) {
    if (c.storage == CachedOutput::Storage::None) {
      outputs.push_back(c.value);
      continue;
    }
    TensorValue tv = *c.value.tensor;
    tv.meta.storage = c.storage == CachedOutput::Storage::Fresh
                          ? first + c.index
                          : inputs[static_cast<size_t>(c.index)]->tensor->meta.storage;
    outputs.push_back(Value::of_tensor(std::move(tv)));
  }
  return v;
}

void DispatchCache::failed(Visit& v) {
  if (!v.cacheable || v.hit) return;
  ++stats_.not_stored;
  give_back(std::move(v.key));
}

void DispatchCache::store(Visit& v, std::span<const Value* const> inputs, const std::vector<Value>& outputs,
                          bool clean, const ShapeEnv& env, const StorageIds& storage) {
  if (!v.cacheable || v.hit) return;
  const int64_t after_storage = peek_storage(storage);
  CacheEntry entry;
  entry.storage_consumed = after_storage - v.storage_before;
  bool keep = clean && fingerprint(env) == v.before;
  for (size_t k = 0; keep && k < outputs.size(); ++k) {
    const Value& out = outputs[k];
    CachedOutput c;
    c.value = out;
    if (out.kind == Value::Kind::List || out.kind == Value::Kind::Map || out.kind == Value::Kind::Opaque ||
        out.maybe_none || out.list_length) {
      keep = false;
    } else if (out.is_tensor()) {
      const int64_t id = out.tensor->meta.storage;
      if (id >= v.storage_before && id < after_storage) {
        c.storage = CachedOutput::Storage::Fresh;
        c.index = id - v.storage_before;
      } else {
        for (size_t i = 0; i < inputs.size(); ++i)
          if (inputs[i] && inputs[i]->is_tensor() && inputs[i]->tensor->meta.storage == id) {
            c.storage = CachedOutput::Storage::OfInput;
            c.index = static_cast<int64_t>(i);
            break;
          }
        if (c.storage == CachedOutput::Storage::None) keep = false;  // a storage from elsewhere
      }
    }
    entry.outputs.push_back(std::move(c));
  }
  if (keep)
    state_->entries.emplace(v.key, std::move(entry));
  else
    ++stats_.not_stored;
  give_back(std::move(v.key));
}

}  // namespace fakeprop::onnx
