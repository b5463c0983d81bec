"""fakeprop's entry points: :func:`infer` and :func:`check` for model files, :func:`propagate` for live programs."""
import gc
import os

from . import errors
from .graph_export import read_program

_KNOWN_DIM_HINTS = ("AUTO", "DYNAMIC", "STATIC")


def _core():
    from . import _core as core  # the extension, loaded on first use

    return core


def _spec_list(name, value):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError("%s: expected a source spec (str) or a list of them, got %r" % (name, value))


def _input_list(inputs):
    if inputs is None:
        return []
    if isinstance(inputs, dict):
        out = []
        for name, dims in inputs.items():
            if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
                raise errors.InputError("inputs[%r] = %r is not a list of sizes" % (name, dims))
            sizes = []
            for i, d in enumerate(dims):
                # An int (numpy's too, through __index__), never a bool, a float or a negative number.
                index = getattr(type(d), "__index__", None)
                if isinstance(d, bool) or index is None or index(d) < 0:
                    raise errors.InputError("inputs[%r][%d] = %r is not a size (a non-negative integer)"
                                            % (name, i, d))
                sizes.append(str(index(d)))
            out.append("%s=%s" % (name, ",".join(sizes)))
        return out
    return _spec_list("inputs", inputs)


def _npy_bytes(name, array):
    """An array-like (numpy array, torch tensor, nested list) as .npy bytes."""
    import io

    import numpy

    if hasattr(array, "detach") and hasattr(array, "cpu"):
        array = array.detach().cpu().numpy()
    try:
        array = numpy.ascontiguousarray(numpy.asarray(array))
        if array.dtype.hasobject:
            raise ValueError("it holds Python objects")
        buf = io.BytesIO()
        numpy.save(buf, array.astype(array.dtype.newbyteorder("<")), allow_pickle=False)
    except Exception as e:  # noqa: BLE001: numpy raises many kinds
        raise errors.InputError("real_inputs: %s: not an array of numbers (%s)" % (name, e))
    return buf.getvalue()


def _real_input_args(real_inputs):
    """real_inputs as --real-input specs (paths) and (name, .npy bytes) pairs (arrays)."""
    if real_inputs is None:
        return [], []
    if isinstance(real_inputs, (str, os.PathLike)):
        return [os.fspath(real_inputs)], []
    if isinstance(real_inputs, (list, tuple)):
        return [os.fspath(p) for p in real_inputs], []
    if not isinstance(real_inputs, dict):
        raise TypeError("real_inputs: expected a dict by input name, a path or a list of paths, got %r" % (real_inputs,))
    specs, arrays = [], []
    for name, value in real_inputs.items():
        if isinstance(value, (str, os.PathLike)):
            specs.append("%s=%s" % (name, os.fspath(value)))
        else:
            arrays.append((str(name), _npy_bytes(name, value)))
    return specs, arrays


