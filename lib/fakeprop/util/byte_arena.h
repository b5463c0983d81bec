// Append-only storage for many small byte strings: one allocation per block
// instead of one per string, and the views it returns stay valid for the
// arena's lifetime (moving the arena included).
#pragma once
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace fakeprop {

class ByteArena {
 public:
  explicit ByteArena(size_t block_size = 64 * 1024) : block_size_(block_size) {}

  // A copy of `bytes` kept by the arena.
  std::string_view copy(std::string_view bytes);
  // `n` uninitialized bytes kept by the arena (n > 0).
  char* allocate(size_t n);
  // Bytes handed out so far.
  size_t used() const { return used_; }

 private:
  size_t block_size_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* free_ = nullptr;  // the unused tail of the newest block
  size_t free_size_ = 0;
  size_t used_ = 0;
};

}  // namespace fakeprop
