#!/usr/bin/env python3
"""Dynamo's own behaviour, side by side: small programs run under torch.compile with TORCH_LOGS,
their logs, guards, errors and recompile reasons kept as goldens for fakeprop.

Run in the oracle venv, from the repository root, with the fakeprop package built (build/python,
or FAKEPROP_PYTHONPATH naming the directory that holds it):

    .venv-oracle/bin/python scripts/dynamo_scenarios.py --out testdata/dynamo
    .venv-oracle/bin/python scripts/dynamo_scenarios.py --out testdata/dynamo --only mark_dynamic_ok
    .venv-oracle/bin/python scripts/dynamo_scenarios.py --list

Each scenario is a small function, the calls made to it (tensors as Python expressions), how its
inputs are marked (mark_dynamic, maybe_mark_dynamic, mark_unbacked with their options, executed
before every call), torch.compile's keywords, Dynamo config, environment variables
(TORCH_COMPILE_DYNAMIC_SOURCES and its siblings) and the fakeprop command-line arguments that say
the same. It runs in a subprocess of its own (a fresh Dynamo cache and config) with
TORCH_LOGS="+dynamic,guards,recompiles"; the backend is AOTAutograd with a forward compiler that
keeps the ATen graph. The golden NAME.golden.json holds the program, the spec on both sides, torch's
log lines (timestamps, pids and line numbers dropped: testdata/dynamo/dynamo_log.py), the events
read from them per frame ([0/0], [0/1], ...) and as the texts the replay compares, the
exception raised, and the ATen graph NAME.graph.json (fakeprop.export_graph) that
testdata/dynamo/test_dynamo_scenarios.py gives fakeprop.

The ATen graph is the last one the backend saw, with two edits that keep torch's answers out of
fakeprop's input: the runtime asserts Dynamo inserted (aten._assert_scalar from deferred asserts)
are removed, while each user torch._check stays as an aten._assert_scalar of its condition; and
the SymInt placeholders Dynamo lifts (`s77` for L['x'].size()[0]) become aten.sym_size.int
calls on their tensor, so that fakeprop's own marks make the symbols. Its placeholders carry the
real example inputs of the call that compiled it (of the first call, for a workload: fakeprop's
--call replay compiles its first entry from the graph's examples). A user torch._check is told from
the asserts Dynamo derived by its stack trace (the assert node's user frame is the torch._check
line). When Dynamo fails before any graph reaches the backend (a data-dependent error), the failing
call is traced again with make_fx(tracing_mode="symbolic"), logs off, under
torch._functorch.config.fake_tensor_propagate_real_tensors (decisions take the real values, so the
trace goes past the error), torch._check recorded as aten._assert_scalar; the golden says
`"fallback": "make_fx"`.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "testdata", "dynamo"))
import dynamo_log  # noqa: E402

TORCH_LOGS = "+dynamic,guards,recompiles"
FALLBACK_MARK = "=== dynamo_scenarios: fallback run, logs off ==="


def S(name, what, source, calls, marks="", fakeprop=(), compile_kwargs=None, config=None, env=None,
      examples_from=None):
    """A scenario. `calls`: a list of calls, each a tuple of Python expressions (torch in scope);
    `marks`: statements run before every call with the call's arguments bound by name;
    `fakeprop`: the equivalent CLI arguments ("WORKLOAD" stands for one --call per call); `env`:
    variables for both torch and fakeprop; `examples_from`: the call whose inputs become the graph's
    placeholder examples ("first" is the default for a workload, the call a fakeprop --call replay
    starts from; "compiling" takes the call that compiled the graph)."""
    return {"name": name, "what": what, "source": textwrap.dedent(source).strip() + "\n",
            "calls": [list(c) for c in calls], "marks": textwrap.dedent(marks).strip(),
            "fakeprop_args": list(fakeprop), "compile_kwargs": compile_kwargs or {},
            "config": config or {}, "env": env or {},
            "examples_from": examples_from or ("first" if "WORKLOAD" in fakeprop else "compiling")}


def calls_args(calls, names):
    """fakeprop --call arguments for a workload (shapes from the expressions, evaluated here)."""
    import torch

    out = []
    for call in calls:
        parts = []
        for n, e in zip(names, call):
            t = eval(e, {"torch": torch})
            dt = ":" + str(t.dtype).replace("torch.", "")  # a --call without one takes the graph's
            parts.append("%s=[%s]%s" % (n, ",".join(str(d) for d in t.shape), dt))
        out += ["--call", ",".join(parts)]
    return out


UNBACKED = {"torch._dynamo.config.capture_scalar_outputs": True,
            "torch._dynamo.config.capture_dynamic_output_shape_ops": True}

SCENARIOS = [
    # --- automatic dynamic and recompiles -------------------------------------------------------
    S("auto_dynamic_recompile", "automatic dynamic: static first compile, a size change recompiles with the dim dynamic",
      """
      def f(x):
          return x * 2 + 1
      """, [("torch.randn(8, 4)",), ("torch.randn(6, 4)",), ("torch.randn(10, 4)",)], fakeprop=["WORKLOAD"]),
    S("auto_dynamic_two_inputs", "automatic dynamic of two inputs that broadcast: no duck sizing, an equality guard",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(8, 4)"), ("torch.randn(6, 4)", "torch.randn(6, 4)")], fakeprop=["WORKLOAD"]),
    S("auto_dynamic_zero_one", "automatic dynamic, then a size 1 call fails the dynamic entry's 2 <= s0 guard",
      """
      def f(x):
          return x.sum(0)
      """, [("torch.randn(8, 3)",), ("torch.randn(6, 3)",), ("torch.randn(1, 3)",)], fakeprop=["WORKLOAD"]),
    S("dtype_recompile", "a dtype change recompiles: dtype mismatch reason",
      """
      def f(x):
          return x.relu()
      """, [("torch.randn(4)",), ("torch.randn(4, dtype=torch.float64)",)], fakeprop=["WORKLOAD"],
      examples_from="compiling"),
    S("rank_recompile", "a rank change recompiles: rank mismatch reason",
      """
      def f(x):
          return x.neg()
      """, [("torch.randn(4)",), ("torch.randn(4, 2)",)], fakeprop=["WORKLOAD"], examples_from="compiling"),
    S("recompile_limit", "recompile_limit=2 with dtype changes: the limit warning, later calls run eagerly",
      """
      def f(x):
          return x.abs()
      """, [("torch.randn(4)",), ("torch.randn(4, dtype=torch.float64)",), ("torch.randn(4, dtype=torch.float16)",),
            ("torch.randn(4, dtype=torch.bfloat16)",)],
      config={"torch._dynamo.config.recompile_limit": 2}, fakeprop=["WORKLOAD", "--recompile-limit", "2"]),
    # --- dynamic=True ------------------------------------------------------------------------------
    S("dynamic_true_duck", "dynamic=True: every dim dynamic, equal sizes duck sized to one symbol",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(8, 4)")], compile_kwargs={"dynamic": True},
      fakeprop=["--no-assume-static-by-default"]),
    S("dynamic_true_zero_one", "dynamic=True: sizes 0 and 1 stay static (0/1 specialization)",
      """
      def f(x):
          return x.sum(1)
      """, [("torch.randn(1, 5, 1)",)], compile_kwargs={"dynamic": True}, fakeprop=["--no-assume-static-by-default"]),
    S("dynamic_true_cat", "dynamic=True: cat of distinct sizes, the other dims unified",
      """
      def f(x, y):
          return torch.cat([x, y])
      """, [("torch.randn(8, 4)", "torch.randn(6, 4)")], compile_kwargs={"dynamic": True},
      fakeprop=["--no-assume-static-by-default"]),
    S("dynamic_true_broadcast_unify", "dynamic=True: broadcasting two different symbols guards them equal (set_replacement)",
      """
      def f(x, y):
          return x * y
      """, [("torch.randn(8, 4)", "torch.randn(8, 1)"), ], compile_kwargs={"dynamic": True},
      fakeprop=["--no-assume-static-by-default"]),
    S("dynamic_true_view_divisibility", "dynamic=True: view(-1, 4) of a dynamic size guards its divisibility",
      """
      def f(x):
          return x.view(-1, 4).sum(1)
      """, [("torch.randn(16)",)], compile_kwargs={"dynamic": True}, fakeprop=["--no-assume-static-by-default"]),
    S("dynamic_true_slice", "dynamic=True: slices with constant bounds of a dynamic size",
      """
      def f(x):
          return x[2:] + x[:-2], x[:5]
      """, [("torch.randn(9)",)], compile_kwargs={"dynamic": True}, fakeprop=["--no-assume-static-by-default"]),
    S("dynamic_true_reshape_two", "dynamic=True: reshape merging two dynamic dims",
      """
      def f(x):
          return x.reshape(x.shape[0] * x.shape[1]).view(2, -1)
      """, [("torch.randn(4, 6)",)], compile_kwargs={"dynamic": True}, fakeprop=["--no-assume-static-by-default"]),
    # --- mark_dynamic / maybe_mark_dynamic ------------------------------------------------------------
    S("mark_dynamic_ok", "mark_dynamic on a dim nothing specializes: a symbol and its range guard",
      """
      def f(x):
          return x.sum(0) * 2
      """, [("torch.randn(8, 3)",)], marks="torch._dynamo.mark_dynamic(x, 0)", fakeprop=["--mark", "L['x']:0=dynamic"]),
    S("mark_dynamic_min_max", "mark_dynamic with min and max: the bounded range guard",
      """
      def f(x):
          return x.cos()
      """, [("torch.randn(8, 3)",)], marks="torch._dynamo.mark_dynamic(x, 0, min=2, max=64)",
      fakeprop=["--mark", "L['x']:0=dynamic,min=2,max=64"]),
    S("mark_dynamic_specialized", "mark_dynamic, then broadcasting against a static size specializes: Constraints violated",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(8, 4)")], marks="torch._dynamo.mark_dynamic(x, 0)",
      fakeprop=["--mark", "L['x']:0=dynamic"]),
    S("mark_dynamic_divisibility", "mark_dynamic, then view(-1, 4): guards that exclude part of the range (torch.compile still compiles)",
      """
      def f(x):
          return x.view(-1, 4)
      """, [("torch.randn(16)",)], marks="torch._dynamo.mark_dynamic(x, 0)", fakeprop=["--mark", "L['x']:0=dynamic"]),
    S("mark_dynamic_unify", "mark_dynamic on two dims that broadcasting makes equal (torch.compile guards them equal, no error)",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(6, 4)[:1].expand(8, 4).contiguous()")],
      marks="torch._dynamo.mark_dynamic(x, 0)\ntorch._dynamo.mark_dynamic(y, 0)",
      fakeprop=["--mark", "L['x']:0=dynamic", "--mark", "L['y']:0=dynamic"]),
    S("mark_dynamic_size_one", "mark_dynamic on a dim of size 1 (torch.compile keeps it static, no error)",
      """
      def f(x):
          return x * 2
      """, [("torch.randn(1, 4)",)], marks="torch._dynamo.mark_dynamic(x, 0)", fakeprop=["--mark", "L['x']:0=dynamic"]),
    S("maybe_mark_dynamic_specialized", "maybe_mark_dynamic, then a specialization: no error, the equality guard",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(8, 4)")], marks="torch._dynamo.maybe_mark_dynamic(x, 0)",
      fakeprop=["--mark", "L['x']:0=maybe_dynamic"]),
    S("maybe_mark_dynamic_unify", "maybe_mark_dynamic on two dims that broadcasting makes equal",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(8, 4)")],
      marks="torch._dynamo.maybe_mark_dynamic(x, 0)\ntorch._dynamo.maybe_mark_dynamic(y, 0)",
      fakeprop=["--mark", "L['x']:0=maybe_dynamic", "--mark", "L['y']:0=maybe_dynamic"]),
    S("mark_dynamic_two_dims", "mark_dynamic on both dims of one input, multiplied by its transpose",
      """
      def f(x):
          return x.t() @ x
      """, [("torch.randn(6, 3)",)], marks="torch._dynamo.mark_dynamic(x, [0, 1])", fakeprop=["--mark", "L['x']=dynamic"]),
    S("maybe_mark_dynamic_min_max", "maybe_mark_dynamic with min and max",
      """
      def f(x):
          return x.exp()
      """, [("torch.randn(8, 3)",)], marks="torch._dynamo.maybe_mark_dynamic(x, 0, min=4, max=32)",
      fakeprop=["--mark", "L['x']:0=maybe_dynamic,min=4,max=32"]),
    S("mark_static_dynamic_true", "dynamic=True with torch._dynamo.mark_static on one dim",
      """
      def f(x):
          return x.sum(0)
      """, [("torch.randn(8, 3)",)], marks="torch._dynamo.mark_static(x, 1)", compile_kwargs={"dynamic": True},
      fakeprop=["--no-assume-static-by-default", "--mark", "L['x']:1=static"]),
    S("python_branch", "a Python branch on a marked size: Dynamo guards it, the ATen graph has no branch",
      """
      def f(x):
          if x.shape[0] > 4:
              return x * 2
          return x + 1
      """, [("torch.randn(8)",)], marks="torch._dynamo.mark_dynamic(x, 0)", fakeprop=["--mark", "L['x']:0=dynamic"]),
    # --- source specs ---------------------------------------------------------------------------------
    S("dynamic_sources_dim", "TORCH_COMPILE_DYNAMIC_SOURCES with :N: one dim of one input",
      """
      def f(x, y):
          return torch.cat([x, y], 1)
      """, [("torch.randn(4, 6)", "torch.randn(4, 2)")], env={"TORCH_COMPILE_DYNAMIC_SOURCES": "L['x']:1"}),
    S("dynamic_sources_regex", "TORCH_COMPILE_DYNAMIC_SOURCES with a regex and :N over several inputs",
      """
      def f(x1, x2, y):
          return x1.sum() + x2.sum() + y.sum()
      """, [("torch.randn(5, 3)", "torch.randn(7, 3)", "torch.randn(9, 3)")],
      env={"TORCH_COMPILE_DYNAMIC_SOURCES": "L\\['x.*'\\]:0"}),
    S("dynamic_sources_all_dims", "TORCH_COMPILE_DYNAMIC_SOURCES without :N: all dims, equal sizes",
      """
      def f(x):
          return x @ x
      """, [("torch.randn(4, 4)",)], env={"TORCH_COMPILE_DYNAMIC_SOURCES": "L['x']"}),
    S("static_sources", "dynamic=True with TORCH_COMPILE_STATIC_SOURCES holding one input static",
      """
      def f(x, y):
          return x.sum(1) + y.sum(1)
      """, [("torch.randn(8, 4)", "torch.randn(8, 5)")], compile_kwargs={"dynamic": True},
      env={"TORCH_COMPILE_STATIC_SOURCES": "L['y']"}, fakeprop=["--no-assume-static-by-default"]),
    S("unbacked_sources", "TORCH_COMPILE_UNBACKED_SOURCES: an unbacked input dim",
      """
      def f(x):
          return x.sum(0) + 1
      """, [("torch.randn(8, 3)",)], env={"TORCH_COMPILE_UNBACKED_SOURCES": "L['x']:0"}),
    # --- mark_unbacked ---------------------------------------------------------------------------------
    S("mark_unbacked_broadcast", "mark_unbacked, broadcast against a static size: a runtime assert, no guard",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(8, 4)")], marks="torch._dynamo.decorators.mark_unbacked(x, 0)",
      fakeprop=["--mark", "L['x']:0=unbacked"]),
    S("mark_unbacked_min_max", "mark_unbacked with min and max: runtime asserts on the range",
      """
      def f(x):
          return x * 2
      """, [("torch.randn(8, 3)",)], marks="torch._dynamo.decorators.mark_unbacked(x, 0, min=2, max=64)",
      fakeprop=["--mark", "L['x']:0=unbacked,min=2,max=64"]),
    S("mark_unbacked_hint_override", "mark_unbacked with hint_override (a hint for the backend only)",
      """
      def f(x):
          return x.view(-1)
      """, [("torch.randn(8, 3)",)], marks="torch._dynamo.decorators.mark_unbacked(x, 0, hint_override=32)",
      fakeprop=["--mark", "L['x']:0=unbacked,hint_override=32"]),
    S("mark_unbacked_strict", "mark_unbacked(strict=True), then broadcasting against a static size",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(8, 4)")], marks="torch._dynamo.decorators.mark_unbacked(x, 0, strict=True)",
      fakeprop=["--mark", "L['x']:0=unbacked,strict"]),
    S("mark_unbacked_shape_id", "mark_unbacked with one shape_id on two inputs",
      """
      def f(x, y):
          return x + y
      """, [("torch.randn(8, 4)", "torch.randn(8, 4)")],
      marks="torch._dynamo.decorators.mark_unbacked(x, 0, shape_id='b')\ntorch._dynamo.decorators.mark_unbacked(y, 0, shape_id='b')",
      fakeprop=["--mark", "L['x']:0=unbacked,shape_id=b", "--mark", "L['y']:0=unbacked,shape_id=b"]),
    # --- data-dependent sizes ------------------------------------------------------------------------
    S("nonzero_view", "nonzero's count viewed in two rows: a runtime assert on its parity",
      """
      def f(x):
          return x.nonzero().view(2, -1)
      """, [("torch.tensor([1., 0., 1., 1., 1., 0.])",)], config=UNBACKED),
    S("bool_mask_index", "boolean-mask indexing: a data-dependent row count",
      """
      def f(x):
          return x[x[:, 0] > 0] * 2
      """, [("torch.tensor([[1., 2.], [-1., 3.], [2., 0.]])",)], config=UNBACKED),
    S("item_zeros", "item() as a size, minus one: a runtime assert that it is >= 0",
      """
      def f(x):
          n = x.sum().int().item()
          return torch.zeros(n - 1)
      """, [("torch.tensor([1., 2., 1.])",)], config=UNBACKED),
    S("item_chunk_error", "chunk of an item()-sized tensor: Could not guard on data-dependent expression",
      """
      def f(x):
          n = x.sum().int().item()
          return torch.ones(n).chunk(2)
      """, [("torch.tensor([1., 1., 1., 1.])",)], compile_kwargs={"fullgraph": True}, config=UNBACKED),
    S("item_split_error", "split by an item() size: Could not extract specialized integer",
      """
      def f(x, y):
          n = x.sum().int().item()
          return y.split(n)
      """, [("torch.tensor([1., 1., 1., 1.])", "torch.randn(8, 4)")], compile_kwargs={"fullgraph": True}, config=UNBACKED),
    S("torch_check_range", "torch._check on an item() size: runtime asserts, the slice needs no guard",
      """
      def f(x, y):
          n = x.sum().int().item()
          torch._check(n >= 2)
          torch._check(n <= y.shape[0])
          return y[:n] * 2
      """, [("torch.tensor([1., 1., 1., 1.])", "torch.randn(8, 4)")], config=UNBACKED),
    S("torch_check_chunk", "torch._check(n >= 1) before chunk: what the check fixes and what it does not",
      """
      def f(x):
          n = x.sum().int().item()
          torch._check(n >= 1)
          return torch.ones(n).chunk(2)
      """, [("torch.tensor([1., 1., 1., 1.])",)], compile_kwargs={"fullgraph": True}, config=UNBACKED),
]


# ------------------------------------------------------------------------------------------------------
# The child: one scenario under torch.compile, in a process of its own.

def _run_child(spec_path, out_path):
    import importlib.util
    import logging

    import torch
    import torch._dynamo
    from torch._dynamo.backends.common import aot_autograd

    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    fp_path = os.environ.get("FAKEPROP_PYTHONPATH")
    if fp_path:
        sys.path.insert(0, fp_path)
    import fakeprop

    sc = json.load(open(spec_path))
    for key, value in sc["config"].items():
        mod, attr = key.rsplit(".", 1)
        obj = eval(mod, {"torch": torch})
        setattr(obj, attr, value)
    prog = importlib.util.spec_from_file_location("prog_" + sc["name"], sc["program_path"])
    module = importlib.util.module_from_spec(prog)
    prog.loader.exec_module(module)
    f = module.f
    names = list(f.__code__.co_varnames[: f.__code__.co_argcount])

    graphs = []
    state = {"call": 0}

    def from_torch_check(node):
        """Whether a runtime assert stands for a user torch._check: its stack trace ends at one."""
        lines = [l for l in (node.meta.get("stack_trace") or "").splitlines() if l.strip()]
        return any("torch._check(" in l for l in lines[-3:])

    def strip_asserts(gm):
        """Dynamo's inserted runtime asserts out, except those of the user's torch._check calls (the
        program's own checks, which fakeprop must see); scalar computations left unused go too."""
        g = gm.graph
        inserted = {torch.ops.aten._assert_scalar.default, torch.ops.aten.sym_constrain_range_for_size.default,
                    torch.ops.aten.sym_constrain_range.default, torch.ops.aten._assert_async.msg}
        for n in list(g.nodes):
            if n.op == "call_function" and n.target in inserted and not from_torch_check(n):
                g.erase_node(n)
        changed = True
        while changed:
            changed = False
            for n in reversed(list(g.nodes)):
                if n.op == "call_function" and not n.users and n.target not in inserted \
                        and isinstance(n.meta.get("example_value", n.meta.get("val")), (torch.SymInt, torch.SymBool, int, bool)):
                    g.erase_node(n)
                    changed = True
        g.lint()
        gm.recompile()

    def backend(gm, example_inputs):
        sources = [n.meta["grapharg"].source.name for n in gm.graph.nodes if n.op == "placeholder"]
        # The frame's tensor inputs in the order Dynamo wrapped them, those it pruned from the graph
        # among them (read only for a size in Python: torch._check(x.shape[0] == y.shape[0])).
        from torch._dynamo.symbolic_convert import InstructionTranslator
        wrapped = []
        for tf in InstructionTranslator.current_tx().output.tracked_fakes:
            name = tf.source.name if isinstance(tf.source.name, str) else tf.source.name()
            if isinstance(tf.fake, torch.Tensor) and re.match(r"^L\['\w+'\]$", name) and name not in wrapped:
                wrapped.append(name)
        strip_asserts(gm)
        call = state["call"]

        def fw(agm, aex):
            graphs.append({"sources": sources, "gm": agm, "call": call, "wrapped": wrapped})
            return agm

        return aot_autograd(fw_compiler=fw)(gm, example_inputs)

    def make_args(call):
        torch.manual_seed(0)
        return [eval(e, {"torch": torch}) for e in call]

    def run(fn):
        results = []
        for i, call in enumerate(sc["calls"]):
            state["call"] = i
            args = make_args(call)
            env = dict(zip(names, args), torch=torch)
            if sc["marks"]:
                exec(sc["marks"], env)
            try:
                fn(*args)
                results.append(None)
            except Exception as e:  # noqa: BLE001: the scenario's error is the golden
                results.append({"type": type(e).__name__, "message": str(e)})
                break
        return results

    fn = torch.compile(f, backend=backend, **sc["compile_kwargs"])
    results = run(fn)
    fallback = None
    if not graphs:
        # Dynamo failed before its backend: trace the failing call with make_fx instead (symbolic,
        # propagate_real_tensors, so that data-dependent decisions take the real values and the
        # trace goes on), torch._check kept as aten._assert_scalar of its condition.
        sys.stderr.flush()
        print(FALLBACK_MARK, file=sys.stderr, flush=True)
        torch._logging.set_logs()
        logging.getLogger("torch").setLevel(logging.CRITICAL)
        import torch._functorch.config
        from torch.fx.experimental.proxy_tensor import make_fx

        torch._functorch.config.fake_tensor_propagate_real_tensors = True
        real_check = torch._check

        def check(cond, message=None):
            if isinstance(cond, torch.SymBool):
                torch.ops.aten._assert_scalar.default(cond, "torch._check")
            else:
                real_check(cond, message)

        failing = len(results) - 1
        torch._check = check
        try:
            gm = make_fx(f, tracing_mode="symbolic")(*make_args(sc["calls"][failing]))
        finally:
            torch._check = real_check
        fallback = "make_fx"
        graphs.append({"sources": ["L['%s']" % n for n in names], "gm": gm, "call": failing})
    out = {"torch_version": torch.__version__, "results": results, "names": names, "fallback": fallback,
           "compiled_graphs": len(graphs)}
    if graphs:
        # A compile of the call that raised made its graph and then failed (produce_guards' constraint
        # violation): it ran nothing, and its specializations are that failure's, so it is taken only
        # where no compile succeeded.
        raised = len(results) - 1 if results and results[-1] is not None else None
        last = _most_general([e for e in graphs if e["call"] != raised] or graphs, torch)
        example_call = 0 if sc["examples_from"] == "first" else last["call"]
        out["graph"] = _export(last, make_args(sc["calls"][example_call]), names, torch, fakeprop)
        out["graph_call"] = last["call"]
        out["example_call"] = example_call
    json.dump(out, open(out_path, "w"))


def _most_general(graphs, torch):
    """The graph fakeprop replays: of the graphs with the most tensor inputs, the one whose inputs
    hold the most symbolic sizes, the last of equals. A later compile may specialize an input away
    (a size of 0 makes `x.numel()` a constant and drops `x`), and its graph then tells nothing of
    the earlier compiles. A size counts as symbolic only while its expression is no number: a
    compile whose guards left a symbol one value (`range_refined_to_singleton`, x[::2] on a size of
    2) holds a SymInt that is a constant, and its graph is that compile's specialization. Of
    graphs equal so far, the one with the most sizes Dynamo made symbols at all, those its trace
    replaced by a constant included: that graph tells which dims its ops specialized
    (`linspace(0, 1, x.shape[0])`, listed as specialized by the export), where a compile that kept
    the dim static (a size of 1) holds a constant that tells nothing."""
    from torch.fx.experimental.symbolic_shapes import is_concrete_int
    from fakeprop.graph_export import _replaced_input_dims

    def generality(entry):
        vals = [n.meta.get("val") for n in entry["gm"].graph.nodes if n.op == "placeholder"]
        tensors = [v for v in vals if isinstance(v, torch.Tensor)]
        symbolic = sum(1 for v in tensors for d in v.shape if isinstance(d, torch.SymInt) and not is_concrete_int(d))
        replaced = _replaced_input_dims(vals) or {}
        return len(tensors), symbolic, symbolic + sum(len(dims) for dims in replaced.values())
    best = max(generality(e) for e in graphs)
    return [e for e in graphs if generality(e) == best][-1]


_SIZE_SOURCE = re.compile(r"^(L\['\w+'\])\.(size|stride)\(\)\[(\d+)\]$")


def _export(entry, args, names, torch, fakeprop):
    """The ATen graph as fakeprop's JSON: SymInt placeholders as sym_size / sym_stride of their
    tensor, tensor placeholders named after the function's parameters, the real inputs as examples."""
    gm, sources = entry["gm"], entry["sources"]
    g = gm.graph
    ph = [n for n in g.nodes if n.op == "placeholder"]
    if len(ph) != len(sources):
        raise RuntimeError("AOT graph has %d placeholders for %d Dynamo inputs" % (len(ph), len(sources)))
    by_source = dict(zip(sources, ph))
    # A tensor the graph reads only a size of (torch.zeros(x.shape[0], 3) under dynamic=True) has
    # its SymInt as an input and no placeholder of its own: it gets one, no node reading it but the
    # sym_size nodes below (fakeprop's replay takes such a frame input as Dynamo does), where its
    # first size is among the inputs: Dynamo wraps inputs as the program reads them, so its symbols
    # come after those of the tensors read before it (`z.erf()`, then `x.shape[0]`: z's first).
    for source, node in zip(sources, ph):
        m = _SIZE_SOURCE.match(source)
        if m and m.group(1) not in by_source and re.match(r"^L\['\w+'\]$", m.group(1)):
            with g.inserting_before(node):
                by_source[m.group(1)] = g.placeholder(m.group(1)[3:-2])
    for source, node in zip(sources, ph):
        m = _SIZE_SOURCE.match(source)
        if m:
            op = torch.ops.aten.sym_size.int if m.group(2) == "size" else torch.ops.aten.sym_stride.int
            with g.inserting_after(ph[-1]):
                new = g.call_function(op, (by_source[m.group(1)], int(m.group(3))))
            new.meta["val"] = node.meta.get("val")
            node.replace_all_uses_with(new)
            g.erase_node(node)
        elif not re.match(r"^L\['\w+'\]$", source):
            raise RuntimeError("graph input %s: not a tensor argument or one of its sizes" % source)
    # A tensor input Dynamo wrapped and then pruned (no op reads it): an unused placeholder, before
    # the first one wrapped after it, so that fakeprop's symbols follow Dynamo's order (duck sizing).
    wrapped = entry.get("wrapped") or []
    for k, source in enumerate(wrapped):
        if source in by_source or source[3:-2] not in names:
            continue
        later = [by_source[w] for w in wrapped[k + 1:] if w in by_source]
        anchor = min(later, key=lambda n: list(g.nodes).index(n)) if later else None
        if anchor is not None:
            with g.inserting_before(anchor):
                by_source[source] = g.placeholder(source[3:-2])
        else:
            last_ph = [n for n in g.nodes if n.op == "placeholder"]
            with g.inserting_after(last_ph[-1]) if last_ph else g.inserting_before(next(iter(g.nodes))):
                by_source[source] = g.placeholder(source[3:-2])
    name_of = {node: source[3:-2] for source, node in by_source.items()}
    tensors = [name_of[n] for n in g.nodes if n.op == "placeholder"]
    g.lint()
    gm.recompile()
    by_name = dict(zip(names, args))
    return fakeprop.export_graph(gm, [by_name[t] for t in tensors], input_names=tensors)


# ------------------------------------------------------------------------------------------------------
# The parent: runs each scenario's child, reads its log, writes the golden.

def _program_names(source):
    m = re.search(r"def f\(([^)]*)\)", source)
    return [a.strip() for a in m.group(1).split(",") if a.strip()]


def run_scenario(sc, out_dir, tmp):
    program_path = os.path.join(tmp, "prog_%s.py" % sc["name"])
    with open(program_path, "w") as fh:
        fh.write("import torch\n\n\n" + sc["source"])
    spec = dict(sc, program_path=program_path)
    spec_path = os.path.join(tmp, sc["name"] + ".spec.json")
    json.dump(spec, open(spec_path, "w"))
    out_path = os.path.join(tmp, sc["name"] + ".out.json")
    env = dict(os.environ, TORCH_LOGS=TORCH_LOGS, **sc["env"])
    for k in ("TORCHDYNAMO_VERBOSE", "TORCH_TRACE"):
        env.pop(k, None)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", spec_path, out_path],
                          env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 or not os.path.exists(out_path):
        raise RuntimeError("scenario %s: child failed (%d):\n%s" % (sc["name"], proc.returncode, proc.stderr[-4000:]))
    child = json.load(open(out_path))
    stderr = proc.stderr.split(FALLBACK_MARK)[0]
    lines = dynamo_log.kept_lines(dynamo_log.parse_glog(stderr))
    frames = dynamo_log.events_by_frame(dynamo_log.split_kept(lines))
    names = child["names"]

    # The child's run stops at the first call that raised (a compile that fails raises to the
    # caller, as a ConstraintViolationError for a size out of its mark's range): fakeprop's replay,
    # which reports a failed compile and goes on, is given the calls up to that one.
    ran = sc["calls"][:len(child["results"])] or sc["calls"]
    args = []
    for a in sc["fakeprop_args"]:
        args += calls_args(ran, names) if a == "WORKLOAD" else [a]
    workload = "WORKLOAD" in sc["fakeprop_args"]

    error = None
    for r in child["results"]:
        if r:
            msg = dynamo_log.normalize_message(r["message"])
            error = {"type": r["type"], "message": msg, "core": dynamo_log.error_core(msg)}

    golden = {
        "scenario": sc["name"],
        "what": sc["what"],
        "torch_version": child["torch_version"],
        "program": sc["source"],
        "calls": sc["calls"],
        "marks": sc["marks"],
        "compile_kwargs": sc["compile_kwargs"],
        "config": sc["config"],
        "env": sc["env"],
        "torch_logs": TORCH_LOGS,
        "fakeprop": {"args": args, "env": sc["env"], "workload": workload},
        "graph": {"file": sc["name"] + ".graph.json", "from_call": child.get("graph_call"),
                  "examples_from_call": child.get("example_call"),
                  "fallback": child["fallback"], "compiled_graphs": child["compiled_graphs"]},
        "torch": {
            "log": lines,
            "frames": {f: {k: v for k, v in ev.items() if v not in ([], {}, None, 0)} for f, ev in sorted(frames.items())},
            "normalized": {f: dynamo_log.normalized(ev) for f, ev in sorted(frames.items())},
            "error": error,
            "recompiles": [{"frame": f, "reasons": ev["recompile_reasons"]} for f, ev in sorted(frames.items())
                           if ev["recompile_reasons"]],
            "recompile_limit": next((ev["recompile_limit"] for ev in frames.values() if ev["recompile_limit"]), None),
        },
    }
    if sc.get("fuzz"):  # scripts/dynamo_fuzz.py: the seed and the program's place in its run
        golden["fuzz"] = sc["fuzz"]
    if "graph" not in child:
        raise RuntimeError("scenario %s: no ATen graph, even in the fallback run" % sc["name"])
    with open(os.path.join(out_dir, sc["name"] + ".graph.json"), "w") as fh:
        json.dump(child["graph"], fh, indent=1, sort_keys=True)
        fh.write("\n")
    with open(os.path.join(out_dir, sc["name"] + ".golden.json"), "w") as fh:
        json.dump(golden, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return golden


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "testdata", "dynamo"))
    ap.add_argument("--only", nargs="*", help="scenario names")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--child", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        _run_child(*a.child)
        return
    if a.list:
        for sc in SCENARIOS:
            print("%-32s %s" % (sc["name"], sc["what"]))
        return
    os.makedirs(a.out, exist_ok=True)
    chosen = [sc for sc in SCENARIOS if not a.only or sc["name"] in a.only]
    if a.only and len(chosen) != len(a.only):
        sys.exit("unknown scenario in --only: %s" % sorted(set(a.only) - {s["name"] for s in SCENARIOS}))
    with tempfile.TemporaryDirectory(prefix="dynamo_scenarios_") as tmp:
        for sc in chosen:
            g = _gen = run_scenario(sc, a.out, tmp)
            frames = g["torch"]["normalized"]
            print("%-32s frames %-12s error %-28s guards %s" % (
                sc["name"], ",".join(frames), (g["torch"]["error"] or {}).get("type", "-"),
                sum(len(v["guards"]) for v in frames.values())), flush=True)
            del _gen


if __name__ == "__main__":
    main()
