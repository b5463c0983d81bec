"""read_trace.py DIR: reads the one TORCH_TRACE log in DIR as tlparse does and prints, per compile,
its events in order with their main fields. Exits 1, naming the line, where tlparse would drop a
line or fail --strict: a header that is not glog-style with 6-digit microseconds, an envelope that
is not one JSON object with one event, a payload whose md5 differs from its header's, tab lines
without a header that announced them, a stack frame whose file id no earlier "str" line declared,
an event without attempt 0, a fail_type without a fail_reason, or an event of a compile after that
compile's compilation_metrics (tlparse drops guards and specializations that come after it)."""
import glob
import hashlib
import json
import re
import sys

HEADER = re.compile(r"^V\d{4} \d{2}:\d{2}:\d{2}\.\d{6} \d+ [^:]+:\d+\] (\{.*\})$")
EVENTS = {"str", "dynamo_start", "create_symbol", "create_unbacked_symbol", "guard_added_fast",
          "symbolic_shape_specialization", "dynamo_output_graph", "dynamo_guards", "artifact",
          "compilation_metrics", "propagate_real_tensors"}


def fail(lineno, why):
    print("line %d: %s" % (lineno, why))
    sys.exit(1)


def frames(meta):
    for key in ("stack", "user_stack"):
        for f in meta.get(key) or []:
            yield f


def where(meta):
    """The user frame: file:line node, or - for none."""
    user = meta["user_stack"]
    return "%s:%d %s" % (strings[user[0]["filename"]], user[0]["line"], user[0]["name"]) if user else "-"


logs = glob.glob(sys.argv[1] + "/dedicated_log_torch_trace_*.log")
if len(logs) != 1:
    print("expected one log, found %d" % len(logs))
    sys.exit(1)
lines = open(logs[0], encoding="utf-8").read().split("\n")
assert lines[-1] == "", "the log ends with a newline"
strings, finished, i = {}, set(), 0
while i < len(lines) - 1:
    lineno, m = i + 1, HEADER.match(lines[i])
    if not m:
        fail(lineno, "not a glog-style header: %r" % lines[i][:80])
    envelope = json.loads(m.group(1))
    i += 1
    payload = []
    while i < len(lines) - 1 and lines[i].startswith("\t"):
        payload.append(lines[i][1:])
        i += 1
    if "has_payload" in envelope:
        text = "\n".join(payload)
        if hashlib.md5(text.encode("utf-8")).hexdigest() != envelope.pop("has_payload"):
            fail(lineno, "payload md5 differs")
    elif payload:
        fail(lineno, "tab lines without has_payload")
    events = [k for k in envelope if k in EVENTS]
    if len(events) != 1:
        fail(lineno, "not one known event: %s" % sorted(envelope))
    event = events[0]
    meta = envelope[event]
    if event == "str":
        strings[meta[1]] = meta[0]
        continue
    if envelope.get("attempt") != 0:
        fail(lineno, "attempt is not 0")
    cid = "%d/%d" % (envelope["frame_id"], envelope["frame_compile_id"])
    if cid in finished:
        fail(lineno, "%s after compilation_metrics of [%s]" % (event, cid))
    for f in frames(meta):
        if not isinstance(f["filename"], int) or f["filename"] not in strings:
            fail(lineno, "frame file id %r not declared" % f["filename"])
    if event == "compilation_metrics":
        finished.add(cid)
        if meta["fail_type"] is not None and not meta.get("fail_reason"):
            fail(lineno, "fail_type without fail_reason")
        fields = ("graph_op_count", "guard_count", "shape_env_guard_count", "fail_type", "fail_reason",
                  "recompile_reason", "restart_reasons")
        detail = " ".join("%s=%s" % (k, json.dumps(meta[k])) for k in fields)
    elif event in ("create_symbol", "create_unbacked_symbol"):
        detail = "%s vr=%s %s at %s" % (meta["symbol"], meta["vr"], meta.get("source", ""), where(meta))
    elif event == "guard_added_fast":
        detail = "%s at %s" % (meta["expr"], where(meta))
    elif event == "symbolic_shape_specialization":
        detail = "%s=%s %s" % (meta["symbol"], meta["value"], meta["sources"])
    elif event == "artifact":
        detail = "%s %s" % (meta["name"], " | ".join(payload))
    elif event == "dynamo_guards":
        detail = " | ".join(g["code"] for g in json.loads("\n".join(payload)))
    elif event == "propagate_real_tensors":
        detail = "%s -> %s" % (meta["expr"], meta["result"])
    elif event == "dynamo_output_graph":
        detail = "%d nodes" % len(meta["sizes"])
    else:
        detail = ""
    print("[%s] %s %s" % (cid, event, detail))