def _positive(key, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise errors.InputError("%s must be a positive int, got %r" % (key, value))
    return value


def _at_least_zero(key, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise errors.InputError("%s must be an int >= 0, got %r" % (key, value))
    return value


def _texts(value):
    return ["%s=%s" % (k, v) for k, v in value.items()]


# How a keyword's Python value becomes its row's value, where that is not the value itself (a
# flag, a text) or a list of source specs.
_TO_ROW = {
    "inputs": _input_list,
    "device": str,
    "explain_symbol": lambda v: ",".join(v) if isinstance(v, (list, tuple)) else v,
    "op_rules": lambda v: [os.fspath(p) for p in ([v] if isinstance(v, (str, os.PathLike)) else v)],
    "unbacked_values": _texts,
    "dtype_bytes": _texts,
}


_ROWS = None  # the option table, read from the extension on first use


def _option_table():
    """The option table's rows (lib/fakeprop/options/infer_flags.h): flag, keyword, key, kind, help."""
    global _ROWS
    if _ROWS is None:
        _ROWS = _core().infer_flags()
    return _ROWS


def _run_args(given, leave_out=()):
    """The run options among ``given`` (a caller's keywords, its ``locals()``) as the extension takes
    them: each row of the option table by its key. Left out, None and the defaults (False, a --no-X
    keyword's True, "", [], 0) are not sent: the extension reads a missing key as the CLI's default."""
    args = {}
    for _flag, keyword, key, kind, _help in _option_table():
        value = given.get(keyword)
        if value is None or keyword in leave_out:
            continue
        if keyword == "real_inputs":
            args["real_inputs"], args["real_input_arrays"] = _real_input_args(value)
        elif kind == "flag":
            if (not value) if key.startswith("no_") else value:
                args[key] = True
        elif kind == "count":
            args[key] = _positive(keyword, value)
        elif kind == "bytes":
            if _at_least_zero(keyword, value):
                args[key] = value
        elif not value:
            continue  # an empty list or text: the default
        elif keyword in _TO_ROW:
            args[key] = _TO_ROW[keyword](value)
        elif kind == "list":
            args[key] = _spec_list(keyword, value)
        else:
            args[key] = value
    return args


def _finish(report, status, where):
    if status == 0:
        return report
    problems = report.get("errors", [])
    for p in problems:
        if p["kind"] == "constraint_violation":
            raise errors.ConstraintViolationError(p["message"], report)
    first = problems[0] if problems else {"node": None, "message": "a node failed"}
    node = "node %s: " % first["node"] if first.get("node") else ""
    raise errors.StrictModeError("%s: strict: %s%s" % (where, node, first["message"]), report)


def infer(path, *, dynamic=None, unbacked=None, static=None, marks=None, inputs=None, device="cpu",
          log=None, specialize_zero_one=True, duck_shape=True, backed_size_oblivious=False,
          assume_static_by_default=True, strict=False, explain_guard=None, explain_symbol=None, output=None,
          html=None, op_rules=None, unbacked_values=None, real_inputs=None, max_nodes=None,
          max_program_bytes=None, max_compression_ratio=None, calls=None, workload=None, recompile_limit=8,
          trace_dir=None, stats=False, alloc_round=0, dtype_bytes=None):
    """Run one model file (ONNX, JSON FX graph, torch.export .pt2 archive) and return its report.

    The report is the content of ``fakeprop MODEL --json`` as Python objects
    (``schemas/report.schema.json``). The keyword arguments are the CLI's
    options: ``dynamic``, ``unbacked``, ``static`` take a source spec or a
    list of them (``"L['x']:0"``, ``"x"``), ``marks`` a list of ``--mark``
    texts (``"x:0=dynamic,min=2,max=64"``), ``inputs`` example sizes as
    ``{"x": [8, 3, 224, 224]}``; ``device`` is ``"cpu"`` or ``"cuda"``;
    ``log="dynamic"`` writes the ``TORCH_LOGS=dynamic`` trace on stderr;
    ``specialize_zero_one=False``, ``duck_shape=False``,
    ``backed_size_oblivious=True`` and ``assume_static_by_default=False``
    are the ShapeEnv switches ``--no-specialize-zero-one``,
    ``--no-duck-shape``, ``--backed-size-oblivious`` and
    ``--no-assume-static-by-default``; ``explain_guard`` (a guard's sympy
    text) and ``explain_symbol`` (``"u0,s1"`` or a list) print the causal
    chain of that guard or those symbols on stderr (``--explain-*``);
    ``op_rules`` is an ``--op-rules`` file or a list of them (rules for
    custom operators); ``unbacked_values`` maps unbacked symbols to values
    from a real run (``{"u0": 37}``, ``--unbacked-value``);
    ``real_inputs`` gives real tensors of graph inputs, as ``--real-input``
    does: a dict by input name of arrays (numpy, torch tensors) or ``.pb`` /
    ``.npy`` paths, or a path (a test data directory) or list of them;
    their elements run beside the fake values and unbacked sizes learn
    their real values (``real_values`` in the report);
    ``output`` writes the annotated model there, as ``-o`` does (ONNX with
    ``value_info``; a JSON FX graph or ``.pt2`` program as a JSON FX graph
    with ``meta.val`` on every node); ``html`` writes the self-contained
    HTML report there, as ``--html`` does. Outputs never replace the model,
    its external data or another input of the run, and a symbolic link is
    written through to its file. ``max_nodes``, ``max_program_bytes`` and
    ``max_compression_ratio`` are the ``--max-*`` limits on what the model
    file may hold (positive ints; ``None`` keeps the CLI's default).
    ``calls`` (``--call`` texts, ``"x=[8,3,224,224]"``) and ``workload``
    (``--workload``: a JSON file of calls) replay calls against the
    simulated compile cache, as torch.compile would: the report gains
    ``recompiles`` (its ``log`` the Dynamo-style text), with at most
    ``recompile_limit`` entries. ``trace_dir`` writes the TORCH_TRACE log
    there (``--trace-dir``); ``stats=True`` adds the phase times and
    dispatch-cache counters as ``stats`` (``--stats``). ``alloc_round``
    (``512``: CUDA's caching allocator) and ``dtype_bytes``
    (``{"float32": 2}``) change how the report's ``memory`` counts bytes
    (``--alloc-round``, ``--dtype-bytes``). The CLI and the package run the
    same pipeline (``driver/request.h``); the keywords are the option table's
    (``lib/fakeprop/options/infer_flags.h``), which
    ``scripts/check_options.py`` compares with the CLI's help, the man page
    and the docs.

    Raises :class:`fakeprop.InputError` for bad usage or unreadable input,
    :class:`fakeprop.ConstraintViolationError` when a dim marked dynamic was
    specialized, and, with ``strict=True`` (``--strict``), :class:`fakeprop.StrictModeError`
    when a node hit a data-dependent error or has no rule; the last two carry
    the report as ``.report``.
    """
    path = os.fspath(path)
    args = _run_args(locals())
    if output is not None:
        args["output"] = os.fspath(output)
    if html is not None:
        args["html"] = os.fspath(html)
    if calls is not None:
        args["calls"] = _spec_list("calls", calls)
    if workload is not None:
        args["workload"] = os.fspath(workload)
    if trace_dir is not None:
        args["trace_dir"] = os.fspath(trace_dir)
    if stats:
        args["stats"] = True
    if isinstance(recompile_limit, bool) or not isinstance(recompile_limit, int) or recompile_limit < 1:
        raise errors.InputError("recompile_limit must be a positive int, got %r" % (recompile_limit,))
    if recompile_limit != 8:
        args["recompile_limit"] = recompile_limit
    report, status = _core().run_file(path, args)
    return _finish(report, status, path)


class CheckResult:
    """What :func:`check` found: the CLI's ``fakeprop check`` output as Python objects.

    ``models`` is the ``--json`` document: per model a dict of ``model``,
    ``baseline`` (its file), ``status`` (``"ok"``, ``"regressed"``,
    ``"updated"`` or ``"error"``), ``error`` (the message, or None) and
    ``changes`` (each ``{"regression", "kind", "what"}``). ``changes`` and
    ``regressions`` list every model's changes (and only the regressions),
    each with its ``model`` added. ``status`` sums them up: ``"error"`` when a
    model could not be checked, else ``"regressed"`` when one regressed,
    ``"updated"`` when the baselines were written, else ``"ok"``;
    ``exit_code`` is the CLI's (0, 1 on a regression, 2 on bad input).
    ``json`` is the text ``fakeprop check --json`` prints and ``summary`` the
    text it prints without ``--json`` (models' errors aside: the CLI prints
    those on stderr; here they are in ``errors``).
    """

    def __init__(self, json_text, summary, exit_code):
        import json

        self.json = json_text
        self.summary = summary
        self.exit_code = exit_code
        self.models = json.loads(json_text)

    @property
    def status(self):
        if self.exit_code == 2:
            return "error"
        if self.exit_code == 1:
            return "regressed"
        if self.models and all(m["status"] == "updated" for m in self.models):
            return "updated"
        return "ok"

    @property
    def changes(self):
        return [dict(c, model=m["model"]) for m in self.models for c in m["changes"]]

    @property
    def regressions(self):
        return [c for c in self.changes if c["regression"]]

    @property
    def errors(self):
        return [m["error"] for m in self.models if m["error"] is not None]

    def __repr__(self):
        return "<fakeprop.CheckResult %s: %d models, %d changes, %d regressions>" % (
            self.status, len(self.models), len(self.changes), len(self.regressions))


def _paths(name, value):
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, os.PathLike)) for v in value):
        return [os.fspath(v) for v in value]
    raise TypeError("%s: expected a path or a list of paths, got %r" % (name, value))


