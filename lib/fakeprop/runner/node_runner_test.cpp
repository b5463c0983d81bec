// The NodeRunner on its own, with steps written here: what each kind of
// failure becomes, what a failed node's outputs are, and what every node's
// record holds, independent of either front end.
#include "fakeprop/runner/node_runner.h"

#include <gtest/gtest.h>

#include <functional>
#include <new>
#include <vector>

namespace fakeprop {
namespace {

// A step whose rule and fallback are given as functions.
class TestStep final : public NodeStep {
 public:
  std::function<void(std::vector<Value>&)> rule;
  std::string fallback_why;  // what fallback() was told, "" when not called
  std::vector<std::string> described;

  void describe_inputs(std::vector<std::string>& lines) const override {
    lines.insert(lines.end(), described.begin(), described.end());
  }
  void run(std::vector<Value>& outputs) override { rule(outputs); }
  void fallback(std::vector<Value>& outputs, const std::string& why, bool) override {
    fallback_why = why;
    outputs.push_back(Value::of_opaque("fell back"));
  }
};

TensorValue tensor_of(SymShape sizes) {
  TensorValue t;
  t.meta.strides = contiguous_strides(sizes);
  t.meta.sizes = std::move(sizes);
  return t;
}

struct Fixture {
  InferOptions options;
  RunResult result = begin_run("onnx", "model.onnx", options);
  NodeRunner runner{result, options};
  NamePool names;

