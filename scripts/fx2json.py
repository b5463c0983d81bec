#!/usr/bin/python3
"""Exports an ATen-level torch.fx.GraphModule as fakeprop's JSON FX graph.

A thin wrapper over the package's fakeprop.export_graph, kept for the
scripts that import it. It needs the built extension: the package built by
CMake (build/python, or $FAKEPROP_PYTHONPATH) or one pip installed.
    from fx2json import dump_graph_module
    doc = dump_graph_module(gm, example_inputs=[x], input_names=["x"])

As a script, traces a torchvision model with make_fx in fake mode over a
function that takes the parameters and buffers as inputs:
    /usr/bin/python3 scripts/fx2json.py resnet18 --input-size 2,3,224,224 -o resnet18.json

Works with torch 1.13 (make_fx) and torch 2.x (make_fx or torch.export,
whose placeholders carry meta['val'] with symbolic sizes).
"""
import argparse
import glob
import json
import os
import sys

import torch

def _built_package():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for d in filter(None, [os.environ.get("FAKEPROP_PYTHONPATH"), os.path.join(root, "build", "python"),
                           os.path.join(root, "build-rel", "python")]):
        if glob.glob(os.path.join(d, "fakeprop", "_core*")):
            return d
    return None


if _built_package():
    sys.path.insert(0, _built_package())
from fakeprop.graph_export import FORMAT, _dtype_name, export_graph  # noqa: E402,F401


def dump_graph_module(gm, example_inputs=None, input_names=None):
    """The JSON document (a dict) for `gm`, ready for json.dump."""
    return export_graph(gm, example_inputs, input_names)


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
