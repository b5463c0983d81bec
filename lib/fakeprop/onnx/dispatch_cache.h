// The ONNX interpreter's dispatch cache, as FakeTensor's: a rule run for the
// same operator, attributes and input metadata under the same ShapeEnv state
// gives the same outputs, up to fresh storage ids, so a hit reuses them. The
// key (fake_tensor.py's _cache_key), the lookup, the store and the reasons a
// node bypasses the cache (_BypassDispatchCache) live here; the interpreter
// only asks. Only runs that left the ShapeEnv untouched (no guard, assert,
// specialization, replacement or symbol) and noted no lost precision are
// stored, so every guard keeps the node that caused it and a run with the
// cache reports exactly what a run without it reports.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/onnx/model.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop::onnx {

// On unless FAKEPROP_DISPATCH_CACHE=0 (or off) is set.
bool dispatch_cache_enabled_by_environment();

// Why a node was not looked up (counted per reason in --stats).
enum class BypassReason : uint8_t {
  AttributeReference,  // an attribute of a function body refers to the call's
  GraphAttribute,      // If / Loop / Scan bodies, sparse tensors, type protos
  LargeConstant,       // a tensor attribute over the keyed size, external or chunked
  SequenceOrOptional,  // an input that is a sequence, an optional or opaque
  kCount,
};
std::string_view bypass_reason_name(BypassReason r);

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
  // Known elements of the initializer named `name` (null when not decodable),
  // for keying small initializers by what rules would read from them.
  using InitializerData = std::function<const KnownData*(std::string_view name)>;
  // The initializer named `name`, or null.
  using FindInitializer = std::function<const TensorRef*(std::string_view name)>;

  DispatchCache(FindInitializer find, InitializerData data);
  ~DispatchCache();

  // One node's visit: lookup() keys it and, on a hit, fills the outputs;
  // after a miss the rule runs and store() keeps its outputs when allowed.
  struct Visit {
    bool cacheable = false;
    bool hit = false;
    EnvFingerprint before;
    int64_t storage_before = 0;
    std::string key;  // taken from the reused buffer: a rule may run a subgraph's nodes before store()
  };
  Visit lookup(const Node& node, std::string_view domain, int64_t opset, std::span<const Value* const> inputs,
               const ShapeEnv& env, StorageIds& storage, std::vector<Value>& outputs);
  // After the rule ran on a miss: stores `outputs` unless the rule touched the
  // ShapeEnv, noted lost precision (`clean` false) or returned values that
  // cannot be replayed (lists, opaque values, storages from elsewhere).
  void store(Visit& v, std::span<const Value* const> inputs, const std::vector<Value>& outputs, bool clean,
             const ShapeEnv& env, const StorageIds& storage);
  // A miss whose rule threw.
  void failed(Visit& v);

  const DispatchStats& stats() const { return stats_; }
  size_t entries() const;

 private:
  struct State;
  // The key of a rule run, or the reason the node is not keyed.
  std::optional<BypassReason> make_key(const Node& node, std::string_view domain, int64_t opset,
                                       std::span<const Value* const> inputs);
  FindInitializer find_initializer_;
  InitializerData initializer_data_;
  std::unique_ptr<State> state_;
  void give_back(std::string&& key);
  std::string key_;  // the key buffer, reused from node to node
  DispatchStats stats_;
};

}  // namespace fakeprop::onnx
