// The ONNX interpreter's dispatch cache: a run with the cache must report
// exactly what a run without it reports (shapes, strides, storage ids, guards
// and the nodes that caused them), and it must actually hit on repeated blocks.
#include <gtest/gtest.h>

#include <set>

#include "fakeprop/onnx/model_test_util.h"
#include "fakeprop/report/report.h"

namespace fakeprop::onnx {
namespace {

using namespace testing::dtypes;

RunResult run_with(const ModelBuilder& b, const InferOptions& options, bool cache) {
  RunControl control;
  control.dispatch_cache = cache;
  return run_model(b.build(), options, control);
}

// `blocks` transformer-like blocks over x[batch, seq, 64]: every block has the
// same operators and attributes, so from the second block on every node's
// input metadata repeats.
ModelBuilder repeated_blocks(int blocks) {
  ModelBuilder b(17);
  b.input("x", kFloat, {std::string("batch"), std::string("seq"), int64_t{64}});
  b.weight("w", kFloat, {64, 64});
  b.initializer_ints("split", {4}, {0, -1, 4, 16});
  b.initializer_ints("merge", {3}, {0, 0, 64});
  std::string h = "x";
  for (int i = 0; i < blocks; ++i) {
    const std::string p = "b" + std::to_string(i) + "_";
    b.node("MatMul", {h, "w"}, {p + "m"}, p + "matmul");
    b.node("Reshape", {p + "m", "split"}, {p + "r"}, p + "split");
    b.node("Transpose", {p + "r"}, {p + "t"}, p + "transpose").attr_ints("perm", {0, 2, 1, 3});
    b.node("Transpose", {p + "t"}, {p + "u"}, p + "transpose_back").attr_ints("perm", {0, 2, 1, 3});
    b.node("Reshape", {p + "u", "merge"}, {p + "v"}, p + "merge");
    b.node("Add", {p + "v", h}, {p + "h"}, p + "residual");
    h = p + "h";
  }
  b.output(h);
  return b;
}

InferOptions hinted(std::vector<int64_t> x) {
  InferOptions o;
  o.input_hints["x"] = std::move(x);
  return o;
}

TEST(DispatchCache, SameReportWithAndWithoutCacheOnRepeatedBlocks) {
  const ModelBuilder b = repeated_blocks(8);
  for (const InferOptions& options : {InferOptions{}, hinted({2, 8, 64})}) {
    RunResult on = run_with(b, options, true);
    RunResult off = run_with(b, options, false);
    EXPECT_EQ(report_json(on), report_json(off));
    EXPECT_TRUE(on.dispatch.enabled);
    EXPECT_FALSE(off.dispatch.enabled);
    EXPECT_EQ(off.dispatch.hits, 0u);
    // 48 nodes; every block after the first repeats the first one's keys.
    EXPECT_EQ(on.dispatch.hits + on.dispatch.misses + on.dispatch.bypasses, 48u);
    EXPECT_GE(on.dispatch.hits, 6u * 6u);
  }
}

TEST(DispatchCache, RuleThatGuardsIsNotStoredAndGuardKeepsItsNode) {
  // Reshape to [-1, 3] needs batch*seq*4 % 3 == 0: a guard (hinted) on the
  // first Reshape. The second, identical Reshape is then statically known.
  ModelBuilder b(17);
  b.input("x", kFloat, {std::string("batch"), std::string("seq"), int64_t{4}});
  b.initializer_ints("s", {2}, {-1, 3});
  b.node("Reshape", {"x", "s"}, {"r1"}, "first");
  b.node("Reshape", {"x", "s"}, {"r2"}, "second");
  b.output("r1");
  b.output("r2");
  const InferOptions options = hinted({3, 5, 4});
  RunResult on = run_with(b, options, true);
  RunResult off = run_with(b, options, false);
  EXPECT_EQ(report_json(on), report_json(off));
  ASSERT_FALSE(on.env->guards().empty());
  EXPECT_EQ(on.env->guards().front().node, "first");
  EXPECT_GE(on.dispatch.not_stored, 1u);
  EXPECT_EQ(on.dispatch.hits, 0u);  // the state changed between the two nodes
}

TEST(DispatchCache, KnownDataOfInitializersIsPartOfTheKey) {
  // Same input metadata, different shape initializers: different outputs.
  ModelBuilder b(17);
  b.input("x", kFloat, {int64_t{8}, int64_t{8}});
  b.initializer_ints("s1", {2}, {2, -1});
  b.initializer_ints("s2", {2}, {4, -1});
  b.initializer_ints("s3", {2}, {2, -1});
  b.node("Reshape", {"x", "s1"}, {"a"}, "a");
  b.node("Reshape", {"x", "s2"}, {"b"}, "b");
  b.node("Reshape", {"x", "s3"}, {"c"}, "c");
  b.output("a");
  b.output("b");
  b.output("c");
  RunResult r = run_with(b, {}, true);
  EXPECT_EQ(testing::shape_of(r, "a"), (std::vector<std::string>{"2", "32"}));
  EXPECT_EQ(testing::shape_of(r, "b"), (std::vector<std::string>{"4", "16"}));
  EXPECT_EQ(testing::shape_of(r, "c"), (std::vector<std::string>{"2", "32"}));
  EXPECT_EQ(r.dispatch.hits, 1u);  // c repeats a
  EXPECT_EQ(r.dispatch.misses, 2u);
}

TEST(DispatchCache, AttributesArePartOfTheKey) {
  ModelBuilder b(17);
  b.input("x", kFloat, {int64_t{2}, int64_t{3}, int64_t{5}});
  b.node("Transpose", {"x"}, {"a"}, "a").attr_ints("perm", {2, 1, 0});
  b.node("Transpose", {"x"}, {"b"}, "b").attr_ints("perm", {1, 0, 2});
  b.node("Transpose", {"x"}, {"c"}, "c").attr_ints("perm", {2, 1, 0});
  b.output("a");
  b.output("b");
  b.output("c");
  RunResult r = run_with(b, {}, true);
  EXPECT_EQ(testing::shape_of(r, "a"), (std::vector<std::string>{"5", "3", "2"}));
  EXPECT_EQ(testing::shape_of(r, "b"), (std::vector<std::string>{"3", "2", "5"}));
  EXPECT_EQ(testing::shape_of(r, "c"), (std::vector<std::string>{"5", "3", "2"}));
  EXPECT_EQ(r.dispatch.hits, 1u);
}

TEST(DispatchCache, HitsGetFreshStorage) {
  const ModelBuilder b = repeated_blocks(3);
  RunResult r = run_with(b, {}, true);
  ASSERT_GT(r.dispatch.hits, 0u);
  std::set<int64_t> seen;
  for (const auto& n : r.nodes)
    for (const auto& o : n.outputs)
      if (o.val.is_tensor() && n.op != "Reshape") {  // Reshape may alias its input
        EXPECT_TRUE(seen.insert(o.val.tensor->meta.storage).second) << n.name;
      }
}

uint64_t bypassed_for(const RunResult& r, std::string_view reason) {
  for (const auto& [name, count] : r.dispatch.bypass_reasons)
    if (name == reason) return count;
  ADD_FAILURE() << "no bypass reason " << reason;
  return 0;
}

TEST(DispatchCache, CountsBypassesByReason) {
  // An If (its branches are graph attributes) is never looked up; the Relu
  // after it and the branch's Identity are.
  ModelBuilder branch(17);
  branch.node("Identity", {"x"}, {"b_y"}).output("b_y");
  auto body = std::make_shared<Graph>(branch.graph());
  ModelBuilder b(17);
  b.input("x", kFloat, {std::string("n"), int64_t{3}});
  b.initializer_ints("c", {}, {1}, /*bool=*/9);
  b.node("If", {"c"}, {"y"}, "if0").attr_graph("then_branch", body).attr_graph("else_branch", body);
  b.node("Relu", {"y"}, {"z"}, "relu");
  b.output("z");
  const RunResult r = run_with(b, {}, true);
  EXPECT_EQ(bypassed_for(r, "graph_attribute"), 1u);
  EXPECT_EQ(bypassed_for(r, "sequence_or_optional"), 0u);
  EXPECT_EQ(r.dispatch.bypasses, 1u);
  uint64_t total = 0;
  for (const auto& [name, count] : r.dispatch.bypass_reasons) total += count;
  EXPECT_EQ(total, r.dispatch.bypasses);
  EXPECT_EQ(r.dispatch.bypass_reasons.size(), 4u);  // every reason, counted or not
}

TEST(DispatchCache, OffWhileTheDynamicTraceIsOn) {
  InferOptions options;
  options.log_level = LogLevel::Info;
  ::testing::internal::CaptureStderr();
  RunResult r = run_with(repeated_blocks(2), options, true);
  ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(r.dispatch.enabled);
  EXPECT_EQ(r.dispatch.hits, 0u);
}

}  // namespace
}  // namespace fakeprop::onnx
