// requires_grad of outputs for ops torch 1.13 cannot serve as oracle for
// (ops_grad.json covers the rest): the SDPA variants' auxiliary outputs and
// the _native_batch_norm_legit family follow current PyTorch's
// tools/autograd/derivatives.yaml output_differentiability (checked against
// PyTorch main, 2025): only the attention output / normalized output is
// differentiable.
#include <gtest/gtest.h>

#include "fakeprop/fx/op_context.h"
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

json grad_tensor(json shape, const std::string& dtype = "float32", const std::string& device = "cpu") {
  json t = tensor(std::move(shape), dtype, device);
  t["requires_grad"] = true;
  return t;
}

std::vector<bool> grads(const Ran& r, const std::string& name) {
  std::vector<bool> out;
  const Value& v = r.value(name);
  if (v.kind != Value::Kind::List) return {v.is_tensor() && v.tensor->meta.requires_grad};
  for (const Value& x : *v.list) out.push_back(x.is_tensor() && x.tensor->meta.requires_grad);
  return out;
}

TEST(FxGrad, AttentionVariantsDifferentiateOnlyTheOutput) {
  GraphText g;
  g.input("q", grad_tensor({2, 4, 16, 64}, "float16", "cuda:0"))
      .input("c", grad_tensor({2, 4, 16, 8}))
      .call("flash", "aten._scaled_dot_product_flash_attention.default", {node("q"), node("q"), node("q"), 0.0, true})
      .call("eff", "aten._scaled_dot_product_efficient_attention.default",
            {node("q"), node("q"), node("q"), nullptr, true})
      .call("cpu", "aten._scaled_dot_product_flash_attention_for_cpu.default", {node("c"), node("c"), node("c")});
  Ran r = run(g);
  for (const char* n : {"flash", "eff", "cpu"}) ASSERT_EQ(r.error(n), "") << n;
  const auto flash = grads(r, "flash");
  ASSERT_EQ(flash.size(), 9u);
  EXPECT_TRUE(flash[0]);
  for (size_t i = 1; i < flash.size(); ++i) EXPECT_FALSE(flash[i]) << "flash output " << i;
  EXPECT_EQ(grads(r, "eff"), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(grads(r, "cpu"), (std::vector<bool>{true, false}));
}

TEST(FxGrad, BatchNormLegitStatisticsAreNotDifferentiable) {
  GraphText g;
  g.input("x", grad_tensor({2, 4, 5, 5}))
      .input("w", grad_tensor({4}))
      .input("rm", tensor({4}))
      .call("a", "aten._native_batch_norm_legit.no_stats", {node("x"), node("w"), node("w"), true, 0.1, 1e-5})
      .call("b", "aten._native_batch_norm_legit_functional.default",
            {node("x"), node("w"), node("w"), node("rm"), node("rm"), true, 0.1, 1e-5});
  Ran r = run(g);
  ASSERT_EQ(r.error("a"), "");
  ASSERT_EQ(r.error("b"), "");
  EXPECT_EQ(grads(r, "a"), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(grads(r, "b"), (std::vector<bool>{true, false, false, false, false}));
}

TEST(FxGrad, OutputGradMaskIsRuleData) {
  const OpEntry* detach = OpRegistry::instance().find_entry("aten.detach.default");
  ASSERT_NE(detach, nullptr);
  EXPECT_FALSE(detach->grad.differentiable(0));
  const OpEntry* nll = OpRegistry::instance().find_entry("aten.nll_loss_forward.default");
  ASSERT_NE(nll, nullptr);
  EXPECT_TRUE(nll->grad.differentiable(0));
  EXPECT_FALSE(nll->grad.differentiable(1));
  // Overloads served by a packet rule share its mask.
  const OpEntry* add = OpRegistry::instance().find_entry("aten.add.Tensor");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->grad.differentiable(0));
  EXPECT_TRUE(OutputGrad::first_only().differentiable(0));
  EXPECT_FALSE(OutputGrad::first_only().differentiable(40));
}

}  // namespace
}  // namespace fakeprop::fx
