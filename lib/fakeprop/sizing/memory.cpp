#include "fakeprop/sizing/memory.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "fakeprop/sizing/flop_count.h"
#include "fakeprop/sym/expand.h"
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

// A contiguous stride's Max(1, e) (make_contiguous_strides_for) as e: they
// differ only where a size is 0, and then the tensor holds no element.
ExprRef without_max_one(ExprRef e) {
  if (!e->has_symbols()) return e;
  if (e->kind() == ExprKind::Max && e->args().size() == 2) {
    if (as_integer(e->arg(0)) == std::optional<int64_t>(1)) return without_max_one(e->arg(1));
    if (as_integer(e->arg(1)) == std::optional<int64_t>(1)) return without_max_one(e->arg(0));
  }
  if (e->kind() == ExprKind::Add) {
    ExprRef out = integer(e->value());
    for (const auto& [t, c] : e->terms()) out = add(out, mul(without_max_one(t), c));
    return out;
  }
  if (e->kind() == ExprKind::Mul) {
    ExprRef out = integer(e->value());
    for (const auto& [b, k] : e->terms()) out = mul(out, pow(without_max_one(b), k));
    return out;
  }
  return e;
}

// What a fresh storage for `t` holds: numel elements for a dense tensor
// (exact when a size is 0), else the span its strides reach.
ExprRef storage_bytes(const TensorMeta& t, const SizingOptions& o, const ShapeEnv& env) {
  ExprRef numel = integer(1);
  ExprRef extent = add(t.storage_offset.expr(), integer(1));
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    const ExprRef size = t.sizes[i].expr();
    numel = mul(numel, size);
    if (i < t.strides.size()) extent = add(extent, mul(sub(size, integer(1)), without_max_one(t.strides[i].expr())));
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

namespace {

// A tensor's storage bytes, once per distinct (sizes, strides, offset,
// dtype): a graph's tensors share a handful of shapes.
class StorageBytes {
 public:
  StorageBytes(const SizingOptions& o, const ShapeEnv& env) : options_(o), env_(env) {}
  ExprRef operator()(const TensorMeta& m) {
    key_.clear();
    key_.push_back(reinterpret_cast<uintptr_t>(m.storage_offset.expr()));
    key_.push_back(static_cast<uintptr_t>(m.dtype));
    for (const SymInt& d : m.sizes) key_.push_back(reinterpret_cast<uintptr_t>(d.expr()));
    key_.push_back(0);
    for (const SymInt& d : m.strides) key_.push_back(reinterpret_cast<uintptr_t>(d.expr()));
    auto [it, fresh] = memo_.try_emplace(key_, nullptr);
    if (fresh) it->second = storage_bytes(m, options_, env_);
    return it->second;
  }

 private:
  struct Hash {
    size_t operator()(const std::vector<uintptr_t>& k) const {
      size_t h = k.size();
      for (uintptr_t x : k) h = (h ^ x) * 0x100000001b3ull;
      return h;
    }
  };
  const SizingOptions& options_;
  const ShapeEnv& env_;
  std::vector<uintptr_t> key_;
  std::unordered_map<std::vector<uintptr_t>, ExprRef, Hash> memo_;
};

// ONNX ops whose output is a view of their first input: those ONNX Runtime's
// CPU kernels declare `.Alias(0, 0)` (the output shares the input's buffer),
// not the MayInplace ones (a reuse the planner may or may not make). ONNX has
// no views; this is where an export's reshapes get torch's liveness back.
bool onnx_alias_of_input(std::string_view op) {
  static constexpr std::string_view kAliases[] = {"Flatten", "Identity", "Optional", "OptionalGetElement",
                                                  "Reshape", "Squeeze", "Unsqueeze"};
  return std::find(std::begin(kAliases), std::end(kAliases), op) != std::end(kAliases);
}

// x bounds y from above, term by term.
bool covers(const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] < y[i]) return false;
  return true;
}

}  // namespace

