#!/usr/bin/env python3
"""Ground truth for fakeprop's memory and FLOP sections (issue 44), from torch's own trackers.

For each model this exports an inference graph (torch.export + core ATen decompositions) or a
training joint graph (aot_export_module(trace_joint=True)), writes it as fakeprop's JSON FX graph,
then runs the graph node by node with a torch.fx.Interpreter under FakeTensorMode at three concrete
sizes, measuring the live storage bytes after every node (the definition in testdata/memory/README.md)
and FlopCounterMode's FLOPs per node. CI replays the goldens without torch.

Run in the oracle's environment, with the built extension on the path:
    PYTHONPATH=build/python .venv-oracle/bin/python scripts/memory_oracle.py --out testdata/memory \
        --fakeprop build/fakeprop
    ... --models gpt2,llama_train     # a subset
--fakeprop names the binary every graph (and ONNX model) must load in with no errors at every size.
The definition, the models and what torch does oddly: testdata/memory/README.md. The goldens record
the torch version that produced them; the output is deterministic.
"""
import argparse
import glob
import json
import os
import sys
import time
import traceback
import warnings

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _built_package():
    for d in filter(None, [os.environ.get("FAKEPROP_PYTHONPATH"), os.path.join(ROOT, "build", "python"),
                           os.path.join(ROOT, "build-rel", "python")]):
        if glob.glob(os.path.join(d, "fakeprop", "_core*")):
            return d
    return None


if _built_package():
    sys.path.insert(0, _built_package())
from fakeprop.graph_export import read_program  # noqa: E402

from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

FORMAT = "fakeprop.memory_golden/1"
ROUND = 512


# ---------------------------------------------------------------- the measurement

def _tensors(v):
    """The tensors in a node's value (a tensor, or nested tuples/lists of them), in order."""
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in _tensors(x)]
    return []


def _storage_key(t):
    """A storage's identity: its StorageImpl's address (every value is kept alive while measuring,
    so an address is never reused for another storage)."""
    return t.untyped_storage()._cdata


def _round(n):
    return (n + ROUND - 1) // ROUND * ROUND


class _Recorder(torch.fx.Interpreter):
    """Runs the graph in its order; keeps every node's value (no address reuse) and the FLOPs each
    node added to the counter."""

    def __init__(self, gm, counter):
        super().__init__(gm, garbage_collect_values=False)
        self.counter = counter
        self.values = {}
        self.flops = {}

    def run_node(self, n):
        before = self.counter.get_total_flops() if self.counter is not None else 0
        out = super().run_node(n)
        if self.counter is not None:
            self.flops[n.name] = self.counter.get_total_flops() - before
        self.values[n] = out
        return out


def _fake_inputs(fake_mode, placeholders, state, shapes, dtypes):
    """One fake value per placeholder: the module's state through from_tensor (tied tensors stay one
    fake tensor, one storage), user inputs as fresh tensors of the given shapes."""
    args = []
    for node in placeholders:
        if node.name in state:
            args.append(fake_mode.from_tensor(state[node.name]))
        else:
            with fake_mode:
                args.append(torch.zeros(shapes[node.name], dtype=dtypes[node.name]))
    return args


