"""Higher-order ops (cond, while_loop, map, scan, invoke_subgraph, auto_functionalized_v2,
with_effects, wrap_with_set_grad_enabled): the programs of scripts/gen_hop_archives.py, exported
afresh, through fakeprop.propagate in process and through the CLI on the saved .pt2. The two front
doors agree node by node, and both give torch's meta['val'] (at three points of the symbols where
every size is backed; at the export sizes, with unbacked sizes where torch has them, for cond's
merged outputs)."""
import json
import pathlib
import sys

import pytest

import fakeprop

torch = pytest.importorskip("torch")
if tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]) < (2, 9):
    pytest.skip("the programs need torch 2.9's higher-order ops", allow_module_level=True)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import gen_hop_archives as hop  # noqa: E402

from test_propagate import check_against_torch  # noqa: E402

hop._effectful()
PROGRAMS = {name: (model, inputs, dynamic) for name, model, inputs, dynamic in hop.programs()}
# The op each program is about, as the report names it.
OPS = {
    "hop_cond": "higher_order.cond",
    "hop_cond_tensor_pred": "higher_order.cond",
    "hop_while_loop": "higher_order.while_loop",
    "hop_map": "higher_order.map_impl",
    "hop_scan": "higher_order.scan",
    "hop_scan_matmul": "higher_order.scan",
    "hop_invoke_subgraph": "higher_order.invoke_subgraph",
    "hop_auto_functionalized": "higher_order.auto_functionalized_v2",
    "hop_with_effects": "higher_order.with_effects",
    "hop_set_grad_enabled": "higher_order.wrap_with_set_grad_enabled",
}


def _export(name):
    model, inputs, dynamic = PROGRAMS[name]
    torch.manual_seed(0)
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic, strict=name in hop.STRICT)
    return ep.run_decompositions({}) if name in hop.FUNCTIONALIZED else ep


def _layouts(report):
    """Each node's values as (shape, stride, offset, dtype, device), by node and output name."""
    out = {}
    for n in report["nodes"]:
        for o in n["outputs"]:
            v = o.get("val") or {}
            if "shape" in v:
                out[n["name"], o["name"]] = (v["shape"], v["stride"], v["storage_offset"], v["dtype"], v["device"])
    return out


def _unbacked(torch_dim):
    return isinstance(torch_dim, torch.SymInt) and any(str(s).startswith("u") for s in torch_dim.node.expr.free_symbols)


