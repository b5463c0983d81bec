#include "fakeprop/util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

[[noreturn]] void fail_errno(const std::string& path, int error) { throw InputError(path + ": " + std::strerror(error)); }

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

// O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer.
constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

}  // namespace

std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileIdentity{static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino)};
}

InputFile::InputFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    const int error = errno;
    ::close(fd_);
    fail_errno(path_, error);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd_);
    throw InputError(path_ + ": is " + std::string(kind_of(info.st_mode)) + ", not a regular file; fakeprop reads only regular files");
  }
  // Reads block as usual from here on (a regular file never blocks anyway).
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  size_ = static_cast<uint64_t>(info.st_size);
  identity_ = {static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino)};
}

InputFile InputFile::open(const std::string& path) {
  if (path.find('\0') != std::string::npos) throw InputError("a file name holds a NUL character");
  const int fd = ::open(path.c_str(), kReadFlags);
  if (fd < 0) fail_errno(path, errno);
  return InputFile(fd, path);
}

InputFile InputFile::open_beneath(const std::string& dir, const std::string& relative) {
  const std::string shown = (dir.empty() || dir == "." ? "" : dir + "/") + relative;
  auto refuse = [&](const std::string& why) -> InputError {
    return InputError(shown + ": " + why + "; a file a model names is read only when it is a regular file inside the model's folder");
  };
  if (relative.empty() || relative.front() == '/') throw refuse("an absolute or empty path");
  if (relative.find('\0') != std::string::npos) throw refuse("a name holding a NUL character");
  std::vector<std::string> parts;
  for (size_t start = 0; start <= relative.size();) {
    size_t slash = relative.find('/', start);
    if (slash == std::string::npos) slash = relative.size();
    const std::string part = relative.substr(start, slash - start);
    if (part == "..") throw refuse("a path through '..'");
    if (!part.empty() && part != ".") parts.push_back(part);
    start = slash + 1;
  }
  if (parts.empty()) throw refuse("not a file name");
  Fd at(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (at.get() < 0) fail_errno(dir, errno);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const int next = ::openat(at.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      const int error = errno;
      // O_NOFOLLOW with O_DIRECTORY reports a symbolic link as ENOTDIR or ELOOP.
      struct stat info {};
      if (::fstatat(at.get(), parts[i].c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(info.st_mode))
        throw refuse("'" + parts[i] + "' is a symbolic link");
      fail_errno(shown, error);
    }
    at.reset(next);
  }
  const int fd = ::openat(at.get(), parts.back().c_str(), kReadFlags | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ELOOP) throw refuse("it is a symbolic link");
    fail_errno(shown, errno);
  }
  return InputFile(fd, shown);
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), identity_(other.identity_), path_(std::move(other.path_)) {}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::read_all(uint64_t limit, std::string_view what_limit) const {
  // The size fstat gave is where to start, not a promise: the file may have
  // changed since, and memory follows the bytes that really arrive.
  std::string out(static_cast<size_t>(size_ < limit ? size_ : limit) + 1, '\0');
  size_t done = 0;
  for (;;) {
    if (done == out.size()) out.resize(out.size() * 2);
    const ssize_t got = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(done));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail_errno(path_, errno);
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
    if (done > limit)
      throw InputError(path_ + ": more than " + std::to_string(limit) + " bytes" +
                       (what_limit.empty() ? std::string() : " (" + std::string(what_limit) + ")"));
  }
  out.resize(done);
  return out;
}

std::string InputFile::read_range(uint64_t offset, uint64_t length) const {
  if (offset > size_ || length > size_ - offset) {
    throw InputError(path_ + ": file has " + std::to_string(size_) + " bytes, needed " + std::to_string(length) +
                     " at offset " + std::to_string(offset));
  }
  std::string out(static_cast<size_t>(length), '\0');
  uint64_t done = 0;
  while (done < length) {
    const ssize_t got =
        ::pread(fd_, out.data() + done, static_cast<size_t>(length - done), static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail_errno(path_, errno);
    }
    if (got == 0) throw InputError(path_ + ": unexpected end of file");
    done += static_cast<uint64_t>(got);
  }
  return out;
}

std::string read_input_file(const std::string& path) { return InputFile::open(path).read_all(); }

}  // namespace fakeprop
