"""--op-rules through the package: torch.library custom ops with register_fake, traced by current
torch with dynamic sizes, and fakeprop with the equivalent rules file gives torch's fake results."""
import pytest

import fakeprop

torch = pytest.importorskip("torch")
if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("torch.library.custom_op needs torch 2", allow_module_level=True)

from torch.export import Dim  # noqa: E402

from test_propagate import _fp_int, _tensor_pairs, _torch_int  # noqa: E402


@torch.library.custom_op("fakeprop_test::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


@rms_norm.register_fake
def _(x, w, eps):
    torch._check(x.shape[-1] == w.shape[0])
    return torch.empty_like(x)


@torch.library.custom_op("fakeprop_test::fold_pairs", mutates_args=())
def fold_pairs(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(x.shape[0] * 2, x.shape[1] // 2).clone()


@fold_pairs.register_fake
def _(x):
    torch._check(x.shape[1] % 2 == 0)
    return x.new_empty(x.shape[0] * 2, x.shape[1] // 2)


@torch.library.custom_op("fakeprop_test::pick_rows", mutates_args=())
def pick_rows(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return x[mask]


@pick_rows.register_fake
def _(x, mask):
    n = torch.library.get_ctx().new_dynamic_size(min=0)
    return x.new_empty(n, x.shape[1])


RULES = """\
# the register_fake functions above, as fakeprop rules
fx fakeprop_test::rms_norm.default
  inputs x, w, eps
  require x.shape[-1] == w.shape[0]
  output dtype=x shape=x.shape stride=like(x)

fx fakeprop_test::fold_pairs.default
  inputs x
  require x.shape[1] % 2 == 0
  output dtype=x shape=[x.shape[0] * 2, x.shape[1] // 2]

fx fakeprop_test::pick_rows.default
  inputs x, mask
  unbacked n min=0
  output dtype=x shape=[n, x.shape[1]]
"""


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(8))

    def forward(self, x, mask):
        y = rms_norm(x, self.w, 1e-6)
        z = fold_pairs(y).relu()
        p = pick_rows(x, mask)
        return z, p * 2


def _export():
    x, mask = torch.randn(6, 8), torch.tensor([True, False] * 3)
    b = Dim("b", max=64)
    return torch.export.export(Model().eval(), (x, mask), dynamic_shapes={"x": {0: b}, "mask": {0: b}})


def test_rules_give_torchs_fake_results_at_three_sizes(tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text(RULES)
    ep = _export()
    report = fakeprop.propagate(ep, op_rules=rules)
    assert report["errors"] == [], report["errors"]
    used = {u["op"]: u["rule"] for u in report["op_rules"]}
    assert sorted(used) == ["fakeprop_test.fold_pairs.default", "fakeprop_test.pick_rows.default",
                            "fakeprop_test.rms_norm.default"]
    assert used["fakeprop_test.rms_norm.default"] == "%s:2" % rules
    (b,) = [s["name"] for s in report["symbols"] if s["kind"] == "backed"]
    (n,) = [s["name"] for s in report["symbols"] if s["kind"] == "unbacked"]
    torch_unbacked = sorted({str(s) for node in ep.graph.nodes for s in _free_symbols(node) if str(s).startswith("u")})
    assert len(torch_unbacked) == 1
    checked = 0
    for size, rows in ((6, 3), (10, 0), (40, 17)):
        ours_at = {b: size, n: rows}
        theirs_at = {b: size, torch_unbacked[0]: rows}
        for node, ours, theirs in _tensor_pairs(ep):
            where = "%s (%s) at b=%d" % (node.name, node.target, size)
            assert ours["dtype"] == str(theirs.dtype).replace("torch.", ""), where
            for key, dims in (("shape", theirs.shape), ("stride", theirs.stride())):
                assert [_fp_int(d, ours_at) for d in ours[key]] == [_torch_int(d, theirs_at) for d in dims], (
                    where, key, ours[key], list(dims))
            checked += 1
    assert checked >= 3 * 8
    # the requirements are the ShapeEnv's: rms_norm's and fold_pairs' hold for the static 8 and
    # leave no guard; only the inputs' (the shared Dim, its range) remain
    assert [g["expr"] for g in report["guards"]] == ["L['mask'].size()[0] == L['x'].size()[0]",
                                                     "2 <= L['x'].size()[0] <= 64"]


def _free_symbols(node):
    val = node.meta.get("val")
    vals = val if isinstance(val, (list, tuple)) else [val]
    for v in vals:
        if isinstance(v, torch.Tensor):
            for d in v.shape:
                if isinstance(d, torch.SymInt):
                    yield from d.node.expr.free_symbols


def test_a_failed_requirement_names_the_rule(tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text(RULES.replace("x.shape[1] % 2 == 0", "x.shape[1] % 3 == 0"))
    report = fakeprop.propagate(_export(), op_rules=str(rules))
    (err,) = [e for e in report["errors"] if e["kind"] == "assertion_error"]
    assert err["message"] == "%s:9: requirement failed: x.shape[1] %% 3 == 0" % rules


def test_without_rules_the_ops_have_none(tmp_path):
    report = fakeprop.propagate(_export())
    assert "op_rules" not in report
    kinds = {e["node"]: e["kind"] for e in report["errors"]}
    assert kinds["rms_norm"] == kinds["pick_rows"] == "unsupported_op"
    # fold_pairs runs on rms_norm's declared value (meta['val']), as in the CLI's run of the .pt2
    assert kinds["fold_pairs"] == "unsupported_op"


def test_a_bad_rules_file_is_an_input_error_before_any_node(tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text(RULES.replace("shape=[n, x.shape[1]]", "shape=[n, y.shape[1]]"))
    with pytest.raises(fakeprop.InputError, match=r"rules.txt:15:28: unknown input 'y'"):
        fakeprop.propagate(_export(), op_rules=rules)


def test_private_onnx_op_agrees_with_onnxruntime_on_its_standard_equivalent(tmp_path):
    """com.acme::Tile2(reps) is Tile(x, [reps, 1]) by construction: ONNX Runtime runs that equivalent,
    fakeprop runs the private op with its rule from custom_ops.rules, at three sizes of n."""
    np = pytest.importorskip("numpy")
    ort = pytest.importorskip("onnxruntime")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    from conftest import TESTDATA

    def model(private):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        tile = (helper.make_node("Tile2", ["x"], ["t"], name="tile", domain="com.acme", reps=3) if private
                else helper.make_node("Tile", ["x", "reps"], ["t"], name="tile"))
        init = [] if private else [numpy_helper.from_array(np.array([3, 1], dtype=np.int64), "reps")]
        graph = helper.make_graph([tile, helper.make_node("Relu", ["t"], ["y"], name="relu")], "m", [x], [y],
                                  initializer=init)
        opsets = [helper.make_opsetid("", 13)] + ([helper.make_opsetid("com.acme", 1)] if private else [])
        return helper.make_model(graph, opset_imports=opsets)

    private, standard = tmp_path / "private.onnx", tmp_path / "standard.onnx"
    onnx.save(model(True), private)
    onnx.save(model(False), standard)
    session = ort.InferenceSession(str(standard), providers=["CPUExecutionProvider"])
    report = fakeprop.infer(private, op_rules=TESTDATA / "samples" / "custom_ops.rules")
    assert report["errors"] == [] and [u["node"] for u in report["op_rules"]] == ["tile"]
    shape = report["outputs"][0]["val"]["shape"]
    for n in (2, 5, 7):
        real = session.run(None, {"x": np.ones((n, 3), dtype=np.float32)})[0].shape
        assert [d if isinstance(d, int) else eval(d, {}, {"n": n}) for d in shape] == list(real)  # noqa: S307


# A header may be the op's schema as torch declares it: the rule reads every argument by name,
# positional or keyword, with the schema's defaults, and each call is checked against it first.
@torch.library.custom_op("fakeprop_test::tile_rows", mutates_args=())
def tile_rows(x: torch.Tensor, mask: torch.Tensor, k: int = 2, *, flag: bool = False, p: float = 0.5,
              dims: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    return x.repeat(k, 1)[:, :len(dims)].clone(), mask.clone()


@tile_rows.register_fake
def _(x, mask, k=2, *, flag=False, p=0.5, dims):
    torch._check(p < 1 and not flag)
    return x.new_empty(x.shape[0] * k, len(dims)), mask.new_empty(mask.shape)


def _schema_rules():
    return "fx %s\n  require p < 1 and not flag\n  output dtype=x shape=[x.shape[0] * k, len(dims)]\n" \
           "  output dtype=mask shape=mask.shape\n" % tile_rows._opoverload._schema


class SchemaModel(torch.nn.Module):
    def forward(self, x, mask):
        a, b = tile_rows(x, mask, 3, p=0.25, dims=[1, 2])
        c, _ = tile_rows(x, mask, dims=[4])  # k from the default
        return a.relu(), b, c


def _export_schema_model():
    x, mask = torch.randn(6, 8), torch.tensor([True, False] * 3)
    b = Dim("b", max=64)
    return torch.export.export(SchemaModel(), (x, mask), dynamic_shapes={"x": {0: b}, "mask": {0: b}})


def test_torchs_schema_as_the_header_gives_torchs_fake_results(tmp_path):
    schema = str(tile_rows._opoverload._schema)
    assert schema.startswith("fakeprop_test::tile_rows(Tensor x, Tensor mask, SymInt k=2, *, bool flag=False")
    rules = tmp_path / "rules.txt"
    rules.write_text(_schema_rules())
    ep = _export_schema_model()
    report = fakeprop.propagate(ep, op_rules=rules)
    assert report["errors"] == [], report["errors"]
    assert [u["rule"] for u in report["op_rules"]] == ["%s:1" % rules] * 2
    (b,) = [s["name"] for s in report["symbols"] if s["kind"] == "backed"]
    checked = 0
    for size in (6, 10, 40):
        for node, ours, theirs in _tensor_pairs(ep):
            where = "%s (%s) at b=%d" % (node.name, node.target, size)
            assert ours["dtype"] == str(theirs.dtype).replace("torch.", ""), where
            for key, dims in (("shape", theirs.shape), ("stride", theirs.stride())):
                assert [_fp_int(d, {b: size}) for d in ours[key]] == [_torch_int(d, {b: size}) for d in dims], (
                    where, key, ours[key])
            checked += 1
    assert checked >= 3 * 6


def test_a_call_the_schema_rejects_is_torchs_error(tmp_path):
    rules = tmp_path / "rules.txt"
    # The same op declared with k keyword-only: the graph's positional k is one argument too many.
    rules.write_text(_schema_rules().replace("mask, SymInt k=2, *,", "mask, *, SymInt k=2,"))
    report = fakeprop.propagate(_export_schema_model(), op_rules=rules)
    (err,) = [e for e in report["errors"] if e["node"] == "tile_rows"]
    assert err["kind"] == "input_count"
    assert err["message"].startswith("fakeprop_test::tile_rows() takes 2 positional argument(s) but 3 was/were given.")
