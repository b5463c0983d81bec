// Fuzz target: the .pt2 archive loader (zip directory, program member,
// serialized program), then the interpreter and both reports. Intentional
// errors (fakeprop::Error) are fine; anything else escaping, a sanitizer
// report, a timeout or running out of memory is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fakeprop/fx/interpreter.h"
#include "fakeprop/fx/pt2_archive.h"
#include "fakeprop/report/fuzz_test_util.h"
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
  run_and_report([&] { return fx::run_graph(graph, options); });
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::pt2_archive(data, size); }
#endif
