// com.microsoft contrib operators that ONNX Runtime's transformer fusions
// and generation tools emit (attention variants, fused layer and group
// norms, fused activations, quantized MatMul, padding removal, beam and
// greedy search), its own graph optimizer's fusions and a few older contrib
// ops, plus SimplifiedLayerNormalization, which ORT registers in the default
// domain. The quantizer's QLinear* and integer ops are in quantization.cpp;
// testdata/onnx/contrib_ops.tsv lists which ops have rules and why the rest
// do not.
#include <algorithm>

#include "fakeprop/onnx/ops/conv_shape.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"
#include "fakeprop/onnx/ops/nn_common.h"

namespace fakeprop::onnx::ops {

namespace {

constexpr std::string_view kMs = "com.microsoft";

void require_rank(OpContext& ctx, size_t i, std::initializer_list<int64_t> ranks, const char* what) {
  const int64_t r = ctx.rank(i);
  for (int64_t ok : ranks)
    if (r == ok) return;
  std::string allowed;
  for (int64_t ok : ranks) allowed += (allowed.empty() ? "" : " or ") + std::to_string(ok);
  ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " " + what + " must have rank " + allowed + ", got shape " +
                                       shape_to_string(ctx.shape(i)));
}

int64_t positive_attr(OpContext& ctx, const char* name) {
  const int64_t v = ctx.required_attr_int(name);
  if (v <= 0)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " " + name + " must be positive, got " + std::to_string(v));
  return v;
}

// x / parts after checking it divides evenly.
SymInt exact_div(OpContext& ctx, const SymInt& x, const SymInt& parts, const char* why) {
  require_divisible(ctx, x, parts, why);
  return simplified(ctx, floordiv(x, parts));
}

// ---------------------------------------------------------------- attention

// Attention: input (B, S, in_hidden), weights (in_hidden, q + k + v hidden),
// past (2, B, heads, past_len, head_size) -> output (B, S, v_hidden),
// present (2, B, heads, past_len + S, head_size). QAttention is the same
// over quantized input and weights, with its past at input 8 and its
// outputs in the float type of its bias.
void attention_outputs(OpContext& ctx, size_t past_in, DType out_t) {
  require_rank(ctx, 0, {3}, "input");
  require_rank(ctx, 1, {2}, "weights");
  const SymShape& x = ctx.shape(0);
  const SymShape& w = ctx.shape(1);
  require_equal(ctx, w[0], x[2], "Attention: weights rows = input hidden size");
  const int64_t heads = positive_attr(ctx, "num_heads");
  SymInt q_hidden, v_hidden;
  if (auto sizes = ctx.attr_ints("qkv_hidden_sizes")) {
    if (sizes->size() != 3 || (*sizes)[0] != (*sizes)[1] || (*sizes)[0] <= 0 || (*sizes)[2] <= 0)
      ctx.fail(ErrorKind::InvalidAttribute, "Attention qkv_hidden_sizes must be 3 positive values with q = k");
    q_hidden = (*sizes)[0];
    v_hidden = (*sizes)[2];
    require_equal(ctx, w[1], (*sizes)[0] + (*sizes)[1] + (*sizes)[2], "Attention: weights columns = q + k + v hidden");
  } else {
    q_hidden = v_hidden = exact_div(ctx, w[1], 3, "Attention: weights columns split in 3");
  }
  if (ctx.has_input(2)) require_vector(ctx, 2, w[1], "Attention bias");
  const SymInt head_size = exact_div(ctx, q_hidden, heads, "Attention: hidden size divisible by num_heads");
  ctx.set_tensor(0, out_t, {x[0], x[1], simplified(ctx, v_hidden)});
  if (!ctx.wants_output(1)) return;
  if (ctx.has_input(past_in)) {
    require_rank(ctx, past_in, {5}, "past");
    const SymShape& past = ctx.shape(past_in);
    if (ctx.attr_int("past_present_share_buffer", 0) != 0) {
      ctx.set_tensor(1, ctx.dtype(past_in), past);
      return;
    }
    require_equal(ctx, past[0], 2, "Attention: past stacks key and value");
    require_equal(ctx, past[2], heads, "Attention: past has num_heads heads");
    require_equal(ctx, past[4], head_size, "Attention: past head size");
    SymShape present = {2, x[0], heads, past[3] + x[1], head_size};
    simplify_all(ctx, present);
    ctx.set_tensor(1, ctx.dtype(past_in), std::move(present));
    return;
  }
  ctx.set_tensor(1, out_t, {2, x[0], heads, x[1], head_size});
}

void attention_rule(OpContext& ctx) { attention_outputs(ctx, 4, ctx.dtype(0)); }
void qattention_rule(OpContext& ctx) { attention_outputs(ctx, 8, ctx.dtype(2)); }

