#!/usr/bin/python3
"""Sweeps timm's architecture families through torch.export and fakeprop, within a time budget.

Run in the oracle's environment with timm installed (pinned in scripts/sweep-requirements.txt):
    .venv-oracle/bin/pip install -r scripts/sweep-requirements.txt
    .venv-oracle/bin/python scripts/arch_sweep.py --fakeprop build/fakeprop --budget 1200 [--skip N] [--json OUT] [FAMILY ...]

A family is a timm model module and the name's first word (vision_transformer/vit,
vision_transformer/deit, resnet/resnet, ...); of each, the smallest variant by its name (atto < femto <
pico < nano < tiny < small < ..., then the first number in the name). Each is built with random
weights (pretrained=False; ViT-style models with dynamic_img_size=True where they take it), exported
by torch.export (strict=False) at batch 2 and its default input size with the batch, height and
width Dim.AUTO (batch alone where that export fails), saved as a .pt2, and run through the fakeprop
CLI (--json) and fakeprop.propagate in process. Every node's shape and stride is compared with
torch's meta['val'] at the symbols' hints, and the CLI's values with propagate's.

Each model runs in a child process of its own (a hung export costs --timeout, not the sweep); the
sweep stops starting models when --budget seconds have passed. It prints one line per model, then
the ops without a fakeprop rule grouped by how many models and nodes stop at them, then the other
failures grouped by cause. Not run in CI: it takes as long as its budget. With --slice DIR, each
model that agrees on every node is also written there as its JSON FX graph and torch's values at the
hints (the CI slice, testdata/sweep_slice, replayed by check_sweep_slice.py without torch).
"""
import argparse
import collections
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

_SIZE_WORDS = ["atto", "femto", "pico", "nano", "mini", "tiny", "xxs", "xs", "small", "s", "lite", "light",
               "base", "b", "medium", "m", "large", "l", "huge", "h", "giant", "g"]
_FUNCS = {"Max": max, "Min": min, "Mod": lambda a, b: a % b, "floor": math.floor, "ceiling": math.ceil,
          "Abs": abs, "max": max, "min": min}


def families():
    """{family: smallest model name} over timm.list_models()."""
    import timm
    from timm.models import _registry

    groups = collections.defaultdict(list)
    for name in timm.list_models():
        module = _registry._model_to_module.get(name, "?")
        word = re.match(r"[a-z]+", name)
        groups["%s/%s" % (module, word.group(0) if word else name)].append(name)

    def size_key(name):
        words = re.split(r"[_.\d]+", name)
        rank = min((_SIZE_WORDS.index(w) for w in words if w in _SIZE_WORDS), default=len(_SIZE_WORDS))
        numbers = [int(n) for n in re.findall(r"\d+", name)]
        return (rank, numbers[0] if numbers else 0, len(name), name)

    # one family of each module first, then the second of each, ...: a budget covers the modules evenly
    by_module = collections.defaultdict(list)
    for family in sorted(groups):
        by_module[family.split("/")[0]].append(family)
    order = [f for rnd in range(max(map(len, by_module.values()))) for fs in by_module.values()
             for f in fs[rnd:rnd + 1]]
    return {family: min(groups[family], key=size_key) for family in order}


def _hint(d):
    return d if isinstance(d, int) else d.node.hint


def _at(d, values):
    return d if isinstance(d, int) else int(eval(d, dict(_FUNCS), dict(values)))  # noqa: S307


def _cause(e):
    # the first two lines: validators put the reason on the second
    lines = [ln.strip() for ln in (type(e).__name__ + ": " + str(e)).splitlines() if ln.strip()]
    return " ".join(lines[:2])[:240]


