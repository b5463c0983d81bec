#!/usr/bin/env python3
"""Operator-version cases for fakeprop's ONNX rules, recorded with ONNX Runtime.

Lists every ai.onnx version change since opset 7 (every pair of consecutive
since_versions of an op whose newer one is >= 7, PRelu 6 -> 7 included) from
onnx.defs.get_all_schemas_with_history(), and for each change that alters
output shapes or types, or moves an attribute to an input, builds small
single-node models at the newer version AND at the older one exercising it.
Each model is built at its version's own opset and again at the last opset
that still selects it (named ..._opsetN_...), so a rule that switches at the
wrong opset fails on one side. Each model runs on ONNX Runtime's CPU provider
with concrete inputs; every output's real shape and dtype goes to expected.json. A version ORT cannot run
(below opset 7, or a case listed in ORT_CANNOT) is recorded from
onnx.shape_inference instead, with a note saying so.

Writes, under --out (default testdata/onnx/op_versions):
  CASE.onnx       one model per case (constant inputs are initializers)
  expected.json   {"onnx", "onnxruntime", "cases": {CASE: {op, since_version, opset, oracle, [note],
                  [data_dependent], outputs}}}
  changes.tsv     op, from_version, to_version, change, cases (or "skipped: reason")

Run with the oracle venv:
  .venv-oracle/bin/python scripts/onnx_op_versions.py
The lib/fakeprop/onnx/ops/op_versions_test.cpp gtest runs fakeprop on every case.
"""
import argparse
import collections
import json
import os
import re

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


def W(*shape):
    """A weight: an initializer, as in real models."""
    return C(RNG.standard_normal(shape).astype(np.float32))


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


def last_selecting(op, ver):
    """The newest opset import that still selects version `ver` of op."""
    later = [v for v in SCHEMAS[op] if v > ver]
    return min(later) - 1 if later else onnx.defs.onnx_opset_version()


def model_opset(op, ver):
    """The opset import to build op version `ver` with: ver itself, or 7 when opset 7 still selects it."""
    if ver < 7 and selected_version(op, 7) == ver:
        return 7
    return ver


# ---- cases ----------------------------------------------------------------
class Case:
    def __init__(self, op, ver, label, inputs, attrs=None, nout=1, opset=None):
        self.op, self.ver, self.label = op, ver, label
        self.inputs, self.attrs, self.nout = inputs, attrs or {}, nout
        self.opset = opset or model_opset(op, ver)
        assert selected_version(op, self.opset) == ver, (op, ver, self.opset)
        self.name = "%s_v%d_%s" % (op, ver, label) if opset is None else "%s_v%d_opset%d_%s" % (op, ver, opset, label)

    def at(self, opset):
        """The same case in a model importing `opset` (which still selects this version)."""
        return Case(self.op, self.ver, self.label, self.inputs, self.attrs, self.nout, opset)

    def model(self):
        inits, gin, feeds, names = [], [], {}, []
        for k, x in enumerate(self.inputs):
            if x is None:
                names.append("")
                continue
            name = "x%d" % k
            names.append(name)
            if isinstance(x, onnx.TensorProto):  # types numpy lacks (float8)
                t = onnx.TensorProto()
                t.CopyFrom(x)
                t.name = name
                inits.append(t)
            elif isinstance(x, C):
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
        opset = self.opset
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
       one("Cast", 6, "to_int64", [F(2, 3)], {"to": TP.INT64}), one("Cast", 9, "to_string", [F(2, 3)], {"to": TP.STRING})
       + one("Cast", 9, "string_to_float", [C(np.array(["1.5", "2"], dtype=object))], {"to": TP.FLOAT}))

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

# ---- more edge cases on changes above --------------------------------------------
def add(op, frm, to, old=(), new=()):
    text, o, n = CHANGES[(op, frm, to)]
    CHANGES[(op, frm, to)] = (text, o + list(old), n + list(new))


