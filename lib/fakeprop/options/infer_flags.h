// The inference options as a command line spells them: one row per option,
// in the order the CLI lists them. A baseline of `fakeprop check` records its
// options in this form (["--input", "x=4,16"]), whichever front door made it,
// and reads them back through the same table.
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
  std::string_view flag;     // "--input"
  std::string_view keyword;  // the extension's key for it ("inputs")
  std::variant<Strings, Flag, Text, Count, Bytes> member;
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