// MultiHeadAttention: query (B, S, hidden) or packed (B, S, heads, 3, head);
// key (B, L, hidden), BNSH (B, heads, L, head) or packed KV (B, L, heads, 2, head);
// value (B, L, v_hidden) or BNSH. past_key/past_value (B, heads, P, head).
void multi_head_attention_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3, 5}, "query");
  const SymShape& q = ctx.shape(0);
  const int64_t heads = positive_attr(ctx, "num_heads");
  const bool packed_qkv = q.size() == 5;
  SymInt hidden = packed_qkv ? q[2] * q[4] : q[2];
  if (packed_qkv) {
    require_equal(ctx, q[2], heads, "MultiHeadAttention: packed query has num_heads heads");
    require_equal(ctx, q[3], 3, "MultiHeadAttention: packed query stacks q, k, v");
  }
  SymInt v_hidden = hidden, kv_len = q[1];
  bool bnsh_kv = false;
  if (ctx.has_input(1) && !packed_qkv) {
    require_rank(ctx, 1, {3, 4, 5}, "key");
    const SymShape& k = ctx.shape(1);
    require_equal(ctx, k[0], q[0], "MultiHeadAttention: batch sizes agree");
    if (k.size() == 5) {  // packed KV
      require_equal(ctx, k[2], heads, "MultiHeadAttention: packed key has num_heads heads");
      require_equal(ctx, k[3], 2, "MultiHeadAttention: packed key stacks k, v");
      kv_len = k[1];
    } else if (k.size() == 4) {  // BNSH, cross attention
      require_equal(ctx, k[1], heads, "MultiHeadAttention: key has num_heads heads");
      kv_len = k[2];
      bnsh_kv = true;
    } else {
      require_equal(ctx, k[2], hidden, "MultiHeadAttention: key hidden size = query hidden size");
      kv_len = k[1];
    }
    if (ctx.has_input(2)) {
      require_rank(ctx, 2, {3, 4}, "value");
      const SymShape& v = ctx.shape(2);
      v_hidden = v.size() == 3 ? v[2] : v[1] * v[3];
      require_equal(ctx, v.size() == 3 ? v[1] : v[2], kv_len, "MultiHeadAttention: key and value lengths agree");
    }
  }
  v_hidden = simplified(ctx, v_hidden);
  ctx.set_tensor(0, ctx.dtype(0), {q[0], q[1], v_hidden});
  const bool wants_present = ctx.wants_output(1) || ctx.wants_output(2);
  if (!wants_present && !ctx.wants_output(3)) return;
  SymInt total = kv_len;
  DType key_t = ctx.dtype(0), value_t = ctx.dtype(0);
  if (ctx.has_input(6)) {
    require_rank(ctx, 6, {4}, "past_key");
    const SymShape& past = ctx.shape(6);
    key_t = ctx.dtype(6);
    if (ctx.has_input(7)) value_t = ctx.dtype(7);
    if (ctx.has_input(8)) {  // past and present share one max-length buffer
      if (ctx.wants_output(1)) ctx.set_tensor(1, key_t, past);
      if (ctx.wants_output(2)) ctx.set_tensor(2, value_t, ctx.has_input(7) ? ctx.shape(7) : past);
      // The valid length is past_sequence_length (data) + kv_len: output_qk has a data-dependent width.
      if (ctx.wants_output(3)) ctx.set_tensor(3, ctx.dtype(0), {q[0], heads, q[1], ctx.new_unbacked_size({0, kIntOo})});
      return;
    }
    if (bnsh_kv)
      ctx.fail(ErrorKind::InvalidArgument,
               "MultiHeadAttention: past_key cannot be used with BNSH key (cross attention)");
    total = past[2] + kv_len;
  }
  total = simplified(ctx, total);
  if (wants_present) {
    const SymInt head = exact_div(ctx, hidden, heads, "MultiHeadAttention: hidden size divisible by num_heads");
    const SymInt v_head = exact_div(ctx, v_hidden, heads, "MultiHeadAttention: v hidden size divisible by num_heads");
    if (ctx.wants_output(1)) ctx.set_tensor(1, key_t, {q[0], heads, total, head});
    if (ctx.wants_output(2)) ctx.set_tensor(2, value_t, {q[0], heads, total, v_head});
  }
  // output_qk: the scaled Q*K^T scores, (batch, num_heads, sequence_length, total_sequence_length).
  if (ctx.wants_output(3)) ctx.set_tensor(3, ctx.dtype(0), {q[0], heads, q[1], total});
}

// GroupQueryAttention: query (B, S, heads*head) or packed (B, S, (heads + 2*kv_heads)*head);
// past_key (B, kv_heads, P, head); total_sequence_length (int32 scalar) T:
// present (B, kv_heads, max(P, T), head).
void group_query_attention_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "query");
  const SymShape& q = ctx.shape(0);
  const int64_t heads = positive_attr(ctx, "num_heads");
  const int64_t kv_heads = positive_attr(ctx, "kv_num_heads");
  if (heads % kv_heads != 0)
    ctx.fail(ErrorKind::InvalidAttribute, "GroupQueryAttention num_heads must be a multiple of kv_num_heads");
  const bool packed = !ctx.has_input(1);
  const SymInt head = packed ? exact_div(ctx, q[2], heads + 2 * kv_heads, "GroupQueryAttention: packed qkv width")
                             : exact_div(ctx, q[2], heads, "GroupQueryAttention: hidden size divisible by num_heads");
  if (!packed) {
    require_rank(ctx, 1, {3}, "key");
    require_equal(ctx, ctx.shape(1)[2], head * kv_heads, "GroupQueryAttention: key width = kv_num_heads * head_size");
    if (ctx.has_input(2)) require_equal(ctx, ctx.shape(2)[2], head * kv_heads, "GroupQueryAttention: value width");
  }
  ctx.set_tensor(0, ctx.dtype(0), {q[0], q[1], simplified(ctx, head * heads)});
  std::optional<SymInt> total_length;
  if (ctx.has_input(6)) total_length = ctx.scalar_int(6);
  auto total = [&]() -> SymInt {
    return total_length ? *total_length
                        : ctx.unknown_size("GroupQueryAttention total_sequence_length '" +
                                           ctx.input_name(6) +
                                           "' is not known");
  };
  if (ctx.wants_output(1) || ctx.wants_output(2)) {
    SymInt present_len;
    DType key_t = ctx.dtype(0), value_t = ctx.dtype(0);
    if (ctx.has_input(3)) {
      require_rank(ctx, 3, {4}, "past_key");
      const SymShape& past = ctx.shape(3);
      key_t = ctx.dtype(3);
      if (ctx.has_input(4)) value_t = ctx.dtype(4);
      present_len = ctx.attr_int("sliding_window_cache", 0) == 1 ? past[2] : sym_max(past[2], total());
    } else {
      present_len = total();
    }
    present_len = simplified(ctx, present_len);
    const SymShape present = {q[0], kv_heads, present_len, simplified(ctx, head)};
    if (ctx.wants_output(1)) ctx.set_tensor(1, key_t, present);
    if (ctx.wants_output(2)) ctx.set_tensor(2, value_t, present);
  }
  if (ctx.wants_output(3)) ctx.set_tensor(3, ctx.dtype(0), {q[0], heads, q[1], simplified(ctx, total())});
}

