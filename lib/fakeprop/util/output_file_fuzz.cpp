// Fuzz target: the output module's path logic. The input lays out a small
// folder (regular files, folders, symbolic links to names in it, dangling
// links, FIFOs, hard links), names some of its files as the run's inputs,
// and writes a payload to one path. Whatever happens, the inputs keep their
// bytes, nothing but the target's final file changes, no temporary is left
// behind, and a FIFO or folder stays what it was; a success leaves the
// payload at the path. A violation traps.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fakeprop/util/error.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop::fuzz {

namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Each entry's kind and, for files, bytes: what the write must not change.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().lexically_relative(dir).string();  // links not followed: they may loop
    if (e.is_symlink()) out[name] = "link:" + fs::read_symlink(e.path()).string();
    else if (e.is_directory()) out[name] = "dir";
    else if (e.is_fifo()) out[name] = "fifo";
    else if (e.is_regular_file()) out[name] = "file:" + contents(e.path());
    else out[name] = "other";
  }
  return out;
}

void require(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

int output_file(const uint8_t* data, size_t size) {
  static const char* const kNames[] = {"a", "b", "c", "d/e", "d", ".a.fakeprop-x", "f"};
  constexpr size_t kNameCount = sizeof kNames / sizeof kNames[0];
  const fs::path dir = fs::temp_directory_path() / ("fakeprop_output_fuzz_" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  size_t at = 0;
  auto next = [&]() -> uint8_t { return at < size ? data[at++] : 0; };
  // Up to 8 entries: kind, name, and a link target or bytes.
  const int entries = next() % 9;
  for (int i = 0; i < entries; ++i) {
    const uint8_t kind = next() % 6;
    const fs::path p = dir / kNames[next() % kNameCount];
    const fs::path other = dir / kNames[next() % kNameCount];
    if (fs::exists(fs::symlink_status(p, ec))) continue;
    fs::create_directories(p.parent_path(), ec);
    switch (kind) {
      case 0: std::ofstream(p) << "bytes of " << p.filename().string(); break;
      case 1: fs::create_directory(p, ec); break;
      case 2: fs::create_symlink(other, p, ec); break;  // may dangle
      case 3: ::mkfifo(p.c_str(), 0600); break;
      case 4: fs::create_hard_link(other, p, ec); break;
      default: fs::create_symlink(fs::path(".") / other.filename(), p, ec); break;  // relative
    }
  }
  std::vector<ProtectedFile> inputs;
  const uint8_t protect = next();
  for (size_t i = 0; i < kNameCount; ++i)
    if (protect & (1u << i)) inputs.push_back({(dir / kNames[i]).string(), "an input"});
  const std::string target = (dir / kNames[next() % kNameCount]).string();
  const std::string payload(reinterpret_cast<const char*>(data) + at, size - at);

  const auto before = snapshot(dir);
  bool written = false;
  try {
    write_output_file(target, payload, inputs);
    written = true;
  } catch (const Error&) {
  }
  const auto after = snapshot(dir);
  // The final file: the target with its links resolved, if it exists now.
  std::string final_name;
  if (written) {
    struct stat info {};
    require(::stat(target.c_str(), &info) == 0);
    if (S_ISREG(info.st_mode)) require(contents(target) == payload);
    final_name = fs::canonical(target).lexically_relative(fs::canonical(dir)).string();
  }
  for (const auto& [name, what] : after) {
    if (name == final_name) continue;
    require(name.find(".fakeprop-") == std::string::npos || before.count(name));  // no temporary left
    // Nothing new but the target, nothing else changed (a hard link to the
    // target keeps the old bytes: the rename replaced the target's entry).
    const auto it = before.find(name);
    require(it != before.end() && it->second == what);
  }
  for (const auto& [name, what] : before)
    if (name != final_name) require(after.count(name));
  for (const ProtectedFile& p : inputs) {
    const std::string name = fs::path(p.path).lexically_relative(dir).string();
    if (before.count(name) && after.count(name)) require(before.at(name) == after.at(name));
  }
  fs::remove_all(dir, ec);
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::output_file(data, size); }
#endif
