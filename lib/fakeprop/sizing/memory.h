// Memory over a graph's order, as an expression over its symbols.
//
// The definition (docs/sizing.md, and what testdata/memory's tracker
// measures in torch): the graph's own nodes run in order; a node's outputs
// allocate the storages first seen there (a view or an in-place result
// allocates nothing, and a storage shared by aliases counts once), each
// storage's bytes being what its tensor spans (numel times the element size
// for a dense tensor). A storage is live from the node that allocates it to
// its last reader, that reader included; graph inputs, parameters and what
// the outputs alias are live throughout. Live bytes at a node are the sum
// over the storages live there, so they include the node's inputs and
// outputs. A training joint graph is no different: a saved activation's last
// reader is its backward use.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/sym/expr.h"
#include "fakeprop/value/run_result.h"
#include "fakeprop/value/sizing_options.h"

namespace fakeprop {

enum class StorageKind : uint8_t { Parameter, Input, Activation };
std::string_view storage_kind_name(StorageKind k);  // "parameter", "input", "activation"

struct StorageLife {
  int64_t storage = -1;
  StorageKind kind = StorageKind::Activation;
  bool output = false;  // a graph output aliases it: live to the end
  size_t first = 0;     // position of the node that allocates it (0 for inputs and parameters)
  size_t last = 0;      // position of its last reader (the last position when held)
  ExprRef bytes = nullptr;
  std::string_view value;  // the value that allocated it (a name the run's records hold)
};

// Expressions are over the run's symbols, simplified by its ShapeEnv and
// expanded to sums of monomials.
struct MemoryAnalysis {
  std::vector<const NodeRecord*> order;  // positions: the graph's own nodes, in order
  std::vector<StorageLife> storages;
  std::vector<ExprRef> allocated;  // bytes the node at each position allocates
  ExprRef parameter_bytes = nullptr, input_bytes = nullptr, output_bytes = nullptr;
  // The max of live bytes over the positions that can hold it. Live bytes
  // are a sum of storage sizes, counted per distinct size expression; a
  // position whose counts another's bound from above (a position that
  // allocates nothing never exceeds the one before it) is dropped, and so is
  // a candidate that another bounds over every size in the symbols' ranges,
  // so evaluating `peak` is evaluating a handful of sums.
  ExprRef peak = nullptr;
  std::vector<size_t> peak_candidates;  // positions
  std::vector<ExprRef> candidate_live;  // live bytes at each of them
  // Nodes whose outputs' sizes are not known (an unknown rank, an opaque
  // value): their storages are missing from every figure.
  std::vector<std::string> unknown;
};

// With r.sizing's options unless `options` is given.
MemoryAnalysis analyze_memory(const RunResult& r);
MemoryAnalysis analyze_memory(const RunResult& r, const SizingOptions& options);

// A symbol's value; nullopt when it has none.
using SymbolValues = std::function<std::optional<int64_t>(ExprRef)>;

struct MemoryAt {
  int64_t peak = 0;
  size_t peak_position = 0;
  std::vector<int64_t> live;           // per position
  std::vector<size_t> live_at_peak;    // indices into storages, largest first
  int64_t parameter_bytes = 0, input_bytes = 0, output_bytes = 0;
};

// Every figure at one assignment. Throws Error naming the symbol when one
// has no value, and OverflowError past 64 bits.
MemoryAt memory_at(const MemoryAnalysis& a, const SymbolValues& values);
// The peak alone, from the candidates: what a solver evaluates.
int64_t peak_at(const MemoryAnalysis& a, const SymbolValues& values);

// An expression's value; Error naming the first symbol without one.
int64_t value_at(ExprRef e, const SymbolValues& values);

struct ComputeAnalysis {
  ExprRef flops = nullptr;  // every node's, nested ones included
  ExprRef bytes_read = nullptr, bytes_written = nullptr;  // of the nodes with FLOPs
  std::vector<const NodeRecord*> nodes;  // the nodes with FLOPs, in record order
  std::vector<ExprRef> written;           // the bytes each of them writes
};
ComputeAnalysis analyze_compute(const RunResult& r);
// The bytes a node's outputs span (numel * element size).
ExprRef output_bytes(const NodeRecord& n);

}  // namespace fakeprop
