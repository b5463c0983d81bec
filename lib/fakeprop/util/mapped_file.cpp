#include "fakeprop/util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fakeprop/util/error.h"
#include "fakeprop/util/input_file.h"

namespace fakeprop {

// Below this size one read() costs less than mmap, its page faults, madvise and munmap.
constexpr uint64_t kReadBelowBytes = 64 * 1024;

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  const InputFile input = InputFile::open(path);
  const uint64_t size = input.size();
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  if (size == 0) return file;  // mmap rejects empty ranges
  if (size < kReadBelowBytes) {
    file->contents_.resize(static_cast<size_t>(size));
    size_t done = 0;
    while (done < size) {
      const ssize_t got = ::read(input.fd(), file->contents_.data() + done, static_cast<size_t>(size) - done);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw InputError(path + ": " + std::strerror(errno));
      if (got == 0) break;  // the file shrank meanwhile
      done += static_cast<size_t>(got);
    }
    file->contents_.resize(done);
    file->bytes_ = file->contents_;
    return file;
  }
  void* mapping = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, input.fd(), 0);
  if (mapping == MAP_FAILED) throw InputError(path + ": " + std::strerror(errno));
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

}  // namespace fakeprop
