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
// c10's symbolic contiguity (Tensor.contiguous() of symbolic sizes) and the
// prims' is_contiguous_or_false: every question a guard_or_false.
bool is_contiguous_or_false(const TensorMeta& t, ShapeEnv& env);
bool is_channels_last_contiguous(const TensorMeta& t, ShapeEnv& env);  // 2d (4-D) or 3d (5-D)
// The memory format torch.fx records in a value's tensor_meta
// (shape_prop._extract_tensor_metadata): the first of contiguous,
// channels-last 2d and 3d the layout is, each asked as the *_or_false queries
// do, so backed sizes are guarded. make_fx asks it of every value it traces:
// torch.compile's graphs carry these guards (a graph output of stride (s, 1)
// and size (n, 2) guards s != 2).
std::optional<MemoryFormat> traced_memory_format(const TensorMeta& t, ShapeEnv& env);
bool is_non_overlapping_and_dense(const TensorMeta& t, ShapeEnv& env);
// torch's Python is_non_overlapping_and_dense_or_false (what the prims ask
// for clone and _to_copy of symbolic sizes): every question a guard_or_false.
bool is_non_overlapping_and_dense_or_false(const TensorMeta& t, ShapeEnv& env);
MemoryFormat suggest_memory_format(const TensorMeta& t, ShapeEnv& env);
// Output strides of elementwise ops over the tensor operands, broadcast to
// `out_shape` (CPU zero-dim tensors take no part; nullptr entries are fine).
//
// elementwise_permuted_strides: what torch's elementwise refs (the meta
// kernels of pointwise ops) allocate: empty_permuted(out_shape,
// compute_elementwise_output_logical_to_physical_perm(operands)).
SymShape elementwise_permuted_strides(std::span<const TensorMeta* const> operands, const SymShape& out_shape,
                                      ShapeEnv& env);
// What the FX decomposition rules (normalizations, index) use, unchanged
// from before torch 2.15: all-contiguous then all-channels-last operands (in
// their own shapes) short-cut, then compute_elementwise_output_strides (a lone
// non-overlapping, dense operand keeps its strides; else as above).
SymShape elementwise_output_strides(std::span<const TensorMeta* const> operands, const SymShape& out_shape,
                                    ShapeEnv& env);
// FakeTensor's fast path for add/sub/mul/div.Tensor (make_fast_binary_impl),
// which it takes only when some input is symbolic: contiguous when every
// operand is, else channels-last when every operand is; nullopt when it falls
// back to the ref (no operand has the broadcast shape, or no common layout).
std::optional<SymShape> fast_binary_strides(std::span<const TensorMeta* const> operands, const SymShape& out_shape,
                                            ShapeEnv& env);
// C++ empty_like with preserve_format (clone, _to_copy): a dense `like`
// keeps its strides exactly; any other gets dense strides in the order of its
// own. A different rank gets contiguous strides.
SymShape strides_like(const TensorMeta& like, std::span<const SymInt> sizes, ShapeEnv& env);
// torch._refs.empty_like with preserve_format (what fake tensors run for
// empty_like / zeros_like / ...): dense strides in
// compute_elementwise_output_logical_to_physical_perm(like)'s order, so even
// a dense input's size-1 dims get fresh strides.
SymShape empty_like_strides(const TensorMeta& like, ShapeEnv& env);

// ---- shapes ----
// torch.broadcast_shapes: guards (or size-oblivious runtime asserts for
// unbacked sizes) exactly where PyTorch's infer_size does. Throws OpError
// (ErrorKind::ShapeMismatch) on a provable mismatch, naming both shapes.
SymShape broadcast_shapes(std::span<const SymShape> shapes, ShapeEnv& env);
SymShape broadcast_shapes(const SymShape& a, const SymShape& b, ShapeEnv& env);
// The shape an op run through its Python ref gives: torch._refs._maybe_broadcast's
// common shape (_broadcast_shapes starts from 1s and keeps a dim while the next
// shape's equals it, so a size that is 1 at its hint stays the literal 1, where
// infer_size keeps the expression), taken by the first operand that is not a
// CPU scalar only where should_expand says it must be expanded (prims then
// take the result's shape from that first operand). `shapes` in the ref's
// argument order, CPU scalars marked in `cpu_scalar` (may be empty).
SymShape ref_broadcast_shapes(std::span<const SymShape> shapes, ShapeEnv& env);
SymShape ref_elementwise_shape(std::span<const SymShape> shapes, const std::vector<bool>& cpu_scalar, ShapeEnv& env);
// Wrap a possibly negative dim into [0, rank); OpError when out of range.
int64_t canonical_dim(int64_t dim, int64_t rank, bool wrap_scalar = true);

// ---- devices ----
// The op's output device: first non-CPU-scalar device; CPU zero-dim tensors
// yield. Throws OpError(ErrorKind::DeviceMismatch) with FakeTensorDeviceMismatchError's
// text on any other mix (`op` is kept for callers' messages).
Device common_device(std::span<const TensorMeta* const> operands, const std::string& op);

std::string shape_to_string(std::span<const SymInt> shape);  // "[2*s0, 3]"

}  // namespace fakeprop
