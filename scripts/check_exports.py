#!/usr/bin/python3
"""Checks fakeprop on real exports (made by scripts/export_models.py).

For every model in --dir (or --models), runs `fakeprop MODEL --json` with the
model's dims symbolic and

  (a) counts the values (node outputs) whose every dim is an exact expression
      over the input symbols ("resolved"), the values holding unbacked `u*`
      symbols that a data-dependent node explains ("data-dependent": NonZero,
      NonMaxSuppression, Unique, Compress, TopK with a computed k, or a node that
      reads data computed from tensor contents), and the rest ("unresolved":
      fresh symbols, errors, missing shapes);
  (b) runs ONNX Runtime (onnxruntime-node, through scripts/ort_shapes.js) at two
      concrete input sizes with every intermediate value exposed as a graph
      output and checks that fakeprop's expressions, evaluated at those sizes,
      equal the real shapes (unbacked symbols are bound from the first value
      where one stands alone as a dim, then checked everywhere else);
  (c) counts the values that onnx.shape_inference.infer_shapes (value_info
      stripped first) leaves without a shape or with a dim that has neither a
      value nor a parameter.

Prints a table and exits 1 when a value is unresolved or disagrees with ORT.

Setup for (b): npm install --ignore-scripts --prefix build-models onnxruntime-node
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto

from sym_eval import NAMES, sym_eval

# Ops whose output sizes depend on tensor contents by nature.
DATA_SOURCE_OPS = {"NonZero", "NonMaxSuppression", "Unique", "Compress", "com.microsoft.NonMaxSuppression"}
# Inputs whose contents set an output size (positions from the first; None: every input from there).
SIZE_INPUTS = {"Reshape": 1, "Expand": 1, "Tile": 1, "ConstantOfShape": 0, "Range": 0, "Slice": 1, "Pad": 1,
               "Resize": 1, "Upsample": 1, "TopK": 1, "OneHot": 1, "Squeeze": 1, "Unsqueeze": 1, "Split": 1,
               "ReduceSum": 1, "ReduceMax": 1, "ReduceMin": 1, "ReduceMean": 1, "ReduceProd": 1,
               "If": 0, "Loop": 0, "Scan": 0, "SequenceAt": 1, "SplitToSequence": 1, "RoiAlign": 1}
FLOAT_DTYPES = {"float32", "float16", "bfloat16", "float64"}
# Ops that only read their inputs' shapes, never their contents.
SHAPE_ONLY_OPS = {"Shape", "Size", "com.microsoft.Shape"}

# Two concrete sizes per input dim_param; --size NAME=A,B overrides.
DEFAULT_SIZES = {"batch": (2, 3), "seq": (7, 13), "height": (224, 160), "width": (224, 192)}
# Size B is elongated so that the other branch of the resize scale min(min_size / min(h, w),
# max_size / max(h, w)) decides.
DETECTION_SIZES = {"batch": (1, 1), "height": (320, 200), "width": (320, 640)}

DTYPES = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16, "float64": TensorProto.DOUBLE,
          "bfloat16": TensorProto.BFLOAT16, "int64": TensorProto.INT64, "int32": TensorProto.INT32,
          "int16": TensorProto.INT16, "int8": TensorProto.INT8, "uint8": TensorProto.UINT8,
          "bool": TensorProto.BOOL}
ONNX_TO_NAME = {v: k for k, v in DTYPES.items()}

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
KEYWORDS = {"and", "or", "not", "True", "False", "sqrt"} | set(NAMES)


def free_symbols(dim):
    if isinstance(dim, int):
        return set()
    return {name for name in IDENT.findall(dim) if name not in KEYWORDS}


def tensor_vals(val):
    """Yields (suffix, tensor VAL) for a VAL that is a tensor or a list of them."""
    if isinstance(val, dict) and "shape" in val:
        yield "", val
    elif isinstance(val, list):
        for i, v in enumerate(val):
            for suffix, t in tensor_vals(v):
                yield "[%d]%s" % (i, suffix), t


def run_fakeprop(fakeprop, model_path, hints=None):
    args = [fakeprop, model_path, "--json"]
    for name, dims in (hints or {}).items():
        args += ["--input", "%s=%s" % (name, ",".join(str(d) for d in dims))]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise RuntimeError("fakeprop exit %d: %s" % (proc.returncode, proc.stderr.strip()[:500]))
    return json.loads(proc.stdout)


def subgraphs(node):
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            yield from a.graphs


def subgraph_ops(node):
    """Op types inside a control-flow node's subgraphs (recursively)."""
    ops = set()
    for g in subgraphs(node):
        for n in g.node:
            ops.add(n.op_type)
            ops |= subgraph_ops(n)
    return ops


