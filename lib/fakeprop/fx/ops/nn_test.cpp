// NN rules where torch 1.13 cannot serve as oracle (ops added later, current
// PyTorch's device-dependent metas) and symbolic sizes. Expected values are
// worked out from torch/_meta_registrations.py and torch/_decomp (2.x).
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

struct BatchNormCase {
  const char* target;
  std::vector<json> args;  // after the input placeholders x, w, b, rm, rv
  const char* device;
  const char* dtype;
  Strs stats_shape;
  DType stats_dtype;
  size_t outputs;
};

TEST(FxNn, BatchNormLegitVariantsFollowTheDecomposition) {
  const json c = node("c");
  const BatchNormCase cases[] = {
      // training: batch statistics [C]; CPU keeps the input dtype, CUDA computes in float32
      {"aten._native_batch_norm_legit.default", {node("x"), c, c, c, c, true, 0.1, 1e-5}, "cpu", "float16", {"4"},
       DType::Float16, 3},
      {"aten._native_batch_norm_legit.default", {node("x"), c, c, c, c, true, 0.1, 1e-5}, "cuda:0", "float16", {"4"},
       DType::Float32, 3},
      // eval: CPU returns empty statistics, CUDA the running ones
      {"aten._native_batch_norm_legit.default", {node("x"), c, c, c, c, false, 0.1, 1e-5}, "cpu", "float32", {"0"},
       DType::Float32, 3},
      {"aten._native_batch_norm_legit_no_training.default", {node("x"), c, c, c, c, 0.1, 1e-5}, "cuda:0", "float16",
       {"4"}, DType::Float32, 3},
      {"aten._native_batch_norm_legit_no_training.default", {node("x"), nullptr, nullptr, c, c, 0.1, 1e-5}, "cpu",
       "float16", {"0"}, DType::Float16, 3},
      {"aten._native_batch_norm_legit.no_stats", {node("x"), c, c, true, 0.1, 1e-5}, "cpu", "float32", {"4"},
       DType::Float32, 3},
      {"aten._native_batch_norm_legit_functional.default", {node("x"), c, c, c, c, true, 0.1, 1e-5}, "cuda:0",
       "float32", {"4"}, DType::Float32, 5},
  };
  for (const BatchNormCase& bc : cases) {
    GraphText g;
    g.input("x", tensor({2, 4, 5, 5}, bc.dtype, bc.device, json::array({100, 1, 20, 4})))
        .input("c", tensor({4}, "float32", bc.device))
        .call("bn", bc.target, bc.args);
    Ran r = run(g);
    ASSERT_EQ(r.error("bn"), "") << bc.target << " on " << bc.device;
    const Value& v = r.value("bn");
    ASSERT_EQ(v.list->size(), bc.outputs) << bc.target;
    const TensorMeta& out = r.tensor("bn", 0);
    EXPECT_EQ(strs(out.strides), (Strs{"100", "1", "20", "4"})) << "the output keeps the input's layout";
    EXPECT_EQ(std::string(dtype_name(out.dtype)), bc.dtype);
    for (size_t i : {1, 2}) {
      EXPECT_EQ(strs(r.tensor("bn", i).sizes), bc.stats_shape) << bc.target << " on " << bc.device << " output " << i;
      EXPECT_EQ(r.tensor("bn", i).dtype, bc.stats_dtype) << bc.target << " on " << bc.device << " output " << i;
    }
  }
}

TEST(FxNn, BatchNormInEvalModeNeedsRunningStatistics) {
  GraphText g;
  g.input("x", tensor({2, 4, 5, 5}))
      .call("bn", "aten.native_batch_norm.default", {node("x"), nullptr, nullptr, nullptr, nullptr, false, 0.1, 1e-5});
  EXPECT_NE(run(g).error("bn").find("running_mean and running_var must not be None in eval mode"), std::string::npos);
}

// A 1-D input has no channel dim: the decomposition asserts its rank
// (a fuzz finding: the rule read dim 1 of it).
TEST(FxNn, BatchNormBackwardNeedsAChannelDim) {
  GraphText g;
  g.input("v", tensor({8}))
      .call("bnb", "aten.native_batch_norm_backward.default",
            {node("v"), node("v"), node("v"), node("v"), node("v"), node("v"), node("v"), true, 1e-5,
             json::array({true, false, false})});
  EXPECT_EQ(run(g).error("bnb"), "invalid_argument: rank of the input must be at least 2, got 1");
}

TEST(FxNn, LayerNormStatisticsDtypeDependsOnDevice) {
  for (const char* device : {"cpu", "cuda:0"}) {
    GraphText g;
    g.symbol("s0", 7)
        .input("x", tensor({"s0", 5, 8}, "bfloat16", device))
        .call("ln", "aten.native_layer_norm.default", {node("x"), json::array({8}), nullptr, nullptr, 1e-5});
    Ran r = run(g);
    ASSERT_EQ(r.error("ln"), "");
    EXPECT_EQ(strs(r.tensor("ln", 1).sizes), (Strs{"s0", "5", "1"}));
    EXPECT_EQ(strs(r.tensor("ln", 1).strides), (Strs{"5", "1", "1"}));
    const DType want = std::string(device) == "cpu" ? DType::BFloat16 : DType::Float32;
    EXPECT_EQ(r.tensor("ln", 1).dtype, want) << device;
    EXPECT_EQ(r.tensor("ln", 0).dtype, DType::BFloat16);
  }
}

TEST(FxNn, ConvolutionWithSymbolicSpatialSizes) {
  GraphText g;
  g.symbol("s0", 32)
      .symbol("s1", 24)
      .input("x", tensor({2, 3, "s0", "s1"}))
      .input("w", tensor({8, 3, 3, 3}))
      .call("y", "aten.convolution.default",
            {node("x"), node("w"), nullptr, {2, 2}, {1, 1}, {1, 1}, false, {0, 0}, 1});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  // (s + 2 - 2 - 1)//2 + 1
  EXPECT_EQ(strs(r.tensor("y").sizes), (Strs{"2", "8", "(s0 - 1)//2 + 1", "(s1 - 1)//2 + 1"}));
}

