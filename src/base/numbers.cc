// Number <-> string conversions. The parse rules and output layouts mirror Redis; the facts were
// checked against redis-server 7.0.15 (parsing, "%.17g", INCRBYFLOAT output) and the 7.2+
// d2string()/fpconv_dtoa() source (shortest doubles). Nothing here allocates or throws.
#include "base/numbers.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace keel {
namespace {

// "00" "01" ... "99": two output digits per division by 100.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

constexpr uint64_t kPow10[20] = {1ULL,
                                 10ULL,
                                 100ULL,
                                 1000ULL,
                                 10000ULL,
                                 100000ULL,
                                 1000000ULL,
                                 10000000ULL,
                                 100000000ULL,
                                 1000000000ULL,
                                 10000000000ULL,
                                 100000000000ULL,
                                 1000000000000ULL,
                                 10000000000000ULL,
                                 100000000000000ULL,
                                 1000000000000000ULL,
                                 10000000000000000ULL,
                                 100000000000000000ULL,
                                 1000000000000000000ULL,
                                 10000000000000000000ULL};

// isspace() in the "C" locale; Redis rejects a double whose first byte is one of these because
// strtod would silently skip it.
inline bool is_c_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Parses the digits of a canonical unsigned decimal: "0" or [1-9][0-9]*, n >= 1.
inline bool parse_digits(const char* p, size_t n, uint64_t* out) {
  if (p[0] == '0') {
    if (n != 1) return false;  // "00", "007": Redis's string2ll refuses leading zeros
    *out = 0;
    return true;
  }
  if (p[0] < '1' || p[0] > '9') return false;
  uint64_t v = static_cast<uint64_t>(p[0] - '0');
  for (size_t i = 1; i < n; i++) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(p[i])) - '0';
    if (d > 9) return false;
    if (__builtin_mul_overflow(v, 10U, &v) || __builtin_add_overflow(v, d, &v)) return false;
  }
  *out = v;
  return true;
}

inline size_t put_chars(char* buf, const char* s, size_t n) {
  std::memcpy(buf, s, n);
  return n;
}

// Fallback for doubles too long for the stack copy handed to strtod. Long valid inputs can only
// be decimal or hex numbers (inf/infinity/nan are short), so from_chars covers them; sign and
// "0x" are handled here because from_chars accepts neither.
bool parse_long_text_double(std::string_view s, double* out) {
  const char* p = s.data();
  const char* end = p + s.size();
  bool neg = false;
  if (*p == '+' || *p == '-') {
    neg = *p == '-';
    ++p;
  }
  std::chars_format fmt = std::chars_format::general;
  if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    p += 2;
    fmt = std::chars_format::hex;
  }
  // from_chars would take a second sign; strtod would not.
  const bool hex = fmt == std::chars_format::hex;
  if (p == end || !(*p == '.' || (hex ? is_hex_digit(*p) : is_digit(*p)))) return false;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(p, end, v, fmt);
  // result_out_of_range covers overflow and underflow; strtod would accept a subnormal here.
  if (ec != std::errc() || ptr != end || std::isnan(v)) return false;
  *out = neg ? -v : v;
  return true;
}

// Strings shorter than this are copied to the stack and parsed by strtod itself.
constexpr size_t kStrtodStackMax = 512;

}  // namespace

size_t digits10(uint64_t v) {
  if (v == 0) return 1;
  // bits * log10(2) ~= bits * 1233 / 4096, then one comparison corrects the estimate.
  const unsigned bits = 64U - static_cast<unsigned>(__builtin_clzll(v));
  const size_t t = (bits * 1233U) >> 12;
  return t + (v >= kPow10[t] ? 1 : 0);
}

size_t format_uint64(uint64_t v, char* buf) {
  const size_t len = digits10(v);
  char* p = buf + len;
  while (v >= 100) {
    const size_t i = static_cast<size_t>(v % 100) * 2;
    v /= 100;
    *--p = kDigitPairs[i + 1];
    *--p = kDigitPairs[i];
  }
  if (v >= 10) {
    const size_t i = static_cast<size_t>(v) * 2;
    *--p = kDigitPairs[i + 1];
    *--p = kDigitPairs[i];
  } else {
    *--p = static_cast<char>('0' + v);
  }
  return len;
}

size_t format_int64(int64_t v, char* buf) {
  if (v >= 0) return format_uint64(static_cast<uint64_t>(v), buf);
  buf[0] = '-';
  return 1 + format_uint64(0 - static_cast<uint64_t>(v), buf + 1);
}

bool parse_uint64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  return parse_digits(s.data(), s.size(), out);
}