def subgraph_reads(node):
    """Outer-scope values a control-flow node's subgraphs read (its implicit inputs)."""
    reads = []
    for g in subgraphs(node):
        local = {i.name for i in g.input} | {t.name for t in g.initializer}
        for n in g.node:
            for i in list(n.input) + subgraph_reads(n):
                if i and i not in local:
                    reads.append(i)
            local.update(n.output)
    return reads


def walk_nodes(graph, prefix=""):
    """(report name, node) for every node, subgraphs included: fakeprop names a subgraph's node
    PARENT/SUBGRAPH/NODE."""
    for node in graph.node:
        name = prefix + (node.name or (node.output[0] if node.output else ""))
        yield name, node
        for g in subgraphs(node):
            yield from walk_nodes(g, name + "/" + g.name + "/")


def analyse(model, report):
    """Classifies every node output of the report; returns per-value facts and counts."""
    graph_inputs = {i.name for i in model.graph.input}
    initializers = {t.name for t in model.graph.initializer}
    node_inputs = {}
    holds_source = set()
    loop_carried = set()  # a Loop's iteration number, condition and carried values are runtime values
    for name, node in walk_nodes(model.graph):
        node_inputs[name] = [i for i in node.input if i] + subgraph_reads(node)
        if subgraph_ops(node) & DATA_SOURCE_OPS:
            holds_source.add(name)
        if node.op_type in ("Loop", "Scan"):
            for g in subgraphs(node):
                loop_carried |= {i.name for i in g.input}
    input_symbols = {s["name"] for s in report["symbols"] if any(src.startswith("L[") for src in s["sources"])}
    error_nodes = {e["node"] for e in report["errors"] if e.get("node")}

    # Taint: values whose contents depend on the data of a graph input (not only on shapes).
    tainted = {i for i in graph_inputs if i not in initializers} | loop_carried
    explained_u = set()
    unexplained_u = {}
    values = []
    binder = {u: n["name"] for n in report["nodes"] for u in n.get("unbacked_bindings", {})}
    for node in report["nodes"]:
        # A subgraph node visited again (a Loop body's later pass, where the carried sizes that
        # change per iteration are generalized to unbacked symbols the Loop binds) is named
        # PARENT#1/... and runs before the Loop's own record: those symbols are as data-dependent
        # as the Loop's trip count and inputs.
        loop = re.match(r"([^/#]+)#[0-9]+/", node["name"])
        if loop and (loop.group(1) in holds_source or any(i in tainted for i in node_inputs.get(loop.group(1), []))):
            for out in node["outputs"]:
                for _, t in tensor_vals(out["val"]):
                    for d in t["shape"]:
                        explained_u |= {s for s in free_symbols(d)
                                        if s not in input_symbols and binder.get(s, loop.group(1)) == loop.group(1)}
        inputs = node_inputs.get(re.sub(r"#[0-9]+(?=/)", "", node["name"]), [])
        op = node["op"]
        reads_data = any(i in tainted for i in inputs)
        first = SIZE_INPUTS.get(op)
        sizes_from_data = first is not None and any(i in tainted for i in inputs[first:])
        shapes_u = False
        for out in node["outputs"]:
            for _, t in tensor_vals(out["val"]):
                for d in t["shape"]:
                    shapes_u |= any(s not in input_symbols for s in free_symbols(d))
        for out in node["outputs"]:
            # Data (a value computed from tensor contents) or a float computed from sizes (e.g. a resize
            # scale): neither is an integer size expression, so a size read from it is data-dependent.
            floats = [t for _, t in tensor_vals(out["val"]) if t["dtype"] in FLOAT_DTYPES]
            if (op not in SHAPE_ONLY_OPS and reads_data) or floats:
                tainted.add(out["name"])
        if op in SHAPE_ONLY_OPS and shapes_u:
            for out in node["outputs"]:
                tainted.add(out["name"])
        for u in node.get("unbacked_bindings", {}):
            if u in explained_u:  # a Loop's generalized carried size, explained in its body (above)
                continue
            if op in DATA_SOURCE_OPS or sizes_from_data or node["name"] in holds_source:
                explained_u.add(u)
            else:
                unexplained_u[u] = node["name"]
        for out in node["outputs"]:
            if not out["name"]:
                continue
            facts = {"name": out["name"], "node": node["name"], "op": op, "tensors": list(tensor_vals(out["val"]))}
            syms = set()
            for _, t in facts["tensors"]:
                for d in t["shape"]:
                    syms |= free_symbols(d)
            if not facts["tensors"] and out["val"] is not None and not (isinstance(out["val"], dict) and "sym" in out["val"]):
                facts["status"] = "unresolved"
                facts["why"] = "no tensor value"
            elif node["name"] in error_nodes:
                facts["status"] = "unresolved"
                facts["why"] = "error on node"
            elif syms <= input_symbols:
                facts["status"] = "resolved"
            elif all(s in input_symbols or s in explained_u for s in syms):
                facts["status"] = "data-dependent"
            else:
                facts["status"] = "unresolved"
                facts["why"] = "symbols " + ", ".join(sorted(s for s in syms if s not in input_symbols and s not in explained_u))
            values.append(facts)
    return values, unexplained_u


