"""Writes the models of testdata/lit/onnx/branch_facts.test into OUTDIR: what a node inside an If
branch learns is used by the later nodes of that branch (the cache branch of optimum's merged
decoders: a Slice `position_bias[:, :, -seq:, :]` then an Add that makes its length `seq`).

Run with Debian's /usr/bin/python3 (python3-onnx).
"""
import os
import sys

from onnx import TensorProto, helper, save

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
BIG = helper.make_tensor("big", INT64, [1], [2**62])


def write(name, nodes, inputs, outputs):
    graph = helper.make_graph(nodes, name, inputs, outputs, [BIG])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    save(model, os.path.join(out, name + ".onnx"))


def slice_add(pre):
    """x[-len(y):] + y: the Slice's length is unbacked (n may be 0), the Add makes it n."""
    return [helper.make_node("Shape", ["y"], [pre + "n"]),
            helper.make_node("Neg", [pre + "n"], [pre + "neg"]),
            helper.make_node("Slice", ["x", pre + "neg", "big"], [pre + "s"]),
            helper.make_node("Add", [pre + "s", "y"], [pre + "o"])]


x = helper.make_tensor_value_info("x", FLOAT, ["a"])
y = helper.make_tensor_value_info("y", FLOAT, ["n"])
c = helper.make_tensor_value_info("c", BOOL, [])
write("flat", slice_add(""), [x, y], [helper.make_tensor_value_info("o", FLOAT, None)])
then = helper.make_graph(slice_add("t_"), "then", [], [helper.make_tensor_value_info("t_o", FLOAT, None)])
other = helper.make_graph([helper.make_node("Identity", ["y"], ["e_o"])], "else", [],
                          [helper.make_tensor_value_info("e_o", FLOAT, None)])
write("in_if", [helper.make_node("If", ["c"], ["o"], then_branch=then, else_branch=other)], [x, y, c],
      [helper.make_tensor_value_info("o", FLOAT, None)])
