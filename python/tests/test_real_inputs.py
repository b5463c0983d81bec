"""propagate_real_tensors: real inputs beside the fake ones. For ONNX (--real-input, and
infer(real_inputs=...)), ONNX Runtime's real output shapes are the truth; for live programs
(propagate(real_inputs=...)), torch's own run on the same tensors is."""
import json

import pytest

import fakeprop
from conftest import TESTDATA
from test_propagate import _fp_int

np = pytest.importorskip("numpy")
ort = pytest.importorskip("onnxruntime")

SAMPLE = TESTDATA / "samples" / "data_shaped.onnx"
MASK_INDICES = [[], [3], [0, 5, 7], [1, 4, 9, 17, 23], list(range(0, 24, 2))]  # counts 0, 1, 3, 5, 12


def _feeds(indices, grid):
    mask = np.zeros((4, 6), dtype=np.float32)
    mask.flat[indices] = 1.0
    return {"x": np.arange(10, dtype=np.float32), "mask": mask, "d": np.arange(12, dtype=np.float32),
            "shape": np.array(grid, dtype=np.int64)}


def _ort_shapes(feeds):
    session = ort.InferenceSession(str(SAMPLE), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return {n: list(v.shape) for n, v in zip(names, session.run(None, feeds))}


def _at_real_values(report):
    values = report["real_values"]
    return {o["name"]: [_fp_int(d, values) for d in o["val"]["shape"]] for o in report["outputs"]}


@pytest.mark.parametrize("indices", MASK_INDICES, ids=lambda ix: "count%d" % len(ix))
@pytest.mark.parametrize("grid", [[3, 4], [2, 6], [12, 1]], ids=lambda g: "%dx%d" % tuple(g))
def test_package_arrays_agree_with_onnxruntime(indices, grid):
    feeds = _feeds(indices, grid)
    report = fakeprop.infer(SAMPLE, real_inputs=feeds)
    assert report["errors"] == []
    assert _at_real_values(report) == _ort_shapes(feeds)
    # Whether the tail's start -n counts from the end is not decided (n may be 0, and guard_or_false
    # does not consult real values): its length is a fresh unbacked size, which the real run binds.
    tail = next(o for o in report["outputs"] if o["name"] == "tail")["val"]["shape"][0]
    assert tail in report["real_values"] and report["real_value_decisions"] == []
    assert "%s <= 10" % tail in [a["sym_expr"] for a in report["runtime_asserts"]]
    assert report["guards"] == []


def test_without_real_inputs_data_sizes_are_unbacked():
    report = fakeprop.infer(SAMPLE)
    assert report["errors"] == []
    assert [o["val"]["shape"] for o in report["outputs"]] == [["u3"], ["u2", "u1"], ["u4", "u5"]]
    assert "real_values" not in report


def test_cli_reads_a_test_data_set_and_npy(cli, tmp_path):
    folder = TESTDATA / "samples" / "data_shaped" / "test_data_set_0"
    run = cli(SAMPLE, "--real-input", folder, "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    feeds = _feeds([1, 4, 9, 17, 23], [3, 4])
    assert _at_real_values(report) == _ort_shapes(feeds)
    assert report["real_values"] == {"u0": 5, "u1": 3, "u2": 4, "u3": 5, "u4": 2, "u5": 5}
    # A Fortran-order .npy reads as the same array; npy files written here too.
    np.save(tmp_path / "shape.npy", np.array([2, 6], dtype=np.int64))
    run = cli(SAMPLE, "--real-input", "mask=%s" % (TESTDATA / "samples" / "data_shaped" / "mask_fortran.npy"),
              "--real-input", "shape=%s" % (tmp_path / "shape.npy"), "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["real_values"] == {"u0": 5, "u1": 2, "u2": 6, "u3": 5, "u4": 2, "u5": 5}


@pytest.mark.parametrize("spec,array,message", [
    ("x=%s", np.arange(10), "--real-input {npy}: input 'x' is int64 there, the model says float32"),
    ("x=%s", np.zeros((4, 6), dtype=np.float32), "--real-input {npy}: 2 dims given, the model says rank 1"),
    ("x=%s", np.zeros(12, dtype=np.float32), "--real-input {npy}: dim 0 is fixed to 10 in the model"),
    ("nosuch=%s", np.zeros(3), "--real-input {npy}: input 'nosuch': the model has no such input"),
    ("%s", np.zeros(3), "--real-input {npy}: the tensor has no name; write NAME={npy}"),
])
def test_cli_rejects_mismatched_real_inputs(cli, tmp_path, spec, array, message):
    npy = tmp_path / "given.npy"
    np.save(npy, array)
    run = cli(SAMPLE, "--real-input", spec % npy)
    assert run.returncode == 2
    assert run.stderr.startswith("fakeprop: error: " + message.format(npy=npy)), run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_cli_rejects_unreadable_files(cli, tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr': '>f4'")
    run = cli(SAMPLE, "--real-input", "mask=%s" % bad)
    assert run.returncode == 2 and str(bad) in run.stderr
    pb = tmp_path / "bad.pb"
    pb.write_bytes(b"\x08\xff\xff")
    run = cli(SAMPLE, "--real-input", "mask=%s" % pb)
    assert run.returncode == 2 and "bad.pb: invalid TensorProto" in run.stderr
    with pytest.raises(fakeprop.InputError, match="real_inputs: mask: not an array of numbers"):
        fakeprop.infer(SAMPLE, real_inputs={"mask": object()})


def test_over_the_cap_only_sizes_are_used(tmp_path):
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("NonZero", ["big"], ["nz"], name="nonzero")], "big",
                              [helper.make_tensor_value_info("big", TensorProto.FLOAT, ["n"])],
                              [helper.make_tensor_value_info("nz", TensorProto.INT64, [1, None])])
    path = tmp_path / "big.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    big = np.ones(70000, dtype=np.float32)
    report = fakeprop.infer(path, real_inputs={"big": big})
    warning = [w for w in report["warnings"] if w["node"] == "big"]
    assert warning and "70000 elements, more than 65536: only its sizes are used" in warning[0]["message"]
    assert report["inputs"][0]["val"]["shape"] == ["n"]
    assert [s["hint"] for s in report["symbols"] if s["name"] == "n"] == [70000]
    assert report["real_values"] == {}


torch = pytest.importorskip("torch")


def _program(fn, *args):
    from torch.fx.experimental.proxy_tensor import make_fx

    return make_fx(fn, tracing_mode="symbolic")(*args)


def test_propagate_real_inputs_agree_with_torch():
    def pick(x, mask):
        rows = torch.nonzero(mask)
        return x[: rows.shape[0]] * 2, rows

    x, mask = torch.randn(8, 3), torch.tensor([1, 0, 1, 1, 0, 0, 1, 0])
    gm = _program(pick, x, mask)
    for m in (mask, torch.zeros(8, dtype=torch.int64), torch.ones(8, dtype=torch.int64)):
        report = fakeprop.propagate(gm, x, m, real_inputs=True)
        assert report["errors"] == []
        want = pick(x, m)
        got = [[_fp_int(d, report["real_values"]) for d in o["val"]["shape"]] for o in report["outputs"]]
        assert got == [list(t.shape) for t in want]
        assert list(report["real_values"].values()) == [int(m.count_nonzero())]


def test_propagate_item_decides_by_the_real_value():
    def head(x, k):
        n = k.item()
        torch._check(n >= 0)
        return x.new_zeros(n, 2)

    x, k = torch.randn(4), torch.tensor(5)
    gm = _program(head, x, k)
    report = fakeprop.propagate(gm, x, k, real_inputs=[x, torch.tensor(3)])
    assert report["real_values"] == {"u0": 3}
    out = report["outputs"][0]["val"]["shape"]
    assert [_fp_int(d, report["real_values"]) for d in out] == [3, 2]
    with pytest.raises(fakeprop.InputError, match="real_inputs has 1 values for 2 inputs"):
        fakeprop.propagate(gm, x, k, real_inputs=[x])


class _Step(torch.nn.Module):
    """A loss over real parameters: a Linear, a transposed (non-contiguous but dense) weight."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.w_t = torch.nn.Parameter(torch.randn(3, 4).t())

    def forward(self, x):
        return ((self.lin(x).sum() + (x @ self.w_t).sum()),)


def _torch_fake_grads(module, x):
    """What torch leaves in .grad of real parameters after a backward over fake inputs."""
    import torch._functorch.config as functorch_config
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    with functorch_config.patch(fake_tensor_propagate_real_tensors=True):
        mode = FakeTensorMode(allow_non_fake_inputs=True, shape_env=ShapeEnv())
        with mode:
            module(mode.from_tensor(x))[0].backward()
    return {name: p.grad for name, p in module.named_parameters()}


def test_fake_gradients_meet_real_leaves_as_accumulate_grad_does():
    from torch._functorch.aot_autograd import aot_export_module

    module, x = _Step(), torch.randn(2, 4)
    gm, signature = aot_export_module(module, [x], trace_joint=True, output_loss_index=0)
    want = _torch_fake_grads(module, x)
    params = [p.detach() for p in module.parameters()]
    by_leaf = {p: fqn for p, fqn in signature.inputs_to_parameters.items()}
    placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    real = [dict(module.named_parameters())[by_leaf[n]].detach() if n in by_leaf else x for n in placeholders]
    report = fakeprop.propagate(gm, *real, gradients=signature, real_inputs=True)
    assert report["errors"] == []
    got = {by_leaf[g["name"]]: g["grad"] for g in report["gradients"]}
    assert set(got) == set(want) and len(params) == 3
    for fqn, grad in want.items():
        assert got[fqn]["shape"] == list(grad.shape), fqn
        assert got[fqn]["stride"] == list(grad.stride()), fqn
        assert got[fqn]["dtype"] == str(grad.dtype).replace("torch.", ""), fqn


def _assignment_error(leaf, grad):
    try:
        torch.nn.Parameter(leaf).grad = grad
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("grad", [torch.zeros(3, 2), torch.zeros(2, 3, dtype=torch.float64),
                                  torch.zeros(2, 3, dtype=torch.float16), torch.zeros(2, 3, device="meta")],
                         ids=["size", "double", "half", "meta"])
def test_a_gradient_that_cannot_be_assigned_is_torchs_error_on_the_leaf(cli, tmp_path, grad):
    leaf = torch.zeros(2, 3)
    graph = {"format": "fakeprop.fx/1", "gradients": {"g": "w"}, "nodes": [
        {"name": "w", "op": "placeholder", "target": "w", "val": {"shape": [2, 3], "dtype": "float32"}},
        {"name": "g", "op": "placeholder", "target": "g",
         "val": {"shape": list(grad.shape), "dtype": str(grad.dtype).replace("torch.", ""), "device": str(grad.device)}},
        {"name": "output", "op": "output", "target": "output", "args": [[{"node": "g"}]]}]}
    path = tmp_path / "step.json"
    path.write_text(json.dumps(graph))
    run = cli(path, "--json")
    assert run.returncode == 0, run.stderr
    errors = json.loads(run.stdout)["errors"]
    assert [(e["node"], e["message"]) for e in errors] == [("w", _assignment_error(leaf, grad))]
