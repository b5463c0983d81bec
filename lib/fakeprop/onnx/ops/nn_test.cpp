// Neural-network rules. Static expectations come from the ONNX spec and the
// python3-onnx 1.12 backend cases (onnx/backend/test/case/node/*.py);
// symbolic window sizes are checked by substitution against output sizes
// that PyTorch 1.13 computed (torch.nn.functional.conv1d / max_pool1d /
// conv_transpose1d on zeros of length 6..25).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "fakeprop/onnx/ops/rule_case_test_util.h"
#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::dtype_of;
using testing::error_kinds;
using testing::find_value;
using testing::run;
using testing::shape_of;

using namespace testing::dtypes;
using Strings = std::vector<std::string>;
using Dims = std::vector<ModelBuilder::DimSpec>;
using Build = std::function<void(ModelBuilder&)>;

using Expect = testing::RuleExpect;
using Case = testing::RuleCase;

class NnCase : public ::testing::TestWithParam<Case> {};

TEST_P(NnCase, Infers) { testing::check_rule_case(GetParam()); }

Dims dims(std::initializer_list<ModelBuilder::DimSpec> d) { return Dims(d); }

// One node over float inputs given as (name, dims); attributes via `attrs`.
Build node(const std::string& op, std::vector<std::pair<std::string, Dims>> inputs, Strings outputs,
           Build attrs = [](ModelBuilder&) {}, Build extra = [](ModelBuilder&) {}) {
  return [=](ModelBuilder& b) {
    Strings names;
    for (const auto& [name, d] : inputs) {
      if (!name.empty()) b.input(name, kFloat, d);
      names.push_back(name);
    }
    extra(b);
    b.node(op, names, outputs, "n");
    attrs(b);
  };
}

// A node whose inputs are already declared by `setup`.
Build raw(const std::string& op, Strings inputs, Strings outputs, Build setup, Build attrs = [](ModelBuilder&) {}) {
  return [=](ModelBuilder& b) {
    setup(b);
    b.node(op, inputs, outputs, "n");
    attrs(b);
  };
}

