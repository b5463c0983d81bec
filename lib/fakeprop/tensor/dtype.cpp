#include "fakeprop/tensor/dtype.h"

#include <array>

namespace fakeprop {
namespace {

enum class Category : uint8_t { Bool, Integral, Floating, Complex, Other };

struct DTypeInfo {
  DType dtype;
  std::string_view name;      // PyTorch's
  std::string_view c10_name;  // c10::toString
  int32_t onnx;               // TensorProto.DataType, 0 when none
  int64_t size;               // bytes per element (sub-byte types: 1)
  Category category;
  bool is_signed;
};

// One row per DType, in enum order (checked below).
constexpr std::array<DTypeInfo, static_cast<size_t>(DType::Undefined) + 1> kInfo = {{
    {DType::Bool, "bool", "Bool", 9, 1, Category::Bool, false},
    {DType::UInt8, "uint8", "Byte", 2, 1, Category::Integral, false},
    {DType::Int8, "int8", "Char", 3, 1, Category::Integral, true},
    {DType::Int16, "int16", "Short", 5, 2, Category::Integral, true},
    {DType::Int32, "int32", "Int", 6, 4, Category::Integral, true},
    {DType::Int64, "int64", "Long", 7, 8, Category::Integral, true},
    {DType::UInt16, "uint16", "UInt16", 4, 2, Category::Integral, false},
    {DType::UInt32, "uint32", "UInt32", 12, 4, Category::Integral, false},
    {DType::UInt64, "uint64", "UInt64", 13, 8, Category::Integral, false},
    {DType::Float16, "float16", "Half", 10, 2, Category::Floating, true},
    {DType::BFloat16, "bfloat16", "BFloat16", 16, 2, Category::Floating, true},
    {DType::Float32, "float32", "Float", 1, 4, Category::Floating, true},
    {DType::Float64, "float64", "Double", 11, 8, Category::Floating, true},
    {DType::Complex32, "complex32", "ComplexHalf", 0, 4, Category::Complex, true},
    {DType::BComplex32, "bcomplex32", "BComplex32", 0, 4, Category::Complex, true},
    {DType::Complex64, "complex64", "ComplexFloat", 14, 8, Category::Complex, true},
    {DType::Complex128, "complex128", "ComplexDouble", 15, 16, Category::Complex, true},
    {DType::Float8_e4m3fn, "float8_e4m3fn", "Float8_e4m3fn", 17, 1, Category::Floating, true},
    {DType::Float8_e4m3fnuz, "float8_e4m3fnuz", "Float8_e4m3fnuz", 18, 1, Category::Floating, true},
    {DType::Float8_e5m2, "float8_e5m2", "Float8_e5m2", 19, 1, Category::Floating, true},
    {DType::Float8_e5m2fnuz, "float8_e5m2fnuz", "Float8_e5m2fnuz", 20, 1, Category::Floating, true},
    {DType::UInt4, "uint4", "UInt4", 21, 1, Category::Integral, false},
    {DType::Int4, "int4", "Int4", 22, 1, Category::Integral, true},
    // A packed pair of 4-bit floats: PyTorch does not count it as floating point.
    {DType::Float4_e2m1fn_x2, "float4_e2m1fn_x2", "Float4_e2m1fn_x2", 23, 1, Category::Other, true},
    {DType::QInt8, "qint8", "QInt8", 0, 1, Category::Other, true},
    {DType::QUInt8, "quint8", "QUInt8", 0, 1, Category::Other, false},
    {DType::QInt32, "qint32", "QInt32", 0, 4, Category::Other, true},
    {DType::QUInt4x2, "quint4x2", "QUInt4x2", 0, 1, Category::Other, false},
    // Strings have no fixed element size.
    {DType::String, "string", "String", 8, 0, Category::Other, false},
    {DType::Undefined, "undefined", "Undefined", 0, 0, Category::Other, false},
}};

constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < kInfo.size(); ++i) {
    if (static_cast<size_t>(kInfo[i].dtype) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order());

const DTypeInfo& info(DType t) { return kInfo[static_cast<size_t>(t)]; }

struct Alias {
  std::string_view name;
  DType dtype;
};
// torch.float etc.: the legacy names c10's getDtypeNames lists.
constexpr Alias kAliases[] = {
    {"float", DType::Float32},     {"double", DType::Float64},     {"half", DType::Float16},
    {"long", DType::Int64},        {"int", DType::Int32},          {"short", DType::Int16},
    {"cfloat", DType::Complex64},  {"cdouble", DType::Complex128}, {"chalf", DType::Complex32},
};

bool is_float8(DType t) {
  return t == DType::Float8_e4m3fn || t == DType::Float8_e4m3fnuz || t == DType::Float8_e5m2 ||
         t == DType::Float8_e5m2fnuz;
}
bool is_quantized(DType t) {
  return t == DType::QInt8 || t == DType::QUInt8 || t == DType::QInt32 || t == DType::QUInt4x2;
}
// c10's "barebones unsigned" types: promote only with floating types.
bool is_barebones_unsigned(DType t) {
  return t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64 || t == DType::UInt4;
}

// Index into c10's promotion table, -1 for types outside it.
int promotion_index(DType t) {
  switch (t) {
    case DType::UInt8: return 0;
    case DType::Int8: return 1;
    case DType::Int16: return 2;
    case DType::Int32: return 3;
    case DType::Int64: return 4;
    case DType::Float16: return 5;
    case DType::Float32: return 6;
    case DType::Float64: return 7;
    case DType::Complex32: return 8;
    case DType::Complex64: return 9;
    case DType::Complex128: return 10;
    case DType::Bool: return 11;
    case DType::BFloat16: return 12;
    case DType::BComplex32: return 13;
    default: return -1;
  }
}

Category category(DType t) { return info(t).category; }

}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }

