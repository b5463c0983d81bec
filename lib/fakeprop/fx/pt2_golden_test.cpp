// Runs fakeprop on the torch.export archives of testdata/pt2 (committed) and
// testdata/generated/pt2 (git-ignored, when scripts/gen_pt2_archives.py --big
// has written them) and compares every node with torch's own fake value
// (NAME.golden.json, from the same script): shape, stride, storage offset,
// dtype and device, evaluated at the export sizes (the hints), SymInts by
// their hint (none for an unbacked one); and the loader's symbol ranges and hints with the program's
// range_constraints. requires_grad is not compared: export traces without
// autograd, so torch's values never require grad while fakeprop's follow the
// parameters'.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fakeprop/fx/interpreter.h"
#include "fakeprop/fx/pt2_archive.h"

namespace fakeprop::fx {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// "archive/node" -> why fakeprop differs from torch there. Empty: every node agrees.
const std::map<std::string, std::string> kKnownDifferences = {};

std::vector<fs::path> archives() {
  std::vector<fs::path> out;
  for (const char* dir : {"pt2", "generated/pt2"}) {
    const fs::path d = fs::path(FAKEPROP_TESTDATA) / dir;
    if (!fs::exists(d)) continue;
    for (const auto& e : fs::directory_iterator(d))
      if (e.path().extension() == ".pt2" && fs::exists(fs::path(e.path()).replace_extension(".golden.json")))
        out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Pt2Golden : public ::testing::TestWithParam<fs::path> {};

struct Compare {
  const ShapeEnv& env;
  std::vector<std::string> errors;

  std::string ints_text(const SymShape& s) const {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + (s[i].is_static() ? std::to_string(s[i].value()) : s[i].to_python());
    return out + "]";
  }
  void ints(const std::string& where, const char* field, const SymShape& got, const json& want) {
    bool ok = got.size() == want.size();
    // null: a size with an unbacked symbol (a higher-order op's merged output), which has no hint either
    for (size_t i = 0; ok && i < got.size(); ++i)
      ok = env.hint(got[i]) == (want[i].is_null() ? std::nullopt : std::optional<int64_t>(want[i].get<int64_t>()));
    if (!ok) errors.push_back(where + ": " + field + " " + ints_text(got) + " != torch " + want.dump());
  }
  void value(const std::string& where, const Value& got, const json& want) {
    if (want.is_null()) return;
    if (want.is_array()) {
      if (got.kind != Value::Kind::List || got.list->size() != want.size()) {
        errors.push_back(where + ": expected a tuple of " + std::to_string(want.size()));
        return;
      }
      for (size_t i = 0; i < want.size(); ++i) value(where + "[" + std::to_string(i) + "]", (*got.list)[i], want[i]);
      return;
    }
    if (want.contains("int")) {
      const std::optional<int64_t> hint = want["int"].is_null() ? std::nullopt : std::optional<int64_t>(want["int"].get<int64_t>());
      if (got.kind != Value::Kind::Int || env.hint(got.i) != hint)
        errors.push_back(where + ": expected the int " + want["int"].dump());
      return;
    }
    if (!want.contains("shape")) return;  // a float or bool: not compared
    if (!got.is_tensor()) {
      errors.push_back(where + ": expected a tensor");
      return;
    }
    const TensorMeta& m = got.tensor->meta;
    ints(where, "shape", m.sizes, want["shape"]);
    ints(where, "stride", m.strides, want["stride"]);
    ints(where, "storage_offset", {m.storage_offset}, json::array({want["storage_offset"]}));
    if (std::string(dtype_name(m.dtype)) != want["dtype"].get<std::string>())
      errors.push_back(where + ": dtype " + std::string(dtype_name(m.dtype)) + " != torch " + want["dtype"].dump());
    if (m.device.str() != want["device"].get<std::string>())
      errors.push_back(where + ": device " + m.device.str() + " != torch " + want["device"].dump());
  }
};

TEST_P(Pt2Golden, EveryNodeMatchesTorch) {
  const fs::path path = GetParam();
  const std::string stem = path.stem().string();
  std::ifstream in(fs::path(path).replace_extension(".golden.json"));
  const json golden = json::parse(in);

  const Graph g = load_pt2_archive(path.string());
  // range_constraints and hints, as the loader read them
  for (const auto& [name, range] : golden["range_constraints"].items()) {
    auto it = g.symbols.find(name);
    ASSERT_NE(it, g.symbols.end()) << name;
    ASSERT_TRUE(it->second.range) << name;
    // export's 0/1 convention: a backed symbol's own range starts at 2
    if (!range[0].is_null()) {
      EXPECT_EQ(it->second.range->lo, it->second.unbacked ? range[0].get<int64_t>() : std::max<int64_t>(range[0].get<int64_t>(), 2))
          << name;
    }
    if (!range[1].is_null()) {
      EXPECT_EQ(it->second.range->hi, range[1].get<int64_t>()) << name;
    }
  }
  for (const auto& [name, hint] : golden["hints"].items()) {
    auto it = g.symbols.find(name);
    ASSERT_NE(it, g.symbols.end()) << name;
    EXPECT_EQ(it->second.hint, std::optional<int64_t>(hint.get<int64_t>())) << name;
  }

  const RunResult r = run_graph(g, InferOptions{});
  std::map<std::string, const NodeRecord*> records;
  for (const NodeRecord& n : r.nodes) records[n.name.str()] = &n;
  Compare c{*r.env, {}};
  size_t compared = 0;
  for (const auto& [name, want] : golden["nodes"].items()) {
    auto it = records.find(name);
    if (it == records.end()) {
      c.errors.push_back(name + ": no such node in fakeprop's run");
      continue;
    }
    ASSERT_FALSE(it->second->outputs.empty()) << name;
    c.value(name, it->second->outputs[0].val, want);
    ++compared;
  }
  std::vector<std::string> unexpected;
  for (const std::string& e : c.errors) {
    const std::string node = e.substr(0, e.find_first_of(":["));
    if (!kKnownDifferences.count(stem + "/" + node)) unexpected.push_back(e);
  }
  for (const ErrorRecord& e : r.errors)
    if (!kKnownDifferences.count(stem + "/" + e.node)) unexpected.push_back("error on '" + e.node + "': " + e.message);
  std::string all;
  for (const std::string& e : unexpected) all += "\n  " + e;
  EXPECT_TRUE(unexpected.empty()) << stem << ": " << unexpected.size() << " differences from torch " +
                                         golden["torch_version"].get<std::string>() << all;
  EXPECT_EQ(compared, golden["nodes"].size());
  std::cerr << stem << ": " << compared << " nodes compared with torch " << golden["torch_version"].get<std::string>()
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(Archives, Pt2Golden, ::testing::ValuesIn(archives()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Pt2Golden);

}  // namespace
}  // namespace fakeprop::fx