def _shard_text(shard):
    """shard as ``"K/N"``, from that text or a (K, N) pair."""
    if isinstance(shard, (tuple, list)) and len(shard) == 2:
        k, n = shard
    elif isinstance(shard, str) and shard.count("/") == 1:
        k, n = shard.split("/")
        k, n = (int(k), int(n)) if k.strip().isdigit() and n.strip().isdigit() else (None, None)
    else:
        k = n = None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (k, n)) or not 1 <= k <= n:
        raise errors.InputError("shard=%r: expected 'K/N' or (K, N) with 1 <= K <= N, e.g. '2/8'" % (shard,))
    return "%d/%d" % (k, n)


def check(models, *, baseline, update=False, nodes=False, shard=None, jobs=None, max_peak_growth=None, dynamic=None,
          unbacked=None,
          static=None, marks=None, inputs=None, device="cpu", log=None, specialize_zero_one=True, duck_shape=True,
          backed_size_oblivious=False, assume_static_by_default=True, strict=False, explain_guard=None,
          explain_symbol=None, op_rules=None, unbacked_values=None, real_inputs=None, max_nodes=None,
          max_program_bytes=None, max_compression_ratio=None, alloc_round=0, dtype_bytes=None):
    """Compare model files with their baselines, as ``fakeprop check`` does, and return a :class:`CheckResult`.

    ``models`` is a model path or a list of them; ``baseline`` a baseline
    file (one model) or a directory holding ``<model file name>.baseline.json``
    per model. ``update=True`` writes the current results as the baselines
    (atomically), as ``--update`` does; ``nodes=True`` compares every node's
    outputs too (``--nodes``); ``shard`` (``"2/8"`` or ``(2, 8)``) checks
    every N-th model of the sorted list (``--shard``); ``jobs`` is how many
    models run at once (``-j``; None: every core); ``max_peak_growth`` (a
    percentage, ``--max-peak-growth``) counts a peak memory at the hints that
    grew by more than that as a regression. The other keywords are
    :func:`infer`'s run options, and the sizing options ``alloc_round`` and
    ``dtype_bytes`` (``{"float32": 2}``) as :func:`plan` takes them; a
    baseline records the options it was made with, and without any each
    model runs with its own baseline's. ``real_inputs`` takes paths here
    (a baseline records them), not arrays. The CLI and the package run one
    pipeline (``driver/check.h``): the same baselines, the same document.

    A regression is in the result (``status == "regressed"``), not raised,
    and so is a model that could not be checked (no baseline, a file that
    does not load: ``status == "error"``, its message in ``errors``).
    Raises :class:`fakeprop.InputError` for a request that cannot run:
    a malformed ``shard``, several models with one baseline file, an option
    that does not parse.
    """
    models = _paths("models", models)
    if not models:
        raise errors.InputError("models: no model to check")
    baseline = os.fspath(baseline)
    if len(models) > 1 and not os.path.isdir(baseline):
        raise errors.InputError("baseline=%r: checking several models needs a baseline directory" % baseline)
    request = {"baseline": baseline}
    if update:
        request["update"] = True
    if nodes:
        request["nodes"] = True
    if shard is not None:
        request["shard"] = _shard_text(shard)
    if jobs is not None:
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise errors.InputError("jobs must be a positive int, got %r" % (jobs,))
        request["jobs"] = jobs
    if max_peak_growth is not None:
        if isinstance(max_peak_growth, bool) or not isinstance(max_peak_growth, (int, float)) or not max_peak_growth >= 0:
            raise errors.InputError("max_peak_growth must be a percentage >= 0, got %r" % (max_peak_growth,))
        request["max_peak_growth"] = float(max_peak_growth)
    if real_inputs is not None:
        if isinstance(real_inputs, dict) and not all(isinstance(v, (str, os.PathLike)) for v in real_inputs.values()):
            raise errors.InputError("real_inputs: check takes paths (.pb, .npy, a test data directory), not arrays: "
                                    "a baseline records its options as the CLI's flags")
    args = _run_args(locals())
    if not args.get("real_input_arrays", True):
        del args["real_input_arrays"]
    json_text, summary, exit_code = _core().check_files(models, args, request)
    return CheckResult(json_text, summary, exit_code)


