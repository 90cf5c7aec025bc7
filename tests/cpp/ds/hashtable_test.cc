// Tests for ds/hashtable.h (HashTable) and base/hash.h (hash_bytes/hash_key): a randomised test
// against std::unordered_map, resize boundaries, erase during rehash, SCAN guarantees across
// grow/shrink, random_entry, clear, prefetch, and the hash function's bit distribution.
#include "ds/hashtable.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/hash.h"

namespace keel {
namespace {

struct Item {
  std::string key;
  int value = 0;
};

struct ItemTraits {
  using Entry = Item*;
  static std::string_view key(const Item* e) { return e->key; }
};

// Every key hashes to the same value: the whole table is one bucket chain.
struct CollidingTraits {
  using Entry = Item*;
  static std::string_view key(const Item* e) { return e->key; }
  static uint64_t hash(std::string_view) { return 0x4200000000000007ull; }
};

struct ConstTraits {
  using Entry = const Item*;
  static std::string_view key(const Item* e) { return e->key; }
};

using Table = HashTable<ItemTraits>;

// Growth vetoed while g_grow_allowed is false (the keyspace's memory ceiling).
bool g_grow_allowed = true;
size_t g_grow_asked_bytes = 0;
size_t g_grow_asked_room = 0;  // entries + room: what the table holds without growing
struct VetoTraits {
  using Entry = Item*;
  static std::string_view key(const Item* e) { return e->key; }
  static bool grow_allowed(size_t entries, size_t room, size_t new_bytes) {
    g_grow_asked_bytes = new_bytes;
    g_grow_asked_room = entries + room;
    return g_grow_allowed;
  }
};

uint32_t test_seed() {
  const uint32_t seed = static_cast<uint32_t>(testing::UnitTest::GetInstance()->random_seed());
  std::printf("[ seed ] %u (rerun with --gtest_random_seed=%u)\n", seed, seed);
  return seed;
}

std::string key_of(uint64_t i) { return "key:" + std::to_string(i); }

// Owns the items; the table only links them.
struct Pool {
  std::vector<std::unique_ptr<Item>> items;
  Item* make(std::string key, int value = 0) {
    items.push_back(std::make_unique<Item>(Item{std::move(key), value}));
    return items.back().get();
  }
};

template <class T>
std::unordered_set<std::string> keys_of(const T& t) {
  std::unordered_set<std::string> s;
  t.for_each([&](const Item* e) { EXPECT_TRUE(s.insert(e->key).second) << "duplicate " << e->key; });
  return s;
}

template <class T>
size_t count_entries(const T& t) {
  size_t n = 0;
  t.for_each([&](const Item*) { ++n; });
  return n;
}

template <class T>
std::unordered_set<std::string> full_scan(const T& t) {
  std::unordered_set<std::string> s;
  uint64_t c = 0;
  do {
    c = t.scan(c, [&](const Item* e) { s.insert(e->key); });
  } while (c != 0);
  return s;
}

// ---- hash function ---------------------------------------------------------------------------

TEST(Hash, DeterministicAndSeeded) {
  for (size_t n = 0; n <= 70; ++n) {
    std::string s(n, 'x');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7) % 26);
    EXPECT_EQ(hash_bytes(s.data(), n, 1), hash_bytes(s.data(), n, 1));
    EXPECT_NE(hash_bytes(s.data(), n, 1), hash_bytes(s.data(), n, 2));
  }
  // Prefixes and different lengths of the same bytes must differ.
  const std::string s(64, '\0');
  std::unordered_set<uint64_t> seen;
  for (size_t n = 0; n <= 64; ++n) EXPECT_TRUE(seen.insert(hash_bytes(s.data(), n, 0)).second);
  const uint64_t old = hash_seed();
  set_hash_seed(12345);
  EXPECT_EQ(hash_key("abc"), hash_bytes("abc", 3, 12345));
  set_hash_seed(old);
}

// Low bits pick the bucket and the top 8 bits are the tag: both must look uniform for
// sequential keys, and flipping one input bit must flip about half of the output bits.
TEST(Hash, LowAndHighBitsUniform) {
  constexpr int kBins = 256;
  constexpr int kKeys = 256 * 200;
  for (const char* prefix : {"key:", "", "user:session:000000"}) {
    std::vector<int> low(kBins), high(kBins);
    for (int i = 0; i < kKeys; ++i) {
      const std::string k = prefix + std::to_string(i);
      const uint64_t h = hash_bytes(k.data(), k.size(), 7);
      ++low[h & (kBins - 1)];
      ++high[h >> 56];
    }
    auto chi2 = [](const std::vector<int>& v) {
      const double expect = static_cast<double>(kKeys) / kBins;
      double c = 0;
      for (int x : v) c += (x - expect) * (x - expect) / expect;
      return c;
    };
    // 255 degrees of freedom: mean 255, sd ~22.6; 400 is > 6 sd.
    EXPECT_LT(chi2(low), 400) << prefix;
    EXPECT_LT(chi2(high), 400) << prefix;
  }
}