// DecoderMaskedMultiHeadAttention: one decoding step. query (B, 1, hidden)
// or packed (B, 1, 3 * hidden); key/value (B, 1, hidden) for self attention
// or BNSH (B, heads, L, head) for cross attention; past_key (5) with
// past_present_share_buffer is the (B, heads, max_len, head) cache the
// presents alias. qk (3): (B, heads, 1, total length).
void decoder_masked_mha_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "query");
  const SymShape& q = ctx.shape(0);
  const int64_t heads = positive_attr(ctx, "num_heads");
  SymInt v_hidden;
  bool cross = false;
  SymInt kv_len = q[1];
  if (!ctx.has_input(1)) {
    v_hidden = exact_div(ctx, q[2], 3, "DecoderMaskedMultiHeadAttention: packed qkv width");
  } else {
    require_rank(ctx, 1, {3, 4}, "key");
    cross = ctx.rank(1) == 4;
    if (cross) kv_len = ctx.shape(1)[2];
    v_hidden = q[2];
    if (ctx.has_input(2)) {
      require_rank(ctx, 2, {3, 4}, "value");
      const SymShape& v = ctx.shape(2);
      v_hidden = v.size() == 3 ? v[2] : v[1] * v[3];
    }
  }
  ctx.set_tensor(0, ctx.dtype(0), {q[0], q[1], simplified(ctx, v_hidden)});
  const bool share = ctx.attr_int("past_present_share_buffer", 0) != 0;
  SymInt total = kv_len;
  if (ctx.has_input(5)) {
    require_rank(ctx, 5, {4}, "past_key");
    const SymShape& past = ctx.shape(5);
    if (share) {
      if (ctx.wants_output(1)) ctx.set_tensor(1, ctx.dtype(5), past);
      if (ctx.wants_output(2)) ctx.set_tensor(2, ctx.has_input(6) ? ctx.dtype(6) : ctx.dtype(5),
                                              ctx.has_input(6) ? ctx.shape(6) : past);
      // The valid length is past_sequence_length (data) + 1.
      std::optional<SymInt> past_len;
      if (ctx.has_input(7)) past_len = ctx.scalar_int(7);
      total = past_len ? *past_len + q[1] : ctx.new_unbacked_size({1, kIntOo});
    } else {
      total = past[2] + kv_len;
      SymShape present = {past[0], past[1], simplified(ctx, total), past[3]};
      if (ctx.wants_output(1)) ctx.set_tensor(1, ctx.dtype(5), present);
      if (ctx.wants_output(2)) ctx.set_tensor(2, ctx.has_input(6) ? ctx.dtype(6) : ctx.dtype(5), present);
    }
  } else if (ctx.wants_output(1) || ctx.wants_output(2)) {
    const SymInt hidden = !ctx.has_input(1) ? v_hidden : q[2];
    const SymInt head = exact_div(ctx, cross ? ctx.shape(1)[1] * ctx.shape(1)[3] : hidden, heads,
                                  "DecoderMaskedMultiHeadAttention: hidden size divisible by num_heads");
    const SymShape present = {q[0], heads, simplified(ctx, kv_len), cross ? ctx.shape(1)[3] : head};
    if (ctx.wants_output(1)) ctx.set_tensor(1, ctx.dtype(0), present);
    if (ctx.wants_output(2)) ctx.set_tensor(2, ctx.dtype(0), present);
  }
  if (ctx.wants_output(3)) ctx.set_tensor(3, ctx.dtype(0), {q[0], heads, q[1], simplified(ctx, total)});
}

// PackedAttention: Attention over the tokens of all sequences without
// padding: input (tokens, in_hidden) -> (tokens, v_hidden).
void packed_attention_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2}, "input");
  require_rank(ctx, 1, {2}, "weights");
  const SymShape& x = ctx.shape(0);
  const SymShape& w = ctx.shape(1);
  require_equal(ctx, w[0], x[1], "PackedAttention: weights rows = input hidden size");
  positive_attr(ctx, "num_heads");
  SymInt v_hidden;
  if (auto sizes = ctx.attr_ints("qkv_hidden_sizes")) {
    if (sizes->size() != 3) ctx.fail(ErrorKind::InvalidAttribute, "PackedAttention qkv_hidden_sizes must have 3 values");
    v_hidden = (*sizes)[2];
  } else {
    v_hidden = exact_div(ctx, w[1], 3, "PackedAttention: weights columns split in 3");
  }
  require_vector(ctx, 2, w[1], "PackedAttention bias");
  require_rank(ctx, 3, {2}, "token_offset");
  ctx.set_tensor(0, ctx.dtype(0), {x[0], v_hidden});
}

// PackedMultiHeadAttention: query (tokens, hidden) with value (tokens,
// v_hidden), or packed (tokens, heads, 3, head) -> (tokens, v_hidden).
void packed_mha_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2, 4}, "query");
  const SymShape& q = ctx.shape(0);
  const int64_t heads = positive_attr(ctx, "num_heads");
  SymInt v_hidden = q.size() == 4 ? q[1] * q[3] : q[1];
  if (q.size() == 4) {
    require_equal(ctx, q[1], heads, "PackedMultiHeadAttention: packed query has num_heads heads");
    require_equal(ctx, q[2], 3, "PackedMultiHeadAttention: packed query stacks q, k, v");
  } else if (ctx.has_input(2)) {
    require_rank(ctx, 2, {2}, "value");
    require_equal(ctx, ctx.shape(2)[0], q[0], "PackedMultiHeadAttention: value has query's tokens");
    v_hidden = ctx.shape(2)[1];
  }
  ctx.set_tensor(0, ctx.dtype(0), {q[0], simplified(ctx, v_hidden)});
}

