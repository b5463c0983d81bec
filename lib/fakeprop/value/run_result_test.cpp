#include "fakeprop/value/run_result.h"

#include <gtest/gtest.h>

namespace fakeprop {
namespace {

TEST(OutputList, KeepsTheFirstOutputInlineAndTheRestBehindIt) {
  NamePool pool;
  OutputList outs;
  EXPECT_TRUE(outs.empty());
  EXPECT_EQ(outs.begin(), outs.end());
  outs.push_back({pool.intern("y"), Value::of_int(3)});
  const Value* first = &outs[0].val;
  NamedValue& second = outs.emplace_back();
  second.name = pool.intern("indices");
  second.val = Value::of_int(4);
  outs.push_back({pool.intern("mask"), Value::of_bool(true)});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(first, &outs[0].val);  // later outputs never move the first
  EXPECT_EQ(outs.front().name, "y");
  EXPECT_EQ(outs.back().name, "mask");
  EXPECT_EQ(outs.at(1).val.i.value(), 4);
  EXPECT_THROW(outs.at(3), std::out_of_range);
  std::string names;
  for (const NamedValue& o : outs) names += o.name.str() + ";";
  EXPECT_EQ(names, "y;indices;mask;");
}

TEST(OutputList, RecordsStayWhereTheyAreAsARunGrows) {
  RunResult r;
  NamePool& pool = r.names;
  r.nodes.emplace_back().outputs.push_back({pool.intern("a"), Value::of_int(1)});
  const Value* a = &r.nodes[0].outputs[0].val;
  for (int i = 0; i < 2000; ++i) r.nodes.emplace_back().outputs.push_back({pool.intern("x"), Value::of_int(i)});
  EXPECT_EQ(a, &r.nodes[0].outputs[0].val);  // interpreters point into records
}

}  // namespace
}  // namespace fakeprop
