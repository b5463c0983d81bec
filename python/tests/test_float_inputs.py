"""Scalar inputs whose value is known when the graph is traced: a 0-d float64 or int64 tensor that
make_fx's symbolic trace fakifies with a source (and that Dynamo makes of a Python float). FakeTensor
memoizes its item() as a backed symbol with that value (zf<N> for a float, s<N> for an integer), so
sizes computed from it stay expressions and the decisions on them are guards at the hint.

fakeprop reads the memo from the traced graph (the item() call's backed symbol). Its shapes and
strides, evaluated at other sizes and scalar values, equal torch's fake values there; its trace of
guards is torch's, line for line, but for the guards make_fx's own tensor-metadata extraction adds
(is_contiguous of every output, which fakeprop does not run)."""
import logging
import math
import re

import pytest

import fakeprop

torch = pytest.importorskip("torch")
if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("SymFloat inputs need torch 2", allow_module_level=True)

from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

F = torch.nn.functional

_PROGRAMS = {
    "floor_of_scaled_size": lambda x, s, k: x.new_zeros(math.floor(x.shape[0] * s.item()) + k.item()),
    "trunc_plus_one": lambda x, s, k: x.new_zeros(math.trunc(x.shape[0] * s.item()) + 1),
    "count_from_int_item": lambda x, s, k: x.new_zeros(k.item() + 2, 3),
    "float_arange_bound": lambda x, s, k: torch.arange(0.0, x.shape[0] * s.item(), 0.5),
    "slice_by_scaled_count": lambda x, s, k: x[: math.floor(s.item() * k.item())],
    "max_of_float_and_quotient": lambda x, s, k: x.new_zeros(math.ceil(torch.sym_max(s.item(), x.shape[0] / 4))),
    "quotient_by_scale": lambda x, s, k: x.new_ones(math.floor(x.shape[0] / s.item()), 2),
    "power_of_size": lambda x, s, k: x.new_zeros(math.floor(torch.sym_float(x.shape[0]) ** s.item())),
    "scaled_tensor": lambda x, s, k: (x * s.item()).reshape(-1, 1).expand(-1, k.item()),
    "interpolate_by_scale": lambda x, s, k: F.interpolate(x.reshape(1, 1, -1, 1), scale_factor=(s.item(), 1.0)),
}

# (length of x, the scale, the count): the trace's point first. At each, every guard the trace
# recorded holds (checked below), so the one graph describes them all.
_POINTS = [(6, 2.5, 3), (9, 2.25, 5), (7, 3.5, 3), (12, 2.0, 7)]
# F.interpolate takes float(scale) in Python before any op runs (torch guards Eq(zf, 2.5) and
# replaces zf by 2.5 there): its graph holds the constant, and holds only at that scale.
_SCALE_IN_PYTHON = {"interpolate_by_scale"}


def _trace(fn, n, s, k):
    return make_fx(fn, tracing_mode="symbolic")(torch.randn(n), torch.tensor(s, dtype=torch.float64),
                                                torch.tensor(k))


def _at(d, values):
    """A fakeprop dim (an int, or Python text over symbols that eval() evaluates) at `values`."""
    return d if isinstance(d, int) else eval(d, {}, dict(values))  # noqa: S307


def _hint(d):
    return d if isinstance(d, int) else d.node.hint


def _values(report, point):
    """fakeprop's symbols, by their sources, at a point."""
    n, s, k = point
    by_source = {"L['x_1'].size()[0]": n, "L['s_1'].item()": s, "L['k_1'].item()": k}
    values = {}
    for sym in report["symbols"]:
        for src in sym["sources"]:
            if src in by_source:
                values[sym["name"]] = by_source[src]
    return values


@pytest.mark.parametrize("name", list(_PROGRAMS))
def test_scalar_inputs_are_backed_symbols_that_agree_with_torch(name):
    fn = _PROGRAMS[name]
    gm = _trace(fn, *_POINTS[0])
    report = fakeprop.propagate(gm)
    assert report["errors"] == []
    kinds = {s["sources"][0]: (s["kind"], s.get("type"), s["hint"]) for s in report["symbols"] if s["sources"]}
    if "L['s_1'].item()" in kinds:
        assert kinds["L['s_1'].item()"] == ("backed", "float", 2.5)
    if "L['k_1'].item()" in kinds:
        assert kinds["L['k_1'].item()"] == ("backed", None, 3)
    ours = {n["name"]: n["outputs"][0]["val"] for n in report["nodes"]}
    points = [(n, _POINTS[0][1], k) for n, _, k in _POINTS] if name in _SCALE_IN_PYTHON else _POINTS
    for point in points:
        values = _values(report, point)
        for guard in report["guards"]:
            assert eval(guard["sym_expr"], {"math": math}, dict(values)), (point, guard["sym_expr"])  # noqa: S307
        theirs = _trace(fn, *point)
        compared = 0
        for node in theirs.graph.nodes:
            val = node.meta.get("val")
            if not isinstance(val, torch.Tensor):
                continue
            mine = ours[node.name]
            assert [_at(d, values) for d in mine["shape"]] == [_hint(d) for d in val.shape], (point, node.name)
            assert [_at(d, values) for d in mine["stride"]] == [_hint(d) for d in val.stride()], (point, node.name)
            compared += 1
        assert compared > 0
        real = fn(torch.randn(point[0]), torch.tensor(point[1], dtype=torch.float64), torch.tensor(point[2]))
        out = report["outputs"][0]["val"]
        assert [_at(d, values) for d in out["shape"]] == list(real.shape), point


