// The RDB primitives: CRC64 (Jones) against its check value and a bitwise reference, the length
// encodings at every boundary (exact bytes), the string forms Redis writes (int8/16/32, LZF,
// raw) and their decoding, and RdbIn over a file (buffer refills, large direct reads, the CRC
// of what was consumed).
#include <gtest/gtest.h>
#include <liblzf/lzf.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "persistence/crc64.h"
#include "persistence/rdb_format.h"
#include "persistence/rdb_io.h"

namespace keel {
namespace {

uint64_t crc_bitwise(const std::string& s) {
  uint64_t crc = 0;
  for (unsigned char c : s) {
    crc ^= c;
    for (int b = 0; b < 8; b++) crc = (crc & 1) ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ull : crc >> 1;
  }
  return crc;
}

std::string bytes_of(std::initializer_list<int> v) {
  std::string s;
  for (int x : v) s.push_back(static_cast<char>(x));
  return s;
}

TEST(Crc64, CheckValueAndIncremental) {
  const std::string check = "123456789";
  EXPECT_EQ(crc64(0, check.data(), check.size()), 0xe9c6d914c4b8d9caull);
  std::mt19937_64 rng(7);
  for (int len : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4099}) {
    std::string s(static_cast<size_t>(len), '\0');
    for (char& c : s) c = static_cast<char>(rng());
    const uint64_t whole = crc64(0, s.data(), s.size());
    EXPECT_EQ(whole, crc_bitwise(s)) << len;
    // Any split point gives the same result (the writer and reader hash in pieces), and an
    // unaligned start too.
    for (size_t cut : {size_t{0}, s.size() / 3, s.size()}) {
      uint64_t c = crc64(0, s.data(), cut);
      c = crc64(c, s.data() + cut, s.size() - cut);
      EXPECT_EQ(c, whole);
    }
  }
}

std::string encode_len(uint64_t n) {
  std::string out;
  {
    RdbOut o(&out);
    o.put_len(n);
    o.flush();
  }
  return out;
}

TEST(RdbLength, ShortestFormAndRoundTrip) {
  EXPECT_EQ(encode_len(0), bytes_of({0}));
  EXPECT_EQ(encode_len(63), bytes_of({63}));
  EXPECT_EQ(encode_len(64), bytes_of({0x40, 64}));
  EXPECT_EQ(encode_len(16383), bytes_of({0x7f, 0xff}));
  EXPECT_EQ(encode_len(16384), bytes_of({0x80, 0, 0, 0x40, 0}));
  EXPECT_EQ(encode_len(UINT32_MAX), bytes_of({0x80, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(encode_len(uint64_t{UINT32_MAX} + 1), bytes_of({0x81, 0, 0, 0, 1, 0, 0, 0, 0}));
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{63}, uint64_t{64}, uint64_t{300},
                     uint64_t{16383}, uint64_t{16384}, uint64_t{1} << 31, uint64_t{UINT32_MAX},
                     uint64_t{1} << 40, ~uint64_t{0}}) {
    const std::string e = encode_len(n);
    RdbIn in(reinterpret_cast<const uint8_t*>(e.data()), e.size());
    EXPECT_EQ(in.len(), n);
    EXPECT_EQ(in.remaining(), 0u);
  }
}

TEST(RdbLength, BadFormsAreErrors) {
  for (const std::string& e : {bytes_of({0x82}), bytes_of({0xBF}), bytes_of({0x40}),
                               bytes_of({0x80, 1, 2}), std::string()}) {
    RdbIn in(reinterpret_cast<const uint8_t*>(e.data()), e.size());
    EXPECT_THROW(in.len(), RdbError);
  }
}

std::string encode_string(std::string_view s, bool compress) {
  std::string out;
  {
    RdbOut o(&out);
    o.put_string(s, compress);
    o.flush();
  }
  return out;
}

std::string decode_string(const std::string& e, size_t* left = nullptr) {
  RdbIn in(reinterpret_cast<const uint8_t*>(e.data()), e.size());
  std::string s;
  in.string(s);
  if (left) *left = in.remaining();
  return s;
}

TEST(RdbString, IntForms) {
  EXPECT_EQ(encode_string("0", true), bytes_of({0xC0, 0}));
  EXPECT_EQ(encode_string("-128", true), bytes_of({0xC0, 0x80}));
  EXPECT_EQ(encode_string("127", true), bytes_of({0xC0, 0x7f}));
  EXPECT_EQ(encode_string("128", true), bytes_of({0xC1, 0x80, 0}));
  EXPECT_EQ(encode_string("-32768", true), bytes_of({0xC1, 0, 0x80}));
  EXPECT_EQ(encode_string("32768", true), bytes_of({0xC2, 0, 0x80, 0, 0}));
  EXPECT_EQ(encode_string("2147483647", true), bytes_of({0xC2, 0xff, 0xff, 0xff, 0x7f}));
  EXPECT_EQ(encode_string("-2147483648", true), bytes_of({0xC2, 0, 0, 0, 0x80}));
  // Not canonical or out of int32: written as text.
  for (const char* s : {"2147483648", "007", "-0", "+1", " 1", "1.0", ""}) {
    const std::string e = encode_string(s, true);
    EXPECT_EQ(static_cast<uint8_t>(e[0]), std::string_view(s).size()) << s;
    EXPECT_EQ(decode_string(e), s);
  }
  for (const char* s : {"0", "-128", "127", "128", "-32768", "32768", "2147483647", "-2147483648"}) {
    EXPECT_EQ(decode_string(encode_string(s, true)), s);
  }
  std::string out;
  {
    RdbOut o(&out);
    o.put_int_string(INT64_MIN);
    o.flush();
  }
  EXPECT_EQ(decode_string(out), "-9223372036854775808");
}

TEST(RdbString, LzfAboveTwentyBytesWhenItSaves) {
  const std::string rep(100, 'a');
  const std::string e = encode_string(rep, true);
  EXPECT_EQ(static_cast<uint8_t>(e[0]), 0xC3);
  EXPECT_LT(e.size(), rep.size());
  EXPECT_EQ(decode_string(e), rep);
  EXPECT_EQ(encode_string(rep, false).substr(0, 2), bytes_of({0x40, 100}));  // rdbcompression no
  EXPECT_EQ(static_cast<uint8_t>(encode_string(std::string(20, 'a'), true)[0]), 20);
  std::mt19937 rng(3);
  std::string noise(200, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  const std::string en = encode_string(noise, true);
  EXPECT_EQ(static_cast<uint8_t>(en[0]), 0x40);  // 14-bit raw length: LZF did not pay
  EXPECT_EQ(decode_string(en), noise);
}

TEST(RdbString, CorruptLzfIsAnError) {
  const std::string rep(1000, 'x');
  std::string e = encode_string(rep, true);
  ASSERT_EQ(static_cast<uint8_t>(e[0]), 0xC3);
  // A claimed original size the data cannot produce, an absurd one, a truncated body, and a
  // back reference before the start.
  std::string wrong = e;
  wrong[3] = static_cast<char>(wrong[3] + 1);
  EXPECT_THROW(decode_string(wrong), RdbError);
  std::string huge = bytes_of({0xC3, 2, 0x81, 0, 0, 1, 0, 0, 0, 0, 0, 0, 'a'});
  EXPECT_THROW(decode_string(huge), RdbError);
  EXPECT_THROW(decode_string(e.substr(0, e.size() - 1)), RdbError);
  std::string backref = bytes_of({0xC3, 2, 10, 0xE0, 0x10});
  EXPECT_THROW(decode_string(backref), RdbError);
  EXPECT_THROW(decode_string(bytes_of({0xC4})), RdbError);  // no such string encoding
  EXPECT_THROW(decode_string(bytes_of({5, 'a', 'b'})), RdbError);
}

TEST(RdbOut, ChecksumCoversEverythingAndCanBeOff) {
  std::string out;
  RdbOut o(&out);
  std::string big(300000, 'q');  // larger than the buffer: written around it
  o.put("REDIS", 5);
  o.put_string(big, false);
  o.put_byte(0xFF);
  const uint64_t c = o.crc();
  o.flush();
  EXPECT_EQ(c, crc64(0, out.data(), out.size()));
  std::string out2;
  RdbOut o2(&out2);
  o2.set_checksum(false);
  o2.put("abc", 3);
  EXPECT_EQ(o2.crc(), 0u);
}

TEST(RdbIn, FileReadsAcrossRefillsWithCrc) {
  char path[] = "/tmp/keel-rdbin-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string data;
  std::mt19937 rng(11);
  std::vector<std::string> parts;
  for (int i = 0; i < 400; i++) {
    // Mostly small strings, some around the 1 MB buffer and the direct-read threshold.
    size_t n = (i % 50 == 7) ? 900000 + static_cast<size_t>(i) : rng() % 3000;
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>('a' + rng() % 26);
    parts.push_back(s);
  }
  {
    RdbOut o(&data);
    for (const auto& s : parts) o.put_string(s, true);
    o.flush();
  }
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  RdbIn in(fd, data.size());
  std::string s;
  for (size_t i = 0; i < parts.size(); i++) {
    in.string(s);
    ASSERT_EQ(s, parts[i]) << i;
    if (i % 37 == 0) {
      EXPECT_EQ(in.crc(), crc64(0, data.data(), in.offset())) << i;
    }
  }
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(in.crc(), crc64(0, data.data(), data.size()));
  EXPECT_THROW(in.byte(), RdbError);
  close(fd);
  unlink(path);
}

}  // namespace
}  // namespace keel