def measure(gm, state, shapes, dtypes, hold_unused=False, order=None):
    """The golden entry for one size. `state`: placeholder name -> real parameter/buffer/constant;
    `shapes`/`dtypes`: user input placeholder name -> concrete shape / dtype. `hold_unused`: a value
    nothing reads is held to the end, as torch.fx.Interpreter's env holds it (only to explain
    MemTracker's numbers; the goldens free it at its own node). `order`: the JSON graph's node names
    in order, where fakeprop's graph adds nodes that allocate nothing and read only placeholders (the
    program_guard nodes it makes of torch.export's guards_code); live_bytes has an entry for each."""
    nodes = list(gm.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    fake_mode = FakeTensorMode(allow_non_fake_inputs=False)
    args = _fake_inputs(fake_mode, placeholders, state, shapes, dtypes)
    counter = FlopCounterMode(display=False)
    rec = _Recorder(gm, counter)
    with fake_mode, torch.no_grad(), counter, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec.run(*args)
    by_name = {n.name: n for n in nodes}
    order = list(order) if order is not None else [n.name for n in nodes]
    missing = set(by_name) - set(order)
    if missing:
        raise RuntimeError("the JSON graph lacks nodes %s" % sorted(missing)[:5])
    index = {name: i for i, name in enumerate(order)}
    # storages of each node's value
    nbytes = {}
    stor = {}
    for n in nodes:
        keys = []
        for t in _tensors(rec.values.get(n)):
            k = _storage_key(t)
            nbytes[k] = int(t.untyped_storage().nbytes())
            keys.append(k)
        stor[n.name] = keys
    output = next(n for n in nodes if n.op == "output")
    out_storages = set(stor[output.name])
    param_storages = {k for n in placeholders if n.name in state for k in stor[n.name]}
    input_storages = {k for n in placeholders if n.name not in state for k in stor[n.name]}
    all_inputs = param_storages | input_storages
    end = len(order) - 1
    last_use = {n.name: max((index[u.name] for u in n.users), default=end if hold_unused else index[n.name])
                for n in nodes}
    live_bytes, live_round = [], []
    for i, name in enumerate(order):
        live = set(all_inputs)
        for j in range(i + 1):
            m = by_name.get(order[j])
            if m is None or m.op == "placeholder":
                continue
            held = j == i or last_use[m.name] >= i
            for k in stor[m.name]:
                if held or k in out_storages:
                    live.add(k)
        live_bytes.append(sum(nbytes[k] for k in live))
        live_round.append(sum(_round(nbytes[k]) for k in live))
    peak = max(live_bytes)
    peak_i = live_bytes.index(peak)
    peak_r = max(live_round)
    flops_by_node = {k: int(v) for k, v in rec.flops.items() if v}
    return {
        "inputs": {name: list(shape) for name, shape in shapes.items()},
        "flops": int(counter.get_total_flops()),
        "flops_by_node": flops_by_node,
        "peak_bytes": peak,
        "peak_node": order[peak_i],
        "peak_bytes_round512": peak_r,
        "peak_node_round512": order[live_round.index(peak_r)],
        "parameter_bytes": sum(nbytes[k] for k in param_storages),
        "input_bytes": sum(nbytes[k] for k in input_storages),
        "output_bytes": sum(nbytes[k] for k in out_storages),
        "live_bytes": live_bytes,
    }


def env_live_bytes(gm, state, shapes, dtypes):
    """The same live bytes measured the other way round, as the definition says: inside run_node,
    right after the node ran, from what torch.fx.Interpreter itself still holds (its env, which it
    prunes after each value's last reader) plus the graph inputs, minus values nothing reads (the
    env would hold those to the end). One entry per GraphModule node; outputs' storages are held by
    the output values themselves except where an output aliases an earlier storage, which the env
    keeps through the alias."""
    nodes = list(gm.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    fake_mode = FakeTensorMode(allow_non_fake_inputs=False)
    args = _fake_inputs(fake_mode, placeholders, state, shapes, dtypes)
    inputs = {}
    for a in args:
        for t in _tensors(a):
            inputs[_storage_key(t)] = int(t.untyped_storage().nbytes())
    trace = []

    class _Env(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            live = dict(inputs)
            for m, v in list(self.env.items()) + [(n, out)]:
                if m is not n and not m.users:
                    continue
                for t in _tensors(v):
                    live[_storage_key(t)] = int(t.untyped_storage().nbytes())
            trace.append(sum(live.values()))
            return out

    with fake_mode, torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _Env(gm).run(*args)
    del result
    return trace


def memtracker_peak(gm, state, shapes, dtypes):
    """torch.distributed._tools.mem_tracker.MemTracker's peak over the same interpretation (values
    freed as torch.fx.Interpreter frees them: after their last reader). None where it fails."""
    try:
        from torch.distributed._tools.mem_tracker import MemTracker
    except Exception:  # noqa: BLE001
        return None
    try:
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        fake_mode = FakeTensorMode(allow_non_fake_inputs=False)
        args = _fake_inputs(fake_mode, placeholders, state, shapes, dtypes)
        mt = MemTracker()
        mt.track_external(*[a for a in args if isinstance(a, torch.Tensor)])
        # no_grad: with parameters that require grad, autograd would save tensors for a backward that
        # never runs (a joint graph computes its gradients itself) and keep them alive
        with fake_mode, torch.no_grad(), mt, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = torch.fx.Interpreter(gm).run(*args)
            del out
        snap = mt.get_tracker_snapshot("peak")
        return sum(int(v.get("Total", 0)) for v in snap.values())
    except Exception as e:  # noqa: BLE001
        return {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}


# ---------------------------------------------------------------- models

def _seed():
    torch.manual_seed(0)


def _dims(**kw):
    from torch.export import Dim
    return {k: Dim(k, min=lo, max=hi) for k, (lo, hi) in kw.items()}


class Spec:
    """A model to golden: the module, example args (user inputs in order), their names, dynamic shapes
    for torch.export, per-size shapes, and whether to train / export ONNX."""

    def __init__(self, module, args, names, dynamic_shapes, sizes, train=False, onnx=False, dyn_dims=None,
                 keep_sdpa=False):
        self.module, self.args, self.names = module, args, names
        self.keep_sdpa = keep_sdpa  # core ATen but aten.scaled_dot_product_attention kept whole
        self.dynamic_shapes, self.sizes = dynamic_shapes, sizes
        self.train, self.onnx = train, onnx
        self.dyn_dims = dyn_dims  # training: input position -> dims traced symbolically


def _image_sizes(c, batches=(2, 3, 8), hw=(32, 48, 64)):
    return [[(b, c, s, s)] for b, s in zip(batches, hw)]


def m_resnet18(train=False):
    import torchvision
    _seed()
    model = torchvision.models.resnet18(weights=None, num_classes=10)
    if train:
        return _classifier_train(model, (2, 3, 64, 64), hw_dynamic=True)
    d = _dims(batch=(2, 1024), h=(64, 512), w=(64, 512))
    return Spec(model, (torch.randn(2, 3, 64, 64),), ["x"],
                ({0: d["batch"], 2: d["h"], 3: d["w"]},), [[(2, 3, 64, 64)], [(3, 3, 80, 72)], [(8, 3, 96, 96)]])


def _thin(model, factor):
    """The same network with every channel count divided by `factor` (input channels stay 3)."""
    import torch.nn as nn
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            cin = m.in_channels if m.in_channels == 3 else m.in_channels // factor
            cout = m.out_channels // factor
            new = nn.Conv2d(cin, cout, m.kernel_size, m.stride, m.padding, m.dilation, m.groups, m.bias is not None)
            m.__dict__.update({k: v for k, v in new.__dict__.items()})
        elif isinstance(m, nn.BatchNorm2d):
            m.__init__(m.num_features // factor)
    model.fc = nn.Linear(model.fc.in_features // factor, model.fc.out_features)
    return model


def m_resnet18_thin():
    import torchvision
    _seed()
    model = _thin(torchvision.models.resnet18(weights=None, num_classes=10), 8)
    d = _dims(batch=(2, 1024), h=(64, 512), w=(64, 512))
    return Spec(model, (torch.randn(2, 3, 64, 64),), ["x"],
                ({0: d["batch"], 2: d["h"], 3: d["w"]},), [[(2, 3, 64, 64)], [(3, 3, 80, 72)], [(8, 3, 96, 96)]],
                onnx=True)


def m_mobilenet_v3_small():
    import torchvision
    _seed()
    model = torchvision.models.mobilenet_v3_small(weights=None, num_classes=10)
    d = _dims(batch=(2, 1024), h=(64, 512), w=(64, 512))
    return Spec(model, (torch.randn(2, 3, 64, 64),), ["x"],
                ({0: d["batch"], 2: d["h"], 3: d["w"]},), [[(2, 3, 64, 64)], [(3, 3, 80, 72)], [(8, 3, 96, 96)]])


def m_vit():
    import timm
    _seed()
    model = timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, dynamic_img_size=True,
                              num_classes=10, depth=2, embed_dim=64, num_heads=2)
    d = _dims(batch=(2, 1024))
    from torch.export import Dim
    h, w = Dim("h", min=2, max=32), Dim("w", min=2, max=32)
    return Spec(model, (torch.randn(2, 3, 32, 32),), ["x"],
                ({0: d["batch"], 2: 16 * h, 3: 16 * w},), [[(2, 3, 32, 32)], [(3, 3, 48, 32)], [(8, 3, 64, 64)]],
                onnx=True)


def m_convnext_atto():
    import timm
    _seed()
    model = timm.create_model("convnext_atto", pretrained=False, num_classes=10)
    d = _dims(batch=(2, 1024))
    from torch.export import Dim
    h, w = Dim("h", min=2, max=32), Dim("w", min=2, max=32)
    return Spec(model, (torch.randn(2, 3, 64, 64),), ["x"],
                ({0: d["batch"], 2: 32 * h, 3: 32 * w},), [[(2, 3, 64, 64)], [(3, 3, 96, 64)], [(8, 3, 128, 128)]])


class _LM(torch.nn.Module):
    """A transformers model's logits (or last hidden state) for its token ids, no cache."""

    def __init__(self, model, field="logits", cache=True):
        super().__init__()
        self.model, self.field, self.cache = model, field, cache

    def forward(self, input_ids):
        out = self.model(input_ids=input_ids, use_cache=False) if self.cache else self.model(input_ids=input_ids)
        return getattr(out, self.field)


class _Encoder(torch.nn.Module):
    """An encoder's last hidden state for token ids and an attention mask."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def _wrap(model, names, field="logits", cache=True):
    return _Encoder(model) if len(names) == 2 else _LM(model, field, cache)


_TOKEN_SIZES = [(2, 8), (3, 17), (8, 64)]


def _tokens(vocab, b, s):
    return torch.randint(0, vocab, (b, s))


def _lm_spec(model, vocab=128, field="logits", cache=True, onnx=False, extra_mask=False, max_seq=128):
    names = ["input_ids"] + (["attention_mask"] if extra_mask else [])
    d = _dims(batch=(2, 1024), seq=(2, max_seq))
    args = (_tokens(vocab, 2, 8),) + ((torch.ones(2, 8, dtype=torch.long),) if extra_mask else ())
    ds = tuple({0: d["batch"], 1: d["seq"]} for _ in names)
    sizes = [[(b, s)] * len(names) for b, s in _TOKEN_SIZES]
    return Spec(_wrap(model, names, field, cache), args, names, ds, sizes, onnx=onnx)


def _hf(config_cls, model_cls, **cfg):
    _seed()
    import transformers
    config = getattr(transformers, config_cls)(**cfg)
    return getattr(transformers, model_cls)(config)


def m_gpt2(train=False, attn="sdpa"):
    model = _hf("GPT2Config", "GPT2LMHeadModel", n_layer=2, n_embd=32, n_head=2, vocab_size=128, n_positions=128,
                attn_implementation=attn, attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0)
    if train:
        return _lm_train(model, 128)
    return _lm_spec(model, onnx=True)


def m_llama(train=False, attn="sdpa"):
    model = _hf("LlamaConfig", "LlamaForCausalLM", num_hidden_layers=2, hidden_size=32, intermediate_size=64,
                num_attention_heads=2, num_key_value_heads=1, vocab_size=128, max_position_embeddings=128,
                attn_implementation=attn)
    if train:
        return _lm_train(model, 128)
    return _lm_spec(model)


def _no_onnx(spec):
    spec.onnx = False
    return spec


def _keep_sdpa(spec):
    spec.keep_sdpa = True
    return spec


def m_qwen2():
    model = _hf("Qwen2Config", "Qwen2ForCausalLM", num_hidden_layers=2, hidden_size=32, intermediate_size=64,
                num_attention_heads=2, num_key_value_heads=1, vocab_size=128, max_position_embeddings=128,
                attn_implementation="sdpa")
    return _lm_spec(model)


def m_bert():
    model = _hf("BertConfig", "BertModel", num_hidden_layers=2, hidden_size=32, intermediate_size=64,
                num_attention_heads=2, vocab_size=128, max_position_embeddings=128, attn_implementation="sdpa")
    return _lm_spec(model, field="last_hidden_state", cache=False, onnx=True, extra_mask=True)


def m_distilbert():
    model = _hf("DistilBertConfig", "DistilBertModel", n_layers=2, dim=32, hidden_dim=64, n_heads=2,
                vocab_size=128, max_position_embeddings=128, attn_implementation="sdpa")
    return _lm_spec(model, field="last_hidden_state", cache=False, extra_mask=True)


class _T5(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, decoder_input_ids):
        return self.model(input_ids=input_ids, decoder_input_ids=decoder_input_ids, use_cache=False).logits


class _Whisper(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_features, decoder_input_ids):
        return self.model(input_features=input_features, decoder_input_ids=decoder_input_ids, use_cache=False).logits


def m_t5():
    model = _hf("T5Config", "T5ForConditionalGeneration", num_layers=2, num_decoder_layers=2, d_model=32, d_kv=16,
                d_ff=64, num_heads=2, vocab_size=128, decoder_start_token_id=0)
    d = _dims(batch=(2, 1024), seq=(2, 128), dec_seq=(2, 128))
    return Spec(_T5(model), (_tokens(128, 2, 8), _tokens(128, 2, 5)), ["input_ids", "decoder_input_ids"],
                ({0: d["batch"], 1: d["seq"]}, {0: d["batch"], 1: d["dec_seq"]}),
                [[(2, 8), (2, 5)], [(3, 17), (3, 9)], [(8, 64), (8, 32)]])


def m_whisper():
    model = _hf("WhisperConfig", "WhisperForConditionalGeneration", encoder_layers=2, decoder_layers=2, d_model=32,
                encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                num_mel_bins=8, max_source_positions=16, max_target_positions=64, vocab_size=128,
                attn_implementation="sdpa", decoder_start_token_id=0, pad_token_id=0)
    d = _dims(batch=(2, 1024), dec_seq=(2, 64))
    return Spec(_Whisper(model), (torch.randn(2, 8, 32), _tokens(128, 2, 5)),
                ["input_features", "decoder_input_ids"],
                ({0: d["batch"]}, {0: d["batch"], 1: d["dec_seq"]}),
                [[(2, 8, 32), (2, 5)], [(3, 8, 32), (3, 9)], [(8, 8, 32), (8, 33)]])


class _UNet(torch.nn.Module):
    """A two-level UNet: conv blocks, max-pool down, transposed-conv up, skip concatenations."""

    def __init__(self, c=8):
        super().__init__()
        import torch.nn as nn

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                                 nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())
        self.e1, self.e2, self.mid = block(3, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.u2, self.d2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2), block(4 * c, 2 * c)
        self.u1, self.d1 = nn.ConvTranspose2d(2 * c, c, 2, stride=2), block(2 * c, c)
        self.head = nn.Conv2d(c, 2, 1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(self.pool(a))
        m = self.mid(self.pool(b))
        b = self.d2(torch.cat([self.u2(m), b], 1))
        a = self.d1(torch.cat([self.u1(b), a], 1))
        return self.head(a)


def m_unet():
    _seed()
    from torch.export import Dim
    d = _dims(batch=(2, 1024))
    h, w = Dim("h", min=2, max=128), Dim("w", min=2, max=128)
    return Spec(_UNet(), (torch.randn(2, 3, 32, 32),), ["x"], ({0: d["batch"], 2: 4 * h, 3: 4 * w},),
                [[(2, 3, 32, 32)], [(3, 3, 48, 40)], [(8, 3, 64, 64)]])


# ---------------------------------------------------------------- training steps

class _ClassifierStep(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, labels):
        return (torch.nn.functional.cross_entropy(self.model(x), labels),)


class _LMStep(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, labels):
        logits = self.model(input_ids=input_ids, use_cache=False).logits
        return (torch.nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten()),)


def _classifier_train(model, shape, hw_dynamic):
    b, c, h, w = shape
    args = (torch.randn(b, c, h, w), torch.randint(0, 10, (b,)))
    dyn = {0: [0, 2, 3] if hw_dynamic else [0], 1: [0]}
    sizes = [[(2, c, 64, 64), (2,)], [(3, c, 80, 72), (3,)], [(8, c, 96, 96), (8,)]]
    return Spec(_ClassifierStep(model), args, ["x", "labels"], None, sizes, train=True, dyn_dims=dyn)


def _lm_train(model, vocab):
    args = (_tokens(vocab, 2, 8), _tokens(vocab, 2, 8))
    dyn = {0: [0, 1], 1: [0, 1]}
    sizes = [[(b, s), (b, s)] for b, s in _TOKEN_SIZES]
    return Spec(_LMStep(model), args, ["input_ids", "labels"], None, sizes, train=True, dyn_dims=dyn)


MODELS = {
    "resnet18": m_resnet18,
    "resnet18_thin": m_resnet18_thin,
    "mobilenet_v3_small": m_mobilenet_v3_small,
    "vit_tiny": m_vit,
    "convnext_atto": m_convnext_atto,
    "gpt2": m_gpt2,
    "llama": m_llama,
    "qwen2": m_qwen2,
    # the same models with aten.scaled_dot_product_attention left whole (GQA; an attention mask)
    "llama_sdpa": lambda: _keep_sdpa(m_llama()),
    "bert_sdpa": lambda: _keep_sdpa(_no_onnx(m_bert())),
    "bert": m_bert,
    "distilbert": m_distilbert,
    "t5": m_t5,
    "whisper": m_whisper,
    "unet": m_unet,
    "resnet18_train": lambda: m_resnet18(train=True),
    # eager attention (bmm and softmax in the joint graph) and SDPA (its CPU flash backward)
    "gpt2_train": lambda: m_gpt2(train=True, attn="eager"),
    "llama_train": lambda: m_llama(train=True, attn="eager"),
    "gpt2_sdpa_train": lambda: m_gpt2(train=True),
    "llama_sdpa_train": lambda: m_llama(train=True),
}


# ---------------------------------------------------------------- export

class _KeepSdpa(Exception):
    pass


def export_inference(spec):
    """(GraphModule, placeholder name -> state tensor, user input names, fakeprop JSON document)."""
    from torch.export.graph_signature import InputKind
    ep = torch.export.export(spec.module.eval(), spec.args, dynamic_shapes=spec.dynamic_shapes)
    try:
        if spec.keep_sdpa:
            raise _KeepSdpa()
        ep, decomp = ep.run_decompositions(), "core_aten"
    except _KeepSdpa:
        table = torch.export.default_decompositions()
        del table[torch.ops.aten.scaled_dot_product_attention.default]
        ep, decomp = ep.run_decompositions(table), "core_aten_except_sdpa"
    except Exception as e:  # noqa: BLE001: see README: torch's SDPA decomposition disagrees with its own strides
        print("  run_decompositions failed (%s: %s); keeping aten.scaled_dot_product_attention"
              % (type(e).__name__, str(e).splitlines()[0]), flush=True)
        table = torch.export.default_decompositions()
        del table[torch.ops.aten.scaled_dot_product_attention.default]
        ep, decomp = ep.run_decompositions(table), "core_aten_except_sdpa"
    gm = ep.graph_module
    state = {}
    users = []
    for s in ep.graph_signature.input_specs:
        name = s.arg.name
        if s.kind == InputKind.USER_INPUT:
            if isinstance(s.arg, torch.export.graph_signature.TensorArgument):
                users.append(name)
        else:
            state[name] = ep.state_dict[s.target] if s.target in ep.state_dict else ep.constants[s.target]
    doc = json.loads(read_program(ep).to_json())
    return gm, state, users, doc, decomp


def export_train(spec):
    """The joint graph of one training step, sizes traced symbolically where torch allows."""
    from torch._functorch.aot_autograd import aot_export_module
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

    model = spec.module.train()
    fake_mode = FakeTensorMode(shape_env=ShapeEnv(), allow_non_fake_inputs=True)
    fake_args = []
    for i, a in enumerate(spec.args):
        dyn = spec.dyn_dims.get(i, [])
        ctx = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC if d in dyn else DimDynamic.STATIC
                                                      for d in range(a.dim())])
        fake_args.append(fake_mode.from_tensor(a, symbolic_context=ctx))
    # transformers' packed-sequence check is data-dependent control flow that only torch.compile/export
    # tracing skips (is_tracing does not see make_fx): on unpacked input, as here, eager returns None.
    import contextlib
    patch = contextlib.nullcontext()
    try:
        from unittest import mock
        import transformers.masking_utils as mu
        patch = mock.patch.object(mu, "find_packed_sequence_indices", lambda position_ids: None)
    except ImportError:
        pass
    with fake_mode, patch:
        gm, sig = aot_export_module(model, fake_args, trace_joint=True, output_loss_index=0, dynamic_shapes=True)
    params = dict(model.named_parameters(remove_duplicate=False))
    buffers = dict(model.named_buffers(remove_duplicate=False))
    state = {}
    for name, fqn in sig.inputs_to_parameters.items():
        state[name] = params[fqn].detach()
    for name, fqn in sig.inputs_to_buffers.items():
        state[name] = buffers[fqn]
    users = list(sig.user_inputs)
    doc = json.loads(read_program(gm, gradients=sig).to_json())
    # A parameter under two names (GPT-2's embedding and LM head) is one tensor, so one storage: the
    # joint graph has a placeholder for each name, which the JSON graph declares aliased.
    first = {}
    for node in doc["nodes"]:
        if node["op"] == "placeholder" and node["name"] in state and isinstance(node.get("val"), dict):
            owner = first.setdefault(state[node["name"]].untyped_storage().data_ptr(), node)
            if owner is not node:
                node["val"]["storage"] = owner["val"]["storage"]
    return gm, state, users, doc, "aot_export_module(trace_joint=True)"


def export_onnx(spec, path):
    import onnx
    prog = torch.onnx.export(spec.module.eval(), spec.args, dynamo=True, dynamic_shapes=spec.dynamic_shapes,
                             input_names=spec.names, verbose=False)
    prog.save(path)
    m = onnx.load(path)
    del m.graph.value_info[:]
    for node in m.graph.node:  # stack traces (with this machine's paths), scopes: not deterministic
        del node.metadata_props[:]
    del m.graph.metadata_props[:]  # the ExportedProgram's signature and range constraints, in set order
    onnx.save(m, path)
    inits = {i.name for i in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in inits]


def write_lines(doc, path, listed):
    """A JSON object with the list under `listed` one entry per line: small, and diffs stay readable."""
    with open(path, "w") as f:
        f.write("{\n")
        keys = list(doc)
        for i, k in enumerate(keys):
            v = doc[k]
            f.write(json.dumps(k) + ": ")
            if k == listed:
                f.write("[\n" + ",\n".join(json.dumps(n, separators=(",", ":")) for n in v) + "\n]")
            else:
                f.write(json.dumps(v, separators=(",", ":")) if listed == "nodes" else json.dumps(v))
            f.write(",\n" if i + 1 < len(keys) else "\n")
        f.write("}\n")


def check_with_fakeprop(binary, path, inputs=None):
    """The graph (or ONNX model) must load in fakeprop with no errors (its --json report's "errors"
    empty), with `inputs` (name -> shape) as the inputs' hints where given."""
    import subprocess
    cmd = [binary, path, "--json"]
    for name, shape in (inputs or {}).items():
        cmd += ["--input", "%s=%s" % (name, ",".join(str(d) for d in shape))]
    r = subprocess.run(cmd, capture_output=True, text=True)
    try:
        errors = json.loads(r.stdout).get("errors")
    except ValueError:
        errors = None
    if r.returncode != 0 or errors:
        raise RuntimeError("%s %s: fakeprop exits %d, errors %s: %s"
                           % (path, inputs or "", r.returncode, str(errors)[:1000], r.stderr[:500]))


def check_with_onnxruntime(path, inputs, args):
    """The ONNX model runs in onnxruntime at these sizes (its dynamic dims are real)."""
    try:
        import numpy as np
        import onnxruntime
    except ImportError:
        return
    sess = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    feed = {name: np.zeros(shape, dtype=a.numpy().dtype) for (name, shape), a in zip(inputs.items(), args)}
    sess.run(None, feed)


def run_model(name, out, fakeprop=None):
    t0 = time.time()
    spec = MODELS[name]()
    gm, state, users, doc, decomp = (export_train if spec.train else export_inference)(spec)
    graph_file = name + ".graph.json"
    write_lines(doc, os.path.join(out, graph_file), "nodes")
    if fakeprop:
        check_with_fakeprop(fakeprop, os.path.join(out, graph_file))
    placeholders = {n.name: n for n in gm.graph.nodes if n.op == "placeholder"}
    if len(users) != len(spec.names):
        raise RuntimeError("%s: %d user inputs, expected %d" % (name, len(users), len(spec.names)))
    dtypes = {u: a.dtype for u, a in zip(users, spec.args)}
    graph_nodes = [n["name"] for n in doc["nodes"]]
    extra = [n for n in doc["nodes"] if n["name"] not in {m.name for m in gm.graph.nodes}]
    if [n for n in graph_nodes if n not in {e["name"] for e in extra}] != [n.name for n in gm.graph.nodes] or \
            any(e.get("target") != "fakeprop.program_guard" for e in extra):
        raise RuntimeError("%s: the JSON graph's nodes are not the GraphModule's, in order" % name)
    golden = {"format": FORMAT, "torch": torch.__version__, "graph": graph_file,
              "kind": "train" if spec.train else "inference", "decompositions": decomp,
              "user_inputs": dict(zip(users, spec.names)),
              "parameters": [p for p in placeholders if p in state]}
    onnx_names = None
    if spec.onnx:
        onnx_file = name + ".onnx"
        onnx_names = export_onnx(spec, os.path.join(out, onnx_file))
        golden["onnx"] = onnx_file
    sizes = []
    for size in spec.sizes:
        shapes = {u: tuple(s) for u, s in zip(users, size)}
        entry = measure(gm, state, shapes, dtypes, order=graph_nodes)
        env = env_live_bytes(gm, state, shapes, dtypes)
        mine = [b for nm, b in zip(graph_nodes, entry["live_bytes"]) if nm in placeholders or
                nm in {n.name for n in gm.graph.nodes}]
        if env != mine:
            bad = next(i for i, (a, b) in enumerate(zip(env, mine)) if a != b)
            raise RuntimeError("%s %s: live bytes disagree with fx.Interpreter's env at node %d (%s): %d != %d"
                               % (name, shapes, bad, list(gm.graph.nodes)[bad].name, mine[bad], env[bad]))
        mt = memtracker_peak(gm, state, shapes, dtypes)
        if mt is not None:
            entry["memtracker_peak_bytes"] = mt
            held = measure(gm, state, shapes, dtypes, hold_unused=True, order=graph_nodes)["peak_bytes"]
            print("  MemTracker %s; golden peak %d; with unread values held to the end as fx.Interpreter "
                  "holds them %d" % (mt, entry["peak_bytes"], held), flush=True)
        if onnx_names is not None:
            entry["onnx_inputs"] = {o: list(s) for o, s in zip(onnx_names, size)}
        sizes.append(entry)
        if fakeprop:
            check_with_fakeprop(fakeprop, os.path.join(out, graph_file), shapes)
            if onnx_names is not None:
                check_with_fakeprop(fakeprop, os.path.join(out, golden["onnx"]), entry["onnx_inputs"])
        if onnx_names is not None:
            check_with_onnxruntime(os.path.join(out, golden["onnx"]), entry["onnx_inputs"], spec.args)
        print("  %s %s: flops %d peak %d at %s (memtracker %s)" % (
            name, shapes, entry["flops"], entry["peak_bytes"], entry["peak_node"], mt), flush=True)
    golden["sizes"] = sizes
    write_lines(golden, os.path.join(out, name + ".golden.json"), "sizes")
    print("%s: %d nodes, %.1fs" % (name, len(gm.graph.nodes), time.time() - t0), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "testdata", "memory"))
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of: " + ",".join(MODELS))
    ap.add_argument("--fakeprop", default=next((p for p in (os.environ.get("FAKEPROP_BIN"),
                    os.path.join(ROOT, "build", "fakeprop")) if p and os.path.exists(p)), None),
                    help="the fakeprop binary every graph must load in with no errors (default: build/fakeprop)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failed = []
    for name in args.models.split(","):
        try:
            run_model(name, args.out, args.fakeprop)
        except Exception:  # noqa: BLE001: report and go on with the others
            traceback.print_exc()
            failed.append(name)
    # The README's model table and counts, from every golden in the folder (testdata/memory's README).
    if os.path.exists(os.path.join(args.out, "README.md")):
        sys.path.insert(0, os.path.join(ROOT, "testdata", "memory"))
        import readme_table  # noqa: E402
        readme_table.write(args.out)
    if failed:
        print("failed: " + ",".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
