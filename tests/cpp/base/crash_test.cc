// The crash report's timestamp (base/crash.cc) is formatted without localtime(), which is not
// async-signal-safe: check it against strftime over a spread of instants and UTC offsets.
#include <gtest/gtest.h>

#include <ctime>
#include <string>

#include "base/crash.h"

namespace keel {
namespace {

std::string reference(int64_t unix_ms, int64_t offset_s) {
  const time_t t = static_cast<time_t>((unix_ms - ((unix_ms % 1000) + 1000) % 1000) / 1000 + offset_s);
  struct tm tmv;
  gmtime_r(&t, &tmv);
  char buf[64];
  size_t n = strftime(buf, sizeof(buf), "%d %b %Y %H:%M:%S.", &tmv);
  snprintf(buf + n, sizeof(buf) - n, "%03d", static_cast<int>(((unix_ms % 1000) + 1000) % 1000));
  return buf;
}

TEST(CrashTime, MatchesStrftime) {
  const int64_t instants[] = {0,
                              999,
                              86399999,
                              951782400000,    // 2000-02-29
                              951868799999,    // 2000-02-29 23:59:59.999
                              1709164800123,   // 2024-02-29
                              1735689599999,   // 2024-12-31 23:59:59.999
                              1796137286103,   // 2026-12-01
                              4102444800000,   // 2100-01-01 (not a leap year)
                              -1,              // 1969-12-31 23:59:59.999
                              -86400000 * 365LL};
  const int64_t offsets[] = {0, 3600, -5 * 3600, 5 * 3600 + 1800, 14 * 3600, -12 * 3600};
  for (int64_t ms : instants) {
    for (int64_t off : offsets) {
      char out[32];
      crash_format_time(ms, off, out);
      EXPECT_EQ(reference(ms, off), out) << "ms=" << ms << " offset=" << off;
    }
  }
}

TEST(CrashTime, EveryDayOfFourHundredYears) {
  // One instant per day from 1970 to 2370 (a full Gregorian cycle), at a varying time of day.
  for (int64_t day = 0; day < 146097; day++) {
    const int64_t ms = day * 86400000 + (day * 7919 % 86400) * 1000 + day % 1000;
    char out[32];
    crash_format_time(ms, 0, out);
    ASSERT_EQ(reference(ms, 0), out) << "day=" << day;
  }
}

}  // namespace
}  // namespace keel
