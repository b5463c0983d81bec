#include "fakeprop/onnx/writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

#include "fakeprop/onnx/loader_test_util.h"
#include "fakeprop/util/mapped_file.h"
#include "fakeprop/onnx/wire.h"
#include "fakeprop/util/error.h"

namespace fakeprop::onnx {
namespace {

using testing::loader_testdata;
using testing::read_bytes;
using testing::TempDir;

const char* const kModels[] = {"add_conv", "initializers", "every_attribute", "if",
                               "loop",     "function",     "external",        "types"};

template <typename F>
std::string input_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Value infos covering every dim kind: static, symbolic, unknown rank, unknown type.
std::vector<OutputValueInfo> sample_value_info() {
  return {
      {"a", 1, std::vector<std::variant<int64_t, std::string>>{int64_t{2}, std::string("s0"), std::string("2*s0 + 1")}},
      {"b", 7, std::vector<std::variant<int64_t, std::string>>{}},  // scalar
      {"c", 10, std::nullopt},                                       // rank unknown
      {"d", 0, std::vector<std::variant<int64_t, std::string>>{int64_t{0}, int64_t{1} << 40}},
  };
}

// The top-level fields other than the graph, byte for byte.
std::vector<std::string> non_graph_fields(std::string_view file) {
  std::vector<std::string> out;
  wire::Reader reader(file.data(), file);
  wire::Field field;
  while (reader.next(field)) {
    if (field.number != 7) out.emplace_back(field.encoded);
  }
  return out;
}

std::string_view tensor_bytes(const TensorRef& t) { return t.bytes; }

TEST(OnnxWriter, ReplacesValueInfoAndKeepsEverythingElse) {
  TempDir dir;
  for (const char* name : kModels) {
    SCOPED_TRACE(name);
    const Model original = load_model(loader_testdata(std::string(name) + ".onnx"));
    const std::string out = dir.file(std::string(name) + ".annotated.onnx");
    const auto infos = sample_value_info();
    write_annotated_model(original, infos, out);

    const Model written = load_model(out);
    // The model's own entries stay, in order, except those a new one replaces;
    // the new ones follow, in order.
    std::vector<std::string> kept;
    for (const auto& v : original.graph.value_info)
      if (std::none_of(infos.begin(), infos.end(), [&](const OutputValueInfo& i) { return i.name == v.name; }))
        kept.push_back(v.name);
    const size_t k = kept.size();
    ASSERT_EQ(written.graph.value_info.size(), k + infos.size());
    for (size_t i = 0; i < k; ++i) EXPECT_EQ(written.graph.value_info[i].name, kept[i]);
    const auto& a = written.graph.value_info[k];
    EXPECT_EQ(a.name, "a");
    EXPECT_EQ(a.type.kind, TypeInfo::Kind::Tensor);
    EXPECT_EQ(a.type.elem_type, 1);
    ASSERT_TRUE(a.type.shape.has_value());
    ASSERT_EQ(a.type.shape->size(), 3u);
    EXPECT_EQ((*a.type.shape)[0].kind, Dim::Kind::Value);
    EXPECT_EQ((*a.type.shape)[0].value, 2);
    EXPECT_EQ((*a.type.shape)[1].param, "s0");
    EXPECT_EQ((*a.type.shape)[2].param, "2*s0 + 1");
    const auto& b = written.graph.value_info[k + 1];
    ASSERT_TRUE(b.type.shape.has_value());
    EXPECT_TRUE(b.type.shape->empty());
    EXPECT_EQ(b.type.elem_type, 7);
    EXPECT_FALSE(written.graph.value_info[k + 2].type.shape.has_value());
    const auto& d = written.graph.value_info[k + 3];
    EXPECT_EQ(d.type.elem_type, 0);
    EXPECT_EQ((*d.type.shape)[1].value, int64_t{1} << 40);

    // Everything else is as it was.
    EXPECT_EQ(non_graph_fields(written.file->bytes()), non_graph_fields(original.file->bytes()));
    EXPECT_EQ(written.graph.nodes.size(), original.graph.nodes.size());
    for (size_t i = 0; i < written.graph.nodes.size(); ++i) {
      EXPECT_EQ(written.graph.nodes[i].name, original.graph.nodes[i].name);
      EXPECT_EQ(written.graph.nodes[i].outputs, original.graph.nodes[i].outputs);
    }
    EXPECT_EQ(written.graph.inputs.size(), original.graph.inputs.size());
    EXPECT_EQ(written.graph.outputs.size(), original.graph.outputs.size());
    EXPECT_EQ(written.functions.size(), original.functions.size());
    ASSERT_EQ(written.graph.initializers.size(), original.graph.initializers.size());
    for (size_t i = 0; i < written.graph.initializers.size(); ++i) {
      const TensorRef& w = *written.graph.initializers[i];
      const TensorRef& o = *original.graph.initializers[i];
      EXPECT_EQ(w.name, o.name);
      EXPECT_EQ(w.storage, o.storage);
      EXPECT_EQ(tensor_bytes(w), tensor_bytes(o)) << w.name;
      EXPECT_EQ(w.typed_chunks, o.typed_chunks) << w.name;
      EXPECT_EQ(w.external_location, o.external_location);
      EXPECT_EQ(w.external_offset, o.external_offset);
    }
    // Nothing but the output is left in the directory.
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
    }
  }
}

TEST(OnnxWriter, LibOnnxParsesTheOutput) {
  TempDir dir;
  for (const char* name : kModels) {
    SCOPED_TRACE(name);
    const Model model = load_model(loader_testdata(std::string(name) + ".onnx"));
    const std::string out = dir.file(std::string(name) + ".onnx");
    write_annotated_model(model, sample_value_info(), out);

    ::onnx::ModelProto before, after;
    ASSERT_TRUE(before.ParseFromString(read_bytes(loader_testdata(std::string(name) + ".onnx"))));
    ASSERT_TRUE(after.ParseFromString(read_bytes(out)));
    EXPECT_EQ(after.ir_version(), before.ir_version());
    EXPECT_EQ(after.opset_import_size(), before.opset_import_size());
    EXPECT_EQ(after.producer_name(), before.producer_name());
    EXPECT_EQ(after.graph().node_size(), before.graph().node_size());
    ASSERT_EQ(after.graph().initializer_size(), before.graph().initializer_size());
    for (int i = 0; i < after.graph().initializer_size(); ++i) {
      const auto& w = after.graph().initializer(i);
      const auto& o = before.graph().initializer(i);
      EXPECT_EQ(w.SerializeAsString(), o.SerializeAsString()) << o.name();
    }
    int replaced = 0;
    for (const auto& v : before.graph().value_info()) replaced += v.name() == "a" || v.name() == "b" || v.name() == "c" || v.name() == "d";
    const int k = before.graph().value_info_size() - replaced;
    ASSERT_EQ(after.graph().value_info_size(), k + 4);
    const auto& a = after.graph().value_info(k);
    EXPECT_EQ(a.name(), "a");
    ASSERT_TRUE(a.type().has_tensor_type());
    EXPECT_EQ(a.type().tensor_type().elem_type(), 1);
    ASSERT_EQ(a.type().tensor_type().shape().dim_size(), 3);
    EXPECT_EQ(a.type().tensor_type().shape().dim(0).dim_value(), 2);
    EXPECT_EQ(a.type().tensor_type().shape().dim(1).dim_param(), "s0");
    EXPECT_TRUE(after.graph().value_info(k + 1).type().tensor_type().has_shape());
    EXPECT_EQ(after.graph().value_info(k + 1).type().tensor_type().shape().dim_size(), 0);
    EXPECT_FALSE(after.graph().value_info(k + 2).type().tensor_type().has_shape());
    EXPECT_FALSE(after.graph().value_info(k + 3).type().tensor_type().has_elem_type());
    // Everything but the graph is byte-identical per libonnx too.
    before.clear_graph();
    after.clear_graph();
    EXPECT_EQ(after.SerializeAsString(), before.SerializeAsString());
  }
}

TEST(OnnxWriter, CheckerAcceptsAnnotatedModel) {
  TempDir dir;
  const Model model = load_model(loader_testdata("add_conv.onnx"));
  using Dims = std::vector<std::variant<int64_t, std::string>>;
  const std::vector<OutputValueInfo> infos = {
      {"C", 1, Dims{std::string("s0"), int64_t{4}, std::string("s1"), std::string("s2")}},
      {"Z", 1, Dims{std::string("s0"), int64_t{4}, std::string("s1"), std::string("s2")}},
  };
  const std::string out = dir.file("annotated.onnx");
  write_annotated_model(model, infos, out);
  ::onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(read_bytes(out)));
  EXPECT_NO_THROW(::onnx::checker::check_model(proto));
  EXPECT_EQ(proto.graph().value_info_size(), 2);
}