bool parse_int64(std::string_view s, int64_t* out) {
  // Redis's string2ll: at most 20 bytes (LONG_STR_SIZE - 1), '-' only, no '+', no "-0".
  size_t n = s.size();
  if (n == 0 || n > 20) return false;
  const char* p = s.data();
  const bool neg = p[0] == '-';
  if (neg) {
    ++p;
    --n;
    if (n == 0 || p[0] == '0') return false;  // "-" and "-0..." are refused
  }
  uint64_t v = 0;
  if (!parse_digits(p, n, &v)) return false;
  if (neg) {
    if (v > (uint64_t{1} << 63)) return false;
    *out = static_cast<int64_t>(0 - v);  // modular conversion, exact for INT64_MIN
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

bool parse_double(std::string_view s, double* out) {
  // Redis (getDoubleFromObject / zslParseRange) calls strtod on the NUL-terminated argument
  // and then refuses: empty, leading space, unconsumed bytes, ERANGE with an infinite or zero
  // result, NaN. A view is not NUL-terminated, so short inputs are copied to the stack.
  const size_t n = s.size();
  if (n == 0 || is_c_space(s[0])) return false;
  // Fast path (scores and increments are mostly integers; strtod costs ~300 instructions): an
  // optional '-' and digits, 16 bytes at most, is exact in a uint64, and its conversion to
  // double rounds to nearest as strtod does (exact below 2^53). "-0" keeps its sign (-0.0).
  if (n <= 16) {
    const bool neg = s[0] == '-';
    size_t i = neg ? 1 : 0;
    if (i < n) {
      uint64_t v = 0;
      for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) v = v * 10 + uint64_t(s[i] - '0');
      if (i == n) {
        const double d = static_cast<double>(v);
        *out = neg ? -d : d;
        return true;
      }
    }
  }
  if (n >= kStrtodStackMax) return parse_long_text_double(s, out);
  char tmp[kStrtodStackMax];
  std::memcpy(tmp, s.data(), n);
  tmp[n] = '\0';
  const int saved_errno = errno;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(tmp, &end);
  const int err = errno;
  errno = saved_errno;
  if (end != tmp + n) return false;  // trailing bytes, or an embedded NUL
  if (err == ERANGE && (std::isinf(v) || v == 0)) return false;
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

bool parse_long_double(std::string_view s, long double* out) {
  // Redis's string2ld: same checks with strtold, and a hard limit of MAX_LONG_DOUBLE_CHARS
  // (verified: a 5119-byte "000...1" is accepted by INCRBYFLOAT, 5120 bytes is refused).
  const size_t n = s.size();
  if (n == 0 || n >= kLongDoubleBufSize) return false;
  if (is_c_space(s[0])) return false;
  char tmp[kLongDoubleBufSize];
  std::memcpy(tmp, s.data(), n);
  tmp[n] = '\0';
  const int saved_errno = errno;
  errno = 0;
  char* end = nullptr;
  const long double v = std::strtold(tmp, &end);
  const int err = errno;
  errno = saved_errno;
  if (end != tmp + n) return false;
  if (err == EINVAL) return false;
  if (err == ERANGE && (std::isinf(v) || v == 0)) return false;
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

size_t format_double_g17(double v, char* buf) {
  // std::to_chars with an explicit precision is specified to print as printf("%.*g") in the
  // C locale, and it is several times faster than snprintf.
  if (std::isnan(v)) return std::signbit(v) ? put_chars(buf, "-nan", 4) : put_chars(buf, "nan", 3);
  if (std::isinf(v)) return v < 0 ? put_chars(buf, "-inf", 4) : put_chars(buf, "inf", 3);
  const auto res = std::to_chars(buf, buf + kDoubleBufSize, v, std::chars_format::general, 17);
  return static_cast<size_t>(res.ptr - buf);
}

size_t format_double_shortest(double v, char* buf) {
  // Redis 7.2+ d2string(): specials first (NaN is printed without a sign), then the integer
  // fast path of double2ll(), whose window is [-(LLONG_MAX/2), LLONG_MAX/2] compared as double,
  // i.e. [-2^62, 2^62]; then fpconv_dtoa().
  if (std::isnan(v)) return put_chars(buf, "nan", 3);
  if (std::isinf(v)) return v < 0 ? put_chars(buf, "-inf", 4) : put_chars(buf, "inf", 3);
  if (v == 0) return std::signbit(v) ? put_chars(buf, "-0", 2) : put_chars(buf, "0", 1);
  constexpr double kIntWindow = 4611686018427387904.0;  // 2^62
  if (v >= -kIntWindow && v <= kIntWindow) {
    const auto i = static_cast<int64_t>(v);
    if (static_cast<double>(i) == v) return format_int64(i, buf);
  }
  return format_double_fpconv(v, buf);
}

size_t format_double_fpconv(double v, char* buf) {
  if (std::isnan(v)) return put_chars(buf, "nan", 3);
  if (std::isinf(v)) return v < 0 ? put_chars(buf, "-inf", 4) : put_chars(buf, "inf", 3);
  if (v == 0) return std::signbit(v) ? put_chars(buf, "-0", 2) : put_chars(buf, "0", 1);

  // Shortest round-trip digits from to_chars (Ryu). Redis's fpconv uses Grisu2, which is not
  // always shortest: measured over 2M doubles, it differs for ~0.11% of random bit patterns
  // (half one digit longer, half another last digit) and ~0.05% of uniform [0,1000) values
  // (always longer, e.g. 9.0886364613724009: Grisu2 "9.088636461372401", here
  // "9.0886364613724"), and never for decimal-looking values such as i/1000 or their sums.
  // Both forms parse back to the same double.
  // TODO(keel): a Grisu2 port of our own if byte equality with 7.2 on such values matters.
  char sci[32];
  const auto res = std::to_chars(sci, sci + sizeof(sci), v, std::chars_format::scientific);
  const char* p = sci;
  const char* const sci_end = res.ptr;
  char digits[20];
  int ndigits = 0;
  if (*p == '-') ++p;
  for (; p < sci_end && *p != 'e'; ++p) {
    if (*p != '.') digits[ndigits++] = *p;
  }
  int exp10 = 0;  // decimal exponent of the first digit
  if (p < sci_end) {
    ++p;  // 'e'
    const bool eneg = *p == '-';
    ++p;  // sign, always present in to_chars output
    for (; p < sci_end; ++p) exp10 = exp10 * 10 + (*p - '0');
    if (eneg) exp10 = -exp10;
  }
  // fpconv's layout, with value = digits * 10^k:
  //  - k >= 0 and |exp10| < ndigits + 7: plain integer, digits then k zeros;
  //  - k < 0 and (k > -7 or |exp10| < 4): plain decimal, "0.000ddd" below 1;
  //  - otherwise d[.ddd]e<sign><exponent>, exponent without leading zeros ("1e+20", "1e-7").
  const int k = exp10 - (ndigits - 1);
  const int abs_exp = exp10 < 0 ? -exp10 : exp10;
  size_t pos = 0;
  if (v < 0) buf[pos++] = '-';
  if (k >= 0 && abs_exp < ndigits + 7) {
    pos += put_chars(buf + pos, digits, static_cast<size_t>(ndigits));
    std::memset(buf + pos, '0', static_cast<size_t>(k));
    return pos + static_cast<size_t>(k);
  }
  if (k < 0 && (k > -7 || abs_exp < 4)) {
    const int int_digits = ndigits + k;
    if (int_digits <= 0) {
      buf[pos++] = '0';
      buf[pos++] = '.';
      std::memset(buf + pos, '0', static_cast<size_t>(-int_digits));
      pos += static_cast<size_t>(-int_digits);
      return pos + put_chars(buf + pos, digits, static_cast<size_t>(ndigits));
    }
    pos += put_chars(buf + pos, digits, static_cast<size_t>(int_digits));
    buf[pos++] = '.';
    return pos +
           put_chars(buf + pos, digits + int_digits, static_cast<size_t>(ndigits - int_digits));
  }
  buf[pos++] = digits[0];
  if (ndigits > 1) {
    buf[pos++] = '.';
    pos += put_chars(buf + pos, digits + 1, static_cast<size_t>(ndigits - 1));
  }
  buf[pos++] = 'e';
  buf[pos++] = exp10 < 0 ? '-' : '+';
  return pos + format_uint64(static_cast<uint64_t>(abs_exp), buf + pos);
}

size_t format_long_double_human(long double v, char* buf, size_t cap) {
  // Redis's ld2string(LD_STR_HUMAN). Verified on 7.0.15 with INCRBYFLOAT: 10.5 + 0.1 -> "10.6",
  // "5.0e3" + 0 -> "5000", 0 + 1e300 -> 301 exact integer digits, -0 + 0 -> "0",
  // 0 + 1e-20 -> "0" (17 fractional digits only).
  if (std::isinf(v)) {
    if (cap < 5) return 0;
    const size_t len = v > 0 ? put_chars(buf, "inf", 3) : put_chars(buf, "-inf", 4);
    buf[len] = '\0';
    return len;
  }
  if (cap == 0) return 0;
  const int printed = std::snprintf(buf, cap, "%.17Lf", v);
  if (printed < 0 || static_cast<size_t>(printed) + 1 > cap) return 0;
  size_t len = static_cast<size_t>(printed);
  if (std::memchr(buf, '.', len) != nullptr) {
    while (buf[len - 1] == '0') --len;
    if (buf[len - 1] == '.') --len;
  }
  if (len == 2 && buf[0] == '-' && buf[1] == '0') {
    buf[0] = '0';
    len = 1;
  }
  buf[len] = '\0';
  return len;
}

}  // namespace keel
