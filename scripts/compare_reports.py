#!/usr/bin/python3
"""Compares two fakeprop binaries' reports, byte for byte, on many models.

    /usr/bin/python3 scripts/compare_reports.py --old OLD/fakeprop --new build/fakeprop \
        [--models-dir build-models] [--node-tests build/onnx_node_tests] [--rename old=new ...]

For a refactor that must not change what fakeprop says. The models: every
ONNX file under testdata/, every JSON FX graph under testdata/fx, each case of
the op-level FX goldens (testdata/fx_goldens/ops_*.json) and the model goldens,
ONNX's backend node tests when --node-tests names their directory
(scripts/gen_onnx_node_tests.py writes it) and the exports in --models-dir
(scripts/export_models.py, bench.py). Each runs in three modes: `--json`,
`--json --no-assume-static-by-default`, and the `--log +dynamic` trace (each
line without its time, thread id and C++ source line). The
exit code of each run is compared too. `--rename old=new` lists documented
renames of error kinds: the old binary's `"kind": "old"` is read as "new".
Prints one line per differing run (up to --show) and a summary; exit 1 when
anything differs.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

MODES = {
    "json": ["--json"],
    "json-dynamic": ["--json", "--no-assume-static-by-default"],
    "trace": ["--log", "+dynamic"],
}


def collect(args, tmp):
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "**", "*.onnx"), recursive=True))
    models += sorted(glob.glob(os.path.join(ROOT, "testdata", "fx", "*.json")))
    for path in sorted(glob.glob(os.path.join(ROOT, "testdata", "fx_goldens", "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        cases = doc.get("cases") if isinstance(doc, dict) else None
        if cases is None:
            models.append(path)
            continue
        stem = os.path.splitext(os.path.basename(path))[0]
        for k, case in enumerate(cases):
            out = os.path.join(tmp, f"{stem}_{k:04d}.json")
            with open(out, "w") as f:
                json.dump(case, f)
            models.append(out)
    if args.node_tests:
        models += sorted(glob.glob(os.path.join(args.node_tests, "*", "model.onnx")))
    if args.models_dir:
        models += sorted(glob.glob(os.path.join(args.models_dir, "*.onnx")))
        models += sorted(glob.glob(os.path.join(args.models_dir, "*.json")))
    return models


# The trace's line prefix: glog's level, date, time and thread id, and the
# line number of the C++ source that logged (it moves with any edit there).
TRACE_PREFIX = re.compile(rb"^[DIWE]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ([\w.]+):\d+\]", re.M)


def run(binary, model, mode):
    p = subprocess.run([binary, model] + MODES[mode], capture_output=True, timeout=600)
    if mode == "trace":
        return p.returncode, TRACE_PREFIX.sub(rb"\1]", p.stderr)
    # The model path is the same for both binaries; stats are not requested.
    return p.returncode, p.stdout


def compare(job):
    old, new, model, mode, renames = job
    rc_old, out_old = run(old, model, mode)
    rc_new, out_new = run(new, model, mode)
    for a, b in renames:
        out_old = out_old.replace(f'"kind": "{a}"'.encode(), f'"kind": "{b}"'.encode())
    if rc_old != rc_new:
        return model, mode, f"exit {rc_old} -> {rc_new}"
    if out_old != out_new:
        old_lines, new_lines = out_old.splitlines(), out_new.splitlines()
        for i, (x, y) in enumerate(zip(old_lines, new_lines)):
            if x != y:
                return model, mode, f"line {i + 1}: {x[:120]!r} -> {y[:120]!r}"
        return model, mode, f"{len(old_lines)} -> {len(new_lines)} lines"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--models-dir")
    parser.add_argument("--node-tests")
    parser.add_argument("--rename", action="append", default=[], help="old=new error kind")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--show", type=int, default=30)
    parser.add_argument("-j", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    renames = [tuple(r.split("=", 1)) for r in args.rename]
    with tempfile.TemporaryDirectory() as tmp:
        models = collect(args, tmp)
        jobs = [(args.old, args.new, m, mode, renames) for m in models for mode in args.modes.split(",")]
        diffs = []
        with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
            for r in pool.map(compare, jobs):
                if r:
                    diffs.append(r)
    for model, mode, what in diffs[: args.show]:
        print(f"DIFF {os.path.relpath(model, ROOT) if model.startswith(ROOT) else model} [{mode}]: {what}")
    print(f"{len(models)} models x {len(args.modes.split(','))} modes = {len(jobs)} runs: "
          f"{len(jobs) - len(diffs)} identical, {len(diffs)} differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
