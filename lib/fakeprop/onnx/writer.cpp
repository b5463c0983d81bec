#include "fakeprop/onnx/writer.h"

#include <deque>
#include <filesystem>
#include <unordered_map>

#include "fakeprop/util/mapped_file.h"
#include "fakeprop/onnx/wire.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop::onnx {

namespace {

using wire::Field;
using wire::Reader;
using wire::WireType;

constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphOutput = 12;
constexpr uint32_t kGraphValueInfo = 13;
constexpr uint32_t kValueInfoName = 1;
constexpr uint32_t kValueInfoType = 2;

// ValueInfoProto{name, type: TypeProto{tensor_type: {elem_type, shape}}},
// the tensor type inside TypeProto{sequence_type (4) / optional_type (9):
// {elem_type: TypeProto}} or TypeProto{map_type (5): {key_type, value_type:
// TypeProto}} for each wrapper.
std::string encode_value_info(const OutputValueInfo& info) {
  std::string tensor_type;
  if (info.elem_type != 0) {
    // int32 goes on the wire sign-extended to 64 bits.
    wire::append_varint_field(tensor_type, 1, static_cast<uint64_t>(static_cast<int64_t>(info.elem_type)));
  }
  if (info.shape) {
    std::string shape;
    for (const auto& dim : *info.shape) {
      std::string dimension;
      if (const auto* value = std::get_if<int64_t>(&dim)) {
        wire::append_varint_field(dimension, 1, static_cast<uint64_t>(*value));
      } else if (const std::string& param = std::get<std::string>(dim); !param.empty()) {
        wire::append_len_field(dimension, 2, param);
      }
      wire::append_len_field(shape, 1, dimension);
    }
    wire::append_len_field(tensor_type, 2, shape);
  }
  std::string type;
  wire::append_len_field(type, 1, tensor_type);
  for (auto w = info.wrappers.rbegin(); w != info.wrappers.rend(); ++w) {
    std::string wrapper, outer;
    if (*w == OutputValueInfo::Wrapper::Map) {
      wire::append_varint_field(wrapper, 1, static_cast<uint64_t>(static_cast<int64_t>(info.map_key_type)));
      wire::append_len_field(wrapper, 2, type);  // value_type = 2
      wire::append_len_field(outer, 5, wrapper);
    } else {
      wire::append_len_field(wrapper, 1, type);  // Sequence / Optional: elem_type = 1
      wire::append_len_field(outer, *w == OutputValueInfo::Wrapper::Sequence ? 4 : 9, wrapper);
    }
    type = std::move(outer);
  }
  std::string value_info;
  wire::append_len_field(value_info, 1, info.name);
  wire::append_len_field(value_info, 2, type);
  return value_info;
}

// The output as a list of byte ranges: most point into the input mapping,
// the rest into `owned` (new headers and value_info entries).
struct Pieces {
  std::vector<std::string_view> parts;
  std::deque<std::string> owned;  // deque: stable addresses; never moved or copied

  void add(std::string_view bytes) { parts.push_back(bytes); }
  void add_owned(std::string bytes) { parts.push_back(owned.emplace_back(std::move(bytes))); }
};

std::vector<Field> read_fields(std::string_view origin_file, std::string_view message) {
  std::vector<Field> fields;
  Reader reader(origin_file.data(), message);
  Field field;
  while (reader.next(field)) fields.push_back(field);
  return fields;
}

// The name of an encoded ValueInfoProto ("" when it has none).
std::string_view value_info_name(std::string_view file, std::string_view message) {
  std::string_view name;
  for (const Field& f : read_fields(file, message))
    if (f.number == kValueInfoName && f.type == WireType::Len) name = f.payload;
  return name;
}

bool value_info_has_type(std::string_view file, std::string_view message) {
  for (const Field& f : read_fields(file, message))
    if (f.number == kValueInfoType) return true;
  return false;
}

void assemble(std::string_view file, const std::vector<OutputValueInfo>& value_info, Pieces& out) {
  std::unordered_map<std::string_view, const OutputValueInfo*> annotated;
  for (const OutputValueInfo& info : value_info) annotated.emplace(info.name, &info);
  const std::vector<Field> top = read_fields(file, file);
  size_t last_graph = top.size();
  for (size_t i = 0; i < top.size(); ++i) {
    if (top[i].number == kModelGraph && top[i].type == WireType::Len) last_graph = i;
  }
  for (size_t i = 0; i < top.size(); ++i) {
    const Field& field = top[i];
    if (field.number != kModelGraph || field.type != WireType::Len) {
      out.add(field.encoded);
      continue;
    }
    // Protobuf merges repeated occurrences of the graph; the new entries go
    // into the last one. An old value_info entry goes only where a new one
    // replaces it: the written model never describes fewer values. A graph
    // output the model left untyped gets its type in place, as onnx's
    // inference fills it in; a typed one stays as declared unless it
    // contradicts the inferred type (replaces_declaration).
    std::vector<std::string_view> kept;
    uint64_t size = 0;
    for (const Field& graph_field : read_fields(file, field.payload)) {
      const bool value_info = graph_field.type == WireType::Len &&
                              (graph_field.number == kGraphValueInfo || graph_field.number == kGraphOutput);
      const auto it = value_info ? annotated.find(value_info_name(file, graph_field.payload)) : annotated.end();
      if (it != annotated.end() && graph_field.number == kGraphValueInfo) continue;
      if (it != annotated.end() && graph_field.number == kGraphOutput &&
          (it->second->replaces_declaration || !value_info_has_type(file, graph_field.payload))) {
        std::string entry;
        wire::append_len_field(entry, kGraphOutput, encode_value_info(*it->second));
        size += entry.size();
        kept.push_back(out.owned.emplace_back(std::move(entry)));
        continue;
      }
      kept.push_back(graph_field.encoded);
      size += graph_field.encoded.size();
    }
    std::vector<std::string> added;
    if (i == last_graph) {
      for (const OutputValueInfo& info : value_info) {
        std::string entry;
        wire::append_len_field(entry, kGraphValueInfo, encode_value_info(info));
        size += entry.size();
        added.push_back(std::move(entry));
      }
    }
    std::string header;
    wire::append_len_header(header, kModelGraph, size);
    out.add_owned(std::move(header));
    for (std::string_view part : kept) out.add(part);
    for (std::string& entry : added) out.add_owned(std::move(entry));
  }
}

}  // namespace

void write_annotated_model(const Model& model, const std::vector<OutputValueInfo>& value_info,
                           const std::string& out_path, std::span<const ProtectedFile> inputs) {
  std::vector<ProtectedFile> protected_files(inputs.begin(), inputs.end());
  protected_files.push_back({model.path, "the input model"});
  for (const std::string& data : model.external_files) protected_files.push_back({data, "the model's external data"});
  OutputFile out(out_path, protected_files);
  const std::shared_ptr<MappedFile> file = model.file ? model.file : MappedFile::open(model.path);
  Pieces pieces;
  try {
    assemble(file->bytes(), value_info, pieces);
  } catch (const wire::ParseError& e) {
    throw InputError(model.path + ": invalid ONNX protobuf: " + e.what() + " (at byte offset " +
                     std::to_string(e.offset()) + ")");
  }
  for (std::string_view part : pieces.parts) out.write(part);
  out.commit();
}

}  // namespace fakeprop::onnx
