// fakeprop check: the flags of driver/check.h's request; the driver runs it, this prints it.
#include <iostream>
#include <string>

#include "cli.h"
#include "fakeprop/driver/check.h"

namespace fakeprop::cli {

CLI::App* add_check_command(CLI::App& app, CheckCommand& cmd) {
  CLI::App* sub = app.add_subcommand("check", "Compare MODELs with their baselines; exit 1 when shapes regressed");
  sub->add_option("MODEL", cmd.models, "Models to check (.onnx, .json FX graphs, .pt2 archives)")->required();
  sub->add_option("--baseline", cmd.baseline,
                  "Baseline file (one model) or directory (one <model file name>.baseline.json per model)")
      ->required()
      ->type_name("FILE|DIR");
  sub->add_flag("--update", cmd.update, "Write the current results as the new baselines (atomically)");
  sub->add_flag("--json", cmd.json, "Print the comparison as JSON");
  sub->add_flag("--nodes", cmd.nodes, "Also compare every node's output shapes and dtypes");
  sub->add_option("--shard", cmd.shard, "Check only shard K of N (1-based), splitting the sorted model list")
      ->type_name("K/N");
  sub->add_option("-j,--jobs", cmd.jobs, "Models checked at once (default: every core)");
  sub->add_option("--max-peak-growth", cmd.max_peak_growth,
                  "Count a peak memory (at the hints) that grew by more than PCT percent as a regression")
      ->type_name("PCT")
      ->check([](const std::string& text) {
        // CLI11's NonNegativeNumber would print the largest double as the range's end.
        size_t used = 0;
        double v = -1;
        try {
          v = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        return used == text.size() && v >= 0 ? std::string() : "expected a percentage >= 0, got " + text;
      });
  cmd.flags.add_to(*sub);
  return sub;
}

int run_check(const CheckCommand& cmd) {
  CheckRequest req;
  req.models = cmd.models;
  req.baseline = cmd.baseline;
  req.update = cmd.update;
  req.nodes = cmd.nodes;
  req.shard = cmd.shard;
  req.jobs = cmd.jobs;
  req.max_peak_growth = cmd.max_peak_growth;
  req.args = cmd.flags.args;
  const CheckOutcome outcome = fakeprop::run_check(req);
  if (cmd.json) {
    std::cout << outcome.document().dump(2) << "\n";
    return outcome.exit_code;
  }
  for (const ModelCheck& m : outcome.models)
    if (!m.error.empty()) std::cerr << "fakeprop: error: " << m.error << "\n";
  std::cout << outcome.summary();
  return outcome.exit_code;
}

}  // namespace fakeprop::cli