def _dim_mark(source, spec):
    """The --mark text for one dim of a dynamic_shapes entry, or None for a static dim."""
    if spec is None or isinstance(spec, int):
        return "%s=static" % source
    hint = getattr(spec, "type", None)
    hint_name = getattr(hint, "name", None)
    if hint_name in _KNOWN_DIM_HINTS:
        kind = {"AUTO": "maybe_dynamic", "DYNAMIC": "dynamic", "STATIC": "static"}[hint_name]
        return "%s=%s" % (source, kind)
    if hasattr(spec, "root") and hasattr(spec, "fn"):
        raise errors.InputError("dynamic_shapes: %s: derived dims (%s) are not supported" % (source, spec.__name__))
    name = getattr(spec, "__name__", None)
    if name is None:
        raise errors.InputError("dynamic_shapes: %s: expected a Dim, Dim.AUTO/DYNAMIC/STATIC, an int or None, got %r"
                                % (source, spec))
    text = "%s=dynamic,shape_id=%s" % (source, name)
    lo, hi = getattr(spec, "min", None), getattr(spec, "max", None)
    if isinstance(lo, int) and lo > 0:
        text += ",min=%d" % lo
    if isinstance(hi, int) and hi < (1 << 62):
        text += ",max=%d" % hi
    return text


