"""fakeprop.propagate over live GraphModules and ExportedPrograms, checked against torch's own fake values."""
import math

import pytest

import fakeprop

torch = pytest.importorskip("torch")
if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("torch.export needs torch 2", allow_module_level=True)

from torch.export import Dim  # noqa: E402

_FUNCS = {"Max": max, "Min": min, "Mod": lambda a, b: a % b, "floor": math.floor, "ceiling": math.ceil,
          "Abs": abs}


def _fp_int(d, values):
    """A fakeprop dim (int or Python text over symbol names) at `values`."""
    return d if isinstance(d, int) else int(eval(d, dict(_FUNCS), dict(values)))  # noqa: S307


def _torch_int(d, values):
    import sympy

    if isinstance(d, int):
        return d
    expr = d.node.expr
    return int(expr.xreplace({s: sympy.Integer(values[str(s)]) for s in expr.free_symbols}))


def _points(report, program, mixed_ratios=False):
    """Assignments of the symbols: the hints, and two more inside their ranges (every hint times 2,
    then times 3); with `mixed_ratios`, a fourth with the hints times 3 and 2 in turn, which changes
    the ratio of two sizes (an image's aspect ratio)."""
    ranges = {str(k): v for k, v in getattr(program, "range_constraints", {}).items()}
    hints = {s["name"]: s["hint"] for s in report["symbols"] if s["hint"] is not None}
    points = [hints]
    factors = [lambda i: 2, lambda i: 3] + ([lambda i: 3 if i % 2 == 0 else 2] if mixed_ratios else [])
    for factor in factors:
        p = {}
        for i, (name, hint) in enumerate(sorted(hints.items())):
            v = hint * factor(i)
            vr = ranges.get(name)
            if vr is not None and not math.isinf(float(vr.upper)):
                v = min(v, int(vr.upper))
            p[name] = v
        points.append(p)
    return points


def _tensor_pairs(program):
    gm = getattr(program, "graph_module", program)
    for node in gm.graph.nodes:
        if node.op == "output" or (node.op == "get_attr" and "val" not in node.meta):
            continue  # a higher-order op's subgraph, read as no node of its own
        ours = node.meta["fakeprop"]["val"]
        theirs = node.meta.get("val")
        if isinstance(theirs, torch.Tensor):
            yield node, ours, theirs
        elif isinstance(theirs, (list, tuple)):
            for i, t in enumerate(theirs):
                if isinstance(t, torch.Tensor):
                    yield node, ours[i], t


def _trace_grads(program):
    """Node name -> each output's requires_grad as torch.export's trace had it, for an ExportedProgram
    (None for a GraphModule): a call's recorded meta['val'] is a detached snapshot, so the graph runs
    again, with grad enabled as export traces, over fake tensors like its placeholders' recorded values
    (parameters require grad) at their hints, in a fake mode of its own (the export's ShapeEnv stays
    as it is)."""
    if not hasattr(program, "graph_signature"):
        return None
    from torch._dispatch.python import enable_python_dispatcher
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    def hint(d):
        return d if isinstance(d, int) else d.node.hint

    gm = program.graph_module
    mode = FakeTensorMode(shape_env=ShapeEnv(), allow_non_fake_inputs=True)
    args = []
    with mode:
        for n in gm.graph.nodes:
            if n.op != "placeholder":
                continue
            v = n.meta["val"]
            if isinstance(v, torch.Tensor):
                t = torch.empty_strided([hint(d) for d in v.shape], [hint(d) for d in v.stride()], dtype=v.dtype,
                                        device=v.device)
                args.append(t.requires_grad_(v.requires_grad))
            else:
                args.append(hint(v) if isinstance(v, torch.SymInt) else v)
    grads = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            items = r if isinstance(r, (list, tuple)) else [r]
            grads[n.name] = [t.requires_grad if isinstance(t, torch.Tensor) else None for t in items]
            return r

    with mode, enable_python_dispatcher(), torch.enable_grad():
        Recorder(gm).run(*args)
    return grads


