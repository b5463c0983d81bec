#!/usr/bin/python3
"""Writes the small sample models under testdata/samples/ (committed).

Run with Debian's python3-onnx: /usr/bin/python3 scripts/make_samples.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "samples")


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def tiny_attention():
    """Single-head-group self attention over x[batch, seq, 32] with 4 heads of 8.

    Shapes are computed the way exporters do (Shape -> Gather -> Concat ->
    Reshape), and the output is regrouped into pairs of tokens, which only
    works when batch*seq is even: fakeprop reports that as a guard.
    """
    rng = np.random.default_rng(0)
    w_qkv = numpy_helper.from_array(rng.standard_normal((32, 96)).astype(np.float32), "w_qkv")
    nodes = [
        helper.make_node("MatMul", ["x", "w_qkv"], ["qkv"], name="qkv_proj"),
        helper.make_node("Split", ["qkv", "split_sizes"], ["q", "k", "v"], name="split_qkv", axis=2),
        helper.make_node("Shape", ["x"], ["x_shape"], name="shape_x"),
        helper.make_node("Gather", ["x_shape", "idx0"], ["batch_dim"], name="gather_batch", axis=0),
        helper.make_node("Gather", ["x_shape", "idx1"], ["seq_dim"], name="gather_seq", axis=0),
        helper.make_node("Concat", ["batch_dim", "seq_dim", "heads"], ["head_shape"], name="head_shape", axis=0),
    ]
    for name in ["q", "k", "v"]:
        nodes.append(helper.make_node("Reshape", [name, "head_shape"], [name + "_heads"], name="reshape_" + name))
    nodes += [
        helper.make_node("Transpose", ["q_heads"], ["q_t"], name="transpose_q", perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["k_heads"], ["k_t"], name="transpose_k", perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["v_heads"], ["v_t"], name="transpose_v", perm=[0, 2, 1, 3]),
        helper.make_node("MatMul", ["q_t", "k_t"], ["scores"], name="scores"),
        helper.make_node("Softmax", ["scores"], ["probs"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["probs", "v_t"], ["context"], name="context"),
        helper.make_node("Transpose", ["context"], ["context_t"], name="transpose_context", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["context_t", "merge_shape"], ["merged"], name="merge_heads"),
        helper.make_node("Reshape", ["merged", "pair_shape"], ["pairs"], name="pair_tokens"),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_attention",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 32])],
        [
            helper.make_tensor_value_info("merged", TensorProto.FLOAT, [None, None, None]),
            helper.make_tensor_value_info("pairs", TensorProto.FLOAT, [None, None]),
        ],
        initializer=[
            w_qkv,
            ints("split_sizes", [32, 32, 32]),
            ints("idx0", [0]),
            ints("idx1", [1]),
            ints("heads", [4, 8]),
            ints("merge_shape", [0, 0, -1]),
            ints("pair_shape", [-1, 64]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fakeprop-samples")
    onnx.checker.check_model(model)
    return model


def batch1_conv():
    """A batch-1 export: the batch dim is the literal 1, as torch.onnx writes it without dynamic_axes."""
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["y"], ["z"], name="relu"),
    ]
    graph = helper.make_graph(
        nodes, "batch1_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [None, None, None, None])], initializer=[w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fakeprop-samples")
    onnx.checker.check_model(model)
    return model


def add_two():
    """Two inputs of the same static shape added: duck sizing gives marked dims one symbol."""
    nodes = [helper.make_node("Add", ["x", "y"], ["z"], name="add")]
    graph = helper.make_graph(
        nodes, "add_two",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [None, None])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fakeprop-samples")
    onnx.checker.check_model(model)
    return model


def classifier(width, relu=False):
    """x[batch, 16] -> Gemm -> [batch, width]; two widths give a `check` regression pair, and an
    added Relu an edit that changes no shape."""
    rng = np.random.default_rng(2)
    w = numpy_helper.from_array(rng.standard_normal((width, 16)).astype(np.float32), "w")
    nodes = [helper.make_node("Gemm", ["x", "w"], ["logits"], name="fc", transB=1)]
    if relu:
        nodes.append(helper.make_node("Relu", ["logits"], ["logits_relu"], name="relu"))
    nodes.append(helper.make_node("Softmax", ["logits_relu" if relu else "logits"], ["probs"], name="softmax", axis=-1))
    graph = helper.make_graph(
        nodes, "classifier", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", width])], initializer=[w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fakeprop-samples")
    onnx.checker.check_model(model)
    return model


def reshape_by_8():
    """x[16] -> Reshape [-1, 8]: with the size marked dynamic, the -1 needs s0 % 8 == 0."""
    nodes = [helper.make_node("Reshape", ["x", "rows_of_8"], ["rows"], name="rows")]
    graph = helper.make_graph(
        nodes, "reshape_by_8", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [None, 8])], initializer=[ints("rows_of_8", [-1, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fakeprop-samples")
    onnx.checker.check_model(model)
    return model


def nonzero_view():
    """NonZero's data-dependent count feeding a view: [2, u0] -> Transpose -> Reshape [-1] = [2*u0]."""
    nodes = [helper.make_node("NonZero", ["x"], ["nz"], name="nonzero"),
             helper.make_node("Transpose", ["nz"], ["coords"], name="coords", perm=[1, 0]),
             helper.make_node("Reshape", ["coords", "flat"], ["flat_coords"], name="flatten")]
    graph = helper.make_graph(
        nodes, "nonzero_view", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])],
        [helper.make_tensor_value_info("flat_coords", TensorProto.INT64, [None])], initializer=[ints("flat", [-1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fakeprop-samples")
    onnx.checker.check_model(model)
    return model


def nonzero_tail_slice():
    """x[-n:] with n NonZero's count: whether -n counts from the end depends on n == 0, which
    torch's fake slice asks with guard_or_false: the tail's length is a fresh unbacked size in
    [0, 10] (a runtime assert), not an error."""
    nodes = [helper.make_node("NonZero", ["mask"], ["nz"], name="nonzero"),
             helper.make_node("Shape", ["nz"], ["nz_shape"], name="nz_shape"),
             helper.make_node("Gather", ["nz_shape", "idx1"], ["n"], name="count"),
             helper.make_node("Neg", ["n"], ["minus_n"], name="minus_n"),
             helper.make_node("Slice", ["x", "minus_n", "end"], ["tail"], name="tail")]
    graph = helper.make_graph(
        nodes, "nonzero_tail_slice",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [10]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, [4, 6])],
        [helper.make_tensor_value_info("tail", TensorProto.FLOAT, [None])],
        initializer=[ints("idx1", [1]), ints("end", [10])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fakeprop-samples")
    onnx.checker.check_model(model)
    return model


def count_rows(nodes):
    """Nodes that reshape x[10] to [2, 5] when n > 3 and to [5, 2] otherwise: a shape chosen by a
    comparison of data (n), which fake values leave unknown and real ones give."""
    return nodes + [
        helper.make_node("Greater", ["n", "three"], ["many"], name="many"),
        helper.make_node("Where", ["many", "two", "five"], ["rows"], name="rows"),
        helper.make_node("Concat", ["rows", "minus_one"], ["grid_shape"], name="grid_shape", axis=0),
        helper.make_node("Reshape", ["x", "grid_shape"], ["by_count"], name="by_count")]


COUNT_ROWS_INITS = [ints("three", [3]), ints("two", [2]), ints("five", [5]), ints("minus_one", [-1])]


def data_shaped():
    """Sizes that only data decide: x[-n:] with n NonZero's count over a mask, x reshaped by
    whether n > 3, and a Reshape to a shape that is an input. Its test data set (data_shaped/test_data_set_0) holds real
    inputs for --real-input, as ONNX's test data sets do."""
    nodes = [helper.make_node("NonZero", ["mask"], ["nz"], name="nonzero"),
             helper.make_node("Shape", ["nz"], ["nz_shape"], name="nz_shape"),
             helper.make_node("Gather", ["nz_shape", "idx1"], ["n"], name="count"),
             helper.make_node("Neg", ["n"], ["minus_n"], name="minus_n"),
             helper.make_node("Slice", ["x", "minus_n", "end"], ["tail"], name="tail"),
             helper.make_node("Reshape", ["d", "shape"], ["grid"], name="grid"),
             helper.make_node("Transpose", ["grid"], ["grid_t"], name="grid_t")]
    nodes = count_rows(nodes)
    graph = helper.make_graph(
        nodes, "data_shaped",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [10]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, [4, 6]),
         helper.make_tensor_value_info("d", TensorProto.FLOAT, [12]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("tail", TensorProto.FLOAT, [None]),
         helper.make_tensor_value_info("grid_t", TensorProto.FLOAT, [None, None]),
         helper.make_tensor_value_info("by_count", TensorProto.FLOAT, [None, None])],
        initializer=[ints("idx1", [1]), ints("end", [10])] + COUNT_ROWS_INITS)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fakeprop-samples")
    onnx.checker.check_model(model)
    return model


def data_shaped_inputs():
    """The real inputs of data_shaped: 5 nonzeros in the mask, a 3x4 grid."""
    mask = np.zeros((4, 6), dtype=np.float32)
    mask.flat[[1, 4, 9, 17, 23]] = 1.0
    return {"x": np.arange(10, dtype=np.float32), "mask": mask, "d": np.arange(12, dtype=np.float32),
            "shape": np.array([3, 4], dtype=np.int64)}


def write_test_data_set(name, arrays):
    folder = os.path.join(OUT, name, "test_data_set_0")
    os.makedirs(folder, exist_ok=True)
    for i, (input_name, array) in enumerate(arrays.items()):
        path = os.path.join(folder, "input_%d.pb" % i)
        with open(path, "wb") as f:
            f.write(numpy_helper.from_array(array, input_name).SerializeToString())
        print("wrote", os.path.relpath(path), os.path.getsize(path), "bytes")
    # The mask also as .npy, in Fortran order: the reader must reorder it.
    path = os.path.join(OUT, name, "mask_fortran.npy")
    np.save(path, np.asfortranarray(arrays["mask"]))
    print("wrote", os.path.relpath(path), os.path.getsize(path), "bytes")


def main():
    os.makedirs(OUT, exist_ok=True)
    builds = [("tiny_attention", tiny_attention), ("batch1_conv", batch1_conv), ("add_two", add_two),
              ("classifier_10", lambda: classifier(10)), ("classifier_12", lambda: classifier(12)),
              ("classifier_10_relu", lambda: classifier(10, relu=True)), ("reshape_by_8", reshape_by_8),
              ("nonzero_view", nonzero_view), ("nonzero_tail_slice", nonzero_tail_slice),
              ("data_shaped", data_shaped)]
    for name, build in builds:
        path = os.path.join(OUT, name + ".onnx")
        onnx.save(build(), path)
        print("wrote", os.path.relpath(path), os.path.getsize(path), "bytes")
    write_test_data_set("data_shaped", data_shaped_inputs())


if __name__ == "__main__":
    main()
