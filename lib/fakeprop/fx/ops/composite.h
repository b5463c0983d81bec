// A CompositeImplicit op's rule that replays ATen's composite: each step
// runs the rule of the op ATen calls there, on intermediate tensors of the
// same node, so strides, aliasing and the guards those ops ask are the
// ones FakeTensor gets running the composite (einsum, repeat_interleave).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeprop/fx/op_context.h"

namespace fakeprop::fx::ops {

class Composite {
 public:
  explicit Composite(OpContext& ctx) : ctx_(ctx) {}

  // `target`'s rule on positional `args` and keyword `kwargs`; its result must be one tensor.
  TensorValue call(const std::string& target, const ValueList& args,
                   const std::vector<std::pair<std::string_view, Value>>& kwargs = {});

  static Value tensor(const TensorValue& t) { return Value::of_tensor(t); }
  static Value ints(const std::vector<int64_t>& xs);
  static Value sizes(const SymShape& xs);

  TensorValue permute(const TensorValue& t, const std::vector<int64_t>& perm);
  TensorValue sum(const TensorValue& t, const std::vector<int64_t>& dims, bool keepdim);

 private:
  OpContext& ctx_;
};

}  // namespace fakeprop::fx::ops