Build ints(const std::string& name, std::vector<int64_t> v) {
  return [=](ModelBuilder& b) { b.attr_ints(name, v); };
}
Build attr(const std::string& name, int64_t v) {
  return [=](ModelBuilder& b) { b.attr_int(name, v); };
}
Build str(const std::string& name, const std::string& v) {
  return [=](ModelBuilder& b) { b.attr_string(name, v); };
}
Build all(std::vector<Build> fs) {
  return [=](ModelBuilder& b) {
    for (const auto& f : fs) f(b);
  };
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all_cases = {
      // ---- Conv (onnx conv.py: 5x5 input, 3x3 kernel) ----
      {"conv_pads_1", 11,
       node("Conv", {{"x", dims({1, 1, 5, 5})}, {"w", dims({1, 1, 3, 3})}}, {"y"}, ints("pads", {1, 1, 1, 1})),
       {{"y", {"1", "1", "5", "5"}, std::nullopt, DType::Float32}}},
      {"conv_no_pads", 11, node("Conv", {{"x", dims({1, 1, 5, 5})}, {"w", dims({1, 1, 3, 3})}}, {"y"}),
       {{"y", {"1", "1", "3", "3"}}}},
      {"conv_strides_pads", 11,
       node("Conv", {{"x", dims({1, 1, 7, 5})}, {"w", dims({1, 1, 3, 3})}}, {"y"},
            all({ints("pads", {1, 1, 1, 1}), ints("strides", {2, 2})})),
       {{"y", {"1", "1", "4", "3"}}}},
      {"conv_strides_asymmetric_pads", 11,
       node("Conv", {{"x", dims({1, 1, 7, 5})}, {"w", dims({1, 1, 3, 3})}}, {"y"},
            all({ints("pads", {1, 0, 1, 0}), ints("strides", {2, 2})})),
       {{"y", {"1", "1", "4", "2"}}}},
      {"conv_auto_pad_same_lower", 11,
       node("Conv", {{"x", dims({1, 1, 5, 5})}, {"w", dims({1, 1, 3, 3})}}, {"y"},
            all({str("auto_pad", "SAME_LOWER"), ints("strides", {2, 2})})),
       {{"y", {"1", "1", "3", "3"}}}},
      {"conv_group_and_dilation", 11,
       node("Conv", {{"x", dims({2, 4, 9, 9})}, {"w", dims({6, 2, 3, 3})}, {"b", dims({6})}}, {"y"},
            all({attr("group", 2), ints("dilations", {2, 2})})),
       {{"y", {"2", "6", "5", "5"}}}},
      {"conv_1d_symbolic_batch", 11,
       node("Conv", {{"x", dims({"N", 3, 10})}, {"w", dims({4, 3, 5})}}, {"y"}), {{"y", {"N", "4", "6"}}}, "",
       {{"x", {2, 3, 10}}}},
      {"conv_3d", 11, node("Conv", {{"x", dims({1, 2, 6, 7, 8})}, {"w", dims({5, 2, 3, 3, 3})}}, {"y"}),
       {{"y", {"1", "5", "4", "5", "6"}}}},
      {"conv_same_upper_symbolic", 11,
       node("Conv", {{"x", dims({1, 3, "H", "W"})}, {"w", dims({8, 3, 3, 3})}}, {"y"},
            all({str("auto_pad", "SAME_UPPER"), ints("strides", {1, 1})})),
       {{"y", {"1", "8", "H", "W"}}}, "", {{"x", {1, 3, 10, 12}}}},
      {"conv_channel_mismatch", 11,
       node("Conv", {{"x", dims({1, 4, 5, 5})}, {"w", dims({6, 3, 3, 3})}}, {"y"}, attr("group", 2)), {},
       "shape_mismatch"},
      {"conv_kernel_attr_disagrees_with_w", 11,
       node("Conv", {{"x", dims({1, 1, 5, 5})}, {"w", dims({1, 1, 3, 3})}}, {"y"}, ints("kernel_shape", {2, 2})), {},
       "shape_mismatch"},
      {"conv_kernel_larger_than_input", 11,
       node("Conv", {{"x", dims({1, 1, 2, 2})}, {"w", dims({1, 1, 3, 3})}}, {"y"}), {}, "invalid_shape"},
      {"conv_bad_auto_pad", 11,
       node("Conv", {{"x", dims({1, 1, 5, 5})}, {"w", dims({1, 1, 3, 3})}}, {"y"}, str("auto_pad", "SAME")), {},
       "invalid_attribute"},
      // ---- ConvTranspose (onnx convtranspose.py) ----
      {"convtranspose_basic", 11,
       node("ConvTranspose", {{"x", dims({1, 1, 3, 3})}, {"w", dims({1, 2, 3, 3})}}, {"y"}),
       {{"y", {"1", "2", "5", "5"}}}},
      {"convtranspose_pads", 11,
       node("ConvTranspose", {{"x", dims({1, 1, 3, 3})}, {"w", dims({1, 2, 3, 3})}}, {"y"},
            all({ints("strides", {3, 2}), ints("pads", {1, 2, 1, 2})})),
       {{"y", {"1", "2", "7", "3"}}}},
      {"convtranspose_output_shape", 11,
       node("ConvTranspose", {{"x", dims({1, 1, 3, 3})}, {"w", dims({1, 2, 3, 3})}}, {"y"},
            all({ints("strides", {3, 2}), ints("output_shape", {10, 8})})),
       {{"y", {"1", "2", "10", "8"}}}},
      {"convtranspose_output_padding", 11,
       node("ConvTranspose", {{"x", dims({1, 1, 3, 3})}, {"w", dims({1, 2, 3, 3})}}, {"y"},
            all({ints("strides", {3, 2}), ints("output_padding", {1, 1})})),
       {{"y", {"1", "2", "10", "8"}}}},
      {"convtranspose_autopad_same", 11,
       node("ConvTranspose", {{"x", dims({1, 1, 3, 3})}, {"w", dims({1, 2, 3, 3})}}, {"y"},
            all({str("auto_pad", "SAME_UPPER"), ints("strides", {2, 2})})),
       {{"y", {"1", "2", "6", "6"}}}},
      {"convtranspose_dilations", 11,
       node("ConvTranspose", {{"x", dims({1, 1, 3, 3})}, {"w", dims({1, 1, 2, 2})}}, {"y"}, ints("dilations", {2, 2})),
       {{"y", {"1", "1", "5", "5"}}}},
      {"convtranspose_group_symbolic", 11,
       node("ConvTranspose", {{"x", dims({"N", 4, "H", 3})}, {"w", dims({4, 3, 3, 3})}}, {"y"},
            all({attr("group", 2), ints("strides", {2, 1})})),
       {{"y", {"N", "6", "2*H + 1", "5"}}}, "", {{"x", {2, 4, 5, 3}}}},
      // ---- pooling (onnx maxpool.py / averagepool.py / lppool.py) ----
      {"maxpool_2d_default", 12,
       node("MaxPool", {{"x", dims({1, 3, 32, 32})}}, {"y"}, ints("kernel_shape", {2, 2})),
       {{"y", {"1", "3", "31", "31"}, std::nullopt, DType::Float32}}},
      {"maxpool_2d_ceil", 12,
       node("MaxPool", {{"x", dims({1, 1, 4, 4})}}, {"y"},
            all({ints("kernel_shape", {3, 3}), ints("strides", {2, 2}), attr("ceil_mode", 1)})),
       {{"y", {"1", "1", "2", "2"}}}},
      {"maxpool_ceil_last_window_in_padding", 12,
       node("MaxPool", {{"x", dims({1, 1, 5})}}, {"y"},
            all({ints("kernel_shape", {2}), ints("strides", {2}), ints("pads", {1, 1}), attr("ceil_mode", 1)})),
       {{"y", {"1", "1", "3"}}}},  // torch max_pool1d(k=2, s=2, p=1, ceil) of length 5
      {"maxpool_with_indices", 12,
       node("MaxPool", {{"x", dims({1, 1, 5, 5})}}, {"y", "i"},
            all({ints("kernel_shape", {5, 5}), ints("pads", {2, 2, 2, 2})})),
       {{"y", {"1", "1", "5", "5"}}, {"i", {"1", "1", "5", "5"}, std::nullopt, DType::Int64}}},
      {"maxpool_dilations", 12,
       node("MaxPool", {{"x", dims({1, 1, 4, 4})}}, {"y"},
            all({ints("kernel_shape", {2, 2}), ints("dilations", {2, 2})})),
       {{"y", {"1", "1", "2", "2"}}}},
      {"maxpool_same_upper", 12,
       node("MaxPool", {{"x", dims({1, 3, 32, 32})}}, {"y"},
            all({ints("kernel_shape", {2, 2}), str("auto_pad", "SAME_UPPER")})),
       {{"y", {"1", "3", "32", "32"}}}},
      {"maxpool_same_lower_strided_symbolic", 12,
       node("MaxPool", {{"x", dims({1, 3, "H", 32})}}, {"y"},
            all({ints("kernel_shape", {3, 3}), ints("strides", {2, 2}), str("auto_pad", "SAME_LOWER")})),
       {{"y", {"1", "3", "-((-H)//2)", "16"}}}, "", {{"x", {1, 3, 9, 32}}}},
      {"maxpool_3d", 12, node("MaxPool", {{"x", dims({1, 1, 32, 32, 32})}}, {"y"}, ints("kernel_shape", {2, 2, 2})),
       {{"y", {"1", "1", "31", "31", "31"}}}},
      {"maxpool_no_indices_before_8", 7,
       node("MaxPool", {{"x", dims({1, 1, 4, 4})}}, {"y", "i"}, ints("kernel_shape", {2, 2})), {}, "output_count"},
      {"maxpool_pads_with_auto_pad", 12,
       node("MaxPool", {{"x", dims({1, 1, 4, 4})}}, {"y"},
            all({ints("kernel_shape", {2, 2}), ints("pads", {1, 1, 1, 1}), str("auto_pad", "VALID")})),
       {}, "invalid_attribute"},
      {"averagepool_2d_pads", 11,
       node("AveragePool", {{"x", dims({1, 3, 28, 28})}}, {"y"},
            all({ints("kernel_shape", {3, 3}), ints("pads", {2, 2, 2, 2})})),
       {{"y", {"1", "3", "30", "30"}}}},
      {"averagepool_ceil_ignored_before_10", 7,
       node("AveragePool", {{"x", dims({1, 1, 4, 4})}}, {"y"},
            all({ints("kernel_shape", {3, 3}), ints("strides", {2, 2}), attr("ceil_mode", 1)})),
       {{"y", {"1", "1", "1", "1"}}}},
      {"averagepool_dilations_19", 19,
       node("AveragePool", {{"x", dims({1, 1, 4, 4})}}, {"y"},
            all({ints("kernel_shape", {2, 2}), ints("dilations", {2, 2})})),
       {{"y", {"1", "1", "2", "2"}}}},
      {"lppool_2d_strides", 11,
       node("LpPool", {{"x", dims({1, 3, 32, 32})}}, {"y"},
            all({ints("kernel_shape", {5, 5}), ints("strides", {3, 3})})),
       {{"y", {"1", "3", "10", "10"}}}},
      {"globalaveragepool_symbolic", 11, node("GlobalAveragePool", {{"x", dims({"N", 3, "H", "W"})}}, {"y"}),
       {{"y", {"N", "3", "1", "1"}}}, "", {{"x", {2, 3, 5, 7}}}},
      {"globalmaxpool", 11, node("GlobalMaxPool", {{"x", dims({1, 3, 5, 5, 5})}}, {"y"}),
       {{"y", {"1", "3", "1", "1", "1"}}}},
      {"maxroipool", 11,
       node("MaxRoiPool", {{"x", dims({2, 3, 16, 16})}, {"rois", dims({"R", 5})}}, {"y"}, ints("pooled_shape", {4, 5})),
       {{"y", {"R", "3", "4", "5"}}}, "", {{"rois", {6, 5}}}},
      {"roialign", 16,
       raw("RoiAlign", {"x", "rois", "idx"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 10, 10}).input("rois", kFloat, {3, 4}).input("idx", kInt64, {3});
           },
           all({attr("output_height", 5), attr("output_width", 5)})),
       {{"y", {"3", "1", "5", "5"}}}},
      {"maxunpool_strided", 11,
       raw("MaxUnpool", {"x", "i"}, {"y"},
           [](ModelBuilder& b) { b.input("x", kFloat, {1, 1, 2, 2}).input("i", kInt64, {1, 1, 2, 2}); },
           all({ints("kernel_shape", {2, 2}), ints("strides", {2, 2})})),
       {{"y", {"1", "1", "4", "4"}}}},
      {"maxunpool_output_shape", 11,
       raw("MaxUnpool", {"x", "i", "s"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 2, 2}).input("i", kInt64, {1, 1, 2, 2});
             b.initializer_ints("s", {4}, {1, 1, 5, 5});
           },
           all({ints("kernel_shape", {2, 2}), ints("strides", {2, 2})})),
       {{"y", {"1", "1", "5", "5"}}}},
      // ---- normalization ----
      {"batchnorm_inference", 15,
       node("BatchNormalization",
            {{"x", dims({"N", 3, 4, 5})}, {"s", dims({3})}, {"b", dims({3})}, {"m", dims({3})}, {"v", dims({3})}},
            {"y"}),
       {{"y", {"N", "3", "4", "5"}}}, "", {{"x", {2, 3, 4, 5}}}},
      {"batchnorm_training_outputs", 15,
       raw("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"},
           [](ModelBuilder& b) {
             b.input("x", kFloat16, {2, 3, 4, 5}).input("s", kFloat16, {3}).input("b", kFloat16, {3});
             b.input("m", kFloat, {3}).input("v", kFloat, {3});
           },
           attr("training_mode", 1)),
       {{"y", {"2", "3", "4", "5"}, std::nullopt, DType::Float16}, {"rm", {"3"}, std::nullopt, DType::Float32}, {"rv", {"3"}, std::nullopt, DType::Float32}}},
      {"batchnorm_opset9_saved_stats", 9,
       node("BatchNormalization",
            {{"x", dims({2, 3, 4})}, {"s", dims({3})}, {"b", dims({3})}, {"m", dims({3})}, {"v", dims({3})}},
            {"y", "mean", "var", "saved_mean", "saved_var"}),
       {{"y", {"2", "3", "4"}}, {"mean", {"3"}}, {"saved_var", {"3"}}}},
      {"batchnorm_opset7_not_spatial", 7,
       node("BatchNormalization",
            {{"x", dims({2, 3, 4})}, {"s", dims({3, 4})}, {"b", dims({3, 4})}, {"m", dims({3, 4})}, {"v", dims({3, 4})}},
            {"y", "mean"}, attr("spatial", 0)),
       {{"y", {"2", "3", "4"}}, {"mean", {"3", "4"}}}},
      {"batchnorm_extra_outputs_without_training", 15,
       node("BatchNormalization",
            {{"x", dims({2, 3})}, {"s", dims({3})}, {"b", dims({3})}, {"m", dims({3})}, {"v", dims({3})}},
            {"y", "rm", "rv"}),
       {}, "output_count"},
      {"batchnorm_scale_length_mismatch", 15,
       node("BatchNormalization",
            {{"x", dims({2, 3})}, {"s", dims({4})}, {"b", dims({3})}, {"m", dims({3})}, {"v", dims({3})}}, {"y"}),
       {}, "shape_mismatch"},
      {"instancenorm", 6,
       node("InstanceNormalization", {{"x", dims({2, 3, 4, 5})}, {"s", dims({3})}, {"b", dims({3})}}, {"y"}),
       {{"y", {"2", "3", "4", "5"}}}},
      {"layernorm_last_axis_stats", 17,
       node("LayerNormalization", {{"x", dims({"B", "S", 8})}, {"s", dims({8})}, {"b", dims({8})}},
            {"y", "mean", "inv"}),
       {{"y", {"B", "S", "8"}, std::nullopt, DType::Float32},
        {"mean", {"B", "S", "1"}, std::nullopt, DType::Float32},
        {"inv", {"B", "S", "1"}, std::nullopt, DType::Float32}},
       "", {{"x", {2, 5, 8}}}},
      {"layernorm_axis_1_half_input", 17,
       raw("LayerNormalization", {"x", "s"}, {"y", "mean", "inv"},
           [](ModelBuilder& b) { b.input("x", kFloat16, {2, 3, 4, 5}).input("s", kFloat16, {3, 4, 5}); },
           attr("axis", 1)),
       {{"y", {"2", "3", "4", "5"}, std::nullopt, DType::Float16},
        {"mean", {"2", "1", "1", "1"}, std::nullopt, DType::Float32},
        {"inv", {"2", "1", "1", "1"}, std::nullopt, DType::Float32}}},
      {"layernorm_stash_bfloat16", 17,
       node("LayerNormalization", {{"x", dims({3, 4})}, {"s", dims({4})}}, {"y", "mean"}, attr("stash_type", 16)),
       {{"mean", {"3", "1"}, std::nullopt, DType::BFloat16}}},
      {"layernorm_bad_axis", 17,
       node("LayerNormalization", {{"x", dims({3, 4})}, {"s", dims({4})}}, {"y"}, attr("axis", 2)), {},
       "invalid_axis"},
      {"groupnorm_18", 18,
       node("GroupNormalization", {{"x", dims({"N", 4, 2, 2})}, {"s", dims({2})}, {"b", dims({2})}}, {"y"},
            attr("num_groups", 2)),
       {{"y", {"N", "4", "2", "2"}}}, "", {{"x", {3, 4, 2, 2}}}},
      {"groupnorm_21_per_channel", 21,
       node("GroupNormalization", {{"x", dims({3, 4, 2, 2})}, {"s", dims({4})}, {"b", dims({4})}}, {"y"},
            attr("num_groups", 2)),
       {{"y", {"3", "4", "2", "2"}}}},
      // Opset 23-26 additions.
      {"rmsnorm_scale_dtype_and_broadcast", 23,
       raw("RMSNormalization", {"x", "s"}, {"y"},
           [](ModelBuilder& b) { b.input("x", kFloat, {"B", "S", 8}).input("s", kFloat16, {1, 8}); },
           attr("axis", 1)),
       {{"y", {"B", "S", "8"}, std::nullopt, DType::Float16}}, "", {{"x", {2, 5, 8}}}},
      {"rmsnorm_scale_too_long", 23,
       node("RMSNormalization", {{"x", dims({3, 8})}, {"s", dims({2, 3, 8})}}, {"y"}), {}, "invalid_rank"},
      {"rmsnorm_scale_mismatch", 23,
       node("RMSNormalization", {{"x", dims({3, 8})}, {"s", dims({4})}}, {"y"}), {}, "shape_mismatch"},
      {"rotary_4d", 23,
       node("RotaryEmbedding", {{"x", dims({"B", 4, "S", 16})}, {"cos", dims({32, 8})}, {"sin", dims({32, 8})},
                                {"pos", dims({"B", "S"})}},
            {"y"}, [](ModelBuilder&) {}, [](ModelBuilder& b) { b.graph().inputs.back().type.elem_type = kInt64; }),
       {{"y", {"B", "4", "S", "16"}, std::nullopt, DType::Float32}}, "", {{"x", {2, 4, 6, 16}}, {"pos", {2, 6}}}},
      // torch's exporter writes caches of batch 1, which ONNX Runtime accepts only for X of batch 1.
      {"rotary_cache_of_batch_1_fits_batch_1", 23,
       node("RotaryEmbedding", {{"x", dims({1, 4, "S", 16})}, {"cos", dims({1, "S", 8})}, {"sin", dims({1, "S", 8})}},
            {"y"}),
       {{"y", {"1", "4", "S", "16"}}}, "", {{"x", {1, 4, 6, 16}}, {"cos", {1, 6, 8}}, {"sin", {1, 6, 8}}}},
      {"rotary_cache_of_batch_1_against_batch_2", 23,
       node("RotaryEmbedding", {{"x", dims({2, 4, 6, 16})}, {"cos", dims({1, 6, 8})}, {"sin", dims({1, 6, 8})}}, {"y"}),
       {}, "shape_mismatch"},
      {"rotary_3d_needs_num_heads", 23,
       node("RotaryEmbedding", {{"x", dims({2, 6, 64})}, {"cos", dims({2, 6, 8})}, {"sin", dims({2, 6, 8})}}, {"y"}),
       {}, "missing_attribute"},
      {"rotary_3d_heads_divide_hidden", 23,
       node("RotaryEmbedding", {{"x", dims({2, 6, 64})}, {"cos", dims({2, 6, 8})}, {"sin", dims({2, 6, 8})}}, {"y"},
            attr("num_heads", 5)),
       {}, "shape_mismatch"},
      {"rotary_3d", 23,
       node("RotaryEmbedding", {{"x", dims({2, 6, 64})}, {"cos", dims({2, 6, 8})}, {"sin", dims({2, 6, 8})}}, {"y"},
            attr("num_heads", 4)),
       {{"y", {"2", "6", "64"}}}},
      {"swiglu_one_shape", 26,
       node("SwiGLU", {{"a", dims({"N", 3, 8})}, {"b", dims({"N", 3, 8})}}, {"y"}),
       {{"y", {"N", "3", "8"}}}, "", {{"a", {2, 3, 8}}, {"b", {2, 3, 8}}}},
      {"swiglu_no_broadcasting", 26,
       node("SwiGLU", {{"a", dims({2, 3, 8})}, {"b", dims({2, 1, 8})}}, {"y"}), {}, "shape_mismatch"},
      {"attention_4d_gqa_with_cache", 23,
       node("Attention",
            {{"q", dims({"B", 8, "S", 16})}, {"k", dims({"B", 2, "S", 16})}, {"v", dims({"B", 2, "S", 32})},
             {"mask", dims({1})}, {"pk", dims({"B", 2, "P", 16})}, {"pv", dims({"B", 2, "P", 32})}},
            {"y", "present_k", "present_v", "qk"}),
       {{"y", {"B", "8", "S", "32"}},
        {"present_k", {"B", "2", "P + S", "16"}},
        {"present_v", {"B", "2", "P + S", "32"}},
        {"qk", {"B", "8", "S", "P + S"}}},
       "", {{"q", {2, 8, 5, 16}}, {"k", {2, 2, 5, 16}}, {"v", {2, 2, 5, 32}}, {"pk", {2, 2, 7, 16}}, {"pv", {2, 2, 7, 32}}}},
      {"attention_3d", 23,
       node("Attention", {{"q", dims({2, 5, 64})}, {"k", dims({2, 7, 32})}, {"v", dims({2, 7, 48})}}, {"y"},
            all({attr("q_num_heads", 4), attr("kv_num_heads", 2)})),
       {{"y", {"2", "5", "96"}}}},
      {"attention_3d_needs_head_counts", 23,
       node("Attention", {{"q", dims({2, 5, 64})}, {"k", dims({2, 7, 32})}, {"v", dims({2, 7, 48})}}, {"y"}), {},
       "missing_attribute"},
      {"attention_heads_not_a_multiple", 23,
       node("Attention", {{"q", dims({2, 6, 5, 16})}, {"k", dims({2, 4, 5, 16})}, {"v", dims({2, 4, 5, 16})}}, {"y"}),
       {}, "shape_mismatch"},
      {"attention_25_present_pair", 25,
       node("Attention", {{"q", dims({2, 4, 3, 8})}, {"k", dims({2, 2, 5, 8})}, {"v", dims({2, 2, 5, 6})}},
            {"y", "present_k"}),
       {}, "invalid_argument"},
      {"tensor_scatter_cache", 24,
       node("TensorScatter", {{"past", dims({"B", 4, 128, 16})}, {"upd", dims({"B", 4, "S", 16})}}, {"present"}),
       {{"present", {"B", "4", "128", "16"}}}, "", {{"past", {2, 4, 128, 16}}, {"upd", {2, 4, 3, 16}}}},
      {"tensor_scatter_batch_axis", 24,
       node("TensorScatter", {{"past", dims({2, 128})}, {"upd", dims({2, 3})}}, {"present"}, attr("axis", 0)), {},
       "invalid_axis"},
      {"tensor_scatter_other_dims_agree", 24,
       node("TensorScatter", {{"past", dims({2, 4, 128, 16})}, {"upd", dims({2, 4, 3, 8})}}, {"present"}), {},
       "shape_mismatch"},
      {"groupnorm_indivisible", 21,
       node("GroupNormalization", {{"x", dims({3, 5, 2, 2})}, {"s", dims({5})}, {"b", dims({5})}}, {"y"},
            attr("num_groups", 2)),
       {}, "shape_mismatch"},
      {"lrn_and_mvn", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"N", 5, 5, 5});
         b.node("LRN", {"x"}, {"y"}).attr_int("size", 3);
         b.node("MeanVarianceNormalization", {"y"}, {"z"});
       },
       {{"y", {"N", "5", "5", "5"}}, {"z", {"N", "5", "5", "5"}}}, "", {{"x", {2, 5, 5, 5}}}},
      // ---- Gemm, MatMul ----
      {"gemm_default", 13, node("Gemm", {{"a", dims({3, 5})}, {"b", dims({5, 4})}, {"c", dims({1, 4})}}, {"y"}),
       {{"y", {"3", "4"}}}},
      {"gemm_transposes", 13,
       node("Gemm", {{"a", dims({6, 3})}, {"b", dims({4, 6})}, {"c", dims({3, 4})}}, {"y"},
            all({attr("transA", 1), attr("transB", 1)})),
       {{"y", {"3", "4"}}}},
      {"gemm_symbolic_rows_no_c", 13, node("Gemm", {{"a", dims({"M", 5})}, {"b", dims({5, 4})}}, {"y"}),
       {{"y", {"M", "4"}}}, "", {{"a", {7, 5}}}},
      {"gemm_scalar_c", 13, node("Gemm", {{"a", dims({2, 3})}, {"b", dims({3, 4})}, {"c", dims({})}}, {"y"}),
       {{"y", {"2", "4"}}}},
      {"gemm_inner_mismatch", 13, node("Gemm", {{"a", dims({3, 5})}, {"b", dims({4, 4})}}, {"y"}), {},
       "shape_mismatch"},
      {"gemm_c_not_broadcastable", 13,
       node("Gemm", {{"a", dims({3, 5})}, {"b", dims({5, 4})}, {"c", dims({2, 4})}}, {"y"}), {}, "shape_mismatch"},
      {"gemm_needs_c_before_11", 9, node("Gemm", {{"a", dims({3, 5})}, {"b", dims({5, 4})}}, {"y"}), {},
       "missing_input"},
      {"matmul_batch_broadcast", 13,
       node("MatMul", {{"a", dims({"B", 1, 3, 4})}, {"b", dims({5, 4, 6})}}, {"y"}), {{"y", {"B", "5", "3", "6"}}}, "",
       {{"a", {2, 1, 3, 4}}}},
      {"matmul_vectors", 13, node("MatMul", {{"a", dims({4})}, {"b", dims({4})}}, {"y"}), {{"y", {}}}},
      // ---- Einsum (onnx einsum.py) ----
      {"einsum_matmul", 12, node("Einsum", {{"a", dims({3, 4})}, {"b", dims({4, 5})}}, {"y"}, str("equation", "ij,jk->ik")),
       {{"y", {"3", "5"}}}},
      {"einsum_batch_transpose", 12, node("Einsum", {{"x", dims({"B", 3, 4})}}, {"y"}, str("equation", "bij -> bji")),
       {{"y", {"B", "4", "3"}}}, "", {{"x", {2, 3, 4}}}},
      {"einsum_ellipsis_broadcast", 12,
       node("Einsum", {{"a", dims({2, 1, 3, 4})}, {"b", dims({5, 4, 6})}}, {"y"}, str("equation", "...ij,...jk->...ik")),
       {{"y", {"2", "5", "3", "6"}}}},
      {"einsum_implicit_output", 12,
       node("Einsum", {{"a", dims({3, 4})}, {"b", dims({4, 5})}}, {"y"}, str("equation", "ij,jk")),
       {{"y", {"3", "5"}}}},
      {"einsum_trace", 12, node("Einsum", {{"x", dims({3, 3})}}, {"y"}, str("equation", "ii")), {{"y", {}}}},
      {"einsum_batch_diagonal", 12, node("Einsum", {{"x", dims({3, 5, 5})}}, {"y"}, str("equation", "...ii ->...i")),
       {{"y", {"3", "5"}}}},
      {"einsum_sum_implicit_ellipsis", 12, node("Einsum", {{"x", dims({3, 4, 5})}}, {"y"}, str("equation", "...j")),
       {{"y", {"3", "4", "5"}}}},
      {"einsum_rank_mismatch", 12,
       node("Einsum", {{"a", dims({3, 4, 2})}, {"b", dims({4, 5})}}, {"y"}, str("equation", "ij,jk->ik")), {},
       "invalid_rank"},
      {"einsum_size_mismatch", 12,
       node("Einsum", {{"a", dims({3, 4})}, {"b", dims({3, 5})}}, {"y"}, str("equation", "ij,jk->ik")), {},
       "shape_mismatch"},
      // ---- Resize / Upsample (onnx resize.py, upsample.py) ----
      {"resize_scales_symbolic_upsample", 13,
       raw("Resize", {"x", "", "sc"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {"N", 3, "H", "W"});
             b.initializer_floats({4}, "sc", {1.f, 1.f, 2.f, 3.f});
           }),
       {{"y", {"N", "3", "2*H", "3*W"}}}, "", {{"x", {2, 3, 5, 7}}}},
      {"resize_scales_dyadic_downsample", 13,
       raw("Resize", {"x", "", "sc"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 3, "H", "W"});
             b.initializer_floats({4}, "sc", {1.f, 1.f, 0.5f, 0.75f});
           }),
       {{"y", {"1", "3", "H//2", "(3*W)//4"}}}, "", {{"x", {1, 3, 5, 7}}}},
      {"resize_downsample_scales_static", 13,
       raw("Resize", {"x", "", "sc"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 2, 4});
             b.initializer_floats({4}, "sc", {1.f, 1.f, 0.6f, 0.6f});
           },
           str("mode", "linear")),
       {{"y", {"1", "1", "1", "2"}}}},
      {"resize_sizes_static", 13,
       raw("Resize", {"x", "", "", "sz"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 4, 4});
             b.initializer_ints("sz", {4}, {1, 1, 3, 2});
           }),
       {{"y", {"1", "1", "3", "2"}}}},
      {"resize_sizes_from_shape", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"N", 3, 8, 8}).input("like", kFloat, {"N", 3, "H", "W"});
         b.node("Shape", {"like"}, {"sz"});
         b.node("Resize", {"x", "", "", "sz"}, {"y"});
       },
       {{"y", {"N", "3", "H", "W"}}}, "", {{"x", {2, 3, 8, 8}}, {"like", {2, 3, 5, 6}}}},
      {"resize_opset11_empty_scales", 11,
       raw("Resize", {"x", "roi", "sc", "sz"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 4, 4});
             b.initializer_floats({0}, "roi", {});
             b.initializer_floats({0}, "sc", {});
             b.initializer_ints("sz", {4}, {1, 1, 9, 10});
           }),
       {{"y", {"1", "1", "9", "10"}}}},
      {"resize_opset10_scales", 10,
       raw("Resize", {"x", "sc"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 2, 2});
             b.initializer_floats({4}, "sc", {1.f, 1.f, 2.f, 3.f});
           }),
       {{"y", {"1", "1", "4", "6"}}}},
      {"resize_axes_sizes_18", 18,
       raw("Resize", {"x", "", "", "sz"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {"N", 3, 4, 4});
             b.initializer_ints("sz", {2}, {7, 8});
           },
           ints("axes", {-2, -1})),
       {{"y", {"N", "3", "7", "8"}}}, "", {{"x", {2, 3, 4, 4}}}},
      {"resize_not_larger_18", 18,
       raw("Resize", {"x", "", "", "sz"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 2, 4});
             b.initializer_ints("sz", {2}, {1, 3});
           },
           all({ints("axes", {2, 3}), str("keep_aspect_ratio_policy", "not_larger")})),
       {{"y", {"1", "1", "1", "2"}}}},
      {"resize_not_smaller_18", 18,
       raw("Resize", {"x", "", "", "sz"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 2, 4});
             b.initializer_ints("sz", {2}, {1, 3});
           },
           all({ints("axes", {2, 3}), str("keep_aspect_ratio_policy", "not_smaller")})),
       {{"y", {"1", "1", "2", "3"}}}},
      // The scale 2^62 of axis 2 takes axis 3 (4) past int64 (a fuzz finding: the double was
      // converted unchecked).
      {"resize_not_smaller_overflow_18", 18,
       raw("Resize", {"x", "", "", "sz"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 1, 4});
             b.initializer_ints("sz", {2}, {int64_t{1} << 62, 1});
           },
           all({ints("axes", {2, 3}), str("keep_aspect_ratio_policy", "not_smaller")})),
       {}, "overflow"},
      {"resize_scales_and_sizes", 13,
       raw("Resize", {"x", "", "sc", "sz"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, 2, 2});
             b.initializer_floats({4}, "sc", {1.f, 1.f, 2.f, 2.f});
             b.initializer_ints("sz", {4}, {1, 1, 4, 4});
           }),
       {}, "invalid_argument"},
      {"upsample_attr_7", 7,
       node("Upsample", {{"x", dims({1, 1, 2, 2})}}, {"y"},
            [](ModelBuilder& b) { b.attr_floats("scales", {1.f, 1.f, 2.f, 3.f}); }),
       {{"y", {"1", "1", "4", "6"}}}},
      {"upsample_input_9", 9,
       raw("Upsample", {"x", "sc"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 1, "H", 2});
             b.initializer_floats({4}, "sc", {1.f, 1.f, 2.f, 3.f});
           }),
       {{"y", {"1", "1", "2*H", "6"}}}, "", {{"x", {1, 1, 3, 2}}}},
      {"gridsample", 16,
       node("GridSample", {{"x", dims({"N", 3, 8, 8})}, {"g", dims({"N", 6, 7, 2})}}, {"y"}),
       {{"y", {"N", "3", "6", "7"}}}, "", {{"x", {2, 3, 8, 8}}, {"g", {2, 6, 7, 2}}}},
      {"gridsample_3d_20", 20,
       node("GridSample", {{"x", dims({1, 3, 4, 8, 8})}, {"g", dims({1, 2, 6, 7, 3})}}, {"y"}),
       {{"y", {"1", "3", "2", "6", "7"}}}},
      {"gridsample_3d_before_20", 16,
       node("GridSample", {{"x", dims({1, 3, 4, 8, 8})}, {"g", dims({1, 2, 6, 7, 3})}}, {"y"}), {}, "invalid_rank"},
      {"affinegrid_2d", 20,
       raw("AffineGrid", {"theta", "size"}, {"grid"},
           [](ModelBuilder& b) {
             b.input("theta", kFloat, {2, 2, 3});
             b.initializer_ints("size", {4}, {2, 3, 5, 6});
           }),
       {{"grid", {"2", "5", "6", "2"}}}},
      {"affinegrid_3d_from_shape", 20,
       [](ModelBuilder& b) {
         b.input("theta", kFloat, {"N", 3, 4}).input("like", kFloat, {"N", 1, "D", "H", "W"});
         b.node("Shape", {"like"}, {"size"});
         b.node("AffineGrid", {"theta", "size"}, {"grid"});
       },
       {{"grid", {"N", "D", "H", "W", "3"}}}, "", {{"theta", {2, 3, 4}}, {"like", {2, 1, 4, 5, 6}}}},
      {"col2im", 18,
       raw("Col2Im", {"x", "img", "blk"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 5, 5});
             b.initializer_ints("img", {2}, {5, 5});
             b.initializer_ints("blk", {2}, {1, 5});
           }),
       {{"y", {"1", "1", "5", "5"}}}},
      {"col2im_strided_padded", 18,
       raw("Col2Im", {"x", "img", "blk"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 10, 6});
             b.initializer_ints("img", {2}, {5, 5});
             b.initializer_ints("blk", {2}, {1, 5});
           },
           all({ints("pads", {0, 1, 0, 1}), ints("strides", {2, 2})})),
       {{"y", {"1", "2", "5", "5"}}}},  // 3 x 2 block positions
      {"col2im_block_count_mismatch", 18,
       raw("Col2Im", {"x", "img", "blk"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {1, 5, 6});
             b.initializer_ints("img", {2}, {5, 5});
             b.initializer_ints("blk", {2}, {1, 5});
           }),
       {}, "shape_mismatch"},
      {"deformconv", 19,
       node("DeformConv", {{"x", dims({1, 1, 3, 3})}, {"w", dims({1, 1, 2, 2})}, {"off", dims({1, 8, 2, 2})}}, {"y"}),
       {{"y", {"1", "1", "2", "2"}}}},
      {"deformconv_mask_and_bias", 19,
       node("DeformConv",
            {{"x", dims({"N", 4, 5, 5})}, {"w", dims({6, 2, 3, 3})}, {"off", dims({"N", 36, 3, 3})}, {"b", dims({6})},
             {"mask", dims({"N", 18, 3, 3})}},
            {"y"}, all({attr("group", 2), attr("offset_group", 2)})),
       {{"y", {"N", "6", "3", "3"}}}, "", {{"x", {2, 4, 5, 5}}, {"off", {2, 36, 3, 3}}, {"mask", {2, 18, 3, 3}}}},
      {"deformconv_offset_mismatch", 19,
       node("DeformConv", {{"x", dims({1, 1, 3, 3})}, {"w", dims({1, 1, 2, 2})}, {"off", dims({1, 4, 2, 2})}}, {"y"}),
       {}, "shape_mismatch"},
      // ---- recurrent networks (onnx lstm.py / gru.py / rnn.py) ----
      {"lstm_symbolic_seq_batch", 14,
       node("LSTM", {{"x", dims({"S", "B", 10})}, {"w", dims({1, 28, 10})}, {"r", dims({1, 28, 7})}},
            {"y", "yh", "yc"}, attr("hidden_size", 7)),
       {{"y", {"S", "1", "B", "7"}}, {"yh", {"1", "B", "7"}}, {"yc", {"1", "B", "7"}}}, "",
       {{"x", {5, 3, 10}}}},
      {"gru_bidirectional_layout_1", 14,
       node("GRU", {{"x", dims({"B", "S", 4})}, {"w", dims({2, 15, 4})}, {"r", dims({2, 15, 5})}}, {"y", "yh"},
            all({attr("hidden_size", 5), str("direction", "bidirectional"), attr("layout", 1)})),
       {{"y", {"B", "S", "2", "5"}}, {"yh", {"B", "2", "5"}}}, "", {{"x", {3, 6, 4}}}},
      {"rnn_hidden_from_r_only_y_h", 7,
       node("RNN", {{"x", dims({4, 2, 3})}, {"w", dims({1, 6, 3})}, {"r", dims({1, 6, 6})}}, {"", "yh"}),
       {{"yh", {"1", "2", "6"}}}},
      {"lstm_weight_mismatch", 14,
       node("LSTM", {{"x", dims({4, 2, 3})}, {"w", dims({1, 12, 3})}, {"r", dims({1, 16, 4})}}, {"y"},
            attr("hidden_size", 4)),
       {}, "shape_mismatch"},
      // ---- signal processing (onnx dft.py / stft.py / melweightmatrix.py) ----
      {"dft_17_axis_1", 17, node("DFT", {{"x", dims({"B", 10, 1})}}, {"y"}), {{"y", {"B", "10", "2"}}}, "",
       {{"x", {3, 10, 1}}}},
      {"dft_17_onesided_axis_2", 17,
       node("DFT", {{"x", dims({3, 10, 10, 1})}}, {"y"}, all({attr("axis", 2), attr("onesided", 1)})),
       {{"y", {"3", "10", "6", "2"}}}},
      {"dft_17_length_input", 17,
       raw("DFT", {"x", "n"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {3, 10, 2});
             b.initializer_ints("n", {}, {16});
           }),
       {{"y", {"3", "16", "2"}}}},
      {"dft_20_axis_input_inverse_onesided", 20,
       raw("DFT", {"x", "", "ax"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {3, 6, 4, 2});
             b.initializer_ints("ax", {}, {1});
           },
           all({attr("onesided", 1), attr("inverse", 1)})),
       {{"y", {"3", "10", "4", "1"}}}},
      {"dft_bad_axis", 20,
       raw("DFT", {"x", "", "ax"}, {"y"},
           [](ModelBuilder& b) {
             b.input("x", kFloat, {3, 6, 2});
             b.initializer_ints("ax", {}, {-1});
           }),
       {}, "invalid_axis"},
      {"stft_window", 17,
       raw("STFT", {"s", "step", "win"}, {"y"},
           [](ModelBuilder& b) {
             b.input("s", kFloat, {1, 128, 1}).input("win", kFloat, {16});
             b.initializer_ints("step", {}, {8});
           }),
       {{"y", {"1", "15", "9", "2"}}}},
      {"stft_symbolic_length", 17,
       raw("STFT", {"s", "step", "", "len"}, {"y"},
           [](ModelBuilder& b) {
             b.input("s", kFloat, {1, "L", 2});
             b.initializer_ints("step", {}, {8});
             b.initializer_ints("len", {}, {16});
           },
           attr("onesided", 0)),
       {{"y", {"1", "L//8 - 1", "16", "2"}}}, "", {{"s", {1, 128, 2}}}},  // (L - 16)//8 + 1
      {"melweightmatrix", 17,
       raw("MelWeightMatrix", {"bins", "n", "rate", "lo", "hi"}, {"y"},
           [](ModelBuilder& b) {
             b.initializer_ints("bins", {}, {8}).initializer_ints("n", {}, {16}).initializer_ints("rate", {}, {8192});
             b.initializer_floats({}, "lo", {0.f}).initializer_floats({}, "hi", {4096.f});
           },
           attr("output_datatype", kDouble)),
       {{"y", {"9", "8"}, std::nullopt, DType::Float64}}},
  };
  return all_cases;
}

