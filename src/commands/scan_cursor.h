// The SCAN-family cursor argument (SCAN, SSCAN, HSCAN, ZSCAN), parsed once for all four.
// Implemented in cmd_keys.cc.
#pragma once
#include <cstdint>
#include <string_view>

namespace keel {

// Redis 7.4's parseScanCursorOrReply (string2ull) on the C string of the argument (an embedded
// NUL ends it): a canonical integer (string2ll) must not be negative; anything else goes
// through strtoull, so leading whitespace and a sign are accepted ("-01" wraps to 2^64-1),
// at least one digit and the whole string must be consumed, and more than 2^64-1 fails.
// Rejected: "", "-1", "1 ", "abc", "18446744073709551616". Accepted: "0", "01", "+1", " 1",
// "-0", "18446744073709551615". (7.0 used strtoul without the leading-space and negative
// checks' order: it accepted "" and "-1" and refused " 1".)
[[nodiscard]] bool parse_scan_cursor(std::string_view s, uint64_t* out);

}  // namespace keel
