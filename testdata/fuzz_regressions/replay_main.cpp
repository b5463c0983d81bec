// Replays inputs through the functions the fuzz targets call (built in every
// ordinary and sanitizer build; ctest runs it as `fuzz_regressions`).
//   fakeprop_fuzz_replay TARGET FILE|DIR...   one target's inputs
//   fakeprop_fuzz_replay --all DIR            DIR/<target>/* for every target
// A crash, a sanitizer report or an unexpected exception fails the run; a
// hang runs into ctest's timeout.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fakeprop::fuzz {
int onnx_model(const uint8_t* data, size_t size);
int fx_graph(const uint8_t* data, size_t size);
int pt2_archive(const uint8_t* data, size_t size);
int source_spec(const uint8_t* data, size_t size);
int expr_parse(const uint8_t* data, size_t size);
int op_rules(const uint8_t* data, size_t size);
int real_inputs(const uint8_t* data, size_t size);
int output_file(const uint8_t* data, size_t size);
int pt2_limits(const uint8_t* data, size_t size);
}  // namespace fakeprop::fuzz

namespace {

using Entry = int (*)(const uint8_t*, size_t);

struct Target {
  const char* name;
  Entry entry;
};

const Target kTargets[] = {
    {"onnx_model", fakeprop::fuzz::onnx_model},
    {"fx_graph", fakeprop::fuzz::fx_graph},
    {"pt2_archive", fakeprop::fuzz::pt2_archive},
    {"source_spec", fakeprop::fuzz::source_spec},
    {"expr_parse", fakeprop::fuzz::expr_parse},
    {"op_rules", fakeprop::fuzz::op_rules},
    {"real_inputs", fakeprop::fuzz::real_inputs},
    {"output_file", fakeprop::fuzz::output_file},
    {"pt2_limits", fakeprop::fuzz::pt2_limits},
};

const Target* find_target(const std::string& name) {
  for (const Target& t : kTargets)
    if (name == t.name) return &t;
  return nullptr;
}

// Runs every regular file under `path` (or `path` itself); returns the count.
long replay(const Target& target, const std::filesystem::path& path) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
      if (entry.is_regular_file()) files.push_back(entry.path());
  } else {
    files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  long count = 0;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "%s: %s\n", target.name, file.c_str());  // the last line names a crashing input
    target.entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++count;
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TARGET FILE|DIR... | --all DIR\n", argv[0]);
    return 2;
  }
  const std::string first = argv[1];
  if (first == "--all") {
    for (const Target& t : kTargets) {
      const std::filesystem::path dir = std::filesystem::path(argv[2]) / t.name;
      if (!std::filesystem::is_directory(dir)) {
        std::fprintf(stderr, "missing directory %s\n", dir.c_str());
        return 1;
      }
      const long n = replay(t, dir);
      if (n == 0) {
        std::fprintf(stderr, "no inputs in %s\n", dir.c_str());
        return 1;
      }
      std::printf("%s: %ld inputs replayed\n", t.name, n);
    }
    return 0;
  }
  const Target* target = find_target(first);
  if (!target) {
    std::fprintf(stderr, "unknown target '%s'\n", first.c_str());
    return 2;
  }
  long total = 0;
  for (int i = 2; i < argc; ++i) {
    total += replay(*target, argv[i]);
  }
  std::printf("%s: %ld inputs replayed\n", target->name, total);
  return 0;
}
