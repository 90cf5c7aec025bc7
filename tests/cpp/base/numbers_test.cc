// Tests for base/numbers.h (and a sanity check of base/util_random.h, which has no test file of
// its own). Expected values marked "7.0.15" were observed on redis-server 7.0.15.
#include "base/numbers.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <charconv>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/util_random.h"

namespace keel {
namespace {

uint64_t test_seed() {
  return static_cast<uint64_t>(testing::UnitTest::GetInstance()->random_seed());
}

std::string int_text(int64_t v) {
  char buf[kInt64BufSize];
  return std::string(buf, format_int64(v, buf));
}
std::string uint_text(uint64_t v) {
  char buf[kInt64BufSize];
  return std::string(buf, format_uint64(v, buf));
}
std::string g17(double v) {
  char buf[kDoubleBufSize];
  return std::string(buf, format_double_g17(v, buf));
}
std::string shortest(double v) {
  char buf[kDoubleBufSize];
  return std::string(buf, format_double_shortest(v, buf));
}
std::string human(long double v) {
  static char buf[kLongDoubleBufSize];
  const size_t n = format_long_double_human(v, buf, sizeof(buf));
  EXPECT_GT(n, 0u);
  EXPECT_EQ(buf[n], '\0');
  return std::string(buf, n);
}

// ---------------------------------------------------------------- integers

struct IntCase {
  std::string_view in;
  bool ok;
  int64_t value;
};

TEST(NumbersTest, ParseInt64Table) {
  const IntCase cases[] = {
      {"0", true, 0},
      {"1", true, 1},
      {"-1", true, -1},
      {"10", true, 10},
      {"123456789", true, 123456789},
      {"9223372036854775807", true, INT64_MAX},
      {"-9223372036854775808", true, INT64_MIN},
      {"9223372036854775806", true, INT64_MAX - 1},
      {"-9223372036854775807", true, INT64_MIN + 1},
      // 7.0.15: SET n <v>; INCR n -> "ERR value is not an integer or out of range"
      {"9223372036854775808", false, 0},
      {"-9223372036854775809", false, 0},
      {"18446744073709551615", false, 0},
      {"18446744073709551616", false, 0},
      {"99999999999999999999", false, 0},
      {"123456789012345678901", false, 0},  // 21 bytes
      {"-0", false, 0},
      {"+1", false, 0},
      {"+0", false, 0},
      {"007", false, 0},
      {"00", false, 0},
      {"-01", false, 0},
      {" 1", false, 0},
      {"1 ", false, 0},
      {"", false, 0},
      {"-", false, 0},
      {"--1", false, 0},
      {"1a", false, 0},
      {"0x10", false, 0},
      {"1.0", false, 0},
      {"1e3", false, 0},
      {std::string_view("1\0", 2), false, 0},
      {std::string_view("\0"
                        "1",
                        2),
       false, 0},
  };
  for (const IntCase& c : cases) {
    int64_t v = 12345;
    EXPECT_EQ(parse_int64(c.in, &v), c.ok) << "input [" << c.in << "]";
    if (c.ok) {
      EXPECT_EQ(v, c.value) << c.in;
    } else {
      EXPECT_EQ(v, 12345) << "output written on failure for [" << c.in << "]";
    }
  }
}

TEST(NumbersTest, ParseUint64Table) {
  const struct {
    std::string_view in;
    bool ok;
    uint64_t value;
  } cases[] = {
      {"0", true, 0},
      {"1", true, 1},
      {"9223372036854775808", true, 9223372036854775808ULL},
      {"18446744073709551615", true, UINT64_MAX},
      {"18446744073709551616", false, 0},
      {"99999999999999999999", false, 0},
      {"118446744073709551615", false, 0},
      {"-1", false, 0},
      {"-0", false, 0},
      {"+1", false, 0},
      {"01", false, 0},
      {"", false, 0},
      {" 1", false, 0},
      {"1 ", false, 0},
  };
  for (const auto& c : cases) {
    uint64_t v = 7;
    EXPECT_EQ(parse_uint64(c.in, &v), c.ok) << "input [" << c.in << "]";
    EXPECT_EQ(v, c.ok ? c.value : 7) << c.in;
  }
}

TEST(NumbersTest, FormatIntegers) {
  EXPECT_EQ(int_text(0), "0");
  EXPECT_EQ(int_text(-1), "-1");
  EXPECT_EQ(int_text(9), "9");
  EXPECT_EQ(int_text(10), "10");
  EXPECT_EQ(int_text(-100), "-100");
  EXPECT_EQ(int_text(INT64_MAX), "9223372036854775807");
  EXPECT_EQ(int_text(INT64_MIN), "-9223372036854775808");
  EXPECT_EQ(uint_text(UINT64_MAX), "18446744073709551615");
  EXPECT_EQ(uint_text(0), "0");
  // Every power of ten and its neighbours: digit counts and the two-digit table edges.
  uint64_t p = 1;
  for (int i = 0; i < 20; i++) {
    for (uint64_t v : {p - 1, p, p + 1}) {
      if (v == 0 && i > 0) continue;
      char ref[32];
      const int n = std::snprintf(ref, sizeof(ref), "%" PRIu64, v);
      EXPECT_EQ(uint_text(v), std::string(ref, static_cast<size_t>(n)));
      EXPECT_EQ(digits10(v), static_cast<size_t>(n)) << v;
    }
    if (i < 19) p *= 10;
  }
  EXPECT_EQ(digits10(UINT64_MAX), 20u);
  EXPECT_EQ(digits10(0), 1u);
}

TEST(NumbersTest, IntegerRoundTripRandom) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("random seed " + std::to_string(seed) + " (replay: --gtest_random_seed=N)");
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 200000; i++) {
    // Mix full-range values with short ones so every length is exercised.
    uint64_t bits = rng();
    bits >>= (rng() % 64);
    const int64_t v = (rng() & 1) ? static_cast<int64_t>(bits) : -static_cast<int64_t>(bits >> 1);
    const std::string text = int_text(v);
    EXPECT_EQ(text, std::to_string(v));
    int64_t back = 0;
    ASSERT_TRUE(parse_int64(text, &back)) << text;
    EXPECT_EQ(back, v);
    uint64_t ub = 0;
    ASSERT_TRUE(parse_uint64(uint_text(bits), &ub));
    EXPECT_EQ(ub, bits);
    EXPECT_EQ(digits10(bits), std::to_string(bits).size());
  }
}