def _indexed_pairs(program):
    """(node, output index, fakeprop's value, torch's) for each tensor a node gives."""
    gm = getattr(program, "graph_module", program)
    for node in gm.graph.nodes:
        if node.op == "output" or (node.op == "get_attr" and "val" not in node.meta):
            continue  # a higher-order op's subgraph, read as no node of its own
        ours = node.meta["fakeprop"]["val"]
        theirs = node.meta.get("val")
        if isinstance(theirs, torch.Tensor):
            yield node, 0, ours, theirs
        elif isinstance(theirs, (list, tuple)):
            for i, t in enumerate(theirs):
                if isinstance(t, torch.Tensor):
                    yield node, i, ours[i], t


def check_against_torch(program, report, mixed_ratios=False):
    """Every node's shape, stride, offset, dtype, device and requires_grad equals torch's at three points
    (four with `mixed_ratios`, see _points), and two values share a fakeprop storage exactly when they
    share torch's. An ExportedProgram's calls require grad as they did in torch's trace (_trace_grads)."""
    points = _points(report, program, mixed_ratios)
    grads = _trace_grads(program)
    storages = {}
    checked = 0
    for node, index, ours, theirs in _indexed_pairs(program):
        where = "%s (%s)" % (node.name, node.target)
        assert ours is not None, where
        assert ours["dtype"] == str(theirs.dtype).replace("torch.", ""), where
        assert ours["device"] == str(theirs.device), where
        if node.op == "call_function":
            want = theirs.requires_grad if grads is None else grads[node.name][index]
            assert ours["requires_grad"] == want, where
        for values in points:
            for key, torch_dims in (("shape", theirs.shape), ("stride", theirs.stride())):
                got = [_fp_int(d, values) for d in ours[key]]
                want = [_torch_int(d, values) for d in torch_dims]
                assert got == want, "%s %s at %s: %s, torch %s" % (where, key, values, ours[key], list(torch_dims))
            assert _fp_int(ours["storage_offset"], values) == _torch_int(theirs.storage_offset(), values), where
        # torch.export records lift_fresh_copy(constant) as the constant's own fake tensor (its
        # converter memoizes real -> fake), so the lifted constant placeholder shares the copy's
        # storage there; running the program copies, as fakeprop does. Leave the placeholder out.
        if not (node.op == "placeholder" and "lifted_tensor" in node.name):
            storages.setdefault(theirs.untyped_storage()._cdata, set()).add(ours["storage"])
        checked += 1
    for ids in storages.values():
        assert len(ids) == 1, "values torch aliases have distinct fakeprop storages: %s" % ids
    return checked


class Attention(torch.nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm(x)).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        return self.out(y.transpose(1, 2).reshape(b, t, c)) + x


def _export_attention():
    x = torch.randn(2, 8, 32)
    shapes = {"x": {0: Dim("batch", max=64), 1: Dim("seq", max=512)}}
    return torch.export.export(Attention().eval(), (x,), dynamic_shapes=shapes)


def test_exported_program_matches_torch():
    ep = _export_attention()
    vals = {n.name: n.meta.get("val") for n in ep.graph_module.graph.nodes}
    report = fakeprop.propagate(ep)
    assert report["errors"] == []
    assert check_against_torch(ep, report) > 10
    # meta['val'] is torch's and stays so
    assert all(n.meta.get("val") is vals[n.name] for n in ep.graph_module.graph.nodes)


class EinsumAttention(torch.nn.Module):
    """Attention written with einsum, which torch.export's default IR keeps as aten.einsum."""

    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)

    def forward(self, x, table):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).unbind(2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k).softmax(-1)
        y = torch.einsum("bhqk,bkhd->bqhd", scores, v).reshape(b, t, c)
        diag = torch.einsum("ii->i", table)  # a view of table
        outer = torch.einsum("bt,c->btc", y.sum(-1), diag)
        return y + outer, torch.einsum("btc,btc->bt", y, y), torch.einsum("ij,kj->jik", table, table)


def test_einsum_matches_torch():
    x, table = torch.randn(2, 8, 32), torch.randn(32, 32)
    shapes = {"x": {0: Dim("batch", max=64), 1: Dim("seq", max=512)}, "table": None}
    ep = torch.export.export(EinsumAttention().eval(), (x, table), dynamic_shapes=shapes)
    assert sum(n.target == torch.ops.aten.einsum.default for n in ep.graph.nodes) == 6
    report = fakeprop.propagate(ep)
    assert report["errors"] == []
    assert check_against_torch(ep, report) > 10


