// Dense integer ids for strings, handed out in first-seen order. The table
// is open-addressed over ids (no node per entry) and keys are views the
// caller keeps alive: graphs with millions of value names spent much of
// their time in node-based hash maps whose lookups miss the cache twice.
#pragma once
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace fakeprop {

class StringIds {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit StringIds(size_t expected = 0);

  // The id of `s`, adding it when new; `second` is true when it was added.
  std::pair<uint32_t, bool> insert(std::string_view s);
  // The id of `s`, or kNone.
  uint32_t find(std::string_view s) const;

  std::string_view name(uint32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }

 private:
  struct Slot {
    uint32_t tag = 0;  // high bits of the hash: most mismatches skip the string compare
    uint32_t id = kNone;
  };
  static uint64_t hash(std::string_view s);
  size_t probe(std::string_view s, uint64_t h) const;  // the slot holding s, or the empty one where it would go
  void rehash(size_t capacity);

  std::vector<Slot> slots_;  // power-of-two size, at most half full
  std::vector<std::string_view> names_;
};

}  // namespace fakeprop
