#!/usr/bin/env python3
"""Oracle data for fakeprop's tensor model (dtype promotion, strides, memory
formats, broadcasting, devices, dim wrapping), recorded from current PyTorch.

Run in the oracle's environment (`scripts/setup.sh --oracle`):
    .venv-oracle/bin/python scripts/gen_tensor_oracle.py
It writes testdata/tensor_oracle/*.json; every file records the torch version
that produced it. The output is deterministic. Every case's "expected" is what
that torch returned or raised: nothing here is modelled by hand.
"""

import itertools
import json
import os
import random
import sys
import warnings

import torch
import torch._prims_common as prims
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "tensor_oracle")

TORCH_DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
    torch.complex32, torch.bcomplex32, torch.complex64, torch.complex128,
    torch.qint8, torch.quint8, torch.qint32, torch.quint4x2,
]


def dtype_name(d):
    return str(d).removeprefix("torch.")


def write(name, doc):
    path = os.path.join(OUT_DIR, name)
    with open(path, "w") as f:
        # One case per line keeps diffs readable and files small.
        f.write("{\n")
        keys = list(doc)
        for i, key in enumerate(keys):
            value = doc[key]
            f.write(f"{json.dumps(key)}: ")
            if isinstance(value, list):
                f.write("[\n")
                f.write(",\n".join(json.dumps(v, sort_keys=True) for v in value))
                f.write("\n]")
            else:
                f.write(json.dumps(value))
            f.write(",\n" if i + 1 < len(keys) else "\n")
        f.write("}\n")
    return path


def outcome(fn):
    """{"value": ...} or {"error": message} for a call into torch."""
    try:
        return {"value": fn()}
    except Exception as e:  # torch raises RuntimeError, IndexError, ...
        return {"error": str(e).split("\n")[0]}


# ---------------------------------------------------------------- dtypes

def gen_promote_types():
    cases = []
    for a, b in itertools.product(TORCH_DTYPES, TORCH_DTYPES):
        got = outcome(lambda: dtype_name(torch.promote_types(a, b)))
        cases.append({"a": dtype_name(a), "b": dtype_name(b), "expected": got})
    return cases


# A promotion operand: ("tensor", dtype) with dim > 0, ("zerodim", dtype), or
# ("scalar", python number).
SCALARS = {"bool": True, "int64": 3, "float64": 2.5, "complex128": 1 + 2j}
PROMO_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                torch.float16, torch.bfloat16, torch.float32, torch.float64,
                torch.complex32, torch.complex64, torch.complex128]


def make_operand(kind, dtype):
    if kind == "scalar":
        return SCALARS[dtype]
    shape = (2,) if kind == "tensor" else ()
    return torch.empty(shape, dtype=getattr(torch, dtype), device="meta")


def operand_json(kind, dtype):
    return {"kind": kind, "dtype": dtype}


def random_operand(rng, kinds):
    kind = rng.choice(kinds)
    if kind == "scalar":
        return kind, rng.choice(list(SCALARS))
    return kind, dtype_name(rng.choice(PROMO_DTYPES))


