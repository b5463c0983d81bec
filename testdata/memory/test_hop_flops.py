"""FLOPs inside higher-order ops: fakeprop's compute section on the committed HOP archives
(testdata/pt2/hop_*.pt2) against FlopCounterMode's counts in hop_flops.json (written by
`scripts/gen_hop_archives.py --flops`; what torch counts and what it refuses: its docstring and
docs/sizing.md). No torch needed.

    FAKEPROP_BIN=build/fakeprop python3 -m pytest testdata/memory/test_hop_flops.py -q
"""
import json
import pathlib

import pytest

from test_memory_goldens import evaluate, fakeprop

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = json.loads((HERE / "hop_flops.json").read_text())


def _cases():
    for name, program in sorted(GOLDEN["programs"].items()):
        for i, size in enumerate(program["sizes"]):
            yield pytest.param(name, i, id="%s-%s" % (name, "_".join("x".join(map(str, s)) for s in size["inputs"])))


_reports = {}


def _report(name):
    if name not in _reports:
        _reports[name] = fakeprop(HERE / GOLDEN["programs"][name]["archive"], "--json")
    return _reports[name]


def _symbol_values(report, shapes):
    """Each symbol at this size, from its source (L['xs'].size()[0]) and the inputs in order."""
    names = [i["name"] for i in report["inputs"]]
    values = {}
    for s in report["symbols"]:
        for source in s.get("sources") or []:
            for k, name in enumerate(names):
                prefix = "L['%s'].size()[" % name
                if source.startswith(prefix) and k < len(shapes):
                    values[s["name"]] = shapes[k][int(source[len(prefix):-1])]
    return values


@pytest.mark.parametrize("name,index", list(_cases()))
def test_hop_flops_match_torch(name, index):
    size = GOLDEN["programs"][name]["sizes"][index]
    report = _report(name)
    assert report["errors"] == [], report["errors"][:3]
    values = _symbol_values(report, size["inputs"])
    ours = {n["node"]: evaluate(n["flops"], values) for n in report["compute"]["nodes"]}
    assert {k: v for k, v in ours.items() if v} == size["flops_by_node"]
    assert evaluate(report["compute"]["flops"]["expr"], values) == size["flops"]


def test_a_hop_with_a_matmul_over_a_symbolic_size_is_counted():
    """Not all zeros: cond, map, scan and invoke_subgraph bodies with a matmul over the batch."""
    counted = {name for name, p in GOLDEN["programs"].items() if all(s["flops"] for s in p["sizes"])}
    assert {"hop_cond_tensor_pred", "hop_map", "hop_scan_matmul", "hop_invoke_subgraph"} <= counted
