#include "fakeprop/value/describe_value.h"

namespace fakeprop {

std::string describe_value(const Value& v, const ShapeEnv& env) {
  switch (v.kind) {
    case Value::Kind::Tensor: {
      SymShape dims;
      for (const SymInt& d : v.tensor->meta.sizes) dims.push_back(env.simplify(d));
      return std::string(dtype_name(v.tensor->meta.dtype)) + shape_to_string(dims);
    }
    case Value::Kind::Int: return "int " + env.simplify(v.i).to_python();
    case Value::Kind::Bool: return "bool " + v.b.to_python();
    case Value::Kind::Float: return v.float_expr ? "float " + to_sympy_string(v.float_expr) : "float";
    case Value::Kind::List: {
      // A templated list (one element for all) says how many it stands for.
      std::string s = v.list_length ? "(" + env.simplify(*v.list_length).to_python() + " x " : "(";
      for (size_t i = 0; i < v.list->size(); ++i) s += (i ? ", " : "") + describe_value((*v.list)[i], env);
      return s + ")";
    }
    case Value::Kind::Map:
      return "map(" + std::string(dtype_name(v.map_key)) + ", " + describe_value(v.map_value(), env) + "; " +
             env.simplify(v.map_entries()).to_python() + " entries)";
    case Value::Kind::None: return "None";
    case Value::Kind::Opaque:
      if (v.is_unranked()) return std::string(dtype_name(v.tensor->meta.dtype)) + "[*]";  // "*": any rank
      return "<" + v.opaque_text() + ">";
  }
  return "?";
}

}  // namespace fakeprop
