// If, Loop, Scan, SequenceMap, sequence and optional rules. Expected shapes
// follow the ONNX spec (docs/Operators.md) and the python3-onnx backend cases
// (onnx/backend/test/case/node/{if,loop,scan,sequence*,optional*}.py).
#include <gtest/gtest.h>

#include <limits>

#include <map>
#include <memory>

#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::data_of;
using testing::dtype_of;
using testing::error_kinds;
using testing::run;
using testing::shape_of;
using Strings = std::vector<std::string>;

using namespace testing::dtypes;

// Sub-builders own the bytes of their constants, so they live as long as the test.
struct Subgraphs {
  std::vector<std::unique_ptr<ModelBuilder>> builders;
  ModelBuilder& make(const std::string& name) {
    builders.push_back(std::make_unique<ModelBuilder>(17));
    builders.back()->graph().name = name;
    return *builders.back();
  }
  static std::shared_ptr<Graph> graph(ModelBuilder& b) { return std::make_shared<Graph>(b.graph()); }
};

const Value* output_value(const RunResult& r, const std::string& name) {
  for (const auto& o : r.outputs)
    if (o.name == name) return &o.val;
  return nullptr;
}

Strings dims(const RunResult& r, const TensorMeta& m) {
  Strings out;
  for (const SymInt& d : m.sizes) out.push_back(r.env->simplify(d).to_python());
  return out;
}

// Shapes of the elements of sequence output `name` ({"<template>", ...} rows
// for a template list), or {{"<not a sequence>"}}.
std::vector<Strings> element_shapes(const RunResult& r, const std::string& name) {
  const Value* v = output_value(r, name);
  if (!v || v->kind != Value::Kind::List) return {{"<not a sequence>"}};
  std::vector<Strings> out;
  for (const Value& e : *v->list) out.push_back(e.is_tensor() ? dims(r, e.tensor->meta) : Strings{"<not a tensor>"});
  return out;
}

std::string length_of(const RunResult& r, const std::string& name) {
  const Value* v = output_value(r, name);
  if (!v || v->kind != Value::Kind::List) return "<not a sequence>";
  if (v->list_length) return r.env->simplify(*v->list_length).to_python();
  return std::to_string(v->list->size());
}

InferOptions with_hints(std::map<std::string, std::vector<int64_t>> hints) {
  InferOptions o;
  o.input_hints = std::move(hints);
  return o;
}

bool is_unbacked(const RunResult& r, const std::string& dim) {
  for (const auto* s : r.env->symbols())
    if (s->sym->name() == dim) return s->unbacked;
  return false;
}

// then: y = x; else: y = Concat(x, x) along 0.
void add_if(ModelBuilder& b, Subgraphs& sg, const std::string& cond) {
  ModelBuilder& then_b = sg.make("then");
  then_b.node("Identity", {"x"}, {"t_y"}).output("t_y");
  ModelBuilder& else_b = sg.make("else");
  else_b.node("Concat", {"x", "x"}, {"e_y"}).attr_int("axis", 0).output("e_y");
  b.node("If", {cond}, {"y"}, "if0")
      .attr_graph("then_branch", Subgraphs::graph(then_b))
      .attr_graph("else_branch", Subgraphs::graph(else_b));
}

TEST(ControlFlowIf, KnownConditionRunsOneBranch) {
  for (int64_t cond : {1, 0}) {
    Subgraphs sg;
    ModelBuilder b;
    b.input("x", kFloat, {"N", 3}).initializer_ints("c", {}, {cond}, kBool);
    add_if(b, sg, "c");
    b.output("y");
    RunResult r = run(b, with_hints({{"x", {4, 3}}}));
    EXPECT_TRUE(r.errors.empty()) << r.errors.front().message;
    EXPECT_EQ(shape_of(r, "y"), (cond ? Strings{"N", "3"} : Strings{"2*N", "3"}));
    EXPECT_EQ(dtype_of(r, "y"), DType::Float32);
  }
}

