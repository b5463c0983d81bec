#include "fakeprop/sym/dynamic_log.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace fakeprop {
namespace {

struct TorchLogsCase {
  const char* spec;
  LogLevel expected;
};

class ParseTorchLogsTest : public ::testing::TestWithParam<TorchLogsCase> {};

TEST_P(ParseTorchLogsTest, LevelOfSpec) {
  EXPECT_EQ(parse_torch_logs(GetParam().spec), GetParam().expected) << GetParam().spec;
}

INSTANTIATE_TEST_SUITE_P(DynamicLog, ParseTorchLogsTest,
                         ::testing::Values(TorchLogsCase{"", LogLevel::Off},                  //
                                           TorchLogsCase{"dynamic", LogLevel::Info},           //
                                           TorchLogsCase{"+dynamic", LogLevel::Debug},         //
                                           TorchLogsCase{"-dynamic", LogLevel::Off},           //
                                           TorchLogsCase{"guards", LogLevel::Off},             //
                                           TorchLogsCase{"guards,dynamic", LogLevel::Info},    //
                                           TorchLogsCase{"+dynamic,guards", LogLevel::Debug},  //
                                           TorchLogsCase{"guards, +dynamic", LogLevel::Debug}, //
                                           TorchLogsCase{"all", LogLevel::Info},               //
                                           TorchLogsCase{"+all", LogLevel::Debug},             //
                                           TorchLogsCase{"dynamo,+all", LogLevel::Debug},      //
                                           TorchLogsCase{"dynamics", LogLevel::Off},           //
                                           TorchLogsCase{"dynamic,+dynamic", LogLevel::Debug}));

TEST(DynamicLogTest, OffByDefaultWritesNothing) {
  DynamicLog log;
  std::ostringstream out;
  log.capture_to(out);
  EXPECT_EQ(log.level(), LogLevel::Off);
  log.info("a.cpp", 1, "hidden");
  log.debug("a.cpp", 1, "hidden");
  EXPECT_EQ(out.str(), "");
}

TEST(DynamicLogTest, InfoLevelHidesDebugLines) {
  DynamicLog log;
  std::ostringstream out;
  log.capture_to(out);
  log.set_level(LogLevel::Info);
  EXPECT_TRUE(log.info_enabled());
  EXPECT_FALSE(log.debug_enabled());
  log.info("x.cpp", 3, "shown");
  log.debug("x.cpp", 4, "hidden");
  EXPECT_NE(out.str().find("shown"), std::string::npos);
  EXPECT_EQ(out.str().find("hidden"), std::string::npos);
}

TEST(DynamicLogTest, GlogStylePrefix) {
  DynamicLog log;
  std::ostringstream out;
  log.capture_to(out);
  log.set_level(LogLevel::Debug);
  log.info("/some/dir/shape_env.cpp", 120, "create_symbol s0 = 8 for L['x'].size()[0] [2, int_oo]");
  log.debug("lib/dynamic_log.cpp", 7, "eval True == True [statically known]");
  const std::regex info_line(
      R"(I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} \d+ shape_env\.cpp:120\] \[0/0\] create_symbol s0 = 8 for L\['x'\]\.size\(\)\[0\] \[2, int_oo\]\n)"
      R"(D\d{4} \d{2}:\d{2}:\d{2}\.\d{6} \d+ dynamic_log\.cpp:7\] \[0/0\] eval True == True \[statically known\]\n)");
  EXPECT_TRUE(std::regex_match(out.str(), info_line)) << out.str();
}

TEST(DynamicLogTest, MacrosSkipDisabledLevels) {
  DynamicLog log;
  std::ostringstream out;
  log.capture_to(out);
  int built = 0;
  auto message = [&] {
    ++built;
    return std::string("m");
  };
  FP_LOG_INFO(log, message());
  EXPECT_EQ(built, 0);  // the message is not even built when the level is off
  log.set_level(LogLevel::Info);
  FP_LOG_DEBUG(log, message());
  EXPECT_EQ(built, 0);
  FP_LOG_INFO(log, message());
  EXPECT_EQ(built, 1);
  EXPECT_NE(out.str().find("dynamic_log_test.cpp:"), std::string::npos);
}

}  // namespace
}  // namespace fakeprop
