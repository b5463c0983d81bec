// Loading JSON FX graphs: what a valid graph becomes, and every error the
// loader gives, with its message (the limits are in options/limits_test.cpp too).
#include "fakeprop/fx/graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "fakeprop/util/error.h"

namespace fakeprop::fx {
namespace {

std::string error_of(const std::string& text, size_t max_nodes = kDefaultMaxNodes) {
  try {
    (void)parse_graph(text, "g.json", max_nodes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

// A graph of one node with the given fields (JSON members without braces).
std::string one_node(const std::string& fields) { return R"({"nodes": [{)" + fields + "}]}"; }

TEST(FxGraphLoader, ReadsNodesArgumentsAndExamples) {
  const Graph g = parse_graph(R"({
    "format": "fakeprop.fx/1",
    "symbols": {"s1": {"range": [2, null], "unbacked": true}, "s0": {"hint": 8}},
    "nodes": [
      {"name": "x", "op": "placeholder", "target": "x",
       "val": {"shape": ["s0", 3], "stride": [3, 1], "storage_offset": 0, "dtype": "float16", "device": "cuda:1",
               "requires_grad": true}},
      {"name": "n", "op": "placeholder", "meta": {"val": {"sym": "s1"}}},
      {"name": "y", "op": "call_function", "target": "aten.add.Tensor",
       "args": [{"node": "x"}, [1, -2, 2.5, null, true, "s"], {"dtype": "int64"}, {"device": "cpu"},
                {"memory_format": "channels_last"}, {"layout": "strided"}, {"float": "-inf"}],
       "kwargs": {"z": 1, "alpha": {"node": "n"}}},
      {"name": "output", "op": "output", "args": [[{"node": "y"}]]}
    ]})",
                              "g.json");
  EXPECT_EQ(g.path, "g.json");
  ASSERT_EQ(g.symbols.size(), 2u);
  EXPECT_EQ(g.symbols.at("s0").hint, 8);
  EXPECT_FALSE(g.symbols.at("s0").range);
  EXPECT_TRUE(g.symbols.at("s1").unbacked);
  ASSERT_TRUE(g.symbols.at("s1").range);
  EXPECT_EQ(g.symbols.at("s1").range->lo, 2);

  ASSERT_EQ(g.nodes.size(), 4u);
  const ExampleValue& x = g.nodes[0].example;
  ASSERT_EQ(x.kind, ExampleValue::Kind::Tensor);
  EXPECT_EQ(x.tensor.shape, (std::vector<std::string>{"s0", "3"}));
  EXPECT_EQ(x.tensor.stride, (std::vector<std::string>{"3", "1"}));
  EXPECT_EQ(x.tensor.storage_offset, "0");
  EXPECT_EQ(x.tensor.dtype, DType::Float16);
  ASSERT_TRUE(x.tensor.device);
  EXPECT_EQ(x.tensor.device->str(), "cuda:1");
  EXPECT_TRUE(x.tensor.requires_grad);
  EXPECT_EQ(g.nodes[1].example.kind, ExampleValue::Kind::SymInt);  // from meta.val
  EXPECT_EQ(g.nodes[1].example.sym, "s1");

  const Node& y = g.nodes[2];
  EXPECT_EQ(y.target, "aten.add.Tensor");
  ASSERT_EQ(y.args.size(), 7u);
  EXPECT_EQ(y.args[0].kind, Arg::Kind::Node);
  EXPECT_EQ(y.args[0].s, "x");
  EXPECT_EQ(y.args[0].node_index, 0u);
  const std::vector<Arg>& list = y.args[1].list;
  ASSERT_EQ(list.size(), 6u);
  EXPECT_EQ(list[0].i, 1);
  EXPECT_EQ(list[1].i, -2);
  EXPECT_EQ(list[2].f, 2.5);
  EXPECT_TRUE(list[3].is_none());
  EXPECT_TRUE(list[4].b);
  EXPECT_EQ(list[5].kind, Arg::Kind::String);
  EXPECT_EQ(y.args[2].dtype, DType::Int64);
  EXPECT_EQ(y.args[3].kind, Arg::Kind::Device);
  EXPECT_EQ(y.args[4].s, "channels_last");
  EXPECT_EQ(y.args[5].kind, Arg::Kind::Layout);
  EXPECT_TRUE(std::isinf(y.args[6].f) && y.args[6].f < 0);
  // kwargs in key order, as the nlohmann reader gave them.
  ASSERT_EQ(y.kwargs.size(), 2u);
  EXPECT_EQ(y.kwargs[0].first, "alpha");
  EXPECT_EQ(y.kwargs[0].second.node_index, 1u);
  EXPECT_EQ(y.kwargs[1].first, "z");
  EXPECT_EQ(g.nodes[3].args[0].list[0].node_index, 2u);
}

TEST(FxGraphLoader, NodeReferencesIndexOnlyEarlierNodes) {
  const Graph g = parse_graph(R"({"nodes": [
      {"name": "a", "op": "call_function", "target": "t", "args": [{"node": "a"}, {"node": "b"}, {"node": "nope"}]},
      {"name": "b", "op": "call_function", "target": "t", "args": [{"node": "a"}]}]})",
                              "g.json");
  for (const Arg& a : g.nodes[0].args) EXPECT_EQ(a.node_index, Arg::kNoNode) << a.s;
  EXPECT_EQ(g.nodes[1].args[0].node_index, 0u);
}

