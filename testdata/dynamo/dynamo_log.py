"""Reading Dynamo's TORCH_LOGS text and fakeprop's `--log` / `--trace-dir` output as the same events.

Shared by scripts/dynamo_scenarios.py (which writes torch's side into the goldens) and
test_dynamo_scenarios.py (which reads fakeprop's side); needs neither torch nor fakeprop.

Both sides print glog-style lines, `I1204 14:20:51.461000 7989 <file>:<line>] [0/0] <message>`
(a multi-line message repeats the prefix on every line). `parse_glog` keeps level, file and
frame id and drops timestamp, pid and line number; `frame_events` turns one frame's messages
into the events compared: backed symbols (create_symbol, duck sizing), unbacked symbols
(create_unbacked_symint and their final range), guards added (`eval ... [guard added]`),
runtime asserts (`runtime_assert ... [guard added]`), replacements (set_replacement), the
guards Dynamo installs (the root LAMBDA_GUARDs of the [__guards] tree), and recompile reasons.
Symbol names stay as they are: both name a backed symbol by a hash of its source (s77 for
L['x'].size()[0]) and count unbacked ones (u0, u1, ...), so a name that differs is a difference.
"""
import json
import re

GLOG = re.compile(r"^([IVWEDF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ([^\s:\]]+):\d+\] (?:(\[\d+/\d+(?:_\d+)?\]) )?(.*)$")

# Python locations inside torch and the program (`_subclasses/fake_impls.py:2435`), and the
# temporary path of the program file, which torch abbreviates to its last characters.
_PYLOC = re.compile(r"([\w./<>-]+\.py):\d+")
_PROGRAM = re.compile(r"[^\s\"']*prog_\w+\.py(:\d+)?")
_ADVICE = re.compile(r",? for more info run with TORCHDYNAMO_EXTENDED_DEBUG_\w+=\S+.*$")


def normalize_message(msg):
    """A message with the program's path as `program.py:LINE` (its line numbers are stable: the
    program text is in the golden), other Python locations without line numbers, and the
    TORCHDYNAMO_EXTENDED_* advice cut."""
    msg = _ADVICE.sub("", msg)
    msg = _PROGRAM.sub(lambda m: "program.py" + (m.group(1) or ""), msg)
    msg = _PYLOC.sub(lambda m: m.group(0) if m.group(1) == "program.py" else m.group(1), msg)
    return msg.rstrip()


def parse_glog(text):
    """[(level, file, frame or None, message)] for every glog-prefixed line of `text`."""
    out = []
    for line in text.splitlines():
        m = GLOG.match(line)
        if m:
            level, path, frame, msg = m.groups()
            out.append((level, path.rsplit("/", 1)[-1], frame[1:-1] if frame else None, msg))
    return out


# Messages kept in a golden's log: what the comparison reads, and what explains it.
KEEP = re.compile(
    r"^(create_symbol |create_unbacked_sym|constrain_symbol_range |eval |runtime_assert |set_replacement "
    r"|produce_guards$|compute_unbacked_bindings |could not evaluate |marking L\[|_update_var_to_range "
    r"|propagate_real_tensors |torch\._dynamo hit config\.|\[__recompiles\] |\[__guards\] (\+- LAMBDA_GUARD|\| \| \+- TENSOR_MATCH))")


def kept_lines(records):
    """The records worth keeping, as normalized one-line texts `L file] [0/0] message`."""
    out = []
    for level, path, frame, msg in records:
        if not KEEP.match(msg):
            continue
        if msg.startswith("could not evaluate ") and "due to data dependency" not in msg:
            continue
        out.append("%s %s] %s%s" % (level, path, "[%s] " % frame if frame else "", normalize_message(msg)))
    return out


LINE = re.compile(r"^([IVWEDF]) (\S+)\] (?:\[(\d+/\d+(?:_\d+)?)\] )?(.*)$")


def split_kept(lines):
    """kept_lines' texts back into (frame, message)."""
    out = []
    for line in lines:
        m = LINE.match(line)
        if m:
            out.append((m.group(3), m.group(4)))
    return out