add("Resize", 10, 11, old=one("Resize", 10, "scales_floor", [F(1, 1, 4, 5), C(np.array([1, 1, 0.6, 1.3], np.float32))]),
    new=one("Resize", 11, "tf_crop_and_resize", [F(1, 1, 4, 5), C(np.array([0, 0, 0, 0, 1, 1, 0.5, 1], np.float32)),
                                                  C(np.array([1, 1, 0.6, 1.3], np.float32))],
            {"coordinate_transformation_mode": "tf_crop_and_resize", "mode": "linear"}))
add("Resize", 13, 18, new=one("Resize", 18, "not_larger_round", [F(1, 2, 4, 6), None, None, I([5, 5])],
                               {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"})
    + one("Resize", 18, "not_smaller_round", [F(1, 2, 4, 6), None, None, I([5, 5])],
          {"axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"})
    + one("Resize", 18, "axes_sizes_one", [F(1, 2, 4, 6), None, None, I([3])], {"axes": [-1]}))
add("Upsample", 7, 9, old=one("Upsample", 7, "scales_floor", [F(1, 1, 3, 5)], {"scales": [1.0, 1.0, 1.5, 2.5]}))
add("MaxPool", 10, 11, new=one("MaxPool", 11, "ceil_last_window_dropped", [F(1, 1, 9, 10)],
                               {"kernel_shape": [2, 2], "strides": [3, 3], "ceil_mode": 1, "pads": [1, 0, 1, 0]}, 2)
    + one("MaxPool", 11, "same_upper", [F(1, 1, 9, 8)], {"kernel_shape": [3, 2], "strides": [2, 3],
                                                          "auto_pad": "SAME_UPPER"}))
add("MaxPool", 8, 10, new=one("MaxPool", 10, "ceil_1d", [F(1, 3, 10)], {"kernel_shape": [3], "strides": [4],
                                                                      "ceil_mode": 1}, 2))
add("AveragePool", 11, 19, new=one("AveragePool", 19, "dilations_ceil_pads", [F(1, 1, 10, 10)],
                                   {"kernel_shape": [3, 2], "dilations": [2, 2], "strides": [2, 3], "ceil_mode": 1,
                                    "pads": [1, 1, 1, 1]}))
add("LpPool", 11, 18, old=one("LpPool", 11, "same_lower", [F(1, 2, 7, 6)], {"kernel_shape": [3, 3], "strides": [2, 2],
                                                                           "auto_pad": "SAME_LOWER"}))
add("Slice", 10, 11, new=one("Slice", 11, "neg_step_clamp", [F(4, 5, 6), I([100, -2]), I([-100, 0]), I([0, -1]),
                                                           I([-2, -1])])
    + one("Slice", 11, "int_max_end", [F(4, 5), I([1]), I([2**63 - 1]), I([0])]))
add("Split", 13, 18, new=one("Split", 18, "num_outputs_even", [F(2, 6)], {"axis": -1, "num_outputs": 2}, 2)
    + one("Split", 18, "num_outputs_4_of_10", [F(10)], {"num_outputs": 4}, 4))
add("Squeeze", 11, 13, old=one("Squeeze", 11, "no_axes_all_ones", [F(1, 1)]))
add("Unsqueeze", 11, 13, new=one("Unsqueeze", 13, "unsorted_axes", [F(3, 4), I([3, 0, -1])]))
add("Reshape", 13, 14, old=one("Reshape", 13, "minus_one_zero", [F(2, 3, 4), I([-1, 0, 2])]))
add("Pad", 2, 11, new=one("Pad", 11, "negative_pads", [F(4, 5), I([-1, 1, 0, -2])]))
add("Pad", 13, 18, new=one("Pad", 18, "axes_edge", [F(2, 3, 4), I([0, 1, 2, 3]), None, I([0, 2])], {"mode": "edge"}))
add("Expand", 8, 13, new=one("Expand", 13, "ones_in_shape", [F(2, 1, 6), I([3, 1, 1, 1])]))
add("GatherND", 11, 12, new=one("GatherND", 12, "batch_dims2", [F(2, 3, 4, 5), I(np.zeros((2, 3, 1, 1)))],
                                {"batch_dims": 2}))
add("Gather", 1, 11, new=one("Gather", 11, "scalar_index", [F(3, 4), I(-1)], {"axis": 0}))
add("Flatten", 9, 11, old=one("Flatten", 9, "axis0", [F(2, 3, 4)], {"axis": 0}))
add("OneHot", 9, 11, new=one("OneHot", 11, "axis0_scalar_depth", [I([1, 2, 0]), C(np.float32(4)),
                                                               C(np.array([0, 1], np.int32))], {"axis": 0}))
add("TopK", 10, 11, new=one("TopK", 11, "k_equals_dim", [F(3, 5), I([5])], {"axis": 1, "sorted": 0}, 2))
add("Shape", 13, 15, new=one("Shape", 15, "start_only", [F(2, 3, 4)], {"start": -1}))

change("Conv", 1, 11, "auto_pad and default kernel_shape restated",
       one("Conv", 1, "pads_strides", [F(1, 2, 7, 8), W(4, 2, 3, 3)], {"pads": [1, 1, 1, 1], "strides": [2, 3]}),
       one("Conv", 11, "same_lower_dilated", [F(1, 2, 7, 8), W(4, 1, 3, 2)], {"auto_pad": "SAME_LOWER", "strides": [2, 2],
                                                                               "group": 2})
       + one("Conv", 11, "valid_dilations", [F(1, 2, 9), W(3, 2, 3)], {"auto_pad": "VALID", "dilations": [3]}))
change("ConvTranspose", 1, 11, "output_shape/auto_pad padding restated (SAME_UPPER puts the extra pad at the end)",
       one("ConvTranspose", 1, "output_padding", [F(1, 2, 3, 4), W(2, 3, 3, 3)], {"strides": [2, 2],
                                                                                  "output_padding": [1, 0]}),
       one("ConvTranspose", 11, "output_shape", [F(1, 2, 3, 4), W(2, 3, 3, 3)], {"strides": [2, 2],
                                                                                 "output_shape": [8, 9]})
       + one("ConvTranspose", 11, "same_upper", [F(1, 2, 3, 4), W(2, 2, 2, 3)], {"strides": [3, 2], "group": 2,
                                                                                 "auto_pad": "SAME_UPPER"})
       + one("ConvTranspose", 11, "same_lower_output_padding", [F(1, 2, 3, 4), W(2, 1, 4, 4)],
             {"strides": [3, 3], "auto_pad": "SAME_LOWER", "output_padding": [1, 1]})
       + one("ConvTranspose", 11, "same_upper_1x1", [F(1, 2, 3, 4), W(2, 1, 1, 1)],
             {"strides": [3, 3], "auto_pad": "SAME_UPPER"}))
change("NonZero", 9, 13, "bfloat16",
       one("NonZero", 9, "constant", [C(np.array([[1, 0, 2], [0, 0, 3]], np.float32))]),
       one("NonZero", 13, "constant", [C(np.array([[True, False], [True, True]]))]))
change("Size", 1, 13, "bfloat16", [], one("Size", 13, "size", [F(2, 3, 4)]))


def body(nodes, ins, outs):
    return helper.make_graph(nodes, "body", ins, outs)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def scan_body():
    return body([helper.make_node("Add", ["s", "x"], ["s2"]), helper.make_node("Mul", ["x", "x"], ["y"])],
                [vi("s", TP.FLOAT, [2]), vi("x", TP.FLOAT, [2])], [vi("s2", TP.FLOAT, [2]), vi("y", TP.FLOAT, [2])])


def scan8_body():
    return body([helper.make_node("Add", ["s", "x"], ["s2"]), helper.make_node("Mul", ["x", "x"], ["y"])],
                [vi("s", TP.FLOAT, [2]), vi("x", TP.FLOAT, [2])], [vi("s2", TP.FLOAT, [2]), vi("y", TP.FLOAT, [2])])


change("Scan", 8, 9, "batch dim and sequence_lens removed; scan_input/output axes and directions",
       one("Scan", 8, "batched", [None, F(3, 2), F(3, 5, 2)], {"body": scan8_body(), "num_scan_inputs": 1}, 2),
       one("Scan", 9, "unbatched", [F(2), F(5, 2)], {"body": scan_body(), "num_scan_inputs": 1}, 2)
       + one("Scan", 9, "axes", [F(2), F(2, 5)], {"body": scan_body(), "num_scan_inputs": 1, "scan_input_axes": [1],
                                                  "scan_output_axes": [1]}, 2))
change("Scan", 9, 11, "negative scan axes allowed",
       [], one("Scan", 11, "neg_axes", [F(2), F(2, 5)], {"body": scan_body(), "num_scan_inputs": 1,
                                                         "scan_input_axes": [-1], "scan_output_axes": [-1]}, 2))


def loop_body():
    return body([helper.make_node("Identity", ["c"], ["c2"]), helper.make_node("Add", ["v", "v"], ["v2"]),
                 helper.make_node("Unsqueeze" if False else "Identity", ["v"], ["y"])],
                [vi("i", TP.INT64, []), vi("c", TP.BOOL, []), vi("v", TP.FLOAT, [2])],
                [vi("c2", TP.BOOL, []), vi("v2", TP.FLOAT, [2]), vi("y", TP.FLOAT, [2])])


change("Loop", 1, 11, "M and cond both optional; loop-carried shapes may change",
       one("Loop", 1, "trip_count", [I(3), C(np.bool_(True)), F(2)], {"body": loop_body()}, 2),
       one("Loop", 11, "trip_count", [I(4), C(np.bool_(True)), F(2)], {"body": loop_body()}, 2))
change("Loop", 11, 13, "sequence types in the loop state",
       [], one("Loop", 13, "trip_count_no_cond", [I(2), None, F(2)], {"body": loop_body()}, 2))


def if_branch(shape, fill):
    t = onnx.numpy_helper.from_array(np.full(shape, fill, np.float32), "k")
    return body([helper.make_node("Constant", [], ["o"], value=t)], [], [vi("o", TP.FLOAT, None)])


change("If", 1, 11, "branches may yield outputs of different shapes",
       one("If", 1, "same_shapes", [C(np.bool_(True))], {"then_branch": if_branch([2, 3], 1),
                                                          "else_branch": if_branch([2, 3], 2)}),
       one("If", 11, "different_shapes_then", [C(np.bool_(True))], {"then_branch": if_branch([2, 3], 1),
                                                                     "else_branch": if_branch([3], 2)})
       + one("If", 11, "different_shapes_else", [C(np.bool_(False))], {"then_branch": if_branch([2, 3], 1),
                                                                         "else_branch": if_branch([3], 2)}))

change("Constant", 9, 11, "sparse_value attribute",
       one("Constant", 9, "value", [], {"value": onnx.numpy_helper.from_array(np.zeros((2, 3), np.int32), "v")}),
       one("Constant", 11, "sparse_value", [], {"sparse_value": helper.make_sparse_tensor(
           onnx.numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "v"),
           onnx.numpy_helper.from_array(np.array([1, 5], np.int64), "i"), [2, 4])}))
change("Constant", 11, 12, "value_float(s)/value_int(s)/value_string(s) attributes",
       [], one("Constant", 12, "value_ints", [], {"value_ints": [1, 2, 3]})
       + one("Constant", 12, "value_float", [], {"value_float": 0.5})
       + one("Constant", 12, "value_floats", [], {"value_floats": [0.5, 1.5]})
       + one("Constant", 12, "value_int", [], {"value_int": 7}))
change("CastLike", 15, 19, "saturate attribute; float8 types",
       one("CastLike", 15, "to_int32", [F(2, 3), C(np.zeros([1], np.int32))]),
       one("CastLike", 19, "to_f16", [F(2, 3), C(np.zeros([], np.float16))]))
change("GroupNormalization", 18, 21, "scale and bias per channel (were per group); stash_type",
       one("GroupNormalization", 18, "per_group_scale", [F(2, 4, 3), F(2), F(2)], {"num_groups": 2}),
       one("GroupNormalization", 21, "per_channel_scale", [F(2, 4, 3), F(4), F(4)], {"num_groups": 2}))
change("GridSample", 16, 20, "N-D (volumetric) inputs; mode names linear/cubic",
       one("GridSample", 16, "2d", [F(1, 2, 4, 5), In(RNG.uniform(-1, 1, (1, 3, 6, 2)).astype(np.float32))]),
       one("GridSample", 20, "3d", [F(1, 2, 3, 4, 5), In(RNG.uniform(-1, 1, (1, 2, 3, 6, 3)).astype(np.float32))],
           {"mode": "linear"}))
change("ConstantOfShape", 9, 20, "float8 and bfloat16 values",
       one("ConstantOfShape", 9, "int32_value", [I([2, 3])],
           {"value": onnx.numpy_helper.from_array(np.array([4], np.int32), "v")}),
       one("ConstantOfShape", 20, "default_float", [I([3, 0, 2])]))
change("MaxUnpool", 9, 11, "output_shape input restated",
       one("MaxUnpool", 9, "strides", [F(1, 1, 2, 2), I(np.array([[[[0, 3], [8, 11]]]]))],
           {"kernel_shape": [2, 2], "strides": [2, 2]}),
       one("MaxUnpool", 11, "output_shape", [F(1, 1, 2, 2), I(np.array([[[[0, 3], [8, 11]]]])), I([1, 1, 5, 5])],
           {"kernel_shape": [2, 2], "strides": [2, 2]}))


add("ReduceSum", 11, 13, new=one("ReduceSum", 13, "empty_axes_input_all", [F(2, 3, 4), I(np.zeros([0]))],
                                 {"keepdims": 1}))
add("ReduceMean", 13, 18, new=one("ReduceMean", 18, "empty_axes_input_all", [F(2, 3, 4), I(np.zeros([0]))],
                                  {"keepdims": 0}))
add("Resize", 11, 13, new=one("Resize", 13, "empty_roi_scales_sizes", [F(1, 2, 3, 4), empty_f(), empty_f(),
                                                                       I([1, 2, 7, 2])], {"mode": "nearest"}))
add("Squeeze", 11, 13, new=one("Squeeze", 13, "empty_axes_input", [F(1, 3, 1), I(np.zeros([0]))]))
add("Dropout", 10, 12, new=one("Dropout", 12, "training_true_mask", [F(2, 3), C(np.float32(0.5)), C(np.bool_(True))],
                               {"seed": 1}, 2))
add("BatchNormalization", 7, 9, new=one("BatchNormalization", 9, "all_outputs",
                                        [F(2, 3, 4), F(3), F(3), F(3), In(np.ones(3, np.float32))], {}, 5))
add("BatchNormalization", 6, 7, new=one("BatchNormalization", 7, "all_outputs",
                                        [F(2, 3, 4), F(3), F(3), F(3), In(np.ones(3, np.float32))], {}, 5))
change("Equal", 13, 19, "string inputs",
       one("Equal", 13, "int", [In(np.arange(6).reshape(2, 3)), I([1, 2, 3])]),
       one("Equal", 19, "string", [C(np.array([["a", "b"], ["c", "d"]], dtype=object)),
                                   C(np.array(["a", "d"], dtype=object))]))
F8_ZERO = helper.make_tensor("z", TP.FLOAT8E4M3FN, [], [0.0])
change("QuantizeLinear", 13, 19, "float8 outputs (zero point's type); saturate",
       one("QuantizeLinear", 13, "int8_zero_point", [F(2, 3), C(np.float32(0.1)), C(np.int8(1))]),
       one("QuantizeLinear", 19, "float8_zero_point", [F(2, 3), C(np.float32(0.1)), F8_ZERO]))
add("QuantizeLinear", 19, 21, new=one("QuantizeLinear", 21, "block_size",
                                      [F(2, 4), C(np.full((2, 2), 0.1, np.float32)), C(np.zeros((2, 2), np.uint8))],
                                      {"axis": 1, "block_size": 2}))
change("DequantizeLinear", 13, 19, "float8 inputs; float16/bfloat16 scales (output takes the scale's type)",
       one("DequantizeLinear", 13, "int32", [In(np.arange(6, dtype=np.int32).reshape(2, 3)), C(np.float32(0.1))]),
       one("DequantizeLinear", 19, "f16_scale", [In(np.arange(6, dtype=np.int8).reshape(2, 3)),
                                                 C(np.float16(0.1))]))
change("DequantizeLinear", 19, 21, "block_size attribute (blocked scales)", [], [])
add("DequantizeLinear", 19, 21, old=one("DequantizeLinear", 19, "per_axis_f16",
                                        [In(np.arange(6, dtype=np.int8).reshape(2, 3)),
                                         C(np.array([0.1, 0.2, 0.3], np.float16))], {"axis": 1}),
    new=one("DequantizeLinear", 21, "block_size",
                                        [In(np.arange(8, dtype=np.int8).reshape(2, 4)),
                                         C(np.full((2, 2), 0.1, np.float32))], {"axis": 1, "block_size": 2}))


change("Attention", 23, 24, "optional nonpad_kv_seqlen input",
       one("Attention", 23, "past_4d", [F(2, 4, 3, 8), F(2, 2, 5, 8), F(2, 2, 5, 6), None, F(2, 2, 4, 8),
                                         F(2, 2, 4, 6)], {}, 3),
       one("Attention", 24, "nonpad_kv_seqlen_3d", [F(2, 3, 16), F(2, 5, 8), F(2, 5, 12), None, None, None,
                                                    I([5, 3])], {"q_num_heads": 4, "kv_num_heads": 2}, 1))
change("Attention", 24, 25, "left/right window sizes",
       one("Attention", 24, "qk_matmul_output", [F(2, 4, 3, 8), F(2, 4, 5, 8), F(2, 4, 5, 6)], {"qk_matmul_output_mode": 1},
           [True, False, False, True]),
       one("Attention", 25, "window", [F(2, 4, 3, 8), F(2, 4, 5, 8), F(2, 4, 5, 6)],
           {"left_window_size": 2, "right_window_size": 0}, 1))


NMS_BOXES = C(np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 3, 1, 4], [0, 5, 1, 6]]], np.float32))
NMS_SCORES = C(np.array([[[0.9, 0.8, 0.7, 0.1]]], np.float32))
change("NonMaxSuppression", 10, 11, "center_point_box and boxes restated",
       one("NonMaxSuppression", 10, "constant", [NMS_BOXES, NMS_SCORES, I([3]), C(np.array([0.5], np.float32))]),
       one("NonMaxSuppression", 11, "constant_threshold", [NMS_BOXES, NMS_SCORES, I([4]),
                                                           C(np.array([0.5], np.float32)),
                                                           C(np.array([0.2], np.float32))]))


