// An ONNX model as fakeprop reads it: the graph structure in plain structs,
// tensor contents left in place (a view into the memory-mapped file, or a
// reference to external data) and decoded only when a rule asks.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/options/real_inputs.h"
#include "fakeprop/options/limits.h"
#include "fakeprop/tensor/dtype.h"
#include "fakeprop/util/boxed.h"
#include "fakeprop/util/chunked_vector.h"
#include "fakeprop/util/error_kind.h"
#include "fakeprop/util/name_pool.h"

namespace fakeprop {
class MappedFile;  // read-only mmap of the model (util/mapped_file.h); owned by Model
}  // namespace fakeprop

namespace fakeprop::onnx {

// A TensorProto whose contents are decoded lazily.
struct TensorRef {
  std::string name;
  std::vector<int64_t> dims;
  int32_t data_type = 0;  // TensorProto.DataType
  // Where the elements are: raw_data bytes in the file, a typed repeated
  // field (packed or not) in the file, or an external file.
  enum class Storage : uint8_t { None, Raw, Typed, External } storage = Storage::None;
  std::string_view bytes;      // Raw / Typed: the field payload (in the mapping, or copied when small)
  int typed_field = 0;         // Typed: proto field number (4 float, 5 int32, 6 string, 7 int64, 10 double, 11 uint64)
  bool typed_packed = true;    // Typed: packed encoding (else: one varint/fixed per tag)
  std::vector<std::string_view> typed_chunks;  // Typed, unpacked or split packed runs
  std::string external_location;  // External: path relative to the model's directory
  int64_t external_offset = 0;
  int64_t external_length = -1;   // -1: to end of file
  std::string base_dir;           // directory of the model (for External)

  int64_t numel() const;
  DType dtype() const;
  // Decode as integers (int/bool/uint types) or doubles (float types);
  // nullopt when the type does not fit or numel > max_elements.
  // Throws InputError when the bytes are truncated or the external file is missing.
  std::optional<std::vector<int64_t>> read_int64s(int64_t max_elements) const;
  std::optional<std::vector<double>> read_doubles(int64_t max_elements) const;
};

struct Dim {
  enum class Kind : uint8_t { Unknown, Value, Param } kind = Kind::Unknown;
  int64_t value = 0;
  std::string param;
};

// TypeProto: tensor / sparse_tensor / sequence / optional / map.
struct TypeInfo {
  enum class Kind : uint8_t { Unknown, Tensor, SparseTensor, Sequence, Optional, Map } kind = Kind::Unknown;
  int32_t elem_type = 0;               // Tensor / SparseTensor
  std::optional<std::vector<Dim>> shape;  // nullopt: rank unknown
  std::shared_ptr<TypeInfo> elem;       // Sequence / Optional / Map value
  int32_t map_key_type = 0;
};

// ONNX's text for a type, as operator schemas spell it: "tensor(float)",
// "seq(tensor(int64))", "optional(seq(tensor(float)))", "map(string, float)".
std::string type_string(const TypeInfo& t);

struct ValueInfo {
  std::string name;
  TypeInfo type;
};

struct Graph;

struct Attribute {
  enum class Type : uint8_t {
    Undefined = 0, Float = 1, Int = 2, String = 3, Tensor = 4, Graph = 5,
    Floats = 6, Ints = 7, Strings = 8, Tensors = 9, Graphs = 10, SparseTensor = 11,
    SparseTensors = 12, TypeProto = 13, TypeProtos = 14,
  };
  std::string name;
  Type type = Type::Undefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::shared_ptr<TensorRef> t;
  std::shared_ptr<Graph> g;
  // The fields few attributes use, boxed: a model holds one Attribute per
  // attribute of every node, and most are an int, ints or a Constant's tensor.
  struct Rare {
    std::string ref_attr_name;  // inside functions: refers to the caller's attribute
    std::vector<float> floats;
    std::vector<std::string> strings;
    std::vector<std::shared_ptr<TensorRef>> tensors;
    std::vector<std::shared_ptr<Graph>> graphs;
    std::shared_ptr<TypeInfo> tp;
  };
  Boxed<Rare> rare;  // write through rare.get_or_create()

