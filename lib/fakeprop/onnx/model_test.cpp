#include "fakeprop/onnx/model.h"
#include "fakeprop/onnx/model_test_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "fakeprop/onnx/loader_test_util.h"
#include "fakeprop/util/mapped_file.h"
#include "fakeprop/onnx/wire.h"
#include "fakeprop/util/error.h"

namespace fakeprop::onnx {
namespace {

using nlohmann::json;
using testing::loader_testdata;
using testing::Proto;
using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;

const char* const kModels[] = {"add_conv", "initializers", "every_attribute", "if",
                               "loop",     "function",     "external",        "types"};

const json& expected_models() {
  static const json expected = json::parse(read_bytes(loader_testdata("expected.json")));
  return expected;
}

// The message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string input_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// ------------------------------------------------- comparison with python-onnx

void expect_type(const TypeInfo& type, const json& want, const std::string& where) {
  SCOPED_TRACE(where);
  const std::string kind = want.at("kind");
  if (kind == "tensor" || kind == "sparse_tensor") {
    EXPECT_EQ(type.kind, kind == "tensor" ? TypeInfo::Kind::Tensor : TypeInfo::Kind::SparseTensor);
    EXPECT_EQ(type.elem_type, want.at("elem_type").get<int32_t>());
    if (want.at("shape").is_null()) {
      EXPECT_FALSE(type.shape.has_value());
      return;
    }
    ASSERT_TRUE(type.shape.has_value());
    ASSERT_EQ(type.shape->size(), want.at("shape").size());
    for (size_t i = 0; i < type.shape->size(); ++i) {
      const Dim& dim = (*type.shape)[i];
      const json& w = want.at("shape")[i];
      if (w.is_number()) {
        EXPECT_EQ(dim.kind, Dim::Kind::Value);
        EXPECT_EQ(dim.value, w.get<int64_t>());
      } else if (w.is_string()) {
        EXPECT_EQ(dim.kind, Dim::Kind::Param);
        EXPECT_EQ(dim.param, w.get<std::string>());
      } else {
        EXPECT_EQ(dim.kind, Dim::Kind::Unknown);
      }
    }
  } else if (kind == "sequence" || kind == "optional") {
    EXPECT_EQ(type.kind, kind == "sequence" ? TypeInfo::Kind::Sequence : TypeInfo::Kind::Optional);
    ASSERT_NE(type.elem, nullptr);
    expect_type(*type.elem, want.at("elem"), where + ".elem");
  } else if (kind == "map") {
    EXPECT_EQ(type.kind, TypeInfo::Kind::Map);
    EXPECT_EQ(type.map_key_type, want.at("key_type").get<int32_t>());
    ASSERT_NE(type.elem, nullptr);
    expect_type(*type.elem, want.at("elem"), where + ".value");
  } else {
    EXPECT_EQ(type.kind, TypeInfo::Kind::Unknown);
  }
}

void expect_value_infos(const std::vector<ValueInfo>& got, const json& want, const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].at("name").get<std::string>()) << where;
    expect_type(got[i].type, want[i].at("type"), where + "/" + got[i].name);
  }
}

bool is_float_type(int32_t data_type) { return data_type == 1 || data_type == 10 || data_type == 11 || data_type == 16; }

void expect_tensor(const TensorRef& tensor, const json& want, const std::string& where) {
  SCOPED_TRACE(where + "/" + tensor.name);
  EXPECT_EQ(tensor.name, want.at("name").get<std::string>());
  EXPECT_EQ(tensor.dims, want.at("dims").get<std::vector<int64_t>>());
  EXPECT_EQ(tensor.data_type, want.at("data_type").get<int32_t>());
  if (!want.contains("values")) return;  // strings
  const std::string storage = want.at("storage");
  EXPECT_EQ(tensor.storage, storage == "raw"        ? TensorRef::Storage::Raw
                            : storage == "external" ? TensorRef::Storage::External
                                                    : TensorRef::Storage::Typed);
  const json& values = want.at("values");
  EXPECT_EQ(tensor.numel(), static_cast<int64_t>(values.size()));
  if (is_float_type(tensor.data_type)) {
    const auto got = tensor.read_doubles(1 << 20);
    ASSERT_TRUE(got.has_value());
    ASSERT_EQ(got->size(), values.size());
    for (size_t i = 0; i < got->size(); ++i) EXPECT_EQ((*got)[i], values[i].get<double>()) << "element " << i;
    EXPECT_FALSE(tensor.read_int64s(1 << 20).has_value()) << "floats are no integers";
  } else {
    const auto got = tensor.read_int64s(1 << 20);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, values.get<std::vector<int64_t>>());
  }
}

void expect_graph(const Graph& graph, const json& want, const std::string& where);

void expect_attribute(const Attribute& attr, const json& want, const std::string& where) {
  SCOPED_TRACE(where + "@" + attr.name);
  EXPECT_EQ(attr.name, want.at("name").get<std::string>());
  EXPECT_EQ(static_cast<int>(attr.type), want.at("type").get<int>());
  switch (attr.type) {
    case Attribute::Type::Float: EXPECT_EQ(attr.f, want.at("f").get<float>()); break;
    case Attribute::Type::Int: EXPECT_EQ(attr.i, want.at("i").get<int64_t>()); break;
    case Attribute::Type::String: EXPECT_EQ(attr.s, want.at("s").get<std::string>()); break;
    case Attribute::Type::Tensor:
      ASSERT_NE(attr.t, nullptr);
      expect_tensor(*attr.t, want.at("t"), where);
      break;
    case Attribute::Type::Graph:
      ASSERT_NE(attr.g, nullptr);
      expect_graph(*attr.g, want.at("g"), where + "/" + attr.name);
      break;
    case Attribute::Type::Floats: EXPECT_EQ(attr.floats(), want.at("floats").get<std::vector<float>>()); break;
    case Attribute::Type::Ints: EXPECT_EQ(attr.ints, want.at("ints").get<std::vector<int64_t>>()); break;
    case Attribute::Type::Strings: EXPECT_EQ(attr.strings(), want.at("strings").get<std::vector<std::string>>()); break;
    case Attribute::Type::Tensors:
      ASSERT_EQ(attr.tensors().size(), want.at("tensors").size());
      for (size_t i = 0; i < attr.tensors().size(); ++i) expect_tensor(*attr.tensors()[i], want.at("tensors")[i], where);
      break;
    case Attribute::Type::Graphs:
      ASSERT_EQ(attr.graphs().size(), want.at("graphs").size());
      for (size_t i = 0; i < attr.graphs().size(); ++i) expect_graph(*attr.graphs()[i], want.at("graphs")[i], where);
      break;
    case Attribute::Type::SparseTensor:
      ASSERT_NE(attr.t, nullptr);
      EXPECT_EQ(attr.t->name, want.at("sparse").at("name").get<std::string>());
      EXPECT_EQ(attr.t->dims, want.at("sparse").at("dims").get<std::vector<int64_t>>());
      EXPECT_EQ(attr.t->data_type, want.at("sparse").at("data_type").get<int32_t>());
      break;
    case Attribute::Type::TypeProto:
      ASSERT_NE(attr.tp(), nullptr);
      expect_type(*attr.tp(), want.at("tp"), where);
      break;
    default: ADD_FAILURE() << "attribute type not in the fixtures: " << static_cast<int>(attr.type);
  }
}

