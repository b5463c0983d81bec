"""Writes the model of testdata/lit/onnx/annotate.test into OUTDIR: node names
as torch 2.x's exporter writes them ("/block/act/Relu"), an If whose branch
has values of its own, a node fakeprop has no rule for, and value_info the
exporter declared.

Run with Debian's /usr/bin/python3 (python3-onnx).
"""
import os
import sys

from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FLOAT, BOOL = TensorProto.FLOAT, TensorProto.BOOL

then_branch = helper.make_graph(
    [helper.make_node("Neg", ["/block/act/Relu_output_0"], ["inner_neg"], name="inner"),
     helper.make_node("Identity", ["inner_neg"], ["then_y"], name="then_id")],
    "then", [], [helper.make_tensor_value_info("then_y", FLOAT, None)])
else_branch = helper.make_graph(
    [helper.make_node("Identity", ["/block/act/Relu_output_0"], ["else_y"], name="else_id")],
    "else", [], [helper.make_tensor_value_info("else_y", FLOAT, None)])
nodes = [
    helper.make_node("Relu", ["x"], ["/block/act/Relu_output_0"], name="/block/act/Relu"),
    helper.make_node("Constant", [], ["/block/cond"], name="/block/Constant",
                     value=helper.make_tensor("c", BOOL, [1, 1], [True])),
    helper.make_node("If", ["/block/cond"], ["/block/If_output_0"], name="/block/If",
                     then_branch=then_branch, else_branch=else_branch),
    helper.make_node("Mystery", ["/block/If_output_0"], ["/block/mystery_out"], name="/block/Mystery",
                     domain="custom.domain"),
    helper.make_node("Sigmoid", ["/block/mystery_out"], ["y"], name="/head/Sigmoid"),
]
graph = helper.make_graph(
    nodes, "annotate",
    [helper.make_tensor_value_info("x", FLOAT, ["N", 3])],
    [helper.make_tensor_value_info("y", FLOAT, None)],
    value_info=[
        # What the exporter knew: less than fakeprop for Relu's output, more for Mystery's.
        helper.make_tensor_value_info("/block/act/Relu_output_0", FLOAT, [None, 3]),
        helper.make_tensor_value_info("/block/mystery_out", FLOAT, ["N", 3]),
    ])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("custom.domain", 1)])
model.ir_version = 8
with open(os.path.join(out, "annotate.onnx"), "wb") as f:
    f.write(model.SerializeToString())

# A sequence of unknown length (SequenceErase at an index of unknown value) whose elements share
# a graph input's dim_param: the one element written for all keeps it; a dim that differs
# between elements is left unknown.
seq_graph = helper.make_graph(
    [helper.make_node("SequenceConstruct", ["a", "b"], ["seq"], name="construct"),
     helper.make_node("SequenceErase", ["seq", "i"], ["rest"], name="erase")],
    "sequences",
    [helper.make_tensor_value_info("a", FLOAT, [2, "T"]), helper.make_tensor_value_info("b", FLOAT, [5, "T"]),
     helper.make_tensor_value_info("i", TensorProto.INT64, [])],
    [helper.make_tensor_sequence_value_info("rest", FLOAT, None)])
seq_model = helper.make_model(seq_graph, opset_imports=[helper.make_opsetid("", 17)])
seq_model.ir_version = 8
with open(os.path.join(out, "sequences.onnx"), "wb") as f:
    f.write(seq_model.SerializeToString())
