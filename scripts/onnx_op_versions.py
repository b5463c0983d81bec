#!/usr/bin/env python3
"""Operator-version cases for fakeprop's ONNX rules, recorded with ONNX Runtime.

Lists every ai.onnx version change since opset 7 (every pair of consecutive
since_versions of an op whose newer one is >= 7, PRelu 6 -> 7 included) from
onnx.defs.get_all_schemas_with_history(), and for each change that alters
output shapes or types, or moves an attribute to an input, builds small
single-node models at the newer version AND at the older one exercising it.
Each model runs on ONNX Runtime's CPU provider with concrete inputs; every
output's real shape and dtype goes to expected.json. A version ORT cannot run
(below opset 7, or a kernel it lacks) is recorded from onnx.shape_inference
instead, with a note saying so.

Writes, under --out (default testdata/onnx/op_versions):
  CASE.onnx       one model per case (constant inputs are initializers)
  expected.json   {"onnx", "onnxruntime", "cases": {CASE: {op, since_version, opset, oracle, [note], outputs}}}
  changes.tsv     op, from_version, to_version, change, cases (or "skipped: reason")

Run with the oracle venv:
  /work/main/.venv-oracle/bin/python scripts/onnx_op_versions.py
The lib/fakeprop/onnx/ops/op_versions_test.cpp gtest runs fakeprop on every case.
"""
import argparse
import collections
import json
import os

import numpy as np
import onnx
import onnx.defs
import onnxruntime as ort
from onnx import TensorProto as TP
from onnx import helper

RNG = np.random.default_rng(0)


# ---- inputs ----------------------------------------------------------------
class In:
    """A graph input fed at run time with `data` (fakeprop sees only its shape)."""

    def __init__(self, data):
        self.data = np.asarray(data)


class C:
    """An initializer (a constant input fakeprop sees the contents of)."""

    def __init__(self, data, dtype=None):
        self.data = np.asarray(data, dtype=dtype)


def F(*shape, dtype=np.float32):
    return In(RNG.standard_normal(shape).astype(dtype))


def I(data, dtype=np.int64):
    return C(np.asarray(data, dtype=dtype))


def empty_f():
    return C(np.zeros([0], np.float32))


# ---- schemas ----------------------------------------------------------------
SCHEMAS = collections.defaultdict(dict)
for _s in onnx.defs.get_all_schemas_with_history():
    if _s.domain in ("", "ai.onnx"):
        SCHEMAS[_s.name][_s.since_version] = _s


def selected_version(op, opset):
    vs = [v for v in SCHEMAS[op] if v <= opset]
    return max(vs) if vs else None


def model_opset(op, ver):
    """The opset import to build op version `ver` with: ver itself, or 7 when opset 7 still selects it."""
    if ver < 7 and selected_version(op, 7) == ver:
        return 7
    return ver


# ---- cases ----------------------------------------------------------------
class Case:
    def __init__(self, op, ver, label, inputs, attrs=None, nout=1, graph=None):
        self.op, self.ver, self.label = op, ver, label
        self.inputs, self.attrs, self.nout = inputs, attrs or {}, nout
        self.name = "%s_v%d_%s" % (op, ver, label)

    def model(self):
        inits, gin, feeds, names = [], [], {}, []
        for k, x in enumerate(self.inputs):
            if x is None:
                names.append("")
                continue
            name = "x%d" % k
            names.append(name)
            if isinstance(x, C):
                inits.append(onnx.numpy_helper.from_array(x.data, name))
            else:
                elem = helper.np_dtype_to_tensor_dtype(x.data.dtype)
                gin.append(helper.make_tensor_value_info(name, elem, list(x.data.shape)))
                feeds[name] = x.data
        if isinstance(self.nout, int):
            outs = ["y%d" % k for k in range(self.nout)]
        else:  # a list with "" for skipped optional outputs
            outs = ["y%d" % k if o else "" for k, o in enumerate(self.nout)]
        node = helper.make_node(self.op, names, outs, name="n", **self.attrs)
        graph = helper.make_graph([node], self.name, gin, [helper.make_empty_tensor_value_info(o) for o in outs if o],
                                  initializer=inits)
        opset = model_opset(self.op, self.ver)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="onnx_op_versions")
        m.ir_version = 10 if opset >= 21 else (8 if opset >= 15 else 7)
        return m, feeds, opset


def cases_for(op, ver, *specs):
    """specs: (label, inputs, attrs[, nout])."""
    return [Case(op, ver, *s) for s in specs]


# (op, from, to) -> (change, [cases at from], [cases at to])
CHANGES = {}


def change(op, frm, to, text, old, new):
    CHANGES[(op, frm, to)] = (text, old, new)


def one(op, ver, label, inputs, attrs=None, nout=1):
    return [Case(op, ver, label, inputs, attrs, nout)]


