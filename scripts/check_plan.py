#!/usr/bin/env python3
"""Checks `fakeprop plan` on a Llama-style model of about 2,000 nodes against torch's own tracker.

    PYTHONPATH=build/python .venv-oracle/bin/python scripts/check_plan.py --fakeprop build/fakeprop \
        [--layers 21] [--budget 80GiB] [--seq 4096] [--repeat 5]

Exports a Llama (transformers, random weights, SDPA kept whole, dynamic batch and sequence) as a
JSON FX graph, times `fakeprop plan GRAPH --budget B --solve batch --set seq=S` (the whole process:
load, propagation, analysis and the solve; best of --repeat), then runs scripts/memory_oracle.py's
tracker (graph order under FakeTensorMode, docs/sizing.md's definition) at the answer and the answer
plus one: the first must fit the budget and the second not, and both peaks must equal fakeprop's.
Prints one line per fact and exits 1 if any check fails. Runs outside CI (it needs torch).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_oracle as oracle  # noqa: E402
import torch  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fakeprop", default="build/fakeprop")
    ap.add_argument("--layers", type=int, default=21)
    ap.add_argument("--budget", default="80GiB")
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()

    model = oracle._hf("LlamaConfig", "LlamaForCausalLM", num_hidden_layers=a.layers, hidden_size=256,
                       intermediate_size=688, num_attention_heads=8, num_key_value_heads=2, vocab_size=32000,
                       max_position_embeddings=8192, attn_implementation="sdpa")
    spec = oracle._keep_sdpa(oracle._lm_spec(model, vocab=32000, max_seq=8192))
    spec.dynamic_shapes = tuple({0: torch.export.Dim("batch", min=2, max=1 << 20),
                                 1: torch.export.Dim("seq", min=2, max=8192)} for _ in spec.names)
    gm, state, users, doc, _ = oracle.export_inference(spec)
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "llama.graph.json")
        with open(graph, "w") as f:
            json.dump(doc, f)
        report = json.loads(subprocess.run([a.fakeprop, graph, "--json"], capture_output=True, text=True).stdout)
        nodes = len(report["nodes"])
        symbol = {}
        for s in report["symbols"]:
            for src in s["sources"]:
                if src.startswith("L['input_ids'].size()["):
                    symbol[int(src[len("L['input_ids'].size()["):-1])] = s["name"]
        cmd = [a.fakeprop, "plan", graph, "--budget", a.budget, "--solve", symbol[0],
               "--set", "%s=%d" % (symbol[1], a.seq), "--json"]
        best = None
        for _ in range(a.repeat):
            start = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        if p.returncode != 0:
            sys.exit("fakeprop plan failed: " + p.stderr)
        plan = json.loads(p.stdout)
    solve = plan["solve"]
    budget = plan["budget"]
    answer = solve["value"]
    print("graph: %d nodes (%d layers), fakeprop plan: %.1f ms (best of %d, whole process)"
          % (nodes, a.layers, best * 1000, a.repeat))
    print("answer: batch %d at seq %d: fakeprop peak %d bytes (%s), next %d bytes; budget %d"
          % (answer, a.seq, solve["peak_bytes"], solve["limited_by"], solve["next"]["peak_bytes"], budget))
    ok = True
    for batch, want in ((answer, solve["peak_bytes"]), (answer + 1, solve["next"]["peak_bytes"])):
        shapes = {users[0]: (batch, a.seq)}
        dtypes = {users[0]: torch.long}
        golden = oracle.measure(gm, state, shapes, dtypes, order=[n["name"] for n in doc["nodes"]])
        fits = golden["peak_bytes"] <= budget
        print("torch tracker at batch %d: peak %d bytes (%s the budget); fakeprop %d"
              % (batch, golden["peak_bytes"], "fits" if fits else "exceeds", want))
        ok &= golden["peak_bytes"] == want and fits == (batch == answer)
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
