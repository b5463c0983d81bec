// What every model fuzz target does with a model that loaded: run it and
// write the summary and both layouts of the JSON report. An intentional
// error (fakeprop::Error) ends the input; anything else escapes as a finding,
// and so does a node that failed with an internal error (a rule's bug that
// the node runner caught).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "fakeprop/report/report.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

template <class Run>  // () -> RunResult
void run_and_report(const Run& run) {
  try {
    const RunResult result = run();
    for (const ErrorRecord& e : result.errors)
      if (e.kind == ErrorKind::Internal) {
        std::fprintf(stderr, "fuzz: node %s: internal error: %s\n", e.node.c_str(), e.message.c_str());
        std::abort();
      }
    std::ostringstream out;
    print_summary(result, out);
    (void)report_json(result);
    (void)report_json(result, nlohmann::json::object(), /*compact=*/true);
  } catch (const Error&) {
  }
}

}  // namespace fakeprop::fuzz
