// ZsetType against a std::set<(score, member)> + std::map model: random adds (all ZADD flag
// combinations), removals, pops and range removals, in both encodings and across the listpack ->
// skiplist conversion boundaries; every step checks order, scores, ranks and counts. Also the
// ZsetAccumulator build (listpack or skiplist by the limits) and deep copy.
#include "types/zset_type.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace keel {
namespace {

struct Less {
  bool operator()(const std::pair<double, std::string>& a,
                  const std::pair<double, std::string>& b) const {
    if (a.first != b.first) return a.first < b.first;
    return compare_members(a.second, b.second) < 0;
  }
};

struct Model {
  std::set<std::pair<double, std::string>, Less> order;
  std::map<std::string, double> scores;
  void add(const std::string& m, double s) {
    auto it = scores.find(m);
    if (it != scores.end()) order.erase({it->second, m});
    scores[m] = s;
    order.insert({s, m});
  }
  bool remove(const std::string& m) {
    auto it = scores.find(m);
    if (it == scores.end()) return false;
    order.erase({it->second, m});
    scores.erase(it);
    return true;
  }
  std::vector<std::pair<double, std::string>> items() const { return {order.begin(), order.end()}; }
};

std::vector<std::pair<double, std::string>> contents(const Object& o) {
  std::vector<std::pair<double, std::string>> out;
  ZsetType::for_each(o, [&](std::string_view m, double s) { out.emplace_back(s, std::string(m)); });
  return out;
}

void check_against(const Object& o, const Model& model) {
  ASSERT_TRUE(ZsetType::check(o));
  ASSERT_EQ(ZsetType::size(o), model.scores.size());
  const auto items = model.items();
  ASSERT_EQ(contents(o), items);
  for (size_t i = 0; i < items.size(); i += 1 + items.size() / 8) {
    size_t rank;
    double score;
    ASSERT_TRUE(ZsetType::rank(o, items[i].second, false, &rank, &score));
    EXPECT_EQ(rank, i);
    EXPECT_EQ(score, items[i].first);
    ASSERT_TRUE(ZsetType::rank(o, items[i].second, true, &rank, &score));
    EXPECT_EQ(rank, items.size() - 1 - i);
  }
}

class ZsetTypeTest : public testing::Test {
 protected:
  void SetUp() override { saved_ = encoding_limits(); }
  void TearDown() override { encoding_limits() = saved_; }
  EncodingLimits saved_;
};

std::string member_of(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return std::to_string(static_cast<int>(rng() % 50) - 10);  // integer members
    case 1: return std::string(1 + rng() % 3, static_cast<char>('a' + rng() % 3));
    case 2: return rng() % 20 == 0 ? std::string(70, 'L') : "m" + std::to_string(rng() % 40);
    default: return "m" + std::to_string(rng() % 60);
  }
}

double score_of(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0: return INFINITY;
    case 1: return -INFINITY;
    case 2: return static_cast<double>(rng() % 7) / 4.0;
    case 3: return 1e20;
    default: return static_cast<double>(static_cast<int>(rng() % 11) - 5);
  }
}

