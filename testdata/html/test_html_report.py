"""Browser tests of the HTML report viewer (lib/fakeprop/report/html/viewer.html) on reports the
real binary writes for the shipped samples. Headless Chromium through Playwright; see conftest.py.

    .venv-oracle/bin/python -m pytest testdata/html -q
"""
import json
import pathlib
import re

import pytest

from conftest import MARKER, REPO, VIEWER, embedded_report, onnx_inputs_of

try:
    from playwright.sync_api import expect
except ImportError:   # the `browser` fixture skips every test that needs it, saying why
    expect = None

SAMPLES = REPO / "testdata" / "samples"
EXPORTS = REPO / "testdata" / "onnx" / "exports"
TINY = (SAMPLES / "tiny_attention.onnx", "--input", "x=2,8,32")


def row(page, node):
    return page.locator('[data-testid="node-row"][data-node="%s"]' % node)


def rendered_rows(page):
    return page.locator('[data-testid="node-row"]').evaluate_all("rs => rs.map(r => r.dataset.node)")


def highlighted_rows(page):
    return page.locator('[data-testid="node-row"][data-highlighted="true"]').evaluate_all("rs => rs.map(r => r.dataset.node)")


def node_count_text(page):
    return page.get_by_test_id("node-count").inner_text()


# ---------------------------------------------------------------- the template

