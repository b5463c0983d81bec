#include "fakeprop/fx/op_context.h"

#include <algorithm>
#include <stdexcept>

#include "fakeprop/fx/interpreter.h"

namespace fakeprop::fx {

OpContext::OpContext(const Node& node, std::span<const Value* const> args,
                     std::span<const std::pair<std::string_view, const Value*>> kwargs, ShapeEnv& env,
                     StorageIds& storage, const InferOptions& options, Interpreter* interp)
    : OpContext(node, find_rule_schema(node.target), args, kwargs, env, storage, options, interp) {}

OpContext::OpContext(const Node& node, const AtenSchema* schema, std::span<const Value* const> args,
                     std::span<const std::pair<std::string_view, const Value*>> kwargs, ShapeEnv& env,
                     StorageIds& storage, const InferOptions& options, Interpreter* interp)
    : RuleContext(env, storage, options), node_(node), args_(args), kwargs_(kwargs), interp_(interp),
      schema_(schema) {}

bool OpContext::graph_exported() const { return interp_ && interp_->graph().exported; }
bool OpContext::graph_traced() const { return interp_ && interp_->graph().traced_by_make_fx; }

Interpreter* OpContext::interpreter() {
  if (interp_) interp_->note_state_read();
  return interp_;
}

const Value* OpContext::lookup(size_t pos, std::string_view name) const {
  if (pos < args_.size()) return args_[pos];
  for (const auto& [k, v] : kwargs_)
    if (k == name) return v;
  return nullptr;
}

namespace {
const Arg* raw_arg(const Node& n, size_t pos, std::string_view name) {
  if (pos < n.args.size()) return &n.args[pos];
  return n.kwarg(name);
}
std::string arg_label(size_t pos, std::string_view name) {
  return "argument '" + std::string(name) + "' (position " + std::to_string(pos) + ")";
}
}  // namespace

bool OpContext::has(size_t pos, std::string_view name) const {
  const Value* v = lookup(pos, name);
  return v && !v->is_none();
}

const Value& OpContext::value(size_t pos, std::string_view name) const {
  static const Value none;
  const Value* v = lookup(pos, name);
  return v ? *v : none;
}

const TensorValue& OpContext::tensor_value(size_t pos, std::string_view name) const {
  const Value& v = value(pos, name);
  if (!v.is_tensor()) {
    if (v.kind == Value::Kind::Opaque)
      fail(ErrorKind::UnknownInput, arg_label(pos, name) + " has no known value (" + v.opaque_text() + ")");
    fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a Tensor");
  }
  return *v.tensor;
}

const TensorMeta& OpContext::tensor(size_t pos, std::string_view name) const { return tensor_value(pos, name).meta; }

const TensorMeta* OpContext::optional_tensor(size_t pos, std::string_view name) const {
  return has(pos, name) ? &tensor(pos, name) : nullptr;
}

std::vector<const TensorMeta*> OpContext::tensor_list(size_t pos, std::string_view name) const {
  const Value& v = value(pos, name);
  if (v.kind != Value::Kind::List)
    fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a list of Tensors");
  std::vector<const TensorMeta*> out;
  for (const Value& x : *v.list) {
    if (x.is_none()) {
      out.push_back(nullptr);
      continue;
    }
    if (!x.is_tensor()) fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must hold Tensors");
    out.push_back(&x.tensor->meta);
  }
  return out;
}

namespace {
std::optional<SymInt> as_symint(const Value& v) {
  if (v.kind == Value::Kind::Int) return v.i;
  if (v.kind == Value::Kind::Bool && v.b.is_static()) return SymInt(v.b.value() ? 1 : 0);
  return std::nullopt;
}
}  // namespace

SymInt OpContext::int_arg(size_t pos, std::string_view name, std::optional<SymInt> dflt) const {
  if (!has(pos, name)) {
    if (dflt) return *dflt;
    fail(ErrorKind::MissingInput, target() + " needs " + arg_label(pos, name));
  }
  auto i = as_symint(value(pos, name));
  if (!i) fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be an int");
  return *i;
}

std::optional<SymInt> OpContext::optional_int(size_t pos, std::string_view name) const {
  if (!has(pos, name)) return std::nullopt;
  return int_arg(pos, name);
}

std::vector<SymInt> OpContext::int_list(size_t pos, std::string_view name, std::optional<std::vector<SymInt>> dflt,
                                        size_t expand_to) const {
  if (!has(pos, name)) {
    if (dflt) return *dflt;
    fail(ErrorKind::MissingInput, target() + " needs " + arg_label(pos, name));
  }
  const Value& v = value(pos, name);
  if (auto single = as_symint(v)) return std::vector<SymInt>(expand_to ? expand_to : 1, *single);
  if (v.kind != Value::Kind::List)
    fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a list of ints");
  std::vector<SymInt> out;
  for (const Value& x : *v.list) {
    auto i = as_symint(x);
    if (!i) fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must hold ints");
    out.push_back(*i);
  }
  if (expand_to && out.size() == 1) out.assign(expand_to, out[0]);
  return out;
}

std::optional<std::vector<SymInt>> OpContext::optional_int_list(size_t pos, std::string_view name) const {
  if (!has(pos, name)) return std::nullopt;
  return int_list(pos, name);
}

double OpContext::float_arg(size_t pos, std::string_view name, std::optional<double> dflt) {
  if (!has(pos, name)) {
    if (dflt) return *dflt;
    fail(ErrorKind::MissingInput, target() + " needs " + arg_label(pos, name));
  }
  const Value& v = value(pos, name);
  if (v.is_symbolic_float()) return env().evaluate_float(v.float_expr, "float_arg");
  if (v.kind == Value::Kind::Float) return v.f;
  if (v.kind == Value::Kind::Int && v.i.is_static()) return static_cast<double>(v.i.value());
  fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a float");
}

bool OpContext::bool_arg(size_t pos, std::string_view name, std::optional<bool> dflt) const {
  if (!has(pos, name)) {
    if (dflt) return *dflt;
    fail(ErrorKind::MissingInput, target() + " needs " + arg_label(pos, name));
  }
  const Value& v = value(pos, name);
  if (v.kind == Value::Kind::Bool && v.b.is_static()) return v.b.value();
  if (v.kind == Value::Kind::Int && v.i.is_static()) return v.i.value() != 0;
  fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a bool");
}

std::string OpContext::string_arg(size_t pos, std::string_view name, std::optional<std::string> dflt) const {
  const Arg* a = node_args_ ? raw_arg(node_, pos, name) : nullptr;
  if (!a || a->is_none()) {
    if (dflt) return *dflt;
    fail(ErrorKind::MissingInput, target() + " needs " + arg_label(pos, name));
  }
  if (a->kind != Arg::Kind::String)
    fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a string");
  return a->s;
}

std::optional<DType> OpContext::dtype_arg(size_t pos, std::string_view name) const {
  const Arg* a = node_args_ ? raw_arg(node_, pos, name) : nullptr;
  if (!a || a->is_none()) return std::nullopt;
  if (a->kind == Arg::Kind::DType) return a->dtype;
  // ScalarType passed as its integer code is not supported: exporters write names.
  fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a dtype");
}

std::optional<Device> OpContext::device_arg(size_t pos, std::string_view name) const {
  const Arg* a = node_args_ ? raw_arg(node_, pos, name) : nullptr;
  if (!a || a->is_none()) return std::nullopt;
  if (a->kind == Arg::Kind::Device || a->kind == Arg::Kind::String) {
    auto d = Device::parse(a->s);
    if (d) return d;
  }
  fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a device");
}

std::optional<MemoryFormat> OpContext::memory_format_arg(size_t pos, std::string_view name) const {
  const Arg* a = node_args_ ? raw_arg(node_, pos, name) : nullptr;
  if (!a || a->is_none()) return std::nullopt;
  if (a->kind != Arg::Kind::MemoryFormat && a->kind != Arg::Kind::String)
    fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a memory format");
  std::string s = a->s;
  if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  if (s == "contiguous_format") return MemoryFormat::Contiguous;
  if (s == "channels_last") return MemoryFormat::ChannelsLast;
  if (s == "channels_last_3d") return MemoryFormat::ChannelsLast3d;
  if (s == "preserve_format") return MemoryFormat::Preserve;
  fail(ErrorKind::TypeError, target() + ": unknown memory format '" + a->s + "'");
}

Scalar OpContext::scalar_arg(size_t pos, std::string_view name, std::optional<Scalar> dflt) const {
  if (!has(pos, name)) {
    if (dflt) return *dflt;
    fail(ErrorKind::MissingInput, target() + " needs " + arg_label(pos, name));
  }
  const Value& v = value(pos, name);
  Scalar s;
  switch (v.kind) {
    case Value::Kind::Bool:
      s.kind = Scalar::Kind::Bool;
      if (v.b.is_static()) s.i = v.b.value() ? 1 : 0;
      return s;
    case Value::Kind::Int:
      s.kind = Scalar::Kind::Int;
      s.i = v.i;
      return s;
    case Value::Kind::Float:
      s.kind = Scalar::Kind::Float;
      s.f = v.f;
      return s;
    default: fail(ErrorKind::TypeError, target() + ": " + arg_label(pos, name) + " must be a number");
  }
}

// ---- by name ----

const Arg* OpContext::node_arg(std::string_view name) const {
  if (!node_args_) return nullptr;
  const ArgSpec& a = spec(name);
  return raw_arg(node_, a.kwarg_only ? kKeywordOnly : a.position, name);
}

std::span<const Value* const> OpContext::varargs() const {
  if (!schema_ || !schema_->varargs) fail(ErrorKind::Internal, target() + "'s schema declares no varargs (...)");
  return args_.size() > schema_->num_positional ? args_.subspan(schema_->num_positional) : std::span<const Value* const>();
}

std::span<const Arg> OpContext::node_varargs() const {
  if (!schema_ || !schema_->varargs) fail(ErrorKind::Internal, target() + "'s schema declares no varargs (...)");
  if (!node_args_ || node_.args.size() <= schema_->num_positional) return {};
  return std::span<const Arg>(node_.args).subspan(schema_->num_positional);
}

const Value* OpContext::keyword(std::string_view name) const {
  if (!schema_ || !schema_->var_keywords) fail(ErrorKind::Internal, target() + "'s schema declares no **kwargs");
  for (const auto& [k, v] : kwargs_)
    if (k == name) return v;
  return nullptr;
}

const ArgSpec& OpContext::spec(std::string_view name) const {
  if (!schema_) fail(ErrorKind::Internal, target() + " has no schema row (scripts/gen_aten_schemas.py)");
  const ArgSpec* a = schema_->find(name);
  if (!a) fail(ErrorKind::Internal, target() + "'s schema has no argument '" + std::string(name) + "'");
  return *a;
}

size_t OpContext::position(std::string_view name) const {
  const ArgSpec& a = spec(name);
  return a.kwarg_only ? kKeywordOnly : a.position;
}

const ArgDefault* OpContext::missing_default(std::string_view name) const {
  const ArgSpec& a = spec(name);
  if (has(a.kwarg_only ? kKeywordOnly : a.position, name)) return nullptr;
  return a.dflt.kind == ArgDefault::Kind::Absent || a.dflt.kind == ArgDefault::Kind::None ? nullptr : &a.dflt;
}

SymInt OpContext::int_arg(std::string_view name, std::optional<SymInt> dflt) const {
  if (!dflt)
    if (const ArgDefault* d = missing_default(name); d && d->kind == ArgDefault::Kind::Int) return SymInt(d->i);
  return int_arg(position(name), name, std::move(dflt));
}

std::optional<SymInt> OpContext::optional_int(std::string_view name) const {
  if (const ArgDefault* d = missing_default(name); d && d->kind == ArgDefault::Kind::Int) return SymInt(d->i);
  return optional_int(position(name), name);
}

std::vector<SymInt> OpContext::int_list(std::string_view name, std::optional<std::vector<SymInt>> dflt,
                                        size_t expand_to) const {
  if (!dflt)
    if (const ArgDefault* d = missing_default(name)) {
      const ArgSpec& a = spec(name);
      // `int[2] stride=1`: one int stands for every entry.
      if (d->kind == ArgDefault::Kind::Int)
        return std::vector<SymInt>(expand_to ? expand_to : std::max<size_t>(a.fixed_size, 1), SymInt(d->i));
      if (d->kind == ArgDefault::Kind::IntList) {
        std::vector<SymInt> out(d->ints.begin(), d->ints.end());
        if (expand_to && out.size() == 1) out.assign(expand_to, out[0]);
        return out;
      }
    }
  return int_list(position(name), name, std::move(dflt), expand_to);
}

std::optional<std::vector<SymInt>> OpContext::optional_int_list(std::string_view name) const {
  if (missing_default(name)) return int_list(name);
  return optional_int_list(position(name), name);
}

double OpContext::float_arg(std::string_view name, std::optional<double> dflt) {
  if (!dflt)
    if (const ArgDefault* d = missing_default(name)) {
      if (d->kind == ArgDefault::Kind::Float) return d->f;
      if (d->kind == ArgDefault::Kind::Int) return static_cast<double>(d->i);
    }
  return float_arg(position(name), name, dflt);
}

bool OpContext::bool_arg(std::string_view name, std::optional<bool> dflt) const {
  if (!dflt)
    if (const ArgDefault* d = missing_default(name); d && d->kind == ArgDefault::Kind::Bool) return d->b;
  return bool_arg(position(name), name, dflt);
}

std::string OpContext::string_arg(std::string_view name, std::optional<std::string> dflt) const {
  if (!dflt)
    if (const ArgDefault* d = missing_default(name); d && d->kind == ArgDefault::Kind::Str) return std::string(d->text);
  return string_arg(position(name), name, std::move(dflt));
}

std::optional<MemoryFormat> OpContext::memory_format_arg(std::string_view name) const {
  // `MemoryFormat memory_format=contiguous_format` (empty.memory_format's is None).
  if (const ArgDefault* d = missing_default(name); d && d->text == "contiguous_format") return MemoryFormat::Contiguous;
  return memory_format_arg(position(name), name);
}

Scalar OpContext::scalar_arg(std::string_view name, std::optional<Scalar> dflt) const {
  if (!dflt)
    if (const ArgDefault* d = missing_default(name)) {
      Scalar s;
      if (d->kind == ArgDefault::Kind::Int) {
        s.i = d->i;
        return s;
      }
      if (d->kind == ArgDefault::Kind::Float) {
        s.kind = Scalar::Kind::Float;
        s.f = d->f;
        return s;
      }
      if (d->kind == ArgDefault::Kind::Bool) {
        s.kind = Scalar::Kind::Bool;
        s.i = d->b ? 1 : 0;
        return s;
      }
    }
  return scalar_arg(position(name), name, dflt);
}

TensorValue OpContext::new_tensor(SymShape sizes, DType dtype, Device device, std::optional<SymShape> strides) {
  TensorValue t;
  t.meta.strides = strides ? std::move(*strides) : contiguous_strides(sizes, &env());
  t.meta.sizes = std::move(sizes);
  t.meta.dtype = dtype;
  t.meta.device = device;
  t.meta.storage = storage().next();
  t.meta.is_leaf = false;
  return t;
}

TensorValue OpContext::view_of(const TensorMeta& base, SymShape sizes, SymShape strides, SymInt storage_offset) {
  TensorValue t;
  t.meta = base;
  t.meta.sizes = std::move(sizes);
  t.meta.strides = std::move(strides);
  t.meta.storage_offset = storage_offset;
  t.meta.is_leaf = false;
  return t;
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    r.rules_.reserve(1024);  // about 530 targets: no rehashing while they are added
    register_all_aten_ops(r);
    return r;
  }();
  return registry;
}

