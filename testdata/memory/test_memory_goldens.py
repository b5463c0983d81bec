"""fakeprop's memory and compute sections against torch's own trackers (the goldens beside this
file, written by scripts/memory_oracle.py; README.md here gives the definition). No torch needed.

    FAKEPROP_BIN=build/fakeprop python3 -m pytest testdata/memory -q

fakeprop runs each graph once, with its sizes symbolic; the figures at each recorded size are its
expressions evaluated there (the compute section's per-node `flops`), and its peak, FLOPs and
live bytes per node there through `fakeprop plan --at`.
"""
import json
import os
import pathlib
import re
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BIN = pathlib.Path(os.environ.get("FAKEPROP_BIN") or ROOT / "build" / "fakeprop")
GOLDENS = sorted(HERE.glob("*.golden.json"))
SOURCE = re.compile(r"^L\['(?P<input>[^']+)'\]\.size\(\)\[(?P<dim>\d+)\]$")


def fakeprop(*args):
    if not os.access(BIN, os.X_OK):
        pytest.skip("no fakeprop binary at %s (set FAKEPROP_BIN)" % BIN)
    p = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, "fakeprop %s: %s" % (" ".join(map(str, args)), p.stderr)
    return json.loads(p.stdout)


_reports = {}


def report_of(graph, *options):
    key = (graph,) + options
    if key not in _reports:
        _reports[key] = fakeprop(graph, "--json", *options)
    return _reports[key]


NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def symbol_values(report, inputs, graph):
    """Each symbol's value at a size: its source names a user input's dim, or a placeholder's dim is
    an increasing expression of it alone (torch.export's `32*s39` for a multiple of 32)."""
    values = {}
    for s in report["symbols"]:
        for source in s.get("sources") or []:
            m = SOURCE.match(source)
            if m and m["input"] in inputs:
                values[s["name"]] = inputs[m["input"]][int(m["dim"])]
                break
    names = {s["name"] for s in report["symbols"]}
    for node in json.loads(graph.read_text())["nodes"]:
        if node["op"] != "placeholder" or node["name"] not in inputs or not isinstance(node.get("val"), dict):
            continue
        for dim, size in zip(node["val"]["shape"], inputs[node["name"]]):
            unknown = set(NAME.findall(str(dim))) & names - set(values)
            if len(unknown) != 1:
                continue
            (name,) = unknown
            lo, hi = 0, max(1, size)
            while lo < hi:  # the smallest value whose dim reaches the size
                mid = (lo + hi) // 2
                if evaluate(str(dim), {**values, name: mid}) < size:
                    lo = mid + 1
                else:
                    hi = mid
            assert evaluate(str(dim), {**values, name: lo}) == size, (dim, size)
            values[name] = lo
    return values


def evaluate(expr, values):
    return eval(expr, {"__builtins__": {}, "max": max, "min": min}, dict(values))


def at_option(values):
    return ",".join("%s=%d" % kv for kv in sorted(values.items()))


def case(golden_path, index):
    """(golden, the size's entry, graph path, fakeprop's report, symbol values at that size)."""
    golden = json.loads(golden_path.read_text())
    size = golden["sizes"][index]
    graph = HERE / golden["graph"]
    report = report_of(graph)
    return golden, size, graph, report, symbol_values(report, size["inputs"], graph)


def plan_at(graph, values, *options):
    """`fakeprop plan --at` at these values: the table's row, or the figures at the hints for a static graph."""
    plan = fakeprop("plan", graph, "--json", *options, *(["--at", at_option(values)] if values else []))
    return plan["table"][0] if values else plan["at_values"]


def cases():
    for path in GOLDENS:
        golden = json.loads(path.read_text())
        for i, size in enumerate(golden["sizes"]):
            yield pytest.param(path, i, id="%s-%s" % (path.name.replace(".golden.json", ""),
                                                       "x".join(str(d) for shape in size["inputs"].values() for d in shape)))


@pytest.mark.parametrize("golden_path,index", list(cases()))
def test_peak_and_flops_match_torch(golden_path, index):
    _, size, graph, report, values = case(golden_path, index)
    assert report["errors"] == [], report["errors"][:3]
    row = plan_at(graph, values)
    assert row["flops"] == size["flops"]
    # Per node: every node torch counts FLOPs for, with the same count.
    ours = {n["node"]: evaluate(n["flops"], values) for n in report["compute"]["nodes"]}
    assert {k: v for k, v in ours.items() if v} == size["flops_by_node"]
    assert row["peak_bytes"] == size["peak_bytes"], "peak at %s (torch: %s)" % (row["peak_node"], size["peak_node"])
    assert row["parameter_bytes"] + row["input_bytes"] == size["parameter_bytes"] + size["input_bytes"]


@pytest.mark.parametrize("golden_path,index", list(cases()))
def test_live_bytes_per_node_match_torch(golden_path, index):
    _, size, graph, report, values = case(golden_path, index)
    order = [n["name"] for n in json.loads(graph.read_text())["nodes"]]
    torch_live = dict(zip(order, size["live_bytes"]))
    # a static graph: the hints are its sizes
    ours = plan_at(graph, values)["live_bytes"] if values else [n["live_hint"] for n in report["memory"]["nodes"]]
    names = [n["node"] for n in report["memory"]["nodes"]]
    differ = [(name, mine, torch_live[name]) for name, mine in zip(names, ours)
              if name in torch_live and mine != torch_live[name]]
    assert len(names) == len(ours) and not differ, "%d node(s) differ, first %s" % (len(differ), differ[:3])


