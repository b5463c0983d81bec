#!/usr/bin/env python3
"""testdata/fx/float_sizes.json: a torch.export program whose sizes go through float arithmetic
(torchvision's resize scale, a float arange bound), and testdata/fx/float_input.json: make_fx's
symbolic trace of a program whose scale and count arrive as 0-d tensors (so item() gives backed
symbols with their values, zf and s), as fakeprop.fx/1 graphs for the lit tests.

    PYTHONPATH=build/python .venv-oracle/bin/python scripts/gen_float_size_graph.py
"""
import json
import math
import os
import sys

import torch

import fakeprop

F = torch.nn.functional


class FloatSizes(torch.nn.Module):
    def forward(self, x):
        h, w = x.shape[-2], x.shape[-1]
        scale = torch.sym_min(800 / torch.sym_min(h, w), 1333 / torch.sym_max(h, w))
        resized = F.interpolate(x, size=(math.floor(h * scale), math.floor(w * scale)), mode="bilinear")
        return resized, torch.arange(2.0, h / 10, 0.5), F.interpolate(x, scale_factor=1.7, mode="nearest")


def float_input(x, scale, extra):
    s, k = scale.item(), extra.item()
    return x.new_zeros(math.floor(x.shape[0] * s) + k), torch.arange(0.0, x.shape[0] * s, 0.5), x[: math.floor(s * k)]


def write(graph, name):
    graph["generated_by"] = "torch %s, scripts/gen_float_size_graph.py" % torch.__version__
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "fx", name)
    with open(out, "w") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")
    print(out)


def main():
    from torch.fx.experimental.proxy_tensor import make_fx

    dyn = torch.export.Dim.DYNAMIC
    ep = torch.export.export(FloatSizes(), (torch.randn(1, 3, 60, 90),), dynamic_shapes={"x": {2: dyn, 3: dyn}},
                             strict=False)
    write(fakeprop.export_graph(ep), "float_sizes.json")
    gm = make_fx(float_input, tracing_mode="symbolic")(torch.randn(6), torch.tensor(2.5, dtype=torch.float64),
                                                      torch.tensor(3))
    write(fakeprop.export_graph(gm), "float_input.json")


if __name__ == "__main__":
    sys.exit(main())
