"""Writes the hostile and broken inputs of testdata/lit/cli/hostile.test into OUTDIR.

Run with Debian's /usr/bin/python3 (python3-onnx). The models are built with
onnx.helper and never checked: most are invalid on purpose.
"""
import json
import os
import sys

import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64
INT64_MAX = 2**63 - 1


def save(name, nodes, inputs, outputs, initializers=(), value_info=(), functions=(), opset=17, extra_opsets=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers), value_info=list(value_info))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in extra_opsets]
    model = helper.make_model(graph, opset_imports=opsets, functions=list(functions))
    model.ir_version = 8
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def tensor(name, dims, dtype=FLOAT):
    return helper.make_tensor_value_info(name, dtype, dims)


def ints(name, values, dims=None):
    return helper.make_tensor(name, INT64, [len(values)] if dims is None else dims, values)


x23 = tensor("x", [2, 3])

# Two nodes feeding each other.
save("cycle", [helper.make_node("Relu", ["b"], ["a"], name="first"), helper.make_node("Relu", ["a"], ["b"], name="second")],
     [x23], [tensor("b", [2, 3])])
# One value produced twice.
save("duplicate", [helper.make_node("Relu", ["x"], ["y"], name="one"), helper.make_node("Neg", ["x"], ["y"], name="two")],
     [x23], [tensor("y", [2, 3])])
# A node output named like a graph input (and an initializer).
save("reuses_input", [helper.make_node("Relu", ["x"], ["x"], name="again")], [x23], [tensor("x", [2, 3])])
# An initializer that contradicts the declared graph input of its name.
save("initializer_conflict", [helper.make_node("Relu", ["x"], ["y"], name="relu")], [x23], [tensor("y", [4])],
     initializers=[helper.make_tensor("x", FLOAT, [4], [1.0, 2.0, 3.0, 4.0])])
# An input nobody produces.
save("dangling", [helper.make_node("Add", ["x", "ghost"], ["y"], name="adder")], [x23], [tensor("y", [2, 3])])
# Attributes of the wrong type: Transpose's perm as a string, Concat's axis as a float.
save("wrong_attr_perm", [helper.make_node("Transpose", ["x"], ["y"], name="transpose", perm="1,0")], [x23],
     [tensor("y", [3, 2])])
save("wrong_attr_axis", [helper.make_node("Concat", ["x", "x"], ["y"], name="concat", axis=1.5)], [x23],
     [tensor("y", [2, 6])])
