// Incremental RESP request parser: multibulk (`*N\r\n$len\r\n...`) and inline commands.
// Arguments are returned as offsets into the caller's query buffer, never copied; inline
// arguments with quotes/escapes are unescaped in place (the result is never longer). The parser
// keeps its state between calls, so a command split across reads is not re-scanned from its
// start, and a large bulk is read straight into the buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

struct ProtocolLimits {
  int64_t proto_max_bulk_len = 512ll * 1024 * 1024;
  size_t client_query_buffer_limit = 1024ull * 1024 * 1024;
};
// A global, not a function-local static: read on every bulk length, with no guard check.
extern constinit ProtocolLimits g_protocol_limits;
inline ProtocolLimits& protocol_limits() { return g_protocol_limits; }

struct ArgSpan {
  size_t off;
  size_t len;
};

class RequestParser {
 public:
  enum class Result { kCommand, kNeedMore, kError };
  static constexpr size_t kMaxInline = 64 * 1024;

  // Parses one command from data[pos, len). kCommand: args() holds it and pos is advanced past
  // it. kNeedMore: everything consumed so far is remembered; call again with more data.
  // kError: error() has the Redis text ("Protocol error: ..."); the connection must be closed.
  // The error is sticky: every later call returns kError again and consumes nothing, so input
  // that arrives before the close is never parsed (an inline line refused as too big must not
  // run once its newline shows up).
  // `authenticated` false applies Redis's tighter limits for clients that did not AUTH yet.
  Result parse(char* data, size_t len, size_t& pos, bool authenticated = true);
  const std::vector<ArgSpan>& args() const { return args_; }
  // After kCommand: where the command's bytes start (its '*'; they end at the new pos), or
  // kNoStart for an inline command. Every number the parser accepts is in its shortest form
  // (as Redis's string2ll: no sign, no leading zero), so such bytes are the command's canonical
  // encoding unless one of the two bytes after a '\r' it skips unread (as Redis does) is not
  // "\n" or an argument is not followed by "\r\n" (is_crlf_framed in commands/propagate.h).
  static constexpr size_t kNoStart = SIZE_MAX;
  size_t command_start() const { return start_; }
  std::string_view error() const { return error_; }
  // The buffer's first `delta` bytes were dropped: shift offsets of a partial command.
  void rebase(size_t delta);
  // Bytes of the bulk being read that are not in the buffer yet (`buffered` bytes are), 0 when
  // no bulk is being read: the reader grows the buffer towards it as data arrives, never up
  // front (a length header alone must not allocate, CVE-2021-32675).
  size_t bytes_missing(size_t buffered) const;
  bool in_command() const { return state_ != State::kIdle && state_ != State::kError; }

 private:
  enum class State { kIdle, kCount, kBulkLen, kBulkData, kError };
  Result parse_inline(char* data, size_t len, size_t& pos);
  Result fail(std::string_view msg);

  State state_ = State::kIdle;
  int64_t remaining_ = 0;     // arguments still to read in the multibulk
  int64_t bulk_len_ = -1;     // length of the bulk being read
  size_t scan_ = 0;           // where the current line starts
  size_t start_ = kNoStart;   // where the current multibulk starts (its '*')
  std::vector<ArgSpan> args_;
  std::string error_;
};

}  // namespace keel