def onnx_unknown(model):
    """Values (node outputs) that ONNX's own inference leaves with no shape or an unknown dim."""
    saved = list(model.graph.value_info)  # stripped in place (no copy of a large model), then restored
    del model.graph.value_info[:]
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    finally:
        model.graph.value_info.extend(saved)
    infos = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
    unknown = 0
    total = 0
    for node in model.graph.node:
        for name in node.output:
            if not name:
                continue
            total += 1
            vi = infos.get(name)
            if vi is None or not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
                unknown += 1
                continue
            if any(not d.HasField("dim_value") and not d.HasField("dim_param") for d in vi.type.tensor_type.shape.dim):
                unknown += 1
    return unknown, total


def input_specs(model, report, sizes, which):
    """Concrete input shapes for size set `which` (0 or 1), and each dim symbol's value."""
    initializers = {t.name: t for t in model.graph.initializer}
    env = {}
    specs = []
    for inp in model.graph.input:
        if inp.name in initializers:
            continue
        tt = inp.type.tensor_type
        dims = []
        for i, d in enumerate(tt.shape.dim):
            if d.HasField("dim_value"):
                dims.append(d.dim_value)
            elif d.dim_param in sizes:
                dims.append(sizes[d.dim_param][which])
            else:
                raise RuntimeError("input '%s' dim %d: no size for '%s' (give --size %s=A,B)" % (inp.name, i, d.dim_param, d.dim_param))
        high = None
        for node in model.graph.node:  # integer inputs that index an embedding table stay in range
            if node.op_type == "Gather" and len(node.input) > 1 and node.input[1] == inp.name and node.input[0] in initializers:
                table = initializers[node.input[0]].dims[0]
                high = table if high is None else min(high, table)
        specs.append({"name": inp.name, "dtype": ONNX_TO_NAME.get(tt.elem_type, "float32"), "dims": dims, "high": high or 2})
    for rin in (report or {"inputs": []})["inputs"]:
        spec = next((s for s in specs if s["name"] == rin["name"]), None)
        if spec is None or "shape" not in (rin["val"] or {}):
            continue
        for d, real in zip(rin["val"]["shape"], spec["dims"]):
            if isinstance(d, str) and IDENT.fullmatch(d):
                env[d] = real
    return specs, env


def expose_all(model, values, path):
    """Writes the model with every value of a known dtype as a graph output (edits `model` in place)."""
    exposed = model
    existing = {o.name for o in exposed.graph.output}
    top_level = {o for n in model.graph.node for o in n.output}  # values inside If/Loop bodies cannot be exposed
    names = []
    for v in values:
        if v["name"] not in top_level or len(v["tensors"]) != 1 or v["tensors"][0][0] != "":
            continue
        dtype = DTYPES.get(v["tensors"][0][1]["dtype"])
        if dtype is None:
            continue
        names.append(v["name"])
        if v["name"] not in existing:
            exposed.graph.output.append(onnx.helper.make_tensor_value_info(v["name"], dtype, None))
    del exposed.graph.value_info[:]
    onnx.save(exposed, path)
    return names


