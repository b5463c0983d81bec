#include "fakeprop/util/utf8.h"

#include <cstdint>
#include <cstring>

namespace fakeprop {

size_t utf8_sequence_at(std::string_view text, size_t i) {
  const auto c = static_cast<uint8_t>(text[i]);
  if (c < 0x80) return 1;
  size_t length = 0;
  uint32_t lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    length = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    const auto b = static_cast<uint8_t>(text[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) return 0;
  }
  return length;
}

size_t invalid_utf8_at(std::string_view text) {
  size_t i = 0;
  // ASCII, eight bytes at a time: names and attributes are nearly all ASCII.
  for (uint64_t word; i + sizeof word <= text.size(); i += sizeof word) {
    std::memcpy(&word, text.data() + i, sizeof word);
    if (word & 0x8080808080808080ULL) break;
  }
  while (i < text.size()) {
    const size_t n = utf8_sequence_at(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

}  // namespace fakeprop
