// Tests for ds/skiplist.h: member byte order (prefixes, NUL bytes, high bytes), a randomised
// test of inserts/erases/score updates against a std::set model checking ranks, node-by-rank and
// the span invariants, score and lex range lookups and range erasure (by score, lex and rank)
// against the model, and the ZRANGEBYSCORE / ZRANGEBYLEX bound parsers (Redis's exact accepted
// inputs, as observed on redis-server).
#include "ds/skiplist.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/util_random.h"
#include "ds/hashtable.h"

namespace keel {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

uint32_t test_seed() {
  const uint32_t seed = static_cast<uint32_t>(testing::UnitTest::GetInstance()->random_seed());
  std::printf("[ seed ] %u (rerun with --gtest_random_seed=%u)\n", seed, seed);
  return seed;
}

using namespace std::string_literals;

// std::string's operator< compares bytes as unsigned char, then length: the same order as
// Redis's sdscmp, but written independently of compare_members.
using Entry = std::pair<double, std::string>;
using Model = std::set<Entry>;

std::vector<Entry> contents(const Skiplist& sl) {
  std::vector<Entry> out;
  for (const SkiplistNode* n = sl.first(); n != nullptr; n = n->next()) {
    out.emplace_back(n->score(), std::string(n->member()));
  }
  return out;
}

std::vector<Entry> contents_backward(const Skiplist& sl) {
  std::vector<Entry> out;
  for (const SkiplistNode* n = sl.last(); n != nullptr; n = n->prev()) {
    out.emplace_back(n->score(), std::string(n->member()));
  }
  return out;
}

// Members from a tiny alphabet with NUL and high bytes, lengths 0..4: lots of shared prefixes.
std::string random_member(std::mt19937_64& rng) {
  static const char kAlphabet[] = {'\0', 'a', 'b', '\x7f', '\x80', '\xff'};
  std::string m;
  const size_t len = rng() % 5;
  for (size_t i = 0; i < len; ++i) m.push_back(kAlphabet[rng() % sizeof(kAlphabet)]);
  return m;
}

// Scores with many ties, both zeros and both infinities.
double random_score(std::mt19937_64& rng) {
  static const double kPool[] = {-kInf, -2.5, -1, -0.0, 0, 0.5, 1, 1.5, 2, 3, kInf};
  if (rng() % 3 == 0) return static_cast<double>(static_cast<int>(rng() % 21) - 10) / 4;
  return kPool[rng() % std::size(kPool)];
}

TEST(SkiplistTest, MemberOrderForEqualScores) {
  const std::vector<std::string> sorted = {""s,      "\0"s,     "\0\0"s, "\0a"s,     "a"s, "a\0"s,
                                           "a\0\0"s, "a\0b"s,   "aa"s,   "ab"s,      "b"s, "\x7f"s,
                                           "\x80"s,  "\x80\0"s, "\xff"s, "\xff\xff"s};
  for (size_t i = 0; i + 1 < sorted.size(); ++i) {
    EXPECT_LT(compare_members(sorted[i], sorted[i + 1]), 0) << i;
    EXPECT_GT(compare_members(sorted[i + 1], sorted[i]), 0) << i;
    EXPECT_EQ(compare_members(sorted[i], sorted[i]), 0) << i;
  }
  random_seed(test_seed());
  Skiplist sl;
  // Insert in a scrambled order.
  for (size_t i = 0; i < sorted.size(); ++i) sl.insert(7, sorted[(i * 7) % sorted.size()]);
  ASSERT_TRUE(sl.check_invariants());
  std::vector<std::string> got;
  for (const SkiplistNode* n = sl.first(); n != nullptr; n = n->next()) {
    got.emplace_back(n->member());
  }
  EXPECT_EQ(got, sorted);
  for (size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(sl.rank(7, sorted[i]), i + 1);
    EXPECT_EQ(sl.node_by_rank(i + 1)->member(), sorted[i]);
  }
  EXPECT_EQ(sl.rank(7, "a\0\0\0"s), 0u);
  EXPECT_EQ(sl.rank(6, "a"), 0u);
  EXPECT_FALSE(sl.erase(7, "a\0\0\0"s));
  EXPECT_TRUE(sl.erase(7, "a\0"s));
  EXPECT_EQ(sl.rank(7, "a\0\0"s), 6u);
  EXPECT_TRUE(sl.check_invariants());
}

TEST(SkiplistTest, EmptyList) {
  Skiplist sl;
  EXPECT_EQ(sl.size(), 0u);
  EXPECT_EQ(sl.first(), nullptr);
  EXPECT_EQ(sl.last(), nullptr);
  EXPECT_EQ(sl.node_by_rank(0), nullptr);
  EXPECT_EQ(sl.node_by_rank(1), nullptr);
  EXPECT_EQ(sl.rank(1, "a"), 0u);
  EXPECT_FALSE(sl.erase(1, "a"));
  ZsetRange all{-kInf, kInf, false, false};
  EXPECT_EQ(sl.first_in_range(all), nullptr);
  EXPECT_EQ(sl.last_in_range(all), nullptr);
  EXPECT_EQ(sl.erase_range_by_score(all, [](SkiplistNode*) {}), 0u);
  EXPECT_EQ(sl.erase_range_by_rank(1, 10, [](SkiplistNode*) {}), 0u);
  EXPECT_TRUE(sl.check_invariants());
}

TEST(SkiplistTest, UpdateScoreKeepsNode) {
  random_seed(test_seed());
  Skiplist sl;
  SkiplistNode* a = sl.insert(1, "a");
  SkiplistNode* b = sl.insert(2, "b");
  SkiplistNode* c = sl.insert(3, "c");
  // In place: still between its neighbours.
  EXPECT_EQ(sl.update_score(2, "b", 2.5), b);
  EXPECT_EQ(b->score(), 2.5);
  // Ties decide by member: b at 3 is still before c at 3.
  sl.update_score(b, 3);
  EXPECT_EQ(b->next(), c);
  // Moves: a jumps past everything, node address unchanged.
  EXPECT_EQ(sl.update_score(1, "a", 10), a);
  EXPECT_EQ(sl.last(), a);
  EXPECT_EQ(sl.first(), b);
  EXPECT_EQ(a->prev(), c);
  EXPECT_EQ(sl.rank(10, "a"), 3u);
  // c at 3 before b at 3? No: "b" < "c" keeps b first; moving c down to 0 makes it first.
  sl.update_score(c, 0);
  EXPECT_EQ(sl.first(), c);
  EXPECT_EQ(c->prev(), nullptr);
  EXPECT_TRUE(sl.check_invariants());
  EXPECT_EQ(contents(sl), (std::vector<Entry>{{0, "c"}, {3, "b"}, {10, "a"}}));
}

// Checks every rank and node_by_rank against the model, and both iteration directions.
void check_against_model(const Skiplist& sl, const Model& model) {
  ASSERT_TRUE(sl.check_invariants());
  ASSERT_EQ(sl.size(), model.size());
  const std::vector<Entry> want(model.begin(), model.end());
  ASSERT_EQ(contents(sl), want);
  ASSERT_EQ(contents_backward(sl), std::vector<Entry>(want.rbegin(), want.rend()));
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(sl.rank(want[i].first, want[i].second), i + 1);
    const SkiplistNode* n = sl.node_by_rank(i + 1);
    ASSERT_NE(n, nullptr);
    ASSERT_EQ(n->member(), want[i].second);
    ASSERT_EQ(sl.rank(n), i + 1);
  }
  ASSERT_EQ(sl.node_by_rank(want.size() + 1), nullptr);
}