def _marks_from_dynamic_shapes(dynamic_shapes, names):
    """torch.export's dynamic_shapes (a dict by input name, or a tuple in input order) as --mark texts."""
    if dynamic_shapes is None:
        return []
    if isinstance(dynamic_shapes, dict):
        unknown = [k for k in dynamic_shapes if k not in names]
        if unknown:
            raise errors.InputError("dynamic_shapes: no input named %s (inputs: %s)" % (unknown[0], ", ".join(names)))
        entries = list(dynamic_shapes.items())
    elif isinstance(dynamic_shapes, (list, tuple)):
        if len(dynamic_shapes) != len(names):
            raise errors.InputError("dynamic_shapes: %d entries for %d inputs" % (len(dynamic_shapes), len(names)))
        entries = list(zip(names, dynamic_shapes))
    else:
        raise errors.InputError("dynamic_shapes: expected a dict or a tuple, got %s" % type(dynamic_shapes).__name__)
    marks = []
    for name, dims in entries:
        if dims is None:
            continue
        if isinstance(dims, dict):
            items = dims.items()
        elif isinstance(dims, (list, tuple)):
            items = enumerate(dims)
        else:
            raise errors.InputError("dynamic_shapes: %s: expected a dict or a tuple of dims" % name)
        for i, spec in items:
            marks.append(_dim_mark("L['%s']:%d" % (name, int(i)), spec))
    return marks


def _refuse_exported_dynamism(program, dynamic_shapes, names):
    """An ExportedProgram's symbolic dims are its own (range_constraints): dynamic_shapes may make its
    static dims dynamic, never restate a symbolic one."""
    entries = dynamic_shapes.items() if isinstance(dynamic_shapes, dict) else zip(names, dynamic_shapes or ())
    nodes = {n.name: n for n in program.graph_module.graph.nodes if n.op == "placeholder"}
    for name, dims in entries:
        val = getattr(nodes.get(name), "meta", {}).get("val")
        if dims is None or not hasattr(val, "shape"):
            continue
        items = dims.items() if isinstance(dims, dict) else enumerate(dims)
        for i, _ in items:
            if 0 <= int(i) < len(val.shape) and not isinstance(val.shape[int(i)], int):
                raise errors.InputError(
                    "dynamic_shapes: L['%s']:%d is already dynamic in this ExportedProgram (%s), bounded by its "
                    "range_constraints; export again with the dynamic_shapes you want" % (name, int(i), val.shape[int(i)]))