// The spec asks for a condition holding one element, of any rank.
TEST(ControlFlowIf, ConditionOfAnyShapeWithOneElement) {
  for (int64_t cond : {1, 0}) {
    Subgraphs sg;
    ModelBuilder b;
    b.input("x", kFloat, {"N", 3}).initializer_ints("c", {1, 1}, {cond}, kBool);
    add_if(b, sg, "c");
    b.output("y");
    RunResult r = run(b, with_hints({{"x", {4, 3}}}));
    EXPECT_TRUE(r.errors.empty()) << r.errors.front().message;
    EXPECT_EQ(shape_of(r, "y"), (cond ? Strings{"N", "3"} : Strings{"2*N", "3"}));
  }
  Subgraphs sg;
  ModelBuilder b;
  b.input("x", kFloat, {"N", 3}).input("c", kBool, {1, 2});
  add_if(b, sg, "c");
  b.output("y");
  RunResult r = run(b, with_hints({{"x", {4, 3}}}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "If: the condition must hold a single element, got shape [1, 2]");
}

// "if x.size(0) == 4" as an exporter writes it: decided by a guard on the
// backed size (Dynamo's answer), both ways; an unbacked size merges instead.
TEST(ControlFlowIf, ConditionOnBackedSizesIsGuarded) {
  auto build = [](ModelBuilder& b, Subgraphs& sg) {
    b.input("x", kFloat, {"N", 3});
    b.node("Shape", {"x"}, {"s"});
    b.initializer_ints("i", {}, {0});
    b.node("Gather", {"s", "i"}, {"n"});
    b.initializer_ints("four", {}, {4});
    b.node("Equal", {"n", "four"}, {"c"});
    add_if(b, sg, "c");
    b.output("y");
  };
  for (int64_t hint : {4, 5}) {
    Subgraphs sg;
    ModelBuilder b;
    build(b, sg);
    RunResult r = run(b, with_hints({{"x", {hint, 3}}}));
    ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
    EXPECT_EQ(shape_of(r, "y"), (hint == 4 ? Strings{"4", "3"} : Strings{"2*N", "3"}));
    std::vector<std::string> guards;
    for (const auto& g : r.env->guards()) guards.push_back(SymBool(g.expr).to_python());
    EXPECT_EQ(guards, (hint == 4 ? Strings{"N == 4"} : Strings{"N != 4"})) << hint;
  }
  Subgraphs sg;
  ModelBuilder b;
  build(b, sg);
  InferOptions o = with_hints({{"x", {4, 3}}});
  o.specs.add(DimMark::Unbacked, "L['x']:0");
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_TRUE(r.env->guards().empty());
  EXPECT_TRUE(is_unbacked(r, shape_of(r, "y")[0]));
}

TEST(ControlFlowIf, UnknownConditionMergesBranches) {
  Subgraphs sg;
  ModelBuilder b;
  b.input("x", kFloat, {"N", 3}).input("c", kBool, {});
  add_if(b, sg, "c");
  b.output("y");
  RunResult r = run(b, with_hints({{"x", {4, 3}}}));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  Strings s = shape_of(r, "y");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1], "3");  // equal in both branches
  EXPECT_TRUE(is_unbacked(r, s[0])) << s[0];  // N or 2*N
  // The fresh size covers both branches: [N, 2N] with N >= 2 gives lo 2.
  ExprRef u = nullptr;
  for (const auto* sym : r.env->symbols())
    if (sym->sym->name() == s[0]) u = sym->sym;
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(r.env->bound(u).lo, 2);
  bool bound_on_if = false;
  for (const auto& n : r.nodes)
    if (n.name == "if0")
      for (const auto& [sym, path] : n.unbacked_bindings) bound_on_if |= sym == s[0] && path == ".size()[0]";
  EXPECT_TRUE(bound_on_if);
  // Both branches were evaluated.
  int branch_nodes = 0;
  for (const auto& n : r.nodes) branch_nodes += n.name.view().starts_with("if0/");
  EXPECT_EQ(branch_nodes, 2);
}

// A runtime assert from a branch holds only when that branch runs: it is an
// implication over the If's condition, and nothing of it is a fact outside.
TEST(ControlFlowIf, BranchRuntimeAssertIsConditionedOnTheBranch) {
  Subgraphs sg;
  ModelBuilder b;
  b.input("x", kFloat, {"n", 3}).input("c", kBool, {});
  ModelBuilder& then_b = sg.make("then");
  then_b.initializer_ints("t", {2}, {-1, 2});
  then_b.node("Reshape", {"x", "t"}, {"t_y"}, "reshape").output("t_y");
  ModelBuilder& else_b = sg.make("else");
  else_b.node("Identity", {"x"}, {"e_y"}).output("e_y");
  b.node("If", {"c"}, {"y"}, "if0")
      .attr_graph("then_branch", Subgraphs::graph(then_b))
      .attr_graph("else_branch", Subgraphs::graph(else_b));
  b.node("Reshape", {"x", "t2"}, {"z"}, "after");
  b.initializer_ints("t2", {2}, {-1, 2});
  b.output("y").output("z");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  ASSERT_EQ(r.env->runtime_asserts().size(), 2u);
  // In the branch: (3n) % 2 == 0 only when the condition (a fresh symbool for the unknown c) holds.
  const GuardRecord& in_branch = r.env->runtime_asserts()[0];
  EXPECT_EQ(in_branch.node, "if0/then/reshape");
  ExprRef cond_sym = nullptr;
  for (const auto* sym : r.env->symbols())
    if (sym->unbacked && sym->node == "if0" && !cond_sym) cond_sym = sym->sym;  // before the merged sizes
  ASSERT_NE(cond_sym, nullptr);
  EXPECT_EQ(to_python_string(in_branch.expr), cond_sym->name() + " != 1 or (3*n) % 2 == 0");
  // The same check after the If is not known from the branch: it is asserted again, unconditionally.
  EXPECT_EQ(r.env->runtime_asserts()[1].node, "after");
  EXPECT_EQ(to_python_string(r.env->runtime_asserts()[1].expr), "(3*n) % 2 == 0");
}

