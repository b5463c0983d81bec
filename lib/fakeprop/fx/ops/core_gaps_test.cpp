// embedding_bag: symbolic sizes, the CPU fast-path choice and the error
// paths. The static layouts on both devices are checked against PyTorch in
// testdata/fx_goldens/ops_core.json; expected values here are worked out by
// hand from current PyTorch's meta_embedding_bag (torch/_meta_registrations.py).
#include "fakeprop/fx/ops/testing_helpers.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

std::vector<Strs> shapes(const Ran& r, const std::string& name) {
  std::vector<Strs> out;
  for (size_t i = 0; i < 4; ++i) out.push_back(strs(r.tensor(name, i).sizes));
  return out;
}

TEST(FxEmbeddingBag, SymbolicSizesFlowThrough) {
  GraphText g;
  g.symbol("s0", 10)
      .symbol("s1", 4)
      .symbol("s2", 7)
      .symbol("s3", 3)
      .input("w", tensor({"s0", "s1"}))
      .input("i", tensor({"s2"}, "int64"))
      .input("o", tensor({"s3"}, "int32"))
      .input("wc", tensor({"s0", "s1"}, "float32", "cuda:0"))
      .input("ic", tensor({"s2"}, "int64", "cuda:0"))
      .input("oc", tensor({"s3"}, "int32", "cuda:0"))
      .call("sum", "aten._embedding_bag.default", {node("w"), node("i"), node("o")})
      .call("max", "aten._embedding_bag.default", {node("w"), node("i"), node("o"), false, 2, false, nullptr, true})
      .call("fwd", "aten._embedding_bag_forward_only.default", {node("w"), node("i"), node("o"), false, 1})
      .call("cuda", "aten._embedding_bag.default", {node("wc"), node("ic"), node("oc"), false, 2, false, nullptr, true});
  Ran r = run(g);
  for (const char* n : {"sum", "max", "fwd", "cuda"}) ASSERT_EQ(r.error(n), "") << n;
  // CPU, mode sum on the fast path: no offset2bag; bag_size and max_indices [num_bags]
  EXPECT_EQ(shapes(r, "sum"), (std::vector<Strs>{{"s3", "s1"}, {"0"}, {"s3"}, {"s3"}}));
  EXPECT_EQ(r.tensor("sum", 1).dtype, DType::Int32) << "CPU index outputs take offsets' dtype";
  // include_last_offset drops one bag; max_indices [num_bags, D]
  EXPECT_EQ(shapes(r, "max"), (std::vector<Strs>{{"s3 - 1", "s1"}, {"s2"}, {"s3 - 1"}, {"s3 - 1", "s1"}}));
  // _forward_only on CPU: bag_size has offsets' size
  EXPECT_EQ(shapes(r, "fwd"), (std::vector<Strs>{{"s3", "s1"}, {"s2"}, {"s3"}, {"s3"}}));
  // CUDA: indices' dtype; bag_size has offsets' size
  EXPECT_EQ(shapes(r, "cuda"), (std::vector<Strs>{{"s3 - 1", "s1"}, {"s2"}, {"s3"}, {"s3 - 1", "s1"}}));
  EXPECT_EQ(r.tensor("cuda", 2).dtype, DType::Int64);
  EXPECT_EQ(r.tensor("cuda", 3).device.str(), "cuda:0");
}

// The CPU fast path needs a float/half weight with unit stride(1), no
// padding_idx and unit-stride per_sample_weights; off it, mode sum computes offset2bag.
TEST(FxEmbeddingBag, CpuFastPathDecidesOffset2bag) {
  GraphText g;
  g.input("w", tensor({10, 4}))
      .input("wt", tensor({10, 4}, "float32", "cpu", json::array({1, 10})))
      .input("wb", tensor({10, 4}, "bfloat16"))
      .input("i", tensor({7}, "int64"))
      .input("o", tensor({3}, "int64"))
      .input("p", tensor({7}, "float32", "cpu", json::array({2})))
      .call("fast", "aten._embedding_bag.default", {node("w"), node("i"), node("o")})
      .call("transposed", "aten._embedding_bag.default", {node("wt"), node("i"), node("o")})
      .call("bf16", "aten._embedding_bag.default", {node("wb"), node("i"), node("o")})
      .call("padded", "aten._embedding_bag.default", {node("w"), node("i"), node("o"), false, 0, false, nullptr, false, 0})
      .call("strided_psw", "aten._embedding_bag.default", {node("w"), node("i"), node("o"), false, 0, false, node("p")})
      .call("composite", "aten.embedding_bag.padding_idx",
            {node("w"), node("i"), node("o"), false, 0, false, nullptr, false, -1});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("fast", 1).sizes), (Strs{"0"}));
  for (const char* n : {"transposed", "bf16", "padded", "strided_psw", "composite"}) {
    ASSERT_EQ(r.error(n), "") << n;
    EXPECT_EQ(strs(r.tensor(n, 1).sizes), (Strs{"7"})) << n;
  }
  EXPECT_EQ(r.tensor("bf16", 0).dtype, DType::BFloat16);
}

