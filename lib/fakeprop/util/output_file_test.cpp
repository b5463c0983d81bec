#include "fakeprop/util/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "fakeprop/util/error.h"
#include "fakeprop/util/input_file.h"

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
  fs::path path = fs::temp_directory_path() / ("fakeprop_output_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(path), fs::directory_iterator())); }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputFile, ChunksAppearOnlyAtCommit) {
  TempDir dir;
  const fs::path target = dir.path / "report.json";
  std::ofstream(target) << "old";
  {
    OutputFile f(target.string(), {});
    f.write("{\"a\": ");
    f.write("1}\n");
    EXPECT_EQ(read(target), "old");  // still the previous file until commit
    f.commit();
  }
  EXPECT_EQ(read(target), "{\"a\": 1}\n");
  EXPECT_EQ(dir.entries(), 1u);  // no temporary left behind
}

TEST(OutputFile, AbandonedWriteLeavesTheTargetAndNoTemporary) {
  TempDir dir;
  const fs::path target = dir.path / "report.json";
  std::ofstream(target) << "old";
  try {
    OutputFile f(target.string(), {});
    f.write("partial");
    throw InputError("model.onnx: node 'n': failed midway");
  } catch (const InputError&) {
  }
  EXPECT_EQ(read(target), "old");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(OutputFile, KeepsAnExistingFilesMode) {
  TempDir dir;
  const fs::path target = dir.path / "report.json";
  std::ofstream(target) << "old";
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_output_file(target.string(), "new", {});
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(OutputFile, RefusesEveryInputOfTheRunByIdentity) {
  TempDir dir;
  const fs::path model = dir.path / "model.onnx", data = dir.path / "data.bin";
  std::ofstream(model) << "bytes";
  std::ofstream(data) << "weights";
  fs::create_hard_link(data, dir.path / "hard.bin");
  fs::create_symlink(model, dir.path / "soft.onnx");
  const std::vector<ProtectedFile> inputs = {{model.string(), "the input model"},
                                             {data.string(), "the model's external data"}};
  EXPECT_EQ(error_of([&] { write_output_file(model.string(), "x", inputs); }),
            model.string() + ": refusing to overwrite the input model");
  EXPECT_NE(error_of([&] { write_output_file(data.string(), "x", inputs); }).find("refusing to overwrite the model's external data"),
            std::string::npos);
  EXPECT_NE(error_of([&] { write_output_file((dir.path / "hard.bin").string(), "x", inputs); }), "");
  EXPECT_NE(error_of([&] { write_output_file((dir.path / "soft.onnx").string(), "x", inputs); }), "");
  EXPECT_NE(error_of([&] { write_output_file((dir.path / "." / "model.onnx").string(), "x", inputs); }), "");
  EXPECT_EQ(read(model), "bytes");
  EXPECT_EQ(read(data), "weights");
  EXPECT_TRUE(fs::is_symlink(dir.path / "soft.onnx"));
}

TEST(OutputFile, SymbolicLinkWritesThroughToItsFile) {
  TempDir dir;
  fs::create_directories(dir.path / "real");
  const fs::path file = dir.path / "real" / "report.json", link = dir.path / "link.json";
  std::ofstream(file) << "old";
  fs::create_symlink(file, link);
  write_output_file(link.string(), "new", {});
  EXPECT_TRUE(fs::is_symlink(link));  // the link stays a link
  EXPECT_EQ(read(file), "new");
  // A link to nothing is refused, and nothing is created.
  fs::create_symlink(dir.path / "nowhere" / "x", dir.path / "dangling.json");
  EXPECT_NE(error_of([&] { write_output_file((dir.path / "dangling.json").string(), "x", {}); }).find("does not exist"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir.path / "nowhere"));
}

TEST(OutputFile, DevicesAndPipesAreWrittenInPlace) {
  // /dev/null stays a character device (as root, a rename would replace it).
  write_output_file("/dev/null", "discarded", {});
  struct stat info {};
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  EXPECT_EQ(resolve_output_target("/dev/null", {}).kind, OutputTarget::Kind::InPlace);
  EXPECT_EQ(resolve_output_target("-", {}).kind, OutputTarget::Kind::StandardOutput);

  TempDir dir;
  const fs::path fifo = dir.path / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No reader: an error at once, not a hang.
  EXPECT_NE(error_of([&] { write_output_file(fifo.string(), "x", {}); }), "");
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  write_output_file(fifo.string(), "through", {});
  char got[16] = {};
  EXPECT_EQ(::read(reader, got, sizeof got), 7);
  EXPECT_EQ(std::string(got), "through");
  ::close(reader);
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(OutputFile, RefusesDirectoriesSocketsAndMissingFolders) {
  TempDir dir;
  fs::create_directories(dir.path / "sub");
  EXPECT_EQ(error_of([&] { write_output_file((dir.path / "sub").string(), "x", {}); }),
            (dir.path / "sub").string() + ": is a directory");
  EXPECT_EQ(error_of([&] { write_output_file((dir.path / "no" / "r.json").string(), "x", {}); }),
            (dir.path / "no" / "r.json").string() + ": cannot write: No such file or directory");
  EXPECT_NE(error_of([&] { write_output_file(std::string("a\0b", 3), "x", {}); }), "");
  EXPECT_NE(error_of([&] { write_output_file("", "x", {}); }), "");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(OutputFile, WriteErrorsAreErrors) {
  // /dev/full: every write fails with ENOSPC.
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  EXPECT_EQ(error_of([&] { write_output_file("/dev/full", "x", {}); }), "/dev/full: cannot write: No space left on device");
}

TEST(OutputFile, PlantedTemporaryNamesAreNeverFollowed) {
  TempDir dir;
  const fs::path victim = dir.path / "victim", target = dir.path / "out.json";
  std::ofstream(victim) << "precious";
  // Links at every name the old scheme used (PATH.tmp.<pid>) and a few of
  // the new prefix: none is written through.
  fs::create_symlink(victim, target.string() + ".tmp." + std::to_string(::getpid()));
  fs::create_symlink(victim, dir.path / ".out.json.fakeprop-");
  write_output_file(target.string(), "report", {});
  EXPECT_EQ(read(victim), "precious");
  EXPECT_EQ(read(target), "report");
}

TEST(OutputFile, ThreadsWritingOnePathEachSucceed) {
  TempDir dir;
  const fs::path target = dir.path / "report.html";
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        try {
          write_output_file(target.string(), "thread " + std::to_string(t), {});
        } catch (const InputError&) {
          ++failures;
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(read(target).rfind("thread ", 0), 0u);
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(InputFile, RefusesWhatIsNotARegularFile) {
  TempDir dir;
  const fs::path fifo = dir.path / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Refused at once: opening a FIFO for reading would wait for a writer.
  EXPECT_EQ(error_of([&] { (void)InputFile::open(fifo.string()); }),
            fifo.string() + ": is a FIFO, not a regular file; fakeprop reads only regular files");
  EXPECT_NE(error_of([&] { (void)InputFile::open(dir.path.string()); }).find("a directory"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)InputFile::open("/dev/zero"); }).find("a character device"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)InputFile::open_beneath(dir.path.string(), "pipe"); }).find("a FIFO"), std::string::npos);
}

TEST(InputFile, BeneathRefusesLinksAndEscapes) {
  TempDir dir;
  fs::create_directories(dir.path / "model" / "weights");
  std::ofstream(dir.path / "secret") << "not yours";
  std::ofstream(dir.path / "model" / "weights" / "w.bin") << "0123456789";
  fs::create_symlink(dir.path / "secret", dir.path / "model" / "link.bin");
  fs::create_directory_symlink(dir.path, dir.path / "model" / "up");
  const std::string model = (dir.path / "model").string();
  EXPECT_EQ(InputFile::open_beneath(model, "weights/w.bin").read_range(2, 3), "234");
  EXPECT_EQ(InputFile::open_beneath(model, "./weights//w.bin").read_all(), "0123456789");
  EXPECT_NE(error_of([&] { (void)InputFile::open_beneath(model, "link.bin"); }).find("it is a symbolic link"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)InputFile::open_beneath(model, "up/secret"); }).find("'up' is a symbolic link"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)InputFile::open_beneath(model, "../secret"); }).find("'..'"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)InputFile::open_beneath(model, (dir.path / "secret").string()); }).find("absolute"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)InputFile::open_beneath(model, "weights/w.bin").read_range(8, 3); }).find("file has 10 bytes"),
            std::string::npos);
}

TEST(InputFile, ReadAllFollowsTheBytesNotALimitOrARecordedSize) {
  TempDir dir;
  const fs::path file = dir.path / "g.json";
  std::ofstream(file) << std::string(5000, 'x');
  EXPECT_EQ(InputFile::open(file.string()).read_all().size(), 5000u);
  EXPECT_NE(error_of([&] { (void)InputFile::open(file.string()).read_all(4096, "--max-program-bytes"); })
                .find("more than 4096 bytes (--max-program-bytes)"),
            std::string::npos);
  EXPECT_EQ(read_input_file(file.string()).size(), 5000u);
}

}  // namespace
}  // namespace fakeprop
