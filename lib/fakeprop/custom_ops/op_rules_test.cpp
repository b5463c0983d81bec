#include "fakeprop/custom_ops/op_rules.h"

#include <gtest/gtest.h>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/tensor/tensor_meta.h"

namespace fakeprop::custom_ops {
namespace {

// A rules file's first rule run on tensor inputs of the given sizes.
class OpRulesTest : public ::testing::Test {
 protected:
  const OpRule& rule(const std::string& text) {
    set_.add(text, "rules.txt");
    return set_.rules().back();
  }

  Value tensor(SymShape sizes, DType dtype = DType::Float32) {
    TensorValue t;
    t.meta.strides = contiguous_strides(sizes, &env_);
    t.meta.sizes = std::move(sizes);
    t.meta.dtype = dtype;
    t.meta.storage = storage_.next();
    return Value::of_tensor(std::move(t));
  }

  std::vector<Value> run(const OpRule& r, std::vector<Value> inputs,
                         std::map<std::string, Value, std::less<>> named = {}) {
    inputs_ = std::move(inputs);
    pointers_.clear();
    for (const Value& v : inputs_) pointers_.push_back(&v);
    OpRuleCall call;
    call.inputs = pointers_;
    call.named = [named](std::string_view n) -> std::optional<Value> {
      if (auto it = named.find(n); it != named.end()) return it->second;
      return std::nullopt;
    };
    RuleContext ctx(env_, storage_, options_);
    return run_op_rule(r, call, ctx);
  }

  static std::string shape(const Value& v) {
    std::string s;
    for (const SymInt& d : v.tensor->meta.sizes) s += (s.empty() ? "" : ", ") + d.to_python();
    return "[" + s + "]";
  }

  OpRuleSet set_;
  ShapeEnv env_;
  StorageIds storage_;
  InferOptions options_;
  std::vector<Value> inputs_;
  std::vector<const Value*> pointers_;
};

// A rules file that add() refuses with exactly `message`, adding no rule.
void expect_refused(const std::string& text, const char* message) {
  OpRuleSet set;
  try {
    set.add(text, "r.txt");
    ADD_FAILURE() << text;
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), message) << text;
  }
  EXPECT_TRUE(set.rules().empty()) << "a file that fails adds no rule";
}

TEST_F(OpRulesTest, ShapeExpressions) {
  const SymInt b = env_.create_symbol(6, "L['x'].size()[0]");
  struct Case {
    const char* shape;
    const char* want;
  } cases[] = {
      {"x.shape", "[s77, 8]"},
      {"x.shape[:-1] + [w.shape[0]]", "[s77, 4]"},
      {"[x.shape[0] * 2, x.shape[-1] // 2]", "[2*s77, 4]"},
      {"[max(1, x.shape[0] - 7), min(x.shape), x.numel, x.ndim, len(x.shape[1:])]", "[max(1, s77 - 7), min(8, s77), 8*s77, 2, 1]"},
      {"[x.shape[0] % 4 + reps, -(-x.shape[0] // 4)]", "[s77 % 4 + 3, -((-s77)//4)]"},
      {"x.shape[5:]", "[]"},
  };
  for (const Case& c : cases) {
    OpRuleSet set;
    set.add(std::string("fx mylib::op.default\n inputs x, w\n attr reps = 3\n output dtype=x shape=") + c.shape + "\n",
            "rules.txt");
    OpRuleCall call;
    const Value x = tensor({b, 8}), w = tensor({4, 8});
    const Value* ins[] = {&x, &w};
    call.inputs = ins;
    RuleContext ctx(env_, storage_, options_);
    const std::vector<Value> out = run_op_rule(set.rules()[0], call, ctx);
    ASSERT_EQ(out.size(), 1u) << c.shape;
    EXPECT_EQ(shape(out[0]), c.want) << c.shape;
  }
}

TEST_F(OpRulesTest, DtypesStridesViewsAndNamedValues) {
  const OpRule& r = rule(
      "fx mylib::op\n inputs x, y\n attr k\n"
      " output dtype=promote(x, y) shape=[x.shape[0], k] stride=[1, x.shape[0]]\n"
      " output dtype=x shape=x.shape view=y offset=k\n"
      " output dtype=int32 shape=y.shape stride=like(y)\n");
  const std::vector<Value> out = run(r, {tensor({5, 3}, DType::Float16), tensor({5, 3}, DType::Float32)},
                                     {{"k", Value::of_int(SymInt(3))}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].tensor->meta.dtype, DType::Float32);
  EXPECT_EQ(shape(out[0]), "[5, 3]");
  EXPECT_EQ(out[0].tensor->meta.strides[1].value(), 5);
  EXPECT_EQ(out[1].tensor->meta.storage, inputs_[1].tensor->meta.storage);  // a view of y
  EXPECT_EQ(out[1].tensor->meta.storage_offset.value(), 3);
  EXPECT_NE(out[2].tensor->meta.storage, inputs_[1].tensor->meta.storage);
  EXPECT_EQ(out[2].tensor->meta.dtype, DType::Int32);
  EXPECT_NE(set_.find_fx("mylib.op.default"), nullptr);
}