TEST_F(ZsetTypeTest, RandomOpsAgainstModel) {
  std::mt19937_64 rng(testing::UnitTest::GetInstance()->random_seed());
  for (int round = 0; round < 60; ++round) {
    const int64_t limits[] = {0, 1, 4, 16, 128};
    encoding_limits().zset_max_listpack_entries = limits[rng() % 5];
    encoding_limits().zset_max_listpack_value = rng() % 2 ? 64 : 8;
    Object* o = ZsetType::create("k", 1, 1);
    Model model;
    for (int step = 0; step < 300; ++step) {
      const std::string m = member_of(rng);
      switch (rng() % 10) {
        case 0:
        case 1:
        case 2:
        case 3: {
          const int flags_choices[] = {0,
                                       ZsetType::kNx,
                                       ZsetType::kXx,
                                       ZsetType::kGt,
                                       ZsetType::kLt,
                                       ZsetType::kIncr,
                                       ZsetType::kIncr | ZsetType::kGt,
                                       ZsetType::kXx | ZsetType::kLt};
          const int flags = flags_choices[rng() % 8];
          double s = score_of(rng);
          double ns = 0;
          const auto it = model.scores.find(m);
          const bool exists = it != model.scores.end();
          double expect = s;
          if (flags & ZsetType::kIncr && exists) expect = it->second + s;
          const auto r = ZsetType::add(*o, s, m, flags, &ns);
          if (std::isnan(expect)) {
            EXPECT_EQ(r, ZsetType::AddResult::kNaN);
            break;
          }
          bool apply = true;
          if (exists && (flags & ZsetType::kNx)) apply = false;
          if (!exists && (flags & ZsetType::kXx)) apply = false;
          if (exists && (flags & ZsetType::kGt) && !(expect > it->second)) apply = false;
          if (exists && (flags & ZsetType::kLt) && !(expect < it->second)) apply = false;
          if (!apply) {
            EXPECT_EQ(r, ZsetType::AddResult::kNop);
            break;
          }
          EXPECT_EQ(ns, expect);
          if (!exists) {
            EXPECT_EQ(r, ZsetType::AddResult::kAdded);
          } else if (expect == it->second) {
            EXPECT_EQ(r, ZsetType::AddResult::kSame);
          } else {
            EXPECT_EQ(r, ZsetType::AddResult::kUpdated);
          }
          model.add(m, expect);
          break;
        }
        case 4:
          EXPECT_EQ(ZsetType::remove(*o, m), model.remove(m));
          break;
        case 5: {
          const bool max = rng() % 2;
          const size_t n = rng() % 4;
          std::vector<std::string> got;
          ZsetType::pop(*o, max, n, [](void* c, std::string_view mm, double) {
            static_cast<std::vector<std::string>*>(c)->emplace_back(mm);
          }, &got);
          for (const auto& g : got) {
            const auto& edge = max ? *model.order.rbegin() : *model.order.begin();
            EXPECT_EQ(g, edge.second);
            model.remove(g);
          }
          EXPECT_EQ(got.size(), std::min(n, got.size() + model.scores.size()));
          break;
        }
        case 6: {
          ZsetRange range;
          range.min = score_of(rng);
          range.max = score_of(rng);
          range.minex = rng() % 2;
          range.maxex = rng() % 2;
          size_t expected = 0;
          for (const auto& [s, mm] : model.items()) expected += range.contains(s);
          EXPECT_EQ(ZsetType::count_in_range(*o, range), range.empty() ? 0 : expected);
          if (rng() % 2) {
            const size_t removed = ZsetType::remove_range_by_score(*o, range);
            EXPECT_EQ(removed, range.empty() ? 0 : expected);
            if (!range.empty()) {
              for (const auto& [s, mm] : model.items()) {
                if (range.contains(s)) model.remove(mm);
              }
            }
          }
          break;
        }
        case 7: {
          const size_t n = model.scores.size();
          if (n == 0) break;
          const size_t a = rng() % n, b = a + rng() % (n - a);
          const auto items = model.items();
          const bool rev = rng() % 2;
          std::vector<std::string> got;
          ZsetType::range_by_rank(*o, a, b, rev, [](void* c, std::string_view mm, double) {
            static_cast<std::vector<std::string>*>(c)->emplace_back(mm);
          }, &got);
          ASSERT_EQ(got.size(), b - a + 1);
          for (size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i], rev ? items[n - 1 - (a + i)].second : items[a + i].second);
          }
          if (rng() % 3 == 0) {
            EXPECT_EQ(ZsetType::remove_range_by_rank(*o, a, b), b - a + 1);
            for (size_t i = a; i <= b; ++i) model.remove(items[i].second);
          }
          break;
        }
        case 8: {
          ZsetRange range;
          range.min = score_of(rng);
          range.max = score_of(rng);
          const bool rev = rng() % 2;
          const size_t offset = rng() % 3;
          const int64_t limit = static_cast<int64_t>(rng() % 4) - 1;
          std::vector<std::string> expected;
          auto items = model.items();
          if (rev) std::reverse(items.begin(), items.end());
          if (!range.empty()) {
            size_t skipped = 0;
            for (const auto& [s, mm] : items) {
              if (!range.contains(s)) continue;
              if (skipped < offset) {
                ++skipped;
                continue;
              }
              if (limit >= 0 && expected.size() >= static_cast<size_t>(limit)) break;
              expected.push_back(mm);
            }
          }
          std::vector<std::string> got;
          ZsetType::range_by_score(*o, range, rev, offset, limit,
                                   [](void* c, std::string_view mm, double) {
                                     static_cast<std::vector<std::string>*>(c)->emplace_back(mm);
                                   },
                                   &got);
          EXPECT_EQ(got, expected);
          break;
        }
        default: {
          double s;
          const auto it = model.scores.find(m);
          ASSERT_EQ(ZsetType::score(*o, m, &s), it != model.scores.end());
          if (it != model.scores.end()) {
            EXPECT_EQ(s, it->second);
          }
          break;
        }
      }
      if (ZsetType::encoding(*o) == Encoding::kListpack) {
        ASSERT_LE(static_cast<int64_t>(ZsetType::size(*o)),
                  std::max<int64_t>(encoding_limits().zset_max_listpack_entries, 0));
      }
      if (step % 25 == 0) ZsetType::after_removals(*o);
      ASSERT_NO_FATAL_FAILURE(check_against(*o, model));
    }
    Object* copy = Object::clone_with_key(o, "copy", true);
    ASSERT_NO_FATAL_FAILURE(check_against(*copy, model));
    EXPECT_EQ(ZsetType::encoding(*copy), ZsetType::encoding(*o));
    EXPECT_EQ(object_length(copy), static_cast<int64_t>(model.scores.size()));
    Object::destroy(copy);
    Object::destroy(o);
  }
}

