#!/usr/bin/env python3
"""fakeprop.propagate in process against torch's FakeTensorProp, on the same ATen graphs.

    PYTHONPATH=build/python .venv-oracle/bin/python scripts/bench/python_peer.py [--repeat N] [NAME ...]

Runs in the oracle environment (current torch) with the package built by
CMake (or pip-installed). NAMEs: mlp10 (ten Linear/GELU/LayerNorm blocks),
resnet18, mobilenet_v3_small, resnet50, vit_b_16 (torchvision, random
weights), gpt2 and llama (Hugging Face configs at GPT-2 small and a
12-layer Llama width 768, random weights, use_cache=False) and gpt2_48 (48
GPT-2 layers of width 256): about 100 to 5,000 nodes. Each is exported
with torch.export (dynamic batch, and sequence for the decoders) and
decomposed to core ATen (run_decompositions), so both tools walk the same
graph. Measured, best of N:
  - fakeprop: fakeprop.propagate(ep), everything from the Python objects to
    the report and node.meta['fakeprop'] included, with the dims symbolic;
  - FakeTensorProp: FakeTensorProp(gm).propagate(*real inputs) over the
    program's graph module (parameters, buffers and the example inputs,
    converted to fake tensors: static sizes, the peer's cheaper case), and
    the walk alone over inputs already fake (propagate_dont_convert_inputs),
    and that walk over the program's own symbolic fake inputs (its
    placeholders' meta['val'] in export's fake mode and ShapeEnv), which
    computes symbolic shapes as fakeprop does;
  - fakeprop's phases (fakeprop_phases_ms), each best of N on its own:
    reading the program, the C++ run building the report's objects, and
    setting node.meta on top.
Between timed calls, untimed, each tool's node.meta is put back as a user's
first call finds it (no 'fakeprop' entry; the traced 'val' that
FakeTensorProp replaces), so no call pays for freeing the last one's values.
With --fakeprop BIN, each program is also saved (torch.export.save) under
--pt2-dir, and two whole processes are timed, best of N: `BIN NAME.pt2 --json`
(start, reading the archive's program, propagation, the report) against a
Python process that imports torch, torch.export.load()s the archive and runs
FakeTensorProp over it as above.
Prints one JSON line per graph.
"""
import argparse
import gc
import json
import os
import subprocess
import sys
import time

import torch
from torch.export import Dim
from torch.fx.passes.fake_tensor_prop import FakeTensorProp
from torch._guards import detect_fake_mode
from torch._subclasses.fake_tensor import FakeTensorMode

import fakeprop

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from export_programs import _torchvision  # noqa: E402


def _decoder(kind, **gpt2_sizes):
    """A causal LM from a Hugging Face config with random weights; gpt2_sizes override GPT-2 small's."""
    import transformers

    if kind == "gpt2":
        cfg = transformers.GPT2Config(use_cache=False, **gpt2_sizes)
    else:
        cfg = transformers.LlamaConfig(hidden_size=768, intermediate_size=2048, num_hidden_layers=12,
                                       num_attention_heads=12, num_key_value_heads=4, vocab_size=32000,
                                       use_cache=False)
    model = transformers.AutoModelForCausalLM.from_config(cfg, attn_implementation="eager").eval()
    ids = torch.randint(0, 1000, (2, 16))
    return model, (ids,), {"input_ids": {0: Dim("batch", max=64), 1: Dim("seq", max=1024)}}


def _mlp(layers):
    """A stack of Linear + GELU blocks with a residual add and a LayerNorm each: about 9 nodes a layer."""

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.norm = torch.nn.Linear(64, 64), torch.nn.LayerNorm(64)

        def forward(self, x):
            return self.norm(x + torch.nn.functional.gelu(self.fc(x)))

    model = torch.nn.Sequential(*[Block() for _ in range(layers)]).eval()
    return model, (torch.randn(2, 16, 64),), {"input": {0: Dim("batch", max=64), 1: Dim("seq", max=1024)}}


# From about 100 to about 5,000 nodes after run_decompositions (the row's "nodes" says how many).
BUILDERS = {"mlp10": lambda: _mlp(10), "resnet18": _torchvision("resnet18", 64),
            "mobilenet_v3_small": _torchvision("mobilenet_v3_small", 64),
            "resnet50": _torchvision("resnet50", 224), "vit_b_16": _torchvision("vit_b_16", 224),
            "gpt2": lambda: _decoder("gpt2"), "llama": lambda: _decoder("llama"),
            "gpt2_48": lambda: _decoder("gpt2", n_layer=48, n_embd=256, n_head=4)}


def _real_args(ep, example):
    """One real tensor per placeholder of ep.graph_module: state from the signature, then the inputs."""
    state = dict(ep.state_dict)
    state.update(ep.constants)
    args, user = [], iter(example)
    for spec in ep.graph_signature.input_specs:
        args.append(state[spec.target] if spec.target is not None and spec.kind.name != "USER_INPUT" else next(user))
    return args


def _best(n, fn, reset=None):
    """The best and every time of n calls of fn. A call's result is freed after its time is taken,
    for either tool: dropping the report (or FakeTensorProp's outputs) is the caller's cost, later.
    `reset`, untimed after each call, puts the graph's node.meta back as it was, so that no call pays
    for freeing what the previous one left there (a user's first call does not)."""
    times = []
    for _ in range(n):
        t = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t) * 1e3)
        del result
        if reset is not None:
            reset()
    return min(times), times


def _meta_resets(gm):
    """(drop node.meta['fakeprop'], restore node.meta['val']) for the nodes of gm: fakeprop adds its
    entry where there was none; FakeTensorProp replaces the traced 'val', which stays alive here, so
    neither frees the last call's values inside the next timed call."""
    nodes = list(gm.graph.nodes)
    vals = [(n, n.meta.get("val")) for n in nodes]

    def drop_fakeprop():
        for n in nodes:
            n.meta.pop("fakeprop", None)

    def restore_val():
        for n, v in vals:
            n.meta["val"] = v

    return drop_fakeprop, restore_val