// x[-n:] inside an If branch whose condition is data (optimum's merged
// decoders): as outside an If, the length is an unbacked size, no error, the
// rank kept; its bound is asserted only where the branch runs.
TEST(ControlFlowIf, SliceByAMinusSizeInsideABranch) {
  Subgraphs sg;
  ModelBuilder b;
  b.input("c", kBool, {}).input("q", kFloat, {"n"}).input("x", kFloat, {"len"});
  ModelBuilder& then_b = sg.make("then");
  then_b.initializer_ints("zero", {1}, {0}).initializer_ints("big", {1}, {std::numeric_limits<int64_t>::max()});
  then_b.node("Shape", {"q"}, {"qs"});
  then_b.node("Gather", {"qs", "zero"}, {"n_"}).attr_int("axis", 0);
  then_b.node("Neg", {"n_"}, {"minus_n"});
  then_b.node("Slice", {"x", "minus_n", "big", "zero"}, {"t_y"}, "tail").output("t_y");
  ModelBuilder& else_b = sg.make("else");
  else_b.node("Identity", {"x"}, {"e_y"}).output("e_y");
  b.node("If", {"c"}, {"y"}, "if0")
      .attr_graph("then_branch", Subgraphs::graph(then_b))
      .attr_graph("else_branch", Subgraphs::graph(else_b));
  b.output("y");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  const Value* y = output_value(r, "y");
  ASSERT_TRUE(y && y->is_tensor());
  EXPECT_EQ(y->tensor->meta.sizes.size(), 1u);
  ASSERT_EQ(r.env->runtime_asserts().size(), 1u);
  EXPECT_EQ(r.env->runtime_asserts()[0].node, "if0/then/tail");
  const std::string text = to_python_string(r.env->runtime_asserts()[0].expr);
  EXPECT_NE(text.find(" <= len or "), std::string::npos) << text;
  EXPECT_NE(text.find(" != 1"), std::string::npos) << text;
}

// Squeeze where a dim is 1, Identity otherwise (silero VAD): hintless, the
// rank is unknown, and the warning says which dim decides it and which
// input's hint would.
TEST(ControlFlowIf, RanksThatDifferByASizeOneDimNameTheDimThatDecides) {
  Subgraphs sg;
  ModelBuilder b;
  b.input("x", kFloat, {"batch", "chan", 16});
  b.initializer_ints("one", {1}, {1}).initializer_ints("one_s", {}, {1});
  b.node("Shape", {"x"}, {"s"}).node("Gather", {"s", "one_s"}, {"d"}).node("Equal", {"d", "one_s"}, {"c"});
  ModelBuilder& then_b = sg.make("then");
  then_b.node("Squeeze", {"x", "one"}, {"t"}).output("t");
  ModelBuilder& else_b = sg.make("else");
  else_b.node("Identity", {"x"}, {"e"}).output("e");
  b.node("If", {"c"}, {"y"}, "if0")
      .attr_graph("then_branch", Subgraphs::graph(then_b))
      .attr_graph("else_branch", Subgraphs::graph(else_b));
  b.output("y");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].kind, ErrorKind::PrecisionLost);
  EXPECT_EQ(r.warnings[0].message,
            "output 'y' has rank 2 in one case and 3 in the other, differing only by dim 1 (chan), which the shorter "
            "case drops: whether it is 1 decides the rank; a hint for L['x'].size()[1] (--input) would decide it");
}

// A Reshape in one branch needing 2*u0 == 8 neither specializes u0 nor
// asserts it of every input (the condition, Equal over an unbacked size, is
// opaque data here; ShapeEnvBranch tests a condition the branch assumes).
TEST(ControlFlowIf, BranchFactsDoNotLeak) {
  Subgraphs sg;
  ModelBuilder b;
  b.input("x", kFloat, {3, 3});
  b.initializer_ints("one", {}, {1}).initializer_ints("four", {}, {4});
  b.node("NonZero", {"x"}, {"nz"}, "nonzero").node("Shape", {"nz"}, {"shape"});
  b.node("Gather", {"shape", "one"}, {"count"}).node("Equal", {"count", "four"}, {"c"});
  ModelBuilder& then_b = sg.make("then");
  then_b.initializer_ints("t", {1}, {8});
  then_b.node("Reshape", {"nz", "t"}, {"t_y"}, "reshape").output("t_y");
  ModelBuilder& else_b = sg.make("else");
  else_b.initializer_ints("flat", {1}, {-1});
  else_b.node("Reshape", {"nz", "flat"}, {"e_y"}).output("e_y");
  b.node("If", {"c"}, {"y"}, "if0")
      .attr_graph("then_branch", Subgraphs::graph(then_b))
      .attr_graph("else_branch", Subgraphs::graph(else_b));
  b.output("y").output("nz");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  ASSERT_EQ(r.env->runtime_asserts().size(), 1u);
  const std::string implication = to_python_string(r.env->runtime_asserts()[0].expr);
  EXPECT_TRUE(implication.ends_with(" != 1 or 2*u0 == 8")) << implication;
  const Strings nz = shape_of(r, "nz");
  ASSERT_EQ(nz.size(), 2u);
  EXPECT_TRUE(is_unbacked(r, nz[1])) << "u0 is not specialized to 4 by the branch: " << nz[1];
}

