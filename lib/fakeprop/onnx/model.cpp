#include "fakeprop/onnx/model.h"

#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <unordered_set>
#include <utility>

#include "fakeprop/util/mapped_file.h"
#include "fakeprop/onnx/wire.h"
#include "fakeprop/util/byte_arena.h"
#include "fakeprop/util/string_ids.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/input_file.h"
#include "fakeprop/util/utf8.h"

namespace fakeprop::onnx {

namespace {

using wire::Field;
using wire::ParseError;
using wire::Reader;
using wire::WireType;

// The newest IR the reader knows (onnx 1.23 writes 14 by default). IR 12-14
// only add element types; a tensor of a type fakeprop has no dtype for is
// an error on that value, not on the model.
constexpr int64_t kMaxIrVersion = 14;
// Graphs nest through attributes and types through sequence/optional/map;
// real models stay far below this.
constexpr int kMaxNesting = 64;

// TensorProto.DataType codes.
enum : int32_t {
  kFloat = 1, kUInt8 = 2, kInt8 = 3, kUInt16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7, kString = 8, kBool = 9,
  kFloat16 = 10, kDouble = 11, kUInt32 = 12, kUInt64 = 13, kComplex64 = 14, kComplex128 = 15, kBFloat16 = 16,
  kFloat8E4M3FN = 17, kFloat8E4M3FNUZ = 18, kFloat8E5M2 = 19, kFloat8E5M2FNUZ = 20, kUInt4 = 21, kInt4 = 22,
  kFloat4E2M1 = 23, kFloat8E8M0 = 24, kUInt2 = 25, kInt2 = 26,
};

// TensorProto typed fields.
enum : int { kFloatData = 4, kInt32Data = 5, kStringData = 6, kInt64Data = 7, kDoubleData = 10, kUInt64Data = 11 };

const char* typed_field_name(int number) {
  switch (number) {
    case kFloatData: return "float_data";
    case kInt32Data: return "int32_data";
    case kStringData: return "string_data";
    case kInt64Data: return "int64_data";
    case kDoubleData: return "double_data";
    case kUInt64Data: return "uint64_data";
    default: return "an unknown field";
  }
}

std::string normalize_domain(std::string domain) { return domain == "ai.onnx" ? std::string() : domain; }

// ---------------------------------------------------------------- decoding

// How a data type's elements are laid out.
struct ElementLayout {
  int typed_field = 0;      // which typed field carries it
  int bits = 0;             // in raw_data
  bool is_float = false;    // decodes to doubles
  bool is_integer = false;  // decodes to int64s (bool included)
};

std::optional<ElementLayout> element_layout(int32_t data_type) {
  switch (data_type) {
    case kBool: case kUInt8: case kInt8: return ElementLayout{kInt32Data, 8, false, true};
    case kUInt16: case kInt16: return ElementLayout{kInt32Data, 16, false, true};
    case kInt32: return ElementLayout{kInt32Data, 32, false, true};
    case kUInt32: return ElementLayout{kUInt64Data, 32, false, true};
    case kInt64: return ElementLayout{kInt64Data, 64, false, true};
    case kUInt64: return ElementLayout{kUInt64Data, 64, false, true};
    case kUInt4: case kInt4: return ElementLayout{kInt32Data, 4, false, true};
    case kUInt2: case kInt2: return ElementLayout{kInt32Data, 2, false, true};
    case kFloat: return ElementLayout{kFloatData, 32, true, false};
    case kDouble: return ElementLayout{kDoubleData, 64, true, false};
    case kFloat16: case kBFloat16: return ElementLayout{kInt32Data, 16, true, false};
    case kFloat8E4M3FN: case kFloat8E4M3FNUZ: case kFloat8E5M2: case kFloat8E5M2FNUZ: case kFloat8E8M0:
      return ElementLayout{kInt32Data, 8, true, false};
    case kFloat4E2M1: return ElementLayout{kInt32Data, 4, true, false};
    case kComplex64: return ElementLayout{kFloatData, 64, false, false};
    case kComplex128: return ElementLayout{kDoubleData, 128, false, false};
    case kString: return ElementLayout{kStringData, 0, false, false};
    default: return std::nullopt;
  }
}

// A small float with `exp_bits` exponent and `man_bits` mantissa bits after
// the sign. `ieee`: all-ones exponent is inf/NaN; `fn`: only all-ones is NaN
// (no infinities); `uz`: the negative-zero pattern is the only NaN.
double decode_minifloat(uint32_t bits, int exp_bits, int man_bits, int bias, bool ieee, bool fn, bool uz) {
  const uint32_t sign = (bits >> (exp_bits + man_bits)) & 1;
  const uint32_t exponent = (bits >> man_bits) & ((1u << exp_bits) - 1);
  const uint32_t mantissa = bits & ((1u << man_bits) - 1);
  const uint32_t max_exponent = (1u << exp_bits) - 1;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (uz && sign == 1 && exponent == 0 && mantissa == 0) return nan;
  if (ieee && exponent == max_exponent) {
    if (mantissa != 0) return nan;
    return sign ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (fn && exponent == max_exponent && mantissa == (1u << man_bits) - 1) return nan;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - bias - man_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (1u << man_bits)), static_cast<int>(exponent) - bias - man_bits);
  }
  return sign ? -magnitude : magnitude;
}

// The element at the low bits of `bits` (already extracted) as a double.
double decode_float_bits(int32_t data_type, uint64_t bits) {
  switch (data_type) {
    case kFloat: return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case kDouble: return std::bit_cast<double>(bits);
    case kFloat16: return decode_minifloat(static_cast<uint32_t>(bits & 0xffff), 5, 10, 15, true, false, false);
    case kBFloat16: return std::bit_cast<float>(static_cast<uint32_t>((bits & 0xffff) << 16));
    case kFloat8E4M3FN: return decode_minifloat(static_cast<uint32_t>(bits & 0xff), 4, 3, 7, false, true, false);
    case kFloat8E4M3FNUZ: return decode_minifloat(static_cast<uint32_t>(bits & 0xff), 4, 3, 8, false, false, true);
    case kFloat8E5M2: return decode_minifloat(static_cast<uint32_t>(bits & 0xff), 5, 2, 15, true, false, false);
    case kFloat8E5M2FNUZ: return decode_minifloat(static_cast<uint32_t>(bits & 0xff), 5, 2, 16, false, false, true);
    case kFloat8E8M0:
      if ((bits & 0xff) == 0xff) return std::numeric_limits<double>::quiet_NaN();
      return std::ldexp(1.0, static_cast<int>(bits & 0xff) - 127);
    case kFloat4E2M1: return decode_minifloat(static_cast<uint32_t>(bits & 0xf), 2, 1, 1, false, false, false);
    default: return 0;
  }
}

