// Symbolic-size queries (sym_size, sym_stride, sym_numel, sym_storage_offset)
// and the assertion / range-constraint ops torch.export inserts.
#include "fakeprop/fx/ops/aten_helpers.h"
#include "fakeprop/fx/ops/families.h"

namespace fakeprop::fx::ops {

namespace {

Value int_list_value(OpContext& ctx, const SymShape& xs) {
  ValueList out;
  for (const SymInt& x : xs) out.push_back(Value::of_int(simplified(ctx, x)));
  return Value::of_list(std::move(out));
}

// sym_size.int(self, dim) / sym_size.default(self)
void sym_size(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  if (!ctx.has(1, "dim")) {
    ctx.set_result(int_list_value(ctx, self.sizes));
    return;
  }
  const int64_t d = dim_arg(ctx, 1, "dim", self.dim(), std::nullopt, false);
  ctx.set_result(Value::of_int(simplified(ctx, self.sizes[static_cast<size_t>(d)])));
}

void sym_stride(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  if (!ctx.has(1, "dim")) {
    ctx.set_result(int_list_value(ctx, self.strides));
    return;
  }
  const int64_t d = dim_arg(ctx, 1, "dim", self.dim(), std::nullopt, false);
  ctx.set_result(Value::of_int(simplified(ctx, self.strides[static_cast<size_t>(d)])));
}

void sym_numel(OpContext& ctx) { ctx.set_result(Value::of_int(simplified(ctx, ctx.tensor(0, "self").numel()))); }

void sym_storage_offset(OpContext& ctx) {
  ctx.set_result(Value::of_int(simplified(ctx, ctx.tensor(0, "self").storage_offset)));
}

// _assert_scalar(self, assert_msg) / _assert_async.msg(self, assert_msg):
// torch._check on a SymBool; a runtime assert when it cannot be decided.
void assert_scalar(OpContext& ctx) {
  const Value& v = ctx.value(0, "self");
  const std::string msg = ctx.has(1, "assert_msg") ? ctx.string_arg(1, "assert_msg") : "assertion failed";
  SymBool cond;
  if (v.kind == Value::Kind::Bool) cond = v.b;
  else if (v.kind == Value::Kind::Int) cond = sym_ne(v.i, 0);
  else if (v.is_tensor()) {  // _assert_async on a tensor: nothing known about its value
    ctx.set_result(Value::none());
    return;
  } else {
    ctx.fail(ErrorKind::TypeError, ctx.target() + ": expected a bool");
  }
  require(ctx, cond, "_assert_scalar", ErrorKind::AssertionError, msg);
  ctx.set_result(Value::none());
}

// sym_constrain_range(size, min, max) / sym_constrain_range_for_size(size, min, max).
void constrain_range(OpContext& ctx) {
  const SymInt size = ctx.int_arg(0, "size");
  const bool for_size = ctx.target().find("for_size") != std::string::npos;
  ValueRange range;
  if (auto lo = ctx.optional_int(1, "min"); lo && lo->is_static()) range.lo = lo->value();
  if (auto hi = ctx.optional_int(2, "max"); hi && hi->is_static()) range.hi = hi->value();
  if (for_size && range.lo < 0) range.lo = 0;
  if (size.is_static()) {
    if (!range.contains(size.value()))
      ctx.fail(ErrorKind::InvalidArgument, "Invalid value range for " + text(size) + " between [" +
                                               std::to_string(range.lo) + ", " + std::to_string(range.hi) + "].");
  } else if (size.expr()->is_symbol()) {
    ctx.env().constrain_symbol_range(size.expr(), range, ctx.target());
  } else {
    require(ctx, sym_ge(size, range.lo), "sym_constrain_range", ErrorKind::InvalidArgument, "value below its range");
    if (!range.hi_infinite())
      require(ctx, sym_le(size, range.hi), "sym_constrain_range", ErrorKind::InvalidArgument, "value above its range");
  }
  ctx.set_result(Value::none());
}

// sym_is_contiguous(self, memory_format=contiguous_format) -> SymBool.
void sym_is_contiguous(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor(0, "self");
  const MemoryFormat f = ctx.memory_format_arg(1, "memory_format").value_or(MemoryFormat::Contiguous);
  bool v = false;
  if (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d)
    v = is_channels_last_contiguous(self, ctx.env());
  else
    v = is_contiguous(self, ctx.env());
  ctx.set_result(Value::of_bool(SymBool(v)));
}

// _assert_tensor_metadata(a, size=None, stride=None, dtype=None, *, device=None,
// layout=None): the checks torch.export inserts before a dtype/device
// conversion that it traced as a no-op; returns None.
void assert_tensor_metadata(OpContext& ctx) {
  constexpr size_t kKw = 1000;
  const TensorMeta& a = ctx.tensor(0, "a");
  auto same_list = [&](const SymShape& have, const std::vector<SymInt>& want) {
    if (have.size() != want.size()) return false;
    for (size_t i = 0; i < have.size(); ++i)
      if (!same_size(ctx, have[i], want[i], "_assert_tensor_metadata")) return false;
    return true;
  };
  if (auto size = ctx.optional_int_list(1, "size"); size && !same_list(a.sizes, *size))
    ctx.fail(ErrorKind::AssertionError, "Tensor size mismatch! Expected: " + text(*size) + ", Got: " + text(a.sizes));
  if (auto stride = ctx.optional_int_list(2, "stride"); stride && !same_list(a.strides, *stride))
    ctx.fail(ErrorKind::AssertionError,
             "Tensor stride mismatch! Expected: " + text(*stride) + ", Got: " + text(a.strides));
  if (auto dtype = ctx.dtype_arg(3, "dtype"); dtype && *dtype != a.dtype)
    ctx.fail(ErrorKind::AssertionError, "Tensor dtype mismatch! Expected: " + torch_dtype(*dtype) +
                                            ", Got: " + torch_dtype(a.dtype));
  if (auto device = ctx.device_arg(kKw, "device"); device && !(*device == a.device))
    ctx.fail(ErrorKind::AssertionError,
             "Tensor device mismatch! Expected: " + device->str() + ", Got: " + a.device.str());
  ctx.set_result(Value::none());
}

}  // namespace

void register_sym_ops(OpRegistry& r) {
  r.add("aten._assert_tensor_metadata.default", assert_tensor_metadata, OutputGrad::none());
  r.add("aten.sym_size.int", sym_size);
  r.add("aten.sym_size.default", sym_size);
  r.add("aten.sym_stride.int", sym_stride);
  r.add("aten.sym_stride.default", sym_stride);
  r.add("aten.sym_numel.default", sym_numel);
  r.add("aten.sym_storage_offset.default", sym_storage_offset);
  r.add("aten._assert_scalar.default", assert_scalar);
  r.add("aten._assert_async.msg", assert_scalar);
  r.add("aten._assert_async.default", assert_scalar);
  r.add("aten.sym_constrain_range.default", constrain_range);
  r.add("aten.sym_constrain_range_for_size.default", constrain_range);
  r.add("aten.sym_is_contiguous.default", sym_is_contiguous);
}

}  // namespace fakeprop::fx::ops
