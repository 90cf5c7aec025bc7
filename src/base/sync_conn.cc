// See sync_conn.h.
#include "base/sync_conn.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/time.h"

namespace keel {

SyncConn::~SyncConn() {
  if (fd_ != -1) close(fd_);
}

bool SyncConn::wait(short events, int64_t deadline_ms) {
  for (;;) {
    const int64_t left = deadline_ms - mstime();
    if (left <= 0) {
      timed_out_ = true;
      return false;
    }
    pollfd p{fd_, events, 0};
    const int n = poll(&p, 1, static_cast<int>(left > 1000000 ? 1000000 : left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

bool SyncConn::connect(const std::string& host, int64_t port, int64_t timeout_ms) {
  if (port <= 0 || port > 65535) return false;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || res == nullptr) return false;
  const int64_t deadline = mstime() + timeout_ms;
  bool ok = false;
  for (addrinfo* a = res; a != nullptr && !ok && !timed_out_; a = a->ai_next) {
    fd_ = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ == -1) continue;
    if (::connect(fd_, a->ai_addr, a->ai_addrlen) == 0) {
      ok = true;
    } else if (errno == EINPROGRESS && wait(POLLOUT, deadline)) {
      int err = 0;
      socklen_t len = sizeof(err);
      ok = getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
    if (!ok) {
      close(fd_);
      fd_ = -1;
    }
  }
  freeaddrinfo(res);
  if (ok) {
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  return ok;
}

bool SyncConn::write_all(std::string_view data, int64_t timeout_ms) {
  if (fd_ == -1) return false;
  const int64_t deadline = mstime() + timeout_ms;
  while (!data.empty()) {
    const ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait(POLLOUT, deadline)) return false;
    } else {
      return false;
    }
  }
  return true;
}

bool SyncConn::read_line(std::string* line, int64_t timeout_ms) {
  if (fd_ == -1) return false;
  const int64_t deadline = mstime() + timeout_ms;
  for (;;) {
    const size_t nl = in_.find('\n');
    if (nl != std::string::npos) {
      line->assign(in_, 0, nl > 0 && in_[nl - 1] == '\r' ? nl - 1 : nl);
      in_.erase(0, nl + 1);
      return true;
    }
    char buf[16384];
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n > 0) {
      in_.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait(POLLIN, deadline)) return false;
    } else {
      return false;  // closed or reset
    }
  }
}

}  // namespace keel
