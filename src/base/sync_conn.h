// A blocking TCP exchange with a deadline, for the one command that talks to another server from
// inside the event loop, as Redis does (MIGRATE: its syncWrite / syncReadLine). The loop waits
// for at most the caller's timeout; nothing here touches libuv.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace keel {

class SyncConn {
 public:
  SyncConn() = default;
  SyncConn(const SyncConn&) = delete;
  SyncConn& operator=(const SyncConn&) = delete;
  ~SyncConn();

  // Each call waits at most timeout_ms. False on failure; timed_out() tells a timeout from a
  // refusal or a reset.
  bool connect(const std::string& host, int64_t port, int64_t timeout_ms);
  bool write_all(std::string_view data, int64_t timeout_ms);
  bool read_line(std::string* line, int64_t timeout_ms);  // one line, without its CRLF
  bool timed_out() const { return timed_out_; }

 private:
  bool wait(short events, int64_t deadline_ms);
  int fd_ = -1;
  bool timed_out_ = false;
  std::string in_;
};

}  // namespace keel
