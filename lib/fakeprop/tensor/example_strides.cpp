#include "fakeprop/tensor/example_strides.h"

#include <algorithm>
#include <numeric>

namespace fakeprop {

std::optional<std::vector<int64_t>> dense_strides_like(std::span<const int64_t> ex_sizes,
                                                       std::span<const int64_t> ex_strides,
                                                       std::span<const int64_t> sizes) {
  const size_t n = ex_sizes.size();
  if (ex_strides.size() != n || sizes.size() != n) return std::nullopt;
  if (std::equal(ex_sizes.begin(), ex_sizes.end(), sizes.begin())) return std::vector<int64_t>(ex_strides.begin(), ex_strides.end());
  // Innermost first; among equal strides the later dim is inner (a size-1 dim
  // of a contiguous tensor shares its neighbour's stride).
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ex_strides[a] != ex_strides[b] ? ex_strides[a] < ex_strides[b] : a > b;
  });
  int64_t expected = 1;
  for (size_t d : order) {
    if (ex_sizes[d] == 1) continue;  // any stride serves a size-1 dim
    if (ex_strides[d] != expected) return std::nullopt;
    // A size-0 dim steps as a size-1 one, as torch's contiguous strides do ([6, 0, 3] is (3, 3, 1)).
    if (__builtin_mul_overflow(expected, std::max<int64_t>(ex_sizes[d], 1), &expected)) return std::nullopt;
  }
  std::vector<int64_t> out(n);
  int64_t next = 1;
  for (size_t d : order) {
    out[d] = next;
    if (__builtin_mul_overflow(next, std::max<int64_t>(sizes[d], 1), &next)) return std::nullopt;
  }
  return out;
}

}  // namespace fakeprop
