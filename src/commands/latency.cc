// Latency histograms per command and the latency monitor's event series (see latency.h).
#include "commands/latency.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

#include "base/numbers.h"
#include "commands/command_table.h"

namespace keel {

constinit LatencyHookState g_latency_hook;

LatencyOptions& latency_options() {
  static LatencyOptions o;
  return o;
}

void latency_options_changed() {
  const LatencyOptions& o = latency_options();
  g_latency_hook.tracking = o.tracking;
  g_latency_hook.threshold_us = o.monitor_threshold_ms > 0 ? o.monitor_threshold_ms * 1000 : 0;
  // A threshold so large that ms * 1000 overflows can never be reached: leave the monitor off.
  if (o.monitor_threshold_ms > INT64_MAX / 1000) g_latency_hook.threshold_us = 0;
  g_latency_hook.monitor_from_us = g_latency_hook.threshold_us > 0 ? g_latency_hook.threshold_us : INT64_MAX;
  g_latency_hook.on = g_latency_hook.tracking || g_latency_hook.threshold_us > 0;
}

namespace {

// Redis prints a percentile with %f and trims the trailing zeros (and the dot): 99.9, 50, 0.
std::string percentile_text(double p) {
  char buf[64];
  int n = snprintf(buf, sizeof(buf), "%f", p);
  if (n <= 0) return "0";
  std::string s(buf, static_cast<size_t>(n));
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

bool latency_set_percentiles(std::span<const std::string_view> args, std::string* err) {
  std::vector<double> values;
  for (std::string_view a : args) {
    // Redis reads each word with strtod and wants it consumed whole: hex and exponents are
    // fine, an empty word (two spaces) or "nan" is not.
    double v;
    if (!parse_double(a, &v) || std::isnan(v)) {
      *err = "Invalid latency-tracking-info-percentiles parameters";
      return false;
    }
    if (v < 0.0 || v > 100.0) {
      *err = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      return false;
    }
    values.push_back(v);
  }
  latency_options().percentiles = std::move(values);
  return true;
}

std::string latency_percentiles_text() {
  std::string out;
  for (double p : latency_options().percentiles) {
    if (!out.empty()) out += ' ';
    out += percentile_text(p);
  }
  return out;
}

// ---- histograms -------------------------------------------------------------------------------

uint64_t LatencyHistogram::highest_value_of_index(int i) {
  int bucket = (i >> 7) - 1;
  int sub = (i & 127) + 128;
  if (bucket < 0) {
    sub -= 128;
    bucket = 0;
  }
  return (static_cast<uint64_t>(sub) << bucket) + (uint64_t{1} << bucket) - 1;
}

namespace {

int index_of_slot(int slot) { return slot == 0 ? 1 : LatencyHistogram::kFirstIndex + slot - 1; }

// The lowest value (ns) in the bucket of counts index i.
uint64_t lowest_value_of_index(int i) {
  int bucket = (i >> 7) - 1;
  int sub = (i & 127) + 128;
  if (bucket < 0) {
    sub -= 128;
    bucket = 0;
  }
  return static_cast<uint64_t>(sub) << bucket;
}

}  // namespace

uint64_t LatencyHistogram::total() const {
  uint64_t n = 0;
  for (uint64_t c : counts_) n += c;
  return n;
}

uint64_t LatencyHistogram::value_at_percentile_ns(double p) const {
  const double req = p < 100.0 ? p : 100.0;
  uint64_t want = static_cast<uint64_t>(req / 100.0 * static_cast<double>(total()) + 0.5);
  if (want < 1) want = 1;
  uint64_t running = 0;
  for (int s = 0; s < kSlots; s++) {
    running += counts_[s];
    if (running >= want) {
      // HdrHistogram answers the 0th percentile with the bucket's lowest value.
      return p == 0.0 ? lowest_value_of_index(index_of_slot(s))
                      : highest_value_of_index(index_of_slot(s));
    }
  }
  return 0;
}

std::vector<std::pair<uint64_t, uint64_t>> LatencyHistogram::log_buckets() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  const uint64_t total_count = total();
  uint64_t running = 0;
  int s = 0;
  // Each step covers the values up to and including the bucket of 1024 << k ns.
  for (int k = 0; running < total_count && k < 40; k++) {
    const uint64_t level = uint64_t{1024} << k;
    const int level_index = hdr_index(level);
    uint64_t added = 0;
    while (s < kSlots && index_of_slot(s) <= level_index) added += counts_[s++];
    running += added;
    if (added > 0) out.emplace_back(highest_value_of_index(level_index) / 1000, running);
  }
  return out;
}

LatencyHistogram& latency_histogram_for(const CommandSpec& c) {
  if (c.stats->latency == nullptr) {
    void* mem = std::calloc(1, sizeof(LatencyHistogram));
    KEEL_ASSERT(mem != nullptr);
    c.stats->latency = new (mem) LatencyHistogram();
  }
  return *c.stats->latency;
}

void latency_record_first(const CommandSpec& c, int64_t us) { latency_histogram_for(c).record(us); }

void latency_histogram_free(CommandStats& st) {
  if (st.latency == nullptr) return;
  st.latency->~LatencyHistogram();
  std::free(st.latency);
  st.latency = nullptr;
}

void latency_monitor_command(const CommandSpec& c, int64_t duration_us) {
  latency_add_sample((c.flags & kFast) ? "fast-command" : "command", duration_us / 1000);
}

void latency_info_section(std::string& out) {
  const std::vector<double>& pcts = latency_options().percentiles;
  std::vector<std::string> names;
  names.reserve(pcts.size());
  for (double p : pcts) names.push_back(percentile_text(p));
  auto emit = [&](auto& self, const CommandSpec& c) -> void {
    const LatencyHistogram* h = c.stats->latency;
    if (h != nullptr && h->total() > 0) {
      out += "latency_percentiles_usec_";
      out += c.full_name;
      out += ':';
      for (size_t i = 0; i < pcts.size(); i++) {
        char buf[96];
        snprintf(buf, sizeof(buf), "%sp%s=%.3f", i ? "," : "", names[i].c_str(),
                 static_cast<double>(h->value_at_percentile_ns(pcts[i])) / 1000.0);
        out += buf;
      }
      out += "\r\n";
    }
    for (const CommandSpec& sub : c.subcommands) self(self, sub);
  };
  for (const CommandSpec* c : all_commands()) emit(emit, *c);
}

void latency_add_sample_if_needed(const char* event, int64_t ms) {
  const int64_t threshold = latency_options().monitor_threshold_ms;
  if (threshold > 0 && ms >= threshold) latency_add_sample(event, ms);
}

void latency_add_sample(std::string_view event, int64_t ms) {
  latency_monitor().add(event, ms, static_cast<int64_t>(time(nullptr)));
}

// ---- the monitor's series -----------------------------------------------------------------------

LatencyMonitor& latency_monitor() {
  static LatencyMonitor m;
  return m;
}

void LatencyMonitor::add(std::string_view event, int64_t ms, int64_t now_s) {
  const uint32_t v = ms < 0 ? 0 : ms > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(ms);
  Series* s = const_cast<Series*>(find(event));
  if (s == nullptr) {
    s = new Series();
    s->name.assign(event);
    series_.push_back(s);
  }
  if (v > s->max) s->max = v;
  LatencySample& prev = s->samples[(s->next + kSamples - 1) % kSamples];
  if (prev.time == now_s) {
    if (v > prev.ms) prev.ms = v;
    return;
  }
  s->samples[s->next] = {now_s, v};
  s->next = (s->next + 1) % kSamples;
}

const LatencyMonitor::Series* LatencyMonitor::find(std::string_view event) const {
  for (const Series* s : series_) {
    if (s->name == event) return s;
  }
  return nullptr;
}

size_t LatencyMonitor::reset(std::span<const std::string_view> events) {
  size_t n = 0;
  for (size_t i = 0; i < series_.size();) {
    bool drop = events.empty();
    for (std::string_view e : events) drop |= series_[i]->name == e;
    if (drop) {
      delete series_[i];
      series_.erase(series_.begin() + static_cast<std::ptrdiff_t>(i));
      n++;
    } else {
      i++;
    }
  }
  return n;
}

}  // namespace keel
