// The valid region of every dynamic input dim, in one line each:
//   L['x'].size()[0]: 2..64, multiple of 8
// from the symbol's range after every guard and assert, its divisibility
// facts, the equalities that tie it to another input, and any other guard or
// assert that mentions it alone.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fakeprop/value/run_result.h"

namespace fakeprop {

struct ValidRegion {
  std::string source;                // L['x'].size()[0]
  std::string text;                  // the one line
  std::optional<int64_t> value;      // specialized to a constant
  std::string equals;                // tied to another source (expression over sources)
  std::optional<int64_t> min, max;   // range ends (kIntOo sentinels for infinite)
  int64_t multiple_of = 1;
  std::vector<std::string> also;     // other conditions on this dim alone, over sources
};

std::vector<ValidRegion> valid_regions(const RunResult& r);

}  // namespace fakeprop
