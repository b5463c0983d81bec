// Whether a text can be a symbol's name: a letter or '_', then letters,
// digits and '_' (a Python identifier in ASCII). ONNX dim_params that are
// not ("Batch Size", "past + 1") name no symbol.
#pragma once
#include <algorithm>
#include <cctype>
#include <string_view>

namespace fakeprop {

inline bool is_identifier(std::string_view s) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
         std::all_of(s.begin(), s.end(), word);
}

}  // namespace fakeprop
