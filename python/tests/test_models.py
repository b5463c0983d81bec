"""fakeprop.propagate over real architectures as torch.export exports them.

Every program scripts/export_programs.py builds is propagated twice, as
exported (torch.export's default IR, which keeps composite ops such as conv2d,
layer_norm and dropout) and after ``ep.run_decompositions()`` (core ATen), and
each must propagate with no error and match torch's own ``meta['val']`` on
every node (check_against_torch). The big ones are marked ``slow``:
``-m "not slow"`` skips them; by default they run.
"""
import math
import pathlib
import sys

import pytest

import fakeprop

torch = pytest.importorskip("torch")
if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("torch.export needs torch 2", allow_module_level=True)
pytest.importorskip("torchvision")
pytest.importorskip("transformers")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import export_programs  # noqa: E402
from test_propagate import _FUNCS, _points, check_against_torch  # noqa: E402

# Image models whose sizes come from a float scale of the image size: checked at a second aspect ratio too.
DETECTION = {"fasterrcnn_mobilenet_v3_large_320_fpn", "retinanet_resnet50_fpn", "fasterrcnn_resnet50_fpn",
             "maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn", "fcos_resnet50_fpn",
             "ssdlite320_mobilenet_v3_large"}
SLOW = {"vit_b_16", "fcn_resnet50", "t5"} | (DETECTION - {"fasterrcnn_mobilenet_v3_large_320_fpn"})

# Known differences, each with why; strict, so a fix shows up as XPASS.
KNOWN = {}

# Guards of fakeprop's that torch.export does not make, by node, for the models they apply to, with
# why; the points where they fail lie outside what the program computes correctly.
KNOWN_GUARDS = {
    node: (DETECTION, "the detection transform pads into a buffer that export sized from the hint and "
                      "slices it to the resized image's size, a float expression of the input size; torch's "
                      "slice takes that end as in range without a guard, so for larger images its shapes are "
                      "not what running the program gives, while fakeprop guards the end against the buffer")
    for node in ("slice_2", "slice_3")  # the height, the width
}

_programs = {}


def _program(name, form):
    """(ExportedProgram or None, why not) for `name` in `form`, built once per module."""
    key = (name, form)
    if key not in _programs:
        if (name, "export") not in _programs:
            try:
                ep, _ = export_programs.build(name)
                _programs[(name, "export")] = (ep, None)
            except Exception as e:  # noqa: BLE001 - the reason is the skip message
                _programs[(name, "export")] = (None, "torch cannot export it: %s" % str(e).splitlines()[0][:300])
        if form == "decomposed":
            ep, why = _programs[(name, "export")]
            if ep is not None:
                try:
                    _programs[key] = (ep.run_decompositions(), None)
                except Exception as e:  # noqa: BLE001
                    _programs[key] = (None, "torch cannot decompose it: %s" % str(e).splitlines()[0][:300])
            else:
                _programs[key] = (None, why)
    return _programs[key]


@pytest.fixture(scope="module", autouse=True)
def _drop_programs():
    yield
    _programs.clear()


def _cases():
    for name in export_programs.NAMES:
        for form in ("export", "decomposed"):
            marks = [pytest.mark.slow] if name in SLOW else []
            if (name, form) in KNOWN:
                marks.append(pytest.mark.xfail(reason=KNOWN[(name, form)], strict=True))
            yield pytest.param(name, form, marks=marks, id="%s-%s" % (name, form))


@pytest.mark.parametrize("name,form", list(_cases()))
def test_program_matches_torch(name, form):
    program, why = _program(name, form)
    if form == "decomposed":  # the last case of `name`: its programs (and weights) can go
        _programs.pop((name, "export"), None)
        _programs.pop((name, "decomposed"), None)
    if program is None:
        pytest.skip(why)
    report = fakeprop.propagate(program)
    assert report["errors"] == [], report["errors"][:3]
    assert check_against_torch(program, report, mixed_ratios=name in DETECTION) > 0
    check_range_contract(name, program, report, mixed_ratios=name in DETECTION)


def check_range_contract(name, program, report, mixed_ratios=False):
    """fakeprop's symbols have the ranges of torch.export's range_constraints (from 2: the trace's
    0/1 convention), and each of its guards holds wherever torch's shapes were checked, so it
    rejects no input the program accepts. (Runtime asserts are left out: the program's own
    _assert_scalar nodes are among them, and the points need not satisfy those. So are the program's
    own guards, torch.export's guards_code, which its module checks on every call and which hold at
    the hints only, where torch traced: the detection transform's resize fixes int(320 / min(h, w) * h).)"""
    by_name = {s["name"]: s for s in report["symbols"]}
    for sym, vr in program.range_constraints.items():
        ours = by_name.get(str(sym))
        if ours is None:  # a symbol fakeprop replaced by an expression of others
            continue
        upper = None if math.isinf(float(vr.upper)) else int(vr.upper)
        assert ours["range"] == [max(int(vr.lower), 2), upper], (str(sym), ours["range"], vr)
    for k, values in enumerate(_points(report, program, mixed_ratios)):
        for g in report["guards"]:
            if g["rule"] == "guards_code" and k > 0:
                continue
            if name not in KNOWN_GUARDS.get(g["node"], ((),))[0]:
                assert eval(g["sym_expr"], dict(_FUNCS), dict(values)), (g, values)  # noqa: S307
