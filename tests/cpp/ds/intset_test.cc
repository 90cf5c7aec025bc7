// Tests for ds/intset.h: exact blob bytes at every width boundary (16/32/64-bit upgrades, never
// narrowing), a randomised test against std::set that compares the whole blob after each step,
// and the validator against truncations, extensions and random corruption (run under ASan with
// `make asan` to prove it never reads outside the buffer).
#include "ds/intset.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "base/util_random.h"

namespace keel {
namespace {

uint32_t test_seed() {
  const uint32_t seed = static_cast<uint32_t>(testing::UnitTest::GetInstance()->random_seed());
  std::printf("[ seed ] %u (rerun with --gtest_random_seed=%u)\n", seed, seed);
  return seed;
}

// The blob Redis would hold for `values` (sorted, unique) at `width` bytes per value, written
// out byte by byte (little-endian) without using the code under test.
std::vector<uint8_t> expected_blob(const std::set<int64_t>& values, uint32_t width) {
  std::vector<uint8_t> out;
  auto put = [&out](uint64_t v, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put(width, 4);
  put(values.size(), 4);
  for (int64_t v : values) put(static_cast<uint64_t>(v), width);
  return out;
}

std::vector<uint8_t> blob_of(const Intset* is) {
  const uint8_t* p = intset_data(is);
  return std::vector<uint8_t>(p, p + intset_bytes(is));
}

// Owns an Intset* for the duration of a test.
struct IntsetHolder {
  Intset* is = intset_new();
  ~IntsetHolder() { intset_free(is); }
  bool add(int64_t v) {
    bool added = false;
    is = intset_add(is, v, &added);
    return added;
  }
  bool remove(int64_t v) {
    bool removed = false;
    is = intset_remove(is, v, &removed);
    return removed;
  }
};

TEST(IntsetTest, EmptyBlob) {
  IntsetHolder h;
  EXPECT_EQ(blob_of(h.is), (std::vector<uint8_t>{2, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(intset_size(h.is), 0u);
  EXPECT_EQ(intset_width(h.is), 2u);
  EXPECT_FALSE(intset_find(h.is, 0));
  EXPECT_FALSE(h.remove(0));
  uint32_t idx = 99;
  EXPECT_FALSE(intset_search(h.is, 5, &idx));
  EXPECT_EQ(idx, 0u);
  // An empty intset is never written by Redis; its validator rejects it.
  EXPECT_FALSE(intset_validate(intset_data(h.is), intset_bytes(h.is)));
}

TEST(IntsetTest, ExactBytesSmall) {
  IntsetHolder h;
  EXPECT_TRUE(h.add(5));
  EXPECT_TRUE(h.add(-2));
  EXPECT_FALSE(h.add(5));
  EXPECT_EQ(blob_of(h.is), (std::vector<uint8_t>{2, 0, 0, 0, 2, 0, 0, 0, 0xfe, 0xff, 0x05, 0x00}));
}

TEST(IntsetTest, ValueWidth) {
  constexpr int64_t kI16Min = std::numeric_limits<int16_t>::min();
  constexpr int64_t kI16Max = std::numeric_limits<int16_t>::max();
  constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
  constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(intset_value_width(0), 2u);
  EXPECT_EQ(intset_value_width(kI16Max), 2u);
  EXPECT_EQ(intset_value_width(kI16Min), 2u);
  EXPECT_EQ(intset_value_width(kI16Max + 1), 4u);
  EXPECT_EQ(intset_value_width(kI16Min - 1), 4u);
  EXPECT_EQ(intset_value_width(kI32Max), 4u);
  EXPECT_EQ(intset_value_width(kI32Min), 4u);
  EXPECT_EQ(intset_value_width(kI32Max + 1), 8u);
  EXPECT_EQ(intset_value_width(kI32Min - 1), 8u);
  EXPECT_EQ(intset_value_width(std::numeric_limits<int64_t>::max()), 8u);
  EXPECT_EQ(intset_value_width(std::numeric_limits<int64_t>::min()), 8u);
}

// Walks each boundary from both sides: the value just inside keeps the width, the value just
// outside upgrades every stored value (appended when positive, prepended when negative).
TEST(IntsetTest, UpgradeBoundariesExactBytes) {
  struct Case {
    int64_t inside, outside;
    uint32_t from, to;
  };
  const Case cases[] = {
      {32767, 32768, 2, 4},
      {-32768, -32769, 2, 4},
      {2147483647, 2147483648, 4, 8},
      {-2147483648LL, -2147483649LL, 4, 8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.outside);
    IntsetHolder h;
    std::set<int64_t> model = {1, -1, 300};
    // Start at the `from` width: for the 4 -> 8 cases push the set to 32-bit first.
    if (c.from == 4) model.insert(100000);
    for (int64_t v : model) ASSERT_TRUE(h.add(v));
    ASSERT_EQ(intset_width(h.is), c.from);
    ASSERT_TRUE(h.add(c.inside));
    model.insert(c.inside);
    EXPECT_EQ(blob_of(h.is), expected_blob(model, c.from));
    ASSERT_TRUE(h.add(c.outside));
    model.insert(c.outside);
    EXPECT_EQ(intset_width(h.is), c.to);
    EXPECT_EQ(blob_of(h.is), expected_blob(model, c.to));
    EXPECT_EQ(intset_min(h.is), *model.begin());
    EXPECT_EQ(intset_max(h.is), *model.rbegin());
    // Never narrows: removing the wide value keeps the width.
    ASSERT_TRUE(h.remove(c.outside));
    model.erase(c.outside);
    EXPECT_EQ(intset_width(h.is), c.to);
    EXPECT_EQ(blob_of(h.is), expected_blob(model, c.to));
    EXPECT_TRUE(intset_validate(intset_data(h.is), intset_bytes(h.is)));
  }
}

TEST(IntsetTest, UpgradeStraightTo64) {
  IntsetHolder h;
  std::set<int64_t> model = {-7, 0, 7};
  for (int64_t v : model) ASSERT_TRUE(h.add(v));
  ASSERT_TRUE(h.add(std::numeric_limits<int64_t>::min()));
  model.insert(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(blob_of(h.is), expected_blob(model, 8));
  ASSERT_TRUE(h.add(std::numeric_limits<int64_t>::max()));
  model.insert(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(blob_of(h.is), expected_blob(model, 8));
  // A 16-bit value added to a 64-bit set is stored at 64 bits.
  ASSERT_TRUE(h.add(3));
  model.insert(3);
  EXPECT_EQ(blob_of(h.is), expected_blob(model, 8));
  // Wider-than-encoding lookups on a narrow set are misses, not reads.
  IntsetHolder narrow;
  ASSERT_TRUE(narrow.add(1));
  EXPECT_FALSE(intset_find(narrow.is, int64_t{1} << 40));
  EXPECT_FALSE(narrow.remove(int64_t{1} << 40));
  uint32_t idx;
  EXPECT_FALSE(intset_search(narrow.is, -(int64_t{1} << 40), &idx));
  EXPECT_EQ(idx, 0u);
  EXPECT_FALSE(intset_search(narrow.is, int64_t{1} << 40, &idx));
  EXPECT_EQ(idx, 1u);
}

int64_t random_value(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0:
      return static_cast<int64_t>(rng() % 200) - 100;  // dense small values: many duplicates
    case 1:
      return static_cast<int16_t>(rng());
    case 2:
      return static_cast<int32_t>(rng());
    case 3: {  // near a width boundary
      static constexpr int64_t kEdges[] = {32767, -32768, 2147483647, -2147483648LL};
      return kEdges[rng() % 4] + static_cast<int64_t>(rng() % 5) - 2;
    }
    case 4:
      return static_cast<int64_t>(rng());
    default:
      return (rng() & 1) ? std::numeric_limits<int64_t>::max() - static_cast<int64_t>(rng() % 3)
                         : std::numeric_limits<int64_t>::min() + static_cast<int64_t>(rng() % 3);
  }
}

TEST(IntsetTest, RandomAgainstStdSet) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  random_seed(seed);
  for (int round = 0; round < 30; ++round) {
    IntsetHolder h;
    std::set<int64_t> model;
    uint32_t width = 2;  // the widest value ever added: intsets never narrow
    // Early rounds stay 16-bit for a while, later ones mix widths from the start.
    const int ops = 400 + round * 20;
    for (int op = 0; op < ops; ++op) {
      int64_t v = random_value(rng);
      if (round % 3 == 0 && op < ops / 2) v = static_cast<int16_t>(v);
      const uint32_t r = static_cast<uint32_t>(rng() % 10);
      if (r < 6) {
        const bool added = h.add(v);
        ASSERT_EQ(added, model.insert(v).second) << v;
        if (added && intset_value_width(v) > width) width = intset_value_width(v);
      } else if (r < 9) {
        // Remove something present most of the time.
        if (!model.empty() && (rng() & 1)) {
          v = intset_get(h.is, static_cast<uint32_t>(rng() % intset_size(h.is)));
        }
        ASSERT_EQ(h.remove(v), model.erase(v) == 1) << v;
      } else {
        ASSERT_EQ(intset_find(h.is, v), model.count(v) == 1) << v;
        uint32_t idx;
        const bool found = intset_search(h.is, v, &idx);
        ASSERT_EQ(idx, static_cast<uint32_t>(std::distance(model.begin(), model.lower_bound(v))));
        ASSERT_EQ(found, model.count(v) == 1);
      }
      ASSERT_EQ(intset_size(h.is), model.size());
      ASSERT_EQ(intset_width(h.is), width);
      if (op % 16 == 0 || op == ops - 1) {
        ASSERT_EQ(blob_of(h.is), expected_blob(model, width));
        ASSERT_EQ(intset_validate(intset_data(h.is), intset_bytes(h.is)), !model.empty());
      }
    }
    // Iteration, get, min/max, random.
    std::vector<int64_t> seen;
    for (int64_t v : IntsetValues(h.is)) seen.push_back(v);
    ASSERT_EQ(seen, std::vector<int64_t>(model.begin(), model.end()));
    for (uint32_t i = 0; i < intset_size(h.is); ++i) ASSERT_EQ(intset_get(h.is, i), seen[i]);
    if (!model.empty()) {
      ASSERT_EQ(intset_min(h.is), *model.begin());
      ASSERT_EQ(intset_max(h.is), *model.rbegin());
      for (int i = 0; i < 20; ++i) ASSERT_EQ(model.count(intset_random(h.is)), 1u);
      // dup / from_bytes round trips.
      Intset* copy = intset_dup(h.is);
      EXPECT_EQ(blob_of(copy), blob_of(h.is));
      intset_free(copy);
      Intset* loaded = intset_from_bytes(intset_data(h.is), intset_bytes(h.is));
      ASSERT_NE(loaded, nullptr);
      EXPECT_EQ(blob_of(loaded), blob_of(h.is));
      intset_free(loaded);
    }
  }
}

TEST(IntsetTest, RandomCoversEveryMember) {
  random_seed(test_seed());
  IntsetHolder h;
  for (int64_t v = 0; v < 10; ++v) h.add(v * 1000);
  std::set<int64_t> hit;
  for (int i = 0; i < 1000; ++i) hit.insert(intset_random(h.is));
  EXPECT_EQ(hit.size(), 10u);
}

// Runs the validator on an exactly sized heap copy, so ASan flags any read past `len`.
bool validate_copy(const std::vector<uint8_t>& bytes, size_t len) {
  std::unique_ptr<uint8_t[]> buf(new uint8_t[len == 0 ? 1 : len]);
  if (len > 0) std::memcpy(buf.get(), bytes.data(), len);
  return intset_validate(buf.get(), len);
}

// Independent statement of what a valid blob is, used as the oracle for random corruptions.
bool reference_valid(const std::vector<uint8_t>& b) {
  if (b.size() < 8) return false;
  const uint32_t w = b[0] | b[1] << 8 | b[2] << 16 | static_cast<uint32_t>(b[3]) << 24;
  const uint32_t n = b[4] | b[5] << 8 | b[6] << 16 | static_cast<uint32_t>(b[7]) << 24;
  if (w != 2 && w != 4 && w != 8) return false;
  if (n == 0 || 8 + static_cast<uint64_t>(n) * w != b.size()) return false;
  for (uint32_t i = 1; i < n; ++i) {
    auto read = [&](uint32_t k) {
      uint64_t u = 0;
      for (uint32_t j = 0; j < w; ++j) u |= static_cast<uint64_t>(b[8 + k * w + j]) << (8 * j);
      // sign-extend from w bytes
      const int shift = 64 - 8 * static_cast<int>(w);
      return static_cast<int64_t>(u << shift) >> shift;
    };
    if (read(i) <= read(i - 1)) return false;
  }
  return true;
}

TEST(IntsetTest, ValidatorFixedCases) {
  EXPECT_FALSE(intset_validate(nullptr, 0));
  const std::vector<uint8_t> good = {2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0};
  EXPECT_TRUE(validate_copy(good, good.size()));
  for (size_t len = 0; len < good.size(); ++len) EXPECT_FALSE(validate_copy(good, len)) << len;
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_FALSE(validate_copy(longer, longer.size()));
  for (uint8_t enc : {0, 1, 3, 5, 6, 7, 9, 16, 255}) {
    std::vector<uint8_t> b = good;
    b[0] = enc;
    EXPECT_FALSE(validate_copy(b, b.size())) << int{enc};
  }
  std::vector<uint8_t> dup = {2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1, 0};
  EXPECT_FALSE(validate_copy(dup, dup.size()));
  std::vector<uint8_t> unsorted = {2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 1, 0};
  EXPECT_FALSE(validate_copy(unsorted, unsorted.size()));
  std::vector<uint8_t> neg_order = {2, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0, 0};  // -1 < 0
  EXPECT_TRUE(validate_copy(neg_order, neg_order.size()));
  std::vector<uint8_t> huge_len = {8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_FALSE(validate_copy(huge_len, huge_len.size()));
  // A wide encoding holding small values is valid (what removal leaves behind).
  std::vector<uint8_t> wide = {8, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_TRUE(validate_copy(wide, wide.size()));
  EXPECT_EQ(intset_from_bytes(dup.data(), dup.size()), nullptr);
}

TEST(IntsetTest, ValidatorRandomCorruption) {
  const uint32_t seed = test_seed();
  std::mt19937_64 rng(seed);
  int valid_after = 0, invalid_after = 0;
  for (int round = 0; round < 300; ++round) {
    IntsetHolder h;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) h.add(random_value(rng) % (round % 3 == 0 ? 50 : INT64_MAX));
    const std::vector<uint8_t> good = blob_of(h.is);
    ASSERT_TRUE(validate_copy(good, good.size()));
    // Every truncation is rejected.
    for (size_t len = 0; len < good.size(); ++len) ASSERT_FALSE(validate_copy(good, len));
    // Random byte flips / overwrites: the validator agrees with the oracle and never crashes.
    for (int k = 0; k < 30; ++k) {
      std::vector<uint8_t> bad = good;
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) {
        const size_t at = rng() % bad.size();
        if (rng() & 1) {
          bad[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
        } else {
          bad[at] = static_cast<uint8_t>(rng());
        }
      }
      if (rng() % 4 == 0) bad.resize(rng() % (bad.size() + 9));
      const bool want = reference_valid(bad);
      ASSERT_EQ(validate_copy(bad, bad.size()), want);
      (want ? valid_after : invalid_after)++;
      if (want) {
        Intset* loaded = intset_from_bytes(bad.data(), bad.size());
        ASSERT_NE(loaded, nullptr);
        // A valid loaded blob behaves: adding and removing keep it valid.
        bool added;
        loaded = intset_add(loaded, 12345, &added);
        EXPECT_TRUE(intset_validate(intset_data(loaded), intset_bytes(loaded)));
        intset_free(loaded);
      }
    }
  }
  EXPECT_GT(invalid_after, 0);
  EXPECT_GT(valid_after, 0);  // some corruptions (in values) keep the order
}

}  // namespace
}  // namespace keel