def run_one(name, fakeprop_bin, workdir):
    """The sweep's result for one model, as a dict (runs in the child)."""
    import torch
    import timm
    from torch.export import Dim

    out = {"model": name}
    t0 = time.perf_counter()
    try:
        try:
            model = timm.create_model(name, pretrained=False, dynamic_img_size=True)
        except TypeError:
            model = timm.create_model(name, pretrained=False)
        model.eval()
        size = tuple(model.pretrained_cfg.get("input_size", (3, 224, 224)))
    except Exception as e:  # noqa: BLE001 - a model timm cannot build is reported, not fatal
        out.update(status="build_failed", cause=_cause(e))
        return out
    x = torch.randn(2, *size)
    ep = export_dynamic(model, (x,), {}, [({0: Dim.AUTO, 2: Dim.AUTO, 3: Dim.AUTO},), ({0: Dim.AUTO},)],
                        ["batch+hw", "batch"], out)
    out["export_s"] = round(time.perf_counter() - t0, 1)
    return compare(ep, os.path.join(workdir, name + ".pt2"), fakeprop_bin, out) if ep is not None else out


def export_dynamic(model, args, kwargs, tries, names, out):
    """The first of `tries` (dynamic_shapes) torch.export takes, naming it in out["dynamic"]; None
    (status export_failed, the first try's error as the cause) when it takes none."""
    import torch

    errors = []
    for shapes, name in zip(tries, names):
        try:
            ep = torch.export.export(model, args, kwargs, dynamic_shapes=shapes, strict=False)
            out["dynamic"] = name
            if errors:
                out["dynamic_note"] = errors[0]
            return ep
        except Exception as e:  # noqa: BLE001 - torch's own refusal is a result of the sweep
            errors.append(_cause(e))
    out.update(status="export_failed", cause=errors[0])
    return None


def compare(ep, path, fakeprop_bin, out):
    """Saves `ep` at `path`, runs the CLI on it and fakeprop.propagate on `ep`, and compares every
    node with torch's meta['val'] at the hints and the CLI's values with propagate's, into out."""
    import torch

    import fakeprop

    print("stage: save", file=sys.stderr, flush=True)
    try:
        torch.export.save(ep, path)
    except Exception as e:  # noqa: BLE001 - e.g. math.ceil on a SymInt, which the serializer lacks
        out.update(status="save_failed", cause=_cause(e))
        return out
    print("stage: fakeprop", file=sys.stderr, flush=True)
    t1 = time.perf_counter()
    proc = subprocess.run([fakeprop_bin, path, "--json"], capture_output=True, text=True)
    out["fakeprop_s"] = round(time.perf_counter() - t1, 2)
    if proc.returncode not in (0, 1):
        out.update(status="fakeprop_failed", cause=(proc.stderr.strip().splitlines() or ["?"])[-1][:200])
        return out
    report = json.loads(proc.stdout)
    hints = {s["name"]: s["hint"] for s in report["symbols"] if s.get("hint") is not None}
    theirs = {n.name: n.meta.get("val") for n in ep.graph.nodes}
    compared = wrong = unresolved = 0
    wrong_ops = collections.Counter()
    wrong_at = {}
    for node in report["nodes"]:
        for o in node["outputs"]:
            val, t = o.get("val") or {}, theirs.get(o["name"])
            if not isinstance(t, torch.Tensor):
                continue
            if "shape" not in val:
                unresolved += 1
                continue
            try:
                ours = ([_at(d, hints) for d in val["shape"]], [_at(d, hints) for d in val["stride"]])
            except Exception:  # noqa: BLE001 - an unbacked size has no hint: not compared
                continue
            compared += 1
            want = ([_hint(d) for d in t.shape], [_hint(d) for d in t.stride()])
            if ours != want:
                wrong += 1
                wrong_ops[node["op"]] += 1
                wrong_at.setdefault(node["op"], "%s: ours %s, torch %s" % (o["name"], ours, want))
    missing = collections.Counter(n["op"] for n in report["nodes"] for e in report["errors"]
                                  if e["node"] == n["name"] and e["kind"] == "unsupported_op")
    other = collections.Counter("%s: %s" % (e["kind"], e["message"][:100]) for e in report["errors"]
                                if e["kind"] not in ("unsupported_op", "unknown_input"))
    # the package in process on the same program
    print("stage: propagate", file=sys.stderr, flush=True)
    try:
        inproc = fakeprop.propagate(ep)

        def plain(v):  # storage ids are numbered per front door; tied parameters alias only in process
            return {k: x for k, x in v.items() if k != "storage"} if isinstance(v, dict) else v

        ours = {o["name"]: plain(o.get("val")) for n in inproc["nodes"] for o in n["outputs"]}
        differ = sum(1 for n in report["nodes"] for o in n["outputs"] if ours.get(o["name"]) != plain(o.get("val")))
    except Exception as e:  # noqa: BLE001
        differ = "propagate raised %s" % type(e).__name__
    status = "ok" if not report["errors"] and not wrong and differ == 0 else "differs"
    if status == "ok" and os.environ.get(SLICE_ENV):
        out["slice_bytes"] = write_slice(ep, os.environ[SLICE_ENV], out["model"], out.get("dynamic", ""))
    out.update(status=status, nodes=len(report["nodes"]),
               compared=compared, wrong=wrong, unresolved=unresolved, wrong_ops=dict(wrong_ops),
               wrong_at=wrong_at, errors=len(report["errors"]), missing=dict(missing), other_errors=dict(other),
               cli_vs_propagate=differ)
    return out