TEST(OnnxWriter, WritesSequenceAndOptionalTypes) {
  TempDir dir;
  const Model model = load_model(loader_testdata("add_conv.onnx"));
  using Dims = std::vector<std::variant<int64_t, std::string>>;
  using W = OutputValueInfo::Wrapper;
  const std::vector<OutputValueInfo> infos = {
      {"C", 1, Dims{int64_t{2}, std::string()}, {W::Sequence}},
      {"Z", 7, Dims{std::string("s0")}, {W::Optional, W::Sequence}},
  };
  const std::string out = dir.file("annotated.onnx");
  write_annotated_model(model, infos, out);
  ::onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(read_bytes(out)));
  ASSERT_EQ(proto.graph().value_info_size(), 2);
  const ::onnx::TypeProto& seq = proto.graph().value_info(0).type();
  ASSERT_TRUE(seq.has_sequence_type());
  const ::onnx::TypeProto_Tensor& elem = seq.sequence_type().elem_type().tensor_type();
  EXPECT_EQ(elem.elem_type(), 1);
  ASSERT_EQ(elem.shape().dim_size(), 2);
  EXPECT_EQ(elem.shape().dim(0).dim_value(), 2);
  EXPECT_FALSE(elem.shape().dim(1).has_dim_value());  // unknown: neither a value nor a param
  EXPECT_FALSE(elem.shape().dim(1).has_dim_param());
  const ::onnx::TypeProto& opt = proto.graph().value_info(1).type();
  ASSERT_TRUE(opt.has_optional_type());
  ASSERT_TRUE(opt.optional_type().elem_type().has_sequence_type());
  const ::onnx::TypeProto_Tensor& inner = opt.optional_type().elem_type().sequence_type().elem_type().tensor_type();
  EXPECT_EQ(inner.elem_type(), 7);
  EXPECT_EQ(inner.shape().dim(0).dim_param(), "s0");
}