# Negative dims: an initializer's dims (invalid), an input's dim_value -1 (exporters' "unknown").
neg = TensorProto()
neg.name, neg.data_type = "w", FLOAT
neg.dims.extend([-2, 3])
save("negative_dim_initializer", [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [x23], [tensor("y", [2, 3])],
     initializers=[neg])
neg_input = tensor("x", [2, 3])
neg_input.type.tensor_type.shape.dim[0].dim_value = -1
save("negative_dim_input", [helper.make_node("Relu", ["x"], ["y"], name="relu")], [neg_input], [tensor("y", None)])
# Dims near 2^63: the element count overflows int64 (Flatten multiplies the dims).
save("huge_dims", [helper.make_node("Flatten", ["x"], ["y"], name="flatten", axis=0)], [tensor("x", [INT64_MAX, 4])],
     [tensor("y", None)])
big = TensorProto()
big.name, big.data_type = "w", FLOAT
big.dims.extend([2**62, 16])
save("huge_initializer", [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [x23], [tensor("y", None)],
     initializers=[big])
# value_info that contradicts inference: Relu keeps [2, 3], the file claims [4, 3].
save("value_info_conflict", [helper.make_node("Relu", ["x"], ["y"], name="relu"), helper.make_node("Neg", ["y"], ["z"], name="neg")],
     [x23], [tensor("z", [2, 3])], value_info=[tensor("y", [4, 3])])
# An input name of 5000 characters (the subject of a source-spec regex).
long_name = "a" * 5000
save("long_name", [helper.make_node("Relu", [long_name], ["y"], name="relu")], [tensor(long_name, [2, 3])],
     [tensor("y", [2, 3])])
backtrack_name = "a" * 3000
save("backtrack_name", [helper.make_node("Relu", [backtrack_name], ["y"], name="relu")], [tensor(backtrack_name, [2, 3])],
     [tensor("y", [2, 3])])
# External data whose file is missing, read because Reshape needs the shape.
shape = TensorProto()
shape.name, shape.data_type = "shape", INT64
shape.dims.append(2)
shape.data_location = TensorProto.EXTERNAL
entry = shape.external_data.add()
entry.key, entry.value = "location", "missing_weights.bin"
save("external_missing", [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")], [x23], [tensor("y", None)],
     initializers=[shape])


def nested_if(depth):
    """An If whose then-branch holds an If ... `depth` levels deep."""
    inner = helper.make_graph([helper.make_node("Identity", ["x"], ["r0"], name="leaf")], "g0", [], [tensor("r0", [2, 3])])
    leaf = inner
    for level in range(1, depth + 1):
        node = helper.make_node("If", ["c"], ["r%d" % level], name="if%d" % level, then_branch=inner, else_branch=leaf)
        inner = helper.make_graph([node], "g%d" % level, [], [tensor("r%d" % level, [2, 3])])
    return inner.node


cond = tensor("c", [], TensorProto.BOOL)
# Subgraphs 40 deep: loads (the loader allows 64 levels of nesting), refused by the interpreter (32).
save("deep_subgraphs", nested_if(40), [x23, cond], [tensor("r40", [2, 3])])
# 70 deep: refused by the loader.
save("deep_protobuf", nested_if(70), [x23, cond], [tensor("r70", [2, 3])])
# A function that calls itself.
rec = helper.make_function("custom", "Again", ["a"], ["b"], [helper.make_node("Again", ["a"], ["b"], domain="custom")],
                           [helper.make_opsetid("", 17), helper.make_opsetid("custom", 1)])
save("recursive_function", [helper.make_node("Again", ["x"], ["y"], name="call", domain="custom")], [x23], [tensor("y", None)],
     functions=[rec], extra_opsets=["custom"])
# Loop with a trip count of 2^63 - 1 whose carried value grows by 4 rows per iteration.
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Concat", ["v_in", "four"], ["v_out"], axis=0),
     helper.make_node("Identity", ["i"], ["scan"])],
    "body", [tensor("i", [], INT64), tensor("cond_in", [], TensorProto.BOOL), tensor("v_in", None)],
    [tensor("cond_out", [], TensorProto.BOOL), tensor("v_out", None), tensor("scan", [], INT64)],
    initializer=[helper.make_tensor("four", FLOAT, [4, 3], [0.0] * 12)])
save("loop_huge", [helper.make_node("Loop", ["trips", "true", "x"], ["v", "iters"], name="loop", body=body)], [x23],
     [tensor("v", None), tensor("iters", None)],
     initializers=[ints("trips", [INT64_MAX], []), helper.make_tensor("true", TensorProto.BOOL, [], [True])])
# Expression growth: n -> n//2 + n//3 on the shape of x, 24 times, then a tensor of that size.
nodes, prev = [helper.make_node("Shape", ["x"], ["n0"], name="shape")], "n0"
inits = [ints("two", [2]), ints("three", [3])]
for k in range(1, 25):
    nodes += [helper.make_node("Div", [prev, "two"], ["h%d" % k], name="half%d" % k),
              helper.make_node("Div", [prev, "three"], ["t%d" % k], name="third%d" % k),
              helper.make_node("Add", ["h%d" % k, "t%d" % k], ["n%d" % k], name="grow%d" % k)]
    prev = "n%d" % k
nodes.append(helper.make_node("ConstantOfShape", [prev], ["y"], name="fill"))
save("expr_blowup", nodes, [tensor("x", ["n"])], [tensor("y", None)], initializers=inits)

# A float initializer whose value sits in int64_data (onnx's checker rejects it).
misplaced = TensorProto()
misplaced.name = "delta"
misplaced.data_type = FLOAT
misplaced.int64_data.extend([2])
save("misplaced_data", [helper.make_node("Range", ["start", "limit", "delta"], ["y"], name="range")],
     [tensor("start", []), tensor("limit", [])], [tensor("y", None)], initializers=[misplaced])

# ---- JSON FX graphs ----
with open(os.path.join(out, "deep.json"), "w") as f:
    f.write('{"format": "fakeprop.fx/1", "nodes": [{"name": "a", "op": "placeholder", "val": ' + "[" * 100000 + "]" * 100000 + "}]}")
# The same growth with SymInt arithmetic: s -> s//2 + s//3, 24 times.
fx_nodes = [{"name": "x", "op": "placeholder", "target": "x", "val": {"shape": ["s0"]}},
            {"name": "n0", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]}]
for k in range(1, 25):
    fx_nodes += [{"name": "h%d" % k, "op": "call_function", "target": "operator.floordiv", "args": [{"node": "n%d" % (k - 1)}, 2]},
                 {"name": "t%d" % k, "op": "call_function", "target": "operator.floordiv", "args": [{"node": "n%d" % (k - 1)}, 3]},
                 {"name": "n%d" % k, "op": "call_function", "target": "operator.add", "args": [{"node": "h%d" % k}, {"node": "t%d" % k}]}]
fx_nodes += [{"name": "y", "op": "call_function", "target": "aten.empty.memory_format", "args": [[{"node": "n24"}]]},
             {"name": "output", "op": "output", "target": "output", "args": [{"node": "y"}]}]
with open(os.path.join(out, "expr_blowup.json"), "w") as f:
    json.dump({"format": "fakeprop.fx/1", "symbols": {"s0": {"hint": 1000}}, "nodes": fx_nodes}, f)
