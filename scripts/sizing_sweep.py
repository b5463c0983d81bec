#!/usr/bin/env python3
"""fakeprop's FLOPs and peak memory against torch's trackers on architectures no golden uses.

    PYTHONPATH=build/python .venv-oracle/bin/python scripts/sizing_sweep.py --fakeprop build/fakeprop \
        [--timm efficientnet_b0,regnetx_002,...] [--batches 2,5]

Each timm architecture (random weights, 64x64 input, dynamic batch) is exported by torch.export and
decomposed to core ATen, run once through fakeprop with its batch symbolic, and compared at each batch
through `fakeprop plan --at` with scripts/memory_oracle.py's tracker (graph order under
FakeTensorMode, docs/sizing.md's definition) and FlopCounterMode. Prints one line per architecture
and batch; exits 1 if any differs or fails. Runs outside CI (it needs torch and timm).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_oracle as oracle  # noqa: E402
import torch  # noqa: E402

DEFAULT = "efficientnet_b0,regnetx_002,mobilevitv2_050,ghostnet_100,densenet121,repvgg_a0,mixnet_s,poolformer_s12"


def compare(binary, arch, batches):
    import timm
    from torch.export import Dim
    torch.manual_seed(0)
    model = timm.create_model(arch, pretrained=False).eval()
    spec = oracle.Spec(model, (torch.randn(2, 3, 64, 64),), ["x"], ({0: Dim("batch", min=2, max=1024)},),
                       [[(b, 3, 64, 64)] for b in batches])
    gm, state, users, doc, _ = oracle.export_inference(spec)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, arch + ".graph.json")
        with open(graph, "w") as f:
            json.dump(doc, f)
        report = json.loads(subprocess.run([binary, graph, "--json"], capture_output=True, text=True).stdout)
        batch = next(s["name"] for s in report["symbols"] if "L['%s'].size()[0]" % users[0] in s["sources"])
        for b in batches:
            plan = subprocess.run([binary, "plan", graph, "--at", "%s=%d" % (batch, b), "--json"],
                                  capture_output=True, text=True)
            row = json.loads(plan.stdout)["table"][0]
            torch_row = oracle.measure(gm, state, {users[0]: (b, 3, 64, 64)}, {users[0]: torch.float32},
                                       order=[n["name"] for n in doc["nodes"]])
            same = (row["flops"], row["peak_bytes"]) == (torch_row["flops"], torch_row["peak_bytes"])
            rows.append(same and not report["errors"])
            print("%-18s batch %-4d nodes %-5d errors %d  FLOPs %d / torch %d  peak %d / torch %d  %s"
                  % (arch, b, len(report["nodes"]), len(report["errors"]), row["flops"], torch_row["flops"],
                     row["peak_bytes"], torch_row["peak_bytes"], "same" if rows[-1] else "DIFFERENT"), flush=True)
    return all(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fakeprop", default="build/fakeprop")
    ap.add_argument("--timm", default=DEFAULT)
    ap.add_argument("--batches", default="2,5")
    a = ap.parse_args()
    batches = [int(b) for b in a.batches.split(",")]
    ok = True
    for arch in a.timm.split(","):
        try:
            ok &= compare(a.fakeprop, arch, batches)
        except Exception as e:  # noqa: BLE001: an architecture torch cannot export is reported, not fatal
            print("%-18s not compared: %s: %s" % (arch, type(e).__name__, str(e).splitlines()[0][:160]), flush=True)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
