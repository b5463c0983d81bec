"""GraphModules and ExportedPrograms as fakeprop's graphs.

:func:`read_program` reads a live program into the C++ core (an
``FxProgram``, which :func:`fakeprop.propagate` runs); :func:`export_graph`
returns the same graph as fakeprop's JSON FX graph (``fakeprop.fx/1``, a
dict: ``json.dump`` it to get a file the CLI reads). Here is what concerns a
program as a whole (its signature, state, tied parameters, renames, example
inputs, symbols); the nodes themselves are read by the extension
(``torch_graph.cpp``). torch is imported on first use.
"""
import json
import math
import operator

from .errors import InputError

FORMAT = "fakeprop.fx/1"

# ExportedProgram input kinds whose placeholders are the module's own state:
# they become get_attr nodes (source L['self'].<fqn>), never user inputs.
_STATE_KINDS = ("PARAMETER", "BUFFER", "CONSTANT_TENSOR")


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _dim(d):
    """An int, or the text of a symbolic size (torch 2.x SymInt)."""
    if type(d) is int:
        return d
    node = getattr(d, "node", None)
    if node is not None:
        expr = getattr(node, "expr", None)
        if expr is not None:
            return int(expr) if expr.is_Integer else str(expr)
        return str(d)
    return int(d)


def _target_name(target):
    """A call's target as the graph names it (aten.add.Tensor, operator.getitem); the extension asks
    once per target object."""
    import torch

    if isinstance(target, str):
        return target
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(target)
    if isinstance(target, torch._ops.HigherOrderOperator):
        return "higher_order." + target.name()  # as the .pt2 names it (torch.ops.higher_order.cond)
    module = getattr(target, "__module__", "") or ""
    base = getattr(target, "__name__", str(target))
    if module in ("_operator", "operator") or target in vars(operator).values():
        return "operator." + base
    if module.startswith("torch"):
        return module.replace("torch._ops.", "") + "." + base
    if module in ("math", "builtins"):
        return module + "." + base  # math.floor, builtins.round on SymFloats
    return base


