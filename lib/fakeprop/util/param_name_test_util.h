// Names for table-driven gtest cases: ctest lists each parameter by name,
// and gtest's default for a struct is its bytes (pointers included), which
// change from build to build.
#pragma once
#include <cctype>
#include <cstddef>
#include <string>

namespace fakeprop::testing {

// "floordiv by -1", 7 -> "FloordivBy1_7": alphanumeric, unique by index.
inline std::string param_name(const char* what, size_t index) {
  std::string out;
  bool word_start = true;
  for (const char* p = what; *p; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (!std::isalnum(c)) {
      word_start = true;
      continue;
    }
    out += word_start ? static_cast<char>(std::toupper(c)) : static_cast<char>(c);
    word_start = false;
  }
  return out + "_" + std::to_string(index);
}

}  // namespace fakeprop::testing