  NodeRecord& run(std::string_view node, TestStep& step, std::vector<Name> outputs = {}) {
    if (outputs.empty()) outputs.push_back(names.intern(std::string(node) + "_out"));
    return runner.run(names.intern(node), names.intern("Op"), outputs, step);
  }
};

TEST(BeginRun, SetsUpTheResultAndItsShapeEnv) {
  InferOptions options;
  options.device = *Device::parse("cuda:1");
  options.settings.specialize_zero_one = false;
  const RunResult r = begin_run("fx", "graph.json", options);
  EXPECT_EQ(r.model_kind, "fx");
  EXPECT_EQ(r.model_path, "graph.json");
  EXPECT_EQ(r.device.str(), "cuda:1");
  ASSERT_NE(r.env, nullptr);
  EXPECT_FALSE(r.env->settings().specialize_zero_one);
}

TEST(NodeRunner, RecordsOutputsByNameAndSkipsAbsentOnes) {
  Fixture f;
  TestStep step;
  step.rule = [](std::vector<Value>& out) {
    out.push_back(Value::of_tensor(tensor_of({SymInt(2)})));
    out.push_back(Value::none());
    out.push_back(Value::of_int(SymInt(7)));
  };
  const NodeRecord& rec = f.run("n", step, {f.names.intern("a"), Name(), f.names.intern("c")});
  ASSERT_EQ(rec.outputs.size(), 2u);
  EXPECT_EQ(rec.outputs[0].name, "a");
  EXPECT_EQ(rec.outputs[1].name, "c");
  EXPECT_EQ(rec.name, "n");
  EXPECT_EQ(rec.op, "Op");
  EXPECT_TRUE(f.result.errors.empty());
  EXPECT_TRUE(step.fallback_why.empty());
}

TEST(NodeRunner, EachFailureKindBecomesAnErrorOnTheNodeAndTheFallback) {
  struct Case {
    std::function<void()> thrower;
    ErrorKind kind;
    std::string why;
  };
  const std::vector<Case> cases = {
      {[] { throw OpError(ErrorKind::ShapeMismatch, "2 != 3"); }, ErrorKind::ShapeMismatch,
       "shape_mismatch at node 'n': 2 != 3"},
      {[] { throw OpError(ErrorKind::UnsupportedOp, "no shape rule for operator Op"); }, ErrorKind::UnsupportedOp,
       "unsupported operator Op"},
      {[] { throw OverflowError("integer overflow in 2 * 4611686018427387904"); }, ErrorKind::Overflow,
       "overflow at node 'n'"},
      {[] { throw DataDependentError("could not guard on u0 == 1", nullptr, {"torch._check(u0 == 1)"}); },
       ErrorKind::DataDependent, "data-dependent decision at node 'n'"},
      {[] { throw Error("something else"); }, ErrorKind::Error, "error at node 'n': something else"},
      // A rule's bug: a standard library check (vector::at) fails the node, not the run.
      {[] { (void)std::vector<int>{1}.at(1); }, ErrorKind::Internal, "internal error at node 'n'"},
  };
  for (const Case& c : cases) {
    Fixture f;
    TestStep step;
    step.rule = [&](std::vector<Value>&) { c.thrower(); };
    const NodeRecord& rec = f.run("n", step);
    ASSERT_EQ(f.result.errors.size(), 1u) << error_kind_name(c.kind);
    EXPECT_EQ(f.result.errors[0].node, "n");
    EXPECT_EQ(f.result.errors[0].kind, c.kind);
    EXPECT_EQ(step.fallback_why, c.why);
    ASSERT_EQ(rec.outputs.size(), 1u);
    EXPECT_EQ(rec.outputs[0].val.opaque_text(), "fell back");
    if (c.kind == ErrorKind::DataDependent) {
      ASSERT_EQ(f.result.errors[0].fixes.size(), 1u);
      EXPECT_EQ(f.result.errors[0].fixes[0], "torch._check(u0 == 1)");
    }
  }
}

TEST(NodeRunner, InputErrorsAndFailuresOfUnrecoverableStepsEndTheRun) {
  Fixture f;
  TestStep step;
  step.rule = [](std::vector<Value>&) { throw InputError("bad input"); };
  EXPECT_THROW(f.run("n", step), InputError);
  TestStep leaf;
  leaf.recoverable = false;
  leaf.rule = [](std::vector<Value>&) { throw OverflowError("overflow"); };
  EXPECT_THROW(f.run("x", leaf), OverflowError);
  TestStep hungry;  // out of memory is no node's failure
  hungry.rule = [](std::vector<Value>&) { throw std::bad_alloc(); };
  EXPECT_THROW(f.run("m", hungry), std::bad_alloc);
  EXPECT_TRUE(f.result.errors.empty());
}

TEST(NodeRunner, BindsTheUnbackedSymbolsANodeCreated) {
  Fixture f;
  TestStep step;
  step.rule = [&](std::vector<Value>& out) {
    const ExprRef u = f.result.env->create_unbacked_symint(true);
    out.push_back(Value::of_tensor(tensor_of({SymInt(3), SymInt(u)})));
  };
  const NodeRecord& rec = f.run("nonzero", step);
  ASSERT_EQ(rec.unbacked_bindings.size(), 1u);
  EXPECT_EQ(rec.unbacked_bindings[0].first, "u0");
  EXPECT_EQ(rec.unbacked_bindings[0].second, ".size()[1]");
  // A symbol the failed rule made before it threw is bound to the node too.
  TestStep failing;
  failing.rule = [&](std::vector<Value>&) {
    f.result.env->create_unbacked_symint(true);
    throw OpError(ErrorKind::InvalidArgument, "no");
  };
  const NodeRecord& failed = f.run("failing", failing);
  ASSERT_EQ(failed.unbacked_bindings.size(), 1u);
  EXPECT_EQ(failed.unbacked_bindings[0].first, "u1");
}

TEST(NodeRunner, CapsOversizedOutputsUnlessReused) {
  auto big = [] {
    ExprRef s = symbol("s0");
    ExprRef e = s;
    for (int i = 0; i < 12; ++i) e = add(floordiv(e, integer(2)), floordiv(e, integer(3)));
    return SymInt(e);
  };
  for (const bool reused : {false, true}) {
    Fixture f;
    f.options.max_expr_nodes = 50;
    TestStep step;
    step.rule = [&](std::vector<Value>& out) {
      out.push_back(Value::of_int(big()));
      step.reused = reused;
    };
    const NodeRecord& rec = f.run("n", step);
    ASSERT_EQ(rec.outputs.size(), 1u);
    if (reused) {
      EXPECT_TRUE(f.result.warnings.empty());
    } else {
      ASSERT_EQ(f.result.warnings.size(), 1u);
      EXPECT_EQ(f.result.warnings[0].kind, ErrorKind::ExpressionTooLarge);
      EXPECT_EQ(rec.outputs[0].val.i.to_python(), "u0");
    }
  }
}

TEST(NodeRunner, CapsOversizedSymFloatsWithAnUnbackedFloat) {
  Fixture f;
  f.options.max_expr_nodes = 50;
  TestStep step;
  step.rule = [&](std::vector<Value>& out) {
    ExprRef e = to_float(symbol("s0"));
    for (int i = 0; i < 30; ++i) e = float_add(float_mul(float_const(0.5), e), float_const(1.0 + i));
    out.push_back(Value::of_symfloat(e));
  };
  const NodeRecord& rec = f.run("n", step);
  ASSERT_EQ(f.result.warnings.size(), 1u);
  EXPECT_EQ(f.result.warnings[0].kind, ErrorKind::ExpressionTooLarge);
  ASSERT_TRUE(rec.outputs[0].val.is_symbolic_float());
  EXPECT_EQ(to_sympy_string(rec.outputs[0].val.float_expr), "zuf0");
  EXPECT_TRUE(f.result.env->info(rec.outputs[0].val.float_expr).is_float);
}

TEST(NodeRunner, TheCausalChainNamesTheOpAndTheInputs) {
  InferOptions options;
  options.explain_symbols = {"u0"};
  RunResult result = begin_run("onnx", "m.onnx", options);
  ASSERT_TRUE(result.env->extended_debug_enabled());
  NodeRunner runner(result, options);
  NamePool names;
  TestStep step;
  step.described = {"input x: float32[2]"};
  std::vector<std::string> seen;
  step.rule = [&](std::vector<Value>& out) {
    seen = result.env->node_context();
    out.push_back(Value::none());
  };
  const Name out = names.intern("y");
  runner.run(names.intern("n"), names.intern("Relu"), {&out, 1}, step);
  EXPECT_EQ(seen, (std::vector<std::string>{"op Relu", "input x: float32[2]"}));
}

TEST(CheckedInputSources, RefusesAnInputHintForNoInput) {
  InferOptions options;
  options.input_hints["c"] = {1, 2};
  const std::vector<std::string> names = {"a", "b"};
  try {
    checked_input_sources(options, names);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--input c: the model has no such input; the inputs are: L['a'], L['b']");
  }
  options.input_hints.clear();
  options.input_hints["b"] = {4};
  EXPECT_EQ(checked_input_sources(options, names), (std::vector<std::string>{"L['a']", "L['b']"}));
}

}  // namespace
}  // namespace fakeprop
