#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli.h"
#include "fakeprop/driver/infer.h"
#include "fakeprop/driver/request.h"
#include "fakeprop/report/recompile.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/input_file.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop::cli {

CLI::App* add_infer_command(CLI::App& app, InferCommand& cmd) {
  CLI::App* sub = app.add_subcommand("infer", "Propagate fake tensors through MODEL and report shapes and guards (default)");
  sub->add_option("MODEL", cmd.model, "ONNX model (.onnx), JSON FX graph (.json) or torch.export.save archive (.pt2)")->required();
  cmd.flags.add_to(*sub);
  sub->add_flag("--json", cmd.json, "Print the full JSON report on stdout instead of the summary");
  sub->add_option("--report", cmd.report_path, "Write the JSON report to FILE")->type_name("FILE");
  sub->add_option("-o,--output", cmd.output_path, "Write the annotated model to FILE: ONNX with value_info; for a JSON FX graph or .pt2, a JSON FX graph "
                  "with meta.val on every node")
      ->type_name("FILE");
  sub->add_option("--html", cmd.html_path,
                  "Write a self-contained HTML report to FILE: inputs and symbols, the searchable graph, guards "
                  "linked to their nodes, errors, recompiles")
      ->type_name("FILE");
  sub->add_option("--trace-dir", cmd.trace_dir,
                  "Write the structured log PyTorch's TORCH_TRACE writes (one compile, or one per --call/--workload "
                  "compile) to DIR/dedicated_log_torch_trace_*.log, for tlparse; TORCH_TRACE is honoured too")
      ->type_name("DIR");
  sub->add_option("--call", cmd.calls,
                  "Replay a call against a model of torch.compile's cache, e.g. \"x=[4,3,224,224]\"; repeatable")
      ->type_name("NAME=[DIMS][:DTYPE],...");
  sub->add_option("--workload", cmd.workload_path, "Replay a JSON list of calls (see --call)")->type_name("FILE");
  sub->add_option("--recompile-limit", cmd.recompile_limit, "Dynamo's recompile_limit for --call/--workload")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--stats", cmd.stats,
                "Print per-phase times (load, propagate, report) and dispatch-cache counts (hits, misses, bypasses by "
                "reason) on stderr, "
                "and add them to the JSON report as \"stats\"");
  return sub;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void print_stats(const nlohmann::json& s, std::ostream& err) {
  const auto& p = s["phases"];
  const auto& c = s["dispatch_cache"];
  char line[512];
  if (p["load_ms"].is_null())
    std::snprintf(line, sizeof line, "stats: load+propagate %.2f ms, report %.2f ms, %zu nodes\n",
                  p["propagate_ms"].get<double>(), p["report_ms"].get<double>(), s["nodes"].get<size_t>());
  else
    std::snprintf(line, sizeof line, "stats: load %.2f ms, propagate %.2f ms, report %.2f ms, %zu nodes\n",
                  p["load_ms"].get<double>(), p["propagate_ms"].get<double>(), p["report_ms"].get<double>(),
                  s["nodes"].get<size_t>());
  err << line;
  if (c["enabled"].get<bool>()) {
    const uint64_t hits = c["hits"], misses = c["misses"];
    std::snprintf(line, sizeof line,
                  "stats: dispatch cache: %llu hits, %llu misses (%.1f%% hit rate), %llu bypassed, %llu not stored, "
                  "%llu entries\n",
                  static_cast<unsigned long long>(hits), static_cast<unsigned long long>(misses),
                  hits + misses ? 100.0 * static_cast<double>(hits) / static_cast<double>(hits + misses) : 0.0,
                  static_cast<unsigned long long>(c["bypasses"].get<uint64_t>()),
                  static_cast<unsigned long long>(c["not_stored"].get<uint64_t>()),
                  static_cast<unsigned long long>(c["entries"].get<uint64_t>()));
    err << line;
    std::string by_reason;
    for (const auto& [reason, count] : c["bypass_reasons"].items())
      if (count.get<uint64_t>() > 0) by_reason += (by_reason.empty() ? "" : ", ") + reason + " " + count.dump();
    if (!by_reason.empty()) err << "stats: dispatch cache bypasses: " << by_reason << "\n";
  } else {
    err << "stats: dispatch cache: off\n";
  }
}

}  // namespace

// The run's result is never destroyed (docs/performance.md says why). The
// pointer keeps it reachable, so LeakSanitizer reports no leak; it has
// external linkage so that the compiler cannot drop the store as dead.
RunResult* kept_result = nullptr;

int run_infer(const InferCommand& cmd) {
  InferRequest req;
  req.model = cmd.model;
  req.options = cmd.flags.to_options();
  req.calls = cmd.calls;
  req.workload_path = cmd.workload_path;
  req.recompile_limit = cmd.recompile_limit;
  req.output_path = cmd.output_path;
  req.html_path = cmd.html_path;
  req.trace_dir = cmd.trace_dir;
  if (const char* env = std::getenv("TORCH_TRACE"); req.trace_dir.empty() && env) req.trace_dir = env;
  req.stats = cmd.stats;
  InferOutcome outcome = run_request(req);
  kept_result = outcome.result.release();
  const RunResult& result = *kept_result;
  if (cmd.json || !cmd.report_path.empty()) {
    // Streamed in chunks to the file and/or stdout: a million-node report is
    // hundreds of megabytes, never held whole.
    std::optional<OutputFile> file;
    if (!cmd.report_path.empty()) file.emplace(cmd.report_path, result.input_files);
    stream_report_json(result, outcome.extra, [&](std::string_view chunk) {
      if (file) file->write(chunk);
      if (cmd.json) std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    });
    if (file) file->commit();
  } else {
    print_summary(result, std::cout);
    if (outcome.recompiles) std::cout << "recompiles:\n" << outcome.recompiles->log;
  }
  if (cmd.stats) {
    // The JSON carries the report phase up to the JSON; the stderr line times all of it.
    std::cout.flush();
    nlohmann::json stats = outcome.extra["stats"];
    stats["phases"]["report_ms"] = ms_since(outcome.report_start);
    print_stats(stats, std::cerr);
  }
  return exit_status(result, cmd.flags.args.strict);
}

}  // namespace fakeprop::cli