change("LpPool", 2, 11, "auto_pad output sizes restated",
       one("LpPool", 2, "pads_p1", [F(1, 2, 7, 6)], {"kernel_shape": [3, 2], "pads": [1, 0, 1, 0], "p": 1}),
       one("LpPool", 11, "same_upper", [F(1, 2, 7, 6)], {"kernel_shape": [3, 2], "strides": [2, 2],
                                                         "auto_pad": "SAME_UPPER"}))
change("NegativeLogLikelihoodLoss", 12, 13, "float16/double restated; ignore_index",
       one("NegativeLogLikelihoodLoss", 12, "reduction_none", [F(2, 3, 4), I([[0, 1, 2, 1], [2, 2, 0, 0]])],
           {"reduction": "none"}),
       one("NegativeLogLikelihoodLoss", 13, "mean_weights_ignore", [F(2, 3, 4), I([[0, 1, 2, 1], [2, 2, 0, 0]]),
                                                                    F(3)], {"ignore_index": 1}))


# Edge sizes at the newer versions.
add("Flatten", 9, 11, new=one("Flatten", 11, "axis_rank", [F(2, 3, 4)], {"axis": 3}))
add("Upsample", 7, 9, new=one("Upsample", 9, "scales_floor", [F(1, 1, 5, 7), C(np.array([1, 1, 1.5, 2.5], np.float32))]))
add("Shape", 13, 15, new=one("Shape", 15, "start_rank", [F(2, 3, 4)], {"start": 3}))
add("TopK", 10, 11, new=one("TopK", 11, "k_zero", [F(3, 5), I([0])], {}, 2))
add("ArgMax", 11, 12, new=one("ArgMax", 12, "rank1_keepdims0", [F(5)], {"keepdims": 0, "select_last_index": 1}))
add("Expand", 8, 13, new=one("Expand", 13, "zero_size", [F(1, 3), I([0, 3])]))
add("Tile", 6, 13, new=one("Tile", 13, "zero_repeat", [F(2, 3), I([0, 2])]))
add("OneHot", 9, 11, new=one("OneHot", 11, "float_depth", [I([1, 2]), C(np.float32(4.7)),
                                                         C(np.array([0, 1], np.float32))], {}))
