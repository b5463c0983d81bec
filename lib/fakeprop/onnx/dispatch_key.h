// The ONNX interpreter's key for the shared dispatch cache
// (runner/dispatch_cache.h): operator, opset, attributes and inputs, with
// small initializers keyed by the elements rules would read from them, or
// the reason a node bypasses the cache.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "fakeprop/onnx/model.h"
#include "fakeprop/runner/dispatch_cache.h"

namespace fakeprop::onnx {

// Why a node was not looked up (counted per reason in --stats).
enum class BypassReason : uint8_t {
  AttributeReference,  // an attribute of a function body refers to the call's
  GraphAttribute,      // If / Loop / Scan bodies, sparse tensors, type protos
  LargeConstant,       // a tensor attribute over the keyed size, external or chunked
  SequenceOrOptional,  // an input that is a sequence, an optional or opaque
  kCount,
};
std::string_view bypass_reason_name(BypassReason r);
// Every reason's name, by index, for DispatchCache's constructor.
std::vector<std::string_view> bypass_reason_names();

// What the key reads from initializers: the initializer named `name` (null
// when there is none), and its known elements (null when not decodable).
struct InitializerLookup {
  std::function<const TensorRef*(std::string_view name)> find;
  std::function<const KnownData*(std::string_view name)> data;
};

// Writes the node's key into `key` (cleared first), or says why the node is
// not keyed.
std::optional<BypassReason> write_dispatch_key(CacheKey& key, const Node& node, std::string_view domain, int64_t opset,
                                               std::span<const Value* const> inputs, const InitializerLookup& init);

}  // namespace fakeprop::onnx
