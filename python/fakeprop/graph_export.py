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
    if isinstance(d, int):
        return d
    node = getattr(d, "node", None)
    if node is not None:
        expr = getattr(node, "expr", None)
        if expr is not None:
            return int(expr) if expr.is_Integer else str(expr)
        return str(d)
    return int(d)


def _tensor_val(t):
    return {
        "shape": [_dim(d) for d in t.shape],
        "stride": [_dim(s) for s in t.stride()],
        "storage_offset": _dim(t.storage_offset()),
        "dtype": _dtype_name(t.dtype),
        "device": str(t.device),
        "requires_grad": bool(t.requires_grad),
    }


def _example_val(v):
    import torch

    if isinstance(v, torch.Tensor):
        return _tensor_val(v)
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return {"sym": v}
    if type(v).__name__ == "SymInt":
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


def _target_name(target):
    import torch

    if isinstance(target, str):
        return target
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(target)  # aten.add.Tensor
    module = getattr(target, "__module__", "") or ""
    name = getattr(target, "__name__", str(target))
    if module in ("_operator", "operator") or target in vars(operator).values():
        return "operator." + name
    if module.startswith("torch"):
        return module.replace("torch._ops.", "") + "." + name
    return name


def _encode(a, names):
    import torch

    if isinstance(a, torch.fx.Node):
        return {"node": names.get(a.name, a.name)}
    if a is None or isinstance(a, (bool, str, int)):
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
        return [_encode(x, names) for x in a]
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


def _symbols_from(vals, range_constraints=None):
    """Hints and ranges of the symbols named in torch 2.x example shapes."""
    symbols = {}
    for v in vals:
        shape = getattr(v, "shape", None)
        if shape is None:
            dims = [v] if type(v).__name__ == "SymInt" else []
        else:
            dims = list(shape) + list(v.stride()) + [v.storage_offset()]
        for d in dims:
            node = getattr(d, "node", None)
            shape_env = getattr(node, "shape_env", None)
            if shape_env is None:
                continue
            for sym in node.expr.free_symbols:
                name = str(sym)
                if name in symbols:
                    continue
                hint = shape_env.var_to_val.get(sym)
                entry = {"hint": int(hint)} if hint is not None else {"unbacked": True}
                vr = shape_env.var_to_range.get(sym)
                if vr is not None:
                    entry["range"] = [_range_end(vr.lower), _range_end(vr.upper)]
                symbols[name] = entry
    for sym, vr in (range_constraints or {}).items():
        entry = symbols.get(str(sym))
        if entry is not None:  # unbacked symbols are the run's own
            entry["range"] = [_range_end(vr.lower), _range_end(vr.upper)]
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

    nodes = []
    seen_vals = []
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
            nodes.append({"name": name, "op": "get_attr", "target": state[n.name], "val": _example_val(v)})
            seen_vals.append(v)
        elif op == "placeholder":
            v = examples.get(n.name, n.meta.get("val", n.meta.get("example_value")))
            nodes.append({"name": name, "op": op, "target": name, "val": _example_val(v)})
            seen_vals.append(v)
        elif op == "get_attr":
            v = n.meta.get("val")
            if v is None:
                v = gm
                for part in n.target.split("."):
                    v = getattr(v, part)
            nodes.append({"name": name, "op": op, "target": n.target, "val": _example_val(v)})
            seen_vals.append(v)
        elif op == "call_function" or op == "output":
            try:
                args = _encode(n.args, names)
                kwargs = {k: _encode(v, names) for k, v in n.kwargs.items()}
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
    symbols = _symbols_from(seen_vals, range_constraints)
    if symbols:
        doc["symbols"] = symbols
    return doc
