// Output sizes of convolution and pooling windows, shared by Conv,
// ConvTranspose, the pools, DeformConv and the quantized convolutions.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "fakeprop/onnx/op_context.h"
#include "fakeprop/tensor/shape_functions.h"

namespace fakeprop::onnx::ops {

// The window attributes of one node, one entry per spatial dim (pads hold
// the begin values then the end values, as in ONNX).
struct WindowAttrs {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;
  std::string auto_pad = "NOTSET";  // NOTSET, SAME_UPPER, SAME_LOWER, VALID
  bool ceil_mode = false;

  size_t rank() const { return kernel.size(); }
  // dilation*(k-1) + 1
  int64_t effective_kernel(size_t i) const;
  bool same_padding() const { return auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"; }
};

// Reads strides / dilations / pads / auto_pad / ceil_mode (defaults 1, 1, 0,
// NOTSET, 0) for the given kernel. `use_dilations` is false for operators
// (or opsets) without a dilations attribute, `use_ceil_mode` likewise. Fails
// (OpError) on wrong lengths, non-positive kernel/strides/dilations,
// negative pads, an unknown auto_pad, or pads given with auto_pad.
WindowAttrs read_window_attrs(const OpContext& ctx, std::vector<int64_t> kernel, bool use_dilations = true,
                              bool use_ceil_mode = false);

// Output spatial sizes of a sliding window over `in` (Conv and pools):
//   NOTSET/VALID: (in + pad_total - dilation*(k-1) - 1) // stride + 1
//     ceil_mode:  (in + pad_total - dilation*(k-1) - 1 + stride - 1) // stride + 1,
//                 less one when the last window would start in the end padding
//                 (PyTorch's pooling_output_shape, current ONNX inference)
//   SAME_*:       ceil(in / stride)
// The size math is tensor/shape_functions' sliding_window_size. An output
// size below 1 fails when static, and is a guard / runtime assert (size >= 1)
// when symbolic.
SymShape window_output_sizes(OpContext& ctx, std::span<const SymInt> in, const WindowAttrs& w);

// ConvTranspose output spatial sizes:
//   stride*(in-1) + output_padding + dilation*(k-1) + 1 - pad_total
//   SAME_*: in * stride.
SymShape transpose_output_sizes(OpContext& ctx, std::span<const SymInt> in, const WindowAttrs& w,
                                std::span<const int64_t> output_padding);

// Conv's output [N, M, spatial...] for NCHW input x and weights w
// (M, C/group, k...): checks channels against group and kernel_shape, then
// the window sizes above (unknown sizes for a symbolic kernel).
SymShape conv_output_shape(OpContext& ctx, const SymShape& x, const SymShape& w);

// channels_last layouts: (N, spatial..., C) as (N, C, spatial...) and back.
SymShape to_nchw(const SymShape& x);
SymShape to_nhwc(const SymShape& x);

}  // namespace fakeprop::onnx::ops
