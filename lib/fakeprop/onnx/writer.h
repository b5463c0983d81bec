// Writing the annotated model: the input file's bytes passed through
// unchanged (weights included), with the graph's value_info replaced by one
// entry per value. Written atomically (temporary file, then rename).
#pragma once
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "fakeprop/onnx/model.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop::onnx {

// One value's type: a tensor (elem_type, shape), inside the sequence,
// optional and map types of `wrappers`, outermost first ({Optional, Sequence}
// is optional(seq(tensor)); {Sequence, Map} is seq(map(map_key_type, tensor))).
struct OutputValueInfo {
  enum class Wrapper : uint8_t { Sequence, Optional, Map };
  std::string name;
  int32_t elem_type = 0;  // TensorProto.DataType; 0 unknown
  // nullopt: rank unknown. A dim is its size or its dim_param text; an empty
  // text is a dim of unknown size.
  std::optional<std::vector<std::variant<int64_t, std::string>>> shape;
  std::vector<Wrapper> wrappers = {};
  int32_t map_key_type = 0;  // TensorProto.DataType of a Map wrapper's keys
  // A graph output whose declared type contradicts this one: the declaration
  // is replaced (a graph output the model left untyped always gets this type).
  bool replaces_declaration = false;
};

// Writes the model with `value_info` as its main graph's value_info: each
// entry replaces the model's own entry of that name, the model's other
// entries stay, written through an OutputFile (util/output_file.h) that
// refuses the model, its external data and `inputs` as targets. Throws
// InputError when out_path is refused or cannot be written.
void write_annotated_model(const Model& model, const std::vector<OutputValueInfo>& value_info,
                           const std::string& out_path, std::span<const ProtectedFile> inputs = {});

}  // namespace fakeprop::onnx
