#!/usr/bin/env python3
"""Hostile files and hostile paths (issue 41), through the real binary and the package.

Each case makes its corpus in a fresh folder (symbolic links, FIFOs, devices, zip bombs,
declared-size lies, a byte order mark, outputs aimed at the run's own inputs), runs
fakeprop, and checks the exit code, the one-line message, what is left on disk, how long
it took and how much memory it peaked at. Run as root, it runs every case a second time as
the unprivileged user `nobody` (CI runs as root; a hostile file must be refused by either).

    hostile_files.py [--sanitized] BUILD_DIR [PACKAGE_PYTHON]

Needs python3-onnx (Debian's) to write the ONNX models; the package's cases run with
PACKAGE_PYTHON (the interpreter the CMake build made BUILD_DIR/python for) where it is given
and can be run. --sanitized (an ASan build) leaves out the checks of time and peak memory.
Ends with 'N passed, N failed'.
"""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

from onnx import TensorProto, helper, save

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(os.path.dirname(HERE), "samples")
TIMEOUT = 20  # seconds: a case that takes this long is a hang


# ---------------------------------------------------------------- corpus

def external_tensor(name, data_type, dims, location):
    t = TensorProto()
    t.name, t.data_type = name, data_type
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    entry = t.external_data.add()
    entry.key, entry.value = "location", location
    return t


