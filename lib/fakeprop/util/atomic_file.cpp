#include "fakeprop/util/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "fakeprop/util/error.h"

namespace fakeprop {

AtomicFile::AtomicFile(const std::string& path, const std::string& protected_path)
    : path_(path), tmp_(path + ".tmp." + std::to_string(::getpid())) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!protected_path.empty() && fs::exists(path, ec) && fs::equivalent(path, protected_path, ec))
    throw InputError(path + ": refusing to overwrite the input model");
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw InputError(path + ": cannot write: " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (done_) return;
  out_.close();
  std::remove(tmp_.c_str());
}

void AtomicFile::write(std::string_view text) {
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out_) throw InputError(path_ + ": write failed: " + std::strerror(errno));
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw InputError(path_ + ": write failed: " + std::strerror(errno));
  out_.close();
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    throw InputError(path_ + ": cannot replace: " + why);  // the destructor removes the temporary
  }
  done_ = true;
}

void write_file_atomically(const std::string& path, std::string_view content, const std::string& protected_path) {
  AtomicFile file(path, protected_path);
  file.write(content);
  file.commit();
}

}  // namespace fakeprop
