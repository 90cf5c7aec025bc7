// keel-loadgen: a light RESP load generator for `make bench`, used where redis-benchmark
// itself is the bottleneck (-P 1 on a 2-core machine: redis-benchmark spends its whole core
// in five epoll_ctl calls per request plus the read and write, see utils/bench/RESULTS.md).
// It is not part of the server and includes nothing from src/.
//
// Each connection sends a batch of P requests with one send(), waits until all P replies
// have arrived (one recv() per readiness event, level-triggered epoll, no epoll_ctl after
// the connect), then sends the next batch. Keys are "key:" plus 12 random digits below -r,
// the same names redis-benchmark's `-r` produces (with --plain-keys "key:N" without the zeros,
// the names DEBUG POPULATE creates, so SETs overwrite a populated keyspace); SET values are -d
// bytes of 'x'. Latency is
// measured per batch (send to last reply) and counted once per request, as redis-benchmark
// does. Output, with --csv, is redis-benchmark's CSV layout, so bench.py reads both alike:
//   "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",
//   "p99_latency_ms","max_latency_ms"
// The client's own CPU time goes to stderr so a run can show which side was saturated.
// With --rate R a connection sends its next batch only while the requests issued so far stay
// within R per second since the start (an offered load, for "does the server keep up with this
// rate while it does something else"); waiting connections are retried every millisecond.
// Any other command: give it after the options, as to redis-benchmark (`keel-loadgen -P 16
// -r 100000 XACK s g __rand_int__-1`); each __rand_int__ becomes 12 random digits below -r.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Options {
  int port = 6379;
  int conns = 50;
  int pipeline = 1;
  long requests = 100000;
  long keyspace = 0;  // 0: the fixed key "key:__rand_int__" (as redis-benchmark without -r)
  int data_size = 3;
  std::string test = "get";
  bool csv = false;
  bool plain_keys = false;  // --plain-keys: "key:N" unpadded, the names DEBUG POPULATE gives
  long rate = 0;            // --rate R: at most R requests per second in all (0: as fast as possible)
  std::vector<std::string> command;  // a command given after the options (instead of -t)
};

struct Conn {
  int fd = -1;
  int batch = 0;           // requests in the batch in flight
  int outstanding = 0;     // replies of that batch still expected
  uint64_t sent_ns = 0;    // when the batch in flight was sent
  std::string in;          // received bytes not yet consumed as whole replies
  std::string out;         // bytes of the current batch not yet accepted by send()
  bool want_write = false; // EPOLLOUT registered because a send() was partial
};

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "keel-loadgen: %s: %s\n", what, std::strerror(errno));
  std::exit(2);
}

// Length of one complete RESP2/RESP3 reply at the start of `s`, or 0 if more bytes are needed.
// Sets *error when the reply is an error. Aggregates are walked element by element.
size_t reply_length(std::string_view s, bool* error) {
  const size_t eol = s.find("\r\n");
  if (eol == std::string_view::npos) return 0;
  const char type = s[0];
  if (type == '-' || type == '!') *error = true;
  if (type == '+' || type == '-' || type == ':' || type == '_' || type == ',' || type == '#')
    return eol + 2;
  const long n = std::strtol(std::string(s.substr(1, eol - 1)).c_str(), nullptr, 10);
  if (type == '$' || type == '!' || type == '=') {
    if (n < 0) return eol + 2;
    const size_t total = eol + 2 + size_t(n) + 2;
    return s.size() >= total ? total : 0;
  }
  if (type == '*' || type == '~' || type == '>' || type == '%') {
    size_t pos = eol + 2;
    const long elems = type == '%' ? 2 * n : n;
    for (long i = 0; i < elems; i++) {
      const size_t len = reply_length(s.substr(pos), error);
      if (len == 0) return 0;
      pos += len;
    }
    return pos;
  }
  std::fprintf(stderr, "keel-loadgen: unexpected reply byte '%c'\n", type);
  std::exit(2);
}

class Generator {
 public:
  explicit Generator(const Options& o) : o_(o), value_(size_t(o.data_size), 'x') {}

  // Appends one request to `out`.
  void append(std::string& out) {
    if (!o_.command.empty()) return append_command(out);
    char key[32];
    if (o_.keyspace > 0) {
      // The high bits (multiply-shift): xorshift's low bits are its weakest.
      const auto r = uint64_t((unsigned __int128)next() * uint64_t(o_.keyspace) >> 64);
      std::snprintf(key, sizeof key, o_.plain_keys ? "key:%ld" : "key:%012ld", long(r));
    } else {
      std::snprintf(key, sizeof key, "key:__rand_int__");
    }
    if (o_.test == "ping") {
      out += "*1\r\n$4\r\nPING\r\n";
    } else if (o_.test == "get") {
      bulk_header(out, 2);
      bulk(out, "GET");
      bulk(out, key);
    } else {
      bulk_header(out, 3);
      bulk(out, "SET");
      bulk(out, key);
      bulk(out, value_);
    }
  }

