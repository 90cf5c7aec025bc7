// Server: the process. Owns the libuv loop, the listening sockets, the clients, the cron timer
// and the before-sleep flush, and implements ServerApi for the command layer.
#pragma once
#include <uv.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "commands/server_api.h"
#include "server/client.h"
#include "server/io_batch.h"

namespace keel {

// An instantaneous_* figure of INFO stats: the rate of a counter over the last 16 samples of
// 100 ms (Redis's trackInstantaneousMetric), in units per second.
struct RateSampler {
  uint64_t last = 0;
  uint64_t samples[16] = {};
  int idx = 0;
  void add(uint64_t value, int64_t dt_ms, bool first) {
    samples[idx] = first || dt_ms <= 0 ? 0 : (value - last) * 1000 / uint64_t(dt_ms);
    idx = (idx + 1) % 16;
    last = value;
  }
  uint64_t per_second() const {
    uint64_t sum = 0;
    for (uint64_t s : samples) sum += s;
    return sum / 16;
  }
};

struct ServerStats {
  int64_t start_time_ms = 0;
  uint64_t total_connections_received = 0;
  uint64_t rejected_connections = 0;
  // As Redis 7: what replicas and our master exchange counts in the *_repl_* figures only.
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
  uint64_t net_repl_input_bytes = 0;
  uint64_t net_repl_output_bytes = 0;
  uint64_t reads_processed = 0;   // reads from client sockets (total_reads_processed)
  uint64_t writes_processed = 0;  // writes to client sockets (total_writes_processed)
  uint64_t client_query_buffer_limit_disconnections = 0;
  uint64_t client_output_buffer_limit_disconnections = 0;
  uint64_t evicted_clients = 0;  // maxmemory-clients
  // The instantaneous_* figures, sampled by the cron every 100 ms.
  int64_t last_sample_ms = 0;
  RateSampler ops, input, output, repl_input, repl_output;
  uint64_t instantaneous_ops() const { return ops.per_second(); }
};

class Server : public ServerApi {
 public:
  Server();
  int run();  // listens, loops until shutdown; returns the exit code

  uv_loop_t* loop() { return loop_; }
  ServerStats& stats() { return stats_; }
  const std::unordered_map<uint64_t, Client*>& clients() const { return clients_; }
  void queue_flush(Client* c);
  void client_closed(Client* c);  // called from Client::close
  // The last close callback of c: deleted now, or when the read batch under way ends (a busy
  // script can run the loop from inside one, and the batch still holds c).
  void release_client(Client* c);
  // libuv's readiness callback of a client's socket: writable -> Client::on_writable, readable
  // -> queued for the iteration's read batch.
  static void on_poll(uv_poll_t* h, int status, int events);
  void request_shutdown(int exit_code);
  // Closes the listening sockets and opens them again from the current bind/port options
  // (CONFIG SET bind/port). False when any required address fails; nothing listens then and
  // the caller restores the old options and calls it again.
  bool relisten();

  // ServerApi
  std::string info(std::span<const std::string_view> sections) override;
  std::vector<std::pair<std::string, std::string>> config_get(
      std::span<const std::string_view> patterns) override;
  std::string config_set(std::span<const std::string_view> pairs) override;
  void config_resetstat() override;
  std::string config_rewrite() override;
  bool config_sensitive(std::string_view name) override;
  std::string client_list(std::span<const uint64_t> ids, std::string_view type) override;
  std::string client_info(const Session& s) override;
  int64_t client_kill(const Session& self, std::span<const std::string_view> filters,
                      std::string* error) override;
  bool client_exists(uint64_t id) override { return clients_.count(id) != 0; }
  void acl_sessions_update(const Session& self, std::span<AclUser* const> changed) override;
  Session* find_session(uint64_t id) override;
  void add_monitor(Session& s) override;
  void feed_monitors(const Session& s, std::span<const std::string_view> args) override;
  std::string shutdown(bool nosave, bool save, bool now, bool force, bool abort) override;
  int64_t lastsave() const override;
  bool debug_command_allowed(const Session& s) const override;
  Buffer* session_output(Session& s) override;
  void session_output_ready(Session& s) override;
  bool process_events_while_busy(Session& caller) override;
  void script_done(Session& caller) override;
  void resume_session(Session& s) override;
  size_t clients_memory() const override;  // server/memory_stats.cc
  BufferMemory buffers_memory() const override;
  size_t client_count() const override { return clients_.size(); }