# set by --slice for the children: where compare() writes an agreeing model's slice files
SLICE_ENV = "FAKEPROP_SWEEP_SLICE"


def write_slice(ep, out_dir, model, dynamic):
    """The CI slice's two files for one model (testdata/sweep_slice): the program as fakeprop's JSON
    FX graph (no weights) and torch's meta['val'] of every tensor node at the hints; their bytes."""
    import torch

    import fakeprop

    lib = "transformers" if "transformers" in sys.modules else "timm"  # hf_sweep may load timm too
    values = {}
    for n in ep.graph.nodes:
        t = n.meta.get("val")
        if isinstance(t, torch.Tensor):
            values[n.name] = [[_hint(d) for d in t.shape], [_hint(d) for d in t.stride()], str(t.dtype)[len("torch."):]]
    golden = {"format": "fakeprop.sweep_slice/1", "model": model, "dynamic": dynamic, "torch": torch.__version__,
              "library": "%s %s" % (lib, sys.modules[lib].__version__), "values": values}
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", model)
    sizes = 0
    for suffix, doc in ((".graph.json", fakeprop.export_graph(ep)), (".golden.json", golden)):
        text = json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n"
        with open(os.path.join(out_dir, name + suffix), "w") as f:
            f.write(text)
        sizes += len(text)
    return sizes


def main(argv=None, targets=families, one=run_one, script=__file__, what="families"):
    """The sweep's command line; hf_sweep.py calls it with its own targets and child."""
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__.split("\n")[0])
    p.add_argument("families", nargs="*", help="%s or model names (default: all)" % what)
    p.add_argument("--fakeprop", default=os.path.join(here, "..", "build", "fakeprop"))
    p.add_argument("--budget", type=float, default=1200, help="seconds; no model starts after them")
    p.add_argument("--timeout", type=float, default=300, help="seconds one model may take")
    p.add_argument("--skip", type=int, default=0, help="start at this entry of the order (to go on from a run)")
    p.add_argument("--json", help="write every model's result here")
    p.add_argument("--markdown", help="write the per-model table here (for the docs)")
    p.add_argument("--from-json", help="print the summary (and --markdown) of an earlier run's --json; run nothing")
    p.add_argument("--slice", metavar="DIR", help="also write each agreeing model's graph and torch's values "
                   "here (the CI slice, testdata/sweep_slice)")
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--workdir", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.one:
        print(json.dumps(one(a.one, a.fakeprop, a.workdir)))
        return 0
    if a.from_json:
        with open(a.from_json) as f:
            results = json.load(f)
        summary(results)
        if a.markdown:
            markdown(results, a.markdown)
        return 0
    if a.slice:
        os.makedirs(a.slice, exist_ok=True)
        os.environ[SLICE_ENV] = os.path.abspath(a.slice)
    chosen = targets()
    if a.families:
        chosen = {f: m for f, m in chosen.items() if f in a.families or m in a.families}
        chosen.update({m: m for m in a.families if m not in chosen and m not in chosen.values() and "/" not in m})
    chosen = dict(list(chosen.items())[a.skip:])
    print("%d %s" % (len(chosen), what), file=sys.stderr)
    start, results = time.perf_counter(), []
    with tempfile.TemporaryDirectory() as workdir:
        for family, model in chosen.items():
            if time.perf_counter() - start > a.budget:
                results.append({"family": family, "model": model, "status": "not_run (budget)"})
                continue
            try:
                proc = subprocess.run([sys.executable, os.path.abspath(script), "--one", model, "--fakeprop",
                                       a.fakeprop, "--workdir", workdir], capture_output=True, text=True,
                                      timeout=a.timeout)
                lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
                r = json.loads(lines[-1]) if lines else {
                    "model": model, "status": "crashed", "cause": (proc.stderr.strip().splitlines() or ["?"])[-1][:200]}
            except subprocess.TimeoutExpired as e:
                # the child names its stage on stderr: a timeout in export is torch's, later ones fakeprop's
                stages = re.findall(r"^stage: (\w+)", (e.stderr or b"").decode(errors="replace"), re.M)
                r = {"model": model, "status": "timeout", "cause": "in %s" % (stages[-1] if stages else "export")}
            r["family"] = family
            results.append(r)
            for f in os.listdir(workdir):
                os.remove(os.path.join(workdir, f))
            print("%-40s %-28s %-16s %s" % (family, model, r["status"],
                                            {k: r[k] for k in ("nodes", "wrong", "unresolved", "errors", "missing",
                                                               "cli_vs_propagate", "cause") if r.get(k)}), flush=True)
    summary(results)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if a.markdown:
        markdown(results, a.markdown)
    return 0


