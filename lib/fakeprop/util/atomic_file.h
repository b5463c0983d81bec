// Writes that never leave a half-written file and never overwrite the model.
#pragma once
#include <string>
#include <string_view>

namespace fakeprop {

// Write `content` to a temporary file beside `path`, then rename it over
// `path`. Throws InputError when `path` is `protected_path` (the user's
// model) or cannot be written.
void write_file_atomically(const std::string& path, std::string_view content, const std::string& protected_path = "");

}  // namespace fakeprop