TEST_F(ZsetTypeTest, ConversionBoundaries) {
  encoding_limits().zset_max_listpack_entries = 3;
  encoding_limits().zset_max_listpack_value = 5;
  Object* o = ZsetType::create("k", 3, 5);
  EXPECT_EQ(ZsetType::encoding(*o), Encoding::kListpack);
  double ns;
  ZsetType::add(*o, 1, "a", 0, &ns);
  ZsetType::add(*o, 2, "bbbbb", 0, &ns);
  ZsetType::add(*o, 3, "c", 0, &ns);
  EXPECT_EQ(ZsetType::encoding(*o), Encoding::kListpack);
  ZsetType::add(*o, 3, "c", ZsetType::kIncr, &ns);  // update only: no conversion
  EXPECT_EQ(ZsetType::encoding(*o), Encoding::kListpack);
  ZsetType::add(*o, 4, "d", 0, &ns);
  EXPECT_EQ(ZsetType::encoding(*o), Encoding::kSkiplist);
  EXPECT_EQ(ZsetType::size(*o), 4u);
  Object::destroy(o);

  o = ZsetType::create("k", 1, 1);
  ZsetType::add(*o, 1, "bbbbbb", 0, &ns);  // 6 bytes > 5
  EXPECT_EQ(ZsetType::encoding(*o), Encoding::kSkiplist);
  Object::destroy(o);

  o = ZsetType::create("k", 4, 1);  // size hint over the limit
  EXPECT_EQ(ZsetType::encoding(*o), Encoding::kSkiplist);
  Object::destroy(o);

  o = ZsetType::create("k", 1, 1);
  ZsetType::maybe_convert(*o, 4);
  EXPECT_EQ(ZsetType::encoding(*o), Encoding::kSkiplist);
  Object::destroy(o);
}

TEST_F(ZsetTypeTest, AccumulatorBuildsSmallestEncoding) {
  encoding_limits().zset_max_listpack_entries = 4;
  encoding_limits().zset_max_listpack_value = 64;
  for (int n : {1, 4, 5, 50}) {
    ZsetAccumulator acc;
    bool created;
    for (int i = n - 1; i >= 0; --i) acc.upsert("m" + std::to_string(i), i % 3, &created);
    acc.upsert("m0", 99, &created);
    EXPECT_FALSE(created);
    Object* o = acc.build("dst");
    EXPECT_EQ(ZsetType::encoding(*o), n <= 4 ? Encoding::kListpack : Encoding::kSkiplist);
    EXPECT_EQ(ZsetType::size(*o), static_cast<size_t>(n));
    EXPECT_TRUE(ZsetType::check(*o));
    Object::destroy(o);
  }
}

}  // namespace
}  // namespace keel
