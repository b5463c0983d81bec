// Fuzz target: the source-spec parser and matcher (--dynamic, --unbacked,
// --static and TORCH_COMPILE_*_SOURCES). Input: the first line is a spec
// list, every further line a source name to classify. Bad specs are
// InputErrors; a hang (catastrophic backtracking), a stack overflow or any
// other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fakeprop/options/source_spec.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

int source_spec(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t newline = text.find('\n');
  const std::string spec = text.substr(0, newline);
  std::vector<std::string> sources;
  for (size_t start = newline; start != std::string::npos && start < text.size();) {
    const size_t end = text.find('\n', start + 1);
    sources.push_back(SourceSpecs::normalize_source(text.substr(start + 1, end == std::string::npos ? end : end - start - 1)));
    start = end;
  }
  if (sources.empty()) sources.push_back("L['x']");
  try {
    SourceSpecs specs;
    specs.add(static_cast<DimMark>(1 + (size % 3)), spec);
    for (const auto& s : sources)
      for (int64_t dim = 0; dim < 3; ++dim) (void)specs.classify(s, dim);
    specs.check_all_matched(sources);
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::source_spec(data, size); }
#endif
