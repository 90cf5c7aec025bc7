// Latency bookkeeping: per-command latency histograms (INFO latencystats, LATENCY HISTOGRAM;
// latency-tracking) and the latency monitor (LATENCY LATEST/HISTORY/GRAPH/DOCTOR; events such as
// "command", "fast-command" and "expire-cycle" slower than latency-monitor-threshold).
//
// Histograms. A command row gets its histogram (about 20 KB) the first time it runs with
// latency-tracking on and keeps it until CONFIG RESETSTAT; recording is a few integer operations
// and one counter increment, never an allocation. Buckets follow HdrHistogram with 2 significant
// digits over 1 ns .. 1 s, the histogram Redis keeps per command: a duration of d microseconds
// is recorded as d * 1000 ns (0 as 1 ns, more than a second as 1 s) into a bucket 1/128 of a
// power of two wide, so percentiles print as Redis prints them (a 5 us command: p50=5.023, the
// highest value of its bucket). Only the buckets microsecond durations can reach are stored.
//
// Dispatch calls latency_after_command() once per executed command; with latency-tracking off
// and the monitor off that is one predictable branch.
#pragma once
#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/assert.h"
#include "commands/command.h"

namespace keel {

struct LatencyOptions {
  bool tracking = true;                        // latency-tracking
  int64_t monitor_threshold_ms = 0;            // latency-monitor-threshold (0: monitor off)
  std::vector<double> percentiles = {50, 99, 99.9};  // latency-tracking-info-percentiles
};
LatencyOptions& latency_options();
// Call after changing tracking or monitor_threshold_ms (the config's post hook).
void latency_options_changed();
// latency-tracking-info-percentiles: `args` as CONFIG SET splits the value (on single spaces;
// "" gives none). False with Redis's error text in *err.
bool latency_set_percentiles(std::span<const std::string_view> args, std::string* err);
std::string latency_percentiles_text();  // as CONFIG GET prints it ("50 99 99.9")

// ---- per-command histograms ----------------------------------------------------------------
namespace latency_detail {
// HdrHistogram's counts index for 2 significant digits and unit 1 (sub-buckets of 256, the
// upper half of each doubling).
constexpr int hdr_index(uint64_t v) {
  const int bucket = (63 - __builtin_clzll(v | 255)) - 7;
  const int sub = static_cast<int>(v >> bucket);
  return ((bucket + 1) << 7) + sub - 128;
}
inline constexpr int kFirstIndex = 506;  // Hdr counts index of 1000 ns
inline constexpr int kLastIndex = 3054;  // Hdr counts index of 1e9 ns
// Slot 0 holds durations of 0 us (recorded as 1 ns); slots 1.. the buckets from the one
// holding 1000 ns to the one holding 1e9 ns.
constexpr int slot_of_us(int64_t us) {
  if (us <= 0) return 0;
  const uint64_t ns = us >= 1000000 ? 1000000000ull : static_cast<uint64_t>(us) * 1000;
  return hdr_index(ns) - kFirstIndex + 1;
}
// Durations under kFastUs microseconds (nearly every command) find their slot in a table.
inline constexpr int kFastUs = 1024;
struct FastSlots {
  uint16_t slot[kFastUs];
  constexpr FastSlots() : slot() {
    for (int us = 0; us < kFastUs; us++) slot[us] = static_cast<uint16_t>(slot_of_us(us));
  }
};
inline constexpr FastSlots kFastSlots{};
}  // namespace latency_detail

class LatencyHistogram {
 public:
  static constexpr int kFirstIndex = latency_detail::kFirstIndex;
  static constexpr int kLastIndex = latency_detail::kLastIndex;
  static constexpr int kSlots = kLastIndex - kFirstIndex + 2;

  // One counter increment; the total is summed when asked for (INFO, LATENCY HISTOGRAM).
  void record(int64_t us) { counts_[slot_of_us(us)]++; }
  uint64_t total() const;
  // HdrHistogram's value_at_percentile, in nanoseconds (the highest value of the bucket; the
  // lowest for the 0th percentile).
  uint64_t value_at_percentile_ns(double p) const;
  // LATENCY HISTOGRAM's buckets: (upper bound in us, cumulative count) for every power-of-two
  // step from 1 us that gained counts.
  std::vector<std::pair<uint64_t, uint64_t>> log_buckets() const;

