// Builds onnx::Model structs in C++ (tests, fuzz seeds, synthetic benchmarks)
// without any file: inputs with dims or dim_params, nodes with attributes,
// small int64 initializers/constants held in memory.
#pragma once
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "fakeprop/onnx/model.h"

namespace fakeprop::onnx {

class ModelBuilder {
 public:
  using DimSpec = std::variant<int64_t, std::string>;  // dim_value or dim_param ("" = unknown)

  explicit ModelBuilder(int64_t opset = 17);
  ModelBuilder& opset(const std::string& domain, int64_t version);
  ModelBuilder& input(const std::string& name, int32_t elem_type, const std::vector<DimSpec>& dims);
  ModelBuilder& input_unranked(const std::string& name, int32_t elem_type);
  // A map(key_type, tensor(value_type)) input (values of no declared
  // shape), or seq(map(...)) when in_sequence.
  ModelBuilder& input_map(const std::string& name, int32_t key_type, int32_t value_type, bool in_sequence = false);
  ModelBuilder& output(const std::string& name);
  ModelBuilder& output(const std::string& name, int32_t elem_type, const std::vector<DimSpec>& dims);
  ModelBuilder& value_info(const std::string& name, int32_t elem_type, const std::vector<DimSpec>& dims);
  // An int64 (elem_type 7) or float (1) initializer with known contents.
  ModelBuilder& initializer_ints(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& values, int32_t elem_type = 7);
  ModelBuilder& initializer_floats(const std::vector<int64_t>& dims, const std::string& name,
                                   const std::vector<float>& values);
  // An initializer whose contents are never known (a weight).
  ModelBuilder& weight(const std::string& name, int32_t elem_type, const std::vector<int64_t>& dims);

  // Adds a node; attributes are added with the attr_* helpers right after.
  ModelBuilder& node(const std::string& op_type, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs, const std::string& name = "",
                     const std::string& domain = "");
  ModelBuilder& attr_int(const std::string& name, int64_t v);
  ModelBuilder& attr_ints(const std::string& name, const std::vector<int64_t>& v);
  ModelBuilder& attr_float(const std::string& name, float v);
  ModelBuilder& attr_floats(const std::string& name, const std::vector<float>& v);
  ModelBuilder& attr_string(const std::string& name, const std::string& v);
  ModelBuilder& attr_strings(const std::string& name, const std::vector<std::string>& v);
  ModelBuilder& attr_tensor_ints(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& values, int32_t elem_type = 7);
  ModelBuilder& attr_graph(const std::string& name, std::shared_ptr<Graph> g);

  Model build() const;
  Graph& graph() { return model_.graph; }

 private:
  Model model_;
  std::vector<std::shared_ptr<std::string>> buffers_;  // backing bytes of in-memory tensors
  std::shared_ptr<TensorRef> make_tensor(const std::string& name, const std::vector<int64_t>& dims,
                                         const std::vector<int64_t>& values, int32_t elem_type);
};

}  // namespace fakeprop::onnx
