"""Writes the models of testdata/lit/cli/node_runner.test into OUTDIR: for each
case, an ONNX model and a JSON FX graph that fail the same way, so the test
shows that both front ends record the failure alike.

Run with Debian's /usr/bin/python3 (python3-onnx).
"""
import json
import os
import sys

from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64
BIG = 2**62


def save_onnx(name, nodes, inputs, outputs, initializers=(), value_info=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers), value_info=list(value_info))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def save_fx(name, nodes):
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump({"format": "fakeprop.fx/1", "nodes": nodes}, f, indent=1)


def placeholder(name, shape):
    return {"name": name, "op": "placeholder", "target": name, "val": {"shape": shape, "dtype": "float32"}}


def call(name, target, args, val=None):
    node = {"name": name, "op": "call_function", "target": target, "args": args}
    if val is not None:
        node["val"] = val
    return node


def output(name):
    return {"name": "output", "op": "output", "target": "output", "args": [{"node": name}]}


# A node whose sizes overflow 64 bits: x has 2^62 elements, repeated 4 times.
save_onnx("overflow", [helper.make_node("Tile", ["x", "repeats"], ["y"], name="tile")],
          [helper.make_tensor_value_info("x", FLOAT, [BIG])], [helper.make_tensor_value_info("y", FLOAT, None)],
          initializers=[helper.make_tensor("repeats", INT64, [1], [4])])
save_fx("overflow", [placeholder("x", [str(BIG)]), call("tile", "aten.repeat.default", [{"node": "x"}, [4]]),
                     output("tile")])

# A node whose rule fails (shapes that do not broadcast) falls back to what
# the graph says about it: ONNX's declared value_info, FX's example meta; the
# next node runs on that.
save_onnx("fallback",
          [helper.make_node("Add", ["a", "b"], ["sum"], name="add"), helper.make_node("Relu", ["sum"], ["y"], name="relu")],
          [helper.make_tensor_value_info("a", FLOAT, [2, 3]), helper.make_tensor_value_info("b", FLOAT, [4, 3])],
          [helper.make_tensor_value_info("y", FLOAT, None)],
          value_info=[helper.make_tensor_value_info("sum", FLOAT, [2, "n"])])
save_fx("fallback", [placeholder("a", ["2", "3"]), placeholder("b", ["4", "3"]),
                     call("add", "aten.add.Tensor", [{"node": "a"}, {"node": "b"}], {"shape": ["2", "n"], "dtype": "float32"}),
                     call("relu", "aten.relu.default", [{"node": "add"}]), output("relu")])
