"""Ops torch.export emits in real models that fakeprop once lacked rules for -- meshgrid (timm's
position grids), antialiased resampling (timm's dynamic_img_size position embeddings), weight norm
(wav2vec2's positional convolution) -- exported with dynamic sizes: every node equals torch's fake
value at three or four points of its symbols, in process and through the CLI's .pt2 reader alike."""
import pytest

import fakeprop

torch = pytest.importorskip("torch")
if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("torch.export needs torch 2", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402
from torch.export import Dim  # noqa: E402

from test_propagate import check_against_torch  # noqa: E402


class Grid(torch.nn.Module):
    """A position grid over the image, as timm's EVA and Swin build theirs."""

    def forward(self, x):
        h, w = x.shape[-2:]
        gy, gx = torch.meshgrid(torch.arange(h, dtype=x.dtype), torch.arange(w, dtype=x.dtype), indexing="ij")
        a, b = torch.meshgrid(torch.arange(w), torch.arange(h), indexing="xy")
        (c,) = torch.meshgrid([torch.arange(w)], indexing="ij")
        return x + gy + gx, a * b, c


class Resample(torch.nn.Module):
    """Antialiased resampling to a size and by a scale, of a contiguous and a channels-last input."""

    def forward(self, x):
        a = F.interpolate(x, size=(x.shape[2] * 2, x.shape[3] // 2), mode="bilinear", antialias=True)
        b = F.interpolate(x.to(memory_format=torch.channels_last), scale_factor=0.5, mode="bicubic", antialias=True)
        c = F.interpolate(x, size=(7, 5), mode="bicubic", antialias=True, align_corners=True)
        return a, b, c


class WeightNorm(torch.nn.Module):
    """wav2vec2's positional convolution (a weight norm over the kernel dim, parametrized) and the
    older hook-based weight norm over a middle dim, which ATen computes without the fused kernel."""

    def __init__(self):
        super().__init__()
        conv = torch.nn.Conv1d(8, 8, 5, padding=2, groups=2)
        self.pos = torch.nn.utils.parametrizations.weight_norm(conv, name="weight", dim=2)
        with pytest.warns(FutureWarning):
            self.old = torch.nn.utils.weight_norm(torch.nn.Conv1d(8, 4, 3), dim=1)
        self.first = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(4, 6))

    def forward(self, x):
        return self.first(self.old(self.pos(x)).transpose(1, 2))


PROGRAMS = {
    "meshgrid": (Grid, (2, 3, 6, 7), {0: Dim("b", max=8), 2: Dim("h", min=2, max=64), 3: Dim("w", min=2, max=64)},
                 {"aten.meshgrid.indexing"}),
    "antialias": (Resample, (2, 3, 16, 12), {0: Dim("b", max=8), 2: Dim("h", min=4, max=256),
                                             3: Dim("w", min=4, max=256)},
                  {"aten._upsample_bilinear2d_aa.vec", "aten._upsample_bicubic2d_aa.vec"}),
    "weight_norm": (WeightNorm, (2, 8, 20), {0: Dim("b", max=8), 2: Dim("t", min=4, max=512)},
                    {"aten._weight_norm.default"}),
}


def _export(name, decompose):
    cls, shape, dims, ops = PROGRAMS[name]
    ep = torch.export.export(cls().eval(), (torch.randn(*shape),), dynamic_shapes={"x": dims})
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert ops <= targets, targets  # torch.export keeps the ops this test is about
    return ep.run_decompositions() if decompose else ep


def _layouts(report):
    """Each node's tensor values as (shape, stride, offset, dtype, device), by node name."""
    out = {}
    for n in report["nodes"]:
        for o in n["outputs"]:
            v = o.get("val") or {}
            if "shape" in v:
                out[o["name"]] = (v["shape"], v["stride"], v["storage_offset"], v["dtype"], v["device"])
    return out


@pytest.mark.filterwarnings("ignore:The tensor attribute self.old.weight was assigned during export")
@pytest.mark.parametrize("decompose", [False, True], ids=["export", "decomposed"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_torch_in_process_and_from_pt2(name, decompose, tmp_path):
    ep = _export(name, decompose)
    report = fakeprop.propagate(ep)
    assert report["errors"] == [], report["errors"][:3]
    assert check_against_torch(ep, report, mixed_ratios=True) > 3
    path = tmp_path / ("%s.pt2" % name)
    torch.export.save(ep, str(path))
    from_file = fakeprop.infer(str(path))
    assert from_file["errors"] == [], from_file["errors"][:3]
    ours, theirs = _layouts(report), _layouts(from_file)
    common = ours.keys() & theirs.keys()
    assert len(common) > 3
    for k in sorted(common):
        assert ours[k] == theirs[k], k


class Patches(torch.nn.Module):
    """A patch embedding that checks its input size, as timm's PatchEmbed asserts it, and a branch on a
    size: torch.export.save writes the guards they make as the program's guards_code."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Conv2d(3, 8, 16, stride=16)

    def forward(self, x):
        torch._check(x.shape[2] % 16 == 0)
        assert x.shape[3] % 16 == 0
        y = self.proj(x).flatten(2)
        if x.shape[2] > 32:
            return y * 2
        return y


def _guard_errors(report):
    return [(e["node"], e["kind"]) for e in report["errors"] if e["node"].startswith("guards_code")]


def test_the_programs_own_guards_bound_its_sizes(tmp_path):
    """The guards of the model's own checks and branches are the program's guards in fakeprop (origin:
    the archive's guards_code, or the ExportedProgram's in process): the valid region is the multiples
    of 16, and a size off a multiple is rejected, as torch's ExportedProgram.module() rejects it."""
    auto = Dim.AUTO
    ep = torch.export.export(Patches(), (torch.randn(2, 3, 64, 48),), dynamic_shapes={"x": {0: auto, 2: auto, 3: auto}})
    assert "(L['x'].size()[2] % 16) == 0" in ep._guards_code
    path = tmp_path / "patches.pt2"
    torch.export.save(ep, str(path))
    module = torch.export.load(str(path)).module()
    for report in (fakeprop.infer(str(path)), fakeprop.propagate(ep)):
        assert report["errors"] == []
        guards = {g["expr"]: g for g in report["guards"]}
        for code in ep._guards_code:
            if code in guards:  # one the ranges decide (H > 32 with H from 33) is no guard
                assert guards[code]["node"].startswith("guards_code")
        region = {r["source"]: r for r in report["valid_region"]}
        assert region["L['x'].size()[2]"]["multiple_of"] == 16
        assert region["L['x'].size()[3]"]["multiple_of"] == 16
    assert module(torch.randn(2, 3, 64, 48)).shape == (2, 8, 12)
    report = fakeprop.infer(str(path), inputs={"x": [2, 3, 64, 48]})
    assert report["errors"] == []
    for bad in ([2, 3, 56, 48], [2, 3, 64, 40]):
        with pytest.raises(AssertionError, match="Guard failed"):
            module(torch.randn(*bad))
        assert _guard_errors(fakeprop.infer(str(path), inputs={"x": bad})) == [
            ("guards_code_%d" % (0 if bad[2] == 56 else 1), "assertion_error")]
        assert _guard_errors(fakeprop.propagate(ep, torch.randn(*bad))) == _guard_errors(
            fakeprop.infer(str(path), inputs={"x": bad}))