# Binary ops: legacy broadcast attribute (axis) -> numpy-style multidirectional broadcast at 7.
for op, frm in [("Add", 6), ("Sub", 6), ("Mul", 6), ("Div", 6), ("Pow", 1), ("And", 1), ("Or", 1), ("Xor", 1),
                ("Equal", 1), ("Greater", 1), ("Less", 1)]:
    logical = op in ("And", "Or", "Xor")
    dt = np.bool_ if logical else (np.int64 if op == "Equal" else np.float32)

    def mk(*shape, _dt=dt):
        return In(RNG.standard_normal(shape) > 0) if _dt == np.bool_ else In(
            (RNG.standard_normal(shape) * 3).astype(_dt))

    change(op, frm, 7, "broadcast/axis attributes removed; multidirectional (numpy) broadcasting",
           one(op, frm, "legacy_broadcast_axis", [mk(2, 3, 4, 5), mk(3, 4)], {"broadcast": 1, "axis": 1}),
           one(op, 7, "multidirectional", [mk(2, 1, 4, 1), mk(3, 1, 5)]))

change("PRelu", 6, 7, "slope per-channel (1-D slope matches dim 1) -> unidirectional broadcast to X",
       one("PRelu", 6, "per_channel_slope", [F(2, 3, 4, 5), F(3)]),
       one("PRelu", 7, "broadcast_slope", [F(2, 3, 4, 5), F(5)]) + one("PRelu", 7, "broadcast_slope_3d",
                                                                          [F(2, 3, 4, 5), F(3, 1, 1)]))

for op in ("Max", "Min", "Sum", "Mean"):
    change(op, 6, 8, "inputs broadcast multidirectionally (all same shape before)",
           one(op, 6, "same_shape", [F(3, 4), F(3, 4)]), one(op, 8, "broadcast", [F(3, 1), F(1, 4), F(4)]))

for op in ("ArgMax", "ArgMin"):
    change(op, 1, 11, "negative axis allowed",
           one(op, 1, "axis1_keepdims0", [F(2, 3, 4)], {"axis": 1, "keepdims": 0}),
           one(op, 11, "neg_axis", [F(2, 3, 4)], {"axis": -1}))
    change(op, 11, 12, "select_last_index attribute",
           one(op, 11, "axis0", [F(2, 3, 4)], {"axis": 0, "keepdims": 0}),
           one(op, 12, "select_last_index", [F(2, 3, 4)], {"axis": 0, "keepdims": 0, "select_last_index": 1}))