// A node without a rule in one branch: the output it feeds keeps the other
// branch's dtype and rank; the output it does not feed is exact.
TEST(ControlFlowIf, FailedBranchNodeKeepsWhatTheOtherBranchDetermines) {
  Subgraphs sg;
  ModelBuilder b;
  b.input("x", kFloat, {"N", 3}).input("c", kBool, {});
  ModelBuilder& then_b = sg.make("then");
  then_b.node("Mystery", {"x"}, {"t0"}, "m", "custom.domain");
  then_b.node("Identity", {"x"}, {"t1"}).output("t0").output("t1");
  ModelBuilder& else_b = sg.make("else");
  else_b.node("Neg", {"x"}, {"e0"}).node("Identity", {"x"}, {"e1"}).output("e0").output("e1");
  b.node("If", {"c"}, {"y0", "y1"}, "if0")
      .attr_graph("then_branch", Subgraphs::graph(then_b))
      .attr_graph("else_branch", Subgraphs::graph(else_b));
  b.output("y0").output("y1");
  RunResult r = run(b, with_hints({{"x", {4, 3}}}));
  ASSERT_EQ(error_kinds(r), Strings{"unsupported_op"});
  EXPECT_EQ(r.errors[0].node, "if0/then/m");
  const Strings y0 = shape_of(r, "y0");
  ASSERT_EQ(y0.size(), 2u);
  EXPECT_TRUE(is_unbacked(r, y0[0]) && is_unbacked(r, y0[1])) << y0[0] << " " << y0[1];
  EXPECT_EQ(dtype_of(r, "y0"), DType::Float32);
  EXPECT_EQ(shape_of(r, "y1"), (Strings{"N", "3"}));
}

// Branches of different ranks (ONNX's test_if_no_shape_in_else_branch): the
// If's output has an unknown rank with the branches' element type, and a
// precision_lost warning on the If; branches of different element types fail.
TEST(ControlFlowIf, BranchesOfDifferentRankGiveUnknownRank) {
  for (const bool same_dtype : {true, false}) {
    Subgraphs sg;
    ModelBuilder& t = sg.make("then");
    if (same_dtype) t.node("Identity", {"x"}, {"t_y"}).output("t_y");
    else t.node("Cast", {"x"}, {"t_y"}).attr_int("to", kFloat).output("t_y");
    ModelBuilder& e = sg.make("else");
    e.node("Shape", {"x"}, {"e_y"}).output("e_y");
    ModelBuilder b;
    b.input("x", kInt64, {2, 3}).input("c", kBool, {});
    b.node("If", {"c"}, {"y"}, "if0").attr_graph("then_branch", Subgraphs::graph(t)).attr_graph("else_branch", Subgraphs::graph(e));
    b.node("Identity", {"y"}, {"z"});
    b.output("z");
    RunResult r = run(b);
    if (!same_dtype) {
      EXPECT_EQ(error_kinds(r, "if0"), Strings{"type_error"});
      continue;
    }
    EXPECT_EQ(error_kinds(r), Strings{});
    const Value* y = testing::find_value(r, "z");
    ASSERT_NE(y, nullptr);
    EXPECT_TRUE(y->is_unranked());
    EXPECT_EQ(y->tensor->meta.dtype, DType::Int64);
    bool noted = false;
    for (const auto& w : r.warnings) noted |= w.node == "if0" && w.message.find("rank 2 in one case and 1") != std::string::npos;
    EXPECT_TRUE(noted);
  }
}

// Maps (ai.onnx.ml) merge as values: one key dtype, the entry counts as
// sizes (two maps' unbacked counts become a fresh one), the values as values.
TEST(ControlFlowIf, BranchesOfMapsMerge) {
  for (const bool same : {true, false}) {
    Subgraphs sg;
    ModelBuilder& t = sg.make("then");
    t.node("Identity", {"m"}, {"t_y"}).output("t_y");
    ModelBuilder& e = sg.make("else");
    e.node("Identity", {same ? "m" : "n"}, {"e_y"}).output("e_y");
    ModelBuilder b;
    b.input("c", kBool, {}).input_map("m", kInt64, kFloat).input_map("n", kInt64, kFloat);
    b.node("If", {"c"}, {"y"}, "if0").attr_graph("then_branch", Subgraphs::graph(t)).attr_graph("else_branch", Subgraphs::graph(e));
    b.output("y");
    RunResult r = run(b);
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
    const Value* y = output_value(r, "y");
    const Value* m = testing::find_value(r, "m");
    ASSERT_TRUE(y && y->is_map() && m);
    EXPECT_EQ(y->map_key, DType::Int64);
    EXPECT_EQ(y->map_value().tensor->meta.dtype, DType::Float32);
    EXPECT_EQ(y->map_entries().same(m->map_entries()), same);
  }
}

TEST(ControlFlowIf, BranchesOfMapsOfOtherKeysFail) {
  Subgraphs sg;
  ModelBuilder& t = sg.make("then");
  t.node("Identity", {"m"}, {"t_y"}).output("t_y");
  ModelBuilder& e = sg.make("else");
  e.node("Identity", {"n"}, {"e_y"}).output("e_y");
  ModelBuilder b;
  b.input("c", kBool, {}).input_map("m", kInt64, kFloat).input_map("n", kString, kFloat);
  b.node("If", {"c"}, {"y"}, "if0").attr_graph("then_branch", Subgraphs::graph(t)).attr_graph("else_branch", Subgraphs::graph(e));
  b.output("y");
  EXPECT_EQ(error_kinds(run(b), "if0"), Strings{"type_error"});
}

