#!/usr/bin/env python3
"""Times fakeprop's HTML report viewer on large reports in headless Chromium.

For each size (default 10,000 and 100,000 nodes) it makes a page (`fakeprop MODEL --html`, or a
synthetic report embedded in lib/fakeprop/report/html/viewer.html the way the C++ writer does: the
marker replaced by the JSON, every `<` written as \\u003c), opens it and prints:

  ready       wall time from page.goto to body[data-ready="true"] (the first render done)
  in page     navigation start to ready, as the page's own clock measures it
  report js   parsing and evaluating the report's <script> (the embedded JSON literal)
  heap        Chromium's JSHeapUsedSize after a forced GC, and before it (right after load)
  search      one search over every node (`op:Reshape`), from the call to the rendered list
  path        selecting a guard on the last node, which highlights the path from the inputs
  rows        node rows in the DOM after load (the list is virtualized)

Reports come from one of two sources (--source):
  binary     `fakeprop MODEL --input x=2,8,64 --html PAGE` on scripts/bench/gen_synthetic.py's
             ONNX graph (residual blocks over symbolic batch and seq), edges included. Needs the
             `onnx` module (the generator uses it).
  synthetic  a report written here: a chain of nodes with symbolic shapes, guards every 1000
             nodes and an edge to the previous node (and to the one 9 back, like a residual).
  auto       binary when the binary and `onnx` are available, else synthetic (the default).

Needs playwright (Python) and Chromium; Playwright never downloads a browser here:

    .venv-oracle/bin/python scripts/bench_html.py                       # 10k and 100k
    .venv-oracle/bin/python scripts/bench_html.py --sizes 1000,10000 --source synthetic --repeat 3
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
VIEWER = ROOT / "lib" / "fakeprop" / "report" / "html" / "viewer.html"
MARKER = "/*FAKEPROP_REPORT_JSON*/null"
GEN_SYNTHETIC = ROOT / "scripts" / "bench" / "gen_synthetic.py"


def make_html(report_json_text):
    """The C++ substitution: the marker, once, replaced by the JSON with `<` as \\u003c."""
    template = VIEWER.read_text(encoding="utf-8")
    if template.count(MARKER) != 1:
        sys.exit("bench_html: %s must hold the report marker exactly once" % VIEWER)
    return template.replace(MARKER, report_json_text.replace("<", "\\u003c"))


# ---------------------------------------------------------------- reports

def binary_page(nodes, fakeprop, workdir, path, edges=True):
    """The binary's own page; without edges, its report put back without graph.inputs_of."""
    model = workdir / ("synth_%d.onnx" % nodes)
    subprocess.run([sys.executable, str(GEN_SYNTHETIC), "--nodes", str(nodes), "-o", str(model)],
                   check=True, stderr=subprocess.DEVNULL)
    subprocess.run([fakeprop, str(model), "--input", "x=2,8,64", "--html", str(path)], check=True,
                   stdout=subprocess.DEVNULL)
    if not edges:
        head, tail = VIEWER.read_text(encoding="utf-8").split(MARKER)
        page = path.read_text(encoding="utf-8")
        report = json.loads(page[len(head):len(page) - len(tail)])
        report.pop("graph", None)
        path.write_text(make_html(json.dumps(report)), encoding="utf-8")


