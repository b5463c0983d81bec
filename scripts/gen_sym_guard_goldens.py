#!/usr/bin/env python3
"""testdata/sym_guards/cases.json: the guards current PyTorch adds when one ATen op runs on symbolic sizes.

The op-level FX goldens hold static sizes; these cases run ops on backed symbolic sizes under
FakeTensorMode with a ShapeEnv, as Dynamo's trace does, and record the guards each op adds (not
those of the inputs or of the prefix ops that shape them) and its output, beside a fakeprop.fx/1
graph of the same calls. testdata/sym_guards/test_sym_guards.py compares fakeprop's guards on each
graph with these, without torch. The ops run without the python dispatcher that Dynamo and export
trace with, so an op whose C++ composite kernel reads sizes() (constant_pad_nd) specializes here
where real tracing takes its decomposition; known_differences.txt tags those [deliberate].

    .venv-oracle/bin/python scripts/gen_sym_guard_goldens.py [-o testdata/sym_guards/cases.json]
"""
import argparse
import json
import os
import sys

import torch
from torch._dynamo.source import LocalSource
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

# Input patterns: each placeholder's example sizes (all dims dynamic) and the prefix calls that
# shape the operand `v` the op runs on. Args are literals or {"node": NAME}.
PATTERNS = {
    # a flat dynamic size viewed as [-1, 4]: a size that is a floor division, 0 and 1 both possible
    "view4": ({"x": [16]}, [("v", "aten.view.default", [{"node": "x"}, [-1, 4]])]),
    # two independent dynamic sizes
    "mat": ({"x": [6, 8]}, [("v", "aten.clone.default", [{"node": "x"}])]),
    # a transposed (non-contiguous) operand of two dynamic sizes
    "mat_t": ({"x": [6, 8]}, [("v", "aten.transpose.int", [{"node": "x"}, 0, 1])]),
}

V = {"node": "v"}
OPS = [
    ("relu", "aten.relu.default", [V]),
    ("neg", "aten.neg.default", [V]),
    ("exp", "aten.exp.default", [V]),
    ("clone", "aten.clone.default", [V]),
    ("add_scalar", "aten.add.Tensor", [V, 1]),
    ("mul_self", "aten.mul.Tensor", [V, V]),
    ("gt_scalar", "aten.gt.Scalar", [V, 0]),
    ("where_self", "aten.where.self", [{"node": "m"}, V, V]),
    ("sum_dim", "aten.sum.dim_IntList", [V, [1]]),
    ("sum_dim_keepdim", "aten.sum.dim_IntList", [V, [1], True]),
    ("sum_all", "aten.sum.default", [V]),
    ("mean_dim", "aten.mean.dim", [V, [1]]),
    ("amax", "aten.amax.default", [V, [1]]),
    ("prod_dim", "aten.prod.dim_int", [V, 1]),
    ("argmax", "aten.argmax.default", [V, 1]),
    ("max_dim", "aten.max.dim", [V, 1]),
    ("var", "aten.var.correction", [V, [1]]),
    ("logsumexp", "aten.logsumexp.default", [V, [1]]),
    ("vector_norm", "aten.linalg_vector_norm.default", [V, 2, [1]]),
    ("softmax", "aten._softmax.default", [V, 1, False]),
    ("log_softmax", "aten._log_softmax.default", [V, 0, False]),
    ("cumsum", "aten.cumsum.default", [V, 1]),
    ("transpose", "aten.transpose.int", [V, 0, 1]),
    ("permute", "aten.permute.default", [V, [1, 0]]),
    ("unsqueeze", "aten.unsqueeze.default", [V, 0]),
    ("cat_dim0", "aten.cat.default", [[V, V], 0]),
    ("cat_dim1", "aten.cat.default", [[V, V], 1]),
    ("slice_from1", "aten.slice.Tensor", [V, 0, 1]),
    ("select0", "aten.select.int", [V, 0, 0]),
    ("to_half", "aten._to_copy.default", [V], {"dtype": "float16"}),
    ("mm_vt", "aten.mm.default", [V, {"node": "vt"}]),
    ("reshape_flat", "aten.reshape.default", [V, [-1]]),
    ("expand_lead", "aten.expand.default", [{"node": "v1"}, [3, -1, -1]]),
    ("flip", "aten.flip.default", [V, [0]]),
    ("constant_pad", "aten.constant_pad_nd.default", [V, [1, 1]]),
    # the refs' own questions: keepdim over the other dim, the computation dtype, no identity,
    # abs and pow of an odd norm, the decompositions over dim 0, unsqueeze at the end
    ("sum_dim0_keepdim", "aten.sum.dim_IntList", [V, [0], True]),
    ("mean_dim_keepdim", "aten.mean.dim", [V, [1], True]),
    ("sum_dim_float64", "aten.sum.dim_IntList", [V, [1]], {"dtype": "float64"}),
    ("amax_dim0", "aten.amax.default", [V, [0]]),
    ("vector_norm_1", "aten.linalg_vector_norm.default", [V, 1, [1]]),
    ("logsumexp_dim0", "aten.logsumexp.default", [V, [0]]),
    ("log_softmax_dim1", "aten._log_softmax.default", [V, 1, False]),
    ("cumsum_dim0", "aten.cumsum.default", [V, 0]),
    ("unsqueeze_last", "aten.unsqueeze.default", [V, -1]),
    ("tensor_split_sections", "aten.tensor_split.sections", [V, 3]),
    ("tensor_split_indices", "aten.tensor_split.indices", [V, [1, -2]]),
    ("hsplit", "aten.hsplit.int", [V, 2]),
]
# Extra prefix nodes some ops read.
EXTRA = {
    "m": ("aten.gt.Scalar", [V, 0]),
    "vt": ("aten.transpose.int", [V, 0, 1]),
    "v1": ("aten.unsqueeze.default", [V, 0]),
}