def _range_end(v):
    """A ValueRanges end as JSON: an int, or None for (minus) infinity."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    if math.isinf(f):
        return None
    return int(v)


def _symbols_from(symbolic, range_constraints=None):
    """Hints and ranges of the symbols named in torch 2.x example shapes (`symbolic`: their SymInts)."""
    symbols = {}
    for d in symbolic:
        node = getattr(d, "node", None)
        shape_env = getattr(node, "shape_env", None)
        if shape_env is None:
            continue
        hints = getattr(shape_env, "backed_var_to_val", None)
        if hints is None:
            hints = shape_env.var_to_val
        for sym in node.expr.free_symbols:
            name = str(sym)
            if name in symbols:
                continue
            hint = hints.get(sym)
            entry = {"hint": int(hint)} if hint is not None else {"unbacked": True}
            vr = shape_env.var_to_range.get(sym)
            if vr is not None:
                entry["range"] = [_range_end(vr.lower), _range_end(vr.upper)]
            symbols[name] = entry
    # torch.export's range_constraints only where the ShapeEnv had no range: they admit 0 and 1 where
    # the trace assumed a backed size >= 2 (export's 0/1 convention), var_to_range does not.
    for sym, vr in (range_constraints or {}).items():
        entry = symbols.get(str(sym))
        if entry is not None and "range" not in entry and "hint" in entry:  # unbacked symbols are the run's own
            entry["range"] = [max(_range_end(vr.lower) or 0, 2), _range_end(vr.upper)]
    return symbols


def _item_values(gm):
    """Placeholder name -> the value FakeTensor memoized its item() with when the graph was traced.

    A 0-d input whose value was known (make_fx's symbolic trace of a scalar
    tensor, a Python float Dynamo wrapped) has item() memoized as a backed
    symbol whose hint is that value; the memo is gone from the placeholder's
    recorded value, but the item() call's value is that symbol.
    """
    import torch

    aten = torch.ops.aten
    targets = (aten._local_scalar_dense.default, aten.item.default)
    graph = gm.graph
    if hasattr(graph, "find_nodes"):  # torch 2.3+: indexed by target, no walk over every node
        calls = [n for t in targets for n in graph.find_nodes(op="call_function", target=t, sort=False)]
    else:
        calls = [n for n in graph.nodes if n.op == "call_function" and n.target in targets]
    items = {}
    for node in calls:
        if not node.args:
            continue
        base = node.args[0]
        if getattr(base, "op", None) != "placeholder":
            continue
        sym = getattr(node.meta.get("val"), "node", None)
        hint = getattr(sym, "hint", None)
        if hint is not None and getattr(getattr(sym, "expr", None), "is_Symbol", False):
            items.setdefault(base.name, float(hint) if sym.is_float() else int(hint))
    return items


# The dtypes of a real 0-d tensor whose item() FakeTensor's converter makes a backed symbol for
# (integers cannot overflow differently; float64 is the only float whose value it may stand for);
# it memoizes the symbol only for int64 and float64, which the interpreter follows.
_ITEM_SYMBOL_DTYPES = ("torch.int64", "torch.int32", "torch.int16", "torch.int8", "torch.float64")


def _example_items(examples, exported):
    """Placeholder name -> the value of each real example whose item() a torch.compile frame
    makes a symbol for: Dynamo fakifies a plain 0-d CPU integer or float64 input as FakeTensor's
    converter does, with a backed symbol for `L['y'].item()` made whether or not the graph calls
    item() (finite values only). torch.export does not (nor its propagate_real_tensors, which `exported`
    stands for too); fake examples carry no value."""
    import math

    import torch

    if exported:
        return {}
    items = {}
    for name, t in examples.items():
        if (type(t) is torch.Tensor and t.layout == torch.strided and t.dim() == 0 and t.device.type == "cpu"
                and str(t.dtype) in _ITEM_SYMBOL_DTYPES and not t.is_nested):
            value = t.item()
            if not (math.isnan(value) or math.isinf(value)):
                items[name] = value
    return items


def _specialized_dims(gm, names, input_names=None):
    """Placeholder name -> the dims its traced value holds as constants, for the placeholders in
    `names` (those an example replaces), when the graph was traced with symbolic sizes at all:
    the trace specialized those dims (a SymInt whose expression became a number, or an int), and
    the example's sizes alone would not say so. A trace whose every size is concrete gives the
    dims whose symbol its ShapeEnv replaced by a constant (`input_names`: placeholder -> the
    program's argument name, which Dynamo's sources use)."""
    import torch
    from torch.fx.experimental.symbolic_shapes import is_concrete_int

    traced = {n.name: n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"}
    shapes = {k: v.shape for k, v in traced.items() if isinstance(v, torch.Tensor)}
    replaced = _replaced_input_dims(traced.values())
    if not all(is_concrete_int(d) for shape in shapes.values() for d in shape):
        if replaced is None:
            return {k: [i for i, d in enumerate(shape) if is_concrete_int(d)] for k, shape in shapes.items()
                    if k in names}
        # A Dynamo trace: a dim that never had a symbol was static in this frame (its example or a
        # 0/1 size), not specialized; only a symbol the trace replaced by a constant was.
    # Every size concrete: a trace whose every symbol was specialized looks static, but its
    # ShapeEnv still holds the symbols it replaced by constants, with their sources.
    replaced = replaced or {}
    out = {}
    for k, shape in shapes.items():
        dims = replaced.get((input_names or {}).get(k, k))
        if k in names and dims:
            out[k] = sorted(d for d in dims if d < len(shape))
    return out


def _replaced_input_dims(vals):
    """Input name -> the dims whose symbol the trace's ShapeEnv replaced by a constant (by the
    sources Dynamo gave them, L['x'].size()[0]); None when no input size has a Dynamo source
    (not a Dynamo trace)."""
    env = next((getattr(getattr(v, "fake_mode", None), "shape_env", None) for v in vals
                if getattr(getattr(v, "fake_mode", None), "shape_env", None) is not None), None)
    if env is None:
        return None
    try:
        from torch._dynamo.source import LocalSource, TensorProperty, TensorPropertySource
    except ImportError:  # pragma: no cover - torch without Dynamo
        return None
    out, sourced = {}, False
    for sym, sources in getattr(env, "var_to_sources", {}).items():
        value = env.replacements.get(sym)
        for src in sources:
            if isinstance(src, TensorPropertySource) and src.prop is TensorProperty.SIZE and \
                    isinstance(src.base, LocalSource) and src.idx is not None:
                sourced = True
                if value is not None and value.is_number:
                    out.setdefault(src.base.local_name, set()).add(src.idx)
    return out if sourced else None


def _state_targets(program):
    """Placeholder name -> FQN for an ExportedProgram's parameters, buffers and constants, and the
    placeholders tied to an earlier one (name -> that one's name: the same tensor under two FQNs, as a
    shared embedding and LM head)."""
    from torch.export.graph_signature import InputKind

    state_kinds = tuple(getattr(InputKind, k) for k in _STATE_KINDS)
    targets, tied, first = {}, {}, {}
    state, constants = program.state_dict, program.constants
    for spec in program.graph_signature.input_specs:
        kind = spec.kind
        name = getattr(spec.arg, "name", None)
        if kind in state_kinds:
            targets[name] = spec.target
            tensor = state.get(spec.target, constants.get(spec.target))
            if tensor is not None:
                tied_to = first.setdefault(id(tensor), name)
                if tied_to != name:
                    tied[name] = tied_to
        elif kind is InputKind.TOKEN:
            targets[name] = name  # with_effects' ordering token: an empty tensor, as the .pt2 reader reads it
        elif kind is not InputKind.USER_INPUT:
            raise InputError("input %s: %s inputs are not supported" % (name, kind.name.lower()))
    return targets, tied


def _attr_value(gm, target):
    v = gm
    for part in target.split("."):
        v = getattr(v, part)
    return v


_TORCH = {}


def _torch_helpers():
    """The torch types and helpers the extension's reader needs, made once."""
    if not _TORCH:
        import torch

        _TORCH.update(node=torch.fx.Node, tensor=torch.Tensor, graph_module=torch.fx.GraphModule,
                      op_overload=torch._ops.OpOverload, symint=getattr(torch, "SymInt", type(None)),
                      dtype=torch.dtype, device=torch.device, memory_format=torch.memory_format,
                      layout=torch.layout, target_name=_target_name, dim=_dim, attr_value=_attr_value)
    return _TORCH


