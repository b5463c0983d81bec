// Options shared by every front end.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fakeprop/graph/limits.h"
#include "fakeprop/graph/source_spec.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/tensor/device.h"

namespace fakeprop {

struct InferOptions {
  Device device = Device::cpu();
  std::map<std::string, std::vector<int64_t>> input_hints;  // --input name=d0,d1,...
  SourceSpecs specs;
  ShapeEnvSettings settings;
  LogLevel log_level = LogLevel::Off;
  int64_t max_fold_elements = 1 << 16;  // known-data cap for constant folding
  size_t max_subgraph_depth = 32;
  size_t max_nodes = kDefaultMaxNodes;           // per model, subgraphs included (graph/limits.h)
  size_t max_expr_nodes = kDefaultMaxExprNodes;  // larger output expressions become fresh unbacked symbols
};

}  // namespace fakeprop
