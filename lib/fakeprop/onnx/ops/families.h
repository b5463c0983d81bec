// One table of rules per operator family; registry.cpp merges them.
#pragma once

#include <span>

namespace fakeprop::onnx {
struct OpRuleEntry;
}

namespace fakeprop::onnx::ops {

std::span<const OpRuleEntry> elementwise_rules();      // unary, binary, comparison, logical, activations, Cast
std::span<const OpRuleEntry> shape_rules();            // Shape, Reshape, Concat, Gather, Slice, Expand, ...
std::span<const OpRuleEntry> generator_rules();        // Constant, ConstantOfShape, Range, Random*, EyeLike
std::span<const OpRuleEntry> nn_rules();               // Conv, pooling, normalization, MatMul, Gemm, Resize, RNNs
std::span<const OpRuleEntry> reduction_rules();        // Reduce*, ArgMax, TopK, Softmax family, CumSum
std::span<const OpRuleEntry> data_dependent_rules();   // NonZero, Unique, Compress, NonMaxSuppression
std::span<const OpRuleEntry> control_flow_rules();     // If, Loop, Scan, sequences, optionals
std::span<const OpRuleEntry> quantization_rules();     // QuantizeLinear, QLinear*, *Integer
std::span<const OpRuleEntry> microsoft_rules();        // com.microsoft contrib ops
std::span<const OpRuleEntry> loss_and_linalg_rules();  // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, Det
std::span<const OpRuleEntry> ml_rules();               // ai.onnx.ml: scalers, encoders, linear models, SVMs, trees, maps
std::span<const OpRuleEntry> training_rules();         // ai.onnx.preview.training: Adagrad, Adam, Momentum, Gradient

}  // namespace fakeprop::onnx::ops