TEST_F(OpRulesTest, RequirementsGoThroughTheShapeEnv) {
  const OpRule& r = rule("fx mylib::op.default\n inputs x, w\n require x.shape[-1] == w.shape[0]\n"
                         " output dtype=x shape=x.shape\n");
  const SymInt k = env_.create_symbol(8, "L['x'].size()[1]", DimDynamic::Dynamic);
  const SymInt n = env_.create_symbol(8, "L['w'].size()[0]", DimDynamic::Dynamic);
  run(r, {tensor({2, k}), tensor({n})});
  ASSERT_EQ(env_.guards().size(), 1u);  // decided at the hints: a guard
  EXPECT_EQ(env_.guards()[0].rule, "rules.txt:3");
  try {
    run(r, {tensor({2, 8}), tensor({4})});
    ADD_FAILURE() << "a false requirement must fail";
  } catch (const OpError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::AssertionError);
    EXPECT_STREQ(e.what(), "rules.txt:3: requirement failed: x.shape[-1] == w.shape[0]");
  }
  // On unbacked sizes it is a runtime assert.
  const SymInt u(env_.create_unbacked_symint(true));
  run(r, {tensor({2, u}), tensor({8})});
  EXPECT_EQ(env_.runtime_asserts().size(), 1u);
}

TEST_F(OpRulesTest, UnbackedSizesGetTheirRange) {
  const OpRule& r = rule("fx mylib::op.default\n inputs x\n unbacked n min=1 max=x.numel\n"
                         " output dtype=int64 shape=[n, x.ndim]\n");
  const std::vector<Value> out = run(r, {tensor({4, 5})});
  const SymInt d = out[0].tensor->meta.sizes[0];
  ASSERT_FALSE(d.is_static());
  EXPECT_EQ(env_.info(d.expr()).range, (ValueRange{1, 20}));
  EXPECT_TRUE(env_.info(d.expr()).unbacked);
}

TEST_F(OpRulesTest, RunTimeMistakesAreOpErrors) {
  struct Case {
    const char* clause;
    ErrorKind kind;
    const char* message;
  } cases[] = {
      {"output dtype=x shape=[x.shape[3]]", ErrorKind::InvalidArgument, "index 3 is out of range for a list of 2"},
      {"output dtype=x shape=x.shape[0]", ErrorKind::InvalidShape, "rules.txt:1: shape= needs a list such as [x.shape[0], 4]"},
      {"output dtype=x shape=[x.shape[0] // 0]", ErrorKind::DivisionByZero, "division by zero"},
      {"output dtype=x shape=[k]", ErrorKind::MissingAttribute, "rules.txt:1: attribute 'k' is absent"},
      {"output dtype=x shape=[x.shape[0] - 9]", ErrorKind::InvalidShape, "rules.txt:1: a size of the output is negative"},
  };
  for (const Case& c : cases) {
    OpRuleSet set;
    set.add(std::string("fx mylib::op.default\n inputs x\n attr k\n ") + c.clause + "\n", "rules.txt");
    const Value x = tensor({4, 5});
    const Value* ins[] = {&x};
    OpRuleCall call;
    call.inputs = ins;
    RuleContext ctx(env_, storage_, options_);
    try {
      run_op_rule(set.rules()[0], call, ctx);
      ADD_FAILURE() << c.clause;
    } catch (const OpError& e) {
      EXPECT_EQ(e.kind(), c.kind) << c.clause;
      EXPECT_STREQ(e.what(), c.message) << c.clause;
    }
  }
}

