// The TORCH_LOGS=dynamic trace: ShapeEnv events on stderr through spdlog, with
// a glog-style prefix (I1129 10:44:22.123000 4242 shape_env.cpp:120] [0/0] ...).
#pragma once
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace spdlog {
class logger;
}

namespace fakeprop {

enum class LogLevel { Off, Info, Debug };

// "dynamic" -> Info, "+dynamic" -> Debug, anything without dynamic -> Off.
// Accepts comma-separated TORCH_LOGS lists ("+dynamic,guards").
LogLevel parse_torch_logs(std::string_view spec);

class DynamicLog {
 public:
  DynamicLog();  // level from nothing: Off
  void set_level(LogLevel level) { level_ = level; }
  LogLevel level() const { return level_; }
  // The frame/compile id each line carries ("0/0"; Dynamo's [0/N] for the N-th compile).
  void set_frame(std::string frame) { frame_ = std::move(frame); }
  bool info_enabled() const { return level_ != LogLevel::Off; }
  bool debug_enabled() const { return level_ == LogLevel::Debug; }
  void info(const char* file, int line, const std::string& msg);
  void debug(const char* file, int line, const std::string& msg);
  // Whatever the level: output the user asked for by name (extended debug).
  void always(const char* file, int line, const std::string& msg);
  // Send the trace to `out` instead of stderr (tests); `out` must outlive the log.
  void capture_to(std::ostream& out);

 private:
  void emit(char level, const char* file, int line, const std::string& msg);
  LogLevel level_ = LogLevel::Off;
  std::string frame_ = "0/0";
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace fakeprop

#define FP_LOG_INFO(log, ...)                                  \
  do {                                                         \
    if ((log).info_enabled()) (log).info(__FILE__, __LINE__, (__VA_ARGS__)); \
  } while (0)
#define FP_LOG_DEBUG(log, ...)                                  \
  do {                                                          \
    if ((log).debug_enabled()) (log).debug(__FILE__, __LINE__, (__VA_ARGS__)); \
  } while (0)
