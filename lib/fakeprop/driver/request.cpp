#include "fakeprop/driver/request.h"

#include "fakeprop/driver/infer.h"
#include "fakeprop/report/torch_trace.h"
#include "fakeprop/util/input_file.h"

namespace fakeprop {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

nlohmann::json stats_json(const RunResult& r, double infer_ms, double report_ms) {
  const DispatchStats& d = r.dispatch;
  nlohmann::json phases;
  if (d.propagate_ms >= 0) {
    phases["load_ms"] = infer_ms - d.propagate_ms;
    phases["propagate_ms"] = d.propagate_ms;
  } else {
    phases["load_ms"] = nullptr;  // not separable from propagation for this front end
    phases["propagate_ms"] = infer_ms;
  }
  phases["report_ms"] = report_ms;
  nlohmann::json cache = {{"enabled", d.enabled},   {"hits", d.hits},         {"misses", d.misses},
                          {"bypasses", d.bypasses}, {"not_stored", d.not_stored}, {"entries", d.entries}};
  nlohmann::json reasons = nlohmann::json::object();
  for (const auto& [reason, count] : d.bypass_reasons) reasons[std::string(reason)] = count;
  cache["bypass_reasons"] = reasons;
  return {{"nodes", r.nodes.size()}, {"phases", phases}, {"dispatch_cache", cache}};
}

}  // namespace

InferOutcome run_request(const InferRequest& req) {
  InferOutcome out;
  const auto infer_start = std::chrono::steady_clock::now();
  out.result = std::make_unique<RunResult>(infer_file(req.model, req.options));
  RunResult& result = *out.result;
  const double infer_ms = ms_since(infer_start);
  out.report_start = std::chrono::steady_clock::now();
  std::vector<Call> calls;
  for (const auto& c : req.calls) calls.push_back(parse_call(c));
  if (!req.workload_path.empty()) {
    result.input_files.push_back({req.workload_path, "the workload"});
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(read_input_file(req.workload_path));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(req.workload_path + ": invalid JSON: " + e.what());
    }
    for (auto& c : parse_workload(doc, req.workload_path)) calls.push_back(std::move(c));
  }
  if (!req.output_path.empty()) write_annotated(result, req.model, req.output_path);
  if (!calls.empty()) {
    RecompileOptions ro;
    ro.recompile_limit = req.recompile_limit;
    ro.location = req.model;
    ro.graph_inputs.emplace();
    for (const auto& in : result.inputs) ro.graph_inputs->insert(in.name);
    ro.takes_frame_inputs = result.model_kind == "fx";
    out.recompiles = simulate_recompiles([&](const InferOptions& o) { return infer_file(req.model, o); },
                                         req.options, calls, ro);
    out.extra["recompiles"] = out.recompiles->to_json();
    out.extra["recompiles"]["log"] = out.recompiles->log;
  }
  if (!req.trace_dir.empty()) {
    std::vector<TraceCompile> compiles;
    if (out.recompiles)
      for (const CompiledEntry& e : out.recompiles->compiled) compiles.push_back({e.id, e.run.get(), e.reasons});
    else
      compiles.push_back({"0/0", &result, {}});
    write_torch_trace(req.trace_dir, compiles, req.model);
  }
  if (!req.html_path.empty()) write_html(result, out.extra, req.model, req.html_path);
  // The report phase's time up to here; a caller that goes on adds its own.
  if (req.stats) out.extra["stats"] = stats_json(result, infer_ms, ms_since(out.report_start));
  return out;
}

}  // namespace fakeprop
