// Running a model the interpreter may consume: each main-graph node is freed
// once it has run, and the result must not depend on it (records hold the
// model's pooled names, which outlive the model).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/report/report.h"

namespace fakeprop::onnx {
namespace {

std::string testdata(const std::string& path) { return std::string(FAKEPROP_TESTDATA) + "/onnx/" + path; }

InferOptions dynamic_everything() {
  InferOptions o;
  o.assume_static_by_default = false;
  return o;
}

TEST(ConsumingRun, ReportsWhatARunOverAKeptModelReports) {
  // Subgraphs (If, Loop), a local function, every attribute kind and real exports.
  for (const char* name : {"loader/if.onnx", "loader/loop.onnx", "loader/function.onnx", "loader/every_attribute.onnx",
                           "exports/swin_tiny.onnx", "exports/fasterrcnn_tiny.onnx", "exports/gpt2_tiny.onnx"}) {
    SCOPED_TRACE(name);
    for (const InferOptions& options : {InferOptions{}, dynamic_everything()}) {
      const Model kept = load_model(testdata(name));
      const RunResult expected = run_model(kept, options);
      const RunResult consumed = run_model(load_model(testdata(name)), options);  // the model is gone after this line
      EXPECT_EQ(report_json(consumed), report_json(expected));
      ASSERT_FALSE(consumed.nodes.empty());
    }
  }
}

TEST(ConsumingRun, FreesEachMainGraphNodeAfterItRuns) {
  Model model = load_model(testdata("exports/swin_tiny.onnx"));
  size_t with_attributes = 0;
  for (const Node& n : model.graph.nodes) with_attributes += !n.attributes.empty();
  ASSERT_GT(with_attributes, 0u);
  RunResult result;
  result.env = std::make_unique<ShapeEnv>(InferOptions{}.settings);
  result.borrowed_names.push_back(model.names);
  const InferOptions options;
  Interpreter interp(model, options, result);
  interp.release_nodes_as_run(model.graph);
  interp.run_main_graph();
  ASSERT_EQ(result.nodes.size(), model.graph.nodes.size());
  for (const Node& n : model.graph.nodes) {
    // Freed, not just emptied: the buffers are gone.
    EXPECT_EQ(n.attributes.capacity() + n.inputs.capacity() + n.outputs.capacity(), 0u) << n.name;
    EXPECT_FALSE(n.name.empty());  // names stay: records point at them
  }
  EXPECT_EQ(result.nodes.front().name, model.graph.nodes.front().name);
}

}  // namespace
}  // namespace fakeprop::onnx