std::optional<DType> dtype_from_name(std::string_view name) {
  constexpr std::string_view kTorchPrefix = "torch.";
  if (name.starts_with(kTorchPrefix)) name.remove_prefix(kTorchPrefix.size());
  for (const DTypeInfo& row : kInfo) {
    if (row.dtype != DType::Undefined && row.name == name) return row.dtype;
  }
  for (const Alias& alias : kAliases) {
    if (alias.name == name) return alias.dtype;
  }
  return std::nullopt;
}

std::optional<DType> dtype_from_onnx(int32_t elem_type) {
  if (elem_type == 0) return std::nullopt;
  for (const DTypeInfo& row : kInfo) {
    if (row.onnx == elem_type) return row.dtype;
  }
  return std::nullopt;
}

int32_t dtype_to_onnx(DType t) { return info(t).onnx; }

std::string_view dtype_c10_name(DType t) { return info(t).c10_name; }

bool is_floating(DType t) { return category(t) == Category::Floating; }
bool is_complex(DType t) { return category(t) == Category::Complex; }
bool is_integral(DType t, bool include_bool) {
  return category(t) == Category::Integral || (include_bool && t == DType::Bool);
}
bool is_signed(DType t) { return info(t).is_signed; }
int64_t element_size(DType t) { return info(t).size; }

DType to_real(DType t) {
  switch (t) {
    case DType::Complex32: return DType::Float16;
    case DType::BComplex32: return DType::BFloat16;
    case DType::Complex64: return DType::Float32;
    case DType::Complex128: return DType::Float64;
    default: return t;
  }
}

// c10::toComplexType; types without a complex counterpart stay unchanged.
DType to_complex(DType t) {
  switch (t) {
    case DType::Float16: return DType::Complex32;
    case DType::BFloat16: return DType::BComplex32;
    case DType::Float32: return DType::Complex64;
    case DType::Float64: return DType::Complex128;
    default: return t;
  }
}

