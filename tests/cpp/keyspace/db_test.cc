// Tests for keyspace/db.{h,cc}: random operations on two Dbs against a std::map model, checking
// after every step that the keys, values, TTLs, the expires index and the KEYSIZES histograms
// (keysizes_consistent) agree; plus focused cases for lazy/active expiry, move_to, copies,
// overwrite TTL rules and scan.
#include "keyspace/db.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/fork.h"
#include "keyspace/evict.h"
#include "keyspace/keyspace.h"
#include "keyspace/notify.h"
#include "types/hash_type.h"

namespace keel {
namespace {

struct Val {
  std::string value;
  int64_t expire = -1;  // absolute ms, -1 none
};
using Model = std::map<std::string, Val>;

std::string value_of(const Object* o) {
  char scratch[24];
  return std::string(o->string_view(scratch));
}

// Compares a Db with its model: every key and value, TTLs, counts and histograms.
void check(const Db& db, const Model& m) {
  ASSERT_EQ(db.size(), m.size());
  size_t with_ttl = 0;
  for (const auto& [k, v] : m) {
    const Object* o = db.peek(KeyRef::of(k));
    ASSERT_NE(o, nullptr) << k;
    ASSERT_EQ(value_of(o), v.value) << k;
    ASSERT_EQ(o->has_expire(), v.expire >= 0) << k;
    if (v.expire >= 0) {
      ASSERT_EQ(o->expire_ms(), v.expire) << k;
      with_ttl++;
    }
  }
  ASSERT_EQ(db.expires_count(), with_ttl);
  std::string diff;
  ASSERT_TRUE(db.keysizes_consistent(&diff)) << diff;
}

class DbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_clock.now_ms = 1'000'000;
    g_clock.lru_clock = 1000;
    g_clock.loading = false;
    g_clock.active_expire_enabled = true;
  }
};