// ---------------------------------------------------------------- double parsing

struct DoubleCase {
  std::string_view in;
  bool ok;
  double value;
};

TEST(NumbersTest, ParseDoubleTable) {
  const double inf = HUGE_VAL;
  // 7.0.15: DEL z; ZADD z <v> m; ZSCORE z m.
  const DoubleCase cases[] = {
      {"1.5", true, 1.5},
      {"0", true, 0.0},
      {"-0", true, -0.0},
      {"+1", true, 1.0},
      {".5", true, 0.5},
      {"5.", true, 5.0},
      {"1E3", true, 1000.0},
      {"1e20", true, 1e20},
      {"-1.25e-3", true, -1.25e-3},
      {"0x10", true, 16.0},
      {"0x1p-3", true, 0.125},
      {"0X1P3", true, 8.0},
      {"inf", true, inf},
      {"+inf", true, inf},
      {"-inf", true, -inf},
      {"INF", true, inf},
      {"Inf", true, inf},
      {"infinity", true, inf},
      {"-Infinity", true, -inf},
      {"1e308", true, 1e308},
      {"1.7976931348623157e308", true, DBL_MAX},
      {"4.9e-324", true, 4.9406564584124654e-324},
      {"1e-310", true, 1e-310},  // subnormal: ERANGE but non-zero, accepted
      {"1e500", false, 0},       // overflow
      {"-1e500", false, 0},
      {"1e-400", false, 0},  // underflow to zero
      {"2e-324", false, 0},
      {"nan", false, 0},
      {"NaN", false, 0},
      {"-nan", false, 0},
      {"nan(123)", false, 0},
      {"", false, 0},
      {" 1.5", false, 0},
      {"\t1", false, 0},
      {"\n1", false, 0},
      {"1.5 ", false, 0},
      {"1_", false, 0},
      {"1e", false, 0},
      {"1e+", false, 0},
      {"0x", false, 0},
      {"++1", false, 0},
      {"-", false, 0},
      {".", false, 0},
      {"e5", false, 0},
      {"infx", false, 0},
      {std::string_view("1\0x", 3), false, 0},  // 7.0.15 refuses the embedded NUL
      {std::string_view("1\0", 2), false, 0},
  };
  for (const DoubleCase& c : cases) {
    double v = 42;
    EXPECT_EQ(parse_double(c.in, &v), c.ok) << "input [" << c.in << "]";
    if (c.ok) {
      EXPECT_EQ(v, c.value) << c.in;
      EXPECT_EQ(std::signbit(v), std::signbit(c.value)) << c.in;
    } else {
      EXPECT_EQ(v, 42) << c.in;
    }
  }
}

