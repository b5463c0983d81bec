// --trace-dir / TORCH_TRACE: the structured log PyTorch writes for a
// compile (torch/_logging trace_structured), which tlparse renders. Each
// compile is a run: its symbols (create_symbol, create_unbacked_symbol),
// guards and runtime asserts (guard_added_fast), specializations
// (symbolic_shape_specialization), the graph with its sizes
// (dynamo_output_graph), the guard set (dynamo_guards), runtime asserts and
// errors as artifacts, and compilation_metrics last, as tlparse needs them.
// A node stands where PyTorch has a user frame: the model file, the node's
// position as the line, its name as the function.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fakeprop/value/run_result.h"

namespace fakeprop {

struct TraceCompile {
  std::string id;                              // "0/1": frame 0, its second compile
  const RunResult* run = nullptr;
  std::vector<std::string> recompile_reasons;  // "0/0: tensor 'x' size mismatch at index 0. ..."
};

struct TraceClock {
  int64_t pid = 0;
  double start_time = 0;  // seconds since the epoch; each line is a microsecond later
};

// The log's text (each line a glog-style header and one JSON envelope, a
// payload on the tab-indented lines after it).
std::string torch_trace_text(std::span<const TraceCompile> compiles, const std::string& model_path,
                             const TraceClock& clock);

// Writes the log as DIR/dedicated_log_torch_trace_XXXXXX.log (DIR is made
// when missing; a fresh name each run, as PyTorch's) and returns its path.
// Throws InputError when DIR cannot be written.
std::string write_torch_trace(const std::string& dir, std::span<const TraceCompile> compiles,
                              const std::string& model_path);

}  // namespace fakeprop
