// Limits on hostile inputs (issue 7): node counts in both loaders, JSON
// nesting, the expression-size cap in both interpreters, source-spec regexes.
// The CLI side of each (one clear line, exit code) is in testdata/lit/cli/hostile.test.
#include <gtest/gtest.h>

#include <string>

#include "fakeprop/fx/graph.h"
#include "fakeprop/fx/interpreter.h"
#include "fakeprop/runner/expr_cap.h"
#include "fakeprop/options/source_spec.h"
#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/loader_test_util.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

using onnx::testing::Proto;

template <typename F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

// A model whose main graph holds `n` Identity nodes x -> x1 -> ... -> xn.
std::string identity_chain(int n) {
  Proto graph;
  for (int i = 0; i < n; ++i)
    graph.msg(1, Proto().str(1, i == 0 ? "x" : "x" + std::to_string(i)).str(2, "x" + std::to_string(i + 1)).str(4, "Identity"));
  graph.msg(11, Proto().str(1, "x"));
  return Proto().varint(1, 8).msg(7, graph).msg(8, Proto().varint(2, 17)).bytes();
}

TEST(Limits, OnnxNodeCount) {
  const std::string bytes = identity_chain(5);
  EXPECT_EQ(onnx::parse_model(bytes, "m.onnx", 5).graph.nodes.size(), 5u);
  const std::string error = input_error_of([&] { onnx::parse_model(bytes, "m.onnx", 4); });
  EXPECT_EQ(error.rfind("m.onnx: more than 4 nodes (the node-count limit, at byte offset ", 0), 0u) << error;
  // Nodes of subgraphs count too: an If with one node in each branch is three nodes.
  const Proto branch = Proto().msg(1, Proto().str(1, "x").str(2, "y").str(4, "Identity")).msg(12, Proto().str(1, "y"));
  const Proto if_node = Proto()
                            .str(1, "c")
                            .str(2, "out")
                            .str(4, "If")
                            .msg(5, Proto().str(1, "then_branch").varint(20, 5).msg(6, branch))
                            .msg(5, Proto().str(1, "else_branch").varint(20, 5).msg(6, branch));
  const std::string nested = Proto().varint(1, 8).msg(7, Proto().msg(1, if_node)).bytes();
  EXPECT_NO_THROW(onnx::parse_model(nested, "if.onnx", 3));
  EXPECT_NE(input_error_of([&] { onnx::parse_model(nested, "if.onnx", 2); }).find("more than 2 nodes"), std::string::npos);
}

std::string fx_chain(int n) {
  std::string nodes = R"({"name": "x", "op": "placeholder", "val": {"shape": [2, 3]}})";
  for (int i = 0; i < n; ++i)
    nodes += R"(, {"name": "r)" + std::to_string(i) + R"(", "op": "call_function", "target": "aten.relu.default", "args": [{"node": ")" +
             (i == 0 ? std::string("x") : "r" + std::to_string(i - 1)) + R"("}]})";
  return R"({"format": "fakeprop.fx/1", "symbols": {"s0": {}, "s1": {}}, "nodes": [)" + nodes + "]}";
}

TEST(Limits, FxNodeCountAndNesting) {
  const std::string text = fx_chain(3);  // four nodes; the two symbol objects do not count
  EXPECT_EQ(fx::parse_graph(text, "g.json", 4).nodes.size(), 4u);
  EXPECT_EQ(input_error_of([&] { fx::parse_graph(text, "g.json", 3); }), "g.json: more than 3 nodes (the node-count limit)");

  // Deep nesting stops while parsing, in an argument or anywhere else.
  const std::string deep_arg = R"({"nodes": [{"name": "a", "op": "output", "args": [)" + std::string(200000, '[') +
                               std::string(200000, ']') + "]}]}";
  EXPECT_EQ(input_error_of([&] { fx::parse_graph(deep_arg, "d.json"); }), "d.json: JSON nested deeper than 100 levels");
  // Not even well-formed (keys missing): the depth check comes first.
  const std::string deep_object = std::string(100000, '[');
  EXPECT_EQ(input_error_of([&] { fx::parse_graph(deep_object, "o.json"); }), "o.json: JSON nested deeper than 100 levels");
  // 64 levels of argument lists are accepted (the argument limit), 65 are refused.
  auto nested_args = [](int depth) {
    return R"({"nodes": [{"name": "a", "op": "output", "args": [)" + std::string(static_cast<size_t>(depth), '[') + "1" +
           std::string(static_cast<size_t>(depth), ']') + "]}]}";
  };
  EXPECT_NO_THROW(fx::parse_graph(nested_args(64), "n.json"));
  EXPECT_EQ(input_error_of([&] { fx::parse_graph(nested_args(65), "n.json"); }),
            "n.json: node 'a': arguments nested deeper than 64 levels");
  // Values of the wrong JSON type are input errors, not internal ones.
  EXPECT_EQ(input_error_of([&] { fx::parse_graph(R"({"nodes": [], "symbols": {"s0": {"range": ["a", 3]}}})", "r.json"); }),
            "r.json: range of symbol 's0' must hold integers or null");
}