def onnx_model(path, nodes, inputs, outputs, initializers):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=initializers)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def exfiltrating_model(path, location):
    """Four bytes of external data become the output's shape: uint8 -> Cast -> ConstantOfShape."""
    onnx_model(path, [helper.make_node("Cast", ["secret"], ["wide"], to=TensorProto.INT64, name="cast"),
                      helper.make_node("ConstantOfShape", ["wide"], ["y"], name="spell")],
               [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
               [external_tensor("secret", TensorProto.UINT8, [4], location)])


def weights_model(folder, location="data.bin"):
    """Reshape's shape [3, 2] read from external data: a run reads data.bin."""
    with open(os.path.join(folder, location), "wb") as f:
        f.write((3).to_bytes(8, "little") + (2).to_bytes(8, "little"))
    path = os.path.join(folder, "model.onnx")
    onnx_model(path, [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
               [external_tensor("shape", TensorProto.INT64, [2], location)])
    return path


def pt2_bomb(path, inflated):
    """A .pt2 whose program member inflates `inflated` bytes of spaces from a few hundred KB."""
    chunk = b" " * (1 << 20)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("model/models/model.json", "w", force_zip64=True) as member:
            for _ in range(inflated >> 20):
                member.write(chunk)


def pt2_declared_lie(path, declared):
    """A small archive whose program member records `declared` bytes (local header and directory)."""
    body = b'{"schema_version": {"major": 8, "minor": 20}}'
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("model/models/model.json", body)
    data = bytearray(open(path, "rb").read())
    lie = declared.to_bytes(4, "little")
    local = data.find(b"PK\x03\x04")
    data[local + 22:local + 26] = lie  # uncompressed size
    central = data.find(b"PK\x01\x02")
    data[central + 24:central + 28] = lie
    open(path, "wb").write(bytes(data))


# ---------------------------------------------------------------- running

class Result:
    def __init__(self, rc, out, err, seconds, max_rss_kb):
        self.rc, self.out, self.err, self.seconds, self.max_rss_kb = rc, out, err, seconds, max_rss_kb


def run(argv, cwd, stdout=None, env=None):
    """Runs argv with its own peak RSS (wait4), its time and a hang limit."""
    start = time.monotonic()
    out_target = stdout if stdout is not None else subprocess.PIPE
    proc = subprocess.Popen(argv, cwd=cwd, stdout=out_target, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=env)
    timer = threading.Timer(TIMEOUT, proc.kill)
    timer.start()
    out = proc.stdout.read() if stdout is None else b""
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Result(proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"),
                  time.monotonic() - start, usage.ru_maxrss)


class Cases:
    def __init__(self, build, package_python, sanitized=False):
        self.fakeprop = os.path.join(build, "fakeprop")
        self.package = os.path.join(build, "python")
        self.probe = os.path.join(build, "python_test_modules")
        self.package_python = package_python
        self.sanitized = sanitized
        self.passed, self.failed = 0, []
        self.who = "root" if os.geteuid() == 0 else "user %d" % os.geteuid()

    def check(self, name, condition, why):
        if condition:
            self.passed += 1
        else:
            self.failed.append("%s (%s): %s" % (name, self.who, why))
            print("FAIL %s (%s): %s" % (name, self.who, why), flush=True)

    def expect(self, name, result, rc, message=None, seconds=None, max_rss_mb=None):
        self.check(name, result.rc == rc, "exit %d, expected %d; stderr: %s" % (result.rc, rc, result.err.strip()[:300]))
        if message is not None:
            lines = [l for l in result.err.splitlines() if l.strip()]
            self.check(name, len(lines) == 1 and re.search(message, lines[0]) is not None,
                       "expected one line matching %r, got %r" % (message, result.err.strip()[:300]))
        if seconds is not None and not self.sanitized:
            self.check(name, result.seconds < seconds, "took %.2f s, limit %.1f s" % (result.seconds, seconds))
        if max_rss_mb is not None and not self.sanitized:
            self.check(name, result.max_rss_kb < max_rss_mb * 1024,
                       "peak RSS %.0f MB, limit %d MB" % (result.max_rss_kb / 1024, max_rss_mb))

    def cli(self, *args, cwd, stdout=None):
        return run([self.fakeprop] + list(args), cwd, stdout=stdout)

    def package_run(self, code, cwd):
        env = dict(os.environ, PYTHONPATH=self.package + os.pathsep + self.probe)
        return run([self.package_python, "-c", code], cwd, env=env)


def fresh(root, name):
    d = os.path.join(root, name)
    os.makedirs(d)
    return d


def read(path):
    with open(path, "rb") as f:
        return f.read()


def devices(root):
    """/dev/null, /dev/full and /dev/stdout, or, as root, private twins: a broken fakeprop
    replaces what it writes to, and the machine's own must survive a failing test."""
    if os.geteuid() != 0:
        return "/dev/null", "/dev/full", "/dev/stdout"
    d = fresh(root, "dev")
    os.mknod(os.path.join(d, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(os.path.join(d, "full"), 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    os.symlink("/proc/self/fd/1", os.path.join(d, "stdout"))
    return os.path.join(d, "null"), os.path.join(d, "full"), os.path.join(d, "stdout")


def all_cases(c, root):
    dev_null, dev_full, dev_stdout = devices(root)
    # 1. Writing never replaces what stands at the target.
    d = fresh(root, "targets")
    model = weights_model(d)
    r = c.cli(model, "--report", dev_null, cwd=d)
    c.expect("report_to_dev_null", r, 0)
    c.check("report_to_dev_null", stat.S_ISCHR(os.stat(dev_null).st_mode), "the null device is no longer a device")
    with open(os.path.join(d, "piped"), "wb") as sink:
        r = c.cli(model, "--report", dev_stdout, cwd=d, stdout=sink)
    c.expect("report_to_dev_stdout", r, 0)
    c.check("report_to_dev_stdout", read(os.path.join(d, "piped")).startswith(b"{"), "no report on standard output")
    c.check("report_to_dev_stdout", os.path.islink(dev_stdout), "the stdout link was replaced")
    os.makedirs(os.path.join(d, "real"))
    os.symlink(os.path.join(d, "real", "report.json"), os.path.join(d, "link.json"))
    open(os.path.join(d, "real", "report.json"), "w").write("old")
    r = c.cli(model, "--report", "link.json", cwd=d)
    c.expect("report_through_symlink", r, 0)
    c.check("report_through_symlink", os.path.islink(os.path.join(d, "link.json")), "the link was replaced")
    c.check("report_through_symlink", read(os.path.join(d, "real", "report.json")).startswith(b"{"),
            "the link's file was not written")
    os.symlink(os.path.join(d, "nowhere", "r.json"), os.path.join(d, "dangling.json"))
    c.expect("report_through_dangling_symlink", c.cli(model, "--report", "dangling.json", cwd=d), 2,
             r"dangling\.json: a symbolic link to a file that does not exist")
    os.makedirs(os.path.join(d, "folder"))
    c.expect("report_to_directory", c.cli(model, "--report", "folder", cwd=d), 2, r"folder: is a directory")
    c.expect("html_to_directory", c.cli(model, "--html", "folder", cwd=d), 2, r"folder: is a directory")
    c.check("no_temporaries_left", sorted(os.listdir(d)) ==
            sorted(["model.onnx", "data.bin", "real", "link.json", "dangling.json", "folder", "piped"]),
            "left behind: %s" % sorted(os.listdir(d)))

    # 2. External data never follows a symbolic link out of the model's folder.
    d = fresh(root, "exfiltrate")
    outside = os.path.join(root, "outside_secret")
    open(outside, "wb").write(b"\x05\x06\x07\x08rest")
    os.symlink(outside, os.path.join(d, "secret"))
    exfiltrating_model(os.path.join(d, "exfil.onnx"), "secret")
    r = c.cli("exfil.onnx", cwd=d)
    c.expect("external_data_symlink", r, 2, r"secret: it is a symbolic link; a file a model names is read only")
    c.check("external_data_symlink", "5, 6, 7, 8" not in r.out, "the output spells the secret: %s" % r.out[:200])
    os.makedirs(os.path.join(d, "sub"))
    os.symlink(root, os.path.join(d, "up"))
    exfiltrating_model(os.path.join(d, "through_dir.onnx"), "up/outside_secret")
    c.expect("external_data_symlinked_folder", c.cli("through_dir.onnx", cwd=d), 2, r"'up' is a symbolic link")
    # The same bytes in a regular file inside the folder are read (the model is fine otherwise).
    shutil.copy(outside, os.path.join(d, "plain"))
    exfiltrating_model(os.path.join(d, "plain.onnx"), "plain")
    r = c.cli("plain.onnx", cwd=d)
    c.expect("external_data_regular_file", r, 0)
    c.check("external_data_regular_file", "[5, 6, 7, 8]" in r.out, "expected y: float32[5, 6, 7, 8]: %s" % r.out[:300])

    # 3. Outputs never overwrite any input of the run.
    d = fresh(root, "inputs")
    model = weights_model(d)
    rules = os.path.join(d, "extra.rules")
    shutil.copy(os.path.join(SAMPLES, "custom_ops.rules"), rules)
    os.link(os.path.join(d, "data.bin"), os.path.join(d, "hard.bin"))
    weights = read(os.path.join(d, "data.bin"))
    for flag in ("-o", "--report", "--html"):
        for target, role in (("data.bin", "the model's external data"), ("hard.bin", "the model's external data"),
                             ("model.onnx", "the input model")):
            c.expect("%s_over_%s" % (flag.strip("-"), target), c.cli(model, flag, target, cwd=d), 2,
                     r"%s: refusing to overwrite %s" % (re.escape(target), re.escape(role)))
    c.expect("report_over_rules_file", c.cli(model, "--op-rules", rules, "--report", rules, cwd=d), 2,
             r"refusing to overwrite an --op-rules file")
    c.check("inputs_unchanged", read(os.path.join(d, "data.bin")) == weights, "data.bin changed")

    # 4. Write errors on standard output and on files are errors.
    d = fresh(root, "full")
    model = weights_model(d)
    if os.path.exists(dev_full):
        with open(dev_full, "wb") as full:
            c.expect("json_to_full_stdout", c.cli(model, "--json", cwd=d, stdout=full), 2,
                     r"standard output: No space left on device")
            c.expect("summary_to_full_stdout", c.cli(model, cwd=d, stdout=full), 2,
                     r"standard output: No space left on device")
        c.expect("report_to_dev_full", c.cli(model, "--report", dev_full, cwd=d), 2,
                 r"full: cannot write: No space left on device")
        c.check("report_to_dev_full", stat.S_ISCHR(os.stat(dev_full).st_mode), "the full device is no longer a device")

    # 5. A FIFO anywhere a file is read is refused at once, never waited on.
    d = fresh(root, "fifo")
    model = weights_model(d, "pipe")
    os.remove(os.path.join(d, "pipe"))
    os.mkfifo(os.path.join(d, "pipe"))
    c.expect("external_data_fifo", c.cli(model, cwd=d), 2, r"pipe: is a FIFO, not a regular file", seconds=5)
    os.makedirs(os.path.join(d, "baselines"))
    c.expect("external_data_fifo_check", c.cli("check", model, "--baseline", "baselines", "--update", cwd=d), 2,
             seconds=5)
    os.mkfifo(os.path.join(d, "model_pipe"))
    c.expect("model_fifo", c.cli("model_pipe", cwd=d), 2, r"model_pipe: is a FIFO", seconds=5)
    os.mkfifo(os.path.join(d, "rules_pipe"))
    c.expect("rules_fifo", c.cli(model, "--op-rules", "rules_pipe", cwd=d), 2, r"rules_pipe: is a FIFO", seconds=5)
    c.expect("workload_fifo", c.cli(os.path.join(SAMPLES, "pick_rows.json"), "--workload", "rules_pipe", cwd=d), 2,
             r"rules_pipe: is a FIFO", seconds=5)

    # 6. A .pt2's recorded sizes are not trusted; a zip bomb stops early.
    d = fresh(root, "pt2")
    pt2_declared_lie(os.path.join(d, "lie.pt2"), 1000 << 20)
    # Against a run of the smallest model, to leave out what the process costs before it reads.
    base_mb = c.cli(os.path.join(SAMPLES, "add_two.onnx"), cwd=d).max_rss_kb / 1024
    c.expect("pt2_declared_size", c.cli("lie.pt2", cwd=d), 2, r"lie\.pt2", seconds=2, max_rss_mb=base_mb + 8)
    pt2_bomb(os.path.join(d, "bomb.pt2"), 400 << 20)
    c.check("pt2_bomb_is_small", os.path.getsize(os.path.join(d, "bomb.pt2")) < 2 << 20, "the bomb is not small")
    c.expect("pt2_zip_bomb", c.cli("bomb.pt2", cwd=d), 2, r"bomb\.pt2: model/models/model\.json: inflates past \d+ bytes",
             seconds=1, max_rss_mb=100)
    c.expect("pt2_zip_bomb_ratio_raised", c.cli("bomb.pt2", "--max-compression-ratio", "100000",
                                                "--max-program-bytes", str(64 << 20), cwd=d), 2,
             r"records 419430400 bytes, over the limit of 67108864 for a program \(--max-program-bytes\)", max_rss_mb=250)
    for i in range(3):
        shutil.copy(os.path.join(d, "bomb.pt2"), os.path.join(d, "bomb%d.pt2" % i))
    os.makedirs(os.path.join(d, "baselines"))
    r = c.cli("check", "bomb.pt2", "bomb0.pt2", "bomb1.pt2", "bomb2.pt2", "-j", "4", "--baseline", "baselines",
              "--update", cwd=d)
    c.expect("pt2_zip_bombs_checked_in_parallel", r, 2, seconds=3, max_rss_mb=250)

    # 9. A JSON FX graph starting with a UTF-8 byte order mark is read.
    d = fresh(root, "bom")
    open(os.path.join(d, "bom.json"), "wb").write(b"\xef\xbb\xbf" + read(os.path.join(SAMPLES, "pick_rows.json")))
    c.expect("json_with_byte_order_mark", c.cli("bom.json", cwd=d), 0)

    # 9. What ONNX's checker rejects but can be read is read, with a warning of its own kind.
    d = fresh(root, "lesser")
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)

    def relu_model(name, inputs, opset=17):
        graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g", inputs, [y])
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), os.path.join(d, name))

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    relu_model("opset.onnx", [x], opset=10 ** 9)
    relu_model("negative.onnx", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-1, 3])])
    relu_model("duplicate.onnx", [x, helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3])])
    graph = helper.make_graph([helper.make_node("Relu", ["x", "x", "x"], ["y"], name="relu")], "g", [x], [y])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(d, "extra.onnx"))
    for name, kind, text in (("opset.onnx", "unknown_opset", "ai.onnx version 1000000000 is newer"),
                             ("negative.onnx", "negative_dim", "value 'x': dim_value -1 is no size"),
                             ("duplicate.onnx", "duplicate_input", "graph input 'x' is declared more than once"),
                             ("extra.onnx", "extra_inputs", "Relu (opset 17) takes at most 1 input(s); the node names 3")):
        r = c.cli(name, "--json", cwd=d)
        c.expect("warning_" + kind, r, 0)
        try:
            warnings = json.loads(r.out).get("warnings", [])
        except ValueError:
            warnings = []
        c.check("warning_" + kind, any(w["kind"] == kind and text in w["message"] for w in warnings),
                "no %s warning: %s" % (kind, warnings))

    # The package: the same refusals as exceptions, and threads that share a target.
    if not c.package_python or not os.path.isdir(os.path.join(c.package, "fakeprop")):
        print("skipped: the package's cases (no package built for a Python given)")
        return
    probe = run([c.package_python, "-c", "import sys; print(sys.version)"], root)
    if probe.rc != 0:
        print("skipped: the package's cases (%s cannot run its Python)" % c.who)
        return
    d = fresh(root, "package")
    model = weights_model(d)
    os.mkfifo(os.path.join(d, "pipe"))
    fifo_model = os.path.join(d, "fifo.onnx")
    exfiltrating_model(fifo_model, "pipe")
    code = f"""
import threading, fakeprop
def raises(fn, text):
    try:
        fn()
    except fakeprop.InputError as e:
        assert text in str(e), str(e)
        return
    raise AssertionError("no InputError: " + text)
raises(lambda: fakeprop.infer({fifo_model!r}), "is a FIFO")
raises(lambda: fakeprop.infer({model!r}, output={d + '/data.bin'!r}), "refusing to overwrite the model's external data")
raises(lambda: fakeprop.infer({model!r}, html={model!r}), "refusing to overwrite the input model")
raises(lambda: fakeprop.infer({model!r} + "\\0x"), "NUL")
failures = []
def writer():
    for _ in range(25):
        try:
            fakeprop.infer({model!r}, html={d + '/shared.html'!r})
        except Exception as e:
            failures.append(e)
threads = [threading.Thread(target=writer) for _ in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
assert not failures, failures[:3]
# 8. Exceptions of another extension keep their types once fakeprop is loaded.
import fakeprop._core, translator_probe
for fn, cls in ((translator_probe.throw_runtime_error, RuntimeError),
                (translator_probe.throw_invalid_argument, ValueError)):
    try:
        fn()
    except fakeprop.Error as e:
        raise AssertionError("fakeprop translated another module's exception: %r" % e)
    except cls:
        pass
print("package ok")
"""
    r = c.package_run(code, d)
    c.expect("package_refusals_and_threads", r, 0)
    c.check("package_refusals_and_threads", "package ok" in r.out, r.err[-500:])
    c.check("package_no_temporaries", sorted(os.listdir(d)) == sorted(["model.onnx", "data.bin", "pipe", "fifo.onnx",
                                                                        "shared.html"]),
            "left behind: %s" % sorted(os.listdir(d)))