def _placeholder_names(gm):
    find = getattr(gm.graph, "find_nodes", None)  # torch 2.x: indexed by op
    nodes = find(op="placeholder") if find is not None else (n for n in gm.graph.nodes if n.op == "placeholder")
    return [n.name for n in nodes]


def _check_example_ranks(gm, examples):
    """An example tensor replaces a placeholder's fake value: it must have the placeholder's rank."""
    for position, node in enumerate(n for n in gm.graph.nodes if n.op == "placeholder" and n.name in examples):
        val, example = node.meta.get("val"), examples[node.name]
        if hasattr(val, "shape") and hasattr(example, "shape") and len(val.shape) != len(example.shape):
            raise InputError("example_inputs: %s has %d dims, the program's input %r has %d"
                             % (tuple(example.shape), len(example.shape), node.name, len(val.shape)))


# Read for a run, which checks the node-count limit itself (the graph is in memory already).
_READ_LIMIT = 1 << 40


def _real_description(v):
    """A real output as the extension reads it: tensors by sizes and strides, ints, lists."""
    import torch

    if isinstance(v, torch.Tensor):
        return {"shape": [int(d) for d in v.shape], "stride": [int(d) for d in v.stride()]}
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, (list, tuple)):
        return [_real_description(x) for x in v]
    return None


def _real_outputs(program, gm, exported, state, real_inputs):
    """Runs the program on real tensors (torch.fx.Interpreter, no autograd): node name -> what
    each call gave, for propagate_real_tensors. Parameters, buffers and constants of an
    ExportedProgram are its own."""
    import torch

    placeholders = _placeholder_names(gm)
    user = [n for n in placeholders if n not in state]
    real_inputs = list(real_inputs)
    if len(real_inputs) != len(user):
        raise InputError("real_inputs has %d values for %d inputs" % (len(real_inputs), len(user)))
    given = dict(zip(user, real_inputs))
    for name, value in given.items():
        if isinstance(value, torch.Tensor) and isinstance(value, torch._subclasses.fake_tensor.FakeTensor):
            raise InputError("real_inputs: %s is a FakeTensor, not a real tensor" % name)
    args = []
    for name in placeholders:
        if name in given:
            args.append(given[name])
        else:
            fqn = state[name]
            args.append(program.state_dict.get(fqn, program.constants.get(fqn)) if exported else None)
    outputs = {}

    class _Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.op == "call_function":
                outputs[n.name] = _real_description(out)
            return out

    try:
        with torch.no_grad():
            _Recorder(gm).run(*args)
    except Exception as e:  # noqa: BLE001: whatever the program raises on this data
        raise InputError("real_inputs: the program fails on them: %s: %s" % (type(e).__name__, e))
    return outputs


