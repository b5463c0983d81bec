#!/usr/bin/env python3
"""Writes the small ai.onnx.ml models under testdata/samples/ml/ (committed),
which testdata/lit/onnx/ml.test runs through fakeprop.

    .venv-oracle/bin/python scripts/make_ml_models.py           # write the models
    .venv-oracle/bin/python scripts/make_ml_models.py --check   # and run each in ONNX Runtime at two sizes

Four come from scikit-learn through skl2onnx (a ZipMap after a linear
classifier, an SVC over four string classes with its decision-function
graph, an SVR, a DictVectorizer pipeline); map_ops.onnx is written by hand
(CastMap DENSE and SPARSE, FeatureVectorizer), as no converter emits those
ops alone. Training data are fixed (seeded), so a rerun with the same
versions writes the same bytes. The versions that wrote them are in
testdata/samples/ml/VERSIONS; --check prints each output's dtype and shape
as ONNX Runtime gives them at two input sizes (rows for tensors, entries for
maps), which is what ml.test's expectations were checked against.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "samples", "ml")
OPSETS = {"": 17, "ai.onnx.ml": 3}


def sklearn_models():
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, SVR
    from skl2onnx import convert_sklearn
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, StringTensorType

    rng = np.random.default_rng(0)
    x = rng.standard_normal((24, 4)).astype(np.float32)
    classes = np.arange(24) % 4
    rows = [("x", FloatTensorType([None, 4]))]

    def convert(model, inputs):
        onnx_model = convert_sklearn(model, initial_types=inputs, target_opset=OPSETS)
        onnx_model.graph.name = "sklearn"  # skl2onnx names it by a random uuid
        opsets = sorted(onnx_model.opset_import, key=lambda o: o.domain)  # and orders them by a set
        del onnx_model.opset_import[:]
        onnx_model.opset_import.extend(opsets)
        return onnx_model

    yield "logreg_zipmap", convert(LogisticRegression().fit(x, classes % 3), rows)
    # Four classes: SVMClassifier scores the 6 pairs, which skl2onnx's graph turns into 4 columns.
    labels = np.array(["ant", "bee", "cat", "dog"])[classes]
    yield "svc_four_classes", convert(make_pipeline(StandardScaler(), SVC()).fit(x, labels), rows)
    yield "svr", convert(SVR().fit(x, x[:, 0]), rows)
    dicts = [{"a": 1.0, "b": 2.0}, {"c": 3.0}, {"a": 0.5, "d": 1.0}, {"b": 1.5, "e": 2.0}]
    pipeline = make_pipeline(DictVectorizer(sparse=False), LinearRegression()).fit(dicts, [1.0, 2.0, 3.0, 4.0])
    yield "dictvec_linreg", convert(pipeline, [("features", DictionaryType(StringTensorType([1]), FloatTensorType([1])))])


def map_ops():
    """CastMap (DENSE: one column per entry; SPARSE: max_map columns) and FeatureVectorizer."""
    float_map = helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    ml = "ai.onnx.ml"
    nodes = [
        helper.make_node("CastMap", ["m"], ["dense"], name="dense", domain=ml, cast_to="TO_FLOAT"),
        helper.make_node("CastMap", ["m"], ["sparse"], name="sparse", domain=ml, map_form="SPARSE", max_map=6,
                         cast_to="TO_STRING"),
        helper.make_node("FeatureVectorizer", ["a", "b"], ["features"], name="features", domain=ml,
                         inputdimensions=[2, 3]),
    ]
    graph = helper.make_graph(
        nodes, "map_ops",
        [helper.make_value_info("m", float_map),
         helper.make_tensor_value_info("a", TensorProto.INT64, ["N", 2]),
         helper.make_tensor_value_info("b", TensorProto.INT64, ["N", 3])],
        # Declared rank 2 with unknown dims: fakeprop's sizes are checked against ORT's, not the model's.
        [helper.make_tensor_value_info(name, dtype, [None, None])
         for name, dtype in [("dense", TensorProto.FLOAT), ("sparse", TensorProto.STRING), ("features", TensorProto.FLOAT)]])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in OPSETS.items()])
    model.ir_version = 8
    return model


def feeds(model, size):
    """Inputs of `size` rows (tensors) or `size` entries (maps)."""
    out = {}
    for i, vi in enumerate(model.graph.input):
        t = vi.type
        if t.HasField("map_type"):
            if t.map_type.key_type == TensorProto.STRING:
                out[vi.name] = {"abcdefgh"[k]: float(k + 1) for k in range(size)}
            else:
                out[vi.name] = {2 * k: float(k + 1) for k in range(size)}
            continue
        dims = [d.dim_value if d.HasField("dim_value") else size for d in t.tensor_type.shape.dim]
        dtype = {TensorProto.FLOAT: np.float32, TensorProto.INT64: np.int64}[t.tensor_type.elem_type]
        out[vi.name] = (np.arange(np.prod(dims)) % 5 + i).astype(dtype).reshape(dims)
    return out


def describe(value):
    if isinstance(value, np.ndarray):
        return "%s%s" % ({"object": "string"}.get(value.dtype.name, value.dtype.name), list(value.shape))
    if isinstance(value, list):
        return "%d x %s" % (len(value), describe(value[0]) if value else "?")
    if isinstance(value, dict):
        key = next(iter(value))
        return "map(%s, %s; %d entries)" % ("string" if isinstance(key, str) else "int64",
                                             type(value[key]).__name__, len(value))
    return type(value).__name__


def check(name, model):
    import onnxruntime

    # The ml nodes' intermediate values too (SVMClassifier's scores inside the SVC graph).
    model = onnx.ModelProto.FromString(model.SerializeToString())
    outputs = {o.name for o in model.graph.output}
    for node in model.graph.node:
        if node.domain == "ai.onnx.ml":
            model.graph.output.extend(onnx.ValueInfoProto(name=o) for o in node.output if o and o not in outputs)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    for size in (2, 5):
        results = session.run(None, feeds(model, size))
        print("%s at %d: %s" % (name, size, ", ".join("%s %s" % (n, describe(r)) for n, r in zip(names, results))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="run each model in ONNX Runtime at two sizes")
    args = parser.parse_args()
    import onnxruntime
    import skl2onnx
    import sklearn

    os.makedirs(OUT, exist_ok=True)
    models = list(sklearn_models()) + [("map_ops", map_ops())]
    for name, model in models:
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(OUT, name + ".onnx"))
        if args.check:
            check(name, model)
    with open(os.path.join(OUT, "VERSIONS"), "w") as f:
        f.write("written by scripts/make_ml_models.py with python %s, numpy %s, scikit-learn %s, skl2onnx %s, "
                "onnx %s; checked with onnxruntime %s\n" % (sys.version.split()[0], np.__version__,
                                                           sklearn.__version__, skl2onnx.__version__,
                                                           onnx.__version__, onnxruntime.__version__))


if __name__ == "__main__":
    main()
