#include "fakeprop/onnx/op_context.h"

#include <cmath>

#include "fakeprop/onnx/interpreter.h"

namespace fakeprop::onnx {

namespace {
std::string_view schema_domain(std::string_view domain) { return domain == "ai.onnx" ? std::string_view() : domain; }

const OpSchema* first_version(std::string_view domain, std::string_view op) {
  const auto versions = schema_versions(domain, op);
  return versions.empty() ? nullptr : &versions.front();
}
}  // namespace

OpContext::OpContext(const Node& node, int64_t opset, ShapeEnv& env, StorageIds& storage, const InferOptions& options,
                     std::vector<const Value*> inputs, Interpreter* interp)
    : RuleContext(env, storage, options),
      node_(node),
      opset_(opset),
      schema_(find_schema(schema_domain(node.domain), node.op_type, opset)),
      declared_(schema_ ? schema_ : first_version(schema_domain(node.domain), node.op_type)),
      inputs_(std::move(inputs)),
      outputs_(node.outputs.size()),
      interp_(interp) {}

bool OpContext::has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }

const Value& OpContext::input(size_t i) const {
  if (!has_input(i)) fail(ErrorKind::MissingInput, op_type() + " needs input " + std::to_string(i));
  return *inputs_[i];
}

const TensorValue& OpContext::tensor(size_t i) const {
  const Value& v = input(i);
  if (!v.is_tensor()) {
    const Name name = node_.inputs[i];
    if (v.is_unranked()) fail(ErrorKind::UnknownRank, "input '" + name + "' has unknown rank");
    if (v.kind == Value::Kind::Opaque)
      fail(ErrorKind::UnknownInput, "input '" + name + "' has no known shape (" + v.opaque_text() + ")");
    fail(ErrorKind::TypeError, "input '" + name + "' of " + op_type() + " is not a tensor");
  }
  return *v.tensor;
}

std::optional<std::vector<SymInt>> OpContext::ints(size_t i) const {
  if (!has_input(i) || !input(i).is_tensor()) return std::nullopt;
  const TensorValue& t = *input(i).tensor;
  const KnownData* data = t.data ? &*t.data : nullptr;
  if (!data && interp_) data = interp_->initializer_data(node_.inputs[i]);
  if (!data && t.float_exprs) {  // integral float expressions: float(n) is n
    std::vector<SymInt> out;
    for (ExprRef e : *t.float_exprs) {
      if (e->kind() != ExprKind::ToFloat) return std::nullopt;
      out.emplace_back(e->arg(0));
    }
    return out;
  }
  if (!data) return std::nullopt;
  if (!data->is_float) return data->ints;
  // Float data that holds integers exactly (e.g. Resize sizes cast around) still folds.
  std::vector<SymInt> out;
  out.reserve(data->floats.size());
  for (double f : data->floats) {
    if (!std::isfinite(f) || f != std::floor(f) || std::fabs(f) > 9.0e15) return std::nullopt;
    out.emplace_back(static_cast<int64_t>(f));
  }
  return out;
}

std::optional<std::vector<int64_t>> OpContext::static_ints(size_t i) const {
  auto xs = ints(i);
  if (!xs) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(xs->size());
  for (const SymInt& x : *xs) {
    if (!x.is_static()) return std::nullopt;
    out.push_back(x.value());
  }
  return out;
}

std::optional<std::vector<double>> OpContext::floats(size_t i) const {
  if (!has_input(i) || !input(i).is_tensor()) return std::nullopt;
  const TensorValue& t = *input(i).tensor;
  const KnownData* data = t.data ? &*t.data : nullptr;
  if (!data && interp_) data = interp_->initializer_data(node_.inputs[i]);
  if (!data) return std::nullopt;
  if (data->is_float) return data->floats;
  std::vector<double> out;
  for (const SymInt& x : data->ints) {
    if (!x.is_static()) return std::nullopt;
    out.push_back(static_cast<double>(x.value()));
  }
  return out;
}

std::optional<std::vector<ExprRef>> OpContext::float_exprs(size_t i) const {
  if (!has_input(i) || !input(i).is_tensor()) return std::nullopt;
  const TensorValue& t = *input(i).tensor;
  if (t.float_exprs) return *t.float_exprs;
  std::vector<ExprRef> out;
  if (is_floating(t.meta.dtype)) {
    auto xs = floats(i);
    if (!xs) return std::nullopt;
    for (double x : *xs) out.push_back(float_const(x));
  } else {
    if (t.meta.dtype == DType::Bool || t.meta.dtype == DType::String) return std::nullopt;
    auto xs = ints(i);
    if (!xs) return std::nullopt;
    for (const SymInt& x : *xs) out.push_back(to_float(x.expr()));
  }
  return out;
}

std::optional<SymInt> OpContext::scalar_int(size_t i) const {
  auto xs = ints(i);
  if (!xs || xs->size() != 1) return std::nullopt;
  return (*xs)[0];
}


