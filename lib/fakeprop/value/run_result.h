// What one run of fakeprop over a graph produced; the reports are built from it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeprop/value/sizing_options.h"
#include "fakeprop/value/value.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/chunked_vector.h"
#include "fakeprop/util/error_kind.h"
#include "fakeprop/util/index_iterator.h"
#include "fakeprop/util/name_pool.h"
#include "fakeprop/util/output_file.h"
#include "fakeprop/util/thin_vector.h"

namespace fakeprop {

// Names in records are RunResult::names' or a pool it keeps (the model's):
// a graph's node and value names are stored once, not once per record.
struct NamedValue {
  Name name;
  Value val;
};

struct InputRecord {
  std::string name;
  std::string source;  // L['x']
  Value val;
};

// A node's outputs: the first inline (nearly every node has exactly one),
// the rest in a ThinVector. Outputs do not move once the list is complete and
// stays where it is (records live in a ChunkedVector; the interpreters point
// into them).
class OutputList {
 public:
  using value_type = NamedValue;
  using iterator = IndexIterator<OutputList, false>;
  using const_iterator = IndexIterator<OutputList, true>;

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  NamedValue& operator[](size_t i) { return i == 0 ? first_ : more_[i - 1]; }
  const NamedValue& operator[](size_t i) const { return i == 0 ? first_ : more_[i - 1]; }
  const NamedValue& at(size_t i) const {
    if (i >= count_) throw std::out_of_range("OutputList::at");
    return (*this)[i];
  }
  NamedValue& front() { return first_; }
  const NamedValue& front() const { return first_; }
  NamedValue& back() { return (*this)[count_ - 1]; }
  const NamedValue& back() const { return (*this)[count_ - 1]; }
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, count_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, count_}; }

  NamedValue& emplace_back() { return count_++ == 0 ? first_ : more_.emplace_back(); }
  void push_back(NamedValue v) { emplace_back() = std::move(v); }

 private:
  NamedValue first_;
  ThinVector<NamedValue> more_;
  size_t count_ = 0;
};

struct NodeRecord {
  Name name;
  Name op;  // "Conv", "com.microsoft.Attention", "aten.add.Tensor"
  OutputList outputs;
  // unbacked symbol name -> key path (".size()[0]", "", "[1].size()[0]")
  ThinVector<std::pair<std::string, std::string>> unbacked_bindings;
  // Its rule failed: the outputs are fallbacks (declared types, or element
  // types alone), not computed.
  bool fallback = false;
  // Nesting: 0 for the graph's own nodes, more inside an If's branch or a
  // function's body (recorded before the node that holds them).
  uint16_t depth = 0;
  // For sizing (sizing/): the storages the node's tensor arguments live in
  // (RunResult::read_storages[reads_begin, +reads_count)), its FLOPs as
  // torch.utils.flop_counter counts them (null: none), and for a node with
  // FLOPs the bytes its tensor arguments span.
  uint32_t reads_begin = 0;
  uint32_t reads_count = 0;
  ExprRef flops = nullptr;
  ExprRef bytes_read = nullptr;
};

struct ErrorRecord {
  std::string node;  // "" when not tied to a node
  ErrorKind kind;
  std::string message;
  std::vector<std::string> fixes{};  // data_dependent: torch._check(...) calls that would let it continue
};

// A specialization decided when inputs were created (0/1 specialization of a
// dim marked dynamic, a static mark); ShapeEnv records the ones taken later.
struct InputSpecialization {
  std::string source;
  int64_t value;
  std::string reason;
};

// An in-place metadata mutation (t_, transpose_, resize_, ...): the node that
// mutated, the node whose tensor changed, and the earlier nodes whose recorded
// value no longer describes the live tensor.
struct MutationRecord {
  std::string node;
  std::string op;
  std::string mutated;  // node name of the tensor argument
  std::vector<std::string> stale_nodes;
};

// The fake gradient of an input or parameter that requires grad.
struct GradientRecord {
  std::string name;
  Value grad;
};

// Counters and timing for --stats: the dispatch cache
// (runner/dispatch_cache.h explains it) and the time spent propagating.
// Zeros and enabled = false while the cache is off.
struct DispatchStats {
  bool enabled = false;
  uint64_t hits = 0;
  uint64_t misses = 0;      // looked up, not found, rule run
  uint64_t bypasses = 0;    // not cacheable: subgraphs, sequences, large constant attributes
  std::vector<std::pair<std::string_view, uint64_t>> bypass_reasons;  // the bypasses by reason
  uint64_t not_stored = 0;  // misses whose rule touched the ShapeEnv, failed or noted lost precision
  uint64_t entries = 0;     // entries alive at the end
  double propagate_ms = -1;  // < 0: not measured separately from loading
};

struct RunResult;

// One extra result of a --mark specialize_on predicate, beside the generic one.
struct SpecializedRun {
  std::string mark;       // the --mark text
  std::string predicate;  // over the dim's source: L['x'].size()[0] % 16 == 0
  std::shared_ptr<RunResult> run;
};

// A node whose outputs came from a user's --op-rules rule.
struct OpRuleUse {
  std::string node;
  std::string op;    // "mylib.rms_norm.default", "com.acme::Tile2"
  std::string rule;  // "FILE:LINE" of the rule's header
};

struct RunResult {
  std::string model_path;
  // Every file the run read (the model, its external data, rules and
  // real-input files): no output of the run may replace one (util/output_file.h).
  std::vector<ProtectedFile> input_files;
  std::string model_kind;  // "onnx" | "fx" | "pt2" (a torch.export archive, run as FX)
  // The symbols start in ranges the program declares (a .pt2's
  // range_constraints), not where torch's ShapeEnv creates an input size
  // ([2, int_oo]); set by the front end, read by the TORCH_TRACE log.
  bool symbols_in_declared_ranges = false;
  Device device;
  std::vector<InputRecord> inputs;
  // Tensors the model holds outside its nodes (an ONNX graph's initializers;
  // an FX graph's parameters are its get_attr nodes).
  std::vector<InputRecord> parameters;
  std::vector<NamedValue> outputs;
  ChunkedVector<NodeRecord> nodes;  // chunked: records never move, and interpreters point into them
  std::vector<int64_t> read_storages;  // NodeRecord::reads_begin indexes it
  SizingOptions sizing;                // how the report's memory section counts bytes
  std::vector<ErrorRecord> errors;
  std::vector<ErrorRecord> warnings;
  std::vector<InputSpecialization> input_specializations;
  std::vector<MutationRecord> mutations;
  std::vector<GradientRecord> gradients;
  std::vector<OpRuleUse> op_rule_uses;
  bool op_rules_given = false;  // --op-rules: the report lists op_rule_uses
  std::string op_rules_digest;  // the rules files' md5 (OpRuleSet::digest), for `check`
  bool real_values_given = false;  // --unbacked-value: the report lists the decisions they took
  std::vector<SpecializedRun> specialized;
  std::unique_ptr<ShapeEnv> env;
  DispatchStats dispatch;
  NamePool names;  // of the records
  std::vector<std::shared_ptr<const NamePool>> borrowed_names;  // other pools records point into
};

}  // namespace fakeprop