// n -> n//2 + n//3 repeated: as a tree the expression doubles each step.
ExprRef grown(ExprRef n, int steps) {
  for (int k = 0; k < steps; ++k) n = add(floordiv(n, integer(2)), floordiv(n, integer(3)));
  return n;
}

TEST(Limits, BoundedExprSizeStopsAtTheCap) {
  const ExprRef s = symbol("cap_s");
  EXPECT_EQ(bounded_expr_size(s, 10), 1u);
  const ExprRef small = add(floordiv(s, integer(2)), floordiv(s, integer(3)));
  EXPECT_EQ(bounded_expr_size(small, 1000), expr_size(small));
  // 60 doublings: about 2^60 nodes as a tree; the count stops just past the cap.
  const ExprRef huge = grown(s, 60);
  EXPECT_EQ(bounded_expr_size(huge, 2000), 2001u);
}

TEST(Limits, CapReplacesLargeOutputExpressions) {
  ShapeEnv env;
  const ExprRef s = env.create_named_symbol("cap_n", 100, ValueRange{2, kIntOo}, "L['x'].size()[0]");
  const SymInt big(grown(s, 20));
  const SymInt small(grown(s, 2));
  TensorValue t;
  t.meta.sizes = {big, small, big};
  t.meta.strides = {1, 1, 1};
  std::vector<Value> outs{Value::of_tensor(t), Value::of_int(big)};
  std::vector<ErrorRecord> warnings;
  EXPECT_EQ(cap_expression_size(outs, env, 2000, "grow", warnings), 3u);
  const auto& sizes = outs[0].tensor->meta.sizes;
  ASSERT_TRUE(sizes[0].is_symbolic());
  EXPECT_TRUE(sizes[0].expr()->is_symbol());
  EXPECT_EQ(sizes[0].expr()->name().rfind("u", 0), 0u) << "a fresh unbacked symbol";
  EXPECT_TRUE(sizes[0].same(sizes[2])) << "one symbol per distinct expression";
  EXPECT_TRUE(sizes[1].same(small)) << "small expressions stay";
  EXPECT_TRUE(outs[1].i.same(sizes[0]));
  EXPECT_TRUE(env.info(sizes[0].expr()).unbacked);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].node, "grow");
  EXPECT_EQ(warnings[0].kind, ErrorKind::ExpressionTooLarge);
  EXPECT_NE(warnings[0].message.find("past 2000 operations"), std::string::npos) << warnings[0].message;
  // Nothing to replace: no warning. A cap of 0 disables the check.
  std::vector<Value> fine{Value::of_int(small)};
  EXPECT_EQ(cap_expression_size(fine, env, 2000, "ok", warnings), 0u);
  std::vector<Value> off{Value::of_int(big)};
  EXPECT_EQ(cap_expression_size(off, env, 0, "off", warnings), 0u);
  EXPECT_EQ(warnings.size(), 1u);
}