def test_exported_program_inputs_and_ranges():
    ep = _export_attention()
    report = fakeprop.propagate(ep, dynamic=".*")
    # parameters and buffers come from the signature: never user inputs, never dynamic
    assert [i["name"] for i in report["inputs"]] == ["x"]
    params = [n.name for n in ep.graph_module.graph.nodes if n.op == "placeholder" and n.name != "x"]
    for node in ep.graph_module.graph.nodes:
        if node.name in params:
            assert all(isinstance(d, int) for d in node.meta["fakeprop"]["val"]["shape"]), node.name
    by_name = {s["name"]: s for s in report["symbols"]}
    for sym, vr in ep.range_constraints.items():
        ours = by_name[str(sym)]
        upper = None if math.isinf(float(vr.upper)) else int(vr.upper)
        # range_constraints admit 0 and 1 where the trace assumed >= 2 (export's 0/1 convention);
        # the symbol's own range, as ShapeEnv's var_to_range, starts at 2
        assert ours["range"] == [max(int(vr.lower), 2), upper], str(sym)
    # dynamic=".*" reaches every dim of the user input, and nothing else
    assert sorted(ours["sources"][0] for ours in report["symbols"]) == ["L['x'].size()[%d]" % i for i in range(3)]


def test_graph_module_with_dynamic_shapes():
    def f(x, y):
        return torch.relu(x @ y.t()).sum(1)

    x, y = torch.randn(4, 8), torch.randn(6, 8)
    gm = torch.fx.experimental.proxy_tensor.make_fx(f)(x, y)
    static = fakeprop.propagate(gm, x, y)
    assert static["symbols"] == []
    report = fakeprop.propagate(gm, x, y, dynamic_shapes={"x_1": {0: Dim("n")}, "y_1": (Dim.AUTO, None)})
    assert sorted(s["hint"] for s in report["symbols"]) == [4, 6]
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    out = out[0] if isinstance(out, (list, tuple)) else out
    assert isinstance(out.meta["fakeprop"]["val"]["shape"][0], str)
    # equal Dim names are one size: their hints must agree (torch.export raises a UserError)
    with pytest.raises(fakeprop.InputError, match="shape_id n"):
        fakeprop.propagate(gm, x, y, dynamic_shapes=((Dim("n"), None), (Dim("n"), None)))
    same = fakeprop.propagate(gm, x, torch.randn(4, 8), dynamic_shapes=((Dim("n"), None), (Dim("n"), None)))
    dims = {i["name"]: i["val"]["shape"][0] for i in same["inputs"]}
    assert dims["x_1"] == dims["y_1"] and isinstance(dims["x_1"], str), dims


def test_symbolic_make_fx_matches_torch():
    m = Attention().eval()

    def f(x):
        return m(x)

    gm = torch.fx.experimental.proxy_tensor.make_fx(f, tracing_mode="symbolic", _allow_non_fake_inputs=True)(
        torch.randn(3, 5, 32))
    report = fakeprop.propagate(gm)
    assert report["errors"] == []
    assert check_against_torch(gm, report) > 10


def test_dims_a_symbolic_trace_specialized_stay_specialized():
    # linspace's steps is an int: the symbolic trace specialized x's dim 0 to 8 and the graph holds
    # the constant; with an example in its place the graph records it, and a run that makes the
    # dim symbolic specializes it, as torch.compile's own trace did (Eq(s77, 8); the tensor match,
    # not a shape guard, then checks the size).
    def f(x):
        return torch.linspace(0, 1, x.shape[0]), x * 2

    x = torch.randn(8, 4)
    gm = torch.fx.experimental.proxy_tensor.make_fx(f, tracing_mode="symbolic")(x)
    doc = fakeprop.export_graph(gm, [x])
    placeholder = next(n for n in doc["nodes"] if n["op"] == "placeholder")
    assert placeholder["val"]["specialized"] == [0]
    report = fakeprop.propagate(gm, x, assume_static_by_default=False)
    assert report["errors"] == []
    assert [(sp["source"], sp["value"]) for sp in report["specializations"]] == [("L['x_1'].size()[0]", 8)], \
        report["specializations"]
    assert not [g["expr"] for g in report["guards"] if g["expr"].endswith("== 8")], report["guards"]
    mul = next(n for n in report["nodes"] if n["op"] == "aten.mul.Tensor")
    shape = mul["outputs"][0]["val"]["shape"]
    assert shape[0] == 8 and isinstance(shape[1], str), shape
    plain = fakeprop.export_graph(torch.fx.experimental.proxy_tensor.make_fx(f)(x), [x])  # a static trace
    assert "specialized" not in next(n for n in plain["nodes"] if n["op"] == "placeholder")["val"]