def _check_at_hints(ep, report):
    """Every tensor value equals torch's at the export sizes; a size unbacked in torch is a bare
    unbacked symbol in fakeprop's."""
    values = {(n["name"], o["name"]): o["val"] for n in report["nodes"] for o in n["outputs"]}
    hints = {s["name"]: s["hint"] for s in report.get("symbols", []) if s.get("hint") is not None}
    checked = 0
    for node in ep.graph.nodes:
        theirs = node.meta.get("val")
        if not isinstance(theirs, torch.Tensor):
            continue
        ours = values.get((node.name, node.name))
        assert ours is not None and "shape" in ours, node.name
        for key, dims in (("shape", theirs.shape), ("stride", theirs.stride())):
            for got, want in zip(ours[key], dims):
                if _unbacked(want):
                    assert isinstance(got, str) and got.startswith("u"), (node.name, key, ours[key])
                else:
                    want = int(want.node.hint) if isinstance(want, torch.SymInt) else want
                    assert (hints[got] if isinstance(got, str) else got) == want, (node.name, key, ours[key])
        assert ours["dtype"] == str(theirs.dtype).replace("torch.", ""), node.name
        checked += 1
    return checked


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_propagate_and_the_cli_agree_with_torch(name, cli, tmp_path):
    ep = _export(name)
    assert OPS[name] in {hop_name(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    report = fakeprop.propagate(ep)
    assert report["errors"] == [], report["errors"][:3]
    path = tmp_path / (name + ".pt2")
    torch.export.save(ep, str(path))
    out = cli(path, "--json")
    assert out.returncode == 0, out.stderr
    from_file = json.loads(out.stdout)
    assert from_file["errors"] == [], from_file["errors"][:3]
    ours, theirs = _layouts(report), _layouts(from_file)
    assert ours.keys() == theirs.keys()
    for k in sorted(ours):
        assert ours[k] == theirs[k], k
    has_unbacked = any(_unbacked(d) for n in ep.graph.nodes if isinstance(n.meta.get("val"), torch.Tensor)
                       for d in n.meta["val"].shape)
    if has_unbacked:
        assert _check_at_hints(ep, report) > 3
    else:
        assert check_against_torch(ep, report) > 3


def hop_name(target):
    name = getattr(target, "name", None)
    return "higher_order." + name() if isinstance(target, torch._ops.HigherOrderOperator) else str(target)


def test_cond_merges_sizes_the_branches_disagree_on():
    """cond's second output has 2 rows in one branch and 3 in the other: one unbacked size in [2, 3],
    as torch's u0; the first output's rows agree (the input's) and stay."""
    report = fakeprop.propagate(_export("hop_cond"))
    outs = {o["name"]: o["val"] for o in report["outputs"]}
    first, second = outs["getitem"]["shape"], outs["getitem_2"]["shape"]
    assert first[1:] == [3] and not first[0].startswith("u")
    assert second[1] == 3 and second[0].startswith("u")
    symbol = next(s for s in report["symbols"] if s["name"] == second[0])
    assert symbol["range"] == [2, 3]


def test_auto_functionalized_v1_is_refused_with_why():
    """torch.export writes auto_functionalized_v2; v1 names no bases, so which copies it returns is in the
    op's schema, which the program does not carry."""
    ep = _export("hop_auto_functionalized")
    gm = ep.graph_module
    node = next(n for n in gm.graph.nodes if hop_name(n.target) == "higher_order.auto_functionalized_v2")
    from torch._higher_order_ops.auto_functionalize import auto_functionalized

    node.target = auto_functionalized
    report = fakeprop.propagate(ep)
    error = next(e for e in report["errors"] if e["node"] == node.name)
    assert error["kind"] == "unsupported_op"
    assert "auto_functionalized (v1) is not supported" in error["message"]


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")
@pytest.mark.parametrize("name", ["hop_cond", "hop_map", "hop_scan", "hop_while_loop"])
def test_export_graph_writes_the_subgraphs(name, cli, tmp_path):
    """export_graph's JSON FX graph carries the subgraphs (by name, each with its nodes), and the CLI
    runs it to propagate's values."""
    ep = _export(name)
    doc = fakeprop.export_graph(ep)
    assert doc["subgraphs"], doc.keys()
    calls = [n for n in doc["nodes"] if n["target"].startswith("higher_order.")]
    assert calls and all(any(isinstance(a, dict) and a.get("graph") in doc["subgraphs"] for a in n["args"])
                         for n in calls)
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps(doc))
    out = cli(path, "--json")
    assert out.returncode == 0, out.stderr
    assert _layouts(json.loads(out.stdout)) == _layouts(fakeprop.propagate(ep))


class Flex(torch.nn.Module):
    """flex_attention with a score_mod (a subgraph, which torch's fake implementation does not run) on a
    query whose heads are not its outer dim (transposed from [B, L, H, E]): the output takes the
    query's fill order, and the value's head dim."""

    def forward(self, q, k, v):
        from torch.nn.attention.flex_attention import flex_attention

        def score_mod(score, b, h, qi, ki):
            return score + (qi - ki)

        return flex_attention(q.transpose(1, 2), k, v, score_mod=score_mod)


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")
def test_flex_attention_in_process_and_through_export_graph(cli, tmp_path):
    """torch.export.save cannot write flex_attention (torch 2.15's serializer refuses its block-mask
    tuple), so the CLI reads the program as export_graph writes it."""
    q = torch.randn(2, 16, 4, 8)
    k, v = torch.randn(2, 4, 16, 8), torch.randn(2, 4, 16, 6)
    try:
        # decomposed: the default block mask's vmap calls (pre-dispatch functorch nodes) become ATen ops
        ep = torch.export.export(Flex(), (q, k, v)).run_decompositions({})
    except Exception as e:  # noqa: BLE001
        pytest.skip("torch cannot export flex_attention here: %s" % str(e).splitlines()[0])
    assert "higher_order.flex_attention" in {hop_name(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    report = fakeprop.propagate(ep)
    assert report["errors"] == [], report["errors"][:3]
    # flex_attention's outputs as torch has them (the block mask's own ops are other tests' business:
    # argsort's strides on size-1 dims differ from torch's there)
    values = {(n["name"], o["name"]): o["val"] for n in report["nodes"] for o in n["outputs"]}
    flex = next(n for n in ep.graph.nodes if hop_name(n.target) == "higher_order.flex_attention")
    checked = 0
    for user in flex.users:
        theirs, ours = user.meta["val"], values[user.name, user.name]
        assert (ours["shape"], ours["stride"], ours["dtype"]) == (
            list(theirs.shape), list(theirs.stride()), str(theirs.dtype).replace("torch.", "")), user.name
        checked += 1
    assert checked >= 1
    # FLOPs: FlopCounterMode's flex_attention formula (SDPA's over q, k, v), on the node itself
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils.flop_counter import FlopCounterMode

    with FakeTensorMode(allow_non_fake_inputs=True) as fake:
        args = [fake.from_tensor(t) for t in (q, k, v)]
        with FlopCounterMode(display=False) as counter:
            ep.module()(*args)
    counted = {n["node"]: n["flops_hint"] for n in report["compute"]["nodes"]}
    assert counted == {flex.name: counter.get_total_flops()} and counter.get_total_flops() > 0
    path = tmp_path / "flex.json"
    path.write_text(json.dumps(fakeprop.export_graph(ep)))
    out = cli(path, "--json")
    assert out.returncode == 0, out.stderr
    assert _layouts(json.loads(out.stdout)) == _layouts(report)


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")
def test_with_effects_counts_the_wrapped_ops_flops_as_torch_does():
    """FlopCounterMode counts the op with_effects wraps (aten.mm here, registered as effectful for
    the test); the with_effects node's FLOPs are the same."""
    from torch._higher_order_ops.effects import _EffectType, _register_effectful_op
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils.flop_counter import FlopCounterMode

    class MM(torch.nn.Module):
        def forward(self, x):
            return torch.ops.aten.mm.default(x, x.t())

    handle = _register_effectful_op(torch.ops.aten.mm.default, _EffectType.ORDERED)
    try:
        ep = torch.export.export(MM(), (torch.randn(4, 3),)).run_decompositions({})
        with FakeTensorMode(allow_non_fake_inputs=True) as fake:
            x = fake.from_tensor(torch.randn(4, 3))
            with FlopCounterMode(display=False) as counter:
                ep.module()(x)
    finally:
        handle.destroy()
    report = fakeprop.propagate(ep)
    assert report["errors"] == [], report["errors"][:3]
    assert [(n["op"], n["flops_hint"]) for n in report["compute"]["nodes"]] == [
        ("higher_order.with_effects", counter.get_total_flops())] and counter.get_total_flops() == 96