TEST(SkiplistTest, RandomOpsAgainstModel) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  random_seed(seed);
  Skiplist sl;
  Model model;
  std::map<std::string, double> score_of;
  for (int op = 0; op < 20000; ++op) {
    const std::string m = random_member(rng);
    auto it = score_of.find(m);
    const uint32_t r = static_cast<uint32_t>(rng() % 10);
    if (it == score_of.end()) {
      if (r < 7) {
        const double s = random_score(rng);
        SkiplistNode* n = sl.insert(s, m);
        ASSERT_EQ(n->member(), m);
        ASSERT_EQ(n->score(), s);
        model.emplace(s, m);
        score_of[m] = s;
      } else {
        ASSERT_FALSE(sl.erase(random_score(rng), m));
        ASSERT_EQ(sl.rank(random_score(rng), m), 0u);
      }
    } else if (r < 2) {
      ASSERT_TRUE(sl.erase(it->second, m));
      model.erase({it->second, m});
      score_of.erase(it);
    } else if (r < 3) {
      // By node: the first one (ZPOPMIN's path, no descent), the last, or this member's.
      SkiplistNode* n = (rng() % 3 == 0)   ? sl.first()
                        : (rng() % 2 == 0) ? sl.last()
                                           : sl.node_by_rank(sl.rank(it->second, m));
      const Entry e{n->score(), std::string(n->member())};
      sl.erase(n);
      model.erase(e);
      score_of.erase(e.second);
    } else if (r < 8) {
      // Small moves (often in place) and big ones.
      const double s =
          (rng() & 1) ? it->second + 0.125 * (static_cast<int>(rng() % 5) - 2) : random_score(rng);
      if (std::isnan(s)) continue;  // inf + x stays inf, never NaN here; be safe anyway
      const size_t rank_before = sl.rank(it->second, m);
      SkiplistNode* before = sl.node_by_rank(rank_before);
      SkiplistNode* after = sl.update_score(it->second, m, s);
      ASSERT_EQ(before, after);  // the node survives a score change
      model.erase({it->second, m});
      model.emplace(s, m);
      it->second = s;
    } else {
      // Wrong score for a present member: not found (inf + 1000 would still be inf).
      if (std::isfinite(it->second)) {
        ASSERT_FALSE(sl.erase(it->second + 1000, m));
      }
    }
    if (op % 500 == 0) check_against_model(sl, model);
  }
  check_against_model(sl, model);
  // The move constructor carries the list; the moved-from one can be destroyed.
  Skiplist moved(std::move(sl));
  check_against_model(moved, model);
  moved.clear();
  EXPECT_TRUE(moved.check_invariants());
  EXPECT_EQ(moved.size(), 0u);
  moved.insert(1, "x");
  EXPECT_TRUE(moved.check_invariants());
}