add("ScatterND", 16, 18, new=one("ScatterND", 18, "reduction_min_slices", [F(3, 4, 2), I([[0], [2]]), F(2, 4, 2)],
                                 {"reduction": "min"}))
add("ReduceMean", 13, 18, new=one("ReduceMean", 18, "noop_with_axes", [F(2, 3, 4), I([1])],
                                  {"noop_with_empty_axes": 1}))
add("Pad", 13, 18, new=one("Pad", 18, "neg_axes_reflect", [F(2, 3, 4), I([1, 2, 1, 0]), None, I([-2, -1])],
                           {"mode": "reflect"}))
add("CumSum", 11, 14, new=one("CumSum", 14, "exclusive", [F(3, 4), I([0], np.int32)], {"exclusive": 1}))
add("Concat", 4, 11, new=one("Concat", 11, "single_input", [F(2, 3)], {"axis": -2}))


# SAME padding with dilations: ORT pads for the undilated kernel (all three pools alike).
add("MaxPool", 11, 12, new=one("MaxPool", 12, "same_upper_dilated", [F(1, 1, 9, 8)],
                               {"kernel_shape": [3, 2], "strides": [2, 3], "dilations": [2, 3],
                                "auto_pad": "SAME_UPPER"}, 2))
add("AveragePool", 11, 19, new=one("AveragePool", 19, "same_lower_dilated", [F(1, 1, 10, 11)],
                                   {"kernel_shape": [3, 3], "dilations": [2, 2], "auto_pad": "SAME_LOWER"}))
