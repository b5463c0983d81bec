#!/usr/bin/python3
"""Replays the sweep's CI slice (testdata/sweep_slice) through the fakeprop CLI, without torch.

Each model M there has M.graph.json (the exported program as fakeprop's JSON FX graph, written by
`arch_sweep.py --slice` or `hf_sweep.py --slice`) and M.golden.json (torch's meta['val'] of every
tensor node at the symbols' hints). Every node's shape, stride and dtype at the hints must equal
torch's, and the report must have no errors. Exit status 1 on any difference.

    /usr/bin/python3 scripts/check_sweep_slice.py --fakeprop build/fakeprop [testdata/sweep_slice]
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arch_sweep import _at  # noqa: E402 - stdlib only at import time


def check(fakeprop_bin, graph, golden):
    """(values compared, a list of differences) for one model."""
    proc = subprocess.run([fakeprop_bin, graph, "--json"], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        return 0, ["fakeprop exited %d: %s" % (proc.returncode, proc.stderr.strip()[-200:])]
    report = json.loads(proc.stdout)
    hints = {s["name"]: s["hint"] for s in report["symbols"] if s.get("hint") is not None}
    want = golden["values"]
    problems = ["%s: %s" % (e["kind"], e["message"][:120]) for e in report["errors"]]
    seen = set()
    for node in report["nodes"]:
        for o in node["outputs"]:
            if o["name"] not in want:
                continue
            seen.add(o["name"])
            val = o.get("val") or {}
            if "shape" not in val:
                problems.append("%s: unresolved" % o["name"])
                continue
            try:
                ours = [[_at(d, hints) for d in val["shape"]], [_at(d, hints) for d in val["stride"]], val["dtype"]]
            except Exception:  # noqa: BLE001 - a size without a hint
                problems.append("%s: no value at the hints (%s)" % (o["name"], val["shape"]))
                continue
            if ours != want[o["name"]]:
                problems.append("%s: ours %s, torch %s" % (o["name"], ours, want[o["name"]]))
    problems += ["%s: not in the report" % n for n in sorted(set(want) - seen)]
    return len(seen), problems


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir", nargs="?", default=os.path.join(here, "..", "testdata", "sweep_slice"))
    p.add_argument("--fakeprop", default=os.path.join(here, "..", "build", "fakeprop"))
    a = p.parse_args()
    models = sorted(f[:-len(".golden.json")] for f in os.listdir(a.dir) if f.endswith(".golden.json"))
    if not models:
        sys.exit("check_sweep_slice: no *.golden.json in %s" % a.dir)
    start, total, failed = time.perf_counter(), 0, 0
    for m in models:
        with open(os.path.join(a.dir, m + ".golden.json")) as f:
            golden = json.load(f)
        n, problems = check(a.fakeprop, os.path.join(a.dir, m + ".graph.json"), golden)
        total += n
        if problems:
            failed += 1
            print("%s (%s): %d differences, first: %s" % (m, golden["library"], len(problems), problems[0]))
    print("sweep slice: %d models, %d values compared, %d models differ (%.1f s)" % (
        len(models), total, failed, time.perf_counter() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
