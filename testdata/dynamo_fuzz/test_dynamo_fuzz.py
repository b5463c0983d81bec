"""The differential fuzzer's minimized cases, replayed without torch.

scripts/dynamo_fuzz.py writes each minimized disagreement between torch.compile and fakeprop as a
golden here (NAME.golden.json with the fuzzer's seed under `fuzz`, NAME.graph.json); this test runs
fakeprop on each with testdata/dynamo/test_dynamo_scenarios.py's own code (`run_fakeprop`,
`aspects`, `compare`) and compares every aspect.

    FAKEPROP_BIN=build/fakeprop python -m pytest -q testdata/dynamo_fuzz

An aspect that disagrees fails, unless known_differences.txt here lists it (`NAME ASPECT: [tag]
reason`, the tag the fuzzer's class: [gap] fakeprop wrong, [graph] torch adds it outside the ATen
graph, [text] the same decision printed differently); a listed aspect that agrees fails too, so the
list stays exact. A fakeprop exit other than 0 or 1 is listed as `NAME crash: [gap] reason`.
"""
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "dynamo"))
import test_dynamo_scenarios as replay  # noqa: E402

GOLDENS = sorted(HERE.glob("*.golden.json"))
KNOWN_FILE = HERE / "known_differences.txt"
TAGS = ("[gap]", "[graph]", "[text]")
CASES = [(g, a) for g in GOLDENS for a in replay.aspects(replay._load(g))]


@pytest.fixture(scope="module")
def known():
    return replay._known(KNOWN_FILE)


def test_goldens_present():
    assert GOLDENS, "expected the fuzzer's minimized goldens beside this file (scripts/dynamo_fuzz.py)"
    for g in GOLDENS:
        golden = replay._load(g)
        assert "seed" in golden.get("fuzz", {}), "%s: no fuzz seed recorded" % g.name
        assert (HERE / golden["graph"]["file"]).exists(), "%s: its graph is missing" % g.name


def test_known_differences_are_well_formed(known):
    real = {(replay._load(g)["scenario"], a) for g, a in CASES} | {(replay._load(g)["scenario"], "crash") for g in GOLDENS}
    stale = sorted(k for k in known if k not in real)
    assert not stale, "known_differences.txt names aspects no golden has: %s" % stale
    untagged = sorted(k for k, reason in known.items() if not reason.startswith(TAGS))
    assert not untagged, "known_differences.txt: each reason starts with one of %s: %s" % (TAGS, untagged)


@pytest.mark.parametrize("golden_path,aspect", CASES, ids=["%s-%s" % (g.name[:-len(".golden.json")], a) for g, a in CASES])
def test_aspect(golden_path, aspect, known):
    if not replay._fakeprop():
        pytest.skip("no fakeprop binary: set FAKEPROP_BIN")
    golden = replay._load(golden_path)
    try:
        run = replay.run_fakeprop(str(golden_path))
    except AssertionError as e:  # fakeprop exited other than 0 or 1: `NAME crash` lists it
        crash = (golden["scenario"], "crash")
        if crash in known:
            return
        raise AssertionError("%s: fakeprop crashed (list it as `%s crash: [gap] ...` while it does)\n%s" % (crash[0], crash[0], e))
    assert (golden["scenario"], "crash") not in known, \
        "%s crash: fakeprop runs now: remove it from known_differences.txt" % golden["scenario"]
    replay.check_aspect(golden, aspect, run, known)