def gen_result_type():
    rng = random.Random(1301)
    pairs = [
        # The brief's examples and the classic corner cases.
        (("tensor", "int32"), ("scalar", "float64")),
        (("tensor", "float64"), ("scalar", "complex128")),
        (("zerodim", "float64"), ("tensor", "float32")),
        (("tensor", "uint8"), ("scalar", "int64")),
        (("tensor", "bool"), ("scalar", "int64")),
        (("tensor", "float16"), ("scalar", "complex128")),
        (("tensor", "bfloat16"), ("scalar", "complex128")),
        (("tensor", "int8"), ("zerodim", "float64")),
        (("tensor", "uint8"), ("zerodim", "int8")),
        (("tensor", "float16"), ("tensor", "bfloat16")),
        (("zerodim", "int64"), ("scalar", "float64")),
        (("zerodim", "bool"), ("scalar", "bool")),
        (("scalar", "int64"), ("scalar", "float64")),
        (("scalar", "bool"), ("scalar", "complex128")),
        (("zerodim", "complex32"), ("tensor", "float64")),
        (("zerodim", "float64"), ("tensor", "complex64")),
        # bcomplex32: bfloat16's complex counterpart.
        (("tensor", "bcomplex32"), ("scalar", "float64")),
        (("tensor", "bcomplex32"), ("tensor", "float16")),
        (("zerodim", "bcomplex32"), ("tensor", "bfloat16")),
        (("tensor", "int32"), ("zerodim", "bcomplex32")),
    ]
    kinds = ["tensor", "zerodim", "scalar"]
    seen = set(pairs)
    while len(pairs) < 160:
        pair = (random_operand(rng, kinds), random_operand(rng, kinds))
        if pair not in seen:
            seen.add(pair)
            pairs.append(pair)
    cases = []
    for x, y in pairs:
        got = outcome(lambda: dtype_name(torch.result_type(make_operand(*x), make_operand(*y))))
        cases.append({"operands": [operand_json(*x), operand_json(*y)], "expected": got})
    return cases


KINDS = {
    "default": prims.ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    "no_opmath": prims.ELEMENTWISE_TYPE_PROMOTION_KIND.NO_OPMATH,
    "int_to_float": prims.ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT,
    "always_bool": prims.ELEMENTWISE_TYPE_PROMOTION_KIND.ALWAYS_BOOL,
    "complex_to_float": prims.ELEMENTWISE_TYPE_PROMOTION_KIND.COMPLEX_TO_FLOAT,
    "bool_to_long": prims.ELEMENTWISE_TYPE_PROMOTION_KIND.BOOL_TO_LONG,
}


def gen_elementwise_dtypes():
    rng = random.Random(1302)
    kinds = ["tensor", "tensor", "zerodim", "scalar"]
    cases = []
    for kind_name, kind in KINDS.items():
        for i in range(30):
            operands = [random_operand(rng, kinds) for _ in range(1 + i % 3)]
            got = outcome(lambda: [dtype_name(d) for d in prims.elementwise_dtypes(
                *[make_operand(*op) for op in operands], type_promotion_kind=kind)])
            cases.append({"operands": [operand_json(*op) for op in operands], "kind": kind_name, "expected": got})
    # bcomplex32 and the promotions that reach it.
    fixed = [[("tensor", "bcomplex32")], [("tensor", "bcomplex32"), ("scalar", "float64")],
             [("tensor", "bfloat16"), ("scalar", "complex128")], [("zerodim", "bcomplex32"), ("tensor", "float16")]]
    for kind_name, kind in KINDS.items():
        for operands in fixed:
            got = outcome(lambda: [dtype_name(d) for d in prims.elementwise_dtypes(
                *[make_operand(*op) for op in operands], type_promotion_kind=kind)])
            cases.append({"operands": [operand_json(*op) for op in operands], "kind": kind_name, "expected": got})
    return cases


# ---------------------------------------------------------------- strides


def meta(shape, stride):
    return torch.empty_strided(shape, stride, device="meta")


def contiguous_strides(shape):
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= max(size, 1)
    return list(reversed(strides))