TEST(SkiplistTest, LargeListRanksAndHeights) {
  const uint32_t seed = test_seed();
  random_seed(seed);
  std::mt19937_64 rng(seed);
  Skiplist sl;
  const int n = 100000;
  // Distinct members, scores with ties.
  for (int i = 0; i < n; ++i) sl.insert(static_cast<double>(rng() % 1000), std::to_string(i));
  ASSERT_EQ(sl.size(), static_cast<size_t>(n));
  int tall = 0;
  size_t prev_rank = 0;
  for (const SkiplistNode* x = sl.first(); x != nullptr; x = x->next()) {
    if (x->height() >= 2) ++tall;
    ASSERT_LE(x->height(), Skiplist::kMaxLevel);
    if (prev_rank % 997 == 0) {
      ASSERT_EQ(sl.rank(x), prev_rank + 1);
    }
    ++prev_rank;
  }
  // P(height >= 2) = 1/4: 25000 expected, sd ~137.
  EXPECT_GT(tall, 23500);
  EXPECT_LT(tall, 26500);
  for (int i = 0; i < 1000; ++i) {
    const size_t r = 1 + rng() % n;
    const SkiplistNode* x = sl.node_by_rank(r);
    ASSERT_NE(x, nullptr);
    ASSERT_EQ(sl.rank(x), r);
  }
  EXPECT_TRUE(sl.check_invariants());
}

