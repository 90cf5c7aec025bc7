// RESP encoding. Small constant replies are single memcpy calls; integers and lengths are
// formatted into the reserved tail of the buffer without temporaries.
#include "protocol/reply_writer.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "base/numbers.h"

namespace keel {

ErrorStats& error_stats() {
  static ErrorStats stats;
  return stats;
}

void ErrorStats::record(std::string_view text) {
  total++;
  // Redis looks for the space in the first 32 bytes of "-CODE message": a code is at most 30
  // bytes, and an error without one (no space there, e.g. a script's {err='plain'}) is "ERR".
  const size_t sp = text.substr(0, 31).find(' ');
  const std::string_view code = sp == std::string_view::npos ? std::string_view("ERR") : text.substr(0, sp);
  for (int i = 0; i < ncodes; i++) {
    if (code == codes[i].name) {
      codes[i].count++;
      return;
    }
  }
  if (ncodes == kMaxCodes) return;  // Redis also stops tracking new codes past a limit.
  memcpy(codes[ncodes].name, code.data(), code.size());
  codes[ncodes].name[code.size()] = 0;
  codes[ncodes].count = 1;
  ncodes++;
}

void ReplyWriter::header(char type, int64_t n) {
  char* p = out_->reserve_tail(24);
  p[0] = type;
  size_t len = 1 + format_int64(n, p + 1);
  p[len] = '\r';
  p[len + 1] = '\n';
  out_->commit(len + 2);
}

void ReplyWriter::ok() { out_->append("+OK\r\n", 5); }

void ReplyWriter::simple(std::string_view s) {
  char* p = out_->reserve_tail(s.size() + 3);
  p[0] = '+';
  memcpy(p + 1, s.data(), s.size());
  p[s.size() + 1] = '\r';
  p[s.size() + 2] = '\n';
  out_->commit(s.size() + 3);
}

void ReplyWriter::error(std::string_view text) {
  errors_++;
  error_stats().record(text);
  char* p = out_->reserve_tail(text.size() + 3);
  p[0] = '-';
  // An error line cannot contain newlines: Redis replaces them with spaces.
  for (size_t i = 0; i < text.size(); i++) {
    char c = text[i];
    p[i + 1] = (c == '\r' || c == '\n') ? ' ' : c;
  }
  p[text.size() + 1] = '\r';
  p[text.size() + 2] = '\n';
  out_->commit(text.size() + 3);
}

void ReplyWriter::error_fmt(const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if (static_cast<size_t>(n) >= sizeof(msg)) n = sizeof(msg) - 1;
  error(std::string_view(msg, static_cast<size_t>(n)));
}

void ReplyWriter::integer(int64_t v) {
  if (v == 0) return out_->append(":0\r\n", 4);
  if (v == 1) return out_->append(":1\r\n", 4);
  header(':', v);
}

void ReplyWriter::bulk(std::string_view s) {
  const size_t n = s.size();
  char* p = out_->reserve_tail(n + 32);
  p[0] = '$';
  size_t len;
  // Short values dominate range replies (LRANGE of small items): their length is one or two
  // digits, written directly.
  if (n < 10) {
    p[1] = static_cast<char>('0' + n);
    len = 2;
  } else if (n < 100) {
    p[1] = static_cast<char>('0' + n / 10);
    p[2] = static_cast<char>('0' + n % 10);
    len = 3;
  } else {
    len = 1 + format_uint64(n, p + 1);
  }
  p[len++] = '\r';
  p[len++] = '\n';
  if (!s.empty()) memcpy(p + len, s.data(), s.size());
  len += s.size();
  p[len++] = '\r';
  p[len++] = '\n';
  out_->commit(len);
}

void ReplyWriter::bulk_int(int64_t v) {
  char buf[24];
  bulk(std::string_view(buf, format_int64(v, buf)));
}

void ReplyWriter::bulk_double(double v) {
  char buf[64];
  bulk(std::string_view(buf, format_double_shortest(v, buf)));
}

void ReplyWriter::null() {
  if (resp_ == 3) return out_->append("_\r\n", 3);
  out_->append("$-1\r\n", 5);
}

void ReplyWriter::null_array() {
  if (resp_ == 3) return out_->append("_\r\n", 3);
  out_->append("*-1\r\n", 5);
}

void ReplyWriter::array(size_t n) { header('*', static_cast<int64_t>(n)); }
void ReplyWriter::map(size_t n) {
  if (resp_ == 3) return header('%', static_cast<int64_t>(n));
  header('*', static_cast<int64_t>(n * 2));
}
void ReplyWriter::set(size_t n) { header(resp_ == 3 ? '~' : '*', static_cast<int64_t>(n)); }
void ReplyWriter::push(size_t n) { header(resp_ == 3 ? '>' : '*', static_cast<int64_t>(n)); }

void ReplyWriter::boolean(bool b) {
  if (resp_ == 3) return out_->append(b ? "#t\r\n" : "#f\r\n", 4);
  integer(b ? 1 : 0);
}

void ReplyWriter::dbl(double v) {
  if (resp_ != 3) return bulk_double(v);
  char buf[64];
  buf[0] = ',';
  size_t n = 1 + format_double_shortest(v, buf + 1);
  buf[n++] = '\r';
  buf[n++] = '\n';
  out_->append(buf, n);
}

void ReplyWriter::verbatim(std::string_view s, std::string_view fmt) {
  if (resp_ != 3) return bulk(s);
  char* p = out_->reserve_tail(s.size() + fmt.size() + 32);
  p[0] = '=';
  size_t len = 1 + format_int64(static_cast<int64_t>(s.size() + fmt.size() + 1), p + 1);
  p[len++] = '\r';
  p[len++] = '\n';
  memcpy(p + len, fmt.data(), fmt.size());
  len += fmt.size();
  p[len++] = ':';
  memcpy(p + len, s.data(), s.size());
  len += s.size();
  p[len++] = '\r';
  p[len++] = '\n';
  out_->commit(len);
}

void ReplyWriter::raw(std::string_view s) { out_->append(s); }

size_t ReplyWriter::begin_deferred() { return out_->size(); }

void ReplyWriter::insert_header(size_t at, char type, int64_t n) {
  char buf[32];
  buf[0] = type;
  size_t len = 1 + format_int64(n, buf + 1);
  buf[len++] = '\r';
  buf[len++] = '\n';
  out_->insert(at, std::string_view(buf, len));
}

void ReplyWriter::end_deferred_array(size_t token, size_t n) {
  insert_header(token, '*', static_cast<int64_t>(n));
}
void ReplyWriter::end_deferred_map(size_t token, size_t n) {
  if (resp_ == 3) return insert_header(token, '%', static_cast<int64_t>(n));
  insert_header(token, '*', static_cast<int64_t>(2 * n));
}
void ReplyWriter::end_deferred_set(size_t token, size_t n) {
  insert_header(token, resp_ == 3 ? '~' : '*', static_cast<int64_t>(n));
}

}  // namespace keel