def test_page_is_the_template_with_the_report(report_html, fakeprop_json, tmp_path):
    """--html embeds the --json report (plus graph.inputs_of) in the template, in place of the
    marker, with every '<' escaped: a node named like a closing script tag stays inside the JSON."""
    template = VIEWER.read_text(encoding="utf-8")
    assert template.count(MARKER) == 1
    graph = tmp_path / "evil_names.json"
    graph.write_text(json.dumps({"format": "fakeprop.fx/1", "nodes": [
        {"name": "x", "op": "placeholder", "val": {"shape": [2, 3], "dtype": "float32"}},
        {"name": "a</script><b>", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
        {"name": "output", "op": "output", "target": "output", "args": [[{"node": "a</script><b>"}]]}]}))
    page = report_html(graph).read_text(encoding="utf-8")
    assert MARKER not in page
    assert page.count("</script>") == template.count("</script>")   # the JSON added none
    assert "a\\u003c/script>\\u003cb>" in page
    embedded = embedded_report(page)
    assert embedded.pop("graph") == {"inputs_of": {"x": [], "a</script><b>": ["x"]}}
    assert embedded == fakeprop_json(graph)


@pytest.mark.parametrize("model", [SAMPLES / "tiny_attention.onnx", EXPORTS / "fasterrcnn_tiny.onnx"])
def test_edges_are_the_models(report_html, model):
    """The C++ writer's graph.inputs_of equals the edges the onnx module reads off the file."""
    embedded = embedded_report(report_html(model).read_text(encoding="utf-8"))
    assert embedded["graph"]["inputs_of"] == onnx_inputs_of(model)


def test_template_without_report(viewer):
    page = viewer.open(VIEWER)
    expect(page.get_by_test_id("no-report")).to_be_visible()


# ---------------------------------------------------------------- guards

def test_guard_selects_and_highlights_its_node(viewer, report_html, fakeprop_json):
    report = fakeprop_json(*TINY)
    guard_index = next(i for i, g in enumerate(report["guards"]) if g["node"])
    node = report["guards"][guard_index]["node"]
    assert node == "pair_tokens"
    page = viewer.open(report_html(*TINY, edges=False))

    guard = page.locator('[data-testid="guard"][data-index="%d"]' % guard_index)
    expect(guard).to_contain_text(report["guards"][guard_index]["expr"])
    expect(guard).to_contain_text(report["guards"][guard_index]["rule"])
    guard.click()
    expect(guard).to_have_attribute("data-selected", "true")
    expect(row(page, node)).to_have_attribute("data-selected", "true")
    expect(row(page, node)).to_have_attribute("data-highlighted", "true")
    assert highlighted_rows(page) == [node]              # no edges: only the guard's node
    expect(page.get_by_test_id("node-detail").locator("h2")).to_have_text(node)
    expect(page.get_by_test_id("node-detail").get_by_test_id("no-edges")).to_be_visible()
    # the input whose symbols the guard mentions (batch, seq are x's dims)
    expect(page.locator('[data-testid="input"][data-input="x"]')).to_have_attribute("data-highlighted", "true")
    expect(page.get_by_test_id("highlight-info")).to_contain_text("batch")
    viewer.screenshot("tiny_attention_guard.png")

    page.get_by_test_id("clear-highlight").click()
    assert highlighted_rows(page) == []
    expect(page.locator('[data-testid="input"][data-input="x"]')).not_to_have_attribute("data-highlighted", "true")


def test_guard_without_node_highlights_inputs_only(viewer, report_html, fakeprop_json):
    report = fakeprop_json(*TINY)
    i = next(i for i, g in enumerate(report["guards"]) if g["node"] is None and "size()[0]" in g["expr"])
    page = viewer.open(report_html(*TINY))
    page.locator('[data-testid="guard"][data-index="%d"]' % i).click()
    expect(page.locator('[data-testid="input"][data-input="x"]')).to_have_attribute("data-highlighted", "true")
    expect(page.locator('[data-testid="symbol"][data-symbol="batch"]')).to_have_attribute("data-highlighted", "true")
    expect(page.locator('[data-testid="symbol"][data-symbol="seq"]')).not_to_have_attribute("data-highlighted", "true")
    assert highlighted_rows(page) == []


def path_nodes(inputs_of, target, sources):
    """Nodes on a path from `sources` (graph inputs) to `target`: ancestors of it, descendants of them."""
    up, stack = {target}, [target]
    while stack:
        for p in inputs_of.get(stack.pop(), []):
            if p in inputs_of and p not in up:
                up.add(p)
                stack.append(p)
    down, changed = set(), True
    while changed:
        changed = False
        for n, ins in inputs_of.items():
            if n not in down and any(p in sources or p in down for p in ins):
                down.add(n)
                changed = True
    return up & down


def test_guard_path_with_edges(viewer, report_html, fakeprop_json):
    report = fakeprop_json(*TINY)
    inputs_of = onnx_inputs_of(TINY[0])
    guard_index = next(i for i, g in enumerate(report["guards"]) if g["node"])
    node = report["guards"][guard_index]["node"]
    expected = path_nodes(inputs_of, node, {"x"})
    assert node in expected and "qkv_proj" in expected    # pair_tokens is the last node: all 18

    # The same guard as if reshape_q had added it: its path is a strict part of the graph.
    def add_guard(r):
        r["guards"].append(dict(r["guards"][guard_index], node="reshape_q", rule="test"))
    inner = path_nodes(inputs_of, "reshape_q", {"x"})
    assert "reshape_q" in inner and "qkv_proj" in inner and "reshape_k" not in inner

    page = viewer.open(report_html(*TINY, edges=True, edit=add_guard))
    page.locator('[data-testid="guard"][data-index="%d"]' % (len(report["guards"]))).click()
    expect(row(page, "reshape_q")).to_have_attribute("data-selected", "true")
    assert set(highlighted_rows(page)) == inner
    expect(page.get_by_test_id("highlight-info")).to_contain_text("%d node(s) on the path" % len(inner))
    page.locator('[data-testid="guard"][data-index="%d"]' % guard_index).click()
    expect(row(page, node)).to_have_attribute("data-selected", "true")
    assert set(highlighted_rows(page)) == expected        # 18 nodes: every row is rendered
    expect(page.get_by_test_id("highlight-info")).to_contain_text("%d node(s) on the path" % len(expected))

    detail = page.get_by_test_id("node-detail")
    producers = [p for p in inputs_of[node] if p in inputs_of]
    expect(detail.get_by_test_id("neighbour-producer")).to_have_count(len(producers))
    expect(detail.get_by_test_id("detail-input")).to_have_count(len(inputs_of[node]))
    expect(detail.get_by_test_id("detail-output")).to_have_count(1)
    viewer.screenshot("tiny_attention_path.png")

    # the path as a filter, then a producer followed through the neighbourhood
    page.locator('[data-testid="guard"][data-index="%d"]' % (len(report["guards"]))).click()
    page.get_by_test_id("highlight-info").get_by_text("[list them]").click()
    assert set(rendered_rows(page)) == inner
    expect(detail.locator("h2")).to_have_text("reshape_q")
    first_producer = next(p for p in inputs_of["reshape_q"] if p in inputs_of)
    detail.get_by_test_id("neighbour-producer").first.get_by_test_id("node-link").click()
    expect(detail.locator("h2")).to_have_text(first_producer)
    consumers = [n for n, ins in inputs_of.items() if first_producer in ins]
    expect(detail.get_by_test_id("neighbour-consumer")).to_have_count(len(consumers))


# ---------------------------------------------------------------- search

def test_search_filters_the_node_list(viewer, report_html, fakeprop_json):
    report = fakeprop_json(*TINY)
    total = len(report["nodes"])
    page = viewer.open(report_html(*TINY))
    assert len(rendered_rows(page)) == total
    search = page.get_by_test_id("node-search")

    search.fill("op:Reshape")
    search.press("Enter")
    reshapes = [n["name"] for n in report["nodes"] if n["op"] == "Reshape"]
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^%d of %d nodes" % (len(reshapes), total)))
    assert rendered_rows(page) == reshapes
    expect(row(page, reshapes[0])).to_have_attribute("data-selected", "true")   # Enter selects the first
    page.keyboard.press("ArrowDown")
    expect(row(page, reshapes[1])).to_have_attribute("data-selected", "true")

    search.fill("transpose_")                           # typing filters too (debounced)
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^4 of %d nodes" % total))
    assert rendered_rows(page) == [n["name"] for n in report["nodes"] if "transpose_" in n["name"]]

    search.fill("shape:batch is:guard")
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^1 of %d nodes" % total))
    assert rendered_rows(page) == ["pair_tokens"]

    search.fill("no-such-node")
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^0 of %d nodes" % total))
    assert rendered_rows(page) == []
    search.fill("")
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^%d nodes" % total))


# ---------------------------------------------------------------- unbacked symbols, data-dependent errors

def test_unbacked_symbols(viewer, report_html, fakeprop_json):
    model = SAMPLES / "nonzero_view.onnx"
    report = fakeprop_json(model)
    binder = next(n for n in report["nodes"] if n["unbacked_bindings"])
    sym = next(iter(binder["unbacked_bindings"]))
    assert next(s for s in report["symbols"] if s["name"] == sym)["kind"] == "unbacked"
    page = viewer.open(report_html(model))
    symbol = page.locator('[data-testid="symbol"][data-symbol="%s"]' % sym)
    expect(symbol).to_contain_text("unbacked")
    symbol.get_by_test_id("node-link").click()            # "bound at" the node that made it
    expect(row(page, binder["name"])).to_have_attribute("data-selected", "true")
    detail = page.get_by_test_id("node-detail")
    expect(detail).to_contain_text("Unbacked bindings")
    expect(detail).to_contain_text("out" + binder["unbacked_bindings"][sym])
    symbol.get_by_text("[nodes]").click()                 # the nodes whose outputs mention it
    mentions = [n["name"] for n in report["nodes"] if re.search(r"\b%s\b" % sym, json.dumps(n["outputs"]))]
    assert rendered_rows(page) == mentions


def test_data_dependent_error_with_fixes(viewer, report_html, fakeprop_json):
    model = SAMPLES / "item_chunk.json"
    report = fakeprop_json(model)
    err = next(e for e in report["errors"] if e["kind"] == "data_dependent")
    assert err["fixes"]
    page = viewer.open(report_html(model))
    section = page.locator('[data-testid="section"][data-section="data_dependent"]')
    item = section.locator('[data-testid="error"][data-node="%s"]' % err["node"])
    expect(item.get_by_test_id("fix")).to_have_text(err["fixes"])
    item.click()
    expect(row(page, err["node"])).to_have_attribute("data-selected", "true")
    expect(row(page, err["node"]).locator(".badge.e")).to_have_count(1)
    expect(page.get_by_test_id("node-detail").get_by_test_id("detail-problem").get_by_test_id("fix")).to_have_count(len(err["fixes"]))
    page.get_by_test_id("node-search").fill("is:error")
    failed = len({e["node"] for e in report["errors"]})  # the error and the nodes it left unknown
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^%d of " % failed))
    viewer.screenshot("item_chunk_fixes.png")


def test_precision_lost(viewer, report_html, fakeprop_json):
    model = SAMPLES / "data_shaped.onnx"
    report = fakeprop_json(model)
    lost = [w for w in report["warnings"] if w["kind"] == "precision_lost"]
    assert lost
    page = viewer.open(report_html(model))
    items = page.get_by_test_id("precision-lost")
    expect(items).to_have_count(len(lost))
    items.nth(len(lost) - 1).click()
    expect(row(page, lost[-1]["node"])).to_have_attribute("data-selected", "true")
    expect(row(page, lost[-1]["node"])).to_be_in_viewport()


def test_runtime_asserts_and_specializations(viewer, report_html, fakeprop_json):
    # Hinted: the batch of 1 is specialized; the detections' unbacked sizes leave runtime asserts.
    args = (EXPORTS / "fasterrcnn_tiny.onnx", "--input", "images=1,3,320,320")
    report = fakeprop_json(*args)
    asserts = [(i, a) for i, a in enumerate(report["runtime_asserts"]) if a["node"]]
    assert asserts and report["specializations"]
    page = viewer.open(report_html(*args))
    expect(page.get_by_test_id("summary")).to_contain_text("{:,} nodes".format(len(report["nodes"])))
    i, a = asserts[-1]
    page.locator('[data-testid="runtime-assert"][data-index="%d"]' % i).click()
    expect(row(page, a["node"])).to_have_attribute("data-highlighted", "true")
    expect(row(page, a["node"])).to_have_attribute("data-selected", "true")
    expect(row(page, a["node"])).to_be_in_viewport()       # far down the graph: it must scroll there
    binders = {n["name"] for n in report["nodes"] for s in n["unbacked_bindings"] if re.search(r"\b%s\b" % s, a["sym_expr"])}
    assert binders                                         # its unbacked symbols come from these nodes
    info = page.get_by_test_id("highlight-info")
    for b in binders:
        expect(info.locator('[data-testid="node-link"][data-node="%s"]' % b)).to_have_count(1)
    expect(page.get_by_test_id("specialization")).to_have_count(len(report["specializations"]))
    expect(page.get_by_test_id("valid-region")).to_have_count(len(report.get("valid_region", [])))
    viewer.screenshot("fasterrcnn_tiny.png")


# ---------------------------------------------------------------- recompiles

def test_recompile_timeline(viewer, report_html, fakeprop_json):
    args = (SAMPLES / "tiny_attention.onnx", "--input", "x=2,4,32", "--call", "x=[1,4,32]", "--call", "x=[2,4,32]",
            "--call", "x=[3,4,32]", "--call", "x=[8,4,32]", "--call", "x=[1,4,32]")
    rc = fakeprop_json(*args)["recompiles"]
    page = viewer.open(report_html(*args))
    calls = page.get_by_test_id("recompile-call")
    expect(calls).to_have_count(len(rc["calls"]))
    assert calls.evaluate_all("cs => cs.map(c => c.dataset.status)") == [c["status"] for c in rc["calls"]]
    failures = [f for c in rc["calls"] for f in c["failures"]]
    assert failures
    expect(page.get_by_test_id("recompile-failure")).to_have_text(failures)
    expect(page.get_by_test_id("recompiles")).to_contain_text(rc["suggested_spec"])
    page.locator('[data-testid="section"][data-section="recompiles"]').scroll_into_view_if_needed()
    viewer.screenshot("tiny_attention_recompiles.png")


# ---------------------------------------------------------------- every kind of shipped model

MODELS = [
    (SAMPLES / "tiny_attention.onnx", "--input", "x=2,8,32"),
    (SAMPLES / "nonzero_view.onnx",),
    (SAMPLES / "nonzero_tail_slice.onnx",),
    (SAMPLES / "item_chunk.json",),
    (SAMPLES / "batch1_conv.onnx", "--unbacked", "L[x]:0"),
    (SAMPLES / "add_two.onnx", "--dynamic", "x,y"),
    (SAMPLES / "reshape_by_8.onnx", "--mark", "x:0=unbacked,max=64,hint_override=16,specialize_on=x%16==0"),
    (SAMPLES / "classifier_10.onnx",),
    (EXPORTS / "gpt2_tiny.onnx",),
    (EXPORTS / "resnet_tiny.onnx",),
    (EXPORTS / "swin_tiny.onnx",),
    (EXPORTS / "vit_tiny.onnx",),
    (EXPORTS / "fasterrcnn_tiny.onnx",),
    (REPO / "testdata" / "fx" / "add_relu.json",),
    (REPO / "testdata" / "fx" / "float_item.json",),
    (REPO / "testdata" / "fx_goldens" / "resnet18_2x3x64x64.json", "--no-assume-static-by-default"),
    (REPO / "testdata" / "fx_goldens" / "mobilenet_v2_2x3x64x64.json",),
    (REPO / "testdata" / "pt2" / "attention.pt2",),
    (REPO / "testdata" / "pt2" / "gpt2_tiny.pt2",),
]


@pytest.mark.parametrize("args", MODELS, ids=lambda a: " ".join([pathlib.Path(a[0]).name, *a[1:]]))
def test_shipped_model_opens(viewer, report_html, fakeprop_json, args):
    report = fakeprop_json(*args)
    page = viewer.open(report_html(*args))
    total = len(report["nodes"])
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^(\d+ of )?{:,} nodes".format(total)))
    rows = rendered_rows(page)
    assert 0 < len(rows) <= min(total, 80) and rows == [n["name"] for n in report["nodes"][: len(rows)]]
    for key, testid in (("guards", "guard"), ("runtime_asserts", "runtime-assert"), ("errors", "error"),
                        ("specializations", "specialization"), ("gradients", "gradient"), ("inputs", "input")):
        expect(page.get_by_test_id(testid)).to_have_count(min(len(report.get(key, [])), 200))
    for i, g in enumerate(report["guards"][:3]):           # each guard reaches its node
        page.locator('[data-testid="guard"][data-index="%d"]' % i).click()
        if g["node"]:
            expect(row(page, g["node"])).to_have_attribute("data-selected", "true")
            expect(row(page, g["node"])).to_have_attribute("data-highlighted", "true")
    page.locator('[data-testid="node-row"]').last.click()
    expect(page.get_by_test_id("node-detail").get_by_test_id("detail-output").first).to_be_visible()


# ---------------------------------------------------------------- scale, safety, network

def test_large_report_is_virtualized(viewer, report_html):
    copies = 1200                                            # 18 nodes each: 21,600 nodes

    def replicate(report):
        base, guard = report["nodes"], dict(next(g for g in report["guards"] if g["node"]))
        nodes, inputs_of, prev = [], {}, "x"
        for k in range(copies):
            for n in base:
                m = dict(n, name="%s_%d" % (n["name"], k))
                nodes.append(m)
                inputs_of[m["name"]] = [prev]
                prev = m["name"]
        report["nodes"] = nodes
        report["graph"] = {"inputs_of": inputs_of}
        for g in report["guards"]:
            if g["node"]:
                g["node"] += "_0"
        report["guards"].append(dict(guard, node="%s_%d" % (guard["node"], copies - 1)))
        report["runtime_asserts"] = [dict(guard, node="reshape_q_%d" % k, rule="test") for k in range(300)]
        return report

    page = viewer.open(report_html(*TINY, edit=replicate))
    total = 18 * copies
    expect(page.get_by_test_id("node-count")).to_have_text("{:,} nodes".format(total))
    assert len(rendered_rows(page)) < 100
    last = "pair_tokens_%d" % (copies - 1)
    guards = page.get_by_test_id("guard")
    guards.last.click()                                       # its node is the last row of the list
    expect(row(page, last)).to_have_attribute("data-selected", "true")
    expect(row(page, last)).to_be_in_viewport()
    assert len(rendered_rows(page)) < 100
    expect(page.get_by_test_id("highlight-info")).to_contain_text("{:,} node(s) on the path".format(total))
    page.get_by_test_id("node-search").fill("qkv_proj_7")
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^111 of "))   # _7, _70.._79, _700.._799
    page.get_by_test_id("node-list").evaluate("l => l.scrollTop = l.scrollHeight")
    expect(row(page, "qkv_proj_799")).to_be_visible()
    viewer.screenshot("large_report.png")

    asserts = page.get_by_test_id("runtime-assert")
    expect(asserts).to_have_count(200)                        # long lists render in steps
    page.locator('[data-testid="section"][data-section="runtime_asserts"]').get_by_test_id("show-more").click()
    expect(asserts).to_have_count(300)
    asserts.last.click()
    expect(row(page, "reshape_q_299")).to_have_attribute("data-selected", "true")
    expect(page.get_by_test_id("node-count")).to_have_text("{:,} nodes".format(total))   # the filter was reset


def test_names_are_text_not_markup(viewer, report_html):
    evil = "pair</script><img src=x onerror=alert(1)>"

    def rename(report):
        text = json.dumps(report).replace('"pair_tokens"', json.dumps(evil))
        return json.loads(text)

    page = viewer.open(report_html(*TINY, edit=rename))
    expect(page.locator("img")).to_have_count(0)
    page.get_by_test_id("guard").first.click()
    expect(page.get_by_test_id("node-detail").locator("h2")).to_have_text(evil)
    assert page.locator('[data-testid="node-row"][data-selected="true"]').get_attribute("data-node") == evil


def test_no_network(viewer, report_html):
    page = viewer.open(report_html(EXPORTS / "fasterrcnn_tiny.onnx", edges=True))
    page.get_by_test_id("guard").first.click()
    page.get_by_test_id("node-search").fill("op:NonZero")
    page.locator('[data-testid="node-row"]').first.click()
    assert viewer.requests and all(u.startswith("file:") for u in viewer.requests)
    assert viewer.remote_requests() == []
    # The page's Content-Security-Policy refuses any fetch before it reaches the network.
    outcome = page.evaluate("fetch('https://example.invalid/x').then(() => 'fetched', () => 'refused')")
    assert outcome == "refused"
    assert viewer.blocked == []                               # refused by the page itself, not the route
    viewer.errors = [e for e in viewer.errors if "Content Security Policy" not in e]


def test_fx_mutations(viewer, report_html, fakeprop_json, tmp_path):
    graph = tmp_path / "inplace_views.json"
    graph.write_text(json.dumps({"format": "fakeprop.fx/1", "nodes": [
        {"name": "x", "op": "placeholder", "val": {"shape": [1, 2, 1, 3], "dtype": "float32"}},
        {"name": "v", "op": "call_function", "target": "aten.view.default", "args": [{"node": "x"}, [2, 3]]},
        {"name": "s", "op": "call_function", "target": "aten.squeeze_.dims", "args": [{"node": "x"}, [0, 2]]},
        {"name": "t", "op": "call_function", "target": "aten.t_.default", "args": [{"node": "x"}]},
        {"name": "output", "op": "output", "target": "output", "args": [[{"node": "t"}, {"node": "v"}]]}]}))
    mutations = fakeprop_json(graph)["mutations"]
    assert len(mutations) == 2
    page = viewer.open(report_html(graph))
    items = page.get_by_test_id("mutation")
    expect(items).to_have_count(2)
    items.last.locator('[data-testid="node-link"][data-node="%s"]' % mutations[-1]["node"]).first.click()
    detail = page.get_by_test_id("node-detail")
    expect(detail.locator("h2")).to_have_text(mutations[-1]["node"])
    expect(detail).to_contain_text("Mutations")
    page.locator('[data-testid="node-row"][data-node="x"]').click()   # stale after both
    expect(detail).to_contain_text("stale")


def test_fx_ops_search_by_short_name(viewer, report_html, fakeprop_json):
    model = REPO / "testdata" / "pt2" / "gpt2_tiny.pt2"
    report = fakeprop_json(model)
    views = [n["name"] for n in report["nodes"] if n["op"] == "aten.view.default"]
    assert views
    page = viewer.open(report_html(model))
    expect(row(page, views[0]).locator(".op")).to_have_text("view")   # aten. and .default dropped
    page.get_by_test_id("node-search").fill("op:view")
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^%d of " % len(views)))
    page.get_by_test_id("node-search").fill("op:aten.view.default")
    expect(page.get_by_test_id("node-count")).to_have_text(re.compile(r"^%d of " % len(views)))
    assert rendered_rows(page) == views[: len(rendered_rows(page))]


def test_readme_screenshot(viewer, report_html, fakeprop_json):
    """The page docs/reports.md shows (docs/html_report.png is this test's screenshot): the shipped attention
    sample, its Reshape guard selected, the path from x to pair_tokens highlighted."""
    report = fakeprop_json(*TINY)
    guard_index = next(i for i, g in enumerate(report["guards"]) if g["node"] == "pair_tokens")
    page = viewer.open(report_html(*TINY))
    page.locator('[data-testid="guard"][data-index="%d"]' % guard_index).click()
    expect(row(page, "pair_tokens")).to_have_attribute("data-selected", "true")
    assert set(highlighted_rows(page)) == {n["name"] for n in report["nodes"]}  # pair_tokens is last
    viewer.screenshot("readme_html_report.png")


# ---------------------------------------------------------------- memory

def test_memory_chart_and_its_peak(viewer, report_html, fakeprop_json):
    """The Memory section draws live bytes over the node order at the hints; its peak marker is the
    report's peak node, and clicking it selects that node."""
    report = fakeprop_json(*TINY)
    peak = report["memory"]["peak"]
    page = viewer.open(report_html(*TINY, edges=False))
    chart = page.get_by_test_id("memory-chart")
    expect(chart).to_be_visible()
    assert chart.locator('[data-testid="memory-series"]').count() == 1
    points = chart.locator('[data-testid="memory-series"]').get_attribute("points").split()
    assert len(points) == len(report["memory"]["nodes"])
    marker = chart.locator('[data-testid="memory-peak"]')
    expect(marker).to_have_attribute("data-node", peak["node"])
    marker.click()
    expect(row(page, peak["node"])).to_have_attribute("data-selected", "true")
    expect(page.get_by_test_id("memory-peak-text")).to_contain_text(peak["expr"])
    expect(page.get_by_test_id("flops")).to_contain_text(str(report["compute"]["flops"]["hint"]))
    viewer.screenshot("tiny_attention_memory.png")


def test_plan_html_adds_the_solved_size(viewer, report_html):
    """`fakeprop plan --html` draws a second series, live bytes at the solved size, with its own peak."""
    gpt2 = REPO / "testdata" / "pt2" / "gpt2_tiny.pt2"
    page = viewer.open(report_html("plan", gpt2, "--budget", "900KiB", "--solve", "s72", edges=False))
    chart = page.get_by_test_id("memory-chart")
    assert chart.locator('[data-testid="memory-series"]').count() == 2
    markers = chart.locator('[data-testid="memory-peak"]')
    assert markers.count() == 2
    expect(page.get_by_test_id("section").filter(has_text="Memory")).to_contain_text("s72 = 56 (solved)")
    markers.nth(1).click()
    expect(row(page, markers.nth(1).get_attribute("data-node"))).to_have_attribute("data-selected", "true")
    viewer.screenshot("gpt2_tiny_plan_memory.png")
