"""Writes the models of testdata/lit/onnx/schema_checks.test into OUTDIR: one
node each that breaks its ONNX schema (an element type the op does not
allow, two inputs of one type variable with different types, too few
inputs, an attribute of the wrong type) and one that leaves an attribute to
the schema's default.

Run with Debian's /usr/bin/python3 (python3-onnx).
"""
import os
import sys

from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FLOAT, INT64, STRING = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING


def save(name, nodes, inputs, outputs, opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


save("string_reduce_sum", [helper.make_node("ReduceSum", ["x"], ["y"], name="sum")],
     [tensor("x", STRING, [2, 3])], [tensor("y", STRING, None)])
save("mixed_add", [helper.make_node("Add", ["x", "i"], ["y"], name="add")],
     [tensor("x", FLOAT, [2]), tensor("i", INT64, [2])], [tensor("y", FLOAT, None)])
save("one_input_add", [helper.make_node("Add", ["x"], ["y"], name="add")],
     [tensor("x", FLOAT, [2])], [tensor("y", FLOAT, None)])
save("float_keepdims", [helper.make_node("ReduceSum", ["x"], ["y"], name="sum", keepdims=0.5)],
     [tensor("x", FLOAT, [2, 3])], [tensor("y", FLOAT, None)])
# keepdims absent: the schema's default 1 keeps the reduced dims; Softmax's
# axis defaults to 1 before 13, so an input of rank 1 is out of range at 11.
save("default_keepdims", [helper.make_node("ReduceSum", ["x"], ["y"], name="sum")],
     [tensor("x", FLOAT, [2, 3])], [tensor("y", FLOAT, None)])
save("softmax_11", [helper.make_node("Softmax", ["x"], ["y"], name="softmax")],
     [tensor("x", FLOAT, [4])], [tensor("y", FLOAT, None)], opset=11)
save("softmax_13", [helper.make_node("Softmax", ["x"], ["y"], name="softmax")],
     [tensor("x", FLOAT, [4])], [tensor("y", FLOAT, None)], opset=13)
