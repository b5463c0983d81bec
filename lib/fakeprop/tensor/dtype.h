// Element types: every PyTorch dtype and every ONNX element type, PyTorch's
// names, and torch's type promotion (result_type / elementwise_dtypes).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fakeprop {

enum class DType : uint8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex32,
  BComplex32,  // complex with bfloat16 parts
  Complex64,
  Complex128,
  Float8_e4m3fn,
  Float8_e4m3fnuz,
  Float8_e5m2,
  Float8_e5m2fnuz,
  UInt4,     // ONNX only
  Int4,      // ONNX only
  Float4_e2m1fn_x2,
  QInt8,
  QUInt8,
  QInt32,
  QUInt4x2,
  String,    // ONNX only
  Undefined,
};

std::string_view dtype_name(DType t);                       // "float32", "int64", "string"
std::optional<DType> dtype_from_name(std::string_view name);  // also "torch.float32", "float", "long", "half"
std::optional<DType> dtype_from_onnx(int32_t elem_type);      // TensorProto.DataType
int32_t dtype_to_onnx(DType t);                              // 0 when ONNX has no such type
// Dynamo's guard-failure spelling ("Float", "BFloat16", "Long").
std::string_view dtype_c10_name(DType t);

bool is_floating(DType t);  // includes float8 and bfloat16
bool is_complex(DType t);
bool is_integral(DType t, bool include_bool);
bool is_signed(DType t);
int64_t element_size(DType t);  // bytes (sub-byte types: 1)
// complex64 -> float32, complex128 -> float64, complex32 -> float16,
// bcomplex32 -> bfloat16; others unchanged.
DType to_real(DType t);
DType to_complex(DType t);

// torch.promote_types; nullopt where torch raises (e.g. float8 mixes).
std::optional<DType> promote_types(DType a, DType b);

// One operand of type promotion.
enum class OperandKind : uint8_t {
  Tensor,        // dim > 0
  ZeroDimTensor, // dim == 0
  Scalar,        // Python number: dtype is Bool, Int64, Float64 or Complex128
};
struct PromotionOperand {
  DType dtype;
  OperandKind kind;
};
// torch.result_type over several operands.
std::optional<DType> result_type(std::span<const PromotionOperand> operands);

// torch._prims_common.ELEMENTWISE_TYPE_PROMOTION_KIND
enum class PromotionKind : uint8_t { Default, NoOpmath, IntToFloat, AlwaysBool, ComplexToFloat, BoolToLong };
struct ElementwiseDtypes {
  DType compute;
  DType result;
};
// elementwise_dtypes(); `default_float` is torch.get_default_dtype().
std::optional<ElementwiseDtypes> elementwise_dtypes(std::span<const PromotionOperand> operands, PromotionKind kind,
                                                    DType default_float = DType::Float32);

}  // namespace fakeprop
