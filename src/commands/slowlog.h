// SLOWLOG entries: commands whose execution time reached slowlog-log-slower-than.
#pragma once
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

struct SlowlogEntry {
  uint64_t id;
  int64_t time_sec;
  int64_t duration_us;
  std::vector<std::string> args;  // at most 32, each truncated as Redis does
  std::string addr;
  std::string name;
};

class Slowlog {
 public:
  void add(std::span<const std::string_view> args, int64_t duration_us, std::string_view addr,
           std::string_view name, size_t max_len);
  void reset() { entries_.clear(); }
  void trim(size_t max_len);
  const std::deque<SlowlogEntry>& entries() const { return entries_; }  // newest first

 private:
  std::deque<SlowlogEntry> entries_;
  uint64_t next_id_ = 0;
};
Slowlog& slowlog();

}  // namespace keel