  const std::string& ref_attr_name() const { return rare ? rare->ref_attr_name : kNoRare.ref_attr_name; }
  const std::vector<float>& floats() const { return rare ? rare->floats : kNoRare.floats; }
  const std::vector<std::string>& strings() const { return rare ? rare->strings : kNoRare.strings; }
  const std::vector<std::shared_ptr<TensorRef>>& tensors() const { return rare ? rare->tensors : kNoRare.tensors; }
  const std::vector<std::shared_ptr<Graph>>& graphs() const { return rare ? rare->graphs : kNoRare.graphs; }
  const std::shared_ptr<TypeInfo>& tp() const { return rare ? rare->tp : kNoRare.tp; }

 private:
  static const Rare kNoRare;
};

// Names are the model's (Model::names): a node costs one pointer per name,
// and run records point at them instead of copying.
struct Node {
  Name name;     // may be empty in the file; the loader fills "<op_type>_<index>"
  Name op_type;
  Name domain;   // "" and "ai.onnx" both mean the default domain
  std::vector<Name> inputs;   // "" marks an omitted optional input
  std::vector<Name> outputs;
  std::vector<Attribute> attributes;

  const Attribute* attr(std::string_view name) const;
};

struct Graph {
  std::string name;
  ChunkedVector<Node> nodes;  // chunked: a consuming run frees them as it goes
  std::vector<std::shared_ptr<TensorRef>> initializers;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;
};

struct Function {
  std::string name;
  std::string domain;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attribute_names;
  std::vector<Attribute> attribute_defaults;  // attribute_proto (IR >= 9)
  std::vector<Node> nodes;
  std::map<std::string, int64_t> opset_imports;
};

// The newest ai.onnx opset of the onnx release the rules follow (the
// op-version cases, testdata/onnx/op_versions/expected.json, record it; a
// unit test keeps the two equal).
inline constexpr int64_t kNewestOnnxOpset = 28;

// What the loader read although ONNX's checker rejects it: a warning of
// the run (`node` names the value or is empty).
struct LoadWarning {
  ErrorKind kind;
  std::string node;
  std::string message;
};

struct Model {
  int64_t ir_version = 0;
  std::string producer_name;
  std::string producer_version;
  std::map<std::string, int64_t> opset_imports;  // "" = default domain
  Graph graph;
  std::vector<Function> functions;
  std::string path;
  std::shared_ptr<MappedFile> file;  // keeps every TensorRef::bytes alive
  std::vector<std::string> external_files;  // every external data file named, joined to the model's folder
  std::vector<LoadWarning> warnings;
  std::vector<std::shared_ptr<const void>> keepalive;  // tensor bytes held in memory (small payloads, ModelBuilder)
  std::shared_ptr<NamePool> names = std::make_shared<NamePool>();  // every Node's names

  int64_t opset(std::string_view domain) const;  // 0 when not imported
};

// Load without copying tensor contents. Throws InputError with a message
// naming `path` (and the node where there is one) for anything unreadable.
// More than `max_nodes` nodes (all graphs and functions together) is an
// InputError before they are built.
Model load_model(const std::string& path, size_t max_nodes = kDefaultMaxNodes);
// Parse from bytes already in memory (tests, fuzzers); `bytes` must outlive the model.
Model parse_model(std::string_view bytes, const std::string& path_for_errors, size_t max_nodes = kDefaultMaxNodes);

// A TensorProto file (an ONNX test data set's input_0.pb) as a real input:
// its elements read when there are at most `max_elements`. Throws
// InputError naming `path` for anything unreadable.
RealTensor read_tensor_file(const std::string& path, int64_t max_elements);
// The same from bytes in memory (tests, fuzzers); `path` names it in errors.
RealTensor parse_tensor_proto(std::string_view bytes, const std::string& path, int64_t max_elements);

// True when the content looks like an ONNX ModelProto (format detection).
bool looks_like_onnx(std::string_view head);

}  // namespace fakeprop::onnx