def layouts():
    """(shape, stride) pairs: dense, permuted, channels-last, sliced, expanded, overlapping, empty."""
    out = []

    def add(shape, stride):
        if (shape, stride) not in out:
            out.append((shape, stride))

    for shape in ([2, 3, 4, 5], [2, 3, 1, 1], [1, 3, 4, 1], [2, 1, 4, 5], [1, 1, 1, 1], [3, 4, 5]):
        add(shape, contiguous_strides(shape))
        if len(shape) == 4:
            add(shape, list(torch.empty(shape, device="meta", memory_format=torch.channels_last).stride()))
        for perm in itertools.permutations(range(len(shape))):
            t = torch.empty([shape[p] for p in perm], device="meta")
            inverse = [perm.index(i) for i in range(len(shape))]
            t = t.permute(*inverse)
            add(list(t.shape), list(t.stride()))
            if len(out) > 80:
                break
    shape5 = [2, 3, 2, 4, 5]
    add(shape5, contiguous_strides(shape5))
    add(shape5, list(torch.empty(shape5, device="meta", memory_format=torch.channels_last_3d).stride()))
    add([2, 6], [12, 2])            # sliced columns
    add([4, 3], [6, 1])             # sliced rows
    add([4, 3], [0, 1])             # expanded rows
    add([4, 3], [1, 0])             # expanded columns
    add([2, 3, 4], [0, 4, 1])
    add([3, 3], [1, 1])             # overlapping
    add([5], [2])
    add([5], [1])
    add([1], [7])
    add([0, 3], [3, 1])
    add([2, 0, 3], [1, 6, 2])
    add([2, 3, 0, 4], [0, 1, 12, 3])
    add([1, 3, 1, 1], [3, 1, 1, 1])
    add([2, 1, 1, 1], [1, 1, 1, 1])
    add([2, 1, 1, 4], [4, 4, 4, 1])
    add([1, 4, 1, 3], [12, 3, 3, 1])
    add([1, 4, 1, 3], [12, 1, 12, 4])
    add([2, 3, 4, 5], [60, 1, 15, 3])
    add([2, 3, 4, 5], [120, 1, 30, 6])  # channels-last, sliced
    add([2, 3, 1, 5], [15, 1, 15, 3])
    add([2, 3, 4], [1, 2, 6])
    add([2, 3, 4], [12, 1, 3])
    return out


def gen_layouts():
    cases = []
    for shape, stride in layouts():
        t = meta(shape, stride)
        case = {"shape": shape, "stride": stride}
        case["is_contiguous"] = {"expected": t.is_contiguous()}
        if len(shape) == 4:
            cl = t.is_contiguous(memory_format=torch.channels_last)
        elif len(shape) == 5:
            cl = t.is_contiguous(memory_format=torch.channels_last_3d)
        else:
            cl = False
        case["is_channels_last_contiguous"] = {"expected": cl}
        case["is_non_overlapping_and_dense"] = {"expected": prims.is_non_overlapping_and_dense_or_false(t)}
        case["suggest_memory_format"] = {"expected": str(prims.suggest_memory_format(t))}
        case["contiguous_strides"] = {"expected": list(prims.make_contiguous_strides_for(shape))}
        if len(shape) in (4, 5):
            fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
            case["channels_last_strides"] = {"expected": list(torch.empty(shape, device="meta",
                                                                          memory_format=fmt).stride())}
        case["empty_like_strides"] = {"expected": list(torch.empty_like(t).stride())}
        cases.append(case)
    return cases


def operand_desc(t):
    return {"shape": list(t.shape), "stride": list(t.stride()), "device": str(t.device)}