// LongformerAttention, QOrderedLongformerAttention: (B, S, hidden) like the input.
void longformer_attention_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "input");
  positive_attr(ctx, "num_heads");
  same_as_input(ctx);
}

// The head size of a query `width` wide: width / num_heads, or of packed
// Q, K and V (num_heads + 2 * kv_num_heads heads) when no key input is given.
SymInt query_head_size(OpContext& ctx, const SymInt& width, int64_t heads, int64_t kv_heads) {
  return ctx.has_input(1) ? exact_div(ctx, width, heads, "hidden size divisible by num_heads")
                          : exact_div(ctx, width, heads + 2 * kv_heads, "packed qkv width");
}

// SparseAttention: GroupQueryAttention's output; the presents are the
// (B, kv_heads, max_len, head) caches past_key/past_value, updated in place.
void sparse_attention_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "query");
  const SymShape& q = ctx.shape(0);
  const int64_t heads = positive_attr(ctx, "num_heads");
  const int64_t kv_heads = positive_attr(ctx, "kv_num_heads");
  const SymInt head = query_head_size(ctx, q[2], heads, kv_heads);
  ctx.set_tensor(0, ctx.dtype(0), {q[0], q[1], simplified(ctx, head * heads)});
  require_rank(ctx, 3, {4}, "past_key");
  if (ctx.wants_output(1)) ctx.set_tensor(1, ctx.dtype(3), ctx.shape(3));
  if (ctx.wants_output(2)) ctx.set_tensor(2, ctx.dtype(4), ctx.shape(4));
}

// PagedAttention: query (tokens, heads * head) or packed (tokens, (heads +
// 2 * kv_heads) * head) -> (tokens, heads * v_head_size); the block caches
// come back as key_cache_out / value_cache_out.
void paged_attention_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2}, "query");
  const SymShape& q = ctx.shape(0);
  const int64_t heads = positive_attr(ctx, "num_heads");
  const int64_t kv_heads = positive_attr(ctx, "kv_num_heads");
  const SymInt head = query_head_size(ctx, q[1], heads, kv_heads);
  const SymInt v_head = ctx.has_attr("v_head_size") ? SymInt(positive_attr(ctx, "v_head_size")) : head;
  ctx.set_tensor(0, ctx.dtype(0), {q[0], simplified(ctx, v_head * heads)});
  if (ctx.wants_output(1)) ctx.set_tensor(1, ctx.dtype(3), ctx.shape(3));
  if (ctx.wants_output(2)) {
    if (!ctx.has_input(4)) ctx.fail(ErrorKind::OutputCount, "PagedAttention value_cache_out needs value_cache");
    ctx.set_tensor(2, ctx.dtype(4), ctx.shape(4));
  }
}

// QOrderedAttention: separate int8 Q/K/V weights (in_hidden, hidden) ->
// int8 (B, S, v_hidden).
void qordered_attention_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "input");
  const SymShape& x = ctx.shape(0);
  positive_attr(ctx, "num_heads");
  SymInt v_hidden;
  if (auto sizes = ctx.attr_ints("qkv_hidden_sizes"); sizes && sizes->size() == 3) {
    v_hidden = (*sizes)[2];
  } else {
    require_rank(ctx, 7, {2}, "V_weight");
    v_hidden = ctx.shape(7)[1];
  }
  ctx.set_tensor(0, ctx.dtype(0), {x[0], x[1], v_hidden});
}

// RelativePositionBias (T5): bias_table (buckets, heads) and the scalar
// query_length / key_length inputs -> (1, heads, query_length, key_length).
void relative_position_bias_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2}, "bias_table");
  auto length = [&](size_t i) {
    if (auto v = ctx.scalar_int(i)) return *v;
    return ctx.unknown_size("RelativePositionBias " + ctx.input_name(i) + " is not known");
  };
  ctx.set_tensor(0, ctx.dtype(0), {1, ctx.shape(0)[1], length(1), length(2)});
}

// GatedRelativePositionBias: query_layer (B, S, hidden), or packed
// (tokens, hidden) with token_offset (B, S) -> (B, heads, S, S).
void gated_relative_position_bias_rule(OpContext& ctx) {
  const int64_t heads = positive_attr(ctx, "num_heads");
  SymInt batch, seq;
  if (ctx.has_input(6)) {
    require_rank(ctx, 6, {2}, "token_offset");
    batch = ctx.shape(6)[0];
    seq = ctx.shape(6)[1];
  } else {
    require_rank(ctx, 0, {3}, "query_layer");
    batch = ctx.shape(0)[0];
    seq = ctx.shape(0)[1];
  }
  ctx.set_tensor(0, ctx.dtype(0), {batch, heads, seq, seq});
}

// RemovePadding: input (B, S, hidden) -> the real tokens (tokens, hidden),
// token_offset (B, S), cumulated_seq_len (B + 1), max_seq_len (1). The
// token count is the sum of sequence_token_count's values.
void remove_padding_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "input");
  const SymShape& x = ctx.shape(0);
  SymInt tokens;
  auto counts = ctx.ints(1);
  if (counts) {
    tokens = 0;
    for (const SymInt& c : *counts) tokens = tokens + c;
    tokens = simplified(ctx, tokens);
  } else {
    const auto bs = static_shape(SymShape{x[0], x[1]});
    tokens = ctx.new_unbacked_size({0, bs ? (*bs)[0] * (*bs)[1] : kIntOo});
  }
  ctx.set_tensor(0, ctx.dtype(0), {tokens, x[2]});
  const DType m = ctx.dtype(1);
  if (ctx.wants_output(1)) ctx.set_tensor(1, m, {x[0], x[1]});
  if (ctx.wants_output(2)) ctx.set_tensor(2, m, {simplified(ctx, x[0] + 1)});
  if (ctx.wants_output(3)) ctx.set_tensor(3, m, {1});
}

