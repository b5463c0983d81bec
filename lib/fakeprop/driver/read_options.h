// InferOptions as a front door needs them: the options a user wrote
// (InferArgs::to_options) and the files they name, read here rather than in
// options/ because the readers live above it: the --op-rules files
// (custom_ops/) and the --real-input tensors (TensorProto: onnx/).
#pragma once
#include "fakeprop/options/infer_args.h"
#include "fakeprop/options/infer_options.h"

namespace fakeprop {

// Throws InputError naming the option for a malformed value or an unreadable
// file, or FILE:LINE:COL for an --op-rules file that does not parse.
InferOptions read_options(const InferArgs& args);

}  // namespace fakeprop
