// The FX front end's walk, as FakeTensorProp's: each node runs through the
// NodeRunner (runner/node_runner.h) with its ATen rule, or operator.* on
// SymInts, and its example meta as a failed node's fallback. Each node's
// meta['val'] is an immutable snapshot; views alias their base's storage;
// in-place ops bump versions; metadata mutations are reported with the
// earlier nodes whose recorded value no longer describes the live tensor.
#pragma once
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakeprop/fx/graph.h"
#include "fakeprop/options/infer_options.h"
#include "fakeprop/value/run_result.h"
#include "fakeprop/runner/dispatch_cache.h"
#include "fakeprop/runner/node_runner.h"

namespace fakeprop {
struct AtenSchema;  // runner/torch_schema.h
}
namespace fakeprop::custom_ops {
struct OpRule;
}

namespace fakeprop::fx {

struct OpEntry;

RunResult run_graph(const Graph& g, const InferOptions& options);

// Memo of data-dependent results (nonzero, item, unique...) per input
// tensor version, as FakeTensor memoizes them until the tensor is mutated.
// Keyed by the tensor's storage, its version and its view of the storage
// (sizes, strides, offset as text): aliases of one storage (views, inputs
// the graph declares aliased) share an entry only when they read the same
// elements, and a write through any of them bumps the version.
struct DataDependentMemo {
  using Key = std::tuple<std::string, int64_t, int64_t, std::string>;  // (op, storage, version, view)
  static Key key(const std::string& op, const TensorMeta& t, int64_t version);
  std::map<Key, Value> entries;
};

class Interpreter {
 public:
  Interpreter(const Graph& g, const InferOptions& options, RunResult& result);
  void run();

  // In-place ops: the live tensor of storage `storage` changes version (data
  // mutation) or metadata (t_, transpose_, ...), recorded for the report.
  void note_data_mutation(int64_t storage);
  int64_t version_of(int64_t storage) const;
  DataDependentMemo& memo() { return memo_; }
  // A data-dependent count (nonzero's rows) bounded by `numel`'s range when
  // it was made: AOTAutograd's retrace makes it again, bounded by the range
  // numel has after Dynamo's trace, and keeps the narrower of the two. A
  // bound at most `unbounded_to` is none (masked_select bounds only past 2).
  void note_count_bound(const SymInt& count, const SymInt& numel, int64_t unbounded_to = -1) {
    if (count.is_symbolic() && numel.is_symbolic()) count_bounds_.push_back({count, numel, unbounded_to});
  }
  const Graph& graph() const { return graph_; }
  // A rule read state beyond its arguments (OpContext::interpreter): its
  // result is not stored in the dispatch cache.
  void note_state_read() { state_read_ = true; }
  // Zeros and enabled = false when the cache is off.
  DispatchStats dispatch_stats() const;
  ShapeEnv& env() { return *result_.env; }
  StorageIds& storage() { return storage_; }
  // Runs a higher-order op's subgraph on `inputs` (one per placeholder, in
  // order) within this run: the same ShapeEnv and storage ids, its nodes
  // recorded apart and dropped, as torch's fake implementations trace a
  // subgraph. Returns its outputs; the first error of its nodes is thrown
  // as an OpError naming the subgraph's node.
  std::vector<Value> run_subgraph(const Graph& sub, std::span<const Value> inputs);
  // The FLOPs of the subgraphs the current call ran, summed (null: none):
  // they become the call's own, as torch's FlopCounterMode counts cond's
  // branches inside it. A loop's rule scales them by its length, or drops
  // them where its trip count is not known.
  void scale_subgraph_flops(const SymInt& times);
  void drop_subgraph_flops() { subgraph_flops_ = nullptr; }

