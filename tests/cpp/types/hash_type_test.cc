// HashType against a std::map model: random set/remove/incr/get across both encodings and the
// listpack -> hashtable conversion points (entry count, value length, up-front by argument
// count), plus iteration, scan, random sampling, copy and object_length.
#include "types/hash_type.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/numbers.h"

namespace keel {
namespace {

using Model = std::map<std::string, std::string>;

Model contents(const Object& o) {
  Model m;
  HashType::for_each(o, [&](std::string_view f, std::string_view v) {
    EXPECT_TRUE(m.emplace(std::string(f), std::string(v)).second) << "duplicate field " << f;
  });
  return m;
}

void expect_same(const Object& o, const Model& model) {
  ASSERT_EQ(HashType::size(o), model.size());
  ASSERT_EQ(object_length(&o), static_cast<int64_t>(model.size()));
  ASSERT_EQ(contents(o), model);
  HashScratch s;
  for (const auto& [f, v] : model) {
    std::string_view got;
    ASSERT_TRUE(HashType::get(o, f, s, &got)) << f;
    ASSERT_EQ(got, v);
    ASSERT_TRUE(HashType::exists(o, f));
  }
}

// Fields and values that exercise listpack integer entries, strings, and the 64-byte limit.
std::string random_item(std::mt19937_64& rng, size_t max_len) {
  switch (rng() % 5) {
    case 0: return std::to_string(static_cast<int64_t>(rng() % 2000) - 1000);
    case 1: return "0" + std::to_string(rng() % 100);  // int-looking, not canonical
    case 2: return std::string(rng() % (max_len + 1), static_cast<char>('a' + rng() % 3));
    default: return "f" + std::to_string(rng() % 300);
  }
}

TEST(HashTypeTest, RandomOpsAgainstModel) {
  const uint64_t seed = testing::UnitTest::GetInstance()->random_seed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 60; round++) {
    EncodingLimits lim;
    lim.hash_max_listpack_entries = static_cast<int64_t>(rng() % 40);
    lim.hash_max_listpack_value = 8 + static_cast<int64_t>(rng() % 60);
    const size_t max_len = rng() % 3 == 0 ? 80 : 12;
    Object* o = HashType::create("h");
    Model model;
    bool was_dict = false;
    for (int step = 0; step < 400; step++) {
      const std::string f = random_item(rng, max_len);
      switch (rng() % 6) {
        case 0:
        case 1: {
          const std::string v = random_item(rng, max_len);
          const std::string_view args[2] = {f, v};
          HashType::prepare_for(*o, args, lim);
          const bool added = HashType::set(*o, f, v, lim);
          ASSERT_EQ(added, model.count(f) == 0) << "seed " << seed;
          model[f] = v;
          if (static_cast<int64_t>(f.size()) > lim.hash_max_listpack_value ||
              static_cast<int64_t>(v.size()) > lim.hash_max_listpack_value ||
              static_cast<int64_t>(model.size()) > lim.hash_max_listpack_entries) {
            ASSERT_EQ(o->encoding(), Encoding::kHashtable) << "seed " << seed;
          }
          break;
        }
        case 2: {
          const bool removed = HashType::remove(*o, f);
          ASSERT_EQ(removed, model.erase(f) == 1) << "seed " << seed;
          HashType::removals_done(*o);
          break;
        }
        case 3: {
          const int64_t delta = static_cast<int64_t>(rng() % 100) - 50;
          int64_t result = 0;
          const auto r = HashType::incr_by(*o, f, delta, &result, lim);
          int64_t cur = 0;
          auto it = model.find(f);
          if (it != model.end() && !parse_int64(it->second, &cur)) {
            ASSERT_EQ(r, HashType::IncrResult::kNotNumber);
          } else {
            ASSERT_EQ(r, HashType::IncrResult::kOk);
            ASSERT_EQ(result, cur + delta);
            model[f] = std::to_string(cur + delta);
          }
          break;
        }
        case 4: {
          char buf[kLongDoubleBufSize];
          size_t len = 0;
          const auto r = HashType::incr_by_float(*o, f, 0.5L, buf, &len, lim);
          long double cur = 0;
          auto it = model.find(f);
          if (it != model.end() && !parse_long_double(it->second, &cur)) {
            ASSERT_EQ(r, HashType::IncrResult::kNotNumber);
          } else {
            ASSERT_EQ(r, HashType::IncrResult::kOk);
            char exp[kLongDoubleBufSize];
            const size_t n = format_long_double_human(cur + 0.5L, exp, sizeof(exp));
            ASSERT_EQ(std::string(buf, len), std::string(exp, n));
            model[f] = std::string(exp, n);
          }
          break;
        }
        default: {
          HashScratch s;
          std::string_view got;
          const bool found = HashType::get(*o, f, s, &got);
          ASSERT_EQ(found, model.count(f) == 1);
          if (found) {
            ASSERT_EQ(got, model[f]);
          }
        }
      }
      if (o->encoding() == Encoding::kHashtable) was_dict = true;
      if (was_dict) {
        ASSERT_EQ(o->encoding(), Encoding::kHashtable) << "went back to listpack";
      }
      if (step % 50 == 0) expect_same(*o, model);
      if (model.empty()) {
        // An emptied hash is deleted by Db in the server; start over like a new key.
        Object::destroy(o);
        o = HashType::create("h");
        was_dict = false;
      }
    }
    expect_same(*o, model);
    Object::destroy(o);
  }
}

TEST(HashTypeTest, UpFrontConversionByArgumentCount) {
  EncodingLimits lim;
  lim.hash_max_listpack_entries = 4;
  Object* o = HashType::create("h");
  std::vector<std::string_view> args;
  for (int i = 0; i < 5; i++) {
    args.push_back("same");
    args.push_back("v");
  }
  HashType::prepare_for(*o, args, lim);
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  for (size_t i = 0; i < args.size(); i += 2) HashType::set(*o, args[i], args[i + 1], lim);
  EXPECT_EQ(HashType::size(*o), 1u);
  Object::destroy(o);

  o = HashType::create("h");
  args.resize(8);  // 4 pairs: exactly the limit, stays listpack
  HashType::prepare_for(*o, args, lim);
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  Object::destroy(o);
}

TEST(HashTypeTest, ConversionAtExactThresholds) {
  EncodingLimits lim;
  lim.hash_max_listpack_entries = 3;
  lim.hash_max_listpack_value = 5;
  Object* o = HashType::create("h");
  HashType::set(*o, "aaaaa", "bbbbb", lim);
  HashType::set(*o, "b", "1", lim);
  HashType::set(*o, "c", "2", lim);
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  HashType::set(*o, "c", "22222", lim);
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  HashType::set(*o, "d", "3", lim);
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  EXPECT_EQ(contents(*o), (Model{{"aaaaa", "bbbbb"}, {"b", "1"}, {"c", "22222"}, {"d", "3"}}));
  Object::destroy(o);

  o = HashType::create("h");
  HashType::set(*o, "a", "123456", lim);
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  Object::destroy(o);

  // HINCRBY whose result text passes the value limit converts.
  o = HashType::create("h");
  int64_t r;
  EXPECT_EQ(HashType::incr_by(*o, "n", 99999, &r, lim), HashType::IncrResult::kOk);
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  EXPECT_EQ(HashType::incr_by(*o, "n", 1, &r, lim), HashType::IncrResult::kOk);
  EXPECT_EQ(r, 100000);
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  Object::destroy(o);
}

TEST(HashTypeTest, IncrOverflowLeavesValue) {
  EncodingLimits lim;
  for (int64_t entries : {512, 0}) {
    lim.hash_max_listpack_entries = entries;
    Object* o = HashType::create("h");
    int64_t r;
    ASSERT_EQ(HashType::incr_by(*o, "n", INT64_MAX, &r, lim), HashType::IncrResult::kOk);
    EXPECT_EQ(HashType::incr_by(*o, "n", 1, &r, lim), HashType::IncrResult::kOverflow);
    HashScratch s;
    std::string_view v;
    ASSERT_TRUE(HashType::get(*o, "n", s, &v));
    EXPECT_EQ(v, "9223372036854775807");
    char buf[kLongDoubleBufSize];
    size_t len;
    ASSERT_EQ(HashType::incr_by_float(*o, "x", 1e4932L, buf, &len, lim),
              HashType::IncrResult::kOk);
    EXPECT_EQ(HashType::incr_by_float(*o, "x", 1e4932L, buf, &len, lim),
              HashType::IncrResult::kNanOrInf);
    Object::destroy(o);
  }
}

class HashTypeEncodingTest : public testing::TestWithParam<int64_t> {};

TEST_P(HashTypeEncodingTest, ScanRandomAndCopy) {
  EncodingLimits lim;
  lim.hash_max_listpack_entries = GetParam();
  for (size_t n : {1u, 2u, 7u, 50u, 400u}) {
    Object* o = HashType::create("h");
    Model model;
    for (size_t i = 0; i < n; i++) {
      const std::string f = "field" + std::to_string(i);
      const std::string v = std::to_string(i * 7);
      HashType::set(*o, f, v, lim);
      model[f] = v;
    }
    // A full scan sees every pair at least once.
    Model seen;
    uint64_t cursor = 0;
    int calls = 0;
    do {
      cursor = HashType::scan(*o, cursor, 10, [&](std::string_view f, std::string_view v) {
        seen[std::string(f)] = std::string(v);
      });
      ASSERT_LT(++calls, 100000);
    } while (cursor != 0);
    EXPECT_EQ(seen, model);

    // Repeated picks come from the hash; distinct picks are distinct.
    std::string_view f, v;
    HashScratch s;
    HashType::random_pair(*o, s, &f, &v);
    EXPECT_EQ(model.at(std::string(f)), v);
    size_t picks = 0;
    HashType::random_pairs(*o, 100, [&](std::string_view f2, std::string_view v2) {
      EXPECT_EQ(model.at(std::string(f2)), v2);
      picks++;
    });
    EXPECT_EQ(picks, 100u);
    for (uint64_t count : {uint64_t{1}, n / 3, n / 2, n - 1}) {
      if (count == 0 || count >= n) continue;
      std::set<std::string> got;
      HashType::random_distinct(*o, count, [&](std::string_view f2, std::string_view v2) {
        EXPECT_EQ(model.at(std::string(f2)), v2);
        EXPECT_TRUE(got.insert(std::string(f2)).second);
      });
      EXPECT_EQ(got.size(), count);
    }
    EXPECT_GT(HashType::average_pair_bytes(*o), 0u);

    // A deep copy is independent.
    Object* c = Object::clone_with_key(o, "copy", true);
    EXPECT_EQ(c->encoding(), o->encoding());
    HashType::set(*c, "field0", "changed", lim);
    HashType::remove(*c, "field1");
    expect_same(*o, model);
    Object::destroy(c);
    Object::destroy(o);
  }
}

INSTANTIATE_TEST_SUITE_P(Encodings, HashTypeEncodingTest, testing::Values(512, 0),
                         [](const testing::TestParamInfo<int64_t>& i) {
                           return i.param == 0 ? std::string("Hashtable") : std::string("Listpack");
                         });

}  // namespace
}  // namespace keel