def run_as_nobody(build, sanitized):
    """The same cases as `nobody`, from copies it can read (a clone under /root is out of its reach)."""
    stage = tempfile.mkdtemp(prefix="fakeprop_nobody_")
    try:
        os.makedirs(os.path.join(stage, "build"))
        shutil.copy2(os.path.join(build, "fakeprop"), os.path.join(stage, "build", "fakeprop"))
        shutil.copytree(HERE, os.path.join(stage, "testdata", "hostile_files"))
        shutil.copytree(SAMPLES, os.path.join(stage, "testdata", "samples"))
        os.makedirs(os.path.join(stage, "tmp"))
        os.chown(os.path.join(stage, "tmp"), 65534, 65534)
        for folder, dirs, files in os.walk(stage):
            for name in dirs + files:
                os.chmod(os.path.join(folder, name), os.stat(os.path.join(folder, name)).st_mode | 0o755)
        os.chmod(stage, 0o755)
        env = dict(os.environ, FAKEPROP_HOSTILE_UNPRIVILEGED="1", TMPDIR=os.path.join(stage, "tmp"))
        argv = [sys.executable, os.path.join(stage, "testdata", "hostile_files", "hostile_files.py")]
        argv += (["--sanitized"] if sanitized else []) + [os.path.join(stage, "build")]
        child = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + argv, env=env,
                               capture_output=True, text=True, cwd=stage)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    sys.stdout.write(child.stdout)
    sys.stderr.write(child.stderr)
    print("hostile files as nobody: exit %d" % child.returncode)
    return child.returncode


def main():
    args = [a for a in sys.argv[1:] if a]  # CMake passes an empty argument for a false generator expression
    sanitized = args[:1] == ["--sanitized"]
    args = args[1:] if sanitized else args
    build = os.path.abspath(args[0])
    package_python = args[1] if len(args) > 1 else None
    c = Cases(build, package_python, sanitized)
    root = tempfile.mkdtemp(prefix="fakeprop_hostile_")
    try:
        os.chmod(root, 0o755)
        all_cases(c, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    status = 0
    if os.geteuid() == 0 and not os.environ.get("FAKEPROP_HOSTILE_UNPRIVILEGED"):
        status = run_as_nobody(build, sanitized)
    print("%d passed, %d failed" % (c.passed, len(c.failed)))
    return 1 if c.failed or status else 0


if __name__ == "__main__":
    sys.exit(main())
