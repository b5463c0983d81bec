// Fuzz target: the ONNX loader, then the interpreter and both reports on
// whatever loads. Intentional errors (fakeprop::Error) are fine; anything
// else escaping, a sanitizer report, a timeout or running out of memory is
// a finding. scripts/fuzz.sh runs it; the replay driver in
// testdata/fuzz_regressions runs the committed inputs in ordinary builds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/report/fuzz_test_util.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

int onnx_model(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  onnx::Model model;
  try {
    model = onnx::parse_model(bytes, "fuzz.onnx", 100000);
  } catch (const Error&) {
    return 0;
  }
  InferOptions options;
  options.max_subgraph_depth = 8;
  options.max_fold_elements = 4096;
  run_and_report([&] { return onnx::run_model(std::move(model), options); });
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::onnx_model(data, size); }
#endif
