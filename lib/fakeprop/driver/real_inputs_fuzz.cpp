// Fuzz target: the --real-input readers. Input: a first byte choosing the
// format (even: .npy, odd: TensorProto), then the file's bytes. A malformed
// file is an InputError; a crash, hang or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fakeprop/driver/real_inputs.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

int real_inputs(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0)
      (void)parse_npy(bytes, "fuzz.npy", 4096);
    else
      (void)onnx::parse_tensor_proto(bytes, "fuzz.pb", 4096);
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::real_inputs(data, size); }
#endif
