#include "fakeprop/runner/torch_schema.h"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace fakeprop {

namespace {


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
    if (piece == "...") {  // TorchScript's varargs (aten::format)
      s.varargs = true;
      continue;
    }
    if (piece == "**kwargs") {  // only the HOP rows write it
      s.var_keywords = true;
      continue;
    }
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
    if (eq != std::string_view::npos) {
      const std::string_view text = trim(piece.substr(eq + 1));
      // Reachable from --op-rules headers, which torch did not print.
      if (text.empty()) throw std::invalid_argument("an empty default: " + std::string(piece));
      a.dflt = parse_default(text);
    }
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

}  // namespace fakeprop
