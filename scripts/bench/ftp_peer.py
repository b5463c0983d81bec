#!/usr/bin/python3
"""torch FakeTensorProp on an ATen graph made with make_fx, and the same graph as fakeprop's JSON.

    /usr/bin/python3 scripts/bench/ftp_peer.py NAME --json OUT [--repeat N]

NAME is a torchvision classifier (resnet50, vit_b_16, ...) or gpt2_<layers>
(the GPT-2-style decoder of scripts/export_models.py). The graph is traced
with make_fx in fake mode over a function of (parameters..., input), as
scripts/fx2json.py does; OUT receives its JSON (written once, kept when it
exists). Then FakeTensorProp(gm).propagate(*inputs) runs N times and one JSON
line is printed: {"best_ms", "runs_ms", "best_run_ms", "node_runs_ms",
"best_run_us_per_node", "nodes", "call_nodes", "torch"}. best_ms is
propagate(), which includes turning the real inputs into fake tensors;
best_run_ms is the node walk alone over inputs already fake (every node of the
graph: placeholders, calls and the output), the number to set beside
fakeprop's propagate phase, per node.
"""
import argparse
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # scripts/

import fx2json  # noqa: E402


def trace_gpt2(layers, batch, seq):
    import export_models  # scripts/export_models.py: the same module the ONNX export uses
    from torch.fx.experimental.proxy_tensor import make_fx

    try:
        from torch.func import functional_call
    except ImportError:
        from torch.nn.utils.stateless import functional_call

    torch.manual_seed(0)
    model = export_models.GPT2Like(layers)
    model.eval()
    state = dict(model.named_parameters())
    state.update(dict(model.named_buffers()))
    keys = list(state.keys())

    def f(*args):
        return functional_call(model, dict(zip(keys, args[:-1])), (args[-1],))

    ids = torch.randint(0, 50257, (batch, seq))
    args = [state[k] for k in keys] + [ids]
    gm = make_fx(f, tracing_mode="fake")(*args)
    names = ["p_" + k.replace(".", "_") for k in keys] + ["input_ids"]
    return gm, args, names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name")
    ap.add_argument("--json", required=True, help="where the graph's JSON goes (kept when present)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--input-size", default="1,3,224,224", help="classifier input size")
    opts = ap.parse_args()

    if opts.name.startswith("gpt2_"):
        gm, args, names = trace_gpt2(int(opts.name[5:]), 2, 16)
    else:
        gm, args, names = fx2json.trace_torchvision(opts.name, [int(s) for s in opts.input_size.split(",")])
    if not os.path.exists(opts.json):
        doc = fx2json.dump_graph_module(gm, args, names)
        tmp = opts.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, opts.json)

    import warnings

    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    warnings.simplefilter("ignore")
    runs, node_runs = [], []
    for _ in range(opts.repeat):
        t0 = time.perf_counter()
        FakeTensorProp(gm).propagate(*args)
        runs.append((time.perf_counter() - t0) * 1000.0)
        # The node walk alone: inputs already fake, as under torch.compile.
        mode = FakeTensorMode()
        fake_args = [mode.from_tensor(a) for a in args]
        t0 = time.perf_counter()
        with mode:
            FakeTensorProp(gm).run(*fake_args)
        node_runs.append((time.perf_counter() - t0) * 1000.0)
    nodes = list(gm.graph.nodes)
    print(json.dumps({
        "best_ms": min(runs),
        "runs_ms": runs,
        "best_run_ms": min(node_runs),
        "node_runs_ms": node_runs,
        "best_run_us_per_node": min(node_runs) * 1000.0 / len(nodes),
        "nodes": len(nodes),
        "call_nodes": sum(1 for n in nodes if n.op == "call_function"),
        "torch": torch.__version__,
    }))


if __name__ == "__main__":
    main()
