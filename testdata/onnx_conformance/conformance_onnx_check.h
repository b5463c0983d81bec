// Cross-check of fakeprop's results with libonnx's own shape inference
// (onnx::shape_inference::InferShapes) on the same model and input shapes.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fakeprop/value/run_result.h"

namespace conformance {

// Runs libonnx inference on `model_path` with the manifest's input shapes
// (and the small integer inputs as initializers when `fold_int_inputs`).
// For every main-graph value where libonnx gives a fully static shape and
// fakeprop's value has a static (or hint-evaluable) shape, compares dtype and
// shape; returns one line per disagreement and adds the number of values
// compared to `compared`. A libonnx failure is one line too.
std::vector<std::string> cross_check_with_onnx(const std::filesystem::path& model_path, const nlohmann::json& manifest,
                                               const fakeprop::RunResult& result, bool fold_int_inputs,
                                               size_t& compared);

}  // namespace conformance