add("LpPool", 11, 18, new=one("LpPool", 18, "same_upper_dilated", [F(1, 1, 9, 8)],
                              {"kernel_shape": [3, 2], "strides": [2, 3], "dilations": [2, 3],
                               "auto_pad": "SAME_UPPER"}))


add("AveragePool", 7, 10, new=one("AveragePool", 10, "valid_ceil", [F(1, 1, 8, 9)],
                                  {"kernel_shape": [3, 2], "strides": [2, 2], "auto_pad": "VALID", "ceil_mode": 1}))
add("MaxPool", 8, 10, new=one("MaxPool", 10, "same_ceil", [F(1, 1, 9, 7)],
                              {"kernel_shape": [3, 2], "strides": [2, 3], "auto_pad": "SAME_UPPER", "ceil_mode": 1}))
add("Split", 11, 13, new=one("Split", 13, "zero_chunk", [F(2, 6), I([0, 6])], {"axis": 1}, 2))
add("Split", 13, 18, new=one("Split", 18, "empty_last_chunk", [F(4, 4)], {"axis": 0, "num_outputs": 3}, 3)
    + one("Split", 18, "more_outputs_than_size", [F(2, 5)], {"axis": 0, "num_outputs": 3}, 3))
add("DFT", 17, 20, new=one("DFT", 20, "dft_length_inverse", [F(2, 5, 2), I(8), I(1)], {"inverse": 1}))


