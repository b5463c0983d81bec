// FLOPs per node with torch.utils.flop_counter's conventions: only matrix
// products, convolutions and attention count, two FLOPs per multiply-add,
// biases and elementwise work free. Ops torch's counter decomposes before
// counting (linear, matmul, einsum, conv2d, scaled_dot_product_attention)
// count as their decompositions do, and ONNX's equivalents (MatMul, Gemm,
// Conv, ConvTranspose, Einsum, Attention and the contrib attention ops) as
// the torch ops they come from, so one model counts the same either way.
#pragma once
#include <span>
#include <string_view>

#include "fakeprop/sizing/node_arguments.h"
#include "fakeprop/sym/expr.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

// The node's FLOPs as an expression over the sizes; null when the op counts
// none, or when a shape it needs is not known (the node failed).
// `op` is the record's: "aten.mm.default", "MatMul", "com.microsoft.Attention".
ExprRef count_flops(std::string_view op, const NodeArguments& in, const OutputList& outputs);

// Bytes a tensor's elements span, numel * element size (what an op reads or writes).
ExprRef tensor_bytes(const TensorMeta& t);

// The bytes of the tensors among the arguments, for a node with FLOPs.
ExprRef argument_bytes(const NodeArguments& in);

}  // namespace fakeprop
