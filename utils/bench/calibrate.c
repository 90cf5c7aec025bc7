/* The costs of this machine that Keel's figures depend on and that vary between machines (and,
 * on a virtual machine, between sessions): printed by bench.py before every run and kept in its
 * CSV, so that a RESULTS entry says which conditions it was taken under.
 *   syscall_ns         an empty system call (getppid)
 *   write_send_ns      one small write() to a loopback TCP socket (32 sockets per round)
 *   uring_send_ns      the same sends, 32 per io_uring call (server/io_batch.h's way)
 *   fault_us           the first touch of an anonymous 4 KB page
 *   cow_fault_us       the parent's first write to a page after fork() (the child sleeping)
 *   fsync_us           appending 300 bytes to a file and fdatasync()ing it (appendfsync always's
 *                      cost per loop iteration), in the directory given as the first argument
 *                      (default: the current one; bench.py gives its servers' temp directory)
 * Output: one line of name=value pairs. Build: gcc -O2 calibrate.c -luring. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SOCKS 32
#define ROUNDS 2000
#define REGION ((size_t)128 << 20)

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static double syscall_ns(void) {
  const int n = 200000;
  double t0 = now_ns();
  for (int i = 0; i < n; i++) syscall(SYS_getppid);
  return (now_ns() - t0) / n;
}

/* Loopback pairs: out[i] sends, in[i] receives. 0 on success. */
static int make_pairs(int out[SOCKS], int in[SOCKS]) {
  int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in a;
  socklen_t len = sizeof(a);
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (ls < 0 || bind(ls, (struct sockaddr*)&a, sizeof(a)) != 0 || listen(ls, SOCKS) != 0 ||
      getsockname(ls, (struct sockaddr*)&a, &len) != 0)
    return -1;
  for (int i = 0; i < SOCKS; i++) {
    in[i] = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(in[i], (struct sockaddr*)&a, sizeof(a)) != 0) return -1;
    out[i] = accept(ls, NULL, NULL);
    if (out[i] < 0) return -1;
    setsockopt(out[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  close(ls);
  return 0;
}

static void drain(const int in[SOCKS]) {
  char buf[4096];
  for (int i = 0; i < SOCKS; i++) (void)!read(in[i], buf, sizeof(buf));
}

static void send_costs(double* write_ns, double* uring_ns) {
  int out[SOCKS], in[SOCKS];
  struct io_uring ring;
  static const char msg[] = "+OK\r\n";
  *write_ns = *uring_ns = -1;
  if (make_pairs(out, in) != 0) return;
  double tw = 0, tu = 0;
  int have_ring = io_uring_queue_init(SOCKS * 2, &ring, 0) == 0;
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now_ns();
    for (int i = 0; i < SOCKS; i++) (void)!write(out[i], msg, 5);
    tw += now_ns() - t0;
    drain(in);
    if (!have_ring) continue;
    t0 = now_ns();
    for (int i = 0; i < SOCKS; i++) {
      struct io_uring_sqe* sqe = io_uring_get_sqe(&ring);
      io_uring_prep_send(sqe, out[i], msg, 5, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    io_uring_submit_and_wait(&ring, SOCKS);
    unsigned head, seen = 0;
    struct io_uring_cqe* cqe;
    io_uring_for_each_cqe(&ring, head, cqe) seen++;
    io_uring_cq_advance(&ring, seen);
    tu += now_ns() - t0;
    drain(in);
  }
  *write_ns = tw / ROUNDS / SOCKS;
  if (have_ring) {
    *uring_ns = tu / ROUNDS / SOCKS;
    io_uring_queue_exit(&ring);
  }
  for (int i = 0; i < SOCKS; i++) {
    close(out[i]);
    close(in[i]);
  }
}

static void fault_costs(double* fault_us, double* cow_us) {
  const size_t pages = REGION / 4096;
  char* p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *fault_us = *cow_us = -1;
  if (p == MAP_FAILED) return;
  madvise(p, REGION, MADV_NOHUGEPAGE);
  double t0 = now_ns();
  for (size_t i = 0; i < pages; i++) p[i * 4096] = 1;
  *fault_us = (now_ns() - t0) / 1000 / pages;
  pid_t child = fork();
  if (child == 0) {
    sleep(60);
    _exit(0);
  }
  if (child > 0) {
    t0 = now_ns();
    for (size_t i = 0; i < pages; i++) p[i * 4096] = 2;
    *cow_us = (now_ns() - t0) / 1000 / pages;
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
  munmap(p, REGION);
}

static double fsync_cost_us(const char* dir) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/keel-calibrate-%d.aof", dir, (int)getpid());
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd == -1) return -1;
  char line[300];
  memset(line, 'x', sizeof(line));
  const int n = 500;
  double t0 = now_ns();
  for (int i = 0; i < n; i++) {
    if (write(fd, line, sizeof(line)) != (ssize_t)sizeof(line) || fdatasync(fd) != 0) {
      t0 = -1;
      break;
    }
  }
  const double us = t0 < 0 ? -1 : (now_ns() - t0) / 1000 / n;
  close(fd);
  unlink(path);
  return us;
}

int main(int argc, char** argv) {
  double w, u, f, c;
  const double s = syscall_ns();
  send_costs(&w, &u);
  fault_costs(&f, &c);
  const double fs = fsync_cost_us(argc > 1 ? argv[1] : ".");
  printf("syscall_ns=%.0f write_send_ns=%.0f uring_send_ns=%.0f fault_us=%.2f cow_fault_us=%.2f "
         "fsync_us=%.1f\n", s, w, u, f, c, fs);
  return 0;
}
