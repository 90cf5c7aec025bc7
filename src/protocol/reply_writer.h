// Writes RESP2/RESP3 replies straight into a client's output Buffer. Each call appends one
// complete RESP element (or an aggregate header), so a command's reply is the sequence of calls
// it makes. Numbers are formatted with to_chars-style helpers; constant replies are memcpy'd.
// Error replies are counted (total and per error code) for INFO errorstats.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/buffer.h"

namespace keel {

// Per-error-code reply counters ("ERR", "WRONGTYPE", ...) for INFO errorstats.
struct ErrorStats {
  static constexpr int kMaxCodes = 128;
  struct Code {
    char name[32];
    uint64_t count;
  };
  Code codes[kMaxCodes];
  int ncodes = 0;
  uint64_t total = 0;
  void record(std::string_view error_text);
  void reset() { ncodes = 0, total = 0; }
};
ErrorStats& error_stats();

class ReplyWriter {
 public:
  ReplyWriter() = default;
  ReplyWriter(Buffer* out, int resp) : out_(out), resp_(resp) {}
  void reset(Buffer* out, int resp) { out_ = out, resp_ = resp; }

  int resp() const { return resp_; }
  void set_resp(int v) { resp_ = v; }
  Buffer* buffer() { return out_; }
  uint64_t errors() const { return errors_; }

  void ok();
  void simple(std::string_view s);     // "+s"
  void error(std::string_view text);   // "-text"; text has no '-' and no CRLF
  void error_fmt(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  void integer(int64_t v);
  void bulk(std::string_view s);
  void bulk_int(int64_t v);            // an integer as a bulk string
  void bulk_double(double v);          // RESP2 bulk / RESP3 double, Redis's human form
  void null();                         // $-1 or _
  void null_array();                   // *-1 or _
  void array(size_t n);
  void map(size_t n);                  // RESP3 %n, RESP2 *2n
  void set(size_t n);                  // RESP3 ~n, RESP2 *n
  void push(size_t n);                 // RESP3 >n, RESP2 *n
  void boolean(bool b);                // RESP3 #t/#f, RESP2 :1/:0
  void dbl(double v);                  // RESP3 ,v; RESP2 bulk
  void verbatim(std::string_view s, std::string_view fmt = "txt");  // RESP3 =, RESP2 bulk
  void raw(std::string_view s);        // preformatted protocol bytes

  // Aggregates whose length is only known at the end (SCAN, KEYS): begin returns a token,
  // end inserts the header in front of what was written since.
  size_t begin_deferred();
  void end_deferred_array(size_t token, size_t n);
  void end_deferred_map(size_t token, size_t n);
  void end_deferred_set(size_t token, size_t n);

 private:
  void header(char type, int64_t n);
  void insert_header(size_t at, char type, int64_t n);

  Buffer* out_ = nullptr;
  int resp_ = 2;
  uint64_t errors_ = 0;
};

}  // namespace keel
