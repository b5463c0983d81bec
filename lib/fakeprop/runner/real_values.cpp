#include "fakeprop/runner/real_values.h"

namespace fakeprop {

namespace {

bool concrete_data(const KnownData& d) {
  if (d.is_float) return true;
  for (const SymInt& x : d.ints)
    if (!x.is_static()) return false;
  return true;
}

bool concretize(SymShape& xs, const ShapeEnv& env) {
  for (SymInt& x : xs) {
    const std::optional<int64_t> c = env.concrete_value(x);
    if (!c) return false;
    x = *c;
  }
  return true;
}

// `fake` is an unbacked symbol without a real value: `real` is it.
void learn(const SymInt& fake, const SymInt& real, ShapeEnv& env) {
  if (!fake.is_symbolic() || !real.is_static()) return;
  const ExprRef sym = fake.expr();
  if (!sym->is_symbol() || !env.is_symbol_known(sym) || env.known_real_value(sym)) return;
  const SymbolInfo& info = env.info(sym);
  if (info.unbacked && !info.is_float) env.set_real_value(sym, real.value());
}

void tie(Value& fake, const Value& real, ShapeEnv& env) {
  if (fake.kind != real.kind) return;
  if (fake.kind == Value::Kind::Int) return learn(fake.i, real.i, env);
  if (fake.kind == Value::Kind::List) {
    if (fake.list_length && real.list_length) learn(*fake.list_length, *real.list_length, env);
    if (!fake.list || !real.list || fake.list->size() != real.list->size()) return;
    ValueList items = *fake.list;
    for (size_t i = 0; i < items.size(); ++i) tie(items[i], (*real.list)[i], env);
    fake.list = std::make_shared<const ValueList>(std::move(items));
    return;
  }
  if (fake.kind != Value::Kind::Tensor) return;
  const TensorValue& f = *fake.tensor;
  const TensorValue& r = *real.tensor;
  if (f.meta.sizes.size() != r.meta.sizes.size()) return;
  for (size_t d = 0; d < f.meta.sizes.size(); ++d) learn(f.meta.sizes[d], r.meta.sizes[d], env);
  if (f.data && r.data && !f.data->is_float && !r.data->is_float && f.data->ints.size() == r.data->ints.size())
    for (size_t i = 0; i < f.data->ints.size(); ++i) learn(f.data->ints[i], r.data->ints[i], env);
  const bool wants_real = r.data && concrete_data(*r.data) && !(f.data && concrete_data(*f.data));
  if (!wants_real && !f.real) return;
  TensorValue copy = f;
  copy.real = wants_real ? Boxed<KnownData>(*r.data) : Boxed<KnownData>();
  fake.tensor = std::make_shared<const TensorValue>(std::move(copy));
}

bool drop_real(Value& v) {
  if (v.kind == Value::Kind::Tensor && v.tensor->real) {
    TensorValue copy = *v.tensor;
    copy.real.reset();
    v.tensor = std::make_shared<const TensorValue>(std::move(copy));
    return true;
  }
  if (v.kind != Value::Kind::List || !v.list) return false;
  ValueList items = *v.list;
  bool dropped = false;
  for (Value& x : items) dropped = drop_real(x) || dropped;
  if (!dropped) return false;
  v.list = std::make_shared<const ValueList>(std::move(items));
  return true;
}

bool carries_real(const Value& v) {
  if (v.kind == Value::Kind::Tensor) return v.tensor->real.has_value();
  if (v.kind != Value::Kind::List || !v.list) return false;
  for (const Value& x : *v.list)
    if (carries_real(x)) return true;
  return false;
}

}  // namespace

bool has_real_elements(const std::vector<const Value*>& inputs) {
  for (const Value* v : inputs)
    if (v && carries_real(*v)) return true;
  return false;
}

std::optional<Value> real_counterpart(const Value& v, const ShapeEnv& env) {
  switch (v.kind) {
    case Value::Kind::None:
    case Value::Kind::Opaque:
      return v;
    case Value::Kind::Int: {
      const std::optional<int64_t> c = env.concrete_value(v.i);
      if (!c) return std::nullopt;
      return Value::of_int(SymInt(*c));
    }
    case Value::Kind::Bool: {
      if (v.b.is_static()) return v;
      const std::optional<int64_t> c = env.concrete_value(v.b.expr());
      if (!c) return std::nullopt;
      return Value::of_bool(SymBool(*c != 0));
    }
    case Value::Kind::Float:
      if (v.is_symbolic_float()) return std::nullopt;
      return v;
    case Value::Kind::List:
    case Value::Kind::Map: {  // a map's value and entry count are in the same fields
      ValueList items;
      for (const Value& x : *v.list) {
        std::optional<Value> c = real_counterpart(x, env);
        if (!c) return std::nullopt;
        items.push_back(std::move(*c));
      }
      Value out = Value::of_list(std::move(items));
      out.kind = v.kind;
      out.map_key = v.map_key;
      out.maybe_none = v.maybe_none;
      if (v.list_length) {
        const std::optional<int64_t> n = env.concrete_value(*v.list_length);
        if (!n) return std::nullopt;
        out.list_length = SymInt(*n);
      }
      return out;
    }
    case Value::Kind::Tensor: {
      const TensorValue& t = *v.tensor;
      TensorValue c;
      c.meta = t.meta;
      const std::optional<int64_t> offset = env.concrete_value(t.meta.storage_offset);
      if (!offset || !concretize(c.meta.sizes, env) || !concretize(c.meta.strides, env)) return std::nullopt;
      c.meta.storage_offset = *offset;
      if (t.real) {
        c.data = *t.real;
      } else if (t.data) {
        KnownData d = *t.data;
        if (concretize(d.ints, env)) c.data = std::move(d);
      }
      Value out = Value::of_tensor(std::move(c));
      out.maybe_none = v.maybe_none;
      return out;
    }
  }
  return std::nullopt;
}

void tie_to_real(std::vector<Value>& outputs, const std::vector<std::optional<Value>>& real, ShapeEnv& env) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (k < real.size() && real[k]) {
      tie(outputs[k], *real[k], env);
    } else {
      drop_real(outputs[k]);
    }
  }
}

void drop_real_elements(std::vector<Value>& outputs) {
  for (Value& v : outputs) drop_real(v);
}

}  // namespace fakeprop