// The element at the low bits of `bits` as an integer of `data_type`, or
// nullopt when it does not fit int64 (uint64 above 2^63 - 1).
std::optional<int64_t> decode_integer_bits(int32_t data_type, uint64_t bits) {
  switch (data_type) {
    case kBool: return (bits & 0xffffffff) != 0 ? 1 : 0;
    case kUInt8: return static_cast<int64_t>(bits & 0xff);
    case kInt8: return static_cast<int8_t>(bits & 0xff);
    case kUInt16: return static_cast<int64_t>(bits & 0xffff);
    case kInt16: return static_cast<int16_t>(bits & 0xffff);
    case kInt32: return static_cast<int32_t>(bits & 0xffffffff);
    case kUInt32: return static_cast<int64_t>(bits & 0xffffffff);
    case kInt64: return static_cast<int64_t>(bits);
    case kUInt64:
      if (bits > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      return static_cast<int64_t>(bits);
    case kUInt4: return static_cast<int64_t>(bits & 0xf);
    case kInt4: return static_cast<int64_t>(bits & 0xf) - ((bits & 0x8) ? 16 : 0);
    case kUInt2: return static_cast<int64_t>(bits & 0x3);
    case kInt2: return static_cast<int64_t>(bits & 0x3) - ((bits & 0x2) ? 4 : 0);
    default: return std::nullopt;
  }
}

uint64_t load_le(const char* p, int bytes) {
  uint64_t bits = 0;
  for (int i = 0; i < bytes; ++i) bits |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return bits;
}

// Number of bytes `numel` elements of `bits` each take in raw_data.
uint64_t raw_byte_size(int64_t numel, int bits) {
  const auto n = static_cast<uint64_t>(numel);
  if (bits >= 8) return n * static_cast<uint64_t>(bits / 8);  // numel <= 2^63 / 16 checked by caller
  const uint64_t per_byte = static_cast<uint64_t>(8 / bits);
  return n / per_byte + (n % per_byte != 0 ? 1 : 0);
}

// The raw bit pattern of element `index` in little-endian packed storage.
uint64_t raw_element_bits(std::string_view bytes, int64_t index, int bits) {
  const auto i = static_cast<uint64_t>(index);
  if (bits >= 8) return load_le(bytes.data() + i * static_cast<uint64_t>(bits / 8), bits / 8);
  const uint64_t per_byte = static_cast<uint64_t>(8 / bits);
  const auto byte = static_cast<uint8_t>(bytes[static_cast<size_t>(i / per_byte)]);
  const auto shift = static_cast<unsigned>((i % per_byte) * static_cast<uint64_t>(bits));
  return (byte >> shift) & ((1u << bits) - 1);
}

// Collects the elements of a typed field, packed or not: each chunk is a
// packed run (an unpacked element encodes exactly like a run of one).
std::vector<uint64_t> collect_typed_values(const TensorRef& tensor, uint64_t needed) {
  const bool fixed32 = tensor.typed_field == kFloatData;
  const bool fixed64 = tensor.typed_field == kDoubleData;
  std::vector<uint64_t> values;
  values.reserve(static_cast<size_t>(std::min<uint64_t>(needed, 1u << 20)));
  auto take_chunk = [&](std::string_view chunk) {
    if (fixed32 || fixed64) {
      const size_t width = fixed32 ? 4 : 8;
      if (chunk.size() % width != 0) {
        throw InputError("tensor '" + tensor.name + "': packed data of " + std::to_string(chunk.size()) +
                         " bytes is not a multiple of " + std::to_string(width));
      }
      for (size_t at = 0; at < chunk.size() && values.size() < needed; at += width) {
        values.push_back(load_le(chunk.data() + at, static_cast<int>(width)));
      }
      return;
    }
    while (!chunk.empty() && values.size() < needed) {
      try {
        values.push_back(wire::take_varint(chunk, chunk.data()));
      } catch (const ParseError& e) {
        throw InputError("tensor '" + tensor.name + "': " + e.what());
      }
    }
  };
  if (tensor.typed_chunks.empty()) {
    take_chunk(tensor.bytes);
  } else {
    for (std::string_view chunk : tensor.typed_chunks) {
      if (values.size() >= needed) break;
      take_chunk(chunk);
    }
  }
  if (values.size() < needed) {
    throw InputError("tensor '" + tensor.name + "': has " + std::to_string(values.size()) + " values in field " +
                     std::to_string(tensor.typed_field) + ", needs " + std::to_string(needed));
  }
  return values;
}

// Decodes every element through `emit(bits)`, where bits is the element's
// bit pattern as `data_type` stores it.
template <typename Emit>
void for_each_element(const TensorRef& tensor, const ElementLayout& layout, Emit emit) {
  const int64_t numel = tensor.numel();
  if (tensor.storage == TensorRef::Storage::Typed) {
    // int32_data packs two 4-bit (four 2-bit) elements per value, low bits first.
    const int per_value = (tensor.typed_field == kInt32Data && layout.bits < 8) ? 8 / layout.bits : 1;
    const auto n = static_cast<uint64_t>(numel);
    const uint64_t needed = n / static_cast<uint64_t>(per_value) + (n % static_cast<uint64_t>(per_value) != 0 ? 1 : 0);
    const std::vector<uint64_t> values = collect_typed_values(tensor, needed);
    for (int64_t i = 0; i < numel; ++i) {
      uint64_t bits = values[static_cast<size_t>(i / per_value)];
      if (per_value > 1) bits = (bits >> ((i % per_value) * layout.bits)) & ((1u << layout.bits) - 1);
      emit(bits);
    }
    return;
  }
  std::string external_bytes;
  std::string_view bytes = tensor.bytes;
  const uint64_t needed = raw_byte_size(numel, layout.bits);
  if (tensor.storage == TensorRef::Storage::External) {
    if (tensor.external_length >= 0 && static_cast<uint64_t>(tensor.external_length) < needed) {
      const std::string file = (std::filesystem::path(tensor.base_dir) / tensor.external_location).string();
      throw InputError(file + ": external data of tensor '" + tensor.name + "' has length " +
                       std::to_string(tensor.external_length) + ", needs " + std::to_string(needed) + " bytes");
    }
    try {
      external_bytes = InputFile::open_beneath(tensor.base_dir, tensor.external_location)
                           .read_range(static_cast<uint64_t>(tensor.external_offset), needed);
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + " (external data of tensor '" + tensor.name + "')");
    }
    bytes = external_bytes;
  } else if (bytes.size() < needed) {
    throw InputError("tensor '" + tensor.name + "': raw_data has " + std::to_string(bytes.size()) + " bytes, needs " +
                     std::to_string(needed));
  }
  for (int64_t i = 0; i < numel; ++i) emit(raw_element_bits(bytes, i, layout.bits));
}

