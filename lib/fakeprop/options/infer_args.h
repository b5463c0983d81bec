// The options of a run as a user writes them: the CLI's flags and the Python
// package's keyword arguments both fill one InferArgs, and to_options() is
// the one place that turns that text into InferOptions. The files options
// name (--op-rules, --real-input) are read above this layer, by
// driver/read_options.h, which the front doors call.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fakeprop/options/infer_options.h"

namespace fakeprop {

struct InferArgs {
  std::vector<std::string> dynamic, unbacked, static_, marks;
  std::vector<std::string> inputs;  // NAME=DIMS, e.g. x=8,3,224,224
  std::string device = "cpu";
  std::string log;                  // dynamic or +dynamic; empty: TORCH_LOGS
  bool no_specialize_zero_one = false;
  bool no_duck_shape = false;
  bool backed_size_oblivious = false;
  bool no_assume_static_by_default = false;
  bool strict = false;
  std::string explain_guard;   // empty: TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED
  std::string explain_symbol;  // empty: TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL
  std::vector<std::string> op_rules;  // --op-rules files, read (and checked) by read_options()
  std::vector<std::string> unbacked_values;  // --unbacked-value NAME=INT, e.g. u0=37
  std::vector<std::string> real_inputs;      // --real-input [NAME=]FILE.pb|FILE.npy|DIR
  std::vector<std::pair<std::string, std::string>> real_input_arrays;  // the package's arrays: NAME, .npy bytes
  bool real_run = false;  // the package ran the program on real inputs (propagate(real_inputs=...))
  // Limits on what a model file may hold (options/limits.h); 0 keeps the default.
  uint64_t max_nodes = 0;
  uint64_t max_program_bytes = 0;
  uint64_t max_compression_ratio = 0;
  // Sizing: round every storage up to a multiple of this many bytes (0: exact),
  // and element sizes replaced, DTYPE=BYTES (float32=2 plans a float32 export in half precision).
  int64_t alloc_round = 0;
  std::vector<std::string> dtype_bytes;

  // The options without the files they name: no op_rules, no real_inputs.
  // Throws InputError naming the option (as the CLI spells it) for a malformed value.
  InferOptions to_options() const;
};

}  // namespace fakeprop
