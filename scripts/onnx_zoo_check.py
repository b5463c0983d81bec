#!/usr/bin/env python3
"""Checks fakeprop and the shape-inference peers on the ONNX zoo against ONNX Runtime.

    .venv-oracle/bin/python scripts/onnx_zoo_check.py [--dir build-models/zoo] [--fakeprop build/fakeprop] [NAME ...]

For every model that scripts/onnx_zoo.py built (DIR/zoo.json lists them with their test sizes):

  * ONNX Runtime (CPU, graph optimizations off) runs the model at each size with every node
    output exposed as a graph output; for a top-level If, the branch ORT takes (its condition,
    read from the first run) is inlined and run again, so the values inside it are compared too.
    The values: node outputs that are tensors at every size.
  * fakeprop (`--json`, no hints) and the peers, onnx.shape_inference.infer_shapes(data_prop=True),
    ORT's SymbolicShapeInference.infer_shapes(auto_merge=True) and the onnx-shape-inference
    package (infer_symbolic_shapes), each in its own process. A value is "exact" for a tool when
    its rank and every dim, evaluated at each size, equal ORT's (a symbolic dim counts only when
    it evaluates: an input's dim_param stands for that input dim, and the peers' expressions are
    evaluated with sympy; fresh names such as unk__0 are unknown); "wrong" when a dim evaluates
    to another number, or the rank differs, at some size; unknown otherwise.
  * Time (ms): best of 3, the tool's own work with loading the model from disk. The peers and
    fakeprop's Python package (`fakeprop.infer`, "in-process ms"): in their own worker process,
    after their imports, as a Python user calls them. fakeprop's CLI: "cli ms" is its load,
    propagate and report phases from --stats, once per fresh process (its one-time set-up, which
    the in-process figures pay at import or on the first call, included); "process ms" is the
    whole process, start-up and JSON output included.
    Memory (MB): each tool's whole-process peak RSS (fakeprop: /usr/bin/time -v; a peer: its worker's
    ru_maxrss, the interpreter and the tool's imports included). results.json also has a peer's
    RSS after its imports (base_rss_kb) and tracemalloc's peak of Python allocations in one call.

Prints a markdown table and writes DIR/results.json. A tool failing on a model is recorded as
"error" and the run goes on.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sym_eval import sym_eval  # noqa: E402

PEERS = ["onnx", "ort_symbolic", "onnx_shape_inference"]
DTYPES = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16, "float64": TensorProto.DOUBLE,
          "bfloat16": TensorProto.BFLOAT16, "int64": TensorProto.INT64, "int32": TensorProto.INT32,
          "int16": TensorProto.INT16, "int8": TensorProto.INT8, "uint8": TensorProto.UINT8,
          "bool": TensorProto.BOOL}
NP_TO_ONNX = {np.dtype(k if k != "bfloat16" else "float32"): v for k, v in DTYPES.items() if k != "bfloat16"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# ---------------------------------------------------------------- peers (run in a worker process)
# A value made inside a subgraph is keyed "GRAPH:name" (optimum's merged decoders use the same
# names in both branches of their If).
def _graph_shapes(graph, out, prefix=""):
    for vi in list(graph.value_info) + list(graph.output):
        tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
        if tt is None or not tt.HasField("shape"):
            continue
        out[prefix + vi.name] = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
                                 for d in tt.shape.dim]
    for node in graph.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                _graph_shapes(a.g, out, prefix + a.g.name + ":")
            elif a.type == onnx.AttributeProto.GRAPHS:
                for g in a.graphs:
                    _graph_shapes(g, out, prefix + g.name + ":")
    return out


def peer_worker(peer, path):
    import resource

    if peer == "fakeprop_package":
        import fakeprop

        fakeprop.infer(path)  # the first call pays the one-time set-up, as an import does for a peer

        def run():
            return fakeprop.infer(path)
    elif peer == "onnx":
        def run():
            m = onnx.load(path)
            return onnx.shape_inference.infer_shapes(m, data_prop=True)
    elif peer == "ort_symbolic":
        from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

        def run():
            m = onnx.load(path)
            return SymbolicShapeInference.infer_shapes(m, auto_merge=True)
    else:
        import onnx_ir as ir
        from onnx_shape_inference import infer_symbolic_shapes

        def run():
            m = ir.load(path)
            infer_symbolic_shapes(m)
            return m
    import tracemalloc

    base_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times = []
    result = None
    for _ in range(3):
        t0 = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - t0)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    run()
    traced = tracemalloc.get_traced_memory()[1] // 1024
    tracemalloc.stop()
    if peer == "fakeprop_package":
        shapes = {}
    elif peer == "onnx_shape_inference":
        shapes = {}
        for node in result.graph.all_nodes():
            prefix = "" if node.graph is result.graph or node.graph is None else node.graph.name + ":"
            for v in node.outputs:
                if v.shape is None:
                    continue
                dims = [d if isinstance(d, int) else (d.value if getattr(d, "value", None) is not None else None)
                        for d in v.shape]
                shapes[prefix + v.name] = [d if isinstance(d, int) or d is None else str(d) for d in dims]
    else:
        shapes = _graph_shapes(result.graph, {})
    print(json.dumps({"ms": min(times) * 1000, "rss_kb": rss, "base_rss_kb": base_kb, "traced_kb": traced,
                      "shapes": shapes}))


def run_peer(peer, path, env=None):
    # Under /usr/bin/time: a process's ru_maxrss survives exec, so one started straight from this
    # (large) process would report this process's peak.
    # In a scratch folder: symbolic_shape_infer saves sym_shape_infer_temp.onnx (and its external
    # data) in the working directory when its inference is incomplete.
    with tempfile.TemporaryDirectory() as scratch:
        proc = subprocess.run(["/usr/bin/time", "-v", sys.executable, os.path.abspath(__file__), "--peer", peer,
                               os.path.abspath(path)], capture_output=True, text=True, timeout=600, cwd=scratch, env=env)
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.strip().splitlines() if not ln.startswith(("\t", "Command exited"))]
        raise RuntimeError((lines or ["exit %d" % proc.returncode])[-1][:300])
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    res["rss_kb"] = int(m.group(1)) if m else res["rss_kb"]
    return res


# ---------------------------------------------------------------- fakeprop
def branch_prefixes(model):
    """{fakeprop's path of a node inside a top-level If's branch (up to the branch): the key prefix}."""
    out = {}
    for i, node in enumerate(model.graph.node):
        if node.op_type == "If":
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    out[(node.name or "If_%d" % i) + "/" + a.g.name + "/"] = a.g.name + ":"
    return out


def run_fakeprop(fakeprop, path, prefixes):
    """fakeprop's report and {value: shape}, {value: dtype} of its node outputs."""
    proc = subprocess.run([fakeprop, path, "--json"], capture_output=True)
    if proc.returncode not in (0, 1):
        raise RuntimeError("fakeprop exit %d: %s" % (proc.returncode, proc.stderr.decode()[-300:]))
    out = proc.stdout
    report = json.loads(out)
    shapes, dtypes = {}, {}
    for node in report["nodes"]:
        prefix = next((p for path, p in prefixes.items() if node["name"].startswith(path)), "")
        for o in node["outputs"]:
            v = o.get("val")
            if o.get("name") and isinstance(v, dict) and "shape" in v:
                shapes[prefix + o["name"]] = v["shape"]
                dtypes[prefix + o["name"]] = v["dtype"]
    return report, shapes, dtypes