def op_of(target):
    obj = torch.ops
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def resolve(arg, values):
    if isinstance(arg, dict) and "node" in arg:
        return values[arg["node"]]
    if isinstance(arg, list):
        return [resolve(a, values) for a in arg]
    return arg


def refs(arg):
    if isinstance(arg, dict) and "node" in arg:
        yield arg["node"]
    elif isinstance(arg, list):
        for a in arg:
            yield from refs(a)


def dim_text(d):
    return d if isinstance(d, int) else str(d.node.expr)


def out_meta(v):
    if isinstance(v, torch.Tensor):
        return {"shape": [dim_text(d) for d in v.shape], "stride": [dim_text(d) for d in v.stride()],
                "dtype": str(v.dtype).replace("torch.", "")}
    if isinstance(v, (tuple, list)):
        return [out_meta(x) for x in v]
    return None


def run_case(pattern, op):
    sizes, prefix = PATTERNS[pattern]
    name, target, args = op[:3]
    kwargs = op[3] if len(op) > 3 else {}
    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env)
    values, nodes, symbols = {}, [], {}
    for inp, hint in sizes.items():
        ctx = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC] * len(hint))
        t = mode.from_tensor(torch.randn(*hint), source=LocalSource(inp), symbolic_context=ctx)
        values[inp] = t
        shape = []
        for d, h in zip(t.shape, hint):
            symbols[str(d.node.expr)] = {"hint": h}
            shape.append(str(d.node.expr))
        nodes.append({"name": inp, "op": "placeholder", "val": {"shape": shape}})
    calls = list(prefix)
    needed = set(refs(args))
    for extra, (etarget, eargs) in EXTRA.items():
        if extra in needed:
            calls.append((extra, etarget, eargs))
    with mode:
        for cname, ctarget, cargs in calls:
            values[cname] = op_of(ctarget)(*resolve(cargs, values))
        before = len(env.guards)
        dtype_kw = {k: getattr(torch, v) for k, v in kwargs.items()}
        try:
            out = op_of(target)(*resolve(args, values), **dtype_kw)
            error = None
        except Exception as e:  # noqa: BLE001 - recorded: a case torch rejects
            out, error = None, "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
        guards = [str(g.expr) for g in env.guards[before:]]
    for cname, ctarget, cargs in calls:
        nodes.append({"name": cname, "op": "call_function", "target": ctarget, "args": cargs})
    nodes.append({"name": "r", "op": "call_function", "target": target, "args": args,
                  "kwargs": {k: {"dtype": v} for k, v in kwargs.items()}})
    nodes.append({"name": "output", "op": "output", "target": "output", "args": [{"node": "r"}]})
    # Run op by op under FakeTensorMode, not traced by make_fx: no tensor_meta guards.
    graph = {"format": "fakeprop.fx/1", "tracer": "fake_tensor", "symbols": symbols, "nodes": nodes}
    return {"case": "%s/%s" % (pattern, name), "graph": graph, "guards": guards, "error": error,
            "out": out_meta(out)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("-o", "--out", default=os.path.join(here, "..", "testdata", "sym_guards", "cases.json"))
    a = ap.parse_args()
    if int(torch.__version__.split(".")[0]) < 2:
        sys.exit("gen_sym_guard_goldens: torch %s is not current PyTorch" % torch.__version__)
    cases = [run_case(p, op) for p in PATTERNS for op in OPS]
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"format": "fakeprop.sym_guards/1", "torch": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")
    print("wrote %s: %d cases, %d with guards" % (a.out, len(cases), sum(1 for c in cases if c["guards"])),
          file=sys.stderr)


if __name__ == "__main__":
    main()
