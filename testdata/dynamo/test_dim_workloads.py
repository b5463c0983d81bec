"""The --call replay on every committed scenario's graph with workloads torch compiles: for each
tensor input and each of its dims in turn, three calls where only that dim changes (the example
size, then two others), with the golden's own options. Automatic dynamic then makes that dim
dynamic, whichever it is, so each dim's symbol and the stride guards that follow from it are
exercised. fakeprop must not fail on its input (exit 2) or internally (exit 3): a call torch
compiles is a call the replay takes, compiled or not, until a compile raises a constraint
violation, where the program stops as it does under torch.

Needs no torch: only the binary (FAKEPROP_BIN, default build/fakeprop).
"""
import json
import os
import pathlib
import subprocess

import pytest

from test_dynamo_scenarios import args_without_calls

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GOLDENS = sorted(HERE.glob("*.golden.json"))


def _fakeprop():
    path = os.environ.get("FAKEPROP_BIN") or str(ROOT / "build" / "fakeprop")
    return path if os.access(path, os.X_OK) else None


def _options(golden):
    """The golden's arguments without its own calls."""
    return args_without_calls(golden["fakeprop"]["args"])


def _tensor_inputs(graph):
    """(name, example sizes) of each placeholder with a tensor of integer sizes."""
    out = []
    for n in graph["nodes"]:
        val = n.get("val")
        if n.get("op") != "placeholder" or not isinstance(val, dict) or "shape" not in val:
            continue
        if all(isinstance(d, int) for d in val["shape"]):
            out.append((n.get("target") or n["name"], list(val["shape"])))
    return out


def _cases():
    for path in GOLDENS:
        golden = json.loads(path.read_text())
        graph = json.loads((HERE / golden["graph"]["file"]).read_text())
        inputs = _tensor_inputs(graph)
        for name, shape in inputs:
            for d in range(len(shape)):
                yield pytest.param(path, inputs, name, d, id="%s-%s-%d" % (path.name.split(".")[0], name, d))


def _call(inputs, name, d, size):
    parts = []
    for other, shape in inputs:
        shape = list(shape)
        if other == name:
            shape[d] = size
        parts.append("%s=[%s]" % (other, ",".join(str(s) for s in shape)))
    return ",".join(parts)


@pytest.mark.parametrize("golden_path,inputs,name,dim", list(_cases()))
def test_each_dim_dynamic_in_turn(golden_path, inputs, name, dim):
    exe = _fakeprop()
    if exe is None:
        pytest.skip("no fakeprop binary (set FAKEPROP_BIN)")
    golden = json.loads(golden_path.read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE_"))}
    env.update(golden["fakeprop"]["env"])
    size = dict(inputs)[name][dim]
    cmd = [exe, str(HERE / golden["graph"]["file"])] + _options(golden)
    for s in (size, size + 3, size + 5):
        cmd += ["--call", _call(inputs, name, dim, s)]
    proc = subprocess.run(cmd + ["--json"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 1), "%s exited %d:\n%s" % (" ".join(cmd), proc.returncode, proc.stderr[-3000:])
    recompiles = json.loads(proc.stdout)["recompiles"]
    calls = recompiles["calls"]
    # A compile torch ends with a ConstraintViolationError stops the program at that call.
    stopped = calls and calls[-1]["status"] == "compile_error" and "(the program stops at this call)" in recompiles["log"]
    assert len(calls) == 3 or stopped and len(calls) < 3, recompiles["log"]
