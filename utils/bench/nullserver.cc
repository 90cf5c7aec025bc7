// keel-nullserver: the floor under a benchmark row. It accepts RESP connections and answers
// every command with +OK without looking at it: no keyspace, no AOF, nothing but the socket
// I/O. Its CPU per operation, measured in the same interleaved rounds as Keel and the
// reference, is what any server pays for that row's traffic on this machine (the kernel's
// TCP work for each request and reply, the wake-ups, the system calls). Where a row's client
// saturates first (-P 1 on two cores), a server faster than the client cannot do better than
// this figure however little it does per command. Used by utils/bench/aof.py; not part of
// the server and includes nothing from src/.
//
// Two I/O shapes, so the floor is measured for each way of doing the I/O:
//   default   Keel's: level-triggered epoll, then the reads of every readable client in one
//             io_uring_enter, then the replies of the iteration in one more.
//   --plain   Redis's: one read() per readable client and one write() per reply.
// With --aof FILE it also appends each iteration's input to FILE in one write() before any
// reply of that iteration leaves, what both servers do under appendfsync everysec (the fsync
// itself is on their background threads): the floor of a row with an append-only file.
//
// usage: keel-nullserver [--plain] [--aof FILE] PORT
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kReadSize = 16 * 1024;
constexpr unsigned kRingEntries = 256;
constexpr int kSendFlags = MSG_NOSIGNAL | MSG_DONTWAIT;

struct Conn {
  int fd = -1;
  std::string in;           // bytes not yet part of a whole command
  std::string out;          // replies not yet sent
  bool want_write = false;  // EPOLLOUT registered: a send left part of `out`
};

// Runs n requests in one io_uring_enter: prep(sqe, i) fills request i, done(i, res) takes its
// result. MSG_DONTWAIT requests complete inline, so waiting for all n never sleeps.
template <class Prep, class Done>
void ring_batch(io_uring* ring, size_t n, Prep prep, Done done) {
  for (size_t i = 0; i < n; i++) {
    io_uring_sqe* sqe = io_uring_get_sqe(ring);
    prep(sqe, i);
    io_uring_sqe_set_data64(sqe, i);
  }
  io_uring_submit_and_wait(ring, static_cast<unsigned>(n));
  unsigned head, seen = 0;
  io_uring_cqe* cqe;
  io_uring_for_each_cqe(ring, head, cqe) {
    done(io_uring_cqe_get_data64(cqe), cqe->res);
    seen++;
  }
  io_uring_cq_advance(ring, seen);
}

// Sends what c is owed; a partial send waits for EPOLLOUT (registered or dropped here).
void after_send(int ep, Conn* c, ssize_t sent) {
  if (sent > 0) c->out.erase(0, static_cast<size_t>(sent));
  const bool want = !c->out.empty();
  if (want == c->want_write) return;
  c->want_write = want;
  epoll_event ev{};
  ev.events = want ? uint32_t{EPOLLIN | EPOLLOUT} : uint32_t{EPOLLIN};
  ev.data.ptr = c;
  epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

// Length of the first whole command in s (a RESP array of bulks, or an inline line), or 0.
size_t command_length(const std::string& s, size_t from) {
  const size_t eol = s.find("\r\n", from);
  if (eol == std::string::npos) return 0;
  if (s[from] != '*') return eol + 2 - from;  // inline command: one line
  const long n = std::strtol(s.c_str() + from + 1, nullptr, 10);
  size_t pos = eol + 2;
  for (long i = 0; i < n; i++) {
    const size_t e = s.find("\r\n", pos);
    if (e == std::string::npos || s[pos] != '$') return 0;
    const size_t len = static_cast<size_t>(std::strtol(s.c_str() + pos + 1, nullptr, 10));
    pos = e + 2 + len + 2;
    if (pos > s.size()) return 0;
  }
  return pos - from;
}

// Appends one +OK per whole command in c->in to c->out; keeps the rest.
void answer(Conn* c) {
  size_t pos = 0, len;
  while (pos < c->in.size() && (len = command_length(c->in, pos)) != 0) {
    pos += len;
    c->out += "+OK\r\n";
  }
  c->in.erase(0, pos);
}

}  // namespace

