#!/usr/bin/python3
"""Fails when the places that list fakeprop's options name different sets of them.

    /usr/bin/python3 scripts/check_options.py --fakeprop build/fakeprop --python build/python [--self-test]

The inference options come from the option table (lib/fakeprop/options/infer_flags.h, read through
fakeprop._core.infer_flags()); each subcommand adds its own. Compared, per subcommand:
  - `fakeprop infer|check|plan --help` has every row of the table;
  - the man page: the `.TP` items of OPTIONS are infer's options, those of CHECK and PLAN the
    subcommand's own (its --help less the table's);
  - docs/usage.md's option table is infer's options;
  - python/fakeprop/api.py: `infer` and `check` take every table keyword and one per option of
    their own, and their docstrings name each (``keyword``); `plan` takes its own.
Known differences are listed below with their reason; one that is gone fails too, so the list
only shrinks. `--self-test` copies the documents, drops an option from the man page and a keyword
from a docstring, and checks that both are reported.
"""
import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# Each subcommand's options outside the table -> the Python keyword (None: the function returns
# what the flag prints).
OWN_KEYWORDS = {
    "infer": {"--json": None, "--report": None, "--output": "output", "--html": "html", "--trace-dir": "trace_dir",
              "--call": "calls", "--workload": "workload", "--recompile-limit": "recompile_limit",
              "--stats": "stats"},
    "check": {"--baseline": "baseline", "--update": "update", "--json": None, "--nodes": "nodes",
              "--shard": "shard", "--jobs": "jobs", "--max-peak-growth": "max_peak_growth"},
    "plan": {"--budget": "budget", "--solve": "solve", "--at": "at", "--set": "set", "--json": None,
             "--html": "html"},
}

# "where: what" -> why it is still there.
KNOWN = {}

FLAG = re.compile(r"--[a-z][a-z0-9-]*")


def help_flags(fakeprop, command):
    text = subprocess.run([fakeprop, command, "--help"], capture_output=True, text=True, check=True).stdout
    flags = set()
    for line in text.splitlines():
        m = re.match(r"\s+(?:-[a-zA-Z],)?(--[a-z][a-z0-9-]*)", line)
        if m:
            flags.add(m.group(1))
    return flags - {"--help"}


def man_items(text, section):
    """The flags of a section's .TP items (the line after each .TP)."""
    body = re.search(r"^\.SH %s\n(.*?)(?=^\.SH )" % section, text, re.M | re.S).group(1)
    lines = body.splitlines()
    items = set()
    for i, line in enumerate(lines[:-1]):
        if line == ".TP":
            items.update(f.replace("\\-", "-") for f in re.findall(r"\\-\\-[a-z][a-z0-9\\-]*", lines[i + 1]))
    return items


def usage_table(text):
    flags = set()
    for line in text.splitlines():
        if line.startswith("| `-"):
            flags.update(FLAG.findall(line.split("|")[1]))
    return flags


def functions(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            args = node.args
            out[node.name] = ({a.arg for a in args.args + args.kwonlyargs}, ast.get_docstring(node) or "")
    return out


def differences(fakeprop, table, root=ROOT):
    table_flags = {flag for flag, _ in table}
    helps = {c: help_flags(fakeprop, c) for c in OWN_KEYWORDS}
    found = []
    for command, flags in helps.items():
        for flag in sorted(table_flags - flags):
            found.append("%s --help: no %s" % (command, flag))
        own = flags - table_flags
        for flag in sorted(own ^ set(OWN_KEYWORDS[command])):
            found.append("check_options.py OWN_KEYWORDS[%r]: %s is %s" % (
                command, flag, "not in its --help" if flag not in own else "not listed"))
    man = open(os.path.join(root, "man", "fakeprop.1"), encoding="utf-8").read()
    for command, section in (("infer", "OPTIONS"), ("check", "CHECK"), ("plan", "PLAN")):
        want = helps[command] - (set() if command == "infer" else table_flags)
        items = man_items(man, section) - {"--version"}
        for flag in sorted(want - items):
            found.append("man %s: no item for %s" % (section, flag))
        for flag in sorted(items - want):
            found.append("man %s: %s is not an option of %s" % (section, flag, command))
    usage = usage_table(open(os.path.join(root, "docs", "usage.md"), encoding="utf-8").read())
    for flag in sorted(helps["infer"] - usage):
        found.append("docs/usage.md: no row for %s" % flag)
    for flag in sorted(usage - helps["infer"]):
        found.append("docs/usage.md: %s is not an option of infer" % flag)
    api = functions(os.path.join(root, "python", "fakeprop", "api.py"))
    for command in ("infer", "check", "plan"):
        params, doc = api[command]
        keywords = {k: f for f, k in OWN_KEYWORDS[command].items() if k}
        if command != "plan":
            keywords.update({k: f for f, k in table})
        for keyword, flag in sorted(keywords.items()):
            if keyword not in params:
                found.append("api.py %s: no keyword %s for %s" % (command, keyword, flag))
            elif command == "infer" or flag in OWN_KEYWORDS[command]:
                if not re.search(r"``%s[=`]" % keyword, doc):
                    found.append("api.py %s: its docstring does not name ``%s``" % (command, keyword))
    return found


def self_test(fakeprop, table):
    with tempfile.TemporaryDirectory() as root:
        for part in ("man/fakeprop.1", "docs/usage.md", "python/fakeprop/api.py"):
            os.makedirs(os.path.join(root, os.path.dirname(part)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, part), os.path.join(root, part))
        man = os.path.join(root, "man", "fakeprop.1")
        text = open(man, encoding="utf-8").read()
        open(man, "w", encoding="utf-8").write(text.replace(".TP\n.B \\-\\-nodes\n", ".PP\n.B \\-\\-nodes\n"))
        api = os.path.join(root, "python", "fakeprop", "api.py")
        text = open(api, encoding="utf-8").read()
        open(api, "w", encoding="utf-8").write(text.replace("``duck_shape=False``", "duck_shape=False"))
        found = differences(fakeprop, table, root)
    want = ["man CHECK: no item for --nodes", "api.py infer: its docstring does not name ``duck_shape``"]
    missed = [w for w in want if w not in found]
    for w in missed:
        print("check_options --self-test: not reported: " + w)
    if not missed:
        print("check_options --self-test: a dropped man page item and docstring keyword are reported")
    return 1 if missed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fakeprop", required=True)
    parser.add_argument("--python", required=True, help="the folder holding the fakeprop package (build/python)")
    parser.add_argument("--self-test", action="store_true")
    opts = parser.parse_args()
    sys.path.insert(0, opts.python)
    from fakeprop import _core

    table = [(flag, keyword) for flag, keyword, _key, _kind, _help in _core.infer_flags()]
    if opts.self_test:
        return self_test(opts.fakeprop, table)
    found = differences(opts.fakeprop, table)
    problems = [f for f in found if f not in KNOWN]
    problems += ["%s: listed in KNOWN but no longer found" % k for k in KNOWN if k not in found]
    for p in problems:
        print("check_options: " + p)
    if not problems:
        print("check_options: %d table options, the help, the man page, docs/usage.md and api.py agree (%d known "
              "differences)" % (len(table), len(KNOWN)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
