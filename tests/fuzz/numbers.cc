// Fuzz target: base/numbers.cc, differential against the C library with Redis's rules, and
// round trips. Input: byte 0 picks the check, the rest is the text (parsers) or the value's
// bytes (formatters).
//   parse_int64 / parse_uint64: accepted exactly when strtoll / strtoull consume the whole text
//     without ERANGE and printing the value back with "%lld" / "%llu" gives the text again
//     (Redis's string2ll accepts only the canonical form: no '+', no spaces, no leading zeros,
//     no "-0"), with the same value.
//   parse_double: Redis's strtod checks (no leading isspace, whole text consumed, no overflow,
//     no underflow to zero, no NaN), same value bit for bit; inputs of 512 bytes or more go
//     through std::from_chars, which is allowed to refuse a subnormal result (documented).
//   parse_long_double: the same with strtold, and anything of 5120 bytes or more is refused.
//   format_int64 / format_uint64 / digits10 against snprintf; format_double_g17 against "%.17g";
//   format_double_shortest parses back to the same double, uses at most 17 significant digits,
//   prints integral values in [-2^62, 2^62] as integers; format_long_double_human parses back
//   within 1e-17 (absolute, it prints 17 decimals) or 1e-17 relative, has no trailing zeros
//   after a '.', returns 0 only when the untrimmed "%.17Lf" text does not fit in `cap`, and
//   writes nothing past `cap` (every output buffer is an exact-size heap block).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "base/numbers.h"
#include "fuzz_util.h"

using keel::fuzz::Input;

