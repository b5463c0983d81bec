// Opening what a run reads. fakeprop reads regular files only: a FIFO, a
// device, a socket or a directory is refused before any read (a FIFO would
// block the run forever), and a file that a model names (ONNX external data)
// is opened below the model's folder without following any symbolic link,
// so a downloaded model cannot make fakeprop read a file the user never named.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fakeprop {

// A file as the kernel knows it: equal identities are one file, whatever
// the paths (symbolic links, hard links, `..`).
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

// The identity of the file at `path`, symbolic links followed; nullopt when
// there is none.
std::optional<FileIdentity> identity_of(const std::string& path);

// An open regular file, read-only. Errors are InputError "<path>: <reason>".
class InputFile {
 public:
  // A file the user named: symbolic links are followed (the user chose the
  // path); anything but a regular file is refused.
  static InputFile open(const std::string& path);
  // `relative` inside the folder `dir` (a file the model names): an absolute
  // path, a `..` component or a symbolic link anywhere below `dir` is refused.
  static InputFile open_beneath(const std::string& dir, const std::string& relative);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&&) = delete;
  InputFile(const InputFile&) = delete;
  ~InputFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  FileIdentity identity() const { return identity_; }
  const std::string& path() const { return path_; }

  // The whole file: as many bytes as it holds when read (never a size taken
  // on trust), at most `limit`; more is an InputError naming `what_limit`.
  std::string read_all(uint64_t limit = UINT64_MAX, std::string_view what_limit = "") const;
  // `length` bytes at `offset`; an InputError when the file is shorter.
  std::string read_range(uint64_t offset, uint64_t length) const;

 private:
  InputFile(int fd, std::string path);

  int fd_ = -1;
  uint64_t size_ = 0;
  FileIdentity identity_;
  std::string path_;
};

// InputFile::open(path).read_all(): the text of a rules file, a workload, a baseline.
std::string read_input_file(const std::string& path);

}  // namespace fakeprop
