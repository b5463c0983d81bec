#include "fakeprop/sizing/memory.h"

#include <algorithm>
#include <unordered_map>

#include "fakeprop/sizing/flop_count.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

std::string_view storage_kind_name(StorageKind k) {
  switch (k) {
    case StorageKind::Parameter: return "parameter";
    case StorageKind::Input: return "input";
    case StorageKind::Activation: return "activation";
  }
  return "activation";
}

namespace {

ExprRef times_expanded(ExprRef a, ExprRef b) {
  if (a->kind() != ExprKind::Add && b->kind() == ExprKind::Add) std::swap(a, b);
  if (a->kind() != ExprKind::Add) return mul(a, b);
  ExprRef r = times_expanded(integer(a->value()), b);
  for (const auto& [term, coeff] : a->terms()) r = add(r, mul(times_expanded(term, b), coeff));
  return r;
}

}  // namespace

ExprRef expand(ExprRef e) {
  switch (e->kind()) {
    case ExprKind::Add: {
      ExprRef r = integer(e->value());
      for (const auto& [term, coeff] : e->terms()) r = add(r, mul(expand(term), coeff));
      return r;
    }
    case ExprKind::Mul: {
      ExprRef r = integer(e->value());
      for (const auto& [base, exponent] : e->terms()) {
        const ExprRef b = expand(base);
        for (int64_t i = 0; i < exponent; ++i) r = times_expanded(r, b);
      }
      return r;
    }
    default: return e;  // symbols, constants, floor divisions, maxima: atoms
  }
}

int64_t value_at(ExprRef e, const SymbolValues& values) {
  if (auto c = as_integer(e)) return *c;
  if (auto v = evaluate(e, values)) return *v;
  for (ExprRef s : free_symbols(e))
    if (!values(s)) throw Error("it depends on " + s->name() + ", which has no value");
  throw Error("cannot evaluate " + to_python_string(e));
}

namespace {

int64_t element_bytes(DType t, const SizingOptions& o) {
  if (auto it = o.dtype_bytes.find(t); it != o.dtype_bytes.end()) return it->second;
  return element_size(t);
}

// What a fresh storage for `t` holds: numel elements for a dense tensor
// (exact when a size is 0), else the span its strides reach.
ExprRef storage_bytes(const TensorMeta& t, const SizingOptions& o, const ShapeEnv& env) {
  ExprRef numel = integer(1);
  ExprRef extent = add(t.storage_offset.expr(), integer(1));
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    const ExprRef size = t.sizes[i].expr();
    numel = mul(numel, size);
    if (i < t.strides.size()) extent = add(extent, mul(sub(size, integer(1)), t.strides[i].expr()));
  }
  numel = expand(env.simplify(numel));
  extent = expand(env.simplify(extent));
  ExprRef elements = extent;
  if (numel == extent || as_integer(numel) == std::optional<int64_t>(0)) elements = numel;
  ExprRef bytes = mul(elements, element_bytes(t.dtype, o));
  if (o.alloc_round > 1) bytes = mul(ceildiv(bytes, integer(o.alloc_round)), o.alloc_round);
  return bytes;
}

template <class F>
void for_each_tensor(const Value& v, const F& f, int depth = 0) {
  if (v.is_tensor()) f(v.tensor->meta);
  else if (v.kind == Value::Kind::List && v.list && depth < 8)
    for (const Value& x : *v.list) for_each_tensor(x, f, depth + 1);
}

bool has_unknown(const Value& v, int depth = 0) {
  if (v.kind == Value::Kind::Opaque) return v.is_unknown() || v.is_unranked();
  if (v.kind == Value::Kind::List && v.list && depth < 8)
    for (const Value& x : *v.list)
      if (has_unknown(x, depth + 1)) return true;
  return false;
}

}  // namespace

MemoryAnalysis analyze_memory(const RunResult& r) { return analyze_memory(r, r.sizing); }

