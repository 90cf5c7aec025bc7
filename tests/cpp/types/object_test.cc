// Object layout: the 16-byte header, the optional expire field, the key, and the value area
// (embedded bytes or the 8-aligned slot) stay consistent through every change of a string's
// representation, at every key length (so every slot alignment) and with and without a TTL.
#include "types/object.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <random>
#include <string>

#include "types/string_type.h"

namespace keel {
namespace {

std::string value_of(const Object* o) {
  char scratch[24];
  return std::string(o->string_view(scratch));
}

TEST(ObjectTest, SmallStringsFitTheirSizeClass) {
  static_assert(sizeof(Object) == 16);
  // DEBUG POPULATE's shape: "key:123456" with a 100-byte value is 126 bytes, jemalloc's 128.
  Object* o = Object::create_string("key:123456", std::string(100, 'v'));
  EXPECT_TRUE(o->embedded());
  EXPECT_LE(malloc_usable_size(o), 128u);
  EXPECT_FALSE(o->has_expire_room());
  // Its first TTL moves it to a block with the expire field.
  o = Object::with_expire(o, 12345);
  EXPECT_TRUE(o->has_expire());
  EXPECT_EQ(o->expire_ms(), 12345);
  EXPECT_EQ(o->key(), "key:123456");
  EXPECT_EQ(value_of(o), std::string(100, 'v'));
  Object::destroy(o);
  // Moving for a TTL copies what is used, not the old block's spare room: a 16-byte key with a
  // 100-byte value is 132 bytes (160 class) and 140 with the field (still 160).
  Object* p = Object::create_string("key:000000123456", std::string(100, 'v'));
  EXPECT_LE(malloc_usable_size(p), 160u);
  p = Object::with_expire(p, 1);
  EXPECT_LE(malloc_usable_size(p), 160u);
  Object::destroy(p);
}

TEST(ObjectTest, EmbeddedTinyValueBecomesIntAndRawInPlace) {
  for (size_t klen = 0; klen < 24; klen++) {
    for (bool room : {false, true}) {
      const std::string key(klen, 'k');
      Object* o = Object::create_string_noint(key, "7", room);  // embedded "7", smallest block
      ASSERT_TRUE(o->embedded());
      int64_t v = 0;
      ASSERT_EQ(StringType::incr_by(*o, 5, &v), StringType::IncrResult::kOk);
      EXPECT_EQ(v, 12);
      EXPECT_TRUE(o->is_int());
      EXPECT_EQ(o->key(), key);
      EXPECT_EQ(StringType::append(*o, "ab"), 4u);
      EXPECT_EQ(value_of(o), "12ab");
      EXPECT_EQ(o->key(), key);
      Object::destroy(o);
    }
  }
}

TEST(ObjectTest, RandomRepresentationChangesAgainstModel) {
  std::mt19937_64 rng(testing::UnitTest::GetInstance()->random_seed());
  auto random_value = [&]() -> std::string {
    switch (rng() % 4) {
      case 0: return std::to_string(static_cast<int64_t>(rng() % 2000000) - 1000000);
      case 1: return std::string(rng() % 16, 'a' + static_cast<char>(rng() % 26));
      case 2: return std::string(rng() % 260, 'b');
      default: return std::string(200 + rng() % 400, 'c');
    }
  };
  for (int round = 0; round < 400; round++) {
    std::string key(rng() % 40, 'k');
    for (size_t i = 0; i < key.size(); i++) key[i] = static_cast<char>('a' + rng() % 26);
    std::string model = random_value();
    bool ttl = false;
    int64_t ttl_ms = 0;
    Object* o = Object::create_string(key, model, rng() % 2 == 0);
    for (int step = 0; step < 30; step++) {
      switch (rng() % 7) {
        case 0:  // EXPIRE
          ttl_ms = static_cast<int64_t>(rng() % 1000000);
          o = Object::with_expire(o, ttl_ms);
          ttl = true;
          break;
        case 1:  // PERSIST (keeps the room)
          o->clear_expire_field();
          ttl = false;
          break;
        case 2: {  // SET in place when it fits
          std::string v = random_value();
          if (o->assign_string_in_place(v)) model = v;
          break;
        }
        case 3: {  // APPEND
          std::string tail(rng() % 30, 'x');
          StringType::append(*o, tail);
          model += tail;
          break;
        }
        case 4: {  // INCRBY on a value that is an integer
          int64_t cur, out;
          if (StringType::to_int64(*o, &cur) && cur < 1000000000 && cur > -1000000000) {
            ASSERT_EQ(StringType::incr_by(*o, 3, &out), StringType::IncrResult::kOk);
            model = std::to_string(cur + 3);
          }
          break;
        }
        case 5: {  // RENAME to a key of another length (another slot alignment)
          key.assign(rng() % 40, 'r');
          o = Object::rekey(o, key);
          break;
        }
        default: {  // COPY
          Object* c = Object::clone_with_key(o, "copy", true);
          EXPECT_EQ(value_of(c), model);
          EXPECT_EQ(c->has_expire(), ttl);
          Object::destroy(c);
          break;
        }
      }
      ASSERT_EQ(o->key(), key) << "round " << round << " step " << step;
      ASSERT_EQ(value_of(o), model) << "round " << round << " step " << step;
      ASSERT_EQ(o->string_length(), model.size());
      ASSERT_EQ(o->has_expire(), ttl);
      if (ttl) {
        ASSERT_EQ(o->expire_ms(), ttl_ms);
      }
    }
    Object::destroy(o);
  }
}

}  // namespace
}  // namespace keel