def test_bad_programs_are_input_errors():
    gm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(2, 2)))  # not ATen-level
    with pytest.raises(fakeprop.InputError, match="call_module"):
        fakeprop.propagate(gm, torch.randn(2))
    ep = _export_attention()
    with pytest.raises(fakeprop.InputError, match="derived"):
        b = Dim("b")
        fakeprop.propagate(ep, dynamic_shapes={"x": {0: 2 * b}})
    with pytest.raises(fakeprop.InputError, match="no input named"):
        fakeprop.propagate(ep, dynamic_shapes={"y": None})


def test_dim_hints_map_onto_marks():
    def f(x):
        return x + torch.ones(4, 8)

    x = torch.randn(4, 8)
    gm = torch.fx.experimental.proxy_tensor.make_fx(f)(x)  # a real trace: ones' sizes are constants
    auto = fakeprop.propagate(gm, x, dynamic_shapes=[{0: Dim.AUTO, 1: Dim.AUTO}])  # maybe dynamic: specializes
    assert auto["errors"] == []
    assert sorted(s["value"] for s in auto["specializations"]) == [4, 8]
    with pytest.raises(fakeprop.ConstraintViolationError) as e:
        fakeprop.propagate(gm, x, dynamic_shapes=[{0: Dim.DYNAMIC}])
    assert "L['x_1'].size()[0]" in str(e.value) and e.value.report["errors"]
    static = fakeprop.propagate(gm, x, dynamic_shapes=[(Dim.STATIC, 8)])
    assert static["symbols"] == []


def test_exported_graph_file_gives_the_report_propagate_gives(cli, tmp_path):
    """export_graph's document, run by the CLI, reports what propagate reports in process (the same
    graph reader, the same run); the report objects are the JSON report's."""
    import json

    ep = _export_attention()
    report = fakeprop.propagate(ep)
    path = tmp_path / "attention.json"
    path.write_text(json.dumps(fakeprop.export_graph(ep)))
    out = cli(path, "--json")
    assert out.returncode == 0, out.stderr
    from_file = json.loads(out.stdout)
    assert from_file["model"]["path"] == str(path) and report["model"]["path"] == "<ExportedProgram>"
    from_file["model"] = report["model"]
    assert report == from_file
    assert [n["name"] for n in report["nodes"]][:2] == [n.name for n in ep.graph.nodes][:2]


def test_annotated_graph_holds_propagate_results_and_loads_back(cli, tmp_path):
    """-o (infer's ``output``) on an exported graph: every node's meta.val is the VAL propagate
    attaches in process, and a run over the annotated file gives the same report as the first."""
    import json

    ep = _export_attention()
    fakeprop.propagate(ep)
    attached = {n.name: n.meta["fakeprop"] for n in ep.graph_module.graph.nodes if "fakeprop" in n.meta}
    path, annotated = tmp_path / "attention.json", tmp_path / "annotated.json"
    path.write_text(json.dumps(fakeprop.export_graph(ep)))
    first = fakeprop.infer(path, output=annotated)
    graph = json.loads(annotated.read_text())
    meta_vals = {n["name"]: n["meta"]["val"] for n in graph["nodes"] if n["op"] != "output"}
    assert len(meta_vals) > 10 and meta_vals.keys() == attached.keys()
    for name, val in meta_vals.items():
        assert val == attached[name]["val"], name
    assert [s["name"] for s in graph["meta"]["symbols"]] == [s["name"] for s in first["symbols"]]
    again = fakeprop.infer(annotated)
    assert again["model"]["path"] == str(annotated)
    again["model"] = first["model"]
    assert again == first
    # the CLI writes the same file
    out = cli(path, "-o", tmp_path / "cli.json")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "cli.json").read_text() == annotated.read_text()
    with pytest.raises(fakeprop.InputError, match="refusing to overwrite the input model"):
        fakeprop.infer(path, output=path)