std::vector<std::string> strings(const std::vector<Name>& names) { return {names.begin(), names.end()}; }

template <class Nodes>  // a graph's (ChunkedVector) or a function's (std::vector)
void expect_nodes(const Nodes& nodes, const json& want, const std::string& where) {
  ASSERT_EQ(nodes.size(), want.size()) << where;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    const json& w = want[i];
    const std::string file_name = w.at("name");
    // Unnamed nodes are named "<op_type>_<index>" (no clashes in the fixtures).
    EXPECT_EQ(node.name, file_name.empty() ? w.at("op_type").get<std::string>() + "_" + std::to_string(i) : file_name);
    EXPECT_EQ(node.op_type, w.at("op_type").get<std::string>());
    EXPECT_EQ(node.domain, w.at("domain").get<std::string>());
    EXPECT_EQ(strings(node.inputs), w.at("inputs").get<std::vector<std::string>>());
    EXPECT_EQ(strings(node.outputs), w.at("outputs").get<std::vector<std::string>>());
    ASSERT_EQ(node.attributes.size(), w.at("attributes").size());
    for (size_t a = 0; a < node.attributes.size(); ++a) {
      expect_attribute(node.attributes[a], w.at("attributes")[a], where + "/" + node.name);
    }
  }
}

void expect_graph(const Graph& graph, const json& want, const std::string& where) {
  EXPECT_EQ(graph.name, want.at("name").get<std::string>()) << where;
  expect_nodes(graph.nodes, want.at("nodes"), where);
  ASSERT_EQ(graph.initializers.size(), want.at("initializers").size()) << where;
  for (size_t i = 0; i < graph.initializers.size(); ++i) {
    expect_tensor(*graph.initializers[i], want.at("initializers")[i], where);
  }
  expect_value_infos(graph.inputs, want.at("inputs"), where + " inputs");
  expect_value_infos(graph.outputs, want.at("outputs"), where + " outputs");
  expect_value_infos(graph.value_info, want.at("value_info"), where + " value_info");
}

std::map<std::string, int64_t> opsets_of(const json& want) {
  std::map<std::string, int64_t> out;
  for (const auto& [domain, version] : want.items()) out[domain] = version.get<int64_t>();
  return out;
}

TEST(OnnxTypeString, SpellsTypesAsOperatorSchemasDo) {
  using namespace testing::dtypes;
  auto tensor = [](int32_t elem) {
    auto t = std::make_shared<TypeInfo>();
    t->kind = TypeInfo::Kind::Tensor;
    t->elem_type = elem;
    return t;
  };
  auto wrap = [](TypeInfo::Kind kind, std::shared_ptr<TypeInfo> elem, int32_t key = 0) {
    auto t = std::make_shared<TypeInfo>();
    t->kind = kind;
    t->elem = std::move(elem);
    t->map_key_type = key;
    return t;
  };
  const struct {
    std::shared_ptr<TypeInfo> type;
    const char* text;
  } cases[] = {
      {tensor(kFloat), "tensor(float)"},
      {tensor(kInt64), "tensor(int64)"},
      {tensor(17), "tensor(float8e4m3fn)"},
      {tensor(28), "tensor(float6e3m2)"},
      {tensor(99), "tensor(undefined)"},
      {wrap(TypeInfo::Kind::Sequence, tensor(kBool)), "seq(tensor(bool))"},
      {wrap(TypeInfo::Kind::Optional, wrap(TypeInfo::Kind::Sequence, tensor(kFloat))), "optional(seq(tensor(float)))"},
      {wrap(TypeInfo::Kind::Map, tensor(kFloat), kString), "map(string, tensor(float))"},
      {wrap(TypeInfo::Kind::Optional, nullptr), "optional(undefined)"},
  };
  for (const auto& c : cases) EXPECT_EQ(type_string(*c.type), c.text);
}

TEST(OnnxLoader, MatchesPythonOnnx) {
  for (const char* name : kModels) {
    SCOPED_TRACE(name);
    const json& want = expected_models().at(name);
    const Model model = load_model(loader_testdata(std::string(name) + ".onnx"));
    EXPECT_EQ(model.ir_version, want.at("ir_version").get<int64_t>());
    EXPECT_EQ(model.producer_name, want.at("producer_name").get<std::string>());
    EXPECT_EQ(model.producer_version, want.at("producer_version").get<std::string>());
    EXPECT_EQ(model.opset_imports, opsets_of(want.at("opset_imports")));
    expect_graph(model.graph, want.at("graph"), name);
    ASSERT_EQ(model.functions.size(), want.at("functions").size());
    for (size_t i = 0; i < model.functions.size(); ++i) {
      const Function& f = model.functions[i];
      const json& w = want.at("functions")[i];
      EXPECT_EQ(f.name, w.at("name").get<std::string>());
      EXPECT_EQ(f.domain, w.at("domain").get<std::string>());
      EXPECT_EQ(f.inputs, w.at("inputs").get<std::vector<std::string>>());
      EXPECT_EQ(f.outputs, w.at("outputs").get<std::vector<std::string>>());
      EXPECT_EQ(f.attribute_names, w.at("attributes").get<std::vector<std::string>>());
      EXPECT_EQ(f.opset_imports, opsets_of(w.at("opset_imports")));
      expect_nodes(f.nodes, w.at("nodes"), f.name);
    }
  }
}