change("AveragePool", 7, 10, "ceil_mode attribute",
       one("AveragePool", 7, "pads", [F(1, 2, 7, 7)], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
       one("AveragePool", 10, "ceil_mode", [F(1, 2, 8, 8)], {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}))
change("AveragePool", 10, 11, "auto_pad/pads: output size formulas restated (ceil window start inside)",
       [], one("AveragePool", 11, "ceil_same_upper", [F(1, 2, 7, 9)],
               {"kernel_shape": [2, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"}))
change("AveragePool", 11, 19, "dilations attribute",
       one("AveragePool", 11, "ceil_mode", [F(1, 1, 9, 9)], {"kernel_shape": [2, 2], "strides": [3, 3], "ceil_mode": 1}),
       one("AveragePool", 19, "dilations", [F(1, 1, 9, 9)], {"kernel_shape": [2, 2], "dilations": [2, 3]}))

change("MaxPool", 1, 8, "optional Indices output (int64); storage_order",
       one("MaxPool", 1, "y_only", [F(1, 2, 6, 6)], {"kernel_shape": [2, 2]}),
       one("MaxPool", 8, "indices", [F(1, 2, 6, 6)], {"kernel_shape": [2, 2], "storage_order": 1}, 2))
change("MaxPool", 8, 10, "ceil_mode and dilations attributes",
       one("MaxPool", 8, "strides_pads", [F(1, 2, 7, 7)], {"kernel_shape": [3, 3], "strides": [2, 2],
                                                         "pads": [1, 0, 1, 0]}, 2),
       one("MaxPool", 10, "ceil_dilations", [F(1, 2, 8, 8)], {"kernel_shape": [2, 2], "strides": [2, 2],
                                                               "dilations": [2, 2], "ceil_mode": 1}, 2))
change("MaxPool", 10, 11, "auto_pad/pads: output size formulas restated",
       [], one("MaxPool", 11, "same_lower", [F(1, 1, 7, 5)], {"kernel_shape": [3, 2], "strides": [2, 2],
                                                              "auto_pad": "SAME_LOWER"}))
change("MaxPool", 11, 12, "int8/uint8 inputs",
       [], one("MaxPool", 12, "int8", [In(RNG.integers(-9, 9, (1, 1, 4, 4)).astype(np.int8))], {"kernel_shape": [2, 2]}))

change("LpPool", 11, 18, "ceil_mode and dilations attributes",
       one("LpPool", 11, "basic", [F(1, 2, 7, 7)], {"kernel_shape": [3, 3], "strides": [2, 2]}),
       one("LpPool", 18, "ceil_dilations", [F(1, 2, 8, 8)], {"kernel_shape": [2, 2], "strides": [2, 2],
                                                             "dilations": [2, 2], "ceil_mode": 1}))

change("BatchNormalization", 6, 7, "is_test removed (outputs 2-5 only in training)",
       one("BatchNormalization", 6, "is_test", [F(2, 3, 4), F(3), F(3), F(3), In(np.ones(3, np.float32))],
           {"is_test": 1}),
       one("BatchNormalization", 7, "spatial", [F(2, 3, 4), F(3), F(3), F(3), In(np.ones(3, np.float32))],
           {"spatial": 1}))
change("BatchNormalization", 7, 9, "spatial removed; statistics per channel for any rank",
       [], one("BatchNormalization", 9, "rank2", [F(4, 3), F(3), F(3), F(3), In(np.ones(3, np.float32))]))
change("BatchNormalization", 9, 14, "training_mode attribute; outputs running_mean/running_var",
       one("BatchNormalization", 9, "rank5", [F(2, 3, 2, 2, 2), F(3), F(3), F(3), In(np.ones(3, np.float32))]),
       one("BatchNormalization", 14, "training_mode", [F(2, 3, 4), F(3), F(3), F(3), In(np.ones(3, np.float32))],
           {"training_mode": 1}, 3))
change("BatchNormalization", 14, 15, "scale/bias and mean/var may have their own types (T1, T2)",
       [], one("BatchNormalization", 15, "f16_input_f32_stats",
               [F(2, 3, 4, dtype=np.float16), F(3), F(3), F(3), In(np.ones(3, np.float32))]))

change("Dropout", 7, 10, "mask output is bool (was T)",
       one("Dropout", 7, "mask", [F(2, 3)], {}, 2), one("Dropout", 10, "mask", [F(2, 3)], {"ratio": 0.5}, 2))
change("Dropout", 10, 12, "ratio attribute -> input; training_mode input; seed",
       [], one("Dropout", 12, "ratio_training_inputs",
               [F(2, 3), C(np.float32(0.25)), C(np.bool_(False))], {}, 2))
change("Dropout", 12, 13, "bfloat16",
       [], one("Dropout", 13, "no_mask", [F(4, 1, 2)], {}, 1))

change("Clip", 6, 11, "min/max attributes -> optional inputs",
       one("Clip", 6, "attrs", [F(2, 3)], {"min": -0.5, "max": 0.5}),
       one("Clip", 11, "inputs", [F(2, 3), C(np.float32(-0.5)), C(np.float32(0.5))])
       + one("Clip", 11, "max_only", [F(2, 3), None, C(np.float32(0.5))]))
change("Clip", 11, 12, "integer types",
       [], one("Clip", 12, "int32", [In(np.arange(6, dtype=np.int32).reshape(2, 3)), I(1, np.int32), I(4, np.int32)]))

change("Concat", 4, 11, "negative axis allowed",
       one("Concat", 4, "axis1", [F(2, 3), F(2, 4)], {"axis": 1}), one("Concat", 11, "neg_axis", [F(2, 3), F(2, 4)],
                                                                       {"axis": -1}))
change("Compress", 9, 11, "negative axis allowed",
       one("Compress", 9, "axis1", [F(2, 3), C(np.array([True, False, True]))], {"axis": 1}),
       one("Compress", 11, "neg_axis", [F(2, 3), C(np.array([True, False, True]))], {"axis": -1}))

change("Flatten", 9, 11, "negative axis allowed",
       one("Flatten", 9, "axis2", [F(2, 3, 4, 5)], {"axis": 2}),
       one("Flatten", 11, "neg_axis", [F(2, 3, 4, 5)], {"axis": -1}) + one("Flatten", 11, "axis0", [F(2, 3, 4)],
                                                                             {"axis": 0}))
for op in ("Softmax", "LogSoftmax", "Hardmax"):
    change(op, 1, 11, "negative axis allowed",
           one(op, 1, "axis1", [F(2, 3, 4)], {"axis": 1}), one(op, 11, "neg_axis", [F(2, 3, 4)], {"axis": -2}))
    change(op, 11, 13, "axis is one dim (was: coerce to 2-D at axis, default 1 -> -1)",
           one(op, 11, "default_axis", [F(2, 3, 4)]), one(op, 13, "default_axis", [F(2, 3, 4)]))

change("Gather", 1, 11, "negative axis and indices allowed",
       one("Gather", 1, "axis1", [F(3, 4, 5), I([[0, 2]])], {"axis": 1}),
       one("Gather", 11, "neg_axis_indices", [F(3, 4, 5), I([-1, 0, 1])], {"axis": -1}))
change("GatherElements", 11, 13, "bfloat16",
       [], one("GatherElements", 13, "axis1", [F(3, 4), I([[0, 1], [2, 3], [1, 1]])], {"axis": 1}))
change("GatherND", 11, 12, "batch_dims attribute",
       one("GatherND", 11, "basic", [F(2, 3, 4), I([[0, 1], [1, 2]])]),
       one("GatherND", 12, "batch_dims", [F(2, 3, 4), I([[1], [2]])], {"batch_dims": 1}))

change("Gemm", 6, 7, "broadcast attribute removed; C broadcasts unidirectionally",
       one("Gemm", 6, "broadcast_attr", [F(2, 3), F(3, 4), F(4)], {"broadcast": 1}),
       one("Gemm", 7, "bias_row", [F(2, 3), F(3, 4), F(1, 4)]))
change("Gemm", 9, 11, "C optional",
       one("Gemm", 9, "transA", [F(3, 2), F(3, 4), F(2, 4)], {"transA": 1}),
       one("Gemm", 11, "no_bias", [F(2, 3), F(4, 3)], {"transB": 1}))

change("Pad", 2, 11, "pads/value attributes -> pads/constant_value inputs",
       one("Pad", 2, "pads_attr", [F(2, 3)], {"pads": [0, 1, 1, 2]}),
       one("Pad", 11, "pads_input", [F(2, 3), I([0, 1, 1, 2]), C(np.float32(1))]))
change("Pad", 13, 18, "axes input",
       one("Pad", 13, "reflect", [F(3, 4), I([1, 0, 1, 2])], {"mode": "reflect"}),
       one("Pad", 18, "axes", [F(2, 3, 4), I([1, 2]), None, I([-1])]))
change("Pad", 18, 19, "wrap mode", [], one("Pad", 19, "wrap", [F(3, 4), I([0, 2, 0, 3])], {"mode": "wrap"}))

change("Pow", 7, 12, "exponent has its own type; output takes the base's",
       one("Pow", 7, "float", [F(2, 3), F(3)]),
       one("Pow", 12, "int_exponent", [F(2, 3), I([2, 1, 3])]) + one("Pow", 12, "int_base_float_exp",
                                                                      [In(np.arange(6).reshape(2, 3)), F(3)]))

REDUCE18 = ["ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
            "ReduceProd", "ReduceSumSquare"]
for op in REDUCE18 + ["ReduceSum"]:
    move = 13 if op == "ReduceSum" else 18
    prev = 11 if op == "ReduceSum" else 13
    change(op, 1, 11, "negative axes allowed",
           one(op, 1, "axes_keepdims0", [F(2, 3, 4)], {"axes": [1], "keepdims": 0}),
           one(op, 11, "neg_axes", [F(2, 3, 4)], {"axes": [-1, 0]}))
    change(op, prev, move, "axes attribute -> optional input; noop_with_empty_axes",
           one(op, prev, "axes_attr", [F(2, 3, 4)], {"axes": [0, 2], "keepdims": 0})
           + one(op, prev, "no_axes", [F(2, 3, 4)], {"keepdims": 1}),
           one(op, move, "axes_input", [F(2, 3, 4), I([0, -1])], {"keepdims": 0})
           + one(op, move, "no_axes", [F(2, 3, 4)], {"keepdims": 0})
           + one(op, move, "noop_empty_axes", [F(2, 3, 4)], {"noop_with_empty_axes": 1})
           + one(op, move, "noop_empty_axes_input", [F(2, 3, 4), I(np.zeros([0]))], {"noop_with_empty_axes": 1,
                                                                                       "keepdims": 0}))
for op in ("ReduceMax", "ReduceMin"):
    change(op, 11, 12, "int8/uint8", [], one(op, 12, "uint8", [In(RNG.integers(0, 9, (2, 3)).astype(np.uint8))],
                                              {"axes": [1]}))
    change(op, 18, 20, "bool input", [], one(op, 20, "bool", [In(RNG.standard_normal((2, 3)) > 0), I([1])]))

change("Reshape", 13, 14, "allowzero attribute (0 keeps a zero instead of copying the input dim)",
       one("Reshape", 13, "zero_copies", [F(2, 3, 4), I([0, -1])]),
       one("Reshape", 14, "allowzero", [In(np.zeros((0, 6), np.float32)), I([3, 0, 2])], {"allowzero": 1})
       + one("Reshape", 14, "allowzero_off", [F(2, 3, 4), I([0, 4, -1])], {"allowzero": 0}))

change("Resize", 10, 11, "roi input, optional sizes, coordinate_transformation_mode ...",
       one("Resize", 10, "scales", [F(1, 2, 3, 4), C(np.array([1, 1, 2, 1.5], np.float32))]),
       one("Resize", 11, "scales", [F(1, 2, 3, 4), empty_f(), C(np.array([1, 1, 2, 1.5], np.float32))])
       + one("Resize", 11, "sizes", [F(1, 2, 3, 4), empty_f(), empty_f(), I([1, 2, 5, 7])]))
change("Resize", 11, 13, "roi and scales optional",
       [], one("Resize", 13, "sizes_only", [F(1, 2, 3, 4), None, None, I([2, 2, 6, 3])])
       + one("Resize", 13, "scales_floor", [F(1, 1, 3, 5), None, C(np.array([1, 1, 1.7, 0.5], np.float32))]))
change("Resize", 13, 18, "axes and keep_aspect_ratio_policy attributes; antialias",
       [], one("Resize", 18, "axes_scales", [F(1, 2, 3, 4), None, C(np.array([2, 3], np.float32))], {"axes": [2, 3]})
       + one("Resize", 18, "not_larger", [F(1, 2, 4, 6), None, None, I([6, 6])],
             {"axes": [-2, -1], "keep_aspect_ratio_policy": "not_larger"})
       + one("Resize", 18, "not_smaller", [F(1, 2, 4, 6), None, None, I([1, 1, 6, 6])],
             {"keep_aspect_ratio_policy": "not_smaller"}))
change("Resize", 18, 19, "half_pixel_symmetric coordinate mode",
       [], one("Resize", 19, "half_pixel_symmetric", [F(1, 1, 4, 4), None, C(np.array([1, 1, 1.5, 0.5], np.float32))],
               {"coordinate_transformation_mode": "half_pixel_symmetric", "mode": "linear"}))
change("Upsample", 7, 9, "scales attribute -> input",
       one("Upsample", 7, "scales_attr", [F(1, 2, 3, 4)], {"scales": [1.0, 1.0, 2.0, 3.0]}),
       one("Upsample", 9, "scales_input", [F(1, 2, 3, 4), C(np.array([1, 1, 2, 1.5], np.float32))]))
change("Upsample", 9, 10, "deprecated (Resize-10 instead)",
       [], one("Upsample", 10, "scales_input", [F(1, 2, 3, 4), C(np.array([1, 1, 2, 2], np.float32))]))

change("Scatter", 9, 11, "negative indices allowed",
       one("Scatter", 9, "axis1", [F(3, 4), I([[0, 1]]), F(1, 2)], {"axis": 1}),
       one("Scatter", 11, "neg_axis", [F(3, 4), I([[0, -1]]), F(1, 2)], {"axis": -1}))
for op in ("ScatterElements", "ScatterND"):
    idx = I([[0, 1]]) if op == "ScatterElements" else I([[1], [2]])
    upd = F(1, 2) if op == "ScatterElements" else F(2, 4)
    change(op, 13, 16, "reduction attribute (add, mul)",
           one(op, 13, "basic", [F(3, 4), idx, upd]), one(op, 16, "reduction_add", [F(3, 4), idx, upd],
                                                           {"reduction": "add"}))
    change(op, 16, 18, "reduction max/min",
           [], one(op, 18, "reduction_max", [F(3, 4), idx, upd], {"reduction": "max"}))

change("Shape", 13, 15, "start/end attributes",
       one("Shape", 13, "full", [F(2, 3, 4)]),
       one("Shape", 15, "start_end", [F(2, 3, 4, 5)], {"start": 1, "end": -1})
       + one("Shape", 15, "clamped", [F(2, 3, 4)], {"start": -10, "end": 10})
       + one("Shape", 15, "empty", [F(2, 3, 4)], {"start": 2, "end": 1}))

change("Slice", 1, 10, "starts/ends/axes attributes -> inputs; steps input",
       one("Slice", 1, "attrs", [F(4, 5)], {"starts": [1], "ends": [3], "axes": [1]}),
       one("Slice", 10, "inputs_steps", [F(4, 5), I([3, 0]), I([0, 5]), I([0, 1]), I([-1, 2])]))
change("Slice", 10, 11, "negative axes allowed",
       [], one("Slice", 11, "neg_axes", [F(4, 5), I([1]), I([100]), I([-1])]))

change("Split", 2, 11, "negative axis allowed",
       one("Split", 2, "split_attr", [F(2, 6)], {"axis": 1, "split": [2, 4]}, 2),
       one("Split", 11, "neg_axis", [F(2, 6)], {"axis": -1, "split": [1, 5]}, 2)
       + one("Split", 11, "equal", [F(6, 2)], {}, 3))
change("Split", 11, 13, "split attribute -> optional input",
       [], one("Split", 13, "split_input", [F(2, 6), I([1, 2, 3])], {"axis": 1}, 3)
       + one("Split", 13, "equal", [F(2, 6)], {"axis": 1}, 2))
change("Split", 13, 18, "num_outputs attribute (last chunk smaller)",
       [], one("Split", 18, "num_outputs_uneven", [F(2, 7)], {"axis": 1, "num_outputs": 3}, 3)
       + one("Split", 18, "split_input", [F(5, 2), I([4, 1])], {}, 2))

change("Squeeze", 1, 11, "negative axes allowed",
       one("Squeeze", 1, "axes", [F(1, 3, 1)], {"axes": [0]}), one("Squeeze", 11, "neg_axes", [F(1, 3, 1)],
                                                                   {"axes": [-1]}))
change("Squeeze", 11, 13, "axes attribute -> optional input",
       one("Squeeze", 11, "no_axes", [F(1, 3, 1)]),
       one("Squeeze", 13, "axes_input", [F(1, 3, 1, 2), I([0, -2])]) + one("Squeeze", 13, "no_axes", [F(1, 3, 1)]))
change("Unsqueeze", 1, 11, "negative axes allowed",
       one("Unsqueeze", 1, "axes", [F(3, 4)], {"axes": [0, 3]}),
       one("Unsqueeze", 11, "neg_axes", [F(3, 4)], {"axes": [-1, 1]}))
change("Unsqueeze", 11, 13, "axes attribute -> input",
       [], one("Unsqueeze", 13, "axes_input", [F(3, 4), I([-1, 0])]))

change("TopK", 1, 10, "k attribute -> input",
       one("TopK", 1, "k_attr", [F(3, 5)], {"k": 2}, 2), one("TopK", 10, "k_input", [F(3, 5), I([2])], {}, 2))
change("TopK", 10, 11, "largest/sorted attributes; negative axis",
       [], one("TopK", 11, "smallest_axis0", [F(3, 5), I([2])], {"axis": -2, "largest": 0}, 2))

change("OneHot", 9, 11, "negative axis allowed",
       one("OneHot", 9, "default_axis", [I([[1, 2], [0, 3]]), I([5]), C(np.array([0, 1], np.float32))], {}),
       one("OneHot", 11, "neg_axis", [I([[1, 2], [0, 3]]), I([5]), C(np.array([0, 1], np.float32))], {"axis": -2}))

change("CumSum", 11, 14, "bfloat16/float16",
       one("CumSum", 11, "axis", [F(3, 4), I(1)]),
       one("CumSum", 14, "f16_reverse", [F(3, 4, dtype=np.float16), I(-1, np.int32)], {"reverse": 1}))
change("Mod", 10, 13, "bfloat16",
       one("Mod", 10, "int", [In(np.arange(1, 7).reshape(2, 3)), I([2, 3, 4])]),
       one("Mod", 13, "fmod", [F(2, 3), F(1, 3)], {"fmod": 1}))
change("Expand", 8, 13, "bfloat16",
       one("Expand", 8, "broadcast", [F(3, 1), I([2, 1, 4])]),
       one("Expand", 13, "smaller_shape", [F(2, 3, 1), I([5])]))
change("Tile", 6, 13, "bfloat16",
       one("Tile", 6, "repeats", [F(2, 3), I([2, 1])]), one("Tile", 13, "repeats", [F(2, 3, 1), I([1, 2, 3])]))
change("Cast", 13, 19, "saturate attribute; float8 types",
       one("Cast", 13, "to_f16", [F(2, 3)], {"to": TP.FLOAT16}),
       one("Cast", 19, "to_f8_saturate", [F(2, 3)], {"to": TP.FLOAT8E4M3FN, "saturate": 0}))
change("Cast", 6, 9, "string types",
       one("Cast", 6, "to_int64", [F(2, 3)], {"to": TP.INT64}), one("Cast", 9, "to_bool", [F(2, 3)], {"to": TP.BOOL}))

change("DepthToSpace", 1, 11, "mode attribute (DCR/CRD)",
       one("DepthToSpace", 1, "dcr", [F(1, 8, 2, 3)], {"blocksize": 2}),
       one("DepthToSpace", 11, "crd", [F(1, 8, 2, 3)], {"blocksize": 2, "mode": "CRD"}))

for op in ("GRU", "LSTM", "RNN"):
    gates = {"GRU": 3, "LSTM": 4, "RNN": 1}[op]
    nout = 3 if op == "LSTM" else 2
    change(op, 7, 14, "layout attribute (batch-major inputs and outputs)",
           one(op, 7, "bidirectional", [F(5, 2, 3), F(2, gates * 4, 3), F(2, gates * 4, 4)],
               {"hidden_size": 4, "direction": "bidirectional"}, nout),
           one(op, 14, "layout1", [F(2, 5, 3), F(1, gates * 4, 3), F(1, gates * 4, 4)],
               {"hidden_size": 4, "layout": 1}, nout))

change("DFT", 17, 20, "axis attribute -> input",
       one("DFT", 17, "axis_attr", [F(2, 5, 1), None], {"axis": 1, "onesided": 1}),
       one("DFT", 20, "axis_input", [F(2, 5, 1), None, I(-2)], {"onesided": 1}))

change("QuantizeLinear", 10, 13, "axis attribute (per-axis scales)",
       one("QuantizeLinear", 10, "per_tensor", [F(2, 3), C(np.float32(0.1))]),
       one("QuantizeLinear", 13, "per_axis_int8", [F(2, 3), C(np.array([0.1, 0.2, 0.3], np.float32)),
                                                   C(np.array([0, 1, 2], np.int8))], {"axis": 1}))
change("QuantizeLinear", 19, 21, "block_size and output_dtype attributes",
       one("QuantizeLinear", 19, "uint8", [F(2, 3), C(np.float32(0.1))]),
       one("QuantizeLinear", 21, "output_dtype_int8", [F(2, 3), C(np.float32(0.1))], {"output_dtype": TP.INT8}))
change("DequantizeLinear", 10, 13, "axis attribute (per-axis scales)",
       one("DequantizeLinear", 10, "per_tensor", [In(np.arange(6, dtype=np.uint8).reshape(2, 3)), C(np.float32(0.1))]),
       one("DequantizeLinear", 13, "per_axis", [In(np.arange(6, dtype=np.int8).reshape(2, 3)),
                                               C(np.array([0.1, 0.2], np.float32))], {"axis": 0}))
change("DequantizeLinear", 21, 23, "output_dtype attribute",
       one("DequantizeLinear", 21, "f32", [In(np.arange(6, dtype=np.int8).reshape(2, 3)), C(np.float32(0.1))]),
       one("DequantizeLinear", 23, "output_dtype_f16", [In(np.arange(6, dtype=np.int8).reshape(2, 3)),
                                                       C(np.float32(0.1))], {"output_dtype": TP.FLOAT16}))

change("Range", 11, 27, "stash_type attribute",
       one("Range", 11, "int", [I(1), I(10), I(3)]), one("Range", 27, "float", [C(np.float32(0)), C(np.float32(2)),
                                                                            C(np.float32(0.5))]))

# Hand-written skip reasons for structural changes that have no case here.
SKIP = {
    ("Attention", 23, 24): "optional nonpad_kv_seqlen input (masking only, same output shapes)",
    ("Attention", 24, 25): "window attributes (masking only, same output shapes)",
    ("Cast", 23, 24): "round_mode attribute (values only)",
    ("CastLike", 15, 19): "saturate attribute (values only)",
    ("CastLike", 23, 24): "round_mode attribute (values only)",
    ("Constant", 9, 11): "sparse_value attribute (covered by the Constant rule tests)",
    ("Constant", 11, 12): "value_* attributes (covered by the Constant rule tests)",
    ("DequantizeLinear", 19, 21): "block_size attribute (output shape is the input's)",
    ("GroupNormalization", 18, 21): "stash_type attribute (values only)",
    ("GRU", 3, 7): "output_sequence removed below opset 7 (outputs optional since)",
    ("LSTM", 1, 7): "output_sequence removed below opset 7 (outputs optional since)",
    ("RNN", 1, 7): "output_sequence removed below opset 7 (outputs optional since)",
    ("OptionalHasElement", 15, 18): "input optional (no shape change: output is a bool scalar)",
    ("QuantizeLinear", 13, 19): "saturate attribute (values only)",
    ("QuantizeLinear", 21, 23): "precision attribute (values only)",
    ("RoiAlign", 10, 16): "coordinate_transformation_mode attribute (values only)",
    ("SpaceToDepth", 13, 28): "mode attribute (element order only, same shape)",
    ("Dropout", 6, 7): "is_test removed (Dropout-7's mask output is covered by 7 -> 10)",
    ("Upsample", 1, 7): "height_scale/width_scale -> scales (Upsample-7 covered by 7 -> 9)",
    ("AveragePool", 1, 7): "count_include_pad attribute (values only)",
    ("Scan", 8, 9): "batch dim and sequence_lens removed; scan axes/directions (needs subgraphs; "
                    "covered by control_flow_test)",
}


# ---- oracle -------------------------------------------------------------
def dtype_entry(elem):
    """{"dtype": "float8e4m3fn", "elem_type": 17}: TensorProto's name (lower case) and code."""
    return {"dtype": TP.DataType.Name(elem).lower(), "elem_type": elem}


def ort_elem_type(type_str):  # "tensor(float8e4m3fn)" -> TensorProto.FLOAT8E4M3FN
    return TP.DataType.Value(type_str[len("tensor("):-1].upper())


def run_case(case, out_dir):
    m, feeds, opset = case.model()
    data = m.SerializeToString()
    assert len(data) < 4096, (case.name, len(data))
    with open(os.path.join(out_dir, case.name + ".onnx"), "wb") as f:
        f.write(data)
    rec = {"op": case.op, "since_version": case.ver, "opset": opset, "model": case.name + ".onnx"}
    ort_error = None
    if opset >= 7:
        try:
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            sess = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
            res = sess.run(None, feeds)
            rec["oracle"] = "onnxruntime"
            rec["outputs"] = [dict(name=o.name, shape=list(r.shape), **dtype_entry(ort_elem_type(o.type)))
                              for o, r in zip(sess.get_outputs(), res)]
            return rec
        except Exception as e:  # a kernel ORT lacks
            ort_error = str(e).splitlines()[0][:160]
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
    outs = []
    for vi in inferred.graph.output:
        t = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        if not t.HasField("shape") or None in dims:
            raise RuntimeError("%s: no static shape from onnx.shape_inference (ORT: %s)" % (case.name, ort_error))
        outs.append(dict(name=vi.name, shape=dims, **dtype_entry(t.elem_type)))
    rec["oracle"] = "onnx.shape_inference"
    rec["note"] = ("ORT 1.32 does not run opset %d (below 7); onnx.shape_inference's result" % opset
                   if ort_error is None else "ORT failed (%s); onnx.shape_inference's result" % ort_error)
    rec["outputs"] = outs
    return rec


def signature(s):
    return ([(i.name, int(i.option)) for i in s.inputs], [(o.name, int(o.option)) for o in s.outputs],
            sorted(s.attributes))


def constraints(s):
    return sorted((tc.type_param_str, tuple(sorted(tc.allowed_type_strs))) for tc in s.type_constraints)


def all_changes():
    for op in sorted(SCHEMAS):
        vs = sorted(SCHEMAS[op])
        for a, b in zip(vs, vs[1:]):
            if b >= 7:
                yield op, a, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "testdata", "onnx", "op_versions"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for f in os.listdir(args.out):
        if f.endswith(".onnx"):
            os.remove(os.path.join(args.out, f))
    known = set(all_changes())
    for key in list(CHANGES) + list(SKIP):
        assert key in known, "not a version change in onnx %s: %s" % (onnx.__version__, key)
    cases, rows, unclassified = {}, [], []
    for op, a, b in all_changes():
        sa, sb = SCHEMAS[op][a], SCHEMAS[op][b]
        if (op, a, b) in CHANGES:
            text, old, new = CHANGES[(op, a, b)]
            names = []
            for c in old + new:
                if c.name not in cases:
                    cases[c.name] = c
                names.append(c.name)
            rows.append((op, a, b, text, " ".join(names)))
        elif (op, a, b) in SKIP:
            rows.append((op, a, b, "-", "skipped: " + SKIP[(op, a, b)]))
        elif signature(sa) == signature(sb) and constraints(sa) != constraints(sb):
            rows.append((op, a, b, "-", "skipped: type-list extension only (inputs, outputs, attributes unchanged)"))
        elif signature(sa) == signature(sb):
            rows.append((op, a, b, "-", "skipped: same inputs, outputs, attributes and types (text, "
                                        "function body or value semantics only)"))
        else:
            unclassified.append("%s %d -> %d" % (op, a, b))
    if unclassified:
        raise SystemExit("unclassified structural changes: " + ", ".join(unclassified))
    expected = {"onnx": onnx.__version__, "onnxruntime": ort.__version__, "cases": {}}
    for name in sorted(cases):
        expected["cases"][name] = run_case(cases[name], args.out)
    with open(os.path.join(args.out, "expected.json"), "w") as f:  # a case a line
        head = {k: v for k, v in expected.items() if k != "cases"}
        f.write(json.dumps(head, sort_keys=True)[:-1] + ', "cases": {\n')
        f.write(",\n".join("%s: %s" % (json.dumps(k), json.dumps(v, sort_keys=True))
                            for k, v in expected["cases"].items()))
        f.write("\n}}\n")
    with open(os.path.join(args.out, "changes.tsv"), "w") as f:
        f.write("op\tfrom_version\tto_version\tchange\tcases\n")
        for r in rows:
            f.write("%s\t%d\t%d\t%s\t%s\n" % r)
    covered = sum(1 for r in rows if not r[4].startswith("skipped"))
    print("%d version changes, %d with cases, %d skipped; %d cases" % (len(rows), covered, len(rows) - covered,
                                                                       len(cases)))


if __name__ == "__main__":
    main()
