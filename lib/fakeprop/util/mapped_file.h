// A whole file's bytes, read-only (the ONNX loader's and the .pt2 reader's): mapped, or
// read into memory when small, where mapping costs more system calls and page
// faults than the copy. Tensor views handed out by the loader point into it,
// so it lives as long as the Model holding it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace fakeprop {

class MappedFile {
 public:
  // Maps `path` read-only (reads it when small), opened as InputFile::open
  // does (regular files only). Throws InputError "<path>: <reason>" (for
  // example "No such file or directory") when it cannot.
  static std::shared_ptr<MappedFile> open(const std::string& path);
  // Wraps bytes owned elsewhere (parse_model); nothing is unmapped.
  static std::shared_ptr<MappedFile> borrow(std::string_view bytes, std::string path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return bytes_; }
  // Unmaps the pages touched so far (the loader's walk over the structure);
  // the bytes stay valid and fault back in from the page cache when read.
  // The kernel maps the cached pages around every page touched (64 KB), so
  // a model's structure scattered between its weights otherwise holds
  // megabytes of weight pages in the resident set for the whole run.
  void release_pages() const;
  // The same for the whole pages inside [begin, end) (byte offsets), so
  // that a pass over the file can drop what it has read as it goes.
  void release_pages(uint64_t begin, uint64_t end) const;
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;

  std::string_view bytes_;
  std::string path_;
  void* mapping_ = nullptr;  // nullptr for borrowed, read or empty files
  size_t mapping_size_ = 0;
  std::string contents_;  // a small file's bytes, read

};

}  // namespace fakeprop
