// What a node's rule was given, as the sizing analyses read it: the
// arguments in their schema's order, an FX call's keyword arguments, and an
// ONNX node's attributes as text. Front ends fill it (NodeStep::arguments).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeprop/value/value.h"

namespace fakeprop {

struct NodeArguments {
  std::span<const Value* const> args;  // null where an optional ONNX input is absent
  std::span<const std::pair<std::string_view, const Value*>> kwargs;
  // An ONNX attribute's value as text (an int in decimal, a string as is);
  // nullopt when absent. Unset for FX calls. A plain function of
  // `attribute_source`: nodes run by the million, and most never ask.
  std::optional<std::string> (*attribute_of)(const void* source, std::string_view name) = nullptr;
  const void* attribute_source = nullptr;
  std::optional<std::string> attribute(std::string_view name) const {
    return attribute_of ? attribute_of(attribute_source, name) : std::nullopt;
  }
  bool has_attributes() const { return attribute_of != nullptr; }

  // The argument at `position`, or the keyword argument `name`; null when neither is given.
  const Value* get(size_t position, std::string_view name = {}) const;
};

// The storage ids of the tensors among the arguments (inside lists too),
// each once, appended to `out`.
void append_read_storages(const NodeArguments& in, std::vector<int64_t>& out);

}  // namespace fakeprop