// Loop body: cond_out = Identity(cond_in) (or Less(i, 3): unknown),
// y_out = Concat(y_in, [7]) (grows by one), z_out = Identity(z_in),
// scan = Unsqueeze(i, [0]) per iteration.
ModelBuilder& loop_body(Subgraphs& sg, bool computed_cond) {
  ModelBuilder& body = sg.make("body");
  body.input("i", kInt64, {}).input("cond_in", kBool, {}).input("y_in", kInt64, {""}).input("z_in", kFloat, {"", 3});
  if (computed_cond) {
    body.initializer_ints("three", {}, {3});
    body.node("Less", {"i", "three"}, {"cond_out"});
  } else {
    body.node("Identity", {"cond_in"}, {"cond_out"});
  }
  body.initializer_ints("seven", {1}, {7}).initializer_ints("zero", {1}, {0});
  body.node("Concat", {"y_in", "seven"}, {"y_out"}).attr_int("axis", 0);
  body.node("Identity", {"z_in"}, {"z_out"});
  body.node("Unsqueeze", {"i", "zero"}, {"scan_t"});
  body.output("cond_out").output("y_out").output("z_out").output("scan_t");
  return body;
}

struct LoopCase {
  std::string name;
  std::string trip_count;  // "static", "input" (unknown data), "shape" (N from Shape(z))
  bool computed_cond;
  Strings y, scan;  // "?" marks an unbacked size
};

std::ostream& operator<<(std::ostream& os, const LoopCase& c) { return os << c.name; }

class ControlFlowLoop : public ::testing::TestWithParam<LoopCase> {};

TEST_P(ControlFlowLoop, CarriesAndStacks) {
  const LoopCase& c = GetParam();
  Subgraphs sg;
  ModelBuilder b;
  b.input("z", kFloat, {"N", 3}).initializer_ints("y0", {2}, {1, 2}).initializer_ints("true", {}, {1}, kBool);
  if (c.trip_count == "static") {
    b.initializer_ints("M", {}, {4});
  } else if (c.trip_count == "input") {
    b.input("M", kInt64, {});
  } else {
    b.initializer_ints("idx0", {}, {0});
    b.node("Shape", {"z"}, {"zs"}).node("Gather", {"zs", "idx0"}, {"M"});
  }
  b.node("Loop", {"M", "true", "y0", "z"}, {"y", "z_final", "scan"}, "loop0")
      .attr_graph("body", Subgraphs::graph(loop_body(sg, c.computed_cond)));
  b.output("y").output("z_final").output("scan");
  RunResult r = run(b, with_hints({{"z", {5, 3}}}));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().node << ": " << r.errors.front().message;
  auto check = [&](const std::string& name, const Strings& want) {
    Strings got = shape_of(r, name);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t k = 0; k < want.size(); ++k) {
      if (want[k] == "?") {
        EXPECT_TRUE(is_unbacked(r, got[k])) << name << " dim " << k << " is " << got[k];
      }
      else EXPECT_EQ(got[k], want[k]) << name << " dim " << k;
    }
  };
  check("y", c.y);
  check("scan", c.scan);
  check("z_final", {"N", "3"});  // unchanged by the body
  EXPECT_EQ(dtype_of(r, "y"), DType::Int64);
  EXPECT_EQ(dtype_of(r, "scan"), DType::Int64);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ControlFlowLoop,
    ::testing::Values(
        // 4 iterations: y grows from 2 to 6; the scan output stacks 4 [1] slices.
        LoopCase{"StaticTripCount", "static", false, {"6"}, {"4", "1"}},
        // M from Shape(z)[0] = N: y ends with N + 2 elements.
        LoopCase{"SymbolicTripCount", "shape", false, {"N + 2"}, {"N", "1"}},
        // M unknown: the count and y's length are data-dependent.
        LoopCase{"UnknownTripCount", "input", false, {"?"}, {"?", "1"}},
        // The body's condition may stop early: the count is unknown even with M = 4.
        LoopCase{"ComputedCondition", "static", true, {"?"}, {"?", "1"}}),
    [](const ::testing::TestParamInfo<LoopCase>& i) { return i.param.name; });

TEST(ControlFlowLoop, FalseConditionRunsNoIteration) {
  Subgraphs sg;
  ModelBuilder b;
  b.input("z", kFloat, {"N", 3}).initializer_ints("y0", {2}, {1, 2}).initializer_ints("M", {}, {4});
  b.initializer_ints("false", {}, {0}, kBool);
  b.node("Loop", {"M", "false", "y0", "z"}, {"y", "z_final", "scan"}, "loop0")
      .attr_graph("body", Subgraphs::graph(loop_body(sg, false)));
  b.output("y").output("z_final").output("scan");
  RunResult r = run(b, with_hints({{"z", {5, 3}}}));
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "y"), (Strings{"2"}));
  EXPECT_EQ(data_of(r, "y"), (Strings{"1", "2"}));  // the initial value, untouched
  EXPECT_EQ(shape_of(r, "scan"), (Strings{"0", "1"}));
}

