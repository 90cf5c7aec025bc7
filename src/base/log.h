// Server log in Redis's line format: "<pid>:<role> <dd Mon yyyy hh:mm:ss.mmm> <level-char> <msg>".
// The level is checked before anything is formatted, so a disabled level costs one branch.
#pragma once
#include <cstdarg>
#include <string>

namespace keel {

enum class LogLevel { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3, kNothing = 4 };

struct LogOptions {
  LogLevel level = LogLevel::kNotice;
  std::string file;  // empty = standard output
};
LogOptions& log_options();
// Reopens the log file (after a config change); returns false with errno set on failure.
bool log_reopen();
bool log_enabled(LogLevel level);
// The descriptor log lines go to (the logfile, or standard output): crash reports write to it
// directly with write(2).
int log_fd();
void log_raw(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// The role letter after the pid: 'M' (the server), 'C' (a forked child, e.g. BGSAVE's).
void log_set_role(char role);

}  // namespace keel

#define KEEL_LOG(level, ...)                                                  \
  do {                                                                        \
    if (::keel::log_enabled(level)) ::keel::log_raw(level, __VA_ARGS__);      \
  } while (0)
#define LOG_DEBUG(...) KEEL_LOG(::keel::LogLevel::kDebug, __VA_ARGS__)
#define LOG_VERBOSE(...) KEEL_LOG(::keel::LogLevel::kVerbose, __VA_ARGS__)
#define LOG_NOTICE(...) KEEL_LOG(::keel::LogLevel::kNotice, __VA_ARGS__)
#define LOG_WARNING(...) KEEL_LOG(::keel::LogLevel::kWarning, __VA_ARGS__)
