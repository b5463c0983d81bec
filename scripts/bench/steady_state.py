#!/usr/bin/env python3
"""fakeprop in a long-lived Python process: does its memory stay flat, and does the host's heap slow it?

    PYTHONPATH=build/python .venv-oracle/bin/python scripts/bench/steady_state.py [--calls 10000] [--json OUT]

Two measurements, in the oracle environment (current torch) with the package built by CMake:

1. RSS over many calls: 20 small programs of different ops and widths (MLPs, convolutions,
   attention, reshapes; each exported by torch.export with a dynamic batch) are run round robin
   through ``fakeprop.propagate`` --calls times. The resident set is read from /proc/self/statm
   after the first round of 20 (warm: every program has been run once, so what any of them needs
   is allocated), then at every tenth of the calls; the report is the last reading's growth over
   the warm one. Each call's report is dropped before the next. The interned expressions alive
   (``_core.interned_expr_count()``) are read at the same points.
2. ``fakeprop.infer`` on a synthetic ONNX graph (scripts/bench/gen_synthetic.py, symbolic batch and
   seq, --nodes nodes) in this process before and after it has allocated and freed 2 GB in 1 KB
   blocks (as a host that has loaded and dropped a large model has: glibc keeps the freed heap),
   best of --repeat each; and the same in a child process that allocated nothing, interleaved with
   the host's runs, to compare with a fresh process.

Prints one JSON object. No target is asserted here: docs/performance.md reports the figures.
"""
import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def programs():
    """20 ExportedPrograms of different graphs, each with a dynamic batch."""
    import torch
    from torch import nn
    from torch.export import Dim

    class Attention(nn.Module):
        def __init__(self, width, heads):
            super().__init__()
            self.qkv, self.out, self.heads = nn.Linear(width, 3 * width), nn.Linear(width, width), heads

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.out(y.transpose(1, 2).reshape(b, t, c))

    class Reshaper(nn.Module):
        def __init__(self, groups):
            super().__init__()
            self.groups = groups

        def forward(self, x):
            b, c, n = x.shape
            y = x.view(b, self.groups, c // self.groups, n).transpose(1, 2).flatten(1, 2)
            return torch.cat([y, x], 1).sum(-1).softmax(-1)

    made = []
    for i in range(5):
        width = 16 * (i + 1)
        layers = []
        for _ in range(i + 2):
            layers += [nn.Linear(width, width), nn.GELU() if i % 2 else nn.ReLU()]
        made.append((nn.Sequential(*layers), (torch.randn(4, width),)))
    for i in range(5):
        ch = 4 * (i + 1)
        made.append((nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
                                   nn.MaxPool2d(2), nn.Conv2d(ch, ch, 3, stride=2), nn.AdaptiveAvgPool2d(1),
                                   nn.Flatten()), (torch.randn(4, 3, 16 + 8 * i, 16 + 8 * i),)))
    for i in range(5):
        width = 32 * (i + 1)
        made.append((Attention(width, 2 + (i % 2) * 2), (torch.randn(4, 8 + i, width),)))
    for i in range(5):
        groups = 2 + i
        made.append((Reshaper(groups), (torch.randn(4, groups * 4, 6 + i),)))
    out = []
    for module, args in made:
        module.eval()
        batch = Dim("batch", min=2, max=4096)
        out.append(torch.export.export(module, args, dynamic_shapes=({0: batch},)))
    return out


def rss_over_calls(calls):
    import fakeprop
    from fakeprop import _core

    progs = programs()
    readings = []
    warm_at = len(progs)
    step = max(warm_at, calls // 10)
    gc.collect()
    for i in range(calls):
        report = fakeprop.propagate(progs[i % len(progs)])
        assert report["outputs"], "a program without outputs"
        del report
        done = i + 1
        if done == warm_at or done % step == 0 or done == calls:
            gc.collect()
            readings.append({"calls": done, "rss_mb": round(rss_mb(), 2),
                             "interned_expressions": _core.interned_expr_count()})
    warm = readings[0]["rss_mb"]
    return {"programs": len(progs), "calls": calls, "readings": readings,
            "growth_over_warm_percent": round(100.0 * (readings[-1]["rss_mb"] - warm) / warm, 2)}


def time_infer(path, repeat):
    import fakeprop

    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fakeprop.infer(path)
        best = min(best, time.perf_counter() - t)
    return best


def child_infer(path, repeat):
    """Best of `repeat` infer calls in a fresh process that allocated nothing."""
    code = ("import sys, json; sys.path.insert(0, %r); import steady_state; "
            "print(json.dumps(steady_state.time_infer(%r, %d)))" % (HERE, path, repeat))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=os.environ)
    return json.loads(out.stdout)


def infer_after_host_heap(nodes, repeat, rounds):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "synth.onnx")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_synthetic.py"), "--nodes", str(nodes), "-o", path],
                       check=True, capture_output=True)
        fresh, before, after = [], [], []
        before.append(time_infer(path, repeat))
        blocks = [bytearray(1024) for _ in range(2 * 2**20)]  # 2 GiB in 1 KiB blocks
        peak = rss_mb()
        del blocks
        gc.collect()
        held = rss_mb()
        for _ in range(rounds):  # interleaved: the VM's speed drifts
            fresh.append(child_infer(path, repeat))
            after.append(time_infer(path, repeat))
        return {"nodes": nodes, "host_rss_mb_with_blocks": round(peak, 1),
                "host_rss_mb_after_free": round(held, 1),
                "infer_ms_fresh_process": round(1000 * min(fresh), 2),
                "infer_ms_this_process_before": round(1000 * min(before), 2),
                "infer_ms_this_process_after_2gb": round(1000 * min(after), 2),
                "after_over_fresh": round(min(after) / min(fresh), 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--nodes", type=int, default=20000, help="the synthetic ONNX graph's size for infer")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", help="also write the result here")
    opts = ap.parse_args()
    # The RSS first: the freed 2 GB stays resident and would hide any growth.
    result = {"rss_over_calls": rss_over_calls(opts.calls)}
    result["infer_after_host_heap"] = infer_after_host_heap(opts.nodes, opts.repeat, opts.rounds)
    text = json.dumps(result, indent=1)
    print(text)
    if opts.json:
        with open(opts.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