  static int slot_of_us(int64_t us) {
    if (KEEL_LIKELY(static_cast<uint64_t>(us) < latency_detail::kFastUs)) {
      return latency_detail::kFastSlots.slot[us];
    }
    return latency_detail::slot_of_us(us);
  }
  static constexpr int hdr_index(uint64_t v) { return latency_detail::hdr_index(v); }
  // The highest value (ns) in the bucket of counts index i.
  static uint64_t highest_value_of_index(int i);

 private:
  uint64_t counts_[kSlots] = {};
};

// Histogram of command row c, created on first use.
LatencyHistogram& latency_histogram_for(const CommandSpec& c);
// The first sample of a command row: creates its histogram, then records (out of line).
[[gnu::cold, gnu::noinline]] void latency_record_first(const CommandSpec& c, int64_t us);
// Frees the histograms of these rows (CONFIG RESETSTAT).
void latency_histogram_free(CommandStats& st);

// Mirrors LatencyOptions for the hot path (latency_options_changed() refreshes it); the
// defaults match LatencyOptions' (tracking on, monitor off).
struct LatencyHookState {
  bool on = true;  // tracking || monitor_threshold_ms > 0
  bool tracking = true;
  int64_t threshold_us = 0;          // monitor threshold in us; 0 = off
  int64_t monitor_from_us = INT64_MAX;  // threshold_us, or never when the monitor is off
};
extern constinit LatencyHookState g_latency_hook;

void latency_monitor_command(const CommandSpec& c, int64_t duration_us);

// The hook dispatch runs after a command, next to the commandstats update.
inline void latency_after_command(const CommandSpec& c, int64_t duration_us) {
  if (KEEL_LIKELY(!g_latency_hook.on)) return;
  if (g_latency_hook.tracking) {
    LatencyHistogram* h = c.stats->latency;
    if (KEEL_LIKELY(h != nullptr)) {
      h->record(duration_us);
    } else {
      latency_record_first(c, duration_us);
    }
  }
  if (KEEL_UNLIKELY(duration_us >= g_latency_hook.monitor_from_us)) {
    latency_monitor_command(c, duration_us);
  }
}

// INFO latencystats: one "latency_percentiles_usec_<cmd>:p50=...,p99=..." line per command that
// has samples (without the section header).
void latency_info_section(std::string& out);

// ---- the latency monitor -------------------------------------------------------------------
// One series per event name: the last 160 samples, at most one per second (a second sample in
// the same second keeps the larger latency), and the largest latency ever recorded.
struct LatencySample {
  int64_t time = 0;  // unix seconds; 0 = unused
  uint32_t ms = 0;
};

class LatencyMonitor {
 public:
  static constexpr size_t kSamples = 160;
  struct Series {
    std::string name;
    LatencySample samples[kSamples];
    size_t next = 0;  // where the next sample goes
    uint32_t max = 0;
    const LatencySample& latest() const { return samples[(next + kSamples - 1) % kSamples]; }
    // Calls f(sample) for every used sample, oldest first.
    template <class F>
    void for_each(F&& f) const {
      for (size_t j = 0; j < kSamples; j++) {
        const LatencySample& s = samples[(next + j) % kSamples];
        if (s.time != 0) f(s);
      }
    }
  };

  LatencyMonitor() = default;
  ~LatencyMonitor() { reset({}); }
  LatencyMonitor(const LatencyMonitor&) = delete;
  LatencyMonitor& operator=(const LatencyMonitor&) = delete;

  void add(std::string_view event, int64_t ms, int64_t now_s);
  const Series* find(std::string_view event) const;
  const std::vector<Series*>& all() const { return series_; }  // creation order
  // Drops the named series (all of them when `events` is empty); returns how many existed.
  size_t reset(std::span<const std::string_view> events);

 private:
  std::vector<Series*> series_;
};
LatencyMonitor& latency_monitor();

// Records `ms` for `event` when the monitor is on and ms >= latency-monitor-threshold.
void latency_add_sample_if_needed(const char* event, int64_t ms);
// Unconditionally (LATENCY tests, DEBUG).
void latency_add_sample(std::string_view event, int64_t ms);

}  // namespace keel