// FakeTensor's convolution selects the backend the real kernel would
// (measured, torch 2.15, CPU): the kernel must fit the padded input, and the
// mkldnn heuristic of a batch of one asks N*C*H*W > 20480.
TEST(FxNn, ConvolutionGuardsTheBackendSelection) {
  GraphText g;
  g.symbol("s0", 8)
      .symbol("s1", 9)
      .input("x", tensor({1, 3, "s0", "s1"}))
      .input("w", tensor({4, 3, 3, 3}))
      .call("y", "aten.convolution.default", {node("x"), node("w"), nullptr, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  EXPECT_EQ(r.guards(), (std::vector<std::string>{"s0 >= 3", "s1 >= 3", "3*s0*s1 <= 20480"}));
  // A batch of more than one takes mkldnn without the size test; a dynamic
  // batch is asked N >= 16 first. float64 takes no mkldnn.
  GraphText b;
  b.symbol("s2", 2)
      .input("x", tensor({"s2", 3, 8, 8}))
      .input("w", tensor({4, 3, 3, 3}))
      .call("y", "aten.convolution.default", {node("x"), node("w"), nullptr, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1});
  Ran rb = run(b);
  ASSERT_EQ(rb.error("y"), "");
  EXPECT_EQ(rb.guards(), (std::vector<std::string>{"s2 < 16"}));
  GraphText d;
  d.symbol("s0", 8)
      .input("x", tensor({1, 3, "s0", 8}, "float64"))
      .input("w", tensor({4, 3, 3, 3}, "float64"))
      .call("y", "aten.convolution.default", {node("x"), node("w"), nullptr, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1});
  Ran rd = run(d);
  ASSERT_EQ(rd.error("y"), "");
  EXPECT_EQ(rd.guards(), (std::vector<std::string>{"s0 >= 3"}));
}

TEST(FxNn, ConvolutionChecksChannelsWithTheGroupCount) {
  GraphText g;
  g.input("x", tensor({2, 4, 8, 8})).input("w", tensor({8, 3, 3, 3}));
  g.call("y", "aten.convolution.default", {node("x"), node("w"), nullptr, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1});
  EXPECT_NE(run(g).error("y").find("to have 3 channels, but got 4 channels instead"), std::string::npos);
}

TEST(FxNn, CeilModePoolingOfUnbackedSizeNeedsNoGuard) {
  // No hint to guard the last window on: the count is the smaller of the
  // ceil count and the window starts before the end padding.
  GraphText g;
  g.unbacked("u0")
      .symbol("s0", 9)
      .input("x", tensor({1, 3, "u0", "s0"}))
      .call("y", "aten.max_pool2d_with_indices.default", {node("x"), {2, 2}, {3, 3}, {1, 1}, {1, 1}, true});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  const Strs sizes = strs(r.tensor("y", 0).sizes);
  ASSERT_EQ(sizes.size(), 4u);
  EXPECT_EQ(sizes[2], "min(u0//3 + 1, (u0 + 2)//3 + 1)");
  EXPECT_EQ(sizes[3], "(s0 + 2)//3 + 1");  // backed: the last window is decided by a guard
}

TEST(FxNn, FlashAttentionOutputs) {
  GraphText g;
  g.symbol("s0", 3)
      .input("q", tensor({"s0", 4, 16, 64}, "float16", "cuda:0"))
      .input("k", tensor({"s0", 4, 20, 64}, "float16", "cuda:0"))
      .call("a", "aten._scaled_dot_product_flash_attention.default", {node("q"), node("k"), node("k"), 0.0, true});
  Ran r = run(g);
  ASSERT_EQ(r.error("a"), "");
  const Value& v = r.value("a");
  ASSERT_EQ(v.list->size(), 9u);
  EXPECT_EQ(strs(r.tensor("a", 0).sizes), (Strs{"s0", "4", "16", "64"}));
  EXPECT_EQ(strs(r.tensor("a", 1).sizes), (Strs{"s0", "4", "16"}));  // logsumexp
  EXPECT_EQ(r.tensor("a", 1).dtype, DType::Float32);
  EXPECT_TRUE((*v.list)[2].is_none());
  EXPECT_EQ(str((*v.list)[4].i), "16");  // max_q
  EXPECT_EQ(str((*v.list)[5].i), "20");  // max_k
  EXPECT_EQ(strs(r.tensor("a", 6).sizes), (Strs{"2"}));  // philox seed
  EXPECT_EQ(r.tensor("a", 6).dtype, DType::UInt64);
  EXPECT_EQ(r.tensor("a", 6).device.str(), "cuda:0");  // fake mode's common device, not the kernel's "meta"
  EXPECT_EQ(strs(r.tensor("a", 8).sizes), (Strs{"0"}));  // no debug mask asked
}

TEST(FxNn, EfficientAttentionOutputIsTransposedStorage) {
  GraphText g;
  g.input("q", tensor({2, 4, 10, 8}, "float32", "cuda:0"))
      .input("v", tensor({2, 4, 12, 6}, "float32", "cuda:0"))
      .input("k", tensor({2, 4, 12, 8}, "float32", "cuda:0"))
      .call("a", "aten._scaled_dot_product_efficient_attention.default",
            {node("q"), node("k"), node("v"), nullptr, true});
  Ran r = run(g);
  ASSERT_EQ(r.error("a"), "");
  // [B, M, H, Kv] storage seen as [B, H, M, Kv]
  EXPECT_EQ(strs(r.tensor("a", 0).sizes), (Strs{"2", "4", "10", "6"}));
  EXPECT_EQ(strs(r.tensor("a", 0).strides), (Strs{"240", "6", "24", "1"}));
  EXPECT_EQ(strs(r.tensor("a", 1).sizes), (Strs{"2", "4", "32"}));  // ceil(10 / 32) * 32
}

TEST(FxNn, CudnnAndCpuFlashAttentionLayouts) {
  GraphText g;
  // query stored as [B, L, H, D] and viewed as [B, H, L, D]
  g.input("q", tensor({2, 4, 10, 8}, "float16", "cuda:0", json::array({320, 8, 32, 1})))
      .input("k", tensor({2, 4, 12, 8}, "float16", "cuda:0"))
      .input("v", tensor({2, 4, 12, 16}, "float16", "cuda:0"))
      .call("a", "aten._scaled_dot_product_cudnn_attention.default",
            {node("q"), node("k"), node("v"), nullptr, true});
  Ran r = run(g);
  ASSERT_EQ(r.error("a"), "");
  // a new Dv: dense in query's stride order (B, L, H, D)
  EXPECT_EQ(strs(r.tensor("a", 0).sizes), (Strs{"2", "4", "10", "16"}));
  EXPECT_EQ(strs(r.tensor("a", 0).strides), (Strs{"640", "16", "64", "1"}));
  EXPECT_EQ(strs(r.tensor("a", 1).sizes), (Strs{"2", "4", "10", "1"}));

  GraphText c;
  c.input("q", tensor({2, 4, 10, 8})).call("a", "aten._scaled_dot_product_flash_attention_for_cpu.default",
                                           {node("q"), node("q"), node("q")});
  Ran rc = run(c);
  ASSERT_EQ(rc.error("a"), "");
  EXPECT_EQ(strs(rc.tensor("a", 1).sizes), (Strs{"2", "4", "10"}));
  EXPECT_EQ(strs(rc.tensor("a", 1).strides), (Strs{"40", "1", "4"}));  // [B, L, H] storage
}

TEST(FxNn, PixelShuffleOfChannelsLastDependsOnDevice) {
  for (const char* device : {"cpu", "cuda:0"}) {
    GraphText g;
    g.input("x", tensor({2, 8, 3, 3}, "float32", device, json::array({72, 1, 24, 8})))
        .call("y", "aten.pixel_shuffle.default", {node("x"), 2});
    Ran r = run(g);
    EXPECT_EQ(strs(r.tensor("y").sizes), (Strs{"2", "2", "6", "6"}));
    const Strs want = std::string(device) == "cpu" ? Strs{"72", "1", "12", "2"} : Strs{"72", "36", "6", "1"};
    EXPECT_EQ(strs(r.tensor("y").strides), want) << device;
  }
}

TEST(FxNn, UpsampleScalesOfSymbolicSizes) {
  GraphText g;
  g.symbol("s0", 10)
      .input("x", tensor({1, 3, "s0", 8}))
      .call("y", "aten.upsample_nearest2d.vec", {node("x"), nullptr, {1.5, 2.0}});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  // torch 2.15: sym_int(s0 * 1.5), TruncToInt(1.5*ToFloat(s0)); an integral scale multiplies.
  EXPECT_EQ(strs(r.tensor("y").sizes), (Strs{"1", "3", "int(1.5*float(s0))", "16"}));
}

// The antialiased kernels keep a channels-last input's layout on CUDA too
// (no 16-channel threshold as for upsample_bilinear2d's CUDA kernel).
TEST(FxNn, AntialiasedUpsampleOfSymbolicSizes) {
  GraphText g;
  g.symbol("s0", 10)
      .input("x", tensor({2, 3, "s0", 8}, "float32", "cuda:0", json::array({json("24*s0"), 1, 24, 3})))
      .call("a", "aten._upsample_bilinear2d_aa.vec", {node("x"), nullptr, false, {2.0, 0.5}})
      .call("b", "aten._upsample_bicubic2d_aa.default", {node("x"), json::array({5, 7}), true});
  Ran r = run(g);
  ASSERT_EQ(r.error("a"), "");
  EXPECT_EQ(strs(r.tensor("a").sizes), (Strs{"2", "3", "2*s0", "4"}));
  EXPECT_EQ(strs(r.tensor("a").strides), (Strs{"24*s0", "1", "12", "3"}));
  EXPECT_EQ(strs(r.tensor("b").strides), (Strs{"105", "1", "21", "3"}));
}

// Weight norm of a symbolic batch of kernels: the fused path's norm keeps
// only `dim`, and _weight_norm over a middle dim (norm_except_dim) gives a
// contiguous w; the norm of _weight_norm_interface is not differentiable.
TEST(FxNn, WeightNormOfSymbolicSizes) {
  GraphText g;
  g.symbol("s0", 6)
      .input("v", tensor({"s0", 4, 3}))
      .input("g0", tensor({"s0", 1, 1}))
      .input("g1", tensor({1, 4, 1}))
      .call("fused", "aten._weight_norm_interface.default", {node("v"), node("g0"), 0})
      .call("middle", "aten._weight_norm.default", {node("v"), node("g1"), 1});
  Ran r = run(g);
  ASSERT_EQ(r.error("fused"), "");
  ASSERT_EQ(r.error("middle"), "");
  EXPECT_EQ(strs(r.tensor("fused", 0).sizes), (Strs{"s0", "4", "3"}));
  EXPECT_EQ(strs(r.tensor("fused", 1).sizes), (Strs{"s0", "1", "1"}));
  EXPECT_EQ(strs(r.tensor("middle").sizes), (Strs{"s0", "4", "3"}));
  EXPECT_EQ(strs(r.tensor("middle").strides), (Strs{"12", "3", "1"}));
}

TEST(FxNn, MatmulLinearAndSdpaComposites) {
  GraphText g;
  g.symbol("s0", 5)
      .input("a", tensor({"s0", 1, 4, 3}))
      .input("b", tensor({7, 3, 2}))
      .input("w", tensor({6, 3}))
      .input("q", tensor({2, 4, "s0", 8}))
      .input("v", tensor({2, 4, 9, 16}))
      .call("m", "aten.matmul.default", {node("a"), node("b")})
      .call("l", "aten.linear.default", {node("a"), node("w")})
      .call("s", "aten.scaled_dot_product_attention.default", {node("q"), node("q"), node("v")});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("m").sizes), (Strs{"s0", "7", "4", "2"}));
  EXPECT_EQ(strs(r.tensor("l").sizes), (Strs{"s0", "1", "4", "6"}));
  EXPECT_EQ(strs(r.tensor("s").sizes), (Strs{"2", "4", "s0", "16"}));
}

