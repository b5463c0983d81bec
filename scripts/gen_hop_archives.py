#!/usr/bin/env python3
"""Writes torch.export archives (.pt2) with higher-order ops, and their goldens.

Run in the oracle venv, from the repository root:

    .venv-oracle/bin/python scripts/gen_hop_archives.py

One small program per higher-order op (cond, while_loop, map, scan,
invoke_subgraph, auto_functionalized_v2, with_effects, wrap_with_set_grad_enabled), exported with a
dynamic batch and saved to testdata/pt2/hop_NAME.pt2 beside
hop_NAME.golden.json, torch's meta['val'] of every node in the format of
gen_pt2_archives.py, which pt2_golden_test.cpp replays without torch.
"""
import argparse
import json
import os
import sys
import zipfile

import torch
from torch.export import Dim

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pt2_archives import SMALL_DIR, SMALL_LIMIT, golden  # noqa: E402

from torch._higher_order_ops.map import map as hop_map  # noqa: E402
from torch._higher_order_ops.scan import scan  # noqa: E402


class Cond(torch.nn.Module):
    """Both branches agree on the first output; the second's rows differ (2 or 3): an unbacked size."""

    def forward(self, x, y):
        def true_fn(x, y):
            return x.sin() + y, x[:2].clone()

        def false_fn(x, y):
            return x.cos() - y, x[:3].clone()

        return torch.cond(x.shape[0] > 4, true_fn, false_fn, (x, y))


class CondTensorPred(torch.nn.Module):
    """A data-dependent predicate (a 0-d bool tensor) and a transposed, non-contiguous operand."""

    def forward(self, x):
        def true_fn(x):
            return (x.t() @ x).relu()

        def false_fn(x):
            return x.t() @ x + 1

        return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


class WhileLoop(torch.nn.Module):
    def forward(self, x):
        def cond_fn(i, x):
            return i < 3

        def body_fn(i, x):
            return i + 1, x * 2 + 1

        return torch._higher_order_ops.while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x))


class Map(torch.nn.Module):
    def forward(self, xs, y):
        def f(x, y):
            return (x @ y).sum(0), x.t().contiguous()

        return hop_map(f, xs, y)


class Scan(torch.nn.Module):
    def forward(self, init, xs):
        def combine(carry, x):
            nxt = carry + x
            return nxt, (nxt * x).unsqueeze(-1)

        return scan(combine, init, xs, dim=0)


@torch.compiler.nested_compile_region
def _block(t, w):
    return (t @ w).relu()


class InvokeSubgraph(torch.nn.Module):
    """One region called three times (the first inlined by export, the others invoke_subgraph), on
    operands with their own strides."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 8))

    def forward(self, x, y):
        return _block(x, self.w) + _block(y, self.w), _block(x[:, :4].repeat(1, 2), self.w)


@torch.library.custom_op("fakeprop_hop::scale_", mutates_args={"x"})
def scale_(x: torch.Tensor, s: float) -> None:
    x.mul_(s)


@scale_.register_fake
def _(x, s):
    return None


@torch.library.custom_op("fakeprop_hop::scale_twice", mutates_args={"x", "y"})
def scale_twice(x: torch.Tensor, y: torch.Tensor, s: float) -> None:
    x.mul_(s)
    y.mul_(s)


@scale_twice.register_fake
def _(x, y, s):
    return None


class AutoFunctionalized(torch.nn.Module):
    def forward(self, x, y):
        a = x.clone()
        scale_(a, 2.0)
        b = y.t().contiguous()
        scale_twice(a, b.t(), 3.0)
        return a, b, a + b.t()


class WithEffects(torch.nn.Module):
    """Two calls of an op registered as effectful (an ATen op here, so that fakeprop has its rule),
    ordered by the token the program threads through them."""

    def forward(self, x):
        s = torch.ops.aten.logcumsumexp.default(x, 0)
        return torch.ops.aten.logcumsumexp.default(x.t() * 2, 1) + s.t()


def _effectful():
    from torch._higher_order_ops.effects import _EffectType, _register_effectful_op

    _register_effectful_op(torch.ops.aten.logcumsumexp.default, _EffectType.ORDERED)


# Programs whose op appears only once the program is functionalized (run_decompositions).
class SetGradEnabled(torch.nn.Module):
    """torch.no_grad() inside forward (HF CPM-Ant): export wraps the block in wrap_with_set_grad_enabled."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 4)

    def forward(self, x):
        with torch.no_grad():
            y = self.lin(x).t()
        return y.relu(), self.lin(x), y


FUNCTIONALIZED = ("hop_auto_functionalized", "hop_with_effects")
# Programs exported by Dynamo (strict): nested_compile_region becomes invoke_subgraph only there.
STRICT = ("hop_invoke_subgraph",)


def programs():
    """(name, module, example inputs, dynamic_shapes)."""
    b = Dim("b", min=4, max=64)
    return [
        ("hop_cond", Cond(), (torch.randn(6, 3), torch.randn(6, 3)), {"x": {0: b}, "y": {0: b}}),
        ("hop_cond_tensor_pred", CondTensorPred(), (torch.randn(5, 3),), {"x": {0: b}}),
        ("hop_while_loop", WhileLoop(), (torch.randn(5, 3),), {"x": {0: b}}),
        ("hop_map", Map(), (torch.randn(5, 4, 3), torch.randn(3, 2)), {"xs": {0: b}, "y": None}),
        ("hop_scan", Scan(), (torch.randn(3), torch.randn(5, 3)), {"init": None, "xs": {0: b}}),
        ("hop_invoke_subgraph", InvokeSubgraph(), (torch.randn(5, 8), torch.randn(5, 8)), {"x": {0: b}, "y": {0: b}}),
        ("hop_auto_functionalized", AutoFunctionalized(), (torch.randn(5, 3), torch.randn(5, 3)),
         {"x": {0: b}, "y": {0: b}}),
        ("hop_with_effects", WithEffects(), (torch.randn(5, 3),), {"x": {0: b}}),
        ("hop_set_grad_enabled", SetGradEnabled(), (torch.randn(5, 3),), {"x": {0: b}}),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--out", default=SMALL_DIR, help="where the archives go (default testdata/pt2)")
    parser.add_argument("--print", action="store_true", help="print each exported program")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    _effectful()
    failed = []
    os.makedirs(args.out, exist_ok=True)
    for name, model, inputs, dynamic in programs():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        try:
            ep = torch.export.export(model, inputs, dynamic_shapes=dynamic, strict=name in STRICT)
            if name in FUNCTIONALIZED:
                ep = ep.run_decompositions({})
        except Exception as e:  # noqa: BLE001 - report and go on with the others
            print("%s: export failed: %s" % (name, str(e).splitlines()[0]), file=sys.stderr)
            failed.append(name)
            continue
        if args.print:
            print(ep)
        path = os.path.join(args.out, name + ".pt2")
        torch.export.save(ep, path)
        size = os.path.getsize(path)
        if size > SMALL_LIMIT:
            print("%s: %d bytes, over the %d limit for committed archives" % (name, size, SMALL_LIMIT), file=sys.stderr)
            failed.append(name)
        g = golden(ep, name)
        g["archive_members"] = sorted(zipfile.ZipFile(path).namelist())
        g["export_inputs"] = [list(t.shape) for t in inputs]
        with open(os.path.join(args.out, name + ".golden.json"), "w") as f:
            json.dump(g, f, indent=1, sort_keys=True)
            f.write("\n")
        print("%s: %d nodes, %d bytes" % (path, len(g["nodes"]), size), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
