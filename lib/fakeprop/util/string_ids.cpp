#include "fakeprop/util/string_ids.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace fakeprop {

namespace {
size_t capacity_for(size_t n) { return std::bit_ceil(std::max<size_t>(16, n * 2)); }

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
uint64_t mix(uint64_t h, uint64_t word) {
  h = (h ^ word) * kMul;
  return h ^ (h >> 32);
}
}  // namespace

StringIds::StringIds(size_t expected) : slots_(capacity_for(expected)) { names_.reserve(expected); }

// Eight bytes a step: names are short, and std::hash (murmur over bytes)
// was a tenth of a large graph's load.
uint32_t StringIds::hash(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = kMul ^ n;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    h = mix(h, word);
  }
  if (n > 0) {
    uint64_t word = 0;
    std::memcpy(&word, p, n);
    h = mix(h, word);
  }
  // murmur3's finalizer: every input bit reaches the low bits the table indexes by.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return static_cast<uint32_t>(h);
}

size_t StringIds::probe(std::string_view s, uint32_t h) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == kNone || (slot.hash == h && names_[slot.id] == s)) return i;
  }
}

size_t StringIds::empty_slot(uint32_t h) const {
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (slots_[i].id != kNone) i = (i + 1) & mask;
  return i;
}

void StringIds::rehash(size_t capacity) {
  std::vector<Slot> old(capacity);
  old.swap(slots_);
  for (const Slot& slot : old)
    if (slot.id != kNone) slots_[empty_slot(slot.hash)] = slot;
}

void StringIds::reserve(size_t n) {
  if (capacity_for(n) > slots_.size()) rehash(capacity_for(n));
  names_.reserve(n);
}

}  // namespace fakeprop