_CREATE = re.compile(r"^create_symbol (\w+) = (-?\d+) for (\S+) \[([^\]]*)\]")
_DUCK = re.compile(r"^create_symbol (\w+) duck sized (\S+)")
_UNBACKED = re.compile(r"^create_unbacked_sym\w* (\w+) \[([^\]]*)\]")
_CONSTRAIN = re.compile(r"^constrain_symbol_range (\w+) \[([^\]]*)\]")
_VR_UPDATE = re.compile(r"^_update_var_to_range (\w+) = VR\[([^\]]*)\]")
_GUARD = re.compile(r"^eval (\[guard suppressed\] )?(.+?) \[guard added\]")
_ASSERT = re.compile(r"^runtime_assert (.+?) \[guard added\]")
_REPLACE = re.compile(r"^set_replacement (\w+) = (.+?) \((\w+)\)(?: VR\[|$)")
_LAMBDA = re.compile(r"^\[__guards\] \+- LAMBDA_GUARD: (.+?)(?:  +# .*)?$")
_TENSOR_MATCH = re.compile(r"^\[__guards\] \| \| \+- TENSOR_MATCH: check_tensor\((L\['\w+'\]), .*?size=\[([^\]]*)\]")
_REASON = re.compile(r"^\[__recompiles\]     - (.+)$")
_LIMIT = re.compile(r"^torch\._dynamo hit config\.(\w+) \((\d+)\)")


def frame_events(messages):
    """The events of one frame's messages (torch's names), in order of appearance."""
    ev = {"symbols": [], "unbacked": [], "guards_added": [], "guards_suppressed": [], "runtime_asserts": [],
          "replacements": [], "guards": [], "dynamic_dims": {}, "recompile_reasons": [], "recompile_limit": None,
          "produce_guards": 0}
    renamed = set()  # unbacked symbols AOTAutograd's retrace made and renamed back (rename_unbacked_to)
    for msg in messages:
        m = _REPLACE.match(msg)
        if m and m.group(3) == "rename_unbacked_to":
            renamed.add(m.group(1))
    final = {}  # the last range each symbol was given (constrain_symbol_range, _update_var_to_range)
    for msg in messages:
        m = _CONSTRAIN.match(msg) or _VR_UPDATE.match(msg)
        if m:
            final[m.group(1)] = m.group(2)
    for msg in messages:
        if _CREATE.match(msg):
            name, val, source, rng = _CREATE.match(msg).groups()
            ev["symbols"].append({"name": name, "val": int(val), "source": source, "range": rng})
        elif _DUCK.match(msg):
            name, source = _DUCK.match(msg).groups()
            ev["symbols"].append({"name": name, "duck": True, "source": source})
        elif _UNBACKED.match(msg):
            name, rng = _UNBACKED.match(msg).groups()
            if name not in renamed:
                ev["unbacked"].append({"name": name, "range": rng, "final": final.get(name, rng)})
        elif _GUARD.match(msg):
            suppressed, expr = _GUARD.match(msg).groups()
            ev["guards_suppressed" if suppressed else "guards_added"].append(expr)
        elif _ASSERT.match(msg):
            ev["runtime_asserts"].append(_ASSERT.match(msg).group(1))
        elif _REPLACE.match(msg):
            a, b, reason = _REPLACE.match(msg).groups()
            if reason != "rename_unbacked_to":
                ev["replacements"].append("%s = %s (%s)" % (a, b, reason))
        elif _LAMBDA.match(msg):
            ev["guards"].append(_LAMBDA.match(msg).group(1))
        elif _TENSOR_MATCH.match(msg):
            src, size = _TENSOR_MATCH.match(msg).groups()
            ev["dynamic_dims"][src] = [i for i, d in enumerate(size.split(", ")) if d == "None"]
        elif _REASON.match(msg):
            # a shape guard's failure carries its guard's location comment: cut
            ev["recompile_reasons"].append(re.sub(r"  +# .*$", "", _REASON.match(msg).group(1)))
        elif _LIMIT.match(msg):
            ev["recompile_limit"] = "%s (%s)" % _LIMIT.match(msg).groups()
        elif msg == "produce_guards":
            ev["produce_guards"] += 1
    return ev