// CompositeImplicitAutograd ops torch.export keeps (.pt2 archives); expected
// values from torch 2.15's FakeTensorMode. sdpa on CPU: the flash kernel's
// output follows the query's layout; with dropout the math path's is contiguous.
TEST(FxNn, ExportComposites) {
  GraphText g;
  g.input("x1", tensor({2, 3, 10}))
      .input("w1", tensor({4, 3, 3}))
      .input("x3", tensor({1, 2, 5, 6, 7}))
      .input("w3", tensor({3, 2, 3, 3, 3}))
      .input("qt", tensor({2, 5, 3, 8}))
      .call("c1", "aten.conv1d.default", {node("x1"), node("w1"), nullptr, {2}})
      .call("c3", "aten.conv3d.default", {node("x3"), node("w3"), nullptr, {1, 1, 1}, {1, 1, 1}})
      .call("q", "aten.transpose.int", {node("qt"), 1, 2})
      .call("flash", "aten.scaled_dot_product_attention.default", {node("q"), node("q"), node("q")})
      .call("math", "aten.scaled_dot_product_attention.default", {node("q"), node("q"), node("q"), nullptr, 0.5});
  Ran r = run(g);
  EXPECT_EQ(strs(r.tensor("c1").sizes), (Strs{"2", "4", "4"}));
  EXPECT_EQ(strs(r.tensor("c3").sizes), (Strs{"1", "3", "5", "6", "7"}));
  EXPECT_EQ(strs(r.tensor("flash").strides), (Strs{"120", "8", "24", "1"}));
  EXPECT_EQ(strs(r.tensor("math").strides), (Strs{"120", "40", "8", "1"}));
}