// The integer fast path gives what strtod gives, sign of zero included, at every length it
// takes (up to 15 digits) and just past it.
TEST(NumbersTest, ParseDoubleIntegersMatchStrtod) {
  std::vector<std::string> inputs = {"0", "-0", "00", "-00", "7", "-7", "007", "-007",
                                     "999999999999999", "-999999999999999", "1000000000000000",
                                     "9007199254740993", "-9007199254740993", "123456789012345678"};
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 2000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::string d = std::to_string(x % 10000000000000000ull).substr(0, 1 + x % 17);
    inputs.push_back(d);
    inputs.push_back("-" + d);
  }
  for (const std::string& in : inputs) {
    double v = 42;
    ASSERT_TRUE(parse_double(in, &v)) << in;
    const double want = std::strtod(in.c_str(), nullptr);
    EXPECT_EQ(v, want) << in;
    EXPECT_EQ(std::signbit(v), std::signbit(want)) << in;
  }
  double v = 42;
  EXPECT_FALSE(parse_double("-", &v));
  EXPECT_FALSE(parse_double("--1", &v));
  EXPECT_FALSE(parse_double("1-", &v));
  EXPECT_EQ(v, 42);
}

TEST(NumbersTest, ParseDoubleLongInputs) {
  double v = 0;
  // 7.0.15: ZADD accepts a 9001-byte "000...1" (no length limit for doubles).
  EXPECT_TRUE(parse_double(std::string(9000, '0') + "1", &v));
  EXPECT_EQ(v, 1.0);
  EXPECT_TRUE(parse_double("-" + std::string(600, '0') + "2.5", &v));
  EXPECT_EQ(v, -2.5);
  EXPECT_TRUE(parse_double("+" + std::string(600, '0') + "2.5e1", &v));
  EXPECT_EQ(v, 25.0);
  EXPECT_TRUE(parse_double("0." + std::string(600, '0') + "1e601", &v));
  EXPECT_DOUBLE_EQ(v, 1.0);
  EXPECT_TRUE(parse_double("0x" + std::string(600, '0') + "1p4", &v));
  EXPECT_EQ(v, 16.0);
  EXPECT_FALSE(parse_double("1" + std::string(600, '0'), &v));         // overflow
  EXPECT_FALSE(parse_double("0." + std::string(600, '0') + "1", &v));  // underflow to 0
  EXPECT_FALSE(parse_double(std::string(600, '0') + "1 ", &v));        // trailing byte
  EXPECT_FALSE(parse_double(" " + std::string(600, '0'), &v));         // leading space
  EXPECT_FALSE(parse_double("--" + std::string(600, '0'), &v));
  EXPECT_FALSE(parse_double("0x-" + std::string(600, '1'), &v));
  EXPECT_FALSE(parse_double("-+" + std::string(600, '1'), &v));
  // Both paths agree around the switch-over length.
  for (size_t len = 500; len < 520; len++) {
    const std::string s = "1." + std::string(len - 4, '0') + "25";
    double a = 0;
    ASSERT_TRUE(parse_double(s, &a)) << len;
    EXPECT_EQ(a, 1.0) << len;  // 1.000...025 rounds to 1
  }
}

