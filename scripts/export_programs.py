#!/usr/bin/env python3
"""torch.export programs of real architectures, with dynamic dims, for tests and benches.

Runs in the oracle environment (scripts/setup.sh --oracle). Each program is
built from code (torchvision constructors, Hugging Face configs with random
weights; nothing is downloaded) and exported with torch.export.export and
dynamic batch and sequence (or image size):

    .venv-oracle/bin/python scripts/export_programs.py --list
    .venv-oracle/bin/python scripts/export_programs.py --out build-models/pt2 gpt2 resnet18

As a module, `build(name)` returns (ExportedProgram, example inputs) and
`NAMES` lists what it builds.
"""
import argparse
import os
import sys
import time

import torch
from torch.export import Dim

# Small Hugging Face configs: the architecture's code with tiny sizes.
_TINY = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, vocab_size=256)
# Special token ids inside the tiny vocabulary (the configs' defaults index a full-size one).
_TOKENS = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2)


def _hf_causal(config_cls_name, **extra):
    def build():
        import transformers

        # use_cache=False: with a cache the model returns a DynamicCache, which export cannot flatten.
        cfg = getattr(transformers, config_cls_name)(**{**_TINY, **_TOKENS, **extra}, use_cache=False)
        model = transformers.AutoModelForCausalLM.from_config(cfg).eval()
        ids = torch.randint(0, 256, (2, 16))
        batch, seq = Dim("batch", min=1, max=64), Dim("seq", min=2, max=512)
        return model, (ids,), {"input_ids": {0: batch, 1: seq}}

    return build


def _gpt2():
    import transformers

    cfg = transformers.GPT2Config(n_embd=64, n_layer=2, n_head=4, vocab_size=256, n_positions=512, use_cache=False,
                                  bos_token_id=1, eos_token_id=2)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    ids = torch.randint(0, 256, (2, 16))
    return model, (ids,), {"input_ids": {0: Dim("batch", max=64), 1: Dim("seq", max=512)}}


def _bert():
    import transformers

    cfg = transformers.BertConfig(**_TINY, max_position_embeddings=512)
    model = transformers.BertModel(cfg).eval()
    ids = torch.randint(0, 256, (2, 16))
    return model, (ids,), {"input_ids": {0: Dim("batch", max=64), 1: Dim("seq", max=512)}}


def _t5():
    import transformers

    cfg = transformers.T5Config(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4, vocab_size=256,
                                decoder_start_token_id=0)
    model = transformers.T5Model(cfg).eval()
    ids, dec = torch.randint(0, 256, (2, 16)), torch.randint(0, 256, (2, 8))
    batch = Dim("batch", max=64)
    shapes = {"input_ids": {0: batch, 1: Dim("seq", max=512)}, "decoder_input_ids": {0: batch, 1: Dim("dec", max=512)}}
    return _Kw(model, ("input_ids", "decoder_input_ids")), (ids, dec), shapes


def _vit_hf():
    import transformers

    cfg = transformers.ViTConfig(**{k: v for k, v in _TINY.items() if k != "vocab_size"}, image_size=32, patch_size=8)
    model = transformers.ViTModel(cfg).eval()
    return model, (torch.randn(2, 3, 32, 32),), {"pixel_values": {0: Dim("batch", max=64)}}


def _clip_text():
    import transformers

    cfg = transformers.CLIPTextConfig(**_TINY, **_TOKENS, max_position_embeddings=77)
    model = transformers.CLIPTextModel(cfg).eval()
    ids = torch.randint(0, 256, (2, 16))
    return model, (ids,), {"input_ids": {0: Dim("batch", max=64), 1: Dim("seq", max=77)}}


