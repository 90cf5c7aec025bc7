// Glob matching. Redis's stringmatchlen() recurses once per '*' and cuts the search short when a
// star's remainder fails everywhere; this is the equivalent iterative form: remember only the
// most recent star and, on a mismatch, let it swallow one more byte. That is exact for globs
// because every other token consumes exactly one byte, so retrying an earlier star can only ask
// the same remainder to match a suffix already tried. Worst case O(pattern * string).
#include "base/glob.h"

#include <cstddef>
#include <cstring>

namespace keel {
namespace {

// Redis gives up (no match) when its recursion passes 1000 nested stars.
constexpr int kMaxStarNesting = 1000;

// Redis compares pattern and string bytes as (signed) char and folds with tolower() in the C
// locale, which only touches A-Z.
inline int sbyte(char c) { return static_cast<signed char>(c); }
inline int fold(int c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }
inline bool same_byte(char a, char b, bool nocase) {
  return nocase ? fold(sbyte(a)) == fold(sbyte(b)) : a == b;
}

// Matches the set starting at pat[p] == '[' against `c`; *next gets the position after it.
bool match_set(std::string_view pat, size_t p, char c, bool nocase, size_t* next) {
  const size_t m = pat.size();
  size_t q = p + 1;
  const bool negate = q < m && pat[q] == '^';
  if (negate) ++q;
  bool matched = false;
  // Order matters and follows Redis: an escape needs 2 bytes left, then ']', then the end of
  // the pattern (an unclosed set simply ends there), then a range whenever 3 bytes remain and
  // the middle one is '-' (so "a-]" is a range ending at ']'), else a single byte.
  while (q < m) {
    const size_t left = m - q;
    if (pat[q] == '\\' && left >= 2) {
      if (pat[q + 1] == c) matched = true;  // exact even with nocase, as in Redis
      q += 2;
    } else if (pat[q] == ']') {
      ++q;
      break;
    } else if (left >= 3 && pat[q + 1] == '-') {
      int lo = sbyte(pat[q]);
      int hi = sbyte(pat[q + 2]);
      if (lo > hi) {
        const int t = lo;
        lo = hi;
        hi = t;
      }
      int x = sbyte(c);
      if (nocase) {
        lo = fold(lo);
        hi = fold(hi);
        x = fold(x);
      }
      if (x >= lo && x <= hi) matched = true;
      q += 3;
    } else {
      if (same_byte(pat[q], c, nocase)) matched = true;
      ++q;
    }
  }
  *next = q;
  return matched != negate;
}

// Matches the single-byte token at pat[p] (anything but '*') against `c`.
bool match_token(std::string_view pat, size_t p, char c, bool nocase, size_t* next) {
  switch (pat[p]) {
    case '?':
      *next = p + 1;
      return true;
    case '[':
      return match_set(pat, p, c, nocase, next);
    case '\\':
      if (p + 1 < pat.size()) {
        *next = p + 2;
        return same_byte(pat[p + 1], c, nocase);
      }
      *next = p + 1;  // a trailing backslash is itself
      return same_byte('\\', c, nocase);
    default:
      *next = p + 1;
      return same_byte(pat[p], c, nocase);
  }
}

// When pat[p] is a byte that matches only itself (case-sensitive), moves *s to its next
// occurrence in str at or after *s; false if there is none (then nothing after *s can match).
// Other tokens leave *s alone.
inline bool skip_to_literal(std::string_view pat, size_t p, std::string_view str, bool nocase, size_t* s) {
  const char c = pat[p];
  if (nocase || c == '?' || c == '[' || c == '\\') return true;
  const void* hit = memchr(str.data() + *s, c, str.size() - *s);
  if (hit == nullptr) return false;
  *s = static_cast<size_t>(static_cast<const char*>(hit) - str.data());
  return true;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view str, bool nocase) {
  const size_t m = pattern.size();
  const size_t n = str.size();
  // Redis's loop runs only while both are non-empty, so "" matches only "" (even "*" fails).
  if (n == 0) return m == 0;
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t p = 0;
  size_t s = 0;
  size_t star_p = kNone;  // pattern position just after the latest star group
  size_t star_s = 0;      // where in `str` that star's remainder is being tried
  int star_depth = 0;     // ordinal of that star group (Redis's recursion depth)
  int depth = 0;
  while (true) {
    if (s == n) {
      // The string is used up: only trailing stars may remain.
      while (p < m && pattern[p] == '*') ++p;
      if (p == m) return true;
    } else if (p < m && pattern[p] == '*') {
      while (p < m && pattern[p] == '*') ++p;
      if (p == m) return true;  // a final star takes the rest
      if (++depth > kMaxStarNesting) return false;
      star_p = p;
      star_s = s;
      star_depth = depth;
      // A plain byte after the star: its remainder can only start where that byte occurs.
      if (!skip_to_literal(pattern, p, str, nocase, &s)) return false;
      star_s = s;
      continue;
    } else if (p < m) {
      size_t next = 0;
      if (match_token(pattern, p, str[s], nocase, &next)) {
        p = next;
        ++s;
        continue;
      }
    }
    // Mismatch: the latest star takes one more byte. Its remainder is never tried against the
    // empty suffix (it needs at least one byte), matching Redis.
    if (star_p == kNone || ++star_s == n) return false;
    if (!skip_to_literal(pattern, star_p, str, nocase, &star_s)) return false;
    p = star_p;
    s = star_s;
    depth = star_depth;
  }
}

bool glob_is_literal(std::string_view pattern) {
  return pattern.find_first_of("*?[\\") == std::string_view::npos;
}

}  // namespace keel
