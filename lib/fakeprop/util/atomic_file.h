// Writes that never leave a half-written file and never overwrite the model.
#pragma once
#include <fstream>
#include <string>
#include <string_view>

namespace fakeprop {

// A file written under a temporary name beside `path` and renamed over it
// by commit(); destroyed without a commit, the temporary is removed and
// `path` is untouched. Throws InputError when `path` is `protected_path`
// (the user's model) or cannot be written.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path, const std::string& protected_path = "");
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  void write(std::string_view text);
  void commit();

 private:
  std::string path_;
  std::string tmp_;
  std::ofstream out_;
  bool done_ = false;
};

// `content` written through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content, const std::string& protected_path = "");

}  // namespace fakeprop
