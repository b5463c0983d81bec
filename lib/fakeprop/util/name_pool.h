// Interned names: node, value and operator names of a graph, each distinct
// string stored once. A Name is one pointer into its pool (the length sits
// just before the characters), so a graph's per-node name fields cost 8
// bytes each and records can point at the model's names instead of copying
// them. Names stay valid as long as their pool, moves of the pool included.
#pragma once
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>

#include "fakeprop/util/byte_arena.h"
#include "fakeprop/util/string_ids.h"

namespace fakeprop {

class Name {
 public:
  Name() = default;  // the empty name

  std::string_view view() const { return p_ ? std::string_view(p_, size()) : std::string_view(); }
  operator std::string_view() const { return view(); }  // NOLINT: reads as a view
  std::string str() const { return std::string(view()); }
  explicit operator std::string() const { return str(); }
  bool empty() const { return p_ == nullptr; }
  size_t size() const {
    if (!p_) return 0;
    uint32_t n;
    std::memcpy(&n, p_ - sizeof n, sizeof n);
    return n;
  }

  // Equal pointers are equal names; otherwise the contents decide.
  friend bool operator==(Name a, Name b) { return a.p_ == b.p_ || a.view() == b.view(); }
  friend bool operator==(Name a, std::string_view b) { return a.view() == b; }
  friend std::string operator+(const std::string& a, Name b) { return a + std::string(b.view()); }
  friend std::string operator+(std::string&& a, Name b) { return std::move(a.append(b.view())); }
  friend std::string operator+(const char* a, Name b) { return std::string(a).append(b.view()); }
  friend std::string operator+(Name a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(Name a, const char* b) { return a.str() + b; }
  friend std::ostream& operator<<(std::ostream& out, Name n) { return out << n.view(); }

 private:
  friend class NamePool;
  explicit Name(const char* p) : p_(p) {}
  const char* p_ = nullptr;
};

class NamePool {
 public:
  NamePool() = default;
  NamePool(const NamePool&) = delete;  // names point into this pool's storage
  NamePool& operator=(const NamePool&) = delete;
  NamePool(NamePool&&) = default;
  NamePool& operator=(NamePool&&) = default;

  // The pool's Name for `s` (the empty Name for ""), stored on first use.
  Name intern(std::string_view s);
  // `s` stored without entering the table that finds it: for names a caller
  // already knows to be new and never looks up (node names, whose uniqueness
  // the graph checks in its own table), one hash probe fewer each.
  Name store(std::string_view s);
  // Drops the table that finds a stored string (about 24 bytes per name):
  // for a pool whose strings are all in. Names stay valid; a later intern
  // stores its string again, so equal Names may then differ in pointer.
  void release_index() { ids_ = StringIds(); }
  // Room for `n` names: a table that grows from 16 slots to millions
  // rehashes twenty times.
  void reserve(size_t n) { ids_.reserve(n); }
  // Names this pool finds; bytes of character storage they take.
  size_t size() const { return ids_.size(); }
  size_t bytes() const { return arena_.used(); }

 private:
  ByteArena arena_{16 * 1024};
  StringIds ids_;  // views of the stored characters
};

}  // namespace fakeprop