def test_tied_parameters_share_one_storage():
    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(16, 8)
            self.head = torch.nn.Linear(8, 16, bias=False)
            self.head.weight = self.embed.weight

        def forward(self, ids):
            return self.head(self.embed(ids))

    ep = torch.export.export(Tied(), (torch.randint(0, 16, (2, 4)),))
    doc = fakeprop.export_graph(ep)
    aliases = [n for n in doc["nodes"] if n["target"] == "aten.alias.default"]
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]  # both FQNs are lifted
    assert [a["name"] for a in aliases] == [placeholders[1].name]
    fakeprop.propagate(ep)
    vals = [n.meta["fakeprop"]["val"] for n in placeholders[:2]]
    assert vals[0]["storage"] == vals[1]["storage"]


def test_unsupported_arguments_name_the_node():
    class Odd(torch.nn.Module):
        def forward(self, x):
            return x + 1

    gm = torch.fx.experimental.proxy_tensor.make_fx(Odd())(torch.randn(2))
    add = next(n for n in gm.graph.nodes if n.op == "call_function")
    add.args = (add.args[0], object())
    with pytest.raises(fakeprop.InputError, match=r"node 'add\w*': cannot encode an argument of type object"):
        fakeprop.propagate(gm)


class _Slices(torch.nn.Module):
    """Slice bounds torch 2.x's fake slice cannot place (an unbacked count from the end) and ones it can."""

    def forward(self, x, mask):
        n = torch.nonzero(mask).shape[0]
        return x[-n:] * 2, x[:n], x[1:-1:3]


def test_slices_with_unbacked_bounds_agree_with_torch():
    x, mask = torch.arange(10.0), torch.tensor([1, 0, 1, 1, 0, 0])
    ep = torch.export.export(_Slices(), (x, mask))
    report = fakeprop.propagate(ep)
    assert report["errors"] == []
    slices = [n for n in ep.graph.nodes if n.target is torch.ops.aten.slice.Tensor]
    assert len(slices) == 3
    for node in slices:
        ours, theirs = node.meta["fakeprop"]["val"], node.meta["val"]
        assert ours["shape"] == [str(d) if not isinstance(d, int) else d for d in theirs.shape], node.name
        offset = theirs.storage_offset()
        assert ours["storage_offset"] == (offset if isinstance(offset, int) else str(offset)), node.name
        assert ours["stride"] == list(theirs.stride()), node.name
    # torch checks the fresh length and offset it makes; fakeprop records the same runtime asserts.
    theirs = {a.args[1].split("expression ")[1].split(" on node")[0]
              for a in ep.graph.nodes if a.target is torch.ops.aten._assert_scalar.default}
    ours = {a["sym_expr"] for a in report["runtime_asserts"]}
    assert {"u1 >= 0", "u1 <= 10", "u2 >= 0"} <= theirs
    assert {"u1 >= 0", "u1 <= 10", "u2 >= 0"} <= ours


_A = torch.ops.aten
_LAYOUT_OPS = {
    "empty_like": lambda x: _A.empty_like.default(x),
    "zeros_like": lambda x: _A.zeros_like.default(x),
    "full_like": lambda x: _A.full_like.default(x, 2.0),
    "rand_like": lambda x: _A.rand_like.default(x),
    "randint_like": lambda x: _A.randint_like.default(x, 5),
    "fill": lambda x: _A.fill.Scalar(x, 1.0),
    "flip": lambda x: _A.flip.default(x, [0]),
    "dropout": lambda x: _A.native_dropout.default(x, 0.5, True),
    "index_put": lambda x: _A.index_put.default(x, [torch.tensor([0])], torch.tensor(1.0)),
    "clone": lambda x: _A.clone.default(x),
    "_to_copy": lambda x: _A._to_copy.default(x, dtype=torch.float64),
    "roll": lambda x: _A.roll.default(x, [1], [0]),
}
_LAYOUTS = {"size1_last": ((3, 1), (1, 3)), "col_major": ((3, 2), (1, 3)), "permuted": ((2, 3, 4), (1, 8, 2)),
            "size1_mid": ((2, 1, 4), (4, 8, 1))}


