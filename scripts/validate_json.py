#!/usr/bin/python3
"""Validates JSON documents against a JSON Schema: validate_json.py SCHEMA DOC...

Also checks the report contract's promise that every DIM string is a Python
expression over listed symbols: eval() must accept it with the symbols bound.
"""
import json
import sys

import jsonschema

from sym_eval import sym_eval


def dims_of(val):
    if isinstance(val, list):
        for v in val:
            yield from dims_of(v)
    elif isinstance(val, dict):
        if "sym" in val:
            yield val["sym"]
        for key in ("shape", "stride"):
            for d in val.get(key) or []:  # "shape": null is an unknown rank
                yield d
        if "storage_offset" in val:
            yield val["storage_offset"]


def check_report_dims(doc):
    names = {s["name"]: (s["hint"] if s["hint"] is not None else 7) for s in doc.get("symbols", [])}
    count = 0
    for node in doc.get("nodes", []):
        for out in node["outputs"]:
            for d in dims_of(out["val"]):
                if isinstance(d, str):
                    sym_eval(d, dict(names))
                    count += 1
    return count


def main():
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sys.argv[2:]:
        doc = json.load(open(path))
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]:
            print("%s: %s at %s" % (path, e.message, "/".join(str(p) for p in e.path)))
        if errors:
            sys.exit(1)
        extra = ""
        if doc.get("format") == "fakeprop.report/1":
            extra = ", %d symbolic dims evaluated" % check_report_dims(doc)
        print("%s: valid%s" % (path, extra))


if __name__ == "__main__":
    main()