TEST(OpRuleFile, ProblemsNameTheLineAndColumn) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"fx mylib::a\n inputs x\n output dtype=x shape=[y.shape[0]]\n", "r.txt:3:24: unknown input 'y'"},
      {"fx mylib::a\n inputs x\n output dtype=x shape=[n]\n", "r.txt:3:24: unknown name 'n'"},
      {"fx mylib::a\n inputs x\n output dtype=x shape=[attr.k]\n", "r.txt:3:29: unknown attribute 'k'"},
      {"fx mylib::a\n inputs x\n output dtype=x shape=[x.shape[i]]\n",
       "r.txt:3:32: an index is an integer literal, such as [0] or [-1]"},
      {"fx mylib::a\n inputs x\n output dtype=x\n", "r.txt:3:16: an output needs dtype= and shape="},
      {"fx mylib::a\n inputs x, x\n output dtype=x shape=x.shape\n", "r.txt:2:12: input 'x' named twice"},
      {"fx mylib::a\n inputs x\n output dtype=x shape=x.shape\n inputs y\n",
       "r.txt:4:2: 'inputs' comes once, before the rule's other clauses"},
      {"fx a\n", "r.txt:1:4: an FX target names its namespace: mylib::op or mylib::op.overload"},
      {"onnx com.x::Op opset 5..3\n", "r.txt:1:22: an empty opset range"},
      {"onnx com.x::Op\n inputs x\n frobnicate\n",
       "r.txt:3:2: unknown clause 'frobnicate' (inputs, attr, require, unbacked, output, or a new 'fx'/'onnx' rule)"},
      {"fx mylib::a\n inputs x\n require x.shape[0] $ 2\n", "r.txt:3:21: unexpected character '$'"},
      {"fx mylib::a\n inputs x\n output dtype=x shape=x.shape view=z\n", "r.txt:3:36: view= names an input"},
  };
  const std::string deep = "fx mylib::a\n inputs x\n require " + std::string(300, '(') + "1" + std::string(300, ')') + "\n";
  const std::string long_line = "fx mylib::a\n inputs x\n require " + std::string(5000, ' ') + "1\n";
  for (const auto& [text, message] : {std::pair{deep, "r.txt:3:210: nested deeper than 200 levels"},
                                      std::pair{long_line, "r.txt:3:1: a line longer than 4096 characters"}}) {
    OpRuleSet set;
    EXPECT_THROW(
        {
          try {
            set.add(text, "r.txt");
          } catch (const InputError& e) {
            EXPECT_STREQ(e.what(), message);
            throw;
          }
        },
        InputError);
  }
  for (const Case& c : cases) expect_refused(c.text, c.message);
}

TEST(OpRuleFile, LookupByTargetPacketDomainAndOpset) {
  OpRuleSet set;
  set.add("fx mylib::a\n inputs x\n output dtype=x shape=x.shape\n"
          "fx mylib::a.out override\n inputs x\n output dtype=x shape=x.shape\n"
          "onnx ai.onnx::Relu opset ..12 override\n inputs x\n output dtype=x shape=x.shape\n"
          "onnx com.acme::Op opset 7..\n inputs x\n output dtype=x shape=x.shape\n",
          "r.txt");
  EXPECT_EQ(set.find_fx("mylib.a.default")->where, "r.txt:1");  // the packet serves every overload
  EXPECT_EQ(set.find_fx("mylib.a.out")->where, "r.txt:4");       // unless an overload has its own
  EXPECT_TRUE(set.find_fx("mylib.a.out")->overrides);
  EXPECT_EQ(set.find_fx("mylib.ab.default"), nullptr);
  EXPECT_EQ(set.find_fx("mylib.a.default.x"), nullptr);
  EXPECT_NE(set.find_onnx("", "Relu", 12), nullptr);
  EXPECT_EQ(set.find_onnx("", "Relu", 13), nullptr);
  EXPECT_EQ(set.find_onnx("com.acme", "Op", 6), nullptr);
  EXPECT_NE(set.find_onnx("com.acme", "Op", 21), nullptr);
  OpRuleSet same;
  same.add("fx mylib::a\n inputs x\n output dtype=x shape=x.shape\n", "elsewhere.txt");
  OpRuleSet other;
  other.add("fx mylib::a\n inputs y\n output dtype=y shape=y.shape\n", "r.txt");
  EXPECT_EQ(same.digest().size(), 32u);
  EXPECT_NE(same.digest(), other.digest());
}

