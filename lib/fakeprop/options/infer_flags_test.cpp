// The option table: what a check baseline records, and reading it back.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "fakeprop/options/infer_flags.h"
#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

using Flags = std::vector<std::string>;

TEST(InferFlags, DefaultsRecordNothing) {
  EXPECT_EQ(recorded_flags(InferArgs{}), Flags{});
  InferArgs cpu;
  cpu.device = "cpu";  // given at its default: the same run, not another option
  EXPECT_EQ(recorded_flags(cpu), Flags{});
}

TEST(InferFlags, RecordedInTableOrderAndReadBack) {
  InferArgs a;
  a.inputs = {"x=4,16", "y=2"};
  a.dynamic = {"x:0"};
  a.device = "cuda";
  a.no_duck_shape = true;
  a.max_nodes = 12;
  a.alloc_round = 512;
  a.op_rules = {"rules.txt"};  // not recorded: the rules' digest is compared instead
  const Flags flags = recorded_flags(a);
  EXPECT_EQ(flags, (Flags{"--dynamic", "x:0", "--input", "x=4,16", "--input", "y=2", "--device", "cuda",
                          "--no-duck-shape", "--max-nodes", "12", "--alloc-round", "512"}));
  InferArgs back = args_from_flags(flags);
  EXPECT_EQ(back.inputs, a.inputs);
  EXPECT_EQ(back.dynamic, a.dynamic);
  EXPECT_EQ(back.device, "cuda");
  EXPECT_TRUE(back.no_duck_shape);
  EXPECT_EQ(back.max_nodes, 12u);
  EXPECT_EQ(back.alloc_round, 512);
  EXPECT_TRUE(back.op_rules.empty());
  EXPECT_EQ(recorded_flags(back), flags);
}

TEST(InferFlags, EveryRowHasAFlagAKeywordAndAKeyOnce) {
  std::set<std::string_view> flags, keywords, keys;
  for (const InferFlag& f : infer_flags()) {
    EXPECT_TRUE(f.flag.starts_with("--")) << f.flag;
    EXPECT_TRUE(flags.insert(f.flag).second) << f.flag;
    EXPECT_TRUE(keywords.insert(f.keyword).second) << f.keyword;
    EXPECT_TRUE(keys.insert(f.key).second) << f.key;
    EXPECT_FALSE(f.help.empty()) << f.flag;
    // A --no-X flag is X=False in Python; any other keeps its name there.
    if (f.flag.starts_with("--no-")) {
      EXPECT_EQ("no_" + std::string(f.keyword), f.key) << f.flag;
    }
  }
}

std::string error_of(const Flags& flags) {
  try {
    args_from_flags(flags);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(InferFlags, MalformedRecordsAreInputErrors) {
  EXPECT_EQ(error_of({"--frobnicate"}), "--frobnicate: not an inference option");
  EXPECT_EQ(error_of({"--input"}), "--input: needs a value");
  EXPECT_EQ(error_of({"--max-nodes", "many"}), "--max-nodes many: not a number");
  EXPECT_EQ(error_of({"--max-nodes", "-3"}), "--max-nodes -3: not a number");
  EXPECT_EQ(error_of({"--alloc-round", "12x"}), "--alloc-round 12x: not a number");
}

}  // namespace
}  // namespace fakeprop
