#!/usr/bin/python3
"""Oracle data for fakeprop's tensor model (dtype promotion, strides, memory
formats, broadcasting, devices, dim wrapping), recorded from Debian's
python3-torch 1.13.

Run with /usr/bin/python3 (the interpreter that has torch); it writes
testdata/tensor_oracle/*.json. The output is deterministic.

Every case has an "expected" value: torch 1.13's answer, except where current
PyTorch (whose source fakeprop follows) behaves differently. There
"expected" is current PyTorch's answer, "torch_1_13" keeps the recorded one,
and "note" says what changed. The current-PyTorch answers come from the small
models below (current_*), written from reading pytorch/pytorch's
c10/core/ScalarType.cpp and torch/_prims_common/__init__.py.
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
    torch.complex32, torch.complex64, torch.complex128,
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


def finish(case, recorded, current, note):
    """Set expected (current PyTorch) and keep torch 1.13's answer when it differs."""
    case["expected"] = current
    if recorded != current:
        case["torch_1_13"] = recorded
        case["note"] = note
    return case


# ---------------------------------------------------------------- dtypes

# c10::promoteTypes of current PyTorch for the dtypes torch 1.13 has.
_PROMOTION_ORDER = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                    "complex32", "complex64", "complex128", "bool", "bfloat16"]
_PROMOTION_TABLE = """
u1 i2 i2 i4 i8 f2 f4 f8 c2 c4 c8 u1 bf
i2 i1 i2 i4 i8 f2 f4 f8 c2 c4 c8 i1 bf
i2 i2 i2 i4 i8 f2 f4 f8 c2 c4 c8 i2 bf
i4 i4 i4 i4 i8 f2 f4 f8 c2 c4 c8 i4 bf
i8 i8 i8 i8 i8 f2 f4 f8 c2 c4 c8 i8 bf
f2 f2 f2 f2 f2 f2 f4 f8 c2 c4 c8 f2 f4
f4 f4 f4 f4 f4 f4 f4 f8 c4 c4 c8 f4 f4
f8 f8 f8 f8 f8 f8 f8 f8 c8 c8 c8 f8 f8
c2 c2 c2 c2 c2 c2 c4 c8 c2 c4 c8 c2 c4
c4 c4 c4 c4 c4 c4 c4 c8 c4 c4 c8 c4 c4
c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8
u1 i1 i2 i4 i8 f2 f4 f8 c2 c4 c8 b1 bf
bf bf bf bf bf f4 f4 f8 c4 c4 c8 bf bf
"""
_SHORT = {"u1": "uint8", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "f2": "float16",
          "f4": "float32", "f8": "float64", "c2": "complex32", "c4": "complex64", "c8": "complex128",
          "b1": "bool", "bf": "bfloat16"}


def current_promote_types(a, b):
    if a == b:
        return {"value": a}
    if a.startswith("q") or b.startswith("q"):
        return {"error": "promoteTypes with quantized numbers is not handled yet"}
    rows = [line.split() for line in _PROMOTION_TABLE.strip().splitlines()]
    return {"value": _SHORT[rows[_PROMOTION_ORDER.index(a)][_PROMOTION_ORDER.index(b)]]}


def same_outcome(x, y):
    # Error texts vary between versions; only "it raised" matters for promotion.
    return ("error" in x and "error" in y) or x == y


def gen_promote_types():
    cases = []
    for a, b in itertools.product(TORCH_DTYPES, TORCH_DTYPES):
        got = outcome(lambda: dtype_name(torch.promote_types(a, b)))
        want = current_promote_types(dtype_name(a), dtype_name(b))
        case = {"a": dtype_name(a), "b": dtype_name(b)}
        if same_outcome(got, want):
            case["expected"] = got
        else:
            finish(case, got, want, "current c10::promoteTypes returns a type unchanged when both are equal")
        cases.append(case)
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


def current_is_non_overlapping_and_dense(shape, stride):
    numel = 1
    for s in shape:
        numel *= s
    if numel < 2:
        return True
    if len(shape) == 1:
        return stride[0] == 1
    pairs = sorted(zip(shape, stride), key=lambda p: p[1])
    expected = 1
    for size, st in pairs:
        if size == 1:
            continue
        if st != expected:
            return False
        expected *= size
    return True