def run_ort(modules, path, specs):
    request = {"model": path, "modules": modules, "inputs": specs}
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_shapes.js")
    proc = subprocess.run(["node", script], input=json.dumps(request), capture_output=True, text=True)
    try:
        answer = json.loads(proc.stdout)
    except ValueError:
        raise RuntimeError("ort_shapes.js: " + (proc.stderr.strip() or proc.stdout.strip())[:500])
    if not answer["ok"]:
        raise RuntimeError("ONNX Runtime: " + answer["error"][:500])
    return answer["shapes"]


def check_conditions(report, env):
    """Guards and runtime asserts that do not hold at env (conditions over unbound symbols are skipped)."""
    broken = []
    for kind in ("guards", "runtime_asserts"):
        for c in report[kind]:
            try:
                holds = sym_eval(c["sym_expr"], env)
            except NameError:
                continue
            if not holds:
                broken.append("%s %s (node %s)" % (kind[:-1], c["sym_expr"], c.get("node")))
    return broken


def verify(values, env, real_shapes):
    """Evaluates fakeprop's dims at env (binding lone unbacked symbols from ORT); returns (ok, bad, skipped)."""
    env = dict(env)
    ok, bad, skipped = 0, [], 0
    for v in values:  # bind unbacked symbols where one stands alone as a dim
        real = real_shapes.get(v["name"])
        if real is None or len(v["tensors"]) != 1:
            continue
        for d, r in zip(v["tensors"][0][1]["shape"], real):
            if isinstance(d, str) and IDENT.fullmatch(d) and d not in env:
                env[d] = r
    for v in values:
        real = real_shapes.get(v["name"])
        if real is None or len(v["tensors"]) != 1:
            skipped += 1
            continue
        shape = v["tensors"][0][1]["shape"]
        try:
            got = [d if isinstance(d, int) else sym_eval(d, env) for d in shape]
        except NameError:
            skipped += 1
            continue
        if got == list(real):
            ok += 1
        else:
            bad.append("%s (%s %s): fakeprop %s = %s, ORT %s" % (v["name"], v["op"], v["node"], shape, got, real))
    return ok, bad, skipped, env