// RestorePadding: (tokens, hidden) and token_offset (B, S) -> (B, S, hidden).
void restore_padding_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2}, "input");
  require_rank(ctx, 1, {2}, "token_offset");
  ctx.set_tensor(0, ctx.dtype(0), {ctx.shape(1)[0], ctx.shape(1)[1], ctx.shape(0)[1]});
}

// ---------------------------------------------------------------- layer norms

void skip_layer_norm_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2, 3}, "input");
  const SymShape& x = ctx.shape(0);
  require_vector(ctx, 2, x.back(), ctx.op_type() + " gamma");
  layer_norm_outputs(ctx, static_cast<int64_t>(x.size()) - 1, {1, 2}, 1);
  if (ctx.wants_output(3)) ctx.set_tensor(3, ctx.dtype(0), x);
}

void simplified_layer_norm_rule(OpContext& ctx) {
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -1), ctx.rank(0));
  layer_norm_outputs(ctx, axis, {1}, ctx.attr_int("stash_type", 1));
}

// EmbedLayerNormalization: input_ids (B, S), word_embedding (V, H) ->
// output (B, S, H), mask_index (B) int32, embedding_sum (B, S, H).
void embed_layer_norm_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2}, "input_ids");
  require_rank(ctx, 2, {2}, "word_embedding");
  const SymShape& ids = ctx.shape(0);
  const SymInt hidden = ctx.shape(2)[1];
  if (ctx.has_input(1)) {
    const SymShape& segments = ctx.shape(1);
    if (segments.size() != 2) ctx.fail(ErrorKind::InvalidRank, "EmbedLayerNormalization segment_ids must be 2-D");
    for (size_t i = 0; i < 2; ++i) require_equal(ctx, segments[i], ids[i], "EmbedLayerNormalization: segment_ids like input_ids");
  }
  require_rank(ctx, 3, {2}, "position_embedding");
  require_equal(ctx, ctx.shape(3)[1], hidden, "EmbedLayerNormalization: embedding widths agree");
  if (ctx.has_input(4)) {
    require_rank(ctx, 4, {2}, "segment_embedding");
    require_equal(ctx, ctx.shape(4)[1], hidden, "EmbedLayerNormalization: embedding widths agree");
  }
  require_vector(ctx, 5, hidden, "EmbedLayerNormalization gamma");
  require_vector(ctx, 6, hidden, "EmbedLayerNormalization beta");
  const DType t = ctx.dtype(2);
  ctx.set_tensor(0, t, {ids[0], ids[1], hidden});
  if (ctx.wants_output(1)) {
    if (ctx.attr_int("mask_index_type", 1) == 0)
      ctx.fail(ErrorKind::OutputCount, "EmbedLayerNormalization has no mask_index output when mask_index_type is 0");
    ctx.set_tensor(1, DType::Int32, {ids[0]});
  }
  if (ctx.wants_output(2)) ctx.set_tensor(2, t, {ids[0], ids[1], hidden});
}

// GroupNorm: X's shape; gamma and beta hold one value per channel (the last
// dim with channels_last, dim 1 otherwise).
void group_norm_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() < 3) ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " X must have rank >= 3, got " + shape_to_string(x));
  const SymInt& channels = ctx.attr_int("channels_last", 1) != 0 ? x.back() : x[1];
  const int64_t groups = positive_attr(ctx, "groups");
  require_divisible(ctx, channels, groups, "GroupNorm: channels divisible by groups");
  require_vector(ctx, 1, channels, ctx.op_type() + " gamma");
  require_vector(ctx, 2, channels, ctx.op_type() + " beta");
  same_as_input(ctx);
}

// SkipGroupNorm: GroupNorm of X + skip (+ bias); S is that sum.
void skip_group_norm_rule(OpContext& ctx) {
  group_norm_rule(ctx);
  if (ctx.wants_output(1)) same_as_input(ctx, 0, 1);
}

// QEmbedLayerNormalization: EmbedLayerNormalization over quantized tables:
// float (B, S, hidden) and the int32 mask index (B).
void qembed_layer_norm_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2}, "input_ids");
  require_rank(ctx, 2, {2}, "word_embedding");
  const SymShape& ids = ctx.shape(0);
  ctx.set_tensor(0, ctx.dtype(8), {ids[0], ids[1], ctx.shape(2)[1]});
  if (ctx.wants_output(1)) ctx.set_tensor(1, DType::Int32, {ids[0]});
}

// ---------------------------------------------------------------- MatMul variants

