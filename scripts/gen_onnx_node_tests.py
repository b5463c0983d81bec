#!/usr/bin/python3
"""Regenerate ONNX's backend node tests as files for fakeprop's conformance runner.

Usage: /usr/bin/python3 scripts/gen_onnx_node_tests.py [OUTPUT_DIR] [--force]

For every node test case of the installed onnx package (the cases of
onnx.backend.test.case.node, as onnx/backend/test/cmd_tools.py generate-data
writes them) this writes OUTPUT_DIR/<case>/model.onnx, the tensors of
test_data_set_0 as input_<j>.pb / output_<j>.pb, and manifest.json:

  {"name": "test_abs", "op": "Abs", "ops": ["Abs"], "opset": {"": 13},
   "model": "model.onnx",
   "inputs":  [{"name": "x", "kind": "tensor", "dtype": 1, "dtype_name": "FLOAT",
                "shape": [3, 4, 5]}],
   "outputs": [...same form...]}

A sequence value is {"kind": "sequence", "elements": [<tensor entries>]}, an
optional one {"kind": "optional", "element": <entry or null>}, a map
{"kind": "map"}. Small integer tensors also carry "data" (their elements).

Generation is skipped while OUTPUT_DIR/.stamp matches this script and the
onnx version (exit status 0 either way). Exit status 3: onnx is not installed.
"""
import hashlib
import json
import os
import shutil
import sys
import warnings

# Case-name prefixes of function-expansion tests that do not spell their op.
NAME_ALIASES = {"sce": "SoftmaxCrossEntropyLoss", "nllloss": "NegativeLogLikelihoodLoss", "mvn": "MeanVarianceNormalization"}
SKIP_EXIT = 3  # ctest SKIP_RETURN_CODE of the conformance test
MAX_DATA_ELEMENTS = 64


def restore_numpy_aliases(np):
    # onnx 1.12's test cases use aliases that numpy 1.24 removed.
    for alias, builtin in (("float", float), ("int", int), ("bool", bool), ("object", object),
                           ("complex", complex), ("str", str), ("long", int), ("unicode", str)):
        if alias not in np.__dict__:
            setattr(np, alias, builtin)


def import_onnx():
    try:
        import numpy as np
    except ImportError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        restore_numpy_aliases(np)
        try:
            import onnx
            import onnx.backend.test.case.node as node_cases
            from onnx import numpy_helper
        except ImportError:
            return None
    return onnx, node_cases, numpy_helper


def stamp_text(onnx):
    with open(__file__, "rb") as f:
        script_hash = hashlib.sha256(f.read()).hexdigest()
    return json.dumps({"onnx": onnx.__version__, "script": script_hash}, sort_keys=True)


def all_op_types(graph):
    ops = []
    for node in graph.node:
        ops.append(node.op_type)
        for attr in node.attribute:
            if attr.g.node:
                ops.extend(all_op_types(attr.g))
            for g in attr.graphs:
                ops.extend(all_op_types(g))
    return ops


def main_op(case_name, graph, schema_keys):
    """The operator a case is about: its single node's op, or for function
    expansions (many nodes) the op whose name the case is named after."""
    if len(graph.node) == 1:
        return graph.node[0].op_type
    stem = case_name[len("test_"):] if case_name.startswith("test_") else case_name
    key = stem.replace("_", "").lower()
    for short, op in NAME_ALIASES.items():
        if key.startswith(short):
            return op
    best_key = ""
    for k in schema_keys:
        if key.startswith(k) and len(k) > len(best_key):
            best_key = k
    if best_key:
        return schema_keys[best_key]
    return graph.node[0].op_type if graph.node else ""


