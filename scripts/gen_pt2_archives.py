#!/usr/bin/env python3
"""Writes torch.export archives (.pt2) and their goldens for fakeprop's pt2 loader.

Run in the oracle venv (scripts/setup.sh --oracle), from the repository root:

    .venv-oracle/bin/python scripts/gen_pt2_archives.py            # the committed ones
    .venv-oracle/bin/python scripts/gen_pt2_archives.py --big      # also resnet18 (git-ignored)

Each program is exported with torch.export.export(..., dynamic_shapes=...) and
saved with torch.export.save. Beside each archive NAME.pt2 the script writes
NAME.golden.json: torch's own fake value (meta['val']) of every node of the
exported graph, evaluated at the export sizes (shape, stride, storage offset,
dtype, device; SymInts as their hint; tuples as lists), the symbolic sizes as
torch prints them, the range constraints and the hints of the symbols.
lib/fakeprop/fx/pt2_golden_test.cpp runs fakeprop on each archive and
compares every node. Small archives go to testdata/pt2/ (committed); the big
ones (--big) go to testdata/generated/pt2/ (git-ignored) and the test runs
them when they are there. Weights are random; nothing is downloaded.
"""
import argparse
import json
import os
import sys
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL_DIR = os.path.join(ROOT, "testdata", "pt2")
BIG_DIR = os.path.join(ROOT, "testdata", "generated", "pt2")
SMALL_LIMIT = 300 * 1024


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x))).softmax(-1)


class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        y = F.max_pool2d(y, 2)
        return self.fc(torch.flatten(self.pool(y), 1))


class Attention(nn.Module):
    """Causal self-attention with view/reshape/transpose on a dynamic batch and sequence."""

    def __init__(self, hidden=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.norm(x)).split(h, dim=-1)
        q = q.view(b, s, self.heads, h // self.heads).transpose(1, 2)
        k = k.reshape(b, s, self.heads, -1).transpose(1, 2)
        v = v.view(b, -1, self.heads, h // self.heads).permute(0, 2, 1, 3)
        scores = q @ k.transpose(-2, -1) * (h // self.heads) ** -0.5
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
        out = scores.softmax(-1) @ v
        out = out.transpose(1, 2).contiguous().view(b, s, h)
        return x + self.proj(out), out.sum(dim=(0, 1))


class Logits(nn.Module):
    """A causal LM called on input_ids alone, returning its logits (no cache, no output dataclass)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids):
        return self.m(input_ids=input_ids, use_cache=False, return_dict=False)[0]


def tiny_gpt2(layers):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=layers, n_head=2, use_cache=False)
    model = GPT2LMHeadModel(config).eval()
    return Logits(model)


def tiny_llama(layers):
    from transformers import AutoModelForCausalLM, LlamaConfig

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=layers,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, use_cache=False)
    model = AutoModelForCausalLM.from_config(config).eval()
    return Logits(model)


def resnet18():
    import torchvision

    torch.manual_seed(0)
    return torchvision.models.resnet18(weights=None).eval()


class ExpandNewDims(nn.Module):
    """expand's new leading dims (HF AltCLIP's class embedding): a new dim of size 1 takes a stride
    that spans a dim, not 0, by the ref where a size is symbolic and by ATen's where all are static."""

    def __init__(self):
        super().__init__()
        self.cls = nn.Parameter(torch.randn(8))

    def forward(self, x):
        b, s = x.shape[0], x.shape[1]
        c = self.cls.expand(b, 1, -1)
        r = self.cls.expand(1, s, 8)
        t = self.cls.expand(1, 2, 8)
        return torch.cat([c, x], 1), r + x, t.sum()


class RefBroadcastOne(nn.Module):
    """falcon_h1's SSM chunks: the chunk count (s + pad)//16 is 1 at the hint. Ops that fake tensors
    run through their ref (cumsum, masked_fill) make it the literal 1, as the refs' _broadcast_shapes
    starts from 1s; ATen's metas (infer_size, einsum) keep the expression, and a where whose first
    operand needs no expanding keeps it too. The mul of an einsum and the cumsum then orders its
    strides by that static 1 (fakeprop gave the size-1 dim another stride)."""

    def __init__(self):
        super().__init__()
        self.states = nn.Parameter(torch.randn(2, 4, 3, 2))

    def forward(self, x):
        pad = (16 - x.shape[1] % 16) % 16
        y = F.pad(x, (0, 0, 0, pad)).reshape(x.shape[0], -1, 16, 4, 2)  # (b, chunks, 16, heads, n)
        a = y.sum(-1).permute(0, 3, 1, 2)
        cs = torch.cumsum(a, dim=-1)
        keep = torch.ones(16, 16, dtype=torch.bool).tril()
        mf = a[..., None].expand(*a.shape, 16).masked_fill(~keep, 0)
        w = torch.where(a > 0, a, 1.0)
        states = self.states[None].expand(x.shape[0], 2, 4, 3, 2)[:, :-1]
        e = torch.einsum("bclhn,bchpn->bclhp", y, states)
        return mf, w, F.pad(cs[..., -1], (1, 0)), e * torch.exp(cs).permute(0, 2, 3, 1)[..., None]


class CheckTensorAll(nn.Module):
    """torch._check_tensor_all on a bool tensor, as HF VITS checks its spline inputs' range (through
    transformers' torch_compilable_check): export records _is_all_true, item (an unbacked SymBool
    Eq(u0, 1)) and sym_ite(item, 1, 0), then asserts that int to be 1."""

    def forward(self, x):
        torch._check_tensor_all((x.min() >= -5) & (x.max() <= 5))
        return x.softmax(-1)


def programs(big):
    """(name, module factory, example inputs, dynamic_shapes, big)."""
    batch = Dim("batch", min=2, max=64)
    seq = Dim("seq", min=2, max=32)
    ids = torch.randint(0, 64, (2, 7), generator=torch.Generator().manual_seed(0))
    out = [
        ("mlp", MLP, (torch.randn(4, 16),), {"x": {0: batch}}, False),
        ("conv_bn_relu", lambda: ConvBnRelu().eval(), (torch.randn(2, 3, 20, 24),),
         {"x": {0: batch, 2: Dim("h", min=8, max=256), 3: Dim("w", min=8, max=256)}}, False),
        ("attention", Attention, (torch.randn(3, 5, 32),), {"x": {0: batch, 1: seq}}, False),
        # One layer keeps the committed archive under 300 KB (the program
        # JSON, with its stack traces, is most of it); two layers and Llama
        # (335 KB with one) are --big.
        ("gpt2_tiny", lambda: tiny_gpt2(1), (ids,), {"input_ids": {0: batch, 1: seq}}, False),
        ("expand_new_dims", ExpandNewDims, (torch.randn(3, 5, 8),), {"x": {0: batch, 1: seq}}, False),
        ("ref_broadcast_one", RefBroadcastOne, (torch.randn(2, 5, 8),), {"x": {0: Dim.AUTO, 1: Dim.AUTO}}, False),
        ("check_tensor_all", CheckTensorAll, (torch.randn(2, 5).clamp(-4, 4),), {"x": {0: Dim.AUTO, 1: Dim.AUTO}},
         False),
    ]
    if big:
        out.append(("gpt2_2layer", lambda: tiny_gpt2(2), (ids,), {"input_ids": {0: batch, 1: seq}}, True))
        out.append(("llama_tiny", lambda: tiny_llama(1), (ids,), {"input_ids": {0: batch, 1: seq}}, True))
        out.append(("resnet18", resnet18, (torch.randn(2, 3, 64, 64),), {"x": {0: batch}}, True))
    return out


def _hint(v):
    """The value at the export sizes; None for a size with an unbacked symbol (no hint: a
    higher-order op's merged output)."""
    if isinstance(v, int):
        return v
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols, guarding_hint_or_throw

    if free_unbacked_symbols(v.node.expr):
        return None
    return int(guarding_hint_or_throw(v))


def _sym_text(v):
    return v if isinstance(v, int) else str(v.node.expr)


def _value(v):
    if isinstance(v, torch.Tensor):
        return {
            "shape": [_hint(d) for d in v.shape],
            "stride": [_hint(d) for d in v.stride()],
            "storage_offset": _hint(v.storage_offset()),
            "dtype": str(v.dtype).replace("torch.", ""),
            "device": str(v.device),
            "sym_shape": [_sym_text(d) for d in v.shape],
        }
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, torch.SymInt)):
        return {"int": _hint(v), "sym": str(_sym_text(v))}
    if isinstance(v, (float, torch.SymFloat, torch.SymBool)):
        return {"other": str(v)}
    return {"other": type(v).__name__}


