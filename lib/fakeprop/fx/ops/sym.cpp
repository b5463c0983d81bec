// Symbolic-size queries (sym_size, sym_stride, sym_numel, sym_storage_offset)
// and the assertion / range-constraint ops torch.export inserts.
#include <cctype>
#include <string>
#include <vector>

#include "fakeprop/fx/ops/aten_helpers.h"
#include "fakeprop/fx/ops/families.h"
#include "fakeprop/sym/parse.h"

namespace fakeprop::fx::ops {

namespace {

Value int_list_value(OpContext& ctx, const SymShape& xs) {
  ValueList out;
  for (const SymInt& x : xs) out.push_back(Value::of_int(simplified(ctx, x)));
  return Value::of_list(std::move(out));
}

// sym_size.int(self, dim) / sym_size.default(self)
void sym_size(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (!ctx.declares("dim")) {  // sym_size.default
    ctx.set_result(int_list_value(ctx, self.sizes));
    return;
  }
  const int64_t d = dim_arg(ctx, "dim", self.dim(), std::nullopt, false);
  ctx.set_result(Value::of_int(simplified(ctx, self.sizes[static_cast<size_t>(d)])));
}

void sym_stride(OpContext& ctx) {
  const TensorMeta& self = ctx.tensor("self");
  if (!ctx.declares("dim")) {  // sym_stride.default
    ctx.set_result(int_list_value(ctx, self.strides));
    return;
  }
  const int64_t d = dim_arg(ctx, "dim", self.dim(), std::nullopt, false);
  ctx.set_result(Value::of_int(simplified(ctx, self.strides[static_cast<size_t>(d)])));
}

void sym_numel(OpContext& ctx) { ctx.set_result(Value::of_int(simplified(ctx, ctx.tensor("self").numel()))); }

void sym_storage_offset(OpContext& ctx) {
  ctx.set_result(Value::of_int(simplified(ctx, ctx.tensor("self").storage_offset)));
}

// _assert_scalar(self, assert_msg) / _assert_async.msg(self, assert_msg):
// torch._check on a SymBool; a runtime assert when it cannot be decided.
void assert_scalar(OpContext& ctx) {
  const Value& v = ctx.value("self");
  const std::string msg = ctx.declares("assert_msg") && ctx.has("assert_msg") ? ctx.string_arg("assert_msg") : "assertion failed";
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

// sym_constrain_range(size, *, min, max) / sym_constrain_range_for_size (kForSize).
template <bool kForSize>
void constrain_range(OpContext& ctx) {
  const SymInt size = ctx.int_arg("size");
  const bool for_size = kForSize;
  ValueRange range;
  if (auto lo = ctx.optional_int("min"); lo && lo->is_static()) range.lo = lo->value();
  if (auto hi = ctx.optional_int("max"); hi && hi->is_static()) range.hi = hi->value();
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
  const TensorMeta& self = ctx.tensor("self");
  const MemoryFormat f = ctx.memory_format_arg("memory_format").value_or(MemoryFormat::Contiguous);
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
  const TensorMeta& a = ctx.tensor("a");
  auto same_list = [&](const SymShape& have, const std::vector<SymInt>& want) {
    if (have.size() != want.size()) return false;
    for (size_t i = 0; i < have.size(); ++i)
      if (!same_size(ctx, have[i], want[i], "_assert_tensor_metadata")) return false;
    return true;
  };
  if (auto size = ctx.optional_int_list("size"); size && !same_list(a.sizes, *size))
    ctx.fail(ErrorKind::AssertionError, "Tensor size mismatch! Expected: " + text(*size) + ", Got: " + text(a.sizes));
  if (auto stride = ctx.optional_int_list("stride"); stride && !same_list(a.strides, *stride))
    ctx.fail(ErrorKind::AssertionError,
             "Tensor stride mismatch! Expected: " + text(*stride) + ", Got: " + text(a.strides));
  if (auto dtype = ctx.dtype_arg("dtype"); dtype && *dtype != a.dtype)
    ctx.fail(ErrorKind::AssertionError, "Tensor dtype mismatch! Expected: " + torch_dtype(*dtype) +
                                            ", Got: " + torch_dtype(a.dtype));
  if (auto device = ctx.device_arg("device"); device && !(*device == a.device))
    ctx.fail(ErrorKind::AssertionError,
             "Tensor device mismatch! Expected: " + device->str() + ", Got: " + a.device.str());
  ctx.set_result(Value::none());
}

// fakeprop.program_guard(guard, names, inputs): one of the guards that
// torch.export.save writes as the program's guards_code (pt2_archive.cpp),
// a Python condition over its user inputs' sizes ("(L['x'].size()[2] % 16)
// == 0"), which ExportedProgram.module() checks on every call. Each
// L['name'].size()[i], .stride()[i] or .storage_offset() is the input's
// value there; the condition must hold (a guard where it can be decided
// from the sizes, as torch.export's own guards are; an assertion_error
// where it is false). A source fakeprop cannot read fails the node
// (not_implemented): the guard is then not applied.
// The condition of a guards_code entry over the inputs' values, or nullptr
// with `why` set when fakeprop cannot read it.
ExprRef program_guard_condition(OpContext& ctx, const std::string& guard, std::string& why) {
  const Node& node = ctx.node();
  if (node.args.size() < 3 || node.args[1].kind != Arg::Kind::List)
    ctx.fail(ErrorKind::InvalidArgument, "fakeprop.program_guard needs the guard, the input names and the inputs");
  const std::vector<const TensorMeta*> inputs = ctx.tensor_list("inputs");
  const std::vector<Arg>& names = node.args[1].list;
  auto input_named = [&](const std::string& name) -> const TensorMeta* {
    for (size_t i = 0; i < names.size() && i < inputs.size(); ++i)
      if (names[i].kind == Arg::Kind::String && names[i].s == name) return inputs[i];
    return nullptr;
  };
  // The text with each source replaced by a name __fakeprop_src<k> for values[k].
  std::string text;
  std::vector<SymInt> values;
  for (size_t i = 0; i < guard.size();) {
    if (guard.compare(i, 3, "L['") != 0) {
      text += guard[i++];
      continue;
    }
    const size_t close = guard.find("']", i + 3);
    if (close == std::string::npos) return why = "an unterminated source", nullptr;
    const std::string name = guard.substr(i + 3, close - i - 3);
    size_t at = close + 2;
    const TensorMeta* t = input_named(name);
    if (t == nullptr) return why = "L['" + name + "'] is not a tensor input of the program", nullptr;
    auto index_after = [&](const char* method) -> std::optional<size_t> {
      const std::string m = std::string(".") + method + "()[";
      if (guard.compare(at, m.size(), m) != 0) return std::nullopt;
      size_t k = at + m.size(), end = k;
      while (end < guard.size() && std::isdigit(static_cast<unsigned char>(guard[end]))) ++end;
      if (end == k || end - k > 6 || end >= guard.size() || guard[end] != ']') return std::nullopt;
      const size_t d = std::stoul(guard.substr(k, end - k));
      if (d >= t->sizes.size()) return std::nullopt;
      at = end + 1;
      return d;
    };
    if (auto d = index_after("size")) {
      values.push_back(t->sizes[*d]);
    } else if (auto d2 = index_after("stride")) {
      values.push_back(t->strides[*d2]);
    } else if (guard.compare(at, 17, ".storage_offset()") == 0) {
      values.push_back(t->storage_offset);
      at += 17;
    } else {
      return why = "it reads L['" + name + "'] other than by a size(), stride() or storage_offset() it has", nullptr;
    }
    text += " __fakeprop_src" + std::to_string(values.size() - 1) + " ";
    i = at;
  }
  // produce_guards prints SymInt max/min and float conversions as torch's
  // sym_* functions and Python's math module; parse_expr reads them under
  // its names.
  for (const auto& [from, to] : {std::pair<std::string_view, std::string_view>{"torch.sym_max(", "max("},
                                 {"torch.sym_min(", "min("},
                                 {"torch.sym_float(", "float("},
                                 {"torch.sym_sqrt(", "math.sqrt("},
                                 {"math.floor(", "FloorToInt("},
                                 {"math.ceil(", "CeilToInt("},
                                 {"math.trunc(", "TruncToInt("}})
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  try {
    return parse_expr(text, [&](std::string_view sym) -> ExprRef {
      constexpr std::string_view kPrefix = "__fakeprop_src";
      if (sym.substr(0, kPrefix.size()) == kPrefix) {
        const std::string k(sym.substr(kPrefix.size()));
        if (!k.empty() && k.size() < 7 && std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; }))
          if (const size_t idx = std::stoul(k); idx < values.size()) return values[idx].expr();
      }
      throw InputError("unknown name '" + std::string(sym) + "'");
    });
  } catch (const InputError& e) {
    why = e.what();
  }
  return nullptr;
}

// fakeprop.program_guard(guard, names, inputs): one of the guards that
// torch.export.save writes as the program's guards_code (pt2_archive.cpp),
// a Python condition over its user inputs' sizes ("(L['x'].size()[2] % 16)
// == 0"), which ExportedProgram.module() checks on every call. Each
// L['name'].size()[i], .stride()[i] or .storage_offset() is the input's
// value there; the condition must hold (a guard where it can be decided
// from the sizes, as torch.export's own guards are; an assertion_error
// where it is false). A guard fakeprop cannot read is not applied, with a
// precision_lost warning on its node that says why.
void program_guard(OpContext& ctx) {
  const std::string guard = ctx.string_arg("guard");
  std::string why;
  const ExprRef cond = program_guard_condition(ctx, guard, why);
  ctx.set_result(Value::none());
  if (cond == nullptr) {
    ctx.note_precision("the program's guard " + guard + " is not applied: " + why);
    return;
  }
  require(ctx, SymBool(cond), "guards_code", ErrorKind::AssertionError,
          [&] { return "the program's guard " + guard + " fails (torch.export.save's guards_code)"; });
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
  r.add("aten.sym_constrain_range.default", constrain_range<false>);
  r.add("aten.sym_constrain_range_for_size.default", constrain_range<true>);
  r.add("aten.sym_is_contiguous.default", sym_is_contiguous);
  r.add("fakeprop.program_guard", program_guard, OutputGrad::none());
}

}  // namespace fakeprop::fx::ops
