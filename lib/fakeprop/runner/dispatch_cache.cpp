#include "fakeprop/runner/dispatch_cache.h"

#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace fakeprop {

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

uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }

// The key buffer reused from node to node is dropped after a key longer than this.
constexpr size_t kKeptKeyBufferBytes = 16 * 1024;

// What a cached output becomes on a hit: the value itself, or a tensor whose
// storage id is replayed, or a list of such outputs.
struct CachedOutput {
  enum class Storage : uint8_t { None, Fresh, OfInput } storage = Storage::None;
  Value value;
  int64_t index = 0;  // Fresh: offset from the rule's first id; OfInput: the input
  std::vector<CachedOutput> elements;  // a list whose elements hold tensors
};

struct CacheEntry {
  std::vector<CachedOutput> outputs;
  int64_t storage_consumed = 0;  // ids the rule took (kept so numbering matches an uncached run)
};

// How `out` replays; false when it cannot (an opaque value, a map, a template
// sequence, a storage that is neither fresh nor an input's).
bool describe(const Value& out, std::span<const Value* const> inputs, int64_t first, int64_t after, CachedOutput& c) {
  c.value = out;
  if (out.maybe_none || out.list_length || out.kind == Value::Kind::Opaque || out.kind == Value::Kind::Map)
    return false;
  if (out.kind == Value::Kind::List) {
    bool any_tensor = false;
    for (const Value& x : *out.list) any_tensor |= x.is_tensor() || x.kind == Value::Kind::List;
    if (!any_tensor) return true;
    c.elements.resize(out.list->size());
    for (size_t i = 0; i < out.list->size(); ++i)
      if (!describe((*out.list)[i], inputs, first, after, c.elements[i])) return false;
    return true;
  }
  if (!out.is_tensor()) return true;
  const int64_t id = out.tensor->meta.storage;
  if (id >= first && id < after) {
    c.storage = CachedOutput::Storage::Fresh;
    c.index = id - first;
    return true;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] && inputs[i]->is_tensor() && inputs[i]->tensor->meta.storage == id) {
      c.storage = CachedOutput::Storage::OfInput;
      c.index = static_cast<int64_t>(i);
      return true;
    }
  return false;
}

Value replay(const CachedOutput& c, std::span<const Value* const> inputs, int64_t first) {
  if (!c.elements.empty()) {
    ValueList xs;
    xs.reserve(c.elements.size());
    for (const CachedOutput& e : c.elements) xs.push_back(replay(e, inputs, first));
    return Value::of_list(std::move(xs));
  }
  if (c.storage == CachedOutput::Storage::None) return c.value;
  TensorValue tv = *c.value.tensor;
  tv.meta.storage = c.storage == CachedOutput::Storage::Fresh ? first + c.index
                                                              : inputs[static_cast<size_t>(c.index)]->tensor->meta.storage;
  return Value::of_tensor(std::move(tv));
}

}  // namespace

bool dispatch_cache_enabled_by_environment() {
  const char* v = std::getenv("FAKEPROP_DISPATCH_CACHE");
  return !(v && (std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0));
}

// ---------------------------------------------------------------- CacheKey

void CacheKey::count(uint64_t v) {
  for (; v >= 0x80; v >>= 7) bytes_.push_back(static_cast<char>(v | 0x80));
  bytes_.push_back(static_cast<char>(v));
}

void CacheKey::integer(int64_t v) { count(zigzag(v)); }

void CacheKey::str(std::string_view s) {
  count(s.size());
  bytes_.append(s);
}

// A static value below 2^61 in magnitude as its zigzag code with a clear low
// bit; anything else as its interned expression's id with the low bit set
// (interned nodes are never freed, so the id identifies them; a static value
// out of that range has the id of its Integer node).
void CacheKey::sym(const SymInt& v) {
  constexpr int64_t kInline = int64_t{1} << 61;
  if (v.is_static() && v.value() > -kInline && v.value() < kInline)
    count(zigzag(v.value()) << 1);
  else
    count((v.expr()->id() << 1) | 1);
}

void CacheKey::sym(const SymBool& v) {
  if (v.is_static())
    count(v.value() ? 2 : 0);
  else
    count((v.expr()->id() << 1) | 1);
}

void CacheKey::meta(const TensorMeta& m) {
  raw<uint8_t>(static_cast<uint8_t>(m.dtype));
  raw<uint8_t>(static_cast<uint8_t>(m.device.type));
  raw<int32_t>(m.device.index);
  raw<bool>(m.requires_grad);
  raw<bool>(m.is_leaf);
  count(m.sizes.size());
  for (const SymInt& d : m.sizes) sym(d);
  count(m.strides.size());
  for (const SymInt& d : m.strides) sym(d);
  sym(m.storage_offset);
}