namespace {

// Exact-size heap buffer: a write past `n` is an ASan report.
struct Buf {
  explicit Buf(size_t n) : p(new char[n ? n : 1]), size(n) {}
  std::unique_ptr<char[]> p;
  size_t size;
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool c_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

void check_int64(const std::string& s) {
  int64_t got = 0x5a5a;
  const bool ok = keel::parse_int64(s, &got);
  bool want = false;
  long long v = 0;
  if (!s.empty() && std::strlen(s.c_str()) == s.size()) {
    errno = 0;
    char* end = nullptr;
    v = std::strtoll(s.c_str(), &end, 10);
    char back[32];
    std::snprintf(back, sizeof back, "%lld", v);
    want = errno == 0 && end == s.c_str() + s.size() && s == back;
  }
  FUZZ_CHECK(ok == want);
  if (ok) FUZZ_CHECK(got == v);
  if (!ok) FUZZ_CHECK(got == 0x5a5a);  // not written on failure
}

void check_uint64(const std::string& s) {
  uint64_t got = 0;
  const bool ok = keel::parse_uint64(s, &got);
  bool want = false;
  unsigned long long v = 0;
  if (!s.empty() && std::strlen(s.c_str()) == s.size()) {
    errno = 0;
    char* end = nullptr;
    v = std::strtoull(s.c_str(), &end, 10);
    char back[32];
    std::snprintf(back, sizeof back, "%llu", v);
    want = errno == 0 && end == s.c_str() + s.size() && s == back;
  }
  FUZZ_CHECK(ok == want);
  if (ok) FUZZ_CHECK(got == v);
}

void check_double(const std::string& s) {
  double got = 0;
  const bool ok = keel::parse_double(s, &got);
  bool want = false;
  double v = 0;
  if (!s.empty() && !c_space(s[0])) {
    errno = 0;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    const bool range = errno == ERANGE;
    want = end == s.c_str() + s.size() && !(range && (std::isinf(v) || v == 0)) && !std::isnan(v);
  }
  if (s.size() >= 512 && want && !ok && std::fpclassify(v) == FP_SUBNORMAL) return;  // documented
  if (ok != want) {
    std::fprintf(stderr, "parse_double [%s]: got %d, strtod %d (%.17g)\n", keel::fuzz::show(s.substr(0, 200)).c_str(), ok, want, v);
    FUZZ_CHECK(false);
  }
  if (ok) FUZZ_CHECK(same_bits(got, v));
}

void check_long_double(const std::string& s) {
  long double got = 0;
  const bool ok = keel::parse_long_double(s, &got);
  bool want = false;
  long double v = 0;
  if (!s.empty() && !c_space(s[0]) && s.size() < keel::kLongDoubleBufSize) {
    errno = 0;
    char* end = nullptr;
    v = std::strtold(s.c_str(), &end);
    const int err = errno;
    want = end == s.c_str() + s.size() && err != EINVAL && !(err == ERANGE && (std::isinf(v) || v == 0)) &&
           !std::isnan(v);
  }
  FUZZ_CHECK(ok == want);
  if (ok) FUZZ_CHECK(got == v || (std::isnan(got) && std::isnan(v)));
}

void check_format_int(uint64_t raw) {
  Buf b(keel::kInt64BufSize);
  char ref[32];
  const auto v = static_cast<int64_t>(raw);
  size_t n = keel::format_int64(v, b.p.get());
  std::snprintf(ref, sizeof ref, "%lld", static_cast<long long>(v));
  FUZZ_CHECK(std::string_view(b.p.get(), n) == ref);
  int64_t back = 0;
  FUZZ_CHECK(keel::parse_int64(std::string_view(b.p.get(), n), &back) && back == v);

  n = keel::format_uint64(raw, b.p.get());
  std::snprintf(ref, sizeof ref, "%llu", static_cast<unsigned long long>(raw));
  FUZZ_CHECK(std::string_view(b.p.get(), n) == ref);
  FUZZ_CHECK(keel::digits10(raw) == n);
  uint64_t uback = 0;
  FUZZ_CHECK(keel::parse_uint64(std::string_view(b.p.get(), n), &uback) && uback == raw);
}

void check_format_double(double v) {
  Buf b(keel::kDoubleBufSize);
  char ref[64];
  size_t n = keel::format_double_g17(v, b.p.get());
  std::snprintf(ref, sizeof ref, "%.17g", v);
  FUZZ_CHECK(std::string_view(b.p.get(), n) == ref);

  n = keel::format_double_shortest(v, b.p.get());
  FUZZ_CHECK(n <= 25);
  const std::string out(b.p.get(), n);
  if (std::isnan(v)) {
    FUZZ_CHECK(out == "nan");
    return;
  }
  double back = 0;
  if (!keel::parse_double(out, &back)) {
    std::fprintf(stderr, "format_double_shortest(%.17g) = [%s] does not parse\n", v, out.c_str());
    FUZZ_CHECK(false);
  }
  FUZZ_CHECK(same_bits(back, v));
  if (std::isinf(v)) return;
  if (v == std::trunc(v) && std::fabs(v) <= 4611686018427387904.0 && v != 0) {
    std::snprintf(ref, sizeof ref, "%lld", static_cast<long long>(v));
    FUZZ_CHECK(out == ref);
    return;  // the exact integer may need up to 19 digits
  }
  // Significant digits: the digits before any 'e', without leading zeros and without the
  // trailing zeros that only place the decimal point ("12345678901234568000000").
  std::string sig;
  for (char c : out.substr(0, out.find('e'))) {
    if (c >= '0' && c <= '9' && !(sig.empty() && c == '0')) sig += c;
  }
  while (!sig.empty() && sig.back() == '0') sig.pop_back();
  FUZZ_CHECK(sig.size() <= 17);
}

void check_format_long_double(uint64_t mant, uint16_t se, size_t cap) {
  long double v = 0;
  // x87 80-bit layout: 64-bit significand, then sign + 15-bit exponent. The explicit integer
  // bit is set exactly when the exponent is non-zero: arithmetic never makes the other
  // ("unnormal", "pseudo-denormal") encodings, which printf shows as nan.
  if (se & 0x7FFF) {
    mant |= uint64_t{1} << 63;
  } else {
    mant &= ~(uint64_t{1} << 63);
  }
  unsigned char bytes[sizeof(long double)] = {};
  std::memcpy(bytes, &mant, 8);
  std::memcpy(bytes + 8, &se, 2);
  std::memcpy(&v, bytes, sizeof v);
  Buf b(cap);
  const size_t n = keel::format_long_double_human(v, b.p.get(), cap);
  if (n == 0) {
    // Only "does not fit" may return nothing: the untrimmed "%.17Lf" text and its NUL (or
    // "-inf" and its NUL) must be larger than cap. NaN is never formatted here by Redis.
    const int full = std::snprintf(nullptr, 0, "%.17Lf", v);
    FUZZ_CHECK(std::isnan(v) || (std::isinf(v) ? cap < 5 : static_cast<size_t>(full) + 1 > cap));
    return;
  }
  FUZZ_CHECK(n < cap && b.p[n] == '\0');
  const std::string out(b.p.get(), n);
  if (std::isinf(v)) {
    FUZZ_CHECK(out == (v > 0 ? "inf" : "-inf"));
    return;
  }
  if (std::isnan(v)) return;
  if (out.find('.') != std::string::npos) FUZZ_CHECK(out.back() != '0' && out.back() != '.');
  FUZZ_CHECK(out != "-0");
  long double back = 0;
  FUZZ_CHECK(keel::parse_long_double(out, &back) || out == "0");
  const long double diff = std::fabs(back - v);
  FUZZ_CHECK(diff <= 1e-17L || diff <= std::fabs(v) * 1e-17L);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const uint8_t which = in.u8() % 7;
  switch (which) {
    case 0: check_int64(std::string(in.rest())); break;
    case 1: check_uint64(std::string(in.rest())); break;
    case 2: check_double(std::string(in.rest())); break;
    case 3: check_long_double(std::string(in.rest())); break;
    case 4: check_format_int(in.u64()); break;
    case 5: {
      const uint64_t bits = in.u64();
      double v;
      std::memcpy(&v, &bits, sizeof v);
      check_format_double(v);
      break;
    }
    default: {
      const uint64_t mant = in.u64();
      const uint16_t se = in.u16();
      const size_t cap = in.flag() ? keel::kLongDoubleBufSize : in.u16() % 64;
      check_format_long_double(mant, se, cap);
      break;
    }
  }
  return 0;
}
