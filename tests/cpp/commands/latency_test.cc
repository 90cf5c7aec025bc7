// The latency histograms' HdrHistogram arithmetic (bucket indexes, percentiles, LATENCY
// HISTOGRAM's power-of-two steps) against values read from redis-server 7.0.15 (INFO
// latencystats, LATENCY HISTOGRAM), the percentile directive's parsing, and the latency
// monitor's one-sample-per-second series.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands/latency.h"

namespace keel {
namespace {

TEST(LatencyHistogramTest, HdrIndexes) {
  EXPECT_EQ(LatencyHistogram::hdr_index(1000), LatencyHistogram::kFirstIndex);
  EXPECT_EQ(LatencyHistogram::hdr_index(1000000000), LatencyHistogram::kLastIndex);
  EXPECT_EQ(LatencyHistogram::slot_of_us(0), 0);
  EXPECT_EQ(LatencyHistogram::slot_of_us(1), 1);
  EXPECT_EQ(LatencyHistogram::slot_of_us(-5), 0);
  EXPECT_EQ(LatencyHistogram::slot_of_us(5000000), LatencyHistogram::kSlots - 1);  // clamped to 1 s
  // Bucket highest values Redis prints: 5 us -> 5.023, 7 us -> 7.007, 21 us -> 21.119.
  EXPECT_EQ(LatencyHistogram::highest_value_of_index(LatencyHistogram::hdr_index(5000)), 5023u);
  EXPECT_EQ(LatencyHistogram::highest_value_of_index(LatencyHistogram::hdr_index(7000)), 7007u);
  EXPECT_EQ(LatencyHistogram::highest_value_of_index(LatencyHistogram::hdr_index(21000)), 21119u);
  EXPECT_EQ(LatencyHistogram::highest_value_of_index(LatencyHistogram::hdr_index(1000000000)),
            1002438655u);
}

TEST(LatencyHistogramTest, Percentiles) {
  auto h = std::make_unique<LatencyHistogram>();
  EXPECT_EQ(h->value_at_percentile_ns(50), 0u);  // empty
  h->record(21);
  // redis-server: p0=20.992 (lowest of the bucket), p50=p100=21.119.
  EXPECT_EQ(h->value_at_percentile_ns(0), 20992u);
  EXPECT_EQ(h->value_at_percentile_ns(50), 21119u);
  EXPECT_EQ(h->value_at_percentile_ns(100), 21119u);
  auto g = std::make_unique<LatencyHistogram>();
  for (int i = 0; i < 99; i++) g->record(10);
  g->record(1000);
  EXPECT_EQ(g->total(), 100u);
  EXPECT_EQ(g->value_at_percentile_ns(50), LatencyHistogram::highest_value_of_index(LatencyHistogram::hdr_index(10000)));
  EXPECT_EQ(g->value_at_percentile_ns(99), g->value_at_percentile_ns(50));
  EXPECT_EQ(g->value_at_percentile_ns(99.9), LatencyHistogram::highest_value_of_index(LatencyHistogram::hdr_index(1000000)));
  auto z = std::make_unique<LatencyHistogram>();
  z->record(0);
  EXPECT_EQ(z->value_at_percentile_ns(50), 1u);  // 0 us is recorded as 1 ns: p50=0.001
}

TEST(LatencyHistogramTest, LogBuckets) {
  // redis-server, three SETs of 5..16 us: histogram_usec {8: 2, 16: 3}.
  auto h = std::make_unique<LatencyHistogram>();
  h->record(5);
  h->record(7);
  h->record(12);
  using B = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(h->log_buckets(), (B{{8, 2}, {16, 3}}));
  // CONFIG RESETSTAT at 85 us: {132: 1}; 40 us: {66: 1}; 1 us and 0 us: {1: 2}.
  auto g = std::make_unique<LatencyHistogram>();
  g->record(85);
  EXPECT_EQ(g->log_buckets(), (B{{132, 1}}));
  auto f = std::make_unique<LatencyHistogram>();
  f->record(40);
  f->record(33);  // 33000 ns shares the bucket of 32768: it counts in the step up to 33 us
  EXPECT_EQ(f->log_buckets(), (B{{33, 1}, {66, 2}}));
  auto e = std::make_unique<LatencyHistogram>();
  e->record(1);
  e->record(0);
  EXPECT_EQ(e->log_buckets(), (B{{1, 2}}));
  auto big = std::make_unique<LatencyHistogram>();
  big->record(10000000);  // 10 s, clamped to 1 s
  EXPECT_EQ(big->log_buckets(), (B{{1082130, 1}}));
}

TEST(LatencyOptionsTest, Percentiles) {
  std::string err;
  auto set = [&](std::vector<std::string_view> a) { return latency_set_percentiles(a, &err); };
  EXPECT_TRUE(set({"0", "100", "99.99999", "1e1", "0x10"}));
  EXPECT_EQ(latency_percentiles_text(), "0 100 99.99999 10 16");
  EXPECT_FALSE(set({"abc"}));
  EXPECT_EQ(err, "Invalid latency-tracking-info-percentiles parameters");
  EXPECT_FALSE(set({"50", ""}));
  EXPECT_FALSE(set({"nan"}));
  EXPECT_FALSE(set({"101"}));
  EXPECT_EQ(err, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
  EXPECT_FALSE(set({"-0.5"}));
  EXPECT_EQ(latency_percentiles_text(), "0 100 99.99999 10 16");  // unchanged by failures
  EXPECT_TRUE(set({}));
  EXPECT_EQ(latency_percentiles_text(), "");
  EXPECT_TRUE(set({"50", "99", "99.9"}));
}

TEST(LatencyMonitorTest, OneSamplePerSecondKeepsTheMax) {
  LatencyMonitor m;
  m.add("ev", 120, 1000);
  m.add("ev", 300, 1000);  // same second: keeps 300
  m.add("ev", 200, 1000);
  m.add("ev", 150, 1001);
  const LatencyMonitor::Series* s = m.find("ev");
  ASSERT_NE(s, nullptr);
  std::vector<std::pair<int64_t, uint32_t>> got;
  s->for_each([&](const LatencySample& x) { got.emplace_back(x.time, x.ms); });
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, uint32_t>>{{1000, 300}, {1001, 150}}));
  EXPECT_EQ(s->latest().ms, 150u);
  EXPECT_EQ(s->max, 300u);
  // The series keeps the last 160 seconds.
  for (int i = 0; i < 500; i++) m.add("ev", i, 2000 + i);
  size_t n = 0;
  int64_t first = 0;
  s->for_each([&](const LatencySample& x) {
    if (n++ == 0) first = x.time;
  });
  EXPECT_EQ(n, LatencyMonitor::kSamples);
  EXPECT_EQ(first, 2000 + 500 - 160);
  EXPECT_EQ(s->max, 499u);
  const std::string_view none[] = {"nope"};
  EXPECT_EQ(m.reset(none), 0u);
  EXPECT_EQ(m.reset({}), 1u);
  EXPECT_EQ(m.find("ev"), nullptr);
}

}  // namespace
}  // namespace keel
