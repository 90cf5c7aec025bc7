// Tests for ds/listpack.h: hand-built expected bytes for every encoding and backlen size, a
// randomised model test against std::vector<std::string>, hash/zset stride search, the 65535
// "unknown count" rule, and the validator against corrupted and truncated blobs (fuzz).
#include "ds/listpack.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace keel {
namespace {

using Bytes = std::vector<uint8_t>;

uint32_t test_seed() {
  const uint32_t seed = static_cast<uint32_t>(testing::UnitTest::GetInstance()->random_seed());
  std::printf("[ seed ] %u (rerun with --gtest_random_seed=%u)\n", seed, seed);
  return seed;
}

Bytes bytes_of(const Listpack& lp) { return Bytes(lp.data(), lp.data() + lp.bytes()); }

// A whole listpack holding the given entries (each already encoded with its backlen).
Bytes make_lp(const std::vector<Bytes>& entries, uint16_t count) {
  Bytes out(6, 0);
  for (const Bytes& e : entries) out.insert(out.end(), e.begin(), e.end());
  out.push_back(0xFF);
  const uint32_t n = static_cast<uint32_t>(out.size());
  out[0] = n & 0xFF;
  out[1] = (n >> 8) & 0xFF;
  out[2] = (n >> 16) & 0xFF;
  out[3] = n >> 24;
  out[4] = count & 0xFF;
  out[5] = count >> 8;
  return out;
}

Bytes cat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
Bytes rep(size_t n, uint8_t c) { return Bytes(n, c); }

std::vector<std::string> contents(const Listpack& lp) {
  std::vector<std::string> out;
  char buf[kLpIntBufSize];
  for (LpPos p = lp.first(); p != kLpNone; p = lp.next(p)) out.emplace_back(lp.get(p).str(buf));
  return out;
}
std::vector<std::string> contents_backward(const Listpack& lp) {
  std::vector<std::string> out;
  char buf[kLpIntBufSize];
  for (LpPos p = lp.last(); p != kLpNone; p = lp.prev(p)) out.emplace_back(lp.get(p).str(buf));
  return std::vector<std::string>(out.rbegin(), out.rend());
}

// Checks that storing `value` alone gives exactly `entry` (encoding + data + backlen).
void expect_single(const std::string& value, const Bytes& entry) {
  SCOPED_TRACE("value of length " + std::to_string(value.size()) + ": " + value.substr(0, 24));
  Listpack lp;
  lp.append(value);
  EXPECT_EQ(bytes_of(lp), make_lp({entry}, 1));
  EXPECT_EQ(lp_entry_size_for(value), entry.size());
  EXPECT_EQ(lp.entry_bytes(lp.first()), entry.size());
  EXPECT_TRUE(listpack_validate(lp.data(), lp.bytes(), true));
  EXPECT_EQ(lp.last(), lp.first());  // the backlen leads back to the entry
  char buf[kLpIntBufSize];
  EXPECT_EQ(lp.get(lp.first()).str(buf), value);
  Listpack lp2;
  lp2.prepend(value);
  EXPECT_EQ(bytes_of(lp2), bytes_of(lp));
}

void expect_int(int64_t v, const Bytes& entry) {
  expect_single(std::to_string(v), entry);
  Listpack lp;
  lp.append_int(v);
  EXPECT_EQ(bytes_of(lp), make_lp({entry}, 1)) << v;
  EXPECT_EQ(lp_entry_size_for_int(v), entry.size());
  const LpEntry e = lp.get(lp.first());
  EXPECT_TRUE(e.is_int);
  EXPECT_EQ(e.ival, v);
}

TEST(ListpackTest, EmptyIsSevenBytes) {
  Listpack lp;
  EXPECT_EQ(bytes_of(lp), (Bytes{0x07, 0, 0, 0, 0, 0, 0xFF}));
  EXPECT_EQ(lp.size(), 0u);
  EXPECT_TRUE(lp.empty());
  EXPECT_EQ(lp.first(), kLpNone);
  EXPECT_EQ(lp.last(), kLpNone);
  EXPECT_EQ(lp.seek(0), kLpNone);
  EXPECT_EQ(lp.seek(-1), kLpNone);
  EXPECT_TRUE(listpack_validate(lp.data(), lp.bytes(), true));
}

TEST(ListpackTest, IntegerEncodingsByteExact) {
  // 7-bit unsigned.
  expect_int(0, {0x00, 0x01});
  expect_int(1, {0x01, 0x01});
  expect_int(127, {0x7F, 0x01});
  // 13-bit: 110xxxxx, high 5 bits first, two's complement.
  expect_int(128, {0xC0, 0x80, 0x02});
  expect_int(-1, {0xDF, 0xFF, 0x02});
  expect_int(-128, {0xDF, 0x80, 0x02});
  expect_int(4095, {0xCF, 0xFF, 0x02});
  expect_int(-4096, {0xD0, 0x00, 0x02});
  // 16-bit.
  expect_int(4096, {0xF1, 0x00, 0x10, 0x03});
  expect_int(-4097, {0xF1, 0xFF, 0xEF, 0x03});
  expect_int(32767, {0xF1, 0xFF, 0x7F, 0x03});
  expect_int(-32768, {0xF1, 0x00, 0x80, 0x03});
  // 24-bit.
  expect_int(32768, {0xF2, 0x00, 0x80, 0x00, 0x04});
  expect_int(-32769, {0xF2, 0xFF, 0x7F, 0xFF, 0x04});
  expect_int(8388607, {0xF2, 0xFF, 0xFF, 0x7F, 0x04});
  expect_int(-8388608, {0xF2, 0x00, 0x00, 0x80, 0x04});
  // 32-bit.
  expect_int(8388608, {0xF3, 0x00, 0x00, 0x80, 0x00, 0x05});
  expect_int(-8388609, {0xF3, 0xFF, 0xFF, 0x7F, 0xFF, 0x05});
  expect_int(INT32_MAX, {0xF3, 0xFF, 0xFF, 0xFF, 0x7F, 0x05});
  expect_int(INT32_MIN, {0xF3, 0x00, 0x00, 0x00, 0x80, 0x05});
  // 64-bit.
  expect_int(int64_t{INT32_MAX} + 1, {0xF4, 0x00, 0x00, 0x00, 0x80, 0, 0, 0, 0, 0x09});
  expect_int(int64_t{INT32_MIN} - 1, {0xF4, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0x09});
  expect_int(INT64_MAX, {0xF4, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x09});
  expect_int(INT64_MIN, {0xF4, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x09});
}

TEST(ListpackTest, NonCanonicalNumbersAreStrings) {
  expect_single("01", {0x82, '0', '1', 0x03});
  expect_single("+1", {0x82, '+', '1', 0x03});
  expect_single("-0", {0x82, '-', '0', 0x03});
  expect_single(" 1", {0x82, ' ', '1', 0x03});
  expect_single("1.5", {0x83, '1', '.', '5', 0x04});
  const std::string big = "9223372036854775808";  // INT64_MAX + 1
  expect_single(big, cat(cat({0x80 | 19}, Bytes(big.begin(), big.end())), {20}));
}

TEST(ListpackTest, StringEncodingsByteExact) {
  expect_single("", {0x80, 0x01});
  expect_single("a", {0x81, 'a', 0x02});
  // 63: 6-bit length, E = 64.
  expect_single(std::string(63, 'a'), cat(cat({0xBF}, rep(63, 'a')), {0x40}));
  // 64: 12-bit length 0x040, high nibble first; E = 66.
  expect_single(std::string(64, 'a'), cat(cat({0xE0, 0x40}, rep(64, 'a')), {0x42}));
  // 4095: 12-bit 0xFFF; E = 4097 = 32 * 128 + 1 -> backlen {0x20, 0x81}.
  expect_single(std::string(4095, 'b'), cat(cat({0xEF, 0xFF}, rep(4095, 'b')), {0x20, 0x81}));
  // 4096: 32-bit length LE; E = 4101 = 32 * 128 + 5 -> {0x20, 0x85}.
  expect_single(std::string(4096, 'c'),
                cat(cat({0xF0, 0x00, 0x10, 0x00, 0x00}, rep(4096, 'c')), {0x20, 0x85}));
}

TEST(ListpackTest, BacklenSizesByteExact) {
  // E = 127 (12-bit string of 125): one byte.
  expect_single(std::string(125, 'x'), cat(cat({0xE0, 125}, rep(125, 'x')), {0x7F}));
  // E = 128: two bytes, high group first with bit 7 clear.
  expect_single(std::string(126, 'x'), cat(cat({0xE0, 126}, rep(126, 'x')), {0x01, 0x80}));
  // E = 16382 (32-bit string of 16377): the largest two-byte backlen.
  expect_single(std::string(16377, 'y'),
                cat(cat({0xF0, 0xF9, 0x3F, 0, 0}, rep(16377, 'y')), {0x7F, 0xFE}));
  // E = 16383: Redis's "< 16383" rule gives three bytes here.
  expect_single(std::string(16378, 'y'),
                cat(cat({0xF0, 0xFA, 0x3F, 0, 0}, rep(16378, 'y')), {0x00, 0xFF, 0xFF}));
  // E = 16384: three bytes.
  expect_single(std::string(16379, 'y'),
                cat(cat({0xF0, 0xFB, 0x3F, 0, 0}, rep(16379, 'y')), {0x01, 0x80, 0x80}));
}

TEST(ListpackTest, MixedListAndBackwardWalk) {
  Listpack lp;
  lp.append("hello");
  lp.append("12");
  lp.prepend("-5");
  lp.append(std::string(200, 'z'));
  const Bytes expect = make_lp({{0xDF, 0xFB, 0x02},
                                {0x85, 'h', 'e', 'l', 'l', 'o', 0x06},
                                {0x0C, 0x01},
                                cat(cat({0xE0, 200}, rep(200, 'z')), {0x01, 0xCA})},
                               4);
  EXPECT_EQ(bytes_of(lp), expect);
  const std::vector<std::string> want = {"-5", "hello", "12", std::string(200, 'z')};
  EXPECT_EQ(contents(lp), want);
  EXPECT_EQ(contents_backward(lp), want);
  char buf[kLpIntBufSize];
  EXPECT_EQ(lp.get(lp.seek(-1)).str(buf), want[3]);
  EXPECT_EQ(lp.get(lp.seek(-4)).str(buf), "-5");
  EXPECT_EQ(lp.seek(4), kLpNone);
  EXPECT_EQ(lp.seek(-5), kLpNone);
  EXPECT_TRUE(lp.get(lp.seek(2)).equals("12"));
  EXPECT_FALSE(lp.get(lp.seek(2)).equals("012"));
  EXPECT_TRUE(lp.get(lp.seek(1)).equals("hello"));
}

TEST(ListpackTest, FindWithSkip) {
  Listpack lp;  // hash-like: a->b, b->c, 7->b, c->7
  const std::vector<std::string_view> kv = {"a", "b", "b", "c", "7", "b", "c", "7"};
  lp.append_all(kv);
  EXPECT_EQ(contents(lp), std::vector<std::string>(kv.begin(), kv.end()));
  char buf[kLpIntBufSize];
  LpPos p = lp.find("b", lp.first(), 1);
  ASSERT_NE(p, kLpNone);
  EXPECT_EQ(p, lp.seek(2));  // field "b", not the value at index 1
  EXPECT_EQ(lp.get(lp.next(p)).str(buf), "c");
  EXPECT_EQ(lp.find("7", lp.first(), 1), lp.seek(4));  // integer field
  EXPECT_EQ(lp.find("07", lp.first(), 1), kLpNone);
  EXPECT_EQ(lp.find("c", lp.first(), 1), lp.seek(6));
  EXPECT_EQ(lp.find("b", lp.first(), 0), lp.seek(1));
  EXPECT_EQ(lp.find("7", lp.seek(1), 1), lp.seek(7));  // values from index 1
  EXPECT_EQ(lp.find("zz", lp.first(), 0), kLpNone);
}

TEST(ListpackTest, ReplaceInsertEraseAndAliasing) {
  Listpack lp;
  lp.append("one");
  lp.append("two");
  lp.append("three");
  LpPos p = lp.seek(1);
  lp.replace(p, std::string(300, 'q'));
  lp.replace(lp.seek(0), "99999999999");
  EXPECT_EQ(contents(lp),
            (std::vector<std::string>{"99999999999", std::string(300, 'q'), "three"}));
  // A value that is a view into the listpack itself.
  const std::string_view self = lp.get(lp.seek(2)).sval;
  lp.replace(lp.seek(0), self);
  lp.insert(lp.seek(1), lp.get(lp.seek(2)).sval, LpWhere::kAfter);
  lp.append(lp.get(lp.seek(1)).sval);
  EXPECT_EQ(contents(lp), (std::vector<std::string>{"three", std::string(300, 'q'), "three",
                                                    "three", std::string(300, 'q')}));
  EXPECT_EQ(lp.erase(lp.seek(4)), kLpNone);
  EXPECT_EQ(lp.erase(lp.seek(0)), lp.seek(0));
  EXPECT_EQ(lp.erase_range(-2, 10), 2u);
  EXPECT_EQ(contents(lp), (std::vector<std::string>{std::string(300, 'q')}));
  EXPECT_EQ(lp.size(), 1u);
  Listpack other;
  other.append("x");
  other.append_int(-7);
  lp.append_listpack(other);
  EXPECT_EQ(contents(lp), (std::vector<std::string>{std::string(300, 'q'), "x", "-7"}));
  EXPECT_EQ(lp.size(), 3u);
  EXPECT_TRUE(listpack_validate(lp.data(), lp.bytes(), true));
}

TEST(ListpackTest, UnknownCountRule) {
  std::vector<std::string_view> many(65536, "1");
  Listpack lp;
  lp.append_all(many);
  EXPECT_EQ(lp.data()[4], 0xFF);
  EXPECT_EQ(lp.data()[5], 0xFF);
  EXPECT_EQ(lp.size(), 65536u);
  EXPECT_TRUE(listpack_validate(lp.data(), lp.bytes(), true));
  lp.erase(lp.first());
  EXPECT_EQ(lp.size(), 65535u);  // still "unknown": 65535 cannot be stored as a count
  EXPECT_EQ(lp.data()[4], 0xFF);
  lp.erase(lp.first());
  EXPECT_EQ(lp.data()[4], 0xFF);  // stays unknown until a walk...
  EXPECT_EQ(lp.size(), 65534u);   // ...which stores the real count
  EXPECT_EQ(lp.data()[4], 0xFE);
  EXPECT_EQ(lp.data()[5], 0xFF);
  lp.append("2");
  EXPECT_EQ(lp.data()[4], 0xFF);  // 65535 again: unknown
  EXPECT_EQ(lp.size(), 65535u);
}

// Random values: small and large integers, non-canonical numbers, strings of many sizes.
std::string random_value(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return std::to_string(static_cast<int64_t>(rng() % 300) - 150);
    case 1:
      return std::to_string(static_cast<int64_t>(rng()) >> (rng() % 64));
    case 2:
      return "0" + std::to_string(rng() % 100);
    case 3:
      return std::string(rng() % 70, static_cast<char>('a' + rng() % 26));
    case 4:
      return std::string(60 + rng() % 200, 'm');
    case 5:
      return rng() % 20 == 0 ? std::string(4090 + rng() % 20, 'L')
                             : "s" + std::to_string(rng() % 50);
    case 6:
      return "";
    default:
      return std::to_string(rng() % 20);
  }
}