@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("op", list(_LAYOUT_OPS))
def test_like_factories_allocate_as_fake_tensor_does(op, layout):
    """torch 2.x's FakeTensor allocates the *_like factories (and fill, flip, index_put, dropout) with the
    reference empty_like, in the input's stride order, so a size-1 dim gets its contiguous stride; clone,
    _to_copy and roll keep or set theirs. Strides of every node equal torch's fake ones."""
    from torch.fx.experimental.proxy_tensor import make_fx

    size, stride = _LAYOUTS[layout]
    x = torch.empty_strided(size, stride)
    gm = make_fx(_LAYOUT_OPS[op], tracing_mode="fake")(x)
    report = fakeprop.propagate(gm, x)
    assert report["errors"] == []
    for node, ours, theirs in _tensor_pairs(gm):
        assert (ours["shape"], ours["stride"]) == (list(theirs.shape), list(theirs.stride())), node.name


def _nz(m):
    return torch.nonzero(m).shape[0]


_UNBACKED_PROGRAMS = {
    "row_of_nonzero": lambda x, m: torch.nonzero(m)[0],  # sym_and of the index checks
    "bincount": lambda x, m: torch.bincount(m),
    "bincount_weights": lambda x, m: torch.bincount(m, weights=x[:, 0], minlength=3),
    "bincount_float64": lambda x, m: torch.bincount(m, weights=x[:, 0].double()),
    "flip": lambda x, m: torch.nonzero(m).flip(0),
    "zeros_like": lambda x, m: torch.zeros_like(torch.nonzero(m)),
    "tail": lambda x, m: x[-_nz(m):],
    "window": lambda x, m: x[_nz(m):_nz(m) + 2],
    "reshape": lambda x, m: torch.nonzero(m).reshape(1, -1),  # a view with contiguous strides
    "view_flat": lambda x, m: torch.nonzero(m).view(-1),
    "stack": lambda x, m: torch.stack([x[:_nz(m)], x[:_nz(m)]]),  # cat, then a view that splits dim 0
    "reshape_cols": lambda x, m: torch.nonzero(m.view(2, 5)).t().reshape(-1),  # no view: a copy
    "repeat_interleave": lambda x, m: x.repeat_interleave(m, dim=0),  # index_select by the counts
    "repeat_interleave_flat": lambda x, m: torch.repeat_interleave(x.t(), m),
}


class _Program(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, m):
        return self.fn(x, m)


@pytest.mark.parametrize("name", list(_UNBACKED_PROGRAMS))
def test_unbacked_programs_agree_with_torch(name):
    """Small programs over a nonzero count, exported by torch 2.15: every tensor's shape, stride and
    storage offset, evaluated at several values of the unbacked symbols, equals torch's fake value."""
    x, m = torch.randn(10, 1), torch.tensor([1, 0, 1, 1, 0, 0, 1, 0, 0, 1])
    ep = torch.export.export(_Program(_UNBACKED_PROGRAMS[name]), (x, m), strict=False)
    report = fakeprop.propagate(ep)
    assert report["errors"] == []
    pairs = list(_tensor_pairs(ep))
    assert pairs
    for value in (0, 3, 7):
        ours_at = {s["name"]: value for s in report["symbols"]}
        theirs_at = {str(s): value for s in ep.range_constraints}
        for node, ours, theirs in pairs:
            offset = theirs.storage_offset()
            assert ([_fp_int(d, ours_at) for d in ours["shape"]] ==
                    [_torch_int(d, theirs_at) for d in theirs.shape]), node.name
            assert ([_fp_int(d, ours_at) for d in ours["stride"]] ==
                    [_torch_int(d, theirs_at) for d in theirs.stride()]), node.name
            assert _fp_int(ours["storage_offset"], ours_at) == _torch_int(offset, theirs_at), node.name
            assert ours["dtype"] == str(theirs.dtype).replace("torch.", ""), node.name