TEST(ControlFlowLoop, GeneralizedSizesAreBoundByTheLoop) {
  // y grows by one per iteration, so the body's second pass sees y_in with a
  // generalized length: that symbol is bound on the Loop node, and every
  // unbacked symbol in the report has a node that binds it.
  Subgraphs sg;
  ModelBuilder b;
  b.input("z", kFloat, {"N", 3}).input("M", kInt64, {}).initializer_ints("y0", {2}, {1, 2});
  b.initializer_ints("true", {}, {1}, kBool);
  b.node("Loop", {"M", "true", "y0", "z"}, {"y", "z_final", "scan"}, "loop0")
      .attr_graph("body", Subgraphs::graph(loop_body(sg, false)));
  b.output("y").output("z_final").output("scan");
  RunResult r = run(b, with_hints({{"z", {5, 3}}}));
  ASSERT_TRUE(r.errors.empty());
  std::map<std::string, std::string> bound_by;
  for (const auto& n : r.nodes)
    for (const auto& [sym, path] : n.unbacked_bindings) bound_by.emplace(sym, n.name.str());
  size_t in_later_pass = 0;
  for (const auto& n : r.nodes)
    for (const auto& o : n.outputs) {
      if (!o.val.is_tensor()) continue;
      for (const SymInt& d : o.val.tensor->meta.sizes) {
        if (!d.is_symbolic()) continue;
        for (ExprRef s : free_symbols(d.expr())) {
          if (!r.env->info(s).unbacked) continue;
          EXPECT_TRUE(bound_by.count(s->name())) << s->name() << " in " << n.name.str() << " is bound by no node";
          if (n.name.str().find("#1/") != std::string::npos && bound_by[s->name()] == "loop0") ++in_later_pass;
        }
      }
    }
  EXPECT_GT(in_later_pass, 0u);  // the body's second pass reads the Loop's generalized length
}

// Scan body: sum_out = Add(sum_in, x_t); out = Identity(sum_out).
ModelBuilder& scan_body(Subgraphs& sg) {
  ModelBuilder& body = sg.make("body");
  body.input("sum_in", kFloat, {2}).input("x_t", kFloat, {2});
  body.node("Add", {"sum_in", "x_t"}, {"sum_out"}).node("Identity", {"sum_out"}, {"out"});
  body.output("sum_out").output("out");
  return body;
}

TEST(ControlFlowScan, Opset9AxesAndOutputs) {
  struct Row {
    std::vector<ModelBuilder::DimSpec> x;
    std::vector<int64_t> hint;
    std::vector<int64_t> in_axes, out_axes;
    Strings scan;
  };
  for (const Row& row : {Row{{"T", 2}, {3, 2}, {}, {}, {"T", "2"}},
                         Row{{"T", 2}, {3, 2}, {0}, {1}, {"2", "T"}},
                         Row{{2, "T"}, {2, 7}, {1}, {-1}, {"2", "T"}}}) {
    Subgraphs sg;
    ModelBuilder b(11);
    b.input("init", kFloat, {2}).input("x", kFloat, row.x);
    b.node("Scan", {"init", "x"}, {"y", "z"}, "scan0").attr_int("num_scan_inputs", 1).attr_graph("body", Subgraphs::graph(scan_body(sg)));
    if (!row.in_axes.empty()) b.attr_ints("scan_input_axes", row.in_axes);
    if (!row.out_axes.empty()) b.attr_ints("scan_output_axes", row.out_axes);
    b.output("y").output("z");
    RunResult r = run(b, with_hints({{"x", row.hint}}));
    ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
    EXPECT_EQ(shape_of(r, "y"), Strings{"2"});
    EXPECT_EQ(shape_of(r, "z"), row.scan);
  }
}

TEST(ControlFlowScan, Opset8HasABatchDim) {
  Subgraphs sg;
  ModelBuilder b(8);
  b.input("init", kFloat, {"B", 2}).input("x", kFloat, {"B", "T", 2});
  b.node("Scan", {"", "init", "x"}, {"y", "z"}, "scan0").attr_int("num_scan_inputs", 1).attr_graph("body", Subgraphs::graph(scan_body(sg)));
  b.output("y").output("z");
  RunResult r = run(b, with_hints({{"init", {4, 2}}, {"x", {4, 3, 2}}}));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(shape_of(r, "y"), (Strings{"B", "2"}));
  EXPECT_EQ(shape_of(r, "z"), (Strings{"B", "T", "2"}));
}

TEST(ControlFlowScan, StateThatGrowsEndsAffine) {
  // state_out = Concat(state_in, x_t): grows by x_t's length 2 per step.
  Subgraphs sg;
  ModelBuilder& body = sg.make("body");
  body.input("s_in", kFloat, {""}).input("x_t", kFloat, {2});
  body.node("Concat", {"s_in", "x_t"}, {"s_out"}).attr_int("axis", 0).output("s_out");
  ModelBuilder b(16);
  b.input("init", kFloat, {3}).input("x", kFloat, {"T", 2});
  b.node("Scan", {"init", "x"}, {"s"}).attr_int("num_scan_inputs", 1).attr_graph("body", Subgraphs::graph(body));
  b.output("s");
  RunResult r = run(b, with_hints({{"x", {5, 2}}}));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(shape_of(r, "s"), Strings{"2*T + 3"});
}

