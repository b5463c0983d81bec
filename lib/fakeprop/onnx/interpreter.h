// Runs an ONNX graph under fake mode: creates the input symbols, walks nodes
// in topological order, applies each operator's rule, and records values,
// unbacked bindings and per-node errors (never aborting on one node).
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "fakeprop/graph/run_result.h"
#include "fakeprop/graph/source_spec.h"
#include "fakeprop/onnx/model.h"

namespace fakeprop::onnx {

struct InferOptions {
  Device device = Device::cpu();
  std::map<std::string, std::vector<int64_t>> input_hints;  // --input name=d0,d1,...
  SourceSpecs specs;
  ShapeEnvSettings settings;
  LogLevel log_level = LogLevel::Off;
  int64_t max_fold_elements = 1 << 16;  // known-data cap for constant folding
};

class Interpreter;

RunResult run_model(const Model& model, const InferOptions& options);

}  // namespace fakeprop::onnx