TEST(Hash, Avalanche) {
  std::mt19937_64 rng(99);
  for (size_t n : {1, 3, 4, 7, 8, 12, 16, 17, 31, 64, 100}) {
    std::vector<double> flips(64, 0);
    constexpr int kTrials = 400;
    int total = 0;
    for (int t = 0; t < kTrials; ++t) {
      std::string s(n, '\0');
      for (auto& c : s) c = static_cast<char>(rng());
      const uint64_t h0 = hash_bytes(s.data(), n, 5);
      const size_t bit = rng() % (n * 8);
      s[bit / 8] = static_cast<char>(s[bit / 8] ^ (1 << (bit % 8)));
      const uint64_t d = h0 ^ hash_bytes(s.data(), n, 5);
      for (int b = 0; b < 64; ++b) flips[b] += (d >> b) & 1;
      ++total;
    }
    for (int b = 0; b < 64; ++b) {
      const double p = flips[b] / total;
      EXPECT_GT(p, 0.35) << "n=" << n << " bit " << b;
      EXPECT_LT(p, 0.65) << "n=" << n << " bit " << b;
    }
  }
}

// ---- bucket internals -----------------------------------------------------------------------

TEST(HashTableInternals, MatchTagsExhaustive) {
  std::mt19937 rng(1);
  for (int meta = 0; meta < 256; ++meta) {
    for (int round = 0; round < 40; ++round) {
      ht_detail::Bucket b{};
      b.meta = static_cast<uint8_t>(meta);
      const uint8_t tag = static_cast<uint8_t>(rng());
      for (int i = 0; i < ht_detail::kSlots; ++i) {
        b.tags[i] = (rng() % 3 == 0) ? tag : static_cast<uint8_t>(rng());
      }
      unsigned want = 0;
      const unsigned usable = (meta & 0x80) ? 0x3f : 0x7f;
      for (int i = 0; i < ht_detail::kSlots; ++i) {
        if ((meta >> i & 1) && (usable >> i & 1) && b.tags[i] == tag) want |= 1u << i;
      }
      ASSERT_EQ(ht_detail::match_tags(b, tag), want) << "meta=" << meta;
    }
  }
}

TEST(HashTableInternals, ReverseCursorVisitsEveryBucketOnce) {
  for (uint64_t mask : {0ull, 1ull, 7ull, 1023ull}) {
    std::vector<int> seen(mask + 1);
    uint64_t c = 0;
    do {
      ++seen[c & mask];
      c = ht_detail::next_cursor(c, mask);
    } while (c != 0);
    for (int s : seen) EXPECT_EQ(s, 1);
  }
}

// ---- table behaviour -----------------------------------------------------------------------

TEST(HashTable, EmptyTable) {
  Table t;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.bucket_count(), 0u);
  EXPECT_EQ(t.memory_usage(), 0u);
  EXPECT_EQ(t.find("a", hash_key("a")), nullptr);
  EXPECT_EQ(t.erase("a", hash_key("a")), nullptr);
  EXPECT_EQ(t.random_entry(1), nullptr);
  EXPECT_EQ(t.scan(0, [](Item*) { FAIL(); }), 0u);
  t.for_each([](Item*) { FAIL(); });
  t.prefetch_bucket(hash_key("a"));
  t.prefetch_entries(hash_key("a"));
  t.shrink_if_needed();
  t.rehash_for_us(10);
  EXPECT_FALSE(t.rehashing());
  auto pos = t.find_position("a", hash_key("a"));
  EXPECT_FALSE(pos.found());
  Item a{"a", 1};
  t.insert(pos, &a);
  EXPECT_EQ(t.find("a", hash_key("a")), &a);
  EXPECT_EQ(t.size(), 1u);
}

TEST(HashTable, GrowthVetoedUntilTheHardLimit) {
  Pool pool;
  HashTable<VetoTraits> t;
  g_grow_allowed = false;
  // The first allocation is never vetoed; then 16 buckets hold 80 entries at the normal fill.
  size_t i = 0;
  auto add = [&] {
    Item* it = pool.make(key_of(i++));
    ASSERT_TRUE(t.insert(it, hash_key(it->key)));
  };
  while (t.size() < 80) add();
  while (t.rehashing()) t.rehash_for_us(1000);
  const size_t buckets = t.bucket_count();
  ASSERT_EQ(buckets, 16u);
  // Past it the table is asked, refuses, and keeps its buckets up to 8 entries per bucket.
  while (t.size() < 8 * buckets) add();
  EXPECT_EQ(t.bucket_count(), buckets);
  EXPECT_EQ(g_grow_asked_bytes, 2 * buckets * 64);
  EXPECT_EQ(g_grow_asked_room, 8 * buckets);
  // Every entry is still found.
  for (size_t k = 0; k < i; ++k) ASSERT_NE(t.find(key_of(k), hash_key(key_of(k))), nullptr);
  // One more grows anyway.
  add();
  EXPECT_GT(t.bucket_count(), buckets);
  // Allowed again: the next table grows at the normal fill.
  while (t.rehashing()) t.rehash_for_us(1000);
  g_grow_allowed = true;
  const size_t b2 = t.bucket_count();
  while (t.size() < 5 * b2 + 1) add();
  EXPECT_GT(t.bucket_count(), b2);
}