std::optional<DType> promote_types(DType a, DType b) {
  if (a == DType::Undefined || b == DType::Undefined) return std::nullopt;
  if (a == b) return a;
  if (is_quantized(a) || is_quantized(b)) return std::nullopt;
  if (is_float8(a) || is_float8(b)) return std::nullopt;
  if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
    if (is_floating(a)) return a;
    if (is_floating(b)) return b;
    return std::nullopt;
  }
  const int ia = promotion_index(a);
  const int ib = promotion_index(b);
  if (ia < 0 || ib < 0) return std::nullopt;

  using D = DType;
  constexpr D u1 = D::UInt8, i1 = D::Int8, i2 = D::Int16, i4 = D::Int32, i8 = D::Int64;
  constexpr D f2 = D::Float16, f4 = D::Float32, f8 = D::Float64, bf = D::BFloat16, b1 = D::Bool;
  constexpr D c2 = D::Complex32, c4 = D::Complex64, c8 = D::Complex128, bc = D::BComplex32;
  // c10::promoteTypes' table; rows and columns follow promotion_index().
  static constexpr D kTable[14][14] = {
      /*        u1  i1  i2  i4  i8  f2  f4  f8  c2  c4  c8  b1  bf  bc */
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, u1, bf, bc},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, i1, bf, bc},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, i2, bf, bc},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c2, c4, c8, i4, bf, bc},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c2, c4, c8, i8, bf, bc},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c2, c4, c8, f2, f4, c4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c4, c8, f4, f4, c4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, c8, f8, f8, c8},
      /* c2 */ {c2, c2, c2, c2, c2, c2, c4, c8, c2, c4, c8, c2, c4, c4},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c4, c8, c4, c4, c4},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, b1, bf, bc},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c4, c8, bf, bf, bc},
      /* bc */ {bc, bc, bc, bc, bc, c4, c4, c8, c4, c4, c8, bc, bc, bc},
  };
  return kTable[ia][ib];
}

namespace {

// ATen's ResultTypeState: one running dtype per operand priority.
// Undefined means "no operand of this priority yet".
std::optional<DType> promote_skip_undefined(DType a, DType b) {
  if (a == DType::Undefined) return b;
  if (b == DType::Undefined) return a;
  return promote_types(a, b);
}

// The higher-priority dtype wins unless the lower one is of a higher category.
std::optional<DType> combine_categories(DType higher, DType lower) {
  if (is_complex(higher)) return higher;
  if (is_complex(lower)) {
    // A floating `higher` keeps its precision, as its complex counterpart.
    if (is_floating(higher)) return to_complex(higher);
    return lower;
  }
  if (is_floating(higher)) return higher;
  if (higher == DType::Bool || is_floating(lower)) return promote_skip_undefined(higher, lower);
  if (higher != DType::Undefined) return higher;
  return lower;
}

}  // namespace

std::optional<DType> result_type(std::span<const PromotionOperand> operands) {
  DType dim_result = DType::Undefined;
  DType zero_dim_result = DType::Undefined;
  DType scalar_result = DType::Undefined;
  for (const PromotionOperand& op : operands) {
    DType current = op.dtype;
    DType* slot = &dim_result;
    if (op.kind == OperandKind::ZeroDimTensor) slot = &zero_dim_result;
    if (op.kind == OperandKind::Scalar) {
      slot = &scalar_result;
      // Python numbers are wrapped with the default dtypes.
      if (is_complex(current)) current = DType::Complex64;
      else if (is_floating(current)) current = DType::Float32;
    }
    std::optional<DType> promoted = promote_skip_undefined(*slot, current);
    if (!promoted) return std::nullopt;
    *slot = *promoted;
  }
  std::optional<DType> lower = combine_categories(zero_dim_result, scalar_result);
  if (!lower) return std::nullopt;
  std::optional<DType> result = combine_categories(dim_result, *lower);
  if (!result || *result == DType::Undefined) return std::nullopt;
  return result;
}

