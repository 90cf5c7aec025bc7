// The socket I/O of one loop iteration in one system call. At one command per request
// (redis-benchmark -P 1, most real clients) every request is a read() and every reply a write()
// of a few bytes, and where a system call is expensive (page-table isolation, a paravirtual
// guest: ~1 us for an empty one on the machine RESULTS.md was measured on) entering and leaving
// the kernel costs as much as the TCP work itself. With io_uring, the reads of all the clients
// epoll found readable go to the kernel at once (Server::on_read_batch), and so do the replies
// of the before-sleep flush: one io_uring_enter per up to kRingEntries requests.
//
// Each request carries MSG_DONTWAIT, so the kernel tries it inline and posts its result (bytes,
// 0 at end of stream for a recv, -EAGAIN when the socket has nothing / no room) before
// io_uring_enter returns. The semantics are those of recv()/send() on a non-blocking socket:
// the buffers are free again when io_batch_run returns, nothing is in flight afterwards, and a
// partial send takes the usual path.
//
// Without io_uring (an old kernel, a seccomp filter, kernel.io_uring_disabled, `io-uring no`)
// io_batch_run() makes one recv()/send() per request: callers have one path either way.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <span>

namespace keel {

struct IoRequest {
  int fd;
  bool recv;       // recv into data[0, len), or send data[0, len)
  char* data;
  size_t len;
  ssize_t result;  // bytes, or -errno (-EAGAIN: nothing to read / no room to write)
};

// Sets up the ring once (Server::run); false when the kernel refuses it (logged).
bool io_batch_init();
// Whether requests go through the ring (io_uring available and the `io-uring` directive on).
bool io_batch_active();
// Runs every request and fills `result`. At most one request per socket and direction: a send
// refused with -EAGAIN must not be followed by a later one to the same socket that succeeds.
void io_batch_run(std::span<IoRequest> reqs);

}  // namespace keel