TEST_F(DbTest, RandomOpsAgainstModel) {
  const unsigned seed = static_cast<unsigned>(testing::UnitTest::GetInstance()->random_seed());
  std::mt19937_64 rng(seed);
  Db dbs[2] = {Db(0), Db(1)};
  Model models[2];
  auto rnd = [&](uint64_t n) { return rng() % n; };
  auto key = [&] { return "k" + std::to_string(rnd(300)); };
  auto value = [&] {
    switch (rnd(4)) {
      case 0: return std::to_string(rnd(100000));                    // int
      case 1: return std::string(rnd(50), 'a');                       // embstr (or empty)
      case 2: return std::string(45 + rnd(300), 'b');                 // raw / embedded raw
      default: return std::string(rnd(5000), 'c');                    // big
    }
  };
  // Lazy expiry of one key in the model, as the Db's lookup of that key just did.
  auto model_expire = [&](Model& m, const std::string& k) {
    auto it = m.find(k);
    if (it != m.end() && it->second.expire >= 0 && it->second.expire < g_clock.now_ms) m.erase(it);
  };

  for (int step = 0; step < 20000; step++) {
    const int d = static_cast<int>(rnd(2));
    Db& db = dbs[d];
    Model& m = models[d];
    const std::string k = key();
    const KeyRef kr = KeyRef::of(k);
    const int op = static_cast<int>(rnd(12));
    SCOPED_TRACE("seed " + std::to_string(seed) + " step " + std::to_string(step) + " op " +
                 std::to_string(op) + " key " + k);
    if (op == 0) {  // SET (optionally KEEPTTL)
      const std::string v = value();
      const bool keep = rnd(4) == 0;
      Db::Slot s = db.find_for_write(kr);
      if (!s) m.erase(k);
      db.set_string(s, v, keep);
      Val nv{v, -1};
      if (keep && m.count(k)) nv.expire = m[k].expire;
      m[k] = nv;
    } else if (op == 1) {  // DEL
      const bool existed = db.remove(kr);
      auto it = m.find(k);
      const bool model_has = it != m.end() && !(it->second.expire >= 0 && it->second.expire < g_clock.now_ms);
      ASSERT_EQ(existed, model_has);
      if (it != m.end()) m.erase(it);
    } else if (op == 2) {  // EXPIRE in the future
      Db::Slot s = db.find_for_write(kr);
      auto it = m.find(k);
      if (it != m.end() && it->second.expire >= 0 && it->second.expire < g_clock.now_ms) m.erase(it);
      ASSERT_EQ(bool(s), m.count(k) == 1);
      if (s) {
        const int64_t when = g_clock.now_ms + 1 + static_cast<int64_t>(rnd(200));
        db.set_expire(s, when);
        m[k].expire = when;
      }
    } else if (op == 3) {  // PERSIST
      Db::Slot s = db.find_for_write(kr);
      auto it = m.find(k);
      if (it != m.end() && it->second.expire >= 0 && it->second.expire < g_clock.now_ms) m.erase(it);
      if (s) {
        ASSERT_EQ(db.persist(s), m[k].expire >= 0);
        m[k].expire = -1;
      }
    } else if (op == 4 || op == 5) {  // RENAME within the db / MOVE to the other db
      Db& dst = op == 4 ? db : dbs[1 - d];
      Model& dm = op == 4 ? m : models[1 - d];
      const std::string k2 = op == 4 ? key() : k;
      if (op == 4 && k2 == k) continue;
      const KeyRef kr2 = KeyRef::of(k2);
      Db::Slot from = db.find_for_write(kr);
      model_expire(m, k);
      if (!from) {
        ASSERT_EQ(m.count(k), 0u);
        continue;
      }
      Db::Slot to = dst.find_for_write(kr2);
      model_expire(dm, k2);
      ASSERT_EQ(bool(to), dm.count(k2) == 1);
      if (to) {
        if (op == 5) continue;  // MOVE refuses an existing destination
        dst.remove(to);
      }
      db.move_to(from, dst, to);
      Val v = m[k];
      m.erase(k);
      dm[k2] = v;
    } else if (op == 6) {  // COPY (to either db) with REPLACE
      Db& dst = dbs[rnd(2)];
      Model& dm = &dst == &dbs[0] ? models[0] : models[1];
      const std::string k2 = key();
      if (&dst == &db && k2 == k) continue;
      Object* o = db.find(kr, Db::kNoStats | Db::kNoNotify);
      model_expire(m, k);
      if (!o) {
        ASSERT_EQ(m.count(k), 0u);
        continue;
      }
      const KeyRef kr2 = KeyRef::of(k2);
      Db::Slot to = dst.find_for_write(kr2);
      model_expire(dm, k2);
      ASSERT_EQ(bool(to), dm.count(k2) == 1);
      if (to) dst.remove(to);
      dst.insert(to, Object::clone_with_key(o, k2, true));
      dm[k2] = m[k];
    } else if (op == 7) {  // APPEND in place: length_changed
      Db::Slot s = db.find_for_write(kr);
      model_expire(m, k);
      ASSERT_EQ(bool(s), m.count(k) == 1);
      if (!s) continue;
      const int64_t old_len = object_length(s.obj());
      const std::string add(rnd(3000), 'z');
      RawString* r = s->make_raw_for_edit(static_cast<size_t>(old_len) + add.size());
      memcpy(r->data + r->len, add.data(), add.size());
      r->len += add.size();
      ASSERT_FALSE(db.length_changed(s, old_len));
      m[k].value += add;
    } else if (op == 8) {  // time passes; lazy expiry through find()
      g_clock.now_ms += static_cast<int64_t>(rnd(30));
      Object* o = db.find(kr);
      model_expire(m, k);
      ASSERT_EQ(o != nullptr, m.count(k) == 1);
    } else if (op == 9) {  // active expiry
      g_clock.now_ms += static_cast<int64_t>(rnd(30));
      size_t sampled = 0;
      for (int i = 0; i < 50; i++) db.active_expire(INT64_MAX, &sampled);
      // Whatever it removed was expired; remaining expired keys go on the next lookups.
      for (auto it = m.begin(); it != m.end();) {
        if (db.peek(KeyRef::of(it->first)) == nullptr) {
          ASSERT_TRUE(it->second.expire >= 0 && it->second.expire < g_clock.now_ms) << it->first;
          it = m.erase(it);
        } else {
          ++it;
        }
      }
    } else if (op == 10) {  // RANDOMKEY
      Object* o = db.random_key();
      for (auto it = m.begin(); it != m.end();) {
        if (db.peek(KeyRef::of(it->first)) == nullptr) {
          it = m.erase(it);
        } else {
          ++it;
        }
      }
      if (o) {
        ASSERT_FALSE(db.expired(o));
        ASSERT_EQ(m.count(std::string(o->key())), 1u);
      }
    } else if (op == 11 && rnd(200) == 0) {  // rare FLUSHDB / SWAPDB
      if (rnd(2)) {
        db.flush();
        m.clear();
      } else {
        dbs[0].swap(dbs[1]);
        std::swap(models[0], models[1]);
      }
    }
    ASSERT_NO_FATAL_FAILURE(check(dbs[0], models[0]));
    ASSERT_NO_FATAL_FAILURE(check(dbs[1], models[1]));
  }
}

