// Runs a JSON FX graph under fake mode, as FakeTensorProp does: each node's
// meta['val'] is an immutable snapshot; views alias their base's storage;
// in-place ops bump versions; metadata mutations are reported with the
// earlier nodes whose recorded value no longer describes the live tensor.
#pragma once
#include <map>
#include <tuple>
#include <string>
#include <unordered_map>
#include <vector>

#include "fakeprop/fx/graph.h"
#include "fakeprop/graph/infer_options.h"
#include "fakeprop/graph/run_result.h"

namespace fakeprop::fx {

RunResult run_graph(const Graph& g, const InferOptions& options);

// Memo of data-dependent results (nonzero, item, unique...) per input
// tensor version, as FakeTensor memoizes them until the tensor is mutated.
struct DataDependentMemo {
  std::map<std::tuple<std::string, int64_t, int64_t>, Value> entries;  // (target, storage, version) -> result
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
  ShapeEnv& env() { return *result_.env; }
  StorageIds& storage() { return storage_; }

 private:
  Value example_to_value(const Node& n);
  Value resolve(const Arg& a) const;
  void run_call(const Node& n, NodeRecord& rec);

  const Graph& graph_;
  const InferOptions& options_;
  RunResult& result_;
  StorageIds storage_;
  std::unordered_map<std::string, Value> values_;  // node name -> live value
  std::unordered_map<int64_t, int64_t> versions_;
  std::unordered_map<std::string, ExprRef> named_symbols_;  // symbol names from examples
  InputDimFactory input_dims_;                              // placeholder dims the options mark
  DataDependentMemo memo_;
  std::string current_node_;
  std::unordered_map<std::string, std::string> identity_;  // in-place results -> the tensor they mutate
  std::vector<std::string> leaves_;                         // placeholders and get_attrs, in order
};

}  // namespace fakeprop::fx