TEST(ControlFlowSequence, ConstructAtInsertEraseLength) {
  ModelBuilder b;
  b.input("a", kFloat, {2, 3}).input("c", kFloat, {4, 3}).initializer_ints("one", {}, {1}).initializer_ints("m1", {}, {-1});
  b.initializer_ints("zero", {}, {0});
  b.node("SequenceConstruct", {"a", "c"}, {"seq"});
  b.node("SequenceLength", {"seq"}, {"len"});
  b.node("SequenceAt", {"seq", "one"}, {"at1"});
  b.node("SequenceAt", {"seq", "m1"}, {"at_last"});
  b.node("SequenceInsert", {"seq", "a", "zero"}, {"ins_front"});
  b.node("SequenceInsert", {"seq", "c"}, {"ins_back"});
  b.node("SequenceErase", {"seq"}, {"erased"});
  b.node("SequenceErase", {"seq", "zero"}, {"erased_front"});
  b.output("len").output("at1").output("at_last").output("ins_front").output("ins_back").output("erased").output("erased_front");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(shape_of(r, "len"), Strings{});
  EXPECT_EQ(dtype_of(r, "len"), DType::Int64);
  EXPECT_EQ(data_of(r, "len"), Strings{"2"});
  EXPECT_EQ(shape_of(r, "at1"), (Strings{"4", "3"}));
  EXPECT_EQ(shape_of(r, "at_last"), (Strings{"4", "3"}));
  EXPECT_EQ(element_shapes(r, "ins_front"), (std::vector<Strings>{{"2", "3"}, {"2", "3"}, {"4", "3"}}));
  EXPECT_EQ(element_shapes(r, "ins_back"), (std::vector<Strings>{{"2", "3"}, {"4", "3"}, {"4", "3"}}));
  EXPECT_EQ(element_shapes(r, "erased"), (std::vector<Strings>{{"2", "3"}}));
  EXPECT_EQ(element_shapes(r, "erased_front"), (std::vector<Strings>{{"4", "3"}}));
}

TEST(ControlFlowSequence, EmptyAndOutOfRange) {
  ModelBuilder b;
  b.input("a", kFloat, {2}).initializer_ints("five", {}, {5});
  b.node("SequenceEmpty", {}, {"empty"}).attr_int("dtype", kFloat);
  b.node("SequenceLength", {"empty"}, {"n"});
  b.node("SequenceConstruct", {"a"}, {"one"});
  b.node("SequenceAt", {"one", "five"}, {"bad"}, "at_bad");
  b.output("n").output("bad");
  RunResult r = run(b);
  EXPECT_EQ(data_of(r, "n"), Strings{"0"});
  EXPECT_EQ(error_kinds(r), Strings{"index_error"});
}

TEST(ControlFlowSequence, SplitToSequenceAndConcatFromSequence) {
  ModelBuilder b;
  b.input("x", kFloat, {"N", 6}).initializer_ints("two", {}, {2}).initializer_ints("sizes", {2}, {1, 5});
  b.node("SplitToSequence", {"x"}, {"rows"}).attr_int("axis", 0).attr_int("keepdims", 0);
  b.node("SequenceLength", {"rows"}, {"n_rows"});
  b.node("SplitToSequence", {"x", "two"}, {"pairs"}).attr_int("axis", 1);
  b.node("SplitToSequence", {"x", "sizes"}, {"parts"}).attr_int("axis", -1);
  b.node("ConcatFromSequence", {"parts"}, {"joined"}).attr_int("axis", 1);
  b.node("ConcatFromSequence", {"pairs"}, {"stacked"}).attr_int("axis", 0).attr_int("new_axis", 1);
  b.node("ConcatFromSequence", {"rows"}, {"restacked"}).attr_int("axis", 0).attr_int("new_axis", 1);
  b.output("rows").output("n_rows").output("pairs").output("parts").output("joined").output("stacked").output("restacked");
  RunResult r = run(b, with_hints({{"x", {4, 6}}}));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  // N pieces of [6]: a template list of symbolic length.
  EXPECT_EQ(length_of(r, "rows"), "N");
  EXPECT_EQ(element_shapes(r, "rows"), (std::vector<Strings>{{"6"}}));
  EXPECT_EQ(data_of(r, "n_rows"), Strings{"N"});
  EXPECT_EQ(element_shapes(r, "pairs"), (std::vector<Strings>{{"N", "2"}, {"N", "2"}, {"N", "2"}}));
  EXPECT_EQ(element_shapes(r, "parts"), (std::vector<Strings>{{"N", "1"}, {"N", "5"}}));
  EXPECT_EQ(shape_of(r, "joined"), (Strings{"N", "6"}));
  EXPECT_EQ(shape_of(r, "stacked"), (Strings{"3", "N", "2"}));
  EXPECT_EQ(shape_of(r, "restacked"), (Strings{"N", "6"}));
}

TEST(ControlFlowSequence, SplitToSequenceUnevenLastPiece) {
  ModelBuilder b;
  b.input("x", kFloat, {5}).initializer_ints("two", {}, {2});
  b.node("SplitToSequence", {"x", "two"}, {"pieces"});
  b.output("pieces");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(element_shapes(r, "pieces"), (std::vector<Strings>{{"2"}, {"2"}, {"1"}}));
}

