// Tests for ds/hyperloglog.h: exact bytes of small HLLs as Debian's redis-server 7.0.15 writes
// them (PFADD then GET), the 6-bit register packing against a plain array, the sparse editor
// against a dense model (registers, counts, the size limit and promotion), and damaged sparse
// values (every walk stays inside the buffer: run under `make asan`).
#include "ds/hyperloglog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace keel {
namespace {

std::string unhex(const char* h) {
  std::string out;
  for (size_t i = 0; h[i] && h[i + 1]; i += 2) out += static_cast<char>(std::stoi(std::string(h + i, 2), nullptr, 16));
  return out;
}

// A sparse HLL with room for edits, adding elements the way PFADD does.
struct Sparse {
  std::vector<uint8_t> buf = std::vector<uint8_t>(70000);
  size_t len = hll::kEmptySparseSize;
  Sparse() { hll::write_empty(buf.data()); }
  hll::SetResult add(std::string_view e, size_t max_bytes = 3000) {
    uint32_t idx;
    const uint8_t c = hll::pattern(e, &idx);
    return hll::sparse_set(buf.data(), &len, idx, c, max_bytes);
  }
  std::string bytes() const { return std::string(reinterpret_cast<const char*>(buf.data()), len); }
};

TEST(HyperLogLog, EmptyIsOneXzero) {
  uint8_t b[hll::kEmptySparseSize];
  hll::write_empty(b);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(b), sizeof b), unhex("48594c4c010000000000000000000000") + "\x7f\xff");
  EXPECT_TRUE(hll::valid_header(b, sizeof b));
  EXPECT_TRUE(hll::sparse_valid(b, sizeof b));
  EXPECT_TRUE(hll::cache_valid(b));
  uint64_t card = 99;
  ASSERT_TRUE(hll::count(b, sizeof b, &card));
  EXPECT_EQ(card, 0u);
}

TEST(HyperLogLog, SameBytesAsRedis) {
  // redis-server 7.0.15: PFADD h a b c; PFCOUNT h (fills the cache: 3); GET h.
  Sparse s;
  for (const char* e : {"a", "b", "c"}) EXPECT_EQ(s.add(e), hll::SetResult::kChanged);
  EXPECT_FALSE(hll::cache_valid(s.buf.data()));
  uint64_t card;
  ASSERT_TRUE(hll::count(s.buf.data(), s.len, &card));
  EXPECT_EQ(card, 3u);
  hll::set_cached_card(s.buf.data(), card);
  EXPECT_EQ(s.bytes(), unhex("48594c4c01000000030000000000000060f38050b1844bfb80425a"));
  // PFADD h2 foo; GET h2 (cache left stale); PFDEBUG DECODE h2 -> "Z:7348 v:5,1 Z:9035".
  Sparse f;
  f.add("foo");
  EXPECT_EQ(f.bytes(), unhex("48594c4c0100000000000000000000805cb390634a"));
  EXPECT_EQ(hll::decode_sparse(f.buf.data(), f.len), "Z:7348 v:5,1 Z:9035");
}

TEST(HyperLogLog, DenseRegistersPackSixBits) {
  std::vector<uint8_t> regs(hll::kDenseSize - hll::kHeaderSize);
  std::vector<uint8_t> model(hll::kRegisters);
  std::mt19937 rng(7);
  for (int round = 0; round < 3; round++) {
    for (uint32_t i = 0; i < hll::kRegisters; i++) {
      model[i] = static_cast<uint8_t>(rng() & 63);
      hll::dense_set(regs.data(), i, model[i]);
    }
    for (uint32_t i = 0; i < hll::kRegisters; i++) ASSERT_EQ(hll::dense_get(regs.data(), i), model[i]) << i;
  }
  // Register 1 is bits 6..11: the top two bits of byte 0 and the low four of byte 1.
  std::fill(regs.begin(), regs.end(), 0);
  hll::dense_set(regs.data(), 1, 63);
  EXPECT_EQ(regs[0], 0xc0);
  EXPECT_EQ(regs[1], 0x0f);
}