TEST(NumbersTest, ParseLongDoubleTable) {
  const struct {
    std::string_view in;
    bool ok;
    long double value;
  } cases[] = {
      // 7.0.15: SET f 0; INCRBYFLOAT f <v>.
      {"0.1", true, 0.1L},
      {"10.5", true, 10.5L},
      {"5.0e3", true, 5000.0L},
      {"1e500", true, 1e500L},  // fine as long double
      {"-1e500", true, -1e500L},
      {"1e4932", true, 1e4932L},
      {"1e-400", true, 1e-400L},
      {"1e-4940", true, 1e-4940L},  // subnormal long double: accepted
      {"0x10", true, 16.0L},
      {"0x1p3", true, 8.0L},
      {"+.5e1", true, 5.0L},
      {".5", true, 0.5L},
      {"5.", true, 5.0L},
      {"-0", true, -0.0L},
      {"inf", true, HUGE_VALL},  // accepted; INCRBYFLOAT then refuses the infinite result
      {"-Infinity", true, -HUGE_VALL},
      {"1e5000", false, 0},   // overflow
      {"1e-4960", false, 0},  // underflow to zero
      {"nan", false, 0},
      {"", false, 0},
      {" 1", false, 0},
      {"1.5 ", false, 0},
      {"1.5_", false, 0},
      {std::string_view("1\0x", 3), false, 0},
  };
  for (const auto& c : cases) {
    long double v = 42;
    EXPECT_EQ(parse_long_double(c.in, &v), c.ok) << "input [" << c.in << "]";
    if (c.ok) {
      EXPECT_EQ(v, c.value) << c.in;
    } else {
      EXPECT_EQ(v, 42) << c.in;
    }
  }
  // 7.0.15: a 5119-byte increment is accepted, 5120 bytes is "ERR value is not a valid float".
  long double v = 0;
  EXPECT_TRUE(parse_long_double(std::string(5118, '0') + "1", &v));
  EXPECT_EQ(v, 1.0L);
  EXPECT_FALSE(parse_long_double(std::string(5119, '0') + "1", &v));
}

// ---------------------------------------------------------------- double formatting

TEST(NumbersTest, FormatDoubleG17) {
  // 7.0.15: ZADD z <v> m; ZSCORE z m.
  EXPECT_EQ(g17(1.5), "1.5");
  EXPECT_EQ(g17(0.1), "0.10000000000000001");
  EXPECT_EQ(g17(1e20), "1e+20");
  EXPECT_EQ(g17(1e-7), "9.9999999999999995e-08");
  EXPECT_EQ(g17(1e308), "1e+308");
  EXPECT_EQ(g17(1e-310), "9.9999999999999694e-311");
  EXPECT_EQ(g17(4.9406564584124654e-324), "4.9406564584124654e-324");
  EXPECT_EQ(g17(16), "16");
  EXPECT_EQ(g17(0), "0");
  EXPECT_EQ(g17(-0.0), "-0");
  EXPECT_EQ(g17(HUGE_VAL), "inf");
  EXPECT_EQ(g17(-HUGE_VAL), "-inf");
  EXPECT_EQ(g17(std::nan("")), "nan");
  EXPECT_EQ(g17(-DBL_MAX), "-1.7976931348623157e+308");
  EXPECT_EQ(g17(-DBL_MIN), "-2.2250738585072014e-308");
}

TEST(NumbersTest, FormatDoubleG17MatchesPrintfRandom) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("random seed " + std::to_string(seed) + " (replay: --gtest_random_seed=N)");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> small(-1e6, 1e6);
  for (int i = 0; i < 200000; i++) {
    double v;
    if (i % 2) {
      const uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof(v));
      if (std::isnan(v)) continue;
    } else {
      v = small(rng);
    }
    char ref[64];
    const int n = std::snprintf(ref, sizeof(ref), "%.17g", v);
    ASSERT_EQ(g17(v), std::string(ref, static_cast<size_t>(n)));
  }
}

