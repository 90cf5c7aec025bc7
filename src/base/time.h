// Clocks: wall-clock milliseconds/microseconds for TTLs and INFO, monotonic for durations.
#pragma once
#include <cstdint>
#include <ctime>

namespace keel {

inline int64_t ustime() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}
inline int64_t mstime() { return ustime() / 1000; }
inline int64_t monotonic_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace keel
