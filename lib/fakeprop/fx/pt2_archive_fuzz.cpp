// Fuzz target: the .pt2 archive loader (zip directory, program member,
// serialized program), then the interpreter and both reports. Intentional
// errors (fakeprop::Error) are fine; anything else escaping, a sanitizer
// report, a timeout or running out of memory is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "fakeprop/fx/interpreter.h"
#include "fakeprop/fx/pt2_archive.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

int pt2_archive(const uint8_t* data, size_t size) {
  fx::Graph graph;
  try {
    graph = fx::parse_pt2_archive(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.pt2", 100000);
  } catch (const Error&) {
    return 0;
  }
  InferOptions options;
  try {
    const RunResult result = fx::run_graph(graph, options);
    std::ostringstream out;
    print_summary(result, out);
    (void)report_json(result);
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::pt2_archive(data, size); }
#endif
