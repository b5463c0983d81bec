// Graph inputs become fake tensors. Policy (docs/usage.md, "Symbols for ONNX inputs"):
//  - dim_value d: static d, unless marked: --dynamic keeps d as the hint of a
//    backed symbol (0/1 specialization still applies), --unbacked makes it a
//    size-like unbacked symbol.
//  - dim_param p: one symbol per distinct p, named p when p is an identifier.
//    With a hint (--input) it is backed; without one it is hintless: decisions
//    its range cannot settle become runtime asserts instead of guards.
//    Distinct dim_params are never merged by duck sizing.
//  - no dim: like a dim_param of its own.
#include <cctype>

#include "fakeprop/onnx/interpreter.h"

namespace fakeprop::onnx {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// A sequence, optional or map graph input (no --input hints exist for them):
// a sequence is a template element with a fresh size-like unbacked length; an
// optional is its element marked maybe_none; a map is its key dtype and a
// template value with a fresh size-like unbacked entry count. Element dims
// other than dim_values are fresh unbacked sizes (elements may differ).
Value container_input(const TypeInfo& t, ShapeEnv& e, StorageIds& storage, Device device,
                                 bool map_value = false) {
  if (t.kind == TypeInfo::Kind::Tensor) {
    auto dtype = dtype_from_onnx(t.elem_type);
    // A map's values without a declared shape are scalars: the ml
    // operators' maps (ONNX Runtime's std::map<K, V>) hold one number or string per key.
    static const std::vector<Dim> kScalar;
    const std::vector<Dim>* shape = t.shape ? &*t.shape : map_value ? &kScalar : nullptr;
    if (!dtype || !shape) return Value::of_opaque("element of unknown type or rank");
    TensorValue tv;
    for (const Dim& d : *shape)
      tv.meta.sizes.push_back(d.kind == Dim::Kind::Value ? SymInt(d.value) : SymInt(e.create_unbacked_symint(true)));
    tv.meta.strides = contiguous_strides(tv.meta.sizes, &e);
    tv.meta.dtype = *dtype;
    tv.meta.device = device;
    tv.meta.storage = storage.next();
    return Value::of_tensor(std::move(tv));
  }
  if (!t.elem) return Value::of_opaque("input of non-tensor type");
  if (t.kind == TypeInfo::Kind::Sequence) {
    Value elem = container_input(*t.elem, e, storage, device);
    if (elem.kind == Value::Kind::Opaque) return Value::of_opaque("sequence input with elements of unknown type");
    return Value::of_list_of_length(std::move(elem), SymInt(e.create_unbacked_symint(true)));
  }
  if (t.kind == TypeInfo::Kind::Map) {
    auto key = dtype_from_onnx(t.map_key_type);
    Value value = container_input(*t.elem, e, storage, device, true);
    if (!key || value.kind == Value::Kind::Opaque) return Value::of_opaque("map input of unknown key or value type");
    return Value::of_map(*key, std::move(value), SymInt(e.create_unbacked_symint(true)));
  }
  if (t.kind == TypeInfo::Kind::Optional) {
    Value elem = container_input(*t.elem, e, storage, device);
    elem.maybe_none = true;
    elem.optional = true;
    return elem;
  }
  return Value::of_opaque("input of non-tensor type");
}

}  // namespace

void Interpreter::attach_real_input(const std::string& name, const RealTensor& real, TensorValue& tv) {
  if (real.dtype != tv.meta.dtype)
    throw InputError("--real-input " + real.file + ": input '" + name + "' is " + std::string(dtype_name(real.dtype)) +
                     " there, the model says " + std::string(dtype_name(tv.meta.dtype)));
  if (real.elements) {
    tv.real = *real.elements;
    return;
  }
  result_.warnings.push_back({name, ErrorKind::PrecisionLost,
                              "real input '" + name + "' (" + real.file + ") has " + std::to_string(real.numel) +
                                  " elements, more than " + std::to_string(options_.max_fold_elements) +
                                  ": only its sizes are used"});
}

