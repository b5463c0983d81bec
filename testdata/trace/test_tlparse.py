"""The real tlparse over fakeprop's --trace-dir logs: its index lists every compile (one per
--call compile), and each compile's page shows fakeprop's guards and specializations.

Run by .ci/run with .venv-oracle's pytest (scripts/setup.sh --torch installs tlparse from the
package index); FAKEPROP_BIN names the binary."""
import glob
import html
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "testdata" / "samples"


def _executable(path):
    return path if path and os.access(path, os.X_OK) else None


@pytest.fixture(scope="module")
def fakeprop():
    path = _executable(os.environ.get("FAKEPROP_BIN")) or _executable(str(ROOT / "build" / "fakeprop"))
    if not path:
        pytest.skip("no fakeprop binary: set FAKEPROP_BIN")
    return path


@pytest.fixture(scope="module")
def tlparse():
    path = _executable(shutil.which("tlparse")) or _executable(str(pathlib.Path(sys.executable).parent / "tlparse"))
    if not path:
        pytest.skip("tlparse is not installed (scripts/setup.sh --torch installs it; CI must have it)")
    return path


def _trace_and_parse(fakeprop, tlparse, tmp_path, *args):
    trace_dir, out = tmp_path / "trace", tmp_path / "tl_out"
    run = subprocess.run([fakeprop, *map(str, args), "--trace-dir", str(trace_dir)], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    logs = glob.glob(str(trace_dir / "dedicated_log_torch_trace_*.log"))
    assert len(logs) == 1
    parsed = subprocess.run([tlparse, logs[0], "--no-browser", "--overwrite", "--strict", "-o", str(out)],
                            capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr
    return out


def _page(out, compile_dir, prefix):
    """The text of the compile's page whose name starts with `prefix`, HTML entities decoded."""
    pages = sorted((out / compile_dir).glob(prefix + "_*"))
    assert pages, "no %s in %s: %s" % (prefix, compile_dir, sorted(p.name for p in (out / compile_dir).iterdir()))
    return html.unescape(pages[0].read_text())


def test_one_compile_shows_its_guard_and_guard_set(fakeprop, tlparse, tmp_path):
    out = _trace_and_parse(fakeprop, tlparse, tmp_path, SAMPLES / "tiny_attention.onnx", "--input", "x=2,8,32")
    index = (out / "index.html").read_text()
    assert 'id="[0/0]"' in index and 'id="[0/1]"' not in index
    metrics = _page(out, "-_0_0_0", "compilation_metrics")
    assert "Eq(Mod(batch*seq, 2), 0)" in metrics  # the Guards added fast table
    assert "pair_tokens" in metrics  # the node, as the guard's user frame
    guards = _page(out, "-_0_0_0", "dynamo_guards")
    assert "((L['x'].size()[0]*L['x'].size()[1]) % 2) == 0" in guards


def test_recompiles_are_compiles_with_their_reasons(fakeprop, tlparse, tmp_path):
    out = _trace_and_parse(fakeprop, tlparse, tmp_path, SAMPLES / "reshape_by_8.onnx",
                           "--call", "x=[16]", "--call", "x=[24]", "--call", "x=[12]")
    index = (out / "index.html").read_text()
    for cid in ("[0/0]", "[0/1]", "[0/2]"):
        assert 'id="%s"' % cid in index
    assert "Eq(Mod(s77, 8), 0)" in _page(out, "-_0_1_0", "compilation_metrics")
    assert "expected 16, actual 24" in _page(out, "-_0_1_0", "recompile_reasons")
    # the third compile's Reshape cannot take 12 elements: a failed compile, listed as a failure
    assert "Reshape: s77 elements do not divide into [-1, 8]" in _page(out, "-_0_2_0", "compilation_metrics")
    failures = html.unescape((out / "failures_and_restarts.html").read_text())
    assert "[0/2]" in failures and "shape_mismatch" in failures


def test_specializations_table(fakeprop, tlparse, tmp_path):
    out = _trace_and_parse(fakeprop, tlparse, tmp_path, ROOT / "testdata" / "fx" / "add_relu.json",
                           "--mark", "x:0=maybe_dynamic")
    metrics = _page(out, "-_0_0_0", "compilation_metrics")
    assert "Symbolic shape specializations" in metrics
    assert "<td>s77</td>" in metrics and "L['x'].size()[0]" in metrics
    assert "Eq(s77, 4)" in metrics


def test_data_dependent_error_fails_the_compile(fakeprop, tlparse, tmp_path):
    out = _trace_and_parse(fakeprop, tlparse, tmp_path, SAMPLES / "item_chunk.json")
    assert "status-error" in (out / "index.html").read_text()
    metrics = _page(out, "-_0_0_0", "compilation_metrics")
    assert "GuardOnDataDependentSymNode" in metrics
    assert "Could not guard on data-dependent expression Eq(u0, 0)" in metrics
