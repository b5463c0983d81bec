// One registration function per ATen operator family; registry.cpp calls them all.
#pragma once

namespace fakeprop::fx {
class OpRegistry;
class OpContext;
}

namespace fakeprop::fx::ops {

void register_pointwise_ops(OpRegistry& r);   // unary/binary/ternary pointwise, comparisons, in-place variants, where, masked_fill
void register_view_ops(OpRegistry& r);        // view, reshape, permute, transpose, expand, slice, select, split, unbind, as_strided, select/slice_scatter, ...
void register_factory_ops(OpRegistry& r);     // empty, zeros, full, arange, *_like, clone, contiguous, _to_copy, copy_, copy
void register_reduction_ops(OpRegistry& r);   // sum, mean, amax, argmax, var, softmax, log_softmax, cumsum, ...
void register_nn_ops(OpRegistry& r);          // convolution, mm/bmm/addmm/matmul/linear, norms, pooling, upsample, embedding(_bag), SDPA, cdist/pdist, col2im, grid_sampler
void register_indexing_ops(OpRegistry& r);    // index, index_put, index_select, gather, scatter, masked_scatter, cat, stack, ...
void register_data_dependent_ops(OpRegistry& r);  // nonzero, item, unique, masked_select, repeat_interleave
void register_sym_ops(OpRegistry& r);         // sym_size, sym_stride, sym_numel, sym_storage_offset, sym_is_contiguous, _assert*, scalar ops
void register_spectral_ops(OpRegistry& r);    // _fft_r2c, _fft_c2r, _fft_c2c
void register_contraction_ops(OpRegistry& r);
void register_complex_ops(OpRegistry& r);
void register_higher_order_ops(OpRegistry& r);  // cond, while_loop, map_impl, scan, invoke_subgraph, auto_functionalized(_v2), with_effects   // einsum, replayed through the ops ATen's composite calls

// Rules other families' composite ops compute through.
void constant_pad_nd(OpContext& ctx);  // indexing.cpp; aten.pad's constant mode

}  // namespace fakeprop::fx::ops
