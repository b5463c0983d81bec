#!/usr/bin/python3
"""Fails when a file of lib/fakeprop includes a folder above its own.

    /usr/bin/python3 scripts/check_layers.py [--root lib/fakeprop] [--self-test]

The order is the one lib/fakeprop/README.md documents: its `**`folder/`**`
paragraphs, lowest first. A folder may include itself and the folders before
it. Unit tests, test helpers and fuzz targets (`*_test.cpp`, `*_test_util.h`,
`*_fuzz.cpp`) may include any folder: they run the layers together. The
inversions the code still has are listed below with their reason; a listed one
that is gone fails too, so the list only shrinks. `--self-test` copies the
tree, adds a deliberate upward include, and checks that it is reported.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "lib", "fakeprop")

# "file: included folder" -> why it is still there. Empty: issue 42 removed
# the last three (the --real-input and --op-rules readers moved up to driver/,
# the runner gets the rules' digest as data).
KNOWN_INVERSIONS = {}

INCLUDE = re.compile(r'^\s*#\s*include\s+"fakeprop/([a-z_]+)/', re.M)


def folder_order(root):
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    order = re.findall(r"^\*\*`([a-z_]+)/`\*\*", text, re.M)
    if not order:
        raise SystemExit("check_layers: no **`folder/`** paragraphs in %s/README.md" % root)
    return order


def is_test(name):
    return name.endswith(("_test.cpp", "_test_util.h", "_fuzz.cpp"))


def inversions(root):
    order = folder_order(root)
    rank = {f: i for i, f in enumerate(order)}
    found, problems = set(), []
    on_disk = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    for d in on_disk:
        if d not in rank:
            problems.append("%s/: a folder lib/fakeprop/README.md does not place in the order" % d)
    for d in order:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if not f.endswith((".h", ".cpp", ".inc")) or is_test(f):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                for target in sorted(set(INCLUDE.findall(open(path, encoding="utf-8").read()))):
                    if target not in rank:
                        problems.append("%s: includes fakeprop/%s/, a folder README.md does not list" % (rel, target))
                    elif rank[target] > rank[d]:
                        found.add("%s: %s" % (rel, target))
    for key in sorted(found - KNOWN_INVERSIONS.keys()):
        file, target = key.split(": ")
        problems.append("%s includes fakeprop/%s/, a folder above %s/ (lib/fakeprop/README.md's order: %s)"
                        % (file, target, file.split("/")[0], " < ".join(folder_order(root))))
    for key in sorted(KNOWN_INVERSIONS.keys() - found):
        problems.append("%s: a listed inversion that is gone; remove it from KNOWN_INVERSIONS" % key)
    return problems


def self_test():
    with tempfile.TemporaryDirectory(prefix="fakeprop_layers_") as tmp:
        copy = os.path.join(tmp, "fakeprop")
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("*.o", "__pycache__"))
        with open(os.path.join(copy, "sym", "upward.cpp"), "w") as f:
            f.write('#include "fakeprop/report/report.h"\n')
        problems = inversions(copy)
        expected = "sym/upward.cpp includes fakeprop/report/"
        if not any(p.startswith(expected) for p in problems):
            print("self-test: the deliberate upward include was not reported: %s" % problems)
            return 1
        print("self-test: a deliberate upward include is reported: %s" % next(p for p in problems if p.startswith(expected)))
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=ROOT)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    problems = inversions(args.root)
    for p in problems:
        print("check_layers: " + p)
    if not problems:
        print("check_layers: %s: no upward include (%d known inversions listed)"
              % (" < ".join(folder_order(args.root)), len(KNOWN_INVERSIONS)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
