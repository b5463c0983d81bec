// --real-input: a real tensor for a graph input (propagate_real_tensors), as
// InferOptions holds it once driver/real_inputs.h has read its file. A real
// input fixes its input's sizes as --input does, and its elements travel
// beside the fake values (runner/real_values.h) when there are at most
// InferOptions::max_fold_elements of them.
#pragma once
#include <cstdint>
#include <string>
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

}  // namespace fakeprop