// The hook in the FX interpreter: a SymInt chain that doubles, capped at 50.
TEST(Limits, FxInterpreterCapsGrowingSymInts) {
  std::string nodes = R"({"name": "x", "op": "placeholder", "target": "x", "val": {"shape": ["s0"]}},
                         {"name": "n0", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]})";
  for (int k = 1; k <= 8; ++k) {
    const std::string prev = "n" + std::to_string(k - 1), ks = std::to_string(k);
    nodes += R"(, {"name": "h)" + ks + R"(", "op": "call_function", "target": "operator.floordiv", "args": [{"node": ")" + prev + R"("}, 2]})";
    nodes += R"(, {"name": "t)" + ks + R"(", "op": "call_function", "target": "operator.floordiv", "args": [{"node": ")" + prev + R"("}, 3]})";
    nodes += R"(, {"name": "n)" + ks + R"(", "op": "call_function", "target": "operator.add", "args": [{"node": "h)" + ks +
             R"("}, {"node": "t)" + ks + R"("}]})";
  }
  const fx::Graph g = fx::parse_graph(R"({"symbols": {"s0": {"hint": 1000}}, "nodes": [)" + nodes + "]}", "grow.json");
  InferOptions options;
  options.max_expr_nodes = 50;
  const RunResult r = fx::run_graph(g, options);
  ASSERT_FALSE(r.warnings.empty());
  const ErrorRecord& w = r.warnings.front();
  EXPECT_EQ(w.kind, ErrorKind::ExpressionTooLarge);
  // The first node whose output passed 50 operations.
  size_t first = 0;
  for (size_t i = 0; i < r.nodes.size(); ++i)
    if (r.nodes[i].name == w.node) first = i;
  ASSERT_GT(first, 0u);
  const Value& capped = r.nodes[first].outputs[0].val;
  ASSERT_EQ(capped.kind, Value::Kind::Int);
  ASSERT_TRUE(capped.i.is_symbolic());
  EXPECT_TRUE(capped.i.expr()->is_symbol()) << capped.i.to_python();
  ASSERT_EQ(r.nodes[first].unbacked_bindings.size(), 1u);
  EXPECT_EQ(r.nodes[first].unbacked_bindings[0].first, capped.i.expr()->name());
  // The node before it is under the cap and kept its expression.
  const Value& before = r.nodes[first - 1].outputs[0].val;
  ASSERT_TRUE(before.i.is_symbolic());
  EXPECT_LE(bounded_expr_size(before.i.expr(), 50), 50u);
  EXPECT_FALSE(before.i.expr()->is_symbol());
  // Without the cap nothing is replaced.
  options.max_expr_nodes = 0;
  EXPECT_TRUE(fx::run_graph(g, options).warnings.empty());
}

TEST(Limits, SourceSpecRegexesAreBounded) {
  SourceSpecs specs;
  // Catastrophic backtracking for a backtracking matcher; linear here.
  specs.add(DimMark::Dynamic, "L\\['(a*)*b");
  const std::string name = "L['" + std::string(3000, 'a') + "']";
  EXPECT_EQ(specs.classify(name, 0), DimMark::Unmarked);
  EXPECT_EQ(specs.classify(name.substr(0, 20) + "b']", 0), DimMark::Dynamic);
  // A regex against a name over 4096 characters is refused; the exact name still matches.
  const std::string long_name = "L['" + std::string(5000, 'a') + "']";
  const std::string error = input_error_of([&] { specs.classify(long_name, 0); });
  EXPECT_NE(error.find("characters; regular expressions are matched against names of at most 4096"), std::string::npos)
      << error;
  SourceSpecs exact;
  exact.add(DimMark::Static, long_name);
  EXPECT_EQ(exact.classify(long_name, 1), DimMark::Static);
  // Nested counted repetitions would compile to millions of states.
  SourceSpecs counted;
  EXPECT_NE(input_error_of([&] { counted.add(DimMark::Dynamic, "((a{1000}){1000}){1000}"); })
                .find("counted repetitions ({n}) multiply to more than 10000"),
            std::string::npos);
  EXPECT_NO_THROW(counted.add(DimMark::Dynamic, "L\\['x{3}'\\]"));  // (a comma would split the list)
  EXPECT_EQ(counted.classify("L['xxx']", 0), DimMark::Dynamic);
  // Back-references are not regexes here (polynomial matching): the entry is an exact name.
  SourceSpecs backref;
  backref.add(DimMark::Dynamic, "(L)\\1");
  EXPECT_EQ(backref.classify("LL", 0), DimMark::Unmarked);
  // A back-reference number past 64 bits (a fuzz finding: libstdc++ overflowed reading it).
  const std::string huge = "(L)\\" + std::string(40, '6');
  backref.add(DimMark::Dynamic, huge);
  EXPECT_EQ(backref.classify(huge, 0), DimMark::Dynamic);
  EXPECT_EQ(backref.classify("L" + std::string(40, '6'), 0), DimMark::Unmarked);
  // An escaped backslash before a digit is no back-reference.
  SourceSpecs escaped;
  escaped.add(DimMark::Dynamic, "L\\\\1");
  EXPECT_EQ(escaped.classify("L\\1", 0), DimMark::Dynamic);
}

}  // namespace
}  // namespace fakeprop
