// The fakeprop command line: one file per subcommand, errors caught once here.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "fakeprop/options/infer_options.h"

namespace fakeprop::cli {

int run(int argc, char** argv);

// Options every subcommand that runs inference shares.
struct InferFlags {
  std::vector<std::string> dynamic, unbacked, static_, inputs, marks;
  std::string device = "cpu";
  std::string log;
  bool no_specialize_zero_one = false;
  bool no_duck_shape = false;
  bool backed_size_oblivious = false;
  bool no_assume_static_by_default = false;
  bool strict = false;
  std::string explain_guard;   // TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED
  std::string explain_symbol;  // TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL

  void add_to(CLI::App& app);
  InferOptions to_options() const;  // throws InputError on a malformed value
};

struct InferCommand {
  std::string model;
  InferFlags flags;
  bool json = false;
  std::string report_path;
  std::string output_path;
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
};
CLI::App* add_check_command(CLI::App& app, CheckCommand& cmd);
int run_check(const CheckCommand& cmd);

}  // namespace fakeprop::cli
