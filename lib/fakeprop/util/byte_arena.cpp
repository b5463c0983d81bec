#include "fakeprop/util/byte_arena.h"

#include <cstring>

namespace fakeprop {

char* ByteArena::allocate(size_t n) {
  used_ += n;
  if (n > free_size_) {
    // A string larger than a quarter block gets a block of its own; the
    // current block's tail stays usable for the next small one.
    if (n > block_size_ / 4) return blocks_.emplace_back(std::make_unique_for_overwrite<char[]>(n)).get();
    free_ = blocks_.emplace_back(std::make_unique_for_overwrite<char[]>(block_size_)).get();
    free_size_ = block_size_;
  }
  char* at = free_;
  free_ += n;
  free_size_ -= n;
  return at;
}

std::string_view ByteArena::copy(std::string_view bytes) {
  if (bytes.empty()) return {};
  char* at = allocate(bytes.size());
  std::memcpy(at, bytes.data(), bytes.size());
  return {at, bytes.size()};
}

}  // namespace fakeprop
