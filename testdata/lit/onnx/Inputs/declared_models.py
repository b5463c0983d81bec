"""Writes the models of testdata/lit/onnx/declared.test into OUTDIR: what a
model declares against what fakeprop is given or infers (an empty optional's
declared type, the IR version current onnx writes, a ConstantOfShape whose
value has no element type, initializers and outputs that contradict the
graph's inputs).

Run with Debian's /usr/bin/python3 (python3-onnx).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def write(name, nodes, inputs, outputs, initializers=(), opset=18, ir_version=8):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    save(model, os.path.join(out, name + ".onnx"))


seq_of_float = helper.make_sequence_type_proto(helper.make_tensor_type_proto(FLOAT, None))
write("empty_optional",
      [helper.make_node("Optional", [], ["none_t"], type=helper.make_tensor_type_proto(FLOAT, [2])),
       helper.make_node("Optional", [], ["none_s"], type=seq_of_float),
       helper.make_node("OptionalHasElement", ["none_t"], ["has"])],
      [],
      [helper.make_value_info("none_t", helper.make_optional_type_proto(helper.make_tensor_type_proto(FLOAT, [2]))),
       helper.make_value_info("none_s", helper.make_optional_type_proto(seq_of_float)),
       helper.make_tensor_value_info("has", BOOL, [])])

# onnx 1.23's helper.make_model writes IR 14.
write("ir14", [helper.make_node("Relu", ["x"], ["y"])],
      [helper.make_tensor_value_info("x", FLOAT, ["n", 3])], [helper.make_tensor_value_info("y", FLOAT, None)],
      ir_version=14)
write("ir15", [helper.make_node("Relu", ["x"], ["y"])],
      [helper.make_tensor_value_info("x", FLOAT, [3])], [helper.make_tensor_value_info("y", FLOAT, None)],
      ir_version=15)

undefined_value = TensorProto()
undefined_value.name = "value"
undefined_value.dims.append(1)
write("constant_of_shape_undefined", [helper.make_node("ConstantOfShape", ["s"], ["y"], value=undefined_value)],
      [helper.make_tensor_value_info("s", INT64, [2])], [helper.make_tensor_value_info("y", FLOAT, None)])

w = numpy_helper.from_array(np.zeros((3, 4), np.float32), "w")
write("initializer_conflict", [helper.make_node("Add", ["x", "w"], ["y"])],
      [helper.make_tensor_value_info("x", FLOAT, [3, 4]), helper.make_tensor_value_info("w", FLOAT, [5, 4])],
      [helper.make_tensor_value_info("y", FLOAT, None)], [w])
write("output_reuses_input", [helper.make_node("Relu", ["x"], ["x"])],
      [helper.make_tensor_value_info("x", FLOAT, [3])], [helper.make_tensor_value_info("x", FLOAT, None)])

# A sequence the model leaves untyped: -o writes its type.
write("sequence_output",
      [helper.make_node("SplitToSequence", ["x"], ["parts"], axis=0, keepdims=1)],
      [helper.make_tensor_value_info("x", FLOAT, [4, 3])],
      [helper.make_value_info("parts", helper.make_sequence_type_proto(helper.make_tensor_type_proto(FLOAT, None)))],
      opset=13)

# A graph output without a type: -o fills it in, as onnx's inference does.
untyped = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "untyped_output",
                            [helper.make_tensor_value_info("x", FLOAT, [2, "n"])], [])
untyped.output.add().name = "y"
model = helper.make_model(untyped, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
save(model, os.path.join(out, "untyped_output.onnx"))

# A dim_param that is no Python identifier: fakeprop's symbol has a name of its own, -o writes the model's.
write("spaced_dim_param", [helper.make_node("Relu", ["x"], ["y"])],
      [helper.make_tensor_value_info("x", FLOAT, ["Batch Size", 5])], [helper.make_tensor_value_info("y", FLOAT, None)])
# An expression over such a dim_param: -o writes it in the model's text, parenthesized.
write("expression_of_spaced_dim_param", [helper.make_node("Concat", ["x", "x"], ["y"], axis=0)],
      [helper.make_tensor_value_info("x", FLOAT, ["past_sequence_length + sequence_length", 4])],
      [helper.make_tensor_value_info("y", FLOAT, None)])

# A graph output declared [batch, "1", 4] (a size the exporter specialized, written as a dim_param) where
# the graph computes [batch, past + seq, 4], as optimum declares decoder-with-past logits.
write("output_declaration_conflict",
      [helper.make_node("Concat", ["past", "cur"], ["kv"], axis=1), helper.make_node("Relu", ["kv"], ["logits"])],
      [helper.make_tensor_value_info("past", FLOAT, ["batch", "past", 4]),
       helper.make_tensor_value_info("cur", FLOAT, ["batch", "seq", 4])],
      [helper.make_tensor_value_info("logits", FLOAT, ["batch", "1", 4])])
