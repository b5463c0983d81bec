// `fakeprop check`: a normalized summary of a run (the baseline) and the
// comparison that decides whether a new run regressed against it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakeprop/value/run_result.h"

namespace fakeprop {

// Normalized: symbol names are replaced by their sources so that renaming
// symbols is not a change; lists are sorted. `with_nodes` adds every node's
// output shapes and dtypes.
nlohmann::json make_baseline(const RunResult& r, bool with_nodes);

struct BaselineChange {
  bool regression;   // false: an improvement or a neutral change
  std::string kind;  // output_shape, output_dtype, new_guard, removed_guard, new_specialization,
                     // narrower_range, wider_range, new_error, fixed_error, precision_lost, node_shape, ...
  std::string what;  // one readable line
};

std::vector<BaselineChange> compare_baselines(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace fakeprop