TEST(NumbersTest, FormatDoubleShortestTable) {
  // Redis 7.2+ d2string() = integer fast path for integral |v| <= 2^62, else fpconv_dtoa
  // (layout rules read from deps/fpconv/fpconv_dtoa.c emit_digits()).
  const struct {
    double v;
    std::string_view out;
  } cases[] = {
      {1.5, "1.5"},
      {3.0, "3"},
      {-3.0, "-3"},
      {0.1, "0.1"},
      {0.30000000000000004, "0.30000000000000004"},
      {10.6, "10.6"},
      {0.0, "0"},
      {-0.0, "-0"},
      {HUGE_VAL, "inf"},
      {-HUGE_VAL, "-inf"},
      {1e18, "1000000000000000000"},
      {4611686018427387904.0, "4611686018427387904"},  // 2^62: still the integer path
      {-4611686018427387904.0, "-4611686018427387904"},
      {4611686018427388928.0, "4611686018427389000"},         // next double above 2^62: fpconv
      {9223372036854775808.0, "9223372036854776000"},         // 2^63, k = 3 < 8: plain integer
      {1.2345678901234568e22, "12345678901234568000000"},     // k = 6 < 8: plain integer
      {-1.2345678901234567e23, "-123456789012345670000000"},  // k = 7: 25 bytes, the longest
      {1.2345678901234566e25, "1.2345678901234566e+25"},      // k = 9: scientific
      {1e20, "1e+20"},
      {1e21, "1e+21"},
      {1.5e20, "1.5e+20"},
      {1.5e300, "1.5e+300"},
      {-1.5e300, "-1.5e+300"},
      {1e100, "1e+100"},
      {1e-100, "1e-100"},
      {1e-7, "1e-7"},
      {-1e-7, "-1e-7"},
      {1.2345e-7, "1.2345e-7"},
      {1e-6, "0.000001"},
      {1.5e-6, "1.5e-6"},  // k = -7 and |exp| = 6: scientific although 1e-6 is not
      {1e-5, "0.00001"},
      {0.001234567, "0.001234567"},           // k = -9 but |exp| = 3 < 4
      {0.0001234567, "1.234567e-4"},          // k = -10, |exp| = 4
      {12345.678901, "12345.678901"},         // k = -6
      {123456.7890123, "1.234567890123e+5"},  // k = -7 and |exp| = 5: scientific (fpconv quirk)
      {1234.5678901234, "1234.5678901234"},   // k = -10, |exp| = 3
      {DBL_MAX, "1.7976931348623157e+308"},
      {DBL_MIN, "2.2250738585072014e-308"},
      {4.9406564584124654e-324, "5e-324"},
      {1e-310, "1e-310"},
  };
  for (const auto& c : cases) EXPECT_EQ(shortest(c.v), c.out) << g17(c.v);
  EXPECT_EQ(shortest(std::nan("")), "nan");
  EXPECT_EQ(shortest(-std::nan("")), "nan");
}

TEST(NumbersTest, FormatDoubleRoundTripRandom) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("random seed " + std::to_string(seed) + " (replay: --gtest_random_seed=N)");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1000, 1000);
  size_t longest = 0;
  for (int i = 0; i < 300000; i++) {
    double v;
    switch (i % 3) {
      case 0: {
        const uint64_t bits = rng();
        std::memcpy(&v, &bits, sizeof(v));
        if (std::isnan(v)) continue;
        break;
      }
      case 1:
        v = unit(rng);
        break;
      default:
        v = static_cast<double>(static_cast<int64_t>(rng() >> (rng() % 64))) / 1000.0;
        break;
    }
    double back = 0;
    const std::string s = shortest(v);
    longest = std::max(longest, s.size());
    ASSERT_TRUE(parse_double(s, &back)) << s;
    ASSERT_EQ(back, v) << s;
    // No longer than the shortest form std::to_chars finds, give or take the layout.
    char ref[64];
    const auto r = std::to_chars(ref, ref + sizeof(ref), v);
    ASSERT_LE(s.size(), static_cast<size_t>(r.ptr - ref) + 7) << s;
    const std::string g = g17(v);
    ASSERT_TRUE(parse_double(g, &back)) << g;
    ASSERT_EQ(back, v) << g;
  }
  EXPECT_LE(longest, 25u);
}