TEST(FxEmbeddingBag, CompositePicksTheOverloadByRequiresGrad) {
  GraphText g;
  json w = tensor({10, 4});
  w["requires_grad"] = true;
  g.input("w", w)
      .input("i", tensor({7}, "int64"))
      .input("o", tensor({3}, "int64"))
      .call("grad", "aten.embedding_bag.default", {node("w"), node("i"), node("o"), false, 0, false, nullptr, true});
  Ran r = run(g);
  ASSERT_EQ(r.error("grad"), "");
  // _embedding_bag: bag_size [num_bags], not offsets' size
  EXPECT_EQ(strs(r.tensor("grad", 2).sizes), (Strs{"2"}));
  EXPECT_TRUE(r.tensor("grad", 0).requires_grad);
  EXPECT_FALSE(r.tensor("grad", 1).requires_grad);
}

TEST(FxEmbeddingBag, Errors) {
  GraphText g;
  g.input("w", tensor({10, 4}))
      .input("wi", tensor({10, 4}, "int64"))
      .input("w1", tensor({10}))
      .input("i", tensor({7}, "int64"))
      .input("fi", tensor({7}))
      .input("o", tensor({3}, "int64"))
      .input("o0", tensor({0}, "int64"))
      .input("p", tensor({7}))
      .input("p6", tensor({6}))
      .input("p2", tensor({7, 1}))
      .input("oc", tensor({3}, "int64", "cuda:0"))
      .call("float_indices", "aten._embedding_bag.default", {node("w"), node("fi"), node("o")})
      .call("int_weight", "aten._embedding_bag.default", {node("wi"), node("i"), node("o")})
      .call("psw_mean", "aten._embedding_bag.default", {node("w"), node("i"), node("o"), false, 1, false, node("p")})
      .call("psw_numel", "aten._embedding_bag.default", {node("w"), node("i"), node("o"), false, 0, false, node("p6")})
      .call("psw_2d", "aten._embedding_bag.default", {node("w"), node("i"), node("o"), false, 0, false, node("p2")})
      .call("no_bags", "aten._embedding_bag.default",
            {node("w"), node("i"), node("o0"), false, 0, false, nullptr, true})
      .call("weight_1d", "aten._embedding_bag.default", {node("w1"), node("i"), node("o")})
      .call("padding", "aten.embedding_bag.padding_idx",
            {node("w"), node("i"), node("o"), false, 0, false, nullptr, false, -11})
      .call("devices", "aten._embedding_bag.default", {node("w"), node("i"), node("oc")});
  Ran r = run(g);
  auto has = [&](const char* n, const char* text) {
    EXPECT_NE(r.error(n).find(text), std::string::npos) << n << ": " << r.error(n);
  };
  has("float_indices", "expected indices to be long or int, got torch.float32");
  has("int_weight", "expected weight to be floating point type, got torch.int64");
  has("psw_mean", "per_sample_weights only supported with mode='sum'");
  has("psw_numel", "expected per_sample_weights.numel() (6 to be the same as indices.numel() (7)");
  has("psw_2d", "expected per_sample_weights to be 1D tensor, got 2D");
  has("no_bags", "include_last_offset: numBags should be at least 1");
  has("weight_1d", "Dimension out of range");
  has("padding", "padding_idx must be within the number of embeddings, -10 through 9, but got -11");
  has("devices", "device");
}

}  // namespace
}  // namespace fakeprop::fx
