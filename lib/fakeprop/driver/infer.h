// The library's entry point for one model file: detect the format, load,
// run under fake mode. Throws InputError for unreadable input.
#pragma once
#include <string>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

enum class ModelFormat { Onnx, FxJson, Pt2 };  // Pt2: a torch.export.save archive

// From the content (JSON object vs ONNX protobuf), not the extension.
ModelFormat detect_format(const std::string& path);
RunResult infer_file(const std::string& path, const InferOptions& options);

// Write the annotated model (-o): ONNX with value_info for every value.
void write_annotated(const RunResult& result, const std::string& model_path, const std::string& out_path);

}  // namespace fakeprop