// Model filter for a score range.
std::vector<Entry> model_in_range(const Model& model, const ZsetRange& r) {
  std::vector<Entry> out;
  for (const Entry& e : model) {
    const bool ge = r.minex ? e.first > r.min : e.first >= r.min;
    const bool le = r.maxex ? e.first < r.max : e.first <= r.max;
    if (ge && le) out.push_back(e);
  }
  return out;
}

ZsetRange random_range(std::mt19937_64& rng) {
  ZsetRange r;
  r.min = random_score(rng);
  r.max = (rng() % 4 == 0) ? random_score(rng) : r.min + static_cast<double>(rng() % 8) / 4;
  if (std::isnan(r.max)) r.max = kInf;
  r.minex = rng() & 1;
  r.maxex = rng() & 1;
  if (rng() % 10 == 0) r.min = -kInf;
  if (rng() % 10 == 0) r.max = kInf;
  return r;
}

// Lookups of first/last in range (with ranks) and iteration between them.
void check_score_range(const Skiplist& sl, const Model& model, const ZsetRange& r) {
  const std::vector<Entry> want = model_in_range(model, r);
  size_t first_rank = 0, last_rank = 0;
  const SkiplistNode* first = sl.first_in_range(r, &first_rank);
  const SkiplistNode* last = sl.last_in_range(r, &last_rank);
  // intersects() is Redis's coarse zslIsInRange: it may say yes when the range falls in a gap
  // between nodes, but never no when a node is in range.
  if (!sl.intersects(r)) {
    ASSERT_TRUE(want.empty());
  }
  if (want.empty()) {
    ASSERT_EQ(first, nullptr);
    ASSERT_EQ(last, nullptr);
    return;
  }
  ASSERT_NE(first, nullptr);
  ASSERT_NE(last, nullptr);
  ASSERT_EQ(Entry(first->score(), std::string(first->member())), want.front());
  ASSERT_EQ(Entry(last->score(), std::string(last->member())), want.back());
  ASSERT_EQ(first_rank, sl.rank(first));
  ASSERT_EQ(last_rank, sl.rank(last));
  ASSERT_EQ(last_rank - first_rank + 1, want.size());  // ZCOUNT
  std::vector<Entry> got;
  for (const SkiplistNode* x = first;; x = x->next()) {
    got.emplace_back(x->score(), std::string(x->member()));
    if (x == last) break;
  }
  ASSERT_EQ(got, want);
}

TEST(SkiplistTest, ScoreRangesAgainstModel) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  random_seed(seed);
  for (int round = 0; round < 20; ++round) {
    Skiplist sl;
    Model model;
    std::set<std::string> members;
    const int n = static_cast<int>(rng() % 300);
    for (int i = 0; i < n; ++i) {
      std::string m = random_member(rng) + std::to_string(rng() % 50);
      if (!members.insert(m).second) continue;
      const double s = random_score(rng);
      sl.insert(s, m);
      model.emplace(s, m);
    }
    for (int q = 0; q < 200; ++q) {
      const ZsetRange r = random_range(rng);
      SCOPED_TRACE(testing::Message()
                   << (r.minex ? "(" : "") << r.min << " " << (r.maxex ? "(" : "") << r.max);
      check_score_range(sl, model, r);
    }
    // Fixed ranges with infinities.
    check_score_range(sl, model, {-kInf, kInf, false, false});
    check_score_range(sl, model, {-kInf, kInf, true, true});  // excludes +-inf scores
    check_score_range(sl, model, {kInf, kInf, false, false});
    check_score_range(sl, model, {-kInf, -kInf, false, false});
    check_score_range(sl, model, {1, 1, false, false});
    check_score_range(sl, model, {1, 1, true, false});   // empty
    check_score_range(sl, model, {2, 1, false, false});  // empty
  }
}

