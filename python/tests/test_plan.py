"""fakeprop.plan and the report's memory and compute sections, checked against torch's own trackers.

The tracker interprets the program under FakeTensorMode in graph order and frees each value after
its last reader (docs/sizing.md's definition); FLOPs are FlopCounterMode's.
"""
import json

import pytest

import fakeprop
from conftest import TESTDATA

GPT2 = TESTDATA / "pt2" / "gpt2_tiny.pt2"
ATTENTION = TESTDATA / "samples" / "tiny_attention.onnx"


def test_plan_of_a_file_is_the_cli_json(cli):
    doc = fakeprop.plan(GPT2, budget="900KiB", solve="s72", at=[{"s72": 3, "s70": 11}])
    out = cli("plan", GPT2, "--budget", "900KiB", "--solve", "s72", "--at", "s72=3,s70=11", "--json")
    assert out.returncode == 0, out.stderr
    assert doc == json.loads(out.stdout)
    assert doc["solve"]["peak_bytes"] <= doc["budget"] < doc["solve"]["next"]["peak_bytes"]


def test_plan_errors_are_input_errors():
    with pytest.raises(fakeprop.InputError, match="no symbol 'nope'; its symbols: batch"):
        fakeprop.plan(ATTENTION, inputs={"x": [2, 8, 32]}, budget="1GiB", solve="nope")
    with pytest.raises(fakeprop.InputError, match="--budget 12 parsecs"):
        fakeprop.plan(ATTENTION, budget="12 parsecs", solve="batch")
    with pytest.raises(fakeprop.InputError, match="at: expected a dict"):
        fakeprop.plan(ATTENTION, at=[[1, 2]])
    with pytest.raises(TypeError, match="unexpected keyword argument 'bugdet'"):
        fakeprop.plan(ATTENTION, bugdet="1GiB")
    doc = fakeprop.plan(ATTENTION, inputs={"x": [2, 8, 32]}, budget=1024, solve="batch")
    assert doc["solve"]["fits"] is False and doc["solve"]["value"] == 2


torch = pytest.importorskip("torch")


def _tracked(gm, inputs):
    """(peak live bytes, total FLOPs) of `gm` on fake `inputs`: graph order, freed after the last reader."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils.flop_counter import FlopCounterMode
    from torch.utils._pytree import tree_leaves

    last_use = {}
    for i, node in enumerate(gm.graph.nodes):
        for arg in node.all_input_nodes:
            last_use[arg] = i
    held = set(gm.graph.find_nodes(op="placeholder")) | set(gm.graph.find_nodes(op="get_attr"))
    output = next(iter(gm.graph.find_nodes(op="output")))
    held |= set(output.all_input_nodes)

    class Tracker(torch.fx.Interpreter):
        peak = 0

        def run_node(self, n):
            result = super().run_node(n)
            self.values[n] = result
            i = self.position[n]
            live = {}
            for node, value in self.values.items():
                if node in held or last_use.get(node, self.position[node]) >= i:
                    for t in tree_leaves(value):
                        if isinstance(t, torch.Tensor):
                            s = t.untyped_storage()
                            live[s._cdata] = s.nbytes()
            Tracker.peak = max(Tracker.peak, sum(live.values()))
            return result

    mode = FakeTensorMode(allow_non_fake_inputs=False)
    with mode:
        fake = [mode.from_tensor(x) for x in inputs]
    tracker = Tracker(gm)
    tracker.values = {}
    tracker.position = {n: i for i, n in enumerate(gm.graph.nodes)}
    with mode, FlopCounterMode(display=False) as counter:
        tracker.run(*fake)
    return Tracker.peak, counter.get_total_flops()


class _Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(64, 256)
        self.down = torch.nn.Linear(256, 64)
        self.conv = torch.nn.Conv1d(64, 64, 3, padding=1)

    def forward(self, x):
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        return x + self.down(torch.nn.functional.gelu(self.up(h)))


def test_the_largest_batch_fits_and_the_next_does_not():
    from torch.export import Dim

    ep = torch.export.export(_Block().eval(), (torch.randn(4, 16, 64),),
                             dynamic_shapes={"x": {0: Dim("batch", max=100000)}})
    budget = 3 * 2 ** 20
    report = fakeprop.propagate(ep)
    batch = next(s["name"] for s in report["symbols"] if s["sources"][0] == "L['x'].size()[0]")
    doc = fakeprop.plan(ep, budget=budget, solve=batch)
    answer = doc["solve"]["value"]
    assert doc["solve"]["fits"] and doc["solve"]["limited_by"] == "budget"
    state = [ep.state_dict[s.target].detach() for s in ep.graph_signature.input_specs if s.target is not None]

    def run(b):
        return _tracked(ep.graph_module, state + [torch.randn(b, 16, 64)])

    peak, flops = run(answer)
    next_peak, _ = run(answer + 1)
    assert peak == doc["solve"]["peak_bytes"] and peak <= budget < next_peak, (peak, next_peak, doc["solve"])
    assert flops == doc["solve"]["flops"]
    # The report's symbolic peak, at a size of its own, is the tracker's too.
    at = fakeprop.plan(ep, at=[{batch: 37}])["table"][0]
    assert (at["peak_bytes"], at["flops"]) == run(37)


def test_plan_html_is_the_cli_flag(cli, tmp_path):
    """html=, plan's --html, writes the HTML report of a model file; a program in process has no file for it."""
    fakeprop.plan(GPT2, budget="900KiB", solve="s72", html=tmp_path / "py.html")
    out = cli("plan", GPT2, "--budget", "900KiB", "--solve", "s72", "--html", tmp_path / "cli.html")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "py.html").read_bytes() == (tmp_path / "cli.html").read_bytes()
    with pytest.raises(fakeprop.InputError, match="^html: plan writes the HTML report of a model file"):
        fakeprop.plan(object(), html=tmp_path / "x.html")