 private:
  // A command given after the options: each __rand_int__ becomes 12 digits, written in place
  // into the request (keyspaces up to 10^12; no copy of the argument, no printf: the
  // generator must stay cheaper than the server it loads, see the file comment).
  void append_command(std::string& out) {
    bulk_header(out, int(o_.command.size()));
    for (const std::string& arg : o_.command) {
      bulk(out, arg);
      const size_t start = out.size() - arg.size() - 2;  // the argument's bytes in `out`
      if (o_.keyspace <= 0) continue;
      for (size_t at = arg.find("__rand_int__"); at != std::string::npos;
           at = arg.find("__rand_int__", at + 12)) {
        uint64_t r = uint64_t((unsigned __int128)next() * uint64_t(o_.keyspace) >> 64);
        for (int d = 11; d >= 0; d--, r /= 10) out[start + at + size_t(d)] = char('0' + r % 10);
      }
    }
  }

  static void bulk_header(std::string& out, int n) {
    out += '*';
    out += std::to_string(n);
    out += "\r\n";
  }
  static void bulk(std::string& out, std::string_view v) {
    out += '$';
    out += std::to_string(v.size());
    out += "\r\n";
    out += v;
    out += "\r\n";
  }
  uint64_t next() {  // xorshift64*: fast, and the same sequence on every run
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 2685821657736338717ull;
  }

  const Options& o_;
  std::string value_;
  uint64_t state_ = 0x9e3779b97f4a7c15ull;
};

// Latency histogram in microseconds: 1 µs buckets up to 200 ms, one overflow bucket.
class Histogram {
 public:
  void add(uint64_t ns, long count) {
    const uint64_t us = ns / 1000;
    counts_[us < kBuckets ? us : kBuckets] += count;
    total_ += count;
    sum_ns_ += double(ns) * double(count);
    if (ns < min_ns_) min_ns_ = ns;
    if (ns > max_ns_) max_ns_ = ns;
  }
  double percentile_ms(double p) const {
    const long want = long(p / 100.0 * double(total_));
    long seen = 0;
    for (size_t i = 0; i <= kBuckets; i++) {
      seen += counts_[i];
      if (seen > want) return double(i + 1) / 1000.0;  // upper edge of the bucket
    }
    return double(max_ns_) / 1e6;
  }
  double avg_ms() const { return total_ ? sum_ns_ / double(total_) / 1e6 : 0; }
  double min_ms() const { return total_ ? double(min_ns_) / 1e6 : 0; }
  double max_ms() const { return double(max_ns_) / 1e6; }

 private:
  static constexpr size_t kBuckets = 200000;
  std::vector<long> counts_ = std::vector<long>(kBuckets + 1, 0);
  long total_ = 0;
  double sum_ns_ = 0;
  uint64_t min_ns_ = UINT64_MAX, max_ns_ = 0;
};

class Runner {
 public:
  explicit Runner(const Options& o) : o_(o), gen_(o) {}