// ------------------------------------------------- hand-written expectations

TEST(OnnxLoader, AddConvStructure) {
  const Model model = load_model(loader_testdata("add_conv.onnx"));
  EXPECT_EQ(model.path, loader_testdata("add_conv.onnx"));
  EXPECT_EQ(model.opset(""), 13);
  EXPECT_EQ(model.opset("ai.onnx"), 13);
  EXPECT_EQ(model.opset("com.microsoft"), 0);
  ASSERT_EQ(model.graph.nodes.size(), 2u);
  const Node& conv = model.graph.nodes[0];
  EXPECT_EQ(conv.name, "conv0");
  EXPECT_EQ(strings(conv.inputs), (std::vector<std::string>{"X", "W", "B"}));
  ASSERT_NE(conv.attr("kernel_shape"), nullptr);
  EXPECT_EQ(conv.attr("kernel_shape")->ints, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(conv.attr("pads")->ints, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv.attr("group")->type, Attribute::Type::Int);
  EXPECT_EQ(conv.attr("group")->i, 1);
  EXPECT_EQ(conv.attr("auto_pad"), nullptr);
  EXPECT_EQ(model.graph.nodes[1].name, "Add_1");
  const ValueInfo& x = model.graph.inputs[0];
  ASSERT_TRUE(x.type.shape.has_value());
  ASSERT_EQ(x.type.shape->size(), 4u);
  EXPECT_EQ((*x.type.shape)[0].param, "N");
  EXPECT_EQ((*x.type.shape)[1].kind, Dim::Kind::Value);
  EXPECT_EQ((*x.type.shape)[1].value, 3);
  const TensorRef& weight = *model.graph.initializers[0];
  EXPECT_EQ(weight.dtype(), DType::Float32);
  EXPECT_EQ(weight.numel(), 108);
  // The view points into the mapping: no copy of the weights was made.
  const std::string_view file = model.file->bytes();
  ASSERT_EQ(weight.storage, TensorRef::Storage::Raw);
  EXPECT_GE(weight.bytes.data(), file.data());
  EXPECT_LE(weight.bytes.data() + weight.bytes.size(), file.data() + file.size());
  EXPECT_EQ(weight.bytes.size(), 108u * 4);
  const auto values = weight.read_doubles(1000);
  ASSERT_TRUE(values.has_value());
  EXPECT_EQ((*values)[0], 0.0);
  EXPECT_EQ((*values)[107], 107.0 / 8);
  EXPECT_FALSE(weight.read_doubles(107).has_value()) << "numel above max_elements";
}

TEST(OnnxLoader, TypedInitializerEncodings) {
  const Model model = load_model(loader_testdata("initializers.onnx"));
  std::map<std::string, const TensorRef*> by_name;
  for (const auto& t : model.graph.initializers) by_name[t->name] = t.get();
  const TensorRef& typed_i64 = *by_name.at("typed_i64");
  EXPECT_EQ(typed_i64.storage, TensorRef::Storage::Typed);
  EXPECT_EQ(typed_i64.typed_field, 7);
  EXPECT_TRUE(typed_i64.typed_packed);
  EXPECT_EQ(*typed_i64.read_int64s(10), (std::vector<int64_t>{7, -7, int64_t{1} << 62, -(int64_t{1} << 62)}));
  EXPECT_EQ(by_name.at("typed_i8")->typed_field, 5);
  EXPECT_EQ(*by_name.at("typed_i8")->read_int64s(10), (std::vector<int64_t>{-128, 5, 127}));
  EXPECT_EQ(by_name.at("typed_u64")->typed_field, 11);
  EXPECT_EQ(*by_name.at("typed_f16")->read_doubles(10), (std::vector<double>{0.5, -3.0, 1024.0}));
  EXPECT_EQ(*by_name.at("raw_f16")->read_doubles(10), (std::vector<double>{1.5, -2.0, 65504.0, std::ldexp(1.0, -14)}));
  EXPECT_EQ(*by_name.at("typed_bf16")->read_doubles(10), (std::vector<double>{1.0, -2.5, 3.140625}));
  EXPECT_EQ(by_name.at("typed_bf16")->dtype(), DType::BFloat16);
  EXPECT_EQ(*by_name.at("raw_bool")->read_int64s(10), (std::vector<int64_t>{1, 0, 0, 1}));
  // read_doubles widens integers; read_int64s refuses floats.
  EXPECT_EQ(*by_name.at("raw_i16")->read_doubles(10), (std::vector<double>{-3.0, 200.0}));
  EXPECT_FALSE(by_name.at("typed_f32")->read_int64s(10).has_value());
  EXPECT_EQ(by_name.at("scalar_i64")->dims.size(), 0u);
  EXPECT_EQ(*by_name.at("scalar_i64")->read_int64s(1), (std::vector<int64_t>{42}));
  EXPECT_EQ(by_name.at("empty_f32")->numel(), 0);
  EXPECT_EQ(by_name.at("empty_f32")->read_doubles(0)->size(), 0u);
  const TensorRef& strings = *by_name.at("strings");
  EXPECT_EQ(strings.storage, TensorRef::Storage::Typed);
  EXPECT_EQ(strings.typed_field, 6);
  ASSERT_EQ(strings.typed_chunks.size(), 2u);
  EXPECT_EQ(strings.typed_chunks[0], "ab");
  EXPECT_EQ(strings.typed_chunks[1], "xyz");
  EXPECT_FALSE(strings.read_int64s(10).has_value());
  EXPECT_FALSE(strings.read_doubles(10).has_value());
}

TEST(OnnxLoader, ConstantAndSubgraphs) {
  const Model every = load_model(loader_testdata("every_attribute.onnx"));
  const Node& constant = every.graph.nodes[0];
  EXPECT_EQ(constant.op_type, "Constant");
  const Attribute* value = constant.attr("value");
  ASSERT_NE(value, nullptr);
  ASSERT_EQ(value->type, Attribute::Type::Tensor);
  EXPECT_EQ(*value->t->read_int64s(3), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(every.graph.nodes[1].domain, "com.example");
  EXPECT_EQ(every.opset("com.example"), 1);
  // Subgraph node names are filled per graph.
  const Attribute* g = every.graph.nodes[1].attr("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->g->nodes[0].name, "Neg_0");

  const Model model = load_model(loader_testdata("if.onnx"));
  const Node& if_node = model.graph.nodes[0];
  EXPECT_EQ(if_node.name, "If_0");
  const Graph& then_branch = *if_node.attr("then_branch")->g;
  const Graph& else_branch = *if_node.attr("else_branch")->g;
  EXPECT_EQ(then_branch.name, "then_branch");
  EXPECT_EQ(then_branch.nodes[0].name, "Relu_0");
  EXPECT_EQ(else_branch.nodes[0].name, "Neg_0");
  EXPECT_EQ(else_branch.nodes[1].name, "abs");

  const Model loop = load_model(loader_testdata("loop.onnx"));
  const Graph& body = *loop.graph.nodes[0].attr("body")->g;
  EXPECT_EQ(body.inputs.size(), 3u);
  EXPECT_EQ(body.outputs[2].name, "scan_out");
  EXPECT_EQ(*body.initializers[0]->read_int64s(1), (std::vector<int64_t>{0}));
}

TEST(OnnxLoader, FunctionAttributeDefaults) {
  const Model model = load_model(loader_testdata("function.onnx"));
  ASSERT_EQ(model.functions.size(), 1u);
  const Function& f = model.functions[0];
  EXPECT_EQ(f.nodes[0].name, "Mul_0");
  // attribute_proto (field 11) was appended by the generator as raw bytes.
  ASSERT_EQ(f.attribute_defaults.size(), 1u);
  EXPECT_EQ(f.attribute_defaults[0].name, "alpha");
  EXPECT_EQ(f.attribute_defaults[0].type, Attribute::Type::Float);
  EXPECT_EQ(f.attribute_defaults[0].f, 0.5f);
  EXPECT_EQ(model.graph.nodes[0].attr("scale")->f, 2.0f);
}

TEST(OnnxLoader, SequenceAndOptionalTypes) {
  const Model model = load_model(loader_testdata("types.onnx"));
  std::map<std::string, const TypeInfo*> types;
  for (const ValueInfo& v : model.graph.value_info) types[v.name] = &v.type;
  for (const ValueInfo& v : model.graph.outputs) types[v.name] = &v.type;
  const TypeInfo& seq = *types.at("seq");
  EXPECT_EQ(seq.kind, TypeInfo::Kind::Sequence);
  ASSERT_NE(seq.elem, nullptr);
  EXPECT_EQ(seq.elem->kind, TypeInfo::Kind::Tensor);
  EXPECT_EQ(seq.elem->elem_type, 1);
  ASSERT_TRUE(seq.elem->shape.has_value());
  EXPECT_EQ((*seq.elem->shape)[0].param, "N");
  const TypeInfo& opt = *types.at("opt");
  EXPECT_EQ(opt.kind, TypeInfo::Kind::Optional);
  EXPECT_EQ(opt.elem->elem_type, 7);
  const TypeInfo& opt_seq = *types.at("opt_seq");
  EXPECT_EQ(opt_seq.elem->kind, TypeInfo::Kind::Sequence);
  EXPECT_FALSE(opt_seq.elem->elem->shape.has_value()) << "unknown rank";
}

// ------------------------------------------------- external data

TEST(OnnxLoader, ExternalDataIsReadOnlyWhenAsked) {
  TempDir dir;
  std::filesystem::copy_file(loader_testdata("external.onnx"), dir.file("external.onnx"));
  // No side file yet: loading must not look for it.
  const Model model = load_model(dir.file("external.onnx"));
  ASSERT_EQ(model.graph.initializers.size(), 2u);
  const TensorRef& ints = *model.graph.initializers[0];
  const TensorRef& floats = *model.graph.initializers[1];
  EXPECT_EQ(ints.storage, TensorRef::Storage::External);
  EXPECT_EQ(ints.external_location, "external.bin");
  EXPECT_EQ(ints.base_dir, dir.path().string());
  EXPECT_EQ(ints.external_offset, 0);
  EXPECT_EQ(ints.external_length, 48);
  EXPECT_EQ(floats.external_offset, 48);
  const std::string message = input_error_of([&] { (void)ints.read_int64s(100); });
  EXPECT_EQ(message, dir.file("external.bin") + ": No such file or directory (external data of tensor 'ext_i64')");
  // Limits are checked before touching the file.
  EXPECT_FALSE(ints.read_int64s(5).has_value());

  std::filesystem::copy_file(loader_testdata("external.bin"), dir.file("external.bin"));
  EXPECT_EQ(*ints.read_int64s(6), (std::vector<int64_t>{0, 11, 22, 33, 44, 55}));
  EXPECT_EQ(*floats.read_doubles(3), (std::vector<double>{0.5, 1.5, -2.25}));

  // A side file too short for the tensor.
  write_bytes(dir.file("external.bin"), read_bytes(loader_testdata("external.bin")).substr(0, 50));
  EXPECT_NE(input_error_of([&] { (void)floats.read_doubles(3); }).find("external.bin"), std::string::npos);
}

TEST(OnnxLoader, ExternalLocationMustStayInsideModelDirectory) {
  for (const char* location : {"/etc/passwd", "../secret.bin", "a/../../b.bin", ""}) {
    SCOPED_TRACE(location);
    const Proto tensor = Proto()
                             .varint(1, 2)
                             .varint(2, 7)
                             .str(8, "w")
                             .msg(13, Proto().str(1, "location").str(2, location))
                             .varint(14, 1);
    const Proto model = Proto().varint(1, 8).msg(7, Proto().msg(5, tensor)).msg(8, Proto().varint(2, 13));
    const std::string message = input_error_of([&] { parse_model(model.bytes(), "m.onnx"); });
    EXPECT_NE(message.find("m.onnx: tensor 'w'"), std::string::npos) << message;
  }
}

// ------------------------------------------------- hand-built encodings

TEST(OnnxLoader, UnpackedAndSplitTypedFields) {
  // int64_data written one tag per value (unpacked) and as two packed runs.
  std::string packed_run_1, packed_run_2;
  wire::append_varint(packed_run_1, 5);
  wire::append_varint(packed_run_1, static_cast<uint64_t>(int64_t{-1}));
  wire::append_varint(packed_run_2, 300);
  const Proto unpacked = Proto().varint(1, 3).varint(2, 7).str(8, "u").varint(7, 5).varint(7, -1).varint(7, 300);
  const Proto split = Proto().varint(1, 3).varint(2, 7).str(8, "s").str(7, packed_run_1).str(7, packed_run_2);
  // float_data unpacked (fixed32 per value), dims given unpacked too.
  uint32_t one_half = 0, minus_two = 0;
  const float half = 0.5f, minus = -2.0f;
  std::memcpy(&one_half, &half, 4);
  std::memcpy(&minus_two, &minus, 4);
  const Proto floats = Proto().varint(1, 2).varint(2, 1).str(8, "f").fixed32(4, one_half).fixed32(4, minus_two);
  const Proto graph = Proto().msg(5, unpacked).msg(5, split).msg(5, floats);
  const Proto model = Proto().varint(1, 8).msg(7, graph);
  const Model m = parse_model(model.bytes(), "hand.onnx");
  ASSERT_EQ(m.graph.initializers.size(), 3u);
  const TensorRef& u = *m.graph.initializers[0];
  EXPECT_EQ(u.storage, TensorRef::Storage::Typed);
  EXPECT_FALSE(u.typed_packed);
  EXPECT_EQ(u.typed_chunks.size(), 3u);
  EXPECT_EQ(*u.read_int64s(3), (std::vector<int64_t>{5, -1, 300}));
  const TensorRef& s = *m.graph.initializers[1];
  EXPECT_TRUE(s.typed_packed);
  EXPECT_EQ(s.typed_chunks.size(), 2u);
  EXPECT_EQ(*s.read_int64s(3), (std::vector<int64_t>{5, -1, 300}));
  EXPECT_EQ(*m.graph.initializers[2]->read_doubles(2), (std::vector<double>{0.5, -2.0}));
  EXPECT_TRUE(m.opset_imports.empty());
  EXPECT_EQ(m.opset(""), 0);
}

// A TensorRef over little-endian raw bytes; `bytes` must outlive it.
TensorRef raw_tensor(int32_t data_type, std::vector<int64_t> dims, const std::string& bytes) {
  TensorRef t;
  t.name = "t";
  t.data_type = data_type;
  t.dims = std::move(dims);
  t.storage = TensorRef::Storage::Raw;
  t.bytes = bytes;
  return t;
}

TEST(OnnxLoader, DecodesSmallFloatFormats) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    int32_t data_type;
    std::string bytes;
    std::vector<double> want;  // NaN written as the NaN constant
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Values from the formats' definitions (OCP FP8, IEEE half, bfloat16, E8M0, FP4).
  const Case cases[] = {
      // float16: 1.0 = 0x3c00, -2.0 = 0xc000, smallest subnormal 0x0001 = 2^-24, inf 0x7c00
      {10, std::string("\x00\x3c\x00\xc0\x01\x00\x00\x7c", 8), {1.0, -2.0, std::ldexp(1.0, -24), inf}},
      // bfloat16: 1.0 = 0x3f80, -0.5 = 0xbf00
      {16, std::string("\x80\x3f\x00\xbf", 4), {1.0, -0.5}},
      // E4M3FN: 0x7e = 448 (max), 0x01 = 2^-9, 0x7f = NaN, 0xb8 = -1.0
      {17, "\x7e\x01\x7f\xb8", {448.0, std::ldexp(1.0, -9), nan, -1.0}},
      // E4M3FNUZ: bias 8: 0x40 = 1.0, 0x80 = NaN, 0x7f = 240 (max)
      {18, "\x40\x80\x7f", {1.0, nan, 240.0}},
      // E5M2: 0x3c = 1.0, 0x7b = 57344 (max), 0x7c = inf, 0xfc = -inf
      {19, "\x3c\x7b\x7c\xfc", {1.0, 57344.0, inf, -inf}},
      // E5M2FNUZ: bias 16: 0x40 = 1.0, 0x80 = NaN, 0x7f = 57344
      {20, "\x40\x80\x7f", {1.0, nan, 57344.0}},
      // E8M0: 127 = 1.0, 128 = 2.0, 0 = 2^-127, 0xff = NaN
      {24, std::string("\x7f\x80\x00\xff", 4), {1.0, 2.0, std::ldexp(1.0, -127), nan}},
      // FLOAT4E2M1, low nibble first: 0x2 = 1.0, 0x7 = 6.0, 0x9 = -0.5, 0x1 = 0.5
      {23, "\x72\x19", {1.0, 6.0, -0.5, 0.5}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.data_type);
    const TensorRef t = raw_tensor(c.data_type, {static_cast<int64_t>(c.want.size())}, c.bytes);
    const auto got = t.read_doubles(100);
    ASSERT_TRUE(got.has_value());
    ASSERT_EQ(got->size(), c.want.size());
    for (size_t i = 0; i < got->size(); ++i) {
      if (std::isnan(c.want[i])) {
        EXPECT_TRUE(std::isnan((*got)[i])) << i;
      } else {
        EXPECT_EQ((*got)[i], c.want[i]) << i;
      }
    }
  }
}

TEST(OnnxLoader, DecodesIntegers) {
  struct Case {
    int32_t data_type;
    int64_t numel;
    std::string bytes;
    std::optional<std::vector<int64_t>> want;
  };
  const Case cases[] = {
      {3, 2, "\xff\x80", std::vector<int64_t>{-1, -128}},                  // int8
      {2, 2, "\xff\x80", std::vector<int64_t>{255, 128}},                  // uint8
      {5, 1, "\xfe\xff", std::vector<int64_t>{-2}},                        // int16
      {12, 1, "\xff\xff\xff\xff", std::vector<int64_t>{4294967295}},       // uint32
      {6, 1, "\xff\xff\xff\x7f", std::vector<int64_t>{2147483647}},        // int32
      {9, 3, std::string("\x01\x00\x01", 3), std::vector<int64_t>{1, 0, 1}},  // bool
      // int4 / uint4, two per byte, low nibble first; odd count leaves a pad nibble
      {22, 3, "\x8f\x07", std::vector<int64_t>{-1, -8, 7}},
      {21, 3, "\x8f\x07", std::vector<int64_t>{15, 8, 7}},
      // int2 / uint2, four per byte
      {26, 4, "\xe4", std::vector<int64_t>{0, 1, -2, -1}},
      {25, 4, "\xe4", std::vector<int64_t>{0, 1, 2, 3}},
      // uint64 above int64's range does not fit
      {13, 1, "\xff\xff\xff\xff\xff\xff\xff\xff", std::nullopt},
      // complex and float types are no integers
      {14, 1, std::string(8, '\0'), std::nullopt},
      {1, 1, std::string(4, '\0'), std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.data_type);
    const TensorRef t = raw_tensor(c.data_type, {c.numel}, c.bytes);
    EXPECT_EQ(t.read_int64s(100), c.want);
  }
  // uint64 still reads as a double.
  const std::string two_to_63("\x00\x00\x00\x00\x00\x00\x00\x80", 8);
  const TensorRef big = raw_tensor(13, {1}, two_to_63);
  EXPECT_EQ(*big.read_doubles(1), (std::vector<double>{std::ldexp(1.0, 63)}));
}

TEST(OnnxLoader, TypedInt4AndFloat16Bits) {
  // int32_data carries int4 as packed bytes and float16 as bit patterns.
  std::string int4_run, f16_run;
  wire::append_varint(int4_run, 0x8f);
  wire::append_varint(int4_run, 0x07);
  wire::append_varint(f16_run, 0x3c00);
  wire::append_varint(f16_run, 0xc000);
  const Proto int4 = Proto().varint(1, 3).varint(2, 22).str(8, "i4").str(5, int4_run);
  const Proto f16 = Proto().varint(1, 2).varint(2, 10).str(8, "h").str(5, f16_run);
  const std::string file = Proto().varint(1, 8).msg(7, Proto().msg(5, int4).msg(5, f16)).bytes();
  const Model m = parse_model(file, "t.onnx");
  EXPECT_EQ(*m.graph.initializers[0]->read_int64s(3), (std::vector<int64_t>{-1, -8, 7}));
  EXPECT_EQ(*m.graph.initializers[1]->read_doubles(2), (std::vector<double>{1.0, -2.0}));
}

TEST(OnnxLoader, ShortDataIsAnInputError) {
  const TensorRef raw = raw_tensor(7, {3}, std::string(16, '\0'));
  EXPECT_NE(input_error_of([&] { (void)raw.read_int64s(3); }).find("raw_data has 16 bytes, needs 24"), std::string::npos);
  std::string run;
  wire::append_varint(run, 1);
  const Proto typed = Proto().varint(1, 2).varint(2, 7).str(8, "few").str(7, run);
  const std::string few_file = Proto().varint(1, 8).msg(7, Proto().msg(5, typed)).bytes();
  const Model m = parse_model(few_file, "t.onnx");
  EXPECT_NE(input_error_of([&] { (void)m.graph.initializers[0]->read_int64s(2); }).find("'few'"), std::string::npos);
  // No data at all: values unknown rather than an error.
  const Proto empty = Proto().varint(1, 2).varint(2, 7).str(8, "none");
  const std::string empty_file = Proto().varint(1, 8).msg(7, Proto().msg(5, empty)).bytes();
  const Model n = parse_model(empty_file, "t.onnx");
  EXPECT_EQ(n.graph.initializers[0]->storage, TensorRef::Storage::None);
  EXPECT_FALSE(n.graph.initializers[0]->read_int64s(2).has_value());
}

TEST(OnnxLoader, NodeNamesAreFilledAndUnique) {
  auto node = [](const char* op, const char* name) {
    Proto p = Proto().str(4, op);
    if (*name) p.str(3, name);
    return p;
  };
  const Proto graph = Proto()
                          .msg(1, node("Add", ""))        // Add_0 is taken below: Add_0_1
                          .msg(1, node("Relu", "Add_0"))  // kept
                          .msg(1, node("Mul", "m"))       // kept
                          .msg(1, node("Mul", "m"))       // duplicate: m_1
                          .msg(1, node("Neg", ""))        // Neg_4
                          .msg(1, node("Neg", "m_1"));    // given names win over renamed duplicates
  const std::string file = Proto().varint(1, 8).msg(7, graph).bytes();
  const Model m = parse_model(file, "names.onnx");
  std::vector<std::string> names;
  for (const Node& n : m.graph.nodes) names.push_back(n.name.str());
  EXPECT_EQ(names, (std::vector<std::string>{"Add_0_1", "Add_0", "m", "m_2", "Neg_4", "m_1"}));
}

TEST(OnnxLoader, SkipsUnknownFieldsOfEveryWireType) {
  // Fields a newer ONNX (or a vendor) might add, in every wire type.
  const Proto unknown = Proto()
                            .varint(1000, -1)
                            .raw(std::string("\xc1\x3e\x01\x02\x03\x04\x05\x06\x07\x08", 10))  // 1000, fixed64
                            .str(1001, "payload")
                            .fixed32(1002, 0xdeadbeef);
  const Proto tensor = Proto().raw(unknown.bytes()).varint(1, 1).varint(2, 7).str(8, "w").str(9, std::string(8, '\x01'));
  const Proto node = Proto().raw(unknown.bytes()).str(1, "w").str(2, "y").str(4, "Neg");
  const Proto graph = Proto().raw(unknown.bytes()).msg(1, node).msg(5, tensor).raw(unknown.bytes());
  const std::string file = Proto().raw(unknown.bytes()).varint(1, 9).msg(7, graph).raw(unknown.bytes()).bytes();
  // The unknown field comes first here, so sniffing cannot vouch for it.
  EXPECT_FALSE(looks_like_onnx(file));
  const std::string ordered = Proto().varint(1, 9).msg(7, graph).raw(unknown.bytes()).bytes();
  const Model m = parse_model(ordered, "u.onnx");
  EXPECT_EQ(m.ir_version, 9);
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "Neg");
  EXPECT_EQ(strings(m.graph.nodes[0].inputs), (std::vector<std::string>{"w"}));
  EXPECT_EQ(*m.graph.initializers[0]->read_int64s(1), (std::vector<int64_t>{0x0101010101010101}));
}

TEST(OnnxLoader, DefaultDomainSpellings) {
  const Proto model = Proto()
                          .varint(1, 8)
                          .msg(7, Proto().msg(1, Proto().str(4, "Relu").str(7, "ai.onnx")))
                          .msg(8, Proto().str(1, "ai.onnx").varint(2, 17))
                          .msg(8, Proto().str(1, "com.microsoft").varint(2, 1));
  const Model m = parse_model(model.bytes(), "d.onnx");
  EXPECT_EQ(m.opset(""), 17);
  EXPECT_EQ(m.opset("ai.onnx"), 17);
  EXPECT_EQ(m.opset("com.microsoft"), 1);
  EXPECT_EQ(m.graph.nodes[0].domain, "");
}

// ------------------------------------------------- errors

TEST(OnnxLoader, ErrorMessages) {
  const std::regex invalid(R"(^bad\.onnx: invalid ONNX protobuf: .+ \(at byte offset \d+\)$)");
  struct Case {
    const char* what;
    std::string bytes;
    const char* contains;
  };
  std::string deep = Proto().str(2, "g").bytes();
  for (int i = 0; i < 70; ++i) {
    // graph -> node -> attribute(g) -> graph ...
    const Proto attr = Proto().str(1, "g").varint(20, 5).str(6, deep);
    deep = Proto().msg(1, Proto().str(4, "If").msg(5, attr)).bytes();
  }
  const Case cases[] = {
      {"group", std::string("\x08\x08\x3b\x3c", 4), "groups"},
      {"bad wire type", std::string("\x08\x08\x0f", 3), "invalid wire type 7"},
      {"field zero", std::string("\x08\x08\x02\x00", 4), "invalid field number 0"},
      {"long varint", std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11), "varint"},
      {"length past end", std::string("\x08\x08\x3a\x10\x0a", 5), "runs past the end"},
      {"wrong wire type for name", Proto().varint(1, 8).msg(7, Proto().varint(2, 5)).bytes(), "GraphProto.name"},
      {"too deep", Proto().varint(1, 8).str(7, deep).bytes(), "nested deeper than 64"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string message = input_error_of([&] { parse_model(c.bytes, "bad.onnx"); });
    EXPECT_TRUE(std::regex_match(message, invalid)) << message;
    EXPECT_NE(message.find(c.contains), std::string::npos) << message;
  }
  // The offset points at the offending byte: the group tag is byte 2.
  EXPECT_NE(input_error_of([&] { parse_model(cases[0].bytes, "bad.onnx"); }).find("(at byte offset 2)"),
            std::string::npos);

  EXPECT_EQ(input_error_of([] { load_model("/nonexistent/dir/m.onnx"); }),
            "/nonexistent/dir/m.onnx: No such file or directory");
  EXPECT_EQ(input_error_of([] { parse_model(Proto().varint(1, 15).msg(7, Proto()).bytes(), "v.onnx"); }),
            "v.onnx: unsupported IR version 15");
  EXPECT_NO_THROW(parse_model(Proto().varint(1, 14).msg(7, Proto()).bytes(), "v.onnx"));
  EXPECT_EQ(input_error_of([] { parse_model("{\"nodes\": []}", "g.json"); }), "g.json: not an ONNX model (looks like JSON)");
  EXPECT_EQ(input_error_of([] { parse_model("", "e.onnx"); }), "e.onnx: not an ONNX model (empty file)");
  EXPECT_EQ(input_error_of([] { parse_model("hello world", "t.txt"); }).rfind("t.txt: not an ONNX model (", 0), 0u);
  EXPECT_EQ(input_error_of([] { parse_model(Proto().varint(1, 8).bytes(), "n.onnx"); }),
            "n.onnx: not an ONNX model (ModelProto has no graph)");
  const std::string negative_dim = Proto().varint(1, 8).msg(7, Proto().msg(5, Proto().varint(1, -3).str(8, "neg"))).bytes();
  EXPECT_EQ(input_error_of([&] { parse_model(negative_dim, "d.onnx"); }), "d.onnx: tensor 'neg' has negative dimension -3");
  TempDir dir;
  EXPECT_EQ(input_error_of([&] { load_model(dir.path().string()); }),
            dir.path().string() + ": is a directory, not a regular file; fakeprop reads only regular files");
}

TEST(OnnxLoader, LooksLikeOnnx) {
  for (const char* name : kModels) {
    const std::string bytes = read_bytes(loader_testdata(std::string(name) + ".onnx"));
    EXPECT_TRUE(looks_like_onnx(bytes)) << name;
    EXPECT_TRUE(looks_like_onnx(std::string_view(bytes).substr(0, 16))) << name << " prefix";
  }
  EXPECT_TRUE(looks_like_onnx(Proto().msg(7, Proto()).bytes())) << "graph first";
  EXPECT_TRUE(looks_like_onnx(Proto().msg(8, Proto().varint(2, 13)).bytes())) << "opset first";
  const char* not_onnx[] = {"", "{\"nodes\": []}", "  \n\t{}", "[1, 2]", "hello", "\x89PNG\r\n\x1a\n", "\n\x04name"};
  for (const char* text : not_onnx) EXPECT_FALSE(looks_like_onnx(text)) << text;
}

// Every prefix of a model must fail cleanly, except cuts that happen to fall
// between top-level fields (a shorter but well-formed ModelProto).
TEST(OnnxLoader, TruncationAtEveryOffset) {
  for (const char* name : {"add_conv", "every_attribute", "if", "function"}) {
    SCOPED_TRACE(name);
    const std::string bytes = read_bytes(loader_testdata(std::string(name) + ".onnx"));
    std::set<size_t> boundaries;
    wire::Reader reader(bytes.data(), bytes);
    wire::Field field;
    while (reader.next(field)) boundaries.insert(field.offset);
    size_t errors = 0;
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      // An exact-size heap copy, so a sanitizer would flag any overread.
      const std::vector<char> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
      const std::string_view view(prefix.data(), prefix.size());
      try {
        const Model m = parse_model(view, "cut.onnx");
        EXPECT_TRUE(boundaries.count(cut)) << "prefix of " << cut << " bytes parsed";
        for (const auto& t : m.graph.initializers) (void)t->read_doubles(1 << 16);
      } catch (const InputError& e) {
        ++errors;
        EXPECT_EQ(std::string(e.what()).rfind("cut.onnx: ", 0), 0u) << e.what();
      }
    }
    EXPECT_GE(errors + boundaries.size(), bytes.size());
  }
}

