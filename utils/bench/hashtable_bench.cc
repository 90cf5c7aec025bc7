// Microbenchmark for ds/hashtable.h: insert, find hit, find miss (plain and with a 16-key batch
// prefetch, as the request path does it), erase, and the longest single insert while the table
// grows, at 1M and 10M keys. Standalone, not part of `make`:
//   g++ -std=c++20 -O2 -Isrc utils/bench/hashtable_bench.cc src/base/log.cc src/base/crash.cc -ljemalloc
//       -o /tmp/ht_bench   (crash.cc provides assert_failed for KEEL_DCHECK)
//   /tmp/ht_bench [keys...]      (default: 1000000 10000000)
// Every timed operation includes hashing the key, as a command pays it once at parse time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "base/hash.h"
#include "ds/hashtable.h"

namespace keel {
namespace {

struct Entry {
  std::string key;
  uint64_t value;
};

struct Traits {
  using Entry = keel::Entry*;
  static std::string_view key(const keel::Entry* e) { return e->key; }
};

using Table = HashTable<Traits>;
using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

// Per-op wall times of an insert loop, split by what the insert did to the table. The machine
// may be shared, so a single op can also include time the scheduler gave to another process:
// the classes with few members (grow start/finish) and the p99.99 are the meaningful numbers.
struct PauseStats {
  std::vector<float> wall;
  double max_start = 0, max_finish = 0, max_other = 0;
  int starts = 0, finishes = 0;
  void add(double ns, bool started, bool finished) {
    wall.push_back(static_cast<float>(ns));
    if (started) {
      ++starts;
      max_start = std::max(max_start, ns);
    } else if (finished) {
      ++finishes;
      max_finish = std::max(max_finish, ns);
    } else {
      max_other = std::max(max_other, ns);
    }
  }
  void print() {
    std::sort(wall.begin(), wall.end());
    std::printf("  single-insert wall time: p99.99 %.1f us, p99.999 %.1f us, max %.1f us\n",
                wall[wall.size() * 9999 / 10000] / 1000, wall[wall.size() * 99999 / 100000] / 1000,
                wall.back() / 1000);
    std::printf("  max: insert that started a resize %.1f us (%d), that finished one %.1f us (%d), "
                "any other %.1f us\n",
                max_start / 1000, starts, max_finish / 1000, finishes, max_other / 1000);
  }
};

constexpr size_t kBatch = 16;

// Looks up every key in batches of kBatch: hash all, prefetch buckets, prefetch matching
// entries, then run the lookups. Returns the number found.
size_t find_batched(const Table& t, const std::vector<std::string>& keys) {
  size_t found = 0;
  uint64_t h[kBatch];
  for (size_t i = 0; i < keys.size(); i += kBatch) {
    const size_t n = std::min(kBatch, keys.size() - i);
    for (size_t j = 0; j < n; ++j) {
      h[j] = hash_key(keys[i + j]);
      t.prefetch_bucket(h[j]);
    }
    for (size_t j = 0; j < n; ++j) t.prefetch_entries(h[j]);
    for (size_t j = 0; j < n; ++j) found += t.find(keys[i + j], h[j]) != nullptr;
  }
  return found;
}

size_t find_plain(const Table& t, const std::vector<std::string>& keys) {
  size_t found = 0;
  for (const std::string& k : keys) found += t.find(k, hash_key(k)) != nullptr;
  return found;
}

void run(size_t n) {
  std::printf("== %zu keys ==\n", n);
  std::mt19937_64 rng(n);
  std::vector<Entry> entries(n);
  for (size_t i = 0; i < n; ++i) entries[i].key = "key:" + std::to_string(i);
  // Insert in a shuffled order so that entry addresses are not correlated with buckets.
  std::vector<Entry*> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = &entries[i];
  std::shuffle(order.begin(), order.end(), rng);

  Table t;
  PauseStats ins;
  ins.wall.reserve(n);
  auto t0 = Clock::now();
  for (size_t i = 0; i < n; ++i) {
    const bool was_rehashing = t.rehashing();
    const size_t buckets = t.bucket_count();
    const auto s = Clock::now();
    Entry* e = order[i];
    auto pos = t.find_position(e->key, hash_key(e->key));
    t.insert(pos, e);
    const double d = ns_since(s);
    ins.add(d, t.bucket_count() > buckets && t.rehashing() && !was_rehashing,
            was_rehashing && !t.rehashing());
  }
  std::printf("insert (timed each)   %7.1f ns/op\n", ns_since(t0) / n);
  ins.print();
  std::printf("  buckets %zu  rehashing %d  table memory %.1f MB (%.1f B/key)\n", t.bucket_count(),
              t.rehashing(), t.memory_usage() / 1048576.0,
              static_cast<double>(t.memory_usage()) / n);
  t0 = Clock::now();
  while (t.rehashing()) t.rehash_for_us(1000);
  std::printf("  finishing rehash in cron: %.1f ms\n", ns_since(t0) / 1e6);

  std::vector<std::string> hits(std::min<size_t>(n, 4000000));
  for (auto& k : hits) k = entries[rng() % n].key;
  std::vector<std::string> misses(hits.size());
  for (size_t i = 0; i < misses.size(); ++i) misses[i] = "miss:" + std::to_string(rng());

  t0 = Clock::now();
  size_t f = find_plain(t, hits);
  std::printf("find hit              %7.1f ns/op   (found %zu/%zu)\n", ns_since(t0) / hits.size(),
              f, hits.size());
  t0 = Clock::now();
  f = find_batched(t, hits);
  std::printf("find hit, prefetch16  %7.1f ns/op   (found %zu/%zu)\n", ns_since(t0) / hits.size(),
              f, hits.size());
  t0 = Clock::now();
  f = find_plain(t, misses);
  std::printf("find miss             %7.1f ns/op   (found %zu)\n", ns_since(t0) / misses.size(), f);
  t0 = Clock::now();
  f = find_batched(t, misses);
  std::printf("find miss, prefetch16 %7.1f ns/op   (found %zu)\n", ns_since(t0) / misses.size(), f);

  // Eviction's sampling: 5 uniformly random entries per call, drawn a call ahead (the
  // sampled entries are touched, as eviction reads each one's LRU field).
  {
    constexpr size_t kCalls = 1000000;
    Table::SampleAhead ahead;
    Entry* out[5];
    uint64_t rnd = 0x1234567, sum = 0;
    t0 = Clock::now();
    for (size_t i = 0; i < kCalls; ++i) {
      rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
      const size_t got = t.random_entries(rnd, out, 5, &ahead);
      for (size_t k = 0; k < got; ++k) sum += out[k]->value;
    }
    std::printf("random_entries(5)     %7.1f ns/call (%llu)\n", ns_since(t0) / kCalls,
                static_cast<unsigned long long>(sum & 1));
    t0 = Clock::now();
    for (size_t i = 0; i < kCalls; ++i) sum += t.random_entry(i * 0x9e3779b97f4a7c15ull)->value;
    std::printf("random_entry          %7.1f ns/op (%llu)\n", ns_since(t0) / kCalls,
                static_cast<unsigned long long>(sum & 1));
  }

  // Steady-state churn: erase + re-insert the same keys (no allocation expected).
  const size_t mem = t.memory_usage();
  const size_t churn = std::min<size_t>(n, 1000000);
  t0 = Clock::now();
  for (size_t i = 0; i < churn; ++i) {
    Entry* e = order[i];
    const uint64_t h = hash_key(e->key);
    t.erase(e->key, h);
    auto pos = t.find_position(e->key, h);
    t.insert(pos, e);
  }
  std::printf("erase+insert churn    %7.1f ns/pair (table memory %s)\n", ns_since(t0) / churn,
              t.memory_usage() == mem ? "unchanged" : "CHANGED");

  std::shuffle(order.begin(), order.end(), rng);
  t0 = Clock::now();
  size_t erased = 0;
  for (Entry* e : order) erased += t.erase(e->key, hash_key(e->key)) != nullptr;
  std::printf("erase                 %7.1f ns/op   (erased %zu)\n", ns_since(t0) / n, erased);
  t0 = Clock::now();
  t.shrink_if_needed();
  std::printf("  shrink_if_needed on the empty table: %.1f us, buckets now %zu\n",
              ns_since(t0) / 1000, t.bucket_count());

  // Insert without per-op timing (the clock reads cost ~40 ns per op above).
  Table t2;
  t0 = Clock::now();
  for (Entry* e : order) {
    auto pos = t2.find_position(e->key, hash_key(e->key));
    t2.insert(pos, e);
  }
  std::printf("insert (untimed loop) %7.1f ns/op\n", ns_since(t0) / n);
  Table t3;
  t3.reserve(n);
  t0 = Clock::now();
  for (Entry* e : order) t3.insert(e, hash_key(e->key));
  std::printf("insert after reserve  %7.1f ns/op\n", ns_since(t0) / n);
}

}  // namespace
}  // namespace keel

int main(int argc, char** argv) {
  keel::set_hash_seed(0x5eed1234abcdull);
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {1000000, 10000000};
  for (size_t n : sizes) keel::run(n);
  return 0;
}
