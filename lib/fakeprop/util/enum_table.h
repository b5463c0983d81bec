// Tables of facts about an enum's values (JSON names, descriptions, policy),
// one entry per enumerator, looked up by the enumerator's value.
#pragma once
#include <array>
#include <cstddef>

namespace fakeprop {

// Whether entry i of `table` describes enumerator i (as `key` reads it) and
// the last entry the last enumerator, so lookups by value are safe and no
// enumerator lacks an entry. Meant for a static_assert beside the table.
template <class Entry, size_t N, class Key, class Enum>
constexpr bool indexed_by_enum(const std::array<Entry, N>& table, Key key, Enum last) {
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(key(table[i])) != i) return false;
  return N > 0 && key(table[N - 1]) == last;
}

}  // namespace fakeprop
