#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

void register_microsoft_ops(OpRegistry&) {}

}  // namespace fakeprop::onnx::ops