TEST(OnnxLoader, RandomBitFlipsNeverCrash) {
  std::mt19937_64 rng(20261129);
  size_t parsed = 0, rejected = 0;
  for (const char* name : kModels) {
    const std::string original = read_bytes(loader_testdata(std::string(name) + ".onnx"));
    for (int round = 0; round < 500; ++round) {
      std::vector<char> bytes(original.begin(), original.end());
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) {
        bytes[rng() % bytes.size()] ^= static_cast<char>(1u << (rng() % 8));
      }
      try {
        const Model m = parse_model(std::string_view(bytes.data(), bytes.size()), loader_testdata("flipped.onnx"));
        ++parsed;
        for (const auto& t : m.graph.initializers) {
          try {
            (void)t->read_int64s(1 << 16);
            (void)t->read_doubles(1 << 16);
          } catch (const InputError&) {
          }
        }
      } catch (const InputError&) {
        ++rejected;
      }
    }
  }
  std::printf("bit flips: %zu parsed, %zu rejected\n", parsed, rejected);
  EXPECT_EQ(parsed + rejected, std::size(kModels) * 500);
}

// ------------------------------------------------- big files

// Writes a model whose single initializer has `blob_bytes` of raw_data,
// leaving the blob as a hole (sparse file) so the test costs no disk.
void write_big_model(const std::string& path, uint64_t blob_bytes) {
  const int64_t numel = static_cast<int64_t>(blob_bytes / 4);
  std::string tensor_head;
  Proto head_fields = Proto().varint(1, numel).varint(2, 1).str(8, "big");
  tensor_head = head_fields.bytes();
  wire::append_len_header(tensor_head, 9, blob_bytes);
  const uint64_t tensor_size = tensor_head.size() + blob_bytes;
  const Proto rest = Proto()
                         .msg(1, Proto().str(1, "big").str(2, "out").str(4, "Identity"))
                         .msg(11, Proto().str(1, "x"))
                         .msg(12, Proto().str(1, "out"));
  std::string initializer_header;
  wire::append_len_header(initializer_header, 5, tensor_size);
  const uint64_t graph_size = initializer_header.size() + tensor_size + rest.bytes().size();
  std::string prefix = Proto().varint(1, 8).msg(8, Proto().varint(2, 13)).bytes();
  wire::append_len_header(prefix, 7, graph_size);
  prefix += initializer_header + tensor_head;

  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, prefix.data(), prefix.size()), static_cast<ssize_t>(prefix.size()));
  ASSERT_EQ(::lseek(fd, static_cast<off_t>(blob_bytes), SEEK_CUR), static_cast<off_t>(prefix.size() + blob_bytes));
  ASSERT_EQ(::write(fd, rest.bytes().data(), rest.bytes().size()), static_cast<ssize_t>(rest.bytes().size()));
  ::close(fd);
}