  int run() {
    ep_ = epoll_create1(0);
    if (ep_ < 0) die("epoll_create1");
    conns_.resize(size_t(o_.conns));
    for (size_t i = 0; i < conns_.size(); i++) connect_one(i);
    const uint64_t t0 = now_ns();
    t0_ = t0;
    for (size_t i = 0; i < conns_.size(); i++) send_batch(conns_[i]);
    std::vector<epoll_event> events(256);
    std::vector<char> buf(1 << 16);
    while (done_ < o_.requests) {
      const int n = epoll_wait(ep_, events.data(), int(events.size()), waiting_.empty() ? -1 : 1);
      if (!waiting_.empty()) {
        std::vector<size_t> w;
        w.swap(waiting_);
        for (size_t i : w) send_batch(conns_[i]);
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        die("epoll_wait");
      }
      for (int e = 0; e < n; e++) {
        Conn& c = conns_[events[e].data.u64];
        if (events[e].events & EPOLLOUT) flush(c);
        if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c, buf);
      }
    }
    const double secs = double(now_ns() - t0) / 1e9;
    report(secs);
    return errors_ ? 1 : 0;
  }

 private:
  void connect_one(size_t i) {
    Conn& c = conns_[i];
    c.fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c.fd < 0) die("socket");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(o_.port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) die("connect");
    const int one = 1;
    setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK) < 0) die("fcntl");
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    if (epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &ev) < 0) die("epoll_ctl");
  }

  void send_batch(Conn& c) {
    const long left = o_.requests - issued_;
    if (left <= 0) return;
    const int batch = left < o_.pipeline ? int(left) : o_.pipeline;
    if (o_.rate > 0 && double(issued_ + batch) > double(o_.rate) * double(now_ns() - t0_) / 1e9) {
      waiting_.push_back(size_t(&c - conns_.data()));
      return;
    }
    c.out.clear();
    for (int i = 0; i < batch; i++) gen_.append(c.out);
    issued_ += batch;
    c.batch = c.outstanding = batch;
    c.sent_ns = now_ns();
    flush(c);
  }

  void flush(Conn& c) {
    while (!c.out.empty()) {
      const ssize_t w = send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN) die("send");
        break;
      }
      c.out.erase(0, size_t(w));
    }
    const bool want = !c.out.empty();
    if (want != c.want_write) {  // rare: only when the socket buffer is full
      epoll_event ev{};
      ev.events = EPOLLIN | (want ? EPOLLOUT : 0u);
      ev.data.u64 = uint64_t(&c - conns_.data());
      if (epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev) < 0) die("epoll_ctl");
      c.want_write = want;
    }
  }

  void on_readable(Conn& c, std::vector<char>& buf) {
    const ssize_t r = recv(c.fd, buf.data(), buf.size(), 0);
    if (r == 0) {
      std::fprintf(stderr, "keel-loadgen: server closed a connection\n");
      std::exit(2);
    }
    if (r < 0) {
      if (errno == EAGAIN || errno == EINTR) return;
      die("recv");
    }
    c.in.append(buf.data(), size_t(r));
    size_t pos = 0;
    while (c.outstanding > 0 && pos < c.in.size()) {
      bool error = false;
      const size_t len = reply_length(std::string_view(c.in).substr(pos), &error);
      if (len == 0) break;
      if (error && errors_++ == 0) {
        std::fprintf(stderr, "keel-loadgen: error reply: %.*s\n", int(len), c.in.data() + pos);
      }
      pos += len;
      c.outstanding--;
      done_++;
    }
    c.in.erase(0, pos);
    if (c.outstanding == 0) {
      const uint64_t t = now_ns();
      hist_.add(t - c.sent_ns, c.batch);
      send_batch(c);
    }
  }

  void report(double secs) const {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const double cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    std::string name = o_.test;
    for (char& ch : name) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    const double rps = double(done_) / secs;
    if (o_.csv) {
      std::printf("\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
                  "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n");
      std::printf("\"%s\",\"%.2f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\"\n",
                  name.c_str(), rps, hist_.avg_ms(), hist_.min_ms(), hist_.percentile_ms(50),
                  hist_.percentile_ms(95), hist_.percentile_ms(99), hist_.max_ms());
    } else {
      std::printf("%s: %.2f requests per second, p50=%.3f msec\n", name.c_str(), rps,
                  hist_.percentile_ms(50));
    }
    std::fprintf(stderr, "client cpu %.2f s over %.2f s elapsed (%.0f%%)\n", cpu, secs,
                 100.0 * cpu / secs);
    if (errors_) std::fprintf(stderr, "keel-loadgen: %ld error replies\n", errors_);
  }

  const Options& o_;
  Generator gen_;
  Histogram hist_;
  std::vector<Conn> conns_;
  int ep_ = -1;
  long issued_ = 0, done_ = 0, errors_ = 0;
  uint64_t t0_ = 0;
  std::vector<size_t> waiting_;  // connections held back by --rate
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  auto usage = [] {
    std::fprintf(stderr,
                 "usage: keel-loadgen [-p port] [-c conns] [-P pipeline] [-n requests]\n"
                 "                    [-r keyspace] [-d value-bytes] [-t get|set|ping] [--csv]\n"
                 "                    [--plain-keys] [--rate requests-per-second]\n"
                 "                    [command args... (__rand_int__: a random number below -r)]\n");
    std::exit(2);
  };
  for (int i = 1; i < argc; i++) {
    const std::string_view a = argv[i];
    if (a[0] != '-') {  // the command: the rest of the line
      for (; i < argc; i++) o.command.emplace_back(argv[i]);
      o.test = o.command[0];
      break;
    }
    if (a == "--csv") {
      o.csv = true;
      continue;
    }
    if (a == "--plain-keys") {
      o.plain_keys = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    const char* v = argv[++i];
    if (a == "-p") o.port = std::atoi(v);
    else if (a == "-c") o.conns = std::atoi(v);
    else if (a == "-P") o.pipeline = std::atoi(v);
    else if (a == "-n") o.requests = std::atol(v);
    else if (a == "-r") o.keyspace = std::atol(v);
    else if (a == "-d") o.data_size = std::atoi(v);
    else if (a == "-t") o.test = v;
    else if (a == "--rate") o.rate = std::atol(v);
    else usage();
  }
  if (o.conns < 1 || o.pipeline < 1 || o.requests < 1 || o.data_size < 0 ||
      (o.command.empty() && o.test != "get" && o.test != "set" && o.test != "ping")) {
    usage();
  }
  return Runner(o).run();
}
