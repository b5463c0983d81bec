// A model of torch.compile's cache for one function: replay calls against
// compiled entries (tensor checks, then shape guards), recompiling with
// automatic dynamic on a miss, as Dynamo does.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

struct CallInput {
  std::vector<int64_t> sizes;
  std::optional<DType> dtype;
  std::optional<std::vector<int64_t>> strides;
};
using Call = std::map<std::string, CallInput>;  // input name -> its tensor

// "x=[4,3,224,224]" or "x=[4,3,224,224]:float16,y=[4]" (dtype and strides optional:
// "x=[4,3]:float32:stride=[3,1]"). Throws InputError.
Call parse_call(const std::string& text);
// A JSON list of calls: [{"x": [4,3,224,224]}, {"x": {"shape": [...], "dtype": "float16"}}].
std::vector<Call> parse_workload(const nlohmann::json& doc, const std::string& path);

struct RecompileOptions {
  int recompile_limit = 8;
  std::string function_name = "forward";
  std::string location;  // "model.onnx"
  // The graph's inputs, when known: a call's argument the graph does not
  // take (a tensor read only for a size the trace specialized, so Dynamo's
  // graph dropped it) is a frame input (InferOptions::frame_inputs) where
  // the front end takes those, and is passed to no run elsewhere.
  std::optional<std::set<std::string>> graph_inputs;
  bool takes_frame_inputs = false;
};

// What a replayed call met; the names are the report's `status` text.
enum class CallStatus : uint8_t {
  Hit,           // an entry's guards passed
  Compiled,      // a new entry
  LimitReached,  // a miss with recompile_limit entries already compiled
  CompileError,  // the new shapes could not be propagated
};
struct CallStatusInfo {
  CallStatus status;
  std::string_view name;
};
std::span<const CallStatusInfo> call_statuses();  // every status, in enumerator order
std::string_view call_status_name(CallStatus s);

struct CallOutcome {
  int call = 0;                        // 0-based
  CallStatus status = CallStatus::Hit;
  std::string entry;                   // "0/k" that served it
  std::vector<std::string> failures;   // "0/1: tensor 'x' size mismatch at index 0. expected 5, actual 7"
  bool zero_one_specialized = false;   // the new entry specialized a dynamic dim to 0/1
};

// A compiled entry: its id, the run that compiled it, and the guard
// failures of the call that caused it (none for the first).
struct CompiledEntry {
  std::string id;
  std::shared_ptr<const RunResult> run;
  std::vector<std::string> reasons;
};

struct RecompileReport {
  std::vector<CallOutcome> calls;
  std::vector<CompiledEntry> compiled;  // oldest first
  int compiles = 0;
  int hits = 0;
  std::vector<std::string> dynamic_dims;        // sources that became dynamic
  std::vector<std::string> zero_one_recompiles;  // entries compiled because of 0/1 specialization
  std::string suggested_spec;                  // --dynamic ... / --unbacked ...
  std::string log;                             // Dynamo-style text
  nlohmann::json to_json() const;
};

// `infer` runs the model with the given options (marks and hints set per compile).
RecompileReport simulate_recompiles(const std::function<RunResult(const InferOptions&)>& infer,
                                    const InferOptions& base, const std::vector<Call>& calls,
                                    const RecompileOptions& options);

}  // namespace fakeprop