TEST(NumbersTest, FormatLongDoubleHuman) {
  // 7.0.15: SET f <a>; INCRBYFLOAT f <b>.
  long double a = 0;
  long double b = 0;
  ASSERT_TRUE(parse_long_double("10.5", &a));
  ASSERT_TRUE(parse_long_double("0.1", &b));
  EXPECT_EQ(human(a + b), "10.6");
  ASSERT_TRUE(parse_long_double("5.0e3", &a));
  EXPECT_EQ(human(a), "5000");
  EXPECT_EQ(human(0.1L), "0.1");
  EXPECT_EQ(human(0.0L), "0");
  EXPECT_EQ(human(-0.0L), "0");
  EXPECT_EQ(human(-1e-20L), "0");  // "-0.00000000000000000" -> "-0" -> "0"
  EXPECT_EQ(human(1e-20L), "0");
  EXPECT_EQ(human(-2.5L), "-2.5");
  EXPECT_EQ(human(5.0L), "5");
  EXPECT_EQ(human(1.0L + 1e-17L), "1.00000000000000001");
  EXPECT_EQ(human(3.0L + 1e17L), "100000000000000003");
  ASSERT_TRUE(parse_long_double("123456789.123456789", &a));
  EXPECT_EQ(human(a), "123456789.12345678899873747");
  ASSERT_TRUE(parse_long_double("-459967.805", &a));
  EXPECT_EQ(human(a), "-459967.80500000000000682");
  EXPECT_EQ(human(HUGE_VALL), "inf");
  EXPECT_EQ(human(-HUGE_VALL), "-inf");
  ASSERT_TRUE(parse_long_double("1e300", &a));
  EXPECT_EQ(human(a),
            "100000000000000000000899732407955919387052394427329074793826008232126564659618093575"
            "584915208375049719035037250861427483590359255618467298391309626052074864628732713564"
            "184365329408425510760601678972665293237003055138294762099454029477278188962060617926"
            "7611627097410650567187386105690089424915104006144");
  ASSERT_TRUE(parse_long_double("1e4932", &a));
  const std::string huge = human(a);
  EXPECT_EQ(huge.size(), 4933u);
  EXPECT_EQ(huge.substr(0, 30), "100000000000000000000601894938");
  EXPECT_EQ(human(LDBL_MAX).size(), 4933u);
  EXPECT_EQ(human(-LDBL_MAX).size(), 4934u);

  // Too small a buffer: 0, as Redis's ld2string.
  char small[8];
  EXPECT_EQ(format_long_double_human(10.5L, small, sizeof(small)), 0u);  // "10.50000..." needs 21
  EXPECT_EQ(format_long_double_human(HUGE_VALL, small, 4), 0u);
  EXPECT_EQ(format_long_double_human(HUGE_VALL, small, 5), 3u);
  char exact[21];
  EXPECT_EQ(format_long_double_human(10.5L, exact, sizeof(exact)), 4u);
  EXPECT_STREQ(exact, "10.5");
}

TEST(NumbersTest, LongDoubleHumanRoundTripsShortDecimals) {
  // The point of 17 fractional digits: typed decimals come back as typed, as long as the
  // 17 fractional digits plus the integer digits fit in long double's ~19 significant digits.
  // (7.0.15: SET f -459967.805; INCRBYFLOAT f 0 -> "-459967.80500000000000682", but 99.805 and
  // 1.805 come back unchanged.)
  const uint64_t seed = test_seed();
  SCOPED_TRACE("random seed " + std::to_string(seed) + " (replay: --gtest_random_seed=N)");
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20000; i++) {
    const int64_t whole = static_cast<int64_t>(rng() % 199) - 99;
    const int64_t frac = static_cast<int64_t>(rng() % 1000);
    char in[64];
    std::snprintf(in, sizeof(in), "%s%lld.%03lld", whole < 0 ? "-" : "",
                  static_cast<long long>(whole < 0 ? -whole : whole), static_cast<long long>(frac));
    long double v = 0;
    ASSERT_TRUE(parse_long_double(in, &v)) << in;
    std::string expect(in);
    while (expect.back() == '0') expect.pop_back();
    if (expect.back() == '.') expect.pop_back();
    if (expect == "-0") expect = "0";
    ASSERT_EQ(human(v), expect);
  }
}

// ---------------------------------------------------------------- util_random

TEST(UtilRandomTest, DeterministicAfterSeedAndRoughlyUniform) {
  random_seed(12345);
  const uint64_t a = random_u64();
  const uint64_t b = random_u64();
  random_seed(12345);
  EXPECT_EQ(random_u64(), a);
  EXPECT_EQ(random_u64(), b);
  EXPECT_NE(a, b);

  random_seed(test_seed());
  int buckets[10] = {};
  for (int i = 0; i < 100000; i++) {
    const uint64_t r = random_bounded(10);
    ASSERT_LT(r, 10u);
    buckets[r]++;
  }
  for (int c : buckets) {
    EXPECT_GT(c, 9000);
    EXPECT_LT(c, 11000);
  }
  EXPECT_EQ(random_bounded(0), 0u);
  EXPECT_EQ(random_bounded(1), 0u);
  int ones = 0;
  for (int i = 0; i < 64000; i++) ones += __builtin_popcountll(random_u64()) > 32;
  EXPECT_GT(ones, 26000);
  for (int i = 0; i < 1000; i++) {
    const double d = random_double();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
  }
}

}  // namespace
}  // namespace keel
