// Splitting and quoting argument lines as Redis does (see args.h).
#include "base/args.h"

#include <cctype>
#include <cstdio>

namespace keel {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool blank(char c) { return isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

bool split_args(std::string_view line, std::vector<std::string>* out) {
  out->clear();
  size_t i = 0;
  const size_t n = line.size();
  for (;;) {
    while (i < n && blank(line[i])) i++;
    if (i >= n) return true;
    std::string cur;
    bool inq = false, insq = false, done = false;
    while (!done) {
      if (inq) {
        if (i >= n) return false;  // unterminated "
        if (line[i] == '\\' && i + 3 < n && line[i + 1] == 'x' && hex_digit(line[i + 2]) >= 0 &&
            hex_digit(line[i + 3]) >= 0) {
          cur += static_cast<char>(hex_digit(line[i + 2]) * 16 + hex_digit(line[i + 3]));
          i += 3;
        } else if (line[i] == '\\' && i + 1 < n) {
          i++;
          switch (line[i]) {
            case 'n': cur += '\n'; break;
            case 'r': cur += '\r'; break;
            case 't': cur += '\t'; break;
            case 'b': cur += '\b'; break;
            case 'a': cur += '\a'; break;
            default: cur += line[i]; break;
          }
        } else if (line[i] == '"') {
          // The closing quote must be followed by a blank or the end of the line.
          if (i + 1 < n && !blank(line[i + 1])) return false;
          done = true;
        } else {
          cur += line[i];
        }
      } else if (insq) {
        if (i >= n) return false;
        if (line[i] == '\\' && i + 1 < n && line[i + 1] == '\'') {
          i++;
          cur += '\'';
        } else if (line[i] == '\'') {
          if (i + 1 < n && !blank(line[i + 1])) return false;
          done = true;
        } else {
          cur += line[i];
        }
      } else {
        if (i >= n) break;
        switch (line[i]) {
          case ' ': case '\n': case '\r': case '\t': case '\0': done = true; break;
          case '"': inq = true; break;
          case '\'': insq = true; break;
          default: cur += line[i]; break;
        }
      }
      if (i < n) i++;
    }
    out->push_back(std::move(cur));
  }
}

std::string quote_repr(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      default:
        if (isprint(c)) {
          out += static_cast<char>(c);
        } else {
          char buf[8];
          snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        }
    }
  }
  out += '"';
  return out;
}

bool needs_repr(std::string_view s) {
  if (s.empty()) return true;
  for (unsigned char c : s) {
    if (!isprint(c) || c == ' ' || c == '"' || c == '\'' || c == '\\') return true;
  }
  return false;
}

}  // namespace keel
