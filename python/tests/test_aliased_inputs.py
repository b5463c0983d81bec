"""Inputs that alias one storage (a view beside its base, one tensor passed twice, tied weights):
the package reads each input's untyped_storage() identity, export_graph writes it as the
placeholder's `storage`, and fakeprop's storages, data-dependent results and mutations follow
torch's fake tensors, whose converter memo shares one fake storage among aliases."""
import json

import pytest

import fakeprop

torch = pytest.importorskip("torch")
if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("needs torch 2", allow_module_level=True)

from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

from test_propagate import check_against_torch  # noqa: E402


def _inputs(report):
    return {i["name"]: i["val"] for i in report["inputs"]}


def _storage_groups(report):
    groups = {}
    for name, val in _inputs(report).items():
        groups.setdefault(val["storage"], []).append(name)
    return sorted(sorted(g) for g in groups.values())


def test_a_view_beside_its_base():
    def f(x, v):
        return x * 2, v.t()

    x = torch.randn(4, 6)
    v = x[1:3]
    gm = make_fx(f, tracing_mode="fake")(x, v)
    report = fakeprop.propagate(gm, x, v)
    assert report["errors"] == []
    ins = _inputs(report)
    assert ins["x_1"]["storage"] == ins["v_1"]["storage"]
    assert ins["v_1"]["storage_offset"] == 6 and ins["v_1"]["stride"] == [6, 1]
    assert check_against_torch(gm, report) >= 4
    # the view's transpose shares the base's storage too, as torch's does
    t_node = [n for n in report["nodes"] if n["op"] == "aten.t.default"][0]
    assert t_node["outputs"][0]["val"]["storage"] == ins["x_1"]["storage"]


def test_inputs_that_do_not_alias_keep_their_own_storages():
    def f(x, y):
        return x + y

    x, y = torch.randn(3), torch.randn(3)
    report = fakeprop.propagate(make_fx(f, tracing_mode="fake")(x, y), x, y)
    assert _storage_groups(report) == [["x_1"], ["y_1"]]


def test_a_write_through_one_alias_is_a_new_version_of_the_other(tmp_path):
    """nonzero of x before and after an in-place add through its alias v: two data-dependent
    sizes (torch's memo is invalidated by the version bump), and the mutation names x as stale."""
    def f(x, v):
        a = x.nonzero()
        v.add_(1)
        b = x.nonzero()
        return a, b

    x = torch.tensor([0.0, 1.0, 0.0, 2.0])
    v = x[:]
    gm = make_fx(f, tracing_mode="fake")(x, v)
    torch_sizes = [n.meta["val"].shape[0] for n in gm.graph.nodes if n.target == torch.ops.aten.nonzero.default]
    assert len(torch_sizes) == 2 and str(torch_sizes[0]) != str(torch_sizes[1])
    report = fakeprop.propagate(gm, x, v)
    outs = [o["val"]["shape"][0] for o in report["outputs"]]
    assert outs[0] != outs[1] and all(isinstance(s, str) and s.startswith("u") for s in outs)
    (m,) = report["mutations"]
    assert m["op"] == "aten.add_.Tensor" and m["mutated"] == "v_1" and m["stale_nodes"] == ["x_1"]
    # The same graph without the alias declared: x is untouched, so its nonzero is one memo entry.
    graph = fakeprop.export_graph(gm, [x, v])
    placeholders = [n for n in graph["nodes"] if n["op"] == "placeholder"]
    assert [p["val"]["storage"] for p in placeholders] == [0, 0]
    for p in placeholders:
        del p["val"]["storage"]
    path = tmp_path / "unaliased.json"
    path.write_text(json.dumps(graph))
    unaliased = fakeprop.infer(path)
    shapes = [o["val"]["shape"][0] for o in unaliased["outputs"]]
    assert shapes[0] == shapes[1] and unaliased["mutations"] == []


def test_one_tensor_passed_twice():
    def f(a, b):
        return a.nonzero(), b.nonzero()

    x = torch.tensor([1.0, 0.0, 3.0])
    gm = make_fx(f, tracing_mode="fake")(x, x)
    report = fakeprop.propagate(gm, x, x)
    assert _storage_groups(report) == [["a_1", "b_1"]]
    # the same elements of one storage at one version: one data-dependent size, as the data is one
    outs = [o["val"]["shape"][0] for o in report["outputs"]]
    assert outs[0] == outs[1]


def test_the_file_carries_the_storages(cli, tmp_path):
    def f(x, v):
        return x.sum() + v.sum()

    x = torch.randn(5, 2)
    v = x[2:]
    gm = make_fx(f, tracing_mode="fake")(x, v)
    path = tmp_path / "aliased.json"
    path.write_text(json.dumps(fakeprop.export_graph(gm, [x, v])))
    out = cli(path, "--json")
    assert out.returncode == 0, out.stderr
    from_file = json.loads(out.stdout)
    in_process = fakeprop.propagate(gm, x, v)
    from_file["model"] = in_process["model"]
    assert from_file == in_process
    assert _storage_groups(from_file) == [["v_1", "x_1"]]