def markdown(results, path):
    """One row per model: what ran, how many values agree, or why it did not run."""
    rows = ["| model | dynamic | nodes | compared | wrong | unresolved | CLI vs propagate | status |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in results:
        status = r["status"] + (": " + r["cause"][:110].replace("|", "/") if r.get("cause") else "")
        if r.get("missing"):
            status += " (no rule: %s)" % ", ".join(sorted(r["missing"]))
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r.get("model", r.get("family")), r.get("dynamic", ""), r.get("nodes", ""), r.get("compared", ""),
            r.get("wrong", ""), r.get("unresolved", ""), r.get("cli_vs_propagate", ""), status))
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")


# statuses that are torch's (or the model library's), not fakeprop's
TORCH_STATUSES = ("build_failed", "export_failed", "save_failed")


def summary(results):
    ran = [r for r in results if "nodes" in r]
    print("\n%d models: %d ok, %d differ, %s" % (
        len(results), sum(r["status"] == "ok" for r in results), sum(r["status"] == "differs" for r in results),
        dict(collections.Counter(r["status"] for r in results if r["status"] not in ("ok", "differs")))))
    print("propagated %d programs; nodes: %d compared, %d wrong, %d unresolved; CLI vs propagate: %d models, "
          "%d values differ" % (
              len(ran), sum(r["compared"] for r in ran), sum(r["wrong"] for r in ran),
              sum(r.get("unresolved", 0) for r in ran), sum(1 for r in ran if r["cli_vs_propagate"] != 0),
              sum(r["cli_vs_propagate"] for r in ran if isinstance(r["cli_vs_propagate"], int))))
    models, nodes = collections.Counter(), collections.Counter()
    for r in ran:
        for op, n in r["missing"].items():
            models[op] += 1
            nodes[op] += n
    print("\nops without a rule (models, nodes):")
    for op, m in models.most_common():
        print("  %-50s %3d %4d" % (op, m, nodes[op]))
    torch_causes, causes = collections.Counter(), collections.Counter()
    for r in results:
        if r.get("cause"):
            c = "%s: %s" % (r["status"], r["cause"][:120])
            (torch_causes if r["status"] in TORCH_STATUSES or r.get("cause") == "in export" else causes)[c] += 1
        for c in (r.get("other_errors") or {}):
            causes["fakeprop %s" % c] += 1
        for op, where in (r.get("wrong_at") or {}).items():
            causes["wrong values at %s (%s)" % (op, where[:100])] += 1
        if isinstance(r.get("cli_vs_propagate"), str):
            causes[r["cli_vs_propagate"]] += 1
    print("\ntorch (or the model library) cannot build, export or save (models):")
    for c, n in torch_causes.most_common():
        print("  %3d  %s" % (n, c))
    print("\nfakeprop's failures by cause (models):")
    for c, n in causes.most_common():
        print("  %3d  %s" % (n, c))


if __name__ == "__main__":
    sys.exit(main())