MemoryAnalysis analyze_memory(const RunResult& r, const SizingOptions& options) {
  MemoryAnalysis a;
  const ShapeEnv& env = *r.env;
  // Sized up front: grown by doubling, they held the old copy and the new one at the report's peak.
  a.order.reserve(r.nodes.size());
  a.storages.reserve(r.nodes.size() + r.inputs.size() + r.parameters.size());
  for (const NodeRecord& n : r.nodes)
    if (n.depth == 0) a.order.push_back(&n);
  const size_t end = a.order.empty() ? 0 : a.order.size() - 1;
  StorageBytes bytes_of(options, env);
  // Storage ids are small and dense (a run's counter): an index by id.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> index;
  index.reserve(a.storages.capacity());
  auto find = [&](int64_t storage) -> uint32_t {
    return storage >= 0 && static_cast<uint64_t>(storage) < index.size() ? index[static_cast<size_t>(storage)] : kNone;
  };
  // The index entry of a storage id, grown to hold it; null for an id out of range.
  auto slot = [&](int64_t storage) -> uint32_t* {
    if (storage < 0 || storage > (int64_t{1} << 40)) return nullptr;
    const size_t id = static_cast<size_t>(storage);
    if (id >= index.size()) index.resize(std::max(id + 1, index.size() * 2), kNone);
    return &index[id];
  };
  auto note = [&](const TensorMeta& m, StorageKind kind, size_t position, std::string_view value) {
    uint32_t* at = slot(m.storage);
    if (!at || *at != kNone) return;
    *at = static_cast<uint32_t>(a.storages.size());
    StorageLife s;
    s.storage = m.storage;
    s.kind = kind;
    const bool held = kind != StorageKind::Activation;
    s.first = held ? 0 : position;
    s.last = held ? end : position;
    s.bytes = bytes_of(m);
    s.value = value;
    a.storages.push_back(s);
  };
  for (const InputRecord& p : r.parameters)
    for_each_tensor(p.val, [&](const TensorMeta& m) { note(m, StorageKind::Parameter, 0, p.name); });
  for (const InputRecord& in : r.inputs)
    for_each_tensor(in.val, [&](const TensorMeta& m) { note(m, StorageKind::Input, 0, in.name); });

  // A nested node (an If's branch, a function's body) reads for the node that holds it, recorded after it.
  std::vector<int64_t> nested_reads;
  size_t position = 0;
  const bool onnx = r.model_kind == "onnx";
  for (const NodeRecord& n : r.nodes) {
    const auto reads = std::span(r.read_storages).subspan(n.reads_begin, n.reads_count);
    // An alias's storage is its input's: it allocates nothing, and its readers keep the input live.
    if (onnx && !reads.empty() && !n.outputs.empty() && n.outputs[0].val.is_tensor() && onnx_alias_of_input(n.op.view()))
      if (const uint32_t base = find(reads[0]); base != kNone)
        if (uint32_t* at = slot(n.outputs[0].val.tensor->meta.storage); at && *at == kNone) *at = base;
    if (n.depth != 0) {
      nested_reads.insert(nested_reads.end(), reads.begin(), reads.end());
      continue;
    }
    const StorageKind kind = n.op == "get_attr"      ? StorageKind::Parameter
                             : n.op == "placeholder" ? StorageKind::Input
                                                     : StorageKind::Activation;
    auto read = [&](int64_t storage) {
      if (const uint32_t i = find(storage); i != kNone) a.storages[i].last = std::max(a.storages[i].last, position);
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
      if (const uint32_t i = find(m.storage); i != kNone) {
        a.storages[i].output = true;
        a.storages[i].last = end;
      }
    });

  // Live bytes as counts over the distinct storage sizes ("terms").
  std::unordered_map<ExprRef, size_t> term_of;
  std::vector<ExprRef> terms;
  std::vector<size_t> term(a.storages.size());
  const size_t n = a.order.size();
  a.allocated.assign(n, integer(0));
  // Each position's allocations and frees, as ranges of two index arrays.
  std::vector<uint32_t> alloc_start(n + 1, 0), free_start(n + 1, 0);
  for (const StorageLife& s : a.storages)
    if (s.kind == StorageKind::Activation) ++alloc_start[s.first + 1], ++free_start[s.last + 1];
  for (size_t p = 0; p < n; ++p) alloc_start[p + 1] += alloc_start[p], free_start[p + 1] += free_start[p];
  std::vector<uint32_t> alloc_list(alloc_start[n]), free_list(free_start[n]);
  std::vector<uint32_t> alloc_fill(alloc_start.begin(), alloc_start.end() - 1), free_fill(free_start.begin(), free_start.end() - 1);
  ExprRef base = integer(0);
  a.parameter_bytes = a.input_bytes = a.output_bytes = integer(0);
  for (size_t i = 0; i < a.storages.size(); ++i) {
    const StorageLife& s = a.storages[i];
    if (s.output) a.output_bytes = add(a.output_bytes, s.bytes);
    switch (s.kind) {
      case StorageKind::Parameter: a.parameter_bytes = add(a.parameter_bytes, s.bytes); break;
      case StorageKind::Input: a.input_bytes = add(a.input_bytes, s.bytes); break;
      case StorageKind::Activation: {
        auto [it, fresh] = term_of.try_emplace(s.bytes, terms.size());
        if (fresh) terms.push_back(s.bytes);
        term[i] = it->second;
        a.allocated[s.first] = as_integer(a.allocated[s.first]) == std::optional<int64_t>(0)
                                   ? s.bytes
                                   : add(a.allocated[s.first], s.bytes);
        alloc_list[alloc_fill[s.first]++] = static_cast<uint32_t>(i);
        free_list[free_fill[s.last]++] = static_cast<uint32_t>(i);
        continue;
      }
    }
    base = add(base, s.bytes);
  }
  if (n == 0) {
    a.peak = base;
    return a;
  }
  // The sweep: counts per term, with a hash that identifies equal counts.
  std::vector<uint64_t> salt(terms.size());
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (uint64_t& x : salt) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    x = seed;
  }
  std::vector<int64_t> counts(terms.size(), 0);
  uint64_t hash = 0;
  std::unordered_set<uint64_t> seen;
  struct Kept {
    size_t position;
    std::vector<int64_t> counts;
  };
  std::vector<Kept> kept;
  constexpr size_t kPrunedKept = 64;  // past this many, candidates are kept without comparing
  auto allocates = [&](size_t p) { return alloc_start[p + 1] > alloc_start[p]; };
  for (size_t p = 0; p < n; ++p) {
    for (uint32_t k = alloc_start[p]; k < alloc_start[p + 1]; ++k) {
      const size_t t = term[alloc_list[k]];
      ++counts[t], hash += salt[t];
    }
    // A position with nothing freed after it and an allocation at the next is bounded by the next.
    const bool rises_next = free_start[p + 1] == free_start[p] && p + 1 < n && allocates(p + 1);
    if ((p == 0 || allocates(p)) && !rises_next && seen.insert(hash).second) {
      bool bounded = false;
      if (kept.size() <= kPrunedKept) {
        for (const Kept& k : kept)
          if (covers(k.counts, counts)) {
            bounded = true;
            break;
          }
        if (!bounded)
          kept.erase(std::remove_if(kept.begin(), kept.end(), [&](const Kept& k) { return covers(counts, k.counts); }),
                     kept.end());
      }
      if (!bounded) kept.push_back({p, counts});
    }
    for (uint32_t k = free_start[p]; k < free_start[p + 1]; ++k) {
      const size_t t = term[free_list[k]];
      --counts[t], hash -= salt[t];
    }
  }
  // Then over the symbols' ranges: drop a candidate another bounds from above.
  std::vector<std::pair<ExprRef, size_t>> live;
  for (const Kept& k : kept) {
    ExprRef e = base;
    for (size_t t = 0; t < terms.size(); ++t)
      if (k.counts[t]) e = add(e, mul(terms[t], k.counts[t]));
    live.emplace_back(expand(e), k.position);
  }
  std::stable_sort(live.begin(), live.end(), [&](const auto& x, const auto& y) {
    return env.hint(x.first).value_or(0) > env.hint(y.first).value_or(0);
  });
  std::vector<ExprRef> peak_terms;
  for (const auto& [candidate, p] : live) {
    bool bounded = false;
    for (ExprRef k : peak_terms) {
      const ExprRef difference = expand(sub(k, candidate));
      if (auto c = as_integer(difference)) bounded = *c >= 0;
      else bounded = env.bound(difference).lo >= 0;
      if (bounded) break;
    }
    if (bounded) continue;
    peak_terms.push_back(candidate);
    a.peak_candidates.push_back(p);
    a.candidate_live.push_back(candidate);
  }
  a.peak = peak_terms.size() == 1 ? peak_terms[0] : max(std::span<const ExprRef>(peak_terms));
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
    const int64_t v = value_at(a.candidate_live[i], values);
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

