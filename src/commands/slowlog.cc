// Slowlog storage. Argument truncation follows Redis: at most 32 arguments (the last one says
// how many more there were) and 128 bytes per argument (with a "... (N more bytes)" suffix).
#include "commands/slowlog.h"

#include <ctime>

namespace keel {

Slowlog& slowlog() {
  static Slowlog log;
  return log;
}

void Slowlog::add(std::span<const std::string_view> args, int64_t duration_us,
                  std::string_view addr, std::string_view name, size_t max_len) {
  constexpr size_t kMaxArgc = 32, kMaxArgLen = 128;
  SlowlogEntry e;
  e.id = next_id_++;
  e.time_sec = time(nullptr);
  e.duration_us = duration_us;
  size_t n = args.size() > kMaxArgc ? kMaxArgc : args.size();
  for (size_t i = 0; i < n; i++) {
    if (n != args.size() && i == n - 1) {
      e.args.push_back("... (" + std::to_string(args.size() - kMaxArgc + 1) + " more arguments)");
    } else if (args[i].size() > kMaxArgLen) {
      e.args.push_back(std::string(args[i].substr(0, kMaxArgLen)) + "... (" +
                       std::to_string(args[i].size() - kMaxArgLen) + " more bytes)");
    } else {
      e.args.emplace_back(args[i]);
    }
  }
  e.addr.assign(addr);
  e.name.assign(name);
  entries_.push_front(std::move(e));
  trim(max_len);
}

void Slowlog::trim(size_t max_len) {
  while (entries_.size() > max_len) entries_.pop_back();
}

}  // namespace keel
