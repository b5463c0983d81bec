"""fakeprop.infer on model files: the CLI's report and errors, through the real extension."""
import json
import os

import pytest

import fakeprop
from fakeprop import _core
from conftest import TESTDATA

ATTENTION = TESTDATA / "samples" / "tiny_attention.onnx"
ADD_RELU = TESTDATA / "fx" / "add_relu.json"


def test_report_is_the_cli_json(cli):
    report = fakeprop.infer(ATTENTION, inputs={"x": [2, 8, 32]})
    out = cli(ATTENTION, "--input", "x=2,8,32", "--json")
    assert out.returncode == 0, out.stderr
    assert report == json.loads(out.stdout)
    assert report["model"]["kind"] == "onnx"
    assert any(g["expr"] for g in report["guards"])


def test_fx_json_report_is_the_cli_json(cli):
    report = fakeprop.infer(str(ADD_RELU), dynamic="x:0", marks=["y:0=maybe_dynamic"])
    out = cli(ADD_RELU, "--dynamic", "x:0", "--mark", "y:0=maybe_dynamic", "--json")
    assert out.returncode == 0, out.stderr
    assert report == json.loads(out.stdout)


# Models whose reports hold what a JSON text spells specially: exports with dim_params and guards,
# contrib ops, an If, sequences and optionals, hostile sizes; infer builds its Python objects
# straight from the report, so each must read as the CLI's JSON does.
MIXED_MODELS = sorted(
    [p for p in (TESTDATA / "onnx" / "exports").glob("*.onnx")]
    + [p for p in (TESTDATA / "onnx" / "contrib_ops").glob("*.onnx")][:12]
    + [p for p in (TESTDATA / "fuzz_regressions" / "onnx_model").glob("*.onnx")])


@pytest.mark.parametrize("model", MIXED_MODELS, ids=lambda p: p.parent.name + "/" + p.stem)
def test_reports_read_as_the_cli_json(cli, model):
    out = cli(model, "--json")
    if out.returncode not in (0, 1):  # an input error: the same text as an exception
        with pytest.raises(fakeprop.Error) as e:
            fakeprop.infer(model)
        assert str(e.value) in out.stderr
        return
    assert fakeprop.infer(model) == json.loads(out.stdout)


def test_options_reach_the_run():
    static = fakeprop.infer(ADD_RELU)
    dynamic = fakeprop.infer(ADD_RELU, dynamic=["x:0", "y:0"])
    assert static["symbols"] == []
    # Dynamic sources get a symbol each (DimDynamic.DYNAMIC); the add unifies them with a guard.
    assert [s["sources"] for s in dynamic["symbols"]] == [["L['x'].size()[0]"], ["L['y'].size()[0]"]]
    assert "L['y'].size()[0] == L['x'].size()[0]" in [g["expr"] for g in dynamic["guards"]]
    # dynamic=True (assume_static_by_default off) duck sizes equal sizes into one symbol.
    duck = fakeprop.infer(ADD_RELU, assume_static_by_default=False)
    assert [s["sources"] for s in duck["symbols"]][0] == ["L['x'].size()[0]", "L['y'].size()[0]"]
    shape = dynamic["outputs"][0]["val"]["shape"]
    assert isinstance(shape[0], str) and shape[1] == static["outputs"][0]["val"]["shape"][1]
    no_zero_one = fakeprop.infer(ADD_RELU, dynamic="x", inputs={"x": [1, 8], "y": [1, 8]},
                                 specialize_zero_one=False)
    assert any(s["hint"] == 1 for s in no_zero_one["symbols"])


def _cli_error_line(cli, *args):
    out = cli(*args)
    assert out.returncode == 2
    assert out.stderr.startswith("fakeprop: error: ")
    return out.stderr[len("fakeprop: error: "):].rstrip("\n")


def test_missing_file_is_input_error_with_cli_text(cli, tmp_path):
    missing = tmp_path / "nope.onnx"
    with pytest.raises(fakeprop.InputError) as e:
        fakeprop.infer(missing)
    assert str(e.value) == _cli_error_line(cli, missing)
    assert "nope.onnx" in str(e.value)