// The operand as the plain product sees it: transBatch moves dim 0 before
// the last one, trans swaps the last two (a vector is never transposed).
SymShape fused_operand(SymShape s, bool trans, bool trans_batch) {
  if (trans_batch && s.size() >= 3) {
    const SymInt first = s.front();
    s.erase(s.begin());
    s.insert(s.end() - 1, first);
  }
  if (trans && s.size() >= 2) std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

void fused_matmul_rule(OpContext& ctx) {
  const SymShape a = fused_operand(ctx.shape(0), ctx.attr_int("transA", 0) != 0, ctx.attr_int("transBatchA", 0) != 0);
  const SymShape b = fused_operand(ctx.shape(1), ctx.attr_int("transB", 0) != 0, ctx.attr_int("transBatchB", 0) != 0);
  ctx.set_tensor(0, ctx.dtype(0), matmul_shape(ctx, a, b));
}

// MatMulNBits: A (..., K) times a quantized (N, K) weight -> (..., N).
void matmul_nbits_rule(OpContext& ctx) {
  const SymShape& a = ctx.shape(0);
  if (a.empty()) ctx.fail(ErrorKind::InvalidRank, "MatMulNBits input A must have rank >= 1");
  const int64_t k = positive_attr(ctx, "K");
  const int64_t n = positive_attr(ctx, "N");
  const int64_t bits = ctx.attr_int("bits", 4);
  if (bits < 1 || bits > 8) ctx.fail(ErrorKind::InvalidAttribute, "MatMulNBits bits must be in [1, 8]");
  const int64_t block = ctx.required_attr_int("block_size");
  if (block < 16 || (block & (block - 1)) != 0)
    ctx.fail(ErrorKind::InvalidAttribute, "MatMulNBits block_size must be a power of 2 and >= 16");
  require_equal(ctx, a.back(), k, "MatMulNBits: A's last dim is K");
  const SymShape& b = ctx.shape(1);
  if (!b.empty()) require_equal(ctx, b[0], n, "MatMulNBits: B has N rows");
  SymShape out = a;
  out.back() = n;
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// QOrderedMatMul: int8 A (B, M, K) times B (K, N), in cuBLASLt's orders.
void qordered_matmul_rule(OpContext& ctx) {
  ctx.set_tensor(0, ctx.dtype(0), matmul_shape(ctx, ctx.shape(0), ctx.shape(2)));
}

// GemmFastGelu: FastGelu(X W + bias), MatMul's shape.
void gemm_fast_gelu_rule(OpContext& ctx) {
  ctx.set_tensor(0, ctx.dtype(0), matmul_shape(ctx, ctx.shape(0), ctx.shape(1)));
}

// GemmFloat8: Gemm of 2-D A and B with transA / transB; the `dtype`
// attribute (a TensorProto type, float by default) is the output type.
void gemm_float8_rule(OpContext& ctx) {
  SymShape out = gemm_output(ctx, 0, 1, "GemmFloat8");
  const auto dt = dtype_from_onnx(static_cast<int32_t>(ctx.attr_int("dtype", 1)));
  if (!dt || *dt == DType::Undefined) ctx.fail(ErrorKind::InvalidAttribute, "GemmFloat8 dtype is not an element type");
  ctx.set_tensor(0, *dt, std::move(out));
}

// NhwcConv: Conv over X (N, spatial..., C) with weights (M, k..., C/group)
// -> (N, spatial'..., M); the transformer tool transposes both to this layout.
void nhwc_conv_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const SymShape& w = ctx.shape(1);
  if (x.size() < 3 || w.size() != x.size())
    ctx.fail(ErrorKind::InvalidRank, "NhwcConv needs X of rank >= 3 and W of the same rank, got " + shape_to_string(x) +
                                         " and " + shape_to_string(w));
  ctx.set_tensor(0, ctx.dtype(0), to_nhwc(conv_output_shape(ctx, to_nchw(x), to_nchw(w))));
}

// DynamicQuantizeLSTM: LSTM with int8 weights stored transposed: W
// (dirs, input, 4 * hidden), R (dirs, hidden, 4 * hidden); float outputs
// Y (S, dirs, B, hidden), Y_h and Y_c (dirs, B, hidden).
void dynamic_quantize_lstm_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "X");
  require_rank(ctx, 1, {3}, "W");
  require_rank(ctx, 2, {3}, "R");
  const SymShape& x = ctx.shape(0);
  const SymShape& w = ctx.shape(1);
  const SymShape& r = ctx.shape(2);
  const std::string direction = ctx.attr_string("direction", "forward");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const SymInt hidden = ctx.has_attr("hidden_size") ? SymInt(positive_attr(ctx, "hidden_size")) : r[1];
  require_equal(ctx, w[0], dirs, "DynamicQuantizeLSTM: W has one slice per direction");
  require_equal(ctx, w[1], x[2], "DynamicQuantizeLSTM: W's input size matches X");
  require_equal(ctx, w[2], hidden * 4, "DynamicQuantizeLSTM: W is (dirs, input, 4 * hidden)");
  require_equal(ctx, r[2], hidden * 4, "DynamicQuantizeLSTM: R is (dirs, hidden, 4 * hidden)");
  const SymShape state = {dirs, x[1], hidden};
  if (ctx.wants_output(0)) ctx.set_tensor(0, ctx.dtype(0), {x[0], dirs, x[1], hidden});
  if (ctx.wants_output(1)) ctx.set_tensor(1, ctx.dtype(0), state);
  if (ctx.wants_output(2)) ctx.set_tensor(2, ctx.dtype(0), state);
}

// ---------------------------------------------------------------- ORT graph-optimizer fusions

// FusedConv: Conv (+ Z) with an activation; Conv's shape.
void fused_conv_rule(OpContext& ctx) {
  ctx.set_tensor(0, ctx.dtype(0), conv_output_shape(ctx, ctx.shape(0), ctx.shape(1)));
}

// NhwcFusedConv: FusedConv over channels-last X, with weights in Conv's
// own (M, C/group, k...) layout (unlike NhwcConv's).
void nhwc_fused_conv_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() < 3) ctx.fail(ErrorKind::InvalidRank, "NhwcFusedConv X must have rank >= 3, got " + shape_to_string(x));
  ctx.set_tensor(0, ctx.dtype(0), to_nhwc(conv_output_shape(ctx, to_nchw(x), ctx.shape(1))));
}

// FusedGemm: Gemm of 2-D A and B with transA / transB, then an activation.
void fused_gemm_rule(OpContext& ctx) {
  ctx.set_tensor(0, ctx.dtype(0), gemm_output(ctx, 0, 1, "FusedGemm"));
}

// NhwcMaxPool: MaxPool over channels-last (N, spatial..., C) int8 / uint8.
void nhwc_max_pool_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  auto kernel = ctx.attr_ints("kernel_shape");
  if (x.size() < 3 || !kernel || kernel->size() != x.size() - 2)
    ctx.fail(ErrorKind::InvalidAttribute, "NhwcMaxPool needs rank >= 3 input and one kernel_shape entry per spatial dim");
  const WindowAttrs attrs = read_window_attrs(ctx, std::move(*kernel), true, true);
  SymShape out = {x[0]};
  SymShape sizes = window_output_sizes(ctx, std::span<const SymInt>(x).subspan(1, x.size() - 2), attrs);
  out.insert(out.end(), sizes.begin(), sizes.end());
  out.push_back(x.back());
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// BiasSoftmax: softmax(data + bias) in data's shape.
void bias_softmax_rule(OpContext& ctx) { same_as_input(ctx); }