MemoryAnalysis analyze_memory(const RunResult& r, const SizingOptions& options) {
  MemoryAnalysis a;
  const ShapeEnv& env = *r.env;
  for (const NodeRecord& n : r.nodes)
    if (n.depth == 0) a.order.push_back(&n);
  const size_t end = a.order.empty() ? 0 : a.order.size() - 1;
  std::unordered_map<int64_t, size_t> index;
  auto note = [&](const TensorMeta& m, StorageKind kind, size_t position, std::string_view value) {
    if (m.storage < 0 || index.count(m.storage)) return;
    index.emplace(m.storage, a.storages.size());
    StorageLife s;
    s.storage = m.storage;
    s.kind = kind;
    const bool held = kind != StorageKind::Activation;
    s.first = held ? 0 : position;
    s.last = held ? end : position;
    s.bytes = storage_bytes(m, options, env);
    s.value = std::string(value);
    a.storages.push_back(std::move(s));
  };
  for (const InputRecord& p : r.parameters)
    for_each_tensor(p.val, [&](const TensorMeta& m) { note(m, StorageKind::Parameter, 0, p.name); });
  for (const InputRecord& in : r.inputs)
    for_each_tensor(in.val, [&](const TensorMeta& m) { note(m, StorageKind::Input, 0, in.name); });

  // A nested node (an If's branch, a function's body) reads for the node that holds it, recorded after it.
  std::vector<int64_t> nested_reads;
  size_t position = 0;
  for (const NodeRecord& n : r.nodes) {
    const auto reads = std::span(r.read_storages).subspan(n.reads_begin, n.reads_count);
    if (n.depth != 0) {
      nested_reads.insert(nested_reads.end(), reads.begin(), reads.end());
      continue;
    }
    const StorageKind kind = n.op == "get_attr"      ? StorageKind::Parameter
                             : n.op == "placeholder" ? StorageKind::Input
                                                     : StorageKind::Activation;
    auto read = [&](int64_t storage) {
      if (auto it = index.find(storage); it != index.end()) {
        StorageLife& s = a.storages[it->second];
        s.last = std::max(s.last, position);
      }
    };
    for (int64_t s : reads) read(s);
    for (int64_t s : nested_reads) read(s);
    nested_reads.clear();
    bool unknown = false;
    for (const NamedValue& out : n.outputs) {
      unknown |= has_unknown(out.val);
      for_each_tensor(out.val, [&](const TensorMeta& m) { note(m, kind, position, out.name.view()); });
    }
    if (unknown) a.unknown.push_back(n.name.str());
    ++position;
  }
  for (const NamedValue& out : r.outputs)
    for_each_tensor(out.val, [&](const TensorMeta& m) {
      if (auto it = index.find(m.storage); it != index.end()) {
        StorageLife& s = a.storages[it->second];
        s.output = true;
        s.last = end;
      }
    });

  const size_t n = a.order.size();
  a.allocated.assign(n, integer(0));
  std::vector<ExprRef> freed(n, integer(0));
  ExprRef base = integer(0);
  a.parameter_bytes = a.input_bytes = a.output_bytes = integer(0);
  for (const StorageLife& s : a.storages) {
    if (s.output) a.output_bytes = add(a.output_bytes, s.bytes);
    switch (s.kind) {
      case StorageKind::Parameter: a.parameter_bytes = add(a.parameter_bytes, s.bytes); break;
      case StorageKind::Input: a.input_bytes = add(a.input_bytes, s.bytes); break;
      case StorageKind::Activation:
        a.allocated[s.first] = add(a.allocated[s.first], s.bytes);
        freed[s.last] = add(freed[s.last], s.bytes);
        continue;
    }
    base = add(base, s.bytes);
  }
  a.live.resize(n);
  ExprRef running = base;
  for (size_t p = 0; p < n; ++p) {
    running = add(running, a.allocated[p]);
    a.live[p] = running;
    running = sub(running, freed[p]);
  }
  if (n == 0) {
    a.peak = base;
    return a;
  }

  // Candidates: positions that allocate, likeliest first; each kept unless a
  // kept one bounds it from above over the symbols' ranges.
  std::vector<std::pair<int64_t, size_t>> ranked;
  for (size_t p = 0; p < n; ++p)
    if (p == 0 || as_integer(a.allocated[p]) != std::optional<int64_t>(0))
      ranked.emplace_back(env.hint(a.live[p]).value_or(0), p);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<ExprRef> kept;
  for (const auto& [hint, p] : ranked) {
    const ExprRef candidate = a.live[p];
    bool bounded = false;
    for (ExprRef k : kept) {
      const ExprRef difference = expand(sub(k, candidate));
      if (auto c = as_integer(difference)) bounded = *c >= 0;
      else bounded = env.bound(difference).lo >= 0;
      if (bounded) break;
    }
    if (bounded) continue;
    kept.push_back(candidate);
    a.peak_candidates.push_back(p);
  }
  a.peak = kept.size() == 1 ? kept[0] : max(std::span<const ExprRef>(kept));
  return a;
}

