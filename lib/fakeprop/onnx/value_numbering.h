// The value names of one ONNX graph, numbered once: every later question
// (which node produces a value, which value a node reads, what a scope
// holds) is an index instead of a string hash. Names are views of the
// graph's strings, which must outlive the numbering.
#pragma once
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "fakeprop/onnx/model.h"
#include "fakeprop/util/string_ids.h"

namespace fakeprop::onnx {

class ValueNumbering {
 public:
  static constexpr uint32_t kNone = StringIds::kNone;

  explicit ValueNumbering(const Graph& g);
  ValueNumbering(const ValueNumbering&) = delete;  // ids_ views implicit_names_
  ValueNumbering& operator=(const ValueNumbering&) = delete;

  uint32_t id(std::string_view name) const { return ids_.find(name); }
  std::string_view name(uint32_t id) const { return ids_.name(id); }
  size_t size() const { return ids_.size(); }

  // Per node (index into g.nodes): the ids it reads (kNone for an omitted
  // optional input), writes (kNone for an omitted output), and reads from
  // its subgraphs' enclosing scopes (names its subgraphs use but do not define).
  std::span<const uint32_t> inputs(size_t node) const { return span(node, 0); }
  std::span<const uint32_t> outputs(size_t node) const { return span(node, 1); }
  std::span<const uint32_t> implicit_inputs(size_t node) const { return span(node, 2); }

  // By id: true for the graph's inputs and initializers (an empty name, which
  // no node can read, has no id and is left out).
  std::vector<bool> inputs_and_initializers(const Graph& g) const;

 private:
  std::span<const uint32_t> span(size_t node, size_t part) const {
    const uint32_t* base = refs_.data() + nodes_[node].begin;
    const uint32_t* counts = nodes_[node].count;
    for (size_t p = 0; p < part; ++p) base += counts[p];
    return {base, counts[part]};
  }
  uint32_t number(std::string_view name) { return name.empty() ? kNone : ids_.insert(name).first; }

  struct NodeRefs {
    uint32_t begin = 0;
    uint32_t count[3] = {0, 0, 0};  // inputs, outputs, implicit inputs
  };
  StringIds ids_;
  std::vector<uint32_t> refs_;
  std::vector<NodeRefs> nodes_;
  std::deque<std::string> implicit_names_;  // owned (subgraph reads are collected, not viewed); never moved
};

// Names a graph reads from enclosing scopes (recursively through its own subgraphs).
void collect_outer_reads(const Graph& g, std::unordered_set<std::string>& out);

// The graph's nodes in a topological order (indices into g.nodes), taking
// ready nodes in file order. `available[id]` says a value the graph reads is
// defined outside its nodes (graph input, initializer, enclosing scope).
// Throws InputError naming `path` and the node on a cycle, a value produced
// twice or a value nothing produces.
std::vector<size_t> topological_order(const Graph& g, const ValueNumbering& names, const std::vector<bool>& available,
                                      const std::string& path);

}  // namespace fakeprop::onnx
