// Fuzz target: base/glob.cc (glob_match) against a reference written from Redis 7's
// stringmatchlen() rules, case-sensitive and nocase, including its quirks: "" matches only "",
// an unclosed '[' takes the rest of the pattern, "[a-]" is a range when 3 bytes remain, an
// escaped byte in a set compares exactly even with nocase, bytes compare as signed char, a
// trailing '\' is literal, and a match that passes through more than 1000 star groups fails
// (the CVE-2024-31228 recursion limit; a final star group does not count).
//
// The reference is a dynamic program over (star group, string position), not a search: the
// pattern is cut into segments of single-byte tokens separated by star groups; a segment is
// matched token by token, and after star group g the next segment may start at any later
// position, so one suffix-OR row per group gives O(pattern * string) time and O(string) memory,
// with no recursion (a pattern of thousands of stars cannot exhaust the stack).
//
// Input: byte 0 flags (bit0 nocase, bit1 repeat mode), u16 pattern length, the pattern, then the
// string. Repeat mode: the pattern is repeated (byte count from the input) and the string is
// repeated too, giving long pathological pairs ("*a*a*a...b" against "aaaa...") that must
// still finish in polynomial time (libFuzzer's -timeout catches a blow-up).
#include <string>
#include <vector>

#include "base/glob.h"
#include "fuzz_util.h"

using keel::fuzz::Input;

namespace {

constexpr int kMaxGroups = 1000;

// The reference is neither instrumented nor sanitized: it costs O(pattern * string) and would
// otherwise dominate every execution; coverage feedback comes from glob_match itself.
#ifdef __clang__
#define REFERENCE_CODE __attribute__((no_sanitize("coverage", "address", "undefined")))
#else
#define REFERENCE_CODE
#endif

REFERENCE_CODE int sbyte(char c) { return static_cast<signed char>(c); }
REFERENCE_CODE int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

// Matches the single-byte token at p[i] (not '*') against c; *next gets the position after it.
// Raw pointers only: std::string_view / std::vector accessors would be instrumented functions.
REFERENCE_CODE bool token(const char* p, size_t m, size_t i, char c, bool nocase, size_t* next) {
  if (p[i] == '?') {
    *next = i + 1;
    return true;
  }
  if (p[i] == '[') {
    size_t j = i + 1;
    const bool negate = j < m && p[j] == '^';
    if (negate) j++;
    bool hit = false;
    for (;;) {
      if (j < m && p[j] == '\\' && m - j >= 2) {
        j++;
        if (p[j] == c) hit = true;  // exact, even with nocase
        j++;
      } else if (j < m && p[j] == ']') {
        j++;
        break;
      } else if (j >= m) {
        break;  // unclosed: the set ends with the pattern
      } else if (m - j >= 3 && p[j + 1] == '-') {
        int a = sbyte(p[j]), b = sbyte(p[j + 2]), x = sbyte(c);
        if (a > b) {
          const int t = a;
          a = b;
          b = t;
        }
        if (nocase) a = lower(a), b = lower(b), x = lower(x);
        if (x >= a && x <= b) hit = true;
        j += 3;
      } else {
        if (nocase ? lower(sbyte(p[j])) == lower(sbyte(c)) : p[j] == c) hit = true;
        j++;
      }
    }
    *next = j;
    return hit != negate;
  }
  char want = p[i];
  *next = i + 1;
  if (p[i] == '\\' && i + 1 < m) {
    want = p[i + 1];
    *next = i + 2;
  }
  return nocase ? lower(sbyte(want)) == lower(sbyte(c)) : want == c;
}

struct Reference {
  std::string_view p, s;
  bool nocase;
  size_t m, n;
  // Segments: [seg_begin[k], seg_end[k]) holds no star group; segment 0 is before the first
  // group, segment k >= 1 follows star group k. final_star: the pattern ends with a group.
  std::vector<size_t> seg_begin{0}, seg_end;
  size_t groups = 0;
  bool final_star = false;

