// SetType against a std::set model: random adds, removes, pops and samples across the three
// encodings and their conversion boundaries (small limits so every conversion happens often),
// plus the exact threshold rules of src/types/README.md ("Conversions") and copy/free through the
// registered CollectionOps.
#include "types/set_type.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/numbers.h"

namespace keel {
namespace {

// Restores the process-wide limits after each test.
class SetTypeTest : public testing::Test {
 protected:
  void SetUp() override { saved_ = encoding_limits(); }
  void TearDown() override { encoding_limits() = saved_; }
  EncodingLimits saved_;
};

std::set<std::string> members_of(const Object& o) {
  std::set<std::string> out;
  char buf[kInt64BufSize];
  SetType::for_each(o, [&](const SetElem& e) {
    EXPECT_TRUE(out.insert(std::string(e.text(buf))).second) << "duplicate member";
    return true;
  });
  return out;
}

// Every member must be a canonical integer in an intset, and the count within the limits of
// the small encodings (they never exceed them; only removals may leave a big encoding small).
void check_invariants(const Object& o) {
  const size_t n = SetType::size(o);
  EXPECT_EQ(members_of(o).size(), n);
  const EncodingLimits& lim = encoding_limits();
  switch (o.encoding()) {
    case Encoding::kIntset:
      EXPECT_LE(n, static_cast<size_t>(lim.set_max_intset_entries));
      break;
    case Encoding::kListpack:
      EXPECT_LE(n, static_cast<size_t>(lim.set_max_listpack_entries));
      break;
    case Encoding::kHashtable: break;
    default: ADD_FAILURE() << "unexpected encoding";
  }
}

std::string random_member(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0: return std::to_string(static_cast<int64_t>(rng() % 200) - 100);
    case 1: return std::to_string(static_cast<int64_t>(rng()));  // wide integers
    case 2: return "m" + std::to_string(rng() % 150);
    case 3: return std::string(1 + rng() % 20, 'a' + static_cast<char>(rng() % 3));
    default: return std::to_string(rng() % 50);
  }
}

TEST_F(SetTypeTest, RandomOpsAgainstModel) {
  std::mt19937_64 rng(testing::UnitTest::GetInstance()->random_seed());
  std::set<Encoding> seen;
  for (int round = 0; round < 60; round++) {
    encoding_limits().set_max_intset_entries = 1 + static_cast<int64_t>(rng() % 40);
    encoding_limits().set_max_listpack_entries = static_cast<int64_t>(rng() % 30);
    encoding_limits().set_max_listpack_value = 1 + static_cast<int64_t>(rng() % 25);
    std::set<std::string> model;
    const std::string first = random_member(rng);
    Object* o = SetType::create("k", first, 1 + rng() % 50);
    for (int step = 0; step < 400; step++) {
      const std::string m = random_member(rng);
      switch (rng() % 8) {
        case 0: case 1: case 2:
          EXPECT_EQ(SetType::add(*o, m), model.insert(m).second) << m;
          break;
        case 3:
          SetType::maybe_convert(*o, rng() % 60);
          break;
        case 4: case 5:
          EXPECT_EQ(SetType::remove(*o, m), model.erase(m) == 1) << m;
          SetType::after_removals(*o);
          break;
        case 6:
          EXPECT_EQ(SetType::contains(*o, m), model.count(m) == 1) << m;
          break;
        case 7: {
          const size_t n = SetType::size(*o);
          if (n < 2) break;
          const size_t count = 1 + rng() % (n - 1);
          std::vector<std::string> popped;
          SetType::pop_random_many(*o, count, [](void* ctx, const SetElem& e) {
            char buf[kInt64BufSize];
            static_cast<std::vector<std::string>*>(ctx)->emplace_back(e.text(buf));
          }, &popped);
          EXPECT_EQ(popped.size(), count);
          for (const std::string& p : popped) EXPECT_EQ(model.erase(p), 1u) << p;
          break;
        }
      }
      seen.insert(o->encoding());
      ASSERT_EQ(SetType::size(*o), model.size());
    }
    check_invariants(*o);
    EXPECT_EQ(members_of(*o), model);
    // A deep copy is independent of the original.
    Object* c = Object::clone_with_key(o, "copy", true);
    EXPECT_EQ(members_of(*c), model);
    EXPECT_EQ(c->encoding(), o->encoding());
    SetType::add(*c, "only-in-copy");
    EXPECT_EQ(members_of(*o), model);
    EXPECT_EQ(object_length(c), static_cast<int64_t>(model.size() + (model.count("only-in-copy") ? 0 : 1)));
    Object::destroy(c);
    Object::destroy(o);
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST_F(SetTypeTest, CreateChoosesEncodingByFirstMemberAndHint) {
  Object* a = SetType::create("a", "12", 512);
  EXPECT_EQ(a->encoding(), Encoding::kIntset);
  Object* b = SetType::create("b", "12", 513);
  EXPECT_EQ(b->encoding(), Encoding::kHashtable);
  Object* c = SetType::create("c", "x", 128);
  EXPECT_EQ(c->encoding(), Encoding::kListpack);
  Object* d = SetType::create("d", "x", 129);
  EXPECT_EQ(d->encoding(), Encoding::kHashtable);
  Object* e = SetType::create("e", "012", 1);
  EXPECT_EQ(e->encoding(), Encoding::kListpack);
  for (Object* o : {a, b, c, d, e}) Object::destroy(o);
}

TEST_F(SetTypeTest, IntsetConversions) {
  Object* o = SetType::create("k", "0", 1);
  for (int i = 0; i < 512; i++) SetType::add(*o, std::to_string(i));
  EXPECT_EQ(o->encoding(), Encoding::kIntset);
  SetType::add(*o, "511");  // present: no change
  EXPECT_EQ(o->encoding(), Encoding::kIntset);
  SetType::add(*o, "512");
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  EXPECT_EQ(SetType::size(*o), 513u);
  Object::destroy(o);

  // intset + string: listpack below 128 members, hashtable at 128.
  o = SetType::create("k", "0", 1);
  for (int i = 0; i < 127; i++) SetType::add(*o, std::to_string(i));
  SetType::add(*o, "x");
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  EXPECT_TRUE(SetType::contains(*o, "126"));
  Object::destroy(o);
  o = SetType::create("k", "0", 1);
  for (int i = 0; i < 128; i++) SetType::add(*o, std::to_string(i));
  SetType::add(*o, "x");
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  Object::destroy(o);

  // intset + string: the integers' digits count against set-max-listpack-value.
  encoding_limits().set_max_listpack_value = 3;
  o = SetType::create("k", "1", 1);  // creates the empty value only
  SetType::add(*o, "1");
  SetType::add(*o, "1000");
  SetType::add(*o, "ab");
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  Object::destroy(o);
  o = SetType::create("k", "1", 1);
  SetType::add(*o, "1");
  SetType::add(*o, "-99");
  SetType::add(*o, "ab");
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  EXPECT_EQ(members_of(*o), (std::set<std::string>{"1", "-99", "ab"}));
  Object::destroy(o);
}

TEST_F(SetTypeTest, ListpackConversions) {
  Object* o = SetType::create("k", "x", 1);
  for (int i = 0; i < 128; i++) SetType::add(*o, "m" + std::to_string(i));
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  SetType::add(*o, "m128");
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  Object::destroy(o);
  o = SetType::create("k", "x", 1);
  SetType::add(*o, std::string(64, 'a'));
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  SetType::add(*o, std::string(65, 'a'));
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  // Removals never convert back.
  SetType::remove(*o, std::string(65, 'a'));
  SetType::remove(*o, std::string(64, 'a'));
  SetType::after_removals(*o);
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  EXPECT_EQ(SetType::size(*o), 0u);
  Object::destroy(o);
}

TEST_F(SetTypeTest, MaybeToIntset) {
  Object* smallest = SetType::create("tmp", "x", 1);  // a listpack input: result starts listpack
  Object* o = SetType::create_inter_result("k", *smallest);
  Object::destroy(smallest);
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  for (int i = 0; i < 200; i++) SetType::add(*o, std::to_string(i * 3));
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  SetType::maybe_to_intset(*o);
  EXPECT_EQ(o->encoding(), Encoding::kIntset);
  EXPECT_EQ(SetType::size(*o), 200u);
  SetType::add(*o, "x");
  SetType::maybe_to_intset(*o);
  EXPECT_NE(o->encoding(), Encoding::kIntset);
  Object::destroy(o);
}

TEST_F(SetTypeTest, RandomMembersUniqueAndRepeated) {
  std::mt19937_64 rng(testing::UnitTest::GetInstance()->random_seed());
  for (int kind = 0; kind < 3; kind++) {
    Object* o = SetType::create("k", kind == 0 ? "1" : "x", 1);
    const int n = kind == 2 ? 1000 : 100;
    std::set<std::string> model;
    for (int i = 0; i < n; i++) {
      const std::string m = kind == 0 ? std::to_string(i) : "m" + std::to_string(i);
      SetType::add(*o, m);
      model.insert(m);
    }
    EXPECT_EQ(o->encoding(),
              kind == 0 ? Encoding::kIntset : kind == 1 ? Encoding::kListpack : Encoding::kHashtable);
    for (uint64_t count : {uint64_t{1}, uint64_t{3}, uint64_t(n / 4), uint64_t(n / 2),
                           uint64_t(n - 1), uint64_t(n), uint64_t(n + 5)}) {
      std::vector<std::string> got;
      auto collect = [](void* ctx, const SetElem& e) {
        char buf[kInt64BufSize];
        static_cast<std::vector<std::string>*>(ctx)->emplace_back(e.text(buf));
      };
      const size_t emitted = SetType::random_members(*o, count, true, collect, &got);
      EXPECT_EQ(emitted, std::min<uint64_t>(count, n));
      EXPECT_EQ(got.size(), emitted);
      std::set<std::string> uniq(got.begin(), got.end());
      EXPECT_EQ(uniq.size(), got.size());
      for (const std::string& g : got) EXPECT_EQ(model.count(g), 1u) << g;
      got.clear();
      EXPECT_EQ(SetType::random_members(*o, count * 3, false, collect, &got), count * 3);
      for (const std::string& g : got) EXPECT_EQ(model.count(g), 1u) << g;
    }
    (void)rng;
    Object::destroy(o);
  }
}

TEST_F(SetTypeTest, ScanSmallReturnsAllAndHashtableCompletes) {
  Object* o = SetType::create("k", "x", 1);
  for (int i = 0; i < 50; i++) SetType::add(*o, "m" + std::to_string(i));
  size_t calls = 0;
  EXPECT_EQ(SetType::scan(*o, 0, 1, [](void* c, const SetElem&) { ++*static_cast<size_t*>(c); },
                          &calls),
            0u);
  EXPECT_EQ(calls, 50u);
  for (int i = 50; i < 3000; i++) SetType::add(*o, "m" + std::to_string(i));
  std::set<std::string> seen;
  uint64_t cursor = 0;
  do {
    cursor = SetType::scan(*o, cursor, 7, [](void* c, const SetElem& e) {
      static_cast<std::set<std::string>*>(c)->insert(std::string(e.str));
    }, &seen);
  } while (cursor != 0);
  EXPECT_EQ(seen.size(), 3000u);
  Object::destroy(o);
}

}  // namespace
}  // namespace keel
