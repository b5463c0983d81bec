#include "fakeprop/onnx/schema.h"

#include <algorithm>
#include <bit>
#include <string>

#include "fakeprop/util/error.h"

namespace fakeprop::onnx {

namespace {
#include "fakeprop/onnx/schemas.inc"

// TensorProto's element types as ONNX spells them in "tensor(...)".
constexpr std::string_view kElementTypeNames[] = {
    "undefined",    "float",          "uint8",      "int8",           "uint16",     "int16",
    "int32",        "int64",          "string",     "bool",           "float16",    "double",
    "uint32",       "uint64",         "complex64",  "complex128",     "bfloat16",   "float8e4m3fn",
    "float8e4m3fnuz", "float8e5m2",   "float8e5m2fnuz", "uint4",      "int4",       "float4e2m1",
    "float8e8m0",   "uint2",          "int2",       "float6e2m3",     "float6e3m2",
};

std::string tensor_type_string(int32_t code) {
  const bool known = code >= 0 && static_cast<size_t>(code) < std::size(kElementTypeNames);
  return "tensor(" + std::string(known ? kElementTypeNames[code] : "unknown") + ")";
}

// ONNX's prefix of a node's inference error, so the line reads like its checker's.
std::string node_prefix(const Node& node) {
  return "(op_type:" + node.op_type + ", node name: " + node.name + "): ";
}

// Orders the table's rows by (domain, op); an op's versions compare equal.
bool op_less(const OpSchema& a, const OpSchema& b) {
  return a.domain != b.domain ? a.domain < b.domain : a.op < b.op;
}
}  // namespace

std::span<const ParamRow> OpSchema::inputs() const { return {kParams + first_param, num_inputs}; }
std::span<const ParamRow> OpSchema::outputs() const { return {kParams + first_param + num_inputs, num_outputs}; }
std::span<const AttrRow> OpSchema::attributes() const { return {kAttrs + first_attr, num_attrs}; }
const ConstraintRow& OpSchema::constraint(const ParamRow& p) const { return kConstraints[first_constraint + p.constraint]; }

const AttrRow* OpSchema::attribute(std::string_view name) const {
  // Sorted by name, as the script writes them.
  const auto attrs = attributes();
  const auto it = std::lower_bound(attrs.begin(), attrs.end(), name,
                                   [](const AttrRow& a, std::string_view n) { return a.name < n; });
  return it != attrs.end() && it->name == name ? &*it : nullptr;
}

int OpSchema::input_index(std::string_view name) const {
  const auto ins = inputs();
  for (size_t i = 0; i < ins.size(); ++i)
    if (ins[i].name == name) return static_cast<int>(i);
  return -1;
}

bool OpSchema::declares_input(std::string_view name) const { return input_index(name) >= 0; }

bool OpSchema::declares_output(std::string_view name) const {
  for (const ParamRow& p : outputs())
    if (p.name == name) return true;
  return false;
}

std::span<const OpSchema> all_schemas() { return kSchemas; }

std::span<const OpSchema> schema_versions(std::string_view domain, std::string_view op) {
  const OpSchema probe{domain, op, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const auto [first, last] = std::equal_range(std::begin(kSchemas), std::end(kSchemas), probe, op_less);
  return {first, last};
}

const OpSchema* find_schema(std::string_view domain, std::string_view op, int64_t opset) {
  const OpSchema probe{domain, op, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  // One binary search; the versions of an op follow one another.
  const OpSchema* found = nullptr;
  for (auto it = std::lower_bound(std::begin(kSchemas), std::end(kSchemas), probe, op_less);
       it != std::end(kSchemas) && !op_less(probe, *it) && it->since_version <= opset; ++it)
    found = &*it;
  return found;
}

std::string_view schema_onnx_version() { return kSchemaOnnxVersion; }

OutputTypeTie output_type_tie(const OpSchema& schema, size_t k) {
  const auto outs = schema.outputs();
  if (outs.empty()) return {};
  const ParamRow& out = outs[std::min(k, outs.size() - 1)];
  const auto heterogeneous = [](const ParamRow& p) { return p.arity == Arity::Variadic && !p.homogeneous; };
  if (heterogeneous(out)) return {};
  const ConstraintRow& c = schema.constraint(out);
  const bool fixed_type = c.type.starts_with("tensor(");  // not a type variable
  const auto ins = schema.inputs();
  for (size_t i = 0; i < ins.size(); ++i)
    if (ins[i].constraint == out.constraint && !fixed_type && !heterogeneous(ins[i])) return {static_cast<int>(i), 0};
  // One allowed type, a plain tensor: the mask has its one bit.
  if (c.allowed.find(',') == std::string_view::npos && c.allowed.starts_with("tensor(") && c.tensor_types != 0 &&
      (c.tensor_types & (c.tensor_types - 1)) == 0)
    return {-1, static_cast<int32_t>(std::countr_zero(c.tensor_types))};
  return {};
}

std::span<const int64_t> default_ints(const AttrRow& a) { return {kDefaultInts + a.list_begin, a.list_size}; }
std::span<const float> default_floats(const AttrRow& a) { return {kDefaultFloats + a.list_begin, a.list_size}; }
std::span<const std::string_view> default_strings(const AttrRow& a) {
  return {kDefaultStrings + a.list_begin, a.list_size};
}

const char* attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::Float: return "FLOAT";
    case AttrType::Int: return "INT";
    case AttrType::String: return "STRING";
    case AttrType::Tensor: return "TENSOR";
    case AttrType::Graph: return "GRAPH";
    case AttrType::Floats: return "FLOATS";
    case AttrType::Ints: return "INTS";
    case AttrType::Strings: return "STRINGS";
    default: return "another type";
  }
}

namespace {

void check_arity(const OpSchema& s, const Node& node) {
  const auto range = [&](const char* what, size_t n, int32_t lo, int32_t hi) {
    return node_prefix(node) + "Node with schema(" + std::string(s.domain) + "::" + std::string(s.op) + ":" +
           std::to_string(s.since_version) + ") has " + what + " size " + std::to_string(n) + " not in range [min=" +
           std::to_string(lo) + ", max=" + std::to_string(hi) + "].";
  };
  // Too many inputs stay a warning (the interpreter's extra_inputs): ORT
  // ignores them. Too few is the first input missing, named as rules name it.
  const auto ins = s.inputs();
  const auto missing = [&](size_t i) {
    const std::string name =
        ins.empty() ? std::string() : " (" + std::string(ins[std::min(i, ins.size() - 1)].name) + ")";
    return OpError(ErrorKind::MissingInput, node.op_type + " needs input " + std::to_string(i) + name);
  };
  if (static_cast<int64_t>(node.inputs.size()) < s.min_input) throw missing(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size() && i < ins.size(); ++i)
    if (ins[i].arity == Arity::Single && node.inputs[i].empty()) throw missing(i);
  const int64_t outs = static_cast<int64_t>(node.outputs.size());
  if (outs < s.min_output)
    throw OpError(ErrorKind::OutputCount, range("output", node.outputs.size(), s.min_output, s.max_output));
  // Too many: worded as the interpreter words a rule that gives fewer than the node names.
  if (outs > s.max_output) {
    const std::string op = s.domain.empty() ? node.op_type.str() : std::string(s.domain) + "." + node.op_type;
    throw OpError(ErrorKind::OutputCount, op + " gives " + std::to_string(s.max_output) +
                                              " output(s); the node names " + std::to_string(outs) + " (output '" +
                                              node.outputs[static_cast<size_t>(s.max_output)] + "' has no value)");
  }
}

void check_attributes(const OpSchema& s, const Node& node) {
  for (const Attribute& a : node.attributes) {
    if (!a.ref_attr_name().empty()) continue;  // a function body's reference, resolved at the call
    const AttrRow* declared = s.attribute(a.name);
    if (declared && declared->type != a.type)
      throw OpError(ErrorKind::InvalidAttribute, "attribute '" + a.name + "' of " + node.op_type + " must be " +
                                                     attr_type_name(declared->type) + ", got " +
                                                     attr_type_name(a.type));
  }
  for (const AttrRow& declared : s.attributes())
    if (declared.required && !node.attr(declared.name))
      throw OpError(ErrorKind::MissingAttribute, node.op_type + " needs attribute '" + std::string(declared.name) + "'");
}

void check_types(const OpSchema& s, const Node& node, std::span<const Value* const> inputs) {
  const auto ins = s.inputs();
  if (ins.empty()) return;
  // The element type each of the schema's constraints is bound to, and by which input.
  constexpr size_t kMaxConstraints = 32;
  int32_t bound[kMaxConstraints] = {};
  size_t bound_by[kMaxConstraints] = {};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = inputs[i];
    if (!v || !v->tensor || !(v->is_tensor() || v->is_unranked())) continue;
    const ParamRow& p = ins[std::min(i, ins.size() - 1)];
    if (i >= ins.size() && p.arity != Arity::Variadic) break;  // extra inputs: not read
    const ConstraintRow& c = s.constraint(p);
    const int32_t code = dtype_to_onnx(v->tensor->meta.dtype);
    if (code <= 0 || code >= 64 || c.tensor_types == 0) continue;  // no ONNX type, or a sequence / map constraint
    if (!(c.tensor_types >> code & 1))
      throw OpError(ErrorKind::TypeError, node_prefix(node) + std::string(p.name) + " typestr: " + std::string(c.type) +
                                              ", has unsupported type: " + tensor_type_string(code) +
                                              " (allowed: " + std::string(c.allowed) + ")");
    if (p.arity == Arity::Variadic && !p.homogeneous) continue;
    if (p.constraint >= kMaxConstraints) continue;  // more variables than any schema has: not bound
    if (bound[p.constraint] == 0) {
      bound[p.constraint] = code;
      bound_by[p.constraint] = i;
    } else if (bound[p.constraint] != code) {
      const ParamRow& first = ins[std::min(bound_by[p.constraint], ins.size() - 1)];
      throw OpError(ErrorKind::TypeError, node_prefix(node) + std::string(p.name) + " has inconsistent type " +
                                              tensor_type_string(code) + " (typestr " + std::string(c.type) +
                                              " is bound to " + tensor_type_string(bound[p.constraint]) + " by " +
                                              std::string(first.name) + ")");
    }
  }
}

}  // namespace

void check_node(const OpSchema& schema, const Node& node, std::span<const Value* const> inputs) {
  if (schema.deprecated) return;
  check_arity(schema, node);
  check_attributes(schema, node);
  check_types(schema, node, inputs);
}

}  // namespace fakeprop::onnx
