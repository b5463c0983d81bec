// One run of a model file as a front door asks for it (the CLI's `infer`,
// the package's `fakeprop.infer`): the model, the options and the outputs
// wanted. run_request is the whole pipeline below the report itself: the
// run, the annotated model, the recompile simulation over calls and a
// workload, the TORCH_TRACE log, the HTML report and the stats; each front
// door only writes the report in its own form.
#pragma once
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/report/recompile.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

struct InferRequest {
  std::string model;
  InferOptions options;
  std::vector<std::string> calls;  // --call texts, replayed in order
  std::string workload_path;       // --workload: a JSON list of calls, after `calls`
  int recompile_limit = 8;
  std::string output_path;  // -o
  std::string html_path;    // --html
  std::string trace_dir;    // --trace-dir (the CLI passes TORCH_TRACE when it is not given)
  bool stats = false;       // --stats: phase times and dispatch-cache counters
};

struct InferOutcome {
  std::unique_ptr<RunResult> result;
  std::optional<RecompileReport> recompiles;  // when calls were given
  // The report's members computed outside the run: recompiles (with its
  // log), stats (its report_ms up to the end of run_request).
  nlohmann::json extra = nlohmann::json::object();
  std::chrono::steady_clock::time_point report_start;  // where the report phase began
};

// Throws InputError for unreadable input or a refused output.
InferOutcome run_request(const InferRequest& request);

}  // namespace fakeprop
