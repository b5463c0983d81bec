// The fake tensor: metadata only, never data. Sizes, strides and storage
// offset are SymInts; views share their base's storage id.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fakeprop/sym/sym_int.h"
#include "fakeprop/tensor/device.h"
#include "fakeprop/tensor/dtype.h"

namespace fakeprop {

class ShapeEnv;

using SymShape = std::vector<SymInt>;

enum class MemoryFormat : uint8_t { Contiguous, ChannelsLast, ChannelsLast3d, Preserve };
std::string_view memory_format_name(MemoryFormat f);  // "torch.contiguous_format", ...

// Fresh storage ids for one run (views reuse their base's id).
class StorageIds {
 public:
  int64_t next() { return next_++; }

 private:
  int64_t next_ = 0;
};

// Ordered so the small fields share one word (72 bytes): every recorded
// tensor has one.
struct TensorMeta {
  SymShape sizes;
  SymShape strides;
  SymInt storage_offset = 0;
  int64_t storage = -1;  // storage id; equal ids alias
  DType dtype = DType::Float32;
  Device device;
  bool requires_grad = false;
  bool is_leaf = true;

  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
  SymInt numel() const;
};

// ---- strides and memory formats (torch._prims_common semantics) ----
// Running product of max(size, 1) from the last dim; `env` (optional)
// simplifies max(s, 1) to s where s >= 1 is known.
SymShape contiguous_strides(std::span<const SymInt> sizes, const ShapeEnv* env = nullptr);
SymShape channels_last_strides(std::span<const SymInt> sizes, const ShapeEnv* env = nullptr);  // 4-D or 5-D
SymShape strides_for(std::span<const SymInt> sizes, MemoryFormat format, const ShapeEnv* env = nullptr);
// The queries may guard (size == 1 checks are size-oblivious, as PyTorch's are).
bool is_contiguous(const TensorMeta& t, ShapeEnv& env);
bool is_channels_last_contiguous(const TensorMeta& t, ShapeEnv& env);  // 2d (4-D) or 3d (5-D)
bool is_non_overlapping_and_dense(const TensorMeta& t, ShapeEnv& env);
MemoryFormat suggest_memory_format(const TensorMeta& t, ShapeEnv& env);
// compute_elementwise_output_strides over the tensor operands (CPU zero-dim
// tensors and non-tensors already left out by the caller are fine too).
SymShape elementwise_output_strides(std::span<const TensorMeta* const> operands, const SymShape& out_shape,
                                    ShapeEnv& env);
// Strides for a new tensor of `sizes` laid out like `like` (empty_like /
// clone with preserve_format): dense strides with like's permutation when
// like is non-overlapping and dense, contiguous otherwise.
SymShape strides_like(const TensorMeta& like, std::span<const SymInt> sizes, ShapeEnv& env);

// ---- shapes ----
// torch.broadcast_shapes: guards (or size-oblivious runtime asserts for
// unbacked sizes) exactly where PyTorch's infer_size does. Throws OpError
// (ErrorKind::ShapeMismatch) on a provable mismatch, naming both shapes.
SymShape broadcast_shapes(std::span<const SymShape> shapes, ShapeEnv& env);
SymShape broadcast_shapes(const SymShape& a, const SymShape& b, ShapeEnv& env);
// Wrap a possibly negative dim into [0, rank); OpError when out of range.
int64_t canonical_dim(int64_t dim, int64_t rank, bool wrap_scalar = true);

// ---- devices ----
// The op's output device: first non-CPU-scalar device; CPU zero-dim tensors
// yield. Throws OpError(ErrorKind::DeviceMismatch) with PyTorch's FakeTensor text
// naming `op` on any other mix.
Device common_device(std::span<const TensorMeta* const> operands, const std::string& op);

std::string shape_to_string(std::span<const SymInt> shape);  // "[2*s0, 3]"

}  // namespace fakeprop