TEST(FxGraphLoader, RepeatedKeysLastWins) {
  const Graph g = parse_graph(
      R"({"nodes": [], "nodes": [{"name": "x", "op": "placeholder", "val": {"shape": [2], "shape": [3, 4]}},
          {"name": "y", "op": "call_function", "target": "t", "args": [{"node": "q", "node": "x"}],
           "kwargs": {"b": 1, "a": 2, "b": 3}}]})",
      "g.json");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].example.tensor.shape, (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(g.nodes[1].args[0].s, "x");
  ASSERT_EQ(g.nodes[1].kwargs.size(), 2u);
  EXPECT_EQ(g.nodes[1].kwargs[1].first, "b");
  EXPECT_EQ(g.nodes[1].kwargs[1].second.i, 3);
}

TEST(FxGraphLoader, IntegersAsTheNlohmannReaderReadThem) {
  // An unsigned above INT64_MAX in a size wraps (then fails as a negative size
  // when run); as an argument it is an error; a fraction is not a size.
  const Graph g = parse_graph(one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [18446744073709551615, -0]})"),
                              "g.json");
  EXPECT_EQ(g.nodes[0].example.tensor.shape, (std::vector<std::string>{"-1", "0"}));
  EXPECT_EQ(error_of(one_node(R"("name": "y", "op": "output", "args": [9223372036854775808])")),
            "g.json: node 'y': integer argument out of 64-bit range");
  const Graph big = parse_graph(one_node(R"("name": "y", "op": "output", "args": [18446744073709551616, 1e2])"), "g.json");
  EXPECT_EQ(big.nodes[0].args[0].kind, Arg::Kind::Float);
  EXPECT_EQ(big.nodes[0].args[1].kind, Arg::Kind::Float);
  EXPECT_EQ(error_of(one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2.0]})")),
            "g.json: node 'x': shape entries must be integers or expression strings");
}

