// Fuzz target: the inline path of protocol/resp_parser.cc (split_inline: quotes and escapes,
// unescaped in place) against a reference model written from Redis's sdssplitargs() rules.
//
// Input layout: byte 0 bit0 picks "\n" instead of "\r\n" as the line end, bit1 appends a final
// line without its newline (an incomplete request that must stay pending); the rest is split at
// '\n' into request lines. A line starting with '*' gets a leading space so it stays inline.
//
// The reference (checked against redis-server 7.0.15 with raw sockets):
//   - a line holding a NUL byte never completes (Redis finds the newline with strchr(), which
//     stops at the NUL): the parser keeps answering "need more" (until more than 64 KB are
//     buffered: "too big inline request"), and nothing after it runs;
//   - blanks between arguments are isspace() bytes (space \t \n \v \f \r);
//   - an unquoted argument ends only at space, \t, \n, \r or NUL: "a\vb" is ONE argument;
//   - a quote may open in the middle of an argument: a"b c"d is "ab cd";
//   - "double quotes": \xHH (two hex digits, either case), \n \r \t \b \a, \<any other byte> is
//     that byte; a backslash as the last byte of the line is kept (then the quote is unclosed);
//   - 'single quotes': only \' is an escape;
//   - a closing quote must be followed by a blank (isspace or NUL) or the end of the line, else
//     the request is "Protocol error: unbalanced quotes in request", as is an unclosed quote.
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "protocol/resp_parser.h"

using keel::RequestParser;
using keel::fuzz::Input;

namespace {

using Args = std::vector<std::string>;

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == '\0';
}
bool ends_unquoted(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; }
int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// nullopt: unbalanced quotes.
std::optional<Args> reference_split(std::string_view line) {
  Args out;
  size_t i = 0;
  const size_t n = line.size();
  auto at = [&](size_t k) -> int { return k < n ? static_cast<unsigned char>(line[k]) : -1; };
  for (;;) {
    while (i < n && is_blank(line[i])) i++;
    if (i >= n) return out;
    std::string cur;
    enum { kPlain, kDouble, kSingle } mode = kPlain;
    for (;;) {
      if (mode == kDouble) {
        if (i >= n) return std::nullopt;
        if (line[i] == '\\' && at(i + 1) == 'x' && at(i + 2) >= 0 && hexval(line[i + 2]) >= 0 &&
            at(i + 3) >= 0 && hexval(line[i + 3]) >= 0) {
          cur += static_cast<char>(hexval(line[i + 2]) * 16 + hexval(line[i + 3]));
          i += 4;
        } else if (line[i] == '\\' && i + 1 < n) {
          const char e = line[i + 1];
          cur += e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e == 'b' ? '\b' : e == 'a' ? '\a' : e;
          i += 2;
        } else if (line[i] == '"') {
          if (i + 1 < n && !is_blank(line[i + 1])) return std::nullopt;
          i++;
          break;
        } else {
          cur += line[i++];
        }
      } else if (mode == kSingle) {
        if (i >= n) return std::nullopt;
        if (line[i] == '\\' && at(i + 1) == '\'') {
          cur += '\'';
          i += 2;
        } else if (line[i] == '\'') {
          if (i + 1 < n && !is_blank(line[i + 1])) return std::nullopt;
          i++;
          break;
        } else {
          cur += line[i++];
        }
      } else {
        if (i >= n || ends_unquoted(line[i])) break;
        if (line[i] == '"') {
          mode = kDouble;
        } else if (line[i] == '\'') {
          mode = kSingle;
        } else {
          cur += line[i];
        }
        i++;
      }
    }
    out.push_back(std::move(cur));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const uint8_t flags = in.u8();
  const std::string_view eol = (flags & 1) ? "\n" : "\r\n";
  const bool partial_tail = flags & 2;
  const std::string_view body = in.rest();

  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    const size_t nl = body.find('\n', start);
    std::string line(body.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (!line.empty() && line[0] == '*') line.insert(0, 1, ' ');
    // "\r" right before the newline belongs to the line end, not to the line.
    while (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  std::string stream;
  for (size_t i = 0; i < lines.size(); i++) {
    stream += lines[i];
    if (i + 1 < lines.size() || !partial_tail) stream += eol;
  }

  std::unique_ptr<char[]> buf(new char[stream.size() + 1]);
  std::memcpy(buf.get(), stream.data(), stream.size());
  RequestParser parser;
  size_t pos = 0;
  for (size_t i = 0; i < lines.size(); i++) {
    const bool complete = i + 1 < lines.size() || !partial_tail;
    if (lines[i].find('\0') != std::string::npos) {
      const RequestParser::Result r = parser.parse(buf.get(), stream.size(), pos, true);
      if (stream.size() - pos > RequestParser::kMaxInline) {
        FUZZ_CHECK(r == RequestParser::Result::kError);
        FUZZ_CHECK(parser.error() == "Protocol error: too big inline request");
      } else {
        FUZZ_CHECK(r == RequestParser::Result::kNeedMore);
      }
      return 0;
    }
    const std::optional<Args> want = complete ? reference_split(lines[i]) : Args{};
    if (complete && want && want->empty()) continue;  // blank lines produce no command
    const RequestParser::Result r = parser.parse(buf.get(), stream.size(), pos, true);
    if (!complete) {
      FUZZ_CHECK(r == RequestParser::Result::kNeedMore);
      break;
    }
    if (!want) {
      FUZZ_CHECK(r == RequestParser::Result::kError);
      FUZZ_CHECK(parser.error() == "Protocol error: unbalanced quotes in request");
      return 0;
    }
    if (r != RequestParser::Result::kCommand) {
      std::fprintf(stderr, "line [%s]: result %d, expected a command\n", keel::fuzz::show(lines[i]).c_str(),
                   static_cast<int>(r));
      FUZZ_CHECK(false);
    }
    Args got;
    for (const keel::ArgSpan& a : parser.args()) got.emplace_back(buf.get() + a.off, a.len);
    if (got != *want) {
      std::fprintf(stderr, "line [%s]\n", keel::fuzz::show(lines[i]).c_str());
      for (const auto& a : got) std::fprintf(stderr, "  got  [%s]\n", keel::fuzz::show(a).c_str());
      for (const auto& a : *want) std::fprintf(stderr, "  want [%s]\n", keel::fuzz::show(a).c_str());
      FUZZ_CHECK(false && "inline split differs from the reference");
    }
  }
  // Everything complete was consumed.
  const RequestParser::Result r = parser.parse(buf.get(), stream.size(), pos, true);
  FUZZ_CHECK(r == RequestParser::Result::kNeedMore);
  return 0;
}
