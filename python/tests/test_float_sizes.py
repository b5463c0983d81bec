"""Sizes computed in floating point (SymFloat): programs exported by torch 2.x whose sizes go through
`/`, float scales, math.floor / ceil / trunc, round and float arange bounds. fakeprop keeps each size an
exact expression over the input sizes; evaluated at sizes other than the export's, every size and
stride equals torch's fake value there and the real output's."""
import math

import pytest

import fakeprop

torch = pytest.importorskip("torch")
if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("torch.export needs torch 2", allow_module_level=True)

F = torch.nn.functional


def _resize(x):
    # torchvision's GeneralizedRCNNTransform: scale = min(800 / min(h, w), 1333 / max(h, w)).
    h, w = x.shape[-2], x.shape[-1]
    scale = torch.sym_min(800 / torch.sym_min(h, w), 1333 / torch.sym_max(h, w))
    return F.interpolate(x, size=(math.floor(h * scale), math.floor(w * scale)), mode="bilinear")


_PROGRAMS = {
    "resize_min_max": _resize,
    "upsample_scale": lambda x: F.interpolate(x, scale_factor=1.7, mode="nearest"),
    "upsample_integral_scale": lambda x: F.interpolate(x, scale_factor=2.0, mode="nearest"),
    "upsample_recompute": lambda x: F.interpolate(x, scale_factor=0.3, mode="bilinear", recompute_scale_factor=True),
    "arange_float_end": lambda x: torch.arange(0, x.shape[2] / 3, 0.5),
    "arange_float_start": lambda x: torch.arange(0.5, x.shape[3] * 0.25),
    "round_ceil_trunc": lambda x: x.new_zeros(round(x.shape[2] * 0.5), math.ceil(x.shape[3] / 3),
                                              math.trunc(torch.sym_float(x.shape[2]) * 0.1)),
    "floor_of_quotient": lambda x: x[:, :, : math.floor(x.shape[2] / 2.5)],
    "float_pow": lambda x: x.new_ones(math.floor(torch.sym_float(x.shape[3]) ** 0.5)),
    "true_division_view": lambda x: x.reshape(-1)[: math.floor(x.numel() / 7)],
}

# (height, width) pairs: the export's, then sizes where min and max swap and where the float
# arithmetic does not give the exact quotient (floor(97 * (800 / 97)) is 799).
_SIZES = [(60, 90), (97, 150), (40, 149), (200, 900), (149, 149), (333, 17)]


