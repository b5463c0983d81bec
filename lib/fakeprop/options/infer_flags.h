// The inference options, one row each, in the order the CLI lists them: the
// flag, the Python keyword, the key the package's extension takes, the
// InferArgs member, the value's name and the help. The CLI's options
// (cmd/cli.cpp), the extension's keys (python/fakeprop/_core.cpp) and the
// check that the docs name the same options (scripts/check_options.py) all
// read it. A baseline of `fakeprop check` records its options as flags
// (["--input", "x=4,16"]), whichever front door made it, and reads them back
// through it.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fakeprop/options/infer_args.h"

namespace fakeprop {

struct InferFlag {
  using Strings = std::vector<std::string> InferArgs::*;  // repeatable
  using Flag = bool InferArgs::*;                         // takes no value
  using Text = std::string InferArgs::*;
  using Count = uint64_t InferArgs::*;
  using Bytes = int64_t InferArgs::*;
  // What the CLI accepts beyond the member's type.
  enum class Check : uint8_t { None, Device, Positive, NonNegative };
  std::string_view flag;     // "--input"
  std::string_view keyword;  // Python's: "inputs"; a --no-X flag is X=False ("duck_shape")
  std::string_view key;      // the extension's ("inputs", "no_duck_shape"): the member's name
  std::variant<Strings, Flag, Text, Count, Bytes> member;
  std::string_view value_name;  // "NAME=DIMS"; empty: CLI11's own
  std::string_view help;
  Check check = Check::None;
  bool recorded = true;  // false: a baseline leaves it out (--op-rules: the rules' digest is compared instead)
};

std::span<const InferFlag> infer_flags();

// The options of `args` that differ from InferArgs' defaults, as flags and
// values in the table's order, recorded ones only.
std::vector<std::string> recorded_flags(const InferArgs& args);

// Flags and values back into InferArgs. Throws InputError naming the first
// one that is unknown, lacks its value or is not a number where one is due.
InferArgs args_from_flags(const std::vector<std::string>& flags);

}  // namespace fakeprop
