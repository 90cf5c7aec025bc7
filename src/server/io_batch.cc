// io_uring batching of a loop iteration's socket reads and writes (io_batch.h).
#include "server/io_batch.h"

#include <liburing.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/assert.h"
#include "base/log.h"
#include "server/config.h"

namespace keel {
namespace {
constexpr unsigned kRingEntries = 256;
constexpr int kFlags = MSG_DONTWAIT | MSG_NOSIGNAL;

io_uring g_ring;
bool g_ring_ready = false;

void run_one(IoRequest& r) {
  const ssize_t n = r.recv ? ::recv(r.fd, r.data, r.len, MSG_DONTWAIT) : ::send(r.fd, r.data, r.len, kFlags);
  r.result = n >= 0 ? n : -errno;
}
}  // namespace

bool io_batch_init() {
  if (g_ring_ready) return true;
  io_uring_params p;
  memset(&p, 0, sizeof(p));
  // Only this thread submits, and completions need no interrupt of it: both let the kernel
  // skip work (Linux 6.0 / 5.19). Older kernels refuse the flags: retry without them.
#if defined(IORING_SETUP_SINGLE_ISSUER) && defined(IORING_SETUP_COOP_TASKRUN)
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
#endif
  int rc = io_uring_queue_init_params(kRingEntries, &g_ring, &p);
  if (rc == -EINVAL) {
    memset(&p, 0, sizeof(p));
    rc = io_uring_queue_init_params(kRingEntries, &g_ring, &p);
  }
  if (rc < 0) {
    LOG_NOTICE("io_uring is not available (%s): socket reads and writes are one system call each",
               strerror(-rc));
    return false;
  }
  g_ring_ready = true;
  return true;
}

bool io_batch_active() { return g_ring_ready && server_options().io_uring; }

void io_batch_run(std::span<IoRequest> reqs) {
  if (!io_batch_active() || reqs.size() < 2) {
    for (IoRequest& r : reqs) run_one(r);
    return;
  }
  for (size_t base = 0; base < reqs.size(); base += kRingEntries) {
    const size_t n = std::min<size_t>(kRingEntries, reqs.size() - base);
    for (size_t i = base; i < base + n; i++) {
      IoRequest& r = reqs[i];
      io_uring_sqe* sqe = io_uring_get_sqe(&g_ring);  // never null: the ring is empty here
      if (r.recv) {
        io_uring_prep_recv(sqe, r.fd, r.data, r.len, MSG_DONTWAIT);
      } else {
        io_uring_prep_send(sqe, r.fd, r.data, r.len, kFlags);
      }
      io_uring_sqe_set_data64(sqe, i);
      r.result = -EINPROGRESS;
    }
    // Every request is tried inline and completes within the call (MSG_DONTWAIT), so waiting
    // for all n never sleeps; it is what makes the buffers free again when this returns.
    int rc;
    do {
      rc = io_uring_submit_and_wait(&g_ring, static_cast<unsigned>(n));
    } while (rc == -EINTR);
    size_t seen = 0;
    unsigned head;
    io_uring_cqe* cqe;
    io_uring_for_each_cqe(&g_ring, head, cqe) {
      reqs[io_uring_cqe_get_data64(cqe)].result = cqe->res;
      seen++;
    }
    io_uring_cq_advance(&g_ring, static_cast<unsigned>(seen));
    if (KEEL_UNLIKELY(rc < 0 || seen < n)) {
      // The ring itself failed (not seen in practice: it holds one round at a time, reaped in
      // full). Entries it did not take must never go out later with stale buffers: drop the
      // ring, run what has no result the plain way, and stay on plain calls from now on.
      LOG_WARNING("io_uring_enter failed (%s): socket I/O is one system call per request from now on",
                  strerror(rc < 0 ? -rc : EIO));
      io_uring_queue_exit(&g_ring);
      g_ring_ready = false;
      for (size_t i = base; i < reqs.size(); i++) {
        if (i >= base + n || reqs[i].result == -EINPROGRESS) run_one(reqs[i]);
      }
      return;
    }
  }
}

}  // namespace keel