def test_directory_is_input_error_with_cli_text(cli, tmp_path):
    with pytest.raises(fakeprop.InputError) as e:
        fakeprop.infer(tmp_path)
    assert str(e.value) == _cli_error_line(cli, tmp_path)
    assert str(e.value) == "%s: is a directory, not a regular file; fakeprop reads only regular files" % tmp_path


def test_every_option_key_is_one_the_extension_knows():
    # api.py sends only the options that differ from the CLI's defaults; a key
    # the extension does not know would be a typo that silently did nothing.
    from fakeprop import _core
    with pytest.raises(KeyError, match="unknown option no_such_option"):
        _core.run_file(str(ADD_RELU), {"no_such_option": True})
    everything = fakeprop.api._run_args(dict(
        dynamic=["x:0"], unbacked=["y:0"], static=["y:1"], log="dynamic", marks=["x:1=static"], inputs={"x": [2, 8], "y": [2, 8]},
        device="cuda", specialize_zero_one=False, duck_shape=False, backed_size_oblivious=True,
        assume_static_by_default=False, strict=True, explain_guard="Eq", explain_symbol=["s0"], op_rules=[],
        unbacked_values={"u0": 3}, max_nodes=1000, max_program_bytes=1 << 20, max_compression_ratio=60,
        alloc_round=512, dtype_bytes={"float32": 2}))
    # Every row of the option table but the files (op_rules, real_inputs) is sent.
    table = {key for _flag, _keyword, key, _kind, _help in _core.infer_flags()}
    assert set(everything) == table - {"op_rules", "real_inputs"}
    report, _ = _core.run_file(str(ADD_RELU), everything)
    assert report["device"] == "cuda:0"
    assert any(s["name"].startswith("u") for s in report["symbols"])  # unbacked=["y:0"] reached the run


def test_garbage_model_is_input_error_with_cli_text(cli, tmp_path):
    bad = tmp_path / "garbage.onnx"
    bad.write_bytes(b"\x08\x07\x12\x04junk\xff\xff\xff")
    with pytest.raises(fakeprop.InputError) as e:
        fakeprop.infer(bad)
    assert str(e.value) == _cli_error_line(cli, bad)
    assert bad.read_bytes() == b"\x08\x07\x12\x04junk\xff\xff\xff"  # the input is never touched


def test_malformed_option_is_input_error_with_cli_text(cli):
    with pytest.raises(fakeprop.InputError) as e:
        fakeprop.infer(ADD_RELU, marks="x:0=sometimes")
    assert str(e.value) == _cli_error_line(cli, ADD_RELU, "--mark", "x:0=sometimes")
    # A size the package checks itself is said in Python's terms, not the option's.
    with pytest.raises(fakeprop.InputError) as e:
        fakeprop.infer(ADD_RELU, inputs={"x": [-1, 8]})
    assert str(e.value) == "inputs['x'][0] = -1 is not a size (a non-negative integer)"
    assert "'-1' is not a size" in _cli_error_line(cli, ADD_RELU, "--input", "x=-1,8")
    # A spec naming no input is ignored, as torch.compile ignores it.
    fakeprop.infer(ADD_RELU, dynamic="nosuchinput")


def test_wrong_argument_types_are_type_errors():
    with pytest.raises(TypeError):
        fakeprop.infer(ADD_RELU, dynamic=3)


def test_constraint_violation_carries_the_report(cli):
    args = dict(marks="x:0=dynamic,min=1", inputs={"x": [1, 8], "y": [1, 8]})
    with pytest.raises(fakeprop.ConstraintViolationError) as e:
        fakeprop.infer(ADD_RELU, **args)
    assert "Constraints violated (L['x'].size()[0])!" in str(e.value)
    out = cli(ADD_RELU, "--mark", "x:0=dynamic,min=1", "--input", "x=1,8", "--input", "y=1,8", "--json")
    assert out.returncode == 1
    assert e.value.report == json.loads(out.stdout)