 private:
  // What running a call needs to know about its target, worked out once per
  // distinct target rather than once per node.
  struct TargetInfo {
    const OpEntry* entry = nullptr;  // the ATen rule; null when there is none
    const AtenSchema* schema = nullptr;  // torch's schema of the target (a HOP's signature); null when it has none
    bool is_scalar = false;          // operator.*, math.floor, torch.sym_float, ...: scalar_ops.h, `op` names it
    std::string_view op;
    bool inplace = false;            // the entry's Mutation is Data or Metadata
    bool metadata_mutating = false;  // Mutation::Metadata: t_, transpose_, resize_, ...
  };
  const TargetInfo& target_info(const std::string& target);
  // Position of the node an Arg names when that node already has a value, else Arg::kNoNode.
  uint32_t position_of(const Arg& a) const;
  Value example_to_value(const Node& n, const std::string& source);
  void memoize_item(const TensorMeta& t, const ExampleTensor::Item& item, const std::string& src);
  Value resolve(const Arg& a) const;
  const Value& resolve_node(const Arg& a) const;  // InputError unless it names an earlier node
  const Value* argument(const Arg& a);            // for the call being run (see call_values_)
  Value run_call(const Node& n, uint32_t position);
  // The rule's result for the call, from the dispatch cache or by running it.
  Value run_rule(const Node& n, const OpEntry& entry, const TargetInfo& info, std::span<const Value* const> args);
  // The call's arguments against the target's schema, before its rule:
  // OpError with torch's text for a wrong one.
  void check_arguments(const Node& n, const TargetInfo& info, std::span<const Value* const> args) const;
  // Writes the call's key into the cache's buffer; false when it is not keyed.
  bool write_dispatch_key(const Node& n);
  Value run_user_rule(const custom_ops::OpRule& rule, const Node& n, std::span<const Value* const> args);
  void note_stale_aliases(const Node& n, uint32_t mutated, int64_t storage);
  void append_aliases(std::vector<std::string>& names, uint32_t mutated, int64_t storage) const;
  uint32_t position_named(const std::string& name) const;  // Arg::kNoNode when none
  // A declared gradient (Graph::gradients) meeting its leaf: the error the
  // .grad assignment raises, if any; and the .grad AccumulateGrad makes.
  std::optional<ErrorRecord> check_gradient(const std::string& leaf, const TensorMeta& grad, const TensorMeta& var);
  TensorValue accumulated_gradient(const TensorMeta& leaf);
  // A failed call's value: its example meta's dtype, device and static dims,
  // fresh unbacked sizes for the others; opaque without an example tensor.
  Value example_fallback(const Node& n, const std::string& why);
  // torch.compile's AOTAutograd traces the graph with make_fx, which records
  // each value's tensor_meta and so guards its layout (traced_memory_format);
  // a graph torch.export made has those answers in its range constraints.
  void ask_tensor_meta(const Value& v);
  void record_outputs(const Node& output_node);
  class Step;  // one node for the NodeRunner

  const Graph& graph_;
  ExprRef subgraph_flops_ = nullptr;  // see scale_subgraph_flops
  // A subgraph's run (run_subgraph): its placeholders' values, and how deep it is.
  std::span<const Value> sub_inputs_;
  bool is_subgraph_ = false;
  size_t depth_ = 0;
  const InferOptions& options_;
  RunResult& result_;
  NodeRunner runner_;
  StorageIds storage_;
  // The live value of each node, by position in graph_.nodes: its record's
  // output in result_.nodes (reserved, so it stays put), or after a metadata
  // mutation an entry of replaced_values_; null until the node has run (the
  // output node never gets one).
  std::vector<const Value*> values_;
  std::deque<Value> replaced_values_;
  std::unordered_map<int64_t, int64_t> versions_;
  std::unordered_map<std::string, ExprRef> named_symbols_;  // symbol names from examples
  InputDimFactory input_dims_;                              // placeholder dims the options mark
  // Dims marked dynamic that the trace specialized (the example's `specialized`):
  // their symbol and the constant, specialized after the walk if the ops left it symbolic.
  struct TracedSpecialization {
    SymInt size;
    int64_t value;
    std::string placeholder;
  };
  std::vector<TracedSpecialization> traced_specializations_;
  struct CountBound {
    SymInt count;
    SymInt numel;
    int64_t unbounded_to;
  };
  std::vector<CountBound> count_bounds_;
  DataDependentMemo memo_;
  const Node* current_ = nullptr;
  // Per node position: the position of the tensor it is (itself, or for the
  // result of an in-place op, the tensor that op mutated).
  std::vector<uint32_t> identity_;
  std::vector<uint32_t> record_positions_;  // node position of each entry of result_.nodes
  std::vector<uint32_t> leaves_;            // placeholders and get_attrs, in order
  std::unordered_map<int64_t, int64_t> declared_storages_;  // an example's storage id -> its fake storage
  bool aliased_inputs_ = false;  // two examples declared one storage
  std::unordered_map<std::string_view, TargetInfo> targets_;
  // The arguments of the call being run, reused from call to call: pointers
  // to live values, or to values built from literals held in call_values_.
  std::vector<Value> call_values_;
  std::vector<const Value*> call_args_;
  std::vector<std::pair<std::string_view, const Value*>> call_kwargs_;
  const Node* call_node_ = nullptr;  // the call call_args_ holds the arguments of
  // The dispatch cache (runner/dispatch_cache.h); null when off, as it is
  // while the dynamic trace is on (a hit would drop its lines for
  // statically known decisions).
  std::unique_ptr<DispatchCache> cache_;
  std::vector<const Value*> cache_inputs_;  // the call's values outputs may be views of
  std::vector<Value> cache_outputs_;        // a hit's value
  std::vector<int64_t> cache_storages_;     // the storages seen while keying, for the alias pattern
  bool state_read_ = false;
  bool reused_ = false;  // the last run_call's value came from the cache
  // Name -> position, for Args the loader did not index; built on first need.
  mutable std::unordered_map<std::string_view, uint32_t> positions_;
};

}  // namespace fakeprop::fx
