// The solver behind `fakeprop plan`: memory and FLOPs at sizes the user
// names, and the largest size of a symbol whose peak fits a budget. Values
// are the symbols' hints unless set; an answer is a size the program
// accepts (inside the symbol's range, every guard and runtime assert true).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fakeprop/sizing/memory.h"

namespace fakeprop {

class Planner {
 public:
  Planner(const RunResult& r, const MemoryAnalysis& memory, const ComputeAnalysis& compute);

  // Fixes a symbol's value for every question after (others keep their hints).
  void set(ExprRef symbol, int64_t value) { values_[symbol] = value; }
  SymbolValues values_with(ExprRef symbol = nullptr, int64_t value = 0) const;

  // The first range, guard or runtime assert the values break, as text; nullopt when they break none.
  std::optional<std::string> violation(const SymbolValues& values) const;

  struct Point {
    int64_t peak = 0;
    std::optional<int64_t> flops;
    MemoryAt memory;
    std::optional<std::string> violation;
  };
  // Throws Error when a size has no value, OverflowError past 64 bits.
  Point at(const SymbolValues& values) const;

  struct Solution {
    bool fits = false;          // some admissible size fits
    int64_t value = 0;          // the largest admissible size that fits (fits), else the smallest admissible size
    int64_t peak = 0;           // peak bytes there
    std::string limited_by;     // "budget", "range" (the symbol's largest value fits), "guards"
    std::optional<int64_t> next_value, next_peak;  // value + 1 and its peak (unless past the range)
    std::optional<std::string> next_violation;     // why value + 1 is not admissible, if it is not
  };
  // The largest size of `symbol` whose peak is at most `budget`, the others as set.
  // Peak memory never decreases as a size grows (sums of products of sizes).
  Solution solve(ExprRef symbol, int64_t budget) const;

  const ShapeEnv& env() const { return env_; }
  const MemoryAnalysis& memory() const { return memory_; }

 private:
  // Peak at symbol = v, or nullopt past 64 bits (which fits no budget).
  std::optional<int64_t> peak_with(ExprRef symbol, int64_t v) const;
  std::optional<int64_t> smallest_admissible(ExprRef symbol, int64_t from, int64_t to) const;

  const ShapeEnv& env_;
  const MemoryAnalysis& memory_;
  const ComputeAnalysis& compute_;
  std::unordered_map<ExprRef, int64_t> values_;
};

// "80GiB", "1.5 GB", "512MiB", "4096": bytes (K/M/G/T are binary, KB/MB/GB/TB decimal); nullopt when it does not parse.
std::optional<int64_t> parse_byte_count(std::string_view text);

}  // namespace fakeprop
