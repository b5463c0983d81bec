#!/usr/bin/python3
"""Writes testdata/fx/core_aten_ops.txt: PyTorch's core ATen IR, one overload per line.

The core ATen IR is the set of operators tagged `core` in PyTorch's
aten/src/ATen/native/native_functions.yaml. This script reads that file (any
PyTorch checkout; 1.13's copy has no `core` tags, so use a current one) and
prints each tagged operator as the FX target spelling, `aten.<name>.<overload>`
(`default` when the schema has no overload name).

Out-variants (`.out`, `*_out` overloads, which write into an `out=` tensor) are
left out: the core IR is functional, and FX graphs from export never hold them.

    /usr/bin/python3 scripts/core_aten_ops.py PATH/TO/native_functions.yaml \
        -o testdata/fx/core_aten_ops.txt

The yaml is parsed line by line (no PyYAML needed): an entry starts at
`- func: NAME(` and its `tags:` line is either `tags: core` or a flow list
such as `tags: [core, pointwise]`.

The committed list was produced from PyTorch's native_functions.yaml at commit
045add33934e8a6e375d166d9865589e81b198f0 (a 2025 snapshot of the main branch
as mirrored in a fork, Nik-Reddy/pytorch), not from pytorch/pytorch itself.
An attempt to regenerate it from upstream failed: the only copy of upstream's
file available to us, pytorch/pytorch at
0b8352face1580e6e2130bc0faf950eaabbda217, is a 2022 snapshot from before the
`core` tag existed (its only tags are `inplace_view` and `view_copy`). On that
file this script finds no core operator and exits with status 2 without
writing. Regenerate from a pytorch/pytorch checkout of 2.1 or later and update
this paragraph to name that commit.
"""
import argparse
import re
import sys

FUNC = re.compile(r"^- func:\s*([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?\(")
TAGS = re.compile(r"^\s+tags:\s*(.*?)\s*(?:#.*)?$")


def parse_tags(text):
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return {t.strip() for t in text.split(",") if t.strip()}


def core_ops(lines):
    ops = []
    current = None  # (name, overload) of the entry being read
    for line in lines:
        m = FUNC.match(line)
        if m:
            current = (m.group(1), m.group(2) or "default")
            continue
        if current is None:
            continue
        t = TAGS.match(line)
        if t and "core" in parse_tags(t.group(1)):
            ops.append(current)
            current = None
    return ops


def is_out_variant(overload):
    return overload == "out" or overload.endswith("_out")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("yaml", help="aten/src/ATen/native/native_functions.yaml of a current PyTorch")
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    args = parser.parse_args(argv)
    with open(args.yaml, encoding="utf-8") as f:
        ops = core_ops(f)
    if not ops:
        print("core_aten_ops.py: no operator tagged `core` in %s (PyTorch older than 2.1?)" % args.yaml, file=sys.stderr)
        return 2
    names = sorted({"aten.%s.%s" % (n, o) for n, o in ops if not is_out_variant(o)})
    text = "".join(n + "\n" for n in names)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
        print("wrote %s: %d core ATen ops" % (args.output, len(names)), file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
