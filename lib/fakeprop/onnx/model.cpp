#include "fakeprop/onnx/model.h"

#include "fakeprop/util/error.h"

namespace fakeprop::onnx {

int64_t TensorRef::numel() const { throw Error("not implemented yet"); }
DType TensorRef::dtype() const { throw Error("not implemented yet"); }
std::optional<std::vector<int64_t>> TensorRef::read_int64s(int64_t) const { throw Error("not implemented yet"); }
std::optional<std::vector<double>> TensorRef::read_doubles(int64_t) const { throw Error("not implemented yet"); }
const Attribute* Node::attr(std::string_view) const { throw Error("not implemented yet"); }
int64_t Model::opset(std::string_view) const { throw Error("not implemented yet"); }
Model load_model(const std::string&) { throw Error("not implemented yet"); }
Model parse_model(std::string_view, const std::string&) { throw Error("not implemented yet"); }
bool looks_like_onnx(std::string_view) { throw Error("not implemented yet"); }

}  // namespace fakeprop::onnx
