// Fuzz target: the JSON FX graph loader, then the interpreter and both
// reports. Intentional errors (fakeprop::Error) are fine; anything else
// escaping, a sanitizer report, a timeout or running out of memory is a
// finding (see onnx/onnx_model_fuzz.cpp).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fakeprop/fx/graph.h"
#include "fakeprop/fx/interpreter.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

int fx_graph(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fx::Graph graph;
  try {
    graph = fx::parse_graph(text, "fuzz.json", 100000);
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
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::fx_graph(data, size); }
#endif
