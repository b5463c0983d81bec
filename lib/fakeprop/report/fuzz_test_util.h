// What every model fuzz target does with a model that loaded: run it and
// write the summary and both layouts of the JSON report. An intentional
// error (fakeprop::Error) ends the input; anything else escapes as a finding.
#pragma once
#include <sstream>

#include "fakeprop/report/report.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

template <class Run>  // () -> RunResult
void run_and_report(const Run& run) {
  try {
    const RunResult result = run();
    std::ostringstream out;
    print_summary(result, out);
    (void)report_json(result);
    (void)report_json(result, nlohmann::json::object(), /*compact=*/true);
  } catch (const Error&) {
  }
}

}  // namespace fakeprop::fuzz