TEST(HashTable, InsertFindEraseReplace) {
  Pool pool;
  Table t;
  for (int i = 0; i < 1000; ++i) {
    Item* it = pool.make(key_of(i), i);
    ASSERT_TRUE(t.insert(it, hash_key(it->key)));
    ASSERT_FALSE(t.insert(it, hash_key(it->key)));
  }
  EXPECT_EQ(t.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    const std::string k = key_of(i);
    Item* e = t.find(k, hash_key(k));
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->value, i);
    EXPECT_EQ(t.find(key_of(i + 1000), hash_key(key_of(i + 1000))), nullptr);
  }
  // Replace through Position::set.
  Item replacement{key_of(5), 555};
  auto pos = t.find_position(key_of(5), hash_key(key_of(5)));
  ASSERT_TRUE(pos);
  pos.set(&replacement);
  EXPECT_EQ(t.find(key_of(5))->value, 555);
  // Erase through a Position and by key.
  pos = t.find_position(key_of(6), hash_key(key_of(6)));
  ASSERT_TRUE(pos.found());
  EXPECT_EQ(pos.entry()->value, 6);
  t.erase(pos);
  EXPECT_EQ(t.find(key_of(6)), nullptr);
  Item* e7 = t.erase(key_of(7), hash_key(key_of(7)));
  ASSERT_NE(e7, nullptr);
  EXPECT_EQ(e7->value, 7);
  EXPECT_EQ(t.erase(key_of(7)), nullptr);
  EXPECT_EQ(t.size(), 998u);
  EXPECT_EQ(keys_of(t).size(), 998u);
}

TEST(HashTable, ConstEntries) {
  HashTable<ConstTraits> t;
  const Item a{"a", 1};
  ASSERT_TRUE(t.insert(&a));
  EXPECT_EQ(t.find("a"), &a);
  EXPECT_EQ(t.erase("a"), &a);
}

// Grow happens exactly when size would exceed kMaxPerBucket * buckets; tiny tables resize at
// once, larger ones incrementally; shrink only from shrink_if_needed and only at <= 1/8 fill.
TEST(HashTable, ResizeBoundaries) {
  Pool pool;
  Table t;
  size_t i = 0;
  auto add = [&] {
    Item* it = pool.make(key_of(i++));
    ASSERT_TRUE(t.insert(it, hash_key(it->key)));
  };
  add();
  EXPECT_EQ(t.bucket_count(), 1u);
  while (t.size() < Table::kMaxPerBucket) add();
  EXPECT_EQ(t.bucket_count(), 1u);
  add();  // 6th entry: 1 -> 2 buckets (synchronous for tiny tables)
  EXPECT_FALSE(t.rehashing());
  EXPECT_EQ(t.bucket_count(), 2u);
  while (t.size() < 2 * Table::kMaxPerBucket) add();
  EXPECT_EQ(t.bucket_count(), 2u);
  add();
  EXPECT_EQ(t.bucket_count(), 4u);
  while (t.size() < 4 * Table::kMaxPerBucket) add();
  EXPECT_EQ(t.bucket_count(), 4u);
  add();
  EXPECT_EQ(t.bucket_count(), 8u);
  // Grow to a size where the resize is incremental.
  while (t.bucket_count() < 64 || t.rehashing()) add();
  const size_t n = t.bucket_count();
  while (t.size() < n * Table::kMaxPerBucket) add();
  EXPECT_FALSE(t.rehashing());
  EXPECT_EQ(t.bucket_count(), n);
  add();
  EXPECT_TRUE(t.rehashing());
  EXPECT_EQ(t.bucket_count(), n + 2 * n);  // both tables while rehashing
  t.rehash_for_us(1000000);
  EXPECT_FALSE(t.rehashing());
  EXPECT_EQ(t.bucket_count(), 2 * n);
  // Erase never shrinks; shrink_if_needed does only at <= 1/8 of the 7 slots per bucket.
  const size_t buckets = t.bucket_count();
  size_t next_erase = 0;
  while (t.size() * 8 > buckets * 7 + 8) {
    ASSERT_NE(t.erase(key_of(next_erase++)), nullptr);
    t.shrink_if_needed();
    ASSERT_EQ(t.bucket_count(), buckets);
  }
  while (t.size() * 8 > buckets * 7) ASSERT_NE(t.erase(key_of(next_erase++)), nullptr);
  EXPECT_EQ(t.bucket_count(), buckets);
  t.shrink_if_needed();
  EXPECT_TRUE(t.rehashing());
  t.rehash_for_us(1000000);
  EXPECT_LT(t.bucket_count(), buckets);
  // After the shrink, the table is at most half full: no grow right away.
  EXPECT_LE(t.size() * 2, t.bucket_count() * Table::kMaxPerBucket);
  for (size_t k = next_erase; k < i; ++k) ASSERT_NE(t.find(key_of(k)), nullptr);
  // Erasing everything and shrinking releases all memory.
  for (size_t k = next_erase; k < i; ++k) ASSERT_NE(t.erase(key_of(k)), nullptr);
  while (t.bucket_count() > 0) {
    t.shrink_if_needed();
    t.rehash_for_us(1000000);
    t.shrink_if_needed();
    if (t.bucket_count() == 1) break;
  }
  EXPECT_LE(t.bucket_count(), 1u);
}

