"""Writes the models of testdata/lit/onnx/unknown_rank.test into OUTDIR: values
whose rank is not known (a graph input without a shape, a Reshape to a shape
of unknown length) and what their readers still determine.

Run with Debian's /usr/bin/python3 (python3-onnx).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64


def write(name, nodes, inputs, outputs, initializers=(), opset=18):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    save(model, os.path.join(out, name + ".onnx"))


# x has no shape: Relu keeps float, Shape is 1-D of unknown length, Size a scalar, a Reshape to
# [2, -1] has rank 2, Gemm's C only has to broadcast, Cast's type is its attribute's.
write("unranked_input",
      [helper.make_node("Relu", ["x"], ["r"]),
       helper.make_node("Shape", ["r"], ["s"]),
       helper.make_node("Size", ["r"], ["n"]),
       helper.make_node("Reshape", ["r", "two_rows"], ["rows"]),
       helper.make_node("Gemm", ["a", "b", "r"], ["g"]),
       helper.make_node("Cast", ["r"], ["c"], to=INT64)],
      [helper.make_tensor_value_info("x", FLOAT, None), helper.make_tensor_value_info("a", FLOAT, [3, 5]),
       helper.make_tensor_value_info("b", FLOAT, [5, 4])],
      [helper.make_tensor_value_info(n, t, None) for n, t in
       [("r", FLOAT), ("s", INT64), ("n", INT64), ("rows", FLOAT), ("g", FLOAT), ("c", INT64)]],
      [numpy_helper.from_array(np.array([2, -1], np.int64), "two_rows")])

# A Reshape to a shape whose length is a symbol: the result's rank is unknown, its element type is not.
write("reshape_unknown_length",
      [helper.make_node("Reshape", ["x", "shape"], ["y"]), helper.make_node("Sigmoid", ["y"], ["z"])],
      [helper.make_tensor_value_info("x", FLOAT, [2, 3]), helper.make_tensor_value_info("shape", INT64, ["k"])],
      [helper.make_tensor_value_info("z", FLOAT, None)])

# BatchNormalization of an x of unknown rank: Y's rank is unknown, the running statistics keep C entries.
write("batch_norm_unranked",
      [helper.make_node("BatchNormalization", ["x", "scale", "b", "mean", "var"], ["y", "running_mean", "running_var"],
                        training_mode=1)],
      [helper.make_tensor_value_info("x", FLOAT, None)] +
      [helper.make_tensor_value_info(n, FLOAT, ["C"]) for n in ("scale", "b", "mean", "var")],
      [helper.make_tensor_value_info(n, FLOAT, None) for n in ("y", "running_mean", "running_var")])
