#include "fakeprop/sizing/flop_count.h"

#include <gtest/gtest.h>

#include <initializer_list>

#include "fakeprop/sizing/memory.h"
#include "fakeprop/sym/expand.h"

namespace fakeprop {
namespace {

// The expected counts are torch 2.15's FlopCounterMode on fake tensors of these shapes
// (opt_einsum not installed, so einsum contracts left to right).

Value tensor(std::initializer_list<int64_t> sizes) {
  TensorValue t;
  for (int64_t d : sizes) t.meta.sizes.emplace_back(d);
  t.meta.strides = contiguous_strides(t.meta.sizes);
  return Value::of_tensor(std::move(t));
}

struct Call {
  std::vector<Value> values;
  std::vector<const Value*> args;
  OutputList outputs;
  NamePool names;

  Call(std::vector<Value> in, std::initializer_list<int64_t> out) : values(std::move(in)) {
    for (const Value& v : values) args.push_back(&v);
    outputs.push_back({names.intern("out"), tensor(out)});
  }
  std::optional<int64_t> flops(std::string_view op) const {
    NodeArguments in;
    in.args = args;
    const ExprRef e = count_flops(op, in, outputs);
    if (!e) return std::nullopt;
    return as_integer(e);
  }
};

Value text(std::string s) { return Value::of_opaque(std::move(s)); }

TEST(FlopCount, MatrixProductsAsTorchCountsThem) {
  EXPECT_EQ(Call({tensor({3, 4}), tensor({4, 5})}, {3, 5}).flops("aten.mm.default"), 120);
  EXPECT_EQ(Call({tensor({5}), tensor({3, 4}), tensor({4, 5})}, {3, 5}).flops("aten.addmm.default"), 120);
  EXPECT_EQ(Call({tensor({2, 3, 4}), tensor({2, 4, 5})}, {2, 3, 5}).flops("aten.bmm.default"), 240);
  EXPECT_EQ(Call({tensor({2, 3, 4}), tensor({5, 4})}, {2, 3, 5}).flops("aten.linear.default"), 240);
}

TEST(FlopCount, MatmulCountsWhatItDispatchesTo) {
  EXPECT_EQ(Call({tensor({3, 4}), tensor({4})}, {3}).flops("aten.matmul.default"), std::nullopt);  // mv
  EXPECT_EQ(Call({tensor({2, 3, 4}), tensor({4})}, {2, 3}).flops("aten.matmul.default"), std::nullopt);  // folded mv
  EXPECT_EQ(Call({tensor({4}), tensor({4, 5})}, {5}).flops("aten.matmul.default"), 40);
  EXPECT_EQ(Call({tensor({4}), tensor({2, 4, 5})}, {2, 5}).flops("aten.matmul.default"), 80);
  EXPECT_EQ(Call({tensor({3, 4}), tensor({2, 4, 5})}, {2, 3, 5}).flops("aten.matmul.default"), 240);
  EXPECT_EQ(Call({tensor({3, 4}), tensor({2, 4, 5})}, {2, 3, 5}).flops("MatMul"), 240);  // ONNX, the same
}

TEST(FlopCount, EinsumContractsLeftToRight) {
  auto einsum = [](const char* eq, std::vector<Value> ops) {
    Value list = Value::of_list(std::move(ops));
    return Call({text(eq), list}, {1}).flops("aten.einsum.default");
  };
  EXPECT_EQ(einsum("bij,bjk->bik", {tensor({2, 3, 4}), tensor({2, 4, 5})}), 240);
  EXPECT_EQ(einsum("...ij,...jk->...ik", {tensor({6, 2, 3, 4}), tensor({6, 2, 4, 5})}), 1440);
  EXPECT_EQ(einsum("ij,jk", {tensor({3, 4}), tensor({4, 5})}), 120);
  EXPECT_EQ(einsum("ij,jk,kl->il", {tensor({3, 4}), tensor({4, 5}), tensor({5, 6})}), 300);
  EXPECT_EQ(einsum("bhqd,bhkd->bhqk", {tensor({2, 4, 8, 16}), tensor({2, 4, 6, 16})}), 12288);
  EXPECT_EQ(einsum("i,i->", {tensor({7}), tensor({7})}), 14);
  EXPECT_EQ(einsum("ij,kj->ik", {tensor({3, 4}), tensor({5, 4})}), 120);
  EXPECT_EQ(einsum("bij,jk->bik", {tensor({2, 3, 4}), tensor({4, 5})}), 240);
  // Malformed equations count nothing, and never throw.
  EXPECT_EQ(einsum("ij,jk->ik,", {tensor({3, 4}), tensor({4, 5})}), std::nullopt);
  EXPECT_EQ(einsum("i.j...k,jk", {tensor({3, 4}), tensor({4, 5})}), std::nullopt);
}

TEST(FlopCount, ConvolutionForwardAndTransposed) {
  // conv2d: x [2, 3, 8, 8], w [6, 3, 3, 3], out [2, 6, 6, 6]: 2 * 36 * 27 * 2 * 6 ... as torch's formula
  EXPECT_EQ(Call({tensor({2, 3, 8, 8}), tensor({6, 3, 3, 3})}, {2, 6, 6, 6}).flops("aten.conv2d.default"),
            36 * 9 * 2 * 6 * 3 * 2);
  EXPECT_EQ(Call({tensor({2, 3, 8, 8}), tensor({6, 3, 3, 3})}, {2, 6, 6, 6}).flops("Conv"), 36 * 9 * 2 * 6 * 3 * 2);
  // transposed: the input's points
  EXPECT_EQ(Call({tensor({2, 6, 6, 6}), tensor({6, 3, 3, 3})}, {2, 3, 8, 8}).flops("ConvTranspose"),
            36 * 9 * 2 * 6 * 3 * 2);
}

TEST(FlopCount, OpsWithoutAFormulaCountNothing) {
  EXPECT_EQ(Call({tensor({3, 4}), tensor({3, 4})}, {3, 4}).flops("aten.add.Tensor"), std::nullopt);
  EXPECT_EQ(Call({tensor({3, 4}), tensor({3, 4})}, {3, 4}).flops("Add"), std::nullopt);
  // a failed node's input: nothing to count, no exception
  Call missing({Value::unknown("failed"), tensor({4, 5})}, {3, 5});
  EXPECT_EQ(missing.flops("aten.mm.default"), std::nullopt);
}

TEST(Expand, MultipliesProductsOfSumsOut) {
  const ExprRef s = symbol("s"), t = symbol("t");
  const ExprRef product_of_sums = mul(add(s, integer(1)), add(t, integer(2)));
  EXPECT_EQ(expand(product_of_sums), add(add(add(mul(s, t), mul(s, 2)), t), integer(2)));
  // 1 + (s - 1)*t + (t - 1)*1 telescopes to s*t once multiplied out
  const ExprRef extent = add(add(integer(1), mul(sub(s, integer(1)), t)), sub(t, integer(1)));
  EXPECT_EQ(expand(extent), mul(s, t));
}

}  // namespace
}  // namespace fakeprop