  REFERENCE_CODE Reference(std::string_view pat, std::string_view str, bool nc)
      : p(pat), s(str), nocase(nc), m(pat.size()), n(str.size()) {
    for (size_t i = 0; i < m;) {
      if (p[i] != '*') {
        size_t next;
        token(p.data(), m, i, 'x', false, &next);  // a token's extent does not depend on the byte,
        i = next;                        // so a '*' inside a set or after '\\' is literal
        continue;
      }
      seg_end.push_back(i);
      while (i < m && p[i] == '*') i++;
      seg_begin.push_back(i);
    }
    seg_end.push_back(m);
    groups = seg_begin.size() - 1;
    final_star = groups > 0 && seg_begin.back() == m;
  }

  // True when everything from segment k's position i on is stars (what Redis strips when the
  // string runs out in the middle of the pattern).
  REFERENCE_CODE bool only_stars_after(size_t k, size_t i) const {
    const size_t* b = seg_begin.data();
    const size_t* e = seg_end.data();
    if (i < e[k]) return false;
    for (size_t j = k + 1; j <= groups; j++) {
      if (b[j] < e[j]) return false;
    }
    return true;
  }

  // Segment k matched from string position st, then what follows. `later` is the suffix-OR
  // row of segment k + 1 (later[x]: segment k + 1 matches from some position >= x).
  REFERENCE_CODE bool run_segment(size_t k, size_t st, const char* later) const {
    const char* pd = p.data();
    const char* sd = s.data();
    const size_t end = seg_end.data()[k];
    size_t i = seg_begin.data()[k], si = st;
    while (i < end) {
      size_t next;
      if (!token(pd, m, i, sd[si], nocase, &next)) return false;
      i = next;
      si++;
      if (si == n) return only_stars_after(k, i);
    }
    // Segment done, string left: a star group must follow.
    if (k + 1 > groups) return false;
    if (k + 1 == groups && final_star) return true;
    if (k + 1 > static_cast<size_t>(kMaxGroups)) return false;  // Redis's nesting limit
    return later[si] != 0;
  }

  REFERENCE_CODE bool match() const {
    if (n == 0) return m == 0;
    std::vector<char> rows(2 * (n + 1), 0);
    char* later = rows.data();
    char* cur = later + n + 1;
    for (size_t k = groups; k >= 1; k--) {
      if (k == groups && final_star) continue;  // the empty last segment is never run
      cur[n] = 0;
      for (size_t st = n; st-- > 0;) cur[st] = static_cast<char>(run_segment(k, st, later) || cur[st + 1]);
      char* t = later;
      later = cur;
      cur = t;
    }
    return run_segment(0, 0, later);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const uint8_t flags = in.u8();
  const bool nocase = flags & 1;
  std::string pattern(in.bytes(in.u16() % (in.left() + 1)));
  std::string str(in.rest());
  if (flags & 2) {
    // Repeat mode: counts from the flags' high bits; the string's last byte is moved to the end
    // of the repeated string so "aaa...b"-style tails survive.
    const size_t prep = 1 + ((flags >> 2) & 7) * 37;
    const size_t srep = 1 + (flags >> 5) * 211;
    std::string p2, s2;
    for (size_t i = 0; i < prep && p2.size() < 2000; i++) p2 += pattern;
    std::string body = str, tail;
    if (!body.empty()) {
      tail = body.substr(body.size() - 1);
      body.pop_back();
    }
    for (size_t i = 0; i < srep && s2.size() < 3000; i++) s2 += body;
    pattern = std::move(p2);
    str = s2 + tail;
  }
  const bool got = keel::glob_match(pattern, str, nocase);
  if (pattern.size() * str.size() <= 4000000) {
    const bool want = Reference(pattern, str, nocase).match();
    if (got != want) {
      std::fprintf(stderr, "pattern [%s] string [%s] nocase %d: glob_match %d, reference %d\n",
                   keel::fuzz::show(pattern).c_str(), keel::fuzz::show(str).c_str(), nocase, got, want);
      FUZZ_CHECK(false);
    }
  }
  // A literal pattern matches exactly itself (non-empty), or case-insensitively with nocase.
  if (keel::glob_is_literal(pattern) && !str.empty() && !nocase) FUZZ_CHECK(got == (pattern == str));
  return 0;
}