TEST(SkiplistTest, EraseRangeByScoreAgainstModel) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  random_seed(seed);
  for (int round = 0; round < 150; ++round) {
    Skiplist sl;
    Model model;
    std::set<std::string> members;
    const int n = static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) {
      std::string m = random_member(rng) + std::to_string(rng() % 40);
      if (!members.insert(m).second) continue;
      const double s = random_score(rng);
      sl.insert(s, m);
      model.emplace(s, m);
    }
    for (int k = 0; k < 3; ++k) {
      const ZsetRange r = random_range(rng);
      const std::vector<Entry> want = model_in_range(model, r);
      std::vector<Entry> erased;
      const size_t count = sl.erase_range_by_score(
          r, [&](SkiplistNode* x) { erased.emplace_back(x->score(), std::string(x->member())); });
      ASSERT_EQ(count, want.size());
      ASSERT_EQ(erased, want);
      for (const Entry& e : want) model.erase(e);
      check_against_model(sl, model);
    }
  }
}

TEST(SkiplistTest, EraseRangeByRankAgainstModel) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  random_seed(seed);
  for (int round = 0; round < 150; ++round) {
    Skiplist sl;
    Model model;
    const int n = static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) {
      const double s = random_score(rng);
      const std::string m = "m" + std::to_string(i);
      sl.insert(s, m);
      model.emplace(s, m);
    }
    for (int k = 0; k < 3; ++k) {
      const size_t size = model.size();
      size_t start = rng() % (size + 3);
      size_t end = start + rng() % 20;
      if (rng() % 8 == 0) end = start - (start > 0 ? 1 : 0);  // empty (or start 0)
      std::vector<Entry> want;
      size_t rank = 0;
      for (const Entry& e : model) {
        ++rank;
        if (rank >= std::max<size_t>(start, 1) && rank <= end) want.push_back(e);
      }
      std::vector<Entry> erased;
      const size_t count = sl.erase_range_by_rank(start, end, [&](SkiplistNode* x) {
        erased.emplace_back(x->score(), std::string(x->member()));
      });
      ASSERT_EQ(count, want.size()) << start << ".." << end;
      ASSERT_EQ(erased, want);
      for (const Entry& e : want) model.erase(e);
      check_against_model(sl, model);
    }
  }
}

// ---- lex ----

ZsetLexRange::Bound random_lex_bound(std::mt19937_64& rng, std::string* storage) {
  switch (rng() % 8) {
    case 0:
      return {{}, ZsetLexRange::Kind::kMinusInf, true};
    case 1:
      return {{}, ZsetLexRange::Kind::kPlusInf, true};
    default:
      *storage = random_member(rng);
      return {*storage, ZsetLexRange::Kind::kValue, static_cast<bool>(rng() & 1)};
  }
}

// Model comparison of a member against a bound, from the ZRANGEBYLEX documentation.
bool model_lex_contains(const std::string& m, const ZsetLexRange& r) {
  auto ge_min = [&] {
    if (r.min.kind == ZsetLexRange::Kind::kMinusInf) return true;
    if (r.min.kind == ZsetLexRange::Kind::kPlusInf) return false;
    const std::string v(r.min.value);
    return r.min.exclusive ? m > v : m >= v;
  };
  auto le_max = [&] {
    if (r.max.kind == ZsetLexRange::Kind::kPlusInf) return true;
    if (r.max.kind == ZsetLexRange::Kind::kMinusInf) return false;
    const std::string v(r.max.value);
    return r.max.exclusive ? m < v : m <= v;
  };
  return ge_min() && le_max();
}

