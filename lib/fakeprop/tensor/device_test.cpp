#include "fakeprop/tensor/device.h"

#include <gtest/gtest.h>

namespace fakeprop {
namespace {

TEST(TensorDevice, ParseAndPrint) {
  struct Case {
    const char* text;
    std::optional<Device> parsed;
    const char* printed;
  };
  const Case cases[] = {
      {"cpu", Device::cpu(), "cpu"},
      {"meta", Device::meta(), "meta"},
      {"cuda", Device::cuda(0), "cuda:0"},
      {"cuda:0", Device::cuda(0), "cuda:0"},
      {"cuda:3", Device::cuda(3), "cuda:3"},
      {"cuda:", std::nullopt, ""},
      {"cuda:-1", std::nullopt, ""},
      {"cuda:1x", std::nullopt, ""},
      {"cuda:99999999999", std::nullopt, ""},
      {"cuda:127", Device::cuda(127), "cuda:127"},  // c10's DeviceIndex is int8_t
      {"cuda:128", std::nullopt, ""},
      {"gpu", std::nullopt, ""},
      {"CPU", std::nullopt, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::optional<Device> d = Device::parse(c.text);
    ASSERT_EQ(d.has_value(), c.parsed.has_value());
    if (!d) continue;
    EXPECT_EQ(*d, *c.parsed);
    EXPECT_EQ(d->str(), c.printed);
  }
}

TEST(TensorDevice, Predicates) {
  EXPECT_TRUE(Device::cpu().is_cpu());
  EXPECT_FALSE(Device::cpu().is_cuda());
  EXPECT_TRUE(Device::cuda(1).is_cuda());
  EXPECT_FALSE(Device::meta().is_cpu());
  EXPECT_NE(Device::cuda(0), Device::cuda(1));
}

}  // namespace
}  // namespace fakeprop