// Shared front of read_int64s / read_doubles: nullopt when the tensor's
// values are not available as numbers of the requested kind.
std::optional<ElementLayout> readable_layout(const TensorRef& tensor, int64_t max_elements, bool want_float) {
  const auto layout = element_layout(tensor.data_type);
  if (!layout) return std::nullopt;
  if (want_float ? !(layout->is_float || layout->is_integer) : !layout->is_integer) return std::nullopt;
  if (tensor.numel() > max_elements) return std::nullopt;
  if (tensor.storage == TensorRef::Storage::None && tensor.numel() > 0) return std::nullopt;
  return layout;
}

// ---------------------------------------------------------------- parsing

// Tensor payloads copied out of the file (Parser::parse_tensor): any size a
// rule folds or the dispatch cache keys for a Constant, and an initializer
// the size of a shape vector.
constexpr size_t kCopiedAttributeTensorBytes = 4096;
constexpr size_t kCopiedInitializerBytes = 256;

class Parser {
 public:
  // `mapped`, when given, holds `file`: pages are released as parsing moves on.
  Parser(std::string_view file, std::string path, size_t max_nodes, const MappedFile* mapped = nullptr)
      : file_(file), path_(std::move(path)), max_nodes_(max_nodes), mapped_(mapped) {
    const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
    base_dir_ = parent.empty() ? std::string(".") : parent.string();
  }

  // The whole file is one TensorProto (a test data set's input_0.pb).
  std::shared_ptr<TensorRef> parse_tensor_file() { return parse_tensor(file_, 0); }

  Model parse() {
    Model model;
    model.path = path_;
    Reader reader(file_.data(), file_);
    Field field;
    bool has_graph = false;
    while (reader.next(field)) {
      switch (field.number) {
        case 1: model.ir_version = wire::as_int64(expect(field, WireType::Varint, "ModelProto.ir_version")); break;
        case 2: model.producer_name = string_of(field, "ModelProto.producer_name"); break;
        case 3: model.producer_version = string_of(field, "ModelProto.producer_version"); break;
        case 7: {
          const std::string_view graph = payload_of(field, "ModelProto.graph");
          reserve_names(graph);
          parse_graph(graph, model.graph);
          has_graph = true;
          break;
        }
        case 8: parse_opset_import(payload_of(field, "ModelProto.opset_import"), model.opset_imports); break;
        case 25: model.functions.push_back(parse_function(payload_of(field, "ModelProto.functions"))); break;
        default: break;
      }
    }
    if (model.ir_version > kMaxIrVersion) {
      throw InputError(path_ + ": unsupported IR version " + std::to_string(model.ir_version));
    }
    if (!has_graph) throw InputError(path_ + ": not an ONNX model (ModelProto has no graph)");
    model.keepalive.push_back(small_payloads_);
    model.external_files.assign(external_files_.begin(), external_files_.end());
    for (const auto& [domain, version] : model.opset_imports)
      if ((domain.empty() || domain == "ai.onnx") && version > kNewestOnnxOpset)
        warnings_.push_back({ErrorKind::UnknownOpset, "",
                             "opset_import: ai.onnx version " + std::to_string(version) +
                                 " is newer than the newest opset fakeprop knows (" + std::to_string(kNewestOnnxOpset) +
                                 "); its rules for " + std::to_string(kNewestOnnxOpset) + " apply"});
    std::unordered_set<std::string_view> input_names;
    for (const ValueInfo& vi : model.graph.inputs)
      if (!input_names.insert(vi.name).second)
        warnings_.push_back({ErrorKind::DuplicateInput, vi.name,
                             "graph input '" + vi.name + "' is declared more than once; the last declaration defines it"});
    model.warnings = std::move(warnings_);
    names_->release_index();  // every name is in; runs intern new ones in their own pool
    model.names = names_;
    return model;
  }

 private:
  // Depth guard for recursive messages.
  class Nested {
   public:
    Nested(Parser& parser, std::string_view at) : parser_(parser) {
      if (++parser_.depth_ > kMaxNesting) {
        throw ParseError("graphs or types nested deeper than " + std::to_string(kMaxNesting), parser_.offset_of(at));
      }
    }
    ~Nested() { --parser_.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& parser_;
  };

  // The structure of a large model lies between its weights: each header
  // read maps the 64 KB of cached pages around it. Dropping them every few
  // hundred KB read keeps the load's resident set near the node section's.
  void release_read_pages(const char* read_to) {
    constexpr uint64_t kStride = 256 * 1024;
    const uint64_t to = static_cast<uint64_t>(read_to - file_.data());
    if (mapped_ == nullptr || to < released_to_ + kStride) return;
    mapped_->release_pages(released_to_, to);
    released_to_ = to;
  }

