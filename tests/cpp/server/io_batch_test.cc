// io_batch_run (server/io_batch.h): the results of a batch of recvs and sends on Unix socket
// pairs are those of recv()/send() on non-blocking sockets, with io_uring and without it
// (`io-uring no`), including more requests than one ring holds, an empty socket (-EAGAIN), a
// full one (a short send, then -EAGAIN) and a closed peer (0 for a recv, -EPIPE for a send).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "server/config.h"
#include "server/io_batch.h"

namespace keel {
namespace {

struct Pairs {
  std::vector<int> a, b;  // a[i] talks to b[i]
  explicit Pairs(size_t n) {
    for (size_t i = 0; i < n; i++) {
      int sv[2];
      if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) ADD_FAILURE() << "socketpair: " << errno;
      a.push_back(sv[0]);
      b.push_back(sv[1]);
    }
  }
  ~Pairs() {
    for (int fd : a) close(fd);
    for (int fd : b) if (fd >= 0) close(fd);
  }
};

class IoBatch : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    (void)io_batch_init();
    saved_ = server_options().io_uring;
    server_options().io_uring = GetParam();
  }
  void TearDown() override { server_options().io_uring = saved_; }
  bool saved_ = true;
};

TEST_P(IoBatch, SendsThenRecvsMoreThanOneRingHolds) {
  constexpr size_t kN = 600;  // the ring takes 256 per call
  Pairs p(kN);
  std::vector<std::string> msgs(kN);
  std::vector<IoRequest> reqs;
  for (size_t i = 0; i < kN; i++) {
    msgs[i] = "+reply " + std::to_string(i) + "\r\n";
    reqs.push_back({p.a[i], false, msgs[i].data(), msgs[i].size(), 0});
  }
  io_batch_run(reqs);
  for (size_t i = 0; i < kN; i++) EXPECT_EQ(reqs[i].result, static_cast<ssize_t>(msgs[i].size())) << i;

  std::vector<std::string> bufs(kN, std::string(64, '\0'));
  reqs.clear();
  for (size_t i = 0; i < kN; i++) reqs.push_back({p.b[i], true, bufs[i].data(), bufs[i].size(), 0});
  io_batch_run(reqs);
  for (size_t i = 0; i < kN; i++) {
    ASSERT_EQ(reqs[i].result, static_cast<ssize_t>(msgs[i].size())) << i;
    EXPECT_EQ(bufs[i].substr(0, msgs[i].size()), msgs[i]);
  }
}

TEST_P(IoBatch, EmptyFullAndClosedSockets) {
  Pairs p(4);
  // 0: nothing to read. 1: data to read. 2: the peer closed. 3: a send into a full socket.
  const std::string data = "*1\r\n$4\r\nPING\r\n";
  ASSERT_EQ(write(p.b[1], data.data(), data.size()), static_cast<ssize_t>(data.size()));
  close(p.b[2]);
  p.b[2] = -1;
  std::string big(8 << 20, 'x');
  char r0[16], r1[64], r2[16];
  std::vector<IoRequest> reqs = {
      {p.a[0], true, r0, sizeof(r0), 0},
      {p.a[1], true, r1, sizeof(r1), 0},
      {p.a[2], true, r2, sizeof(r2), 0},
      {p.a[3], false, big.data(), big.size(), 0},
  };
  io_batch_run(reqs);
  EXPECT_EQ(reqs[0].result, -EAGAIN);
  EXPECT_EQ(reqs[1].result, static_cast<ssize_t>(data.size()));
  EXPECT_EQ(std::string(r1, data.size()), data);
  EXPECT_EQ(reqs[2].result, 0);
  // A short send: the socket took what it had room for, and nothing is still in flight.
  ASSERT_GT(reqs[3].result, 0);
  EXPECT_LT(reqs[3].result, static_cast<ssize_t>(big.size()));
  std::vector<IoRequest> again = {{p.a[3], false, big.data(), big.size(), 0}, {p.a[0], true, r0, sizeof(r0), 0}};
  io_batch_run(again);
  EXPECT_EQ(again[0].result, -EAGAIN);
  EXPECT_EQ(again[1].result, -EAGAIN);
  // A send to a closed peer: -EPIPE, and no SIGPIPE (the process would die of it).
  std::vector<IoRequest> to_closed = {{p.a[2], false, big.data(), 16, 0}, {p.a[1], false, big.data(), 16, 0}};
  io_batch_run(to_closed);
  EXPECT_EQ(to_closed[0].result, -EPIPE);
  EXPECT_EQ(to_closed[1].result, 16);
}

INSTANTIATE_TEST_SUITE_P(RingAndPlain, IoBatch, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "io_uring" : "plain"; });

}  // namespace
}  // namespace keel
