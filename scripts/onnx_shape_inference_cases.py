#!/usr/bin/env python3
"""ONNX's own shape-inference unit tests, run against fakeprop.

    .venv-oracle/bin/python scripts/onnx_shape_inference_cases.py --fakeprop build/fakeprop \
        [--expected testdata/onnx_conformance/shape_inference_cases.txt] [--write-expected] [-k EXPR]

Runs in the oracle environment (onnx and pytest from the package index). The
test files are those of the installed onnx's source release
(tests/python/shape_inference_test.py, symbolic_shape_test.py and
data_propagation_test.py), fetched once with `pip download --no-binary onnx`
into build/onnx-src. pytest runs them unchanged except for one method of
their helper: `_inferred` (which every case calls, directly or through
`_assert_inferred`) runs fakeprop instead of onnx.shape_inference:

  - the model is written to a file and run as `fakeprop MODEL -o OUT --json`;
  - an error fakeprop records on a node that says the model is invalid (a
    type error, a shape mismatch, ...; not one that says something could not
    be inferred, such as unknown_input), or exit status 2, is raised as
    onnx.shape_inference.InferenceError, which is what the cases expect of
    strict-mode inference on a bad model;
  - otherwise the annotated model OUT is returned (after onnx's checker),
    and the case's own assertions compare its types and shapes.

A case's outcome is pass, fail (its assertion on fakeprop's result) or skip
(the test itself skipped). Each case that does not pass is listed in the
expectations file, one per line, `CASE  # reason`; this script exits 1 when a
listed case passes or an unlisted one fails, so the list stays exact.
--write-expected rewrites the list; each reason is derived from the case's
failure (what fakeprop left unknown, or the first line of the assertion).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEST_FILES = ("shape_inference_test.py", "symbolic_shape_test.py", "data_propagation_test.py")
# Error kinds that say fakeprop could not infer something (what onnx leaves unknown without failing),
# not that the model is invalid.
NOT_INFERRED = {"unknown_input", "unknown_rank", "unsupported_op", "data_dependent", "loop_not_stable"}


def _source_tests(onnx_version, src_dir):
    """The onnx source release's tests/python for the installed version (downloaded once)."""
    tests = os.path.join(src_dir, "onnx-%s" % onnx_version, "tests", "python")
    if all(os.path.exists(os.path.join(tests, f)) for f in TEST_FILES):
        return tests
    os.makedirs(src_dir, exist_ok=True)
    archive = os.path.join(src_dir, "onnx-%s.tar.gz" % onnx_version)
    if not os.path.exists(archive):
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                        "onnx==%s" % onnx_version, "--no-binary", "onnx", "--no-deps", "-d", src_dir], check=True)
    import tarfile

    with tarfile.open(archive) as tar:
        wanted = [m for m in tar.getmembers() if m.name.startswith("onnx-%s/tests/python/" % onnx_version)]
        tar.extractall(src_dir, members=wanted)
    return tests


class FakepropInference:
    """The replacement for the cases' `_inferred`: fakeprop on the model, its -o output back."""

    def __init__(self, fakeprop, work_dir):
        self.fakeprop = fakeprop
        self.work_dir = work_dir
        self.count = 0
        self.not_inferred = []  # this case's errors of NOT_INFERRED kinds, for its reason

    def __call__(self, case, graph_or_model, **kwargs):
        import onnx
        from onnx import checker, helper

        kwargs.pop("data_prop", None)  # fakeprop always propagates what it knows of the data
        if isinstance(graph_or_model, onnx.GraphProto):
            kwargs["producer_name"] = "onnx-test"
            model = helper.make_model(graph_or_model, **kwargs)
        else:
            model = graph_or_model
        self.count += 1
        path = os.path.join(self.work_dir, "case%d.onnx" % self.count)
        out = os.path.join(self.work_dir, "case%d.out.onnx" % self.count)
        onnx.save(model, path)
        run = subprocess.run([self.fakeprop, path, "-o", out, "--json"], capture_output=True, text=True)
        if run.returncode == 2:
            raise onnx.shape_inference.InferenceError("fakeprop: " + run.stderr.strip().splitlines()[-1])
        if run.returncode not in (0, 1):
            raise RuntimeError("fakeprop exited %d: %s" % (run.returncode, run.stderr.strip()[-300:]))
        report = json.loads(run.stdout)
        invalid = [e for e in report["errors"] if e["kind"] not in NOT_INFERRED]
        self.not_inferred += ["%s: %s" % (e["kind"], e["message"]) for e in report["errors"] if e["kind"] in NOT_INFERRED]
        if invalid:
            first = invalid[0]
            raise onnx.shape_inference.InferenceError(
                "fakeprop: [%s] %s: %s" % (first.get("node"), first["kind"], first["message"]))
        inferred = onnx.load(out)
        checker.check_model(inferred)
        return inferred


