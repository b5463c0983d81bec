#!/usr/bin/env python3
"""Writes torch.export archives (.pt2) with higher-order ops, and their goldens.

Run in the oracle venv, from the repository root:

    .venv-oracle/bin/python scripts/gen_hop_archives.py

One small program per higher-order op (cond, while_loop, map, scan (and a scan with a matmul),
invoke_subgraph, auto_functionalized_v2, with_effects, wrap_with_set_grad_enabled), exported with a
dynamic batch and saved to testdata/pt2/hop_NAME.pt2 beside
hop_NAME.golden.json, torch's meta['val'] of every node in the format of
gen_pt2_archives.py, which pt2_golden_test.cpp replays without torch.

    .venv-oracle/bin/python scripts/gen_hop_archives.py --flops

runs torch.utils.flop_counter.FlopCounterMode over the committed archives at three sizes each and
writes testdata/memory/hop_flops.json (testdata/memory/test_hop_flops.py replays it without torch).
FlopCounterMode counts cond (both branches), wrap_with_set_grad_enabled and with_effects itself;
it refuses map_impl, scan, invoke_subgraph, while_loop and auto_functionalized_v2 (its mode
returns NotImplemented). The first three are counted here as FlopCounterMode over their unrolled
form: the subgraph module called once per row (map, scan) or once (invoke_subgraph), under the same
counter. A program with a HOP that cannot be unrolled without its data (while_loop) or whose op
FlopCounterMode cannot run (auto_functionalized_v2) is counted with skip_unsupported=True, which
counts nothing for that HOP or inside it; the golden names those HOPs in `uncounted`.
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


class ScanMatmul(torch.nn.Module):
    """A matmul in the combine function (w is a closure: an additional input): FLOPs per step times
    the scan length, a symbolic size."""

    def forward(self, init, xs, w):
        def combine(carry, x):
            nxt = torch.tanh(carry @ w + x)
            return nxt, nxt.sum(-1)

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
        ("hop_scan_matmul", ScanMatmul(), (torch.randn(2, 3), torch.randn(5, 2, 3), torch.randn(3, 3)),
         {"init": None, "xs": {0: b}, "w": None}),
        ("hop_invoke_subgraph", InvokeSubgraph(), (torch.randn(5, 8), torch.randn(5, 8)), {"x": {0: b}, "y": {0: b}}),
        ("hop_auto_functionalized", AutoFunctionalized(), (torch.randn(5, 3), torch.randn(5, 3)),
         {"x": {0: b}, "y": {0: b}}),
        ("hop_with_effects", WithEffects(), (torch.randn(5, 3),), {"x": {0: b}}),
        ("hop_set_grad_enabled", SetGradEnabled(), (torch.randn(5, 3),), {"x": {0: b}}),
    ]


FLOPS_FILE = os.path.join(os.path.dirname(SMALL_DIR), "memory", "hop_flops.json")
FLOPS_SIZES = (4, 9, 33)  # the dynamic batch b, in its range [4, 64]


class _Unrolled(torch.fx.Interpreter):
    """Runs a program node by node under a FlopCounterMode, recording each node's FLOPs (the total's
    difference around it), with the HOPs the counter refuses run as their unrolled subgraph calls."""

    def __init__(self, gm, counter):
        super().__init__(gm)
        self.counter = counter
        self.flops = {}

    def run_node(self, n):
        before = self.counter.get_total_flops()  # also makes 'Global' exist: see cond in the README
        out = super().run_node(n)
        if self.counter.get_total_flops() != before:
            self.flops[n.name] = self.counter.get_total_flops() - before
        return out

    def call_function(self, target, args, kwargs):
        hop = torch.ops.higher_order
        if target is hop.map_impl:
            f, xs, pos_args = args
            outs = [f(*[x[i] for x in xs], *pos_args) for i in range(xs[0].shape[0])]
            return [torch.stack([o[k] for o in outs]) for k in range(len(outs[0]))]
        if target is hop.scan:
            combine, init, xs, additional = args
            carry, ys = list(init), []
            for i in range(xs[0].shape[0]):
                out = combine(*carry, *[x[i] for x in xs], *additional)
                carry, y = list(out[:len(init)]), list(out[len(init):])
                ys.append(y)
            return carry + [torch.stack([y[k] for y in ys]) for k in range(len(ys[0]))]
        if target is hop.invoke_subgraph:
            return list(args[0](*args[2:]))
        return super().call_function(target, args, kwargs)


def _flops_at(ep, inputs, skip_unsupported):
    import warnings
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils.flop_counter import FlopCounterMode

    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    fake = FakeTensorMode(allow_non_fake_inputs=True, shape_env=ShapeEnv())  # while_loop's fake impl needs one
    with fake:
        args = [torch.zeros(shape) for shape in inputs]
    counter = FlopCounterMode(display=False, skip_unsupported=skip_unsupported)
    run = _Unrolled(ep.module(), counter)
    with fake, counter, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run.run(*args)
    return run.flops, counter.get_total_flops(), sorted(counter._unsupported_ops)


def write_flops(out_path):
    """FlopCounterMode's FLOPs per node and in total for each committed HOP archive at FLOPS_SIZES."""
    programs_out = {}
    for name, _, inputs, dynamic in programs():
        ep = torch.export.load(os.path.join(SMALL_DIR, name + ".pt2"))
        dims = list(dynamic.values())
        sizes = []
        for b in FLOPS_SIZES:
            shapes = [[b if d in (spec or {}) else n for d, n in enumerate(t.shape)] for t, spec in zip(inputs, dims)]
            try:
                by_node, total, uncounted = _flops_at(ep, shapes, skip_unsupported=False)
            except TypeError:  # a refused HOP's NotImplemented, read as its outputs
                by_node, total, uncounted = _flops_at(ep, shapes, skip_unsupported=True)
            sizes.append({"inputs": shapes, "flops": total, "flops_by_node": by_node, "uncounted": uncounted})
        programs_out[name] = {"archive": "../pt2/%s.pt2" % name, "sizes": sizes}
        print("%s: %s" % (name, [s["flops"] for s in sizes]), file=sys.stderr)
    doc = {"format": "fakeprop.hop_flops/1", "torch": torch.__version__, "programs": programs_out}
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--out", default=SMALL_DIR, help="where the archives go (default testdata/pt2)")
    parser.add_argument("--print", action="store_true", help="print each exported program")
    parser.add_argument("--flops", action="store_true",
                        help="measure FlopCounterMode on the committed archives instead (writes %s)" % FLOPS_FILE)
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    _effectful()
    if args.flops:
        write_flops(FLOPS_FILE)
        return 0
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
