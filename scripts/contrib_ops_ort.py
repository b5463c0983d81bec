#!/usr/bin/env python3
"""Records ONNX Runtime's real output shapes and dtypes for small models of
com.microsoft contrib ops, the truth fakeprop's rules are checked against.

For each case it writes testdata/onnx/contrib_ops/<case>.onnx (opset 17 plus
com.microsoft 1; graph inputs with static shapes, shape-carrying inputs as
initializers), runs it on ORT's CPU provider with random inputs and writes
each output's shape and dtype to testdata/onnx/contrib_ops_ort.json.

Ops whose kernels ORT's CPU provider lacks (CUDA-only) cannot run here: the
case then says "cpu_kernel": false and carries the shapes worked out by hand
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


def random_feed(model, seed):
    rng = np.random.default_rng(seed)
    feed = {}
    for vi in model.graph.input:
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
        except Exception as e:  # no CPU kernel for this op (or these types)
            msg = str(e).splitlines()[0]
            if c["expect"] is None:
                failures.append(f"{c['name']}: ORT cannot load it and the case has no expectation: {msg}")
                continue
            entry.update(cpu_kernel=False, ort_error=msg[:200], expected_from=c["expected_from"])
            entry["outputs"] = [{"name": o, "shape": s, "elem_type": t} for o, (s, t) in c["expect"].items()]
            results.append(entry)
            continue
        got = sess.run(None, random_feed(model, i))
        entry["cpu_kernel"] = True
        entry["outputs"] = []
        for o, arr in zip([o for o in c["outputs"] if o], got):
            elem = helper.np_dtype_to_tensor_dtype(arr.dtype)
            entry["outputs"].append({"name": o, "shape": list(arr.shape), "elem_type": int(elem)})
        results.append(entry)
    doc = {"ort_version": ort.__version__, "onnx_version": onnx.__version__,
           "written_by": "scripts/contrib_ops_ort.py", "cases": results}
    OUT_JSON.write_text(json.dumps(doc, indent=1) + "\n")
    known = {c["name"] for c in CASES}
    for stale in OUT_DIR.glob("*.onnx"):
        if stale.stem not in known:
            stale.unlink()
    cpu = sum(1 for r in results if r["cpu_kernel"])
    print(f"{OUT_JSON}: {len(results)} cases, {cpu} run on ORT {ort.__version__} CPU, {len(results) - cpu} from schema")
    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    main()
