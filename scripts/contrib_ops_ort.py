#!/usr/bin/env python3
"""Records ONNX Runtime's real output shapes and dtypes for small models of
com.microsoft contrib ops, the truth fakeprop's rules are checked against.

For each case it writes testdata/onnx/contrib_ops/<case>.onnx (opset 17 plus
com.microsoft 1; graph inputs with static shapes, shape-carrying inputs as
initializers), runs it on ORT's CPU provider with random inputs and writes
each output's shape and dtype to testdata/onnx/contrib_ops_ort.json.

Ops whose kernels ORT's CPU provider lacks (CUDA-only) cannot run here: the
case then says "ran_on_cpu": false and carries the shapes worked out by hand
from the op's type-and-shape inference in ORT's schema sources (the file is
named in "expected_from"); the ctest checks fakeprop against those instead.

    /work/main/.venv-oracle/bin/python scripts/contrib_ops_ort.py
"""
import json
import pathlib
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "testdata" / "onnx" / "contrib_ops"
OUT_JSON = REPO / "testdata" / "onnx" / "contrib_ops_ort.json"
MAX_MODEL_BYTES = 5000

F, F16, U8, I8, I16, U16, I32, I64, B = TP.FLOAT, TP.FLOAT16, TP.UINT8, TP.INT8, TP.INT16, TP.UINT16, TP.INT32, TP.INT64, TP.BOOL
CASES = []


def inp(name, dtype, shape):
    """A graph input, fed random data."""
    return ("in", name, dtype, shape, None)


def fed(name, dtype, shape, value):
    """A graph input fed this value (data a kernel needs valid; fakeprop does not see it)."""
    return ("in", name, dtype, shape, value)


def const(name, dtype, value):
    """An initializer (data fakeprop can read, such as lengths or indices)."""
    return ("init", name, dtype, None, value)


def case(name, op, inputs, outputs, attrs=None, expect=None, expected_from=None, nodes_before=()):
    """expect: {output: (shape, elem type)} for ops without a CPU kernel."""
    CASES.append(dict(name=name, op=op, inputs=inputs, outputs=outputs, attrs=attrs or {}, expect=expect,
                      expected_from=expected_from))


def build(c):
    graph_inputs, inits, names = [], [], []
    for kind, name, dtype, shape, value in c["inputs"]:
        names.append(name)
        if kind == "in":
            graph_inputs.append(helper.make_tensor_value_info(name, dtype, shape))
        elif kind == "init" and name not in {t.name for t in inits}:
            arr = np.array(value, dtype=helper.tensor_dtype_to_np_dtype(dtype))
            inits.append(numpy_helper.from_array(arr, name))
        # kind "skip": an absent optional input, name ""
    node = helper.make_node(c["op"], names, c["outputs"], name="n", domain="com.microsoft", **c["attrs"])
    outs = [onnx.ValueInfoProto(name=o) for o in c["outputs"] if o]
    graph = helper.make_graph([node], c["name"], graph_inputs, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def random_feed(model, seed, fixed):
    rng = np.random.default_rng(seed)
    feed = {}
    for vi in model.graph.input:
        if vi.name in fixed:
            feed[vi.name] = np.array(fixed[vi.name], dtype=helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type))
            continue
        t = vi.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        np_t = helper.tensor_dtype_to_np_dtype(t.elem_type)
        if np_t == np.bool_:
            feed[vi.name] = rng.integers(0, 2, shape).astype(np.bool_)
        elif np.issubdtype(np_t, np.integer):
            feed[vi.name] = rng.integers(0, 4, shape).astype(np_t)  # small: valid as ids, lengths and indices
        else:
            feed[vi.name] = rng.standard_normal(shape).astype(np_t)
    return feed


def skip():
    return ("skip", "", None, None, None)


def gpt_decoder(vocab=6):
    """The smallest GPT-2 style decoder subgraph ORT's search ops accept: one
    layer of one head of size 1, logits one-hot of the input ids."""
    nodes = [
        helper.make_node("Gather", ["emb", "input_ids"], ["logits"]),
        helper.make_node("Cast", ["input_ids"], ["ids_f"], to=F),
        helper.make_node("Unsqueeze", ["ids_f", "kv_axes"], ["kv1"]),
        helper.make_node("Concat", ["kv1", "kv1"], ["kv"], axis=0),
        helper.make_node("Concat", ["past_0", "kv"], ["present_0"], axis=3),
    ]
    inits = [numpy_helper.from_array(np.eye(vocab, dtype=np.float32), "emb"),
             numpy_helper.from_array(np.array([0, 2, 4], np.int64), "kv_axes")]
    inputs = [helper.make_tensor_value_info("input_ids", I32, ["B", "S"]),
              helper.make_tensor_value_info("position_ids", I32, ["B", "S"]),
              helper.make_tensor_value_info("attention_mask", I32, ["B", "T"]),
              helper.make_tensor_value_info("past_0", F, [2, "B", 1, "P", 1])]
    outputs = [helper.make_tensor_value_info("logits", F, ["B", "S", vocab]),
               helper.make_tensor_value_info("present_0", F, [2, "B", 1, "T", 1])]
    return helper.make_graph(nodes, "decoder", inputs, outputs, inits)