TEST(ListpackTest, RandomOpsMatchModel) {
  std::mt19937_64 rng(test_seed());
  for (int round = 0; round < 6; round++) {
    Listpack lp;
    std::vector<std::string> model;
    for (int op = 0; op < 600; op++) {
      const std::string v = random_value(rng);
      const size_t n = model.size();
      const size_t before = lp.bytes();
      switch (rng() % 9) {
        case 0:
          lp.append(v);
          model.push_back(v);
          EXPECT_EQ(lp.bytes(), before + lp_entry_size_for(v));
          break;
        case 1:
          lp.prepend(v);
          model.insert(model.begin(), v);
          break;
        case 2:
        case 3: {
          if (n == 0) break;
          const size_t i = rng() % n;
          const bool after = rng() % 2;
          const LpPos np = lp.insert(lp.seek(static_cast<long>(i)), v,
                                     after ? LpWhere::kAfter : LpWhere::kBefore);
          model.insert(model.begin() + static_cast<long>(i + after), v);
          EXPECT_EQ(np, lp.seek(static_cast<long>(i + after)));
          break;
        }
        case 4: {
          if (n == 0) break;
          const size_t i = rng() % n;
          lp.replace(lp.seek(static_cast<long>(i) - static_cast<long>(n)), v);
          model[i] = v;
          break;
        }
        case 5:
        case 6: {
          if (n == 0) break;
          const size_t i = rng() % n;
          const LpPos next = lp.erase(lp.seek(static_cast<long>(i)));
          model.erase(model.begin() + static_cast<long>(i));
          EXPECT_EQ(next, i < model.size() ? lp.seek(static_cast<long>(i)) : kLpNone);
          break;
        }
        case 7: {
          if (n == 0) break;
          const size_t i = rng() % n;
          const size_t cnt = rng() % 4;
          const size_t got = lp.erase_range(static_cast<long>(i), cnt);
          const size_t want = std::min(cnt, n - i);
          EXPECT_EQ(got, want);
          model.erase(model.begin() + static_cast<long>(i),
                      model.begin() + static_cast<long>(i + want));
          break;
        }
        default: {
          if (n == 0) break;
          const std::string& target = model[rng() % n];
          size_t idx = 0;
          while (model[idx] != target) idx++;
          EXPECT_EQ(lp.find(target, lp.first()), lp.seek(static_cast<long>(idx)));
          break;
        }
      }
      ASSERT_EQ(lp.size(), model.size());
      ASSERT_TRUE(listpack_validate(lp.data(), lp.bytes(), true));
      if (op % 10 == 0 || model.size() < 8) {
        ASSERT_EQ(contents(lp), model);
        ASSERT_EQ(contents_backward(lp), model);
      }
    }
    ASSERT_EQ(contents(lp), model);
    // Byte-exactness against a fresh build of the same elements.
    Listpack fresh;
    for (const std::string& s : model) fresh.append(s);
    EXPECT_EQ(bytes_of(fresh), bytes_of(lp));
    Listpack clone = lp.clone();
    EXPECT_EQ(bytes_of(clone), bytes_of(lp));
  }
}

