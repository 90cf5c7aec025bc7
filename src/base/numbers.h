// Number <-> string conversions with Redis's exact accepted input and emitted output formats.
// Integers (INCR, EXPIRE, offsets, OBJECT ENCODING int detection), doubles (ZADD, INCRBYFLOAT)
// and the three textual double forms Redis replies with. Includes only the standard library;
// nothing here throws or allocates. Glob matching lives in glob.h, randomness in util_random.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel {

// Longest int64/uint64 text: "-9223372036854775808" is 20 bytes, "18446744073709551615" is 20;
// the extra byte leaves room for a terminating NUL if a caller wants one.
inline constexpr size_t kInt64BufSize = 21;
// Enough for format_double_g17 ("-2.2250738585072014e-308" is 24 bytes) and
// format_double_shortest (at most 25 bytes: "-123456789012345670000000"), with room to spare.
inline constexpr size_t kDoubleBufSize = 32;
// Redis's MAX_LONG_DOUBLE_CHARS (5 * 1024). It bounds two things: parse_long_double rejects
// inputs of this length or longer, and "%.17Lf" of any finite long double (LDBL_MAX has 4933
// integer digits, about 4952 bytes in all) fits in a buffer this size, so INCRBYFLOAT never
// fails to format a finite result.
inline constexpr size_t kLongDoubleBufSize = 5 * 1024;

// Strict signed 64-bit parse, as Redis's string2ll: an optional '-', then "0" or a digit 1-9
// followed by digits. Rejects "", "+1", " 1", "1 ", "007", "00", "-0", "-", anything over 20
// bytes and anything outside [INT64_MIN, INT64_MAX]. On failure *out is not written. O(len).
[[nodiscard]] bool parse_int64(std::string_view s, int64_t* out);
// Same rules without a sign: "0" or [1-9][0-9]*, at most 20 bytes, <= UINT64_MAX.
[[nodiscard]] bool parse_uint64(std::string_view s, uint64_t* out);
// True when `s` is the canonical text of an int64 (what OBJECT ENCODING reports as "int").
inline bool is_canonical_int64(std::string_view s, int64_t* out) { return parse_int64(s, out); }

// Decimal digit count of `v` (1 for 0).
size_t digits10(uint64_t v);
// Write the decimal text of `v` into `buf` (at least kInt64BufSize bytes, not NUL-terminated)
// and return its length. Two digits per step.
size_t format_int64(int64_t v, char* buf);
size_t format_uint64(uint64_t v, char* buf);

// Parse a double the way ZADD, ZINCRBY, ZRANGEBYSCORE bounds and GEO arguments do (Redis's
// strtod() checks): the whole string must be consumed; empty input, a leading isspace() byte,
// trailing bytes (including an embedded NUL) and NaN are rejected; a result that overflows
// (|v| > DBL_MAX, e.g. "1e500") or underflows to zero ("1e-400") is rejected, a subnormal
// result ("1e-310") is accepted. Everything else strtod accepts is accepted: "+1", ".5", "5.",
// "1E3", hex "0x10" / "0x1p-3", "inf", "+inf", "-Infinity", "INF".
// Inputs of 512 bytes or more are parsed by std::from_chars after the same checks; they differ
// from strtod only in rejecting subnormal results.
[[nodiscard]] bool parse_double(std::string_view s, double* out);
// As parse_double but with strtold, as INCRBYFLOAT and HINCRBYFLOAT parse both the stored value
// and the increment (Redis's string2ld). Inputs of kLongDoubleBufSize bytes or more are
// rejected. "1e500" is accepted here (long double range), "1e-4960" (underflow to 0) is not.
[[nodiscard]] bool parse_long_double(std::string_view s, long double* out);

// "%.17g" (Redis <= 7.0 RESP2 doubles: ZSCORE, ZINCRBY, GEODIST...). inf -> "inf"/"-inf",
// NaN -> "nan"/"-nan" as printf does. `buf` holds at least kDoubleBufSize bytes; returns length.
size_t format_double_g17(double v, char* buf);
// Redis 7.2+ d2string(), used for every double reply from 7.2 on: NaN -> "nan", +-inf ->
// "inf"/"-inf", zero -> "0" or "-0", an integral |v| <= 2^62 -> its integer text ("3",
// "1000000000000000000"); otherwise the shortest round-trip digits laid out by fpconv's rules:
//   1.5 -> "1.5", 0.1 -> "0.1", 1e-6 -> "0.000001", 1e-7 -> "1e-7", 1e20 -> "1e+20",
//   1.5e300 -> "1.5e+300", 123456.7890123 -> "1.234567890123e+5", 0.001234567 -> "0.001234567".
//   1.5e-6 -> "1.5e-6" (but 1e-6 -> "0.000001"), 1.2345678901234568e22 ->
//   "12345678901234568000000".
// See numbers.cc for the layout rules and the one known divergence. Returns length (<= 25).
size_t format_double_shortest(double v, char* buf);
// fpconv_dtoa() alone, without d2string's integer path: 1e8 -> "1e+8", 16 -> "16", -0 -> "-0"
// (DEBUG DIGEST hashes zset scores in this form). Same buffer rules as above.
size_t format_double_fpconv(double v, char* buf);
// INCRBYFLOAT / HINCRBYFLOAT result text (Redis ld2string LD_STR_HUMAN): "%.17Lf", then trailing
// zeros and a trailing '.' removed, "-0" -> "0"; +-inf -> "inf"/"-inf". Writes at most `cap`
// bytes including a terminating NUL and returns the length, or 0 if it does not fit
// (cap >= kLongDoubleBufSize always fits). 10.5 + 0.1 -> "10.6", 5.0e3 -> "5000",
// 1e300 (parsed as long double) -> its exact 301-digit integer "10000000000000000000089973...".
size_t format_long_double_human(long double v, char* buf, size_t cap);

}  // namespace keel