@pytest.mark.parametrize("golden_path,index", list(cases()))
def test_peak_with_512_byte_rounding_matches_torch(golden_path, index):
    _, size, graph, _, values = case(golden_path, index)
    assert plan_at(graph, values, "--alloc-round", "512")["peak_bytes"] == size["peak_bytes_round512"]


def onnx_cases():
    for path in GOLDENS:
        golden = json.loads(path.read_text())
        if "onnx" in golden:
            for i, size in enumerate(golden["sizes"]):
                yield pytest.param(path, i, id="%s-%d" % (golden["onnx"], i))


@pytest.mark.parametrize("golden_path,index", list(onnx_cases()))
def test_onnx_export_counts_the_same_flops(golden_path, index):
    """The same model through torch.onnx.export: the FLOPs torch counts on its own graph."""
    golden = json.loads(golden_path.read_text())
    size = golden["sizes"][index]
    args = []
    for name, shape in size["onnx_inputs"].items():
        args += ["--input", "%s=%s" % (name, ",".join(map(str, shape)))]
    report = report_of(HERE / golden["onnx"], *args)
    assert report["compute"]["flops"]["hint"] == size["flops"]


# ONNX peaks against torch's on the same model (docs/sizing.md, "ONNX peaks"). ONNX Runtime's alias
# ops are views already; what still differs is listed here value by value and must add up exactly:
# initializers (constant over sizes), then the activations live at each side's peak.
ONNX_PARAMETERS = {
    # +val_312 (lm_head's weight transposed: a 2nd copy of the weight torch ties to wte), +27 shape
    # constants (4x16, 15x8, 7x4, 1), -16 LayerNorm weights/biases and biases merged with equal ones
    "gpt2.onnx": 16384 + 213 - 3328,
    # +17 shape constants (2x16, 11x8, 3x4, 1), -21 initializers merged or folded (19x128, 256, 4096)
    "bert.onnx": 133 - 6784,
    # +2 shape constants, -the 20 BatchNorms' weight, bias, running stats (9600) and
    # num_batches_tracked (160): the export folds them into the convolutions
    "resnet18_thin.onnx": 32 - 9760,
    # +15 shape constants, -pos_embed (1280), a qkv bias (768), 11 LayerNorm/bias tensors (11x256), head bias (40)
    "vit_tiny.onnx": 140 - 4904,
}


def onnx_activations(onnx, index, inputs):
    """(why, bytes) for each activation that is live at one side's peak and not the other's."""
    b, s = next(iter(inputs.values()))[:2]
    if onnx == "gpt2.onnx":  # both peak at mul_20, with the same MLP values live
        return [("the mask as float32 [b,1,s,s] (val_160) where torch holds it as bool", 4 * b * s * s - b * s * s),
                ("5 int64 shape tensors (val_126, val_118, val_185, val_196, val_311)", 32 + 4 * 24)]
    if onnx == "bert.onnx":
        if index == 0:  # torch at mul_33, ONNX at Transpose_91: five [b,s,32] and the float mask each
            return [("torch's bool mask (bitwise_and_1), already freed in ONNX", -b * s * s),
                    ("3 int64 shape tensors (val_64, val_94, val_118)", 32 + 32 + 24)]
        if index == 1:  # torch at bmm, ONNX at MatMul_101: the scores, four [b,s,32], the float mask
            return [("torch's bool mask (bitwise_and_1)", -b * s * s), ("2 int64 shape tensors", 32 + 24)]
        heads_scores = b * 2 * s * s * 4
        return [("torch's full_like zeros for fully masked rows (ONNX's Where takes a scalar)", -heads_scores),
                ("torch's bool mask (bitwise_and_1) and logical_not_1", -b * s * s - b * 2 * s),
                ("ONNX's float additive mask [b,1,s,s] (val_102), freed in torch by then", 4 * b * s * s),
                ("a third [b,s,32] (val_106: ONNX's peak is one node later in the layer)", b * s * 32 * 4),
                ("2 int64 shape tensors", 32 + 24)]
    if onnx == "vit_tiny.onnx":
        return [("2 int64 shape tensors (val_70, val_118)", 40 + 24)]
    return []  # resnet18_thin: conv and BN outputs in torch, conv (BN folded) and relu in ONNX: equal sizes


@pytest.mark.parametrize("golden_path,index", list(onnx_cases()))
def test_onnx_export_peak_differs_from_torch_only_as_explained(golden_path, index):
    golden = json.loads(golden_path.read_text())
    size = golden["sizes"][index]
    args = []
    for name, shape in size["onnx_inputs"].items():
        args += ["--input", "%s=%s" % (name, ",".join(map(str, shape)))]
    memory = report_of(HERE / golden["onnx"], *args)["memory"]
    parameters = memory["parameter_bytes"]["hint"] - size["parameter_bytes"]
    assert parameters == ONNX_PARAMETERS[golden["onnx"]]
    activations = onnx_activations(golden["onnx"], index, size["onnx_inputs"])
    assert memory["peak"]["hint"] - size["peak_bytes"] == parameters + sum(n for _, n in activations), activations


def test_readme_is_written_from_the_goldens():
    """README.md's model table and counts are what the goldens give (scripts/memory_oracle.py writes them)."""
    import sys
    sys.path.insert(0, str(HERE))
    import readme_table
    assert readme_table.written_part((HERE / "README.md").read_text()) == readme_table.render(HERE)