#define FP_EXPECT_ATTR_TYPE(a, want)                                                                     \
  if ((a)->type != (want))                                                                               \
  fail(ErrorKind::InvalidAttribute, "attribute '" + (a)->name + "' of " + op_type() + " must be " +      \
                                        attr_type_name(want) + ", got " + attr_type_name((a)->type))

int64_t OpContext::attr_int(std::string_view name, int64_t dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  FP_EXPECT_ATTR_TYPE(a, Attribute::Type::Int);
  return a->i;
}

int64_t OpContext::required_attr_int(std::string_view name) const {
  const Attribute* a = attr(name);
  if (!a) fail(ErrorKind::MissingAttribute, op_type() + " needs attribute '" + std::string(name) + "'");
  FP_EXPECT_ATTR_TYPE(a, Attribute::Type::Int);
  return a->i;
}

float OpContext::attr_float(std::string_view name, float dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  FP_EXPECT_ATTR_TYPE(a, Attribute::Type::Float);
  return a->f;
}

std::string OpContext::attr_string(std::string_view name, std::string_view dflt) const {
  const Attribute* a = attr(name);
  if (!a) return std::string(dflt);
  FP_EXPECT_ATTR_TYPE(a, Attribute::Type::String);
  return a->s;
}

std::optional<std::vector<int64_t>> OpContext::attr_ints(std::string_view name) const {
  const Attribute* a = attr(name);
  if (!a) return std::nullopt;
  FP_EXPECT_ATTR_TYPE(a, Attribute::Type::Ints);
  return a->ints;
}

std::optional<std::vector<float>> OpContext::attr_floats(std::string_view name) const {
  const Attribute* a = attr(name);
  if (!a) return std::nullopt;
  FP_EXPECT_ATTR_TYPE(a, Attribute::Type::Floats);
  return a->floats();
}

const AttrRow& OpContext::schema_default(std::string_view name, AttrType type) const {
  const AttrRow* row = declared_ ? declared_->attribute(name) : nullptr;
  if (!row || !row->has_default || row->type != type)
    fail(ErrorKind::Internal, "the schema of " + op_type() + " declares no " + attr_type_name(type) +
                                  " default for attribute '" + std::string(name) + "'");
  return *row;
}

int64_t OpContext::attr_int(std::string_view name) const {
  if (const Attribute* a = attr(name)) {
    FP_EXPECT_ATTR_TYPE(a, Attribute::Type::Int);
    return a->i;
  }
  return schema_default(name, AttrType::Int).i;
}

float OpContext::attr_float(std::string_view name) const {
  if (const Attribute* a = attr(name)) {
    FP_EXPECT_ATTR_TYPE(a, Attribute::Type::Float);
    return a->f;
  }
  return schema_default(name, AttrType::Float).f;
}

std::string OpContext::attr_string(std::string_view name) const {
  if (const Attribute* a = attr(name)) {
    FP_EXPECT_ATTR_TYPE(a, Attribute::Type::String);
    return a->s;
  }
  return std::string(schema_default(name, AttrType::String).s);
}

void OpContext::check_schema() const {
  if (schema_) check_node(*schema_, node_, inputs_);
}

#undef FP_EXPECT_ATTR_TYPE

bool OpContext::wants_output(size_t i) const { return i < node_.outputs.size() && !node_.outputs[i].empty(); }

void OpContext::set_output(size_t i, Value v) {
  if (i >= outputs_.size()) return;  // optional output the node does not declare
  outputs_[i] = std::move(v);
}

TensorValue OpContext::new_tensor(DType dtype, SymShape shape) {
  TensorValue t;
  t.meta.strides = contiguous_strides(shape, &env());
  t.meta.sizes = std::move(shape);
  t.meta.dtype = dtype;
  t.meta.device = device();
  t.meta.storage = storage().next();
  return t;
}

void OpContext::set_tensor(size_t i, DType dtype, SymShape shape) {
  set_output(i, Value::of_tensor(new_tensor(dtype, std::move(shape))));
}

void OpContext::set_tensor(size_t i, DType dtype, SymShape shape, KnownData data) {
  TensorValue t = new_tensor(dtype, std::move(shape));
  if (data.is_float_exprs) {
    std::vector<double> constants;
    for (ExprRef e : data.float_exprs) {
      auto v = as_float(e);
      if (!v) break;
      constants.push_back(*v);
    }
    if (constants.size() == data.float_exprs.size()) {
      data = KnownData::of_floats(std::move(constants));
    } else {
      t.float_exprs = std::move(data.float_exprs);
      set_output(i, Value::of_tensor(std::move(t)));
      return;
    }
  }
  t.data = std::move(data);
  set_output(i, Value::of_tensor(std::move(t)));
}

}  // namespace fakeprop::onnx