int main(int argc, char** argv) {
  bool plain = false;
  int port = 0, aof = -1;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--plain") == 0) {
      plain = true;
    } else if (std::strcmp(argv[i], "--aof") == 0 && i + 1 < argc) {
      aof = open(argv[++i], O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
      if (aof < 0) {
        std::perror("keel-nullserver: --aof");
        return 1;
      }
    } else {
      port = std::atoi(argv[i]);
    }
  }
  if (port <= 0) {
    std::fprintf(stderr, "usage: keel-nullserver [--plain] [--aof FILE] PORT\n");
    return 2;
  }
  io_uring ring;
  if (!plain && io_uring_queue_init(kRingEntries, &ring, 0) < 0) {
    std::fprintf(stderr, "keel-nullserver: io_uring unavailable, using --plain\n");
    plain = true;
  }
  const int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(ls, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(ls, 511) != 0) {
    std::perror("keel-nullserver: bind/listen");
    return 1;
  }
  const int ep = epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // the listening socket
  epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);

  std::vector<epoll_event> events(kRingEntries);  // one ring round per iteration
  std::vector<Conn*> readable, replying;
  std::vector<char> bufs;
  std::vector<ssize_t> got;
  std::string log;  // --aof: this iteration's input
  for (;;) {
    const int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), -1);
    if (n < 0 && errno == EINTR) continue;
    readable.clear();
    for (int i = 0; i < n; i++) {
      Conn* c = static_cast<Conn*>(events[i].data.ptr);
      if (c != nullptr) {
        if (events[i].events & EPOLLOUT) {
          after_send(ep, c, send(c->fd, c->out.data(), c->out.size(), kSendFlags));
        }
        if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) readable.push_back(c);
        continue;
      }
      int fd;
      while ((fd = accept4(ls, nullptr, nullptr, SOCK_NONBLOCK)) >= 0) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        Conn* nc = new Conn;
        nc->fd = fd;
        epoll_event cev{};
        cev.events = EPOLLIN;
        cev.data.ptr = nc;
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
      }
    }
    // Reads: each readable client's bytes, then its commands answered.
    got.assign(readable.size(), 0);
    bufs.resize(readable.size() * kReadSize);
    if (plain) {
      for (size_t i = 0; i < readable.size(); i++) {
        const ssize_t r = read(readable[i]->fd, &bufs[i * kReadSize], kReadSize);
        got[i] = r >= 0 ? r : -errno;
      }
    } else if (!readable.empty()) {
      ring_batch(
          &ring, readable.size(),
          [&](io_uring_sqe* sqe, size_t i) {
            io_uring_prep_recv(sqe, readable[i]->fd, &bufs[i * kReadSize], kReadSize, MSG_DONTWAIT);
          },
          [&](size_t i, int res) { got[i] = res; });
    }
    replying.clear();
    for (size_t i = 0; i < readable.size(); i++) {
      Conn* c = readable[i];
      if (got[i] == 0 || (got[i] < 0 && got[i] != -EAGAIN && got[i] != -EINTR)) {
        close(c->fd);  // also leaves the epoll set
        delete c;
        continue;
      }
      if (got[i] < 0) continue;
      c->in.append(&bufs[i * kReadSize], static_cast<size_t>(got[i]));
      if (aof != -1) log.append(&bufs[i * kReadSize], static_cast<size_t>(got[i]));
      answer(c);
      if (!c->out.empty()) replying.push_back(c);
    }
    if (!log.empty()) {
      if (write(aof, log.data(), log.size()) < 0) std::perror("keel-nullserver: write");
      log.clear();
    }
    // Replies: one send per client (or one io_uring call for all); a partial one finishes on
    // EPOLLOUT.
    if (plain || replying.size() < 2) {
      for (Conn* c : replying) {
        after_send(ep, c, send(c->fd, c->out.data(), c->out.size(), kSendFlags));
      }
    } else {
      ring_batch(
          &ring, replying.size(),
          [&](io_uring_sqe* sqe, size_t i) {
            const Conn* c = replying[i];
            io_uring_prep_send(sqe, c->fd, c->out.data(), c->out.size(), kSendFlags);
          },
          [&](size_t i, int res) { after_send(ep, replying[i], res); });
    }
  }
}
