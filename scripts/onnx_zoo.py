#!/usr/bin/env python3
"""Builds the ONNX zoo: small models from today's exporters and tools, with random weights.

    .venv-oracle/bin/python scripts/onnx_zoo.py [--out build-models/zoo] [NAME ...]

Nothing is downloaded and nothing is committed: every model is made from code in seconds
(scripts/setup.sh --zoo installs skl2onnx, tf2onnx, TensorFlow and the peers). Writes
OUT/NAME.onnx and OUT/zoo.json, which lists each model with its exporter and, for each
dim_param of its inputs, the two (or more) sizes scripts/onnx_zoo_check.py tests at.

Every model is saved with its graph's value_info removed (the exporters' own shape
annotations), so that fakeprop and the peers start from the same inputs and outputs.

  torch.onnx.export(dynamo=True)    resnet18, mobilenet_v3_small, vit (tiny), GPT-2 and BERT (tiny)
  ORT transformer optimizer         GPT-2 and BERT (com.microsoft fusions)
  ORT quantization                  quantize_dynamic (QOperator: MatMulInteger, ConvInteger) and
                                    quantize_static (QDQ) on resnet18 and BERT
  skl2onnx                          scaler + logistic regression (ZipMap), random forest, SVM
  tf2onnx                           a small Keras CNN
  torch.onnx.export(dynamo=False)   the TorchScript exporter on resnet18, mobilenet_v3_small and BERT
                                    (its GPT-2 export fails: aten::diff)
  onnxscript                        a script model with an If on a size, and one calling a local
                                    function (the dynamo exporter inlines its functions)
  timm + torch dynamo               resnet10t and convnext_atto (random weights)
  optimum (scripts/onnx_zoo_optimum.py, run in .venv-optimum/: scripts/setup.sh --optimum)
                                    GPT-2 with past, T5 encoder / decoder / decoder with past /
                                    merged decoder (If on use_cache_branch), BERT; the same after
                                    onnxslim, onnxsim and ORT's transformer optimizer
"""
import argparse
import json
import os
import sys
import tempfile
import time
import warnings

import numpy as np
import onnx

# dim_param -> test sizes (two or more each).
SIZES = {"batch": (1, 3), "seq": (7, 16), "height": (64, 96), "width": (64, 128), "N": (2, 5),
         "len": (5, 8, 13, 16),  # onnxscript_if: its If takes each branch at two of them (len > 10)
         # optimum's names; a decoder's new tokens are 1 when it runs with past, so 1 is tested
         "batch_size": (1, 3), "sequence_length": (7, 16), "past_sequence_length": (3, 8),
         "encoder_sequence_length": (5, 11), "decoder_sequence_length": (1, 4),
         "past_decoder_sequence_length": (3, 8)}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _strip(model):
    del model.graph.value_info[:]
    return model


def _save(model, path):
    _strip(model)
    onnx.save(model, path)


def _rename_dims(model, names):
    """Gives every input and output dim without a value the dim_param names[i] (by position)."""
    for vi in list(model.graph.input) + list(model.graph.output):
        if not vi.type.HasField("tensor_type"):
            continue
        for i, d in enumerate(vi.type.tensor_type.shape.dim):
            if not d.HasField("dim_value") and i < len(names) and names[i]:
                d.dim_param = names[i]


# ---------------------------------------------------------------- torch exporters
def _torch_model(kind):
    import torch

    torch.manual_seed(0)
    if kind in ("resnet18", "mobilenet_v3_small"):
        import torchvision

        model = getattr(torchvision.models, kind)(weights=None).eval()
        return model, (torch.randn(2, 3, 64, 64),), ["x"], {"x": {0: "batch", 2: "height", 3: "width"}}
    if kind.startswith("timm_"):
        import timm

        model = timm.create_model(kind[5:], pretrained=False, num_classes=10).eval()
        return model, (torch.randn(2, 3, 64, 64),), ["x"], {"x": {0: "batch", 2: "height", 3: "width"}}
    if kind == "vit":
        import torchvision

        model = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                                     hidden_dim=32, mlp_dim=64, num_classes=10).eval()
        return model, (torch.randn(2, 3, 32, 32),), ["x"], {"x": {0: "batch"}}
    import transformers

    if kind == "gpt2":
        cfg = transformers.GPT2Config(n_embd=64, n_layer=2, n_head=4, vocab_size=256, n_positions=128,
                                      use_cache=False, bos_token_id=1, eos_token_id=2)
        model = transformers.GPT2LMHeadModel(cfg).eval()
        ids = torch.randint(0, 256, (2, 16))
        return model, (ids,), ["input_ids"], {"input_ids": {0: "batch", 1: "seq"}}
    if kind == "bert":
        cfg = transformers.BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=128, vocab_size=256, max_position_embeddings=128)
        model = transformers.BertModel(cfg).eval()
        ids = torch.randint(0, 256, (2, 16))
        mask = torch.ones(2, 16, dtype=torch.int64)
        return model, (ids, mask), ["input_ids", "attention_mask"], {
            "input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
    raise KeyError(kind)


class _First:
    """Wraps a transformers model so that the export returns one tensor (its first output)."""

    def __new__(cls, model):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, input_ids, attention_mask=None):
                if attention_mask is None:
                    return self.model(input_ids, return_dict=False)[0]
                return self.model(input_ids, attention_mask=attention_mask, return_dict=False)[0]

        return Wrapped().eval()


