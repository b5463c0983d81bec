// com.microsoft contrib rules. Expected shapes follow onnxruntime's
// docs/ContribOperators.md (input/output shape descriptions) and the
// kernels' shape arithmetic (present length = past length + new length).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>

#include "fakeprop/onnx/model_test_util.h"
#include "fakeprop/onnx/ops/rule_case_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::dtype_of;
using testing::error_kinds;
using testing::run;
using testing::shape_of;

using namespace testing::dtypes;
using Strings = std::vector<std::string>;
using Build = std::function<void(ModelBuilder&)>;

using Expect = testing::RuleExpect;
using Case = testing::RuleCase;

class MicrosoftCase : public ::testing::TestWithParam<Case> {};

TEST_P(MicrosoftCase, Infers) {
  // Every case imports com.microsoft beside its default-domain opset.
  Case c = GetParam();
  c.build = [build = GetParam().build](ModelBuilder& b) {
    b.opset("com.microsoft", 1);
    build(b);
  };
  testing::check_rule_case(c);
}

// A com.microsoft node over inputs declared by `setup`.
Build ms(const std::string& op, Strings inputs, Strings outputs, Build setup, Build attrs = [](ModelBuilder&) {}) {
  return [=](ModelBuilder& b) {
    setup(b);
    b.node(op, inputs, outputs, "n", "com.microsoft");
    attrs(b);
  };
}

Build attr(const std::string& name, int64_t v) {
  return [=](ModelBuilder& b) { b.attr_int(name, v); };
}
Build all(std::vector<Build> fs) {
  return [=](ModelBuilder& b) {
    for (const auto& f : fs) f(b);
  };
}

const std::map<std::string, std::vector<int64_t>> kBsp = {{"x", {2, 5, 768}}, {"past", {2, 2, 12, 7, 64}}};