def gen_elementwise_strides():
    fake = FakeTensorMode()

    def fake_cpu(shape, stride):
        return fake.from_tensor(torch.empty_strided(shape, stride))

    lay = layouts()
    by_shape = {}
    for shape, stride in lay:
        by_shape.setdefault(tuple(shape), []).append(stride)
    groups = []
    # Same-shape pairs over the [2, 3, 4, 5] and [2, 3, 1, 1] layouts.
    for shape in ((2, 3, 4, 5), (2, 3, 1, 1), (1, 3, 4, 1), (2, 1, 4, 5), (3, 4, 5), (2, 3, 2, 4, 5)):
        strides = by_shape[shape]
        for a, b in itertools.combinations(strides[:8], 2):
            groups.append([(list(shape), a), (list(shape), b)])
    # Broadcasting: biases, rows, expanded and sliced inputs, size-1 dims.
    cl = [60, 1, 15, 3]
    groups += [
        [([2, 3, 4, 5], cl), ([3, 1, 1], [1, 1, 1])],
        [([2, 3, 4, 5], cl), ([1, 3, 1, 1], [3, 1, 1, 1])],
        [([2, 3, 4, 5], cl), ([5], [1])],
        [([2, 3, 4, 5], [60, 20, 5, 1]), ([2, 3, 1, 1], [3, 1, 1, 1])],
        [([2, 3, 4, 5], [60, 20, 5, 1]), ([2, 3, 1, 1], [3, 1, 3, 3])],
        [([2, 3, 4, 5], [1, 2, 6, 24]), ([4, 5], [5, 1])],
        [([2, 3, 4, 5], [1, 2, 6, 24]), ([4, 5], [1, 4])],
        [([4, 3], [1, 4]), ([3], [1])],
        [([4, 3], [1, 4]), ([4, 1], [1, 1])],
        [([4, 3], [0, 1]), ([4, 3], [1, 4])],
        [([4, 3], [1, 0]), ([4, 3], [3, 1])],
        [([2, 6], [12, 2]), ([2, 6], [6, 1])],
        [([2, 6], [12, 2]), ([2, 6], [1, 2])],
        [([3, 3], [1, 1]), ([3, 3], [3, 1])],
        [([2, 3, 4], [1, 2, 6]), ([2, 3, 4], [12, 1, 3])],
        [([2, 3, 4], [12, 1, 3]), ([3, 1], [1, 1])],
        [([2, 3, 4], [0, 4, 1]), ([2, 3, 4], [1, 2, 6])],
        [([1, 4, 1, 3], [12, 3, 3, 1]), ([1, 4, 1, 3], [12, 1, 12, 4])],
        [([2, 1, 1, 4], [4, 4, 4, 1]), ([2, 1, 1, 4], [4, 1, 4, 1])],
        [([2, 3, 4, 5], [120, 1, 30, 6]), ([2, 3, 4, 5], [120, 1, 30, 6])],
        [([2, 3, 4, 5], [120, 1, 30, 6])],
        [([2, 6], [12, 2])],
        [([4, 3], [1, 4])],
        [([4, 3], [0, 1])],
        [([2, 0, 3], [1, 6, 2]), ([2, 0, 3], [0, 3, 1])],
        [([5], [2]), ([5], [1])],
        [([2, 3, 4], [12, 1, 3]), ([], [])],
        # where(cond, a, b): three operands.
        [([2, 3, 4], [12, 4, 1]), ([2, 3, 4], [1, 2, 6]), ([2, 3, 4], [12, 1, 3])],
        [([2, 3, 4], [1, 2, 6]), ([2, 3, 4], [12, 4, 1]), ([4], [1])],
        [([2, 3, 4, 5], cl), ([2, 3, 4, 5], cl), ([2, 3, 4, 5], [60, 20, 5, 1])],
        [([2, 3, 4, 5], cl), ([2, 3, 4, 5], cl), ([2, 3, 4, 5], cl)],
        [([4, 1], [1, 1]), ([3], [1]), ([4, 3], [1, 4])],
        [([2, 3, 1, 5], [15, 1, 15, 3]), ([2, 3, 4, 5], cl), ([1, 1, 4, 1], [4, 4, 1, 1])],
    ]
    cases = []
    for group in groups:
        inputs = [fake_cpu(shape, stride) for shape, stride in group]
        with fake:
            if len(inputs) == 3:
                inputs[0] = inputs[0] > 0
                out = torch.where(inputs[0], inputs[1], inputs[2])
                op = "where"
            elif len(inputs) == 2:
                out = inputs[0] + inputs[1]
                op = "add"
            else:
                out = inputs[0] * 2
                op = "mul_scalar"
        cases.append({"op": op, "operands": [operand_desc(t) for t in inputs], "out_shape": list(out.shape),
                      "expected": list(out.stride())})
    return cases


# ---------------------------------------------------------------- shapes, devices, dims


