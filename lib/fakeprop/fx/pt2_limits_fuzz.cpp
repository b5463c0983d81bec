// Fuzz target: the .pt2 reader under small limits. The first three bytes
// pick the program limit (1 to 64 KiB) and the compression ratio (1 to 16);
// the rest is the archive. A zip whose records lie about sizes, or that
// inflates far past them, must end in an error (fakeprop::Error) within the
// limits: a crash, a timeout or memory past libFuzzer's limit is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fakeprop/fx/pt2_archive.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

int pt2_limits(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  FileLimits limits;
  limits.max_program_bytes = 1024u * (1u + (static_cast<unsigned>(data[0]) | (static_cast<unsigned>(data[1] & 0x3f) << 8)) % 64u);
  limits.max_compression_ratio = 1u + data[2] % 16u;
  try {
    (void)fx::parse_pt2_archive(std::string_view(reinterpret_cast<const char*>(data) + 3, size - 3), "fuzz.pt2",
                                100000, limits);
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::pt2_limits(data, size); }
#endif
