// Glob-style matching with Redis's exact rules (stringmatchlen), used by KEYS, SCAN MATCH,
// HSCAN/SSCAN/ZSCAN MATCH, CONFIG GET, PSUBSCRIBE and ACL patterns. Binary safe, no allocation,
// O(len(pattern) * len(str)) worst case. Includes only the standard library.
#pragma once

#include <string_view>

namespace keel {

// Matches `str` against `pattern` exactly as Redis 7.0 stringmatchlen() does:
//   *        any run of bytes; ?  any one byte; \x  the byte x literally ('\' last: a '\')
//   [abc] [^abc] [a-z]   a set; a reversed range [z-a] works; \x inside a set is literal x;
//                        "[a-]" is the range a..']' (Redis reads x-y whenever 3 bytes remain);
//                        an unclosed '[' takes the rest of the pattern as its set: "[ab"
//                        == "[ab]", "[" matches nothing, "[^" matches any one byte.
//   nocase folds ASCII letters for literals, sets and ranges (the range ends are folded after
//          ordering them, so nocase "[Z-a]" is empty), but an escaped byte inside a set is
//          still compared exactly. Bytes compare as signed char, as in Redis: "[a-\xff]" means
//          \xff..a, i.e. 0x00-0x61 and 0xff.
// Quirks kept on purpose:
//   - an empty `str` matches only an empty pattern: glob_match("*", "") is false. Redis's KEYS and
//     SCAN skip matching when the pattern is exactly "*" (see glob_matches_all), which is why
//     `KEYS *` lists the key "" and `KEYS **` does not.
//   - a match that must pass through more than 1000 '*' groups (consecutive stars count once; a
//     final star does not count) fails, as Redis's nesting guard makes it fail.
bool glob_match(std::string_view pattern, std::string_view str, bool nocase = false);

// True when `pattern` has none of * ? [ \ so it matches only the identical string (compare
// instead of matching; with nocase, compare case-insensitively).
bool glob_is_literal(std::string_view pattern);

// True for the pattern "*", which KEYS and SCAN treat as "no filter" (it then also matches "").
inline bool glob_matches_all(std::string_view pattern) { return pattern == "*"; }

}  // namespace keel
