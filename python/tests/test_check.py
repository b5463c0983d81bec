"""fakeprop.check runs the CLI's check tests (testdata/lit/onnx/check.test and the check cases of
testdata/lit/cli/op_rules.test): each scenario through the CLI and through the package, in the same
directory, gives the same --json document byte for byte, the same summary, errors and exit code,
and --update writes the same baseline file."""
import json
import os
import shutil
import subprocess

import pytest

import fakeprop
from conftest import TESTDATA

SAMPLES = TESTDATA / "samples"
LIT = TESTDATA / "lit"


def generate(script, *args):
    """Runs one of the lit tests' model writers (they need onnx, as lit's Python has it)."""
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
    out = subprocess.run([python, str(script), *map(str, args)], capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("cannot write the test's models (%s): %s" % (script.name, out.stderr.strip()[-200:]))


def cli_flags(kwargs):
    """The CLI flags for the package's keywords this test uses."""
    flags = []
    for name, value in kwargs.items():
        if name == "inputs":
            for k, dims in value.items():
                flags += ["--input", "%s=%s" % (k, ",".join(map(str, dims)))]
        elif name == "op_rules":
            flags += ["--op-rules", str(value)]
        elif name in ("update", "nodes") and value:
            flags.append("--" + name)
        elif name == "shard":
            flags += ["--shard", value]
        elif name == "jobs":
            flags += ["-j", str(value)]
        elif name == "max_peak_growth":
            flags += ["--max-peak-growth", str(value)]
        else:
            raise AssertionError("no flag for %s" % name)
    return flags


def same_as_cli(cli, models, baseline, **kwargs):
    """Checks through the CLI (--json, then the text) and the package; asserts they agree, returns
    the package's result. With update, each writes the baselines and the files must be equal."""
    models = [str(m) for m in models]
    args = ["check", *models, "--baseline", str(baseline), *cli_flags(kwargs)]
    written = {}
    as_json = cli(*args, "--json")
    if kwargs.get("update"):
        written = {p: open(p, "rb").read() for p in baseline_files(models, baseline)}
    as_text = cli(*args)
    result = fakeprop.check(models if len(models) > 1 else models[0], baseline=baseline, **kwargs)
    assert result.json == as_json.stdout
    assert result.exit_code == as_json.returncode == as_text.returncode, as_text.stderr
    assert result.summary == as_text.stdout
    assert ["fakeprop: error: " + e for e in result.errors] == as_text.stderr.splitlines()
    for path, data in written.items():
        assert open(path, "rb").read() == data, path
    return result


def baseline_files(models, baseline):
    if os.path.isdir(baseline):
        return [os.path.join(baseline, os.path.basename(m) + ".baseline.json") for m in models]
    return [str(baseline)]


def test_check_test_scenarios(cli, tmp_path):
    """testdata/lit/onnx/check.test, case by case."""
    base = tmp_path / "base"
    base.mkdir()
    model = tmp_path / "model.onnx"
    shutil.copy(SAMPLES / "classifier_10.onnx", model)
    hints = {"inputs": {"x": [4, 16]}}

    r = same_as_cli(cli, [model], base, update=True, **hints)
    assert r.status == "updated" and r.summary == "%s: baseline written to %s\n" % (model, base / "model.onnx.baseline.json")

    r = same_as_cli(cli, [model], base, **hints)  # SAME
    assert (r.status, r.exit_code, r.changes) == ("ok", 0, [])

    shutil.copy(SAMPLES / "classifier_12.onnx", model)  # REGRESS
    r = same_as_cli(cli, [model], base, **hints)
    assert (r.status, r.exit_code) == ("regressed", 1)
    assert [(c["kind"], c["what"]) for c in r.regressions] == [
        ("output_shape", """output 'probs': ["L['x'].size()[0]","10"] -> ["L['x'].size()[0]","12"]""")]

    r = same_as_cli(cli, [tmp_path / "other.onnx"], base)  # BAD: no baseline
    assert (r.status, r.exit_code) == ("error", 2)
    assert "no baseline: create it with --update" in r.errors[0]

    shutil.copy(SAMPLES / "classifier_10_relu.onnx", model)  # HARMLESS
    r = same_as_cli(cli, [model], base, **hints)
    assert (r.status, r.regressions) == ("ok", [])

    saved = base / "model.onnx.baseline.json"  # GREW: a smaller recorded peak is a note
    b = json.loads(saved.read_text())
    b["memory"]["peak_hint"] -= 1
    saved.write_text(json.dumps(b))
    r = same_as_cli(cli, [model], base, **hints)
    assert r.status == "ok" and "peak_memory_grew" in [c["kind"] for c in r.changes]
    r = same_as_cli(cli, [model], base, max_peak_growth=0, **hints)  # GATE / UNDER: --max-peak-growth
    assert r.status == "regressed" and [c["kind"] for c in r.regressions] == ["peak_memory_grew"]
    assert same_as_cli(cli, [model], base, max_peak_growth=50, **hints).status == "ok"

    contract = tmp_path / "contract"  # ASSERT / DROPPED: runtime asserts are in the contract
    generate(LIT / "onnx" / "Inputs" / "check_models.py", contract)
    relu, pairs = contract / "relu.onnx", contract / "pairs.onnx"
    same_as_cli(cli, [relu], tmp_path / "relu.json", update=True)
    same_as_cli(cli, [pairs], tmp_path / "pairs.json", update=True)
    r = same_as_cli(cli, [pairs], tmp_path / "relu.json")
    assert r.status == "regressed"
    assert ("new_runtime_assert", "(L['x'].size()[0] % 2) == 0") in [(c["kind"], c["what"]) for c in r.regressions]
    r = same_as_cli(cli, [relu], tmp_path / "pairs.json")
    assert ("removed_runtime_assert", False) in [(c["kind"], c["regression"]) for c in r.changes]

    hinted = tmp_path / "relu_hinted.json"  # RECORDED / OWN / OTHER: a baseline's options
    same_as_cli(cli, [relu], hinted, update=True, inputs={"x": [6, 4]})
    recorded = json.loads(hinted.read_text())
    assert recorded["options"] == ["--input", "x=6,4"] and recorded["fakeprop_version"]
    r = same_as_cli(cli, [relu], hinted)
    assert (r.status, r.changes) == ("ok", [])
    r = same_as_cli(cli, [relu], hinted, inputs={"x": [8, 4]})
    assert r.status == "ok"
    assert r.changes[0]["kind"] == "options_changed"
    assert r.changes[0]["what"].startswith('options ["--input","x=6,4"] -> ["--input","x=8,4"]')


def test_op_rules_check_scenarios(cli, tmp_path):
    """The check cases of testdata/lit/cli/op_rules.test: the rules' digest, not their path."""
    model = tmp_path / "private.onnx"
    generate(LIT / "cli" / "Inputs" / "op_rules" / "private_op.py", model)
    rules = SAMPLES / "custom_ops.rules"
    same = tmp_path / "same.txt"
    shutil.copy(rules, same)
    changed = tmp_path / "changed.txt"
    changed.write_text(rules.read_text().replace("reps = 2", "reps = 2  # default")
                       .replace("x.shape[0] * reps", "x.shape[0] * reps * 2"))
    base = tmp_path / "base.json"
    same_as_cli(cli, [model], base, op_rules=rules, update=True, nodes=True)
    r = same_as_cli(cli, [model], base, op_rules=same, nodes=True)  # SAME
    assert (r.status, r.changes) == ("ok", [])
    r = same_as_cli(cli, [model], base, op_rules=changed, nodes=True)  # CHANGED
    assert r.status == "ok" and len(r.changes) == 5 and r.regressions == []
    assert r.changes[0]["kind"] == "op_rules_changed"
    r = same_as_cli(cli, [model], base, nodes=True)  # DROPPED
    assert "op rules no longer given" in r.changes[0]["what"]


def test_several_models_shards_and_jobs(cli, tmp_path):
    """A baseline directory, several models, -j and --shard, as check.md's CI matrix runs them."""
    base = tmp_path / "base"
    base.mkdir()
    models = []
    for name in ("classifier_10", "classifier_12", "classifier_10_relu"):
        models.append(tmp_path / (name + ".onnx"))
        shutil.copy(SAMPLES / (name + ".onnx"), models[-1])
    same_as_cli(cli, models, base, update=True, jobs=2)
    shutil.copy(SAMPLES / "classifier_12.onnx", models[0])
    r = same_as_cli(cli, models, base, jobs=3)
    assert r.status == "regressed" and {c["model"] for c in r.regressions} == {str(models[0])}
    for shard in ("1/2", "2/2"):
        r = same_as_cli(cli, models, base, shard=shard)
        assert len(r.models) == (2 if shard == "1/2" else 1)


def test_bad_requests_raise_in_python_terms(cli, tmp_path):
    """Where the CLI exits 2 before any model runs, the package raises InputError, worded for Python."""
    model = SAMPLES / "classifier_10.onnx"
    assert cli("check", model, "--baseline", tmp_path / "b.json", "--shard", "3/2").returncode == 2
    with pytest.raises(fakeprop.InputError, match=r"^shard='3/2': expected 'K/N' or \(K, N\)"):
        fakeprop.check(model, baseline=tmp_path / "b.json", shard="3/2")
    with pytest.raises(fakeprop.InputError, match="shard=.0, 4."):
        fakeprop.check(model, baseline=tmp_path / "b.json", shard=(0, 4))
    assert cli("check", model, model, "--baseline", tmp_path / "b.json").returncode == 2
    with pytest.raises(fakeprop.InputError, match="^baseline=.*: checking several models needs a baseline directory"):
        fakeprop.check([model, model], baseline=tmp_path / "b.json")
    with pytest.raises(fakeprop.InputError, match=r"^inputs\['x'\]\[0\] = -1 is not a size"):
        fakeprop.check(model, baseline=tmp_path / "b.json", inputs={"x": [-1, 16]})
    with pytest.raises(fakeprop.InputError, match="^max_peak_growth must be a percentage"):
        fakeprop.check(model, baseline=tmp_path / "b.json", max_peak_growth=-1)
    with pytest.raises(fakeprop.InputError, match="^jobs must be a positive int"):
        fakeprop.check(model, baseline=tmp_path / "b.json", jobs=0)
    with pytest.raises(fakeprop.InputError, match="^real_inputs: check takes paths"):
        fakeprop.check(model, baseline=tmp_path / "b.json", real_inputs={"x": [[1.0] * 16] * 4})
    with pytest.raises(fakeprop.InputError, match="^models: no model"):
        fakeprop.check([], baseline=tmp_path)
    with pytest.raises(TypeError):
        fakeprop.check(model)  # baseline is required, as --baseline is


def test_result_reads_as_the_document(tmp_path):
    model = tmp_path / "m.onnx"
    shutil.copy(SAMPLES / "classifier_10.onnx", model)
    fakeprop.check(model, baseline=tmp_path / "b.json", update=True, inputs={"x": [4, 16]})
    shutil.copy(SAMPLES / "classifier_12.onnx", model)
    r = fakeprop.check(model, baseline=tmp_path / "b.json", inputs={"x": [4, 16]})
    assert r.models == json.loads(r.json)
    assert r.models[0]["status"] == "regressed" and r.models[0]["baseline"] == str(tmp_path / "b.json")
    assert r.regressions == [dict(c, model=str(model)) for c in r.models[0]["changes"] if c["regression"]]
    assert repr(r).startswith("<fakeprop.CheckResult regressed: 1 models")