MemoryAt memory_at(const MemoryAnalysis& a, const SymbolValues& values) {
  MemoryAt m;
  const size_t n = a.order.size();
  std::unordered_map<ExprRef, int64_t> memo;
  auto bytes_of = [&](ExprRef e) {
    auto [it, inserted] = memo.try_emplace(e, 0);
    if (inserted) it->second = value_at(e, values);
    return it->second;
  };
  std::vector<int64_t> delta(n + 1, 0);
  int64_t base = 0;
  std::vector<int64_t> bytes(a.storages.size());
  for (size_t i = 0; i < a.storages.size(); ++i) {
    const StorageLife& s = a.storages[i];
    bytes[i] = bytes_of(s.bytes);
    if (s.output) m.output_bytes = checked_add(m.output_bytes, bytes[i]);
    if (s.kind == StorageKind::Parameter) m.parameter_bytes = checked_add(m.parameter_bytes, bytes[i]);
    if (s.kind == StorageKind::Input) m.input_bytes = checked_add(m.input_bytes, bytes[i]);
    if (s.kind != StorageKind::Activation) {
      base = checked_add(base, bytes[i]);
      continue;
    }
    delta[s.first] = checked_add(delta[s.first], bytes[i]);
    delta[s.last + 1] = checked_sub(delta[s.last + 1], bytes[i]);
  }
  m.live.resize(n);
  int64_t running = base;
  m.peak = base;
  for (size_t p = 0; p < n; ++p) {
    running = checked_add(running, delta[p]);
    m.live[p] = running;
    if (running > m.peak || p == 0) {
      m.peak = running;
      m.peak_position = p;
    }
  }
  for (size_t i = 0; i < a.storages.size(); ++i) {
    const StorageLife& s = a.storages[i];
    if (n == 0 || (s.first <= m.peak_position && m.peak_position <= s.last)) m.live_at_peak.push_back(i);
  }
  std::stable_sort(m.live_at_peak.begin(), m.live_at_peak.end(),
                   [&](size_t x, size_t y) { return bytes[x] > bytes[y]; });
  return m;
}

int64_t peak_at(const MemoryAnalysis& a, const SymbolValues& values) {
  if (a.peak_candidates.empty()) return value_at(a.peak, values);
  int64_t best = 0;
  for (size_t i = 0; i < a.peak_candidates.size(); ++i) {
    const int64_t v = value_at(a.live[a.peak_candidates[i]], values);
    if (i == 0 || v > best) best = v;
  }
  return best;
}

ExprRef output_bytes(const NodeRecord& n) {
  ExprRef total = integer(0);
  for (const NamedValue& out : n.outputs)
    for_each_tensor(out.val, [&](const TensorMeta& m) { total = add(total, tensor_bytes(m)); });
  return total;
}

ComputeAnalysis analyze_compute(const RunResult& r) {
  ComputeAnalysis c;
  c.flops = c.bytes_read = c.bytes_written = integer(0);
  for (const NodeRecord& n : r.nodes) {
    if (!n.flops) continue;
    c.nodes.push_back(&n);
    c.flops = add(c.flops, expand(n.flops));
    if (n.bytes_read) c.bytes_read = add(c.bytes_read, expand(n.bytes_read));
    c.bytes_written = add(c.bytes_written, expand(output_bytes(n)));
  }
  return c;
}

}  // namespace fakeprop
