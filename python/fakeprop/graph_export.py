"""GraphModules and ExportedPrograms as fakeprop's JSON FX graph (``fakeprop.fx/1``).

:func:`export_graph` returns the document as a dict (``json.dump`` it to get a
file the CLI reads). It needs torch, imported on first use; nothing here needs
the C++ extension, so ``scripts/fx2json.py`` runs it under any torch.
"""
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


def _dims(ds, symbolic):
    """A list of dims; SymInts among them are also appended to `symbolic`."""
    out = list(ds)
    for i, d in enumerate(out):
        if type(d) is not int:
            symbolic.append(d)
            out[i] = _dim(d)
    return out


_DTYPE_NAMES = {}


def _tensor_val(t, symbolic):
    dtype = t.dtype
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = _dtype_name(dtype)
    offset = t.storage_offset()
    if type(offset) is not int:
        symbolic.append(offset)
        offset = _dim(offset)
    return {
        "shape": _dims(t.shape, symbolic),
        "stride": _dims(t.stride(), symbolic),
        "storage_offset": offset,
        "dtype": name,
        "device": str(t.device),
        "requires_grad": t.requires_grad,
    }


def _example_val(v, symbolic):
    import torch

    if isinstance(v, torch.Tensor):
        return _tensor_val(v, symbolic)
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return {"sym": v}
    if type(v).__name__ == "SymInt":
        symbolic.append(v)
        return {"sym": _dim(v)}
    return None


def _storage_key(v):
    """An id of a tensor's storage (None for anything else)."""
    import torch

    if not isinstance(v, torch.Tensor):
        return None
    try:
        return v.untyped_storage()._cdata
    except (RuntimeError, NotImplementedError):
        return None


_TARGET_NAMES = {}


def _target_name(target):
    try:
        return _TARGET_NAMES[target]
    except (KeyError, TypeError):
        pass
    import torch

    if isinstance(target, str):
        name = target
    elif isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        name = str(target)  # aten.add.Tensor
    else:
        module = getattr(target, "__module__", "") or ""
        base = getattr(target, "__name__", str(target))
        if module in ("_operator", "operator") or target in vars(operator).values():
            name = "operator." + base
        elif module.startswith("torch"):
            name = module.replace("torch._ops.", "") + "." + base
        else:
            name = base
    try:
        _TARGET_NAMES[target] = name
    except TypeError:
        pass
    return name


def _encode(a, names, node_type):
    t = type(a)
    if t is node_type:
        return {"node": names.get(a.name, a.name) if names else a.name}
    if t is int or t is str or t is bool or a is None:
        return a
    if t is list or t is tuple:
        return [_encode(x, names, node_type) for x in a]
    return _encode_other(a, names, node_type)


def _encode_other(a, names, node_type):
    import torch

    if isinstance(a, node_type):
        return {"node": names.get(a.name, a.name)}
    if isinstance(a, (bool, str, int)):
        return a
    if isinstance(a, float):
        if math.isinf(a):
            return {"float": "inf" if a > 0 else "-inf"}
        if math.isnan(a):
            return {"float": "nan"}
        return a
    if isinstance(a, torch.dtype):
        return {"dtype": _dtype_name(a)}
    if isinstance(a, torch.device):
        return {"device": str(a)}
    if isinstance(a, torch.memory_format):
        return {"memory_format": str(a).replace("torch.", "")}
    if isinstance(a, torch.layout):
        return {"layout": str(a).replace("torch.", "")}
    if isinstance(a, (list, tuple)):
        return [_encode(x, names, node_type) for x in a]
    raise InputError("cannot encode an argument of type %s" % type(a).__name__)


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


def _state_targets(program):
    """Placeholder name -> FQN for an ExportedProgram's parameters, buffers and constants."""
    targets = {}
    for spec in program.graph_signature.input_specs:
        kind = spec.kind.name
        name = getattr(spec.arg, "name", None)
        if kind in _STATE_KINDS:
            targets[name] = spec.target
        elif kind != "USER_INPUT":
            raise InputError("input %s: %s inputs are not supported" % (name, kind.lower()))
    return targets