  uint64_t offset_of(std::string_view inside) const { return static_cast<uint64_t>(inside.data() - file_.data()); }

  [[noreturn]] void wrong_type(const Field& field, WireType wanted, const char* what) const {
    throw ParseError(std::string(what) + " (field " + std::to_string(field.number) + ") has wire type " +
                         std::string(wire::wire_type_name(field.type)) + ", expected " +
                         std::string(wire::wire_type_name(wanted)),
                     field.offset);
  }

  uint64_t expect(const Field& field, WireType wanted, const char* what) const {
    if (field.type != wanted) wrong_type(field, wanted, what);
    return field.value;
  }
  std::string_view payload_of(const Field& field, const char* what) const {
    if (field.type != WireType::Len) wrong_type(field, WireType::Len, what);
    return field.payload;
  }
  // A `string` field: protobuf requires UTF-8, and names end up in JSON
  // reports, so anything else is refused here with its offset.
  std::string_view text_of(const Field& field, const char* what) const {
    const std::string_view text = payload_of(field, what);
    if (const size_t bad = invalid_utf8_at(text); bad != std::string_view::npos)
      throw ParseError(std::string(what) + " is not valid UTF-8", offset_of(text) + bad);
    return text;
  }
  std::string string_of(const Field& field, const char* what) const { return std::string(text_of(field, what)); }
  Name name_of(const Field& field, const char* what) { return names_->intern(text_of(field, what)); }
  // A `bytes` field (AttributeProto.s and .strings): any bytes.
  std::string bytes_of(const Field& field, const char* what) const { return std::string(payload_of(field, what)); }

  // A repeated varint field, packed or not, appended to `out`.
  template <typename T>
  void append_varints(const Field& field, std::vector<T>& out, const char* what) const {
    if (field.type == WireType::Varint) {
      out.push_back(static_cast<T>(wire::as_int64(field.value)));
      return;
    }
    std::string_view run = payload_of(field, what);
    while (!run.empty()) out.push_back(static_cast<T>(wire::as_int64(wire::take_varint(run, file_.data()))));
  }

  void append_floats(const Field& field, std::vector<float>& out, const char* what) const {
    if (field.type == WireType::Fixed32) {
      out.push_back(wire::as_float(field.value));
      return;
    }
    std::string_view run = payload_of(field, what);
    if (run.size() % 4 != 0) {
      throw ParseError(std::string("packed ") + what + " of " + std::to_string(run.size()) +
                           " bytes is not a multiple of 4",
                       field.offset);
    }
    for (size_t at = 0; at < run.size(); at += 4) out.push_back(wire::as_float(load_le(run.data() + at, 4)));
  }

  void parse_opset_import(std::string_view bytes, std::map<std::string, int64_t>& imports) {
    std::string domain;
    int64_t version = 0;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      if (field.number == 1) domain = normalize_domain(string_of(field, "OperatorSetIdProto.domain"));
      if (field.number == 2) version = wire::as_int64(expect(field, WireType::Varint, "OperatorSetIdProto.version"));
    }
    auto [it, inserted] = imports.emplace(domain, version);
    if (!inserted) it->second = std::max(it->second, version);
  }

  // Sizes the name table for the main graph's nodes (each names itself and
  // about one output), counted over the node fields the graph starts with
  // (serializers write them first): reading further headers would fault in
  // the pages around every initializer. A malformed field stops the count.
  void reserve_names(std::string_view bytes) {
    size_t nodes = 0;
    try {
      Reader reader(file_.data(), bytes);
      Field field;
      while (nodes < max_nodes_ && reader.next(field) && field.number == 1) ++nodes;
    } catch (const ParseError&) {
    }
    names_->reserve(2 * nodes);
  }

