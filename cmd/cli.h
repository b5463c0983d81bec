// The fakeprop command line: one file per subcommand, errors caught once here.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "fakeprop/driver/read_options.h"
#include "fakeprop/options/infer_args.h"

namespace fakeprop::cli {

int run(int argc, char** argv);

// Options every subcommand that runs inference shares: CLI11's view of InferArgs.
struct InferFlags {
  InferArgs args;

  void add_to(CLI::App& app);
  // Throws InputError on a malformed value or an unreadable file it names.
  InferOptions to_options() const { return read_options(args); }
};

struct InferCommand {
  std::string model;
  InferFlags flags;
  bool json = false;
  std::string report_path;
  std::string output_path;
  std::string trace_dir;  // empty: TORCH_TRACE
  std::string html_path;
  std::vector<std::string> calls;
  std::string workload_path;
  int recompile_limit = 8;
  bool stats = false;
};
CLI::App* add_infer_command(CLI::App& app, InferCommand& cmd);
int run_infer(const InferCommand& cmd);

struct CheckCommand {
  std::vector<std::string> models;
  InferFlags flags;
  std::string baseline;
  bool update = false;
  bool json = false;
  bool nodes = false;
  std::string shard;  // "K/N"
  unsigned jobs = 0;  // 0: every core
  double max_peak_growth = -1;  // percent; < 0: not given
};
CLI::App* add_check_command(CLI::App& app, CheckCommand& cmd);
int run_check(const CheckCommand& cmd);

struct PlanCommand {
  std::string model;
  InferFlags flags;
  std::string budget;
  std::vector<std::string> solve;
  std::vector<std::string> at;
  std::vector<std::string> set;
  std::string html_path;
  bool json = false;
};
CLI::App* add_plan_command(CLI::App& app, PlanCommand& cmd);
int run_plan(const PlanCommand& cmd);

}  // namespace fakeprop::cli
