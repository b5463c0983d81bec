#include "fakeprop/util/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("fakeprop_atomic_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                               "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(path), fs::directory_iterator())); }
};

TEST(AtomicFile, ChunksAppearOnlyAtCommit) {
  TempDir dir;
  const fs::path target = dir.path / "report.json";
  std::ofstream(target) << "old";
  {
    AtomicFile f(target.string());
    f.write("{\"a\": ");
    f.write("1}\n");
    EXPECT_EQ(read(target), "old");  // still the previous file until commit
    f.commit();
  }
  EXPECT_EQ(read(target), "{\"a\": 1}\n");
  EXPECT_EQ(dir.entries(), 1u);  // no temporary left behind
}

TEST(AtomicFile, AbandonedWriteLeavesTheTargetAndNoTemporary) {
  TempDir dir;
  const fs::path target = dir.path / "report.json";
  std::ofstream(target) << "old";
  try {
    AtomicFile f(target.string());
    f.write("partial");
    throw InputError("model.onnx: node 'n': failed midway");
  } catch (const InputError&) {
  }
  EXPECT_EQ(read(target), "old");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(AtomicFile, RefusesTheProtectedPath) {
  TempDir dir;
  const fs::path model = dir.path / "model.onnx";
  std::ofstream(model) << "bytes";
  EXPECT_THROW(AtomicFile(model.string(), model.string()), InputError);
  EXPECT_THROW(write_file_atomically(model.string(), "x", model.string()), InputError);
  EXPECT_EQ(read(model), "bytes");
  EXPECT_THROW(AtomicFile((dir.path / "missing_dir" / "r.json").string()), InputError);
}

}  // namespace
}  // namespace fakeprop