TEST(SkiplistTest, LexRangesAgainstModel) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  random_seed(seed);
  for (int round = 0; round < 60; ++round) {
    Skiplist sl;
    Model model;  // all scores 0
    const int n = static_cast<int>(rng() % 120);
    for (int i = 0; i < n; ++i) {
      const std::string m = random_member(rng);
      if (model.count({0, m})) continue;
      sl.insert(0, m);
      model.emplace(0, m);
    }
    for (int q = 0; q < 100; ++q) {
      std::string smin, smax;
      ZsetLexRange r;
      r.min = random_lex_bound(rng, &smin);
      r.max = random_lex_bound(rng, &smax);
      std::vector<Entry> want;
      for (const Entry& e : model) {
        if (model_lex_contains(e.second, r)) want.push_back(e);
      }
      size_t first_rank = 0, last_rank = 0;
      const SkiplistNode* first = sl.first_in_lex_range(r, &first_rank);
      const SkiplistNode* last = sl.last_in_lex_range(r, &last_rank);
      if (want.empty()) {
        ASSERT_EQ(first, nullptr);
        ASSERT_EQ(last, nullptr);
      } else {
        ASSERT_FALSE(r.empty());
        ASSERT_NE(first, nullptr);
        ASSERT_NE(last, nullptr);
        ASSERT_EQ(first->member(), want.front().second);
        ASSERT_EQ(last->member(), want.back().second);
        ASSERT_EQ(last_rank - first_rank + 1, want.size());  // ZLEXCOUNT
        ASSERT_EQ(first_rank, sl.rank(first));
      }
      if (q % 10 == 0) {
        // Erase the range from the list and the model, then compare everything.
        std::vector<Entry> erased;
        const size_t count = sl.erase_range_by_lex(
            r, [&](SkiplistNode* x) { erased.emplace_back(x->score(), std::string(x->member())); });
        ASSERT_EQ(count, want.size());
        ASSERT_EQ(erased, want);
        for (const Entry& e : want) model.erase(e);
        check_against_model(sl, model);
      }
    }
  }
}

TEST(SkiplistTest, LexRangeEmptiness) {
  auto range = [](std::string_view a, std::string_view b) {
    ZsetLexRange r;
    EXPECT_TRUE(parse_zset_lex_range(a, b, &r)) << a << " " << b;
    return r;
  };
  EXPECT_TRUE(range("-", "-").empty());
  EXPECT_TRUE(range("+", "+").empty());
  EXPECT_TRUE(range("+", "-").empty());
  EXPECT_FALSE(range("-", "+").empty());
  EXPECT_FALSE(range("[a", "[a").empty());
  EXPECT_TRUE(range("(a", "[a").empty());
  EXPECT_TRUE(range("[a", "(a").empty());
  EXPECT_TRUE(range("[b", "[a").empty());
  EXPECT_FALSE(range("[", "+").empty());
  EXPECT_TRUE(range("+", "[zzz").empty());
  EXPECT_FALSE(range("-", "(").empty());  // only "-" ... "" exclusive: nothing matches, not empty
  Skiplist sl;
  sl.insert(0, "");
  sl.insert(0, "a");
  EXPECT_EQ(sl.first_in_lex_range(range("-", "(")), nullptr);
  EXPECT_EQ(sl.first_in_lex_range(range("-", "["))->member(), "");
  EXPECT_EQ(sl.first_in_lex_range(range("(", "+"))->member(), "a");
  EXPECT_EQ(sl.last_in_lex_range(range("-", "+"))->member(), "a");
}

// ---- parsers ----