// While a fork child exists lookups leave the LRU field alone (its page stays shared).
TEST_F(DbTest, ForkChildStopsLruTouches) {
  Db db(0);
  Db::Slot s = db.find_for_write(KeyRef::of("k"));
  db.set_string(s, "v");
  g_clock.lru_clock = 2000;
  ASSERT_NE(db.find(KeyRef::of("k")), nullptr);
  EXPECT_EQ(db.peek(KeyRef::of("k"))->lru(), 2000u);
  set_fork_child_exists(true);
  g_clock.lru_clock = 3000;
  ASSERT_NE(db.find(KeyRef::of("k")), nullptr);
  ASSERT_TRUE(db.find_for_write(KeyRef::of("k")));
  EXPECT_EQ(db.peek(KeyRef::of("k"))->lru(), 2000u);
  set_fork_child_exists(false);
  g_clock.no_touch = false;  // what call() does at the end of the next unit
  ASSERT_NE(db.find(KeyRef::of("k")), nullptr);
  EXPECT_EQ(db.peek(KeyRef::of("k"))->lru(), 3000u);
}

TEST_F(DbTest, ExpiredKeyIsDeletedOnRead) {
  Db db(0);
  const std::string k = "key";
  Db::Slot s = db.find_for_write(KeyRef::of(k));
  db.set_string(s, "value");
  db.set_expire(s, g_clock.now_ms + 10);
  const uint64_t before = keyspace_stats().expired_keys;
  g_clock.now_ms += 10;  // equal time: not expired yet (Redis: now > when)
  EXPECT_NE(db.find(KeyRef::of(k)), nullptr);
  g_clock.now_ms += 1;
  EXPECT_EQ(db.find(KeyRef::of(k)), nullptr);
  EXPECT_EQ(db.size(), 0u);
  EXPECT_EQ(db.expires_count(), 0u);
  EXPECT_EQ(keyspace_stats().expired_keys, before + 1);
  EXPECT_TRUE(db.keysizes_consistent(nullptr));
}

TEST_F(DbTest, LoadingNeverExpires) {
  Db db(0);
  Db::Slot s = db.find_for_write(KeyRef::of("a"));
  db.set_string(s, "v");
  db.set_expire(s, g_clock.now_ms - 100);
  g_clock.loading = true;
  EXPECT_NE(db.find(KeyRef::of("a")), nullptr);
  g_clock.loading = false;
  EXPECT_EQ(db.find(KeyRef::of("a")), nullptr);
}

TEST_F(DbTest, ActiveExpireRemovesOnlyExpiredKeys) {
  Db db(0);
  for (int i = 0; i < 5000; i++) {
    const std::string k = "k" + std::to_string(i);
    Db::Slot s = db.find_for_write(KeyRef::of(k));
    db.set_string(s, "v");
    if (i % 2 == 0) db.set_expire(s, g_clock.now_ms + 5);
    if (i % 10 == 1) db.set_expire(s, g_clock.now_ms + 100000);
  }
  g_clock.now_ms += 6;
  size_t sampled = 0, removed = 0;
  for (int i = 0; i < 1000 && db.size() > 2500; i++) removed += db.active_expire(INT64_MAX, &sampled);
  EXPECT_EQ(removed, 2500u);
  EXPECT_EQ(db.size(), 2500u);
  EXPECT_EQ(db.expires_count(), 500u);
  EXPECT_GT(db.avg_ttl(), 0);
  EXPECT_TRUE(db.keysizes_consistent(nullptr));
}

