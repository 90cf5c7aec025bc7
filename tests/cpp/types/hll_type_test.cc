// HllType over string Objects: a new HLL is an 18-byte raw string; PFADD-style adds against a
// register model through the sparse form, the promotion at hll-sparse-max-bytes and for values
// above 32, the cached cardinality, PFMERGE's store into sparse and dense destinations, values
// that started embedded (a SET of the bytes) and damaged values (refused, never written past).
#include "types/hll_type.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ds/hyperloglog.h"
#include "types/limits.h"

namespace keel {
namespace {

std::string value_of(const Object* o) {
  char scratch[24];
  return std::string(o->string_view(scratch));
}

std::vector<uint8_t> registers_of(const Object* o) {
  const std::string v = value_of(o);
  std::vector<uint8_t> regs(hll::kRegisters);
  EXPECT_TRUE(hll::merge_max(reinterpret_cast<const uint8_t*>(v.data()), v.size(), regs.data()));
  return regs;
}

TEST(HllTypeTest, NewValueIsSparseRaw) {
  Object* o = HllType::create("h");
  EXPECT_EQ(o->encoding(), Encoding::kRaw);
  EXPECT_EQ(object_length(o), 18);
  EXPECT_TRUE(HllType::is_hll(*o));
  EXPECT_FALSE(HllType::is_dense(*o));
  uint64_t card;
  bool written;
  ASSERT_TRUE(HllType::count(*o, &card, &written));
  EXPECT_EQ(card, 0u);
  EXPECT_FALSE(written);  // the cache of a new value is valid
  HllType::invalidate_cache(*o);
  ASSERT_TRUE(HllType::count(*o, &card, &written));
  EXPECT_TRUE(written);
  Object::destroy(o);
}

TEST(HllTypeTest, AddsAgainstModelThroughPromotion) {
  const int64_t saved = encoding_limits().hll_sparse_max_bytes;
  for (int64_t limit : {int64_t{200}, int64_t{3000}}) {
    encoding_limits().hll_sparse_max_bytes = limit;
    Object* o = HllType::create("h");
    std::vector<uint8_t> model(hll::kRegisters);
    std::mt19937_64 rng(static_cast<uint64_t>(limit));
    bool was_dense = false;
    for (int i = 0; i < 5000; i++) {
      const std::string e = "e" + std::to_string(rng());
      uint32_t idx;
      const uint8_t c = hll::pattern(e, &idx);
      const int r = HllType::add(*o, e);
      ASSERT_EQ(r, c > model[idx] ? 1 : 0);
      if (c > model[idx]) model[idx] = c;
      if (!HllType::is_dense(*o)) {
        ASSERT_FALSE(was_dense) << "dense never goes back";
        ASSERT_LE(object_length(o), limit);
      } else {
        was_dense = true;
        ASSERT_EQ(object_length(o), static_cast<int64_t>(hll::kDenseSize));
      }
      if (i % 500 == 0) {
        ASSERT_EQ(registers_of(o), model);
      }
    }
    EXPECT_TRUE(was_dense);
    uint64_t card;
    bool written;
    ASSERT_TRUE(HllType::count(*o, &card, &written));
    EXPECT_TRUE(written);
    EXPECT_NEAR(static_cast<double>(card), 5000, 250);
    uint64_t again;
    ASSERT_TRUE(HllType::count(*o, &again, &written));
    EXPECT_FALSE(written);
    EXPECT_EQ(again, card);
    Object::destroy(o);
  }
  encoding_limits().hll_sparse_max_bytes = saved;
}

TEST(HllTypeTest, MergeIntoSparseAndDense) {
  Object* a = HllType::create("a");
  Object* b = HllType::create("b");
  for (int i = 0; i < 300; i++) HllType::add(*a, "a" + std::to_string(i));
  for (int i = 0; i < 300; i++) HllType::add(*b, "b" + std::to_string(i));
  ASSERT_EQ(HllType::to_dense(*b), 1);
  EXPECT_EQ(HllType::to_dense(*b), 0);
  std::vector<uint8_t> max(hll::kRegisters);
  ASSERT_TRUE(HllType::merge_into(*a, max.data()));
  ASSERT_TRUE(HllType::merge_into(*b, max.data()));
  for (bool dense : {false, true}) {
    Object* d = HllType::create("d");
    ASSERT_TRUE(HllType::store_max(*d, max.data(), dense));
    EXPECT_EQ(HllType::is_dense(*d), dense);
    EXPECT_EQ(registers_of(d), max);
    Object::destroy(d);
  }
  Object::destroy(a);
  Object::destroy(b);
}

TEST(HllTypeTest, EmbeddedBytesAndDamage) {
  // The bytes of PFADD h a b c from redis-server, SET as a plain (embedded) string.
  const std::string redis_abc("HYLL\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a", 27);
  Object* o = Object::create_string("h", redis_abc);
  ASSERT_TRUE(HllType::is_hll(*o));
  uint64_t card;
  bool written;
  ASSERT_TRUE(HllType::count(*o, &card, &written));
  EXPECT_EQ(card, 3u);
  EXPECT_EQ(HllType::add(*o, "a"), 0);
  EXPECT_EQ(HllType::add(*o, "d"), 1);
  EXPECT_EQ(o->encoding(), Encoding::kRaw);
  Object::destroy(o);
  // 16383 registers only: an add past the end is refused and nothing is written.
  const std::string short_one = std::string("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80", 16) + "\x7f\xfe";
  o = Object::create_string("h", short_one);
  int refused = 0;
  for (int i = 0; i < 20000 && !refused; i++) {
    const std::string before = value_of(o);
    const int r = HllType::add(*o, "x" + std::to_string(i));
    if (r < 0) {
      refused++;
      EXPECT_EQ(value_of(o), before);
    }
  }
  EXPECT_EQ(refused, 1);
  ASSERT_FALSE(HllType::count(*o, &card, &written));
  EXPECT_EQ(HllType::to_dense(*o), -1);
  Object::destroy(o);
}

}  // namespace
}  // namespace keel
