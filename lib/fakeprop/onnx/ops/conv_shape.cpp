#include "fakeprop/onnx/ops/conv_shape.h"

namespace fakeprop::onnx::ops {

WindowAttrs read_window_attrs(const OpContext&, std::vector<int64_t>) { throw Error("not implemented yet"); }
SymShape window_output_sizes(OpContext&, std::span<const SymInt>, const WindowAttrs&) {
  throw Error("not implemented yet");
}
SymShape transpose_output_sizes(OpContext&, std::span<const SymInt>, const WindowAttrs&, std::span<const int64_t>) {
  throw Error("not implemented yet");
}

}  // namespace fakeprop::onnx::ops
