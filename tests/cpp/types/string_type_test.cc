// StringType edits (append, set_range, edit growth, incr_by) against a std::string model, on
// values that start int-encoded, embedded (short and 45+ bytes) and on the heap.
#include "types/string_type.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace keel {
namespace {

std::string value_of(const Object* o) {
  char scratch[24];
  return std::string(o->string_view(scratch));
}

TEST(StringTypeTest, RandomEditsAgainstModel) {
  std::mt19937_64 rng(testing::UnitTest::GetInstance()->random_seed());
  for (int round = 0; round < 300; round++) {
    const size_t start_len = rng() % 4 == 0 ? 0 : rng() % 400;
    std::string model(start_len, 'a' + static_cast<char>(rng() % 26));
    if (rng() % 5 == 0) model = std::to_string(static_cast<int64_t>(rng() % 100000) - 50000);
    Object* o = Object::create_string("key", model);
    for (int step = 0; step < 20; step++) {
      switch (rng() % 4) {
        case 0: {
          std::string tail(rng() % 50, 'x');
          EXPECT_EQ(StringType::append(*o, tail), model.size() + tail.size());
          model += tail;
          EXPECT_EQ(o->encoding(), Encoding::kRaw);
          break;
        }
        case 1: {
          const size_t off = rng() % 300;
          std::string v(1 + rng() % 20, 'y');
          if (model.size() < off + v.size()) model.resize(off + v.size(), '\0');
          model.replace(off, v.size(), v);
          EXPECT_EQ(StringType::set_range(*o, off, v), model.size());
          break;
        }
        case 2: {
          const size_t len = rng() % 500;
          StringType::edit(*o, len);
          if (model.size() < len) model.resize(len, '\0');
          break;
        }
        case 3: {
          int64_t expect_v;
          const bool is_int = string_is_canonical_int(model, &expect_v);
          int64_t got;
          auto r = StringType::incr_by(*o, 7, &got);
          if (!is_int) {
            EXPECT_EQ(r, StringType::IncrResult::kNotInteger);
          } else {
            ASSERT_EQ(r, StringType::IncrResult::kOk);
            EXPECT_EQ(got, expect_v + 7);
            EXPECT_TRUE(o->is_int());
            model = std::to_string(got);
          }
          break;
        }
      }
      ASSERT_EQ(value_of(o), model) << "round " << round << " step " << step;
      ASSERT_EQ(o->string_length(), model.size());
    }
    Object::destroy(o);
  }
}

TEST(StringTypeTest, IncrOverflowLeavesValue) {
  Object* o = Object::create_int("k", INT64_MAX);
  int64_t v;
  EXPECT_EQ(StringType::incr_by(*o, 1, &v), StringType::IncrResult::kOverflow);
  EXPECT_EQ(o->int_value(), INT64_MAX);
  EXPECT_EQ(StringType::incr_by(*o, -1, &v), StringType::IncrResult::kOk);
  EXPECT_EQ(v, INT64_MAX - 1);
  Object::destroy(o);
}

TEST(StringTypeTest, CreateZeroedIsRaw) {
  Object* o = StringType::create_zeroed("k", 10);
  EXPECT_EQ(o->encoding(), Encoding::kRaw);
  EXPECT_EQ(value_of(o), std::string(10, '\0'));
  Object::destroy(o);
  Object* f = Object::create_string_noint("k", "3");
  EXPECT_EQ(f->encoding(), Encoding::kEmbstr);
  EXPECT_EQ(value_of(f), "3");
  Object::destroy(f);
}

}  // namespace
}  // namespace keel