TEST_F(DbTest, InsertIndexesAnExpireCarriedByTheObject) {
  Db db(0);
  Object* o = Object::with_expire(Object::create_string("a", "v"), g_clock.now_ms + 1000);
  Db::Slot s = db.find_for_write(KeyRef::of("a"));
  db.insert(s, o);
  EXPECT_EQ(db.expires_count(), 1u);
  // overwrite without keep_ttl: the new object's own (absent) TTL wins
  Db::Slot s2 = db.find_for_write(KeyRef::of("a"));
  db.overwrite(s2, Object::create_string("a", "w"));
  EXPECT_EQ(db.expires_count(), 0u);
  EXPECT_FALSE(db.peek(KeyRef::of("a"))->has_expire());
  // overwrite with keep_ttl keeps the old state, absent included
  Object* n = Object::with_expire(Object::create_string("a", "x"), g_clock.now_ms + 5);
  Db::Slot s3 = db.find_for_write(KeyRef::of("a"));
  db.overwrite(s3, n, /*keep_ttl=*/true);
  EXPECT_EQ(db.expires_count(), 0u);
  EXPECT_FALSE(db.peek(KeyRef::of("a"))->has_expire());
  EXPECT_TRUE(db.keysizes_consistent(nullptr));
}

TEST_F(DbTest, RandomKeyWithOnlyExpiredKeys) {
  Db db(0);
  for (int i = 0; i < 50; i++) {
    const std::string k = "e" + std::to_string(i);
    Db::Slot s = db.find_for_write(KeyRef::of(k));
    db.set_string(s, "v");
    db.set_expire(s, g_clock.now_ms + 1);
  }
  g_clock.now_ms += 2;
  Object* o = db.random_key();
  // Every retry deletes an expired key; with 50 keys and 100 tries the db ends up empty.
  EXPECT_EQ(o, nullptr);
  EXPECT_EQ(db.size(), 0u);
  EXPECT_TRUE(db.keysizes_consistent(nullptr));
}

TEST_F(DbTest, ScanReportsEveryKeyAcrossGrowth) {
  Db db(0);
  std::set<std::string> stable;
  for (int i = 0; i < 300; i++) {
    const std::string k = "s" + std::to_string(i);
    stable.insert(k);
    Db::Slot s = db.find_for_write(KeyRef::of(k));
    db.set_string(s, "v");
  }
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int added = 0;
  do {
    cursor = db.scan(cursor, [&](Object* o) { seen.insert(std::string(o->key())); });
    for (int j = 0; j < 20 && added < 5000; j++, added++) {
      const std::string k = "n" + std::to_string(added);
      Db::Slot s = db.find_for_write(KeyRef::of(k));
      db.set_string(s, "v");
    }
  } while (cursor != 0);
  for (const std::string& k : stable) EXPECT_TRUE(seen.count(k)) << k;
}

}  // namespace
}  // namespace keel

