"""fakeprop's guards against current PyTorch's, one ATen op at a time on backed symbolic sizes.

cases.json (scripts/gen_sym_guard_goldens.py, torch version inside) holds, per case, a fakeprop.fx/1
graph and the guards torch's ShapeEnv added while the op (node `r`) ran under FakeTensorMode.
fakeprop runs the graph with `--log +dynamic` and its `eval ... [guard added] at r` lines must be
the same set. The cases where they differ are listed in known_differences.txt with a tag and
the reason: [gap] (fakeprop's shortfall), [text] (the same condition printed differently),
[deliberate] (fakeprop follows torch.compile / torch.export where this op-level run of torch does
not, e.g. it runs without the python dispatcher that Dynamo and export trace with) or [torch-bug].
A listed case that agrees fails too, so the list shrinks as fakeprop catches up. No torch needed.
"""
import json
import os
import pathlib
import re
import subprocess
import tempfile

import pytest

HERE = pathlib.Path(__file__).resolve().parent
GUARD = re.compile(r"\] eval (.*) \[guard added\] at (\S+)$")


def _cases():
    return json.loads((HERE / "cases.json").read_text())["cases"]


def _known():
    out = {}
    for line in (HERE / "known_differences.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            case, _, why = line.partition("  # ")
            out[case.strip()] = why.strip()
    return out


def fakeprop_guards(graph):
    exe = os.environ.get("FAKEPROP_BIN") or str(HERE.parents[1] / "build" / "fakeprop")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(graph, f)
    try:
        proc = subprocess.run([exe, f.name, "--log", "+dynamic", "--json"], capture_output=True, text=True,
                              timeout=60, env={k: v for k, v in os.environ.items() if not k.startswith("TORCH_")})
    finally:
        os.unlink(f.name)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    guards = []
    for line in proc.stderr.splitlines():
        m = GUARD.search(line)
        if m and m.group(2) == "r" and "[guard suppressed]" not in line:
            guards.append(m.group(1))
    return sorted(guards), json.loads(proc.stdout)


def test_known_differences_name_cases():
    names = {c["case"] for c in _cases()}
    assert sorted(set(_known()) - names) == []


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["case"])
def test_guards(case):
    theirs = sorted(g for g in case["guards"])
    ours, report = fakeprop_guards(case["graph"])
    if case["error"] is None:
        assert [e["message"] for e in report["errors"] if e["node"] == "r"] == []
    known = _known().get(case["case"])
    if known:
        assert ours != theirs, "listed as differing (%s) but agrees now: remove it" % known
    else:
        assert ours == theirs
