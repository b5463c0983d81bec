// What happens around an operator rule, once for every front end. A front end
// is a loader plus rules: it walks its graph in order and hands each node to
// the NodeRunner with what differs between front ends (how the rule runs, and
// what a failed node's outputs become). The runner owns the rest, as ONNX's
// shape_inference/implementation.cc owns its one loop: the node's ShapeEnv
// context, the catch ladder that turns a failed rule into an `errors` entry on
// the node (never stopping the run), the expression cap, the unbacked
// bindings and the record.
#pragma once
#include <cstddef>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/sizing/node_arguments.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

// A run's start, whatever the front end: the result with its model, device and
// a ShapeEnv configured from the options (settings, trace level, extended debug).
RunResult begin_run(std::string_view model_kind, std::string model_path, const InferOptions& options);

// The sources (L['x']) of the graph's user inputs `names` (as --input spells
// them), in order, once every --input is checked to name one of them
// (otherwise an InputError names the inputs there are). A source spec or
// --mark that names none is ignored, as torch.compile ignores it.
std::vector<std::string> checked_input_sources(const InferOptions& options, std::span<const std::string> names);

// One node as its front end runs it.
class NodeStep {
 public:
  // The causal chain's node part (--explain-guard / --explain-symbol): one
  // "input NAME: VALUE" line per input. Called only when extended debug is on.
  virtual void describe_inputs(std::vector<std::string>& lines) const = 0;
  // Computes the outputs, one per output name (none for an absent output),
  // or throws: an OpError, DataDependentError, OverflowError or other Error is
  // recorded on the node; an InputError ends the run.
  virtual void run(std::vector<Value>& outputs) = 0;
  // The outputs of a node whose rule failed; `why` says what failed.
  // `rank_unknown`: it failed only because a rank is not known (an
  // unknown_rank OpError), so outputs may keep their element types.
  virtual void fallback(std::vector<Value>& outputs, const std::string& why, bool rank_unknown) = 0;
  // propagate_real_tensors (runner/real_values.h): after run(), the outputs
  // on the real inputs, one per output (nullopt where not known). False when
  // no input carries real elements, which is the common case.
  virtual bool run_real(std::vector<std::optional<Value>>& real) {
    (void)real;
    return false;
  }
  // After run() or fallback(): what the rule was given, for sizing (the
  // storages the node reads, its FLOPs). Valid until the next node runs.
  virtual void arguments(NodeArguments& in) const { (void)in; }
  // After a successful run(): the FLOPs of what the node ran inside it (a
  // higher-order op's subgraphs), added to its own; null when none.
  virtual ExprRef nested_flops() const { return nullptr; }
  // Set by run() when its outputs were reused (a dispatch cache hit): they
  // were capped when first computed.
  bool reused = false;
  // False for a node whose value is the user's input (an FX placeholder):
  // anything it throws ends the run instead of becoming an error on the node.
  bool recoverable = true;

 protected:
  ~NodeStep() = default;
};

class NodeRunner {
 public:
  NodeRunner(RunResult& result, const InferOptions& options) : result_(result), options_(options) {}

  // Runs one node: `name` and `op` as its record shows them, `outputs` the
  // names of its outputs (an empty name is an output the node does not
  // produce: it gets no entry in the record). Returns the stored record,
  // which never moves, so the front end may point into it.
  NodeRecord& run(Name name, Name op, std::span<const Name> outputs, NodeStep& step);

  RunResult& result() { return result_; }
  ShapeEnv& env() { return *result_.env; }

 private:
  RunResult& result_;
  const InferOptions& options_;
  // One output buffer per nesting depth (an If's branch runs its nodes inside
  // the If), kept from node to node so that running a node allocates none.
  // A deque: a deeper buffer's creation never moves a shallower one.
  std::deque<std::vector<Value>> scratch_;
  size_t depth_ = 0;
  std::vector<std::optional<Value>> real_scratch_;
};

}  // namespace fakeprop
