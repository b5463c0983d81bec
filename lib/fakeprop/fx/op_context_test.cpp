// The registry's mutation facts: in-place twins carry their Mutation kind,
// and add_inplace refuses what is not an in-place twin.
#include "fakeprop/fx/op_context.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

namespace fakeprop::fx {
namespace {

// "aten.add_.Tensor" -> "add_"
std::string aten_name(const std::string& target) {
  const std::string rest = target.substr(5);
  return rest.substr(0, rest.find('.'));
}

void noop_rule(OpContext&) {}

TEST(OpRegistryMutation, EveryInPlaceNameIsRegisteredAsATwin) {
  const OpRegistry& r = OpRegistry::instance();
  size_t twins = 0;
  for (const std::string& target : r.all()) {
    const std::string name = aten_name(target);
    const bool inplace_name = name.size() > 1 && name.back() == '_' && name.front() != '_';
    const OpEntry* e = r.find_entry(target);
    ASSERT_NE(e, nullptr) << target;
    EXPECT_EQ(e->mutation != Mutation::None, inplace_name) << target;
    twins += inplace_name;
  }
  EXPECT_GT(twins, 100u);
}

TEST(OpRegistryMutation, MetadataMutatingOpsAreExactlyTheViewTwins) {
  const std::set<std::string> metadata = {"t_", "transpose_", "squeeze_", "unsqueeze_", "resize_",
                                          "as_strided_", "swapdims_", "swapaxes_", "resize_as_"};
  const OpRegistry& r = OpRegistry::instance();
  std::set<std::string> seen;
  for (const std::string& target : r.all()) {
    const std::string name = aten_name(target);
    const bool is_metadata = r.find_entry(target)->mutation == Mutation::Metadata;
    EXPECT_EQ(is_metadata, metadata.count(name) > 0) << target;
    if (is_metadata) seen.insert(name);
  }
  EXPECT_EQ(seen, metadata);
  EXPECT_EQ(r.find_entry("aten.add_.Tensor")->mutation, Mutation::Data) << "a packet's twin serves its overloads";
  EXPECT_EQ(r.find_entry("aten.add.Tensor")->mutation, Mutation::None);
  EXPECT_EQ(r.find_entry("aten.copy_.default")->mutation, Mutation::Data);
  EXPECT_EQ(r.find_entry("aten.__iand__.Tensor")->mutation, Mutation::None);
}

TEST(OpRegistryMutation, AddInplaceRefusesWhatIsNotATwin) {
  OpRegistry r;
  EXPECT_THROW(r.add_inplace("aten.add.Tensor", noop_rule), std::logic_error);
  EXPECT_THROW(r.add_inplace("aten.__iand__.Tensor", noop_rule), std::logic_error);
  EXPECT_THROW(r.add_inplace("aten.add_.Tensor", noop_rule, Mutation::None), std::logic_error);
  r.add_inplace("aten.relu_", noop_rule);
  r.add_inplace("aten.t_.default", noop_rule, Mutation::Metadata, OutputGrad::none());
  EXPECT_EQ(r.find_entry("aten.relu_.default")->mutation, Mutation::Data);
  EXPECT_EQ(r.find_entry("aten.t_.default")->mutation, Mutation::Metadata);
  EXPECT_FALSE(r.find_entry("aten.t_.default")->grad.differentiable(0));
  r.add("aten.relu_", noop_rule);
  EXPECT_EQ(r.find_entry("aten.relu_")->mutation, Mutation::None) << "a later registration replaces the entry";
}

}  // namespace
}  // namespace fakeprop::fx
