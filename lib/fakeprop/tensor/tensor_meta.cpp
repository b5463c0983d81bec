#include "fakeprop/tensor/tensor_meta.h"

#include "fakeprop/util/error.h"

namespace fakeprop {

std::string_view memory_format_name(MemoryFormat) { throw Error("not implemented yet"); }
SymInt TensorMeta::numel() const { throw Error("not implemented yet"); }
SymShape contiguous_strides(std::span<const SymInt>, const ShapeEnv*) { throw Error("not implemented yet"); }
SymShape channels_last_strides(std::span<const SymInt>, const ShapeEnv*) { throw Error("not implemented yet"); }
SymShape strides_for(std::span<const SymInt>, MemoryFormat, const ShapeEnv*) { throw Error("not implemented yet"); }
bool is_contiguous(const TensorMeta&, ShapeEnv&) { throw Error("not implemented yet"); }
bool is_channels_last_contiguous(const TensorMeta&, ShapeEnv&) { throw Error("not implemented yet"); }
bool is_non_overlapping_and_dense(const TensorMeta&, ShapeEnv&) { throw Error("not implemented yet"); }
MemoryFormat suggest_memory_format(const TensorMeta&, ShapeEnv&) { throw Error("not implemented yet"); }
SymShape elementwise_output_strides(std::span<const TensorMeta* const>, const SymShape&, ShapeEnv&) {
  throw Error("not implemented yet");
}
SymShape strides_like(const TensorMeta&, std::span<const SymInt>, ShapeEnv&) { throw Error("not implemented yet"); }
SymShape broadcast_shapes(std::span<const SymShape>, ShapeEnv&) { throw Error("not implemented yet"); }
SymShape broadcast_shapes(const SymShape&, const SymShape&, ShapeEnv&) { throw Error("not implemented yet"); }
int64_t canonical_dim(int64_t, int64_t, bool) { throw Error("not implemented yet"); }
Device common_device(std::span<const TensorMeta* const>, const std::string&) { throw Error("not implemented yet"); }
std::string shape_to_string(std::span<const SymInt>) { throw Error("not implemented yet"); }

}  // namespace fakeprop
