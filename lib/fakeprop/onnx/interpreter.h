// Runs an ONNX graph under fake mode: creates the input symbols, walks nodes
// in topological order, applies each operator's rule, and records values,
// unbacked bindings and per-node errors (never aborting on one node).
#pragma once
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakeprop/graph/run_result.h"
#include "fakeprop/graph/infer_options.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/onnx/value_numbering.h"
#include "fakeprop/util/string_map.h"

namespace fakeprop::onnx {

using fakeprop::InferOptions;

// The dispatch cache (see Interpreter::run_node): a hit reuses the outputs a
// rule computed for the same operator, attributes and input metadata under
// the same ShapeEnv state; only runs that left the ShapeEnv untouched (no
// guard, assert, specialization, replacement or symbol) are stored. On unless
// FAKEPROP_DISPATCH_CACHE=0 is set; off while the dynamic trace is on (a hit
// would drop the trace's lines for statically known decisions).
bool dispatch_cache_enabled_by_environment();

struct RunControl {
  bool dispatch_cache = dispatch_cache_enabled_by_environment();
};

// Values visible to a graph: its own, by the graph's value ids, then the
// enclosing graphs' (outer scope), found by name. A node's outputs are not
// copied: the scope points at them in the node's record.
class Scope {
 public:
  explicit Scope(const ValueNumbering& names, const Scope* parent = nullptr)
      : names_(names), parent_(parent), values_(names.size(), nullptr) {}
  const ValueNumbering& names() const { return names_; }
  const Value* find(std::string_view name) const;
  const Value* find(uint32_t id) const {
    if (id == ValueNumbering::kNone) return nullptr;
    if (values_[id]) return values_[id];
    return parent_ ? parent_->find(names_.name(id)) : nullptr;
  }
  // `v` must outlive the scope (a value in a node's record).
  void bind(uint32_t id, Value* v) { values_[id] = v; }
  // The scope's own value for `id` (not an enclosing scope's), or null: a
  // consuming run trims the values nothing will read again.
  Value* local(uint32_t id) { return id == ValueNumbering::kNone ? nullptr : values_[id]; }
  // A value the scope keeps (graph inputs, initializers).
  void set(uint32_t id, Value v) { values_[id] = &owned_.emplace_back(std::move(v)); }
  void set(std::string_view name, Value v);
  bool has_local(uint32_t id) const { return id != ValueNumbering::kNone && values_[id]; }

 private:
  const ValueNumbering& names_;
  const Scope* parent_;
  std::vector<Value*> values_;
  std::deque<Value> owned_;  // never moves its elements
  std::unordered_map<std::string, Value> unnumbered_;  // names the graph never mentions
};

class Interpreter {
 public:
  Interpreter(const Model& model, const InferOptions& options, RunResult& result, RunControl control = {});
  ~Interpreter();
  const DispatchStats& dispatch_stats() const { return stats_; }
  size_t cache_entries() const;

  void run_main_graph();
  // Frees each node once it has run, a chunk of g.nodes at a time, and each
  // value's known elements once its last reader has run (`g` must be the
  // model's main graph, owned by the caller for this run): records keep only
  // pooled names, so the peak holds records or nodes, not both.
  void release_nodes_as_run(Graph& g) { releasable_ = &g; }
  // Run a subgraph (If branch, Loop/Scan body) with its formal inputs bound
  // to `inputs`; nodes are recorded as "<parent>/<node>". Returns its outputs.
  std::vector<Value> run_subgraph(const Graph& g, const std::vector<Value>& inputs, const Scope& outer,
                                  const std::string& parent_node);

  // Known integer elements of initializer `name`, decoded once on demand.
  const KnownData* initializer_data(std::string_view name);
  const InferOptions& options() const { return options_; }
  // The scope of the node whose rule is running (If / Loop / Scan pass it to
  // run_subgraph as the outer scope). Read it before running a subgraph: the
  // subgraph's own nodes change it.
  const Scope* current_scope() const { return current_scope_; }
  ShapeEnv& env() { return *result_.env; }
  StorageIds& storage() { return storage_; }

 private:
  void create_inputs(const Graph& g, Scope& scope);
  // Runs g's nodes in `scope`, whose numbering is g's.
  void run_nodes(const Graph& g, Scope& scope, const std::string& prefix, size_t depth);
  void run_node(const Node& node, std::span<const uint32_t> input_ids, std::span<const uint32_t> output_ids,
                Scope& scope, Name record_name, const Graph& g, size_t depth);
  void run_function(const Function& fn, const Node& call, Scope& scope, std::vector<Value>& outputs,
                    size_t depth);
  Value fallback_value(std::string_view value_name, const Graph& g, const std::string& why);
  void record_unbacked_bindings(NodeRecord& rec, const std::vector<Value>& outputs);
  struct DispatchCache;
  // The cache key of a rule run, or false when the node is not cacheable.
  bool dispatch_key(const Node& node, const std::string& domain, int64_t opset,
                    const std::vector<const Value*>& inputs, std::string& key);

  const Model& model_;
  const InferOptions& options_;
  RunResult& result_;
  StorageIds storage_;
  StringMap<const TensorRef*> initializers_;
  StringMap<std::unique_ptr<KnownData>> initializer_cache_;
  StringMap<const Function*> functions_;  // "domain::name"
  size_t subgraph_depth_ = 0;
  const Scope* current_scope_ = nullptr;
  RunControl control_;
  DispatchStats stats_;
  std::unique_ptr<DispatchCache> cache_;
  std::string key_buffer_;
  Graph* releasable_ = nullptr;
};

RunResult run_model(const Model& model, const InferOptions& options, const RunControl& control = {});
// The same, consuming the model: its main graph's nodes are freed as they run
// (the model's names live on in the result), a value's known elements once
// its last reader ran (reports never print them), and the freed heap pages
// are handed back to the system every few hundred nodes (malloc_trim on glibc).
RunResult run_model(Model&& model, const InferOptions& options, const RunControl& control = {});

}  // namespace fakeprop::onnx
