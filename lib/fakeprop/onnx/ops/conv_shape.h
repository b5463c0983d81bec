// Output sizes of convolution and pooling windows, shared by Conv,
// ConvTranspose, the pools, DeformConv, Col2Im and com.microsoft ops.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "fakeprop/onnx/op_context.h"

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
};

// Reads strides / dilations / pads / auto_pad / ceil_mode (defaults: 1, 1,
// 0, NOTSET, 0) for the given kernel; fails on wrong lengths or values.
WindowAttrs read_window_attrs(const OpContext& ctx, std::vector<int64_t> kernel);

// Output spatial sizes of a sliding window over `in` (Conv and pools):
//   NOTSET/VALID: floor((in + pad_total - dilation*(k-1) - 1) / stride) + 1
//                 (ceil instead of floor under ceil_mode)
//   SAME_*:       ceil(in / stride)
// A provably empty output fails; a symbolic one becomes a guard in >= 1.
SymShape window_output_sizes(OpContext& ctx, std::span<const SymInt> in, const WindowAttrs& w);

// ConvTranspose output spatial sizes:
//   stride*(in-1) + output_padding + dilation*(k-1) + 1 - pad_total
//   (SAME_*: in * stride).
SymShape transpose_output_sizes(OpContext& ctx, std::span<const SymInt> in, const WindowAttrs& w,
                                std::span<const int64_t> output_padding);

}  // namespace fakeprop::onnx::ops
