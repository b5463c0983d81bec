#include "fakeprop/sym/dynamic_log.h"

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <ostream>

#include <fmt/format.h>

namespace fakeprop {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Level one TORCH_LOGS entry asks of the dynamic logger. As in torch._logging:
// "+name" is DEBUG, "-name" is ERROR (no trace lines at all), "name" is INFO.
LogLevel entry_level(std::string_view entry) {
  LogLevel verbose = LogLevel::Info;
  if (!entry.empty() && entry.front() == '+') {
    verbose = LogLevel::Debug;
    entry.remove_prefix(1);
  } else if (!entry.empty() && entry.front() == '-') {
    return LogLevel::Off;
  }
  if (entry == "dynamic" || entry == "all") return verbose;
  return LogLevel::Off;
}

std::shared_ptr<spdlog::logger> make_logger(spdlog::sink_ptr sink) {
  sink->set_pattern("%v");  // the glog-style prefix is built by emit()
  auto logger = std::make_shared<spdlog::logger>("fakeprop.dynamic", std::move(sink));
  logger->set_level(spdlog::level::trace);
  logger->flush_on(spdlog::level::trace);
  return logger;
}

std::string_view basename_of(const char* file) {
  std::string_view path(file);
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

LogLevel parse_torch_logs(std::string_view spec) {
  LogLevel level = LogLevel::Off;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view entry = trim(spec.substr(0, comma));
    level = std::max(level, entry_level(entry));
    if (comma == std::string_view::npos) break;
    spec.remove_prefix(comma + 1);
  }
  return level;
}

// The stderr logger is made on the first line: a run that logs nothing (the
// default) never touches spdlog's code, so its pages never become resident.
DynamicLog::DynamicLog() = default;

void DynamicLog::capture_to(std::ostream& out) {
  logger_ = make_logger(std::make_shared<spdlog::sinks::ostream_sink_mt>(out, /*force_flush=*/true));
}

void DynamicLog::info(const char* file, int line, const std::string& msg) {
  if (info_enabled()) emit('I', file, line, msg);
}

void DynamicLog::always(const char* file, int line, const std::string& msg) { emit('I', file, line, msg); }

void DynamicLog::debug(const char* file, int line, const std::string& msg) {
  if (debug_enabled()) emit('D', file, line, msg);
}

void DynamicLog::emit(char level, const char* file, int line, const std::string& msg) {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t seconds = system_clock::to_time_t(now);
  auto micros = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm local{};
  localtime_r(&seconds, &local);
  if (!logger_) logger_ = make_logger(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  // I1129 10:44:22.123000 4242 shape_env.cpp:120] [0/0] message
  logger_->info("{}{:02}{:02} {:02}:{:02}:{:02}.{:06} {} {}:{}] [{}] {}", level, local.tm_mon + 1, local.tm_mday,
                local.tm_hour, local.tm_min, local.tm_sec, micros, static_cast<long>(getpid()), basename_of(file),
                line, frame_, msg);
}

}  // namespace fakeprop