def _phases(ep, repeat, drop_fakeprop):
    """Where propagate's time goes, each phase best of N on its own: reading the program into the
    core (graph_export.read_program), the C++ run with the report's Python objects, and setting
    node.meta['fakeprop'] on top of that."""
    from fakeprop import graph_export

    gc_was = gc.isenabled()
    gc.disable()  # as propagate runs these phases
    try:
        read_ms, _ = _best(repeat, lambda: graph_export.read_program(ep, path="<ExportedProgram>"))
        graph = graph_export.read_program(ep, path="<ExportedProgram>")
        args = {"marks": [], "real_run": False}  # what propagate passes without options
        run_ms, _ = _best(repeat, lambda: graph.run(args, False))
        attach_ms, _ = _best(repeat, lambda: graph.run(args, True), drop_fakeprop)
    finally:
        if gc_was:
            gc.enable()
    return {"read": read_ms, "run_and_report": run_ms, "attach": max(0.0, attach_ms - run_ms)}


# The torch side of the .pt2 comparison, as a fresh process: argv[1] the archive, argv[2] "hf" when
# its output types are transformers'.
_TORCH_PROCESS = """
import sys, torch
from torch.fx.passes.fake_tensor_prop import FakeTensorProp
from torch._subclasses.fake_tensor import FakeTensorMode
if sys.argv[2:] == ["hf"]:
    import transformers.modeling_outputs  # noqa: F401 - registers the output types of the pytree specs
sys.path.insert(0, %r)
from python_peer import _real_args
ep = torch.export.load(sys.argv[1])
FakeTensorProp(ep.graph_module, FakeTensorMode()).propagate(*_real_args(ep, ep.example_inputs[0]))
""" % os.path.dirname(os.path.abspath(__file__))


def _process_ms(cmd, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, (time.perf_counter() - t) * 1e3)
    return best


def measure(name, repeat, fakeprop_bin=None, pt2_dir=None):
    model, example, shapes = BUILDERS[name]()
    with torch.no_grad():
        ep = torch.export.export(model, example, dynamic_shapes=shapes, strict=False).run_decompositions()
    gm = ep.graph_module
    nodes = len(gm.graph.nodes)
    drop_fakeprop, restore_val = _meta_resets(gm)
    report = fakeprop.propagate(ep)
    errors = len(report["errors"])
    drop_fakeprop()
    fp_ms, fp_runs = _best(repeat, lambda: fakeprop.propagate(ep), drop_fakeprop)
    phases = _phases(ep, repeat, drop_fakeprop)
    path = None
    if fakeprop_bin:  # saved before FakeTensorProp, which overwrites meta['val'] with static fake values
        os.makedirs(pt2_dir, exist_ok=True)
        path = os.path.join(pt2_dir, name + ".pt2")
        torch.export.save(ep, path)
    args = _real_args(ep, example)
    ftp_ms, ftp_runs = _best(max(1, repeat // 2), lambda: FakeTensorProp(gm, FakeTensorMode()).propagate(*args),
                             restore_val)
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    fakes = [mode.from_tensor(a) for a in args]

    def walk():
        return FakeTensorProp(gm, mode).propagate_dont_convert_inputs(*fakes)

    walk_ms, _ = _best(max(1, repeat // 2), walk, restore_val)
    # The like-for-like walk: over the program's own fake inputs (its placeholders' symbolic values, in
    # the fake mode and ShapeEnv torch.export traced with), so torch computes symbolic shapes too.
    sym_inputs = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
    sym_mode = detect_fake_mode(sym_inputs)

    def symbolic_walk():
        return FakeTensorProp(gm, sym_mode).propagate_dont_convert_inputs(*sym_inputs)

    sym_walk_ms, _ = _best(max(1, repeat // 2), symbolic_walk, restore_val)
    row = {"model": name, "nodes": nodes, "fakeprop_errors": errors, "fakeprop_ms": fp_ms,
           "fakeprop_runs_ms": fp_runs, "ftp_ms": ftp_ms, "ftp_runs_ms": ftp_runs, "ftp_walk_ms": walk_ms,
           "ftp_symbolic_walk_ms": sym_walk_ms,
           "ratio": ftp_ms / fp_ms, "walk_ratio": walk_ms / fp_ms,
           "symbolic_walk_ratio": sym_walk_ms / fp_ms, "fakeprop_phases_ms": phases,
           "torch": torch.__version__}
    if fakeprop_bin:
        row["pt2_bytes"] = os.path.getsize(path)
        row["pt2_fakeprop_ms"] = _process_ms([fakeprop_bin, path, "--json"], repeat)
        extra = ["hf"] if name in ("gpt2", "llama") else []
        row["pt2_torch_ms"] = _process_ms([sys.executable, "-c", _TORCH_PROCESS, path] + extra, max(1, repeat // 5))
        row["pt2_ratio"] = row["pt2_torch_ms"] / row["pt2_fakeprop_ms"]
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", default=list(BUILDERS))
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--fakeprop", help="the fakeprop binary: also time whole processes on .pt2 archives")
    ap.add_argument("--pt2-dir", default=os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "build-models", "pt2"), help="where the archives go (default build-models/pt2)")
    a = ap.parse_args()
    for name in a.names:
        try:
            row = measure(name, a.repeat, a.fakeprop, a.pt2_dir)
        except Exception as e:  # noqa: BLE001 - torch could not export it: say so, go on
            row = {"model": name, "failed": "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300])}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    sys.exit(main())
