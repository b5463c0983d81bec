// --real-input: real tensors for graph inputs (propagate_real_tensors). A
// file is a TensorProto (.pb, as ONNX's test data sets hold inputs) or a
// NumPy array (.npy); a directory is a test data set, its input_<N>.pb files
// named by their TensorProto names. A real input fixes its input's sizes as
// --input does, and its elements travel beside the fake values
// (runner/real_values.h) when there are at most max_elements of them.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/tensor/dtype.h"
#include "fakeprop/util/boxed.h"
#include "fakeprop/value/value.h"

namespace fakeprop {

struct RealTensor {
  std::string name;  // a TensorProto's own name; "" for .npy
  std::string file;  // where it came from, for messages
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes;
  int64_t numel = 0;
  Boxed<KnownData> elements;  // unset when numel > max_elements
};

// A .npy file's content (version 1, 2 or 3; little-endian numeric dtypes and
// bool; C or Fortran order). `file` names it in errors.
RealTensor parse_npy(std::string_view bytes, const std::string& file, int64_t max_elements);

// `specs` are [NAME=]PATH items; `arrays` are (NAME, .npy bytes) pairs (the
// package's arrays). A TensorProto without NAME= is named by its own name.
// Throws InputError naming the option and file.
std::map<std::string, RealTensor> read_real_inputs(const std::vector<std::string>& specs,
                                                   const std::vector<std::pair<std::string, std::string>>& arrays,
                                                   int64_t max_elements);

}  // namespace fakeprop
