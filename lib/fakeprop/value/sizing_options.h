// How sizing (sizing/memory.h) counts bytes: asked for by the user, carried
// by the run to its report.
#pragma once
#include <cstdint>
#include <map>

#include "fakeprop/tensor/dtype.h"

namespace fakeprop {

struct SizingOptions {
  int64_t alloc_round = 0;               // round each storage up to a multiple (CUDA's caching allocator: 512); 0: exact
  std::map<DType, int64_t> dtype_bytes;  // element sizes replaced (plan a float32 export in bfloat16: float32 -> 2)
};

}  // namespace fakeprop
