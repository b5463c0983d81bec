// Options shared by every front end.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fakeprop/options/dim_marks.h"
#include "fakeprop/options/limits.h"
#include "fakeprop/options/real_inputs.h"
#include "fakeprop/options/source_spec.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/tensor/device.h"
#include "fakeprop/util/output_file.h"
#include "fakeprop/value/sizing_options.h"

namespace fakeprop {

namespace custom_ops {
class OpRuleSet;
}

struct InferOptions {
  Device device = Device::cpu();
  std::map<std::string, std::vector<int64_t>> input_hints;  // --input name=d0,d1,...
  // A --call's dtypes, by input name: a JSON FX graph's input takes it (an
  // ONNX model's input types are the model's).
  std::map<std::string, DType> input_dtypes;
  // A --call's strides, by input name (`:stride=[...]`): a JSON FX graph's
  // input takes them; without them an input whose sizes a hint changed gets
  // dense strides in its example's memory order.
  std::map<std::string, std::vector<int64_t>> input_strides;
  // A --call's tensors that a JSON FX graph has no placeholder for (the
  // program read only a size the trace specialized, so the graph dropped
  // it): Dynamo still wraps and guards them, so the run takes each as an
  // input no node reads, sized by input_hints.
  std::vector<std::string> frame_inputs;
  SourceSpecs specs;
  DimMarks marks;                        // --mark: per-dim kinds and options
  bool assume_static_by_default = true;  // false: every dim the model fixes is dynamic too
  std::string explain_guard;                // extended debug: a guard's sympy text
  std::vector<std::string> explain_symbols;  // extended debug: symbol names
  ShapeEnvSettings settings;
  LogLevel log_level = LogLevel::Off;
  std::string log_frame = "0/0";  // the compile's id in the trace ([0/N]: a --call recompile)
  int64_t max_fold_elements = 1 << 16;  // known-data cap for constant folding
  size_t max_subgraph_depth = 32;
  SizingOptions sizing;  // --alloc-round, --dtype-bytes: how the memory section counts bytes
  size_t max_nodes = kDefaultMaxNodes;           // per model, subgraphs included (options/limits.h)
  size_t max_expr_nodes = kDefaultMaxExprNodes;  // larger output expressions become fresh unbacked symbols
  FileLimits file_limits;  // sizes a model file may hold (options/limits.h)
  // --unbacked-value: unbacked symbols' values from a real run, by name
  // (ShapeEnv::set_real_values: propagate_real_tensors).
  std::map<std::string, int64_t> unbacked_values;
  // --real-input: real tensors of graph inputs, by name (read by
  // driver/real_inputs.h); each one's sizes are in input_hints too.
  std::map<std::string, RealTensor> real_inputs;
  // Real values travel beside the fake ones: from real_inputs, or from the
  // package's real run of the program. The report then lists real_values.
  bool real_run = false;
  // --op-rules: the user's rules for custom operators (custom_ops/op_rules.h); null when none.
  std::shared_ptr<const custom_ops::OpRuleSet> op_rules;
  // Their digest (OpRuleSet::digest), set by whoever loaded them: the
  // runner records it in the result for `check` without knowing the rules.
  std::string op_rules_digest;
  // The files read for these options (rules, real inputs), kept from being
  // overwritten by the run's outputs.
  std::vector<ProtectedFile> input_files;
};

}  // namespace fakeprop
