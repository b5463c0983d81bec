"""fakeprop's guards against current PyTorch's, one ATen op at a time on backed symbolic sizes.

cases.json (scripts/gen_sym_guard_goldens.py, torch version inside) holds, per case, a fakeprop.fx/1
graph and the guards torch's ShapeEnv added while the op (node `r`) ran under FakeTensorMode.
fakeprop runs the graph with `--log +dynamic` and its `eval ... [guard added] at r` lines must be
the same set. The cases where they differ are listed in known_differences.txt with a tag and
the reason: [gap] (fakeprop's shortfall), [text] (the same condition printed differently),
[deliberate] (fakeprop follows torch.compile / torch.export where this op-level run of torch does
not, e.g. it runs without the python dispatcher that Dynamo and export trace with) or [torch-bug].
A listed case that agrees fails too, so the list shrinks as fakeprop catches up. Each case's
output sizes must also equal torch's (`out`) wherever torch's guards hold. No torch needed.
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


# The names torch's and fakeprop's size texts use, as Python functions.
_FUNCS = {"Mod": lambda a, b: a % b, "FloorDiv": lambda a, b: a // b, "Max": max, "Min": min,
          "CeilDiv": lambda a, b: -(-a // b), "Eq": lambda a, b: a == b, "Ne": lambda a, b: a != b}


def _at(dim, point):
    return dim if isinstance(dim, int) else eval(dim, dict(_FUNCS), dict(point))  # noqa: S307 - our own goldens


def _points(case):
    """The hints, and their multiples by 2 and 3 and the hints plus 4, where torch's guards hold."""
    hints = {k: v["hint"] for k, v in case["graph"]["symbols"].items()}
    points = []
    for f in (lambda h: h, lambda h: 2 * h, lambda h: 3 * h, lambda h: h + 4):
        p = {k: f(v) for k, v in hints.items()}
        if all(_at(g, p) for g in case["guards"]):
            points.append(p)
    return points


def _shapes(out):
    if out is None:
        return []
    if isinstance(out, dict):
        return [out["shape"]]
    return [s for o in out for s in _shapes(o)]


@pytest.mark.parametrize("case", [c for c in _cases() if c["error"] is None], ids=lambda c: c["case"])
def test_output_sizes(case):
    """fakeprop's output sizes equal torch's wherever torch's guards hold (at least the hints)."""
    _, report = fakeprop_guards(case["graph"])
    rec = next(n for n in report["nodes"] if n["name"] == "r")
    val = rec["outputs"][0]["val"]
    ours = _shapes(val if isinstance(val, dict) else [v for v in val]) if val is not None else []
    theirs = _shapes(case["out"])
    assert len(ours) == len(theirs)
    points = _points(case)
    assert points, "torch's guards fail at its own hints"
    for p in points:
        assert [[_at(d, p) for d in s] for s in ours] == [[_at(d, p) for d in s] for s in theirs], p
