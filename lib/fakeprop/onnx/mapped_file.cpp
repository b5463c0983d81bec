#include "fakeprop/onnx/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fakeprop/util/error.h"

namespace fakeprop::onnx {

namespace {

[[noreturn]] void fail_errno(const std::string& path, int error) {
  throw InputError(path + ": " + std::strerror(error));
}

// Owns a file descriptor for the length of one function.
class Descriptor {
 public:
  explicit Descriptor(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) fail_errno(path, errno);
  }
  ~Descriptor() { ::close(fd_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

uint64_t regular_file_size(const Descriptor& fd, const std::string& path) {
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) fail_errno(path, errno);
  if (S_ISDIR(info.st_mode)) fail_errno(path, EISDIR);
  if (!S_ISREG(info.st_mode)) throw InputError(path + ": not a regular file");
  return static_cast<uint64_t>(info.st_size);
}

}  // namespace

// Below this size one read() costs less than mmap, its page faults, madvise and munmap.
constexpr uint64_t kReadBelowBytes = 64 * 1024;

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  Descriptor fd(path);
  const uint64_t size = regular_file_size(fd, path);
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  if (size == 0) return file;  // mmap rejects empty ranges
  if (size < kReadBelowBytes) {
    file->contents_.resize(static_cast<size_t>(size));
    size_t done = 0;
    while (done < size) {
      const ssize_t got = ::read(fd.get(), file->contents_.data() + done, static_cast<size_t>(size) - done);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail_errno(path, errno);
      if (got == 0) break;  // the file shrank meanwhile
      done += static_cast<size_t>(got);
    }
    file->contents_.resize(done);
    file->bytes_ = file->contents_;
    return file;
  }
  void* mapping = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (mapping == MAP_FAILED) fail_errno(path, errno);
  file->mapping_ = mapping;
  file->mapping_size_ = static_cast<size_t>(size);
  file->bytes_ = std::string_view(static_cast<const char*>(mapping), static_cast<size_t>(size));
  return file;
}

std::shared_ptr<MappedFile> MappedFile::borrow(std::string_view bytes, std::string path) {
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->bytes_ = bytes;
  file->path_ = std::move(path);
  return file;
}

void MappedFile::release_pages() const {
  if (mapping_ != nullptr) ::madvise(mapping_, mapping_size_, MADV_DONTNEED);  // advice: failure is harmless
}

void MappedFile::release_pages(uint64_t begin, uint64_t end) const {
  if (mapping_ == nullptr) return;
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  end = std::min<uint64_t>(end, mapping_size_);
  const uint64_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (last > first) ::madvise(static_cast<char*>(mapping_) + first, last - first, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
}

std::string read_file_range(const std::string& path, uint64_t offset, uint64_t length) {
  Descriptor fd(path);
  const uint64_t size = regular_file_size(fd, path);
  if (offset > size || length > size - offset) {
    throw InputError(path + ": file has " + std::to_string(size) + " bytes, needed " + std::to_string(length) +
                     " at offset " + std::to_string(offset));
  }
  std::string out(static_cast<size_t>(length), '\0');
  uint64_t done = 0;
  while (done < length) {
    const ssize_t got = ::pread(fd.get(), out.data() + done, static_cast<size_t>(length - done),
                                static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail_errno(path, errno);
    }
    if (got == 0) throw InputError(path + ": unexpected end of file");
    done += static_cast<uint64_t>(got);
  }
  return out;
}

}  // namespace fakeprop::onnx
