#include "fakeprop/onnx/dispatch_key.h"

namespace fakeprop::onnx {

namespace {

// Initializers up to this many elements are keyed by their elements, larger
// ones by identity.
constexpr int64_t kMaxKeyedInitializerElements = 512;
constexpr int64_t kMaxKeyedFloatInitializerElements = 16;

// Constant tensors in attributes up to this size are part of the key; larger
// ones make the node uncacheable (hashing them would cost more than the rule).
constexpr size_t kMaxKeyedTensorBytes = 4096;

// Appends `a` to the key, or says why it cannot be keyed.
std::optional<BypassReason> put_attribute(CacheKey& k, const Attribute& a) {
  k.str(a.name);
  k.raw<uint8_t>(static_cast<uint8_t>(a.type));
  switch (a.type) {
    case Attribute::Type::Float: k.raw<float>(a.f); return std::nullopt;
    case Attribute::Type::Int: k.integer(a.i); return std::nullopt;
    case Attribute::Type::String: k.str(a.s); return std::nullopt;
    case Attribute::Type::Floats:
      k.count(a.floats().size());
      k.raw_bytes(a.floats().data(), a.floats().size() * sizeof(float));
      return std::nullopt;
    case Attribute::Type::Ints:
      k.count(a.ints.size());
      for (int64_t x : a.ints) k.integer(x);
      return std::nullopt;
    case Attribute::Type::Strings:
      k.count(a.strings().size());
      for (const auto& x : a.strings()) k.str(x);
      return std::nullopt;
    case Attribute::Type::Tensor: {
      if (!a.t) return BypassReason::LargeConstant;
      const TensorRef& t = *a.t;
      // External data and typed fields split into chunks are not keyed.
      if (t.storage == TensorRef::Storage::External || !t.typed_chunks.empty()) return BypassReason::LargeConstant;
      if (t.bytes.size() > kMaxKeyedTensorBytes) return BypassReason::LargeConstant;
      k.raw<int32_t>(t.data_type);
      k.count(t.dims.size());
      for (int64_t x : t.dims) k.integer(x);
      k.raw<uint8_t>(static_cast<uint8_t>(t.storage));
      k.raw<int32_t>(t.typed_field);
      k.raw<bool>(t.typed_packed);
      k.str(t.bytes);
      return std::nullopt;
    }
    default:
      return BypassReason::GraphAttribute;  // graphs, sparse tensors, type protos
  }
}

}  // namespace

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

std::vector<std::string_view> bypass_reason_names() {
  std::vector<std::string_view> names;
  for (size_t r = 0; r < static_cast<size_t>(BypassReason::kCount); ++r)
    names.push_back(bypass_reason_name(static_cast<BypassReason>(r)));
  return names;
}

std::optional<BypassReason> write_dispatch_key(CacheKey& key, const Node& node, std::string_view domain, int64_t opset,
                                               std::span<const Value* const> inputs, const InitializerLookup& init) {
  key.clear();
  key.str(domain);
  key.str(node.op_type);
  key.count(static_cast<uint64_t>(opset));
  key.count(node.outputs.size());
  for (const auto& o : node.outputs) key.raw<bool>(o.empty());
  key.count(node.attributes.size());
  for (const auto& a : node.attributes) {
    if (!a.ref_attr_name().empty()) return BypassReason::AttributeReference;
    if (auto why = put_attribute(key, a)) return why;
  }
  key.count(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = inputs[i];
    if (!v) {
      key.tag(node.inputs[i].empty() ? '-' : '?');
      continue;
    }
    if (v->maybe_none || v->list_length) return BypassReason::SequenceOrOptional;
    switch (v->kind) {
      case Value::Kind::None:
      case Value::Kind::Int:
      case Value::Kind::Bool:
      case Value::Kind::Float: key.value(*v); break;
      case Value::Kind::Tensor: {
        key.raw<uint8_t>(static_cast<uint8_t>(v->kind));
        const TensorValue& t = *v->tensor;
        key.meta(t.meta);
        // Rules read an initializer's elements by the input's name when the
        // value carries none (OpContext::ints): key what they would read. A
        // small one (a shape constant, repeated per block) by its elements; a
        // large one (a weight) by the initializer itself: decoding every
        // weight to key it costs more than the rules. Float elements matter to
        // rules only in a few scales and sizes, so past those a float one is
        // keyed by itself too.
        const TensorRef* found = t.data ? nullptr : init.find(node.inputs[i]);
        if (!found) {
          key.data(t.data ? &*t.data : nullptr);
        } else if (found->numel() <= (is_floating(found->dtype()) ? kMaxKeyedFloatInitializerElements
                                                                   : kMaxKeyedInitializerElements)) {
          key.data(init.data(node.inputs[i]));
        } else {
          key.tag('i');
          key.raw<const void*>(found);
        }
        if (t.float_exprs) {
          key.tag('x');
          key.count(t.float_exprs->size());
          for (ExprRef e : *t.float_exprs) key.count(e->id());
        }
        break;
      }
      default:
        return BypassReason::SequenceOrOptional;  // sequences and opaque values
    }
  }
  return std::nullopt;
}

}  // namespace fakeprop::onnx
