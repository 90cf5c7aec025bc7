// The hot path allocates nothing: GET/SET/INCR/PING in steady state must not grow jemalloc's
// per-thread allocation counter. Runs commands in-process through execute_command with a
// Session and ReplyWriter as a client would, with a stand-in for the server layer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/memory.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/propagate.h"
#include "commands/server_api.h"
#include "keyspace/keyspace.h"

namespace keel {
namespace {

class NoServer : public ServerApi {
 public:
  std::string info(std::span<const std::string_view>) override { return {}; }
  std::vector<std::pair<std::string, std::string>> config_get(std::span<const std::string_view>) override { return {}; }
  std::string config_set(std::span<const std::string_view>) override { return {}; }
  void config_resetstat() override {}
  std::string config_rewrite() override { return {}; }
  std::string client_list(std::span<const uint64_t>, std::string_view) override { return {}; }
  std::string client_info(const Session&) override { return {}; }
  int64_t client_kill(const Session&, std::span<const std::string_view>, std::string*) override { return 0; }
  bool client_exists(uint64_t) override { return false; }
  void add_monitor(Session&) override {}
  void feed_monitors(const Session&, std::span<const std::string_view>) override {}
  std::string shutdown(bool, bool, bool, bool, bool) override { return {}; }
  int64_t lastsave() const override { return 0; }
  bool debug_command_allowed(const Session&) const override { return true; }
};

struct Harness {
  NoServer api;
  Session session;
  Buffer out;
  ReplyWriter writer{&out, 2};
  std::vector<uint64_t> hashes;
  Harness() {
    if (keyspace().count() == 0) keyspace().init(16);
    init_command_table();
    session.db = &keyspace().db(0);
    // A command that happens to take over 10 ms (a loaded CI machine preempting the test)
    // would be logged, and a SLOWLOG entry allocates: measure the commands, not the scheduler.
    command_options().slowlog_log_slower_than = -1;
  }
  std::string run(std::vector<std::string_view> args) {
    out.clear();
    hashes.assign(args.size(), 0);
    execute_command(session, args, hashes.data(), writer, api);
    return std::string(out.view());
  }
  // Runs args n times and returns the bytes allocated meanwhile on this thread.
  uint64_t allocated_by(std::vector<std::string_view> args, int n) {
    uint64_t before = thread_allocated_bytes();
    for (int i = 0; i < n; i++) {
      out.clear();
      hashes.assign(args.size(), 0);
      execute_command(session, args, hashes.data(), writer, api);
    }
    return thread_allocated_bytes() - before;
  }
};

TEST(AllocTest, HotCommandsDoNotAllocate) {
  if (std::string(allocator_name()) != "jemalloc") GTEST_SKIP() << "needs jemalloc counters";
  Harness h;
  EXPECT_EQ(h.run({"SET", "k", "some-value-of-30-bytes-long-xx"}), "+OK\r\n");
  EXPECT_EQ(h.run({"GET", "k"}), "$30\r\nsome-value-of-30-bytes-long-xx\r\n");
  EXPECT_EQ(h.run({"SET", "n", "10"}), "+OK\r\n");
  EXPECT_EQ(h.run({"INCR", "n"}), ":11\r\n");
  EXPECT_EQ(h.run({"PING"}), "+PONG\r\n");
  // Warm up (first-time growth of buffers), then measure.
  h.allocated_by({"GET", "k"}, 100);
  h.allocated_by({"SET", "k", "some-value-of-30-bytes-long-yy"}, 100);
  h.allocated_by({"INCR", "n"}, 100);
  h.allocated_by({"PING"}, 100);
  EXPECT_EQ(h.allocated_by({"GET", "k"}, 10000), 0u);
  EXPECT_EQ(h.allocated_by({"SET", "k", "some-value-of-30-bytes-long-zz"}, 10000), 0u);
  EXPECT_EQ(h.allocated_by({"INCR", "n"}, 10000), 0u);
  EXPECT_EQ(h.allocated_by({"PING"}, 10000), 0u);
  EXPECT_EQ(h.allocated_by({"GET", "missing"}, 10000), 0u);
}

// A consumer of the propagated stream that keeps nothing (as an AOF writer reusing its buffer).
class CountingSink final : public PropagationSink {
 public:
  void feed(int, std::span<const std::string_view> argv, uint8_t) override { args += argv.size(); }
  size_t args = 0;
};

// With a consumer attached the propagation buffer is reused from unit to unit: steady-state
// writes, rewritten ones included, allocate no more than without it (INCRBYFLOAT and
// HINCRBYFLOAT replace their value each time, with or without propagation).
TEST(AllocTest, PropagationReusesItsBuffers) {
  if (std::string(allocator_name()) != "jemalloc") GTEST_SKIP() << "needs jemalloc counters";
  Harness h;
  CountingSink sink;
  EXPECT_EQ(h.run({"SET", "k", "v", "EX", "100"}), "+OK\r\n");
  EXPECT_EQ(h.run({"HSET", "h", "f", "1.5"}), ":1\r\n");
  for (const std::vector<std::string_view>& cmd :
       std::vector<std::vector<std::string_view>>{{"SET", "k", "some-value", "EX", "100"},
                                                  {"SETEX", "k", "100", "some-value"},
                                                  {"GETEX", "k", "PX", "100000"},
                                                  {"EXPIRE", "k", "200"},
                                                  {"INCRBYFLOAT", "f", "1.5"},
                                                  {"HINCRBYFLOAT", "h", "f", "1.5"},
                                                  {"SET", "k", "other-value"}}) {
    h.allocated_by(cmd, 100);
    const uint64_t without = h.allocated_by(cmd, 5000);
    propagation_add_sink(&sink);
    h.allocated_by(cmd, 100);
    EXPECT_EQ(h.allocated_by(cmd, 5000), without) << cmd[0];
    propagation_remove_sink(&sink);
  }
  EXPECT_GT(sink.args, 0u);
}

}  // namespace
}  // namespace keel
