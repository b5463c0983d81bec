#include <iostream>

#include "cli.h"
#include "fakeprop/driver/plan.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop::cli {

CLI::App* add_plan_command(CLI::App& app, PlanCommand& cmd) {
  CLI::App* sub = app.add_subcommand(
      "plan", "Peak memory and FLOPs of MODEL over every size, at sizes you list, and the largest size that fits a budget");
  sub->add_option("MODEL", cmd.model, "ONNX model (.onnx), JSON FX graph (.json) or torch.export.save archive (.pt2)")
      ->required();
  cmd.flags.add_to(*sub);
  sub->add_option("--budget", cmd.budget, "Memory budget, e.g. 80GiB, 512MB, 1073741824 (K/M/G/T binary, KB/MB/GB/TB decimal)")
      ->type_name("BYTES");
  sub->add_option("--solve", cmd.solve,
                  "The symbol to solve for: the largest size whose peak fits --budget, the others at their hints or "
                  "--set values; a second one (batch,seq) gives the frontier. A symbol name, a source "
                  "(L['x'].size()[0]) or INPUT:DIM")
      ->delimiter(',')
      ->type_name("SYMBOL[,SYMBOL]");
  sub->add_option("--at", cmd.at, "Peak memory and FLOPs at these sizes, e.g. batch=8,seq=2048; repeatable (one row each)")
      ->type_name("NAME=INT,...");
  sub->add_option("--set", cmd.set, "A symbol's value instead of its hint for every question; repeatable")
      ->type_name("NAME=INT");
  sub->add_flag("--json", cmd.json, "Print the plan as JSON (format fakeprop.plan/1)");
  sub->add_option("--html", cmd.html_path,
                  "Write the HTML report to FILE, its memory chart with live bytes at the hints and at the solved size")
      ->type_name("FILE");
  return sub;
}

int run_plan(const PlanCommand& cmd) {
  PlanRequest req;
  req.model = cmd.model;
  req.options = cmd.flags.to_options();
  req.budget = cmd.budget;
  req.solve = cmd.solve;
  req.at = cmd.at;
  req.set = cmd.set;
  req.html_path = cmd.html_path;
  PlanOutcome outcome = run_plan(req);
  if (cmd.json) std::cout << outcome.report.dump(2) << "\n";
  else std::cout << plan_text(outcome.report);
  if (outcome.status == 1 && !cmd.json) {
    const auto& s = outcome.report["solve"];
    std::cerr << "fakeprop: no size fits: the smallest admissible " << s["symbol"].get<std::string>() << ", "
              << s["value"].dump() << ", needs " << s["peak_bytes"].dump() << " bytes\n";
  }
  return outcome.status;
}

}  // namespace fakeprop::cli