def synthetic_report(nodes, edges=True):
    """A report that follows schemas/report.schema.json: a chain over x[s0, s1, 64]."""
    def tensor(shape, storage):
        stride, ints, syms = [], 1, []
        for d in reversed(shape):   # contiguous strides: the product of the dims after each one
            stride.append(ints if not syms else "*".join(([str(ints)] if ints != 1 else []) + syms))
            if isinstance(d, int):
                ints *= d
            else:
                syms.insert(0, d)
        return {"device": "cpu", "dtype": "float32", "requires_grad": False, "shape": shape,
                "storage": storage, "storage_offset": 0, "stride": list(reversed(stride))}

    ops = ["MatMul", "Add", "Reshape", "Transpose", "Transpose", "Reshape", "Concat", "MatMul", "Add"]
    shapes = [["s0", "s1", 64], ["s0", "s1", 64], ["s0", "s1", 4, 16], ["s0", 4, "s1", 16],
              ["s0", "s1", 4, 16], ["s0", "s1", 64], ["s0", "s1", 128], ["s0", "s1", 64], ["s0", "s1", 64]]
    node_list, inputs_of, guards = [], {}, []
    prev = "x"
    for i in range(nodes):
        k = i % len(ops)
        name = "b%d_%s%d" % (i // len(ops), ops[k].lower(), k)
        node_list.append({"name": name, "op": ops[k], "outputs": [{"name": name + "_out", "val": tensor(shapes[k], i + 1)}],
                          "unbacked_bindings": {}})
        inputs_of[name] = [prev] + ([node_list[i - 9]["name"]] if k == 8 and i >= 9 else [])
        if i % 1000 == 999:
            guards.append({"expr": "(L['x'].size()[0]*L['x'].size()[1]) %% %d == 0" % (2 + len(guards) % 7),
                           "node": name, "rule": "Reshape: input numel divisible by the known dims",
                           "sym_expr": "(s0*s1) %% %d == 0" % (2 + len(guards) % 7)})
        prev = name
    x = tensor(["s0", "s1", 64], 0)
    return {
        "format": "fakeprop.report/1",
        "model": {"path": "synthetic_%d.onnx" % nodes, "kind": "onnx"},
        "device": "cpu",
        "inputs": [{"name": "x", "source": "L['x']", "val": x}],
        "outputs": [{"name": prev + "_out", "val": node_list[-1]["outputs"][0]["val"]}],
        "nodes": node_list,
        "symbols": [{"name": "s0", "kind": "backed", "hint": 2, "range": [2, None], "sources": ["L['x'].size()[0]"]},
                    {"name": "s1", "kind": "backed", "hint": 8, "range": [2, None], "sources": ["L['x'].size()[1]"]}],
        "guards": guards,
        "runtime_asserts": [],
        "specializations": [],
        "errors": [],
        "warnings": [],
        "valid_region": [{"source": "L['x'].size()[0]", "text": "L['x'].size()[0]: 2..inf", "min": 2, "max": None}],
        **({"graph": {"inputs_of": inputs_of}} if edges else {}),
    }


# ---------------------------------------------------------------- measurement

def measure(browser, html_path, timeout_ms):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    requests = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    t0 = time.perf_counter()
    page.goto(html_path.as_uri(), wait_until="commit", timeout=timeout_ms)
    # (wait_for_function would eval a string, which the page's Content-Security-Policy forbids)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=timeout_ms)
    ready_ms = (time.perf_counter() - t0) * 1000
    if page.evaluate("document.body.dataset.ready") != "true" or errors:
        raise RuntimeError("viewer failed: %s" % (errors or page.inner_text("body")[:500]))
    loaded = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    timings = page.evaluate("window.fakepropTimings")
    rows = page.locator('[data-testid="node-row"]').count()
    # One search over every node, then back to all nodes.
    search_ms = page.evaluate("""() => { const t = performance.now(); fakepropViewer.search('op:Reshape');
                                         const ms = performance.now() - t; fakepropViewer.search(''); return ms; }""")
    # A guard on the last node mentioning the first symbol: its path spans the whole graph.
    path = page.evaluate("""() => {
        const r = fakepropViewer.report, last = r.nodes[r.nodes.length - 1].name;
        const sym = (r.symbols[0] || {name: 'x'}).name;
        r.guards.push({expr: 'bench', sym_expr: sym + ' >= 2', node: last, rule: 'bench'});
        const t = performance.now(); fakepropViewer.selectCondition('guard', r.guards.length - 1);
        const ms = performance.now() - t;
        return {ms, highlighted: fakepropViewer.viewer.path.count}; }""")
    cdp.send("HeapProfiler.collectGarbage")
    after = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    bad = [u for u in requests if not u.startswith(("file:", "data:", "about:"))]
    context.close()
    if bad:
        raise RuntimeError("network requests: %s" % bad[:5])
    return {
        "ready_ms": ready_ms,
        "in_page_ms": timings.get("ready_at_ms"),
        "report_js_ms": timings.get("report_script_ms"),
        "heap_mb": after["JSHeapUsedSize"] / 2**20,
        "heap_loaded_mb": loaded["JSHeapUsedSize"] / 2**20,
        "search_ms": search_ms,
        "path_ms": path["ms"],
        "path_nodes": path["highlighted"],
        "rows": rows,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated node counts")
    ap.add_argument("--source", choices=["auto", "binary", "synthetic"], default="auto")
    ap.add_argument("--fakeprop", default=os.environ.get("FAKEPROP_BIN", str(ROOT / "build" / "fakeprop")))
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    ap.add_argument("--repeat", type=int, default=1, help="page loads per size; the best is printed")
    ap.add_argument("--no-edges", action="store_true", help="leave graph.inputs_of out of the reports")
    ap.add_argument("--keep", metavar="DIR", help="keep the HTML files in DIR")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per page load")
    opts = ap.parse_args(argv)

    try:
        from playwright.sync_api import sync_playwright  # noqa: PLC0415
    except ImportError:
        sys.exit("bench_html: playwright is not installed (pip install playwright; no browser download needed)")
    if not os.path.exists(opts.chromium):
        sys.exit("bench_html: no Chromium at %s (apt-get install chromium, or --chromium PATH)" % opts.chromium)

    source = opts.source
    if source == "auto":
        try:
            import onnx  # noqa: F401, PLC0415
            have_onnx = True
        except ImportError:
            have_onnx = False
        source = "binary" if have_onnx and os.access(opts.fakeprop, os.X_OK) else "synthetic"
    sizes = [int(s) for s in opts.sizes.split(",") if s]
    workdir = pathlib.Path(opts.keep) if opts.keep else pathlib.Path(tempfile.mkdtemp(prefix="fakeprop-html-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)

    results = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=opts.chromium, headless=True)
            for n in sizes:
                edges = not opts.no_edges
                path = workdir / ("report_%d.html" % n)
                if source == "binary":
                    binary_page(n, opts.fakeprop, workdir, path, edges)
                else:
                    path.write_text(make_html(json.dumps(synthetic_report(n, edges))), encoding="utf-8")
                html = path.read_bytes()
                runs = [measure(browser, path, int(opts.timeout * 1000)) for _ in range(max(1, opts.repeat))]
                best = min(runs, key=lambda r: r["ready_ms"])
                best.update(nodes=n, html_mb=len(html) / 2**20)
                results.append(best)
                print("measured %d nodes: ready in %.0f ms" % (n, best["ready_ms"]), file=sys.stderr)
            version = browser.version
            browser.close()
    finally:
        if not opts.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    print("viewer %s, Chromium %s headless, source %s%s, best of %d" % (
        VIEWER.relative_to(ROOT), version, source, ", no edges" if opts.no_edges else ", with graph.inputs_of", max(1, opts.repeat)))
    header = ["nodes", "html", "ready", "in page", "report js", "heap after GC", "heap at load", "search", "path", "path nodes", "rows"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(" ---: " for _ in header) + "|")
    for r in results:
        cells = ["{:,}".format(r["nodes"]), "%.1f MB" % r["html_mb"], "%.0f ms" % r["ready_ms"],
                 "%.0f ms" % r["in_page_ms"] if r["in_page_ms"] is not None else "-",
                 "%.0f ms" % r["report_js_ms"] if r["report_js_ms"] is not None else "-",
                 "%.0f MB" % r["heap_mb"], "%.0f MB" % r["heap_loaded_mb"], "%.0f ms" % r["search_ms"],
                 "%.0f ms" % r["path_ms"], "{:,}".format(r["path_nodes"]), str(r["rows"])]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
