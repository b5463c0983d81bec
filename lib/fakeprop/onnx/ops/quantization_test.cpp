// Quantization rules: output types of QuantizeLinear / DequantizeLinear by
// opset (zero point type, uint8 default, scale type from 19, output_dtype
// from 21), per-axis and blocked parameter checks, DynamicQuantizeLinear's
// three outputs, and the integer / QLinear MatMul and Conv shapes.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>

#include "fakeprop/onnx/ops/rule_case_test_util.h"
#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::dtype_of;
using testing::error_kinds;
using testing::run;
using testing::shape_of;

using namespace testing::dtypes;

using Strings = std::vector<std::string>;

using Expect = testing::RuleExpect;
using Case = testing::RuleCase;

class QuantizationCase : public ::testing::TestWithParam<Case> {};

TEST_P(QuantizationCase, Infers) { testing::check_rule_case(GetParam()); }

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // ---------------- QuantizeLinear ----------------
      {"QuantizeWithoutZeroPointIsUInt8", 10,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.initializer_floats({}, "scale", {0.5f});
         b.node("QuantizeLinear", {"x", "scale"}, {"y"});
       },
       {{"y", {"batch", "4"}, std::nullopt, DType::UInt8}}},
      {"QuantizeTakesZeroPointType", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.initializer_floats({}, "scale", {0.5f});
         b.initializer_ints("zp", {}, {0}, kInt8);
         b.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"});
       },
       {{"y", {"batch", "4"}, std::nullopt, DType::Int8}}},
      {"QuantizePerAxis", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, "n"});
         b.initializer_floats({3}, "scale", {0.5f, 0.25f, 1.0f});
         b.initializer_ints("zp", {3}, {0, 1, 2}, kUInt8);
         b.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"});
       },
       {{"y", {"2", "3", "n"}, std::nullopt, DType::UInt8}}},
      {"QuantizePerAxisLengthMismatch", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, 4});
         b.initializer_floats({4}, "scale", {0.5f, 0.25f, 1.0f, 2.0f});
         b.node("QuantizeLinear", {"x", "scale"}, {"y"});
       },
       {},
       "shape_mismatch"},
      {"QuantizeVectorScaleBeforeOpset13Fails", 10,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.initializer_floats({3}, "scale", {0.5f, 0.25f, 1.0f});
         b.node("QuantizeLinear", {"x", "scale"}, {"y"});
       },
       {},
       "invalid_shape"},
      {"QuantizeOpset21OutputDtype", 21,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.initializer_floats({}, "scale", {0.5f});
         b.node("QuantizeLinear", {"x", "scale"}, {"y"}).attr_int("output_dtype", kInt8);
       },
       {{"y", {"batch", "4"}, std::nullopt, DType::Int8}}},
      {"QuantizeOpset21OutputDtypeConflicts", 21,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.initializer_floats({}, "scale", {0.5f});
         b.initializer_ints("zp", {}, {0}, kUInt8);
         b.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"}).attr_int("output_dtype", kInt8);
       },
       {},
       "type_error"},
      {"QuantizeOpset21Blocked", 21,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {4, 6});
         b.weight("scale", kFloat, {4, 3});
         b.node("QuantizeLinear", {"x", "scale"}, {"y"}).attr_int("axis", 1).attr_int("block_size", 2);
       },
       {{"y", {"4", "6"}, std::nullopt, DType::UInt8}}},
      {"QuantizeOpset21BlockedCeil", 21,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {4, 7});
         b.weight("scale", kFloat, {4, 3});
         b.node("QuantizeLinear", {"x", "scale"}, {"y"}).attr_int("axis", 1).attr_int("block_size", 3);
       },
       {{"y", {"4", "7"}, std::nullopt, DType::UInt8}}},
      {"QuantizeOpset21BlockedMismatch", 21,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {4, 6});
         b.weight("scale", kFloat, {4, 2});
         b.node("QuantizeLinear", {"x", "scale"}, {"y"}).attr_int("axis", 1).attr_int("block_size", 2);
       },
       {},
       "shape_mismatch"},
      // ---------------- DequantizeLinear ----------------
      {"DequantizeOpset13IsFloat32", 13,
       [](ModelBuilder& b) {
         b.input("x", kUInt8, {"batch", 4});
         b.initializer_floats({}, "scale", {0.5f});
         b.node("DequantizeLinear", {"x", "scale"}, {"y"});
       },
       {{"y", {"batch", "4"}, std::nullopt, DType::Float32}}},
      {"DequantizeOpset19TakesScaleType", 19,
       [](ModelBuilder& b) {
         b.input("x", kInt8, {"batch", 4});
         b.weight("scale", kFloat16, {});
         b.node("DequantizeLinear", {"x", "scale"}, {"y"});
       },
       {{"y", {"batch", "4"}, std::nullopt, DType::Float16}}},
      {"DequantizeInt32NoZeroPoint", 10,
       [](ModelBuilder& b) {
         b.input("x", kInt32, {3});
         b.initializer_floats({}, "scale", {0.5f});
         b.node("DequantizeLinear", {"x", "scale"}, {"y"});
       },
       {{"y", {"3"}, std::nullopt, DType::Float32}}},
      {"DynamicQuantizeLinearOutputs", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 8});
         b.node("DynamicQuantizeLinear", {"x"}, {"y", "scale", "zp"});
       },
       {{"y", {"batch", "8"}, std::nullopt, DType::UInt8}, {"scale", {}, std::nullopt, DType::Float32}, {"zp", {}, std::nullopt, DType::UInt8}}},
      // ---------------- integer and QLinear MatMul ----------------
      {"MatMulIntegerBatched", 10,
       [](ModelBuilder& b) {
         b.input("a", kUInt8, {"batch", 4, 3});
         b.weight("b", kUInt8, {3, 5});
         b.node("MatMulInteger", {"a", "b"}, {"y"});
       },
       {{"y", {"batch", "4", "5"}, std::nullopt, DType::Int32}}},
      {"MatMulIntegerVectorOperand", 10,
       [](ModelBuilder& b) {
         b.input("a", kInt8, {3});
         b.weight("b", kInt8, {2, 3, 5});
         b.node("MatMulInteger", {"a", "b"}, {"y"});
       },
       {{"y", {"2", "5"}, std::nullopt, DType::Int32}}},
      {"MatMulIntegerMismatch", 10,
       [](ModelBuilder& b) {
         b.input("a", kUInt8, {2, 4});
         b.weight("b", kUInt8, {3, 5});
         b.node("MatMulInteger", {"a", "b"}, {"y"});
       },
       {},
       "shape_mismatch"},
      {"QLinearMatMulZeroPointType", 10,
       [](ModelBuilder& b) {
         b.input("a", kUInt8, {"batch", "seq", 16});
         b.initializer_floats({}, "as", {0.1f});
         b.initializer_ints("az", {}, {0}, kUInt8);
         b.weight("b", kInt8, {16, 8});
         b.initializer_floats({}, "bs", {0.1f});
         b.initializer_ints("bz", {}, {0}, kInt8);
         b.initializer_floats({}, "ys", {0.1f});
         b.initializer_ints("yz", {}, {0}, kInt8);
         b.node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"});
       },
       {{"y", {"batch", "seq", "8"}, std::nullopt, DType::Int8}}},
      // ---------------- integer and QLinear Conv ----------------
      // From ONNX's convinteger tests: 3x3 input, 2x2 kernel, with and without pads of 1.
      {"ConvIntegerPadding", 10,
       [](ModelBuilder& b) {
         b.input("x", kUInt8, {1, 1, 3, 3});
         b.weight("w", kUInt8, {1, 1, 2, 2});
         b.node("ConvInteger", {"x", "w"}, {"padded"}).attr_ints("pads", {1, 1, 1, 1});
         b.node("ConvInteger", {"x", "w"}, {"plain"});
       },
       {{"padded", {"1", "1", "4", "4"}, std::nullopt, DType::Int32}, {"plain", {"1", "1", "2", "2"}, std::nullopt, DType::Int32}}},
      {"ConvIntegerSymbolicStride2", 10,
       [](ModelBuilder& b) {
         b.input("x", kUInt8, {"batch", 3, "h", "w"});
         b.weight("w", kUInt8, {8, 3, 3, 3});
         b.node("ConvInteger", {"x", "w"}, {"y"}).attr_ints("strides", {2, 2}).attr_ints("pads", {1, 1, 1, 1});
       },
       {{"y", {"batch", "8", "(h - 1)//2 + 1", "(w - 1)//2 + 1"}, std::nullopt, DType::Int32}},
       "",
       {{"x", {2, 3, 32, 30}}}},
      {"ConvIntegerSymbolicKernelIsUnknown", 10,
       [](ModelBuilder& b) {
         b.input("x", kUInt8, {1, 2, 9});
         b.input("w", kUInt8, {4, 2, "k"});
         b.node("ConvInteger", {"x", "w"}, {"y"});
       },
       {{"y", {"1", "4", "u0"}, std::nullopt, DType::Int32}}},
      {"ConvIntegerKernelShapeMismatch", 10,
       [](ModelBuilder& b) {
         b.input("x", kUInt8, {1, 2, 9});
         b.weight("w", kUInt8, {4, 2, 3});
         b.node("ConvInteger", {"x", "w"}, {"y"}).attr_ints("kernel_shape", {2});
       },
       {},
       "shape_mismatch"},
      {"ConvIntegerChannelMismatch", 10,
       [](ModelBuilder& b) {
         b.input("x", kUInt8, {1, 4, 5, 5});
         b.weight("w", kUInt8, {2, 3, 3, 3});
         b.node("ConvInteger", {"x", "w"}, {"y"});
       },
       {},
       "shape_mismatch"},
      {"QLinearConvGroupsAndBias", 10,
       [](ModelBuilder& b) {
         b.input("x", kUInt8, {"batch", 4, 7, 7});
         b.initializer_floats({}, "xs", {0.1f});
         b.initializer_ints("xz", {}, {0}, kUInt8);
         b.weight("w", kInt8, {6, 2, 3, 3});
         b.initializer_floats({}, "ws", {0.1f});
         b.initializer_ints("wz", {}, {0}, kInt8);
         b.initializer_floats({}, "ys", {0.1f});
         b.initializer_ints("yz", {}, {0}, kUInt8);
         b.weight("bias", kInt32, {6});
         b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "bias"}, {"y"}).attr_int("group", 2);
       },
       {{"y", {"batch", "6", "5", "5"}, std::nullopt, DType::UInt8}}},
      {"QLinearConvBiasLengthMismatch", 10,
       [](ModelBuilder& b) {
         b.input("x", kUInt8, {1, 2, 5, 5});
         b.initializer_floats({}, "xs", {0.1f});
         b.initializer_ints("xz", {}, {0}, kUInt8);
         b.weight("w", kUInt8, {4, 2, 3, 3});
         b.initializer_floats({}, "ws", {0.1f});
         b.initializer_ints("wz", {}, {0}, kUInt8);
         b.initializer_floats({}, "ys", {0.1f});
         b.initializer_ints("yz", {}, {0}, kUInt8);
         b.weight("bias", kInt32, {3});
         b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "bias"}, {"y"});
       },
       {},
       "shape_mismatch"},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, QuantizationCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace fakeprop::onnx