// BiasDropout: dropout(data + bias) + residual; the mask is bool like data.
void bias_dropout_rule(OpContext& ctx) {
  same_as_input(ctx);
  if (ctx.wants_output(1)) same_shape_as_input(ctx, DType::Bool, 0, 1);
}

// BitmaskDropout: the mask packs one bit per element into uint32 words.
void bitmask_dropout_rule(OpContext& ctx) {
  same_as_input(ctx);
  if (ctx.wants_output(1))
    ctx.set_tensor(1, DType::UInt32, {simplified(ctx, ceildiv(numel(ctx.shape(0)), SymInt(32)))});
}

// ---------------------------------------------------------------- older contrib ops

// ExpandDims: X with a 1 inserted at the int32 `axis` input's value.
void expand_dims_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const auto axis = ctx.static_ints(1);
  if (!axis || axis->size() != 1) {  // only the rank is known
    SymShape out;
    for (size_t i = 0; i <= x.size(); ++i) out.push_back(ctx.unknown_size("ExpandDims axis is not known"));
    ctx.set_tensor(0, ctx.dtype(0), std::move(out));
    return;
  }
  const int64_t at = normalize_axis(ctx, (*axis)[0], static_cast<int64_t>(x.size()) + 1);
  SymShape out = x;
  out.insert(out.begin() + at, SymInt(1));
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// CDist: pairwise distances of A's rows (M, K) to B's rows (N, K) -> (M, N).
void cdist_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2}, "A");
  require_rank(ctx, 1, {2}, "B");
  require_equal(ctx, ctx.shape(0)[1], ctx.shape(1)[1], "CDist: A and B have the same row width");
  ctx.set_tensor(0, ctx.dtype(0), {ctx.shape(0)[0], ctx.shape(1)[0]});
}

// ComplexMul(Conj): (..., 2) complex tensors, broadcast.
void complex_mul_rule(OpContext& ctx) {
  SymShape out = broadcast_inputs(ctx, {0, 1});
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// MulInteger: A (0) times B (2) with zero points, broadcast, int32.
void mul_integer_rule(OpContext& ctx) {
  SymShape out = broadcast_inputs(ctx, {0, 2});
  simplify_all(ctx, out);
  ctx.set_tensor(0, DType::Int32, std::move(out));
}

// MurmurHash3: one hash per element, uint32 unless positive = 0.
void murmur_hash3_rule(OpContext& ctx) {
  same_shape_as_input(ctx, ctx.attr_int("positive", 1) == 1 ? DType::UInt32 : DType::Int32);
}

// QuantizeWithOrder: int8 in cuBLASLt's order; DequantizeWithOrder: the
// `to` attribute's float type. The shape stays.
void quantize_with_order_rule(OpContext& ctx) { same_shape_as_input(ctx, DType::Int8); }
void dequantize_with_order_rule(OpContext& ctx) {
  const auto dt = dtype_from_onnx(static_cast<int32_t>(ctx.required_attr_int("to")));
  if (!dt || (*dt != DType::Float32 && *dt != DType::Float16))
    ctx.fail(ErrorKind::InvalidAttribute, "DequantizeWithOrder 'to' must be float or float16");
  same_shape_as_input(ctx, *dt);
}

// ---------------------------------------------------------------- generation

// An int32 input of one element (max_length, num_beams, ...), unknown when
// its value is not.
SymInt generation_int(OpContext& ctx, size_t i, const char* what) {
  if (auto v = ctx.scalar_int(i)) return *v;
  return ctx.unknown_size(ctx.op_type() + " " + what + " '" + ctx.input_name(i) + "' is not known");
}

// The vocabulary: the vocab_size attribute, else the last dim the decoder
// subgraph declares for its logits (first output).
SymInt decoder_vocab(OpContext& ctx) {
  if (const int64_t v = ctx.attr_int("vocab_size", -1); v > 0) return v;
  if (const Attribute* a = ctx.attr("decoder"); a && a->g && !a->g->outputs.empty()) {
    const auto& shape = a->g->outputs[0].type.shape;
    if (shape && !shape->empty() && shape->back().kind == Dim::Kind::Value) return shape->back().value;
  }
  return ctx.unknown_size(ctx.op_type() + ": the decoder subgraph does not declare its vocabulary size");
}

// GreedySearch / Sampling: sequences (B, max_length) padded with
// pad_token_id, whatever the decoder generates; Sampling's filtered_logits
// (B, vocab).
void greedy_search_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2}, "input_ids");
  const SymInt batch = ctx.shape(0)[0];
  ctx.set_tensor(0, DType::Int32, {batch, generation_int(ctx, 1, "max_length")});
  if (ctx.wants_output(1)) ctx.set_tensor(1, DType::Float32, {batch, decoder_vocab(ctx)});
}

// BeamSearch: sequences (B, num_return_sequences, max_length),
// sequences_scores (B, num_return_sequences) and scores (one step per
// generated token: max_length - the decoder's start length, B, num_beams,
// vocab). The start length is input_ids' for GPT-style models, else
// decoder_input_ids' or the one decoder_start_token_id.
void beam_search_rule(OpContext& ctx) {
  require_rank(ctx, 0, {2, 3}, "input_ids");
  const SymInt batch = ctx.shape(0)[0];
  const SymInt max_length = generation_int(ctx, 1, "max_length");
  const SymInt returned = generation_int(ctx, 4, "num_return_sequences");
  ctx.set_tensor(0, DType::Int32, {batch, returned, max_length});
  const DType score_t = ctx.has_input(5) ? ctx.dtype(5) : DType::Float32;
  if (ctx.wants_output(1)) ctx.set_tensor(1, score_t, {batch, returned});
  if (ctx.wants_output(2)) {
    SymInt start = 1;
    if (ctx.attr_int("model_type", 0) == 0) start = ctx.shape(0)[1];
    else if (ctx.has_input(10)) start = ctx.shape(10)[1];
    SymInt steps = simplified(ctx, max_length - start);
    ctx.set_tensor(2, score_t, {steps, batch, generation_int(ctx, 3, "num_beams"), decoder_vocab(ctx)});
  }
}

