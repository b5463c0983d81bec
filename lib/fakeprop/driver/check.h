// `fakeprop check` as a front door asks for it (the CLI's `check`, the
// package's `fakeprop.check`): models, their baselines and the inference
// options in; each model's status and changes, the --json document, the
// summary text and the exit code out. Each front door only prints them.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/options/infer_args.h"
#include "fakeprop/report/baseline.h"

namespace fakeprop {

struct CheckRequest {
  std::vector<std::string> models;
  std::string baseline;  // a file (one model) or a directory of <model file name>.baseline.json
  bool update = false;   // write the current results as the baselines
  bool nodes = false;    // compare every node's outputs too
  std::string shard;     // "K/N": every N-th model of the sorted list; empty: all
  unsigned jobs = 0;     // models checked at once; 0: every core
  // A peak at the hints that grew by more than this percentage of the
  // baseline's is a regression; < 0 (the default): peak changes never are.
  double max_peak_growth = -1;
  // The inference options given; none (InferArgs' defaults, --op-rules
  // aside) runs each model with the options its baseline records.
  InferArgs args;
};

struct ModelCheck {
  std::string model;
  std::string baseline_path;
  std::string error;  // bad input: no baseline, a model that does not load
  std::vector<BaselineChange> changes;
  bool updated = false;
  bool regressed() const;
  std::string_view status() const;  // "ok", "regressed", "updated" or "error"
};

struct CheckOutcome {
  std::vector<ModelCheck> models;  // the models checked (sorted, this shard's), in order
  int exit_code = 0;               // 0 nothing regressed, 1 a regression, 2 bad input
  nlohmann::json document() const;  // what --json prints
  // What the CLI prints on stdout without --json; errors are not in it
  // (the CLI prints each model's on stderr).
  std::string summary() const;
};

// Throws InputError for a request that names no valid shard, several models
// with one baseline file, or malformed options; a model's own bad input is
// its ModelCheck::error.
CheckOutcome run_check(const CheckRequest& request);

}  // namespace fakeprop
