// graph_json writes what parse_graph reads back to the same graph.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fakeprop/fx/graph.h"

namespace fakeprop::fx {
namespace {

// Parsing the written text gives a graph that writes the same text.
void expect_round_trip(const std::string& text, const std::string& what) {
  const Graph g = parse_graph(text, what);
  const std::string written = graph_json(g);
  const Graph again = parse_graph(written, what);
  EXPECT_EQ(graph_json(again), written) << what;
  ASSERT_EQ(again.nodes.size(), g.nodes.size()) << what;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    EXPECT_EQ(again.nodes[i].name, g.nodes[i].name) << what;
    EXPECT_EQ(again.nodes[i].target, g.nodes[i].target) << what;
    EXPECT_EQ(again.nodes[i].args.size(), g.nodes[i].args.size()) << what;
    EXPECT_EQ(again.nodes[i].kwargs.size(), g.nodes[i].kwargs.size()) << what;
    EXPECT_EQ(again.nodes[i].example.kind, g.nodes[i].example.kind) << what;
  }
  EXPECT_EQ(again.symbols.size(), g.symbols.size()) << what;
}

TEST(GraphJson, WritesEveryKindOfArgumentAndExample) {
  const std::string text = R"({"format": "fakeprop.fx/1",
    "symbols": {"s0": {"hint": 8, "range": [2, null]}, "u0": {"unbacked": true}},
    "nodes": [
      {"name": "x", "op": "placeholder", "target": "x",
       "val": {"shape": ["s0", 3], "stride": [3, 1], "storage_offset": 0, "dtype": "float16", "device": "cuda:1",
               "requires_grad": true, "storage": 4}},
      {"name": "n", "op": "placeholder", "target": "n", "val": {"sym": "u0"}},
      {"name": "w", "op": "get_attr", "target": "self.w", "val": {"shape": [3], "dtype": "int64"}},
      {"name": "y", "op": "call_function", "target": "aten.foo.default",
       "args": [{"node": "x"}, [1, -2, 3.5], null, true, "s", {"float": "-inf"}, {"float": "nan"}],
       "kwargs": {"dtype": {"dtype": "bfloat16"}, "device": {"device": "cpu"},
                  "memory_format": {"memory_format": "channels_last"}, "layout": {"layout": "strided"}}},
      {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]]}]})";
  expect_round_trip(text, "kinds.json");
  const Graph g = parse_graph(graph_json(parse_graph(text, "kinds.json")), "kinds.json");
  EXPECT_EQ(g.nodes[0].example.tensor.shape, (std::vector<std::string>{"s0", "3"}));
  EXPECT_EQ(g.nodes[0].example.tensor.device->str(), "cuda:1");
  EXPECT_TRUE(g.nodes[0].example.tensor.requires_grad);
  EXPECT_EQ(g.nodes[0].example.tensor.storage, 4);
  EXPECT_FALSE(g.nodes[2].example.tensor.storage.has_value());
  EXPECT_EQ(g.nodes[1].example.sym, "u0");
  EXPECT_FALSE(g.nodes[2].example.tensor.stride.has_value());
  const Node& y = g.nodes[3];
  EXPECT_EQ(y.args[0].node_index, 0u);
  EXPECT_EQ(y.args[1].list[2].f, 3.5);
  EXPECT_TRUE(std::isinf(y.args[5].f) && y.args[5].f < 0);
  EXPECT_TRUE(std::isnan(y.args[6].f));
  EXPECT_EQ(y.kwarg("dtype")->dtype, DType::BFloat16);
  EXPECT_EQ(y.kwarg("memory_format")->s, "channels_last");
  EXPECT_EQ(g.symbols.at("s0").range->lo, 2);
  EXPECT_EQ(g.symbols.at("s0").range->hi, kIntOo);
  EXPECT_TRUE(g.symbols.at("u0").unbacked);
}

// Every graph of the FX goldens survives the round trip.
TEST(GraphJson, RoundTripsEveryGoldenGraph) {
  size_t graphs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FAKEPROP_TESTDATA "/fx_goldens")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const nlohmann::json doc = nlohmann::json::parse(in);
    if (doc.contains("cases")) {
      for (const auto& c : doc["cases"]) {
        expect_round_trip(c.dump(), entry.path().filename().string() + ": " + c.value("name", "?"));
        ++graphs;
      }
    } else {
      expect_round_trip(doc.dump(), entry.path().filename().string());
      ++graphs;
    }
  }
  EXPECT_GT(graphs, 100u);
}

}  // namespace
}  // namespace fakeprop::fx
