#!/usr/bin/python3
"""fakeprop against its peers, measured side by side in one run.

    cmake --build build-rel --target fakeprop fakeprop_onnx_peer fakeprop_fx_walk
    /usr/bin/python3 scripts/bench.py --fakeprop build-rel/fakeprop [--quick] [--out results.json]

Builds its models locally into --models-dir (default build-models/, git-ignored;
files already there are reused):
  - torchvision and GPT-2-style ONNX exports through scripts/export_models.py
    (python3-torch 1.13, random weights): resnet50, vit_b_16, gpt2_12, gpt2_48;
  - the same networks as ATen FX graphs (make_fx) in fakeprop's JSON format;
  - synthetic ONNX graphs of 1k to 1M nodes (scripts/bench/gen_synthetic.py), and
    the same graphs as JSON FX graphs (its --fx).
Then, for every model, each tool runs in a fresh process, best of N:
  - fakeprop (`fakeprop MODEL --input ... --json --stats`, stdout discarded:
    process start, load, propagation and the JSON report all counted);
  - onnx.shape_inference.infer_shapes_path (the call alone, load and save
    included; interpreter start-up and `import onnx` excluded);
  - ONNX's C++ inference through libonnx (fakeprop_onnx_peer, protobuf parse +
    InferShapes; built next to fakeprop);
  - torch FakeTensorProp on the FX graphs (the node walk over inputs that are
    already fake, and propagate() with the conversion of real inputs).
On the FX graphs the two node walks are also compared per node: fakeprop's
propagate phase (report["stats"]["phases"]["propagate_ms"] from --json --stats,
loading, the per-process rule table and the report excluded) against
FakeTensorProp's walk (best_run_ms; torch's import and operator registration
excluded), each divided by the graph's node count, best of N for both.
fakeprop's walk is each time the first in a fresh process; FakeTensorProp's
best run follows others in the same process (warm). So the two are also
compared both warm: fakeprop_fx_walk (scripts/bench/fx_walk.cpp, built next to
fakeprop) loads the graph once and walks it N times in one process, as
ftp_peer.py does.
Peak memory is each process's maximum resident set, as GNU time reports it for
the command it runs: wait4's ru_maxrss of a child started straight from this
script would count this Python process's pages (about 10 MB) before exec.
Ratios are peer time / fakeprop time from the same run; the machine's load
is whatever it is at the time, so rerun on a quiet machine for stable numbers.
Prints markdown tables and writes every measurement as JSON (--out).
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"

# name -> fakeprop --input hints (the export's example sizes)
EXPORTS = {
    "resnet50": ["x=2,3,224,224"],
    "vit_b_16": ["x=2,3,224,224"],
    "swin_t": ["x=2,3,224,224"],
    "gpt2_12": ["input_ids=2,16"],
    "gpt2_48": ["input_ids=2,16"],
}
FX_GRAPHS = ["resnet50", "vit_b_16", "gpt2_12"]
SYNTH_SIZES = [1000, 10000, 100000, 1000000]
SYNTH_HINT = ["x=2,8,64"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_measured(cmd, env=None, capture_stdout=False):
    """One fresh process: (wall seconds, rusage, returncode, stdout bytes, stderr bytes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out if capture_stdout else subprocess.DEVNULL, stderr=err, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return wall, ru, p.returncode, out.read() if capture_stdout else b"", err.read()


# A child's ru_maxrss counts the pages of the process that forked it up to
# its exec (Linux carries the old address space's high-water mark over), so
# a command started from here shows at least this interpreter's RSS (about
# 10 MB). GNU time, a small process, forks the command and reports its peak;
# it runs in a separate run so that its start-up stays out of the timings.
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def peak_rss_kb(cmd, env=None, fallback_kb=0, runs=1):
    """The command's largest peak RSS in KB over `runs` runs through GNU time,
    or fallback_kb without it. The kernel maps code pages in 64 KB windows
    whose alignment moves with address randomization, so one run of a small
    process varies by about 100 KB."""
    if not GNU_TIME:
        return fallback_kb
    peak = None
    for _ in range(runs):
        with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
            subprocess.run([GNU_TIME, "-q", "-f", "%M", "-o", rss.name] + list(cmd), env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            words = rss.read().split()
            if words and words[-1].isdigit():
                peak = max(peak or 0, int(words[-1]))
    return peak if peak is not None else fallback_kb


def best_of(n, cmd, env=None, capture_stdout=False, what="", rss_runs=1):
    """Best wall time of n runs, the largest peak RSS, and the last run's outputs."""
    best = None
    for _ in range(n):
        wall, ru, rc, out, err = run_measured(cmd, env=env, capture_stdout=capture_stdout)
        if rc != 0:
            raise RuntimeError("%s failed (exit %d): %s\n%s" % (what or cmd[0], rc, " ".join(cmd), err.decode()[-2000:]))
        cpu = ru.ru_utime + ru.ru_stime
        if best is None:
            best = {"wall_s": wall, "cpu_s": cpu, "peak_rss_kb": ru.ru_maxrss, "out": out, "err": err}
        else:
            if wall < best["wall_s"]:
                best.update(wall_s=wall, out=out, err=err)
            best["cpu_s"] = min(best["cpu_s"], cpu)
            best["peak_rss_kb"] = max(best["peak_rss_kb"], ru.ru_maxrss)
    best["peak_rss_kb"] = peak_rss_kb(cmd, env, best["peak_rss_kb"], rss_runs)
    return best


# ---------------------------------------------------------------- models

def ensure_models(opts):
    d = opts.models_dir
    os.makedirs(os.path.join(d, "bench"), exist_ok=True)
    exports = [m for m in EXPORTS if not (opts.quick and m == "gpt2_48")]
    missing = [m for m in exports if not os.path.exists(os.path.join(d, m + ".onnx"))]
    if missing:
        log("exporting %s (scripts/export_models.py; minutes)" % ", ".join(missing))
        subprocess.run([PY, os.path.join(HERE, "export_models.py"), "--out", d, "--models", ",".join(missing)],
                       check=False)
    exports = [m for m in exports if os.path.exists(os.path.join(d, m + ".onnx"))]
    sizes = [n for n in SYNTH_SIZES if not (opts.quick and n > 100000)]
    synth = []
    for n in sizes:
        path = os.path.join(d, "bench", "synth_%d.onnx" % n)
        if not os.path.exists(path):
            log("generating %s" % path)
            subprocess.run([PY, os.path.join(HERE, "bench", "gen_synthetic.py"), "--nodes", str(n), "-o", path],
                           check=True)
        fx_path = os.path.join(d, "bench", "synth_%d.fx.json" % n)
        if not os.path.exists(fx_path):
            log("generating %s" % fx_path)
            subprocess.run([PY, os.path.join(HERE, "bench", "gen_synthetic.py"), "--fx", "--nodes", str(n), "-o",
                            fx_path], check=True)
        synth.append((n, path))
    return exports, synth


# ---------------------------------------------------------------- tools

def fakeprop_run(opts, model, hints, repeat, cache=True):
    cmd = [opts.fakeprop, model, "--json", "--stats"]
    for h in hints:
        cmd += ["--input", h]
    env = dict(os.environ)
    env.pop("TORCH_LOGS", None)
    env["FAKEPROP_DISPATCH_CACHE"] = "1" if cache else "0"
    r = best_of(repeat, cmd, env=env, what="fakeprop", rss_runs=max(1, repeat))
    r["stats"] = [line for line in r.pop("err").decode().splitlines() if line.startswith("stats:")]
    r.pop("out")
    return r


def onnx_py_run(opts, model, repeat):
    outp = os.path.join(opts.tmp, "inferred.onnx")
    r = best_of(repeat, [PY, os.path.join(HERE, "bench", "onnx_py_peer.py"), model, outp], capture_stdout=True,
                what="onnx.shape_inference.infer_shapes_path")
    info = json.loads(r.pop("out").decode().strip().splitlines()[-1])
    r.pop("err")
    if os.path.exists(outp):
        os.remove(outp)
    # The process's wall time counts python start-up and `import onnx`; the
    # call's own time is the peer's time (load included).
    r["process_wall_s"] = r["wall_s"]
    r["wall_s"] = info["ms"] / 1000.0
    r["baseline_rss_kb"] = info["baseline_rss_kb"]
    return r


def onnx_cpp_run(opts, model, repeat):
    r = best_of(repeat, [opts.onnx_peer, model], capture_stdout=True, what="fakeprop_onnx_peer")
    info = json.loads(r.pop("out").decode().strip().splitlines()[-1])
    r.pop("err")
    r.update(load_ms=info["load_ms"], infer_ms=info["infer_ms"])
    return r


def fakeprop_fx_run(opts, graph, repeat):
    """fakeprop on a JSON FX graph, best of `repeat`: the whole process (wall) and
    its own phase times from the report's stats (the best of each phase)."""
    cmd = [opts.fakeprop, graph, "--json", "--stats"]
    env = dict(os.environ)
    env.pop("TORCH_LOGS", None)
    best = None
    for _ in range(repeat):
        wall, ru, rc, out, err = run_measured(cmd, env=env, capture_stdout=True)
        if rc != 0:
            raise RuntimeError("fakeprop failed (exit %d): %s\n%s" % (rc, " ".join(cmd), err.decode()[-2000:]))
        stats = json.loads(out.decode())["stats"]
        phases = stats["phases"]
        run = {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "peak_rss_kb": ru.ru_maxrss,
               "load_ms": phases["load_ms"], "propagate_ms": phases["propagate_ms"], "report_ms": phases["report_ms"],
               "nodes": stats["nodes"]}
        if best is None:
            best = dict(run, runs_propagate_ms=[])
        else:
            for k in ("wall_s", "cpu_s", "load_ms", "propagate_ms", "report_ms"):
                best[k] = min(best[k], run[k])
            best["peak_rss_kb"] = max(best["peak_rss_kb"], run["peak_rss_kb"])
        best["runs_propagate_ms"].append(run["propagate_ms"])
    best["peak_rss_kb"] = peak_rss_kb(cmd, env, best["peak_rss_kb"], max(1, repeat))
    return best


def fakeprop_synth_fx_run(opts, graph, repeat):
    """fakeprop on a synthetic JSON FX graph, best of `repeat`: the whole process
    and the phases of its --stats line (stdout discarded: a 1M-node report is
    hundreds of megabytes)."""
    r = best_of(repeat, [opts.fakeprop, graph, "--json", "--stats"], what="fakeprop", rss_runs=max(1, repeat))
    r.pop("out")
    line = next(x for x in r.pop("err").decode().splitlines() if x.startswith("stats: load"))
    for phase in ("load", "propagate", "report"):
        r[phase + "_ms"] = float(re.search(phase + r" ([0-9.]+) ms", line).group(1))
    r["stats"] = [line]
    return r


def fx_walk_run(opts, graph, repeat):
    """fakeprop_fx_walk: the graph loaded once and walked in one process, as
    ftp_peer.py walks FakeTensorProp; first (cold) and best (warm) walk."""
    walker = os.path.join(os.path.dirname(opts.fakeprop), "fakeprop_fx_walk")
    if not os.path.exists(walker):
        return None
    wall, ru, rc, out, err = run_measured([walker, graph, str(max(5, repeat))], capture_stdout=True)
    if rc != 0:
        raise RuntimeError("fakeprop_fx_walk failed (exit %d): %s" % (rc, err.decode()[-2000:]))
    return json.loads(out.decode().strip().splitlines()[-1])


def ftp_run(opts, name, json_path, repeat):
    cmd = [PY, os.path.join(HERE, "bench", "ftp_peer.py"), name, "--json", json_path, "--repeat", str(repeat)]
    wall, ru, rc, out, err = run_measured(cmd, capture_stdout=True)
    if rc != 0:
        raise RuntimeError("ftp_peer %s failed: %s" % (name, err.decode()[-2000:]))
    info = json.loads(out.decode().strip().splitlines()[-1])
    info["peak_rss_kb"] = ru.ru_maxrss
    return info


# ---------------------------------------------------------------- report

def fmt_ms(s):
    ms = s * 1000.0
    return "%.0f ms" % ms if ms >= 100 else ("%.1f ms" % ms if ms >= 1 else "%.2f ms" % ms)


def fmt_mb(kb):
    return "%.0f MB" % (kb / 1024.0) if kb >= 10240 else "%.1f MB" % (kb / 1024.0)


def ratio(a, b):
    return "%.0fx" % (a / b) if a / b >= 10 else "%.1fx" % (a / b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fakeprop", required=True, help="the fakeprop binary (a Release build)")
    ap.add_argument("--onnx-peer", help="fakeprop_onnx_peer (default: next to --fakeprop)")
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "build-models"))
    ap.add_argument("--quick", action="store_true", help="fewer repeats; no gpt2_48 and no 1M-node graph")
    ap.add_argument("--repeat", type=int, default=0, help="runs per measurement (default 5, --quick 3)")
    ap.add_argument("--out", help="write every measurement as JSON here")
    ap.add_argument("--skip-python", action="store_true", help="leave out the two Python peers (slow)")
    ap.add_argument("--only", choices=["fx"], help="fx: only the FX graphs against FakeTensorProp (all three, "
                    "also with --quick; no ONNX exports, synthetic graphs or onnx peer needed)")
    opts = ap.parse_args()
    opts.fakeprop = os.path.abspath(opts.fakeprop)
    if not opts.onnx_peer:
        opts.onnx_peer = os.path.join(os.path.dirname(opts.fakeprop), "fakeprop_onnx_peer")
    if opts.only != "fx" and not os.path.exists(opts.onnx_peer):
        sys.exit("bench.py: %s not found: cmake --build %s --target fakeprop_onnx_peer"
                 % (opts.onnx_peer, os.path.dirname(opts.fakeprop)))
    repeat = opts.repeat or (3 if opts.quick else 5)
    opts.tmp = tempfile.mkdtemp(prefix="fakeprop-bench-")
    results = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                           "loadavg_start": os.getloadavg()},
               "repeat": repeat, "onnx": [], "fx": [], "synthetic": [], "check": None}
    try:
        exports, synth = ensure_models(opts) if opts.only != "fx" else ([], [])
        # ---- exported ONNX models: fakeprop vs onnx (Python), libonnx (C++) ----
        for name in exports:
            path = os.path.join(opts.models_dir, name + ".onnx")
            size = os.path.getsize(path)
            log("onnx %s (%.0f MB)" % (name, size / 1e6))
            row = {"model": name, "file_bytes": size}
            row["fakeprop"] = fakeprop_run(opts, path, EXPORTS[name], repeat)
            row["fakeprop_nocache"] = fakeprop_run(opts, path, EXPORTS[name], repeat, cache=False)
            row["onnx_cpp"] = onnx_cpp_run(opts, path, repeat)
            if not opts.skip_python:
                row["onnx_py"] = onnx_py_run(opts, path, max(1, repeat // 2))
            results["onnx"].append(row)
        # ---- FX graphs: fakeprop vs FakeTensorProp ----
        for name in FX_GRAPHS if not opts.skip_python else []:
            if opts.quick and name != "resnet50" and opts.only != "fx":
                continue
            jpath = os.path.join(opts.models_dir, "bench", name + ".fx.json")
            log("fx %s" % name)
            row = {"model": name}
            row["ftp"] = ftp_run(opts, name, jpath, repeat)  # writes the JSON graph when it is missing
            row["fakeprop"] = fakeprop_fx_run(opts, jpath, repeat)
            row["fakeprop_walk"] = fx_walk_run(opts, jpath, repeat)
            results["fx"].append(row)
        # ---- synthetic graphs: linearity ----
        for n, path in synth:
            log("synthetic %d nodes" % n)
            row = {"nodes": n, "file_bytes": os.path.getsize(path)}
            row["fakeprop"] = fakeprop_run(opts, path, SYNTH_HINT, repeat)
            row["fakeprop_nocache"] = fakeprop_run(opts, path, SYNTH_HINT, max(1, repeat // 2), cache=False)
            fx_path = path[:-len(".onnx")] + ".fx.json"
            row["fakeprop_fx"] = fakeprop_synth_fx_run(opts, fx_path, repeat)
            row["fakeprop_fx"]["file_bytes"] = os.path.getsize(fx_path)
            row["onnx_cpp"] = onnx_cpp_run(opts, path, max(1, repeat // 2))
            if not opts.skip_python:
                row["onnx_py"] = onnx_py_run(opts, path, 1)
            results["synthetic"].append(row)
        # ---- fakeprop check over a directory: one worker vs every core ----
        # The exports plus eight copies of the 10k-node graph under their own
        # names: a directory of many mid-sized models, where one worker per core
        # can show. (One 100k-node model would be the whole critical path.)
        models = [os.path.join(opts.models_dir, m + ".onnx") for m in exports]
        mid = [p for n, p in synth if n == 10000]
        if mid:
            copies = os.path.join(opts.tmp, "check_models")
            os.makedirs(copies, exist_ok=True)
            for k in range(8):
                dst = os.path.join(copies, "synth_10000_%d.onnx" % k)
                shutil.copyfile(mid[0], dst)
                models.append(dst)
        if models and opts.only != "fx":
            base = os.path.join(opts.tmp, "baselines")
            os.makedirs(base, exist_ok=True)
            check = {"models": len(models)}
            for jobs in (1, 0):
                cmd = [opts.fakeprop, "check"] + models + ["--baseline", base, "--update", "-j", str(jobs)]
                r = best_of(max(1, repeat // 2), cmd, what="fakeprop check")
                check["j%d" % jobs] = {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "peak_rss_kb": r["peak_rss_kb"]}
            results["check"] = check
    finally:
        shutil.rmtree(opts.tmp, ignore_errors=True)
    results["machine"]["loadavg_end"] = os.getloadavg()
    print_tables(results)
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump(results, f, indent=1, default=str)
        log("wrote %s" % opts.out)


def print_tables(res):
    m = res["machine"]
    print("Machine: %d CPUs, load average %.1f at start, %.1f at end; best of %d runs each.\n"
          % (m["cpus"], m["loadavg_start"][0], m["loadavg_end"][0], res["repeat"]))
    if res["onnx"]:
        print("ONNX exports (fakeprop: whole process, load to JSON report; peers: load + inference)\n")
        print("| model | file | fakeprop | fakeprop peak RSS | RSS / file | onnx (Python) | ratio | libonnx (C++) | ratio | fakeprop without dispatch cache |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in res["onnx"]:
            fp = r["fakeprop"]
            py = r.get("onnx_py")
            cpp = r["onnx_cpp"]
            print("| %s | %s | %s | %s | %.1f%% | %s | %s | %s | %s | %s |" % (
                r["model"], fmt_mb(r["file_bytes"] / 1024), fmt_ms(fp["wall_s"]), fmt_mb(fp["peak_rss_kb"]),
                100.0 * fp["peak_rss_kb"] * 1024 / r["file_bytes"],
                fmt_ms(py["wall_s"]) + " / " + fmt_mb(py["peak_rss_kb"]) if py else "-",
                ratio(py["wall_s"], fp["wall_s"]) if py else "-",
                fmt_ms(cpp["wall_s"]) + " / " + fmt_mb(cpp["peak_rss_kb"]), ratio(cpp["wall_s"], fp["wall_s"]),
                fmt_ms(r["fakeprop_nocache"]["wall_s"])))
        print()
    if res["fx"]:
        torch_version = res["fx"][0]["ftp"].get("torch", "?")
        print("FX graphs (ATen, make_fx), per node: fakeprop's propagate phase vs FakeTensorProp's node walk "
              "(torch %s, in process), both over the same nodes, best of %d\n" % (torch_version, res["repeat"]))
        print("| graph | nodes | fakeprop propagate | per node | FakeTensorProp walk | per node | ratio | fakeprop load |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in res["fx"]:
            fp, ftp = r["fakeprop"], r["ftp"]
            n = ftp["nodes"]
            print("| %s | %d | %s | %.2f us | %s | %.0f us | %s | %s |" % (
                r["model"], n, fmt_ms(fp["propagate_ms"] / 1000), fp["propagate_ms"] * 1000 / n,
                fmt_ms(ftp["best_run_ms"] / 1000), ftp["best_run_ms"] * 1000 / n,
                ratio(ftp["best_run_ms"], fp["propagate_ms"]), fmt_ms(fp["load_ms"] / 1000)))
        print()
        print("fakeprop: --stats propagate phase, first walk in a fresh process; FakeTensorProp: the walk over "
              "inputs already fake, warm (best of runs in one process).\n")
        walks = [r for r in res["fx"] if r.get("fakeprop_walk")]
        if walks:
            print("FX graphs, per node, both warm: fakeprop_fx_walk (graph loaded once, walked %d times in one process, "
                  "best) vs FakeTensorProp's best walk\n" % len(walks[0]["fakeprop_walk"]["runs_ms"]))
            print("| graph | nodes | fakeprop walk | per node | first walk | FakeTensorProp walk | per node | ratio |")
            print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
            for r in walks:
                w, ftp = r["fakeprop_walk"], r["ftp"]
                n = ftp["nodes"]
                print("| %s | %d | %s | %.2f us | %s | %s | %.0f us | %s |" % (
                    r["model"], n, fmt_ms(w["best_ms"] / 1000), w["best_ms"] * 1000 / n, fmt_ms(w["first_ms"] / 1000),
                    fmt_ms(ftp["best_run_ms"] / 1000), ftp["best_run_ms"] * 1000 / n,
                    ratio(ftp["best_run_ms"], w["best_ms"])))
            print()
        print("FX graphs, whole process: fakeprop (start, load, propagate, JSON report) vs FakeTensorProp\n")
        print("| graph | nodes | fakeprop | per node | FakeTensorProp walk | ratio | propagate() incl. fakeify | ratio |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in res["fx"]:
            fp, ftp = r["fakeprop"], r["ftp"]
            n = ftp["nodes"]
            print("| %s | %d | %s | %.1f us | %s | %s | %s | %s |" % (
                r["model"], n, fmt_ms(fp["wall_s"]), fp["wall_s"] * 1e6 / n, fmt_ms(ftp["best_run_ms"] / 1000),
                ratio(ftp["best_run_ms"] / 1000, fp["wall_s"]), fmt_ms(ftp["best_ms"] / 1000),
                ratio(ftp["best_ms"] / 1000, fp["wall_s"])))
        print()
    if res["synthetic"]:
        print("Synthetic graphs (residual MatMul/Add/Reshape/Transpose/Concat blocks, symbolic batch and seq)\n")
        print("| nodes | file | fakeprop | per node | peak RSS | without cache | per node | libonnx (C++) | ratio | onnx (Python) | ratio |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in res["synthetic"]:
            fp, nc, cpp, py = r["fakeprop"], r["fakeprop_nocache"], r["onnx_cpp"], r.get("onnx_py")
            n = r["nodes"]
            print("| %d | %s | %s | %.2f us | %s | %s | %.2f us | %s | %s | %s | %s |" % (
                n, fmt_mb(r["file_bytes"] / 1024), fmt_ms(fp["wall_s"]), fp["wall_s"] * 1e6 / n,
                fmt_mb(fp["peak_rss_kb"]), fmt_ms(nc["wall_s"]), nc["wall_s"] * 1e6 / n, fmt_ms(cpp["wall_s"]),
                ratio(cpp["wall_s"], fp["wall_s"]), fmt_ms(py["wall_s"]) if py else "-",
                ratio(py["wall_s"], fp["wall_s"]) if py else "-"))
        print()
        print("fakeprop --stats on the largest synthetic graph: " + " | ".join(res["synthetic"][-1]["fakeprop"]["stats"]))
        print()
        print("The same blocks as JSON FX graphs (gen_synthetic.py --fx), whole process and --stats phases\n")
        print("| nodes | file | fakeprop | per node | peak RSS | load | propagate | report |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in res["synthetic"]:
            fx = r.get("fakeprop_fx")
            if not fx:
                continue
            n = r["nodes"]
            print("| %d | %s | %s | %.2f us | %s | %.0f ms | %.0f ms | %.0f ms |" % (
                n, fmt_mb(fx.get("file_bytes", 0) / 1024), fmt_ms(fx["wall_s"]), fx["wall_s"] * 1e6 / n,
                fmt_mb(fx["peak_rss_kb"]), fx["load_ms"], fx["propagate_ms"], fx["report_ms"]))
        print()
    c = res["check"]
    if c:
        print("fakeprop check over %d models: -j 1 %s, every core %s (%s)\n" % (
            c["models"], fmt_ms(c["j1"]["wall_s"]), fmt_ms(c["j0"]["wall_s"]),
            ratio(c["j1"]["wall_s"], c["j0"]["wall_s"])))
        print("(CPU time: -j 1 %s, every core %s)\n" % (fmt_ms(c["j1"]["cpu_s"]), fmt_ms(c["j0"]["cpu_s"])))


if __name__ == "__main__":
    main()