class _LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.lin(x).relu()


def _exported(dynamic=True):
    shapes = {"x": {0: Dim("b")}} if dynamic else None
    return torch.export.export(_LinearRelu(), (torch.randn(3, 8),), dynamic_shapes=shapes)


def test_exported_module_runs_as_its_program():
    # ep.module() holds a `_guards_fn` call_module (torch 2.9+) that checks the guards and returns nothing.
    ep = _exported()
    assert any(n.op == "call_module" for n in ep.module().graph.nodes)
    from_program = fakeprop.propagate(ep)
    from_module = fakeprop.propagate(ep.module())
    assert from_module["errors"] == [] and from_program["errors"] == []
    assert [o["val"]["shape"] for o in from_module["outputs"]] == [o["val"]["shape"] for o in from_program["outputs"]]


def test_a_module_must_be_exported_first():
    with pytest.raises(fakeprop.InputError, match=r"got _LinearRelu \(export it first: torch.export.export"):
        fakeprop.propagate(_LinearRelu(), torch.randn(3, 8))


def test_dynamic_shapes_of_an_exported_program():
    # A dim the program made symbolic is its own: restating it is refused, never ignored.
    with pytest.raises(fakeprop.InputError, match=r"L\['x'\]:0 is already dynamic in this ExportedProgram"):
        fakeprop.propagate(_exported(), dynamic_shapes={"x": {0: None}})
    # A static dim of the program may be made dynamic, as for a GraphModule.
    report = fakeprop.propagate(_exported(dynamic=False), dynamic_shapes={"x": {0: Dim("n")}})
    assert isinstance(report["outputs"][0]["val"]["shape"][0], str)
    assert fakeprop.propagate(_exported(dynamic=False))["outputs"][0]["val"]["shape"] == [3, 4]


def test_example_inputs_must_have_the_placeholders_ranks():
    with pytest.raises(fakeprop.InputError, match=r"example_inputs: \(3, 8, 2\) has 3 dims, the program's input 'x' has 2"):
        fakeprop.propagate(_exported(), torch.randn(3, 8, 2))


@pytest.mark.parametrize("dims,message", [
    ([2.5, 8], "inputs['x'][0] = 2.5 is not a size (a non-negative integer)"),
    ([2, -1], "inputs['x'][1] = -1 is not a size (a non-negative integer)"),
    ([True, 8], "inputs['x'][0] = True is not a size (a non-negative integer)"),
    ("2,8", "inputs['x'] = '2,8' is not a list of sizes"),
])
def test_inputs_errors_are_phrased_for_python(dims, message):
    with pytest.raises(fakeprop.InputError) as e:
        fakeprop.propagate(_exported(), inputs={"x": dims})
    assert str(e.value) == message


