// Limits that keep hostile or pathological inputs from blowing up (node
// counts, the size of symbolic expressions); shared by every front end.
#pragma once
#include <cstddef>

namespace fakeprop {

// Nodes one model may hold (every graph, subgraph and function together).
inline constexpr size_t kDefaultMaxNodes = 10'000'000;
// Operations one output expression (a size, stride, offset or SymInt) may
// hold before it is replaced by a fresh unbacked symbol (runner/expr_cap.h).
inline constexpr size_t kDefaultMaxExprNodes = 2000;

}  // namespace fakeprop