def describe(value, type_proto, name, onnx, numpy_helper):
    """Serialize `value` as cmd_tools does; returns (proto bytes, manifest entry)."""
    which = type_proto.WhichOneof("value")
    if which == "map_type":
        proto = numpy_helper.from_dict(value, name)
        return proto.SerializeToString(), {"name": name, "kind": "map"}
    if which == "sequence_type":
        proto = numpy_helper.from_list(value, name)
        elems = [tensor_entry(numpy_helper.from_array(v), onnx) for v in value]
        return proto.SerializeToString(), {"name": name, "kind": "sequence", "elements": elems}
    if which == "optional_type":
        proto = numpy_helper.from_optional(value, name)
        elem_type = type_proto.optional_type.elem_type
        if value is None:
            elem = None
        elif elem_type.WhichOneof("value") == "sequence_type":
            elem = {"kind": "sequence", "elements": [tensor_entry(numpy_helper.from_array(v), onnx) for v in value]}
        else:
            elem = tensor_entry(numpy_helper.from_array(value), onnx)
        return proto.SerializeToString(), {"name": name, "kind": "optional", "element": elem}
    proto = numpy_helper.from_array(value, name)
    entry = tensor_entry(proto, onnx)
    entry["name"] = name
    # numpy has no bfloat16: onnx 1.12's cases hold bfloat16 data as uint16.
    declared = type_proto.tensor_type.elem_type
    if declared == onnx.TensorProto.BFLOAT16 and entry["dtype"] == onnx.TensorProto.UINT16:
        entry["dtype"] = declared
        entry["dtype_name"] = "BFLOAT16"
    if entry["dtype"] in (6, 7, 9) and len(value.shape) <= 1 and value.size <= MAX_DATA_ELEMENTS:
        entry["data"] = [int(x) for x in value.reshape(-1)]
    return proto.SerializeToString(), entry


def tensor_entry(proto, onnx):
    return {
        "kind": "tensor",
        "dtype": int(proto.data_type),
        "dtype_name": onnx.TensorProto.DataType.Name(proto.data_type),
        "shape": [int(d) for d in proto.dims],
    }


def write_case(case, out_dir, onnx, numpy_helper, schema_keys):
    case_dir = os.path.join(out_dir, case.name)
    if os.path.exists(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    model = case.model
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    manifest = {
        "name": case.name,
        "op": main_op(case.name, model.graph, schema_keys),
        "ops": sorted(set(all_op_types(model.graph))),
        "opset": {imp.domain: int(imp.version) for imp in model.opset_import},
        "model": "model.onnx",
        "inputs": [],
        "outputs": [],
    }
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data_dir = os.path.join(case_dir, f"test_data_set_{i}")
        os.makedirs(data_dir)
        for kind, values, infos in (("input", inputs, model.graph.input), ("output", outputs, model.graph.output)):
            for j, value in enumerate(values):
                data, entry = describe(value, infos[j].type, infos[j].name, onnx, numpy_helper)
                with open(os.path.join(data_dir, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(data)
                if i == 0:
                    manifest[kind + "s"].append(entry)
        if i == 0:
            manifest["data_set"] = f"test_data_set_{i}"
    with open(os.path.join(case_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    force = "--force" in argv[1:]
    out_dir = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", "build",
                                                                 "onnx_node_tests"))
    imported = import_onnx()
    if imported is None:
        print("SKIPPED: python3-onnx (with numpy) is not installed; apt-get install python3-onnx", file=sys.stderr)
        return SKIP_EXIT
    onnx, node_cases, numpy_helper = imported
    stamp_path = os.path.join(out_dir, ".stamp")
    want = stamp_text(onnx)
    if not force and os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if f.read() == want:
                print(f"{out_dir}: up to date")
                return 0
    os.makedirs(out_dir, exist_ok=True)
    if os.path.exists(stamp_path):
        os.remove(stamp_path)
    schema_keys = {s.name.lower(): s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain in ("", "ai.onnx")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases(None)
        names = set()
        for case in cases:
            if case.kind != "node" or case.model is None or not case.data_sets:
                continue
            write_case(case, out_dir, onnx, numpy_helper, schema_keys)
            names.add(case.name)
    # Cases of an older onnx version must not linger.
    for entry in os.listdir(out_dir):
        path = os.path.join(out_dir, entry)
        if os.path.isdir(path) and entry not in names:
            shutil.rmtree(path)
    with open(stamp_path, "w") as f:
        f.write(want)
    print(f"{out_dir}: wrote {len(names)} node test cases (onnx {onnx.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
