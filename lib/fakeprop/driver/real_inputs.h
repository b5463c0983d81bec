// Reading --real-input tensors: a file is a TensorProto (.pb, as ONNX's test
// data sets hold inputs) or a NumPy array (.npy); a directory is a test data
// set, its input_<N>.pb files named by their TensorProto names. The driver
// reads them (the TensorProto parser is the ONNX front end's); options/ holds
// the result (options/real_inputs.h).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeprop/options/real_inputs.h"

namespace fakeprop {

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
