// Shared helpers of the loader's and writer's unit tests (not part of the library).
#pragma once
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "fakeprop/onnx/wire.h"

namespace fakeprop::onnx::testing {

inline std::string loader_testdata(const std::string& name) {
  return std::string(FAKEPROP_TESTDATA) + "/onnx/loader/" + name;
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A fresh directory, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("fakeprop-loader-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Builds protobuf messages field by field for hand-made test inputs.
class Proto {
 public:
  Proto& varint(uint32_t number, int64_t value) {
    wire::append_varint_field(bytes_, number, static_cast<uint64_t>(value));
    return *this;
  }
  Proto& str(uint32_t number, std::string_view value) {
    wire::append_len_field(bytes_, number, value);
    return *this;
  }
  Proto& msg(uint32_t number, const Proto& value) { return str(number, value.bytes_); }
  Proto& fixed32(uint32_t number, uint32_t bits) {
    wire::append_fixed32_field(bytes_, number, bits);
    return *this;
  }
  Proto& raw(std::string_view bytes) {
    bytes_.append(bytes);
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace fakeprop::onnx::testing