void OpRegistry::add(std::string_view target, OpRule rule, OutputGrad grad) {
  if (target.empty()) throw std::logic_error("OpRegistry::add: empty target");
  rules_.insert_or_assign(std::string(target), OpEntry{rule, grad});  // a later registration replaces an earlier one
}

void OpRegistry::add_inplace(std::string_view target, OpRule rule, Mutation mutation, OutputGrad grad) {
  // "aten.add_.Tensor" -> "add_"
  std::string_view name = target.substr(0, target.find('.', 5));
  if (name.rfind("aten.", 0) == 0) name.remove_prefix(5);
  if (mutation == Mutation::None || name.size() < 2 || name.back() != '_' || name.front() == '_')
    throw std::logic_error("OpRegistry::add_inplace: not an in-place twin: " + std::string(target));
  add(target, rule, grad);
  rules_.find(target)->second.mutation = mutation;
}

void OpRegistry::set_output_grad(std::string_view target, OutputGrad grad) {
  auto it = rules_.find(target);
  if (it == rules_.end()) throw std::logic_error("set_output_grad: no rule registered for " + std::string(target));
  it->second.grad = grad;
}

const OpEntry* OpRegistry::find_entry(std::string_view target) const {
  if (auto it = rules_.find(target); it != rules_.end()) return &it->second;
  const size_t first = target.find('.');
  const size_t last = target.rfind('.');
  if (first == std::string_view::npos) return nullptr;
  if (first == last) {
    // A packet named without an overload ("aten.sym_numel", as symbolic
    // traces spell some calls) is its default overload.
    std::string with_default(target);
    with_default += ".default";
    if (auto it = rules_.find(with_default); it != rules_.end()) return &it->second;
    return nullptr;
  }
  // "aten.add.Tensor" -> packet "aten.add"
  if (auto it = rules_.find(target.substr(0, last)); it != rules_.end()) return &it->second;
  return nullptr;
}

OpRule OpRegistry::find(std::string_view target) const {
  const OpEntry* e = find_entry(target);
  return e ? e->rule : nullptr;
}

std::vector<std::string> OpRegistry::all() const {
  std::vector<std::string> out;
  out.reserve(rules_.size());
  for (const auto& [target, entry] : rules_) out.push_back(target);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fakeprop::fx