  // client-output-buffer-limit for c's class (normal or pubsub): over the hard limit, or over the
  // soft one for longer than its seconds, schedules c to close before the next sleep. True when c
  // is (now) scheduled to close.
  bool check_output_limits(Client* c);
  // maxmemory-clients: while the clients' memory is over the limit, the biggest evictable
  // client (normal or pub/sub, without CLIENT NO-EVICT) is closed. Before each sleep.
  void evict_clients();

  std::string client_line(const Client* c) const;  // one CLIENT LIST line

 private:
  bool listen_all();
  static void on_connection(uv_stream_t* server, int status);
  static void on_cron(uv_timer_t* t);
  static void on_before_sleep(uv_prepare_t* p);
  // appendfsync always (persistence/aof.h, group commit): before-sleep fsyncs what was written,
  // or, while clients that just got their replies are still sending their next requests, waits
  // a little for them and holds the replies produced meanwhile (Client::fsync_held).
  void hold_for_fsync();
  size_t owed_replies() const;
  // Shutdown: what every client is owed, written once (best effort, after the final AOF fsync).
  void write_owed_replies();
  // After epoll's callbacks, every client found readable is read with one batch of recvs
  // (server/io_batch.h), then each one's input is executed.
  static void on_read_batch(uv_check_t* h);
  static void on_signal(uv_signal_t* s, int signum);
  void cron();
  void finish_shutdown();
  bool load_data();
  void loading_events();  // a turn of the event loop during the start-up load
  // The final snapshot of SHUTDOWN and SIGTERM/SIGINT: false when it failed and the shutdown
  // must be cancelled.
  bool save_before_exit(bool nosave, bool save, bool force);

  uv_loop_t* loop_;
  std::vector<uv_tcp_t*> listeners_;
  uv_timer_t cron_timer_;
  uv_prepare_t before_sleep_;
  uv_check_t read_batch_;
  // Keeps the loop from sleeping while an eviction cut short by its time budget has more to
  // do (Redis's zero-delay eviction timer): active only then.
  uv_idle_t evict_idle_;
  bool evict_idle_on_ = false;  // evict_idle_ started (tested every iteration: no libuv call)
  uv_signal_t sigterm_, sigint_;
  std::unordered_map<uint64_t, Client*> clients_;
  std::vector<Client*> pending_;
  // One batch of socket requests and the clients they belong to (capacity kept between loop
  // iterations).
  struct IoRound {
    std::vector<IoRequest> reqs;
    std::vector<Client*> clients;
  };
  IoRound flush_round_;
  std::vector<Client*> held_;          // replies waiting for the group commit's fsync
  std::vector<Client*> releasing_;     // hold_for_fsync's working list (capacity kept)
  uv_timer_t commit_timer_;            // wakes the loop for a deferred group commit
  int64_t last_commit_us_ = 0;         // when the last group commit fsynced
  size_t last_released_ = 0;           // clients it answered
  IoRound read_round_;                 // the outermost read batch's
  std::vector<Client*> readable_;      // found readable by epoll, not yet read
  int read_depth_ = 0;                 // read batches under way (a busy script nests one)
  std::vector<Client*> to_run_;        // read, input to run (Server::on_read_batch)
  size_t to_run_pos_ = 0;
  size_t ahead_end_ = 0;               // to_run_[.. ahead_end_) parsed ahead (parse_ahead_window)
  void parse_ahead_window();
  std::vector<Client*> graveyard_;     // closed during a read batch: deleted when it ends
  std::vector<Client*> monitors_;
  std::vector<Client*> close_asap_;  // over their output buffer limits
  uint64_t next_client_id_ = 1;
  ServerStats stats_;
  bool shutting_down_ = false;
  int exit_code_ = 0;
  int64_t cron_loops_ = 0;
  int64_t last_trim_ms_ = 0;  // last Client::trim_buffers() pass
  Client* busy_caller_ = nullptr;  // runs a script past busy-reply-threshold: not read/flushed
  bool in_busy_poll_ = false;      // inside process_events_while_busy: cron is skipped
  // Blocking commands: ids of unblocked clients whose pipelined input runs before the next
  // sleep, and the timer armed for the earliest blocked-client deadline.
  std::vector<uint64_t> resumed_;
  uv_timer_t block_timer_;
  int64_t block_timer_at_ = 0;  // deadline the timer is armed for (0 = not armed)
  void run_resumed_and_arm_block_timer();
};

Server& server();

// Whether a peer address counts as local for protected mode (Redis's rule: "127.*" or "::1").
bool is_loopback_ip(std::string_view ip);

// Pending output allowed to a client that never authenticated while requirepass is set
// (CVE-2025-21605): Redis's 1024 bytes beyond its 16 KB static reply buffer.
inline constexpr uint64_t kUnauthOutputLimit = 16 * 1024 + 1024;

}  // namespace keel
