// Values flowing through a graph under fake mode: tensors (metadata plus,
// for small integer/float tensors, their known elements), symbolic scalars,
// sequences, ONNX maps, and None. Values are immutable snapshots once produced.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/sym/sym_int.h"
#include "fakeprop/tensor/tensor_meta.h"
#include "fakeprop/util/boxed.h"

namespace fakeprop {

// Known element values of a tensor, in row-major order. Integer and bool
// tensors carry SymInts (exact shape arithmetic); float tensors carry doubles.
struct KnownData {
  std::vector<SymInt> ints;
  std::vector<double> floats;
  bool is_float = false;
  // Float elements as expressions, some symbolic (SymFloats over sizes, the
  // rest FloatConst); `floats` is then empty. A rule's working form only:
  // TensorValue::data never holds it (OpContext::set_tensor moves it to
  // TensorValue::float_exprs), so a rule that reads `floats` never sees a
  // symbolic element.
  std::vector<ExprRef> float_exprs;
  bool is_float_exprs = false;  // implies is_float
  size_t size() const { return !is_float ? ints.size() : is_float_exprs ? float_exprs.size() : floats.size(); }

  static KnownData of_ints(std::vector<SymInt> xs) {
    KnownData d;
    d.ints = std::move(xs);
    return d;
  }
  static KnownData of_floats(std::vector<double> xs) {
    KnownData d;
    d.is_float = true;
    d.floats = std::move(xs);
    return d;
  }
};

struct TensorValue {
  TensorMeta meta;
  Boxed<KnownData> data;  // set when every element is known (boxed: most tensors have none)
  // The elements on the user's real inputs (propagate_real_tensors), when
  // `data` does not hold them concretely. Rules never read it: fake results
  // hold for every input; only runner/real_values.h does.
  Boxed<KnownData> real;
  // Float elements known as expressions, some symbolic (a scale computed
  // from sizes): `data` is then unset, so only the rules that fold float
  // expressions (OpContext::float_exprs) read them.
  Boxed<std::vector<ExprRef>> float_exprs;
};

struct Value;
using ValueList = std::vector<Value>;

struct Value {
  enum class Kind : uint8_t { None, Tensor, Int, Bool, Float, List, Opaque, Map };
  Kind kind = Kind::None;
  // An ONNX optional that may be empty; the rest of the value describes its
  // element when present. (A surely empty optional is empty_optional(TYPE).)
  bool maybe_none = false;
  // Of an ONNX optional type, present or not (Optional(x), an optional graph
  // input): -o writes optional(...) around the element's type. maybe_none
  // implies it; rules never read it.
  bool optional = false;
  // Map: the keys' dtype (int64 or string for ai.onnx.ml's maps).
  DType map_key = DType::Undefined;
  std::shared_ptr<const TensorValue> tensor;
  SymInt i;     // Int
  SymBool b;    // Bool
  double f = 0; // Float
  // Float: a symbolic float (SymFloat), when not a constant: an unbacked
  // symbol zuf<N> (item() of a float tensor) or a float expression over
  // sizes (s0 / 2); `f` is then meaningless.
  ExprRef float_expr = nullptr;
  std::shared_ptr<const ValueList> list;  // List (sequences, tuples, optional-of-seq); Map: its value
  Boxed<std::string> opaque;  // Opaque: a description ("map", "unknown: ..."); read it with opaque_text()
  // A list described by one template element and its length, used when the
  // elements are not individually known (an ONNX sequence from
  // SplitToSequence with a symbolic split, a Loop's sequence output): `list`
  // then holds ONE element describing every element (a dim with an unbacked
  // symbol may differ between elements) and this is the length. Unset for
  // ordinary lists. Map: the number of entries.
  std::optional<SymInt> list_length;

