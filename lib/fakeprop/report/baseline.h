// `fakeprop check`: a normalized summary of a run (the baseline) and the
// comparison that decides whether a new run regressed against it.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/value/run_result.h"

namespace fakeprop {

// Normalized: symbol names are replaced by their sources so that renaming
// symbols is not a change; lists are sorted. `with_nodes` adds every node's
// output shapes and dtypes.
nlohmann::json make_baseline(const RunResult& r, bool with_nodes);

// What changed against a baseline; the names are `check`'s `kind` text.
enum class ChangeKind : uint8_t {
  OutputRemoved,
  OutputAdded,
  OutputDtype,
  OutputShape,
  NodeDtype,
  NodeShape,
  NewGuard,
  RemovedGuard,
  NewSpecialization,
  RemovedSpecialization,
  NewError,
  FixedError,
  PrecisionLost,
  PrecisionRegained,
  SpecializedInput,
  NarrowerRange,
  WiderRange,
  NewUnbacked,
  OpRulesChanged,
  NewRuntimeAssert,
  RemovedRuntimeAssert,
  OptionsChanged,
  PeakMemoryGrew,
  PeakMemoryShrank,
  PeakMemoryChanged,
  FlopsChanged,
};
struct ChangeKindInfo {
  ChangeKind kind;
  std::string_view name;
};
std::span<const ChangeKindInfo> change_kinds();  // every kind, in enumerator order
std::string_view change_kind_name(ChangeKind k);

struct BaselineChange {
  bool regression;  // false: an improvement or a neutral change
  ChangeKind kind;
  std::string what;  // one readable line
};

// When the --op-rules files' content changed (their digest), or the options
// the runs were made with (a baseline's "options"), that is an
// op_rules_changed / options_changed note first, and no change counts as a
// regression: under other rules or options the shapes say nothing about the
// model. A new runtime assert is a regression (a size the model accepted is
// now rejected at run time), one dropped an improvement. Peak memory and
// FLOPs are listed when they change (peak_memory_grew / _shrank / _changed
// at the hints, flops_changed) and never count as regressions: check gates
// shapes. Baselines made before the memory section are not compared on it.
std::vector<BaselineChange> compare_baselines(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace fakeprop