void expect_big_model_loads(uint64_t blob_bytes) {
  TempDir dir;
  const std::string path = dir.file("big.onnx");
  write_big_model(path, blob_bytes);
  const auto start = std::chrono::steady_clock::now();
  const Model m = load_model(path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("loaded a model with a %.1f MB initializer in %.4f s\n", static_cast<double>(blob_bytes) / 1e6, seconds);
  ASSERT_EQ(m.graph.initializers.size(), 1u);
  const TensorRef& big = *m.graph.initializers[0];
  EXPECT_EQ(big.numel(), static_cast<int64_t>(blob_bytes / 4));
  EXPECT_EQ(big.bytes.size(), blob_bytes);
  EXPECT_FALSE(big.read_doubles(1000).has_value());
  ASSERT_EQ(m.graph.nodes.size(), 1u);  // parsed from beyond the blob
  EXPECT_EQ(m.graph.nodes[0].op_type, "Identity");
  EXPECT_EQ(m.graph.outputs[0].name, "out");
}

TEST(OnnxLoader, LargeInitializerLoadsWithoutReadingIt) { expect_big_model_loads(200ull << 20); }

// Past 2 GB and 4 GB: every size and offset must be 64-bit.
TEST(OnnxLoader, ModelLargerThan4GB) { expect_big_model_loads(4500ull << 20); }

}  // namespace
}  // namespace fakeprop::onnx

// The opset the rules follow is the newest one the op-version cases were recorded at.
TEST(OnnxLoader, NewestOpsetIsTheOpVersionCasesNewest) {
  std::ifstream in(std::string(FAKEPROP_TESTDATA) + "/onnx/op_versions/expected.json");
  ASSERT_TRUE(in);
  const nlohmann::json expected = nlohmann::json::parse(in);
  int64_t newest = 0;
  for (const auto& [name, c] : expected["cases"].items()) newest = std::max<int64_t>(newest, c["opset"].get<int64_t>());
  EXPECT_EQ(newest, fakeprop::onnx::kNewestOnnxOpset);
}
