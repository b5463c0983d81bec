// One registration function per operator family; registry.cpp calls them all.
#pragma once

namespace fakeprop::onnx {
class OpRegistry;
}

namespace fakeprop::onnx::ops {

void register_elementwise_ops(OpRegistry& r);   // unary, binary, comparison, logical, activations, Cast
void register_shape_ops(OpRegistry& r);         // Shape, Reshape, Concat, Gather, Slice, Expand, ...
void register_generator_ops(OpRegistry& r);     // Constant, ConstantOfShape, Range, Random*, EyeLike
void register_nn_ops(OpRegistry& r);            // Conv, pooling, normalization, MatMul, Gemm, Resize, RNNs
void register_reduction_ops(OpRegistry& r);     // Reduce*, ArgMax, TopK, Softmax family, CumSum
void register_data_dependent_ops(OpRegistry& r);  // NonZero, Unique, Compress, NonMaxSuppression
void register_control_flow_ops(OpRegistry& r);  // If, Loop, Scan, sequences, optionals
void register_quantization_ops(OpRegistry& r);  // QuantizeLinear, QLinear*, *Integer
void register_microsoft_ops(OpRegistry& r);     // com.microsoft contrib ops
void register_loss_and_linalg_ops(OpRegistry& r);  // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, Det
void register_ml_ops(OpRegistry& r);            // ai.onnx.ml: scalers, encoders, linear models, SVMs, trees, maps
void register_training_ops(OpRegistry& r);      // ai.onnx.preview.training: Adagrad, Adam, Momentum, Gradient

}  // namespace fakeprop::onnx::ops