TEST(HashTable, ReserveAvoidsGrowth) {
  Pool pool;
  Table t;
  t.reserve(10000);
  const size_t n = t.bucket_count();
  EXPECT_GE(n * Table::kMaxPerBucket, 10000u);
  for (int i = 0; i < 10000; ++i) {
    Item* it = pool.make(key_of(i));
    ASSERT_TRUE(t.insert(it));
  }
  EXPECT_EQ(t.bucket_count(), n);
  EXPECT_FALSE(t.rehashing());
  // reserve during a rehash finishes it first.
  for (int i = 10000; !t.rehashing(); ++i) ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  t.reserve(200000);
  t.rehash_for_us(1000000);
  EXPECT_FALSE(t.rehashing());
  const size_t reserved = t.bucket_count();
  for (int i = static_cast<int>(t.size()); t.size() < 200000; ++i) {
    ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  }
  EXPECT_EQ(t.bucket_count(), reserved);
  EXPECT_FALSE(t.rehashing());
  EXPECT_EQ(count_entries(t), t.size());
}

TEST(HashTable, EraseDuringRehash) {
  Pool pool;
  Table t;
  int i = 0;
  while (t.bucket_count() < 1024 || t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  while (!t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  const int total = i;
  // Erase every other key while the rehash advances (each erase moves one bucket).
  int erased = 0;
  for (int k = 0; k < total; k += 2) {
    ASSERT_NE(t.erase(key_of(k), hash_key(key_of(k))), nullptr) << k;
    ++erased;
    if (k % 64 == 0 && k + 1 < total) {
      // Erase through a Position while rehashing, too.
      auto pos = t.find_position(key_of(k + 1), hash_key(key_of(k + 1)));
      ASSERT_TRUE(pos.found());
      Item* e = pos.entry();
      t.erase(pos);
      ASSERT_EQ(t.find(key_of(k + 1)), nullptr);
      auto again = t.find_position(key_of(k + 1), hash_key(key_of(k + 1)));
      ASSERT_FALSE(again.found());
      t.insert(again, e);  // put it back
    }
  }
  EXPECT_EQ(t.size(), static_cast<size_t>(total - erased));
  for (int k = 0; k < total; ++k) {
    const Item* e = t.find(key_of(k), hash_key(key_of(k)));
    if (k % 2 == 0) {
      ASSERT_EQ(e, nullptr) << k;
    } else {
      ASSERT_NE(e, nullptr) << k;
    }
  }
  t.rehash_for_us(1000000);
  EXPECT_FALSE(t.rehashing());
  EXPECT_EQ(keys_of(t).size(), t.size());
}

// Randomised differential test against std::unordered_map.
TEST(HashTable, RandomisedAgainstModel) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  Table t;
  std::unordered_map<std::string, std::unique_ptr<Item>> model;
  std::vector<std::unique_ptr<Item>> retired;  // replaced items stay alive until the end
  constexpr int kOps = 200000;
  uint64_t key_space = 64;
  int erase_bias = 30;  // percent of mutations that erase
  for (int op = 0; op < kOps; ++op) {
    // Phases: alternate between growing and shrinking, with a varying key space.
    if (op % 20000 == 0) {
      const int phase = op / 20000;
      erase_bias = (phase % 2 == 0) ? 20 : 75;
      key_space = 64ull << (rng() % 10);
    }
    const std::string k = key_of(rng() % key_space);
    const uint64_t h = hash_key(k);
    const int r = static_cast<int>(rng() % 100);
    auto it = model.find(k);
    if (r < 35) {  // find
      Item* e = t.find(k, h);
      if (it == model.end()) {
        ASSERT_EQ(e, nullptr) << k;
      } else {
        ASSERT_EQ(e, it->second.get()) << k;
      }
    } else if (r < 35 + (65 * erase_bias) / 100) {  // erase
      if (rng() & 1) {
        Item* e = t.erase(k, h);
        ASSERT_EQ(e, it == model.end() ? nullptr : it->second.get()) << k;
      } else {
        auto pos = t.find_position(k, h);
        ASSERT_EQ(pos.found(), it != model.end()) << k;
        if (pos) {
          ASSERT_EQ(pos.entry(), it->second.get());
          t.erase(pos);
        }
      }
      if (it != model.end()) model.erase(it);
    } else {  // insert or replace
      auto pos = t.find_position(k, h);
      ASSERT_EQ(pos.found(), it != model.end()) << k;
      auto item = std::make_unique<Item>(Item{k, op});
      if (pos) {
        ASSERT_EQ(pos.entry(), it->second.get());
        pos.set(item.get());
        retired.push_back(std::move(it->second));
        it->second = std::move(item);
      } else if (rng() & 1) {
        t.insert(pos, item.get());
        model.emplace(k, std::move(item));
      } else {
        ASSERT_TRUE(t.insert(item.get(), h));
        model.emplace(k, std::move(item));
      }
    }
    ASSERT_EQ(t.size(), model.size());
    const int extra = static_cast<int>(rng() % 1000);
    if (extra < 5) {
      t.shrink_if_needed();
    } else if (extra < 7) {
      t.rehash_for_us(static_cast<int64_t>(rng() % 50));
    } else if (extra == 7) {
      t.reserve(model.size() + rng() % 2000);
    } else if (extra < 20) {
      t.prefetch_bucket(h);
      t.prefetch_entries(h);
    } else if (extra < 22) {
      Item* e = t.random_entry(rng());
      if (model.empty()) {
        ASSERT_EQ(e, nullptr);
      } else {
        ASSERT_NE(e, nullptr);
        auto m = model.find(e->key);
        ASSERT_TRUE(m != model.end());
        ASSERT_EQ(m->second.get(), e);
      }
    }
    if (op % 10000 == 9999) {
      auto keys = keys_of(t);
      ASSERT_EQ(keys.size(), model.size());
      for (const auto& [mk, mv] : model) ASSERT_TRUE(keys.count(mk)) << mk;
      ASSERT_EQ(full_scan(t).size(), model.size());
    }
  }
  // Everything in the model is findable; nothing else is.
  for (const auto& [mk, mv] : model) ASSERT_EQ(t.find(mk, hash_key(mk)), mv.get());
  size_t freed = 0;
  t.clear([&](Item*) { ++freed; });
  EXPECT_EQ(freed, model.size());
}

// All keys in one chain: overflow buckets, erase holes, rehash of chains, scan and random.
TEST(HashTable, LongChains) {
  Pool pool;
  HashTable<CollidingTraits> t;
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  EXPECT_GT(t.memory_usage(), t.bucket_count() * 64);  // overflow buckets exist
  for (int i = 0; i < 300; i += 3) ASSERT_NE(t.erase(key_of(i)), nullptr);
  for (int i = 0; i < 300; ++i) ASSERT_EQ(t.find(key_of(i)) != nullptr, i % 3 != 0) << i;
  const size_t mem = t.memory_usage();
  // Steady state: erase/insert the same number of entries allocates nothing.
  for (int round = 0; round < 50; ++round) {
    for (int i = 1; i < 300; i += 3) ASSERT_NE(t.erase(key_of(i)), nullptr);
    for (int i = 1; i < 300; i += 3) ASSERT_TRUE(t.insert(pool.items[i].get()));
  }
  EXPECT_EQ(t.memory_usage(), mem);
  EXPECT_EQ(full_scan(t).size(), t.size());
  std::unordered_set<std::string> sampled;
  for (int s = 0; s < 20000; ++s) {
    Item* e = t.random_entry(s * 7919ull);
    ASSERT_NE(e, nullptr);
    sampled.insert(e->key);
  }
  EXPECT_EQ(sampled.size(), t.size());
  t.reserve(5000);
  for (int i = 0; i < 300; ++i) ASSERT_EQ(t.find(key_of(i)) != nullptr, i % 3 != 0) << i;
}

// Overflow buckets emptied by erases are freed by the next insert into their chain (a memory
// ceiling's churn otherwise leaves chains at their longest).
TEST(HashTable, InsertFreesEmptiedOverflowBuckets) {
  Pool pool;
  HashTable<CollidingTraits> t;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  const size_t m0 = t.memory_usage();
  ASSERT_GE(m0, t.bucket_count() * 64 + 2 * 64);  // head 6 + two children of 7
  // Keys 6.. live in the children (the 7th insert moved the head's last entry down).
  for (int i = 6; i < 20; ++i) ASSERT_NE(t.erase(key_of(i)), nullptr);
  EXPECT_EQ(t.memory_usage(), m0);  // erase frees nothing
  ASSERT_TRUE(t.insert(pool.make(key_of(100))));
  EXPECT_EQ(t.memory_usage(), m0 - 64);  // the empty last child went
  ASSERT_NE(t.erase(key_of(100)), nullptr);
  ASSERT_TRUE(t.insert(pool.make(key_of(101))));
  EXPECT_EQ(t.memory_usage(), m0 - 2 * 64);  // and then the other: the key went to the head
  for (int i = 0; i < 6; ++i) ASSERT_NE(t.find(key_of(i)), nullptr) << i;
  ASSERT_NE(t.find(key_of(101)), nullptr);
  EXPECT_EQ(t.size(), 7u);
  EXPECT_EQ(full_scan(t).size(), 7u);
}

TEST(HashTable, SteadyStateChurnDoesNotGrowMemory) {
  Pool pool;
  Table t;
  for (int i = 0; i < 50000; ++i) ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  t.rehash_for_us(1000000);
  // Warm up: the chains reach their steady shape.
  for (int i = 0; i < 50000; ++i) {
    Item* e = t.erase(key_of(i));
    ASSERT_TRUE(t.insert(e));
  }
  const size_t mem = t.memory_usage();
  const size_t buckets = t.bucket_count();
  for (int i = 0; i < 50000; ++i) {
    Item* e = t.erase(key_of(i));
    ASSERT_NE(e, nullptr);
    auto pos = t.find_position(e->key, hash_key(e->key));
    ASSERT_FALSE(pos);
    t.insert(pos, e);
  }
  EXPECT_EQ(t.memory_usage(), mem);
  EXPECT_EQ(t.bucket_count(), buckets);
}

// SCAN: start, then between calls insert many (forcing growth), delete many (then shrink), and
// let the rehash advance; every key present for the whole scan must be reported.
TEST(HashTable, ScanGuaranteesAcrossResizes) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 4; ++trial) {
    Pool pool;
    Table t;
    constexpr int kStable = 2000;
    for (int i = 0; i < kStable; ++i) ASSERT_TRUE(t.insert(pool.make("s" + std::to_string(i))));
    // Volatile keys come and go; a few stable-looking ones get deleted mid-scan too.
    int next_volatile = 0;
    std::vector<std::string> live_volatile;
    std::unordered_set<std::string> seen;
    std::unordered_set<std::string> removed_stable;
    uint64_t cursor = 0;
    int calls = 0;
    do {
      cursor = t.scan(cursor, [&](const Item* e) { seen.insert(e->key); });
      ++calls;
      const int action = static_cast<int>(rng() % 10);
      if (action < 2) {  // burst of inserts (grows the table)
        const int n = static_cast<int>(rng() % 2500);
        for (int j = 0; j < n; ++j) {
          std::string k = "v" + std::to_string(next_volatile++);
          ASSERT_TRUE(t.insert(pool.make(k)));
          live_volatile.push_back(std::move(k));
        }
      } else if (action < 4) {  // burst of deletes, then shrink
        const size_t n = rng() % (live_volatile.size() + 1);
        for (size_t j = 0; j < n; ++j) {
          ASSERT_NE(t.erase(live_volatile.back()), nullptr);
          live_volatile.pop_back();
        }
        t.shrink_if_needed();
      } else if (action < 6) {
        t.rehash_for_us(static_cast<int64_t>(rng() % 100));
      } else if (action < 7 && rng() % 4 == 0) {
        const std::string k = "s" + std::to_string(rng() % kStable);
        if (t.erase(k) != nullptr) removed_stable.insert(k);
      }
      ASSERT_LT(calls, 10000000);
    } while (cursor != 0);
    int missing = 0;
    for (int i = 0; i < kStable; ++i) {
      const std::string k = "s" + std::to_string(i);
      if (removed_stable.count(k)) continue;
      if (!seen.count(k)) ++missing;
    }
    EXPECT_EQ(missing, 0) << "trial " << trial << " calls " << calls;
  }
}