class _Program(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _at(d, values):
    """A fakeprop dim (an int, or Python text over symbols that eval() evaluates) at `values`."""
    return d if isinstance(d, int) else eval(d, {}, dict(values))  # noqa: S307


def _torch_at(d, values):
    import sympy

    if isinstance(d, int):
        return d
    expr = d.node.expr
    return int(expr.xreplace({s: sympy.Integer(values[str(s)]) for s in expr.free_symbols}))


def _input_symbols(ep):
    """The names torch gave the height and width of the program's input."""
    x = ep.graph_module.graph.find_nodes(op="placeholder")[0]
    return [str(d.node.expr) for d in x.meta["val"].shape[2:]]


@pytest.mark.parametrize("name", list(_PROGRAMS))
def test_float_size_programs_agree_with_torch(name):
    x = torch.randn(1, 3, *_SIZES[0])
    dyn = torch.export.Dim.DYNAMIC
    program = _Program(_PROGRAMS[name])
    ep = torch.export.export(program, (x,), dynamic_shapes={"x": {2: dyn, 3: dyn}}, strict=False)
    report = fakeprop.propagate(ep)
    assert report["errors"] == []
    # No size became data-dependent: every symbol is the input's own.
    assert sorted(s["name"] for s in report["symbols"]) == sorted(str(s) for s in ep.range_constraints)
    h_sym, w_sym = _input_symbols(ep)
    nodes = [n for n in ep.graph.nodes if n.op == "call_function" and isinstance(n.meta.get("val"), torch.Tensor)]
    assert nodes
    for h, w in _SIZES:
        values = {h_sym: h, w_sym: w}
        for node in nodes:
            ours, theirs = node.meta["fakeprop"]["val"], node.meta["val"]
            assert [_at(d, values) for d in ours["shape"]] == [_torch_at(d, values) for d in theirs.shape], (node.name, h, w)
            assert [_at(d, values) for d in ours["stride"]] == [_torch_at(d, values) for d in theirs.stride()], (node.name, h, w)
            assert ours["dtype"] == str(theirs.dtype).replace("torch.", ""), node.name
        # The real program at this size: its output's shape is ours there.
        real = program(torch.randn(1, 3, h, w))
        out = next(n for n in reversed(nodes) if n.name in {a.name for a in ep.graph.output_node().args[0]})
        assert [_at(d, values) for d in out.meta["fakeprop"]["val"]["shape"]] == list(real.shape), (h, w)


def test_symbolic_floats_are_python_that_evaluates_as_torch_does():
    """Every SymFloat and SymInt node of the resize program: fakeprop's Python text needs no import
    (math.floor is int(x // 1)) and gives torch's value at every size, both branches of the min included."""
    import sympy

    x = torch.randn(1, 3, *_SIZES[0])
    dyn = torch.export.Dim.DYNAMIC
    ep = torch.export.export(_Program(_resize), (x,), dynamic_shapes={"x": {2: dyn, 3: dyn}}, strict=False)
    fakeprop.propagate(ep)
    h_sym, w_sym = _input_symbols(ep)
    scalars = [n for n in ep.graph.nodes if isinstance(n.meta.get("val"), (torch.SymInt, torch.SymFloat))]
    assert {n.name for n in scalars} >= {"truediv", "sym_min_1", "mul", "floor"}
    for node in scalars:
        text = node.meta["fakeprop"]["val"]["sym"]
        assert "math." not in text and "torch." not in text, text
        expr = node.meta["val"].node.expr
        for h, w in _SIZES:
            values = {h_sym: h, w_sym: w}
            theirs = expr.xreplace({s: sympy.Integer(values[str(s)]) for s in expr.free_symbols})
            ours = eval(text, {}, values)  # noqa: S307
            if isinstance(node.meta["val"], torch.SymInt):
                assert ours == int(theirs), (node.name, h, w)
            else:
                assert ours == float(theirs), (node.name, h, w)


def test_arithmetic_on_an_unbacked_float_is_modelled():
    """item() of a float tensor is an unbacked zuf0; a size computed from it (floor(s * n) + 1) is an
    expression over zuf0 and the input size, as torch 2.15 exports it, that gives the real size."""
    import sympy

    class Scaled(torch.nn.Module):
        def forward(self, x, f):
            return x.new_zeros(math.floor(f.item() * x.shape[0]) + 1)

    dyn = torch.export.Dim.DYNAMIC
    ep = torch.export.export(Scaled(), (torch.randn(8), torch.tensor(2.5)), dynamic_shapes={"x": {0: dyn}, "f": None},
                             strict=False)
    report = fakeprop.propagate(ep)
    assert report["errors"] == []
    out = next(n for n in ep.graph.nodes if n.name == "new_zeros")
    ours, theirs = out.meta["fakeprop"]["val"]["shape"][0], out.meta["val"].shape[0].node.expr
    assert "zuf0" in ours
    (n_sym,) = (str(s) for s in ep.range_constraints if str(s).startswith("s"))
    for n, f in [(8, 2.5), (97, 800 / 97), (3, 0.1), (1000, 1.0 / 3)]:
        values = {n_sym: n, "zuf0": f}
        torch_value = int(theirs.xreplace({s: (sympy.Integer(n) if str(s) == n_sym else sympy.Float(f))
                                           for s in theirs.free_symbols}))
        real = Scaled()(torch.randn(n), torch.tensor(f, dtype=torch.float64)).shape[0]
        assert eval(ours, {}, values) == real == torch_value, (n, f)  # noqa: S307


def test_pt2_archive_with_float_sizes(tmp_path):
    """A torch.export.save archive whose sizes are float expressions (sympy Float, ToFloat, TruncToInt
    in the serialized program) reads back, and fakeprop's sizes equal torch's at every size. (torch 2.15
    cannot save math.floor: it is not in its serializer's _SYM_OPS.)"""
    class Scales(torch.nn.Module):
        def forward(self, x):
            return F.interpolate(x, scale_factor=1.7, mode="nearest"), torch.arange(2.0, x.shape[2] / 10, 0.5)

    dyn = torch.export.Dim.DYNAMIC
    ep = torch.export.export(Scales(), (torch.randn(1, 3, 60, 90),), dynamic_shapes={"x": {2: dyn, 3: dyn}},
                             strict=False)
    path = tmp_path / "scales.pt2"
    torch.export.save(ep, str(path))
    report = fakeprop.infer(str(path))
    assert report["errors"] == []
    h_sym, w_sym = _input_symbols(ep)
    outputs = {o["name"]: o for o in report["outputs"]}
    theirs = {n.name: n.meta["val"] for n in ep.graph.nodes if n.op == "call_function"}
    assert set(outputs) == {"upsample_nearest2d", "arange"}
    for h, w in _SIZES:
        values = {h_sym: h, w_sym: w}
        for name, out in outputs.items():
            assert ([_at(d, values) for d in out["val"]["shape"]] ==
                    [_torch_at(d, values) for d in theirs[name].shape]), name