def golden(ep, name):
    nodes = {}
    symbols = {}
    for n in ep.graph.nodes:
        if n.op == "output":
            continue
        if "val" not in n.meta:
            continue
        nodes[n.name] = _value(n.meta["val"])
        v = n.meta["val"]
        for d in (list(v.shape) if isinstance(v, torch.Tensor) else []):
            if isinstance(d, torch.SymInt):
                for s in d.node.expr.free_symbols:
                    env = d.node.shape_env
                    hint = getattr(env, "backed_var_to_val", getattr(env, "var_to_val", {})).get(s)
                    if hint is not None:
                        symbols[str(s)] = int(hint)
    ranges = {}
    for s, vr in ep.range_constraints.items():
        lo, hi = vr.lower, vr.upper
        # int_oo (Dim.AUTO's bound) passes is_integer but is no int: null, an open bound
        ranges[str(s)] = [int(b) if b.is_integer and b.is_number and abs(b) < 2**63 else None for b in (lo, hi)]
    return {
        "program": name,
        "torch_version": torch.__version__,
        "nodes": nodes,
        "range_constraints": ranges,
        "hints": symbols,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--big", action="store_true", help="also the big models (resnet18), to testdata/generated/pt2")
    parser.add_argument("--only", help="comma-separated program names")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    failed = []
    for name, factory, inputs, dynamic, is_big in programs(args.big):
        if only and name not in only:
            continue
        out_dir = BIG_DIR if is_big else SMALL_DIR
        os.makedirs(out_dir, exist_ok=True)
        torch.manual_seed(0)
        try:
            model = factory()
            ep = torch.export.export(model, inputs, dynamic_shapes=dynamic)
        except Exception as e:  # noqa: BLE001 - report and go on with the others
            print("%s: export failed: %s" % (name, str(e).splitlines()[0]), file=sys.stderr)
            failed.append(name)
            continue
        path = os.path.join(out_dir, name + ".pt2")
        torch.export.save(ep, path)
        size = os.path.getsize(path)
        if not is_big and size > SMALL_LIMIT:
            print("%s: %d bytes, over the %d limit for committed archives" % (name, size, SMALL_LIMIT), file=sys.stderr)
            failed.append(name)
        g = golden(ep, name)
        g["archive_members"] = sorted(zipfile.ZipFile(path).namelist())
        g["export_inputs"] = [list(t.shape) for t in inputs]
        with open(os.path.join(out_dir, name + ".golden.json"), "w") as f:
            json.dump(g, f, indent=1, sort_keys=True)
            f.write("\n")
        print("%s: %d nodes, %d bytes" % (path, len(g["nodes"]), size), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
