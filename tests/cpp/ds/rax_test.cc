// Tests for ds/rax.h: a randomised comparison with std::map (inserts, removals, every seek
// operator, first/last, ordered walk) with the structural invariants checked after each step,
// on 16-byte stream-like keys and on short variable-length keys (prefixes of each other).
#include "ds/rax.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>

namespace keel {
namespace {

uint32_t test_seed() {
  const uint32_t seed = static_cast<uint32_t>(testing::UnitTest::GetInstance()->random_seed());
  std::printf("[ seed ] %u (rerun with --gtest_random_seed=%u)\n", seed, seed);
  return seed;
}

void* val(uintptr_t v) { return reinterpret_cast<void*>(v); }

std::string seek_model(const std::map<std::string, uintptr_t>& m, Rax::Seek op, const std::string& k,
                       uintptr_t* v) {
  auto it = m.end();
  switch (op) {
    case Rax::Seek::kGE: it = m.lower_bound(k); break;
    case Rax::Seek::kGT: it = m.upper_bound(k); break;
    case Rax::Seek::kLE:
      it = m.upper_bound(k);
      it = it == m.begin() ? m.end() : std::prev(it);
      break;
    case Rax::Seek::kLT:
      it = m.lower_bound(k);
      it = it == m.begin() ? m.end() : std::prev(it);
      break;
  }
  if (it == m.end()) {
    *v = 0;
    return "";
  }
  *v = it->second;
  return it->first;
}

void compare_all(const Rax& r, const std::map<std::string, uintptr_t>& m) {
  ASSERT_TRUE(r.check());
  ASSERT_EQ(r.size(), m.size());
  auto it = m.begin();
  r.for_each([&](std::string_view k, void* v) {
    ASSERT_NE(it, m.end());
    EXPECT_EQ(std::string(k), it->first);
    EXPECT_EQ(v, val(it->second));
    ++it;
  });
  EXPECT_EQ(it, m.end());
}

std::string random_key(std::mt19937& rng, bool fixed) {
  if (fixed) {
    // 16-byte IDs clustered like a stream's: a few ms values, small seqs.
    std::string k(16, '\0');
    const uint64_t ms = 1700000000000ull + rng() % 64, seq = rng() % 8;
    for (int i = 0; i < 8; i++) k[i] = static_cast<char>(ms >> (56 - 8 * i));
    for (int i = 0; i < 8; i++) k[8 + i] = static_cast<char>(seq >> (56 - 8 * i));
    return k;
  }
  std::string k(rng() % 5, '\0');
  for (char& c : k) c = "ab\0\xff"[rng() % 4];
  return k;
}

void run_model(bool fixed) {
  std::mt19937 rng(test_seed());
  Rax r;
  std::map<std::string, uintptr_t> m;
  for (int step = 0; step < 4000; step++) {
    const std::string k = random_key(rng, fixed);
    const int op = static_cast<int>(rng() % 10);
    if (op < 5) {
      const uintptr_t v = 1 + rng() % 1000000;
      const bool added = m.find(k) == m.end();
      m[k] = v;
      ASSERT_EQ(r.insert(k, val(v)), added);
    } else if (op < 8) {
      void* old = nullptr;
      const auto it = m.find(k);
      const bool there = it != m.end();
      ASSERT_EQ(r.remove(k, &old), there);
      if (there) {
        EXPECT_EQ(old, val(it->second));
        m.erase(it);
      }
    } else {
      auto it = m.find(k);
      EXPECT_EQ(r.find(k), it == m.end() ? nullptr : val(it->second));
    }
    ASSERT_TRUE(r.check()) << "step " << step;
    for (auto sop : {Rax::Seek::kGE, Rax::Seek::kGT, Rax::Seek::kLE, Rax::Seek::kLT}) {
      const std::string probe = random_key(rng, fixed);
      uintptr_t want = 0;
      const std::string wk = seek_model(m, sop, probe, &want);
      uint8_t buf[Rax::kMaxKey];
      size_t len = 0;
      void* got = r.seek(sop, probe, buf, &len);
      ASSERT_EQ(got, want ? val(want) : nullptr) << "seek " << int(sop) << " step " << step;
      if (got) {
        EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), len), wk);
      }
    }
    if (step % 200 == 0) {
      compare_all(r, m);
    }
    // last_slot: the last key, and a value replaced through its slot is what find sees.
    uint8_t lb[Rax::kMaxKey];
    size_t llen = 0;
    void** slot = r.last_slot(lb, &llen);
    if (m.empty()) {
      ASSERT_EQ(slot, nullptr);
    } else {
      ASSERT_NE(slot, nullptr);
      ASSERT_EQ(std::string(reinterpret_cast<char*>(lb), llen), m.rbegin()->first);
      ASSERT_EQ(*slot, val(m.rbegin()->second));
      m.rbegin()->second += 1;
      *slot = val(m.rbegin()->second);
      ASSERT_EQ(r.find(m.rbegin()->first), val(m.rbegin()->second));
    }
  }
  compare_all(r, m);
  uint8_t buf[Rax::kMaxKey];
  size_t len;
  if (!m.empty()) {
    EXPECT_EQ(r.first(buf, &len), val(m.begin()->second));
    EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), len), m.begin()->first);
    EXPECT_EQ(r.last(buf, &len), val(m.rbegin()->second));
  }
  // Remove everything: the tree shrinks back to its root.
  for (auto& [k, v] : m) ASSERT_TRUE(r.remove(k));
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.node_count(), 1u);
  EXPECT_TRUE(r.check());
  EXPECT_EQ(r.first(buf, &len), nullptr);
}

