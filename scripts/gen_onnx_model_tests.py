#!/usr/bin/env python3
"""ONNX's committed model tests (pytorch-converted, pytorch-operator, simple) for the conformance runner.

The onnx package ships backend test data beside its node tests: models converted from PyTorch
modules (pytorch-converted), single PyTorch operators exported to ONNX (pytorch-operator) and a
few small graphs (simple), each with the inputs and outputs of a real run. This writes each case
as scripts/gen_onnx_node_tests.py writes node tests (model.onnx, test_data_set_0 and
manifest.json), so build/fakeprop_conformance compares fakeprop's dtypes and shapes with the
recorded outputs:

    .venv-oracle/bin/python scripts/gen_onnx_model_tests.py build/onnx_model_tests
    build/fakeprop_conformance build/onnx_model_tests/pytorch-converted
"""
import glob
import os
import shutil
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_onnx_node_tests as node_tests  # noqa: E402

SETS = ("pytorch-converted", "pytorch-operator", "simple")


def read_value(path, type_proto, onnx, numpy_helper):
    """The value stored in `path` as the numpy value (or list, dict, None) a test case holds."""
    which = type_proto.WhichOneof("value")
    data = open(path, "rb").read()
    if which == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return numpy_helper.to_list(proto)
    if which == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        return numpy_helper.to_optional(proto)
    if which == "map_type":
        proto = onnx.MapProto()
        proto.ParseFromString(data)
        return numpy_helper.to_dict(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(data)
    return numpy_helper.to_array(proto)


def convert(src, dst, onnx, numpy_helper, schema_keys):
    model = onnx.load(os.path.join(src, "model.onnx"))
    data_dir = os.path.join(src, "test_data_set_0")
    if not os.path.isdir(data_dir):
        return False
    graph_inputs = [i for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    values = {}
    for kind, infos in (("input", graph_inputs), ("output", model.graph.output)):
        files = sorted(glob.glob(os.path.join(data_dir, kind + "_*.pb")),
                       key=lambda p: int(os.path.basename(p).split("_")[1].split(".")[0]))
        if len(files) != len(infos):
            return False
        values[kind] = [read_value(f, info.type, onnx, numpy_helper) for f, info in zip(files, infos)]

    class Case:
        pass

    case = Case()
    case.name = os.path.basename(src)
    case.model = model
    case.data_sets = [(values["input"], values["output"])]
    # write_case reads inputs by position over graph.input: keep only the real inputs there.
    del model.graph.input[:]
    model.graph.input.extend(graph_inputs)
    node_tests.write_case(case, dst, onnx, numpy_helper, schema_keys)
    return True


def main(argv):
    out_dir = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build",
                                                                         "onnx_model_tests"))
    import onnx
    from onnx import numpy_helper

    root = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    schema_keys = {s.name.lower(): s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain in ("", "ai.onnx")}
    for name in SETS:
        dst = os.path.join(out_dir, name)
        if os.path.exists(dst):
            shutil.rmtree(dst)
        os.makedirs(dst)
        written = skipped = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for src in sorted(glob.glob(os.path.join(root, name, "test_*"))):
                if convert(src, dst, onnx, numpy_helper, schema_keys):
                    written += 1
                else:
                    skipped += 1
        print("%s: %d cases (%d without a complete test_data_set_0), onnx %s" % (dst, written, skipped,
                                                                                 onnx.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