def torch_dynamo(kind):
    def build(path):
        import torch

        model, args, names, dyn = _torch_model(kind)
        if kind in ("gpt2", "bert"):
            model = _First(model)
        shapes = {n: {i: torch.export.Dim.DYNAMIC for i in d} for n, d in dyn.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prog = torch.onnx.export(model, args, input_names=names, dynamic_shapes=tuple(shapes[n] for n in names),
                                     dynamo=True, verbose=False)
        prog.save(path)
        m = onnx.load(path)
        for inp in m.graph.input:  # name the dims after the test sizes
            for i, d in enumerate(inp.type.tensor_type.shape.dim):
                if i in dyn.get(inp.name, {}):
                    d.dim_param = dyn[inp.name][i]
        _save(m, path)
    return build


def torch_script(kind):
    def build(path):
        import torch

        model, args, names, dyn = _torch_model(kind)
        if kind in ("gpt2", "bert"):
            model = _First(model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, args, path, input_names=names, output_names=["out"], dynamo=False,
                              opset_version=17, dynamic_axes=dyn)
        _save(onnx.load(path), path)
    return build


# ---------------------------------------------------------------- ORT tools
def ort_optimized(source, model_type):
    def build(path, out_dir):
        from onnxruntime.transformers.optimizer import optimize_model

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt = optimize_model(os.path.join(out_dir, source + ".onnx"), model_type=model_type, num_heads=4,
                                 hidden_size=64, opt_level=1)
        _save(opt.model, path)
    return build


class _Reader:
    def __init__(self, model_path):
        import onnxruntime

        sess = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(0)
        self.feeds = []
        for _ in range(3):
            feed = {}
            for i in sess.get_inputs():
                dims = [SIZES[d][0] if isinstance(d, str) else d for d in i.shape]
                if "int" in i.type:
                    feed[i.name] = rng.integers(0, 2 if "mask" in i.name else 200, dims).astype(np.int64)
                else:
                    feed[i.name] = rng.standard_normal(dims).astype(np.float32)
            self.feeds.append(feed)
        self.it = iter(self.feeds)

    def get_next(self):
        return next(self.it, None)

    def rewind(self):
        self.it = iter(self.feeds)


def ort_quantized(source, how):
    def build(path, out_dir):
        from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static
        from onnxruntime.quantization.shape_inference import quant_pre_process

        src = os.path.join(out_dir, source + ".onnx")
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pre = os.path.join(tmp, "pre.onnx")
            quant_pre_process(src, pre, skip_symbolic_shape=True)
            if how == "dynamic":
                quantize_dynamic(pre, path, weight_type=QuantType.QInt8)
            else:
                quantize_static(pre, path, _Reader(pre), quant_format=QuantFormat.QDQ if how == "qdq" else
                                QuantFormat.QOperator, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        _save(onnx.load(path), path)
    return build


# ---------------------------------------------------------------- skl2onnx
def sklearn_model(kind):
    def build(path):
        from skl2onnx import to_onnx
        from skl2onnx.common.data_types import FloatTensorType
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVC

        rng = np.random.default_rng(0)
        x = rng.standard_normal((60, 4)).astype(np.float32)
        y = (x[:, 0] + x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 1)
        if kind == "logreg":
            pipe = make_pipeline(StandardScaler(), LogisticRegression())
        elif kind == "forest":
            pipe = RandomForestClassifier(n_estimators=5, max_depth=4, random_state=0)
        else:
            pipe = make_pipeline(StandardScaler(), SVC(probability=True, random_state=0))
        pipe.fit(x, y)
        opts = None if kind == "logreg" else {id(pipe): {"zipmap": False}}
        m = to_onnx(pipe, initial_types=[("X", FloatTensorType([None, 4]))], options=opts, target_opset=17)
        _rename_dims(m, ["N"])
        _save(m, path)
    return build


# ---------------------------------------------------------------- tf2onnx
def keras_cnn(path):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    import tf2onnx

    tf.random.set_seed(0)
    inp = tf.keras.Input((None, None, 3), name="image")
    x = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
    x = tf.keras.layers.MaxPooling2D(2)(x)
    x = tf.keras.layers.Conv2D(16, 3, strides=2, activation="relu")(x)
    x = tf.keras.layers.BatchNormalization()(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    x = tf.keras.layers.Dense(10, activation="softmax")(x)
    model = tf.keras.Model(inp, x)
    spec = (tf.TensorSpec((None, None, None, 3), tf.float32, name="image"),)

    @tf.function(input_signature=spec)
    def fn(image):
        return model(image, training=False)

    m, _ = tf2onnx.convert.from_function(fn, input_signature=spec, opset=17)
    _rename_dims(m, ["batch", "height", "width"])
    _save(m, path)


# ---------------------------------------------------------------- onnxscript
def onnxscript_if(path):
    """An onnxscript model whose If takes a different branch at the two test sizes."""
    global FLOAT, op  # onnxscript reads the names a script uses from the module's globals
    from onnxscript import FLOAT, script
    from onnxscript import opset18 as op

    @script()
    def model(x: FLOAT["batch", "len"]) -> FLOAT["batch", "len"]:  # noqa: F821
        n = op.Shape(x, start=1, end=2)
        cond = op.Greater(op.Squeeze(n), op.Constant(value_int=10))
        if cond:
            half = op.Div(n, op.Constant(value_ints=[2]))
            y = op.Slice(x, op.Constant(value_ints=[0]), half, op.Constant(value_ints=[1]))
            z = op.Concat(y, y, axis=1)
        else:
            z = op.Add(x, x)
        t = op.Transpose(z, perm=[1, 0])
        w = op.MatMul(z, t)
        r = op.ReduceSum(w, op.Constant(value_ints=[1]), keepdims=1)
        return op.Expand(r, op.Shape(x))

    m = model.to_model_proto()
    _save(m, path)


def onnxscript_functions(path):
    """An onnxscript model that calls a model-local function (kept as a FunctionProto, not inlined)."""
    global FLOAT, op, heads  # onnxscript reads the names a script uses from the module's globals
    from onnxscript import FLOAT, script
    from onnxscript import opset18 as op
    from onnxscript.values import Opset

    local = Opset("zoo.local", 1)

    @script(local, default_opset=op)
    def heads(x):
        lead = op.Shape(x, start=0, end=2)
        y = op.Reshape(x, op.Concat(lead, op.Constant(value_ints=[2, 4]), axis=0))
        return op.Transpose(y, perm=[0, 2, 1, 3])

    @script()
    def model(x: FLOAT["batch", "seq", 8]) -> FLOAT["batch", 2, "seq", "seq"]:  # noqa: F821
        h = heads(x)
        s = op.MatMul(h, op.Transpose(h, perm=[0, 1, 3, 2]))
        return op.Softmax(s, axis=-1)

    m = model.to_model_proto()
    assert len(m.functions) == 1
    _save(m, path)


# ---------------------------------------------------------------- optimum (its own venv)
def optimum(name):
    def build(path, out_dir):
        py = os.environ.get("OPTIMUM_PYTHON", os.path.join(ROOT, ".venv-optimum", "bin", "python"))
        if not os.path.exists(py):
            raise RuntimeError("no %s: run scripts/setup.sh --optimum" % py)
        import subprocess

        proc = subprocess.run([py, os.path.join(ROOT, "scripts", "onnx_zoo_optimum.py"), "--out", out_dir, name],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError((proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1])
    return build


OPTIMUM = {
    "opt_gpt2_past": "optimum text-generation-with-past",
    "opt_t5_encoder": "optimum text2text-generation-with-past",
    "opt_t5_decoder": "optimum text2text-generation-with-past",
    "opt_t5_decoder_past": "optimum text2text-generation-with-past",
    "opt_t5_decoder_merged": "optimum text2text-generation-with-past",
    "opt_bert": "optimum feature-extraction",
    "slim_gpt2_past": "onnxslim on optimum",
    "slim_t5_decoder_past": "onnxslim on optimum",
    "slim_t5_decoder_merged": "onnxslim on optimum",
    "slim_bert": "onnxslim on optimum",
    "sim_gpt2_past": "onnxsim on optimum",
    "sim_t5_decoder_past": "onnxsim on optimum",
    "sim_t5_decoder_merged": "onnxsim on optimum",
    "sim_bert": "onnxsim on optimum",
    "ortopt_gpt2_past": "ORT optimizer gpt2 on optimum",
    "ortopt_bert": "ORT optimizer bert on optimum",
    # ORT's t5 fusions give RelativePositionBias, which its CPU provider does not run: no truth
}


# name -> (exporter, builder, needs out_dir)
ZOO = {
    "tv_resnet18": ("torch dynamo", torch_dynamo("resnet18")),
    "tv_mobilenet_v3_small": ("torch dynamo", torch_dynamo("mobilenet_v3_small")),
    "tv_vit_tiny": ("torch dynamo", torch_dynamo("vit")),
    "hf_gpt2": ("torch dynamo", torch_dynamo("gpt2")),
    "hf_bert": ("torch dynamo", torch_dynamo("bert")),
    # model_type gpt2 fails on the dynamo export (its postprocess reads a Gemm's third input, which
    # this Gemm does not have: IndexError); bert's fusions (LayerNorm, Gelu, SkipLayerNorm) apply.
    "hf_gpt2_ortopt": ("ORT optimizer (bert) on gpt2", ort_optimized("hf_gpt2", "bert")),
    "hf_bert_ortopt": ("ORT optimizer bert", ort_optimized("hf_bert", "bert")),
    "ts_resnet18": ("torch TorchScript", torch_script("resnet18")),
    "ts_mobilenet_v3_small": ("torch TorchScript", torch_script("mobilenet_v3_small")),
    "ts_bert": ("torch TorchScript", torch_script("bert")),
    "ts_bert_ortopt": ("ORT optimizer bert", ort_optimized("ts_bert", "bert")),
    "q_resnet18_dynamic": ("ORT quantize_dynamic", ort_quantized("ts_resnet18", "dynamic")),
    "q_resnet18_qdq": ("ORT quantize_static QDQ", ort_quantized("ts_resnet18", "qdq")),
    "q_resnet18_qop": ("ORT quantize_static QOperator", ort_quantized("ts_resnet18", "qop")),
    "q_bert_dynamic": ("ORT quantize_dynamic", ort_quantized("hf_bert", "dynamic")),
    "q_bert_qdq": ("ORT quantize_static QDQ", ort_quantized("hf_bert", "qdq")),
    "skl_logreg_zipmap": ("skl2onnx", sklearn_model("logreg")),
    "skl_forest": ("skl2onnx", sklearn_model("forest")),
    "skl_svm": ("skl2onnx", sklearn_model("svm")),
    "tf_keras_cnn": ("tf2onnx", keras_cnn),
    "onnxscript_if": ("onnxscript", onnxscript_if),
    "onnxscript_functions": ("onnxscript (local function)", onnxscript_functions),
    "timm_resnet10t": ("timm + torch dynamo", torch_dynamo("timm_resnet10t")),
    "timm_convnext_atto": ("timm + torch dynamo", torch_dynamo("timm_convnext_atto")),
}
ZOO.update({name: (exporter, optimum(name)) for name, exporter in OPTIMUM.items()})


def input_sizes(path):
    """{dim_param: sizes} for the dims of the model's inputs."""
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    out = {}
    for i in m.graph.input:
        if i.name in inits or not i.type.HasField("tensor_type"):
            continue
        for d in i.type.tensor_type.shape.dim:
            # an expression ("past_sequence_length + sequence_length") follows from the others' sizes
            if d.HasField("dim_param") and d.dim_param.isidentifier():
                out[d.dim_param] = list(SIZES[d.dim_param])
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*", help="models to build (default: all)")
    p.add_argument("--out", default="build-models/zoo")
    p.add_argument("--list", action="store_true")
    a = p.parse_args(argv)
    if a.list:
        for n, (exporter, _) in ZOO.items():
            print("%-24s %s" % (n, exporter))
        return 0
    os.makedirs(a.out, exist_ok=True)
    index_path = os.path.join(a.out, "zoo.json")
    index = {}
    if os.path.exists(index_path):
        with open(index_path) as f:
            index = json.load(f)
    failed = 0
    for name in a.names or list(ZOO):
        exporter, build = ZOO[name]
        path = os.path.join(a.out, name + ".onnx")
        t0 = time.perf_counter()
        try:
            if build.__code__.co_argcount == 2:
                build(path, a.out)
            else:
                build(path)
            index[name] = {"exporter": exporter, "sizes": input_sizes(path)}
            print("%-24s %-30s %5.1f s" % (name, exporter, time.perf_counter() - t0), flush=True)
        except Exception as e:  # one exporter failing must not stop the others
            failed += 1
            index.pop(name, None)
            print("%-24s %-30s FAILED: %s" % (name, exporter, str(e).splitlines()[0][:300] if str(e) else repr(e)),
                  flush=True)
    with open(index_path, "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
