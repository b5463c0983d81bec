"""Fixtures for the HTML report viewer's browser tests (test_html_report.py).

The viewer is lib/fakeprop/report/html/viewer.html, compiled into the binary. Pages come from the
real binary (`fakeprop MODEL ARGS --html OUT`) in the `report_html` fixture; a test that needs a
report the samples do not give edits the one the binary embedded (`embedded_report`) and puts it
back as the C++ writer does (`make_html`: the report marker replaced, once, by the JSON with every
`<` written as \\u003c).

Environment:
  FAKEPROP_BIN     the binary (default build/fakeprop)
  CHROMIUM         the browser (default /usr/bin/chromium; Playwright never downloads one here)
  HTML_ARTIFACTS   where screenshots go (default build/html-artifacts/)
"""
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
VIEWER = REPO / "lib" / "fakeprop" / "report" / "html" / "viewer.html"
MARKER = "/*FAKEPROP_REPORT_JSON*/null"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FAKEPROP_BIN = pathlib.Path(os.environ.get("FAKEPROP_BIN", str(REPO / "build" / "fakeprop")))
ARTIFACTS = pathlib.Path(os.environ.get("HTML_ARTIFACTS", str(REPO / "build" / "html-artifacts")))
LOCAL_SCHEMES = ("file:", "data:", "about:")


def make_html(report_json_text):
    """The page for one report, as the C++ writer makes it from the template."""
    template = VIEWER.read_text(encoding="utf-8")
    assert template.count(MARKER) == 1, "the viewer must hold the report marker exactly once"
    return template.replace(MARKER, report_json_text.replace("<", "\\u003c"))


def embedded_report(html_text):
    """The report a page holds: the text between the template's parts around the marker."""
    template = VIEWER.read_text(encoding="utf-8")
    head, tail = template.split(MARKER)
    assert html_text.startswith(head) and html_text.endswith(tail), "the page is not the viewer template"
    return json.loads(html_text[len(head):len(html_text) - len(tail)])


def onnx_inputs_of(model):
    """graph.inputs_of from an ONNX file's edges, read with the onnx module: node -> producer node
    names or graph input names (initializers keep their own names); what the C++ writer must give."""
    onnx = pytest.importorskip("onnx", reason="the onnx module derives the edges these tests add")
    graph = onnx.load(str(model), load_external_data=False).graph
    producer = {o: n.name for n in graph.node for o in n.output if o}
    return {n.name: [producer.get(i, i) for i in n.input if i] for n in graph.node}


@pytest.fixture(scope="session")
def fakeprop_json():
    """fakeprop_json(model, *args) -> the report as a dict (`fakeprop MODEL ARGS --json`), cached."""
    if not os.access(FAKEPROP_BIN, os.X_OK):
        pytest.skip("no fakeprop binary at %s (build it, or set FAKEPROP_BIN)" % FAKEPROP_BIN)
    cache = {}

    def run(model, *args):
        key = (str(model),) + args
        if key not in cache:
            p = subprocess.run([str(FAKEPROP_BIN), str(model), *args, "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=120)
            assert p.returncode in (0, 1) and p.stdout, "fakeprop %s %s failed (%d): %s" % (model, args, p.returncode, p.stderr)
            cache[key] = p.stdout
        return json.loads(cache[key])

    return run


@pytest.fixture(scope="session")
def report_html(tmp_path_factory):
    """report_html(model, *args, edges=True, edit=None) -> path of `fakeprop MODEL ARGS --html OUT`.

    The one place pages are made. edges=False drops the graph's edges (the viewer without them);
    edit(report) may change the embedded report, which is then put back as the C++ writer does.
    """
    if not os.access(FAKEPROP_BIN, os.X_OK):
        pytest.skip("no fakeprop binary at %s (build it, or set FAKEPROP_BIN)" % FAKEPROP_BIN)
    out_dir = tmp_path_factory.mktemp("html")
    counter = [0]

    def make(model, *args, edges=True, edit=None):
        counter[0] += 1
        path = out_dir / ("%02d_%s.html" % (counter[0], pathlib.Path(model).stem))
        p = subprocess.run([str(FAKEPROP_BIN), str(model), *args, "--html", str(path)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        assert p.returncode in (0, 1) and path.exists(), "fakeprop %s %s --html failed (%d): %s" % (
            model, args, p.returncode, p.stderr)
        if edges and edit is None:
            return path
        report = embedded_report(path.read_text(encoding="utf-8"))
        if not edges:
            report.pop("graph", None)
        if edit is not None:
            report = edit(report) or report
        path.write_text(make_html(json.dumps(report, indent=2)), encoding="utf-8")
        return path

    return make


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("no Chromium at %s (apt-get install chromium, or set CHROMIUM)" % CHROMIUM)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield b
        b.close()


class ViewerPage:
    """A page with a network guard: every request that is not file:/data:/about: is aborted and
    recorded, and page errors and console errors are collected."""

    def __init__(self, context):
        self.context = context
        self.requests = []       # every URL the page asked for
        self.blocked = []        # the ones the route refused
        self.errors = []         # uncaught exceptions and console errors
        context.route("**/*", self._route)
        context.on("request", lambda r: self.requests.append(r.url))
        self.page = context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append("pageerror: %s" % e))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append("console: %s" % m.text))

    def _route(self, route):
        url = route.request.url
        if url.startswith(LOCAL_SCHEMES):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def open(self, path):
        """Loads the page and waits for body[data-ready]; fails unless the viewer is ready."""
        self.page.goto(pathlib.Path(path).as_uri())
        # wait_for_function would eval a string, which the viewer's Content-Security-Policy forbids
        self.page.wait_for_selector("body[data-ready]", state="attached", timeout=60000)
        ready = self.page.evaluate("document.body.dataset.ready")
        assert ready == "true", "viewer not ready (%s): %s" % (ready, self.page.inner_text("body")[:2000])
        return self.page

    def remote_requests(self):
        return [u for u in self.requests if not u.startswith(LOCAL_SCHEMES)] + self.blocked

    def screenshot(self, name):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / name
        self.page.screenshot(path=str(path), full_page=False)
        return path


@pytest.fixture
def viewer(browser):
    """A fresh page; after the test, asserts that no remote request was made and no error logged."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    v = ViewerPage(context)
    yield v
    context.close()
    assert not v.remote_requests(), "the viewer made network requests: %s" % v.remote_requests()
    assert not v.errors, "errors in the page: %s" % v.errors