def _whisper_encoder():
    import transformers

    cfg = transformers.WhisperConfig(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                     decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                                     num_mel_bins=16, max_source_positions=64, vocab_size=256,
                                     pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    model = transformers.WhisperModel(cfg).get_encoder().eval()
    feats = torch.randn(2, 16, 128)  # the encoder takes exactly 2*max_source_positions frames
    return model, (feats,), {"input_features": {0: Dim("batch", max=64)}}


class _Kw(torch.nn.Module):
    """Calls `model` with keyword arguments, so export sees positional inputs named as the model names them."""

    def __init__(self, model, names):
        super().__init__()
        self.model, self.names = model, names

    def forward(self, input_ids, decoder_input_ids):
        return self.model(input_ids=input_ids, decoder_input_ids=decoder_input_ids).last_hidden_state


def _torchvision(name, size=64, image_dims=False):
    def build():
        import torchvision

        ctor = torchvision.models
        for part in name.split("."):
            ctor = getattr(ctor, part)
        model = ctor(weights=None, **({"weights_backbone": None} if "." in name else {})).eval()
        x = torch.randn(2, 3, size, size)
        dims = {0: Dim("batch", max=64)}
        if image_dims:
            dims.update({2: 32 * Dim("h32", min=1, max=32), 3: 32 * Dim("w32", min=1, max=32)})
        return model, (x,), {"x": dims}

    return build


class _DetectionFeatures(torch.nn.Module):
    """A torchvision detection model up to its (RPN or detection) head: the transform (a resize by a float scale
    computed from the image size, then batching to a multiple of 32), the backbone with its FPN and
    the RPN head. torch.export stops on the full model at NMS (a guard on the data-dependent
    Eq(4*u1, 0) in batched_nms)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, image):
        images, _ = self.model.transform([image])
        feats = list(self.model.backbone(images.tensors).values())
        if hasattr(self.model, "rpn"):  # two-stage: the RPN head
            objectness, deltas = self.model.rpn.head(feats)
            return (images.tensors, *objectness, *deltas)
        return (images.tensors, *self.model.head(feats).values())  # one-stage: the detection head


def _detection(name):
    def build():
        import torchvision

        model = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None).eval()
        image = torch.randn(3, 320, 256)
        return _DetectionFeatures(model), (image,), {"image": {1: Dim("h", min=32, max=2048),
                                                               2: Dim("w", min=32, max=2048)}}

    return build


BUILDERS = {
    "resnet18": _torchvision("resnet18", 64, image_dims=True),
    "mobilenet_v3_small": _torchvision("mobilenet_v3_small", 64),
    "vit_b_16": _torchvision("vit_b_16", 224),
    "fcn_resnet50": _torchvision("segmentation.fcn_resnet50", 64),
    "fasterrcnn_mobilenet_v3_large_320_fpn": _detection("fasterrcnn_mobilenet_v3_large_320_fpn"),
    "retinanet_resnet50_fpn": _detection("retinanet_resnet50_fpn"),
    "fasterrcnn_resnet50_fpn": _detection("fasterrcnn_resnet50_fpn"),
    "maskrcnn_resnet50_fpn": _detection("maskrcnn_resnet50_fpn"),
    "keypointrcnn_resnet50_fpn": _detection("keypointrcnn_resnet50_fpn"),
    "fcos_resnet50_fpn": _detection("fcos_resnet50_fpn"),
    "ssdlite320_mobilenet_v3_large": _detection("ssdlite320_mobilenet_v3_large"),
    "gpt2": _gpt2,
    "llama": _hf_causal("LlamaConfig", num_key_value_heads=2, max_position_embeddings=512),
    "mistral": _hf_causal("MistralConfig", num_key_value_heads=2, max_position_embeddings=512),
    "qwen2": _hf_causal("Qwen2Config", num_key_value_heads=2, max_position_embeddings=512),
    # GPT-J's rotary embedding: repeat_interleave with an int count; OPT, Falcon: other block layouts
    "gptj": _hf_causal("GPTJConfig", n_embd=_TINY["hidden_size"], n_layer=_TINY["num_hidden_layers"],
                       n_head=_TINY["num_attention_heads"], rotary_dim=8, n_positions=512),
    "opt": _hf_causal("OPTConfig", ffn_dim=_TINY["intermediate_size"], word_embed_proj_dim=_TINY["hidden_size"],
                      max_position_embeddings=512),
    "falcon": _hf_causal("FalconConfig"),
    "bert": _bert,
    "t5": _t5,
    "vit": _vit_hf,
    "clip_text": _clip_text,
    "whisper_encoder": _whisper_encoder,
}
NAMES = list(BUILDERS)


def build(name):
    """(ExportedProgram, example inputs) for `name`."""
    model, args, shapes = BUILDERS[name]()
    ep = torch.export.export(model, args, dynamic_shapes=shapes, strict=False)
    return ep, args


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*", help="programs to build (default: all)")
    p.add_argument("--list", action="store_true")
    p.add_argument("--out", help="write each as OUT/NAME.pt2 (torch.export.save)")
    a = p.parse_args(argv)
    if a.list:
        print("\n".join(NAMES))
        return 0
    failed = 0
    for name in a.names or NAMES:
        t = time.perf_counter()
        try:
            ep, _ = build(name)
        except Exception as e:  # noqa: BLE001 - reported, the others go on
            print("%s: torch cannot export it: %s" % (name, str(e).splitlines()[0][:300]), file=sys.stderr)
            failed += 1
            continue
        n = len(ep.graph_module.graph.nodes)
        msg = "%s: %d nodes, %.1f s" % (name, n, time.perf_counter() - t)
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            path = os.path.join(a.out, name + ".pt2")
            torch.export.save(ep, path)
            msg += ", %s (%d KB)" % (path, os.path.getsize(path) // 1024)
        print(msg, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