// dense_unpack / dense_pack (and the dense paths of merge_max and histogram, which decode three
// bytes at a time) agree with dense_get / dense_set register by register, including the last
// register and values of 63 that fill every bit.
TEST(HyperLogLog, BulkPackMatchesPerRegister) {
  std::mt19937 rng(19);
  for (int round = 0; round < 4; round++) {
    std::vector<uint8_t> model(hll::kRegisters);
    std::vector<uint8_t> dense(hll::kDenseSize);
    memcpy(dense.data(), "HYLL", 4);
    uint8_t* regs = dense.data() + hll::kHeaderSize;
    for (uint32_t i = 0; i < hll::kRegisters; i++) {
      model[i] = round == 0 ? 63 : static_cast<uint8_t>(rng() % (round == 1 ? 64 : 8));
      hll::dense_set(regs, i, model[i]);
    }
    std::vector<uint8_t> out(hll::kRegisters, 0xff);
    hll::dense_unpack(regs, out.data());
    ASSERT_EQ(out, model) << round;
    std::vector<uint8_t> packed(hll::kDenseSize - hll::kHeaderSize, 0xaa);
    hll::dense_pack(model.data(), packed.data());
    ASSERT_EQ(0, memcmp(packed.data(), regs, packed.size())) << round;

    std::vector<uint8_t> max(hll::kRegisters), want(hll::kRegisters);
    for (uint32_t i = 0; i < hll::kRegisters; i++) {
      max[i] = static_cast<uint8_t>(rng() % 40);
      want[i] = std::max(max[i], model[i]);
    }
    ASSERT_TRUE(hll::merge_max(dense.data(), dense.size(), max.data()));
    ASSERT_EQ(max, want) << round;
    int histo[64], expect[64];
    ASSERT_TRUE(hll::histogram(dense.data(), dense.size(), histo));
    hll::raw_histogram(model.data(), expect);
    ASSERT_EQ(0, memcmp(histo, expect, sizeof histo)) << round;
  }
}

TEST(HyperLogLog, SparseMatchesDenseModel) {
  std::mt19937_64 rng(11);
  for (size_t max_bytes : {size_t{300}, size_t{3000}, size_t{60000}}) {
    Sparse s;
    std::vector<uint8_t> model(hll::kRegisters);
    bool promoted = false;
    for (int n = 0; n < 20000 && !promoted; n++) {
      const std::string e = "e" + std::to_string(rng());
      uint32_t idx;
      const uint8_t c = hll::pattern(e, &idx);
      const size_t before = s.len;
      const hll::SetResult r = hll::sparse_set(s.buf.data(), &s.len, idx, c, max_bytes);
      ASSERT_NE(r, hll::SetResult::kInvalid);
      if (r == hll::SetResult::kPromote) {
        EXPECT_EQ(s.len, before);
        EXPECT_TRUE(c > 32 || before + 4 > max_bytes);
        promoted = true;
        break;
      }
      EXPECT_LE(s.len, std::max(before, max_bytes));
      if (c > model[idx]) {
        EXPECT_EQ(r, hll::SetResult::kChanged);
        model[idx] = c;
      } else {
        EXPECT_EQ(r, hll::SetResult::kUnchanged);
      }
      if (n % 500 == 0 || n < 50) {
        ASSERT_TRUE(hll::sparse_valid(s.buf.data(), s.len));
        std::vector<uint8_t> dense(hll::kDenseSize);
        ASSERT_TRUE(hll::sparse_to_dense(s.buf.data(), s.len, dense.data()));
        for (uint32_t i = 0; i < hll::kRegisters; i++) {
          ASSERT_EQ(hll::dense_get(dense.data() + hll::kHeaderSize, i), model[i]);
        }
        uint64_t a, b;
        ASSERT_TRUE(hll::count(s.buf.data(), s.len, &a));
        ASSERT_TRUE(hll::count(dense.data(), dense.size(), &b));
        EXPECT_EQ(a, b);
        int histo[64];
        hll::raw_histogram(model.data(), histo);
        EXPECT_EQ(hll::estimate(histo), a);
      }
    }
    EXPECT_EQ(promoted, max_bytes != 60000) << max_bytes;
  }
}

