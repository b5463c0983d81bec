#!/usr/bin/python3
"""Writes a synthetic ONNX graph of about N nodes for fakeprop's benchmarks.

The graph is a chain of residual blocks over x[batch, seq, D] whose batch and
seq are dim_params (symbolic). Each block has 9 nodes:

    m = MatMul(h, W1)            [batch, seq, D]
    a = Add(m, b1)
    r = Reshape(a, [0, -1, H, D/H])   -1 resolves to seq (needs batch*seq*D / (batch*H*D/H))
    t = Transpose(r, perm=[0, 2, 1, 3])
    u = Transpose(t, perm=[0, 2, 1, 3])
    v = Reshape(u, [0, 0, D])
    c = Concat(v, h, axis=-1)    [batch, seq, 2D]
    n = MatMul(c, W2)
    h2 = Add(n, h)               residual

Weights are shared by every block (the file stays small; the benchmark is
about node count). Blocks take their own shape constants as Constant-free
initializers so every Reshape reads known data, as exported models do.

With --fx it writes the same blocks as a JSON FX graph (fakeprop.fx/1) of
ATen calls instead: matmul, add, view (batch read once through sym_size),
transpose, cat; no numpy or onnx needed.

    /usr/bin/python3 scripts/bench/gen_synthetic.py --nodes 100000 -o synth_100k.onnx
    /usr/bin/python3 scripts/bench/gen_synthetic.py --fx --nodes 100000 -o synth_100k.fx.json
"""
import argparse
import json
import sys

NODES_PER_BLOCK = 9


def build(num_nodes, d=64, heads=4, opset=13):
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    blocks = max(1, num_nodes // NODES_PER_BLOCK)
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((d, d)).astype(np.float32), "W1"),
        numpy_helper.from_array(rng.standard_normal((d,)).astype(np.float32), "b1"),
        numpy_helper.from_array(rng.standard_normal((2 * d, d)).astype(np.float32), "W2"),
        numpy_helper.from_array(np.array([0, -1, heads, d // heads], dtype=np.int64), "split_heads"),
        numpy_helper.from_array(np.array([0, 0, d], dtype=np.int64), "merge_heads"),
    ]
    nodes = []
    h = "x"
    mk = helper.make_node
    for i in range(blocks):
        p = "b%d_" % i
        nodes.append(mk("MatMul", [h, "W1"], [p + "m"], name=p + "matmul1"))
        nodes.append(mk("Add", [p + "m", "b1"], [p + "a"], name=p + "add1"))
        nodes.append(mk("Reshape", [p + "a", "split_heads"], [p + "r"], name=p + "split"))
        nodes.append(mk("Transpose", [p + "r"], [p + "t"], name=p + "transpose1", perm=[0, 2, 1, 3]))
        nodes.append(mk("Transpose", [p + "t"], [p + "u"], name=p + "transpose2", perm=[0, 2, 1, 3]))
        nodes.append(mk("Reshape", [p + "u", "merge_heads"], [p + "v"], name=p + "merge"))
        nodes.append(mk("Concat", [p + "v", h], [p + "c"], name=p + "concat", axis=-1))
        nodes.append(mk("MatMul", [p + "c", "W2"], [p + "n"], name=p + "matmul2"))
        nodes.append(mk("Add", [p + "n", h], [p + "h"], name=p + "residual"))
        h = p + "h"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d])
    y = helper.make_tensor_value_info(h, TensorProto.FLOAT, ["batch", "seq", d])
    graph = helper.make_graph(nodes, "synthetic_%d" % len(nodes), [x], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="fakeprop-bench")
    model.ir_version = 8
    return model


def write_fx(num_nodes, out, d=64, heads=4):
    """Streams the JSON FX graph to `out`, one node per line; returns the node count."""
    blocks = max(1, num_nodes // NODES_PER_BLOCK)
    count = 0

    def node(name, op, target=None, args=None, val=None):
        nonlocal count
        n = {"name": name, "op": op}
        if target is not None:
            n["target"] = target
        if args is not None:
            n["args"] = args
        if val is not None:
            n["val"] = val
        out.write((",\n" if count else "") + json.dumps(n, separators=(",", ":")))
        count += 1

    def ref(name):
        return {"node": name}

    out.write('{"format": "fakeprop.fx/1", "nodes": [\n')
    node("x", "placeholder", val={"shape": ["s0", "s1", d], "dtype": "float32"})
    node("W1", "placeholder", val={"shape": [d, d], "dtype": "float32"})
    node("b1", "placeholder", val={"shape": [d], "dtype": "float32"})
    node("W2", "placeholder", val={"shape": [2 * d, d], "dtype": "float32"})
    node("batch", "call_function", "aten.sym_size.int", [ref("x"), 0])
    node("seq", "call_function", "aten.sym_size.int", [ref("x"), 1])
    h = "x"
    for i in range(blocks):
        p = "b%d_" % i
        node(p + "m", "call_function", "aten.matmul.default", [ref(h), ref("W1")])
        node(p + "a", "call_function", "aten.add.Tensor", [ref(p + "m"), ref("b1")])
        node(p + "r", "call_function", "aten.view.default", [ref(p + "a"), [ref("batch"), -1, heads, d // heads]])
        node(p + "t", "call_function", "aten.transpose.int", [ref(p + "r"), 1, 2])
        node(p + "u", "call_function", "aten.transpose.int", [ref(p + "t"), 1, 2])
        node(p + "v", "call_function", "aten.view.default", [ref(p + "u"), [ref("batch"), ref("seq"), d]])
        node(p + "c", "call_function", "aten.cat.default", [[ref(p + "v"), ref(h)], -1])
        node(p + "n", "call_function", "aten.matmul.default", [ref(p + "c"), ref("W2")])
        node(p + "h", "call_function", "aten.add.Tensor", [ref(p + "n"), ref(h)])
        h = p + "h"
    node("output", "output", "output", [[ref(h)]])
    out.write("\n]}\n")
    return count


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, required=True, help="approximate node count (a multiple of %d)" % NODES_PER_BLOCK)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--fx", action="store_true", help="write a JSON FX graph instead of ONNX")
    args = ap.parse_args(argv)
    if args.fx:
        with open(args.output, "w") as f:
            count = write_fx(args.nodes, f)
        print("wrote %s: %d nodes" % (args.output, count), file=sys.stderr)
        return
    model = build(args.nodes)
    with open(args.output, "wb") as f:
        f.write(model.SerializeToString())
    print("wrote %s: %d nodes" % (args.output, len(model.graph.node)), file=sys.stderr)


if __name__ == "__main__":
    main()
