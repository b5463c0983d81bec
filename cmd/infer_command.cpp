#include <fstream>
#include <iostream>

#include "cli.h"
#include "fakeprop/driver/infer.h"
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
  return sub;
}

int run_infer(const InferCommand& cmd) {
  InferOptions options = cmd.flags.to_options();
  RunResult result = infer_file(cmd.model, options);
  nlohmann::json report;
  if (cmd.json || !cmd.report_path.empty()) report = build_report(result);
  if (!cmd.report_path.empty()) write_file_atomically(cmd.report_path, report.dump(2) + "\n", cmd.model);
  if (!cmd.output_path.empty()) write_annotated(result, cmd.model, cmd.output_path);
  if (cmd.json)
    std::cout << report.dump(2) << "\n";
  else
    print_summary(result, std::cout);
  if (cmd.flags.strict)
    for (const auto& e : result.errors)
      if (e.kind == "data_dependent" || e.kind == "unsupported_op") return 1;
  return 0;
}

}  // namespace fakeprop::cli