// nn.MultiheadAttention's fast path; expected values from torch 2.15's fake
// kernel (FakeTensorMode, cpu and cuda agree): weights are over the query length.
TEST(FxNn, NativeMultiHeadAttention) {
  struct Case {
    bool need_weights, average;
    Strs weights;
  } cases[] = {{true, true, {"s0", "5", "5"}}, {true, false, {"s0", "4", "5", "5"}}, {false, true, {"0"}}};
  for (const Case& c : cases) {
    GraphText g;
    g.symbol("s0", 2)
        .input("q", tensor({"s0", 5, 16}))
        .input("k", tensor({"s0", 7, 16}))
        .input("w", tensor({48, 16}))
        .input("b", tensor({48}))
        .input("pw", tensor({12, 16}))
        .input("pb", tensor({12}))
        .call("a", "aten._native_multi_head_attention.default",
              {node("q"), node("k"), node("k"), 16, 4, node("w"), node("b"), node("pw"), node("pb"), nullptr,
               c.need_weights, c.average});
    Ran r = run(g);
    ASSERT_EQ(r.error("a"), "");
    EXPECT_EQ(strs(r.tensor("a", 0).sizes), (Strs{"s0", "5", "12"}));
    EXPECT_EQ(strs(r.tensor("a", 0).strides), (Strs{"60", "12", "1"}));
    EXPECT_EQ(strs(r.tensor("a", 1).sizes), c.weights);
  }
  GraphText empty;
  empty.input("q", tensor({0, 5, 16}))
      .input("w", tensor({48, 16}))
      .input("pw", tensor({16, 16}))
      .call("a", "aten._native_multi_head_attention.default",
            {node("q"), node("q"), node("q"), 16, 4, node("w"), node("w"), node("pw"), node("pw")});
  Ran r = run(empty);
  ASSERT_EQ(r.error("a"), "");
  EXPECT_EQ(strs(r.tensor("a", 0).sizes), (Strs{"0", "5", "16"}));
  EXPECT_EQ(strs(r.tensor("a", 1).sizes), (Strs{"0"}));
}