def test_strict_rejects_a_data_dependent_error(cli):
    model = TESTDATA / "samples" / "item_chunk.json"
    report = fakeprop.infer(model)
    assert report["errors"]
    with pytest.raises(fakeprop.StrictModeError) as e:
        fakeprop.infer(model, strict=True)
    assert e.value.report == report
    assert cli(model, "--strict").returncode == 1
    assert report["errors"][0]["message"] in str(e.value)


def test_errors_share_one_base():
    for cls in (fakeprop.InputError, fakeprop.InternalError, fakeprop.ConstraintViolationError,
                fakeprop.StrictModeError):
        assert issubclass(cls, fakeprop.Error)


def test_pt2_archive_report_is_the_cli_json(cli):
    archive = TESTDATA / "pt2" / "mlp.pt2"
    report = fakeprop.infer(archive, dynamic="x")
    out = cli(archive, "--dynamic", "x", "--json")
    assert out.returncode == 0, out.stderr
    assert report == json.loads(out.stdout)
    assert report["model"]["kind"] == "pt2"
    assert report["errors"] == []


def test_truncated_pt2_is_input_error_with_cli_text(cli, tmp_path):
    data = (TESTDATA / "pt2" / "mlp.pt2").read_bytes()
    bad = tmp_path / "cut.pt2"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(fakeprop.InputError) as e:
        fakeprop.infer(bad)
    assert str(e.value) == _cli_error_line(cli, bad)


def test_html_report_is_the_clis(cli, tmp_path):
    """infer(html=) writes the page `--html` writes: the viewer with the report embedded."""
    page = tmp_path / "report.html"
    report = fakeprop.infer(ATTENTION, inputs={"x": [2, 8, 32]}, html=page)
    out = cli(ATTENTION, "--input", "x=2,8,32", "--html", tmp_path / "cli.html")
    assert out.returncode == 0, out.stderr
    assert page.read_bytes() == (tmp_path / "cli.html").read_bytes()
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and report["guards"][0]["expr"].replace("<", "\\u003c") in text
    with pytest.raises(fakeprop.InputError, match="refusing to overwrite the input model"):
        fakeprop.infer(ATTENTION, html=ATTENTION)


def test_unbacked_values_decide_what_would_stop_the_run(cli):
    """unbacked_values= is --unbacked-value: the decision is a runtime assert, listed apart."""
    model = TESTDATA / "samples" / "item_chunk.json"
    stopped = fakeprop.infer(model)
    assert [e["kind"] for e in stopped["errors"]] == ["data_dependent", "unknown_input", "unknown_input"]
    report = fakeprop.infer(model, unbacked_values={"u0": 3})
    assert report["errors"] == [] and report["guards"] == []
    assert [d["expr"] for d in report["real_value_decisions"]][0] == "u0 == 0"
    assert "u0 != 0" in [a["expr"] for a in report["runtime_asserts"]]
    out = cli(model, "--unbacked-value", "u0=3", "--json")
    assert out.returncode == 0 and json.loads(out.stdout) == report


def _varint(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):
    """One protobuf field: an int is a varint, bytes or str a length-delimited value."""
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _relu_chain_onnx(n):
    """An ONNX model (hand-encoded: no onnx package) of n Relu nodes over x[batch]."""
    dim = _field(1, _field(2, "batch"))  # TensorShapeProto.dim { dim_param }
    tensor_type = _field(1, 1) + _field(2, dim)  # elem_type float, shape
    x = _field(1, "x") + _field(2, _field(1, tensor_type))
    nodes = b"".join(
        _field(1, _field(1, "x" if i == 0 else f"v{i - 1}") + _field(2, f"v{i}") + _field(4, "Relu"))
        for i in range(n))
    graph = nodes + _field(2, "chain") + _field(11, x) + _field(12, _field(1, f"v{n - 1}"))
    return _field(1, 8) + _field(7, graph) + _field(8, _field(2, 17))


def test_a_host_process_keeps_its_heap(tmp_path, cli):
    # malloc_trim hands the whole process's free heap back, which in a process that has freed much
    # costs tens of milliseconds a time: the package never trims; the CLI trims a large graph.
    path = tmp_path / "chain.onnx"
    path.write_bytes(_relu_chain_onnx(120_000))
    garbage = [bytes(64) + bytes([i % 256]) for i in range(400_000)]  # a heap with many small blocks
    del garbage
    before = _core.heap_trims_done()
    report = fakeprop.infer(path)
    assert _core.heap_trims_done() == before
    assert report["outputs"][0]["val"]["shape"] == ["batch"]
    assert report == json.loads(cli(path, "--json").stdout)


