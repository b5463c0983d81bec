"""fakeprop beside Dynamo: each golden NAME.golden.json (scripts/dynamo_scenarios.py, torch's
TORCH_LOGS of a small program under torch.compile) is replayed by running fakeprop on the same
program's ATen graph NAME.graph.json with the equivalent arguments, and the two compared aspect by
aspect after normalization (testdata/dynamo/dynamo_log.py): Python locations and fakeprop's node
names dropped. Symbol names are compared as they are: both tools name a backed symbol by a hash of
its source (s77 for L['x'].size()[0]) and count unbacked ones from u0.

Needs no torch: only the binary (FAKEPROP_BIN, default build/fakeprop).

    FAKEPROP_BIN=build/fakeprop python -m pytest -q testdata/dynamo

An aspect that disagrees fails, unless known_differences.txt lists it (`SCENARIO ASPECT: reason`);
a listed aspect that agrees fails too, so the list stays exact.

Aspects. One compile (no workload): `symbols` (create_symbol lines: name, hint, source, range;
duck-sized sources), `unbacked` (create_unbacked_symint: range at creation and the last range
given), `guards_added` (`eval ... [guard added]`), `runtime_asserts` (`runtime_assert ... [guard
added]`), `replacements` (set_replacement with its reason), `guards` (the shape guards Dynamo
installs over sources, against the report's guards; only where torch compiled), `error` (the
exception's text up to its first blank line against the report's errors; no exception means no
error); Dynamo's restarted analysis of the frame (0/0, then 0/0_1) is read from its last attempt. A
workload (automatic dynamic, `--call`): per compile `symbols@0/N` and `guards@0/N` (from
fakeprop's --trace-dir, which keeps each compile apart), `recompiles` (each recompile's guard
failures), `recompile_limit`, and `log_frames` (the [0/N] ids that the --log lines carry); a
restarted attempt 0/N_k of torch's is compared with fakeprop's 0/N.
Lists whose order is not part of the contract (guards added, asserts, replacements, guards) are
compared sorted.
"""
import functools
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import dynamo_log  # noqa: E402

GOLDENS = sorted(HERE.glob("*.golden.json"))
KNOWN_FILE = HERE / "known_differences.txt"


def _fakeprop():
    path = os.environ.get("FAKEPROP_BIN") or str(ROOT / "build" / "fakeprop")
    return path if os.access(path, os.X_OK) else None