  static Value none() { return {}; }
  static Value of_tensor(TensorValue t) {
    Value v;
    v.kind = Kind::Tensor;
    v.tensor = std::make_shared<const TensorValue>(std::move(t));
    return v;
  }
  static Value of_int(SymInt x) {
    Value v;
    v.kind = Kind::Int;
    v.i = x;
    return v;
  }
  static Value of_bool(SymBool x) {
    Value v;
    v.kind = Kind::Bool;
    v.b = x;
    return v;
  }
  static Value of_float(double x) {
    Value v;
    v.kind = Kind::Float;
    v.f = x;
    return v;
  }
  // A float expression; a FloatConst becomes a plain float.
  static Value of_symfloat(ExprRef e) {
    if (auto c = as_float(e)) return of_float(*c);
    Value v;
    v.kind = Kind::Float;
    v.float_expr = e;
    return v;
  }
  static Value of_list(ValueList xs) {
    Value v;
    v.kind = Kind::List;
    v.list = std::make_shared<const ValueList>(std::move(xs));
    return v;
  }
  static Value of_list_of_length(Value element, SymInt length) {
    Value v = of_list({std::move(element)});
    v.list_length = length;
    return v;
  }
  // An ONNX map (ai.onnx.ml): keys of one dtype, `entries` values all
  // described by `value` (a scalar tensor for the ml operators' maps). Like
  // a templated list, it holds the one value and its entry count, in the
  // same fields.
  static Value of_map(DType key, Value value, SymInt entries) {
    Value v = of_list_of_length(std::move(value), entries);
    v.kind = Kind::Map;
    v.map_key = key;
    return v;
  }
  bool is_map() const { return kind == Kind::Map; }
  const Value& map_value() const { return list->front(); }
  SymInt map_entries() const { return *list_length; }
  static Value of_opaque(std::string what) {
    Value v;
    v.kind = Kind::Opaque;
    v.opaque = std::move(what);
    return v;
  }
  // A tensor whose element type and device are known but not its rank (an
  // ONNX graph input without a shape, a Reshape to a shape of unknown
  // length). Rules read it as they read any opaque value: they fail, and the
  // node's outputs keep what the op's schema says of their element types.
  // `tensor` holds the dtype and device, with no sizes.
  static Value of_unranked(DType dtype, Device device, std::string why) {
    Value v = of_opaque("unknown rank: " + why);
    TensorValue t;
    t.meta.dtype = dtype;
    t.meta.device = device;
    v.tensor = std::make_shared<const TensorValue>(std::move(t));
    return v;
  }
  bool is_unranked() const { return kind == Kind::Opaque && tensor != nullptr; }
  // What a failed node without declared types or example meta yields: its
  // readers fail as unknown_input instead of guessing.
  static Value unknown(const std::string& why) { return of_opaque("unknown: " + why); }
  bool is_unknown() const { return kind == Kind::Opaque && opaque_text().starts_with("unknown: "); }
  // A surely empty ONNX optional, which keeps its declared type
  // ("optional(tensor(float))"; empty when not known). It describes itself
  // as "empty optional(tensor(float))".
  static Value empty_optional(std::string_view type) {
    return of_opaque(std::string(kEmpty) + std::string(type.empty() ? kOptional : type));
  }
  bool is_empty_optional() const {
    return kind == Kind::Opaque && opaque_text().starts_with(kEmpty) &&
           std::string_view(opaque_text()).substr(kEmpty.size()).starts_with(kOptional);
  }
  // An empty optional's ONNX type, or "" when not known.
  std::string_view empty_optional_type() const {
    const std::string_view type = std::string_view(opaque_text()).substr(kEmpty.size());
    return type == kOptional ? std::string_view() : type;
  }
  bool is_tensor() const { return kind == Kind::Tensor; }
  static constexpr std::string_view kEmpty = "empty ", kOptional = "optional";  // empty_optional's text
  bool is_none() const { return kind == Kind::None; }
  bool is_symbolic_float() const { return kind == Kind::Float && float_expr; }
  const std::string& opaque_text() const {
    static const std::string kNone;
    return opaque ? *opaque : kNone;
  }
};

}  // namespace fakeprop
