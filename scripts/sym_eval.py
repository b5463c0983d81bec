"""Evaluates the Python-style expressions fakeprop writes (dims, guards, SymFloats).

They use only max, min, float, int, round, math.sqrt and float32, where
float32(x) is x rounded to the nearest IEEE single (ONNX float tensors
compute in single precision): report.schema.json documents the forms.
"""
import math
import struct


def float32(x):
    """x rounded to the nearest IEEE single, ties to even; beyond its range an infinity."""
    x = float(x)
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:  # rounds past the largest single
        return math.copysign(math.inf, x)


NAMES = {"max": max, "min": min, "float": float, "int": int, "round": round, "math": math, "float32": float32}


def sym_eval(text, env):
    """The value of fakeprop's expression `text` with symbols bound by `env`; NameError for an unbound one."""
    return eval(text, {"__builtins__": {}, **NAMES}, env)  # noqa: S307 (fakeprop's own output)