const std::vector<Case>& cases() {
  static const std::vector<Case> all_cases = {
      {"attention_with_past", 17,
       ms("Attention", {"x", "w", "b", "", "past"}, {"y", "present"},
          [](ModelBuilder& b) {
            b.input("x", kFloat, {"B", "S", 768}).weight("w", kFloat, {768, 2304}).weight("b", kFloat, {2304});
            b.input("past", kFloat, {2, "B", 12, "P", 64});
          },
          attr("num_heads", 12)),
       {{"y", {"B", "S", "768"}, std::nullopt, DType::Float32}, {"present", {"2", "B", "12", "P + S", "64"}}},
       "",
       kBsp},
      {"attention_qkv_hidden_sizes_no_past", 17,
       ms("Attention", {"x", "w"}, {"y", "present"},
          [](ModelBuilder& b) { b.input("x", kFloat16, {"B", "S", 32}).weight("w", kFloat16, {32, 160}); },
          all({attr("num_heads", 2), [](ModelBuilder& b) { b.attr_ints("qkv_hidden_sizes", {64, 64, 32}); }})),
       {{"y", {"B", "S", "32"}, std::nullopt, DType::Float16}, {"present", {"2", "B", "2", "S", "32"}, std::nullopt, DType::Float16}},
       "",
       {{"x", {2, 5, 32}}}},
      {"attention_share_buffer", 17,
       ms("Attention", {"x", "w", "b", "", "past", "", "plen"}, {"y", "present"},
          [](ModelBuilder& b) {
            b.input("x", kFloat, {2, 1, 64}).weight("w", kFloat, {64, 192}).weight("b", kFloat, {192});
            b.input("past", kFloat, {2, 2, 4, 128, 16}).input("plen", kInt32, {1});
          },
          all({attr("num_heads", 4), attr("past_present_share_buffer", 1)})),
       {{"y", {"2", "1", "64"}}, {"present", {"2", "2", "4", "128", "16"}}}},
      {"attention_weights_not_divisible", 17,
       ms("Attention", {"x", "w"}, {"y"},
          [](ModelBuilder& b) { b.input("x", kFloat, {2, 5, 64}).weight("w", kFloat, {64, 100}); },
          attr("num_heads", 4)),
       {},
       "shape_mismatch"},
      {"attention_input_width_mismatch", 17,
       ms("Attention", {"x", "w"}, {"y"},
          [](ModelBuilder& b) { b.input("x", kFloat, {2, 5, 32}).weight("w", kFloat, {64, 192}); },
          attr("num_heads", 4)),
       {},
       "shape_mismatch"},
      {"mha_with_past", 17,
       ms("MultiHeadAttention", {"q", "k", "v", "", "", "", "pk", "pv"}, {"y", "present_k", "present_v"},
          [](ModelBuilder& b) {
            b.input("q", kFloat, {"B", "S", 64}).input("k", kFloat, {"B", "L", 64}).input("v", kFloat, {"B", "L", 32});
            b.input("pk", kFloat, {"B", 4, "P", 16}).input("pv", kFloat, {"B", 4, "P", 8});
          },
          attr("num_heads", 4)),
       {{"y", {"B", "S", "32"}}, {"present_k", {"B", "4", "L + P", "16"}}, {"present_v", {"B", "4", "L + P", "8"}}},
       "",
       {{"q", {2, 3, 64}}, {"k", {2, 3, 64}}, {"v", {2, 3, 32}}, {"pk", {2, 4, 9, 16}}, {"pv", {2, 4, 9, 8}}}},
      // output_qk (4th output): (batch, num_heads, sequence_length, total_sequence_length), total = past + new.
      {"mha_output_qk_with_past", 17,
       ms("MultiHeadAttention", {"q", "k", "v", "", "", "", "pk", "pv"}, {"y", "", "", "qk"},
          [](ModelBuilder& b) {
            b.input("q", kFloat, {"B", "S", 64}).input("k", kFloat, {"B", "L", 64}).input("v", kFloat, {"B", "L", 64});
            b.input("pk", kFloat, {"B", 4, "P", 16}).input("pv", kFloat, {"B", 4, "P", 16});
          },
          attr("num_heads", 4)),
       {{"y", {"B", "S", "64"}}, {"qk", {"B", "4", "S", "L + P"}, std::nullopt, DType::Float32}},
       "",
       {{"q", {2, 3, 64}}, {"k", {2, 5, 64}}, {"v", {2, 5, 64}}, {"pk", {2, 4, 9, 16}}, {"pv", {2, 4, 9, 16}}}},
      {"mha_output_qk_self_attention", 17,
       ms("MultiHeadAttention", {"q", "k", "v"}, {"y", "present_k", "present_v", "qk"},
          [](ModelBuilder& b) {
            b.input("q", kFloat16, {2, 5, 32}).input("k", kFloat16, {2, 7, 32}).input("v", kFloat16, {2, 7, 32});
          },
          attr("num_heads", 2)),
       {{"present_k", {"2", "2", "7", "16"}}, {"qk", {"2", "2", "5", "7"}, std::nullopt, DType::Float16}}},
      {"mha_packed_qkv", 17,
       ms("MultiHeadAttention", {"qkv"}, {"y", "present_k", "present_v"},
          [](ModelBuilder& b) { b.input("qkv", kFloat, {"B", "S", 4, 3, 16}); }, attr("num_heads", 4)),
       {{"y", {"B", "S", "64"}}, {"present_k", {"B", "4", "S", "16"}}, {"present_v", {"B", "4", "S", "16"}}},
       "",
       {{"qkv", {2, 5, 4, 3, 16}}}},
      {"mha_cross_attention_bnsh", 17,
       ms("MultiHeadAttention", {"q", "k", "v"}, {"y"},
          [](ModelBuilder& b) {
            b.input("q", kFloat, {2, 5, 64}).input("k", kFloat, {2, 4, 7, 16}).input("v", kFloat, {2, 4, 7, 16});
          },
          attr("num_heads", 4)),
       {{"y", {"2", "5", "64"}}}},
      {"mha_key_value_length_mismatch", 17,
       ms("MultiHeadAttention", {"q", "k", "v"}, {"y"},
          [](ModelBuilder& b) {
            b.input("q", kFloat, {2, 5, 64}).input("k", kFloat, {2, 6, 64}).input("v", kFloat, {2, 7, 64});
          },
          attr("num_heads", 4)),
       {},
       "shape_mismatch"},
      {"gqa_with_past_and_total_length", 17,
       ms("GroupQueryAttention", {"q", "k", "v", "pk", "pv", "seqlens", "total"}, {"y", "present_k", "present_v"},
          [](ModelBuilder& b) {
            b.input("q", kFloat16, {"B", "S", 128}).input("k", kFloat16, {"B", "S", 32}).input("v", kFloat16, {"B", "S", 32});
            b.input("pk", kFloat16, {"B", 2, 64, 16}).input("pv", kFloat16, {"B", 2, 64, 16});
            b.input("seqlens", kInt32, {"B"});
            b.initializer_ints("total", {}, {100}, kInt32);
          },
          all({attr("num_heads", 8), attr("kv_num_heads", 2)})),
       {{"y", {"B", "S", "128"}, std::nullopt, DType::Float16}, {"present_k", {"B", "2", "100", "16"}, std::nullopt, DType::Float16}},
       "",
       {{"q", {2, 3, 128}}, {"k", {2, 3, 32}}, {"v", {2, 3, 32}}, {"pk", {2, 2, 64, 16}}, {"pv", {2, 2, 64, 16}},
        {"seqlens", {2}}}},
      {"gqa_packed_total_from_shape", 17,
       [](ModelBuilder& b) {
         b.input("qkv", kFloat, {"B", "S", 96}).input("pk", kFloat, {"B", 2, "P", 8}).input("pv", kFloat, {"B", 2, "P", 8});
         b.input("seqlens", kInt32, {"B"}).input("like", kFloat, {"P"});
         b.node("Shape", {"like"}, {"total"});
         b.node("GroupQueryAttention", {"qkv", "", "", "pk", "pv", "seqlens", "total"}, {"y", "present_k", "present_v"},
                "n", "com.microsoft")
             .attr_int("num_heads", 8)
             .attr_int("kv_num_heads", 2);
       },
       {{"y", {"B", "S", "64"}}, {"present_k", {"B", "2", "P", "8"}}},
       "",
       {{"qkv", {2, 3, 96}}, {"pk", {2, 2, 9, 8}}, {"pv", {2, 2, 9, 8}}, {"seqlens", {2}}, {"like", {9}}}},
      {"gqa_bad_head_ratio", 17,
       ms("GroupQueryAttention", {"q", "k", "v"}, {"y"},
          [](ModelBuilder& b) {
            b.input("q", kFloat, {1, 3, 96}).input("k", kFloat, {1, 3, 32}).input("v", kFloat, {1, 3, 32});
          },
          all({attr("num_heads", 6), attr("kv_num_heads", 4)})),
       {},
       "invalid_attribute"},
      {"skip_layer_norm_outputs", 17,
       ms("SkipLayerNormalization", {"x", "skip", "g", "beta", "bias"}, {"y", "mean", "inv", "sum"},
          [](ModelBuilder& b) {
            b.input("x", kFloat16, {"B", "S", 16}).input("skip", kFloat16, {"B", "S", 16});
            b.weight("g", kFloat16, {16}).weight("beta", kFloat16, {16}).weight("bias", kFloat16, {16});
          }),
       {{"y", {"B", "S", "16"}, std::nullopt, DType::Float16},
        {"mean", {"B", "S", "1"}, std::nullopt, DType::Float32},
        {"inv", {"B", "S", "1"}, std::nullopt, DType::Float32},
        {"sum", {"B", "S", "16"}, std::nullopt, DType::Float16}},
       "",
       {{"x", {2, 5, 16}}, {"skip", {2, 5, 16}}}},
      {"skip_simplified_layer_norm_2d", 17,
       ms("SkipSimplifiedLayerNormalization", {"x", "skip", "g"}, {"y", "", "", "sum"},
          [](ModelBuilder& b) {
            b.input("x", kFloat, {"T", 16}).input("skip", kFloat, {"T", 16}).weight("g", kFloat, {16});
          }),
       {{"y", {"T", "16"}}, {"sum", {"T", "16"}}},
       "",
       {{"x", {7, 16}}, {"skip", {7, 16}}}},
      {"skip_layer_norm_gamma_mismatch", 17,
       ms("SkipLayerNormalization", {"x", "skip", "g"}, {"y"},
          [](ModelBuilder& b) {
            b.input("x", kFloat, {2, 5, 16}).input("skip", kFloat, {2, 5, 16}).weight("g", kFloat, {8});
          }),
       {},
       "shape_mismatch"},
      {"simplified_layer_norm_default_domain", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat16, {"B", "S", 16}).weight("g", kFloat16, {16});
         b.node("SimplifiedLayerNormalization", {"x", "g"}, {"y", "inv"}, "n");
       },
       {{"y", {"B", "S", "16"}, std::nullopt, DType::Float16}, {"inv", {"B", "S", "1"}, std::nullopt, DType::Float32}},
       "",
       {{"x", {2, 5, 16}}}},
      {"embed_layer_norm", 17,
       ms("EmbedLayerNormalization", {"ids", "seg", "word", "pos", "segemb", "g", "beta"}, {"y", "mask", "sum"},
          [](ModelBuilder& b) {
            b.input("ids", kInt32, {"B", "S"}).input("seg", kInt32, {"B", "S"});
            b.weight("word", kFloat, {1000, 32}).weight("pos", kFloat, {512, 32}).weight("segemb", kFloat, {2, 32});
            b.weight("g", kFloat, {32}).weight("beta", kFloat, {32});
          }),
       {{"y", {"B", "S", "32"}, std::nullopt, DType::Float32}, {"mask", {"B"}, std::nullopt, DType::Int32}, {"sum", {"B", "S", "32"}}},
       "",
       {{"ids", {2, 5}}, {"seg", {2, 5}}}},
      {"fused_matmul_trans_a", 17,
       ms("FusedMatMul", {"a", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("a", kFloat, {4, 3}).input("b", kFloat, {4, 5}); }, attr("transA", 1)),
       {{"y", {"3", "5"}}}},
      {"fused_matmul_trans_batch_b", 17,
       ms("FusedMatMul", {"a", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("a", kFloat, {"N", 3, 4}).input("b", kFloat, {4, "N", 6}); },
          attr("transBatchB", 1)),
       {{"y", {"N", "3", "6"}}},
       "",
       {{"a", {2, 3, 4}}, {"b", {4, 2, 6}}}},
      {"fused_matmul_trans_batch_a_and_trans_b", 17,
       ms("FusedMatMul", {"a", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("a", kFloat, {3, 2, 4}).input("b", kFloat, {2, 6, 4}); },
          all({attr("transBatchA", 1), attr("transB", 1)})),
       {{"y", {"2", "3", "6"}}}},
      {"fused_matmul_mismatch", 17,
       ms("FusedMatMul", {"a", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("a", kFloat, {4, 3}).input("b", kFloat, {4, 5}); }),
       {},
       "shape_mismatch"},
      {"matmul_nbits", 17,
       ms("MatMulNBits", {"a", "b", "scales"}, {"y"},
          [](ModelBuilder& b) {
            b.input("a", kFloat16, {"B", "S", 64}).weight("b", kUInt8, {128, 2, 16}).weight("scales", kFloat16, {256});
          },
          all({attr("K", 64), attr("N", 128), attr("bits", 4), attr("block_size", 32)})),
       {{"y", {"B", "S", "128"}, std::nullopt, DType::Float16}},
       "",
       {{"a", {2, 5, 64}}}},
      {"matmul_nbits_k_mismatch", 17,
       ms("MatMulNBits", {"a", "b", "scales"}, {"y"},
          [](ModelBuilder& b) {
            b.input("a", kFloat, {2, 48}).weight("b", kUInt8, {128, 2, 16}).weight("scales", kFloat, {256});
          },
          all({attr("K", 64), attr("N", 128), attr("bits", 4), attr("block_size", 32)})),
       {},
       "shape_mismatch"},
      {"bias_gelu_broadcast", 17,
       ms("BiasGelu", {"a", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("a", kFloat, {"B", "S", 8}).weight("b", kFloat, {8}); }),
       {{"y", {"B", "S", "8"}}},
       "",
       {{"a", {2, 5, 8}}}},
      {"bias_split_gelu", 17,
       ms("BiasSplitGelu", {"x", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("x", kFloat16, {2, "HW", 64}).weight("b", kFloat16, {64}); }),
       {{"y", {"2", "HW", "32"}, std::nullopt, DType::Float16}},
       "",
       {{"x", {2, 16, 64}}}},
      {"bias_split_gelu_odd", 17,
       ms("BiasSplitGelu", {"x", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("x", kFloat, {2, 16, 63}).weight("b", kFloat, {63}); }),
       {},
       "shape_mismatch"},
      {"same_shape_activations", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"B", 8}).weight("bias", kFloat, {8});
         b.node("FastGelu", {"x", "bias"}, {"a"}, "n1", "com.microsoft");
         b.node("Gelu", {"a"}, {"g"}, "n2", "com.microsoft");
         b.node("QuickGelu", {"g"}, {"q"}, "n3", "com.microsoft");
         b.node("BiasAdd", {"x3", "bias", "x3"}, {"ba"}, "n4", "com.microsoft");
         b.input("x3", kFloat, {2, "B", 8});
       },
       {{"a", {"B", "8"}}, {"g", {"B", "8"}}, {"q", {"B", "8"}}, {"ba", {"2", "B", "8"}}},
       "",
       {{"x", {3, 8}}, {"x3", {2, 3, 8}}}},
      {"rotary_embedding", 17,
       ms("RotaryEmbedding", {"x", "pos", "cos", "sin"}, {"y"},
          [](ModelBuilder& b) {
            b.input("x", kFloat, {"B", "S", 64}).input("pos", 7, {"B", "S"});
            b.weight("cos", kFloat, {512, 8}).weight("sin", kFloat, {512, 8});
          }),
       {{"y", {"B", "S", "64"}}},
       "",
       {{"x", {2, 5, 64}}, {"pos", {2, 5}}}},
      // ---- quantized ops (ORT's quantizer); static shapes are checked against ORT in contrib_ort_test.cpp
      {"qattention_symbolic_past", 17,
       ms("QAttention", {"x", "w", "bias", "xs", "ws", "", "xz", "wz", "past"}, {"y", "present"},
          [](ModelBuilder& b) {
            b.input("x", kUInt8, {"B", "S", 16}).weight("w", kInt8, {16, 48}).weight("bias", kFloat16, {48});
            b.weight("xs", kFloat16, {}).weight("ws", kFloat16, {}).weight("xz", kUInt8, {}).weight("wz", kInt8, {});
            b.input("past", kFloat16, {2, "B", 4, "P", 4});
          },
          attr("num_heads", 4)),
       {{"y", {"B", "S", "16"}, std::nullopt, DType::Float16},
        {"present", {"2", "B", "4", "P + S", "4"}, std::nullopt, DType::Float16}},
       "",
       {{"x", {2, 5, 16}}, {"past", {2, 2, 4, 7, 4}}}},
      {"qgemm_inner_mismatch", 17,
       ms("QGemm", {"a", "as", "az", "b", "bs", "bz"}, {"y"},
          [](ModelBuilder& b) {
            b.input("a", kUInt8, {3, 4}).weight("b", kInt8, {5, 4}).weight("as", kFloat, {}).weight("bs", kFloat, {});
            b.weight("az", kUInt8, {}).weight("bz", kInt8, {});
          }),
       {},
       "shape_mismatch"},
      {"qlinear_concat_symbolic", 17,
       ms("QLinearConcat", {"ys", "yz", "a", "s", "z", "b", "s", "z"}, {"y"},
          [](ModelBuilder& b) {
            b.weight("ys", kFloat, {}).weight("yz", kInt8, {}).weight("s", kFloat, {}).weight("z", kInt8, {});
            b.input("a", kInt8, {"B", "N", 4}).input("b", kInt8, {"B", 3, 4});
          },
          attr("axis", -2)),
       {{"y", {"B", "N + 3", "4"}, std::nullopt, DType::Int8}},
       "",
       {{"a", {2, 5, 4}}, {"b", {2, 3, 4}}}},
      {"gather_block_quantized_symbolic_indices", 17,
       ms("GatherBlockQuantized", {"data", "idx", "scales"}, {"y"},
          [](ModelBuilder& b) {
            b.weight("data", kUInt8, {100, 32}).input("idx", 7, {"B", "S"}).weight("scales", kFloat16, {100, 2});
          },
          all({attr("bits", 4), attr("block_size", 32)})),
       {{"y", {"B", "S", "64"}, std::nullopt, DType::Float16}},
       "",
       {{"idx", {2, 5}}}},
      // ---- transformer fusions
      {"remove_padding_unknown_counts", 17,
       ms("RemovePadding", {"x", "counts"}, {"y", "offset", "cum", "max"},
          [](ModelBuilder& b) { b.input("x", kFloat, {2, 4, 8}).input("counts", kInt32, {2}); }),
       {{"y", {"u0", "8"}, std::nullopt, DType::Float32, 0, {0, 8}},
        {"offset", {"2", "4"}, std::nullopt, DType::Int32},
        {"cum", {"3"}},
        {"max", {"1"}}}},
      {"remove_padding_known_counts", 17,
       ms("RemovePadding", {"x", "counts"}, {"y"},
          [](ModelBuilder& b) {
            b.input("x", kFloat16, {2, 4, 8});
            b.initializer_ints("counts", {2}, {3, 4}, kInt32);
          }),
       {{"y", {"7", "8"}, std::nullopt, DType::Float16}}},
      {"relative_position_bias_lengths", 17,
       ms("RelativePositionBias", {"table", "ql", "kl"}, {"y"},
          [](ModelBuilder& b) {
            b.weight("table", kFloat, {32, 8});
            b.initializer_ints("ql", {}, {5}).initializer_ints("kl", {}, {9});
          },
          attr("max_distance", 128)),
       {{"y", {"1", "8", "5", "9"}}}},
      {"decoder_masked_mha_growing_past", 17,
       ms("DecoderMaskedMultiHeadAttention", {"q", "k", "v", "", "", "pk", "pv"}, {"y", "pk_out", "pv_out"},
          [](ModelBuilder& b) {
            b.input("q", kFloat, {"B", 1, 64}).input("k", kFloat, {"B", 1, 64}).input("v", kFloat, {"B", 1, 64});
            b.input("pk", kFloat, {"B", 4, "P", 16}).input("pv", kFloat, {"B", 4, "P", 16});
          },
          attr("num_heads", 4)),
       {{"y", {"B", "1", "64"}}, {"pk_out", {"B", "4", "P + 1", "16"}}, {"pv_out", {"B", "4", "P + 1", "16"}}},
       "",
       {{"q", {2, 1, 64}}, {"k", {2, 1, 64}}, {"v", {2, 1, 64}}, {"pk", {2, 4, 6, 16}}, {"pv", {2, 4, 6, 16}}}},
      {"packed_attention_tokens", 17,
       ms("PackedAttention", {"x", "w", "bias", "off", "cum"}, {"y"},
          [](ModelBuilder& b) {
            b.input("x", kFloat16, {"T", 32}).weight("w", kFloat16, {32, 80}).weight("bias", kFloat16, {80});
            b.input("off", kInt32, {"B", "S"}).input("cum", kInt32, {"B + 1"});
          },
          all({attr("num_heads", 2), [](ModelBuilder& b) { b.attr_ints("qkv_hidden_sizes", {32, 32, 16}); }})),
       {{"y", {"T", "16"}, std::nullopt, DType::Float16}},
       "",
       {{"x", {7, 32}}, {"off", {2, 4}}, {"cum", {3}}}},
      {"nhwc_conv_symbolic", 17,
       ms("NhwcConv", {"x", "w"}, {"y"},
          [](ModelBuilder& b) { b.input("x", kFloat16, {"N", "H", 32, 4}).weight("w", kFloat16, {8, 3, 3, 4}); },
          [](ModelBuilder& b) { b.attr_ints("pads", {1, 1, 1, 1}); }),
       {{"y", {"N", "H", "32", "8"}, std::nullopt, DType::Float16}},
       "",
       {{"x", {2, 16, 32, 4}}}},
      {"group_norm_groups_must_divide", 17,
       ms("GroupNorm", {"x", "g", "b"}, {"y"},
          [](ModelBuilder& b) {
            b.input("x", kFloat, {2, 4, 4, 6}).weight("g", kFloat, {6}).weight("b", kFloat, {6});
          },
          all({attr("groups", 4), attr("activation", 0)})),
       {},
       "shape_mismatch"},
      {"gemm_float8_dtype", 17,
       ms("GemmFloat8", {"a", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("a", kFloat16, {"M", 16}).weight("b", kFloat16, {16, 8}); },
          attr("dtype", 16)),
       {{"y", {"M", "8"}, std::nullopt, DType::BFloat16}},
       "",
       {{"a", {4, 16}}}},
      // ---- generation (ORT-checked with a real decoder subgraph in contrib_ort_test.cpp)
      {"beam_search_symbolic_prompt", 17,
       ms("BeamSearch", {"ids", "max_len", "", "beams", "returned"}, {"seq", "seq_scores", "scores"},
          [](ModelBuilder& b) {
            b.input("ids", kInt32, {"B", "S"});
            b.initializer_ints("max_len", {1}, {20}, kInt32).initializer_ints("beams", {1}, {4}, kInt32);
            b.initializer_ints("returned", {1}, {2}, kInt32);
          },
          all({attr("vocab_size", 50), attr("pad_token_id", 0), attr("eos_token_id", 2)})),
       {{"seq", {"B", "2", "20"}, std::nullopt, DType::Int32},
        {"seq_scores", {"B", "2"}, std::nullopt, DType::Float32},
        {"scores", {"20 - S", "B", "4", "50"}, std::nullopt, DType::Float32}},
       "",
       {{"ids", {3, 5}}}},
      {"greedy_search_unknown_max_length", 17,
       ms("GreedySearch", {"ids", "max_len"}, {"seq"},
          [](ModelBuilder& b) { b.input("ids", kInt32, {4, 6}).input("max_len", kInt32, {1}); },
          all({attr("pad_token_id", 0), attr("eos_token_id", 2)})),
       {{"seq", {"4", "u0"}, std::nullopt, DType::Int32, 1, {0, kIntOo}}}},
      // ---- ORT graph-optimizer fusions and older contrib ops
      {"bitmask_dropout_symbolic", 17,
       ms("BitmaskDropout", {"x"}, {"y", "mask"}, [](ModelBuilder& b) { b.input("x", kFloat, {"B", 40}); }),
       {{"y", {"B", "40"}}, {"mask", {"-((-(40*B))//32)"}, std::nullopt, DType::UInt32}},  // ceil(40 * B / 32)
       "",
       {{"x", {3, 40}}}},
      {"expand_dims_negative_axis", 17,
       ms("ExpandDims", {"x", "axis"}, {"y"},
          [](ModelBuilder& b) {
            b.input("x", kFloat, {"B", 3});
            b.initializer_ints("axis", {}, {-2}, kInt32);
          }),
       {{"y", {"B", "1", "3"}}},
       "",
       {{"x", {2, 3}}}},
      {"fused_gemm_inner_mismatch", 17,
       ms("FusedGemm", {"a", "b"}, {"y"},
          [](ModelBuilder& b) { b.input("a", kFloat, {4, 3}).weight("b", kFloat, {4, 5}); }),
       {},
       "shape_mismatch"},
  };
  return all_cases;
}

INSTANTIATE_TEST_SUITE_P(Microsoft, MicrosoftCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace fakeprop::onnx