// ---------------------------------------------------------------- activations

void same_shape_rule(OpContext& ctx) { same_as_input(ctx); }

void bias_gelu_rule(OpContext& ctx) {
  SymShape out = broadcast_inputs(ctx, {0, 1});
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void bias_add_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "X");
  const SymShape& x = ctx.shape(0);
  require_vector(ctx, 1, x[2], "BiasAdd bias");
  const SymShape& skip = ctx.shape(2);
  if (skip.size() != 3) ctx.fail(ErrorKind::InvalidRank, "BiasAdd skip must be 3-D");
  for (size_t i = 0; i < 3; ++i) require_equal(ctx, skip[i], x[i], "BiasAdd: skip has the shape of X");
  same_as_input(ctx);
}

void bias_split_gelu_rule(OpContext& ctx) {
  require_rank(ctx, 0, {3}, "X");
  const SymShape& x = ctx.shape(0);
  require_vector(ctx, 1, x[2], "BiasSplitGelu bias");
  ctx.set_tensor(0, ctx.dtype(0), {x[0], x[1], exact_div(ctx, x[2], 2, "BiasSplitGelu: hidden size is even")});
}

}  // namespace

std::span<const OpRuleEntry> microsoft_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {kMs, "Attention", attention_rule},
      {kMs, "QAttention", qattention_rule},
      {kMs, "DecoderMaskedSelfAttention", attention_rule},
      {kMs, "DecoderMaskedMultiHeadAttention", decoder_masked_mha_rule},
      {kMs, "PackedAttention", packed_attention_rule},
      {kMs, "PackedMultiHeadAttention", packed_mha_rule},
      {kMs, "LongformerAttention", longformer_attention_rule},
      {kMs, "QOrderedLongformerAttention", longformer_attention_rule},
      {kMs, "SparseAttention", sparse_attention_rule},
      {kMs, "PagedAttention", paged_attention_rule},
      {kMs, "QOrderedAttention", qordered_attention_rule},
      {kMs, "RelativePositionBias", relative_position_bias_rule},
      {kMs, "GatedRelativePositionBias", gated_relative_position_bias_rule},
      {kMs, "RemovePadding", remove_padding_rule},
      {kMs, "RestorePadding", restore_padding_rule},
      {kMs, "GroupNorm", group_norm_rule},
      {kMs, "SkipGroupNorm", skip_group_norm_rule},
      {kMs, "QEmbedLayerNormalization", qembed_layer_norm_rule},
      {kMs, "QOrderedLayerNormalization", same_shape_rule},
      {kMs, "QOrderedGelu", same_shape_rule},
      {kMs, "QOrderedMatMul", qordered_matmul_rule},
      {kMs, "GemmFastGelu", gemm_fast_gelu_rule},
      {kMs, "GemmFloat8", gemm_float8_rule},
      {kMs, "NhwcConv", nhwc_conv_rule},
      {kMs, "DynamicQuantizeLSTM", dynamic_quantize_lstm_rule},
      {kMs, "FusedConv", fused_conv_rule},
      {kMs, "NhwcFusedConv", nhwc_fused_conv_rule},
      {kMs, "FusedGemm", fused_gemm_rule},
      {kMs, "TransposeMatMul", fused_matmul_rule},
      {kMs, "NhwcMaxPool", nhwc_max_pool_rule},
      {kMs, "BiasSoftmax", bias_softmax_rule},
      {kMs, "BiasDropout", bias_dropout_rule},
      {kMs, "BitmaskDropout", bitmask_dropout_rule},
      {kMs, "ExpandDims", expand_dims_rule},
      {kMs, "CDist", cdist_rule},
      {kMs, "ComplexMul", complex_mul_rule},
      {kMs, "ComplexMulConj", complex_mul_rule},
      {kMs, "MulInteger", mul_integer_rule},
      {kMs, "MurmurHash3", murmur_hash3_rule},
      {kMs, "QuantizeWithOrder", quantize_with_order_rule},
      {kMs, "DequantizeWithOrder", dequantize_with_order_rule},
      {kMs, "Inverse", same_shape_rule},
      {kMs, "Trilu", same_shape_rule},
      {kMs, "GreedySearch", greedy_search_rule},
      {kMs, "Sampling", greedy_search_rule},
      {kMs, "BeamSearch", beam_search_rule},
      {kMs, "MultiHeadAttention", multi_head_attention_rule},
      {kMs, "GroupQueryAttention", group_query_attention_rule},
      {kMs, "RotaryEmbedding", same_shape_rule},
      {kMs, "SkipLayerNormalization", skip_layer_norm_rule},
      {kMs, "SkipSimplifiedLayerNormalization", skip_layer_norm_rule},
      {"", "SimplifiedLayerNormalization", simplified_layer_norm_rule},
      {kMs, "SimplifiedLayerNormalization", simplified_layer_norm_rule},
      {kMs, "EmbedLayerNormalization", embed_layer_norm_rule},
      {kMs, "FusedMatMul", fused_matmul_rule},
      {kMs, "MatMulNBits", matmul_nbits_rule},
      {kMs, "BiasGelu", bias_gelu_rule},
      {kMs, "FastGelu", same_shape_rule},
      {kMs, "Gelu", same_shape_rule},
      {kMs, "QuickGelu", same_shape_rule},
      {kMs, "BiasAdd", bias_add_rule},
      {kMs, "BiasSplitGelu", bias_split_gelu_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
