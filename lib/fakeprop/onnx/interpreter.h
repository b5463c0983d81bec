// The ONNX front end's walk: creates the input symbols, runs each graph's
// nodes in topological order through the NodeRunner (runner/node_runner.h),
// with the operator's rule, a model function's body, or the dispatch cache's
// earlier result, and the model's declared types as a failed node's fallback.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fakeprop/onnx/dispatch_key.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/onnx/scope.h"
#include "fakeprop/onnx/value_numbering.h"
#include "fakeprop/options/infer_options.h"
#include "fakeprop/runner/node_runner.h"
#include "fakeprop/util/string_map.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop::onnx {

class OpContext;
struct OpSchema;

using fakeprop::InferOptions;

// The dispatch cache (runner/dispatch_cache.h) is on unless
// FAKEPROP_DISPATCH_CACHE=0 is set, and off while the dynamic trace is on (a
// hit would drop the trace's lines for statically known decisions).
struct RunControl {
  bool dispatch_cache = dispatch_cache_enabled_by_environment();
};

class Interpreter {
 public:
  Interpreter(const Model& model, const InferOptions& options, RunResult& result, RunControl control = {});
  ~Interpreter();
  // Zeros and enabled = false when the cache is off.
  DispatchStats dispatch_stats() const;

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
  void attach_real_input(const std::string& name, const RealTensor& real, TensorValue& tv);
  // Runs g's nodes in `scope`, whose numbering is g's.
  void run_nodes(const Graph& g, Scope& scope, const std::string& prefix, size_t depth);
  class Step;  // one node for the NodeRunner
  void run_node(const Node& node, std::span<const uint32_t> input_ids, std::span<const uint32_t> output_ids,
                Scope& scope, Name record_name, const Graph& g, size_t depth);
  void run_function(const Function& fn, const Node& call, Scope& scope, std::vector<Value>& outputs,
                    size_t depth);
  // What a node's operator resolves to. A graph runs few distinct operators,
  // and each node looked its rule and schema up by name (two binary searches
  // of string compares); the memo is keyed by the node's interned op_type and
  // domain, whose characters live as long as the model.
  struct ResolvedOp {
    std::string domain;  // "" for the default domain
    int64_t opset = 0;
    void (*rule)(OpContext&) = nullptr;
    const OpSchema* schema = nullptr;
  };
  const ResolvedOp& resolve(const Node& node);
  struct PointerPairHash {
    size_t operator()(const std::pair<const void*, const void*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  std::unordered_map<std::pair<const void*, const void*>, ResolvedOp, PointerPairHash> resolved_;

  const Model& model_;
  const InferOptions& options_;
  RunResult& result_;
  NodeRunner runner_;
  StorageIds storage_;
  StringMap<const TensorRef*> initializers_;
  StringMap<std::unique_ptr<KnownData>> initializer_cache_;
  StringMap<const Function*> functions_;  // "domain::name"
  // dim_param -> its size: a main-graph input's dim, or the fresh size a
  // failed node's declared output first gave it
  StringMap<SymInt> dim_params_;
  size_t subgraph_depth_ = 0;
  const Scope* current_scope_ = nullptr;
  std::unique_ptr<DispatchCache> cache_;  // null when off
  InitializerLookup cache_initializers_;  // what its keys read
  // Where nodes run a second time on real inputs (runner/real_values.h):
  // every size is concrete there, so nothing it decides touches this run.
  std::unique_ptr<ShapeEnv> real_env_;
  StorageIds real_storage_;
  Graph* releasable_ = nullptr;
};

RunResult run_model(const Model& model, const InferOptions& options, const RunControl& control = {});
// The same, consuming the model: its main graph's nodes are freed as they run
// (the model's names live on in the result), a value's known elements once
// its last reader ran (reports never print them), and in a large graph the
// freed heap pages are handed back to the system where the process allows it
// (util/heap_trim.h).
RunResult run_model(Model&& model, const InferOptions& options, const RunControl& control = {});

}  // namespace fakeprop::onnx