TEST(HyperLogLog, EstimateIsClose) {
  std::vector<uint8_t> regs(hll::kRegisters);
  std::mt19937_64 rng(3);
  for (uint64_t n = 1; n <= 200000; n++) {
    uint32_t idx;
    const uint8_t c = hll::pattern("x" + std::to_string(rng()), &idx);
    if (c > regs[idx]) regs[idx] = c;
    if (n == 10 || n == 1000 || n == 100000 || n == 200000) {
      int histo[64];
      hll::raw_histogram(regs.data(), histo);
      const double e = static_cast<double>(hll::estimate(histo));
      EXPECT_NEAR(e / static_cast<double>(n), 1.0, 0.03) << n;
    }
  }
}

TEST(HyperLogLog, DamagedSparseIsRefused) {
  const std::string hdr = unhex("48594c4c010000000000000000000080");
  auto check = [&](const std::string& body, bool valid) {
    std::string v = hdr + body;
    std::vector<uint8_t> copy(v.begin(), v.end());  // exact size: ASan sees any overread
    EXPECT_EQ(hll::sparse_valid(copy.data(), copy.size()), valid);
    int histo[64];
    EXPECT_EQ(hll::histogram(copy.data(), copy.size(), histo), valid);
    std::vector<uint8_t> max(hll::kRegisters);
    EXPECT_EQ(hll::merge_max(copy.data(), copy.size(), max.data()), valid);
    std::vector<uint8_t> dense(hll::kDenseSize);
    EXPECT_EQ(hll::sparse_to_dense(copy.data(), copy.size(), dense.data()), valid);
    hll::decode_sparse(copy.data(), copy.size());
  };
  check("\x7f\xff", true);
  check("\x7f\xfe", false);              // one register short
  check(std::string("\x7f\xff\x00", 3), false);  // one too many
  check("\x7f", false);                  // XZERO cut off
  check("", false);
  check(std::string(100, '\xff') + "\x7f\xff", false);
  check("\x7f\xfe\x80", true);           // 16383 zeros and a 1
  // An edit past the opcodes' end is refused without writing; one before the damage succeeds.
  std::vector<uint8_t> b(hdr.size() + 2 + hll::kSparseSetGrowth);
  memcpy(b.data(), hdr.data(), hdr.size());
  b[16] = 0x40;  // XZERO of 1 register, then nothing
  b[17] = 0x00;
  size_t len = 18;
  EXPECT_EQ(hll::sparse_set(b.data(), &len, 5, 3, 3000), hll::SetResult::kInvalid);
  EXPECT_EQ(len, 18u);
  EXPECT_EQ(hll::sparse_set(b.data(), &len, 0, 3, 3000), hll::SetResult::kChanged);
  EXPECT_EQ(hll::sparse_set(b.data(), &len, 0, 40, 3000), hll::SetResult::kPromote);
}

TEST(HyperLogLog, HeaderChecks) {
  std::string d = "HYLL" + std::string(hll::kDenseSize - 4, '\0');
  auto ok = [](const std::string& s) { return hll::valid_header(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  EXPECT_TRUE(ok(d));
  EXPECT_FALSE(ok(d.substr(0, d.size() - 1)));  // dense of the wrong size
  EXPECT_FALSE(ok("HYLL"));
  std::string bad = d;
  bad[4] = 2;
  EXPECT_FALSE(ok(bad));
  bad = d;
  bad[0] = 'h';
  EXPECT_FALSE(ok(bad));
}

}  // namespace
}  // namespace keel