// Exact-size heap copy, so ASan catches any read past `len`.
std::unique_ptr<uint8_t[]> exact_copy(const uint8_t* p, size_t len) {
  auto out = std::make_unique<uint8_t[]>(len == 0 ? 1 : len);
  if (len) std::memcpy(out.get(), p, len);
  return out;
}

Bytes sample_listpack(bool with_big = true) {
  Listpack lp;
  std::vector<std::string> vals = {"",
                                   "a",
                                   "0",
                                   "127",
                                   "128",
                                   "-4096",
                                   "70000",
                                   "-9000000",
                                   "3000000000",
                                   std::string(70, 'k'),
                                   std::string(130, 'w'),
                                   "x"};
  if (with_big) vals.push_back(std::string(4200, 'h'));
  for (const std::string& v : vals) lp.append(v);
  return bytes_of(lp);
}

void set_u32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

TEST(ListpackTest, ValidatorRejectsCorruption) {
  const Bytes good = sample_listpack();
  EXPECT_TRUE(listpack_validate(good.data(), good.size(), true));
  EXPECT_FALSE(listpack_validate(nullptr, 0, true));

  // Every truncation (header fixed up or not) is rejected.
  for (size_t len = 0; len < good.size(); len++) {
    auto cut = exact_copy(good.data(), len);
    EXPECT_FALSE(listpack_validate(cut.get(), len, true)) << len;
    if (len >= 7) {
      Bytes fixed(good.begin(), good.begin() + static_cast<long>(len));
      set_u32(fixed, 0, static_cast<uint32_t>(len));
      fixed.back() = 0xFF;  // even with a terminator at the new end
      auto c = exact_copy(fixed.data(), len);
      EXPECT_FALSE(listpack_validate(c.get(), len, true)) << len;
    }
  }
  Bytes b = good;
  set_u32(b, 0, static_cast<uint32_t>(good.size() + 1));
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), false));  // bad header length
  b = good;
  b.back() = 0xFE;
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), false));  // no terminator
  b = good;
  b[4] = 12;                                                  // count 12, there are 13
  EXPECT_TRUE(listpack_validate(b.data(), b.size(), false));  // shallow does not walk
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), true));
  b[4] = 0xFF;
  b[5] = 0xFF;  // unknown count is accepted
  EXPECT_TRUE(listpack_validate(b.data(), b.size(), true));
  b = good;
  b[7] = 0x03;  // backlen of the first entry "" (bytes 6..7): 0x01 -> 0x03
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), true));
  b = good;
  b[6] = 0xF5;  // unused encoding byte
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), true));
  b = good;
  b[6] = 0xFF;  // terminator in the middle
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), true));
  b = good;
  b[6] = 0xBF;  // string of 63 bytes: runs past the end of the entry, backlen mismatch
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), true));
  // A 32-bit string length that runs far past the end.
  Listpack one;
  one.append(std::string(5000, 'p'));
  b = bytes_of(one);
  set_u32(b, 7, 0xFFFFFFF0u);
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), true));
  // A non-canonical (longer) backlen is rejected.
  b = make_lp({{0x81, 'a', 0x80, 0x02}}, 1);
  EXPECT_FALSE(listpack_validate(b.data(), b.size(), true));
}

