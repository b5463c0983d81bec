#!/usr/bin/python3
"""Exports an ATen-level torch.fx.GraphModule as fakeprop's JSON FX graph.

As a module:
    from fx2json import dump_graph_module
    doc = dump_graph_module(gm, example_inputs=[x], input_names=["x"])

As a script, traces a torchvision model with make_fx in fake mode over a
function that takes the parameters and buffers as inputs:
    /usr/bin/python3 scripts/fx2json.py resnet18 --input-size 2,3,224,224 -o resnet18.json

Works with torch 1.13 (make_fx) and torch 2.x (make_fx or torch.export,
whose placeholders carry meta['val'] with symbolic sizes).
"""
import argparse
import json
import math
import operator
import sys

import torch
import torch.fx

FORMAT = "fakeprop.fx/1"


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _dim(d):
    """An int, or the text of a symbolic size (torch 2.x SymInt)."""
    if isinstance(d, int):
        return d
    try:
        node = d.node  # torch.SymInt
        return str(node.expr) if hasattr(node, "expr") else str(d)
    except AttributeError:
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
    if isinstance(v, torch.Tensor):
        return _tensor_val(v)
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return {"sym": v}
    if type(v).__name__ == "SymInt":
        return {"sym": _dim(v)}
    return None


def _target_name(target):
    if isinstance(target, str):
        return target
    if isinstance(target, torch._ops.OpOverload):
        return str(target)  # aten.add.Tensor
    if isinstance(target, torch._ops.OpOverloadPacket):
        return str(target)
    module = getattr(target, "__module__", "") or ""
    name = getattr(target, "__name__", str(target))
    if module in ("_operator", "operator") or target in vars(operator).values():
        return "operator." + name
    if module.startswith("torch"):
        return module.replace("torch._ops.", "") + "." + name
    return name


def _encode(a, names):
    if isinstance(a, torch.fx.Node):
        return {"node": names.get(a.name, a.name)}
    if a is None or isinstance(a, (bool, str)):
        return a
    if isinstance(a, int):
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
    raise TypeError("cannot encode argument of type %s" % type(a).__name__)


def _symbols_from(vals):
    """Hints of symbols named in torch 2.x example shapes (ShapeEnv.var_to_val)."""
    symbols = {}
    for v in vals:
        if not isinstance(v, torch.Tensor):
            continue
        for d in list(v.shape) + list(v.stride()):
            node = getattr(d, "node", None)
            shape_env = getattr(node, "shape_env", None)
            if shape_env is None:
                continue
            for sym in node.expr.free_symbols:
                hint = shape_env.var_to_val.get(sym)
                symbols[str(sym)] = {"hint": int(hint)} if hint is not None else {"unbacked": True}
    return symbols


def dump_graph_module(gm, example_inputs=None, input_names=None):
    """The JSON document (a dict) for `gm`, ready for json.dump."""
    names = {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if input_names is not None:
        if len(input_names) != len(placeholders):
            raise ValueError("input_names has %d names for %d placeholders" % (len(input_names), len(placeholders)))
        names = {n.name: new for n, new in zip(placeholders, input_names)}
    examples = {}
    if example_inputs is not None:
        flat = list(example_inputs)
        if len(flat) != len(placeholders):
            raise ValueError("example_inputs has %d values for %d placeholders" % (len(flat), len(placeholders)))
        examples = {n.name: v for n, v in zip(placeholders, flat)}

    nodes = []
    seen_vals = []
    for n in gm.graph.nodes:
        name = names.get(n.name, n.name)
        entry = {"name": name, "op": n.op}
        if n.op == "placeholder":
            entry["target"] = name
            v = examples.get(n.name, n.meta.get("val", n.meta.get("example_value")))
            entry["val"] = _example_val(v)
            seen_vals.append(v)
        elif n.op == "get_attr":
            entry["target"] = n.target
            v = gm
            for part in n.target.split("."):
                v = getattr(v, part)
            entry["val"] = _example_val(v)
            seen_vals.append(v)
        elif n.op == "call_function":
            entry["target"] = _target_name(n.target)
            entry["args"] = _encode(list(n.args), names)
            entry["kwargs"] = {k: _encode(v, names) for k, v in n.kwargs.items()}
        elif n.op == "output":
            entry["target"] = "output"
            entry["args"] = _encode(list(n.args), names)
        else:
            raise ValueError("node %s: op %s is not ATen-level (call_module/call_method are not supported)" % (n.name, n.op))
        nodes.append(entry)
    doc = {"format": FORMAT, "nodes": nodes}
    symbols = _symbols_from(seen_vals)
    if symbols:
        doc["symbols"] = symbols
    return doc


def trace_torchvision(model_name, input_size, dtype=torch.float32):
    """make_fx over a function of (params..., x), in fake mode, as torch 1.13 allows."""
    import torchvision
    from torch.fx.experimental.proxy_tensor import make_fx

    model = getattr(torchvision.models, model_name)()
    model.eval()
    state = dict(model.named_parameters())
    state.update(dict(model.named_buffers()))
    keys = list(state.keys())

    try:
        from torch.func import functional_call
    except ImportError:
        from torch.nn.utils.stateless import functional_call

    def f(*args):
        params = dict(zip(keys, args[:-1]))
        return functional_call(model, params, (args[-1],))

    x = torch.randn(*input_size, dtype=dtype)
    args = [state[k] for k in keys] + [x]
    gm = make_fx(f, tracing_mode="fake")(*args)
    input_names = ["p_" + k.replace(".", "_") for k in keys] + ["x"]
    return gm, args, input_names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="torchvision model name, e.g. resnet18")
    parser.add_argument("--input-size", default="1,3,224,224", help="comma-separated input sizes")
    parser.add_argument("-o", "--output", required=True, help="JSON file to write")
    args = parser.parse_args(argv)
    size = [int(s) for s in args.input_size.split(",")]
    gm, inputs, names = trace_torchvision(args.model, size)
    doc = dump_graph_module(gm, inputs, names)
    with open(args.output, "w") as f:
        json.dump(doc, f)
    print("wrote %s: %d nodes" % (args.output, len(doc["nodes"])), file=sys.stderr)


if __name__ == "__main__":
    main()
