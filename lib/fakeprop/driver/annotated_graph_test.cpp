#include "fakeprop/driver/annotated_graph.h"

#include <gtest/gtest.h>

#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

using json = nlohmann::json;

json tensor_val(json shape) {
  return {{"shape", std::move(shape)}, {"dtype", "float32"}, {"storage", 0}};
}

// A report of the shape the JSON report has, for a graph x -> relu -> output.
json small_report() {
  json report;
  report["nodes"] = json::array({
      {{"name", "x"}, {"op", "placeholder"}, {"outputs", {{{"name", "x"}, {"val", tensor_val({"s0", 3})}}}},
       {"unbacked_bindings", json::object()}},
      {{"name", "nz"}, {"op", "aten.nonzero.default"},
       {"outputs", {{{"name", "nz"}, {"val", tensor_val({"u0", 1})}}}},
       {"unbacked_bindings", {{"u0", ".size()[0]"}}}},
      {{"name", "bad"}, {"op", "mylib.op.default"}, {"outputs", {{{"name", "bad"}, {"val", tensor_val({"u1"})}}}},
       {"unbacked_bindings", json::object()}},
  });
  report["outputs"] = json::array({{{"name", "nz"}, {"val", tensor_val({"u0", 1})}}});
  report["errors"] = json::array({{{"node", "bad"}, {"kind", "unsupported_op"}, {"message", "no rule"}},
                                  {{"node", nullptr}, {"kind", "x"}, {"message", "y"}}});
  report["symbols"] = json::array({{{"name", "s0"}, {"kind", "backed"}, {"sources", {"L['x'].size()[0]"}}}});
  return report;
}

const char* kGraph = R"({"format": "fakeprop.fx/1", "extra": [1, 2],
  "nodes": [
    {"name": "x", "op": "placeholder", "meta": {"val": {"shape": [4, 3]}, "stack_trace": "m.py:1"}},
    {"name": "nz", "op": "call_function", "target": "aten.nonzero.default", "args": [{"node": "x"}],
     "meta": {"val": {"shape": [9]}}},
    {"name": "bad", "op": "call_function", "target": "mylib.op.default", "args": [{"node": "x"}],
     "meta": {"val": {"shape": [7]}}},
    {"name": "output", "op": "output", "args": [{"node": "nz"}]}
  ]})";

TEST(AnnotateFxGraph, AddsValsAndBindingsAndKeepsWhatTheInputHeld) {
  const json out = json::parse(annotate_fx_graph(kGraph, small_report(), "g.json"));
  EXPECT_EQ(out["extra"], json::array({1, 2}));
  const json& x = out["nodes"][0];
  EXPECT_EQ(x["val"], json({{"shape", {4, 3}}}));  // the example moved where the loader reads first
  EXPECT_EQ(x["meta"]["val"]["shape"], json::array({"s0", 3}));
  EXPECT_EQ(x["meta"]["stack_trace"], "m.py:1");
  EXPECT_EQ(x["meta"]["unbacked_bindings"], json::object());
  const json& nz = out["nodes"][1];
  EXPECT_EQ(nz["meta"]["val"]["shape"], json::array({"u0", 1}));
  EXPECT_EQ(nz["meta"]["val_input"], json({{"shape", {9}}}));
  EXPECT_EQ(nz["meta"]["unbacked_bindings"], json({{"u0", ".size()[0]"}}));
  // A failed node keeps its own value: fakeprop's is a fallback.
  EXPECT_EQ(out["nodes"][2]["meta"], json({{"val", {{"shape", {7}}}}}));
  EXPECT_EQ(out["nodes"][3]["meta"]["val"]["shape"], json::array({"u0", 1}));
  EXPECT_EQ(out["meta"]["annotated_by"], "fakeprop");
  EXPECT_EQ(out["meta"]["symbols"][0]["name"], "s0");
}

TEST(AnnotateFxGraph, AnnotatingAgainReplacesItsOwnValues) {
  const std::string once = annotate_fx_graph(kGraph, small_report(), "g.json");
  json report = small_report();
  report["nodes"][1]["outputs"][0]["val"] = tensor_val({"u5", 1});
  const json twice = json::parse(annotate_fx_graph(once, report, "g.json"));
  const json& nz = twice["nodes"][1];
  EXPECT_EQ(nz["meta"]["val"]["shape"], json::array({"u5", 1}));
  EXPECT_EQ(nz["meta"]["val_input"], json({{"shape", {9}}}));  // still the other tool's
  EXPECT_EQ(twice["nodes"][0]["val"], json({{"shape", {4, 3}}}));
}

TEST(AnnotateFxGraph, OutputNodeReturningAListGetsAList) {
  const char* g = R"({"nodes": [{"name": "x", "op": "placeholder"},
                                {"name": "output", "op": "output", "args": [[{"node": "x"}, {"node": "x"}]]}]})";
  json report = small_report();
  report["outputs"] = json::array({{{"name", "x"}, {"val", 1}}, {{"name", "x"}, {"val", 2}}});
  const json out = json::parse(annotate_fx_graph(g, report, "g.json"));
  EXPECT_EQ(out["nodes"][1]["meta"]["val"], json::array({1, 2}));
}

TEST(AnnotateFxGraph, MetaOfAnotherKindIsKept) {
  const char* g = R"({"meta": "a string", "nodes": [{"name": "x", "op": "placeholder", "meta": 5}]})";
  const json out = json::parse(annotate_fx_graph(g, small_report(), "g.json"));
  EXPECT_EQ(out["meta_input"], "a string");
  EXPECT_EQ(out["nodes"][0]["meta_input"], 5);
  EXPECT_EQ(out["nodes"][0]["meta"]["val"]["shape"], json::array({"s0", 3}));
}

TEST(AnnotateFxGraph, RejectsTextThatIsNotAGraph) {
  for (const char* text : {"", "[]", "{\"nodes\": 3}", "{\"nodes\": ["}) {
    try {
      annotate_fx_graph(text, small_report(), "g.json");
      ADD_FAILURE() << text;
    } catch (const InputError& e) {
      EXPECT_STREQ(e.what(), "g.json: not a JSON FX graph (an object with 'nodes')") << text;
    }
  }
}

}  // namespace
}  // namespace fakeprop