// A header with torch.library's schema: every argument is a name, bound
// from positions, keywords or the defaults; no `inputs` clause.
TEST_F(OpRulesTest, SchemaArgumentsAreNamesWithDefaults) {
  const OpRule& r = rule(
      "fx mylib::pick_rows(Tensor x, Tensor mask, int k=2, int[] dims=[1, 2], *, bool flag=False, "
      "float p=0.5, Tensor? bias=None) -> (Tensor, Tensor)  # as str(op._schema)\n"
      " require k > 0 and not flag and p < 1 and p > 0\n"
      " output dtype=x shape=[x.shape[0] * k] + dims\n"
      " output dtype=mask shape=[mask.shape[0], len(dims)]\n");
  ASSERT_NE(r.schema, nullptr);
  EXPECT_EQ(r.key, "mylib.pick_rows");
  EXPECT_TRUE(r.inputs.empty());
  std::vector<Value> out = run(r, {tensor({3, 4}), tensor({3}, DType::Bool)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(shape(out[0]), "[6, 1, 2]");
  EXPECT_EQ(out[1].tensor->meta.dtype, DType::Bool);
  // k by position, dims and p by keyword.
  ValueList dims;
  dims.push_back(Value::of_int(SymInt(7)));
  out = run(r, {tensor({3, 4}), tensor({3}, DType::Bool), Value::of_int(SymInt(5))},
            {{"dims", Value::of_list(std::move(dims))}, {"p", Value::of_float(0.25)}});
  EXPECT_EQ(shape(out[0]), "[15, 7]");
  EXPECT_EQ(shape(out[1]), "[3, 1]");
  try {
    run(r, {tensor({3, 4}), tensor({3}, DType::Bool)}, {{"p", Value::of_float(1.5)}});
    ADD_FAILURE() << "p < 1 must fail";
  } catch (const OpError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::AssertionError);
  }
  // A None tensor is absent when read.
  const OpRule& b = rule("fx mylib::b(Tensor x, Tensor? bias=None) -> Tensor override\n"
                         " output dtype=x shape=bias.shape\n");
  EXPECT_TRUE(b.overrides);
  try {
    run(b, {tensor({3})});
    ADD_FAILURE() << "an absent bias";
  } catch (const OpError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::MissingInput);
    EXPECT_STREQ(e.what(), "rules.txt:1: argument 'bias' is absent (None)");
  }
  // torch's own spellings parse: an overload name, alias annotations, quoted defaults.
  const OpRule& c = rule("fx mylib::c.out(Tensor(a!) x, str mode=\"a#b\", SymInt[2] size=1) -> Tensor(a!)\n"
                         " inputs x\n output dtype=x shape=size\n");
  EXPECT_EQ(c.key, "mylib.c.out");
  EXPECT_EQ(shape(run(c, {tensor({3})})[0]), "[1, 1]");
}

TEST(OpRuleFile, SchemaProblemsNameTheLineAndColumn) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"fx mylib::a(Tensor x, int k=) -> Tensor\n output dtype=x shape=x.shape\n",
       "r.txt:1:12: the schema does not parse: an empty default: int k="},
      {"fx mylib::a(Tensor x, int k -> Tensor\n", "r.txt:1:12: the schema does not parse: unbalanced brackets in schema: mylib::a(Tensor x, int k -> Tensor"},
      {"fx mylib::a(Tensor x)\n", "r.txt:1:22: a schema ends with its returns: -> Tensor"},
      {"fx mylib::a(Tensor x, Widget w) -> Tensor\n", "r.txt:1:30: argument 'w' has a type torch.library does not declare"},
      {"fx mylib::a(Tensor x, int x) -> Tensor\n", "r.txt:1:27: argument 'x' declared twice"},
      {"fx mylib::a(Tensor x, int k=1.5) -> Tensor\n", "r.txt:1:29: the default of 'k' is not a value of its type"},
      {"fx mylib::a(Tensor x, int k-1) -> Tensor\n", "r.txt:1:27: expected an argument name, not 'k-1'"},
      {"fx mylib::a(Tensor x) -> Tensor\n inputs y\n", "r.txt:2:9: input 'y' is not an argument of the schema"},
      {"fx mylib::a(Tensor x) -> Tensor\n attr k = 2\n",
       "r.txt:2:2: the schema declares the arguments; 'attr' is for a rule without one"},
      {"fx mylib::a(Tensor x, int k) -> Tensor\n output dtype=x shape=[k.shape[0]]\n", "r.txt:2:24: unknown input 'k'"},
      {"fx mylib::a(Tensor x) -> (Tensor, Tensor)\n output dtype=x shape=x.shape\n",
       "r.txt:1:1: the schema of mylib.a returns 2 tensor(s); the rule has 1 output clause(s)"},
      {"fx mylib::a\n attr k: int\n", "r.txt:2:8: an FX rule declares types in its schema: fx NS::OP(int k=2, ...) -> Tensor"},
      {"onnx com.x::Op\n attr k: thing\n", "r.txt:2:10: expected an attribute type (int, ints, float, floats, string, "
                                           "strings, tensor, tensors, graph, graphs)"},
      {"onnx com.x::Op(Tensor x) -> Tensor\n", "r.txt:1:15: unexpected '('"},
  };
  for (const Case& c : cases) expect_refused(c.text, c.message);
  // An ONNX attribute's declared type is kept for the runner to check.
  OpRuleSet set;
  set.add("onnx com.x::Op\n inputs x\n attr reps: int = 2\n attr scale: float\n output dtype=x shape=x.shape\n", "r.txt");
  ASSERT_EQ(set.rules()[0].attrs.size(), 2u);
  EXPECT_EQ(set.rules()[0].attrs[0].type, 2);  // AttributeProto.INT
  EXPECT_EQ(set.rules()[0].attrs[1].type, 1);  // FLOAT
}

}  // namespace
}  // namespace fakeprop::custom_ops