def _known(known_file=KNOWN_FILE):
    """{(scenario, aspect): reason} from known_differences.txt (or another file of that form:
    testdata/dynamo_fuzz has its own)."""
    out = {}
    for n, line in enumerate(pathlib.Path(known_file).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, reason = line.partition(":")
        parts = head.split()
        if not sep or len(parts) != 2 or not reason.strip():
            raise ValueError("%s:%d: expected `SCENARIO ASPECT: reason`" % (pathlib.Path(known_file).name, n))
        out[tuple(parts)] = reason.strip()
    return out


def _load(path):
    return json.loads(pathlib.Path(path).read_text())


def single_frame(golden):
    """The frame id of a one-compile golden's compile: 0/0, or where Dynamo restarted its analysis
    of the frame (0/0, then 0/0_1, ...), the last attempt that got as far as produce_guards: an
    attempt Dynamo restarted installed no guards, the compile it keeps is the last one's."""
    frames = golden["torch"]["frames"]
    tried = [f for f in frames if f == "0/0" or f.startswith("0/0_")]
    done = [f for f in tried if frames[f].get("produce_guards")]
    if not done:
        return "0/0"
    return max(done, key=lambda f: int(f.partition("_")[2] or 0))


def fakeprop_frame(frame):
    """fakeprop's id of torch's compile `frame`: Dynamo's restarted attempt 0/N_k is fakeprop's 0/N
    (fakeprop runs no Dynamo analysis to restart)."""
    return frame.partition("_")[0]


def _compile_frames(golden):
    """torch's frames that got as far as produce_guards, in order (0/0, 0/1, ...): a frame that only
    logged its recompile reasons before the recompile limit stopped it compiled nothing."""
    frames = [f for f, ev in golden["torch"]["frames"].items() if ev.get("produce_guards")]
    return sorted(frames, key=lambda f: tuple(int(x) for x in f.replace("_", "/").split("/")))


def aspects(golden):
    if golden["fakeprop"]["workload"]:
        out = []
        for f in _compile_frames(golden):
            out += ["symbols@" + f, "guards@" + f]
        return out + ["recompiles", "recompile_limit", "log_frames"]
    out = ["symbols", "unbacked", "guards_added", "runtime_asserts", "replacements"]
    if golden["torch"]["error"] is None:
        out.append("guards")
    return out + ["error"]


CASES = [(g, a) for g in GOLDENS for a in aspects(_load(g))]


@functools.lru_cache(maxsize=None)
def run_fakeprop(golden_path):
    """fakeprop's report, --log +dynamic lines and (for a workload) --trace-dir frames. The graph is
    the file the golden names, beside the golden."""
    golden = _load(golden_path)
    exe = _fakeprop()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE_"))}
    env.update(golden["fakeprop"]["env"])
    graph = str(pathlib.Path(golden_path).parent / golden["graph"]["file"])
    with tempfile.TemporaryDirectory(prefix="fakeprop_dynamo_") as tmp:
        cmd = [exe, graph] + golden["fakeprop"]["args"] + ["--json", "--log", "+dynamic"]
        if golden["fakeprop"]["workload"]:
            cmd += ["--trace-dir", tmp]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
        if proc.returncode not in (0, 1):
            raise AssertionError("%s exited %d:\n%s" % (" ".join(cmd), proc.returncode, proc.stderr[-3000:]))
        trace = {}
        for p in pathlib.Path(tmp).glob("*.log"):
            trace.update(dynamo_log.parse_trace(p.read_text()))
    report = json.loads(proc.stdout)
    records = dynamo_log.parse_glog(proc.stderr)
    return {"cmd": cmd, "report": report, "records": records, "trace": trace}


def _sorted(xs):
    return sorted(xs)


def _with_final_ranges(fp_raw, frame, records):
    """A --trace-dir frame's events with each unbacked symbol's final range and the duck-sized dims:
    the trace gives the range at creation (as torch's create_unbacked_symbol does), the last range
    and the duck sizing are in --log's lines of that frame (constrain_symbol_range,
    _update_var_to_range, `create_symbol s0 duck sized ...`), as torch's log gives them."""
    logged = dynamo_log.frame_events([r[3] for r in records if r[2] == frame])
    final = {u["name"]: u["final"] for u in logged["unbacked"]}
    raw = dict(fp_raw)
    raw["unbacked"] = [dict(u, final=final.get(u["name"], u["range"])) for u in fp_raw["unbacked"]]
    # Duck sizing is a log line and no trace event (in torch's too): placed from the log, whose
    # frame 0/0 may hold the base run beside the first call (the same symbols twice).
    first, seen = [], set()
    for sym in logged["symbols"]:
        key = (sym["name"], sym["source"], bool(sym.get("duck")))
        if key not in seen:
            seen.add(key)
            first.append(sym)
    traced = {(sym["name"], sym["source"]): sym for sym in fp_raw["symbols"]}
    if [(sym["name"], sym["source"]) for sym in first if not sym.get("duck")] == list(traced):
        raw["symbols"] = [sym if sym.get("duck") else traced[(sym["name"], sym["source"])] for sym in first]
    return raw


def compare(golden, aspect, run):
    """(torch's value, fakeprop's value) of one aspect, both normalized."""
    t = golden["torch"]
    report = run["report"]
    if "@" in aspect:
        kind, frame = aspect.split("@")
        torch_ev = t["normalized"][frame]
        fp_raw = run["trace"].get(fakeprop_frame(frame))
        fp_ev = dynamo_log.normalized(fp_raw) if fp_raw else None
        if kind == "symbols":
            if fp_raw:
                fp_ev = dynamo_log.normalized(_with_final_ranges(fp_raw, fakeprop_frame(frame), run["records"]))
            return torch_ev["symbols"] + torch_ev["unbacked"], (fp_ev["symbols"] + fp_ev["unbacked"]) if fp_ev else None
        return _sorted(torch_ev["guards"]), _sorted(fp_ev["guards"]) if fp_ev else None
    if aspect in ("recompiles", "recompile_limit"):
        # fakeprop's replay writes Dynamo's recompile log (report.recompiles.log): read it as torch's
        ev = dynamo_log.recompile_log_events((report.get("recompiles") or {}).get("log", ""))
        if aspect == "recompiles":
            return [r["reasons"] for r in t["recompiles"]], ev["recompiles"]
        return t["recompile_limit"], ev["recompile_limit"]
    if aspect == "log_frames":
        theirs = sorted({fakeprop_frame(line.split("] [", 1)[1].split("]", 1)[0]) for line in t["log"]
                         if "] [" in line and ("produce_guards" in line)})
        ours = sorted({r[2] for r in run["records"] if r[2] and r[3] == "produce_guards"})
        # fakeprop's --log also holds the base run beside the --call compiles: compare the ids only
        return theirs, ours
    # One compile: torch's frame 0/0 (its last attempt, see single_frame) against fakeprop's --log.
    torch_ev = t["normalized"].get(single_frame(golden)) or dynamo_log.normalized(dynamo_log.frame_events([]))
    fp_ev = dynamo_log.normalized(dynamo_log.frame_events([r[3] for r in run["records"]]))
    if aspect in ("symbols", "unbacked"):
        return torch_ev[aspect], fp_ev[aspect]
    if aspect in ("guards_added", "runtime_asserts", "replacements"):
        return _sorted(torch_ev[aspect]), _sorted(fp_ev[aspect])
    if aspect == "guards":
        return _sorted(torch_ev["guards"]), _sorted(g["expr"] for g in report.get("guards", []))
    if aspect == "error":
        err = t["error"]
        theirs = err["core"] if err else None
        cores = [dynamo_log.error_core(e.get("message", "")) for e in report.get("errors", [])]
        if theirs is None:
            return None, cores[0] if cores else None
        return theirs, theirs if theirs in cores else (cores[0] if cores else None)
    raise KeyError(aspect)


@pytest.fixture(scope="module")
def known():
    return _known()


def test_goldens_present():
    assert len(GOLDENS) >= 20, "expected the scenario goldens beside this file (scripts/dynamo_scenarios.py)"


def test_known_differences_name_real_aspects(known):
    real = {(_load(g)["scenario"], a) for g, a in CASES}
    stale = sorted(k for k in known if k not in real)
    assert not stale, "known_differences.txt names aspects no golden has: %s" % stale


@pytest.mark.parametrize("golden_path,aspect", CASES, ids=["%s-%s" % (g.name[:-len(".golden.json")], a) for g, a in CASES])
def test_aspect(golden_path, aspect, known):
    if not _fakeprop():
        pytest.skip("no fakeprop binary: set FAKEPROP_BIN")
    golden = _load(golden_path)
    check_aspect(golden, aspect, run_fakeprop(str(golden_path)), known)


def check_aspect(golden, aspect, run, known):
    """One aspect of a replayed golden: agreeing, or listed in `known`; a listed one that agrees fails."""
    theirs, ours = compare(golden, aspect, run)
    key = (golden["scenario"], aspect)
    if theirs == ours:
        assert key not in known, "%s %s agrees now: remove it from known_differences.txt (%s)" % (key + (known.get(key),))
        return
    if key in known:
        return
    pytest.fail("%s %s differs\n  torch:    %s\n  fakeprop: %s\n  command:  %s" % (
        golden["scenario"], aspect, json.dumps(theirs), json.dumps(ours), " ".join(run["cmd"])))


def args_without_calls(args):
    """A golden's fakeprop arguments less its `--call NAME=...` pairs."""
    rest, i = [], 0
    while i < len(args):
        if args[i] == "--call":
            i += 2
            continue
        rest.append(args[i])
        i += 1
    return rest


def _spec_text(golden):
    """The fakeprop arguments of a scenario as README's table shows them: `--call`s counted."""
    args, env = golden["fakeprop"]["args"], golden["fakeprop"]["env"]
    calls = args.count("--call")
    rest = args_without_calls(args)
    parts = ["%s=%s" % kv for kv in sorted(env.items())] + ([" ".join(rest)] if rest else [])
    text = ["`%s`" % " ".join(parts)] if parts else []
    if calls:
        text.insert(0, "%d × `--call`" % calls)
    return ", ".join(text) or "(none)"


def tables():
    """README's two tables (per scenario, per aspect) as Markdown, from the goldens and the known list:
    the replay's tests keep that list exact, so what it names is what disagrees."""
    known = _known()
    rows = ["| scenario | exercises | fakeprop spec | agree | listed differences |",
            "| --- | --- | --- | ---: | --- |"]
    by_aspect = {}
    for g in GOLDENS:
        golden = _load(g)
        name, names = golden["scenario"], aspects(golden)
        listed = [a for a in names if (name, a) in known]
        rows.append("| `%s` | %s | %s | %d / %d | %s |" % (name, golden["what"], _spec_text(golden),
                                                          len(names) - len(listed), len(names),
                                                          ", ".join(listed) or "all agree"))
        for a in names:
            counts = by_aspect.setdefault(a.split("@")[0], [0, 0])
            counts[0] += (name, a) not in known
            counts[1] += 1
    agree = sum(c[0] for c in by_aspect.values())
    total = sum(c[1] for c in by_aspect.values())
    aspect_rows = ["| aspect | agree | compared |", "| --- | ---: | ---: |"]
    order = ["symbols", "unbacked", "guards_added", "runtime_asserts", "replacements", "guards", "error",
             "recompiles", "recompile_limit", "log_frames"]
    aspect_rows += ["| %s | %d | %d |" % (a, c[0], c[1])
                    for a, c in sorted(by_aspect.items(), key=lambda kv: order.index(kv[0]))]
    aspect_rows.append("| all | %d | %d |" % (agree, total))
    return "\n".join(rows), "\n".join(aspect_rows)


def test_readme_tables_are_current():
    readme = (HERE / "README.md").read_text()
    for table in tables():
        assert table in readme, "README.md's tables are stale: print them with python3 %s" % pathlib.Path(__file__).name


if __name__ == "__main__":  # print README's tables
    for table in tables():
        print(table + "\n")