@torch.library.custom_op("fakeprop_test::twice", mutates_args=())
def _twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@_twice.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("fakeprop_test::head_and_all", mutates_args=())
def _head_and_all(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x[:, :1].clone(), x.clone()


@_head_and_all.register_fake
def _(x):
    return x.new_empty(x.shape[0], 1), torch.empty_like(x)


class _NoRule(torch.nn.Module):
    """Custom ops fakeprop has no rule for, one output and two, with ops after them."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = _twice(self.lin(x).relu())
        head, whole = _head_and_all(y)
        return (y + 1).sum(-1), head * 3, whole.view(-1), self.lin(x)


def test_a_call_without_a_rule_continues_from_its_declared_value_as_the_cli_does(cli, tmp_path):
    """propagate on a program with ops fakeprop has no rule for gives the CLI's report on the program's
    .pt2, node by node: each failed call continues from its declared value (meta['val']: its static
    dims, fresh unbacked sizes for the others), so only the calls without a rule and the getitems of a
    call with two outputs stay unresolved, not every node after the first."""
    import json

    ep = torch.export.export(_NoRule(), (torch.randn(4, 8),), dynamic_shapes={"x": {0: Dim("b", max=64)}})
    path = tmp_path / "no_rule.pt2"
    torch.export.save(ep, str(path))
    report = fakeprop.propagate(ep)
    out = cli(path, "--json")
    assert out.returncode == 0, out.stderr
    from_cli = json.loads(out.stdout)
    kinds = {e["node"]: e["kind"] for e in report["errors"]}
    assert kinds == {"twice": "unsupported_op", "head_and_all": "unsupported_op", "getitem": "unknown_input",
                     "getitem_1": "unknown_input"}
    assert report["errors"] == from_cli["errors"]
    assert [n["name"] for n in report["nodes"]] == [n["name"] for n in from_cli["nodes"]]
    for ours, theirs in zip(report["nodes"], from_cli["nodes"]):
        assert ours == theirs, ours["name"]
    resolved = [n for n in ep.graph.nodes if n.op == "call_function" and n.name not in kinds]
    assert len(resolved) >= 6
    # what follows a call without a rule has the call's static dims
    vals = {n["name"]: n["outputs"][0]["val"] for n in report["nodes"] if len(n["outputs"]) == 1}
    last = [n.name for n in ep.graph.nodes if n.op == "call_function"]
    assert vals[last[-1]]["shape"][1] == 8


class _BiasedAttention(torch.nn.Module):
    """Attention with a float mask from a parameter (a relative-position bias, as T5's, Swin's and
    MaxViT's) or from a buffer; torch.export traces in grad mode, so the parameter's mask requires grad."""

    def __init__(self, mask_from):
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.mask_from = mask_from
        if mask_from == "parameter":
            self.bias = torch.nn.Parameter(torch.zeros(1, 4, 6, 6))
        else:
            self.register_buffer("bias", torch.zeros(1, 4, 6, 6))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, 4, c // 4).permute(2, 0, 3, 1, 4)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=self.bias * 0.5)
        return y.transpose(1, 2).reshape(b, t, c)


@pytest.mark.parametrize("mask_from", ["parameter", "buffer", "frozen"])
def test_sdpa_backend_follows_the_masks_requires_grad(mask_from, cli, tmp_path):
    """On CPU, SDPA with a mask that requires grad takes the math path (a contiguous [B, H, L, E]
    output); without, the flash kernel (laid out as the query). Both as torch's trace chose, in process
    and through the CLI on the .pt2."""
    import json

    model = _BiasedAttention("buffer" if mask_from == "buffer" else "parameter")
    if mask_from == "frozen":
        model.requires_grad_(False)
    ep = torch.export.export(model, (torch.randn(2, 6, 16),), dynamic_shapes={"x": {0: Dim("b", max=32)}})
    (sdpa,) = [n for n in ep.graph.nodes if n.target == torch.ops.aten.scaled_dot_product_attention.default]
    contiguous = sdpa.meta["val"].is_contiguous()
    assert contiguous == (mask_from == "parameter")  # torch's own choice
    report = fakeprop.propagate(ep)
    assert report["errors"] == []
    assert check_against_torch(ep, report) > 5
    path = tmp_path / "attention.pt2"
    torch.export.save(ep, str(path))
    out = cli(path, "--json")
    assert out.returncode == 0, out.stderr
    vals = {n["name"]: n["outputs"][0]["val"] for n in json.loads(out.stdout)["nodes"]}
    assert vals[sdpa.name] == sdpa.meta["fakeprop"]["val"]


def test_repeated_calls_intern_no_new_expressions():
    # A long-lived process runs the same programs again and again: every expression a run makes is
    # interned once, so a second round over them adds none (the interner is never freed).
    from fakeprop import _core

    class Mlp(torch.nn.Module):
        def __init__(self, width):
            super().__init__()
            self.a, self.b = torch.nn.Linear(width, 2 * width), torch.nn.Linear(2 * width, width)

        def forward(self, x):
            return self.b(self.a(x).relu()).view(x.shape[0], -1, 4).sum(1)

    programs = [torch.export.export(Mlp(w), (torch.randn(3, 7, w),),
                                    dynamic_shapes=({0: Dim("b", min=2), 1: Dim("t", min=2)},))
                for w in (8, 12, 20)]
    for p in programs:
        fakeprop.propagate(p)
    after_first_round = _core.interned_expr_count()
    for _ in range(3):
        for p in programs:
            assert fakeprop.propagate(p)["outputs"]
    assert _core.interned_expr_count() == after_first_round
