// Tests for ds/ziplist.h: hand-built ziplists with every string and integer encoding and both
// prevlen sizes decode to the right values and convert to listpacks; the validator rejects
// truncations and each kind of corruption, and never reads past the blob (exact-size copies).
#include "ds/ziplist.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace keel {
namespace {

using Bytes = std::vector<uint8_t>;

void put_le(Bytes& b, uint64_t v, int n) {
  for (int i = 0; i < n; i++) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Encoding + data of a string entry (no prevlen).
Bytes str_enc(const std::string& s) {
  Bytes b;
  const size_t n = s.size();
  if (n <= 63) {
    b.push_back(static_cast<uint8_t>(n));
  } else if (n <= 16383) {
    b.push_back(static_cast<uint8_t>(0x40 | (n >> 8)));
    b.push_back(static_cast<uint8_t>(n & 0xFF));
  } else {
    b.push_back(0x80);
    for (int i = 3; i >= 0; i--) b.push_back(static_cast<uint8_t>(n >> (8 * i)));
  }
  b.insert(b.end(), s.begin(), s.end());
  return b;
}

// Encoding + data of an integer entry with an explicit encoding byte.
Bytes int_enc(uint8_t enc, int64_t v) {
  Bytes b{enc};
  const int w = enc == 0xC0 ? 2 : enc == 0xD0 ? 4 : enc == 0xE0 ? 8 : enc == 0xF0 ? 3 : enc == 0xFE ? 1 : 0;
  put_le(b, static_cast<uint64_t>(v), w);
  return b;
}

// A whole ziplist from encoded entries; prevlens and zltail computed, zllen = count (or the
// real number).
Bytes make_zl(const std::vector<Bytes>& encs, int count = -1) {
  Bytes body;
  size_t prev = 0, tail = kZiplistHeaderSize;
  for (const Bytes& e : encs) {
    tail = kZiplistHeaderSize + body.size();
    Bytes entry;
    if (prev < 254) {
      entry.push_back(static_cast<uint8_t>(prev));
    } else {
      entry.push_back(0xFE);
      put_le(entry, prev, 4);
    }
    entry.insert(entry.end(), e.begin(), e.end());
    body.insert(body.end(), entry.begin(), entry.end());
    prev = entry.size();
  }
  Bytes out;
  put_le(out, kZiplistHeaderSize + body.size() + 1, 4);
  put_le(out, tail, 4);
  put_le(out, count < 0 ? encs.size() : static_cast<size_t>(count), 2);
  out.insert(out.end(), body.begin(), body.end());
  out.push_back(0xFF);
  return out;
}

std::unique_ptr<uint8_t[]> exact_copy(const Bytes& b, size_t len) {
  std::unique_ptr<uint8_t[]> p(new uint8_t[len ? len : 1]);
  if (len) std::memcpy(p.get(), b.data(), len);
  return p;
}

bool valid(const Bytes& b, bool deep = true) {
  auto c = exact_copy(b, b.size());
  return ziplist_validate(c.get(), b.size(), deep);
}

std::vector<std::string> values_of(const Bytes& zl) {
  std::vector<std::string> out;
  LpEntry e;
  char buf[kLpIntBufSize];
  for (ZiplistReader r(zl.data()); r.next(&e);) out.emplace_back(e.str(buf));
  return out;
}

TEST(ZiplistTest, EveryEncodingDecodes) {
  const std::string s63(63, 'a'), s64(64, 'b'), s16383(16383, 'c'), s16384(16384, 'd');
  const Bytes zl = make_zl({
      str_enc(""), str_enc("abc"), str_enc(s63), str_enc(s64), str_enc(s16383), str_enc(s16384),
      int_enc(0xF1, 0), int_enc(0xFD, 0),  // immediates 0 and 12
      int_enc(0xFE, -128), int_enc(0xFE, 127), int_enc(0xC0, -32768), int_enc(0xC0, 300),
      int_enc(0xF0, -8388608), int_enc(0xF0, 8388607), int_enc(0xD0, INT32_MIN),
      int_enc(0xD0, 70000), int_enc(0xE0, INT64_MIN), int_enc(0xE0, INT64_MAX),
      str_enc("12"),  // a numeric string stays a string in the ziplist
  });
  ASSERT_TRUE(valid(zl, false));
  ASSERT_TRUE(valid(zl));
  const std::vector<std::string> want = {
      "", "abc", s63, s64, s16383, s16384, "0", "12", "-128", "127", "-32768", "300", "-8388608",
      "8388607", "-2147483648", "70000", "-9223372036854775808", "9223372036854775807", "12"};
  EXPECT_EQ(values_of(zl), want);

  Listpack lp;
  lp.append("head");
  ASSERT_TRUE(ziplist_append_to_listpack(zl.data(), lp));
  EXPECT_TRUE(listpack_validate(lp.data(), lp.bytes(), true));
  ASSERT_EQ(lp.size(), want.size() + 1);
  std::vector<std::string> got;
  char buf[kLpIntBufSize];
  for (LpPos p = lp.seek(1); p != kLpNone; p = lp.next(p)) got.emplace_back(lp.get(p).str(buf));
  EXPECT_EQ(got, want);
  // The numeric string became a listpack integer, as Redis's conversion stores it.
  EXPECT_TRUE(lp.get(lp.last()).is_int);
}

TEST(ZiplistTest, FivePrevlenAndEmpty) {
  const Bytes zl = make_zl({str_enc(std::string(300, 'p')), int_enc(0xF6, 0), str_enc("x")});
  ASSERT_TRUE(valid(zl));
  // The second entry's prevlen is the 5-byte form: 0xFE then 303 (1 + 2 + 300).
  EXPECT_EQ(zl[kZiplistHeaderSize + 303], 0xFE);
  EXPECT_EQ(values_of(zl), (std::vector<std::string>{std::string(300, 'p'), "5", "x"}));
  const Bytes empty = make_zl({});
  EXPECT_EQ(empty.size(), kZiplistEmptyBytes);
  EXPECT_TRUE(valid(empty));
  EXPECT_TRUE(values_of(empty).empty());
  Listpack lp;
  EXPECT_TRUE(ziplist_append_to_listpack(empty.data(), lp));
  EXPECT_TRUE(lp.empty());
}

TEST(ZiplistTest, ValidatorRejectsCorruption) {
  const Bytes good = make_zl({str_enc("field"), int_enc(0xC0, 1000), str_enc(std::string(260, 'v')), int_enc(0xF2, 1)});
  ASSERT_TRUE(valid(good));
  EXPECT_FALSE(ziplist_validate(nullptr, 0, true));
  for (size_t len = 0; len < good.size(); len++) {
    auto cut = exact_copy(good, len);
    EXPECT_FALSE(ziplist_validate(cut.get(), len, true)) << len;
    if (len >= kZiplistEmptyBytes) {  // header and terminator fixed up: the walk must fail
      Bytes fixed(good.begin(), good.begin() + static_cast<long>(len));
      fixed[0] = static_cast<uint8_t>(len);
      fixed[1] = static_cast<uint8_t>(len >> 8);
      fixed.back() = 0xFF;
      EXPECT_FALSE(valid(fixed)) << len;
    }
  }
  Bytes b = good;
  b[0]++;  // zlbytes
  EXPECT_FALSE(valid(b, false));
  b = good;
  b.back() = 0xFE;  // no terminator
  EXPECT_FALSE(valid(b, false));
  b = good;
  b[4] = static_cast<uint8_t>(b.size());  // zltail past the terminator
  b[5] = static_cast<uint8_t>(b.size() >> 8);
  EXPECT_FALSE(valid(b, false));
  b = good;
  b[4] = kZiplistHeaderSize;  // zltail at the first entry, not the last
  b[5] = 0;
  EXPECT_TRUE(valid(b, false));
  EXPECT_FALSE(valid(b));
  b = good;
  b[8] = 3;  // count 3, there are 4
  EXPECT_FALSE(valid(b));
  b[8] = 0xFF;
  b[9] = 0xFF;  // unknown count is accepted
  EXPECT_TRUE(valid(b));
  b = good;
  b[kZiplistHeaderSize] = 1;  // the first entry's prevlen must be 0
  EXPECT_FALSE(valid(b));
  b = good;
  b[kZiplistHeaderSize + 7] = 5;  // the second entry's prevlen (the first is 7 bytes)
  EXPECT_FALSE(valid(b));
  for (uint8_t bad : {0xC1, 0xCF, 0xD5, 0xE1, 0xEF, 0xFF}) {
    b = good;
    b[kZiplistHeaderSize + 7 + 1] = bad;  // the second entry's encoding byte
    EXPECT_FALSE(valid(b)) << int{bad};
  }
  b = good;
  b[kZiplistHeaderSize + 1] = 0x3F;  // string of 63 bytes: runs into the next entries
  EXPECT_FALSE(valid(b));
  // A 32-bit string length far past the end.
  b = make_zl({str_enc(std::string(16384, 'L'))});
  ASSERT_TRUE(valid(b));
  b[kZiplistHeaderSize + 2] = 0x7F;
  EXPECT_FALSE(valid(b));
  // A 5-byte prevlen cut by the terminator.
  b = make_zl({});
  b.insert(b.begin() + kZiplistHeaderSize, {0xFE, 0x00});
  b[0] = static_cast<uint8_t>(b.size());
  EXPECT_FALSE(valid(b));
}

TEST(ZiplistTest, RandomCorruptionNeverCrashes) {
  std::mt19937_64 rng(static_cast<uint64_t>(testing::UnitTest::GetInstance()->random_seed()));
  const Bytes good = make_zl({str_enc("a"), int_enc(0xE0, -5), str_enc(std::string(300, 'q')), int_enc(0xFE, 9)});
  int accepted = 0;
  for (int i = 0; i < 20000; i++) {
    Bytes b = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; f++) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    if (rng() % 2) {  // keep the shallow checks passing so the walk decides
      b[0] = static_cast<uint8_t>(b.size());
      b[1] = static_cast<uint8_t>(b.size() >> 8);
      b[2] = b[3] = 0;
      b.back() = 0xFF;
    }
    auto c = exact_copy(b, b.size());
    if (!ziplist_validate(c.get(), b.size(), true)) continue;
    accepted++;  // e.g. a flip inside the 300-byte string
    Listpack lp;
    ASSERT_TRUE(ziplist_append_to_listpack(c.get(), lp));
    EXPECT_TRUE(listpack_validate(lp.data(), lp.bytes(), true));
  }
  EXPECT_GT(accepted, 1000);
}

}  // namespace
}  // namespace keel
