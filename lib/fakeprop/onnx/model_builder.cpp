#include "fakeprop/onnx/model_builder.h"

#include <cstring>

#include "fakeprop/util/error.h"

namespace fakeprop::onnx {

namespace {

TypeInfo tensor_type(int32_t elem_type, const std::vector<ModelBuilder::DimSpec>& dims) {
  TypeInfo t;
  t.kind = TypeInfo::Kind::Tensor;
  t.elem_type = elem_type;
  std::vector<Dim> shape;
  for (const auto& d : dims) {
    Dim dim;
    if (const int64_t* v = std::get_if<int64_t>(&d)) {
      dim.kind = Dim::Kind::Value;
      dim.value = *v;
    } else if (!std::get<std::string>(d).empty()) {
      dim.kind = Dim::Kind::Param;
      dim.param = std::get<std::string>(d);
    }
    shape.push_back(dim);
  }
  t.shape = std::move(shape);
  return t;
}

}  // namespace

ModelBuilder::ModelBuilder(int64_t opset) {
  model_.ir_version = 8;
  model_.opset_imports[""] = opset;
  model_.path = "<built>";
  model_.graph.name = "built";
}

ModelBuilder& ModelBuilder::opset(const std::string& domain, int64_t version) {
  model_.opset_imports[domain] = version;
  return *this;
}

ModelBuilder& ModelBuilder::input(const std::string& name, int32_t elem_type, const std::vector<DimSpec>& dims) {
  model_.graph.inputs.push_back({name, tensor_type(elem_type, dims)});
  return *this;
}

ModelBuilder& ModelBuilder::input_unranked(const std::string& name, int32_t elem_type) {
  TypeInfo t;
  t.kind = TypeInfo::Kind::Tensor;
  t.elem_type = elem_type;
  model_.graph.inputs.push_back({name, t});
  return *this;
}

ModelBuilder& ModelBuilder::input_map(const std::string& name, int32_t key_type, int32_t value_type,
                                      bool in_sequence) {
  auto value = std::make_shared<TypeInfo>();
  value->kind = TypeInfo::Kind::Tensor;
  value->elem_type = value_type;
  TypeInfo t;
  t.kind = TypeInfo::Kind::Map;
  t.map_key_type = key_type;
  t.elem = std::move(value);
  if (in_sequence) {
    TypeInfo seq;
    seq.kind = TypeInfo::Kind::Sequence;
    seq.elem = std::make_shared<TypeInfo>(std::move(t));
    t = std::move(seq);
  }
  model_.graph.inputs.push_back({name, std::move(t)});
  return *this;
}

ModelBuilder& ModelBuilder::output(const std::string& name) {
  model_.graph.outputs.push_back({name, {}});
  return *this;
}

ModelBuilder& ModelBuilder::output(const std::string& name, int32_t elem_type, const std::vector<DimSpec>& dims) {
  model_.graph.outputs.push_back({name, tensor_type(elem_type, dims)});
  return *this;
}

ModelBuilder& ModelBuilder::value_info(const std::string& name, int32_t elem_type, const std::vector<DimSpec>& dims) {
  model_.graph.value_info.push_back({name, tensor_type(elem_type, dims)});
  return *this;
}

std::shared_ptr<TensorRef> ModelBuilder::make_tensor(const std::string& name, const std::vector<int64_t>& dims,
                                                     const std::vector<int64_t>& values, int32_t elem_type) {
  auto t = std::make_shared<TensorRef>();
  t->name = name;
  t->dims = dims;
  t->data_type = elem_type;
  auto bytes = std::make_shared<std::string>();
  for (int64_t v : values) {
    switch (elem_type) {
      case 7: bytes->append(reinterpret_cast<const char*>(&v), 8); break;  // int64, little-endian host
      case 6: {
        const auto x = static_cast<int32_t>(v);
        bytes->append(reinterpret_cast<const char*>(&x), 4);
        break;
      }
      case 9:
      case 2:
      case 3: bytes->push_back(static_cast<char>(v)); break;
      default: throw Error("ModelBuilder: unsupported initializer element type " + std::to_string(elem_type));
    }
  }
  t->storage = TensorRef::Storage::Raw;
  t->bytes = *bytes;
  buffers_.push_back(bytes);
  return t;
}

ModelBuilder& ModelBuilder::initializer_ints(const std::string& name, const std::vector<int64_t>& dims,
                                             const std::vector<int64_t>& values, int32_t elem_type) {
  model_.graph.initializers.push_back(make_tensor(name, dims, values, elem_type));
  return *this;
}

ModelBuilder& ModelBuilder::initializer_floats(const std::vector<int64_t>& dims, const std::string& name,
                                               const std::vector<float>& values) {
  auto t = std::make_shared<TensorRef>();
  t->name = name;
  t->dims = dims;
  t->data_type = 1;
  auto bytes = std::make_shared<std::string>(values.size() * 4, '\0');
  if (!values.empty()) std::memcpy(bytes->data(), values.data(), values.size() * 4);  // data() may be null when empty
  t->storage = TensorRef::Storage::Raw;
  t->bytes = *bytes;
  buffers_.push_back(bytes);
  model_.graph.initializers.push_back(t);
  return *this;
}

ModelBuilder& ModelBuilder::weight(const std::string& name, int32_t elem_type, const std::vector<int64_t>& dims) {
  auto t = std::make_shared<TensorRef>();
  t->name = name;
  t->dims = dims;
  t->data_type = elem_type;
  model_.graph.initializers.push_back(t);
  return *this;
}

ModelBuilder& ModelBuilder::node(const std::string& op_type, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs, const std::string& name,
                                 const std::string& domain) {
  NamePool& names = *model_.names;
  Node n;
  n.op_type = names.intern(op_type);
  for (const auto& i : inputs) n.inputs.push_back(names.intern(i));
  for (const auto& o : outputs) n.outputs.push_back(names.intern(o));
  n.domain = names.intern(domain);
  n.name = names.intern(name.empty() ? op_type + "_" + std::to_string(model_.graph.nodes.size()) : name);
  model_.graph.nodes.push_back(std::move(n));
  return *this;
}

#define FP_ADD_ATTR(TYPE, FIELD)                       \
  Attribute a;                                         \
  a.name = name;                                       \
  a.type = Attribute::Type::TYPE;                      \
  a.FIELD = v;                                         \
  model_.graph.nodes.back().attributes.push_back(std::move(a)); \
  return *this

ModelBuilder& ModelBuilder::attr_int(const std::string& name, int64_t v) { FP_ADD_ATTR(Int, i); }
ModelBuilder& ModelBuilder::attr_ints(const std::string& name, const std::vector<int64_t>& v) { FP_ADD_ATTR(Ints, ints); }
ModelBuilder& ModelBuilder::attr_float(const std::string& name, float v) { FP_ADD_ATTR(Float, f); }
ModelBuilder& ModelBuilder::attr_floats(const std::string& name, const std::vector<float>& v) {
  FP_ADD_ATTR(Floats, rare.get_or_create().floats);
}
ModelBuilder& ModelBuilder::attr_strings(const std::string& name, const std::vector<std::string>& v) {
  FP_ADD_ATTR(Strings, rare.get_or_create().strings);
}
ModelBuilder& ModelBuilder::attr_string(const std::string& name, const std::string& v) { FP_ADD_ATTR(String, s); }
ModelBuilder& ModelBuilder::attr_graph(const std::string& name, std::shared_ptr<Graph> v) { FP_ADD_ATTR(Graph, g); }

#undef FP_ADD_ATTR

ModelBuilder& ModelBuilder::attr_tensor_ints(const std::string& name, const std::vector<int64_t>& dims,
                                             const std::vector<int64_t>& values, int32_t elem_type) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::Tensor;
  a.t = make_tensor("", dims, values, elem_type);
  model_.graph.nodes.back().attributes.push_back(std::move(a));
  return *this;
}

Model ModelBuilder::build() const {
  Model m = model_;
  for (const auto& b : buffers_) m.keepalive.push_back(b);
  return m;
}

}  // namespace fakeprop::onnx