def define_cases():
    f1 = const("one", F, 0.05)
    # ---- quantization (CPU kernels)
    case("qattention", "QAttention",
         [inp("x", U8, [2, 3, 8]), inp("w", U8, [8, 24]), inp("bias", F, [24]), const("xs", F, 0.1), const("ws", F, 0.1),
          skip(), const("xz", U8, 1), const("wz", U8, 2)], ["y", "present"], {"num_heads": 2})
    case("qattention_past", "QAttention",
         [inp("x", U8, [2, 3, 8]), inp("w", U8, [8, 24]), inp("bias", F, [24]), const("xs", F, 0.1), const("ws", F, 0.1),
          skip(), const("xz", U8, 1), const("wz", U8, 2), inp("past", F, [2, 2, 2, 5, 4])], ["y", "present"],
         {"num_heads": 2})
    case("dynamic_quantize_matmul", "DynamicQuantizeMatMul",
         [inp("a", F, [2, 3, 4]), inp("b", I8, [4, 5]), const("bs", F, 0.1), const("bz", I8, 0), inp("bias", F, [5])], ["y"])
    case("matmul_integer16", "MatMulInteger16", [inp("a", I16, [2, 3, 4]), inp("b", I16, [4, 5])], ["y"])
    case("matmul_integer_to_float", "MatMulIntegerToFloat",
         [inp("a", U8, [3, 4]), inp("b", I8, [2, 4, 5]), const("as", F, 0.1), inp("bs", F, [5]), const("az", U8, 3)], ["y"])
    case("qlinear_add", "QLinearAdd",
         [inp("a", U8, [2, 3, 4]), f1, const("az", U8, 1), inp("b", U8, [4]), f1, const("bz", U8, 2), f1, const("cz", U8, 3)], ["c"])
    case("qlinear_mul", "QLinearMul",
         [inp("a", I8, [3, 1]), f1, const("az", I8, 1), inp("b", I8, [2, 1, 4]), f1, const("bz", I8, 2), f1, const("cz", I8, 3)], ["c"])
    case("qlinear_sigmoid", "QLinearSigmoid", [inp("x", U8, [2, 5]), f1, const("xz", U8, 1), f1, const("yz", U8, 0)], ["y"])
    case("qlinear_leaky_relu", "QLinearLeakyRelu", [inp("x", I8, [2, 5]), f1, const("xz", I8, 1), f1, const("yz", I8, 0)], ["y"],
         {"alpha": 0.1})
    case("qlinear_softmax", "QLinearSoftmax", [inp("x", U8, [2, 3, 5]), f1, const("xz", U8, 1), const("ys", F, 1 / 256), const("yz", U8, 0)],
         ["y"], {"opset": 13, "axis": -1})
    case("qlinear_concat", "QLinearConcat",
         [f1, const("yz", U8, 1), inp("a", U8, [2, 3, 4]), f1, const("az", U8, 0), inp("b", U8, [2, 5, 4]), f1, const("bz", U8, 2)],
         ["y"], {"axis": 1})
    case("qlinear_where", "QLinearWhere",
         [inp("c", B, [3, 1]), inp("x", U8, [1, 4]), f1, const("xz", U8, 0), inp("y", U8, [3, 4]), f1, const("yz", U8, 0),
          f1, const("zz", U8, 0)], ["z"])
    case("qlinear_average_pool", "QLinearAveragePool", [inp("x", U8, [1, 2, 7, 5]), f1, const("xz", U8, 0), f1, const("yz", U8, 0)],
         ["y"], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 0]})
    case("qlinear_average_pool_nhwc", "QLinearAveragePool", [inp("x", U8, [1, 7, 5, 2]), f1, const("xz", U8, 0), f1, const("yz", U8, 0)],
         ["y"], {"kernel_shape": [3, 2], "strides": [2, 1], "ceil_mode": 1, "channels_last": 1})
    case("qlinear_global_average_pool", "QLinearGlobalAveragePool",
         [inp("x", U8, [2, 3, 4, 5]), f1, const("xz", U8, 0), f1, const("yz", U8, 0)], ["y"])
    case("qlinear_global_average_pool_nhwc", "QLinearGlobalAveragePool",
         [inp("x", I8, [2, 4, 5, 3]), f1, const("xz", I8, 0), f1, const("yz", I8, 0)], ["y"], {"channels_last": 1})
    case("qlinear_conv", "QLinearConv",
         [inp("x", U8, [1, 4, 6, 6]), f1, const("xz", U8, 0), inp("w", I8, [8, 2, 3, 3]), f1, const("wz", I8, 0), f1, const("yz", U8, 0),
          inp("b", I32, [8])], ["y"], {"group": 2, "strides": [2, 1], "pads": [1, 1, 1, 1]})
    case("qlinear_conv_nhwc", "QLinearConv",
         [inp("x", U8, [1, 6, 6, 4]), f1, const("xz", U8, 0), inp("w", U8, [8, 4, 3, 3]), f1, const("wz", U8, 0), f1, const("yz", U8, 0)],
         ["y"], {"channels_last": 1, "dilations": [2, 1]})
    case("qlinear_reduce_mean", "QLinearReduceMean",
         [inp("x", U8, [2, 3, 4]), f1, const("xz", U8, 0), f1, const("yz", U8, 0)], ["y"], {"axes": [1], "keepdims": 0},
         expect={"y": ([2, 4], U8)}, expected_from="quantization_defs.cc QLinearReduceMean: ReduceMean's shape inference, x's type")
    case("qgemm_float", "QGemm",
         [inp("a", U8, [4, 3]), f1, const("az", U8, 1), inp("b", I8, [5, 4]), f1, const("bz", I8, 0), inp("c", I32, [5])], ["y"],
         {"transA": 1, "transB": 1})
    case("qgemm_quantized", "QGemm",
         [inp("a", I8, [3, 4]), f1, const("az", I8, 1), inp("b", I8, [4, 5]), f1, const("bz", I8, 0), skip(), f1, const("yz", I8, 0)],
         ["y"])
    case("quantize_linear_int16", "QuantizeLinear", [inp("x", F, [2, 3]), inp("s", F, [3]), const("z", I16, [0, 0, 0])], ["y"],
         {"axis": 1})
    case("quantize_linear_no_zero_point", "QuantizeLinear", [inp("x", F16, [2, 3]), const("s", F16, 0.5)], ["y"])
    case("dequantize_linear_uint16", "DequantizeLinear", [inp("x", U16, [2, 3]), const("s", F16, 0.5), const("z", U16, 3)], ["y"])
    case("gather_block_quantized_4bit", "GatherBlockQuantized",
         [inp("data", U8, [10, 16]), inp("idx", I64, [2, 3]), inp("scales", F, [10, 1])], ["y"],
         {"bits": 4, "block_size": 32, "gather_axis": 0, "quantize_axis": 1})
    case("gather_block_quantized_8bit", "GatherBlockQuantized",
         [inp("data", U8, [10, 32]), inp("idx", I32, [3]), inp("scales", F16, [10, 2]), inp("zp", U8, [10, 2])], ["y"],
         {"bits": 8, "block_size": 16, "gather_axis": 0, "quantize_axis": 1})
    case("matmul_bnb4", "MatMulBnb4",
         [inp("a", F, [2, 3, 64]), inp("b", U8, [1024]), inp("absmax", F, [32])], ["y"],
         {"K": 64, "N": 32, "block_size": 64, "quant_type": 1})
    # ---- transformer fusions with CPU kernels (rules older than this table)
    case("attention", "Attention", [inp("x", F, [2, 3, 8]), inp("w", F, [8, 24]), inp("bias", F, [24])], ["y", "present"],
         {"num_heads": 2})
    case("attention_past", "Attention",
         [inp("x", F, [2, 3, 8]), inp("w", F, [8, 24]), inp("bias", F, [24]), skip(), inp("past", F, [2, 2, 2, 5, 4])],
         ["y", "present"], {"num_heads": 2, "unidirectional": 1})
    case("multi_head_attention_past", "MultiHeadAttention",
         [inp("q", F, [2, 3, 8]), inp("k", F, [2, 3, 8]), inp("v", F, [2, 3, 8]), skip(), skip(), skip(),
          inp("pk", F, [2, 2, 4, 4]), inp("pv", F, [2, 2, 4, 4])], ["y", "present_key", "present_value"], {"num_heads": 2})
    case("multi_head_attention_cross_bnsh", "MultiHeadAttention",
         [inp("q", F, [2, 3, 8]), inp("k", F, [2, 2, 5, 4]), inp("v", F, [2, 2, 5, 4])], ["y"], {"num_heads": 2})
    case("group_query_attention", "GroupQueryAttention",
         [inp("q", F, [1, 3, 16]), inp("k", F, [1, 3, 8]), inp("v", F, [1, 3, 8]), inp("pk", F, [1, 1, 4, 8]),
          inp("pv", F, [1, 1, 4, 8]), fed("seqlens_k", I32, [1], [6]), const("total", I32, 7)],
         ["y", "present_key", "present_value"], {"num_heads": 2, "kv_num_heads": 1})
    case("group_query_attention_prompt_packed", "GroupQueryAttention",
         [inp("qkv", F16, [2, 3, 32]), skip(), skip(), skip(), skip(), fed("seqlens_k", I32, [2], [2, 2]), const("total", I32, 3)],
         ["y", "present_key", "present_value"], {"num_heads": 2, "kv_num_heads": 1})
    case("rotary_embedding", "RotaryEmbedding",
         [inp("x", F, [2, 3, 8]), fed("pos", I64, [2, 3], [[0, 1, 2], [3, 4, 5]]), inp("cos", F, [16, 2]), inp("sin", F, [16, 2])],
         ["y"], {"num_heads": 2})
    case("skip_layer_norm", "SkipLayerNormalization",
         [inp("x", F16, [2, 3, 8]), inp("skip", F16, [2, 3, 8]), inp("g", F16, [8]), inp("b", F16, [8]), inp("bias", F16, [8])],
         ["y", "mean", "inv_std", "sum"])
    case("skip_simplified_layer_norm", "SkipSimplifiedLayerNormalization",
         [inp("x", F16, [2, 3, 8]), inp("skip", F16, [3, 8]), inp("g", F16, [8])], ["y", "mean", "inv_std", "sum"])
    case("attention_mask_fp16", "Attention",
         [inp("x", F16, [2, 3, 8]), inp("w", F16, [8, 24]), inp("bias", F16, [24]), fed("mask", I32, [2, 3], [[1, 1, 1], [1, 1, 0]])],
         ["y", "present"], {"num_heads": 2})
    case("embed_layer_norm", "EmbedLayerNormalization",
         [inp("ids", I32, [2, 3]), inp("seg", I32, [2, 3]), inp("wemb", F, [10, 8]), inp("pemb", F, [6, 8]),
          inp("semb", F, [4, 8]), inp("g", F, [8]), inp("b", F, [8]), inp("mask", I32, [2, 3])], ["y", "mask_index", "sum"])
    case("fused_matmul", "FusedMatMul", [inp("a", F, [2, 4, 3]), inp("b", F, [5, 4])], ["y"], {"transA": 1, "transB": 1})
    case("matmul_nbits", "MatMulNBits", [inp("a", F, [2, 3, 32]), inp("b", U8, [16, 1, 16]), inp("scales", F, [16])], ["y"],
         {"K": 32, "N": 16, "bits": 4, "block_size": 32})
    case("bias_gelu", "BiasGelu", [inp("a", F, [2, 3, 8]), inp("b", F, [8])], ["y"])
    case("fast_gelu", "FastGelu", [inp("x", F, [2, 3, 8]), inp("b", F, [8])], ["y"])
    case("gelu", "Gelu", [inp("x", F, [2, 3, 8])], ["y"])
    case("quick_gelu", "QuickGelu", [inp("x", F, [2, 3, 8])], ["y"], {"alpha": 1.702})
    case("bias_add", "BiasAdd", [inp("x", F16, [2, 3, 8]), inp("b", F16, [8]), inp("skip", F16, [2, 3, 8])], ["y"],
         expect={"y": ([2, 3, 8], F16)}, expected_from="schema doc: Y = X + bias + skip, X's shape")
    case("bias_split_gelu", "BiasSplitGelu", [inp("x", F16, [2, 3, 8]), inp("b", F16, [8])], ["y"],
         expect={"y": ([2, 3, 4], F16)}, expected_from="schema doc: Y (N, S, D/2) from X (N, S, D)")
    # ---- generation: the sequences are padded to max_length whatever the decoder does
    ids = fed("ids", I32, [2, 3], [[1, 2, 3], [2, 3, 4]])
    case("greedy_search", "GreedySearch", [ids, const("max_length", I32, [7])], ["sequences"],
         {"pad_token_id": 0, "eos_token_id": 5, "decoder": gpt_decoder()})
    case("sampling", "Sampling", [ids, const("max_length", I32, [9])], ["sequences"],
         {"pad_token_id": 0, "eos_token_id": 5, "decoder": gpt_decoder()})
    case("beam_search", "BeamSearch",
         [ids, const("max_length", I32, [7]), const("min_length", I32, [1]), const("num_beams", I32, [3]),
          const("num_return_sequences", I32, [2]), const("length_penalty", F, [1.0]), const("repetition_penalty", F, [1.0])],
         ["sequences", "sequences_scores", "scores"], {"pad_token_id": 0, "eos_token_id": 5, "decoder": gpt_decoder()})
    # ---- fusions of ORT's own graph optimizer (in models it saves) and older contrib ops
    case("fused_conv", "FusedConv", [inp("x", F, [1, 4, 7, 7]), inp("w", F, [6, 2, 3, 3]), inp("b", F, [6])], ["y"],
         {"group": 2, "strides": [2, 2], "activation": "Relu"})
    case("nhwc_fused_conv", "NhwcFusedConv", [inp("x", F16, [1, 7, 7, 4]), inp("w", F16, [6, 4, 3, 3])], ["y"],
         {"pads": [1, 1, 1, 1], "activation": "Relu"}, expect={"y": ([1, 7, 7, 6], F16)},
         expected_from="schema doc: Y [N, out_H, out_W, M] from channels-last X and W in Conv's [M, C/group, kH, kW]")
    case("fused_gemm", "FusedGemm", [inp("a", F, [4, 3]), inp("b", F, [5, 4]), inp("c", F, [5])], ["y"],
         {"transA": 1, "transB": 1, "activation": "LeakyRelu", "activation_alpha": 0.1})
    case("transpose_matmul", "TransposeMatMul", [inp("a", F, [2, 4, 3]), inp("b", F, [2, 4, 5])], ["y"], {"transA": 1})
    case("nhwc_max_pool", "NhwcMaxPool", [inp("x", U8, [1, 7, 6, 3])], ["y"],
         {"kernel_shape": [3, 2], "strides": [2, 2], "ceil_mode": 1})
    case("bias_softmax", "BiasSoftmax", [inp("x", F16, [2, 2, 3, 4]), inp("b", F16, [2, 1, 1, 4])], ["y"],
         {"axis": -1, "is_inner_broadcast": 0}, expect={"y": ([2, 2, 3, 4], F16)},
         expected_from="schema doc: softmax(data + bias), data's shape")
    case("bias_dropout", "BiasDropout", [inp("x", F, [2, 3, 4]), inp("b", F, [4]), inp("r", F, [2, 3, 4])], ["y", "mask"],
         expect={"y": ([2, 3, 4], F), "mask": ([2, 3, 4], B)},
         expected_from="schema: output like data, bool mask (T2) like data as Dropout's")
    case("bitmask_dropout", "BitmaskDropout", [inp("x", F, [5, 13])], ["y", "mask"],
         expect={"y": ([5, 13], F), "mask": ([3], TP.UINT32)},
         expected_from="schema doc: a bit-packed uint32 mask, one bit per element: ceil(numel / 32) words")
    case("expand_dims", "ExpandDims", [inp("x", F, [2, 3]), const("axis", I32, -1)], ["y"])
    case("cdist", "CDist", [inp("a", F, [4, 3]), inp("b", F, [5, 3])], ["y"], {"metric": "euclidean"})
    case("complex_mul", "ComplexMul", [inp("a", F, [3, 1, 2]), inp("b", F, [4, 2])], ["y"],
         expect={"y": ([3, 4, 2], F)}, expected_from="schema: complex (..., 2) product of A and B, broadcast as Mul")
    case("mul_integer", "MulInteger", [inp("a", U8, [2, 1, 4]), const("az", U8, 1), inp("b", U8, [3, 4]), const("bz", U8, 2)],
         ["y"], expect={"y": ([2, 3, 4], I32)}, expected_from="schema: A times B broadcast as Mul, int32 (T1)")
    case("murmur_hash3", "MurmurHash3", [inp("x", I32, [2, 3])], ["y"], {"positive": 0})
    case("quantize_with_order", "QuantizeWithOrder", [inp("x", F16, [2, 4, 8]), f1], ["y"], {"order_input": 1, "order_output": 1},
         expect={"y": ([2, 4, 8], I8)}, expected_from="schema doc: int8 in a cuBLASLt order, the input's shape")
    case("dequantize_with_order", "DequantizeWithOrder", [inp("x", I8, [2, 4, 8]), f1], ["y"],
         {"order_input": 1, "order_output": 1, "to": F16},
         expect={"y": ([2, 4, 8], F16)}, expected_from="schema doc: 'to' (float16 or float) type, the input's shape")
    case("inverse", "Inverse", [inp("x", F, [2, 3, 3])], ["y"])
    case("trilu", "Trilu", [inp("x", F, [2, 3, 4]), const("k", I64, 1)], ["y"], {"upper": 0})
    case("qembed_layer_norm", "QEmbedLayerNormalization",
         [inp("ids", I32, [2, 3]), inp("seg", I32, [2, 3]), inp("wemb", U8, [10, 8]), inp("pemb", U8, [6, 8]), inp("semb", U8, [4, 8]),
          inp("g", U8, [8]), inp("b", U8, [8]), inp("mask", I32, [2, 3]), f1, f1, f1, f1, f1,
          const("z0", U8, 1), const("z0", U8, 1), const("z0", U8, 1), const("z0", U8, 1), const("z0", U8, 1)],
         ["y", "mask_index"])
    case("dynamic_quantize_lstm", "DynamicQuantizeLSTM",
         [inp("x", F, [5, 2, 3]), inp("w", I8, [1, 3, 16]), inp("r", I8, [1, 4, 16]), skip(), skip(), skip(), skip(), skip(),
          const("ws", F, [0.1]), const("wz", I8, [0]), const("rs", F, [0.1]), const("rz", I8, [0])],
         ["y", "y_h", "y_c"], {"hidden_size": 4})
    # ---- transformer fusions; most of these kernels are CUDA-only, so each
    # carries the shapes ORT's schema inference (bert_defs.cc unless named)
    # gives, or the documented output shapes where that inference leaves a dim open.
    bert = "bert_defs.cc "
    case("decoder_masked_self_attention", "DecoderMaskedSelfAttention",
         [inp("x", F, [2, 1, 8]), inp("w", F, [8, 24]), inp("bias", F, [24]), skip(), inp("past", F, [2, 2, 2, 6, 4]), skip(),
          const("plen", I32, 3)], ["y", "present"], {"num_heads": 2, "past_present_share_buffer": 1},
         expect={"y": ([2, 1, 8], F), "present": ([2, 2, 2, 6, 4], F)},
         expected_from=bert + "AttentionTypeAndShapeInference; with past_present_share_buffer the doc gives present "
         "past's (2, B, heads, max_len, head)")
    case("decoder_masked_mha_shared", "DecoderMaskedMultiHeadAttention",
         [inp("q", F, [2, 1, 8]), inp("k", F, [2, 1, 8]), inp("v", F, [2, 1, 8]), skip(), skip(), inp("pk", F, [2, 2, 6, 4]),
          inp("pv", F, [2, 2, 6, 4]), const("plen", I32, 3)], ["y", "present_key", "present_value"],
         {"num_heads": 2, "past_present_share_buffer": 1},
         expect={"y": ([2, 1, 8], F), "present_key": ([2, 2, 6, 4], F), "present_value": ([2, 2, 6, 4], F)},
         expected_from=bert + "MultiHeadAttentionTypeAndShapeInference (past index 5): presents alias the pasts")
    case("decoder_masked_mha_cross", "DecoderMaskedMultiHeadAttention",
         [inp("q", F16, [2, 1, 8]), inp("k", F16, [2, 2, 7, 4]), inp("v", F16, [2, 2, 7, 4])], ["y"], {"num_heads": 2},
         expect={"y": ([2, 1, 8], F16)}, expected_from=bert + "MultiHeadAttentionTypeAndShapeInference: BNSH value -> heads * head")
    case("packed_attention", "PackedAttention",
         [inp("x", F, [5, 8]), inp("w", F, [8, 24]), inp("bias", F, [24]), inp("off", I32, [2, 4]), inp("cum", I32, [3])], ["y"],
         {"num_heads": 2}, expect={"y": ([5, 8], F)}, expected_from=bert + "PackedAttentionTypeAndShapeInference")
    case("packed_mha", "PackedMultiHeadAttention",
         [inp("q", F16, [5, 8]), inp("k", F16, [5, 8]), inp("v", F16, [5, 6]), skip(), inp("off", I32, [2, 4]), inp("cum", I32, [3])],
         ["y"], {"num_heads": 2}, expect={"y": ([5, 6], F16)},
         expected_from=bert + "PackedMultiHeadAttentionTypeAndShapeInference")
    case("packed_mha_packed_qkv", "PackedMultiHeadAttention",
         [inp("q", F, [5, 2, 3, 4]), skip(), skip(), skip(), inp("off", I32, [2, 4]), inp("cum", I32, [3])],
         ["y"], {"num_heads": 2}, expect={"y": ([5, 8], F)},
         expected_from=bert + "PackedMultiHeadAttentionTypeAndShapeInference")
    case("longformer_attention", "LongformerAttention",
         [inp("x", F, [2, 4, 8]), inp("w", F, [8, 24]), inp("b", F, [24]), inp("mask", F, [2, 4]), inp("gw", F, [8, 24]),
          inp("gb", F, [24]), inp("g", I32, [2, 4])], ["y"], {"num_heads": 2, "window": 2},
         expect={"y": ([2, 4, 8], F)}, expected_from="schema doc: output (batch_size, sequence_length, hidden_size), the input's")
    case("sparse_attention", "SparseAttention",
         [inp("q", F, [2, 3, 16]), inp("k", F, [2, 3, 8]), inp("v", F, [2, 3, 8]), inp("pk", F, [2, 1, 16, 8]),
          inp("pv", F, [2, 1, 16, 8]), fed("rows", I32, [1, 5], [[0, 1, 3, 6, 10]]),
          fed("cols", I32, [1, 10], [[0, 0, 1, 0, 1, 2, 0, 1, 2, 3]]), const("total", I32, 3),
          fed("klens", I32, [2], [3, 3])], ["y", "present_key", "present_value"],
         {"num_heads": 2, "kv_num_heads": 1, "sparse_block_size": 4},
         expect={"y": ([2, 3, 16], F), "present_key": ([2, 1, 16, 8], F), "present_value": ([2, 1, 16, 8], F)},
         expected_from=bert + "SparseAttentionTypeAndShapeInference (max past/present buffer: presents are the pasts)")
    case("paged_attention", "PagedAttention",
         [inp("q", F16, [6, 8]), inp("k", F16, [6, 4]), inp("v", F16, [6, 4]), inp("kc", F16, [3, 16, 1, 4]),
          inp("vc", F16, [3, 16, 1, 4]), inp("cum", I32, [3]), inp("past", I32, [2]), inp("blocks", I32, [2, 2])],
         ["y", "kc_out", "vc_out"], {"num_heads": 2, "kv_num_heads": 1},
         expect={"y": ([6, 8], F16), "kc_out": ([3, 16, 1, 4], F16), "vc_out": ([3, 16, 1, 4], F16)},
         expected_from="schema doc: output (num_tokens, num_heads * v_head_size); the caches come back aliased")
    case("relative_position_bias", "RelativePositionBias",
         [inp("table", F, [32, 2]), const("ql", I64, 5), const("kl", I64, 7)], ["y"], {"max_distance": 16},
         expect={"y": ([1, 2, 5, 7], F)},
         expected_from=bert + "RelativePositionBias: (1, bias_table[1], ?, ?); the open dims are query_length, key_length")
    case("gated_relative_position_bias", "GatedRelativePositionBias",
         [inp("q", F, [2, 4, 8]), inp("qb", F, [8]), inp("rel", F, [1, 2, 4, 4]), inp("w", F, [4, 6]), inp("b", F, [6]),
          inp("eco", F, [1, 2, 1, 1])], ["y"], {"num_heads": 2},
         expect={"y": ([2, 2, 4, 4], F)}, expected_from=bert + "GatedRelativePositionBias inference")
    case("gated_relative_position_bias_packed", "GatedRelativePositionBias",
         [inp("q", F16, [5, 8]), inp("qb", F16, [8]), inp("rel", F16, [1, 2, 3, 3]), inp("w", F16, [4, 6]), inp("b", F16, [6]),
          inp("eco", F16, [1, 2, 1, 1]), inp("off", I32, [2, 3])], ["y"], {"num_heads": 2},
         expect={"y": ([2, 2, 3, 3], F16)}, expected_from=bert + "GatedRelativePositionBias inference (token_offset)")
    case("remove_padding", "RemovePadding", [inp("x", F, [2, 4, 8]), const("counts", I32, [3, 2])],
         ["y", "offset", "cum", "max_len"],
         expect={"y": ([5, 8], F), "offset": ([2, 4], I32), "cum": ([3], I32), "max_len": ([1], I32)},
         expected_from=bert + "RemovePaddingTypeAndShapeInference; its open total_tokens is the sum of sequence_token_count")
    case("restore_padding", "RestorePadding", [inp("x", F16, [5, 8]), inp("off", I32, [2, 4])], ["y"],
         expect={"y": ([2, 4, 8], F16)}, expected_from=bert + "RestorePaddingTypeAndShapeInference")
    case("group_norm", "GroupNorm", [inp("x", F, [2, 4, 4, 8]), inp("g", F, [8]), inp("b", F, [8])], ["y"],
         {"groups": 4, "activation": 1}, expect={"y": ([2, 4, 4, 8], F)},
         expected_from="schema doc: Y has the shape of X")
    case("skip_group_norm", "SkipGroupNorm",
         [inp("x", F16, [2, 4, 4, 8]), inp("g", F, [8]), inp("b", F, [8]), inp("skip", F16, [2, 4, 4, 8]), inp("bias", F16, [8])],
         ["y", "s"], {"groups": 4, "activation": 0}, expect={"y": ([2, 4, 4, 8], F16), "s": ([2, 4, 4, 8], F16)},
         expected_from="schema doc: Y and S have the shape of X")
    case("nhwc_conv", "NhwcConv", [inp("x", F16, [1, 6, 6, 4]), inp("w", F16, [8, 3, 3, 4]), inp("b", F16, [8])], ["y"],
         {"strides": [2, 2], "pads": [1, 1, 1, 1]}, expect={"y": ([1, 3, 3, 8], F16)},
         expected_from="Conv's window over NHWC X with (M, k..., C/group) weights, as fusion_nhwc_conv.py writes them (ORT resolves this graph; its doc string repeats Conv's NCHW text)")
    case("gemm_fast_gelu", "GemmFastGelu", [inp("x", F, [2, 3, 8]), inp("w", F, [8, 5]), inp("b", F, [5])], ["y"],
         expect={"y": ([2, 3, 5], F)}, expected_from=bert + "GemmFastGelu: MatMulShapeInference")
    case("gemm_float8", "GemmFloat8", [inp("a", F16, [4, 3]), inp("b", F16, [5, 4])], ["y"],
         {"transA": 1, "transB": 1, "dtype": F16}, expect={"y": ([3, 5], F16)},
         expected_from="schema doc: Gemm's shape; dtype is the output type (as Cast's to)")
    case("qordered_matmul", "QOrderedMatMul",
         [inp("a", I8, [2, 3, 8]), f1, inp("b", I8, [8, 5]), f1, f1], ["y"], {"order_A": 1, "order_B": 0, "order_Y": 1},
         expect={"y": ([2, 3, 5], I8)}, expected_from="schema doc: A (3-D) times B (2-D), int8")
    case("qordered_gelu", "QOrderedGelu", [inp("x", I8, [2, 3, 8]), f1, f1], ["y"], {"order_X": 1, "order_Y": 1},
         expect={"y": ([2, 3, 8], I8)}, expected_from="schema doc: Y like X, int8")
    case("qordered_layer_norm", "QOrderedLayerNormalization", [inp("x", I8, [2, 3, 8]), f1, inp("g", F16, [8]), inp("b", F16, [8]), f1],
         ["y"], {"order_X": 1, "order_Y": 1}, expect={"y": ([2, 3, 8], I8)},
         expected_from="schema doc: Y like X, int8")
    case("qordered_attention", "QOrderedAttention",
         [inp("x", I8, [2, 3, 8]), f1, f1, f1, f1, inp("qw", I8, [8, 8]), inp("kw", I8, [8, 8]), inp("vw", I8, [8, 8]), f1, f1, f1,
          inp("qb", F, [8]), inp("kb", F, [8]), inp("vb", F, [8]), f1, f1, f1], ["y"],
         {"num_heads": 2, "order_input": 1, "order_weight": 0, "order_output": 1},
         expect={"y": ([2, 3, 8], I8)}, expected_from="schema doc: output (batch_size, sequence_length, hidden_size), int8")
    case("qordered_longformer_attention", "QOrderedLongformerAttention",
         [inp("x", I8, [2, 4, 8]), f1, inp("w", I8, [8, 24]), f1, inp("b", F, [24]), f1, f1, inp("mask", F16, [2, 4]),
          inp("gw", I8, [8, 24]), f1, inp("gb", F, [24]), f1, inp("g", I32, [2, 4]), f1], ["y"],
         {"num_heads": 2, "window": 2, "order_input": 1, "order_weight": 0, "order_global_weight": 0, "order_output": 1},
         expect={"y": ([2, 4, 8], I8)}, expected_from="schema doc: output (batch_size, sequence_length, hidden_size), int8")