def timed_fakeprop(fakeprop, path):
    """fakeprop's best of 3 runs: the whole process's wall time, its own work (load, propagate and
    report, from --stats: what the peers' in-process times measure) and its peak RSS (/usr/bin/time -v)."""
    rss, times, work = 0, [], []
    for _ in range(3):
        t0 = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-v", fakeprop, path, "--json", "--stats"], capture_output=True)
        times.append(time.perf_counter() - t0)
        m = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        if m:
            rss = max(rss, int(m.group(1)))
        phases = json.loads(proc.stdout)["stats"]["phases"]
        work.append(phases["load_ms"] + phases["propagate_ms"] + phases["report_ms"])
    return min(times) * 1000, min(work), rss


# ---------------------------------------------------------------- ONNX Runtime
def input_feeds(model, sizes, k):
    inits = {t.name for t in model.graph.initializer}
    rng = np.random.default_rng(k)
    feeds = {}
    env = {n: v[k % len(v)] for n, v in sizes.items()}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        tt = inp.type.tensor_type
        dims = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                dims.append(d.dim_value)
            else:
                if d.dim_param not in env:  # optimum's "past_sequence_length + sequence_length"
                    env[d.dim_param] = eval_peer_dim(d.dim_param, env)
                dims.append(env[d.dim_param])
        np_type = helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if np_type == np.bool_:
            # a merged decoder's use_cache_branch: false at the first two runs, true at the next two,
            # so that each branch runs at two sizes
            feeds[inp.name] = np.full(dims, (k // 2) % 2 == 1)
        elif np.issubdtype(np_type, np.integer):
            # masks all ones; token type ids index a table of 2 (BERT's type_vocab_size)
            value = np.ones(dims) if "mask" in inp.name else np.zeros(dims) if "type_ids" in inp.name else \
                rng.integers(0, 100, dims)
            feeds[inp.name] = value.astype(np_type)
        else:
            feeds[inp.name] = rng.standard_normal(dims).astype(np_type)
    return feeds, env


def ort_run(model, feeds, dtypes):
    """{value: shape} of every top-level node output ORT computes (tensors only)."""
    import onnxruntime

    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for node in m.graph.node:
        for name in node.output:
            if name and name not in have and name in dtypes and dtypes[name] in DTYPES:
                m.graph.output.append(helper.make_tensor_value_info(name, DTYPES[dtypes[name]], None))
                have.add(name)
    so = onnxruntime.SessionOptions()
    so.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    sess = onnxruntime.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    res = sess.run(names, feeds)
    shapes, values = {}, {}
    for n, r in zip(names, res):
        if isinstance(r, np.ndarray):
            shapes[n] = list(r.shape)
            if r.size <= 64:
                values[n] = r
    return shapes, values


def inline_taken_branches(model, values):  # values: node outputs and graph inputs
    """The model with each top-level If replaced by the branch its (computed) condition takes, and
    {value made in it: its key, "BRANCH:value"}."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    nodes = []
    keys = {}
    changed = False
    for node in m.graph.node:
        if node.op_type == "If" and node.input[0] in values:
            taken = "then_branch" if bool(np.asarray(values[node.input[0]]).reshape(-1)[0]) else "else_branch"
            g = next(a.g for a in node.attribute if a.name == taken)
            for n in g.node:
                n.name = node.name + "/" + n.name if n.name else ""
                nodes.append(n)
                keys.update((o, g.name + ":" + o) for o in n.output if o)
            m.graph.initializer.extend(g.initializer)
            for out, branch_out in zip(node.output, g.output):
                if branch_out.name != out:  # optimum's merged decoders give both the same name
                    nodes.append(helper.make_node("Identity", [branch_out.name], [out]))
            changed = True
        else:
            nodes.append(node)
    if not changed:
        return None, {}
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    return m, keys


# ---------------------------------------------------------------- comparing
_SYMPY_CACHE = {}


def eval_peer_dim(d, env):
    if d is None:
        return None
    if isinstance(d, int):
        return d
    if d in env:
        return env[d]
    import sympy

    expr = _SYMPY_CACHE.get(d)
    if expr is None:
        try:
            names = {n: sympy.Symbol(n) for n in IDENT.findall(d)
                     if n not in ("floor", "ceiling", "Max", "Min", "Mod", "max", "min", "ceil")}
            expr = sympy.sympify(d, locals=names)
        except Exception:
            expr = False
        _SYMPY_CACHE[d] = expr
    if expr is False:
        return None
    try:
        val = expr.subs({sympy.Symbol(k): v for k, v in env.items()})
    except Exception:
        return None
    return int(val) if getattr(val, "is_Integer", False) else None


def eval_fakeprop_dim(d, env):
    if isinstance(d, int):
        return d
    try:
        return int(sym_eval(d, env))
    except Exception:
        return None


def classify(shape, truths, envs, evaluate):
    """'exact', 'wrong' or 'unknown' for a tool's shape against ORT's shapes at each size."""
    if shape is None:
        return "unknown"
    known = True
    for real, env in zip(truths, envs):
        if len(shape) != len(real):
            return "wrong"
        for d, r in zip(shape, real):
            v = evaluate(d, env)
            if v is None:
                known = False
            elif v != r:
                return "wrong"
    return "exact" if known else "unknown"


def check_model(name, entry, opts):
    path = os.path.join(opts.dir, name + ".onnx")
    model = onnx.load(path)
    sizes = entry["sizes"]
    count = max([len(v) for v in sizes.values()] or [2])
    if any(i.type.tensor_type.elem_type == TensorProto.BOOL for i in model.graph.input):
        count = max(count, 4)  # each value of a bool input (an If's condition) at two sizes
    row = {"model": name, "exporter": entry["exporter"]}
    report, fp_shapes, dtypes = run_fakeprop(opts.fakeprop, path, branch_prefixes(model))
    row["fakeprop_process_ms"], row["fakeprop_ms"], row["fakeprop_rss_kb"] = timed_fakeprop(opts.fakeprop, path)
    if opts.package:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [opts.package, os.environ.get("PYTHONPATH")])))
        row["fakeprop_inproc_ms"] = run_peer("fakeprop_package", path, env)["ms"]
    # fakeprop's input symbols at each size
    truths, envs, fp_envs = [], [], []
    for k in range(count):
        feeds, env = input_feeds(model, sizes, k)
        shapes, values = ort_run(model, feeds, dtypes)
        inlined, keys = inline_taken_branches(model, dict(values, **feeds))
        if inlined is not None:
            inner = {raw: dtypes[key] for raw, key in keys.items() if key in dtypes}
            for raw, shape in ort_run(inlined, feeds, dict(dtypes, **inner))[0].items():
                shapes[keys.get(raw, raw)] = shape
        truths.append(shapes)
        envs.append(env)
        fp_env = {}
        for rin in report["inputs"]:
            if rin["name"] in feeds and isinstance(rin.get("val"), dict) and "shape" in rin["val"]:
                for d, real in zip(rin["val"]["shape"], feeds[rin["name"]].shape):
                    if isinstance(d, str) and IDENT.fullmatch(d):
                        fp_env[d] = real
        fp_envs.append(fp_env)
    graph_inputs = {i.name for i in model.graph.input}
    # A value inside an If branch exists at the sizes where ORT takes that branch: it is compared at
    # those (a model with an If has test sizes that take each branch twice or more).
    seen = {}
    for t in truths:
        for n in t:
            seen[n] = seen.get(n, 0) + 1
    names = sorted(n for n, c in seen.items() if c >= min(2, count) and n not in graph_inputs)
    row["values"] = len(names)
    tools = {"fakeprop": (fp_shapes, fp_envs, eval_fakeprop_dim)}
    for peer in PEERS:
        try:
            res = run_peer(peer, path)
            tools[peer] = (res["shapes"], envs, eval_peer_dim)
            row[peer + "_ms"], row[peer + "_rss_kb"] = res["ms"], res["rss_kb"]
            row[peer + "_base_rss_kb"], row[peer + "_traced_kb"] = res["base_rss_kb"], res["traced_kb"]
        except Exception as e:
            row[peer + "_error"] = str(e)
            print("%s: %s failed: %s" % (name, peer, e), file=sys.stderr)
    row["details"] = {}
    for tool, (shapes, tenvs, evaluate) in tools.items():
        counts = {"exact": 0, "wrong": 0, "unknown": 0}
        wrong = []
        for n in names:
            at = [k for k, t in enumerate(truths) if n in t]
            c = classify(shapes.get(n), [truths[k][n] for k in at], [tenvs[k] for k in at], evaluate)
            counts[c] += 1
            if c == "wrong":
                wrong.append("%s: %s vs ORT %s" % (n, shapes.get(n), [truths[k][n] for k in at]))
        row[tool + "_exact"], row[tool + "_wrong"] = counts["exact"], counts["wrong"]
        row[tool + "_unknown"] = counts["unknown"]
        row["details"][tool] = wrong[:20]
        for w in wrong[:opts.show]:
            print("%s: %s wrong: %s" % (name, tool, w))
    # values some peer determines that fakeprop does not
    missed = []
    for n in names:
        at = [k for k, t in enumerate(truths) if n in t]
        real = [truths[k][n] for k in at]
        if classify(fp_shapes.get(n), real, [fp_envs[k] for k in at], eval_fakeprop_dim) == "exact":
            continue
        for peer in PEERS:
            if peer in tools and classify(tools[peer][0].get(n), real, [envs[k] for k in at], eval_peer_dim) == "exact":
                missed.append("%s (%s)" % (n, peer))
                break
    row["fakeprop_missed"] = len(missed)
    row["details"]["missed"] = missed
    for w in missed[:opts.show]:
        print("%s: fakeprop does not determine %s" % (name, w))
    return row


def table(rows):
    head = ["model", "exporter", "values", "fakeprop exact/wrong", "in-process ms", "cli ms", "process ms", "MB"]
    for p in PEERS:
        head += [p + " exact/wrong", "ms", "MB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append("| %s | %s | error: %s |" % (r["model"], r.get("exporter", ""), r["error"][:80]))
            continue
        cells = [r["model"], r["exporter"], str(r["values"]),
                 "%d/%d" % (r["fakeprop_exact"], r["fakeprop_wrong"]),
                 "%.2f" % r["fakeprop_inproc_ms"] if "fakeprop_inproc_ms" in r else "-",
                 "%.2f" % r["fakeprop_ms"], "%.1f" % r["fakeprop_process_ms"],
                 "%.1f" % (r["fakeprop_rss_kb"] / 1024)]
        for p in PEERS:
            if p + "_error" in r:
                cells += ["error", "-", "-"]
            else:
                cells += ["%d/%d" % (r[p + "_exact"], r[p + "_wrong"]), "%.2f" % r[p + "_ms"],
                          "%.1f" % (r[p + "_rss_kb"] / 1024)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows):
    """Totals per tool and, per timing of fakeprop, on how many models it beats every peer that ran."""
    ok = [r for r in rows if "error" not in r]
    lines = ["values: %d in %d models" % (sum(r["values"] for r in ok), len(ok))]
    for tool in ["fakeprop"] + PEERS:
        ran = [r for r in ok if tool + "_exact" in r]
        lines.append("%s: %d exact, %d wrong, errors on %d models" % (
            tool, sum(r[tool + "_exact"] for r in ran), sum(r[tool + "_wrong"] for r in ran), len(ok) - len(ran)))
    for key, label in [("fakeprop_inproc_ms", "in process"), ("fakeprop_ms", "cli phases")]:
        timed = [r for r in ok if key in r]
        if not timed:
            continue
        # the smallest ratio of a peer's time to fakeprop's, per model
        worst = [(min(r[p + "_ms"] for p in PEERS if p + "_ms" in r) / r[key], r["model"]) for r in timed
                 if any(p + "_ms" in r for p in PEERS)]
        slower = sorted(m for ratio, m in worst if ratio <= 1)
        lines.append("fakeprop %s faster than every peer on %d/%d models (least margin %.1fx on %s)%s" % (
            label, len(worst) - len(slower), len(worst), min(worst)[0], min(worst)[1],
            "; not on: " + ", ".join(slower) if slower else ""))
    return "\n".join(lines)


# Values some peer determines and fakeprop does not, whose only correct answer is data-dependent:
# (model, value) -> why. The page lists every other such value as a gap to close.
EXPLAINED = {}


def doc_page(rows, when, zoo):
    """docs/zoo.md: the peers table, the totals and the "some peer, not fakeprop" list."""
    import platform

    names = [r["model"] for r in rows]
    cmd = "    .venv-oracle/bin/python scripts/onnx_zoo_check.py --fakeprop build/fakeprop --doc docs/zoo.md" + \
        ("" if set(names) == set(zoo) else " " + " ".join(names))
    ok = [r for r in rows if "error" not in r]
    out = ["# The ONNX zoo against its peers", "",
           "Written by `scripts/onnx_zoo_check.py --doc docs/zoo.md` (do not edit by hand); the models come",
           "from `scripts/onnx_zoo.py` (docs/testing.md, \"ONNX zoo and peers\"). Regenerate:", "",
           "    scripts/setup.sh --zoo && scripts/setup.sh --optimum",
           "    .venv-oracle/bin/python scripts/onnx_zoo.py",
           cmd.rstrip(), "",
           "Measured %s UTC on %s (%d CPUs). exact / wrong / unknown: against ONNX Runtime's shapes at two or"
           % (when, platform.machine(), os.cpu_count()),
           "more sizes per model (four where a bool input picks an If's branch: each branch at two).", "",
           "## Totals", ""]
    out += ["    " + ln for ln in summary(rows).splitlines()]
    out += ["", "## Per model", "", "exact/wrong/unknown per tool; ms: best of 3 (fakeprop: its CLI's load, propagate",
            "and report phases; a peer: in process after its imports); MB: the whole process's peak RSS.", ""]
    head = ["model", "exporter", "values", "fakeprop", "ms", "MB"]
    for p in PEERS:
        head += [p, "ms", "MB"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "error" in r:
            out.append("| %s | %s | error: %s |" % (r["model"], r.get("exporter", ""), r["error"][:80]))
            continue
        cells = [r["model"], r["exporter"], str(r["values"]),
                 "%d/%d/%d" % (r["fakeprop_exact"], r["fakeprop_wrong"], r["fakeprop_unknown"]),
                 "%.2f" % r["fakeprop_ms"], "%.1f" % (r["fakeprop_rss_kb"] / 1024)]
        for p in PEERS:
            if p + "_error" in r:
                cells += ["error", "-", "-"]
            else:
                cells += ["%d/%d/%d" % (r[p + "_exact"], r[p + "_wrong"], r[p + "_unknown"]), "%.2f" % r[p + "_ms"],
                          "%.1f" % (r[p + "_rss_kb"] / 1024)]
        out.append("| " + " | ".join(cells) + " |")
    missed = [(r["model"], m) for r in ok for m in r["details"]["missed"]]
    wrong = [(r["model"], w) for r in ok for w in r["details"]["fakeprop"]]
    open_ = [(mo, m) for mo, m in missed if (mo, m.split(" (")[0]) not in EXPLAINED]
    out += ["", "## Some peer, not fakeprop", "",
            "Values some peer determines exactly and fakeprop does not: %d (%d explained as data-dependent, %d open);"
            % (len(missed), len(missed) - len(open_), len(open_)),
            "values fakeprop gets wrong: %d." % len(wrong), ""]
    for mo, m in missed:
        why = EXPLAINED.get((mo, m.split(" (")[0]))
        out.append("- %s: `%s`%s" % (mo, m, " -- " + why if why else " -- open"))
    for mo, w in wrong:
        out.append("- %s: fakeprop wrong: `%s`" % (mo, w))
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*")
    p.add_argument("--dir", default="build-models/zoo")
    p.add_argument("--fakeprop", default="build/fakeprop")
    p.add_argument("--package", default=None,
                   help="folder holding the fakeprop Python package (default: python/ beside --fakeprop, if built)")
    p.add_argument("--show", type=int, default=5, help="problems to print per model and tool")
    p.add_argument("--doc", help="write the peers table and the missed list as this markdown page")
    p.add_argument("--render", action="store_true", help="only write --doc again from DIR/results.json")
    p.add_argument("--peer", nargs=2, metavar=("PEER", "MODEL"), help=argparse.SUPPRESS)
    opts = p.parse_args(argv)
    if opts.peer:
        peer_worker(*opts.peer)
        return 0
    if opts.package is None:
        beside = os.path.join(os.path.dirname(os.path.abspath(opts.fakeprop)), "python")
        opts.package = beside if os.path.isdir(os.path.join(beside, "fakeprop")) else ""
    with open(os.path.join(opts.dir, "zoo.json")) as f:
        zoo = json.load(f)
    if opts.render:  # the list's explanations changed, not the measurements
        with open(os.path.join(opts.dir, "results.json")) as f:
            saved = json.load(f)
        with open(opts.doc, "w") as f:
            f.write(doc_page(saved["rows"], saved["when"], zoo))
        return 0
    rows = []
    for name in opts.names or sorted(zoo):
        try:
            rows.append(check_model(name, zoo[name], opts))
        except Exception as e:
            print("%s: %s" % (name, e), file=sys.stderr)
            rows.append({"model": name, "exporter": zoo[name]["exporter"], "error": str(e)[:300]})
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(rows))
    print()
    print(summary(rows))
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    with open(os.path.join(opts.dir, "results.json"), "w") as f:
        json.dump({"when": when, "rows": rows}, f, indent=1)
    if opts.doc:
        with open(opts.doc, "w") as f:
            f.write(doc_page(rows, when, zoo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