TEST(ControlFlowSequenceMap, RunsTheBodyPerElement) {
  Subgraphs sg;
  ModelBuilder& body = sg.make("body");
  body.input("elem", kFloat, {"", 3}).input("bias", kFloat, {3});
  body.node("Shape", {"elem"}, {"shape"}).node("Add", {"elem", "bias"}, {"sum"});
  body.output("shape").output("sum");
  ModelBuilder b;
  b.input("a", kFloat, {"N", 3}).input("c", kFloat, {4, 3}).input("bias", kFloat, {3});
  b.node("SequenceConstruct", {"a", "c"}, {"seq"});
  b.node("SequenceMap", {"seq", "bias"}, {"shapes", "sums"}).attr_graph("body", Subgraphs::graph(body));
  b.output("shapes").output("sums");
  RunResult r = run(b, with_hints({{"a", {2, 3}}}));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  EXPECT_EQ(element_shapes(r, "shapes"), (std::vector<Strings>{{"2"}, {"2"}}));
  EXPECT_EQ(element_shapes(r, "sums"), (std::vector<Strings>{{"N", "3"}, {"4", "3"}}));
  const Value* shapes = output_value(r, "shapes");
  ASSERT_TRUE(shapes && shapes->kind == Value::Kind::List && shapes->list->size() == 2);
  const auto& first = (*shapes->list)[0].tensor->data;
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(r.env->simplify(first->ints[0]).to_python(), "N");
}

void add_typed_optional(ModelBuilder& b, const std::string& out) {
  b.node("Optional", {}, {out});
  Attribute a;
  a.name = "type";
  a.type = Attribute::Type::TypeProto;
  a.rare.get_or_create().tp = std::make_shared<TypeInfo>();
  a.tp()->kind = TypeInfo::Kind::Tensor;
  a.tp()->elem_type = kFloat;
  b.graph().nodes.back().attributes.push_back(a);
}

TEST(ControlFlowOptional, PresenceAndElement) {
  ModelBuilder b(18);
  b.input("x", kFloat, {2, "N"});
  b.node("Optional", {"x"}, {"full"});
  add_typed_optional(b, "empty");
  b.node("OptionalHasElement", {"full"}, {"has_full"});
  b.node("OptionalHasElement", {"empty"}, {"has_empty"});
  b.node("OptionalGetElement", {"full"}, {"elem"});
  b.node("OptionalGetElement", {"empty"}, {"bad"}, "get_empty");
  b.output("has_full").output("has_empty").output("elem").output("bad").output("empty");
  RunResult r = run(b, with_hints({{"x", {2, 5}}}));
  EXPECT_EQ(shape_of(r, "has_full"), Strings{});
  EXPECT_EQ(dtype_of(r, "has_full"), DType::Bool);
  EXPECT_EQ(data_of(r, "has_full"), Strings{"1"});
  EXPECT_EQ(data_of(r, "has_empty"), Strings{"0"});
  EXPECT_EQ(shape_of(r, "elem"), (Strings{"2", "N"}));
  EXPECT_EQ(error_kinds(r), Strings{"empty_optional"});
  // The empty one keeps the type it was declared with.
  const Value* empty = output_value(r, "empty");
  ASSERT_TRUE(empty && empty->is_empty_optional());
  EXPECT_EQ(empty->empty_optional_type(), "optional(tensor(float))");
  EXPECT_EQ(Value::empty_optional("").empty_optional_type(), "");
}

// Optional(x) is of an optional type though it surely holds x: Identity
// keeps that (so -o writes optional(tensor(float))), OptionalGetElement
// drops it, and an If merging it with a plain tensor keeps it.
TEST(ControlFlowOptional, OptionalTypeIsKept) {
  ModelBuilder b(18);
  b.input("x", kFloat, {2, 3});
  b.node("Optional", {"x"}, {"full"});
  b.node("Identity", {"full"}, {"same"});
  b.node("OptionalGetElement", {"same"}, {"elem"});
  b.output("same").output("elem");
  RunResult r = run(b);
  const Value* same = testing::find_value(r, "same");
  const Value* elem = testing::find_value(r, "elem");
  ASSERT_TRUE(same && elem);
  EXPECT_TRUE(same->optional);
  EXPECT_FALSE(same->maybe_none);
  EXPECT_EQ(shape_of(r, "same"), (Strings{"2", "3"}));
  EXPECT_FALSE(elem->optional);
}

TEST(ControlFlowOptional, IfOfEmptyAndFullMayBeEither) {
  Subgraphs sg;
  ModelBuilder& t = sg.make("then");
  t.node("Optional", {"x"}, {"t_opt"}).output("t_opt");
  ModelBuilder& e = sg.make("else");
  add_typed_optional(e, "e_opt");
  e.output("e_opt");
  ModelBuilder b(16);
  b.input("x", kFloat, {3}).input("c", kBool, {});
  b.node("If", {"c"}, {"opt"}).attr_graph("then_branch", Subgraphs::graph(t)).attr_graph("else_branch", Subgraphs::graph(e));
  b.node("OptionalHasElement", {"opt"}, {"has"});
  b.output("opt").output("has");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  const Value* opt = output_value(r, "opt");
  ASSERT_TRUE(opt && opt->is_tensor());
  EXPECT_TRUE(opt->maybe_none);
  EXPECT_EQ(shape_of(r, "has"), Strings{});
  EXPECT_EQ(data_of(r, "has"), Strings{});  // unknown
}

}  // namespace
}  // namespace fakeprop::onnx