def gen_broadcast():
    shape_sets = [
        [[2, 3], [3]], [[2, 3], [1]], [[2, 1], [1, 3]], [[5, 1, 4], [3, 1]], [[], [3, 4]],
        [[0, 1], [1, 5]], [[0], [1]], [[1], [0]], [[2, 1, 3], [4, 1]], [[1, 1], [1]],
        [[4, 1, 2], [3, 1], [1, 1, 1, 1]], [[1], [2], [1]], [[2, 3], [2, 3], [2, 3]],
        [[7], []], [[], []], [[3, 1, 1], [1, 4, 1], [1, 1, 5]],
        # mismatches
        [[2, 3], [4]], [[2, 3], [3, 3]], [[5, 2], [2, 5]], [[0], [2]], [[2], [3], [2]],
        [[3, 4], [1, 4], [2, 4]], [[2, 1, 3], [2, 4, 4]], [[6, 1], [1, 5], [7, 5]],
    ]
    cases = []
    for shapes in shape_sets:
        got = outcome(lambda: list(torch.broadcast_tensors(
            *[torch.empty(s, device="meta") for s in shapes])[0].shape))
        cases.append({"shapes": shapes, "expected": got})
    return cases


def gen_devices():
    fake = FakeTensorMode()

    def make(device, ndim):
        shape = [2] * ndim
        if device == "cpu":
            return fake.from_tensor(torch.empty(shape))
        return FakeTensor(fake, torch.empty(shape, device="meta"), torch.device(device))

    specs = [("cpu", 2), ("cpu", 0), ("cpu", 1), ("cuda:0", 2), ("cuda:0", 0), ("cuda:1", 1), ("cuda:1", 0)]
    cases = []
    for a, b in itertools.product(specs, specs):
        x, y = make(*a), make(*b)
        with fake:
            got = outcome(lambda: str((x + y).device))
        cases.append({"op": "aten.add.Tensor", "operands": [list(a), list(b)], "expected": got})
    for triple in [(("cpu", 0), ("cuda:0", 2), ("cpu", 0)), (("cpu", 0), ("cpu", 0), ("cuda:0", 1)),
                   (("cuda:0", 0), ("cpu", 0), ("cpu", 2)), (("cpu", 2), ("cuda:0", 0), ("cuda:0", 2)),
                   (("cuda:0", 2), ("cpu", 0), ("cpu", 1))]:
        x, y, z = (make(*s) for s in triple)
        with fake:
            got = outcome(lambda: str(torch.where(x.to(torch.bool), y, z).device))
        cases.append({"op": "aten.where.self", "operands": [list(s) for s in triple], "expected": got})
    return cases


def gen_dims():
    cases = []
    for rank in range(0, 4):
        for dim in range(-5, 6):
            for wrap in (True, False):
                got = outcome(lambda: prims.canonicalize_dim(rank, dim, wrap_scalar=wrap))
                cases.append({"rank": rank, "dim": dim, "wrap_scalar": wrap, "expected": got})
    return cases


def main():
    if int(torch.__version__.split(".")[0]) < 2:
        sys.exit(f"gen_tensor_oracle: torch {torch.__version__} is not current PyTorch; "
                 "run it with .venv-oracle/bin/python (scripts/setup.sh --oracle)")
    warnings.simplefilter("ignore")  # ComplexHalf is experimental
    os.makedirs(OUT_DIR, exist_ok=True)
    meta_info = {"torch": torch.__version__, "generator": "scripts/gen_tensor_oracle.py"}
    written = [
        write("dtypes.json", {"source": meta_info, "promote_types": gen_promote_types(),
                              "result_type": gen_result_type(), "elementwise_dtypes": gen_elementwise_dtypes()}),
        write("layouts.json", {"source": meta_info, "layouts": gen_layouts()}),
        write("elementwise_strides.json", {"source": meta_info, "cases": gen_elementwise_strides()}),
        write("shapes.json", {"source": meta_info, "broadcast": gen_broadcast(), "devices": gen_devices(),
                              "canonical_dim": gen_dims()}),
    ]
    for path in written:
        print(f"{os.path.relpath(path)}: {os.path.getsize(path)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