def _gradient_map(gradients):
    """{gradient output node: leaf node} from a dict or an AOTAutograd GraphSignature of a joint graph."""
    if gradients is None:
        return None
    if isinstance(gradients, dict):
        return {str(k): str(v) for k, v in gradients.items()}
    backward = getattr(gradients, "backward_signature", None)
    if backward is None:
        raise InputError("gradients: expected a dict of node names or a joint graph's GraphSignature, got %r"
                         % type(gradients).__name__)
    leaf_of = {fqn: name for name, fqn in gradients.inputs_to_parameters.items()}
    out = {k: leaf_of[fqn] for k, fqn in backward.gradients_to_parameters.items() if fqn in leaf_of}
    out.update(backward.gradients_to_user_inputs)
    return out


def read_program(program, example_inputs=None, input_names=None, path=None, real_inputs=None, gradients=None):
    """The C++ core's graph (``fakeprop._core.FxProgram``) for a GraphModule or an ExportedProgram.

    ``example_inputs`` (one value per placeholder; for an ExportedProgram, per
    user input) replace the placeholders' ``meta['val']``; ``input_names``
    renames the placeholders. For an ExportedProgram, parameters, buffers and
    constants become ``get_attr`` nodes named by their FQN (never user
    inputs), and its ``range_constraints`` give the symbols' ranges.
    ``path`` names the graph in errors and in the report. ``real_inputs``
    (one real tensor per user input) runs the program on them first, and each
    call's real output ties its fake one to this data (propagate_real_tensors).
    ``gradients`` says which outputs of a joint graph are which leaves'
    gradients: ``{output node: leaf node}``, or the ``GraphSignature`` that
    ``aot_export_module(..., trace_joint=True)`` returns.
    """
    from . import _core

    state, tied, range_constraints = {}, {}, None
    exported = hasattr(program, "graph_signature") and hasattr(program, "graph_module")
    if exported:
        state, tied = _state_targets(program)
        range_constraints = program.range_constraints
        gm = program.graph_module
    else:
        gm = program
    names, examples = {}, {}
    if input_names is not None or example_inputs is not None:
        placeholders = [n for n in _placeholder_names(gm) if n not in state]
        if input_names is not None:
            if len(input_names) != len(placeholders):
                raise InputError("input_names has %d names for %d inputs" % (len(input_names), len(placeholders)))
            names = dict(zip(placeholders, input_names))
        if example_inputs is not None:
            flat = list(example_inputs)
            if len(flat) != len(placeholders):
                raise InputError("example_inputs has %d values for %d inputs" % (len(flat), len(placeholders)))
            examples = dict(zip(placeholders, flat))
            _check_example_ranks(gm, examples)
    # propagate_real_tensors is torch.export's mode: its fakification memoizes nothing
    items = _item_values(gm) if not examples else _example_items(examples, exported or real_inputs is not None)
    plan = {"path": path or "<%s>" % type(program).__name__, "max_nodes": _READ_LIMIT, "state": state,
            "tied": tied, "names": names, "examples": examples, "exported": exported, "torch": _torch_helpers(),
            "items": items,
            # the guards torch.export.save writes as the program's guards_code (the .pt2 reader reads them there)
            "guards_code": [str(g) for g in (getattr(program, "_guards_code", None) or [])] if exported else []}
    if examples:
        plan["specialized"] = _specialized_dims(gm, examples, names)
    if real_inputs is not None:
        plan["real_outputs"] = _real_outputs(program, gm, exported, state, real_inputs)
    if gradients is not None:
        plan["gradients"] = _gradient_map(gradients)
    symbolic = []  # the SymInts met in example values
    graph = _core.read_torch_graph(gm, plan, symbolic)
    symbols = _symbols_from(symbolic, range_constraints)
    if symbols:
        graph.set_symbols(json.dumps(symbols))
    return graph


def export_graph(program, example_inputs=None, input_names=None):
    """The ``fakeprop.fx/1`` document (a dict) for a GraphModule or an ExportedProgram.

    The arguments are :func:`read_program`'s; ``json.dump`` the result to get
    a file the CLI reads.
    """
    return json.loads(read_program(program, example_inputs, input_names).to_json())