namespace keel {
namespace {

// The hash-field expiry index (hfe_*): kept by insert / overwrite / remove / move_to / flush /
// swap / length_changed, and the active cycle's part for fields.
Object* hash_with_ttls(std::string_view key, std::initializer_list<std::pair<const char*, int64_t>> fields) {
  Object* o = HashType::create(key);
  for (const auto& [f, ttl] : fields) HashType::set(*o, f, "v", encoding_limits());
  HashType::enable_field_ttls(*o);
  for (const auto& [f, ttl] : fields) HashType::set_field_ttl(*o, f, ttl);
  return o;
}

TEST_F(DbTest, HashFieldExpiryIndex) {
  Db db(0), other(1);
  Db::Slot s = db.find_for_write(KeyRef::of("h"));
  db.insert(s, hash_with_ttls("h", {{"a", 2'000'000}, {"b", 0}}));
  EXPECT_EQ(db.hfe_count(), 1u);
  // No TTL left: dropped from the index.
  HashType::set_field_ttl(*s, "a", 0);
  db.length_changed(s, 2);
  EXPECT_EQ(db.hfe_count(), 0u);
  HashType::set_field_ttl(*s, "a", 2'000'000);
  db.length_changed(s, 2);
  EXPECT_EQ(db.hfe_count(), 1u);
  // RENAME within the db and MOVE to another keep it indexed under the new key / db.
  Db::Slot to = db.find_for_write(KeyRef::of("h2"));
  db.move_to(s, db, to);
  EXPECT_EQ(db.hfe_count(), 1u);
  Db::Slot to2 = other.find_for_write(KeyRef::of("h3"));
  db.move_to(to, other, to2);
  EXPECT_EQ(db.hfe_count(), 0u);
  EXPECT_EQ(other.hfe_count(), 1u);
  db.swap(other);
  EXPECT_EQ(db.hfe_count(), 1u);
  EXPECT_EQ(other.hfe_count(), 0u);
  // Overwritten by a string, removed, flushed.
  Db::Slot h3 = db.find_for_write(KeyRef::of("h3"));
  db.overwrite(h3, Object::create_string("h3", "x"));
  EXPECT_EQ(db.hfe_count(), 0u);
  Db::Slot t = db.find_for_write(KeyRef::of("t"));
  db.insert(t, hash_with_ttls("t", {{"a", 2'000'000}}));
  EXPECT_EQ(db.hfe_count(), 1u);
  db.remove(t);
  EXPECT_EQ(db.hfe_count(), 0u);
  Db::Slot u = db.find_for_write(KeyRef::of("u"));
  db.insert(u, hash_with_ttls("u", {{"a", 2'000'000}}));
  db.flush();
  EXPECT_EQ(db.hfe_count(), 0u);
}

TEST_F(DbTest, ActiveExpiryOfFields) {
  Db db(0);
  const uint64_t before = keyspace_stats().expired_subkeys;
  Db::Slot s = db.find_for_write(KeyRef::of("h"));
  db.insert(s, hash_with_ttls("h", {{"a", 900'000}, {"b", 950'000}, {"c", 3'000'000}, {"d", 0}}));
  Db::Slot g = db.find_for_write(KeyRef::of("g"));
  db.insert(g, hash_with_ttls("g", {{"x", 990'000}}));
  EXPECT_EQ(db.hfe_count(), 2u);
  // A quota of one field: the earliest goes first.
  EXPECT_EQ(db.active_expire_fields(INT64_MAX, 1), 1u);
  HashScratch sc;
  std::string_view v;
  EXPECT_FALSE(HashType::get(*db.peek(KeyRef::of("h")), "a", sc, &v));
  EXPECT_EQ(db.active_expire_fields(INT64_MAX, 100), 2u);
  EXPECT_EQ(db.peek(KeyRef::of("g")), nullptr);  // emptied: deleted
  const Object* h = db.peek(KeyRef::of("h"));
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(HashType::size(*h), 2u);
  EXPECT_EQ(db.hfe_count(), 1u);
  EXPECT_EQ(db.active_expire_fields(INT64_MAX, 100), 0u);
  EXPECT_EQ(keyspace_stats().expired_subkeys - before, 3u);
  std::string diff;
  EXPECT_TRUE(db.keysizes_consistent(&diff)) << diff;
}

}  // namespace
}  // namespace keel

// The keyspace tables' growth veto under a ceiling (evict.h): Redis's rule (the doubled array
// must fit under maxmemory), and no doubling while the keys that can still come fit the room
// the table has before it must grow.
TEST(GrowWorthwhile, KeepsTheTableWhenTheRemainingKeysFitItsRoom) {
  // evict.py's Zipf cache: 16384 buckets (1 MB) with 81,920 keys of about 128 bytes and
  // 15.5 MB allowed. About 29k more keys can come; the table takes 49k more: no growth.
  const size_t table = 16384 * 64;
  const size_t used = 1000000 + table + 81920 * 128;
  EXPECT_FALSE(keel::grow_worthwhile(used, 15500000, 81920, 16384 * 8 - 81920, 2 * table));
  // The same table with a 64 MB ceiling: hundreds of thousands more keys, so it grows.
  EXPECT_TRUE(keel::grow_worthwhile(used, 64u << 20, 81920, 16384 * 8 - 81920, 2 * table));
  // Redis's rule alone: the new array does not fit under the ceiling.
  EXPECT_FALSE(keel::grow_worthwhile(used, used + 2 * table - 1, 81920, 0, 2 * table));
  EXPECT_TRUE(keel::grow_worthwhile(used, used + 2 * table + 10 * 160, 81920, 0, 2 * table));
  // An empty table (nothing to forecast from) may grow when the array fits.
  EXPECT_TRUE(keel::grow_worthwhile(1000000, 2000000, 0, 0, 128));
}
