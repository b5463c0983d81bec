#!/usr/bin/env python3
"""Lists ONNX Runtime's com.microsoft contrib schemas, which of them ORT's
released Python tools emit, and whether fakeprop has a rule for each.

Writes testdata/onnx/contrib_ops.tsv (op, emitted_by, status, reason).
Run with the oracle environment (onnxruntime installed):

    /work/main/.venv-oracle/bin/python scripts/contrib_ops.py

Hand-written status and reasons already in the TSV are kept (merged by op
name); an op marked `rule` that ORT no longer registers is an error. New ops
start as `left_out` with no reason: the coverage test then fails for the
emitted ones until someone writes a rule or a reason.
"""
import argparse
import pathlib
import re
import sys

import onnxruntime
from onnxruntime.capi.onnxruntime_pybind11_state import get_all_operator_schema

REPO = pathlib.Path(__file__).resolve().parent.parent
TSV = REPO / "testdata" / "onnx" / "contrib_ops.tsv"
SCAN_DIRS = ("transformers", "quantization", "tools")
# The reason a left-out op gets while no tool emits it; dropped again (to be
# replaced by a rule or a real reason) once a tool does.
NOT_EMITTED = "not emitted by onnxruntime's transformers, quantization or tools packages"

# Where a node's op type is written when a tool creates (or renames) a node.
# Comparisons (op_type == "X") and pattern lists only match existing nodes.
TOKEN = r"(?:([\"'])(\w+)\1|Operators\.(\w+))"
ANCHORS = [
    r"make_node\(\s*(?:#[^\n]*\n\s*)?(?:op_type\s*=\s*)?",  # helper.make_node("X", ...)
    r"\bop_type\s*(?::\s*str\s*)?=(?!=)\s*",  # op_type="X", fused_op_type: str = "X"
    r"super\(\)\.__init__\(\s*model\s*,\s*(?=[\"'])",  # Fusion(model, fused_op_type, ...)
]
# "A" if cond else "B" right after an anchor emits both.
ELSE = re.compile(r"\s+if\s[^\n]*?\selse\s+" + TOKEN)


def contrib_schemas():
    return sorted({s.name for s in get_all_operator_schema() if s.domain == "com.microsoft"})


def operators_constants(root):
    """transformers/constants.py's Operators.NAME = "Op" table."""
    text = (root / "transformers" / "constants.py").read_text()
    return dict(re.findall(r"^\s+(\w+)\s*=\s*\"(\w+)\"", text.split("class Operators:")[1].split("\nclass")[0], re.M))


def qlinear_registry(root):
    """The quantizer builds "QLinear" + node.op_type in the operator classes
    that quantization/registry.py's QLinearOpsRegistry maps op types to."""
    reg = (root / "quantization" / "registry.py").read_text()
    body = reg.split("QLinearOpsRegistry = {")[1].split("}")[0]
    by_class = {}
    for op, cls in re.findall(r"\"(\w+)\"\s*:\s*(\w+)", body):
        by_class.setdefault(cls, []).append(op)
    return by_class


def scan(root, names):
    consts = operators_constants(root)
    qlinear = qlinear_registry(root)
    emitted = {}

    def add(op, f):
        if op in names:
            emitted.setdefault(op, set()).add(str(f.relative_to(root)))

    for sub in SCAN_DIRS:
        for f in sorted((root / sub).rglob("*.py")):
            if f.name == "symbolic_shape_infer.py":  # infers shapes of every contrib op; creates none
                continue
            text = f.read_text(errors="replace")
            for anchor in ANCHORS:
                for m in re.finditer(anchor + TOKEN, text):
                    add(m.group(2) or consts.get(m.group(3), ""), f)
                    tail = ELSE.match(text, m.end())
                    if tail:
                        add(tail.group(2) or consts.get(tail.group(3), ""), f)
            if re.search(r"[\"']QLinear[\"']\s*\+\s*node\.op_type", text):
                for cls in re.findall(r"^class (\w+)", text, re.M):
                    for op in qlinear.get(cls, []):
                        add("QLinear" + op, f)
    return emitted


def short(files):
    """A few file names (tool-relative paths), the rest counted."""
    files = sorted(files)
    shown = ",".join(files[:3])
    return shown + (f",+{len(files) - 3}" if len(files) > 3 else "")


def read_tsv(path):
    rows = {}
    if not path.exists():
        return rows
    for line in path.read_text().splitlines():
        if not line or line.startswith("#") or line.startswith("op\t"):
            continue
        cols = line.split("\t") + ["", "", "", ""]
        rows[cols[0]] = {"status": cols[2], "reason": cols[3]}
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=pathlib.Path, default=TSV)
    args = ap.parse_args()
    root = pathlib.Path(onnxruntime.__file__).parent
    names = contrib_schemas()
    emitted = scan(root, set(names))
    old = read_tsv(args.out)
    gone = sorted(op for op, r in old.items() if r["status"] == "rule" and op not in names)
    if gone:
        sys.exit(f"error: ops with status 'rule' are no longer com.microsoft schemas in ORT "
                 f"{onnxruntime.__version__}: {', '.join(gone)}")
    dropped = sorted(op for op in old if op not in names)
    lines = [
        f"# com.microsoft contrib schemas of onnxruntime {onnxruntime.__version__} "
        f"(get_all_operator_schema), written by scripts/contrib_ops.py.",
        "# emitted_by: files under onnxruntime/{transformers,quantization,tools} that create the op, or '-'.",
        "# status: rule (fakeprop has a rule) or left_out (reason says why). Status and reason are hand-kept.",
        f"# {len(names)} schemas, {len(emitted)} emitted by tools, "
        f"{sum(1 for n in names if old.get(n, {}).get('status') == 'rule')} with rules, the rest left out.",
        "op\temitted_by\tstatus\treason",
    ]
    for op in names:
        r = old.get(op, {"status": "left_out", "reason": ""})
        status, reason = r["status"] or "left_out", r["reason"]
        if status == "rule":
            reason = ""
        elif op not in emitted and not reason:
            reason = NOT_EMITTED
        elif op in emitted and reason == NOT_EMITTED:
            reason = ""
        lines.append("\t".join([op, short(emitted[op]) if op in emitted else "-", status, reason]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"{args.out}: {len(names)} schemas, {len(emitted)} emitted"
          + (f"; dropped (not in ORT): {', '.join(dropped)}" if dropped else ""))


if __name__ == "__main__":
    main()