class Plugin:
    """Patches the helper of every collected module and records each case's outcome."""

    def __init__(self, inference):
        self.inference = inference
        self.outcomes = {}

    def pytest_collection_finish(self, session):
        inference = self.inference
        patched = set()
        for item in session.items:
            module = item.module
            helper_class = getattr(module, "TestShapeInferenceHelper", None)
            if helper_class is None or helper_class in patched:
                continue
            patched.add(helper_class)
            helper_class._inferred = lambda case, graph_or_model, **kw: inference(case, graph_or_model, **kw)

    def pytest_runtest_setup(self, item):
        self.inference.not_inferred = []

    def pytest_runtest_logreport(self, report):
        name = report.nodeid.split("::", 1)[-1]
        name = os.path.basename(report.nodeid.split("::", 1)[0]).replace("_test.py", "") + "::" + name
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            reason = ""
            if report.outcome == "failed":
                text = str(report.longrepr.reprcrash.message) if hasattr(report.longrepr, "reprcrash") else str(
                    report.longrepr)
                reason = _reason(" ".join(text.split()), self.inference.not_inferred)
            self.outcomes[name] = (report.outcome, reason)


def _reason(failure, not_inferred):
    """A first reason for a case that does not pass, from its failure and what fakeprop left unknown."""
    unsupported = sorted({m.split("no shape rule for operator ", 1)[-1] for m in not_inferred
                          if m.startswith("unsupported_op")})
    if unsupported:
        return "no rule for %s" % ", ".join(unsupported)
    if "Field 'type' of 'value_info' is required" in failure:
        return "-o writes the main graph's types only: a subgraph output the model left untyped stays untyped"
    if failure.startswith("AssertionError: Expected value infos for:"):
        why = not_inferred[0] if not_inferred else "a value fakeprop does not know"
        return "no value_info where onnx writes one (%s)" % why[:120]
    if re.search(r"assert 0 == \d+ \+ where 0 = \.dim_value", failure):
        return "more precise: fakeprop determines a dim that onnx leaves unknown"
    if "DID NOT RAISE" in failure:
        return "accepted: onnx's inference rejects this model, fakeprop does not"
    if re.search(r"dim_value: (16777217|33554434) ", failure):
        return ("ONNX Runtime's size: fakeprop scales in float32, int64((float)dim * scale), as ORT does "
                "(16777216 for 16777217 at scale 1); onnx's inference uses double")
    if "Regex pattern did not match" in failure:
        return "rejected with fakeprop's own message: " + failure.split("Actual message: ", 1)[-1][:150]
    return re.sub(r" at 0x[0-9a-f]+", "", failure)[:200]


def _read_expected(path):
    listed = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            case, _, reason = line.partition("  # ")
            listed[case.strip()] = reason.strip()
    return listed


def main():
    import onnx
    import pytest

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fakeprop", default=os.path.join(ROOT, "build", "fakeprop"))
    ap.add_argument("--src-dir", default=os.path.join(ROOT, "build", "onnx-src"))
    ap.add_argument("--expected", default=os.path.join(ROOT, "testdata", "onnx_conformance", "shape_inference_cases.txt"))
    ap.add_argument("--write-expected", action="store_true")
    ap.add_argument("-k", help="pytest's -k: only the cases matching EXPR")
    a = ap.parse_args()

    tests = _source_tests(onnx.__version__, a.src_dir)
    with tempfile.TemporaryDirectory() as work:
        plugin = Plugin(FakepropInference(os.path.abspath(a.fakeprop), work))
        args = [os.path.join(tests, f) for f in TEST_FILES] + ["-q", "-p", "no:cacheprovider", "--no-header",
                                                               "-o", "addopts=", "--tb=no", "-rN", "-W", "ignore"]
        if a.k:
            args += ["-k", a.k]
        pytest.main(args, plugins=[plugin])

    counts = {}
    for outcome, _ in plugin.outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    print("onnx %s: %d cases, %s" % (onnx.__version__, len(plugin.outcomes),
                                     ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items()))))
    if not plugin.outcomes:
        print("no case ran: the onnx test files could not be collected")
        return 1
    listed = _read_expected(a.expected)
    not_passing = {c: r for c, (o, r) in plugin.outcomes.items() if o == "failed"}
    if a.write_expected:
        with open(a.expected, "w") as f:
            f.write("# ONNX %s shape-inference unit tests (scripts/onnx_shape_inference_cases.py) that fakeprop\n"
                    "# does not pass, one per line: \"file::case  # reason\".\n" % onnx.__version__)
            for case in sorted(not_passing):
                f.write("%s  # %s\n" % (case, not_passing[case]))
        print("wrote %s (%d cases)" % (a.expected, len(not_passing)))
        return 0
    if a.k:
        for case, reason in sorted(not_passing.items()):
            print("FAIL %s: %s" % (case, reason))
        return 0
    newly_failing = sorted(c for c in not_passing if c not in listed)
    now_passing = sorted(c for c in listed if plugin.outcomes.get(c, ("missing",))[0] == "passed")
    for c in newly_failing:
        print("unexpected failure: %s: %s" % (c, not_passing[c]))
    for c in now_passing:
        print("listed but passes now (remove it): %s" % c)
    return 1 if newly_failing or now_passing else 0


if __name__ == "__main__":
    sys.exit(main())