TEST(OnnxWriter, WritesMapTypes) {
  TempDir dir;
  const Model model = load_model(loader_testdata("add_conv.onnx"));
  using Dims = std::vector<std::variant<int64_t, std::string>>;
  using W = OutputValueInfo::Wrapper;
  const std::vector<OutputValueInfo> infos = {
      {"C", 1, Dims{}, {W::Sequence, W::Map}, 7},  // seq(map(int64, tensor(float) of shape []))
      {"Z", 11, std::nullopt, {W::Map}, 8},        // map(string, tensor(double))
  };
  const std::string out = dir.file("annotated.onnx");
  write_annotated_model(model, infos, out);
  ::onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(read_bytes(out)));
  ASSERT_EQ(proto.graph().value_info_size(), 2);
  const ::onnx::TypeProto& seq = proto.graph().value_info(0).type();
  ASSERT_TRUE(seq.has_sequence_type());
  ASSERT_TRUE(seq.sequence_type().elem_type().has_map_type());
  const ::onnx::TypeProto_Map& map = seq.sequence_type().elem_type().map_type();
  EXPECT_EQ(map.key_type(), 7);
  EXPECT_EQ(map.value_type().tensor_type().elem_type(), 1);
  EXPECT_TRUE(map.value_type().tensor_type().has_shape());  // a scalar: a shape of no dims
  EXPECT_EQ(map.value_type().tensor_type().shape().dim_size(), 0);
  const ::onnx::TypeProto& plain = proto.graph().value_info(1).type();
  ASSERT_TRUE(plain.has_map_type());
  EXPECT_EQ(plain.map_type().key_type(), 8);
  EXPECT_EQ(plain.map_type().value_type().tensor_type().elem_type(), 11);
  EXPECT_FALSE(plain.map_type().value_type().tensor_type().has_shape());
}

TEST(OnnxWriter, RefusesToOverwriteTheInput) {
  TempDir dir;
  const std::string path = dir.file("m.onnx");
  std::filesystem::copy_file(loader_testdata("add_conv.onnx"), path);
  const std::string before = read_bytes(path);
  const Model model = load_model(path);
  EXPECT_NE(input_error_of([&] { write_annotated_model(model, {}, path); }).find("refusing"), std::string::npos);
  // The same file under other names.
  std::filesystem::create_hard_link(path, dir.file("hard.onnx"));
  std::filesystem::create_symlink(path, dir.file("soft.onnx"));
  EXPECT_NE(input_error_of([&] { write_annotated_model(model, {}, dir.file("hard.onnx")); }), "");
  EXPECT_NE(input_error_of([&] { write_annotated_model(model, {}, dir.file("soft.onnx")); }), "");
  EXPECT_NE(input_error_of([&] { write_annotated_model(model, {}, dir.path().string() + "/./m.onnx"); }), "");
  EXPECT_EQ(read_bytes(path), before);
}

TEST(OnnxWriter, UnwritableDestination) {
  TempDir dir;
  const Model model = load_model(loader_testdata("add_conv.onnx"));
  const std::string missing_dir = dir.file("no/such/dir/out.onnx");
  const std::string message = input_error_of([&] { write_annotated_model(model, {}, missing_dir); });
  EXPECT_EQ(message, missing_dir + ": cannot write: No such file or directory");
  // A directory in the way: the rename fails and the temporary goes away.
  std::filesystem::create_directory(dir.file("taken"));
  std::filesystem::create_directory(dir.file("taken/inner"));
  EXPECT_NE(input_error_of([&] { write_annotated_model(model, {}, dir.file("taken")); }), "");
  size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++entries;
    EXPECT_EQ(entry.path().filename(), "taken");
  }
  EXPECT_EQ(entries, 1u);
}

TEST(OnnxWriter, ReplacesAnExistingOutputAndWorksFromMemory) {
  TempDir dir;
  const std::string bytes = read_bytes(loader_testdata("if.onnx"));
  const Model model = parse_model(bytes, dir.file("if.onnx"));  // not on disk: written from memory
  const std::string out = dir.file("out.onnx");
  testing::write_bytes(out, "old contents");
  write_annotated_model(model, {{"y", 1, std::nullopt}}, out);
  const Model written = load_model(out);
  ASSERT_EQ(written.graph.value_info.size(), 1u);
  EXPECT_EQ(written.graph.value_info[0].name, "y");
  EXPECT_EQ(written.graph.nodes[0].attr("else_branch")->g->nodes.size(), 2u);
}

}  // namespace
}  // namespace fakeprop::onnx