def export_graph(program, example_inputs=None, input_names=None):
    """The ``fakeprop.fx/1`` document (a dict) for a GraphModule or an ExportedProgram.

    ``example_inputs`` (one value per placeholder; for an ExportedProgram, per
    user input) replace the placeholders' ``meta['val']``; ``input_names``
    renames the placeholders. For an ExportedProgram, parameters, buffers and
    constants become ``get_attr`` nodes named by their FQN (never user
    inputs), and its ``range_constraints`` give the symbols' ranges.
    """
    state = {}
    range_constraints = None
    exported = hasattr(program, "graph_signature") and hasattr(program, "graph_module")
    if exported:
        state = _state_targets(program)
        range_constraints = program.range_constraints
        gm = program.graph_module
    else:
        gm = program
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder" and n.name not in state]
    names = {}
    if input_names is not None:
        if len(input_names) != len(placeholders):
            raise InputError("input_names has %d names for %d inputs" % (len(input_names), len(placeholders)))
        names = {n.name: new for n, new in zip(placeholders, input_names)}
    examples = {}
    if example_inputs is not None:
        flat = list(example_inputs)
        if len(flat) != len(placeholders):
            raise InputError("example_inputs has %d values for %d inputs" % (len(flat), len(placeholders)))
        examples = {n.name: v for n, v in zip(placeholders, flat)}

    import torch

    node_type = torch.fx.Node
    nodes = []
    symbolic = []  # the SymInts met in example values
    state_storages = {}  # storage of a state tensor -> (node name, val): tied parameters share one
    for n in gm.graph.nodes:
        name = names.get(n.name, n.name)
        op = n.op
        if op == "placeholder" and n.name in state:
            v = n.meta.get("val")
            storage = _storage_key(v)
            tied = state_storages.get(storage) if storage is not None else None
            if tied is not None:
                # A parameter tied to an earlier one (a shared embedding and LM
                # head): a view of it, so that fakeprop gives them one storage.
                first, fv = tied
                if (fv.shape, fv.stride(), fv.storage_offset()) == (v.shape, v.stride(), v.storage_offset()):
                    args = [{"node": first}]
                    target = "aten.alias.default"
                else:
                    args = [{"node": first}, [_dim(d) for d in v.shape], [_dim(d) for d in v.stride()],
                            _dim(v.storage_offset())]
                    target = "aten.as_strided.default"
                nodes.append({"name": name, "op": "call_function", "target": target, "args": args, "kwargs": {}})
                continue
            if storage is not None:
                state_storages[storage] = (name, v)
            nodes.append({"name": name, "op": "get_attr", "target": state[n.name], "val": _example_val(v, symbolic)})
        elif op == "placeholder":
            v = examples.get(n.name, n.meta.get("val", n.meta.get("example_value")))
            nodes.append({"name": name, "op": op, "target": name, "val": _example_val(v, symbolic)})
        elif op == "get_attr":
            v = n.meta.get("val")
            if v is None:
                v = gm
                for part in n.target.split("."):
                    v = getattr(v, part)
            nodes.append({"name": name, "op": op, "target": n.target, "val": _example_val(v, symbolic)})
        elif op == "call_function" or op == "output":
            try:
                args = _encode(n.args, names, node_type)
                kwargs = {k: _encode(v, names, node_type) for k, v in n.kwargs.items()}
            except InputError as e:
                raise InputError("node %s: %s" % (n.name, e)) from None
            if op == "output":
                nodes.append({"name": name, "op": op, "target": "output", "args": args})
            else:
                nodes.append({"name": name, "op": op, "target": _target_name(n.target), "args": args, "kwargs": kwargs})
        else:
            raise InputError("node %s: op %s is not ATen-level (call_module/call_method are not supported)" % (n.name, op))
    if exported:
        # torch.export records every node's meta['val'] detached (make_fx's
        # snapshot), so none requires grad, while its parameters' and inputs'
        # say what the module's did. Placeholders that do not require grad give
        # fakeprop the recorded values. (The trace itself ran with grad on:
        # where a kernel choice depends on it, as SDPA's with a mask that
        # requires grad, fakeprop cannot see it.)
        for node in nodes:
            if node["op"] in ("placeholder", "get_attr") and node.get("val") and "requires_grad" in node["val"]:
                node["val"]["requires_grad"] = False
    doc = {"format": FORMAT, "nodes": nodes}
    symbols = _symbols_from(symbolic, range_constraints)
    if symbols:
        doc["symbols"] = symbols
    return doc