def _without_gc(fn, *args, **kwargs):
    enabled = gc.isenabled()
    gc.disable()
    try:
        return fn(*args, **kwargs)
    finally:
        if enabled:
            gc.enable()


def propagate(program, *example_inputs, dynamic_shapes=None, dynamic=None, unbacked=None, static=None,
              marks=None, inputs=None, device="cpu", log=None, specialize_zero_one=True, duck_shape=True,
              backed_size_oblivious=False, assume_static_by_default=True, strict=False, explain_guard=None,
              explain_symbol=None, op_rules=None, unbacked_values=None, real_inputs=None, gradients=None):
    """Run a ``torch.fx.GraphModule`` or a ``torch.export.ExportedProgram`` in process.

    Returns the report (as :func:`infer` does) and records on every node
    ``node.meta["fakeprop"]``: ``{"val": VAL, "unbacked_bindings": {...}}``,
    where a tensor's VAL holds ``shape``, ``stride``, ``storage_offset``,
    ``dtype``, ``device``, ``storage`` (the storage id: equal ids alias) and
    ``requires_grad``, with symbolic sizes as Python text (``"2*s0"``).
    ``meta["val"]`` is never touched.

    ``example_inputs`` (one per placeholder, or per user input of an
    ExportedProgram) replace the placeholders' ``meta["val"]``; without them
    the placeholders' own fake values are used. ``dynamic_shapes`` is
    torch.export's: a dict by input name or a tuple in input order, each
    entry a dict or tuple of dims, where ``Dim("n", min=, max=)`` is a dim
    marked dynamic (equal names are one size), ``Dim.DYNAMIC`` dynamic,
    ``Dim.AUTO`` maybe dynamic, and ``Dim.STATIC``, an int or None static;
    for an ExportedProgram it may make static dims dynamic, and restating a
    dim the program made symbolic raises :class:`InputError`. A module that
    is not a GraphModule (an ``nn.Module``) must be exported first.
    An ExportedProgram's parameters, buffers and constants come from its
    graph signature and are never user inputs; its ``range_constraints``
    bound its symbols. ``real_inputs`` (real tensors, one per user input;
    ``True`` takes ``example_inputs``) runs the program on them with torch
    first: each unbacked size learns its real value from the real output,
    and data-dependent decisions on it are taken by that value and listed
    apart (``real_values``, ``real_value_decisions``), as PyTorch's
    ``propagate_real_tensors`` does. ``gradients`` names the outputs of a
    joint graph that become leaves' ``.grad`` (``{output node: leaf node}``,
    or the ``GraphSignature`` of ``aot_export_module(..., trace_joint=True)``):
    each is checked as assigning ``.grad`` checks it (an error on the leaf,
    in PyTorch's words), and the leaf's gradient in ``gradients`` follows
    AccumulateGrad's layout contract. The other keyword arguments are
    :func:`infer`'s.
    """
    where = "<%s>" % type(program).__name__
    exported = hasattr(program, "graph_signature") and hasattr(program, "graph_module")
    if not exported and not hasattr(program, "graph"):
        hint = " (export it first: torch.export.export(module, args))" if hasattr(program, "forward") else ""
        raise errors.InputError("propagate takes a torch.fx.GraphModule or a torch.export.ExportedProgram, got %s%s"
                                % (type(program).__name__, hint))
    if real_inputs is True:
        real_inputs = example_inputs
    graph = _without_gc(read_program, program, list(example_inputs) if example_inputs else None, path=where,
                        real_inputs=real_inputs, gradients=gradients)
    all_marks = _marks_from_dynamic_shapes(dynamic_shapes, graph.input_names) + _spec_list("marks", marks)
    if exported and dynamic_shapes is not None:
        _refuse_exported_dynamism(program, dynamic_shapes, graph.input_names)
    # real_inputs here are tensors the program runs on with torch (read_program), not the CLI's files.
    args = _run_args(dict(locals(), marks=all_marks), leave_out=("real_inputs",))
    args["real_run"] = real_inputs is not None
    # Building the report's objects would run the cyclic collector many times over.
    report, status = _without_gc(graph.run, args, True)
    return _finish(report, status, where)


