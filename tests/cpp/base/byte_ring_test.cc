// ByteRing (base/byte_ring.h), the replication backlog's storage: against a plain string that
// keeps the newest `limit` bytes, through growth, wrap-around, writes bigger than the limit and
// limit changes, reading from every offset still held.
#include <gtest/gtest.h>

#include <string>

#include "base/byte_ring.h"

namespace keel {
namespace {

std::string read_all(const ByteRing& r, int64_t off) {
  std::string_view a, b;
  r.read_from(off, &a, &b);
  return std::string(a) + std::string(b);
}

// The model: every byte ever written, and the offset of its first byte.
struct Model {
  std::string all;
  int64_t base;
  size_t limit;
  std::string held() const { return all.substr(all.size() - std::min(all.size(), limit)); }
};

void check(const ByteRing& r, const Model& m) {
  const std::string held = m.held();
  ASSERT_EQ(r.size(), held.size());
  ASSERT_EQ(r.end_offset(), m.base + static_cast<int64_t>(m.all.size()));
  ASSERT_EQ(r.first_offset(), r.end_offset() - static_cast<int64_t>(held.size()));
  ASSERT_LE(r.capacity(), r.limit());
  for (size_t i = 0; i <= held.size(); i += 1 + held.size() / 7) {
    ASSERT_EQ(read_all(r, r.first_offset() + static_cast<int64_t>(i)), held.substr(i));
  }
  ASSERT_EQ(read_all(r, r.end_offset()), "");
}

TEST(ByteRing, WrapsKeepingTheNewestBytes) {
  ByteRing r;
  r.reset(1, 10000);
  Model m{"", 1, 10000};
  uint32_t seed = 7;
  for (int i = 0; i < 3000; i++) {
    seed = seed * 1103515245 + 12345;
    const size_t n = (seed >> 16) % 97;
    std::string chunk;
    for (size_t j = 0; j < n; j++) chunk.push_back(static_cast<char>('a' + (m.all.size() + j) % 26));
    r.append(chunk.data(), chunk.size());
    m.all += chunk;
    check(r, m);
  }
  EXPECT_EQ(r.size(), 10000u);   // full: the oldest bytes were overwritten
  EXPECT_EQ(r.capacity(), 10000u);
}

TEST(ByteRing, GrowsOnlyAsNeeded) {
  ByteRing r;
  r.reset(100, 1 << 20);
  EXPECT_EQ(r.capacity(), 0u);
  r.append("hello", 5);
  EXPECT_LT(r.capacity(), 1u << 20);
  EXPECT_EQ(r.first_offset(), 100);
  EXPECT_EQ(read_all(r, 100), "hello");
  EXPECT_EQ(read_all(r, 103), "lo");
}

TEST(ByteRing, WriteBiggerThanTheLimit) {
  ByteRing r;
  r.reset(1, 16);
  Model m{"", 1, 16};
  const std::string a = "0123456789";
  r.append(a.data(), a.size());
  m.all += a;
  check(r, m);
  const std::string big = "abcdefghijklmnopqrstuvwxyz";
  r.append(big.data(), big.size());
  m.all += big;
  check(r, m);
  EXPECT_EQ(read_all(r, r.first_offset()), "klmnopqrstuvwxyz");
  r.append("!", 1);
  m.all += "!";
  check(r, m);
}

TEST(ByteRing, LimitChangesKeepTheNewestBytes) {
  ByteRing r;
  r.reset(1, 64);
  Model m{"", 1, 64};
  for (int i = 0; i < 40; i++) {
    const std::string s = std::to_string(i) + ",";
    r.append(s.data(), s.size());
    m.all += s;
  }
  check(r, m);  // wrapped
  r.set_limit(20);
  m.limit = 20;
  check(r, m);
  r.append("xyz", 3);
  m.all += "xyz";
  check(r, m);
  r.set_limit(100);  // growing keeps what is held; later writes fill the new room
  m.limit = 100;
  // The model holds the newest 100 of everything, the ring only what it still had (20 + 0):
  // compare after enough writes to fill it.
  for (int i = 0; i < 50; i++) {
    r.append("0123456789", 10);
    m.all += "0123456789";
  }
  check(r, m);
}

TEST(ByteRing, ResetForgets) {
  ByteRing r;
  r.reset(1, 32);
  r.append("abc", 3);
  r.reset(500, 32);
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.first_offset(), 500);
  EXPECT_EQ(r.end_offset(), 500);
  r.append("", 0);
  EXPECT_EQ(read_all(r, 500), "");
}

// Writes that end exactly at the end of the storage, then wrap (the append fast path).
TEST(ByteRing, ExactFillThenWrap) {
  ByteRing r;
  r.reset(1, 4096);
  Model m{"", 1, 4096};
  for (const size_t n : {size_t{0}, size_t{2048}, size_t{2048}, size_t{0}, size_t{100}, size_t{3996}, size_t{1}, size_t{4095}}) {
    const std::string chunk(n, static_cast<char>('a' + m.all.size() % 26));
    r.append(chunk.data(), chunk.size());
    m.all += chunk;
    check(r, m);
  }
  EXPECT_EQ(r.capacity(), 4096u);
}

}  // namespace
}  // namespace keel