TEST(SkiplistTest, ParseScoreBounds) {
  struct Case {
    std::string in;
    bool ok;
    double value;
    bool ex;
  };
  const Case cases[] = {
      {"1.5", true, 1.5, false},
      {"(1.5", true, 1.5, true},
      {"-inf", true, -kInf, false},
      {"+inf", true, kInf, false},
      {"inf", true, kInf, false},
      {"(inf", true, kInf, true},
      {"(-inf", true, -kInf, true},
      {"-Infinity", true, -kInf, false},
      {"10", true, 10, false},
      {"-0", true, 0, false},
      {"0x10", true, 16, false},
      {"1e3", true, 1000, false},
      // Redis's strtod quirks, observed on redis-server 7.0:
      {"", true, 0, false},    // ZRANGEBYSCORE z "" "" -> [0, 0]
      {"(", true, 0, true},    // "(" -> (0
      {" 1", true, 1, false},  // leading whitespace skipped
      {"(\t2", true, 2, true},
      {"1e500", true, kInf, false},  // overflow -> inf
      {"-1e500", true, -kInf, false},
      {"1e-400", true, 0, false},  // underflow -> 0
      {"1\0x"s, true, 1, false},   // bytes after a NUL are ignored
      {"\0"s, true, 0, false},
      {"nan", false, 0, false},
      {"(nan", false, 0, false},
      {"-nan", false, 0, false},
      {"1 ", false, 0, false},
      {"abc", false, 0, false},
      {"((1", false, 0, false},
      {"[1", false, 0, false},
      {"1.5.5", false, 0, false},
      {"--1", false, 0, false},
      {std::string(200, '0') + "1", true, 1, false},  // long input (heap copy path)
      {std::string(200, '0') + "x", false, 0, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "input '" << c.in << "' len " << c.in.size());
    double v = -12345;
    bool ex = false;
    const bool ok = parse_zset_score_bound(c.in, &v, &ex);
    ASSERT_EQ(ok, c.ok);
    if (!ok) continue;
    EXPECT_EQ(v, c.value);
    EXPECT_EQ(ex, c.ex);
  }
  ZsetRange r;
  ASSERT_TRUE(parse_zset_range("(1", "+inf", &r));
  EXPECT_TRUE(r.minex);
  EXPECT_FALSE(r.maxex);
  EXPECT_EQ(r.max, kInf);
  EXPECT_FALSE(r.contains(1));
  EXPECT_TRUE(r.contains(1.0000001));
  EXPECT_TRUE(r.contains(kInf));
  EXPECT_FALSE(parse_zset_range("1", "nan", &r));
  EXPECT_FALSE(parse_zset_range("x", "1", &r));
  ASSERT_TRUE(parse_zset_range("(1", "(1", &r));
  EXPECT_TRUE(r.empty());
  ASSERT_TRUE(parse_zset_range("1", "1", &r));
  EXPECT_FALSE(r.empty());
  ASSERT_TRUE(parse_zset_range("+inf", "-inf", &r));
  EXPECT_TRUE(r.empty());
}

TEST(SkiplistTest, ParseLexBounds) {
  ZsetLexRange::Bound b;
  ASSERT_TRUE(parse_zset_lex_bound("[abc", &b));
  EXPECT_EQ(b.kind, ZsetLexRange::Kind::kValue);
  EXPECT_EQ(b.value, "abc");
  EXPECT_FALSE(b.exclusive);
  const std::string with_nul = "(a\0b"s;  // the bound views into its input
  ASSERT_TRUE(parse_zset_lex_bound(with_nul, &b));
  EXPECT_EQ(b.value, "a\0b"s);
  EXPECT_TRUE(b.exclusive);
  ASSERT_TRUE(parse_zset_lex_bound("[", &b));
  EXPECT_EQ(b.value, "");
  ASSERT_TRUE(parse_zset_lex_bound("-", &b));
  EXPECT_EQ(b.kind, ZsetLexRange::Kind::kMinusInf);
  ASSERT_TRUE(parse_zset_lex_bound("+", &b));
  EXPECT_EQ(b.kind, ZsetLexRange::Kind::kPlusInf);
  ASSERT_TRUE(parse_zset_lex_bound("+\0zz"s, &b));  // Redis tests only the next byte for NUL
  EXPECT_EQ(b.kind, ZsetLexRange::Kind::kPlusInf);
  for (const std::string& bad : {""s, "a"s, "-a"s, "+a"s, "--"s, "++"s, " [a"s, "\0"s, "{a"s}) {
    EXPECT_FALSE(parse_zset_lex_bound(bad, &b)) << bad;
  }
  ZsetLexRange r;
  EXPECT_FALSE(parse_zset_lex_range("[a", "b", &r));
  EXPECT_FALSE(parse_zset_lex_range("a", "[b", &r));
  EXPECT_TRUE(parse_zset_lex_range("[a", "(b", &r));
  EXPECT_TRUE(r.contains("a"));
  EXPECT_TRUE(r.contains("a\0"s));
  EXPECT_TRUE(r.contains("azzz"));
  EXPECT_FALSE(r.contains("b"));
  EXPECT_FALSE(r.contains(""));
}

