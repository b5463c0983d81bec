#include "conformance_onnx_check.h"

#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

namespace conformance {

namespace {

using fakeprop::Value;

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

// Static dims of a TypeProto's tensor shape, nullopt unless every dim has a value.
std::optional<std::vector<int64_t>> static_dims(const ::onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}

// fakeprop's dims evaluated statically or with the backed hints.
std::optional<std::vector<int64_t>> fakeprop_dims(const fakeprop::TensorMeta& m, const fakeprop::ShapeEnv& env) {
  std::vector<int64_t> dims;
  for (const auto& d : m.sizes) {
    auto h = env.hint(env.simplify(d));
    if (!h) return std::nullopt;
    dims.push_back(*h);
  }
  return dims;
}

void set_input_shape(::onnx::ValueInfoProto& vi, const nlohmann::json& entry) {
  auto* tt = vi.mutable_type()->mutable_tensor_type();
  auto* shape = tt->mutable_shape();
  shape->clear_dim();
  for (const auto& d : entry["shape"]) shape->add_dim()->set_dim_value(d.get<int64_t>());
}

}  // namespace

std::vector<std::string> cross_check_with_onnx(const std::filesystem::path& model_path, const nlohmann::json& manifest,
                                               const fakeprop::RunResult& result, bool fold_int_inputs,
                                               size_t& compared) {
  std::vector<std::string> out;
  ::onnx::ModelProto model;
  {
    std::ifstream in(model_path, std::ios::binary);
    if (!model.ParseFromIstream(&in)) return {"libonnx could not parse the model"};
  }
  auto* graph = model.mutable_graph();
  std::map<std::string, const nlohmann::json*> entries;
  for (const auto& e : manifest["inputs"]) entries[e["name"].get<std::string>()] = &e;
  for (auto& vi : *graph->mutable_input()) {
    auto it = entries.find(vi.name());
    if (it == entries.end() || it->second->value("kind", "tensor") != "tensor") continue;
    const nlohmann::json& e = *it->second;
    set_input_shape(vi, e);
    if (fold_int_inputs && e.contains("data")) {
      auto* t = graph->add_initializer();
      t->set_name(vi.name());
      t->set_data_type(e["dtype"].get<int32_t>());
      for (const auto& d : e["shape"]) t->add_dims(d.get<int64_t>());
      for (const auto& x : e["data"]) {
        if (t->data_type() == ::onnx::TensorProto::INT64) t->add_int64_data(x.get<int64_t>());
        else t->add_int32_data(static_cast<int32_t>(x.get<int64_t>()));
      }
    }
  }
  // Let libonnx infer every value afresh from the inputs.
  graph->clear_value_info();
  for (auto& o : *graph->mutable_output())
    if (o.type().has_tensor_type()) o.mutable_type()->mutable_tensor_type()->clear_shape();
  try {
    ::onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);
    ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return {std::string("libonnx shape inference failed: ") + e.what()};
  }

  // fakeprop's main-graph values by name (subgraph node records contain '/').
  std::map<std::string, const Value*> values;
  for (const auto& rec : result.nodes)
    if (rec.name.view().find('/') == std::string_view::npos)
      for (const auto& o : rec.outputs) values[o.name.str()] = &o.val;
  for (const auto& o : result.outputs) values[o.name.str()] = &o.val;

  auto compare = [&](const ::onnx::ValueInfoProto& vi) {
    auto want = static_dims(vi.type());
    auto it = values.find(vi.name());
    if (!want || it == values.end() || !it->second->is_tensor()) return;
    const auto& meta = it->second->tensor->meta;
    auto got = fakeprop_dims(meta, *result.env);
    if (!got) return;
    ++compared;
    const int32_t onnx_type = vi.type().tensor_type().elem_type();
    const int32_t got_type = fakeprop::dtype_to_onnx(meta.dtype);
    if (*got != *want || (onnx_type != 0 && got_type != onnx_type)) {
      std::ostringstream s;
      s << "value '" << vi.name() << "': fakeprop " << dims_text(*got) << " type " << got_type << ", libonnx "
        << dims_text(*want) << " type " << onnx_type;
      out.push_back(s.str());
    }
  };
  for (const auto& vi : graph->value_info()) compare(vi);
  for (const auto& vi : graph->output()) compare(vi);
  return out;
}

}  // namespace conformance