def current_suggest_memory_format(shape, stride):
    if len(shape) == 4:
        order = [1, 3, 2, 0]
    elif len(shape) == 5:
        order = [1, 4, 3, 2, 0]
    else:
        return "torch.contiguous_format"
    if stride[1] == 0:
        return "torch.contiguous_format"
    low = 0
    for d in order:
        if shape[d] == 0 or stride[d] < low:
            return "torch.contiguous_format"
        if d == 0 and low == stride[1]:
            return "torch.contiguous_format"
        low = stride[d] * shape[d]
    return "torch.channels_last" if len(shape) == 4 else "torch.channels_last_3d"


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
        finish_field(case, "is_non_overlapping_and_dense", prims.is_non_overlapping_and_dense(t),
                     current_is_non_overlapping_and_dense(shape, stride),
                     "current PyTorch sorts the dims by stride without the contiguity short cuts")
        finish_field(case, "suggest_memory_format", str(prims.suggest_memory_format(t)),
                     current_suggest_memory_format(shape, stride),
                     "torch 1.13's Python are_strides_like_channels_last multiplies only where stride > 1; "
                     "current PyTorch (like c10's C++) multiplies by every size")
        case["contiguous_strides"] = {"expected": list(prims.make_contiguous_strides_for(shape))}
        if len(shape) in (4, 5):
            fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
            case["channels_last_strides"] = {"expected": list(torch.empty(shape, device="meta",
                                                                          memory_format=fmt).stride())}
        case["empty_like_strides"] = {"expected": list(torch.empty_like(t).stride())}
        cases.append(case)
    return cases


def finish_field(case, field, recorded, current, note):
    entry = {"expected": current}
    if recorded != current:
        entry["torch_1_13"] = recorded
        entry["note"] = note
    case[field] = entry


# Current compute_elementwise_output_strides over operands expanded to one shape.
def current_elementwise_strides(operands, shape):
    tensors = [(list(t.shape), list(t.stride())) for t in operands if not (t.dim() == 0 and t.device.type == "cpu")]
    n = len(shape)
    if not tensors or n == 0:
        return contiguous_strides(shape) if n else []
    # make_fast_binary_impl: each operand in its own shape, contiguous first.
    if all(current_is_contiguous(*t) for t in tensors):
        return contiguous_strides(shape)
    if n == 4 and all(len(t[0]) == 4 and current_is_channels_last(*t) for t in tensors):
        return list(torch.empty(shape, device="meta", memory_format=torch.channels_last).stride())
    if n == 1:
        return [1]
    strides = []
    for tshape, tstride in tensors:
        exp = [0] * n
        for i in range(n - len(tshape), n):
            j = i - (n - len(tshape))
            exp[i] = 0 if (tshape[j] == 1 and shape[i] != 1) else tstride[j]
        strides.append(exp)
    if len(strides) == 1:
        if current_is_non_overlapping_and_dense(shape, strides[0]):
            return strides[0]
    else:
        def contiguous(st):
            return current_is_contiguous(shape, st)

        def channels_last(st):
            return n == 4 and current_is_channels_last(shape, st)

        all_c = all(contiguous(st) for st in strides)
        all_cl = all(channels_last(st) for st in strides)
        if all_c and not all_cl:
            return contiguous_strides(shape)
        if all_cl and not all_c:
            return list(torch.empty(shape, device="meta", memory_format=torch.channels_last).stride())

    def ge(a, b):
        if b == 0:
            return True
        if a == 0:
            return False
        return a >= b

    def should_swap(a, b):
        for st in strides:
            if st[a] == 0 or st[b] == 0:
                continue
            if st[a] == st[b]:
                if ge(shape[b], shape[a]):
                    continue
                return 1
            if ge(st[b], st[a]):
                return -1
            if ge(st[a], st[b]):
                return 1
        return 0

    perm = list(reversed(range(n)))
    for i in range(1, n):
        dim1 = i
        for dim0 in reversed(range(i)):
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    physical = list(reversed(perm))
    dense = contiguous_strides([shape[p] for p in physical])
    out = [0] * n
    for k, p in enumerate(physical):
        out[p] = dense[k]
    return out


def current_is_contiguous(shape, stride):
    numel = 1
    for s in shape:
        numel *= s
    if numel < 2:
        return True
    expected = 1
    for size, st in reversed(list(zip(shape, stride))):
        if size == 1:
            continue
        if st != expected:
            return False
        expected *= size
    return True


def current_is_channels_last(shape, stride):
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] == 1:
            continue
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


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
        recorded = list(out.stride())
        current = current_elementwise_strides(inputs, list(out.shape))
        case = {"op": op, "operands": [operand_desc(t) for t in inputs], "out_shape": list(out.shape)}
        cases.append(finish(case, recorded, current,
                            "torch 1.13's meta kernels (TensorIterator, or its own where) order dims differently; "
                            "current PyTorch's fake tensors take the contiguous/channels-last fast path, then "
                            "torch._prims_common.compute_elementwise_output_strides"))
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
    warnings.simplefilter("ignore")  # ComplexHalf is experimental in 1.13
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