// The intended zset layout: the member -> score table stores the skiplist nodes themselves.
struct NodeTraits {
  using Entry = SkiplistNode*;
  static std::string_view key(const SkiplistNode* n) { return n->member(); }
};

// The batch prefetch's descents, run interleaved, each stop at the predecessor of their pair:
// the node an insert of (score, member) would be linked after (the header for the front).
TEST(SkiplistTest, DescentsStopAtThePredecessor) {
  std::mt19937_64 rng(test_seed());
  Skiplist sl;
  Model model;
  for (int i = 0; i < 3000; ++i) {
    Entry e{random_score(rng), random_member(rng)};
    if (model.insert(e).second) sl.insert(e.first, e.second);
  }
  std::vector<Entry> targets;
  for (int i = 0; i < 60; ++i) targets.emplace_back(random_score(rng), random_member(rng));
  targets.emplace_back(-kInf, ""s);  // before everything
  targets.emplace_back(kInf, "\xff\xff\xff\xff\xff"s);  // after everything
  std::vector<Skiplist::Descent> d;
  for (const Entry& t : targets) d.push_back(sl.start_descent(t.first, t.second));
  Skiplist::run_descents(d.data(), d.size());
  for (const Skiplist::Descent& c : d) {
    EXPECT_EQ(c.level, -1);
    const auto next = model.lower_bound(Entry{c.score, std::string(c.member)});
    const SkiplistNode* want = c.x->next();
    if (next == model.end()) {
      EXPECT_EQ(want, nullptr);
    } else {
      ASSERT_NE(want, nullptr);
      EXPECT_EQ(Entry(want->score(), std::string(want->member())), *next);
    }
    if (c.x->next() != sl.first()) {
      EXPECT_LT(Entry(c.x->score(), std::string(c.x->member())),
                Entry(c.score, std::string(c.member)));
    }
  }
  Skiplist empty;
  Skiplist::Descent e = empty.start_descent(1, "a");
  Skiplist::run_descents(&e, 1);
  EXPECT_EQ(e.x->next(), nullptr);
}

TEST(SkiplistTest, NodesAsHashTableEntries) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  random_seed(seed);
  Skiplist sl;
  HashTable<NodeTraits> table;
  for (int i = 0; i < 2000; ++i) {
    const std::string m = "m" + std::to_string(rng() % 3000);
    const double s = static_cast<double>(rng() % 100);
    if (SkiplistNode* n = table.find(m)) {
      sl.update_score(n, s);  // the table entry stays valid: same node
      ASSERT_EQ(table.find(m)->score(), s);
    } else {
      ASSERT_TRUE(table.insert(sl.insert(s, m)));
    }
  }
  ASSERT_EQ(table.size(), sl.size());
  const size_t erased = sl.erase_range_by_score(
      {10, 50, false, true}, [&](SkiplistNode* n) { ASSERT_EQ(table.erase(n->member()), n); });
  EXPECT_GT(erased, 0u);
  sl.erase_range_by_rank(1, 100, [&](SkiplistNode* n) { table.erase(n->member()); });
  ASSERT_EQ(table.size(), sl.size());
  for (const SkiplistNode* n = sl.first(); n != nullptr; n = n->next()) {
    ASSERT_EQ(table.find(n->member()), n);
  }
  EXPECT_TRUE(sl.check_invariants());
}

TEST(SkiplistTest, NodeBytes) {
  Skiplist sl;
  const SkiplistNode* n = sl.insert(1, "hello");
  EXPECT_EQ(Skiplist::node_bytes(n), 24 + 16 * static_cast<size_t>(n->height()) + 5);
}

}  // namespace
}  // namespace keel
