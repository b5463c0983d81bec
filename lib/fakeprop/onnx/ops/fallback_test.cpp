// What a failed node's outputs become: the model's declared types, with one
// size per dim_param name across the model.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::error_kinds;
using testing::run;
using testing::dtype_of;
using testing::shape_of;
using Strings = std::vector<std::string>;
using namespace testing::dtypes;

TEST(OnnxFallback, DeclaredDimParamsNameOneSizeAcrossTheModel) {
  // Two Reshapes to shapes of unknown length fail; their declared outputs
  // share "K", and the Add of the two then needs no assertion on it.
  ModelBuilder b(17);
  b.input("x", kFloat, {"N", 6}).input("s1", kInt64, {"?"}).input("s2", kInt64, {"?"});
  b.node("Reshape", {"x", "s1"}, {"a"}, "reshape_a");
  b.node("Reshape", {"x", "s2"}, {"c"}, "reshape_c");
  b.value_info("a", kFloat, {"K", 3}).value_info("c", kFloat, {"K", 3});
  b.node("Add", {"a", "c"}, {"sum"});
  b.value_info("d", kFloat, {"N", "M"});
  b.node("Reshape", {"x", "s1"}, {"d"}, "reshape_d");
  b.output("sum").output("d");
  InferOptions options;
  options.input_hints = {{"x", {4, 6}}};
  const RunResult r = run(b, options);
  EXPECT_EQ(shape_of(r, "a"), (Strings{"K", "3"}));
  EXPECT_EQ(shape_of(r, "sum"), (Strings{"K", "3"}));
  EXPECT_TRUE(r.env->runtime_asserts().empty());
  // A dim_param naming an input's dim is that dim; a new one is unbacked.
  EXPECT_EQ(shape_of(r, "d"), (Strings{"N", "M"}));
  bool k_unbacked = false;
  for (const SymbolInfo* info : r.env->symbols())
    if (info->sym->name() == "K") k_unbacked = info->unbacked;
  EXPECT_TRUE(k_unbacked);
  // A shape of unknown length is a lost rank, not an error: a warning each.
  EXPECT_TRUE(error_kinds(r).empty());
  size_t lost = 0;
  for (const ErrorRecord& w : r.warnings) lost += w.kind == ErrorKind::PrecisionLost;
  EXPECT_EQ(lost, 3u);
}

// A node that names more outputs than its operator has fails on the node
// (output_count, as ORT rejects it), in any domain; the run goes on (a fuzz
// finding: it was an internal error, as if the rule had a gap).
TEST(OnnxFallback, ANodeNamingMoreOutputsThanItsOperatorHasIsAnOutputCountError) {
  ModelBuilder b(17);
  b.opset("com.microsoft", 1);
  b.input("x", kFloat, {2, 3});
  b.node("Relu", {"x"}, {"y", "extra"}, "relu");
  b.node("FastGelu", {"x"}, {"g", "more"}, "gelu", "com.microsoft");
  b.node("Neg", {"x"}, {"n"}, "neg");
  b.output("g").output("n");
  const RunResult r = run(b);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].node, "relu");
  EXPECT_EQ(r.errors[0].kind, ErrorKind::OutputCount);
  EXPECT_EQ(r.errors[0].message, "Relu gives 1 output(s); the node names 2 (output 'extra' has no value)");
  EXPECT_EQ(r.errors[1].kind, ErrorKind::OutputCount);
  EXPECT_EQ(shape_of(r, "n"), (Strings{"2", "3"}));
}

// A declared dim_param that cannot name a symbol ("past_len + 1", as T5's
// merged decoder declares its present.* outputs) is a fresh unbacked u<N>,
// one per text, not an s<N> that reads as an input size with no source.
TEST(OnnxFallback, ADeclaredDimParamThatIsNoIdentifierIsUnbacked) {
  ModelBuilder b(17);
  b.opset("custom", 1);
  b.input("x", kFloat, {"batch", 4});
  b.node("NoSuchOp", {"x"}, {"y"}, "a", "custom").node("NoSuchOp", {"x"}, {"z"}, "b", "custom");
  b.output("y", kFloat, {"batch", "past_len + 1"}).output("z", kFloat, {"past_len + 1"});
  const RunResult r = run(b);
  const Strings y = shape_of(r, "y");
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[1].substr(0, 1), "u");
  EXPECT_EQ(shape_of(r, "z"), (Strings{y[1]}));  // one size per text
}

// A failed node whose op fixes its output's rank (elementwise ops, Slice,
// Transpose, ...) keeps that rank with unknown sizes, so the nodes after it
// still run; only an op whose rank depends on what failed is unranked.
TEST(OnnxFallback, AFailedNodeKeepsTheRankItsOpFixes) {
  ModelBuilder b(17);
  b.input("x", kFloat, {3, 5}).input("y", kFloat, {4, 5}).input("z", kFloat, {1, 2, 5});
  b.node("Add", {"x", "y"}, {"bad_add"}, "bad_add");  // 3 against 4: a shape mismatch
  b.node("Add", {"bad_add", "z"}, {"wide"}, "wide");  // broadcasts to rank 3
  b.node("Transpose", {"bad_add"}, {"t"}, "t");
  b.attr_ints("perm", {1, 0});
  b.node("Shape", {"t"}, {"t_shape"}, "t_shape");
  b.output("wide").output("t_shape");
  const RunResult r = run(b);
  EXPECT_EQ(error_kinds(r), (Strings{"shape_mismatch"}));
  EXPECT_EQ(shape_of(r, "bad_add").size(), 2u);
  EXPECT_EQ(dtype_of(r, "bad_add"), DType::Float32);
  EXPECT_EQ(shape_of(r, "wide").size(), 3u);
  EXPECT_EQ(shape_of(r, "t").size(), 2u);
  EXPECT_EQ(shape_of(r, "t_shape"), (Strings{"2"}));
}

}  // namespace
}  // namespace fakeprop::onnx