TEST(ListpackTest, ValidatorFuzzNeverCrashes) {
  std::mt19937_64 rng(test_seed());
  const Bytes good = sample_listpack(false);  // mostly structure, so flips hit headers
  size_t accepted = 0;
  for (int iter = 0; iter < 20000; iter++) {
    Bytes b = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; f++) {
      const size_t at = rng() % b.size();
      if (rng() % 2)
        b[at] = static_cast<uint8_t>(rng());
      else
        b[at] ^= 1u << (rng() % 8);
    }
    size_t len = b.size();
    if (rng() % 4 == 0) len = rng() % (b.size() + 1);
    if (rng() % 3 == 0 && len >= 4) set_u32(b, 0, static_cast<uint32_t>(len));
    auto buf = exact_copy(b.data(), len);
    if (!listpack_validate(buf.get(), len, true)) continue;
    accepted++;
    // Whatever passed must be safe to read in both directions.
    Listpack lp = Listpack::copy_of(buf.get(), len);
    const std::vector<std::string> fwd = contents(lp);
    EXPECT_EQ(fwd, contents_backward(lp));
    EXPECT_EQ(fwd.size(), lp.size());
  }
  std::printf("[ fuzz ] %zu of 20000 mutated blobs still valid\n", accepted);
}

}  // namespace
}  // namespace keel