def _dynamo_keywords(args):
    """The infer keywords for a testdata/dynamo golden's CLI arguments (the options those use)."""
    kw, i = {"marks": [], "calls": []}, 0
    while i < len(args):
        a = args[i]
        if a == "--mark":
            kw["marks"].append(args[i + 1])
        elif a == "--call":
            kw["calls"].append(args[i + 1])
        elif a == "--recompile-limit":
            kw["recompile_limit"] = int(args[i + 1])
        elif a == "--no-assume-static-by-default":
            kw["assume_static_by_default"] = False
            i -= 1
        else:
            raise AssertionError("an option this test does not map: %s" % a)
        i += 2
    return kw


DYNAMO_GOLDENS = sorted((TESTDATA / "dynamo").glob("*.golden.json"))


@pytest.mark.parametrize("golden", DYNAMO_GOLDENS, ids=lambda p: p.name[: -len(".golden.json")])
def test_dynamo_scenarios_through_the_package_are_the_clis(cli, golden, tmp_path, monkeypatch):
    # The package runs the CLI's pipeline (driver/request.h): calls, recompile limit, trace directory.
    g = json.loads(golden.read_text())
    graph = golden.parent / g["graph"]["file"]
    for key in [k for k in os.environ if k.startswith(("TORCH_COMPILE_", "TORCH_TRACE", "TORCH_LOGS"))]:
        monkeypatch.delenv(key)
    for key, value in g["fakeprop"]["env"].items():
        monkeypatch.setenv(key, value)
    args = g["fakeprop"]["args"]
    try:
        report = fakeprop.infer(graph, trace_dir=tmp_path / "package", **_dynamo_keywords(args))
    except (fakeprop.ConstraintViolationError, fakeprop.StrictModeError) as e:
        report = e.report
    out = cli(graph, *args, "--json", "--trace-dir", tmp_path / "cli")
    assert out.returncode in (0, 1), out.stderr
    assert report == json.loads(out.stdout)
    lines = [len(next((tmp_path / d).glob("*.log")).read_text().splitlines()) for d in ("package", "cli")]
    assert lines[0] == lines[1] > 0


def test_stats_and_a_workload_file(cli, tmp_path):
    workload = tmp_path / "calls.json"
    workload.write_text(json.dumps([{"x": [16]}, {"x": [24]}, {"x": [12]}]))
    model = TESTDATA / "samples" / "reshape_by_8.onnx"
    report = fakeprop.infer(model, workload=workload, stats=True)
    out = json.loads(cli(model, "--workload", workload, "--stats", "--json").stdout)
    assert report["recompiles"] == out["recompiles"] and report["recompiles"]["compiles"] >= 2
    assert set(report["stats"]) == set(out["stats"]) == {"nodes", "phases", "dispatch_cache"}
    with pytest.raises(fakeprop.InputError, match="recompile_limit must be a positive int"):
        fakeprop.infer(model, calls=["x=[16]"], recompile_limit=0)


def test_sizing_keywords_are_the_cli_flags(cli):
    """alloc_round and dtype_bytes, rows of the option table, reach infer as --alloc-round and --dtype-bytes."""
    report = fakeprop.infer(ATTENTION, inputs={"x": [2, 8, 32]}, alloc_round=512, dtype_bytes={"float32": 2})
    out = cli(ATTENTION, "--input", "x=2,8,32", "--alloc-round", "512", "--dtype-bytes", "float32=2", "--json")
    assert out.returncode == 0, out.stderr
    assert report == json.loads(out.stdout)
    assert report["memory"] != fakeprop.infer(ATTENTION, inputs={"x": [2, 8, 32]})["memory"]
    with pytest.raises(fakeprop.InputError, match="^alloc_round must be an int >= 0"):
        fakeprop.infer(ATTENTION, alloc_round=-1)