  void parse_graph(std::string_view bytes, Graph& graph) {
    Nested nested(*this, bytes);
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      switch (field.number) {
        case 1: graph.nodes.push_back(parse_node(payload_of(field, "GraphProto.node"))); break;
        case 2: graph.name = string_of(field, "GraphProto.name"); break;
        case 5:
          graph.initializers.push_back(
              parse_tensor(payload_of(field, "GraphProto.initializer"), kCopiedInitializerBytes));
          break;
        case 11: graph.inputs.push_back(parse_value_info(payload_of(field, "GraphProto.input"))); break;
        case 12: graph.outputs.push_back(parse_value_info(payload_of(field, "GraphProto.output"))); break;
        case 13: graph.value_info.push_back(parse_value_info(payload_of(field, "GraphProto.value_info"))); break;
        case 15:
          graph.initializers.push_back(parse_sparse_tensor(payload_of(field, "GraphProto.sparse_initializer")));
          break;
        default: break;
      }
      release_read_pages(field.encoded.data() + field.encoded.size());
    }
    name_nodes(graph.nodes);
  }

  Node parse_node(std::string_view bytes) {
    // Counted over the whole file (subgraphs and functions included), before
    // the node is built: a node can take as little as two bytes of the file.
    if (++node_count_ > max_nodes_) {
      throw InputError(path_ + ": more than " + std::to_string(max_nodes_) + " nodes (the node-count limit, at byte offset " +
                       std::to_string(offset_of(bytes)) + ")");
    }
    Node node;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      switch (field.number) {
        case 1: node.inputs.push_back(name_of(field, "NodeProto.input")); break;
        case 2: node.outputs.push_back(name_of(field, "NodeProto.output")); break;
        case 3: node.name = names_->store(text_of(field, "NodeProto.name")); break;  // name_nodes checks them
        case 4: node.op_type = name_of(field, "NodeProto.op_type"); break;
        case 5: node.attributes.push_back(parse_attribute(payload_of(field, "NodeProto.attribute"))); break;
        case 7: node.domain = names_->intern(normalize_domain(string_of(field, "NodeProto.domain"))); break;
        default: break;
      }
    }
    return node;
  }

  Attribute parse_attribute(std::string_view bytes) {
    Attribute attr;
    Reader reader(file_.data(), bytes);
    Field field;
    // Before IR 2 there was no type field; the value field present decides.
    auto seen = Attribute::Type::Undefined;
    bool has_type = false;
    while (reader.next(field)) {
      switch (field.number) {
        case 1: attr.name = string_of(field, "AttributeProto.name"); break;
        case 21: attr.rare.get_or_create().ref_attr_name = string_of(field, "AttributeProto.ref_attr_name"); break;
        case 20: {
          const int64_t type = wire::as_int64(expect(field, WireType::Varint, "AttributeProto.type"));
          attr.type = type >= 0 && type <= 14 ? static_cast<Attribute::Type>(type) : Attribute::Type::Undefined;
          has_type = true;
          break;
        }
        case 2:
          attr.f = wire::as_float(expect(field, WireType::Fixed32, "AttributeProto.f"));
          seen = Attribute::Type::Float;
          break;
        case 3:
          attr.i = wire::as_int64(expect(field, WireType::Varint, "AttributeProto.i"));
          seen = Attribute::Type::Int;
          break;
        case 4:
          attr.s = bytes_of(field, "AttributeProto.s");
          seen = Attribute::Type::String;
          break;
        case 5:
          attr.t = parse_tensor(payload_of(field, "AttributeProto.t"), kCopiedAttributeTensorBytes);
          seen = Attribute::Type::Tensor;
          break;
        case 6:
          attr.g = std::make_shared<Graph>();
          parse_graph(payload_of(field, "AttributeProto.g"), *attr.g);
          seen = Attribute::Type::Graph;
          break;
        case 22:
          attr.t = parse_sparse_tensor(payload_of(field, "AttributeProto.sparse_tensor"));
          seen = Attribute::Type::SparseTensor;
          break;
        case 14:
          attr.rare.get_or_create().tp = std::make_shared<TypeInfo>(parse_type(payload_of(field, "AttributeProto.tp")));
          seen = Attribute::Type::TypeProto;
          break;
        case 7:
          append_floats(field, attr.rare.get_or_create().floats, "AttributeProto.floats");
          seen = Attribute::Type::Floats;
          break;
        case 8:
          append_varints(field, attr.ints, "AttributeProto.ints");
          seen = Attribute::Type::Ints;
          break;
        case 9:
          attr.rare.get_or_create().strings.push_back(bytes_of(field, "AttributeProto.strings"));
          seen = Attribute::Type::Strings;
          break;
        case 10:
          attr.rare.get_or_create().tensors.push_back(
              parse_tensor(payload_of(field, "AttributeProto.tensors"), kCopiedAttributeTensorBytes));
          seen = Attribute::Type::Tensors;
          break;
        case 11: {
          auto graph = std::make_shared<Graph>();
          parse_graph(payload_of(field, "AttributeProto.graphs"), *graph);
          attr.rare.get_or_create().graphs.push_back(std::move(graph));
          seen = Attribute::Type::Graphs;
          break;
        }
        case 23:
          attr.rare.get_or_create().tensors.push_back(parse_sparse_tensor(payload_of(field, "AttributeProto.sparse_tensors")));
          seen = Attribute::Type::SparseTensors;
          break;
        case 15:
          // TypeProtos: the header keeps a single type; parse to validate, keep none.
          parse_type(payload_of(field, "AttributeProto.type_protos"));
          seen = Attribute::Type::TypeProtos;
          break;
        default: break;
      }
    }
    if (!has_type) attr.type = seen;
    return attr;
  }

  // Reads "offset"/"length" values of external_data; they are decimal text.
  int64_t parse_external_number(std::string_view text, const std::string& key, const std::string& tensor) const {
    int64_t value = 0;
    bool ok = !text.empty();
    for (char c : text) {
      if (c < '0' || c > '9' || value > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) {
        ok = false;
        break;
      }
      value = value * 10 + (c - '0');
    }
    if (!ok) {
      throw InputError(path_ + ": tensor '" + tensor + "': invalid external data " + key + " '" + std::string(text) + "'");
    }
    return value;
  }

  void check_external_location(const std::string& location, const std::string& tensor) const {
    const std::filesystem::path relative(location);
    bool escapes = location.empty() || relative.is_absolute();
    for (const auto& part : relative) escapes = escapes || part == "..";
    if (escapes) {
      throw InputError(path_ + ": tensor '" + tensor + "': external data location '" + location +
                       "' must be a relative path inside the model's directory");
    }
  }

  void check_dims(const TensorRef& tensor) const {
    int64_t numel = 1;
    for (int64_t d : tensor.dims) {
      if (d < 0) {
        throw InputError(path_ + ": tensor '" + tensor.name + "' has negative dimension " + std::to_string(d));
      }
      // Keep numel * 16 bytes (complex128) representable as well.
      if (d != 0 && numel > std::numeric_limits<int64_t>::max() / 16 / d) {
        throw InputError(path_ + ": tensor '" + tensor.name + "' has too many elements");
      }
      numel *= d;
    }
  }

  // Payloads up to `copy_limit` bytes are copied out of the mapping: rules
  // read small tensors (shapes, axes, scalars) during the walk, and each read
  // of the released mapping would fault back in the 64 KB around it.
  std::shared_ptr<TensorRef> parse_tensor(std::string_view bytes, size_t copy_limit) {
    auto tensor = std::make_shared<TensorRef>();
    // Typed fields, picked by data_type once the whole message is read.
    struct TypedField {
      std::vector<std::string_view> chunks;
      bool packed = true;
    };
    std::map<int, TypedField> typed;
    std::optional<std::string_view> raw;
    bool external = false;
    std::vector<std::pair<std::string, std::string>> external_entries;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      switch (field.number) {
        case 1: append_varints(field, tensor->dims, "TensorProto.dims"); break;
        case 2: tensor->data_type = wire::as_int32(expect(field, WireType::Varint, "TensorProto.data_type")); break;
        case 8: tensor->name = string_of(field, "TensorProto.name"); break;
        case 9: raw = payload_of(field, "TensorProto.raw_data"); break;
        case 13: external_entries.push_back(parse_string_pair(payload_of(field, "TensorProto.external_data"))); break;
        case 14:
          external = wire::as_int64(expect(field, WireType::Varint, "TensorProto.data_location")) == 1;
          break;
        case kFloatData: case kInt32Data: case kInt64Data: case kDoubleData: case kUInt64Data: {
          TypedField& entry = typed[static_cast<int>(field.number)];
          const WireType element = field.number == kFloatData    ? WireType::Fixed32
                                   : field.number == kDoubleData ? WireType::Fixed64
                                                                 : WireType::Varint;
          if (field.type == WireType::Len) {
            entry.chunks.push_back(field.payload);
          } else if (field.type == element) {
            entry.chunks.push_back(field.payload);
            entry.packed = false;
          } else {
            wrong_type(field, element, "TensorProto typed data");
          }
          break;
        }
        case kStringData:
          typed[kStringData].chunks.push_back(payload_of(field, "TensorProto.string_data"));
          typed[kStringData].packed = false;
          break;
        default: break;
      }
    }
    check_dims(*tensor);
    if (external) {
      tensor->storage = TensorRef::Storage::External;
      tensor->base_dir = base_dir_;
      bool has_location = false;
      for (const auto& [key, value] : external_entries) {
        if (key == "location") {
          tensor->external_location = value;
          has_location = true;
        } else if (key == "offset") {
          tensor->external_offset = parse_external_number(value, key, tensor->name);
        } else if (key == "length") {
          tensor->external_length = parse_external_number(value, key, tensor->name);
        }
      }
      if (!has_location) throw InputError(path_ + ": tensor '" + tensor->name + "': external data has no location");
      check_external_location(tensor->external_location, tensor->name);
      external_files_.insert((std::filesystem::path(base_dir_) / tensor->external_location).string());
    } else if (raw) {
      tensor->storage = TensorRef::Storage::Raw;
      tensor->bytes = raw->size() <= copy_limit ? small_payloads_->copy(*raw) : *raw;
    } else if (const auto layout = element_layout(tensor->data_type)) {
      // Values in another type's field (a float tensor's int64_data) are
      // not its values: onnx's checker rejects the model, and so does this.
      for (const auto& [number, entry] : typed)
        if (number != layout->typed_field && !entry.chunks.empty())
          throw InputError(path_ + ": tensor '" + tensor->name + "' of data type " +
                           std::to_string(tensor->data_type) + " holds its values in " + typed_field_name(number) +
                           ", not in " + typed_field_name(layout->typed_field));
      auto it = typed.find(layout->typed_field);
      if (it != typed.end()) {
        tensor->storage = TensorRef::Storage::Typed;
        tensor->typed_field = layout->typed_field;
        tensor->typed_packed = it->second.packed;
        std::vector<std::string_view>& chunks = it->second.chunks;
        size_t total = 0;
        for (std::string_view c : chunks) total += c.size();
        if (total <= copy_limit)
          for (std::string_view& c : chunks) c = small_payloads_->copy(c);
        tensor->bytes = chunks.front();
        if (chunks.size() > 1) tensor->typed_chunks = std::move(chunks);
      }
    }
    return tensor;
  }

  // SparseTensorProto kept densely: name, dims and type only.
  std::shared_ptr<TensorRef> parse_sparse_tensor(std::string_view bytes) {
    auto tensor = std::make_shared<TensorRef>();
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      if (field.number == 1) {
        const auto values = parse_tensor(payload_of(field, "SparseTensorProto.values"), 0);
        tensor->name = values->name;
        tensor->data_type = values->data_type;
      } else if (field.number == 2) {
        parse_tensor(payload_of(field, "SparseTensorProto.indices"), 0);
      } else if (field.number == 3) {
        append_varints(field, tensor->dims, "SparseTensorProto.dims");
      }
    }
    check_dims(*tensor);
    return tensor;
  }

  std::pair<std::string, std::string> parse_string_pair(std::string_view bytes) {
    std::pair<std::string, std::string> entry;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      if (field.number == 1) entry.first = string_of(field, "StringStringEntryProto.key");
      if (field.number == 2) entry.second = string_of(field, "StringStringEntryProto.value");
    }
    return entry;
  }

  ValueInfo parse_value_info(std::string_view bytes) {
    ValueInfo info;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      if (field.number == 1) info.name = string_of(field, "ValueInfoProto.name");
      if (field.number == 2) {
        negative_dims_.clear();
        info.type = parse_type(payload_of(field, "ValueInfoProto.type"));
        for (int64_t d : negative_dims_)
          warnings_.push_back({ErrorKind::NegativeDim, info.name,
                               "value '" + info.name + "': dim_value " + std::to_string(d) +
                                   " is no size; read as an unknown size"});
        negative_dims_.clear();
      }
    }
    return info;
  }

  TypeInfo parse_type(std::string_view bytes) {
    Nested nested(*this, bytes);
    TypeInfo type;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      switch (field.number) {
        case 1:
          type = parse_tensor_type(payload_of(field, "TypeProto.tensor_type"), TypeInfo::Kind::Tensor);
          break;
        case 8:
          type = parse_tensor_type(payload_of(field, "TypeProto.sparse_tensor_type"), TypeInfo::Kind::SparseTensor);
          break;
        case 4:
          type = parse_wrapper_type(payload_of(field, "TypeProto.sequence_type"), TypeInfo::Kind::Sequence);
          break;
        case 9:
          type = parse_wrapper_type(payload_of(field, "TypeProto.optional_type"), TypeInfo::Kind::Optional);
          break;
        case 5: type = parse_map_type(payload_of(field, "TypeProto.map_type")); break;
        default: break;
      }
    }
    return type;
  }

  TypeInfo parse_tensor_type(std::string_view bytes, TypeInfo::Kind kind) {
    TypeInfo type;
    type.kind = kind;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      if (field.number == 1) type.elem_type = wire::as_int32(expect(field, WireType::Varint, "TypeProto.Tensor.elem_type"));
      if (field.number == 2) type.shape = parse_shape(payload_of(field, "TypeProto.Tensor.shape"));
    }
    return type;
  }

  // Sequence and Optional: one nested TypeProto in field 1.
  TypeInfo parse_wrapper_type(std::string_view bytes, TypeInfo::Kind kind) {
    TypeInfo type;
    type.kind = kind;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      if (field.number == 1) type.elem = std::make_shared<TypeInfo>(parse_type(payload_of(field, "TypeProto elem_type")));
    }
    return type;
  }

  TypeInfo parse_map_type(std::string_view bytes) {
    TypeInfo type;
    type.kind = TypeInfo::Kind::Map;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      if (field.number == 1) type.map_key_type = wire::as_int32(expect(field, WireType::Varint, "TypeProto.Map.key_type"));
      if (field.number == 2) type.elem = std::make_shared<TypeInfo>(parse_type(payload_of(field, "TypeProto.Map.value_type")));
    }
    return type;
  }

  std::vector<Dim> parse_shape(std::string_view bytes) {
    std::vector<Dim> dims;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      if (field.number != 1) continue;
      Dim dim;
      Reader dim_reader(file_.data(), payload_of(field, "TensorShapeProto.dim"));
      Field dim_field;
      while (dim_reader.next(dim_field)) {
        if (dim_field.number == 1) {
          const int64_t value = wire::as_int64(expect(dim_field, WireType::Varint, "Dimension.dim_value"));
          // Some exporters write -1 for "unknown"; it is no size.
          dim = value >= 0 ? Dim{Dim::Kind::Value, value, {}} : Dim{};
          if (value < 0 && negative_dims_.size() < 16) negative_dims_.push_back(value);
        } else if (dim_field.number == 2) {
          std::string param = string_of(dim_field, "Dimension.dim_param");
          dim = param.empty() ? Dim{} : Dim{Dim::Kind::Param, 0, std::move(param)};
        }
      }
      dims.push_back(std::move(dim));
    }
    return dims;
  }

  Function parse_function(std::string_view bytes) {
    Function function;
    Reader reader(file_.data(), bytes);
    Field field;
    while (reader.next(field)) {
      switch (field.number) {
        case 1: function.name = string_of(field, "FunctionProto.name"); break;
        case 4: function.inputs.push_back(string_of(field, "FunctionProto.input")); break;
        case 5: function.outputs.push_back(string_of(field, "FunctionProto.output")); break;
        case 6: function.attribute_names.push_back(string_of(field, "FunctionProto.attribute")); break;
        case 7: function.nodes.push_back(parse_node(payload_of(field, "FunctionProto.node"))); break;
        case 9: parse_opset_import(payload_of(field, "FunctionProto.opset_import"), function.opset_imports); break;
        case 10: function.domain = normalize_domain(string_of(field, "FunctionProto.domain")); break;
        case 11:
          function.attribute_defaults.push_back(parse_attribute(payload_of(field, "FunctionProto.attribute_proto")));
          break;
        default: break;
      }
    }
    name_nodes(function.nodes);
    return function;
  }

  // Empty names become "<op_type>_<index>"; every name ends up unique in its
  // graph (a later duplicate gets "_1", "_2", ...).
  template <class Nodes>
  void name_nodes(Nodes& nodes) {
    {  // Exporters name every node uniquely: then there is nothing to do.
      StringIds names(nodes.size());
      bool named = true;
      for (const Node& node : nodes)
        if (node.name.empty() || !names.insert(node.name).second) {
          named = false;
          break;
        }
      if (named) return;
    }
    // Hash sets: a 1M-node graph spent most of its load time in ordered-set string compares.
    std::unordered_set<std::string_view> taken;
    taken.reserve(nodes.size() * 2);
    for (const Node& node : nodes) {
      if (!node.name.empty()) taken.insert(node.name);
    }
    std::unordered_set<std::string_view> seen;
    seen.reserve(nodes.size());
    for (size_t index = 0; index < nodes.size(); ++index) {
      Node& node = nodes[index];
      const std::string base = node.name.empty() ? node.op_type + "_" + std::to_string(index) : node.name.str();
      std::string name = base;
      const bool clashes = node.name.empty() ? taken.count(name) > 0 : seen.count(name) > 0;
      for (int suffix = 1; clashes && (taken.count(name) > 0 || seen.count(name) > 0); ++suffix) {
        name = base + "_" + std::to_string(suffix);
      }
      node.name = names_->intern(name);  // the sets hold views of pooled names
      seen.insert(node.name);
      taken.insert(node.name);
    }
  }

  std::string_view file_;
  std::string path_;
  std::string base_dir_;
  std::set<std::string> external_files_;
  std::vector<LoadWarning> warnings_;
  std::vector<int64_t> negative_dims_;  // in the type being read (a few: one warning each)
  int depth_ = 0;
  size_t max_nodes_;
  size_t node_count_ = 0;
  std::shared_ptr<ByteArena> small_payloads_ = std::make_shared<ByteArena>();
  std::shared_ptr<NamePool> names_ = std::make_shared<NamePool>();
  const MappedFile* mapped_;
  uint64_t released_to_ = 0;
};

