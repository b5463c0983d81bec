#include "fakeprop/util/output_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) { throw InputError(path + ": " + why); }

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A name no other writer (another process, another thread of this one) picks.
std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t random = 0;
  if (::getrandom(&random, sizeof random, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof random))
    random = static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ull;
  char text[48];
  std::snprintf(text, sizeof text, "%016llx%llx", static_cast<unsigned long long>(random),
                static_cast<unsigned long long>(counter.fetch_add(1)));
  return text;
}

}  // namespace

OutputTarget resolve_output_target(const std::string& path, std::span<const ProtectedFile> inputs) {
  OutputTarget target;
  if (path == "-") {
    target.kind = OutputTarget::Kind::StandardOutput;
    return target;
  }
  if (path.empty()) refuse("''", "an empty output path");
  if (path.find('\0') != std::string::npos) refuse("an output path", "holds a NUL character");
  target.final_path = path;
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) refuse(path, std::strerror(errno));
    return target;  // a new file
  }
  if (S_ISLNK(link.st_mode)) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
      if (errno == ENOENT) refuse(path, "a symbolic link to a file that does not exist; name the file itself");
      refuse(path, std::strerror(errno));
    }
    target.final_path = resolved;
  }
  struct stat info {};
  if (::stat(target.final_path.c_str(), &info) != 0) refuse(path, std::strerror(errno));
  const FileIdentity here{static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino)};
  for (const ProtectedFile& input : inputs)
    if (identity_of(input.path) == here)
      refuse(path, "refusing to overwrite " + input.role + (input.path == path ? "" : " (" + input.path + ")"));
  if (S_ISREG(info.st_mode)) {
    target.mode = static_cast<unsigned>(info.st_mode & 07777);
    return target;
  }
  if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) {
    target.kind = OutputTarget::Kind::InPlace;
    return target;
  }
  if (S_ISDIR(info.st_mode)) refuse(path, "is a directory");
  refuse(path, std::string("is ") + (S_ISBLK(info.st_mode) ? "a block device" : S_ISSOCK(info.st_mode) ? "a socket" : "not a regular file") +
                   "; fakeprop writes regular files, character devices and pipes only");
}

OutputFile::OutputFile(const std::string& path, std::span<const ProtectedFile> inputs)
    : path_(path), target_(resolve_output_target(path, inputs)) {
  switch (target_.kind) {
    case OutputTarget::Kind::StandardOutput:
      std::fflush(stdout);  // what the process printed before comes first
      fd_ = STDOUT_FILENO;
      return;
    case OutputTarget::Kind::InPlace: {
      // O_NONBLOCK: a pipe without a reader is an error (ENXIO), not a hang.
      fd_ = ::open(target_.final_path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
      if (fd_ < 0) fail(errno);
      struct stat info {};
      if (::fstat(fd_, &info) != 0) fail(errno);
      if (!(S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode))) fail(EEXIST);  // replaced meanwhile
      ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
      return;
    }
    case OutputTarget::Kind::Replace: break;
  }
  const std::string dir = directory_of(target_.final_path);
  const std::string base = base_name_of(target_.final_path);
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    temporary_ = dir + "/." + base + ".fakeprop-" + unique_suffix();
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) {
      temporary_.clear();
      fail(errno);
    }
  }
  if (fd_ < 0) {
    temporary_.clear();
    refuse(path_, "cannot write: could not create a temporary file beside it");
  }
  if (target_.mode && ::fchmod(fd_, *target_.mode) != 0) fail(errno);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && target_.kind != OutputTarget::Kind::StandardOutput) ::close(fd_);
  if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::fail(int error) {
  if (fd_ >= 0 && target_.kind != OutputTarget::Kind::StandardOutput) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
  refuse(path_, std::string("cannot write: ") + std::strerror(error));
}

void OutputFile::write(std::string_view bytes) {
  if (fd_ < 0 || committed_) refuse(path_, "cannot write: the file is closed");
  while (!bytes.empty()) {
    const ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    if (wrote == 0) fail(ENOSPC);
    bytes.remove_prefix(static_cast<size_t>(wrote));
  }
}

void OutputFile::commit() {
  if (fd_ < 0 || committed_) refuse(path_, "cannot write: the file is closed");
  if (target_.kind == OutputTarget::Kind::StandardOutput) {
    committed_ = true;
    return;
  }
  if (target_.kind == OutputTarget::Kind::Replace && ::fsync(fd_) != 0) fail(errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail(errno);
  if (target_.kind == OutputTarget::Kind::Replace && ::rename(temporary_.c_str(), target_.final_path.c_str()) != 0)
    fail(errno);
  committed_ = true;
}

void write_output_file(const std::string& path, std::string_view content, std::span<const ProtectedFile> inputs) {
  OutputFile file(path, inputs);
  file.write(content);
  file.commit();
}

}  // namespace fakeprop
