#!/usr/bin/python3
"""Times onnx.shape_inference.infer_shapes_path on one model (load, infer, save).

    /usr/bin/python3 scripts/bench/onnx_py_peer.py MODEL OUT

Prints one JSON line: {"ms": ..., "baseline_rss_kb": ...}; ms covers the one
call (loading included, interpreter start-up and `import onnx` excluded);
baseline_rss_kb is the process's peak before the call (the interpreter and
onnx), so the caller can tell the call's own memory from the process's.
"""
import json
import resource
import sys
import time

from onnx import shape_inference


def main():
    src, dst = sys.argv[1], sys.argv[2]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    shape_inference.infer_shapes_path(src, dst)
    ms = (time.perf_counter() - t0) * 1000.0
    print(json.dumps({"ms": ms, "baseline_rss_kb": before}))


if __name__ == "__main__":
    main()
