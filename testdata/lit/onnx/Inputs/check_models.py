"""Writes the models of check.test's contract cases into OUTDIR: x[batch, 4] through a Relu
(relu.onnx), and the same after an edit that regroups the rows in pairs (pairs.onnx: a Reshape
to [-1, 2, 4] and back), which needs an even batch: without hints, a runtime assert.

Run with Debian's /usr/bin/python3 (python3-onnx).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(name, nodes, initializers=()):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    save(model, os.path.join(out, name + ".onnx"))


write("relu", [helper.make_node("Relu", ["x"], ["y"])])
ints = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)  # noqa: E731
write("pairs", [helper.make_node("Reshape", ["x", "pairs"], ["p"]), helper.make_node("Relu", ["p"], ["r"]),
                helper.make_node("Reshape", ["r", "rows"], ["y"])],
      [ints("pairs", [-1, 2, 4]), ints("rows", [-1, 4])])