// Without changes between calls, a scan reports each entry exactly once, also mid-rehash.
TEST(HashTable, ScanExactlyOnceWhenStable) {
  Pool pool;
  Table t;
  int i = 0;
  while (t.bucket_count() < 512 || t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  while (!t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  for (int k = 0; k < 100; ++k) (void)t.find_position(key_of(k), hash_key(key_of(k)));
  ASSERT_TRUE(t.rehashing());
  std::unordered_map<std::string, int> count;
  uint64_t c = 0;
  do {
    c = t.scan(c, [&](const Item* e) { ++count[e->key]; });
  } while (c != 0);
  EXPECT_EQ(count.size(), t.size());
  for (const auto& [k, n] : count) EXPECT_EQ(n, 1) << k;
}

// random_entries (eviction's stream of whole buckets): each entry as fair as random_entry's,
// members only, also while rehashing.
TEST(HashTable, RandomEntriesFairInBatches) {
  Pool pool;
  Table t;
  Table::SampleAhead ahead;
  Item* out[16];
  EXPECT_EQ(t.random_entries(1, out, 5, ahead), 0u);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  std::unordered_map<std::string, int> hits;
  std::mt19937_64 rng(5);
  constexpr int kDraws = 4000;
  for (int d = 0; d < kDraws; ++d) {
    ASSERT_EQ(t.random_entries(rng(), out, 5, ahead), 5u);
    for (int k = 0; k < 5; ++k) ++hits[out[k]->key];
  }
  EXPECT_EQ(hits.size(), 20u);
  for (const auto& [k, n] : hits) {
    EXPECT_GT(n, kDraws * 5 / 20 / 2) << k;
    EXPECT_LT(n, kDraws * 5 / 20 * 2) << k;
  }
  int i = 20;
  while (t.bucket_count() < 256 || t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  while (!t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  std::unordered_set<std::string> all = keys_of(t);
  std::unordered_set<std::string> sampled;
  for (int d = 0; d < 20000; ++d) {
    ASSERT_EQ(t.random_entries(rng(), out, 16, ahead), 16u);
    for (Item* e : out) {
      ASSERT_TRUE(all.count(e->key));
      sampled.insert(e->key);
    }
  }
  EXPECT_EQ(sampled.size(), all.size());
}

// random_entries over many calls (buckets queued ahead, the rest of a bucket carried to the
// next call): as fair as random_entry, only members even when entries leave between calls,
// and across a resize.
TEST(HashTable, RandomEntriesAheadFairAndCurrent) {
  Pool pool;
  Table t;
  Table::SampleAhead ahead;
  Item* out[16];
  constexpr int kKeys = 2000;
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  while (t.rehashing()) (void)t.find_position(key_of(0), hash_key(key_of(0)));
  std::unordered_map<std::string, int> hits;
  std::mt19937_64 rng(11);
  constexpr int kCalls = 80000;  // 400,000 draws: 200 per key expected
  for (int d = 0; d < kCalls; ++d) {
    ASSERT_EQ(t.random_entries(rng(), out, 5, ahead), 5u);
    for (int k = 0; k < 5; ++k) ++hits[out[k]->key];
  }
  EXPECT_EQ(hits.size(), static_cast<size_t>(kKeys));
  for (const auto& [k, n] : hits) {
    EXPECT_GT(n, 100) << k;
    EXPECT_LT(n, 300) << k;
  }
  // Entries erased between calls (the ahead buckets lose them) are never returned; the
  // table grows (a resize renumbers the buckets) while sampling goes on.
  std::unordered_set<std::string> live = keys_of(t);
  int next = kKeys;
  for (int d = 0; d < 20000; ++d) {
    const std::string victim = key_of(static_cast<uint64_t>(rng() % static_cast<uint64_t>(next)));
    if (t.erase(victim) != nullptr) live.erase(victim);
    for (int k = 0; k < 2; ++k) {
      const std::string key = key_of(static_cast<uint64_t>(next++));
      ASSERT_TRUE(t.insert(pool.make(key)));
      live.insert(key);
    }
    const size_t got = t.random_entries(rng(), out, 5, ahead);
    ASSERT_EQ(got, 5u);
    for (size_t k = 0; k < got; ++k) ASSERT_TRUE(live.count(out[k]->key)) << out[k]->key;
  }
  EXPECT_EQ(live, keys_of(t));
}

// Asked for at least as many entries as a small table holds: every entry, once (drawn with
// replacement, 12 draws over 12 entries would miss some; eviction tests rely on it).
TEST(HashTable, RandomEntriesOfASmallTableAreAllItsEntries) {
  Pool pool;
  Table t;
  Table::SampleAhead ahead;
  Item* out[64];
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  for (size_t n : {12u, 13u, 64u}) {
    ASSERT_EQ(t.random_entries(7, out, n, ahead), 12u);
    std::unordered_set<std::string> seen;
    for (size_t k = 0; k < 12; ++k) seen.insert(out[k]->key);
    EXPECT_EQ(seen, keys_of(t));
  }
  // Fewer than the table holds: still n draws.
  EXPECT_EQ(t.random_entries(7, out, 5, ahead), 5u);
}

TEST(HashTable, RandomEntry) {
  Pool pool;
  Table t;
  EXPECT_EQ(t.random_entry(42), nullptr);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(t.insert(pool.make(key_of(i))));
  std::unordered_map<std::string, int> hits;
  std::mt19937_64 rng(3);
  constexpr int kSamples = 20000;
  for (int s = 0; s < kSamples; ++s) {
    Item* e = t.random_entry(rng());
    ASSERT_NE(e, nullptr);
    ++hits[e->key];
  }
  EXPECT_EQ(hits.size(), 20u);
  for (const auto& [k, n] : hits) {
    EXPECT_GT(n, kSamples / 20 / 2) << k;  // fair within a factor of 2
    EXPECT_LT(n, kSamples / 20 * 2) << k;
  }
  // During a rehash, samples are members and come from both tables.
  int i = 20;
  while (t.bucket_count() < 256 || t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  while (!t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  std::unordered_set<std::string> all = keys_of(t);
  std::unordered_set<std::string> sampled;
  for (int s = 0; s < 50000; ++s) {
    Item* e = t.random_entry(rng());
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(all.count(e->key));
    sampled.insert(e->key);
  }
  EXPECT_GT(sampled.size(), all.size() * 9 / 10);
  // A very sparse table still finds its last entry.
  for (int k = 0; k < i - 1; ++k) ASSERT_NE(t.erase(key_of(k)), nullptr);
  for (int s = 0; s < 100; ++s) ASSERT_EQ(t.random_entry(rng())->key, key_of(i - 1));
}

TEST(HashTable, ClearFreesEverything) {
  Table t;
  std::unordered_set<Item*> live;
  for (int i = 0; i < 20000; ++i) {
    Item* it = new Item{key_of(i), i};
    live.insert(it);
    ASSERT_TRUE(t.insert(it));
  }
  ASSERT_TRUE(t.rehashing() || !t.rehashing());
  size_t freed = 0;
  t.clear([&](Item* e) {
    ASSERT_EQ(live.erase(e), 1u);
    delete e;
    ++freed;
  });
  EXPECT_EQ(freed, 20000u);
  EXPECT_TRUE(live.empty());
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.bucket_count(), 0u);
  EXPECT_EQ(t.memory_usage(), 0u);
  Item a{"a", 1};
  ASSERT_TRUE(t.insert(&a));  // reusable
  EXPECT_EQ(t.find("a"), &a);
}

TEST(HashTable, PrefetchIsHarmless) {
  Pool pool;
  Table t;
  for (int k = 0; k < 100; ++k) {
    t.prefetch_bucket(hash_key(key_of(k)));
    t.prefetch_entries(hash_key(key_of(k)));
  }
  int i = 0;
  while (t.bucket_count() < 256 || t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  while (!t.rehashing()) ASSERT_TRUE(t.insert(pool.make(key_of(i++))));
  for (int k = 0; k < 2 * i; ++k) {
    t.prefetch_bucket(hash_key(key_of(k)));
    t.prefetch_entries(hash_key(key_of(k)));
  }
  EXPECT_TRUE(t.rehashing());
  EXPECT_EQ(keys_of(t).size(), static_cast<size_t>(i));
}

TEST(HashTable, MoveTransfersOwnership) {
  Pool pool;
  Table a;
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(a.insert(pool.make(key_of(i))));
  Table b(std::move(a));
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.find(key_of(1)), nullptr);
  EXPECT_EQ(b.size(), 5000u);
  Table c;
  ASSERT_TRUE(c.insert(pool.make("x")));
  c = std::move(b);
  EXPECT_EQ(c.size(), 5000u);
  EXPECT_EQ(c.find("x"), nullptr);
  for (int i = 0; i < 5000; ++i) ASSERT_NE(c.find(key_of(i)), nullptr);
}

// Big enough that the old table is released in madvise chunks during the rehash.
TEST(HashTable, LargeIncrementalRehash) {
  Pool pool;
  Table t;
  constexpr int kN = 300000;
  for (int i = 0; i < kN; ++i) {
    ASSERT_TRUE(t.insert(pool.make(key_of(i))));
    if (i % 997 == 0) {
      ASSERT_NE(t.find(key_of(i / 2)), nullptr);
    }
  }
  for (int i = 0; i < kN; i += 7) ASSERT_NE(t.find(key_of(i)), nullptr);
  t.rehash_for_us(1000000);
  EXPECT_FALSE(t.rehashing());
  EXPECT_EQ(count_entries(t), static_cast<size_t>(kN));
}

// While a fork child exists (base/fork.h) a table grows only at four times its normal maximum
// fill, a 2x resize in progress is left alone by lookups, inserts and the cron, and a shrink
// needs four times sparser a table; everything resumes when the child is gone.
TEST(HashTable, ForkChildLimitsResizing) {
  struct ChildGuard {
    ChildGuard() { g_fork_child_exists = true; }
    ~ChildGuard() { g_fork_child_exists = false; }
  };
  Pool pool;
  Table t;
  int next = 0;
  while (t.bucket_count() < 64) ASSERT_TRUE(t.insert(pool.make(key_of(next++))));
  t.rehash_for_us(1000000);
  ASSERT_FALSE(t.rehashing());
  const size_t buckets = t.bucket_count();
  const size_t normal_max = buckets * Table::kMaxPerBucket;
  {
    ChildGuard child;
    while (t.size() < normal_max * 2) ASSERT_TRUE(t.insert(pool.make(key_of(next++))));
    EXPECT_EQ(t.bucket_count(), buckets) << "grew below the overload limit";
    while (t.size() < normal_max * Table::kForkOverload) ASSERT_TRUE(t.insert(pool.make(key_of(next++))));
    EXPECT_EQ(t.bucket_count(), buckets);
    ASSERT_TRUE(t.insert(pool.make(key_of(next++))));  // heavily overloaded: grows anyway
    EXPECT_TRUE(t.rehashing());
    EXPECT_GE(t.bucket_count() - buckets, buckets * Table::kForkOverload);
    // That resize is big (the new table is >= 4x the old one): it may proceed.
    t.rehash_for_us(1000000);
    EXPECT_FALSE(t.rehashing());
  }
  for (int i = 0; i < next; ++i) ASSERT_NE(t.find(key_of(i)), nullptr) << i;

  // A 2x resize started before the child: paused while the child exists.
  Pool pool2;
  Table u;
  int n2 = 0;
  while (u.bucket_count() < 256) ASSERT_TRUE(u.insert(pool2.make(key_of(n2++))));
  u.rehash_for_us(1000000);
  while (!u.rehashing()) ASSERT_TRUE(u.insert(pool2.make(key_of(n2++))));
  {
    ChildGuard child;
    for (int i = 0; i < 100; ++i) ASSERT_NE(u.find_position(key_of(i)).found(), false);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(u.insert(pool2.make(key_of(n2++))));
    u.rehash_for_us(1000000);
    EXPECT_TRUE(u.rehashing()) << "a 2x resize advanced while a child exists";
  }
  u.rehash_for_us(1000000);
  EXPECT_FALSE(u.rehashing());
  for (int i = 0; i < n2; ++i) ASSERT_NE(u.find(key_of(i)), nullptr) << i;

  // Shrinking: at 1/8 of the slots it would shrink; with a child only at 1/32.
  const size_t big = u.bucket_count();
  size_t keep = big * ht_detail::kSlots / 8;
  for (int i = n2 - 1; static_cast<size_t>(i) >= keep; --i) {
    Table::Position p = u.find_position(key_of(i));
    ASSERT_TRUE(p.found());
    u.erase(p);
  }
  {
    ChildGuard child;
    u.shrink_if_needed();
    EXPECT_EQ(u.bucket_count(), big);
  }
  u.shrink_if_needed();
  EXPECT_TRUE(u.rehashing());
}

}  // namespace
}  // namespace keel
