// Limits that keep hostile or pathological inputs from blowing up (node
// counts, the size of symbolic expressions); shared by every front end.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fakeprop {

// Nodes one model may hold (every graph, subgraph and function together).
inline constexpr size_t kDefaultMaxNodes = 10'000'000;
// Operations one output expression (a size, stride, offset or SymInt) may
// hold before it is replaced by a fresh unbacked symbol (runner/expr_cap.h).
inline constexpr size_t kDefaultMaxExprNodes = 2000;

// What a model file may hold before it is refused. Sizes a file declares (a
// zip member's recorded size) are never trusted: these are checked against
// the bytes as they arrive, so memory follows the real input.
struct FileLimits {
  // A JSON FX graph's text, or a .pt2 archive's program JSON once inflated.
  uint64_t max_program_bytes = uint64_t{1} << 30;
  // A .pt2 member's inflated bytes per compressed byte, past the first
  // kRatioFreeBytes (torch.export.save stores members uncompressed: 1).
  uint64_t max_compression_ratio = 50;
  static constexpr uint64_t kRatioFreeBytes = uint64_t{16} << 20;
};

}  // namespace fakeprop
