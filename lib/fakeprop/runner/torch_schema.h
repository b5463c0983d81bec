// torch's operator schema text as data: each argument's position, name,
// type, default and keyword-only flag, parsed from a declaration as
// str(op._schema) prints it. Below both users: fx/aten_schema.h's
// generated ATen rows and --op-rules headers (custom_ops/).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fakeprop {

// An argument's base type; `T?`, `T[]` and `T?[]` are flags on ArgSpec.
enum class ArgType : uint8_t {
  Tensor, Int, SymInt, Float, Bool, Str, Scalar, ScalarType, Device, Layout, MemoryFormat, Other
};

// A default as torch spells it, and as a value where it is a plain one.
struct ArgDefault {
  enum class Kind : uint8_t { Absent, None, Int, Float, Bool, IntList, Str, Other } kind = Kind::Absent;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::vector<int64_t> ints;
  std::string_view text;  // torch's spelling ("False", "[]", "\"valid\"", "contiguous_format")
};

struct ArgSpec {
  std::string_view name;
  ArgType type = ArgType::Other;
  bool optional = false;          // T?
  bool list = false;              // T[] or T[N]
  bool element_optional = false;  // T?[]
  uint8_t fixed_size = 0;         // N of T[N]
  bool kwarg_only = false;        // after `*`
  uint16_t position = 0;
  ArgDefault dflt;
  // torch's annotation of the type, as its errors name it ("Optional[List[int]]").
  std::string python_type() const;
};

struct AtenSchema {
  std::string_view target;       // "aten.sum.dim_IntList"
  std::string_view declaration;  // str(schema): "aten::sum.dim_IntList(Tensor self, ...) -> Tensor"
  std::string_view op;           // "aten::sum", as errors name the operator
  std::vector<ArgSpec> args;
  size_t num_positional = 0;     // the arguments before `*`
  std::string_view returns;      // "Tensor", "(Tensor values, Tensor indices)", "()"
  bool varargs = false;          // `...`: positional arguments past the declared ones (*args)
  bool var_keywords = false;     // `**kwargs`: keywords past the declared ones (a HOP's wrapped op's)
  bool higher_order = false;     // a row of higher_order_schemas.inc: torch checks no call against it
  const ArgSpec* find(std::string_view name) const {
    for (const ArgSpec& a : args)
      if (a.name == name) return &a;
    return nullptr;
  }
};

// Parses one declaration; std::invalid_argument on text torch would not print.
AtenSchema parse_aten_schema(std::string_view target, std::string_view declaration);

}  // namespace fakeprop
