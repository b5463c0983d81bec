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
  std::pair<uint32_t, bool> insert(std::string_view s) {
    return insert_with(s, [s] { return s; });
  }
  // The same, but a new `s` is stored as `store()` (equal to s, kept alive by
  // the caller): one hash and one probe whether or not s is new.
  template <class Store>
  std::pair<uint32_t, bool> insert_with(std::string_view s, Store&& store);
  // The id of `s`, or kNone.
  uint32_t find(std::string_view s) const { return slots_[probe(s, hash(s))].id; }
  // Room for `n` names without growing the table.
  void reserve(size_t n);

  std::string_view name(uint32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }

 private:
  struct Slot {
    uint32_t hash = 0;  // kept so growing never hashes a string again; most mismatches skip the compare
    uint32_t id = kNone;
  };
  static uint32_t hash(std::string_view s);
  size_t probe(std::string_view s, uint32_t h) const;  // the slot holding s, or the empty one where it would go
  void rehash(size_t capacity);
  size_t empty_slot(uint32_t h) const;

  std::vector<Slot> slots_;  // power-of-two size, at most half full
  std::vector<std::string_view> names_;
};

template <class Store>
std::pair<uint32_t, bool> StringIds::insert_with(std::string_view s, Store&& store) {
  const uint32_t h = hash(s);
  size_t i = probe(s, h);
  if (slots_[i].id != kNone) return {slots_[i].id, false};
  if ((names_.size() + 1) * 2 > slots_.size()) {
    rehash(slots_.size() * 2);
    i = empty_slot(h);  // s is known absent: no compares
  }
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(store());
  slots_[i] = {h, id};
  return {id, true};
}

}  // namespace fakeprop