std::string_view element_type_name(int32_t data_type) {
  static constexpr std::string_view kNames[] = {
      "undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
      "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16", "float8e4m3fn",
      "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4", "float4e2m1", "float8e8m0",
      "uint2", "int2", "float6e2m3", "float6e3m2"};
  return data_type >= 0 && data_type < static_cast<int32_t>(std::size(kNames)) ? kNames[data_type] : "undefined";
}

}  // namespace

std::string type_string(const TypeInfo& t) {
  const auto inner = [&] { return t.elem ? type_string(*t.elem) : std::string("undefined"); };
  switch (t.kind) {
    case TypeInfo::Kind::Tensor: return "tensor(" + std::string(element_type_name(t.elem_type)) + ")";
    case TypeInfo::Kind::SparseTensor: return "sparse_tensor(" + std::string(element_type_name(t.elem_type)) + ")";
    case TypeInfo::Kind::Sequence: return "seq(" + inner() + ")";
    case TypeInfo::Kind::Optional: return "optional(" + inner() + ")";
    case TypeInfo::Kind::Map: return "map(" + std::string(element_type_name(t.map_key_type)) + ", " + inner() + ")";
    case TypeInfo::Kind::Unknown: break;
  }
  return "undefined";
}

// ---------------------------------------------------------------- TensorRef

