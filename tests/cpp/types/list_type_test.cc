// ListType against a std::deque model: random pushes, pops, LSET, LINSERT, LREM, LTRIM, LRANGE,
// LINDEX and LPOS across both encodings and their conversion boundaries (small fills and
// compression so conversions happen often), the exact thresholds of src/types/README.md ("Conversions"),
// and copy/free through the registered CollectionOps.
#include "types/list_type.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>
#include <vector>

#include "types/limits.h"

namespace keel {
namespace {

class ListTypeTest : public testing::Test {
 protected:
  void SetUp() override { saved_ = encoding_limits(); }
  void TearDown() override { encoding_limits() = saved_; }
  EncodingLimits saved_;
};

void append_entry(void* ctx, const LpEntry& e) {
  char buf[kLpIntBufSize];
  static_cast<std::vector<std::string>*>(ctx)->emplace_back(e.str(buf));
}

std::vector<std::string> all(const Object& o) {
  std::vector<std::string> out;
  int64_t from = 0;
  const size_t n = ListType::range_count(o, 0, -1, &from);
  ListType::range(o, from, n, append_entry, &out);
  return out;
}

struct ObjDeleter {
  void operator()(Object* o) const { Object::destroy(o); }
};
using ObjPtr = std::unique_ptr<Object, ObjDeleter>;

std::string random_value(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0: return std::to_string(static_cast<int64_t>(rng() % 200) - 100);
    case 1: return std::string(1 + rng() % 3, static_cast<char>('a' + rng() % 4));
    case 2: return std::string(100, static_cast<char>('a' + rng() % 3));
    case 3: return rng() % 20 == 0 ? std::string(9000, 'z') : "v" + std::to_string(rng() % 10);
    default: return std::to_string(rng());
  }
}

TEST_F(ListTypeTest, RandomOpsMatchModel) {
  const uint64_t seed = static_cast<uint64_t>(testing::UnitTest::GetInstance()->random_seed());
  for (int fill : {-2, -1, 1, 2, 5}) {
    for (int depth : {0, 1}) {
      encoding_limits().list_max_listpack_size = fill;
      encoding_limits().list_compress_depth = depth;
      std::mt19937_64 rng(seed * 31 + static_cast<uint64_t>(fill + 10) * 7 + static_cast<uint64_t>(depth));
      ObjPtr o(ListType::create("k"));
      std::deque<std::string> m;
      for (int step = 0; step < 3000; step++) {
        const std::string v = random_value(rng);
        SCOPED_TRACE("fill " + std::to_string(fill) + " depth " + std::to_string(depth) + " step " +
                     std::to_string(step));
        switch (rng() % 10) {
          case 0:
            ListType::push(*o, ListType::End::kHead, v);
            m.push_front(v);
            break;
          case 1:
          case 2: {
            std::vector<std::string_view> vs = {v, "x", "12"};
            ListType::push(*o, ListType::End::kTail, vs);
            for (auto s : vs) m.emplace_back(s);
            break;
          }
          case 3: {
            const size_t count = rng() % 4;
            std::vector<std::string> got;
            const bool head = rng() % 2;
            const size_t n = ListType::pop(*o, head ? ListType::End::kHead : ListType::End::kTail,
                                           count, append_entry, &got);
            ASSERT_EQ(n, std::min(count, m.size()));
            for (size_t i = 0; i < n; i++) {
              ASSERT_EQ(got[i], head ? m.front() : m.back());
              if (head) {
                m.pop_front();
              } else {
                m.pop_back();
              }
            }
            break;
          }
          case 4: {
            if (m.empty()) break;
            const int64_t idx = static_cast<int64_t>(rng() % m.size()) - (rng() % 2 ? static_cast<int64_t>(m.size()) : 0);
            ASSERT_TRUE(ListType::set(*o, idx, v));
            m[static_cast<size_t>(idx < 0 ? idx + static_cast<int64_t>(m.size()) : idx)] = v;
            ASSERT_FALSE(ListType::set(*o, static_cast<int64_t>(m.size()), v));
            break;
          }
          case 5: {
            if (m.empty()) break;
            const std::string pivot = m[rng() % m.size()];
            const bool after = rng() % 2;
            ASSERT_TRUE(ListType::insert(*o, pivot, v, after));
            auto it = std::find(m.begin(), m.end(), pivot);
            m.insert(after ? it + 1 : it, v);
            ASSERT_FALSE(ListType::insert(*o, "never-there", v, after));
            break;
          }
          case 6: {
            const int64_t count = static_cast<int64_t>(rng() % 5) - 2;
            const std::string target = m.empty() || rng() % 3 == 0 ? v : m[rng() % m.size()];
            size_t expect = 0;
            if (count >= 0) {
              for (auto it = m.begin(); it != m.end() && (count == 0 || expect < static_cast<size_t>(count));) {
                if (*it == target) { it = m.erase(it); expect++; } else { ++it; }
              }
            } else {
              for (size_t i = m.size(); i-- > 0 && expect < static_cast<size_t>(-count);) {
                if (m[i] == target) { m.erase(m.begin() + static_cast<long>(i)); expect++; }
              }
            }
            ASSERT_EQ(ListType::remove(*o, target, count), expect);
            break;
          }
          case 7: {
            if (rng() % 4) break;  // trims shrink a lot: keep them rare
            const int64_t len = static_cast<int64_t>(m.size());
            const int64_t start = static_cast<int64_t>(rng() % 5);
            const int64_t stop = -1 - static_cast<int64_t>(rng() % 5);
            ListType::trim(*o, start, stop);
            int64_t s = start, e = stop + len;
            if (s > e || s >= len) {
              m.clear();
            } else {
              m = std::deque<std::string>(m.begin() + s, m.begin() + e + 1);
            }
            break;
          }
          case 8: {
            const int64_t idx = static_cast<int64_t>(rng() % (m.size() + 2)) - 1;
            std::vector<std::string> got;
            const bool found = ListType::index(*o, idx, append_entry, &got);
            const int64_t real = idx < 0 ? idx + static_cast<int64_t>(m.size()) : idx;
            ASSERT_EQ(found, real >= 0 && real < static_cast<int64_t>(m.size()));
            if (found) {
              ASSERT_EQ(got[0], m[static_cast<size_t>(real)]);
            }
            break;
          }
          default: {
            if (m.empty()) break;
            const std::string target = m[rng() % m.size()];
            std::vector<int64_t> got;
            ListType::positions(*o, target, -1, 0,
                                [](void* c, int64_t i) {
                                  static_cast<std::vector<int64_t>*>(c)->push_back(i);
                                  return true;
                                },
                                &got);
            std::vector<int64_t> want;
            for (size_t i = m.size(); i-- > 0;) {
              if (m[i] == target) want.push_back(static_cast<int64_t>(i));
            }
            ASSERT_EQ(got, want);
          }
        }
        ASSERT_EQ(ListType::size(*o), m.size());
        if (step % 50 == 0 || m.size() < 4) {
          ASSERT_EQ(all(*o), std::vector<std::string>(m.begin(), m.end()));
        }
        if (step % 500 == 0) {
          ObjPtr c(Object::clone_with_key(o.get(), "copy", true));
          ASSERT_EQ(all(*c), all(*o));
          ASSERT_EQ(c->encoding(), o->encoding());
        }
      }
    }
  }
}

TEST_F(ListTypeTest, ConversionBoundaries) {
  encoding_limits().list_max_listpack_size = -2;
  ObjPtr o(ListType::create("k"));
  const std::string v(100, 'x');
  for (int i = 0; i < 79; i++) ListType::push(*o, ListType::End::kTail, v);
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  ListType::push(*o, ListType::End::kTail, v);
  EXPECT_EQ(o->encoding(), Encoding::kQuicklist);
  ListType::trim(*o, 0, 39);
  EXPECT_EQ(o->encoding(), Encoding::kQuicklist);
  std::string out;
  ASSERT_TRUE(ListType::pop_one(*o, ListType::End::kTail, &out));
  EXPECT_EQ(out, v);
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  EXPECT_EQ(ListType::size(*o), 39u);

  encoding_limits().list_max_listpack_size = 5;
  ObjPtr c(ListType::create("c"));
  for (int i = 0; i < 5; i++) ListType::push(*c, ListType::End::kTail, std::to_string(i));
  EXPECT_EQ(c->encoding(), Encoding::kListpack);
  ListType::push(*c, ListType::End::kTail, "5");
  EXPECT_EQ(c->encoding(), Encoding::kQuicklist);
  for (int i = 0; i < 3; i++) ASSERT_TRUE(ListType::pop_one(*c, ListType::End::kTail, &out));
  EXPECT_EQ(c->encoding(), Encoding::kQuicklist);
  ASSERT_TRUE(ListType::pop_one(*c, ListType::End::kTail, &out));
  EXPECT_EQ(c->encoding(), Encoding::kListpack);

  encoding_limits().list_max_listpack_size = -2;
  ObjPtr big(ListType::create("b"));
  ListType::push(*big, ListType::End::kHead, std::string(9000, 'q'));
  EXPECT_EQ(big->encoding(), Encoding::kQuicklist);
  EXPECT_EQ(object_length(big.get()), 1);
}

}  // namespace
}  // namespace keel
