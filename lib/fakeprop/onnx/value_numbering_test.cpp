#include "fakeprop/onnx/value_numbering.h"

#include <gtest/gtest.h>

#include "fakeprop/onnx/model_builder.h"
#include "fakeprop/onnx/model_test_util.h"
#include "fakeprop/util/error.h"

namespace fakeprop::onnx {
namespace {

using namespace testing::dtypes;

std::vector<bool> defined_outside(const Graph& g, const ValueNumbering& names) {
  return names.inputs_and_initializers(g);
}

TEST(ValueNumbering, NumbersEveryNameOnceAndKeepsOmittedSlots) {
  ModelBuilder b;
  b.input("x", kFloat, {2}).weight("w", kFloat, {2});
  b.node("Add", {"x", "w"}, {"y"}, "add");
  b.node("Clip", {"y", "", "w"}, {"z", ""}, "clip");
  b.output("z");
  const Model m = b.build();
  const ValueNumbering names(m.graph);
  EXPECT_EQ(names.size(), 4u);  // x w y z
  const auto in = names.inputs(1);
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(names.name(in[0]), "y");
  EXPECT_EQ(in[1], ValueNumbering::kNone);
  EXPECT_EQ(in[2], names.id("w"));
  const auto out = names.outputs(1);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(names.name(out[0]), "z");
  EXPECT_EQ(out[1], ValueNumbering::kNone);
  EXPECT_TRUE(names.implicit_inputs(0).empty());
  EXPECT_EQ(names.id("nowhere"), ValueNumbering::kNone);
}

// Producers first; among ready nodes, file order.
TEST(ValueNumbering, TopologicalOrderKeepsFileOrderAmongReadyNodes) {
  ModelBuilder b;
  b.input("x", kFloat, {2});
  b.node("Relu", {"b"}, {"c"}, "third");
  b.node("Relu", {"x"}, {"a"}, "first");
  b.node("Relu", {"a"}, {"b"}, "second");
  b.node("Relu", {"x"}, {"d"}, "independent");
  b.output("c");
  const Model m = b.build();
  const ValueNumbering names(m.graph);
  EXPECT_EQ(topological_order(m.graph, names, defined_outside(m.graph, names), "m.onnx"),
            (std::vector<size_t>{1, 3, 2, 0}));
}

// A value a node's subgraph reads from the enclosing graph orders its producer first.
TEST(ValueNumbering, SubgraphReadsAreImplicitInputs) {
  auto branch = std::make_shared<Graph>();
  NamePool pool;  // outlives the run below
  Node n;
  n.op_type = pool.intern("Identity");
  n.name = pool.intern("inner");
  n.inputs = {pool.intern("late")};
  n.outputs = {pool.intern("o")};
  branch->nodes.push_back(n);
  branch->outputs.push_back({"o", {}});
  ModelBuilder b;
  b.input("cond", kBool, {});
  b.node("If", {"cond"}, {"r"}, "if").attr_graph("then_branch", branch).attr_graph("else_branch", branch);
  b.node("Relu", {"cond"}, {"late"}, "producer");
  const Model m = b.build();
  const ValueNumbering names(m.graph);
  ASSERT_EQ(names.implicit_inputs(0).size(), 1u);
  EXPECT_EQ(names.name(names.implicit_inputs(0)[0]), "late");
  EXPECT_EQ(topological_order(m.graph, names, defined_outside(m.graph, names), "m.onnx"),
            (std::vector<size_t>{1, 0}));
}

// An initializer or input with an empty name has no id (nothing can read it).
TEST(ValueNumbering, UnnamedInputsAndInitializersHaveNoId) {
  ModelBuilder b;
  b.input("", kFloat, {2}).input("x", kFloat, {2}).weight("", kFloat, {2});
  b.node("Relu", {"x"}, {"y"}, "relu");
  const Model m = b.build();
  const ValueNumbering names(m.graph);
  EXPECT_EQ(names.size(), 2u);  // x y
  EXPECT_EQ(names.id(""), ValueNumbering::kNone);
  const std::vector<bool> outside = names.inputs_and_initializers(m.graph);
  ASSERT_EQ(outside.size(), 2u);
  EXPECT_TRUE(outside[names.id("x")]);
  EXPECT_FALSE(outside[names.id("y")]);
}

TEST(ValueNumbering, TopologicalOrderRejectsCyclesAndDanglingReads) {
  ModelBuilder cyc;
  cyc.node("Relu", {"b"}, {"a"}, "one").node("Relu", {"a"}, {"b"}, "two");
  const Model c = cyc.build();
  const ValueNumbering cn(c.graph);
  EXPECT_THROW(topological_order(c.graph, cn, defined_outside(c.graph, cn), "c.onnx"), InputError);
  ModelBuilder dang;
  dang.node("Relu", {"ghost"}, {"a"}, "one");
  const Model d = dang.build();
  const ValueNumbering dn(d.graph);
  try {
    topological_order(d.graph, dn, defined_outside(d.graph, dn), "d.onnx");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "d.onnx: node 'one': input 'ghost' is not produced by any node, graph input or initializer");
  }
}

}  // namespace
}  // namespace fakeprop::onnx