def main():
    define_cases()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    results, failures = [], []
    for i, c in enumerate(CASES):
        model = build(c)
        data = model.SerializeToString()
        if len(data) > MAX_MODEL_BYTES:
            failures.append(f"{c['name']}: model is {len(data)} bytes")
        path = OUT_DIR / f"{c['name']}.onnx"
        path.write_bytes(data)
        entry = {"name": c["name"], "op": c["op"], "model": f"contrib_ops/{c['name']}.onnx"}
        try:
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            sess = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
            fixed = {name: value for kind, name, _, _, value in c["inputs"] if kind == "in" and value is not None}
            got = sess.run(None, random_feed(model, i, fixed))
        except Exception as e:  # no CPU kernel for this op (or these types), or one it cannot run this way
            msg = str(e).splitlines()[0]
            if c["expect"] is None:
                failures.append(f"{c['name']}: ORT cannot run it and the case has no expectation: {msg}")
                continue
            entry.update(ran_on_cpu=False, ort_error=msg[:200], expected_from=c["expected_from"])
            entry["outputs"] = [{"name": o, "shape": s, "elem_type": t} for o, (s, t) in c["expect"].items()]
            results.append(entry)
            continue
        entry["ran_on_cpu"] = True
        entry["outputs"] = []
        for o, arr in zip([o for o in c["outputs"] if o], got):
            elem = helper.np_dtype_to_tensor_dtype(arr.dtype)
            entry["outputs"].append({"name": o, "shape": list(arr.shape), "elem_type": int(elem)})
            if c["expect"] and c["expect"].get(o, (list(arr.shape), elem)) != (list(arr.shape), elem):
                failures.append(f"{c['name']}: ORT gives {o} {list(arr.shape)} type {elem}, expected {c['expect'][o]}")
        results.append(entry)
    doc = {"ort_version": ort.__version__, "onnx_version": onnx.__version__,
           "written_by": "scripts/contrib_ops_ort.py", "cases": results}
    OUT_JSON.write_text(json.dumps(doc, indent=1) + "\n")
    known = {c["name"] for c in CASES}
    for stale in OUT_DIR.glob("*.onnx"):
        if stale.stem not in known:
            stale.unlink()
    cpu = sum(1 for r in results if r["ran_on_cpu"])
    print(f"{OUT_JSON}: {len(results)} cases, {cpu} run on ORT {ort.__version__} CPU, {len(results) - cpu} from schema")
    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    main()
