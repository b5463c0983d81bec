#!/usr/bin/python3
"""Builds the tiny ONNX models under testdata/onnx/loader/ that the loader's
unit tests read, plus expected.json: what python-onnx itself reads back from
each saved file (structure, and tensor values via numpy_helper.to_array), so
the C++ loader is compared with ONNX's own parser rather than with itself.

Run with Debian's interpreter, which has python3-onnx 1.12:
    /usr/bin/python3 scripts/make_loader_testdata.py
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, checker, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "onnx", "loader")
PRODUCER = "fakeprop-testdata"


def model(graph, opset=13, extra_opsets=(), **kwargs):
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, opset_imports=opsets, producer_name=PRODUCER, producer_version="1.0", **kwargs)
    m.ir_version = 8
    return m


def add_conv():
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3, "H", "W"])
    skip = helper.make_tensor_value_info("S", TensorProto.FLOAT, ["N", 4, "H", "W"])
    z = helper.make_tensor_value_info("Z", TensorProto.FLOAT, ["N", 4, "H", "W"])
    weight = numpy_helper.from_array(np.arange(4 * 3 * 3 * 3, dtype=np.float32).reshape(4, 3, 3, 3) / 8, "W")
    bias = numpy_helper.from_array(np.array([0.5, -1.0, 2.0, 0.0], dtype=np.float32), "B")
    conv = helper.make_node("Conv", ["X", "W", "B"], ["C"], name="conv0", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                            strides=[1, 1], dilations=[1, 1], group=1)
    add = helper.make_node("Add", ["C", "S"], ["Z"])  # unnamed: the loader calls it Add_1
    graph = helper.make_graph([conv, add], "add_conv", [x, skip], [z], [weight, bias],
                              value_info=[helper.make_tensor_value_info("C", TensorProto.FLOAT, ["N", 4, "H", "W"])])
    return model(graph)


def initializers():
    tensors = [
        numpy_helper.from_array(np.array([[1, -2, 3], [2**40, -(2**40), 0]], dtype=np.int64), "raw_i64"),
        helper.make_tensor("typed_i64", TensorProto.INT64, [4], [7, -7, 2**62, -(2**62)]),
        helper.make_tensor("typed_i32", TensorProto.INT32, [3], [-5, 0, 2**31 - 1]),
        helper.make_tensor("typed_i8", TensorProto.INT8, [3], [-128, 5, 127]),
        helper.make_tensor("typed_u8", TensorProto.UINT8, [2], [0, 255]),
        helper.make_tensor("typed_u16", TensorProto.UINT16, [2], [1, 65535]),
        helper.make_tensor("typed_bool", TensorProto.BOOL, [3], [True, False, True]),
        helper.make_tensor("typed_u64", TensorProto.UINT64, [2], [3, 2**63 - 1]),
        helper.make_tensor("typed_u32", TensorProto.UINT32, [2], [4, 2**32 - 1]),
        helper.make_tensor("typed_f32", TensorProto.FLOAT, [2, 2], [0.5, -1.25, 3.0, 1e-3]),
        helper.make_tensor("typed_f64", TensorProto.DOUBLE, [3], [0.1, -2.5, 1e300]),
        numpy_helper.from_array(np.array([1.5, -2.0, 65504.0, 6.1035156e-05], dtype=np.float16), "raw_f16"),
        helper.make_tensor("typed_f16", TensorProto.FLOAT16, [3], np.array([0.5, -3.0, 1024.0], dtype=np.float16)),
        helper.make_tensor("typed_bf16", TensorProto.BFLOAT16, [3], [1.0, -2.5, 3.140625]),
        numpy_helper.from_array(np.array([True, False, False, True], dtype=np.bool_), "raw_bool"),
        numpy_helper.from_array(np.array([-3, 200], dtype=np.int16), "raw_i16"),
        numpy_helper.from_array(np.array([[0.25, -0.75]], dtype=np.float64), "raw_f64"),
        numpy_helper.from_array(np.array(42, dtype=np.int64), "scalar_i64"),
        numpy_helper.from_array(np.zeros((0, 3), dtype=np.float32), "empty_f32"),
        helper.make_tensor("strings", TensorProto.STRING, [2], [b"ab", b"xyz"]),
    ]
    nodes = [helper.make_node("Identity", [t.name], [t.name + "_out"]) for t in tensors]
    outputs = [helper.make_tensor_value_info(t.name + "_out", t.data_type, list(t.dims)) for t in tensors]
    graph = helper.make_graph(nodes, "initializers", [], outputs, tensors)
    return model(graph)


def every_attribute():
    """A Constant plus one node of a custom domain carrying every attribute kind."""
    value = helper.make_tensor("value", TensorProto.INT64, [3], [1, 2, 3])
    constant = helper.make_node("Constant", [], ["k"], name="const", value=value)
    body = helper.make_graph([helper.make_node("Neg", ["a"], ["b"])], "attr_body",
                             [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
                             [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])])
    sparse = helper.make_sparse_tensor(helper.make_tensor("sp_values", TensorProto.FLOAT, [2], [1.0, 2.0]),
                                       helper.make_tensor("sp_indices", TensorProto.INT64, [2], [1, 5]), [2, 4])
    attrs = [
        helper.make_attribute("f", 0.25),
        helper.make_attribute("i", -9),
        helper.make_attribute("s", b"hello"),
        helper.make_attribute("t", helper.make_tensor("t", TensorProto.FLOAT, [2], [1.5, 2.5])),
        helper.make_attribute("g", body),
        helper.make_attribute("floats", [1.0, -0.5]),
        helper.make_attribute("ints", [3, -4, 2**40]),
        helper.make_attribute("strings", [b"x", b"yz"]),
        helper.make_attribute("tensors", [helper.make_tensor("t0", TensorProto.INT32, [1], [7]),
                                          helper.make_tensor("t1", TensorProto.DOUBLE, [2], [0.5, 1.5])]),
        helper.make_attribute("graphs", [body, body]),
        helper.make_attribute("sparse", sparse),
        helper.make_attribute("tp", helper.make_tensor_type_proto(TensorProto.INT8, [2, "K"])),
    ]
    custom = helper.make_node("AllAttrs", ["k"], ["y"], name="all_attrs", domain="com.example")
    custom.attribute.extend(attrs)
    graph = helper.make_graph([constant, custom], "every_attribute", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M"])])
    return model(graph, extra_opsets=[("com.example", 1)])


def if_model():
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", 2])
    then_graph = helper.make_graph([helper.make_node("Relu", ["x"], ["t_out"])], "then_branch", [],
                                   [helper.make_tensor_value_info("t_out", TensorProto.FLOAT, ["B", 2])])
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["n"]), helper.make_node("Abs", ["n"], ["e_out"], name="abs")],
        "else_branch", [], [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, ["B", 2])])
    node = helper.make_node("If", ["cond"], ["y"], then_branch=then_graph, else_branch=else_graph)
    return model(helper.make_graph([node], "if_model", [cond, x], [y]))


def loop_model():
    trip = helper.make_tensor_value_info("trip", TensorProto.INT64, [])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    acc = helper.make_tensor_value_info("acc", TensorProto.FLOAT, [3])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["acc_in", "acc_in"], ["acc_out"]),
         helper.make_node("Unsqueeze", ["acc_out", "axes"], ["scan_out"])],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, [1, 3])],
        [helper.make_tensor("axes", TensorProto.INT64, [1], [0])])
    node = helper.make_node("Loop", ["trip", "cond", "acc"], ["final", "scans"], name="loop", body=body)
    graph = helper.make_graph([node], "loop_model", [trip, cond, acc],
                              [helper.make_tensor_value_info("final", TensorProto.FLOAT, [3]),
                               helper.make_tensor_value_info("scans", TensorProto.FLOAT, ["T", 1, 3])])
    return model(graph)


def function_model():
    inner = [helper.make_node("Mul", ["a", "b"], ["ab"]),
             helper.make_node("Add", ["ab", "a"], ["out"], name="fadd")]
    function = helper.make_function("custom", "MulAdd", ["a", "b"], ["out"], inner,
                                    [helper.make_opsetid("", 13)], attributes=["scale"])
    # attribute_proto (field 11, IR 9) postdates onnx 1.12: append it as raw
    # bytes; python's protobuf keeps unknown fields through a round trip.
    default = helper.make_attribute("alpha", 0.5).SerializeToString()
    extra = bytes([0x5A]) + encode_varint(len(default)) + default
    patched = onnx.FunctionProto()
    patched.ParseFromString(function.SerializeToString() + extra)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N"])
    call = helper.make_node("MulAdd", ["x", "x"], ["y"], name="call", domain="custom", scale=2.0)
    m = model(helper.make_graph([call], "function_model", [x], [y]), extra_opsets=[("custom", 1)],
              functions=[patched])
    return m


def encode_varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def external_model():
    first = numpy_helper.from_array(np.arange(6, dtype=np.int64).reshape(2, 3) * 11, "ext_i64")
    second = numpy_helper.from_array(np.array([0.5, 1.5, -2.25], dtype=np.float32), "ext_f32")
    nodes = [helper.make_node("Identity", ["ext_i64"], ["o1"]), helper.make_node("Identity", ["ext_f32"], ["o2"])]
    graph = helper.make_graph(nodes, "external_model", [],
                              [helper.make_tensor_value_info("o1", TensorProto.INT64, [2, 3]),
                               helper.make_tensor_value_info("o2", TensorProto.FLOAT, [3])], [first, second])
    return model(graph)  # main() saves its tensors to external.bin


def types_model():
    seq = helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, ["N", 2])
    opt_type = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.INT64, [3]))
    opt = helper.make_value_info("opt", opt_type)
    opt_seq = helper.make_value_info("opt_seq", helper.make_optional_type_proto(
        helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))))
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N", 2])
    b = helper.make_tensor_value_info("b", TensorProto.INT64, [3])
    nodes = [helper.make_node("SequenceConstruct", ["a", "a"], ["seq"]),
             helper.make_node("Optional", ["b"], ["opt"]),
             helper.make_node("SequenceLength", ["seq"], ["len"])]
    graph = helper.make_graph(nodes, "types_model", [a, b],
                              [helper.make_tensor_value_info("len", TensorProto.INT64, []), opt],
                              value_info=[seq, opt_seq])
    return model(graph, opset=15)


# ---------------------------------------------------------------- expected.json

def type_json(tp):
    which = tp.WhichOneof("value")
    if which in ("tensor_type", "sparse_tensor_type"):
        t = getattr(tp, which)
        shape = None
        if t.HasField("shape"):
            shape = []
            for d in t.shape.dim:
                kind = d.WhichOneof("value")
                shape.append(d.dim_value if kind == "dim_value" else d.dim_param if kind == "dim_param" else None)
        return {"kind": "tensor" if which == "tensor_type" else "sparse_tensor", "elem_type": t.elem_type,
                "shape": shape}
    if which in ("sequence_type", "optional_type"):
        return {"kind": which.split("_")[0], "elem": type_json(getattr(tp, which).elem_type)}
    if which == "map_type":
        return {"kind": "map", "key_type": tp.map_type.key_type, "elem": type_json(tp.map_type.value_type)}
    return {"kind": "unknown"}


def value_info_json(v):
    return {"name": v.name, "type": type_json(v.type)}


def tensor_json(t):
    out = {"name": t.name, "dims": list(t.dims), "data_type": t.data_type}
    if t.data_type != TensorProto.STRING:
        out["values"] = numpy_helper.to_array(t, OUT).astype(np.float64 if t.data_type in (
            TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16) else np.int64).flatten().tolist()
        out["storage"] = ("external" if t.data_location == TensorProto.EXTERNAL else
                          "raw" if t.HasField("raw_data") else "typed")
    return out


def attribute_json(a):
    out = {"name": a.name, "type": a.type}
    if a.type == onnx.AttributeProto.FLOAT:
        out["f"] = a.f
    elif a.type == onnx.AttributeProto.INT:
        out["i"] = a.i
    elif a.type == onnx.AttributeProto.STRING:
        out["s"] = a.s.decode()
    elif a.type == onnx.AttributeProto.TENSOR:
        out["t"] = tensor_json(a.t)
    elif a.type == onnx.AttributeProto.GRAPH:
        out["g"] = graph_json(a.g)
    elif a.type == onnx.AttributeProto.FLOATS:
        out["floats"] = list(a.floats)
    elif a.type == onnx.AttributeProto.INTS:
        out["ints"] = list(a.ints)
    elif a.type == onnx.AttributeProto.STRINGS:
        out["strings"] = [s.decode() for s in a.strings]
    elif a.type == onnx.AttributeProto.TENSORS:
        out["tensors"] = [tensor_json(t) for t in a.tensors]
    elif a.type == onnx.AttributeProto.GRAPHS:
        out["graphs"] = [graph_json(g) for g in a.graphs]
    elif a.type == onnx.AttributeProto.SPARSE_TENSOR:
        out["sparse"] = {"name": a.sparse_tensor.values.name, "dims": list(a.sparse_tensor.dims),
                         "data_type": a.sparse_tensor.values.data_type}
    elif a.type == onnx.AttributeProto.TYPE_PROTO:
        out["tp"] = type_json(a.tp)
    return out


def node_json(n):
    return {"name": n.name, "op_type": n.op_type, "domain": n.domain, "inputs": list(n.input),
            "outputs": list(n.output), "attributes": [attribute_json(a) for a in n.attribute]}


def graph_json(g):
    return {"name": g.name, "nodes": [node_json(n) for n in g.node],
            "initializers": [tensor_json(t) for t in g.initializer],
            "inputs": [value_info_json(v) for v in g.input], "outputs": [value_info_json(v) for v in g.output],
            "value_info": [value_info_json(v) for v in g.value_info]}


def model_json(m):
    return {"ir_version": m.ir_version, "producer_name": m.producer_name, "producer_version": m.producer_version,
            "opset_imports": {o.domain: o.version for o in m.opset_import}, "graph": graph_json(m.graph),
            "functions": [{"name": f.name, "domain": f.domain, "inputs": list(f.input), "outputs": list(f.output),
                           "attributes": list(f.attribute), "nodes": [node_json(n) for n in f.node],
                           "opset_imports": {o.domain: o.version for o in f.opset_import}} for f in m.functions]}


def main():
    os.makedirs(OUT, exist_ok=True)
    builders = {"add_conv": add_conv, "initializers": initializers, "every_attribute": every_attribute,
                "if": if_model, "loop": loop_model, "function": function_model, "external": external_model,
                "types": types_model}
    expected = {}
    for name, build in builders.items():
        m = build()
        checker.check_model(m)
        path = os.path.join(OUT, name + ".onnx")
        if name == "external":
            if os.path.exists(os.path.join(OUT, "external.bin")):
                os.remove(os.path.join(OUT, "external.bin"))
            onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                            location="external.bin", size_threshold=0)
        else:
            onnx.save_model(m, path)
        # Read the saved file back with ONNX's own parser for the oracle
        # (external tensors stay external; to_array reads their values).
        loaded = onnx.load(path, load_external_data=False)
        expected[name] = model_json(loaded)
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(builders)} models to {OUT} ({total} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
