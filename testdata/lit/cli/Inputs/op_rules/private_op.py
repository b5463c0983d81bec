"""private_op.py OUT.onnx: x[n, 3] -> com.acme::Tile2(reps=3) -> Relu -> y, a private-domain op that
no runtime knows (its rule comes from an --op-rules file), then a Split of the tiled rows."""
import sys

import onnx
from onnx import TensorProto, helper

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
nodes = [
    helper.make_node("Tile2", ["x"], ["t"], name="tile", domain="com.acme", reps=3),
    helper.make_node("Relu", ["t"], ["y"], name="relu"),
]
graph = helper.make_graph(nodes, "private_op", [x], [y])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.acme", 1)])
onnx.save(model, sys.argv[1])
