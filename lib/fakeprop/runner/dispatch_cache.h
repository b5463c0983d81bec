// The dispatch cache every front end shares, as FakeTensor's: a rule run for
// the same operator, arguments and input metadata under the same ShapeEnv
// state gives the same outputs, up to fresh storage ids, so a hit reuses
// them. A front end writes the key (its operator, attributes or literal
// arguments, and CacheKey's encoding of the input values: fake_tensor.py's
// _cache_key) or names the reason the node bypasses the cache
// (_BypassDispatchCache); the lookup, the store and the storage replay live
// here. Only runs that left the ShapeEnv untouched (no guard, assert,
// specialization, replacement or symbol) and noted no lost precision are
// stored, so every guard keeps the node that caused it and a run with the
// cache reports exactly what a run without it reports.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

// On unless FAKEPROP_DISPATCH_CACHE=0 (or off) is set.
bool dispatch_cache_enabled_by_environment();

// A key under construction: bytes that tell two rule runs apart.
class CacheKey {
 public:
  void clear() { bytes_.clear(); }
  const std::string& bytes() const { return bytes_; }
  std::string& buffer() { return bytes_; }

  template <class T>
  void raw(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void raw_bytes(const void* p, size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  void tag(char c) { bytes_.push_back(c); }
  void count(uint64_t v);   // a LEB128 varint: most counts and sizes are small
  void integer(int64_t v);  // zigzag, then as count()
  void str(std::string_view s);
  void sym(const SymInt& v);
  void sym(const SymBool& v);
  void meta(const TensorMeta& m);  // everything but the storage id
  void data(const KnownData* d);   // null: no known elements
  // A value as rules read it: kind, tensor metadata, known elements, float
  // expressions, list elements. False for what cannot be keyed (a sequence
  // template, an optional that may be empty, an opaque value or a map).
  bool value(const Value& v);

 private:
  std::string bytes_;
};

// The ShapeEnv's observable state: every decision that is not statically
// known adds a guard, a runtime assert, a specialization or a replacement,
// and every new symbol grows the symbol table; ranges and facts only change
// along with one of these.
struct EnvFingerprint {
  size_t guards = 0, asserts = 0, specializations = 0, replacements = 0, symbols = 0;
  bool operator==(const EnvFingerprint&) const = default;
};

class DispatchCache {
 public:
  // `bypass_reasons`: the names --stats counts bypasses under, by index.
  explicit DispatchCache(std::vector<std::string_view> bypass_reasons);
  ~DispatchCache();
  DispatchCache(const DispatchCache&) = delete;
  DispatchCache& operator=(const DispatchCache&) = delete;

  // The key of the next lookup, filled by the front end.
  CacheKey& key() { return key_; }

  // One node's visit: lookup() finds the key and, on a hit, fills the
  // outputs; after a miss the rule runs and store() keeps its outputs when
  // allowed.
  struct Visit {
    bool cacheable = false;
    bool hit = false;
    EnvFingerprint before;
    int64_t storage_before = 0;
    std::string key;  // taken from the reused buffer: a rule may run a subgraph's nodes before store()
  };
  // A node that is not keyed, for the reason of index `reason`.
  Visit bypass(size_t reason);
  // Looks up key(). `inputs` are the values whose storages outputs may share
  // (an output that is a view of input i gets input i's storage on a hit).
  Visit lookup(std::span<const Value* const> inputs, const ShapeEnv& env, StorageIds& storage,
               std::vector<Value>& outputs);
  // After the rule ran on a miss: stores `outputs` unless the rule touched the
  // ShapeEnv, noted lost precision (`clean` false) or returned values that
  // cannot be replayed (opaque values, maps, storages from elsewhere).
  void store(Visit& v, std::span<const Value* const> inputs, std::span<const Value> outputs, bool clean,
             const ShapeEnv& env, const StorageIds& storage);
  // A miss whose rule threw.
  void failed(Visit& v);

  // The counters, with the entries alive now.
  DispatchStats stats() const;

 private:
  struct State;
  void give_back(std::string&& key);
  std::unique_ptr<State> state_;
  CacheKey key_;  // the key buffer, reused from node to node
  DispatchStats stats_;
};

}  // namespace fakeprop
