// The strides of a real example tensor of other sizes: what a call with new
// sizes passes when the graph recorded one example (integers only).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace fakeprop {

// Dense strides for `sizes` in the memory order of an example (`ex_sizes`,
// `ex_strides`), as a tensor made the same way at the new sizes would have
// them (contiguous stays contiguous, channels-last stays channels-last).
// nullopt when the example is not non-overlapping and dense (a slice, an
// expand) or the ranks differ: its layout says nothing about other sizes.
std::optional<std::vector<int64_t>> dense_strides_like(std::span<const int64_t> ex_sizes,
                                                       std::span<const int64_t> ex_strides,
                                                       std::span<const int64_t> sizes);

}  // namespace fakeprop