// embedding_bag: symbolic sizes, the CPU fast-path choice and the error
// paths. The static layouts on both devices are checked against PyTorch in
// testdata/fx_goldens/ops_core.json; expected values here are worked out by
// hand from current PyTorch's meta_embedding_bag (torch/_meta_registrations.py).
std::vector<Strs> embedding_bag_shapes(const Ran& r, const std::string& name) {
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
  EXPECT_EQ(embedding_bag_shapes(r, "sum"), (std::vector<Strs>{{"s3", "s1"}, {"0"}, {"s3"}, {"s3"}}));
  EXPECT_EQ(r.tensor("sum", 1).dtype, DType::Int32) << "CPU index outputs take offsets' dtype";
  // include_last_offset drops one bag; max_indices [num_bags, D]
  EXPECT_EQ(embedding_bag_shapes(r, "max"), (std::vector<Strs>{{"s3 - 1", "s1"}, {"s2"}, {"s3 - 1"}, {"s3 - 1", "s1"}}));
  // _forward_only on CPU: bag_size has offsets' size
  EXPECT_EQ(embedding_bag_shapes(r, "fwd"), (std::vector<Strs>{{"s3", "s1"}, {"s2"}, {"s3"}, {"s3"}}));
  // CUDA: indices' dtype; bag_size has offsets' size
  EXPECT_EQ(embedding_bag_shapes(r, "cuda"), (std::vector<Strs>{{"s3 - 1", "s1"}, {"s2"}, {"s3"}, {"s3 - 1", "s1"}}));
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

// Strides of `shape` laid out contiguously in the order `outer_to_inner`.
json strides_in_order(const std::vector<int64_t>& shape, const std::vector<size_t>& outer_to_inner) {
  std::vector<int64_t> st(shape.size());
  int64_t running = 1;
  for (size_t k = outer_to_inner.size(); k-- > 0;) {
    st[outer_to_inner[k]] = running;
    running *= shape[outer_to_inner[k]];
  }
  return json(st);
}
json contiguous(const std::vector<int64_t>& shape) {
  std::vector<size_t> order(shape.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  return strides_in_order(shape, order);
}
// channels_last / channels_last_3d (and a 1-D conv's [N, L, C]): N, spatial
// dims, C innermost.
json channels_last(const std::vector<int64_t>& shape) {
  std::vector<size_t> order{0};
  for (size_t d = 2; d < shape.size(); ++d) order.push_back(d);
  order.push_back(1);
  return strides_in_order(shape, order);
}
Strs as_strs(const json& ints) {
  Strs out;
  for (const json& v : ints) out.push_back(std::to_string(v.get<int64_t>()));
  return out;
}

struct ConvLayoutCase {
  const char* device;
  const char* dtype;
  int spatial;
  bool input_cl, weight_cl;
  bool want_cl;  // else contiguous
};

TEST(FxNn, ConvolutionLayoutFollowsTheBackend) {
  // Measured with torch 2.15's FakeTensor (fake_impls' conv asks
  // _select_conv_backend): on CPU every dtype keeps channels_last in 2-D, only
  // float32 (mkldnn) in 3-D; on CUDA cuDNN does for float32 / float16.
  const ConvLayoutCase cases[] = {
      {"cpu", "float64", 2, false, true, true},     {"cpu", "float16", 2, true, false, true},
      {"cuda:0", "float64", 2, true, false, false}, {"cuda:0", "float16", 2, false, true, true},
      {"cpu", "float32", 3, false, true, true},     {"cpu", "float16", 3, true, false, false},
      {"cpu", "float64", 3, true, true, false},     {"cuda:0", "float16", 3, true, false, true},
      {"cuda:0", "float64", 3, false, true, false}, {"cpu", "float32", 2, false, false, false},
      // 1-D: asked as 2-D over a contiguous input, so only the weight counts
      {"cpu", "float64", 1, false, true, true},     {"cpu", "float32", 1, true, false, false},
      {"cuda:0", "float32", 1, true, true, true},   {"cuda:0", "float64", 1, false, true, false},
  };
  for (const ConvLayoutCase& c : cases) {
    std::vector<int64_t> in{2, 4}, w{8, 4}, out{2, 8};
    json ones = json::array(), zeros = json::array();
    for (int i = 0; i < c.spatial; ++i) {
      in.push_back(6), w.push_back(3), out.push_back(4);
      ones.push_back(1), zeros.push_back(0);
    }
    GraphText g;
    g.input("x", tensor(in, c.dtype, c.device, c.input_cl ? channels_last(in) : contiguous(in)))
        .input("w", tensor(w, c.dtype, c.device, c.weight_cl ? channels_last(w) : contiguous(w)))
        .input("g", tensor(out, c.dtype, c.device))
        .call("y", "aten.convolution.default", {node("x"), node("w"), nullptr, ones, zeros, ones, false, zeros, 1})
        .call("gb", "aten.convolution_backward.default",
              {node("g"), node("x"), node("w"), json::array({8}), ones, zeros, ones, false, zeros, 1,
               json::array({true, true, true})});
    Ran r = run(g);
    const std::string what = std::string(c.device) + " " + c.dtype + " " + std::to_string(c.spatial) + "-D";
    ASSERT_EQ(r.error("y"), "") << what;
    ASSERT_EQ(r.error("gb"), "") << what;
    auto layout = [&](const std::vector<int64_t>& shape) {
      return as_strs(c.want_cl ? channels_last(shape) : contiguous(shape));
    };
    EXPECT_EQ(strs(r.tensor("y").strides), layout(out)) << what;
    EXPECT_EQ(strs(r.tensor("gb", 0).strides), layout(in)) << what << " grad_input";
    EXPECT_EQ(strs(r.tensor("gb", 1).strides), layout(w)) << what << " grad_weight";
    EXPECT_EQ(strs(r.tensor("gb", 2).strides), (Strs{"1"})) << what << " grad_bias";
  }
}

struct ResampleCase {
  const char* target;
  std::vector<json> args;  // after the input
  const char* device;
  int64_t channels;
  std::vector<int64_t> out;
  bool want_cl;
};

TEST(FxNn, ResamplingAndPaddingLayouts) {
  // Measured with torch 2.15: CUDA's bilinear / trilinear kernels go
  // channels-last from 16 channels only; nearest and bicubic always follow
  // the input. The 2-D pads keep channels_last on CPU only.
  const json hw = json::array({18, 18});
  const ResampleCase cases[] = {
      {"aten.upsample_bilinear2d.default", {hw, false}, "cuda:0", 15, {2, 15, 18, 18}, false},
      {"aten.upsample_bilinear2d.default", {hw, false}, "cuda:0", 16, {2, 16, 18, 18}, true},
      {"aten.upsample_bilinear2d.vec", {nullptr, false, json::array({2.0, 2.0})}, "cuda:0", 3, {2, 3, 18, 18}, false},
      {"aten.upsample_bilinear2d.default", {hw, false}, "cpu", 3, {2, 3, 18, 18}, true},
      {"aten.upsample_nearest2d.default", {hw}, "cuda:0", 3, {2, 3, 18, 18}, true},
      {"aten.upsample_bicubic2d.default", {hw, false}, "cuda:0", 3, {2, 3, 18, 18}, true},
      {"aten.reflection_pad2d.default", {json::array({1, 1, 2, 2})}, "cuda:0", 3, {2, 3, 13, 11}, false},
      {"aten.replication_pad2d.default", {json::array({1, 1, 2, 2})}, "cpu", 3, {2, 3, 13, 11}, true},
  };
  for (const ResampleCase& c : cases) {
    const std::vector<int64_t> in{2, c.channels, 9, 9};
    json args = json::array({node("x")});
    for (const json& a : c.args) args.push_back(a);
    GraphText g;
    g.input("x", tensor(in, "float32", c.device, channels_last(in))).call("y", c.target, args);
    Ran r = run(g);
    ASSERT_EQ(r.error("y"), "") << c.target;
    EXPECT_EQ(strs(r.tensor("y").strides), as_strs(c.want_cl ? channels_last(c.out) : contiguous(c.out)))
        << c.target << " on " << c.device << " with " << c.channels << " channels";
  }
  GraphText g3;
  const std::vector<int64_t> in3{2, 3, 4, 5, 5};
  g3.input("x", tensor(in3, "float32", "cpu", channels_last(in3)))
      .call("y", "aten.replication_pad3d.default", {node("x"), json::array({1, 1, 1, 1, 1, 1})});
  EXPECT_EQ(strs(run(g3).tensor("y").strides), as_strs(contiguous({2, 3, 6, 7, 7}))) << "3-D pads are contiguous";
}

TEST(FxNn, ActivationBackwardsTakeTheLayoutOfTheirFirstOperand) {
  // grad_output contiguous, self transposed: the decompositions that select
  // on self (and threshold_backward's iterator) give self's layout; the
  // (grad_output, self) iterators give grad_output's. Measured with torch 2.15.
  const std::pair<const char*, json> self_first[] = {
      {"aten.elu_backward.default", {node("g"), 1.0, 1.0, 1.0, false, node("s")}},
      {"aten.hardtanh_backward.default", {node("g"), node("s"), -1.0, 1.0}},
      {"aten.leaky_relu_backward.default", {node("g"), node("s"), 0.1, false}},
      {"aten.hardsigmoid_backward.default", {node("g"), node("s")}},
      {"aten.hardswish_backward.default", {node("g"), node("s")}},
      {"aten.softplus_backward.default", {node("g"), node("s"), 1.0, 20.0}},
      {"aten.threshold_backward.default", {node("g"), node("s"), 0.0}},
  };
  const std::pair<const char*, json> grad_first[] = {
      {"aten.gelu_backward.default", {node("g"), node("s")}},
      {"aten.silu_backward.default", {node("g"), node("s")}},
      {"aten.sigmoid_backward.default", {node("g"), node("s")}},
      {"aten.tanh_backward.default", {node("g"), node("s")}},
      {"aten.mish_backward.default", {node("g"), node("s")}},
  };
  auto strides_of = [](const char* target, const json& args) {
    GraphText g;
    g.input("g", tensor({2, 3})).input("s", tensor({2, 3}, "float32", "cpu", json::array({1, 2}))).call("y", target, args);
    Ran r = run(g);
    EXPECT_EQ(r.error("y"), "") << target;
    return strs(r.tensor("y").strides);
  };
  for (const auto& [target, args] : self_first) EXPECT_EQ(strides_of(target, args), (Strs{"1", "2"})) << target;
  for (const auto& [target, args] : grad_first) EXPECT_EQ(strides_of(target, args), (Strs{"3", "1"})) << target;
}

TEST(FxNn, MatrixProductsCheckSelfAndVectors) {
  struct Case {
    const char* target;
    std::vector<int64_t> self;
    const char* want_error;  // "" when accepted
  };
  const Case cases[] = {
      {"aten.addmm.default", {2, 1}, ""},
      {"aten.addmm.default", {4}, ""},
      {"aten.addmm.default", {1, 2, 4}, "must be greater or equal to the number of dimensions"},
      {"aten.addmm.default", {3}, "must match the existing size (3)"},
      {"aten.baddbmm.default", {2, 1, 4}, ""},
      {"aten.baddbmm.default", {3, 1, 4}, "must match the existing size (3)"},
  };
  for (const Case& c : cases) {
    const bool batched = std::string(c.target) == "aten.baddbmm.default";
    GraphText g;
    g.input("self", tensor(c.self))
        .input("a", tensor(batched ? std::vector<int64_t>{2, 2, 3} : std::vector<int64_t>{2, 3}))
        .input("b", tensor(batched ? std::vector<int64_t>{2, 3, 4} : std::vector<int64_t>{3, 4}))
        .call("y", c.target, {node("self"), node("a"), node("b")});
    const std::string err = run(g).error("y");
    if (*c.want_error == '\0')
      EXPECT_EQ(err, "") << c.target;
    else
      EXPECT_NE(err.find(c.want_error), std::string::npos) << c.target << ": " << err;
  }
  GraphText d;
  d.input("a", tensor({3})).input("b", tensor({4})).call("y", "aten.dot.default", {node("a"), node("b")});
  EXPECT_NE(run(d).error("y").find("inconsistent tensor size"), std::string::npos);
}


// The CompositeImplicit ops torch.export's default IR keeps, over symbolic
// sizes (ops_composite.json has their static cases from torch 2.15).
TEST(FxNn, CompositeOpsOfTheExportIR) {
  struct Case {
    const char* target;
    json input;  // the placeholder x
    std::vector<json> args;   // after x; "w", "b", "c" name the other placeholders
    Strs shape, stride;
    bool aliases_x = false;
  };
  const json w = node("w"), b = node("b"), c = node("c");
  const json cl = json::array({"3*s0*s1", 1, "3*s1", 3});
  const Case cases[] = {
      {"aten.conv2d.default", tensor({"s2", 3, "s0", "s1"}), {w, b, json::array({2, 2}), json::array({1, 1})},
       {"s2", "8", "(s0 - 1)//2 + 1", "(s1 - 1)//2 + 1"}, {}},
      // unbatched: a batch of one, squeezed out again
      {"aten.conv2d.default", tensor({3, "s0", "s1"}), {w}, {"8", "s0 - 2", "s1 - 2"},
       {"max(1, s0 - 2)*max(1, s1 - 2)", "max(1, s1 - 2)", "1"}},
      {"aten.conv2d.default", tensor({1, 3, "s0", "s1"}, "float32", "cpu", cl), {w, b, json::array({1, 1}),
       json::array({1, 1})}, {"1", "8", "s0", "s1"}, {"8*s0*s1", "1", "8*s1", "8"}},
      // "same" pads dilation * (k - 1) = 2 in all; an even kernel pads the input once more
      {"aten.conv2d.padding", tensor({2, 3, "s0", "s1"}), {w, b, json::array({1, 1}), "same"},
       {"2", "8", "s0", "s1"}, {}},
      {"aten.conv2d.padding", tensor({2, 3, "s0", "s1"}), {w, b, json::array({1, 1}), "valid"},
       {"2", "8", "s0 - 2", "s1 - 2"}, {}},
      {"aten.conv_transpose2d.input", tensor({2, 8, "s0", "s1"}), {node("wt"), nullptr, json::array({2, 2})},
       {"2", "3", "2*s0 + 1", "2*s1 + 1"}, {}},
      {"aten.layer_norm.default", tensor({"s0", 5, 8}, "float32", "cpu", json::array({1, "8*s0", "s0"})),
       {json::array({8}), c, c}, {"s0", "5", "8"}, {"40", "8", "1"}},
      {"aten.batch_norm.default", tensor({2, 3, "s0", "s1"}, "float32", "cpu", cl),
       {node("b3"), node("b3"), node("b3"), node("b3"), false, 0.1, 1e-5, true}, {"2", "3", "s0", "s1"}, {"3*s0*s1", "1", "3*s1", "3"}},
      {"aten.group_norm.default", tensor({2, 3, "s0", "s1"}, "float32", "cpu", cl), {3},
       {"2", "3", "s0", "s1"}, {"3*s0*s1", "1", "3*s1", "3"}},
      {"aten.dropout.default", tensor({"s0", 8}), {0.1, false}, {"s0", "8"}, {"8", "1"}, true},
      {"aten.dropout.default", tensor({"s0", 8}, "float32", "cpu", json::array({1, "s0"})), {0.1, true},
       {"s0", "8"}, {"1", "s0"}},
      {"aten.dropout.default", tensor({"s0", 8}), {0.0, true}, {"s0", "8"}, {"8", "1"}, true},
      {"aten.dropout_.default", tensor({"s0", 8}), {0.1, true}, {"s0", "8"}, {"8", "1"}, true},
      {"aten.adaptive_avg_pool2d.default", tensor({2, 3, "s0", "s1"}, "float32", "cpu", cl),
       {json::array({1, 1})}, {"2", "3", "1", "1"}, {"3", "1", "3", "3"}},
      {"aten.adaptive_avg_pool2d.default", tensor({2, 3, "s0", "s1"}), {json::array({1, 1})},
       {"2", "3", "1", "1"}, {"3", "1", "1", "1"}},
      {"aten.max_pool2d.default", tensor({2, 3, "s0", "s1"}), {json::array({2, 2})},
       {"2", "3", "s0//2", "s1//2"}, {}},
  };
  for (const Case& k : cases) {
    GraphText g;
    g.symbol("s0", 16).symbol("s1", 12).symbol("s2", 2)
        .input("x", k.input)
        .input("w", tensor({8, 3, 3, 3}))
        .input("wt", tensor({8, 3, 3, 3}))
        .input("b", tensor({8}))
        .input("b3", tensor({3}))
        .input("c", tensor({8}));
    json args = k.args;
    args.insert(args.begin(), node("x"));
    g.call("y", k.target, args);
    Ran r = run(g);
    ASSERT_EQ(r.error("y"), "") << k.target << " " << args.dump();
    const TensorMeta& y = r.tensor("y");
    EXPECT_EQ(strs(y.sizes), k.shape) << k.target << " " << args.dump();
    if (!k.stride.empty()) {
      EXPECT_EQ(strs(y.strides), k.stride) << k.target << " " << args.dump();
    }
    EXPECT_EQ(y.storage == r.tensor("x").storage, k.aliases_x) << k.target << " " << args.dump();
  }
}

TEST(FxNn, CompositeOpsRejectWhatTorchRejects) {
  struct Case {
    const char* target;
    std::vector<json> args;
    const char* error;
  };
  const Case cases[] = {
      {"aten.conv2d.padding", {node("x"), node("w"), nullptr, json::array({2, 2}), "same"},
       "padding='same' is not supported for strided convolutions"},
      {"aten.conv2d.padding", {node("x"), node("w"), nullptr, json::array({1, 1}), "full"},
       "Invalid padding string: 'full'"},
      {"aten.conv2d.default", {node("v"), node("w")}, "Expected 3D (unbatched) or 4D (batched) input to conv2d"},
      {"aten.group_norm.default", {node("x"), 2}, "divisible by num_groups"},
      {"aten.dropout.default", {node("x"), 1.5, true}, "dropout probability has to be between 0 and 1"},
      {"aten.layer_norm.default", {node("x"), json::array({5})}, "Given normalized_shape=[5]"},
  };
  for (const Case& k : cases) {
    GraphText g;
    g.symbol("s0", 16)
        .input("x", tensor({2, 3, "s0", 8}))
        .input("v", tensor({3, 8}))
        .input("w", tensor({8, 3, 3, 3}))
        .call("y", k.target, k.args);
    const std::string err = run(g).error("y");
    EXPECT_NE(err.find(k.error), std::string::npos) << k.target << ": " << err;
  }
}

// scaled_dot_product_attention's backend on CPU: the flash kernel keeps the
// query's layout when its gates pass; the math path is contiguous.
TEST(FxNn, SdpaPicksTheCpuFlashLayoutWhenItsGatesPass) {
  struct Case {
    json q_stride;
    json kwargs;
    const char* device;
    Strs stride;
  };
  const json blhe = json::array({"64*s0", 16, 64, 1});
  const Case cases[] = {
      {blhe, json::object(), "cpu", {"64*s0", "16", "64", "1"}},
      {blhe, {{"enable_gqa", true}}, "cpu", {"64*s0", "16", "64", "1"}},
      {blhe, {{"dropout_p", 0.1}}, "cpu", {"64*s0", "16*s0", "16", "1"}},
      {blhe, json::object(), "cuda:0", {"64*s0", "16*s0", "16", "1"}},
      {json::array({"64*s0", "16*s0", 1, "s0"}), json::object(), "cpu", {"64*s0", "16*s0", "16", "1"}},
  };
  for (const Case& k : cases) {
    GraphText g;
    g.symbol("s0", 8)
        .input("q", tensor({2, 4, "s0", 16}, "float32", k.device, k.q_stride))
        .input("k", tensor({2, 4, "s0", 16}, "float32", k.device))
        .call("y", "aten.scaled_dot_product_attention.default", {node("q"), node("k"), node("k")}, k.kwargs);
    Ran r = run(g);
    ASSERT_EQ(r.error("y"), "") << k.kwargs.dump();
    EXPECT_EQ(strs(r.tensor("y").strides), k.stride) << k.device << " " << k.q_stride.dump() << k.kwargs.dump();
  }
  // Key/value heads: one broadcasts (flash on CPU), another count must divide with enable_gqa.
  struct Heads {
    int64_t kv_heads;
    bool gqa;
    const char* error;  // "" when accepted
  };
  for (const Heads& h : {Heads{1, false, ""}, Heads{2, true, ""}, Heads{2, false, "must match the size of tensor b (2)"},
                         Heads{3, true, "must divide the number of heads in query"}}) {
    GraphText g;
    g.symbol("s0", 8)
        .input("q", tensor({2, 4, "s0", 16}, "float32", "cpu", blhe))
        .input("k", tensor({2, h.kv_heads, "s0", 16}))
        .call("y", "aten.scaled_dot_product_attention.default", {node("q"), node("k"), node("k")},
              {{"enable_gqa", h.gqa}});
    Ran r = run(g);
    if (*h.error == '\0') {
      ASSERT_EQ(r.error("y"), "") << h.kv_heads;
      EXPECT_EQ(strs(r.tensor("y").strides), (Strs{"64*s0", "16", "64", "1"})) << h.kv_heads;
    } else {
      EXPECT_NE(r.error("y").find(h.error), std::string::npos) << r.error("y");
    }
  }
}


// More composites over symbolic sizes: pad's modes, max_pool1d through the
// 2-D kernel, adaptive_max_pool1d, rms_norm, instance_norm, glu, prelu,
// pixel_unshuffle, channel_shuffle.
TEST(FxNn, MoreCompositeOpsOverSymbolicSizes) {
  struct Case {
    const char* target;
    json input;
    std::vector<json> args;  // after x
    Strs shape, stride;
  };
  const json cl = json::array({"3*s0*s1", 1, "3*s1", 3});
  const json nlc = json::array({"3*s0", 1, 3});  // [2, 3, s0] channels innermost
  const Case cases[] = {
      {"aten.pad.default", tensor({2, 3, "s0", "s1"}, "float32", "cpu", cl), {json::array({1, 2})},
       {"2", "3", "s0", "s1 + 3"}, {"s0*(3*s1 + 9)", "1", "3*s1 + 9", "3"}},
      {"aten.pad.default", tensor({2, 3, "s0", "s1"}), {json::array({1, 1, 2, 2}), "reflect"},
       {"2", "3", "s0 + 4", "s1 + 2"}, {}},
      {"aten.pad.default", tensor({2, 3, "s0"}), {json::array({2, 1}), "replicate"}, {"2", "3", "s0 + 3"},
       {"3*s0 + 9", "s0 + 3", "1"}},
      {"aten.pad.default", tensor({2, 3, "s0"}), {json::array({2, 1}), "circular"}, {"2", "3", "s0 + 3"},
       {"3*s0 + 9", "s0 + 3", "1"}},
      {"aten.max_pool1d.default", tensor({2, 3, "s0"}, "float32", "cpu", nlc), {json::array({2})},
       {"2", "3", "s0//2"}, {"3*(s0//2)", "1", "3"}},
      {"aten.max_pool1d.default", tensor({3, "s0"}), {json::array({3}), json::array({2}), json::array({1})},
       {"3", "(s0 - 1)//2 + 1"}, {}},
      {"aten.rms_norm.default", tensor({"s0", 5, 8}, "float16", "cpu", json::array({1, "8*s0", "s0"})),
       {json::array({8}), node("c")}, {"s0", "5", "8"}, {"40", "8", "1"}},
      {"aten.instance_norm.default", tensor({2, 3, "s0", "s1"}, "float32", "cpu", cl),
       {nullptr, nullptr, nullptr, nullptr, true, 0.1, 1e-5, false}, {"2", "3", "s0", "s1"},
       {"3*s0*s1", "s0*s1", "s1", "1"}},
      {"aten.glu.default", tensor({2, "2*s0"}), json::array(), {"2", "s0"}, {"s0", "1"}},
      {"aten.prelu.default", tensor({2, 3, "s0", "s1"}, "float32", "cpu", cl), {node("w3")},
       {"2", "3", "s0", "s1"}, {"3*s0*s1", "1", "3*s1", "3"}},
      {"aten.pixel_unshuffle.default", tensor({2, 3, "2*s0", "2*s1"}), {2}, {"2", "12", "s0", "s1"}, {}},
      {"aten.channel_shuffle.default", tensor({2, 6, "s0", "s1"}, "float32", "cpu",
                                              json::array({"6*s0*s1", 1, "6*s1", 6})),
       {3}, {"2", "6", "s0", "s1"}, {"6*s0*s1", "s0*s1", "s1", "1"}},
  };
  for (const Case& k : cases) {
    GraphText g;
    g.symbol("s0", 16).symbol("s1", 12).input("x", k.input).input("c", tensor({8})).input("w3", tensor({3}));
    json args = k.args;
    args.insert(args.begin(), node("x"));
    g.call("y", k.target, args);
    Ran r = run(g);
    ASSERT_EQ(r.error("y"), "") << k.target << " " << args.dump();
    EXPECT_EQ(strs(r.tensor("y").sizes), k.shape) << k.target << " " << args.dump();
    if (!k.stride.empty()) {
      EXPECT_EQ(strs(r.tensor("y").strides), k.stride) << k.target << " " << args.dump();
    }
  }
  GraphText g;
  g.symbol("s0", 16).input("x", tensor({2, 3, "s0"})).call("y", "aten.adaptive_max_pool1d.default",
                                                           {node("x"), json::array({4})});
  Ran r = run(g);
  ASSERT_EQ(r.error("y"), "");
  EXPECT_EQ(strs(r.tensor("y", 0).sizes), (Strs{"2", "3", "4"}));
  EXPECT_EQ(r.tensor("y", 1).dtype, DType::Int64);
  GraphText bad;
  bad.input("x", tensor({2, 3, 6, 8})).call("y", "aten.pad.default", {node("x"), json::array({1, 1}), "reflect"});
  EXPECT_NE(run(bad).error("y").find("Padding size 2 is not supported for 4D input tensor."), std::string::npos);
}

}  // namespace
}  // namespace fakeprop::fx
