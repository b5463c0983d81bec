#include "fakeprop/fx/aten_schema.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "fakeprop/fx/graph.h"

namespace fakeprop::fx {

namespace {

#include "fakeprop/fx/aten_schemas.inc"

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits at commas outside brackets, parentheses and quotes.
std::vector<std::string_view> split_top_level(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (auto last = trim(s.substr(start)); !last.empty()) out.push_back(last);
  return out;
}

// The index of the ')' or ']' closing the bracket at `open`.
size_t closing(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '[') ++depth;
    else if ((s[i] == ')' || s[i] == ']') && --depth == 0) return i;
  }
  throw std::invalid_argument("unbalanced brackets in schema: " + std::string(s));
}

bool parse_int(std::string_view s, int64_t& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

ArgDefault parse_default(std::string_view text) {
  ArgDefault d;
  d.text = text;
  if (text == "None") {
    d.kind = ArgDefault::Kind::None;
  } else if (text == "True" || text == "False") {
    d.kind = ArgDefault::Kind::Bool;
    d.b = text == "True";
  } else if (parse_int(text, d.i)) {
    d.kind = ArgDefault::Kind::Int;
  } else if (text.size() >= 2 && text.front() == '"') {
    d.kind = ArgDefault::Kind::Str;
    d.text = text.substr(1, text.size() - 2);
  } else if (text.front() == '[') {
    d.kind = ArgDefault::Kind::IntList;
    for (std::string_view x : split_top_level(text.substr(1, text.size() - 2))) {
      int64_t v = 0;
      if (!parse_int(x, v)) {
        d.kind = ArgDefault::Kind::Other;
        d.ints.clear();
        break;
      }
      d.ints.push_back(v);
    }
  } else {
    const std::string s(text);
    char* end = nullptr;
    d.f = std::strtod(s.c_str(), &end);
    d.kind = end == s.c_str() + s.size() ? ArgDefault::Kind::Float : ArgDefault::Kind::Other;
  }
  return d;
}

ArgType base_type(std::string_view t) {
  static const std::pair<std::string_view, ArgType> kNames[] = {
      {"Tensor", ArgType::Tensor}, {"int", ArgType::Int},       {"SymInt", ArgType::SymInt},
      {"float", ArgType::Float},   {"bool", ArgType::Bool},     {"str", ArgType::Str},
      {"Scalar", ArgType::Scalar}, {"ScalarType", ArgType::ScalarType}, {"Device", ArgType::Device},
      {"Layout", ArgType::Layout}, {"MemoryFormat", ArgType::MemoryFormat}};
  for (const auto& [name, type] : kNames)
    if (name == t) return type;
  return ArgType::Other;
}

// "int[1]?" / "Tensor(a!)" / "Tensor?[]" -> the spec's type fields.
void parse_type(std::string_view text, ArgSpec& a) {
  std::string t;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') i = closing(text, i);  // an alias annotation, or Dict's parameters
    else t.push_back(text[i]);
  }
  std::string_view v = t;
  if (v.ends_with('?')) {
    a.optional = true;
    v.remove_suffix(1);
  }
  if (v.ends_with(']')) {
    const size_t open = v.rfind('[');
    a.list = true;
    int64_t n = 0;
    if (parse_int(v.substr(open + 1, v.size() - open - 2), n)) a.fixed_size = static_cast<uint8_t>(n);
    v = v.substr(0, open);
    if (v.ends_with('?')) {
      a.element_optional = true;
      v.remove_suffix(1);
    }
  }
  a.type = base_type(v);
}

std::string python_base(ArgType t) {
  switch (t) {
    case ArgType::Tensor: return "Tensor";
    case ArgType::Int:
    case ArgType::SymInt:
    case ArgType::ScalarType:
    case ArgType::Layout:
    case ArgType::MemoryFormat: return "int";
    case ArgType::Float: return "float";
    case ArgType::Bool: return "bool";
    case ArgType::Str: return "str";
    case ArgType::Scalar: return "number";
    case ArgType::Device: return "Device";
    case ArgType::Other: return "Any";
  }
  return "Any";
}

}  // namespace

std::string ArgSpec::python_type() const {
  std::string t = python_base(type);
  if (element_optional) t = "Optional[" + t + "]";
  if (list) t = "List[" + t + "]";
  if (optional) t = "Optional[" + t + "]";
  return t;
}

AtenSchema parse_aten_schema(std::string_view target, std::string_view declaration) {
  AtenSchema s;
  s.target = target;
  s.declaration = declaration;
  const size_t open = declaration.find('(');
  if (open == std::string_view::npos) throw std::invalid_argument("schema without arguments: " + std::string(declaration));
  const std::string_view head = declaration.substr(0, open);
  s.op = head.substr(0, head.find('.'));
  const size_t close = closing(declaration, open);
  if (const size_t arrow = declaration.find("-> ", close); arrow != std::string_view::npos)
    s.returns = declaration.substr(arrow + 3);
  bool kwarg_only = false;
  for (std::string_view piece : split_top_level(declaration.substr(open + 1, close - open - 1))) {
    if (piece == "*") {
      kwarg_only = true;
      continue;
    }
    if (piece == "...") continue;  // TorchScript's varargs (aten::format): no argument to read or check
    ArgSpec a;
    // The '=' of a default is the first outside brackets: types hold none.
    size_t eq = std::string_view::npos;
    for (size_t i = 0, depth = 0; i < piece.size(); ++i) {
      if (piece[i] == '(' || piece[i] == '[') ++depth;
      else if (piece[i] == ')' || piece[i] == ']') --depth;
      else if (piece[i] == '=' && depth == 0) {
        eq = i;
        break;
      }
    }
    const std::string_view decl = trim(piece.substr(0, eq));
    if (eq != std::string_view::npos) a.dflt = parse_default(trim(piece.substr(eq + 1)));
    const size_t space = decl.rfind(' ');
    if (space == std::string_view::npos) throw std::invalid_argument("argument without a name: " + std::string(piece));
    a.name = decl.substr(space + 1);
    parse_type(decl.substr(0, space), a);
    a.kwarg_only = kwarg_only;
    a.position = static_cast<uint16_t>(s.args.size());
    if (!kwarg_only) ++s.num_positional;
    s.args.push_back(std::move(a));
  }
  return s;
}

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
  const std::string op(schema.op);
  if (args.size() > schema.num_positional)
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
