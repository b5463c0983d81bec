#include "fakeprop/fx/aten_schema.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "fakeprop/fx/graph.h"

namespace fakeprop::fx {

namespace {

#include "fakeprop/fx/aten_schemas.inc"
#include "fakeprop/fx/higher_order_schemas.inc"

}  // namespace

std::span<const AtenSchemaRow> aten_schema_rows() { return kAtenSchemaRows; }

namespace {
// Each row is parsed the first time it is looked up (a run meets a few
// dozen of the 1500), so a run pays for the rows it uses.
struct LazySchema {
  std::once_flag parsed;
  AtenSchema schema;
};
const AtenSchema* schema_at(size_t i) {
  static const std::unique_ptr<LazySchema[]> table(new LazySchema[std::size(kAtenSchemaRows)]);
  LazySchema& e = table[i];
  const AtenSchemaRow& row = kAtenSchemaRows[i];
  std::call_once(e.parsed, [&] { e.schema = parse_aten_schema(row.target, row.declaration); });
  return &e.schema;
}
const AtenSchema* find_row(std::string_view target) {
  const auto* row = std::lower_bound(std::begin(kAtenSchemaRows), std::end(kAtenSchemaRows), target,
                                     [](const AtenSchemaRow& r, std::string_view t) { return r.target < t; });
  if (row == std::end(kAtenSchemaRows) || row->target != target) return nullptr;
  return schema_at(static_cast<size_t>(row - std::begin(kAtenSchemaRows)));
}
}  // namespace

const AtenSchema* find_higher_order_schema(std::string_view target) {
  // Parsed once: ten short rows.
  static const std::vector<AtenSchema> table = [] {
    std::vector<AtenSchema> out;
    for (const AtenSchemaRow& row : kHigherOrderSchemaRows) {
      out.push_back(parse_aten_schema(row.target, row.declaration));
      out.back().higher_order = true;
    }
    return out;
  }();
  auto find = [&](std::string_view t) -> const AtenSchema* {
    for (const AtenSchema& s : table)
      if (s.target == t) return &s;
    return nullptr;
  };
  if (const AtenSchema* s = find(target)) return s;
  // "higher_order.cond.default": the packet's rule serves it (OpRegistry::find_entry), so its row does too.
  const size_t first = target.find('.'), last = target.rfind('.');
  return first != last ? find(target.substr(0, last)) : nullptr;
}

const AtenSchema* find_aten_schema(std::string_view target) {
  if (const AtenSchema* s = find_row(target)) return s;
  // A packet named without an overload ("aten.sym_numel") is its default.
  if (std::count(target.begin(), target.end(), '.') == 1) return find_row(std::string(target) + ".default");
  return nullptr;
}

namespace {

// What a given argument is, as check_call tells types apart.
enum class Given : uint8_t { Unknown, None, Bool, Int, Float, Str, List, DType, Device, MemoryFormat, Layout, Tensor };

Given given_literal(Arg::Kind k) {
  switch (k) {
    case Arg::Kind::None: return Given::None;
    case Arg::Kind::Bool: return Given::Bool;
    case Arg::Kind::Int: return Given::Int;
    case Arg::Kind::Float: return Given::Float;
    case Arg::Kind::String: return Given::Str;
    case Arg::Kind::List: return Given::List;
    case Arg::Kind::DType: return Given::DType;
    case Arg::Kind::Device: return Given::Device;
    case Arg::Kind::MemoryFormat: return Given::MemoryFormat;
    case Arg::Kind::Layout: return Given::Layout;
    case Arg::Kind::Node:
    case Arg::Kind::Graph: return Given::Unknown;
  }
  return Given::Unknown;
}

Given given_value(const Value& v) {
  switch (v.kind) {
    case Value::Kind::None: return Given::None;
    case Value::Kind::Tensor: return Given::Tensor;
    case Value::Kind::Int: return Given::Int;
    case Value::Kind::Bool: return Given::Bool;
    case Value::Kind::Float: return Given::Float;
    case Value::Kind::List: return Given::List;
    case Value::Kind::Opaque:
    case Value::Kind::Map: return Given::Unknown;
  }
  return Given::Unknown;
}

Given given(const Arg& a, const Value& v) { return a.kind == Arg::Kind::Node ? given_value(v) : given_literal(a.kind); }

// Python's name of the given type, as torch's errors print it.
std::string_view given_name(Given g, const Value& v) {
  switch (g) {
    case Given::None: return "NoneType";
    case Given::Bool: return v.kind == Value::Kind::Bool && !v.b.is_static() ? "SymBool" : "bool";
    case Given::Int: return v.kind == Value::Kind::Int && !v.i.is_static() ? "SymInt" : "int";
    case Given::Float: return v.is_symbolic_float() ? "SymFloat" : "float";
    case Given::Str: return "str";
    case Given::List: return "list";
    case Given::DType: return "dtype";
    case Given::Device: return "device";
    case Given::MemoryFormat: return "memory_format";
    case Given::Layout: return "layout";
    case Given::Tensor: return "Tensor";
    case Given::Unknown: return "object";
  }
  return "object";
}

bool is_enum_literal(Given g) {
  return g == Given::Str || g == Given::DType || g == Given::Device || g == Given::MemoryFormat || g == Given::Layout;
}

// Whether torch surely rejects `g` for a single (non-list) argument of type `t`.
bool rejects_single(ArgType t, Given g) {
  switch (t) {
    case ArgType::Tensor: return is_enum_literal(g);
    case ArgType::Int:
    case ArgType::SymInt: return is_enum_literal(g) || g == Given::Float || g == Given::List;
    case ArgType::Float:
    case ArgType::Bool:
    case ArgType::Scalar: return is_enum_literal(g) || g == Given::List;
    case ArgType::Str: return g == Given::Bool || g == Given::Int || g == Given::Float || g == Given::List ||
                              g == Given::Tensor;
    case ArgType::ScalarType: return g == Given::Float || g == Given::List || g == Given::Tensor;
    case ArgType::Device: return g == Given::Float || g == Given::List || g == Given::Tensor || g == Given::Bool;
    case ArgType::Layout:
    case ArgType::MemoryFormat:
    case ArgType::Other: return false;
  }
  return false;
}

// Whether torch surely rejects the argument `a` (value `v`) for `spec`.
bool rejects(const ArgSpec& spec, const Arg& a, const Value& v) {
  const Given g = given(a, v);
  if (g == Given::None || g == Given::Unknown) return false;
  if (!spec.list) return rejects_single(spec.type, g);
  if (spec.type == ArgType::Tensor) return g != Given::List;
  if (g != Given::List) return rejects_single(spec.type, g);  // a single int stands for int[N]
  if (a.kind != Arg::Kind::List) return false;
  for (const Arg& x : a.list)
    if (x.kind != Arg::Kind::Node && rejects_single(spec.type, given_literal(x.kind))) return true;
  return false;
}

}  // namespace

std::optional<CallError> check_call(const AtenSchema& schema, const Node& node, std::span<const Value* const> args,
                                    std::span<const std::pair<std::string_view, const Value*>> kwargs) {
  if (schema.higher_order) return std::nullopt;
  const std::string op(schema.op);
  if (args.size() > schema.num_positional && !schema.varargs)
    return CallError{ErrorKind::InputCount, op + "() takes " + std::to_string(schema.num_positional) +
                                                " positional argument(s) but " + std::to_string(args.size()) +
                                                " was/were given.  Declaration: " + std::string(schema.declaration)};
  auto type_error = [&](const ArgSpec& spec, const Arg& a, const Value& v) {
    return CallError{ErrorKind::TypeError, op + "() Expected a value of type '" + spec.python_type() +
                                               "' for argument '" + std::string(spec.name) +
                                               "' but instead found type '" + std::string(given_name(given(a, v), v)) +
                                               "'."};
  };
  size_t matched_kwargs = 0;
  for (const ArgSpec& spec : schema.args) {
    const Arg* keyword = nullptr;
    const Value* keyword_value = nullptr;
    for (size_t k = 0; k < kwargs.size(); ++k)
      if (kwargs[k].first == spec.name) {
        keyword = &node.kwargs[k].second;
        keyword_value = kwargs[k].second;
      }
    if (spec.position < args.size()) {
      if (keyword)
        return CallError{ErrorKind::InvalidArgument, "Argument '" + std::string(spec.name) +
                                                         "' specified both as positional and keyword argument. "
                                                         "Schema: " + std::string(schema.declaration)};
      if (rejects(spec, node.args[spec.position], *args[spec.position]))
        return type_error(spec, node.args[spec.position], *args[spec.position]);
    } else if (keyword) {
      ++matched_kwargs;
      if (rejects(spec, *keyword, *keyword_value)) return type_error(spec, *keyword, *keyword_value);
    } else if (spec.dflt.kind == ArgDefault::Kind::Absent && !spec.optional) {
      // torch also asks for a T? without a default; rules have always
      // read a missing one as None, so it stays allowed.
      return CallError{ErrorKind::MissingInput, op + "() is missing value for argument '" + std::string(spec.name) +
                                                    "'. Declaration: " + std::string(schema.declaration)};
    }
  }
  if (matched_kwargs != kwargs.size())
    for (const auto& [name, v] : kwargs)
      if (!schema.find(name))
        return CallError{ErrorKind::InvalidArgument, "Unknown keyword argument '" + std::string(name) +
                                                         "' for operator '" + op + "'. Schema: " +
                                                         std::string(schema.declaration)};
  return std::nullopt;
}

}  // namespace fakeprop::fx
