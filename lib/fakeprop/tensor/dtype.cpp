#include "fakeprop/tensor/dtype.h"

#include "fakeprop/util/error.h"

namespace fakeprop {

std::string_view dtype_name(DType) { throw Error("not implemented yet"); }
std::optional<DType> dtype_from_name(std::string_view) { throw Error("not implemented yet"); }
std::optional<DType> dtype_from_onnx(int32_t) { throw Error("not implemented yet"); }
int32_t dtype_to_onnx(DType) { throw Error("not implemented yet"); }
std::string_view dtype_c10_name(DType) { throw Error("not implemented yet"); }
bool is_floating(DType) { throw Error("not implemented yet"); }
bool is_complex(DType) { throw Error("not implemented yet"); }
bool is_integral(DType, bool) { throw Error("not implemented yet"); }
bool is_signed(DType) { throw Error("not implemented yet"); }
int64_t element_size(DType) { throw Error("not implemented yet"); }
DType to_real(DType) { throw Error("not implemented yet"); }
DType to_complex(DType) { throw Error("not implemented yet"); }
std::optional<DType> promote_types(DType, DType) { throw Error("not implemented yet"); }
std::optional<DType> result_type(std::span<const PromotionOperand>) { throw Error("not implemented yet"); }
std::optional<ElementwiseDtypes> elementwise_dtypes(std::span<const PromotionOperand>, PromotionKind, DType) {
  throw Error("not implemented yet");
}

}  // namespace fakeprop