TEST(Rax, ModelFixedKeys) { run_model(true); }
TEST(Rax, ModelVariableKeys) { run_model(false); }

TEST(Rax, EmptyKeyAndClear) {
  Rax r;
  EXPECT_TRUE(r.insert("", val(1)));
  EXPECT_TRUE(r.insert("a", val(2)));
  EXPECT_EQ(r.find(""), val(1));
  uint8_t buf[Rax::kMaxKey];
  size_t len;
  EXPECT_EQ(r.seek(Rax::Seek::kGT, "", buf, &len), val(2));
  EXPECT_EQ(r.seek(Rax::Seek::kLT, "a", buf, &len), val(1));
  EXPECT_EQ(len, 0u);
  r.clear();
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.find("a"), nullptr);
}

// Only a node that ends a key has a value slot: two 16-byte keys differing in their last byte
// are the root (4 + 1 edge, padded to 8, and a child pointer: 16), a branch (4 + 14 + 2
// padded to 24, two child pointers: 40, size class 48) and two leaves of 4 + 4 + 8 (16 each):
// 96. With the value pointer in every node's header it was 32 + 48 + 16 + 16 = 112.
TEST(Rax, OnlyKeyNodesHoldAValue) {
  Rax r;
  std::string a(16, '\0'), b(16, '\0');
  a[15] = 1;
  b[15] = 2;
  EXPECT_TRUE(r.insert(a, val(1)));
  EXPECT_TRUE(r.insert(b, val(2)));
  EXPECT_EQ(r.node_count(), 4u);
  EXPECT_LE(r.memory_usage(), 96u);
  // A value set on the branch point itself (the 15-byte prefix) and removed again.
  EXPECT_TRUE(r.insert(std::string_view(a.data(), 15), val(3)));
  EXPECT_EQ(r.find(std::string_view(a.data(), 15)), val(3));
  EXPECT_EQ(r.find(b), val(2));
  void* old = nullptr;
  EXPECT_TRUE(r.remove(std::string_view(a.data(), 15), &old));
  EXPECT_EQ(old, val(3));
  EXPECT_EQ(r.find(a), val(1));
  EXPECT_LE(r.memory_usage(), 96u);
  EXPECT_TRUE(r.check());
}

}  // namespace
}  // namespace keel
