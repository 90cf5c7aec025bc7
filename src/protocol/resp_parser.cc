// RESP request parsing. Error texts and limits follow Redis (networking.c behaviour): a bad
// count or length closes the connection after one "-ERR Protocol error: ..." reply.
#include "protocol/resp_parser.h"

#include <cctype>
#include <cstring>

#include "base/numbers.h"

namespace keel {

constinit ProtocolLimits g_protocol_limits;

RequestParser::Result RequestParser::fail(std::string_view msg) {
  error_.assign(msg);
  state_ = State::kError;
  args_.clear();
  return Result::kError;
}

void RequestParser::rebase(size_t delta) {
  if (!in_command()) return;
  scan_ -= delta;
  if (start_ != kNoStart) start_ -= delta;
  for (ArgSpan& a : args_) a.off -= delta;
}

size_t RequestParser::bytes_missing(size_t buffered) const {
  if (state_ != State::kBulkData) return 0;
  const size_t end = scan_ + static_cast<size_t>(bulk_len_) + 2;
  return end > buffered ? end - buffered : 0;
}

namespace {

// Finds "\r" starting at `from`; returns its offset or SIZE_MAX. The caller checks for "\n".
size_t find_cr(const char* data, size_t from, size_t len) {
  const void* p = memchr(data + from, '\r', len - from);
  return p ? static_cast<size_t>(static_cast<const char*>(p) - data) : SIZE_MAX;
}

// The length after '*' or '$' in its common form, 1-9 digits with no sign or leading zero and
// a '\r' after them within the data: returns the offset of that '\r' and the value, scanning
// once. Anything else returns SIZE_MAX and takes the general path (find_cr + parse_int64), which
// also produces the errors.
size_t scan_short_length(const char* data, size_t from, size_t len, int64_t* n) {
  const size_t end = len < from + 10 ? len : from + 10;
  if (from >= end || data[from] < '1' || data[from] > '9') return SIZE_MAX;
  int64_t v = data[from] - '0';
  for (size_t i = from + 1; i < end; i++) {
    const char c = data[i];
    if (c == '\r') {
      *n = v;
      return i;
    }
    if (c < '0' || c > '9') return SIZE_MAX;
    v = v * 10 + (c - '0');
  }
  return SIZE_MAX;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits an inline request line in place with the quoting rules redis-cli users rely on:
// "double quotes" with \n \r \t \b \a \xHH escapes, 'single quotes' with \' only, and a closing
// quote that must be followed by a blank. Returns false on unbalanced quotes.
bool split_inline(char* line, size_t n, size_t base, std::vector<ArgSpan>& out) {
  size_t r = 0, w = 0;
  auto blank = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0' || c == '\v' || c == '\f'; };
  // Redis ends an unquoted argument only at these: "a\vb" is one argument (blank() above, which
  // also has \v and \f, separates arguments and must follow a closing quote).
  auto ends_arg = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0'; };
  for (;;) {
    while (r < n && blank(line[r])) r++;
    if (r >= n) return true;
    const size_t start = w;
    bool in_dq = false, in_sq = false, done = false;
    while (!done) {
      if (in_dq) {
        if (r >= n) return false;
        if (line[r] == '\\' && r + 3 < n + 0 && line[r + 1] == 'x' && hex_value(line[r + 2]) >= 0 &&
            hex_value(line[r + 3]) >= 0) {
          line[w++] = static_cast<char>(hex_value(line[r + 2]) * 16 + hex_value(line[r + 3]));
          r += 4;
        } else if (line[r] == '\\' && r + 1 < n) {
          char c = line[r + 1];
          switch (c) {
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'b': c = '\b'; break;
            case 'a': c = '\a'; break;
            default: break;
          }
          line[w++] = c;
          r += 2;
        } else if (line[r] == '"') {
          if (r + 1 < n && !blank(line[r + 1])) return false;
          r++;
          done = true;
        } else {
          line[w++] = line[r++];
        }
      } else if (in_sq) {
        if (r >= n) return false;
        if (line[r] == '\\' && r + 1 < n && line[r + 1] == '\'') {
          line[w++] = '\'';
          r += 2;
        } else if (line[r] == '\'') {
          if (r + 1 < n && !blank(line[r + 1])) return false;
          r++;
          done = true;
        } else {
          line[w++] = line[r++];
        }
      } else if (r >= n || ends_arg(line[r])) {
        done = true;
      } else if (line[r] == '"') {
        in_dq = true;
        r++;
      } else if (line[r] == '\'') {
        in_sq = true;
        r++;
      } else {
        line[w++] = line[r++];
      }
    }
    out.push_back({base + start, w - start});
    // Keep one byte of gap so the next argument's output never overtakes its input.
    if (r < n) r++;
    w++;
  }
}

}  // namespace

RequestParser::Result RequestParser::parse_inline(char* data, size_t len, size_t& pos) {
  for (;;) {
    if (pos >= len) return Result::kNeedMore;
    const void* nlp = memchr(data + pos, '\n', len - pos);
    // Redis finds the end of an inline line with strchr() on the NUL-terminated query buffer:
    // a NUL byte before the newline hides it, so such a line never completes. The bytes wait
    // (nothing after them runs) until more than 64 KB are buffered, then the protocol error
    // below closes the connection.
    if (nlp && memchr(data + pos, '\0', static_cast<size_t>(static_cast<const char*>(nlp) - (data + pos)))) {
      nlp = nullptr;
    }
    if (!nlp) {
      if (len - pos > kMaxInline) return fail("Protocol error: too big inline request");
      return Result::kNeedMore;
    }
    size_t nl = static_cast<size_t>(static_cast<const char*>(nlp) - data);
    size_t end = nl;
    if (end > pos && data[end - 1] == '\r') end--;
    args_.clear();
    if (!split_inline(data + pos, end - pos, pos, args_)) {
      return fail("Protocol error: unbalanced quotes in request");
    }
    pos = nl + 1;
    if (!args_.empty()) return Result::kCommand;
    if (pos >= len || data[pos] == '*') return Result::kNeedMore;
  }
}

RequestParser::Result RequestParser::parse(char* data, size_t len, size_t& pos, bool authenticated) {
  for (;;) {
    switch (state_) {
      case State::kError:
        return Result::kError;
      case State::kIdle: {
        if (pos >= len) return Result::kNeedMore;
        args_.clear();
        start_ = kNoStart;
        if (data[pos] != '*') {
          Result r = parse_inline(data, len, pos);
          if (r != Result::kNeedMore || pos >= len || data[pos] != '*') return r;
        }
        state_ = State::kCount;
        scan_ = pos;
        start_ = pos;
        [[fallthrough]];
      }
      case State::kCount: {
        int64_t n = 0;
        size_t cr = scan_short_length(data, scan_ + 1, len, &n);
        if (cr == SIZE_MAX || cr + 1 >= len) {
          cr = find_cr(data, scan_, len);
          if (cr == SIZE_MAX || cr + 1 >= len) {
            if (len - scan_ > kMaxInline) return fail("Protocol error: too big mbulk count string");
            return Result::kNeedMore;
          }
          if (!parse_int64(std::string_view(data + scan_ + 1, cr - scan_ - 1), &n) ||
              n > INT32_MAX) {
            return fail("Protocol error: invalid multibulk length");
          }
        }
        if (!authenticated && n > 10) return fail("Protocol error: unauthenticated multibulk length");
        if (n <= 0) {  // "*0" and "*-1" are empty requests: skip them.
          state_ = State::kIdle;
          pos = cr + 2;
          continue;
        }
        remaining_ = n;
        scan_ = cr + 2;
        state_ = State::kBulkLen;
        [[fallthrough]];
      }
      case State::kBulkLen: {
        if (scan_ >= len) return Result::kNeedMore;
        int64_t n = 0;
        size_t cr = data[scan_] == '$' ? scan_short_length(data, scan_ + 1, len, &n) : SIZE_MAX;
        if (cr == SIZE_MAX || cr + 1 >= len) {
          cr = find_cr(data, scan_, len);
          if (cr == SIZE_MAX || cr + 1 >= len) {
            if (len - scan_ > kMaxInline) return fail("Protocol error: too big bulk count string");
            return Result::kNeedMore;
          }
          if (data[scan_] != '$') {
            char msg[64];
            snprintf(msg, sizeof(msg), "Protocol error: expected '$', got '%c'", data[scan_]);
            return fail(msg);
          }
          if (!parse_int64(std::string_view(data + scan_ + 1, cr - scan_ - 1), &n) || n < 0) {
            return fail("Protocol error: invalid bulk length");
          }
        }
        if (n > protocol_limits().proto_max_bulk_len) return fail("Protocol error: invalid bulk length");
        if (!authenticated && n > 16384) return fail("Protocol error: unauthenticated bulk length");
        bulk_len_ = n;
        scan_ = cr + 2;
        state_ = State::kBulkData;
        [[fallthrough]];
      }
      case State::kBulkData: {
        size_t need = static_cast<size_t>(bulk_len_) + 2;
        if (len - scan_ < need) return Result::kNeedMore;
        args_.push_back({scan_, static_cast<size_t>(bulk_len_)});
        scan_ += need;
        if (--remaining_ > 0) {
          state_ = State::kBulkLen;
          continue;
        }
        state_ = State::kIdle;
        pos = scan_;
        return Result::kCommand;
      }
    }
  }
}

}  // namespace keel
