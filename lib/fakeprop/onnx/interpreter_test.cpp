// Running a model the interpreter may consume: each main-graph node is freed
// once it has run, and the result must not depend on it (records hold the
// model's pooled names, which outlive the model).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/model_builder.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/heap_trim.h"

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
  ASSERT_GT(model.graph.nodes.live_chunks(), 1u);  // the test means something only over several chunks
  const std::string first_name(model.graph.nodes.front().name.view());
  RunResult result;
  result.env = std::make_unique<ShapeEnv>(InferOptions{}.settings);
  result.borrowed_names.push_back(model.names);
  const InferOptions options;
  Interpreter interp(model, options, result);
  interp.release_nodes_as_run(model.graph);
  interp.run_main_graph();
  ASSERT_EQ(result.nodes.size(), model.graph.nodes.size());
  EXPECT_EQ(model.graph.nodes.live_chunks(), 0u);  // every node's storage is gone
  EXPECT_EQ(result.nodes.front().name, first_name);  // records keep the pooled names
}

// A chain of `n` Relu nodes over x[batch].
Model relu_chain(size_t n) {
  ModelBuilder b;
  b.input("x", 1, {std::string("batch")});
  std::string prev = "x";
  for (size_t i = 0; i < n; ++i) {
    const std::string out = "v" + std::to_string(i);
    b.node("Relu", {prev}, {out});
    prev = out;
  }
  b.output(prev);
  return b.build();
}

// malloc_trim releases the whole process's free heap, not the run's: a host
// process (Python) never pays for it, and the command line, which opts in,
// trims only a graph large enough for the freed holes to matter.
TEST(ConsumingRun, TrimsTheHeapOnlyWhereTheProcessAllowsIt) {
  const bool was_allowed = heap_trimming_allowed();
  allow_heap_trimming(false);
  uint64_t before = heap_trims_done();
  run_model(relu_chain(120000), InferOptions{});
  EXPECT_EQ(heap_trims_done(), before);  // a library's host keeps its heap

  allow_heap_trimming(true);
  before = heap_trims_done();
  run_model(relu_chain(2000), InferOptions{});
  EXPECT_EQ(heap_trims_done(), before);  // a small graph: not worth a trim
  run_model(relu_chain(120000), InferOptions{});
  EXPECT_GT(heap_trims_done(), before);
  EXPECT_LE(heap_trims_done() - before, 16u);
  allow_heap_trimming(was_allowed);
}

size_t values_with_known_elements(const RunResult& r) {
  size_t n = 0;
  for (const NodeRecord& rec : r.nodes)
    for (const NamedValue& o : rec.outputs) n += o.val.is_tensor() && o.val.tensor->data;
  return n;
}

TEST(ConsumingRun, DropsKnownElementsOnceTheirLastReaderRan) {
  // gpt2_tiny folds its shape computations: many records carry known elements.
  const Model kept = load_model(testdata("exports/gpt2_tiny.onnx"));
  const RunResult expected = run_model(kept, InferOptions{});
  const RunResult consumed = run_model(load_model(testdata("exports/gpt2_tiny.onnx")), InferOptions{});
  const size_t before = values_with_known_elements(expected);
  ASSERT_GT(before, 10u);
  EXPECT_LT(values_with_known_elements(consumed), before / 2);
  // Everything else about those values is unchanged (the report compares it all).
  EXPECT_EQ(report_json(consumed), report_json(expected));
}

}  // namespace
}  // namespace fakeprop::onnx
