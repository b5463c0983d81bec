#include "fakeprop/onnx/writer.h"

#include "fakeprop/util/error.h"

namespace fakeprop::onnx {

void write_annotated_model(const Model&, const std::vector<OutputValueInfo>&, const std::string&) {
  throw Error("not implemented yet");
}

}  // namespace fakeprop::onnx
