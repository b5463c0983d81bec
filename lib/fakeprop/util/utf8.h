// UTF-8 validation shared by the loaders (names must be UTF-8 to reach a
// JSON report) and the JSON writer.
#pragma once
#include <cstddef>
#include <string_view>

namespace fakeprop {

// Length of the well-formed UTF-8 sequence starting at text[i] (1 for ASCII),
// or 0 when the bytes there break UTF-8: overlong forms, surrogates, code
// points past U+10FFFF and truncated sequences included.
size_t utf8_sequence_at(std::string_view text, size_t i);

// Offset of the first byte that breaks UTF-8, or npos.
size_t invalid_utf8_at(std::string_view text);

}  // namespace fakeprop