INSTANTIATE_TEST_SUITE_P(Nn, NnCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// ---------------------------------------------------------------- symbolic window sizes

// Value of dim `d` of `value` with L := n; nullopt when the run's guards
// exclude n (the expression is only claimed where the guards hold).
std::optional<int64_t> at(const RunResult& r, const std::string& value, size_t d, int64_t n) {
  const Value* v = find_value(r, value);
  if (!v || !v->is_tensor()) return std::nullopt;
  Assignment a{{symbol("L"), n}};
  for (const GuardRecord& g : r.env->guards())
    if (evaluate(g.expr, a) != std::optional<int64_t>(1)) return std::nullopt;
  const SymInt size = r.env->simplify(v->tensor->meta.sizes[d]);
  if (size.is_static()) return size.value();
  return evaluate(size.expr(), a);
}

constexpr int64_t kFirstLength = 6;  // the oracle tables hold lengths 6..25

struct WindowOracle {
  int64_t kernel, stride, pad, dilation;
  int64_t ceil_mode;  // pools only
  std::vector<int64_t> torch_sizes;
};

// Runs `op` on x = (1, 1, L) with hint L = `hint` (none when negative) and
// compares dim 2 with the oracle for every length the guards admit; the hint
// itself must be admitted.
void check_against_oracle(const std::string& op, const WindowOracle& o, int64_t hint, int64_t opset = 13) {
  ModelBuilder b(opset);
  b.input("x", kFloat, {1, 1, "L"});
  if (op == "MaxPool") {
    b.node(op, {"x"}, {"y"}, "n").attr_ints("kernel_shape", {o.kernel}).attr_ints("strides", {o.stride});
    b.attr_ints("pads", {o.pad, o.pad}).attr_ints("dilations", {o.dilation}).attr_int("ceil_mode", o.ceil_mode);
  } else {
    b.weight("w", kFloat, {1, 1, o.kernel});
    b.node(op, {"x", "w"}, {"y"}, "n").attr_ints("strides", {o.stride}).attr_ints("pads", {o.pad, o.pad});
    b.attr_ints("dilations", {o.dilation});
    if (op == "ConvTranspose") b.attr_ints("output_padding", {o.ceil_mode});
  }
  InferOptions options;
  if (hint >= 0) options.input_hints["x"] = {1, 1, hint};
  RunResult r = run(b, options);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  if (hint >= 0) {
    ASSERT_TRUE(at(r, "y", 2, hint).has_value()) << "hint excluded by its own guards";
  }
  int admitted = 0;
  for (size_t i = 0; i < o.torch_sizes.size(); ++i) {
    const int64_t n = kFirstLength + static_cast<int64_t>(i);
    auto got = at(r, "y", 2, n);
    if (!got) continue;
    ++admitted;
    EXPECT_EQ(*got, o.torch_sizes[i]) << op << " k=" << o.kernel << " s=" << o.stride << " p=" << o.pad
                                      << " d=" << o.dilation << " at L=" << n << ": "
                                      << shape_of(r, "y")[2];
  }
  EXPECT_GE(admitted, 5);
}

TEST(NnSymbolic, ConvMatchesTorchBySubstitution) {
  const std::vector<WindowOracle> oracle = {
      {3, 2, 1, 1, 0, {3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13}},
      {3, 1, 0, 1, 0, {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
      {5, 3, 2, 2, 0, {1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7}},
      {2, 2, 0, 1, 0, {3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12}},
      {4, 3, 1, 1, 0, {2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8}},
  };
  for (const auto& o : oracle) check_against_oracle("Conv", o, 13);
}

TEST(NnSymbolic, ConvStride2Pad1IsPyTorchExpression) {
  ModelBuilder b(13);
  b.input("x", kFloat, {1, 1, "L"});
  b.weight("w", kFloat, {1, 1, 3});
  b.node("Conv", {"x", "w"}, {"y"}).attr_ints("strides", {2}).attr_ints("pads", {1, 1});
  InferOptions options;
  options.input_hints["x"] = {1, 1, 10};
  RunResult r = run(b, options);
  EXPECT_EQ(shape_of(r, "y"), (Strings{"1", "1", "(L - 1)//2 + 1"}));
  EXPECT_TRUE(r.env->guards().empty());
}

TEST(NnSymbolic, CeilModePoolingMatchesTorchUnderGuards) {
  const std::vector<WindowOracle> oracle = {
      {3, 2, 1, 1, 1, {4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}},
      {2, 2, 1, 1, 1, {4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}},
      {3, 3, 0, 1, 1, {2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9}},
      {2, 3, 1, 2, 1, {3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9}},
      {3, 2, 0, 1, 0, {2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12}},
      {4, 3, 2, 1, 1, {3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9}},
  };
  // Even and odd hints land on both sides of the last-window guard.
  for (const auto& o : oracle) {
    check_against_oracle("MaxPool", o, 10);
    check_against_oracle("MaxPool", o, 11);
    // Without a hint there is nothing to guard on: the size must be exact for every length.
    check_against_oracle("MaxPool", o, -1);
  }
}

TEST(NnSymbolic, CeilModeWithoutHintNeedsNoGuard) {
  ModelBuilder b(13);
  b.input("x", kFloat, {1, 1, "L"});
  b.node("MaxPool", {"x"}, {"y"}).attr_ints("kernel_shape", {2}).attr_ints("strides", {2});
  b.attr_ints("pads", {1, 1}).attr_int("ceil_mode", 1);
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_TRUE(r.env->guards().empty());
  for (int64_t n = 2; n < 30; ++n) EXPECT_EQ(at(r, "y", 2, n), n / 2 + 1) << n;  // torch: floor(L/2) + 1
}

TEST(NnSymbolic, ConvTransposeMatchesTorchBySubstitution) {
  // ceil_mode holds output_padding here.
  const std::vector<WindowOracle> oracle = {
      {3, 2, 1, 1, 1, {12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50}},
      {4, 2, 1, 1, 0, {12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50}},
      {3, 3, 0, 2, 2, {22, 25, 28, 31, 34, 37, 40, 43, 46, 49, 52, 55, 58, 61, 64, 67, 70, 73, 76, 79}},
  };
  for (const auto& o : oracle) check_against_oracle("ConvTranspose", o, 13);
}

TEST(NnSymbolic, SamePaddingIsCeilDivision) {
  ModelBuilder b(13);
  b.input("x", kFloat, {1, 1, "L"});
  b.weight("w", kFloat, {1, 1, 4});
  b.node("Conv", {"x", "w"}, {"y"}).attr_ints("strides", {3}).attr_string("auto_pad", "SAME_UPPER");
  InferOptions options;
  options.input_hints["x"] = {1, 1, 10};
  RunResult r = run(b, options);
  ASSERT_TRUE(r.errors.empty());
  for (int64_t n = 2; n < 40; ++n) EXPECT_EQ(at(r, "y", 2, n), (n + 2) / 3) << n;
}

TEST(NnSymbolic, ResizeNonDyadicScaleIsExactInSinglePrecision) {
  // ONNX Runtime: int64((float)L * scale), every step in float.
  ModelBuilder b(13);
  b.input("x", kFloat, {1, 1, "L"});
  const float scale = 1.f / 3.f;
  b.initializer_floats({3}, "sc", {1.f, 1.f, scale});
  b.node("Resize", {"x", "", "sc"}, {"y"}, "n");
  RunResult r = run(b, InferOptions{});
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  ASSERT_TRUE(r.warnings.empty());
  EXPECT_EQ(shape_of(r, "y")[2], "int(float32(0.3333333432674408*float(L)))");
  ASSERT_EQ(r.env->runtime_asserts().size(), 1u);  // L <= 2**24: float32 holds L exactly
  EXPECT_EQ(SymBool(r.env->runtime_asserts()[0].expr).to_python(), "L <= 16777216");
  for (int64_t n = 2; n < 400; ++n)
    EXPECT_EQ(at(r, "y", 2, n), static_cast<int64_t>(static_cast<float>(n) * scale)) << n;
}

// torchvision's GeneralizedRCNNTransform as its ONNX export writes it:
// scale = min(800 / min(H, W), 1333 / max(H, W)) in float32, then
// sizes = floor(H * scale), floor(W * scale) into Resize.
void build_rcnn_resize(ModelBuilder& b) {
  b.input("x", kFloat, {1, 3, "H", "W"});
  b.initializer_ints("starts", {1}, {2}).initializer_ints("ends", {1}, {4}).initializer_ints("zero", {1}, {0});
  b.initializer_ints("i2", {}, {2}).initializer_ints("i3", {}, {3}).initializer_ints("lead_end", {1}, {2});
  b.initializer_floats({}, "c800", {800.f}).initializer_floats({}, "c1333", {1333.f});
  b.node("Shape", {"x"}, {"shape"});
  b.node("Slice", {"shape", "starts", "ends", "zero"}, {"hw"});
  b.node("ReduceMin", {"hw"}, {"mn"}).attr_int("keepdims", 0);
  b.node("ReduceMax", {"hw"}, {"mx"}).attr_int("keepdims", 0);
  b.node("Cast", {"mn"}, {"mnf"}).attr_int("to", 1);
  b.node("Cast", {"mx"}, {"mxf"}).attr_int("to", 1);
  b.node("Reciprocal", {"mnf"}, {"rmn"});
  b.node("Reciprocal", {"mxf"}, {"rmx"});
  b.node("Mul", {"rmn", "c800"}, {"s1"});
  b.node("Mul", {"rmx", "c1333"}, {"s2"});
  b.node("Min", {"s1", "s2"}, {"scale"});
  for (const char* axis : {"2", "3"}) {
    const std::string a = axis;
    b.node("Gather", {"shape", "i" + a}, {"d" + a}).attr_int("axis", 0);
    b.node("Cast", {"d" + a}, {"df" + a}).attr_int("to", 1);
    b.node("Mul", {"df" + a, "scale"}, {"p" + a});
    b.node("Floor", {"p" + a}, {"fl" + a});
    b.node("Unsqueeze", {"fl" + a, "zero"}, {"u" + a});
  }
  b.node("Concat", {"u2", "u3"}, {"hw_new"}).attr_int("axis", 0);
  b.node("Cast", {"hw_new"}, {"hw_int"}).attr_int("to", 7);
  b.node("Slice", {"shape", "zero", "lead_end", "zero"}, {"lead"});
  b.node("Concat", {"lead", "hw_int"}, {"sizes"}).attr_int("axis", 0);
  b.node("Resize", {"x", "", "", "sizes"}, {"y"}, "n").attr_string("mode", "linear");
}

TEST(NnSymbolic, ResizeToSizesComputedInFloat32StaysExact) {
  ModelBuilder b(16);
  build_rcnn_resize(b);
  RunResult r = run(b, InferOptions{});
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  const Strings shape = shape_of(r, "y");
  ASSERT_EQ(shape.size(), 4u);
  EXPECT_EQ(shape[0], "1");
  EXPECT_EQ(shape[1], "3");  // the channel count stays known
  EXPECT_EQ(shape[2].find('u'), std::string::npos) << shape[2];
  // numpy float32 arithmetic on the same graph; at 62 x 62 single precision
  // gives 799 where double precision gives 800.
  const std::vector<std::array<int64_t, 4>> expected = {
      {62, 62, 799, 799}, {480, 640, 800, 1066}, {600, 1000, 799, 1333}, {97, 97, 799, 799}};
  for (const auto& [h, w, rh, rw] : expected) {
    const Assignment at_hw = {{symbol("H"), h}, {symbol("W"), w}};
    const TensorMeta& m = find_value(r, "y")->tensor->meta;
    EXPECT_EQ(evaluate(m.sizes[2].expr(), at_hw), rh) << h << "x" << w << ": " << shape[2];
    EXPECT_EQ(evaluate(m.sizes[3].expr(), at_hw), rw) << h << "x" << w << ": " << shape[3];
  }
}

TEST(NnSymbolic, ResizeDyadicScalesMatchFloorBySubstitution) {
  // ONNX: out = floor(in * scale) with the float scale widened to double.
  for (float scale : {0.5f, 0.75f, 1.5f, 1.25f, 2.0f, 0.125f}) {
    ModelBuilder b(13);
    b.input("x", kFloat, {1, 1, "L"});
    b.initializer_floats({3}, "sc", {1.f, 1.f, scale});
    b.node("Resize", {"x", "", "sc"}, {"y"});
    InferOptions options;
    options.input_hints["x"] = {1, 1, 9};
    RunResult r = run(b, options);
    ASSERT_TRUE(r.errors.empty());
    for (int64_t n = 2; n < 50; ++n)
      EXPECT_EQ(at(r, "y", 2, n), static_cast<int64_t>(std::floor(static_cast<double>(n) * scale))) << scale << " " << n;
  }
}

TEST(NnSymbolic, ImageDecoderSizesAreUnbacked) {
  ModelBuilder b(20);
  b.input("s", kUInt8, {"bytes"});
  b.node("ImageDecoder", {"s"}, {"img"}, "n").attr_string("pixel_format", "Grayscale");
  InferOptions options;
  options.input_hints["s"] = {100};
  RunResult r = run(b, options);
  ASSERT_TRUE(r.errors.empty());
  const Strings shape = shape_of(r, "img");
  ASSERT_EQ(shape.size(), 3u);
  EXPECT_EQ(shape[0].substr(0, 1), "u");
  EXPECT_EQ(shape[1].substr(0, 1), "u");
  EXPECT_EQ(shape[2], "1");
  EXPECT_EQ(dtype_of(r, "img"), DType::UInt8);
  const SymInt h = find_value(r, "img")->tensor->meta.sizes[0];
  EXPECT_EQ(r.env->bound(h.expr()).lo, 1);
}

}  // namespace
}  // namespace fakeprop::onnx