for op, frm in (("GRU", 3), ("LSTM", 1), ("RNN", 1)):
    gates = {"GRU": 3, "LSTM": 4, "RNN": 1}[op]
    change(op, frm, 7, "output_sequence attribute removed (outputs optional)",
           one(op, frm, "output_sequence", [F(5, 2, 3), F(1, gates * 4, 3), F(1, gates * 4, 4)],
               {"hidden_size": 4, "output_sequence": 1}, 2),
           one(op, 7, "y_h_only", [F(5, 2, 3), F(1, gates * 4, 3), F(1, gates * 4, 4)], {"hidden_size": 4},
               [False, True]))
change("Dropout", 6, 7, "is_test attribute removed",
       one("Dropout", 6, "is_test", [F(2, 3)], {"is_test": 1}), one("Dropout", 7, "y_only", [F(2, 3)], {}))
change("AveragePool", 1, 7, "count_include_pad attribute",
       one("AveragePool", 1, "pads", [F(1, 2, 7, 7)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
       one("AveragePool", 7, "count_include_pad", [F(1, 2, 7, 7)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                                    "count_include_pad": 1}))


ROIS = C(np.array([[0, 0, 3, 3], [1, 1, 4, 5]], np.float32))
change("RoiAlign", 10, 16, "coordinate_transformation_mode attribute",
       one("RoiAlign", 10, "basic", [F(2, 3, 6, 6), ROIS, I([0, 1])], {"output_height": 2, "output_width": 3}),
       one("RoiAlign", 16, "half_pixel_max", [F(2, 3, 6, 6), ROIS, I([0, 1])],
           {"output_height": 4, "output_width": 1, "mode": "max", "coordinate_transformation_mode": "half_pixel"}))
change("SpaceToDepth", 13, 28, "mode attribute (DCR/CRD)",
       one("SpaceToDepth", 13, "blocksize2", [F(1, 2, 4, 6)], {"blocksize": 2}),
       one("SpaceToDepth", 28, "crd", [F(1, 2, 4, 6)], {"blocksize": 2, "mode": "CRD"}))
change("QuantizeLinear", 21, 23, "precision attribute",
       [], one("QuantizeLinear", 23, "precision_int8", [F(2, 4), C(np.float32(0.5))],
               {"output_dtype": TP.INT8, "precision": TP.FLOAT}))


# Known (folded) data under the legacy broadcast: the fold must not read B numpy-style.
for op in ("Add", "Equal"):
    add(op, 6 if op == "Add" else 1, 7, old=one(op, 6 if op == "Add" else 1, "legacy_broadcast_constants",
                                               [I(np.arange(24).reshape(2, 3, 4)), I(np.arange(3))],
                                               {"broadcast": 1, "axis": 1}))


# Hand-written skip reasons for structural changes that have no case here.
SKIP = {
    ("Cast", 23, 24): "round_mode attribute (values only)",
    ("CastLike", 23, 24): "round_mode attribute (values only)",
    ("OptionalHasElement", 15, 18): "input optional (no shape change: output is a bool scalar)",
    ("Upsample", 1, 7): "height_scale/width_scale -> scales (Upsample-7 covered by 7 -> 9)",
}


# ---- oracle -------------------------------------------------------------
# Cases of opset 7 or later that ORT 1.32's CPU provider does not run, with why.
ORT_CANNOT = {
    "GRU_v14_layout1": "batch-major layout=1 is not implemented",
    "LSTM_v14_layout1": "batch-major layout=1 is not implemented",
    "RNN_v14_layout1": "batch-major layout=1 is not implemented",
    "Scatter_v11_neg_axis": "Scatter-11 is deprecated",
    "Upsample_v10_scales_input": "Upsample-10 is deprecated",
    "Constant_v11_sparse_value": "a sparse_value Constant's output comes back as a sparse tensor",
}
# Ops whose output sizes come from tensor contents that fakeprop does not
# compute: such a dim passes as an unbacked symbol whose range holds ORT's size.
DATA_DEPENDENT = {"NonMaxSuppression": "the number of boxes kept depends on the scores and overlaps"}


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
    if case.op in DATA_DEPENDENT:
        rec["data_dependent"] = DATA_DEPENDENT[case.op]
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
            key = re.sub(r"_opset\d+_", "_", case.name)  # the case at any opset
            if key not in ORT_CANNOT:
                raise RuntimeError("%s: ORT fails (list it in ORT_CANNOT if it cannot run it): %s" % (case.name, e))
            ort_error = ORT_CANNOT[key]
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
                   if ort_error is None else "ORT 1.32 CPU does not run it (%s); onnx.shape_inference's result" % ort_error)
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
            # The older version also at the last opset that selects it, so that a rule
            # switching at the wrong opset fails on one side of the change.
            old = old + [c.at(b - 1) for c in old if c.opset != b - 1]
            # The newer version also at the last opset that selects it (the next
            # version's opset - 1, or the newest opset), for a rule that switches
            # again where the schema does not.
            last = last_selecting(op, b)
            new = new + [c.at(last) for c in new if c.opset != last]
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