TEST(FxGraphLoader, EveryGraphErrorWithItsMessage) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([])", "g.json: a JSON FX graph is an object with 'nodes'"},
      {R"({"format": "fakeprop.fx/2", "nodes": []})", "g.json: unsupported format \"fakeprop.fx/2\" (expected \"fakeprop.fx/1\")"},
      {R"({"format": {"v": [1.5, 1e-05]}, "nodes": []})",
       "g.json: unsupported format {\"v\":[1.5,1e-05]} (expected \"fakeprop.fx/1\")"},
      {R"({"nodes": {}})", "g.json: 'nodes' must be a list"},
      {R"({})", "g.json: 'nodes' must be a list"},
      {R"({"nodes": [], "symbols": []})", "g.json: 'symbols' must be an object"},
      {R"({"nodes": [], "symbols": {"s0": 1}})", "g.json: symbol 's0' must be an object"},
      {R"({"nodes": [], "symbols": {"s0": {"hint": "8"}}})", "g.json: hint of symbol 's0' must be an integer"},
      {R"({"nodes": [], "symbols": {"s0": {"range": [1]}}})", "g.json: range of symbol 's0' must be [lo, hi]"},
      {R"({"nodes": [], "symbols": {"s0": {"range": [1, 2.5]}}})", "g.json: range of symbol 's0' must hold integers or null"},
      {R"({"nodes": [], "symbols": {"s0": {"unbacked": 1}}})", "g.json: 'unbacked' of symbol 's0' must be a boolean"},
      {R"({"nodes": [1]})", "g.json: each node must be an object"},
      {one_node(R"("op": "output")"), "g.json: node without a 'name'"},
      {R"({"nodes": [{"name": "a", "op": "output"}, {"name": "a", "op": "output"}]})", "g.json: node 'a': duplicate node name"},
      {one_node(R"("name": "a")"), "g.json: node 'a': node without an 'op'"},
      {one_node(R"("name": "a", "op": "call_method")"),
       "g.json: node 'a': unsupported op 'call_method' (placeholder, get_attr, call_function, output)"},
      {one_node(R"("name": "a", "op": "output", "target": 1)"), "g.json: node 'a': 'target' must be a string"},
      {one_node(R"("name": "a", "op": "call_function")"), "g.json: node 'a': call_function without a target"},
      {one_node(R"("name": "a", "op": "output", "args": {})"), "g.json: node 'a': 'args' must be a list"},
      {one_node(R"("name": "a", "op": "output", "kwargs": [])"), "g.json: node 'a': 'kwargs' must be an object"},
      {one_node(R"("name": "a", "op": "output", "args": [{}])"), "g.json: node 'a': a tagged argument has exactly one key: {}"},
      {one_node(R"("name": "a", "op": "output", "args": [{"node": "b", "dtype": "c"}])"),
       "g.json: node 'a': a tagged argument has exactly one key: {\"dtype\":\"c\",\"node\":\"b\"}"},
      {one_node(R"("name": "a", "op": "output", "args": [{"node": 1}])"),
       "g.json: node 'a': 'node' needs a string: {\"node\":1}"},
      {one_node(R"("name": "a", "op": "output", "args": [{"dtype": "float7"}])"), "g.json: node 'a': unknown dtype 'float7'"},
      {one_node(R"("name": "a", "op": "output", "args": [{"device": "tpu"}])"), "g.json: node 'a': unknown device 'tpu'"},
      {one_node(R"("name": "a", "op": "output", "args": [{"float": "1.5"}])"), "g.json: node 'a': unknown float '1.5'"},
      {one_node(R"("name": "a", "op": "output", "args": [{"complex": "1j"}])"),
       "g.json: node 'a': unknown tagged argument 'complex'"},
      {one_node(R"("name": "a", "op": "output", "kwargs": {"k": {"node": null}})"),
       "g.json: node 'a': 'node' needs a string: {\"node\":null}"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"dtype": "float32"})"),
       "g.json: node 'x': example value needs 'shape'"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": 2})"), "g.json: node 'x': shape must be a list"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [""]})"),
       "g.json: node 'x': shape entries must be integers or expression strings"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "stride": [1, 1]})"),
       "g.json: node 'x': stride and shape differ in length"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "stride": [true]})"),
       "g.json: node 'x': stride entries must be integers or expression strings"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "storage_offset": null})"),
       "g.json: node 'x': storage_offset must be an integer or an expression string"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "dtype": 1})"),
       "g.json: node 'x': dtype must be a string"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "dtype": "f32x"})"),
       "g.json: node 'x': unknown dtype 'f32x'"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "device": 0})"),
       "g.json: node 'x': device must be a string"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "device": "gpu"})"),
       "g.json: node 'x': unknown device 'gpu'"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "requires_grad": 1})"),
       "g.json: node 'x': requires_grad must be a boolean"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "storage": -1})"),
       "g.json: node 'x': storage must be a non-negative integer (inputs with one id share a storage)"},
      {one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2], "storage": "a"})"),
       "g.json: node 'x': storage must be a non-negative integer (inputs with one id share a storage)"},
  };
  for (const auto& [text, message] : cases) EXPECT_EQ(error_of(text), message) << text;
}