int64_t TensorRef::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) {
    // The loader rejects negative and overflowing dims; stay safe for
    // TensorRefs built by hand.
    if (d <= 0) return d == 0 ? 0 : -1;
    if (n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

DType TensorRef::dtype() const { return dtype_from_onnx(data_type).value_or(DType::Undefined); }

std::optional<std::vector<int64_t>> TensorRef::read_int64s(int64_t max_elements) const {
  if (numel() < 0) return std::nullopt;
  const auto layout = readable_layout(*this, max_elements, false);
  if (!layout) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(numel()));
  bool fits = true;
  for_each_element(*this, *layout, [&](uint64_t bits) {
    const auto value = decode_integer_bits(data_type, bits);
    fits = fits && value.has_value();
    out.push_back(value.value_or(0));
  });
  if (!fits) return std::nullopt;
  return out;
}

std::optional<std::vector<double>> TensorRef::read_doubles(int64_t max_elements) const {
  if (numel() < 0) return std::nullopt;
  const auto layout = readable_layout(*this, max_elements, true);
  if (!layout) return std::nullopt;
  std::vector<double> out;
  out.reserve(static_cast<size_t>(numel()));
  for_each_element(*this, *layout, [&](uint64_t bits) {
    if (layout->is_float) {
      out.push_back(decode_float_bits(data_type, bits));
    } else if (data_type == kUInt64) {
      out.push_back(static_cast<double>(bits));
    } else {
      out.push_back(static_cast<double>(*decode_integer_bits(data_type, bits)));
    }
  });
  return out;
}

const Attribute::Rare Attribute::kNoRare{};

const Attribute* Node::attr(std::string_view name) const {
  for (const Attribute& a : attributes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

int64_t Model::opset(std::string_view domain) const {
  const std::string key = domain == "ai.onnx" ? std::string() : std::string(domain);
  auto it = opset_imports.find(key);
  return it == opset_imports.end() ? 0 : it->second;
}

// ---------------------------------------------------------------- entry points

bool looks_like_onnx(std::string_view head) {
  // Serializers write fields in number order, so a model starts with
  // ir_version; accept any ModelProto field with its proper wire type.
  // Later bytes are the parser's business (it reports them precisely).
  std::string_view rest = head;
  uint64_t tag = 0;
  try {
    tag = wire::take_varint(rest, head.data());
  } catch (const ParseError&) {
    return false;
  }
  switch (tag >> 3) {
    case 1: case 5: return (tag & 7) == static_cast<uint64_t>(WireType::Varint);
    case 2: case 3: case 4: case 6: case 7: case 8: case 14: case 20: case 25: case 26:
      return (tag & 7) == static_cast<uint64_t>(WireType::Len);
    default: return false;
  }
}

namespace {

Model parse_bytes(std::string_view bytes, const std::string& path, size_t max_nodes, const MappedFile* mapped) {
  if (bytes.empty()) throw InputError(path + ": not an ONNX model (empty file)");
  if (!looks_like_onnx(bytes.substr(0, 1 << 16))) {
    const size_t first = bytes.find_first_not_of(" \t\r\n");
    const bool json = first != std::string_view::npos && (bytes[first] == '{' || bytes[first] == '[');
    throw InputError(path + ": not an ONNX model (" +
                     (json ? std::string("looks like JSON") : std::string("does not start with a ModelProto field")) + ")");
  }
  try {
    return Parser(bytes, path, max_nodes, mapped).parse();
  } catch (const ParseError& e) {
    throw InputError(path + ": invalid ONNX protobuf: " + e.what() + " (at byte offset " + std::to_string(e.offset()) + ")");
  }
}

}  // namespace

Model parse_model(std::string_view bytes, const std::string& path_for_errors, size_t max_nodes) {
  Model model = parse_bytes(bytes, path_for_errors, max_nodes, nullptr);
  model.file = MappedFile::borrow(bytes, path_for_errors);
  return model;
}

RealTensor read_tensor_file(const std::string& path, int64_t max_elements) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  return parse_tensor_proto(file->bytes(), path, max_elements);
}

RealTensor parse_tensor_proto(std::string_view bytes, const std::string& path, int64_t max_elements) {
  std::shared_ptr<TensorRef> tensor;
  try {
    tensor = Parser(bytes, path, 0).parse_tensor_file();
  } catch (const ParseError& e) {
    throw InputError(path + ": invalid TensorProto: " + e.what() + " (at byte offset " + std::to_string(e.offset()) + ")");
  }
  RealTensor t;
  t.name = tensor->name;
  t.file = path;
  const std::optional<DType> dtype = dtype_from_onnx(tensor->data_type);
  if (!dtype || *dtype == DType::String)
    throw InputError(path + ": TensorProto of element type " + std::to_string(tensor->data_type) +
                     " is not a numeric tensor");
  t.dtype = *dtype;
  t.sizes = tensor->dims;
  t.numel = tensor->numel();
  if (t.numel > max_elements) return t;
  if (tensor->storage == TensorRef::Storage::None && t.numel > 0) throw InputError(path + ": the TensorProto holds no elements");
  if (is_floating(t.dtype)) {
    if (auto xs = tensor->read_doubles(max_elements)) t.elements = KnownData::of_floats(std::move(*xs));
  } else if (auto xs = tensor->read_int64s(max_elements)) {
    t.elements = KnownData::of_ints(std::vector<SymInt>(xs->begin(), xs->end()));
  }
  if (!t.elements) throw InputError(path + ": the TensorProto's elements cannot be read as " + std::string(dtype_name(t.dtype)));
  return t;
}

Model load_model(const std::string& path, size_t max_nodes) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  Model model = parse_bytes(file->bytes(), path, max_nodes, file.get());
  file->release_pages();
  model.file = std::move(file);
  return model;
}

}  // namespace fakeprop::onnx