namespace {

// Python's number types in the order type promotion ranks them.
enum class NumberKind : uint8_t { Bool, Int, Float, Complex };

std::optional<NumberKind> number_kind(DType t) {
  if (t == DType::Bool) return NumberKind::Bool;
  if (is_integral(t, false)) return NumberKind::Int;
  if (is_floating(t)) return NumberKind::Float;
  if (is_complex(t)) return NumberKind::Complex;
  return std::nullopt;
}

// Opmath: low-precision floating types compute in float32 (complex32 and
// bcomplex32 in complex64).
DType computation_dtype(DType t) {
  switch (t) {
    case DType::Float16:
    case DType::BFloat16: return DType::Float32;
    case DType::Complex32:
    case DType::BComplex32: return DType::Complex64;
    default: return t;
  }
}

}  // namespace

std::optional<ElementwiseDtypes> elementwise_dtypes(std::span<const PromotionOperand> operands, PromotionKind kind,
                                                    DType default_float) {
  NumberKind highest = NumberKind::Bool;
  for (const PromotionOperand& op : operands) {
    std::optional<NumberKind> k = number_kind(op.dtype);
    if (!k) return std::nullopt;
    if (*k > highest) highest = *k;
  }

  // Highest tensor dtype among those `keep` accepts, preferring tensors with dims.
  auto highest_tensor_dtype = [&](auto keep, bool float_as_complex) -> std::optional<std::optional<DType>> {
    std::optional<DType> dim_dtype;
    std::optional<DType> zero_dim_dtype;
    for (const PromotionOperand& op : operands) {
      if (op.kind == OperandKind::Scalar || !keep(op.dtype)) continue;
      DType t = float_as_complex && is_floating(op.dtype) ? to_complex(op.dtype) : op.dtype;
      std::optional<DType>& slot = op.kind == OperandKind::Tensor ? dim_dtype : zero_dim_dtype;
      if (!slot) {
        slot = t;
        continue;
      }
      std::optional<DType> promoted = promote_types(*slot, t);
      if (!promoted) return std::nullopt;
      slot = promoted;
    }
    return dim_dtype ? dim_dtype : zero_dim_dtype;
  };

  DType result = DType::Bool;
  std::optional<std::optional<DType>> found;
  switch (highest) {
    case NumberKind::Bool:
      found = std::optional<DType>(DType::Bool);
      break;
    case NumberKind::Int:
      found = highest_tensor_dtype([](DType t) { return is_integral(t, false); }, false);
      if (found && !*found) found = std::optional<DType>(DType::Int64);
      break;
    case NumberKind::Float:
      found = highest_tensor_dtype([](DType t) { return is_floating(t); }, false);
      if (found && !*found) found = std::optional<DType>(default_float);
      break;
    case NumberKind::Complex:
      found = highest_tensor_dtype([](DType t) { return is_floating(t) || is_complex(t); }, true);
      if (found && !*found) found = std::optional<DType>(to_complex(default_float));
      break;
  }
  if (!found) return std::nullopt;
  result = **found;

  switch (kind) {
    case PromotionKind::Default:
      return ElementwiseDtypes{computation_dtype(result), result};
    case PromotionKind::NoOpmath:
      return ElementwiseDtypes{result, result};
    case PromotionKind::IntToFloat:
      if (is_integral(result, true)) result = default_float;
      return ElementwiseDtypes{computation_dtype(result), result};
    case PromotionKind::ComplexToFloat:
      return ElementwiseDtypes{computation_dtype(result), to_real(result)};
    case PromotionKind::BoolToLong:
      if (result == DType::Bool) return ElementwiseDtypes{DType::Int64, DType::Int64};
      return ElementwiseDtypes{computation_dtype(result), result};
    case PromotionKind::AlwaysBool:
      return ElementwiseDtypes{computation_dtype(result), DType::Bool};
  }
  return std::nullopt;
}

}  // namespace fakeprop