def plan(model, *example_inputs, budget=None, solve=None, at=None, set=None, alloc_round=0, dtype_bytes=None,
         dynamic_shapes=None, html=None, **options):
    """Peak memory and FLOPs over every size, at listed sizes, and the largest size that fits a budget.

    ``model`` is a model file (as :func:`infer` takes) or a
    ``torch.fx.GraphModule`` / ``torch.export.ExportedProgram`` (as
    :func:`propagate` takes, with its ``example_inputs`` and
    ``dynamic_shapes``). ``budget`` is bytes (an int) or text such as
    ``"80GiB"``; ``solve`` one symbol or two (``"s0"``, ``["batch", "seq"]``,
    a source ``"L['x'].size()[0]"`` or ``"x:0"``): the largest size whose
    peak fits the budget, the other symbols at their hints or ``set``
    (``{"seq": 2048}``), and for two the frontier; ``at`` a list of sizes
    (``[{"batch": 8}, {"batch": 16}]``) for a table of peak and FLOPs.
    ``alloc_round=512`` rounds every storage up as CUDA's caching allocator
    does; ``dtype_bytes`` (``{"float32": 2}``) counts a dtype's elements at
    another size. ``html`` writes the HTML report there, its memory chart
    with live bytes at the hints and at the solved size (``--html``; for a
    model file: the report's graph comes from the file). The other keyword
    arguments are :func:`infer`'s run options. Returns ``fakeprop plan --json``'s document as Python objects
    (format ``fakeprop.plan/1``, docs/sizing.md). Raises
    :class:`fakeprop.InputError` for a budget that does not parse, a symbol
    the model does not have, or a peak that needs sizes fakeprop could not
    compute; when no size fits, the document says so (``solve.fits`` false).
    """
    import json

    def values(d, what):
        if not isinstance(d, dict) or not d:
            raise errors.InputError("%s: expected a dict of symbol -> int, got %r" % (what, d))
        for k, v in d.items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise errors.InputError("%s: %s must be an int, got %r" % (what, k, v))
        return ",".join("%s=%d" % (k, v) for k, v in d.items())

    request = {}
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, (int, str)):
            raise errors.InputError("budget must be an int (bytes) or text such as '80GiB', got %r" % (budget,))
        request["budget"] = str(budget)
    if solve is not None:
        request["solve"] = [solve] if isinstance(solve, str) else list(solve)
    if at is not None:
        request["at"] = [values(row, "at") for row in ([at] if isinstance(at, dict) else at)]
    if set is not None:
        request["set"] = [values(set, "set")]
    if html is not None:
        if not isinstance(model, (str, os.PathLike)):
            raise errors.InputError("html: plan writes the HTML report of a model file; export_graph the program "
                                    "to a file and plan that")
        request["html"] = os.fspath(html)
    # The table's run options; real_inputs is propagate's (tensors to run with torch), not plan's.
    known = {keyword for _flag, keyword, _key, _kind, _help in _option_table()} - {"real_inputs"}
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise TypeError("plan() got an unexpected keyword argument %r" % unknown[0])
    given = dict(options, alloc_round=alloc_round, dtype_bytes=dtype_bytes)
    if isinstance(model, (str, os.PathLike)):
        where = os.fspath(model)
        graph = None
    else:
        where = "<%s>" % type(model).__name__
        exported = hasattr(model, "graph_signature") and hasattr(model, "graph_module")
        if not exported and not hasattr(model, "graph"):
            raise errors.InputError("plan takes a model path, a torch.fx.GraphModule or a "
                                    "torch.export.ExportedProgram, got %s" % type(model).__name__)
        graph = _without_gc(read_program, model, list(example_inputs) if example_inputs else None, path=where)
        given["marks"] = (_marks_from_dynamic_shapes(dynamic_shapes, graph.input_names)
                          + _spec_list("marks", options.get("marks")))
    args = _run_args(given)
    text, _status = _core().plan_file(where, args, request) if graph is None else graph.plan(args, request)
    return json.loads(text)