TEST(FxGraphLoader, InvalidJsonIsNamedAsNlohmannNamedIt) {
  EXPECT_EQ(error_of(R"({"nodes": [})"),
            "g.json: invalid JSON: [json.exception.parse_error.101] parse error at line 1, column 12: syntax error while "
            "parsing value - unexpected '}'; expected '[', '{', or a literal");
  EXPECT_EQ(error_of(""),
            "g.json: invalid JSON: [json.exception.parse_error.101] parse error at line 1, column 1: syntax error while "
            "parsing value - unexpected end of input; expected '[', '{', or a literal");
  EXPECT_EQ(error_of(R"({"nodes": [1e400]})"),
            "g.json: invalid JSON: [json.exception.out_of_range.406] number overflow parsing '1e400'");
  const std::string bad_utf8 = error_of("{\"nodes\": [], \"x\": \"\xC0\x80\"}");
  EXPECT_EQ(bad_utf8.rfind("g.json: invalid JSON: [json.exception.parse_error.101] parse error at line 1, column 21: "
                           "syntax error while parsing value - invalid string: ill-formed UTF-8 byte",
                           0),
            0u)
      << bad_utf8;
  // A node name that is not UTF-8 never reaches the interpreter or the report.
  EXPECT_NE(error_of(one_node("\"name\": \"a\xFF\", \"op\": \"output\"")).find("ill-formed UTF-8 byte"), std::string::npos);
}

TEST(FxGraphLoader, DepthAndNodeLimits) {
  // 100 nested containers are JSON the loader reads (then not a graph); 101 are refused while parsing.
  EXPECT_EQ(error_of(std::string(100, '[') + std::string(100, ']')), "g.json: a JSON FX graph is an object with 'nodes'");
  EXPECT_EQ(error_of(std::string(101, '[') + std::string(101, ']')), "g.json: JSON nested deeper than 100 levels");
  EXPECT_EQ(error_of(std::string(1000000, '[')), "g.json: JSON nested deeper than 100 levels");
  // The depth limit comes before a syntax error later in the text.
  EXPECT_EQ(error_of(R"({"a": )" + std::string(200, '[') + "x"), "g.json: JSON nested deeper than 100 levels");
  // Node objects are counted as they start; objects elsewhere do not count.
  const std::string three = R"({"symbols": {"s0": {}, "s1": {}}, "nodes": [{"name": "a", "op": "output"},
                                {"name": "b", "op": "output"}, {"name": "c", "op": "output"}]})";
  EXPECT_EQ(parse_graph(three, "g.json", 3).nodes.size(), 3u);
  EXPECT_EQ(error_of(three, 2), "g.json: more than 2 nodes (the node-count limit)");
  // Arguments nest at most 64 levels.
  auto nested_args = [](size_t depth) {
    return one_node(R"("name": "a", "op": "output", "args": [)" + std::string(depth, '[') + "1" + std::string(depth, ']') + "]");
  };
  EXPECT_EQ(parse_graph(nested_args(64), "g.json").nodes.size(), 1u);
  EXPECT_EQ(error_of(nested_args(65)), "g.json: node 'a': arguments nested deeper than 64 levels");
}

TEST(FxGraphLoader, LoadsFilesLikeTexts) {
  const std::string path = ::testing::TempDir() + "fx_graph_loader_test.json";
  const std::string text = one_node(R"("name": "x", "op": "placeholder", "val": {"shape": [2, 3]})");
  std::ofstream(path, std::ios::binary) << text;
  const Graph g = load_graph(path);
  EXPECT_EQ(g.path, path);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].example.tensor.shape, (std::vector<std::string>{"2", "3"}));
  std::remove(path.c_str());
  try {
    (void)load_graph(path);
    FAIL() << "no error for a missing file";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": No such file or directory");
  }
}

}  // namespace
}  // namespace fakeprop::fx