namespace {

// Expressions counted as they come, summed once at the end: a graph's nodes share a handful.
class Tally {
 public:
  void add_one(ExprRef e) {
    auto [it, fresh] = counts_.try_emplace(e, 0);
    if (fresh) order_.push_back(e);
    ++it->second;
  }
  ExprRef sum(const ShapeEnv& env) const {
    ExprRef total = integer(0);
    for (ExprRef e : order_) total = add(total, mul(expand(env.simplify(e)), counts_.at(e)));
    return total;
  }

 private:
  std::unordered_map<ExprRef, int64_t> counts_;
  std::vector<ExprRef> order_;  // first appearance, for a stable sum
};

}  // namespace

ComputeAnalysis analyze_compute(const RunResult& r) {
  ComputeAnalysis c;
  Tally flops, read, written;
  for (const NodeRecord& n : r.nodes) {
    if (!n.flops) continue;
    c.nodes.push_back(&n);
    flops.add_one(n.flops);
    if (n.bytes_read) read.add_one(n.bytes_read);
    c.written.push_back(output_bytes(n));
    written.add_one(c.written.back());
  }
  c.flops = flops.sum(*r.env);
  c.bytes_read = read.sum(*r.env);
  c.bytes_written = written.sum(*r.env);
  return c;
}

}  // namespace fakeprop