def recompile_log_events(text):
    """Recompiles in the plain text of Dynamo's recompile log (fakeprop's report.recompiles.log):
    {"recompiles": [[reason, ...] per "Recompiling function" block], "recompile_limit": "recompile_limit (N)"}."""
    blocks, limit = [], None
    for line in text.splitlines():
        if line.startswith("Recompiling function "):
            blocks.append([])
        elif line.startswith("    - ") and blocks:
            blocks[-1].append(re.sub(r"  +# .*$", "", line[6:]))
        elif _LIMIT.match(line):
            limit = "%s (%s)" % _LIMIT.match(line).groups()
    return {"recompiles": blocks, "recompile_limit": limit}


def events_by_frame(pairs):
    """{frame: events} from (frame, message) pairs; messages without a frame are skipped."""
    frames = {}
    for frame, msg in pairs:
        if frame is not None:
            frames.setdefault(frame, []).append(msg)
    return {f: frame_events(msgs) for f, msgs in frames.items()}


def normalized(ev):
    """One frame's events as the texts the comparison uses, in order of appearance (the comparison
    sorts those whose order is not part of the contract)."""
    syms = []
    for s in ev["symbols"]:
        if s.get("duck"):
            syms.append("%s duck sized %s" % (s["name"], s["source"]))
        else:
            syms.append("%s = %d for %s [%s]" % (s["name"], s["val"], s["source"], s["range"]))
    return {
        "symbols": syms,
        "unbacked": ["%s [%s] final [%s]" % (u["name"], u["range"], u.get("final", u["range"])) for u in ev["unbacked"]],
        "guards_added": list(ev["guards_added"]),
        "runtime_asserts": list(ev["runtime_asserts"]),
        "replacements": list(ev["replacements"]),
        "guards": list(ev["guards"]),
    }


def error_core(message):
    """An exception text up to its first blank line."""
    lines = []
    for line in (message or "").splitlines():
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.rstrip())
    return "\n".join(lines)


def parse_trace(text):
    """fakeprop's --trace-dir log as {frame: {"symbols": [...], "unbacked": [...], "guards": [...],
    "guards_added": [...]}} (frame "0/N" from frame_compile_id). Payload lines follow their header,
    tab-indented."""
    frames = {}
    current = None
    for line in text.splitlines():
        if line.startswith("\t"):
            if current is not None:
                current[1].append(line[1:])
            continue
        i = line.find("] {")
        if i < 0:
            continue
        head = json.loads(line[i + 2:])
        current = [head, []]
        frames.setdefault("_order", []).append(current)
    out = {}
    for head, payload in frames.get("_order", []):
        if "frame_compile_id" not in head:
            continue
        frame = "%d/%d" % (head.get("frame_id", 0), head["frame_compile_id"])
        ev = out.setdefault(frame, {"symbols": [], "unbacked": [], "guards": [], "guards_added": [],
                                    "runtime_asserts": [], "replacements": [], "guards_suppressed": [],
                                    "dynamic_dims": {}, "recompile_reasons": [], "recompile_limit": None,
                                    "produce_guards": 0})
        if "create_symbol" in head:
            c = head["create_symbol"]
            if not re.match(r"^-?\d+$", str(c["val"])):
                continue  # a float input's zf<N>: compared in neither side (_CREATE takes integers)
            ev["symbols"].append({"name": c["symbol"], "val": int(c["val"]), "source": c["source"],
                                  "range": c["vr"].strip("[]")})
        elif "create_unbacked_symbol" in head:
            c = head["create_unbacked_symbol"]
            ev["unbacked"].append({"name": c["symbol"], "range": c.get("vr", "").strip("[]")})
        elif "guard_added_fast" in head:
            ev["guards_added"].append(head["guard_added_fast"]["expr"])
        elif "dynamo_guards" in head:
            body = json.loads("\n".join(payload) or "[]")
            ev["guards"] = [g["code"] for g in body]
    return out
