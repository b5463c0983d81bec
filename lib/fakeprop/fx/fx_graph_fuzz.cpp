// Fuzz target: the JSON FX graph loader, then the interpreter and both
// reports. Intentional errors (fakeprop::Error) are fine; anything else
// escaping, a sanitizer report, a timeout or running out of memory is a
// finding (see onnx/onnx_model_fuzz.cpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fakeprop/fx/graph.h"
#include "fakeprop/fx/interpreter.h"
#include "fakeprop/report/fuzz_test_util.h"
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
  run_and_report([&] { return fx::run_graph(graph, options); });
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::fx_graph(data, size); }
#endif
