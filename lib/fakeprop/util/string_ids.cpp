#include "fakeprop/util/string_ids.h"

#include <algorithm>
#include <bit>
#include <functional>

namespace fakeprop {

namespace {
size_t capacity_for(size_t n) { return std::bit_ceil(std::max<size_t>(16, n * 2)); }
}  // namespace

StringIds::StringIds(size_t expected) : slots_(capacity_for(expected)) { names_.reserve(expected); }

uint64_t StringIds::hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

size_t StringIds::probe(std::string_view s, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == kNone || (slot.tag == tag && names_[slot.id] == s)) return i;
  }
}

void StringIds::rehash(size_t capacity) {
  std::vector<Slot> old(capacity);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.id == kNone) continue;
    size_t i = hash(names_[slot.id]) & mask;
    while (slots_[i].id != kNone) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

std::pair<uint32_t, bool> StringIds::insert(std::string_view s) {
  const uint64_t h = hash(s);
  size_t i = probe(s, h);
  if (slots_[i].id != kNone) return {slots_[i].id, false};
  if ((names_.size() + 1) * 2 > slots_.size()) {
    rehash(slots_.size() * 2);
    i = probe(s, h);
  }
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(s);
  slots_[i] = {static_cast<uint32_t>(h >> 32), id};
  return {id, true};
}

uint32_t StringIds::find(std::string_view s) const { return slots_[probe(s, hash(s))].id; }

}  // namespace fakeprop
