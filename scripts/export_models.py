#!/usr/bin/python3
"""Exports real models to ONNX with python3-torch 1.13 / python3-torchvision 0.14.

Run with Debian's python3 (plain python3 may lack torch):

    /usr/bin/python3 scripts/export_models.py --out build-models \
        --models resnet18,resnet50,mobilenet_v2,vit_b_16,swin_t,gpt2_12,gpt2_48

Weights are random (weights=None); nothing is downloaded. Every model gets
symbolic input dims through dynamic_axes:
  - CNN classifiers (resnet*, mobilenet_v2): x[batch, 3, height, width]
  - transformer classifiers (vit_b_16, swin_t): x[batch, 3, 224, 224]
  - detection (fasterrcnn_mobilenet_v3_large_320_fpn, ...): images[batch, 3, height, width]
  - GPT-2-style decoders (gpt2_<layers>, gpt2_tiny): input_ids[batch, seq]
Existing files are kept unless --force; a model that fails to export is
skipped with a message and the script exits 1 at the end. The generated
models are large and never committed (build-models/ is git-ignored), except
the tiny ones written with --out testdata/onnx/exports (see --models help).
"""
import argparse
import math
import os
import sys
import time
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


class GPT2Block(nn.Module):
    """Pre-norm decoder block: causal multi-head self-attention and a GELU MLP."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.ln_1 = nn.LayerNorm(hidden)
        self.c_attn = nn.Linear(hidden, 3 * hidden)
        self.c_proj = nn.Linear(hidden, hidden)
        self.ln_2 = nn.LayerNorm(hidden)
        self.c_fc = nn.Linear(hidden, 4 * hidden)
        self.mlp_proj = nn.Linear(4 * hidden, hidden)

    def split_heads(self, t):
        batch, seq, hidden = t.size()
        return t.view(batch, seq, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        batch, seq, hidden = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(hidden, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        # Causal mask computed from the sequence length (no fixed-size buffer).
        positions = torch.arange(seq, device=x.device)
        future = positions.unsqueeze(0) > positions.unsqueeze(1)
        scores = scores.masked_fill(future, float("-inf"))
        context = torch.matmul(F.softmax(scores, dim=-1), v)
        context = context.transpose(1, 2).contiguous().view(batch, seq, hidden)
        x = x + self.c_proj(context)
        x = x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))
        return x


class GPT2Like(nn.Module):
    """A GPT-2-style language model: token + position embeddings, decoder blocks, tied LM head."""

    def __init__(self, layers, hidden=768, heads=12, vocab=50257, positions=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(positions, hidden)
        self.blocks = nn.ModuleList(GPT2Block(hidden, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)

    def forward(self, input_ids):
        seq = input_ids.size(1)
        pos = torch.arange(seq, device=input_ids.device).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)


def classification(name, hw_dynamic):
    import torchvision

    model = getattr(torchvision.models, name)(weights=None)
    size = 224
    axes = {0: "batch", 2: "height", 3: "width"} if hw_dynamic else {0: "batch"}
    return model, (torch.randn(2, 3, size, size),), ["x"], ["logits"], {"x": axes, "logits": {0: "batch"}}


def detection(name):
    import torchvision

    model = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None)
    images = torch.randn(1, 3, 320, 320)
    axes = {"images": {0: "batch", 2: "height", 3: "width"}}
    return model, (images,), ["images"], ["boxes", "labels", "scores"], axes


def gpt2(layers, hidden=768, heads=12, vocab=50257, positions=1024):
    model = GPT2Like(layers, hidden=hidden, heads=heads, vocab=vocab, positions=positions)
    ids = torch.randint(0, vocab, (2, 16))
    axes = {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
    return model, (ids,), ["input_ids"], ["logits"], axes


def tiny(name):
    """Small versions of the real models (same code paths, few weights): committed regression models."""
    import torchvision
    from torchvision.models import detection

    if name == "gpt2_tiny":
        return gpt2(1, hidden=16, heads=2, vocab=64, positions=64)
    if name == "vit_tiny":
        model = torchvision.models.VisionTransformer(image_size=32, patch_size=16, num_layers=1, num_heads=2,
                                                     hidden_dim=16, mlp_dim=32, num_classes=10)
        return model, (torch.randn(2, 3, 32, 32),), ["x"], ["logits"], {"x": {0: "batch"}, "logits": {0: "batch"}}
    if name == "swin_tiny":
        model = torchvision.models.SwinTransformer(patch_size=[4, 4], embed_dim=8, depths=[1, 1], num_heads=[1, 2],
                                                   window_size=[2, 2], num_classes=10)
        return model, (torch.randn(2, 3, 32, 32),), ["x"], ["logits"], {"x": {0: "batch"}, "logits": {0: "batch"}}
    if name == "resnet_tiny":
        from torchvision.models.resnet import BasicBlock, ResNet

        model = ResNet(BasicBlock, [1, 1, 1, 1], num_classes=10, width_per_group=64)
        for m in model.modules():  # a thin network: the same graph with 4 channels per conv
            if isinstance(m, nn.Conv2d):
                m.in_channels = 3 if m.in_channels == 3 else 4
                m.out_channels = 4
                m.weight = nn.Parameter(torch.randn(4, m.in_channels, *m.kernel_size) * 0.1)
            elif isinstance(m, nn.BatchNorm2d):
                m.__init__(4)
        model.fc = nn.Linear(4, 10)
        axes = {"x": {0: "batch", 2: "height", 3: "width"}, "logits": {0: "batch"}}
        return model, (torch.randn(2, 3, 64, 64),), ["x"], ["logits"], axes
    if name == "fasterrcnn_tiny":
        from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
        from torchvision.models.detection.rpn import AnchorGenerator
        from torchvision.ops import MultiScaleRoIAlign

        backbone = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1), nn.ReLU(),
                                 nn.Conv2d(4, 4, 3, stride=2, padding=1), nn.ReLU())
        backbone.out_channels = 4
        anchors = AnchorGenerator(sizes=((8, 16),), aspect_ratios=((0.5, 1.0),))
        roi_pool = MultiScaleRoIAlign(featmap_names=["0"], output_size=4, sampling_ratio=2)
        model = detection.FasterRCNN(backbone, rpn_anchor_generator=anchors, box_roi_pool=roi_pool,
                                     box_head=TwoMLPHead(4 * 4 * 4, 8), box_predictor=FastRCNNPredictor(8, 3),
                                     min_size=64, max_size=96, rpn_pre_nms_top_n_test=50, rpn_post_nms_top_n_test=20,
                                     box_detections_per_img=10, box_score_thresh=0.0)
        images = torch.rand(1, 3, 64, 64)
        axes = {"images": {0: "batch", 2: "height", 3: "width"}}
        return model, (images,), ["images"], ["boxes", "labels", "scores"], axes
    raise ValueError(name)


TINY = ["gpt2_tiny", "vit_tiny", "swin_tiny", "resnet_tiny", "fasterrcnn_tiny"]
# name -> (builder, default opset)
CNNS = ["resnet18", "resnet50", "mobilenet_v2"]
TRANSFORMERS = ["vit_b_16", "swin_t"]
DETECTION = ["fasterrcnn_mobilenet_v3_large_320_fpn", "fasterrcnn_mobilenet_v3_large_fpn", "fasterrcnn_resnet50_fpn",
             "maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn", "retinanet_resnet50_fpn",
             "ssdlite320_mobilenet_v3_large", "fcos_resnet50_fpn"]
DEFAULT_MODELS = CNNS + TRANSFORMERS + ["fasterrcnn_mobilenet_v3_large_320_fpn", "gpt2_12", "gpt2_48"]


def build(name):
    """Returns (module, args, input_names, output_names, dynamic_axes, opset)."""
    if name in CNNS:
        return classification(name, hw_dynamic=True) + (17,)
    if name in TRANSFORMERS:
        return classification(name, hw_dynamic=False) + (17,)
    if name in DETECTION:
        # torchvision's detection export is tested at opset 11; later opsets export too.
        return detection(name) + (16,)
    if name in TINY:
        return tiny(name) + (16 if "rcnn" in name else 17,)
    if name.startswith("gpt2_") and name[5:].isdigit():
        return gpt2(int(name[5:])) + (17,)
    raise ValueError("unknown model '%s' (known: %s, gpt2_<layers>)" % (name, ", ".join(CNNS + TRANSFORMERS + DETECTION + TINY)))


def export(name, path, opset_override):
    torch.manual_seed(0)
    model, args, input_names, output_names, axes, opset = build(name)
    if opset_override:
        opset = opset_override
    model.eval()
    tmp = path + ".tmp"
    # Not under torch.no_grad(): with grad enabled nn.MultiheadAttention takes its
    # exportable path instead of aten::_native_multi_head_attention (ViT, 1.13).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, tmp, input_names=input_names, output_names=output_names,
                          dynamic_axes=axes, opset_version=opset, do_constant_folding=True)
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="build-models", help="output directory (default build-models/, git-ignored)")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="comma-separated names (default: %(default)s); also gpt2_<layers>, "
                             + ", ".join(d for d in DETECTION if d not in DEFAULT_MODELS)
                             + " and the tiny regression models " + ", ".join(TINY))
    parser.add_argument("--opset", type=int, default=0, help="override every model's opset (14-17)")
    parser.add_argument("--force", action="store_true", help="export again even when the file exists")
    opts = parser.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    failed = []
    for name in [m.strip() for m in opts.models.split(",") if m.strip()]:
        path = os.path.join(opts.out, name + ".onnx")
        if os.path.exists(path) and not opts.force:
            print("%s: exists, skipped (--force to export again)" % path)
            continue
        start = time.time()
        try:
            export(name, path, opts.opset)
        except Exception as e:  # a model that does not export is reported, never fatal for the others
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            print("%s: export failed, skipped: %s: %s" % (name, type(e).__name__, first[:300]), file=sys.stderr)
            failed.append(name)
            if os.path.exists(path + ".tmp"):
                os.remove(path + ".tmp")
            continue
        print("%s: exported in %.1f s (%.1f MB)" % (path, time.time() - start, os.path.getsize(path) / 1e6))
    if failed:
        print("failed: %s" % ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