void Interpreter::create_inputs(const Graph& g, Scope& scope) {
  ShapeEnv& e = env();
  std::unordered_set<std::string> init_names;
  for (const auto& t : g.initializers) init_names.insert(t->name);

  std::vector<std::string> names;
  for (const auto& vi : g.inputs)
    if (!init_names.count(vi.name)) names.push_back(vi.name);
  const std::vector<std::string> sources = checked_input_sources(options_, names);
  InputDimFactory dims(e, result_.input_specializations, result_.warnings);

  std::unordered_map<std::string, SymInt> by_param;
  std::unordered_map<std::string, int64_t> param_hint;
  size_t next_source = 0;
  for (const auto& vi : g.inputs) {
    if (init_names.count(vi.name)) continue;
    const std::string& src = sources[next_source++];
    Value val;
    if (vi.type.kind == TypeInfo::Kind::Sequence || vi.type.kind == TypeInfo::Kind::Optional ||
        vi.type.kind == TypeInfo::Kind::Map) {
      val = container_input(vi.type, e, storage_, options_.device);
      scope.set(vi.name, val);
      result_.inputs.push_back({vi.name, src, val});
      continue;
    }
    if (vi.type.kind != TypeInfo::Kind::Tensor) {
      val = Value::of_opaque("input of non-tensor type");
      scope.set(vi.name, val);
      result_.inputs.push_back({vi.name, src, val});
      continue;
    }
    auto dtype = dtype_from_onnx(vi.type.elem_type);
    if (!dtype) throw InputError(model_.path + ": input '" + vi.name + "' has unknown element type " +
                                 std::to_string(vi.type.elem_type));
    const auto hints_it = options_.input_hints.find(vi.name);
    const std::vector<int64_t>* hints = hints_it == options_.input_hints.end() ? nullptr : &hints_it->second;
    if (!vi.type.shape && !hints) {
      val = Value::of_unranked(*dtype, options_.device, "input '" + vi.name + "' has no shape in the model");
      result_.warnings.push_back({"", ErrorKind::UnknownRank,
                                  "input '" + vi.name + "' has unknown rank; pass --input " + vi.name +
                                      "=d0,d1,... to give it one"});
      scope.set(vi.name, val);
      result_.inputs.push_back({vi.name, src, val});
      continue;
    }
    const auto real = options_.real_inputs.find(vi.name);
    // Who gave the sizes, for messages.
    const std::string given_by = real != options_.real_inputs.end() ? "--real-input " + real->second.file : "--input " + vi.name;
    const size_t rank = vi.type.shape ? vi.type.shape->size() : hints->size();
    if (hints && hints->size() != rank)
      throw InputError(given_by + ": " + std::to_string(hints->size()) + " dims given, the model says rank " +
                       std::to_string(rank));
    TensorValue tv;
    for (size_t d = 0; d < rank; ++d) {
      const std::string dsrc = SourceSpecs::size_source(src, static_cast<int64_t>(d));
      Dim dim = vi.type.shape ? (*vi.type.shape)[d] : Dim{};
      const bool fixed = dim.kind == Dim::Kind::Value;
      const DimPlan plan = plan_input_dim(options_, src, static_cast<int64_t>(d), fixed);
      std::optional<int64_t> hint;
      if (hints) hint = (*hints)[d];
      if (hint && *hint < 0) throw InputError(given_by + ": negative size " + std::to_string(*hint));
      if (fixed) {
        if (dim.value < 0) throw InputError(model_.path + ": input '" + vi.name + "' has negative dim " + std::to_string(dim.value));
        if (hint && *hint != dim.value && plan.mark == DimMark::Unmarked)
          throw InputError(given_by + ": dim " + std::to_string(d) + " is fixed to " +
                           std::to_string(dim.value) + " in the model; mark it with --dynamic to vary it");
        if (!hint) hint = dim.value;
      }
      const bool is_param = dim.kind == Dim::Kind::Param;
      const std::string name = is_param && is_identifier(dim.param) ? dim.param : "";
      // A dim_param is dynamic already: a plain --dynamic changes nothing about it.
      const bool model_policy = plan.mark == DimMark::Unmarked || (plan.mark == DimMark::Dynamic && !plan.options && !fixed);
      SymInt size;
      if (plan.mark == DimMark::Unmarked && fixed) {
        size = *hint;
      } else if (model_policy && is_param && by_param.count(dim.param)) {
        size = by_param[dim.param];
        if (hint && param_hint.count(dim.param) && param_hint[dim.param] != *hint)
          throw InputError(given_by + ": dim " + std::to_string(d) + " is '" + dim.param + "', given " +
                           std::to_string(*hint) + " here but " + std::to_string(param_hint[dim.param]) + " elsewhere");
        if (size.is_symbolic()) e.add_source(size.expr(), dsrc);
      } else if (model_policy) {
        if (hint) {
          size = e.create_symbol(*hint, dsrc, is_param ? DimDynamic::Dynamic : DimDynamic::Duck, {}, name);
          if (size.is_static()) dims.record_zero_one(src, static_cast<int64_t>(d), size.value());
        } else {
          size = SymInt(e.create_named_symbol(name, std::nullopt, ValueRange{0, kIntOo}, dsrc));
        }
      } else {
        size = dims.create(plan, src, static_cast<int64_t>(d), hint, name);
        if (plan.mark == DimMark::Static && !fixed)
          result_.input_specializations.push_back({dsrc, size.value(), "marked static (--static)"});
      }
      if (is_param && !by_param.count(dim.param)) {
        by_param[dim.param] = size;
        if (hint) param_hint[dim.param] = *hint;
      }
      tv.meta.sizes.push_back(size);
    }
    tv.meta.strides = contiguous_strides(tv.meta.sizes, &e);
    tv.meta.dtype = *dtype;
    tv.meta.device = options_.device;
    tv.meta.storage = storage_.next();
    if (real != options_.real_inputs.end()) attach_real_input(vi.name, real->second, tv);
    val = Value::of_tensor(std::move(tv));
    scope.set(vi.name, val);
    result_.inputs.push_back({vi.name, src, val});
  }
  dims.finish();
  for (auto& [param, size] : by_param) dim_params_.emplace(param, size);
}

}  // namespace fakeprop::onnx