def is_detection(name):
    return any(k in name for k in ("rcnn", "retinanet", "ssd", "fcos", "keypoint"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", default="build-models", help="directory of exported models (default build-models)")
    parser.add_argument("--models", default="", help="comma-separated model names (default: every .onnx in --dir)")
    parser.add_argument("--fakeprop", default="build/fakeprop", help="fakeprop binary")
    parser.add_argument("--node-modules", default=None, help="directory holding node_modules/onnxruntime-node (default --dir)")
    parser.add_argument("--size", action="append", default=[], help="NAME=A,B: the two sizes of a dim_param")
    parser.add_argument("--hinted", action="store_true",
                        help="give fakeprop the first size as hints (backed symbols and guards, as torch.compile); "
                             "default: no hints (hintless symbols, runtime asserts)")
    parser.add_argument("--no-ort", action="store_true", help="skip the ONNX Runtime comparison")
    parser.add_argument("--no-onnx", action="store_true", help="skip onnx.shape_inference")
    parser.add_argument("--ort-record", default=None, help="write the shapes ORT computed to this JSON file")
    parser.add_argument("--ort-from", default=None,
                        help="take ORT's shapes from a file written by --ort-record instead of running ORT")
    parser.add_argument("--show", type=int, default=10, help="problems to print per model")
    parser.add_argument("--json", default=None, help="write the per-model results to this file")
    opts = parser.parse_args()
    modules = opts.node_modules or opts.dir
    overrides = {}
    for s in opts.size:
        name, _, pair = s.partition("=")
        a, b = pair.split(",")
        overrides[name] = (int(a), int(b))

    recorded = None
    if opts.ort_from:
        with open(opts.ort_from) as f:
            recorded = json.load(f)
    record = {}

    if opts.models:
        names = [m.strip() for m in opts.models.split(",") if m.strip()]
    else:
        names = sorted(f[:-5] for f in os.listdir(opts.dir) if f.endswith(".onnx") and ".exposed" not in f)
    rows = []
    failed = False
    for name in names:
        path = os.path.join(opts.dir, name + ".onnx")
        row = {"model": name}
        rows.append(row)
        try:
            model = onnx.load(path)
            sizes = dict(DETECTION_SIZES if is_detection(name) else DEFAULT_SIZES)
            sizes.update(overrides)
            hints = None
            if opts.hinted:  # backed symbols with size A as hints: guards, which must then hold at size B too
                hints = {s["name"]: s["dims"] for s in input_specs(model, None, sizes, 0)[0]}
            report = run_fakeprop(opts.fakeprop, path, hints)
        except Exception as e:
            print("%s: %s" % (name, e), file=sys.stderr)
            row["error"] = str(e)
            failed = True
            continue
        values, unexplained = analyse(model, report)
        row["values"] = len(values)
        row["resolved"] = sum(v["status"] == "resolved" for v in values)
        row["data_dependent"] = sum(v["status"] == "data-dependent" for v in values)
        unresolved = [v for v in values if v["status"] == "unresolved"]
        row["unresolved"] = len(unresolved)
        row["errors"] = len(report["errors"])
        row["guards"] = len(report["guards"])
        row["runtime_asserts"] = len(report["runtime_asserts"])
        for v in unresolved[:opts.show]:
            print("%s: unresolved %s (%s %s): %s" % (name, v["name"], v["op"], v["node"], v.get("why", "")))
        for e in report["errors"][:opts.show]:
            print("%s: error on %s: %s" % (name, e.get("node"), e["message"][:300]))
        for u, node in list(unexplained.items())[:opts.show]:
            print("%s: unbacked %s made by node %s reads no data" % (name, u, node))
        failed |= bool(unresolved) or bool(report["errors"])
        if not opts.no_onnx:
            try:
                row["onnx_unknown"], _ = onnx_unknown(model)
            except Exception as e:
                print("%s: onnx.shape_inference failed: %s" % (name, str(e)[:300]), file=sys.stderr)
                row["onnx_unknown"] = None
        if not opts.no_ort:
            row["ort"] = []
            with tempfile.TemporaryDirectory(dir=opts.dir) as tmp:
                exposed = None
                for which in (0, 1):
                    try:
                        specs, env = input_specs(model, report, sizes, which)
                        if recorded is not None:
                            real = next(r["shapes"] for r in recorded.get(name, [])
                                        if r["inputs"] == {s["name"]: s["dims"] for s in specs})
                        else:
                            if exposed is None:
                                exposed = os.path.join(tmp, name + ".exposed.onnx")
                                expose_all(model, values, exposed)
                            real = run_ort(modules, exposed, specs)
                            record.setdefault(name, []).append(
                                {"inputs": {s["name"]: s["dims"] for s in specs}, "shapes": real})
                    except StopIteration:
                        print("%s: no recorded ORT shapes for size %d in %s" % (name, which, opts.ort_from), file=sys.stderr)
                        row["ort"].append(None)
                        failed = True
                        continue
                    except Exception as e:
                        print("%s: ORT run %d failed: %s" % (name, which, str(e)[:500]), file=sys.stderr)
                        row["ort"].append(None)
                        failed = True
                        continue
                    ok, bad, skipped, bound = verify(values, env, real)
                    bad += check_conditions(report, bound)
                    row["ort"].append({"sizes": {s["name"]: s["dims"] for s in specs}, "verified": ok,
                                       "mismatched": len(bad), "unverified": skipped})
                    for b in bad[:opts.show]:
                        print("%s: size %d: %s" % (name, which, b))
                    failed |= bool(bad)
        del model

    header = ["model", "values", "resolved", "data-dep", "unresolved", "ORT-verified (size A / B)", "mismatched", "ONNX unknown"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        if "error" in r:
            print("| %s | failed: %s |" % (r["model"], r["error"][:80]))
            continue
        ort = r.get("ort") or []
        ver = " / ".join("-" if o is None else "%d" % o["verified"] for o in ort) or "-"
        mis = sum(o["mismatched"] for o in ort if o) if ort else "-"
        print("| %s | %d | %d | %d | %d | %s | %s | %s |" % (
            r["model"], r["values"], r["resolved"], r["data_dependent"], r["unresolved"], ver, mis,
            "-" if r.get("onnx_unknown") is None else r["onnx_unknown"]))
    if opts.ort_record:
        with open(opts.ort_record, "w") as f:
            json.dump(record, f, indent=None, separators=(",", ":"), sort_keys=True)
            f.write("\n")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
