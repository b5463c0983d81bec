#include <fstream>
#include <iostream>

#include "cli.h"
#include "fakeprop/driver/infer.h"
#include "fakeprop/report/recompile.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/atomic_file.h"

namespace fakeprop::cli {

CLI::App* add_infer_command(CLI::App& app, InferCommand& cmd) {
  CLI::App* sub = app.add_subcommand("infer", "Propagate fake tensors through MODEL and report shapes and guards (default)");
  sub->add_option("MODEL", cmd.model, "ONNX model (.onnx) or JSON FX graph (.json)")->required();
  cmd.flags.add_to(*sub);
  sub->add_flag("--json", cmd.json, "Print the full JSON report on stdout instead of the summary");
  sub->add_option("--report", cmd.report_path, "Write the JSON report to FILE")->type_name("FILE");
  sub->add_option("-o,--output", cmd.output_path, "Write the annotated model (ONNX with value_info) to FILE")
      ->type_name("FILE");
  sub->add_option("--call", cmd.calls,
                  "Replay a call against a model of torch.compile's cache, e.g. \"x=[4,3,224,224]\"; repeatable")
      ->type_name("NAME=[DIMS][:DTYPE],...");
  sub->add_option("--workload", cmd.workload_path, "Replay a JSON list of calls (see --call)")->type_name("FILE");
  sub->add_option("--recompile-limit", cmd.recompile_limit, "Dynamo's recompile_limit for --call/--workload")
      ->check(CLI::PositiveNumber);
  return sub;
}

int run_infer(const InferCommand& cmd) {
  InferOptions options = cmd.flags.to_options();
  RunResult result = infer_file(cmd.model, options);
  nlohmann::json report;
  if (cmd.json || !cmd.report_path.empty()) report = build_report(result);
  if (!cmd.output_path.empty()) write_annotated(result, cmd.model, cmd.output_path);
  std::vector<Call> calls;
  for (const auto& c : cmd.calls) calls.push_back(parse_call(c));
  if (!cmd.workload_path.empty()) {
    std::ifstream in(cmd.workload_path);
    if (!in) throw InputError(cmd.workload_path + ": cannot read the workload");
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(cmd.workload_path + ": invalid JSON: " + e.what());
    }
    for (auto& c : parse_workload(doc, cmd.workload_path)) calls.push_back(std::move(c));
  }
  std::optional<RecompileReport> recompiles;
  if (!calls.empty()) {
    RecompileOptions ro;
    ro.recompile_limit = cmd.recompile_limit;
    ro.location = cmd.model;
    recompiles = simulate_recompiles([&](const InferOptions& o) { return infer_file(cmd.model, o); }, options, calls, ro);
    if (cmd.json || !cmd.report_path.empty()) {
      report["recompiles"] = recompiles->to_json();
      report["recompiles"]["log"] = recompiles->log;
    }
  }
  if (!cmd.report_path.empty()) write_file_atomically(cmd.report_path, report.dump(2) + "\n", cmd.model);
  if (cmd.json) {
    std::cout << report.dump(2) << "\n";
  } else {
    print_summary(result, std::cout);
    if (recompiles) std::cout << "recompiles:\n" << recompiles->log;
  }
  if (cmd.flags.strict)
    for (const auto& e : result.errors)
      if (e.kind == "data_dependent" || e.kind == "unsupported_op") return 1;
  return 0;
}

}  // namespace fakeprop::cli
