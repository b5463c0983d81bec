#include "fakeprop/util/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "fakeprop/util/error.h"

namespace fakeprop {

void write_file_atomically(const std::string& path, std::string_view content, const std::string& protected_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!protected_path.empty() && fs::exists(path, ec) && fs::equivalent(path, protected_path, ec))
    throw InputError(path + ": refusing to overwrite the input model");
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path + ": cannot write: " + std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path + ": write failed: " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot replace: " + why);
  }
}

}  // namespace fakeprop