void CacheKey::data(const KnownData* d) {
  if (!d) {
    tag('n');
    return;
  }
  tag(d->is_float ? 'f' : 'd');
  count(d->size());
  if (d->is_float)
    raw_bytes(d->floats.data(), d->floats.size() * sizeof(double));
  else
    for (const SymInt& x : d->ints) sym(x);
}

bool CacheKey::value(const Value& v) {
  if (v.maybe_none || v.list_length) return false;
  raw<uint8_t>(static_cast<uint8_t>(v.kind) | (v.optional ? 0x80 : 0));
  switch (v.kind) {
    case Value::Kind::None: return true;
    case Value::Kind::Int: sym(v.i); return true;
    case Value::Kind::Bool: sym(v.b); return true;
    case Value::Kind::Float:
      if (v.float_expr) {
        tag('x');
        count(v.float_expr->id());
      } else {
        raw<double>(v.f);
      }
      return true;
    case Value::Kind::Tensor: {
      const TensorValue& t = *v.tensor;
      meta(t.meta);
      data(t.data ? &*t.data : nullptr);
      if (t.float_exprs) {
        tag('x');
        count(t.float_exprs->size());
        for (ExprRef e : *t.float_exprs) count(e->id());
      }
      if (t.real) {  // a rule passing an input through (clone) carries its real elements along
        tag('r');
        data(&*t.real);
      }
      return true;
    }
    case Value::Kind::List:
      count(v.list->size());
      for (const Value& x : *v.list)
        if (!value(x)) return false;
      return true;
    default: return false;  // opaque values and maps
  }
}

// ---------------------------------------------------------------- DispatchCache

struct DispatchCache::State {
  EnvFingerprint fp;  // the state every entry was computed under
  std::unordered_map<std::string, CacheEntry> entries;
};

DispatchCache::DispatchCache(std::vector<std::string_view> bypass_reasons) : state_(std::make_unique<State>()) {
  stats_.enabled = true;
  for (std::string_view r : bypass_reasons) stats_.bypass_reasons.emplace_back(r, 0);
}

DispatchCache::~DispatchCache() = default;

DispatchStats DispatchCache::stats() const {
  DispatchStats s = stats_;
  s.entries = state_->entries.size();
  return s;
}

DispatchCache::Visit DispatchCache::bypass(size_t reason) {
  ++stats_.bypasses;
  if (reason < stats_.bypass_reasons.size()) ++stats_.bypass_reasons[reason].second;
  return {};
}

DispatchCache::Visit DispatchCache::lookup(std::span<const Value* const> inputs, const ShapeEnv& env,
                                           StorageIds& storage, std::vector<Value>& outputs) {
  Visit v;
  v.before = fingerprint(env);
  if (!(state_->fp == v.before)) {  // the state moved on: old entries can never hit again
    state_->entries.clear();
    state_->fp = v.before;
  }
  v.cacheable = true;
  auto hit = state_->entries.find(key_.bytes());
  if (hit == state_->entries.end()) {
    ++stats_.misses;
    v.storage_before = peek_storage(storage);
    v.key = std::move(key_.buffer());
    return v;
  }
  ++stats_.hits;
  v.hit = true;
  const int64_t first = peek_storage(storage);
  for (int64_t n = 0; n < hit->second.storage_consumed; ++n) storage.next();
  outputs.reserve(outputs.size() + hit->second.outputs.size());
  for (const CachedOutput& c : hit->second.outputs) outputs.push_back(replay(c, inputs, first));
  return v;
}

void DispatchCache::give_back(std::string&& key) {
  // A node over a large folded index tensor (a ScatterND) has a huge key: do
  // not hold the largest key's buffer for the rest of the run.
  if (key.capacity() <= kKeptKeyBufferBytes) key_.buffer() = std::move(key);
}

void DispatchCache::failed(Visit& v) {
  if (!v.cacheable || v.hit) return;
  ++stats_.not_stored;
  give_back(std::move(v.key));
}

void DispatchCache::store(Visit& v, std::span<const Value* const> inputs, std::span<const Value> outputs, bool clean,
                          const ShapeEnv& env, const StorageIds& storage) {
  if (!v.cacheable || v.hit) return;
  const int64_t after_storage = peek_storage(storage);
  CacheEntry entry;
  entry.storage_consumed = after_storage - v.storage_before;
  bool keep = clean && fingerprint(env) == v.before;
  entry.outputs.resize(keep ? outputs.size() : 0);
  for (size_t k = 0; keep && k < outputs.size(); ++k)
    keep = describe(outputs[k], inputs, v.storage_before, after_storage, entry.outputs[k]);
  if (keep)
    state_->entries.emplace(v.key, std::move(entry));
  else
    ++stats_.not_stored;
  give_back(std::move(v.key));
}

}  // namespace fakeprop
