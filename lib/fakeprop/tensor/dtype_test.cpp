#include "fakeprop/tensor/dtype.h"

#include <gtest/gtest.h>

#include <vector>

#include "fakeprop/tensor/oracle_test_util.h"

namespace fakeprop {
namespace {

std::vector<DType> all_dtypes() {
  std::vector<DType> out;
  for (int i = 0; i < static_cast<int>(DType::Undefined); ++i) out.push_back(static_cast<DType>(i));
  return out;
}

TEST(TensorDType, NamesRoundTrip) {
  for (DType t : all_dtypes()) {
    const std::string name(dtype_name(t));
    SCOPED_TRACE(name);
    EXPECT_EQ(dtype_from_name(name), t);
    EXPECT_EQ(dtype_from_name("torch." + name), t);
  }
  EXPECT_EQ(dtype_from_name("undefined"), std::nullopt);
  EXPECT_EQ(dtype_from_name("float33"), std::nullopt);
  EXPECT_EQ(dtype_from_name("torch."), std::nullopt);
  EXPECT_EQ(dtype_from_name(""), std::nullopt);
  EXPECT_EQ(dtype_from_name("Float"), std::nullopt);  // c10 spelling is not a Python name
}

TEST(TensorDType, PyTorchNamesAndAliases) {
  // torch.<name> attributes; the legacy aliases are those c10::getDtypeNames lists.
  const std::pair<const char*, DType> cases[] = {
      {"float32", DType::Float32},       {"float", DType::Float32},           {"torch.float", DType::Float32},
      {"float64", DType::Float64},       {"double", DType::Float64},          {"float16", DType::Float16},
      {"half", DType::Float16},          {"bfloat16", DType::BFloat16},       {"int64", DType::Int64},
      {"long", DType::Int64},            {"int32", DType::Int32},             {"int", DType::Int32},
      {"int16", DType::Int16},           {"short", DType::Int16},             {"int8", DType::Int8},
      {"uint8", DType::UInt8},           {"uint16", DType::UInt16},           {"uint32", DType::UInt32},
      {"uint64", DType::UInt64},         {"bool", DType::Bool},               {"complex32", DType::Complex32},
      {"chalf", DType::Complex32},       {"bcomplex32", DType::BComplex32},   {"complex64", DType::Complex64},     {"cfloat", DType::Complex64},
      {"complex128", DType::Complex128}, {"cdouble", DType::Complex128},      {"float8_e4m3fn", DType::Float8_e4m3fn},
      {"float8_e4m3fnuz", DType::Float8_e4m3fnuz}, {"float8_e5m2", DType::Float8_e5m2},
      {"float8_e5m2fnuz", DType::Float8_e5m2fnuz}, {"qint8", DType::QInt8}, {"quint8", DType::QUInt8},
      {"qint32", DType::QInt32},         {"quint4x2", DType::QUInt4x2},       {"string", DType::String},
      {"uint4", DType::UInt4},           {"int4", DType::Int4},               {"float4_e2m1fn_x2", DType::Float4_e2m1fn_x2},
      {"torch.cdouble", DType::Complex128},
  };
  for (const auto& [name, dtype] : cases) {
    SCOPED_TRACE(name);
    EXPECT_EQ(dtype_from_name(name), dtype);
  }
}

TEST(TensorDType, OnnxElementTypes) {
  // onnx/onnx.in.proto, TensorProto.DataType.
  const std::pair<int32_t, DType> cases[] = {
      {1, DType::Float32},        {2, DType::UInt8},          {3, DType::Int8},
      {4, DType::UInt16},         {5, DType::Int16},          {6, DType::Int32},
      {7, DType::Int64},          {8, DType::String},         {9, DType::Bool},
      {10, DType::Float16},       {11, DType::Float64},       {12, DType::UInt32},
      {13, DType::UInt64},        {14, DType::Complex64},     {15, DType::Complex128},
      {16, DType::BFloat16},      {17, DType::Float8_e4m3fn}, {18, DType::Float8_e4m3fnuz},
      {19, DType::Float8_e5m2},   {20, DType::Float8_e5m2fnuz}, {21, DType::UInt4},
      {22, DType::Int4},          {23, DType::Float4_e2m1fn_x2},
  };
  for (const auto& [code, dtype] : cases) {
    SCOPED_TRACE(code);
    EXPECT_EQ(dtype_from_onnx(code), dtype);
    EXPECT_EQ(dtype_to_onnx(dtype), code);
  }
  for (int32_t code : {0, -1, 24, 1000}) EXPECT_EQ(dtype_from_onnx(code), std::nullopt) << code;
  for (DType t : {DType::Complex32, DType::BComplex32, DType::QInt8, DType::QUInt8, DType::QInt32, DType::QUInt4x2, DType::Undefined}) {
    EXPECT_EQ(dtype_to_onnx(t), 0) << dtype_name(t);
  }
}

TEST(TensorDType, C10Names) {
  // c10::toString, as Dynamo prints dtypes in guard failures.
  const std::pair<DType, const char*> cases[] = {
      {DType::Float32, "Float"},       {DType::Float64, "Double"},        {DType::Float16, "Half"},
      {DType::BFloat16, "BFloat16"},   {DType::Int64, "Long"},            {DType::Int32, "Int"},
      {DType::Int16, "Short"},         {DType::Int8, "Char"},             {DType::UInt8, "Byte"},
      {DType::Bool, "Bool"},           {DType::Complex32, "ComplexHalf"}, {DType::Complex64, "ComplexFloat"},
      {DType::BComplex32, "BComplex32"}, {DType::Complex128, "ComplexDouble"}, {DType::UInt16, "UInt16"},    {DType::Float8_e5m2, "Float8_e5m2"},
      {DType::QInt8, "QInt8"},
  };
  for (const auto& [dtype, name] : cases) EXPECT_EQ(dtype_c10_name(dtype), name);
}

TEST(TensorDType, Predicates) {
  struct Case {
    DType t;
    bool floating, complex, integral, integral_or_bool, is_signed;
    int64_t size;
  };
  const Case cases[] = {
      {DType::Bool, false, false, false, true, false, 1},
      {DType::UInt8, false, false, true, true, false, 1},
      {DType::Int8, false, false, true, true, true, 1},
      {DType::Int16, false, false, true, true, true, 2},
      {DType::Int32, false, false, true, true, true, 4},
      {DType::Int64, false, false, true, true, true, 8},
      {DType::UInt16, false, false, true, true, false, 2},
      {DType::UInt32, false, false, true, true, false, 4},
      {DType::UInt64, false, false, true, true, false, 8},
      {DType::Float16, true, false, false, false, true, 2},
      {DType::BFloat16, true, false, false, false, true, 2},
      {DType::Float32, true, false, false, false, true, 4},
      {DType::Float64, true, false, false, false, true, 8},
      {DType::Complex32, false, true, false, false, true, 4},
      {DType::BComplex32, false, true, false, false, true, 4},
      {DType::Complex64, false, true, false, false, true, 8},
      {DType::Complex128, false, true, false, false, true, 16},
      {DType::Float8_e4m3fn, true, false, false, false, true, 1},
      {DType::Float8_e5m2fnuz, true, false, false, false, true, 1},
      {DType::UInt4, false, false, true, true, false, 1},
      {DType::Int4, false, false, true, true, true, 1},
      {DType::QInt8, false, false, false, false, true, 1},
      {DType::QInt32, false, false, false, false, true, 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(dtype_name(c.t));
    EXPECT_EQ(is_floating(c.t), c.floating);
    EXPECT_EQ(is_complex(c.t), c.complex);
    EXPECT_EQ(is_integral(c.t, false), c.integral);
    EXPECT_EQ(is_integral(c.t, true), c.integral_or_bool);
    EXPECT_EQ(is_signed(c.t), c.is_signed);
    EXPECT_EQ(element_size(c.t), c.size);
  }
}

TEST(TensorDType, RealAndComplexCounterparts) {
  EXPECT_EQ(to_real(DType::Complex32), DType::Float16);
  EXPECT_EQ(to_real(DType::BComplex32), DType::BFloat16);
  EXPECT_EQ(to_real(DType::Complex64), DType::Float32);
  EXPECT_EQ(to_real(DType::Complex128), DType::Float64);
  EXPECT_EQ(to_real(DType::Int32), DType::Int32);
  EXPECT_EQ(to_complex(DType::Float16), DType::Complex32);
  EXPECT_EQ(to_complex(DType::BFloat16), DType::BComplex32);  // torch 2.15; 1.13 had no bcomplex32
  EXPECT_EQ(to_complex(DType::Float32), DType::Complex64);
  EXPECT_EQ(to_complex(DType::Float64), DType::Complex128);
  EXPECT_EQ(to_complex(DType::Complex64), DType::Complex64);
}

// Dtypes torch 1.13 lacks; expectations from c10/core/ScalarType.cpp's promoteTypes.
TEST(TensorDType, PromoteTypesOfNewerDtypes) {
  struct Case {
    DType a, b;
    std::optional<DType> want;
  };
  const Case cases[] = {
      {DType::UInt16, DType::Float32, DType::Float32},   // floating wins over barebones unsigned
      {DType::BFloat16, DType::UInt64, DType::BFloat16},
      {DType::UInt32, DType::Float8_e5m2, std::nullopt},  // float8 is checked first
      {DType::UInt16, DType::Int32, std::nullopt},
      {DType::UInt16, DType::Bool, std::nullopt},
      {DType::UInt16, DType::UInt32, std::nullopt},
      {DType::UInt16, DType::Complex64, std::nullopt},    // complex is not floating there
      {DType::UInt64, DType::UInt64, DType::UInt64},      // equal types always promote to themselves
      {DType::Float8_e4m3fn, DType::Float8_e4m3fn, DType::Float8_e4m3fn},
      {DType::Float8_e4m3fn, DType::Float32, std::nullopt},
      {DType::Float8_e4m3fn, DType::Float8_e5m2, std::nullopt},
      {DType::Float4_e2m1fn_x2, DType::Float32, std::nullopt},
      {DType::String, DType::String, DType::String},
      {DType::String, DType::Float32, std::nullopt},
      {DType::Int4, DType::Int8, std::nullopt},
      {DType::Undefined, DType::Float32, std::nullopt},
      {DType::Undefined, DType::Undefined, std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(dtype_name(c.a)) + " " + std::string(dtype_name(c.b)));
    EXPECT_EQ(promote_types(c.a, c.b), c.want);
    EXPECT_EQ(promote_types(c.b, c.a), c.want);
  }
}

TEST(TensorDType, PromoteTypesOracle) {
  const nlohmann::json doc = oracle::load("dtypes.json");
  size_t compared = 0;
  for (const auto& c : doc["promote_types"]) {
    SCOPED_TRACE(c.dump());
    std::optional<DType> got = promote_types(oracle::dtype(c["a"]), oracle::dtype(c["b"]));
    if (c["expected"].contains("error")) {
      EXPECT_EQ(got, std::nullopt);
    } else {
      EXPECT_EQ(got, oracle::dtype(c["expected"]["value"]));
    }
    ++compared;
  }
  EXPECT_EQ(compared, 18u * 18u);
  oracle::report_count("promote_types", compared);
}

std::vector<PromotionOperand> operands_of(const nlohmann::json& list) {
  std::vector<PromotionOperand> out;
  for (const auto& op : list) {
    const std::string kind = op["kind"];
    OperandKind k = kind == "tensor" ? OperandKind::Tensor
                    : kind == "zerodim" ? OperandKind::ZeroDimTensor
                                        : OperandKind::Scalar;
    out.push_back({oracle::dtype(op["dtype"]), k});
  }
  return out;
}

TEST(TensorDType, ResultTypeOracle) {
  const nlohmann::json doc = oracle::load("dtypes.json");
  size_t compared = 0;
  for (const auto& c : doc["result_type"]) {
    SCOPED_TRACE(c.dump());
    std::optional<DType> got = result_type(operands_of(c["operands"]));
    if (c["expected"].contains("error")) {
      EXPECT_EQ(got, std::nullopt);
    } else {
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(dtype_name(*got), c["expected"]["value"].get<std::string>());
    }
    ++compared;
  }
  EXPECT_GE(compared, 60u);
  oracle::report_count("result_type", compared);
}

TEST(TensorDType, ResultTypeBriefExamples) {
  using K = OperandKind;
  struct Case {
    std::vector<PromotionOperand> ops;
    DType want;
  };
  const Case cases[] = {
      {{{DType::Int32, K::Tensor}, {DType::Float64, K::Scalar}}, DType::Float32},  // Python float: default float
      {{{DType::Float64, K::Tensor}, {DType::Complex128, K::Scalar}}, DType::Complex128},
      {{{DType::Float64, K::ZeroDimTensor}, {DType::Float32, K::Tensor}}, DType::Float32},
      {{{DType::Int8, K::Tensor}, {DType::Int64, K::ZeroDimTensor}, {DType::Float64, K::Scalar}}, DType::Float32},
      {{{DType::Bool, K::Tensor}, {DType::Bool, K::Scalar}}, DType::Bool},
      {{{DType::Bool, K::Scalar}}, DType::Bool},
  };
  for (const Case& c : cases) EXPECT_EQ(result_type(c.ops), c.want);
  EXPECT_EQ(result_type({}), std::nullopt);
}

std::optional<PromotionKind> promotion_kind(const std::string& name) {
  if (name == "default") return PromotionKind::Default;
  if (name == "no_opmath") return PromotionKind::NoOpmath;
  if (name == "int_to_float") return PromotionKind::IntToFloat;
  if (name == "always_bool") return PromotionKind::AlwaysBool;
  if (name == "complex_to_float") return PromotionKind::ComplexToFloat;
  if (name == "bool_to_long") return PromotionKind::BoolToLong;
  return std::nullopt;
}

TEST(TensorDType, ElementwiseDtypesOracle) {
  const nlohmann::json doc = oracle::load("dtypes.json");
  size_t compared = 0;
  for (const auto& c : doc["elementwise_dtypes"]) {
    SCOPED_TRACE(c.dump());
    std::optional<PromotionKind> kind = promotion_kind(c["kind"]);
    ASSERT_TRUE(kind.has_value());
    std::optional<ElementwiseDtypes> got = elementwise_dtypes(operands_of(c["operands"]), *kind);
    if (c["expected"].contains("error")) {
      EXPECT_EQ(got, std::nullopt);
    } else {
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(dtype_name(got->compute), c["expected"]["value"][0].get<std::string>());
      EXPECT_EQ(dtype_name(got->result), c["expected"]["value"][1].get<std::string>());
    }
    ++compared;
  }
  EXPECT_GE(compared, 60u);
  oracle::report_count("elementwise_dtypes", compared);
}

TEST(TensorDType, ElementwiseDtypesFollowDefaultFloat) {
  using K = OperandKind;
  const PromotionOperand int_tensor[] = {{DType::Int64, K::Tensor}};
  auto sin = elementwise_dtypes(int_tensor, PromotionKind::IntToFloat, DType::Float64);
  ASSERT_TRUE(sin.has_value());
  EXPECT_EQ(sin->result, DType::Float64);
  EXPECT_EQ(sin->compute, DType::Float64);
  const PromotionOperand with_complex[] = {{DType::Int64, K::Tensor}, {DType::Complex128, K::Scalar}};
  auto add = elementwise_dtypes(with_complex, PromotionKind::Default, DType::Float64);
  ASSERT_TRUE(add.has_value());
  EXPECT_EQ(add->result, DType::Complex128);
  const PromotionOperand half[] = {{DType::Float16, K::Tensor}, {DType::BFloat16, K::ZeroDimTensor}};
  auto opmath = elementwise_dtypes(half, PromotionKind::Default);
  ASSERT_TRUE(opmath.has_value());
  EXPECT_EQ(opmath->result, DType::Float16);
  EXPECT_EQ(opmath->compute, DType::Float32);
  const PromotionOperand quantized[] = {{DType::QInt8, K::Tensor}};
  EXPECT_EQ(elementwise_dtypes(quantized, PromotionKind::Default), std::nullopt);
}

}  // namespace
}  // namespace fakeprop
