// Hash-field TTLs (listpackex and kHashtableEx) against a model: a map of field -> (value, ttl).
// Random HSET / set_keep_ttl / set_field_ttl / remove / remove_expired / incr, through the
// listpackex -> hashtable conversion, checking after every step the contents, the TTLs, the
// earliest TTL, the expired count, listpackex's order (fields with a TTL first, ascending, then
// the others) and the TTL index of kHashtableEx (both of its maps agree with the table).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/numbers.h"
#include "types/hash_type.h"

namespace keel {
namespace {

struct Field {
  std::string value;
  int64_t ttl = 0;
};
using Model = std::map<std::string, Field>;

void check(const Object& o, const Model& m, int64_t now) {
  ASSERT_TRUE(HashType::has_field_ttls(o));
  ASSERT_EQ(HashType::size(o), m.size());
  ASSERT_EQ(object_length(&o), static_cast<int64_t>(m.size()));
  Model got;
  std::vector<int64_t> order;
  HashType::for_each_with_ttl(o, [&](std::string_view f, std::string_view v, int64_t ttl) {
    ASSERT_TRUE(got.emplace(std::string(f), Field{std::string(v), ttl}).second) << f;
    order.push_back(ttl);
  });
  ASSERT_EQ(got.size(), m.size());
  int64_t min = 0;
  size_t expired = 0;
  for (const auto& [f, x] : m) {
    ASSERT_EQ(got[f].value, x.value) << f;
    ASSERT_EQ(got[f].ttl, x.ttl) << f;
    HashScratch s;
    std::string_view v;
    int64_t ttl;
    ASSERT_TRUE(HashType::get_with_ttl(o, f, s, &v, &ttl));
    ASSERT_EQ(v, x.value);
    ASSERT_EQ(ttl, x.ttl);
    if (x.ttl != 0 && (min == 0 || x.ttl < min)) min = x.ttl;
    if (x.ttl != 0 && x.ttl < now) expired++;
  }
  ASSERT_EQ(HashType::min_field_ttl(o), min);
  ASSERT_EQ(HashType::expired_count(o, now), expired);
  if (o.encoding() == Encoding::kListpackEx) {
    // Redis's order: TTLs ascending, then the fields without one.
    bool in_tail = false;
    for (size_t i = 0; i < order.size(); i++) {
      if (order[i] == 0) {
        in_tail = true;
      } else {
        ASSERT_FALSE(in_tail) << "a field with a TTL after one without";
        if (i > 0) {
          ASSERT_LE(order[i - 1], order[i]);
        }
      }
    }
  } else {
    ASSERT_EQ(o.encoding(), Encoding::kHashtableEx);
    const auto& d = *static_cast<const HashDictEx*>(o.ptr());
    size_t with_ttl = 0;
    for (const auto& [f, x] : m) with_ttl += x.ttl != 0;
    ASSERT_EQ(d.ttl.size(), with_ttl);
    ASSERT_EQ(d.by_time.size(), with_ttl);
    for (const auto& [ms, e] : d.by_time) ASSERT_EQ(d.ttl.at(e), ms);
  }
}

void run_model(uint32_t seed, int64_t max_entries) {
  EncodingLimits lim = encoding_limits();
  lim.hash_max_listpack_entries = max_entries;
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  Object* o = HashType::create("k");
  HashType::set(*o, "seed", "1", lim);
  HashType::enable_field_ttls(*o);
  Model m{{"seed", {"1", 0}}};
  const int64_t now = 1000000;
  for (int step = 0; step < 3000; step++) {
    const std::string f = "f" + std::to_string(pick(60));
    const int op = pick(7);
    if (op == 0) {  // HSET: the TTL goes
      const std::string v = pick(20) == 0 ? std::string(100, 'x') : std::to_string(pick(1000));
      ASSERT_EQ(HashType::set(*o, f, v, lim), m.count(f) == 0);
      m[f] = Field{v, 0};
    } else if (op == 1) {  // HINCRBY / HSETEX KEEPTTL: the TTL stays
      const std::string v = "v" + std::to_string(pick(1000));
      const bool added = m.count(f) == 0;
      ASSERT_EQ(HashType::set_keep_ttl(*o, f, v, lim), added);
      m[f].value = v;
    } else if (op == 2 || op == 3) {  // HEXPIRE / HPERSIST
      const int64_t ttl = op == 3 ? 0 : now - 500 + pick(2000);
      ASSERT_EQ(HashType::set_field_ttl(*o, f, ttl), m.count(f) == 1);
      if (m.count(f)) m[f].ttl = ttl;
    } else if (op == 4) {
      ASSERT_EQ(HashType::remove(*o, f), m.erase(f) == 1);
    } else if (op == 5) {  // active expiry, a bounded batch
      const size_t max = static_cast<size_t>(pick(4));
      std::vector<std::string> gone;
      const size_t n = HashType::remove_expired(*o, now, max, [&](std::string_view x) { gone.emplace_back(x); });
      ASSERT_EQ(n, gone.size());
      ASSERT_LE(n, max);
      int64_t last = 0;
      for (const auto& g : gone) {
        ASSERT_EQ(m.count(g), 1u) << g;
        ASSERT_NE(m[g].ttl, 0);
        ASSERT_LT(m[g].ttl, now);
        ASSERT_LE(last, m[g].ttl) << "not earliest first";
        last = m[g].ttl;
        m.erase(g);
      }
      HashType::removals_done(*o);
    } else {
      int64_t r;
      const bool exists = m.count(f) == 1;
      int64_t cur = 0;
      if (exists && !parse_int64(m[f].value, &cur)) {
        ASSERT_EQ(HashType::incr_by(*o, f, 1, &r, lim), HashType::IncrResult::kNotNumber);
      } else {
        ASSERT_EQ(HashType::incr_by(*o, f, 1, &r, lim), HashType::IncrResult::kOk);
        ASSERT_EQ(r, cur + 1);
        m[f].value = std::to_string(cur + 1);
      }
    }
    if (m.empty()) {
      HashType::set(*o, "seed", "1", lim);
      m["seed"] = Field{"1", 0};
    }
    ASSERT_NO_FATAL_FAILURE(check(*o, m, now)) << "step " << step << " op " << op << " field " << f;
  }
  // A copy (COPY) has the same fields and TTLs.
  Object* c = Object::clone_with_key(o, "c", /*deep=*/true);
  ASSERT_NO_FATAL_FAILURE(check(*c, m, now));
  Object::destroy(c);
  Object::destroy(o);
}

TEST(HashTtl, ListpackexModel) { run_model(1, 1 << 20); }
TEST(HashTtl, HashtableModel) { run_model(2, 0); }
TEST(HashTtl, ConvertsAtTheLimits) { run_model(3, 30); }

TEST(HashTtl, EnableKeepsContentsAndOrder) {
  Object* o = HashType::create("k");
  HashType::set(*o, "a", "1", encoding_limits());
  HashType::set(*o, "b", "x", encoding_limits());
  ASSERT_FALSE(HashType::has_field_ttls(*o));
  HashType::enable_field_ttls(*o);
  EXPECT_EQ(o->encoding(), Encoding::kListpackEx);
  EXPECT_STREQ(encoding_name(o->encoding()), "listpackex");
  std::vector<std::string> keys;
  HashType::for_each(*o, [&](std::string_view f, std::string_view) { keys.emplace_back(f); });
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b"}));
  HashType::convert_to_hashtable(*o, 0);
  EXPECT_EQ(o->encoding(), Encoding::kHashtableEx);
  EXPECT_STREQ(encoding_name(o->encoding()), "hashtable");
  Object::destroy(o);
}

}  // namespace
}  // namespace keel
