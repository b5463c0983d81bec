#include "fakeprop/onnx/value_numbering.h"

#include <algorithm>
#include <deque>

#include "fakeprop/util/error.h"

namespace fakeprop::onnx {

void collect_outer_reads(const Graph& g, std::unordered_set<std::string>& out) {
  std::unordered_set<std::string_view> defined;
  for (const auto& vi : g.inputs) defined.insert(vi.name);
  for (const auto& t : g.initializers) defined.insert(t->name);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) defined.insert(o);
  auto read = [&](std::string_view name) {
    if (!name.empty() && !defined.count(name)) out.emplace(name);
  };
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) read(i);
    for (const auto& a : n.attributes) {
      std::unordered_set<std::string> inner;
      if (a.g) collect_outer_reads(*a.g, inner);
      for (const auto& sg : a.graphs()) collect_outer_reads(*sg, inner);
      for (const auto& name : inner) read(name);
    }
  }
  for (const auto& o : g.outputs) read(o.name);
}

namespace {
// How many values a graph defines and how many ids its nodes read and write,
// counted in one pass: each value is defined once, so sizing by these is
// exact where twice the node count would double the table.
struct Counts {
  size_t values = 0, refs = 0;
};
Counts count_values(const Graph& g) {
  Counts c{g.inputs.size() + g.initializers.size() + g.outputs.size(), 0};
  for (const auto& node : g.nodes) {
    c.values += node.outputs.size();
    c.refs += node.inputs.size() + node.outputs.size();
  }
  return c;
}
}  // namespace

ValueNumbering::ValueNumbering(const Graph& g) {
  const Counts counts = count_values(g);
  ids_ = StringIds(counts.values);
  for (const auto& vi : g.inputs) number(vi.name);
  for (const auto& t : g.initializers) number(t->name);
  nodes_.resize(g.nodes.size());
  refs_.reserve(counts.refs);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    NodeRefs& r = nodes_[i];
    r.begin = static_cast<uint32_t>(refs_.size());
    for (const auto& name : n.inputs) refs_.push_back(number(name));
    for (const auto& name : n.outputs) refs_.push_back(number(name));
    r.count[0] = static_cast<uint32_t>(n.inputs.size());
    r.count[1] = static_cast<uint32_t>(n.outputs.size());
    std::unordered_set<std::string> reads;
    for (const auto& a : n.attributes) {
      if (a.g) collect_outer_reads(*a.g, reads);
      for (const auto& sg : a.graphs()) collect_outer_reads(*sg, reads);
    }
    for (const auto& name : reads) {
      uint32_t id = ids_.find(name);
      if (id == kNone) id = ids_.insert(implicit_names_.emplace_back(name)).first;
      refs_.push_back(id);
    }
    r.count[2] = static_cast<uint32_t>(reads.size());
  }
  for (const auto& vi : g.outputs) number(vi.name);
}

std::vector<bool> ValueNumbering::inputs_and_initializers(const Graph& g) const {
  std::vector<bool> out(size(), false);
  auto mark = [&](const std::string& name) {
    if (const uint32_t i = id(name); i != kNone) out[i] = true;
  };
  for (const auto& vi : g.inputs) mark(vi.name);
  for (const auto& t : g.initializers) mark(t->name);
  return out;
}

std::vector<size_t> topological_order(const Graph& g, const ValueNumbering& names, const std::vector<bool>& available,
                                      const std::string& path) {
  constexpr size_t kNoProducer = SIZE_MAX;
  const size_t n = g.nodes.size();
  std::vector<size_t> producer(names.size(), kNoProducer);
  for (size_t i = 0; i < n; ++i) {
    const auto outs = names.outputs(i);
    for (size_t k = 0; k < outs.size(); ++k) {
      if (outs[k] == ValueNumbering::kNone) continue;
      if (available[outs[k]])
        throw InputError(path + ": node '" + g.nodes[i].name + "': output '" + g.nodes[i].outputs[k] +
                         "' has the name of a value defined before the graph runs (an input, an initializer or "
                         "an outer scope's value); ONNX assigns each value once");
      size_t& p = producer[outs[k]];
      if (p != kNoProducer)
        throw InputError(path + ": node '" + g.nodes[i].name + "': value '" + g.nodes[i].outputs[k] +
                         "' is produced by more than one node (also by '" + g.nodes[p].name + "')");
      p = i;
    }
  }
  // users as one flat array (CSR): a vector per node cost an allocation per node.
  std::vector<uint32_t> pending(n, 0);
  std::vector<size_t> edge_from, edge_to;
  edge_from.reserve(n * 2);
  edge_to.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    auto read = [&](uint32_t id) {
      if (producer[id] != kNoProducer) {
        edge_from.push_back(producer[id]);
        edge_to.push_back(i);
        ++pending[i];
      } else if (!available[id]) {
        throw InputError(path + ": node '" + g.nodes[i].name + "': input '" + std::string(names.name(id)) +
                         "' is not produced by any node, graph input or initializer");
      }
    };
    for (uint32_t id : names.inputs(i))
      if (id != ValueNumbering::kNone) read(id);
    for (uint32_t id : names.implicit_inputs(i)) read(id);
  }
  std::vector<size_t> first_user(n + 1, 0);
  for (size_t from : edge_from) ++first_user[from + 1];
  for (size_t i = 0; i < n; ++i) first_user[i + 1] += first_user[i];
  std::vector<size_t> users(edge_from.size());
  {
    std::vector<size_t> fill(first_user.begin(), first_user.end() - 1);
    for (size_t e = 0; e < edge_from.size(); ++e) users[fill[edge_from[e]]++] = edge_to[e];
  }
  // Kahn's algorithm, taking ready nodes in file order so that a sorted file keeps its order.
  std::vector<size_t> order;
  order.reserve(n);
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push_back(i);
  std::vector<size_t> next_batch;
  while (!ready.empty()) {
    const size_t i = ready.front();
    ready.pop_front();
    order.push_back(i);
    next_batch.clear();
    for (size_t e = first_user[i]; e < first_user[i + 1]; ++e)
      if (--pending[users[e]] == 0) next_batch.push_back(users[e]);
    std::sort(next_batch.begin(), next_batch.end());
    for (size_t u : next_batch) ready.push_back(u);
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (pending[i] != 0)
        throw InputError(path + ": node '" + g.nodes[i].name + "': the graph has a cycle through this node");
  }
  return order;
}

}  // namespace fakeprop::onnx