class _GuardLog(logging.Handler):
    """torch's `eval ... [guard added]` lines, with where each was asked."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


_EVAL = re.compile(r"^eval (.*) \[guard added\]")


def _torch_guards(fn):
    handler = _GuardLog()
    logger = logging.getLogger("torch.fx.experimental.symbolic_shapes")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        gm = _trace(fn, *_POINTS[0])
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    guards = []
    for line in handler.lines:
        m = _EVAL.match(line)
        # Not in the graph: decisions torch.nn.functional takes in Python before any op runs.
        # make_fx's tensor_meta (is_contiguous of every value, _prims_common) is fakeprop's too.
        outside = "nn/functional.py" in line
        if m and "[guard suppressed]" not in line and not outside:
            guards.append(m.group(1))
    return gm, guards


def _renamed(guards, env, report):
    """torch's guards with its symbol names as fakeprop's, matched by source."""
    ours = {}
    for sym in report["symbols"]:
        for src in sym["sources"]:
            ours[src] = sym["name"]
    names = {}
    for sym, sources in env.var_to_sources.items():
        src = sources[0].name
        src = re.sub(r"^input(\d+)", lambda m: "L['%s']" % ["x_1", "s_1", "k_1"][int(m.group(1))], src)
        if src in ours:
            names[str(sym)] = ours[src]
    pattern = re.compile(r"\b(%s)\b" % "|".join(map(re.escape, names))) if names else None
    return [pattern.sub(lambda m: names[m.group(1)], g) if pattern else g for g in guards]


@pytest.mark.parametrize("name", list(_PROGRAMS))
def test_guard_trace_is_torch_s(name, capfd):
    fn = _PROGRAMS[name]
    gm, theirs = _torch_guards(fn)
    capfd.readouterr()
    report = fakeprop.propagate(gm, log="dynamic")
    err = capfd.readouterr().err
    mine = [m.group(1) for m in (re.search(r"\] eval (.*) \[guard added\]", line) for line in err.splitlines()) if m]
    env = next(n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder").fake_mode.shape_env
    # make_fx asks each value's tensor_meta as it traces the value; fakeprop, modelling
    # torch.compile (where Dynamo's trace runs every op first), after all the ops: the same set.
    assert sorted(mine) == sorted(_renamed(theirs, env, report))


_ZERO_DIM_EXAMPLES = [
    (torch.int64, 3), (torch.int32, -2), (torch.int16, 7), (torch.int8, 0), (torch.float64, 1.5),
    (torch.float64, float("nan")), (torch.float32, 2.0), (torch.uint8, 4), (torch.bool, True),
]


@pytest.mark.parametrize("dtype,value", _ZERO_DIM_EXAMPLES, ids=lambda v: str(v))
def test_real_zero_dim_example_memoizes_item_as_torch_compile_does(dtype, value):
    """A real 0-d CPU example stands for a torch.compile frame's input: Dynamo fakifies it with
    FakeTensor's converter, which makes a backed symbol for its item() for the integer and float64
    dtypes whether or not the graph calls item(). torch's converter, asked here, is the oracle."""
    from torch._dynamo.source import LocalSource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    y = torch.tensor(value, dtype=dtype)
    env = ShapeEnv()
    FakeTensorMode(shape_env=env).from_tensor(y, source=LocalSource("y"))
    values = getattr(env, "backed_var_to_val", None) or env.var_to_val
    theirs = [(sym, values[sym]) for sym, srcs in env.var_to_sources.items()
              if any(src.name.endswith(".item()") for src in srcs)]
    gm = make_fx(lambda x, y: (x.sin(), y + 1))(torch.randn(4), y)
    report = fakeprop.propagate(gm, torch.randn(4), y)
    mine = [s for s in report["symbols"] if any(src.endswith(".item()") for src in s["sources"])]
    assert len(mine) == len(theirs) <= 1
    for (sym, val), ours in zip(theirs, mine):
        assert ours["kind"] == "backed" and ours["hint"] == val
        assert (ours.get("type") == "float") == str(sym).startswith("zf")
    # torch.export fakifies with export=True: no memo, so no symbol.
    ep = torch.export.export(torch.fx.GraphModule(gm, gm.graph), (torch.randn(4), y))
    exported = fakeprop.propagate(ep, torch.randn(4), y)
    assert not [s for s in exported["symbols"] if any(src.endswith(".item()") for src in s["sources"])]
