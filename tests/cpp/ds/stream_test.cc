// Tests for ds/stream.h: a randomised comparison with a std::map model (appends with the same
// or other fields, deletions, MAXLEN / MINID trims exact and approximate with limits, forward
// and reverse range walks, deletion while walking) with the node invariants (counters, lp-count,
// ascending IDs) checked after each step, small node limits so that nodes fill and empty often;
// plus the exact bytes of a node as Redis writes it.
#include "ds/stream.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace keel {
namespace {

uint32_t test_seed() {
  const uint32_t seed = static_cast<uint32_t>(testing::UnitTest::GetInstance()->random_seed());
  std::printf("[ seed ] %u (rerun with --gtest_random_seed=%u)\n", seed, seed);
  return seed;
}

using Fields = std::vector<std::string>;  // f, v, f, v ...
using Model = std::map<StreamID, Fields>;

Fields read_entry(const StreamIterator& it) {
  Fields out;
  it.for_each_field([&](const LpEntry& f, const LpEntry& v) {
    char b1[kLpIntBufSize], b2[kLpIntBufSize];
    out.emplace_back(f.str(b1));
    out.emplace_back(v.str(b2));
  });
  return out;
}

void compare_range(Stream& s, const Model& m, StreamID a, StreamID b, bool rev) {
  std::vector<std::pair<StreamID, Fields>> want;
  for (auto it = m.lower_bound(a); it != m.end() && it->first <= b; ++it) want.emplace_back(*it);
  if (rev) std::reverse(want.begin(), want.end());
  StreamIterator it(s, a, b, rev);
  StreamID id;
  int64_t nf;
  size_t k = 0;
  while (it.next(&id, &nf)) {
    ASSERT_LT(k, want.size());
    EXPECT_EQ(id, want[k].first);
    EXPECT_EQ(read_entry(it), want[k].second);
    k++;
  }
  EXPECT_EQ(k, want.size());
}

TEST(Stream, Model) {
  std::mt19937 rng(test_seed());
  for (int round = 0; round < 4; round++) {
    Stream s;
    Model m;
    StreamLimits lim;
    lim.node_max_entries = 1 + static_cast<int64_t>(rng() % 8);
    lim.node_max_bytes = round == 3 ? 0 : 60 + static_cast<int64_t>(rng() % 200);
    StreamID next{1, 0};
    for (int step = 0; step < 1500; step++) {
      const int op = static_cast<int>(rng() % 20);
      if (op < 11) {
        next.ms += rng() % 3;
        next.seq += 1 + rng() % 2;
        Fields fv;
        const int n = 1 + static_cast<int>(rng() % 3);
        const bool same = rng() % 2;
        for (int i = 0; i < n; i++) {
          fv.push_back(same ? "f" + std::to_string(i) : std::to_string(rng() % 5));
          fv.push_back(rng() % 2 ? std::to_string(rng() % 100000) : std::string(rng() % 20, 'x'));
        }
        std::vector<std::string_view> views(fv.begin(), fv.end());
        s.append(next, views, lim);
        m[next] = fv;
        EXPECT_EQ(s.last_id, next);
      } else if (op < 15) {
        if (m.empty()) continue;
        auto it = m.begin();
        std::advance(it, rng() % m.size());
        StreamID id = it->first;
        ASSERT_TRUE(s.remove(id));
        m.erase(it);
        EXPECT_FALSE(s.remove(id));
      } else if (op < 17) {
        StreamTrimArgs a;
        a.approx = rng() % 2;
        a.limit = rng() % 3 == 0 ? static_cast<int64_t>(rng() % 10) : 0;
        if (rng() % 2) {
          a.strategy = StreamTrimStrategy::kMaxLen;
          a.maxlen = rng() % (m.size() + 2);
        } else {
          a.strategy = StreamTrimStrategy::kMinId;
          a.minid = StreamID{rng() % (next.ms + 2), rng() % (next.seq + 2)};
        }
        const size_t before = m.size();
        const int64_t removed = s.trim(a);
        ASSERT_GE(removed, 0);
        // Whatever was removed is the oldest `removed` entries.
        for (int64_t i = 0; i < removed; i++) m.erase(m.begin());
        ASSERT_EQ(s.length, m.size());
        if (!a.approx && a.limit == 0) {
          if (a.strategy == StreamTrimStrategy::kMaxLen) {
            EXPECT_EQ(m.size(), std::min<size_t>(before, a.maxlen));
          } else if (!m.empty()) {
            EXPECT_GE(m.begin()->first, a.minid);
          }
        }
        if (a.limit) {
          EXPECT_LE(removed, a.limit);
        }
      } else if (op < 18) {
        // Delete every other entry of a range while walking it.
        if (m.empty()) continue;
        StreamIterator it(s, StreamID{}, StreamID::max(), rng() % 2);
        StreamID id;
        int64_t nf;
        int k = 0;
        while (it.next(&id, &nf)) {
          if (k++ % 2 == 0) {
            it.remove_current();
            m.erase(id);
          }
        }
      } else {
        StreamID a{rng() % (next.ms + 2), rng() % (next.seq + 2)};
        StreamID b{a.ms + rng() % 10, rng() % (next.seq + 2)};
        compare_range(s, m, a, b, false);
        compare_range(s, m, a, b, true);
      }
      std::string why;
      ASSERT_TRUE(s.check(&why)) << why << " step " << step;
      ASSERT_EQ(s.length, m.size());
      StreamID first;
      if (!m.empty()) {
        ASSERT_TRUE(s.first_entry_id(&first));
        EXPECT_EQ(first, m.begin()->first);
        ASSERT_TRUE(s.last_entry_id(&first));
        EXPECT_EQ(first, m.rbegin()->first);
      } else {
        EXPECT_FALSE(s.first_entry_id(&first));
      }
    }
    compare_range(s, m, StreamID{}, StreamID::max(), false);
    compare_range(s, m, StreamID{}, StreamID::max(), true);
    std::unique_ptr<Stream> c(s.deep_copy());
    compare_range(*c, m, StreamID{}, StreamID::max(), false);
  }
}

// XADD s 5-1 a 1 b x ; XADD s 5-3 a 2 b y ; XADD s 6-0 c 3 as Redis 7 lays the node out.
TEST(Stream, NodeBytes) {
  Stream s;
  StreamLimits lim;
  std::vector<std::string_view> e1{"a", "1", "b", "x"}, e2{"a", "2", "b", "y"}, e3{"c", "3"};
  s.append({5, 1}, e1, lim);
  s.append({5, 3}, e2, lim);
  s.append({6, 0}, e3, lim);
  ASSERT_EQ(s.rax.size(), 1u);
  uint8_t key[Rax::kMaxKey];
  size_t klen;
  void* v = s.rax.first(key, &klen);
  ASSERT_EQ(klen, 16u);
  EXPECT_EQ(StreamID::decode(key), (StreamID{5, 1}));
  ListpackView lv(v);
  std::vector<std::string> got;
  for (LpPos p = lv->first(); p != kLpNone; p = lv->next(p)) {
    char b[kLpIntBufSize];
    got.emplace_back(lv->get(p).str(b));
  }
  const std::vector<std::string> want{
      "3", "0", "2", "a", "b", "0",              // master: count deleted nfields fields 0
      "2", "0", "0", "1", "x", "5",              // SAMEFIELDS 5-1: values, lp-count 3+2
      "2", "0", "2", "2", "y", "5",              // 5-3
      "0", "1", "-1", "1", "c", "3", "6"};       // 6-0: other fields, seq diff -1, 4+2
  EXPECT_EQ(got, want);
  EXPECT_TRUE(s.remove({5, 3}));
  StreamID id;
  int64_t nf;
  StreamIterator it(s, StreamID{}, StreamID::max(), true);
  ASSERT_TRUE(it.next(&id, &nf));
  EXPECT_EQ(id, (StreamID{6, 0}));
  ASSERT_TRUE(it.next(&id, &nf));
  EXPECT_EQ(id, (StreamID{5, 1}));
  EXPECT_FALSE(it.next(&id, &nf));
}

TEST(Stream, ParseId) {
  StreamID id;
  bool given;
  EXPECT_TRUE(stream_parse_id("1-2", 0, &id, nullptr));
  EXPECT_EQ(id, (StreamID{1, 2}));
  EXPECT_TRUE(stream_parse_id("7", 9, &id, nullptr));
  EXPECT_EQ(id, (StreamID{7, 9}));
  EXPECT_TRUE(stream_parse_id("18446744073709551615-18446744073709551615", 0, &id, nullptr));
  EXPECT_EQ(id, StreamID::max());
  EXPECT_FALSE(stream_parse_id("18446744073709551616", 0, &id, nullptr));
  EXPECT_FALSE(stream_parse_id("-1", 0, &id, nullptr));
  EXPECT_FALSE(stream_parse_id("1-*", 0, &id, nullptr));
  EXPECT_TRUE(stream_parse_id("1-*", 0, &id, &given));
  EXPECT_FALSE(given);
  EXPECT_FALSE(stream_parse_id("a", 0, &id, nullptr));
  EXPECT_FALSE(stream_parse_id("", 0, &id, nullptr));
  // Leading zeros are read as strtoull reads them (redis-benchmark's __rand_int__ is padded),
  // by the digit fast path up to 19 bytes and by strtoull beyond.
  EXPECT_TRUE(stream_parse_id("000000012345-0001", 0, &id, nullptr));
  EXPECT_EQ(id, (StreamID{12345, 1}));
  EXPECT_TRUE(stream_parse_id("9999999999999999999-00000000000000000000007", 0, &id, nullptr));
  EXPECT_EQ(id, (StreamID{9999999999999999999ull, 7}));
  EXPECT_TRUE(stream_parse_id("+5- 6", 0, &id, nullptr));  // strtoull's sign and blanks
  EXPECT_EQ(id, (StreamID{5, 6}));
  EXPECT_FALSE(stream_parse_id("12a-1", 0, &id, nullptr));
  EXPECT_FALSE(stream_parse_id("1-2 ", 0, &id, nullptr));
}

// The text of an ID: "<ms>-<seq>", NUL-terminated, at the extremes too.
TEST(Stream, FormatId) {
  char buf[48];
  EXPECT_EQ(std::string_view(buf, StreamID{0, 0}.format(buf)), "0-0");
  EXPECT_EQ(std::string_view(buf, StreamID{1700000000123ull, 42}.format(buf)), "1700000000123-42");
  const size_t n = StreamID::max().format(buf);
  EXPECT_EQ(std::string_view(buf, n), "18446744073709551615-18446744073709551615");
  EXPECT_EQ(buf[n], '\0');
}

}  // namespace
}  // namespace keel
