"""same_report.py A B [--ignore-kind]: exit 0 when two JSON reports agree in everything but the
model's path (and, with --ignore-kind, its kind: a .pt2 program against its JSON FX graph)."""
import json
import sys


def load(path, ignore_kind):
    with open(path) as f:
        report = json.load(f)
    report["model"].pop("path", None)
    if ignore_kind:
        report["model"].pop("kind", None)
    return report


ignore_kind = "--ignore-kind" in sys.argv
a, b = (load(p, ignore_kind) for p in sys.argv[1:3])
if a != b:
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            print("reports differ in %r:\n  %s\n  %s" % (key, json.dumps(a.get(key))[:400], json.dumps(b.get(key))[:400]))
    sys.exit(1)
print("same report")
