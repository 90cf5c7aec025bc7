// The event loop: accept, read callbacks (into Client::process_input), the before-sleep flush of
// pending replies, the cron timer (expiry, rehash, timeouts, stats, save points), reaping the
// BGSAVE child (SIGCHLD) and signal-driven shutdown.
#include "server/server.h"
#include "server/replication.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/cpu_affinity.h"
#include "base/admission.h"
#include "base/fork.h"
#include "base/glob.h"
#include "base/lazyfree.h"
#include "base/log.h"
#include "base/memory.h"
#include "base/numbers.h"
#include "base/time.h"
#include "commands/migrate.h"
#include "commands/acl.h"
#include "commands/blocking.h"
#include "commands/command_table.h"
#include "commands/debug_state.h"
#include "commands/dispatch.h"
#include "commands/latency.h"
#include "commands/multi.h"
#include "commands/pause.h"
#include "commands/tracking.h"
#include "commands/pubsub.h"
#include "commands/slowlog.h"
#include "ds/hashtable.h"
#include "keyspace/evict.h"
#include "keyspace/keyspace.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "persistence/rdb_bgsave.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "protocol/errors.h"
#include "scripting/lua_engine.h"
#include "server/aof_glue.h"
#include "server/config.h"

namespace keel {
namespace {
Server* g_server = nullptr;
uv_signal_t g_sigchld;  // a BGSAVE child exited: reaped at once rather than at the next cron

constexpr size_t kReadChunk = 16 * 1024;
// Redis 7.4's limit on the query buffer of a client that has not authenticated (requirepass
// set): it is closed past 1 MB whatever client-query-buffer-limit says.
constexpr size_t kUnauthQueryBufferLimit = 1024 * 1024;

// Room at the end of c's query buffer for its next read.
char* read_room(Client* c, size_t* len) {
  size_t want = kReadChunk;
  // A big bulk is read straight into the query buffer (its argument is a view into it), but the
  // room grows with what has arrived, at most doubling the buffered bytes per step, never from
  // the announced length: "$536870912" followed by nothing costs 16 KB, not 512 MB. Redis
  // reserves the whole bulk at once for authenticated clients; 50 such stalled connections
  // would account for 25 GB there.
  const size_t missing = c->parser.bytes_missing(c->query.size());
  if (missing > want) want = std::min(missing, std::max(want, c->query.size()));
  char* p = c->query.reserve_tail(want);
  *len = c->query.capacity() - c->query.size();
  return p;
}

// What c's read returned (bytes read into read_room, 0 at the end of the stream, -errno): true
// when c has new input to execute. The peer gone, an error or a query buffer over its limit
// close c.
bool take_input(Client* c, ssize_t nread) {
  if (nread == -EAGAIN || nread == -EINTR) return false;  // readable no more (or not yet)
  if (nread <= 0) {
    c->close();
    return false;
  }
  c->query.commit(static_cast<size_t>(nread));
  c->net_in += static_cast<uint64_t>(nread);
  c->server->stats().net_input_bytes += static_cast<uint64_t>(nread);
  c->server->stats().reads_processed++;
  // Any input is an interaction (Redis too): a client sending a big bulk slowly is not idle.
  c->last_interaction_ms = g_clock.now_ms;
  if (c->query.size() > protocol_limits().client_query_buffer_limit ||
      (!c->session.authenticated && c->query.size() > kUnauthQueryBufferLimit)) {
    LOG_WARNING("Closing client that reached max query buffer length: id=%llu addr=%s",
                static_cast<unsigned long long>(c->session.id), c->session.addr.c_str());
    c->server->stats().client_query_buffer_limit_disconnections++;
    c->close();
    return false;
  }
  return true;
}

// The kernel gives transparent huge pages to every process ("[always]" in the sysfs file), not
// only to memory that asks for them with madvise.
bool thp_always() {
  FILE* f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return false;
  char buf[128] = {};
  const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  return n > 0 && strstr(buf, "[always]") != nullptr;
}

// Start-up values of disable-thp and jemalloc-bg-thread. disable-thp yes (Redis's default): the
// key tables do not ask for huge pages (a fork child's copy-on-write and the page faults after
// it are costly with them), and the process is taken off huge pages whatever the system mode (PR_SET_THP_DISABLE also
// overrides MADV_HUGEPAGE); Redis makes the call only in "always" mode, where it matters most.
// With no, big key tables ask for huge pages while no child exists (base/fork.h).
void apply_memory_options() {
  const ServerOptions& o = server_options();
  g_huge_pages_allowed = !o.disable_thp;
  if (o.disable_thp && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0 && thp_always()) {
    LOG_WARNING("WARNING: transparent huge pages are enabled and could not be disabled (%s).",
                strerror(errno));
  }
  set_allocator_background_thread(o.jemalloc_bg_thread);
}

std::string peer_name(uv_tcp_t* tcp, bool local) {
  sockaddr_storage ss;
  int len = sizeof(ss);
  int rc = local ? uv_tcp_getsockname(tcp, reinterpret_cast<sockaddr*>(&ss), &len)
                 : uv_tcp_getpeername(tcp, reinterpret_cast<sockaddr*>(&ss), &len);
  if (rc != 0) return "?:0";
  char ip[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    uv_ip4_name(a, ip, sizeof(ip));
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    uv_ip6_name(a, ip, sizeof(ip));
    port = ntohs(a->sin6_port);
  }
  return std::string(ip) + ":" + std::to_string(port);
}
}  // namespace

Server& server() { return *g_server; }

// Redis's connIsLocal for TCP: the textual peer address starts with "127." or is "::1" (an
// IPv4-mapped ::ffff:127.0.0.1 is not local there either).
bool is_loopback_ip(std::string_view ip) { return ip.rfind("127.", 0) == 0 || ip == "::1"; }

Server::Server() {
  g_server = this;
  loop_ = uv_default_loop();
}

bool Server::listen_all() {
  const ServerOptions& o = server_options();
  if (o.port == 0) return true;
  for (const std::string& spec : o.bind) {
    bool optional = !spec.empty() && spec[0] == '-';
    std::string addr = optional ? spec.substr(1) : spec;
    sockaddr_storage ss;
    int rc = addr.find(':') != std::string::npos
                 ? uv_ip6_addr(addr.c_str(), o.port, reinterpret_cast<sockaddr_in6*>(&ss))
                 : uv_ip4_addr(addr.c_str(), o.port, reinterpret_cast<sockaddr_in*>(&ss));
    auto* tcp = new uv_tcp_t;
    uv_tcp_init(loop_, tcp);
    tcp->data = this;
    if (rc == 0) rc = uv_tcp_bind(tcp, reinterpret_cast<sockaddr*>(&ss), addr.find(':') != std::string::npos ? UV_TCP_IPV6ONLY : 0);
    if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(tcp), static_cast<int>(o.tcp_backlog), on_connection);
    if (rc != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(tcp), [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
      if (optional && (rc == UV_EADDRNOTAVAIL || rc == UV_EAFNOSUPPORT || rc == UV_EINVAL)) {
        LOG_WARNING("Warning: Could not create server TCP listening socket %s:%d: %s", addr.c_str(), o.port, uv_strerror(rc));
        continue;
      }
      LOG_WARNING("Warning: Could not create server TCP listening socket %s:%d: %s", addr.c_str(), o.port, uv_strerror(rc));
      LOG_WARNING("Failed listening on port %d (tcp), aborting.", o.port);
      return false;
    }
    listeners_.push_back(tcp);
  }
  return true;
}

void Server::on_connection(uv_stream_t* listener, int status) {
  Server* s = static_cast<Server*>(listener->data);
  if (status < 0) return;
  Client* c = new Client(s, s->next_client_id_++);
  uv_tcp_init(s->loop_, &c->tcp);
  if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(&c->tcp)) != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), [](uv_handle_t* h) { delete static_cast<Client*>(h->data); });
    return;
  }
  s->stats_.total_connections_received++;
  uv_tcp_nodelay(&c->tcp, 1);
  const ServerOptions& o = server_options();
  if (o.tcp_keepalive > 0) uv_tcp_keepalive(&c->tcp, 1, static_cast<unsigned>(o.tcp_keepalive));
  uv_os_fd_t fd;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&c->tcp), &fd) != 0 ||
      uv_poll_init_socket(s->loop_, &c->poll, fd) != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), [](uv_handle_t* h) { delete static_cast<Client*>(h->data); });
    return;
  }
  c->fd = fd;
  c->session.addr = peer_name(&c->tcp, false);
  c->laddr = peer_name(&c->tcp, true);
  s->clients_[c->session.id] = c;
  if (static_cast<int64_t>(s->clients_.size()) > o.maxclients) {
    s->stats_.rejected_connections++;
    c->out.append("-ERR max number of clients reached\r\n");
    c->close_after_reply();
    c->flush();
    return;
  }
  // Protected mode (Redis's clientAcceptHandler): no password for the default user and a peer
  // that is not loopback -> one explanation line, then the connection is closed. Whatever the
  // bind addresses are, as Redis 7+.
  if (o.protected_mode && command_options().requirepass.empty()) {
    const std::string& addr = c->session.addr;
    if (!is_loopback_ip(std::string_view(addr).substr(0, addr.rfind(':')))) {
      s->stats_.rejected_connections++;
      c->out.append("-");
      c->out.append(kErrDeniedProtectedMode);
      c->out.append("\r\n");
      c->close_after_reply();
      c->flush();
      return;
    }
  }
  c->update_poll();
}

void Server::on_poll(uv_poll_t* h, int status, int events) {
  Client* c = static_cast<Client*>(h->data);
  if (c->closing) return;
  if (status < 0) {
    c->close();
    return;
  }
  if (events & UV_WRITABLE) {
    c->on_writable();
    if (c->closing) return;
  }
  if ((events & UV_READABLE) && !c->readable) {
    c->readable = true;
    c->server->readable_.push_back(c);
  }
}

void Server::on_read_batch(uv_check_t* h) {
  Server* s = static_cast<Server*>(h->data);
  if (s->readable_.empty() && s->to_run_pos_ == s->to_run_.size()) return;
  // A busy script inside one of this batch's commands runs the loop, and with it a nested read
  // batch: that one works on a round of its own.
  IoRound nested;
  IoRound& round = s->read_depth_ == 0 ? s->read_round_ : nested;
  std::vector<IoRequest>& reqs = round.reqs;
  std::vector<Client*>& batch = round.clients;
  for (Client* c : s->readable_) {
    c->readable = false;
    // Not into a query buffer that holds a parsed batch (the batch's views would dangle): a
    // client an outer batch parsed ahead is read again once it has run (epoll reports it again).
    if (c->closing || c->read_paused || c->parsed_ahead) continue;
    size_t len;
    char* room = read_room(c, &len);
    reqs.push_back({c->fd, true, room, len, 0});
    batch.push_back(c);
  }
  s->readable_.clear();
  s->read_depth_++;
  io_batch_run(reqs);
  // All input is taken into the query buffers before any of it runs: a nested batch may read
  // a client of this one again, and must append after what this one read.
  for (size_t i = 0; i < batch.size(); i++) {
    if (take_input(batch[i], reqs[i].result)) s->to_run_.push_back(batch[i]);
  }
  reqs.clear();
  batch.clear();
  // One queue and one cursor for every level: a nested batch also runs the clients an outer
  // batch read but had not run yet (their input is in their query buffers, so epoll will not
  // report them again), as the loop would have without the busy script.
  const bool prefetch = server_options().prefetch;
  while (s->to_run_pos_ < s->to_run_.size()) {
    if (prefetch && s->to_run_pos_ >= s->ahead_end_) s->parse_ahead_window();
    Client* c = s->to_run_[s->to_run_pos_++];
    if (!c->closing) c->process_input();
  }
  if (--s->read_depth_ == 0) {
    s->to_run_.clear();
    s->to_run_pos_ = 0;
    s->ahead_end_ = 0;
    for (Client* c : s->graveyard_) delete c;
    s->graveyard_.clear();
  }
}

// The clients from the cursor on, up to prefetch-batch-max-size commands in all (at least one
// client): each one's first batch parsed and its keys' buckets prefetched, then (two clients or
// more) their entries, before the first of them runs. At one command per request the lookups
// of several clients overlap as a pipeline's do; with pipelines the window holds one client,
// which is what process_input does on its own. A bigger window measured slower (ZADD -P16:
// prefetched skiplist nodes evicted before use).
void Server::parse_ahead_window() {
  const size_t budget = static_cast<size_t>(server_options().prefetch_batch_max_size);
  size_t end = to_run_pos_, cmds = 0;
  while (end < to_run_.size() && (cmds < budget || end == to_run_pos_)) {
    Client* c = to_run_[end++];
    if (!c->closing) cmds += c->parse_ahead();
  }
  if (end - to_run_pos_ >= 2) {
    for (size_t i = to_run_pos_; i < end; i++) {
      if (to_run_[i]->parsed_ahead && !to_run_[i]->closing) to_run_[i]->prefetch_ahead_entries();
    }
  }
  ahead_end_ = end;
}

void Server::release_client(Client* c) {
  if (read_depth_ > 0) {
    graveyard_.push_back(c);
  } else {
    delete c;
  }
}

void Server::queue_flush(Client* c) {
  if (KEEL_UNLIKELY(check_output_limits(c))) return;
  if (c->pending_flush || c->closing) return;
  c->pending_flush = true;
  pending_.push_back(c);
}

void Server::client_closed(Client* c) {
  blocking_drop_session(c->session);
  pause_drop_session(c->session);
  tracking_drop_session(c->session);
  pubsub_drop_session(c->session);
  multi_drop_session(c->session);  // queue + watched keys
  replication_client_closed(c);
  if (c->close_asap) close_asap_.erase(std::remove(close_asap_.begin(), close_asap_.end(), c), close_asap_.end());
  clients_.erase(c->session.id);
  if (c->pending_flush) {
    pending_.erase(std::remove(pending_.begin(), pending_.end(), c), pending_.end());
    c->pending_flush = false;
  }
  if (c->readable) {
    readable_.erase(std::remove(readable_.begin(), readable_.end(), c), readable_.end());
    c->readable = false;
  }
  if (c->fsync_held) {
    held_.erase(std::remove(held_.begin(), held_.end(), c), held_.end());
    c->fsync_held = false;
  }
  if (c->session.flags & Session::kMonitor) {
    monitors_.erase(std::remove(monitors_.begin(), monitors_.end(), c), monitors_.end());
    g_monitors_present = !monitors_.empty();
  }
}

void Server::on_before_sleep(uv_prepare_t* p) {
  Server* s = static_cast<Server*>(p->data);
  replication_before_sleep();  // WAITs satisfied by ACKs read in this iteration
  // Flushing may close clients, which edits pending_; work on a detached list.
  // Clients over their output buffer limits go first: what they are owed is dropped.
  if (KEEL_UNLIKELY(server_options().maxmemory_clients != 0)) s->evict_clients();
  while (!s->close_asap_.empty() && s->close_asap_.back() != s->busy_caller_) {
    s->close_asap_.back()->close();  // close() pops it
  }
  // Not while a busy script lets the loop poll (in_busy_poll_): resumed clients would run
  // inside the script's execution unit and move its frozen clock; they run after it.
  // A CLIENT PAUSE whose time is up ends here (and in the block timer), resuming the held clients.
  if (KEEL_UNLIKELY(g_pause.type != PauseType::kNone) && !s->in_busy_poll_) {
    (void)pause_check_timeout(mstime(), *s);
  }
  if (!s->in_busy_poll_ && (!s->resumed_.empty() || blocking_clients() != 0 || s->block_timer_at_ != 0 ||
                            g_pause.type != PauseType::kNone)) {
    s->run_resumed_and_arm_block_timer();
  }
  // Client-side caching: BCAST invalidations of this iteration, tracking-table-max-keys.
  // The hook is installed exactly while the table or the prefix table holds something.
  if (KEEL_UNLIKELY(g_keyspace_hooks.tracking != nullptr) && !s->in_busy_poll_ &&
      tracking_before_sleep_pending()) {
    tracking_before_sleep();
  }
  // The memory ceiling: the used-memory figure is re-read once per iteration, and an eviction
  // cut short by its time budget goes on (keyspace/evict.h).
  if (KEEL_UNLIKELY(g_admission_gates.maxmemory) && !s->in_busy_poll_) {
    eviction_continue();
    if (eviction_pending() && !s->evict_idle_on_) {
      uv_idle_start(&s->evict_idle_, [](uv_idle_t*) {});  // poll, no sleep
      s->evict_idle_on_ = true;
    }
  }
  if (KEEL_UNLIKELY(s->evict_idle_on_) && !eviction_pending()) {
    uv_idle_stop(&s->evict_idle_);
    s->evict_idle_on_ = false;
  }
  // The AOF is written before any reply of this iteration leaves: a client never sees an
  // acknowledgement for a write not yet in the file. With appendfsync always they also wait for
  // the fsync of what was written (the group commit, hold_for_fsync).
  if (KEEL_UNLIKELY(aof_state().fd != -1)) aof_flush(false);
  replication_flush_replicas(s->shutting_down_);
  if (KEEL_UNLIKELY(!s->held_.empty() || aof_group_commit_on())) s->hold_for_fsync();
  std::vector<Client*> work;
  work.swap(s->pending_);
  for (Client* c : work) {
    if (c != s->busy_caller_) c->pending_flush = false;
  }
  // Every client's output in one batch of sends (one system call with io_uring), then each
  // client's bookkeeping; a client closed by another's bookkeeping is still allocated (freed
  // in the loop's closing phase, after this) and is skipped.
  std::vector<IoRequest>& sends = s->flush_round_.reqs;
  std::vector<Client*>& senders = s->flush_round_.clients;
  for (Client* c : work) {
    if (c == s->busy_caller_) {
      s->pending_.push_back(c);  // flushed once its script returns (it is still on the stack)
    } else if (!c->closing && c->flush_ready()) {
      sends.push_back({c->fd, false, c->out.data(), c->out.size(), 0});
      senders.push_back(c);
    }
  }
  if (!sends.empty()) {
    io_batch_run(sends);
    for (size_t i = 0; i < senders.size(); i++) {
      if (!senders[i]->closing) senders[i]->flush_sent(sends[i].result);
    }
    sends.clear();
    senders.clear();
  }
  work.clear();
  if (s->pending_.empty()) s->pending_.swap(work);  // keep the capacity
  if (s->shutting_down_) s->finish_shutdown();
}

// A group commit waits (at most kCommitDelayUs) while fewer clients are owed replies than the
// last one answered: those come back within microseconds of each other (each sends its next
// request when its reply arrives), and an fsync for the first few would make the rest wait for
// the next one. A lone client, or clients that stopped, are fsynced at once or after the delay.
// (Measured with redis-benchmark -c 50 -P 1 on a disk whose fdatasync takes ~0.2 ms: 15 writes
// per fsync without the wait, 23 with it, and +8% throughput; 0.15 ms or 0.6 ms do worse.)
constexpr int64_t kCommitDelayUs = 300;

size_t Server::owed_replies() const {
  size_t n = held_.size();
  for (Client* c : pending_) n += c != busy_caller_ && !c->closing && !c->fsync_held;
  return n;
}

void Server::hold_for_fsync() {
  AofState& a = aof_state();
  const bool on = aof_group_commit_on();  // (off: the policy changed, or the AOF was turned off)
  if (on && a.durable_bytes < a.written_bytes) {
    const size_t owed = owed_replies();
    if (owed >= last_released_ || monotonic_us() - last_commit_us_ >= kCommitDelayUs) {
      last_released_ = owed;
      aof_fsync_written();
      last_commit_us_ = monotonic_us();
    } else {
      uv_timer_start(&commit_timer_, [](uv_timer_t*) {}, 1, 0);  // before-sleep decides again
    }
  }
  if (!on || a.durable_bytes >= a.written_bytes) {
    // Everything written is on disk, so whatever any client is owed may leave: the held ones
    // join this before-sleep's flush. (queue_flush may close one over its output limits, which
    // edits held_: the loop works on a detached list.)
    releasing_.swap(held_);
    for (Client* c : releasing_) {
      c->fsync_held = false;
      queue_flush(c);
    }
    releasing_.clear();
    return;
  }
  size_t keep = 0;
  for (Client* c : pending_) {
    if (c == busy_caller_ || c->closing) {
      pending_[keep++] = c;
      continue;
    }
    c->pending_flush = false;
    if (!c->fsync_held) {
      c->fsync_held = true;
      held_.push_back(c);
    }
  }
  pending_.resize(keep);
}

void Server::write_owed_replies() {
  for (std::vector<Client*>* list : {&pending_, &held_}) {
    for (Client* c : *list) {
      if (!c->closing && !c->out.empty()) {
        uv_buf_t b = uv_buf_init(c->out.data(), static_cast<unsigned>(c->out.size()));
        uv_try_write(reinterpret_cast<uv_stream_t*>(&c->tcp), &b, 1);
      }
    }
  }
}

void Server::on_cron(uv_timer_t* t) { static_cast<Server*>(t->data)->cron(); }

void Server::cron() {
  if (in_busy_poll_) return;  // a script is running: no expiry or timeouts under its feet
  const int64_t now_us = monotonic_us();
  g_clock.now_ms = mstime();
  g_clock.lru_clock = static_cast<uint32_t>(g_clock.now_ms / 1000);
  const ServerOptions& o = server_options();
  const int64_t period_us = 1000000 / (o.hz > 0 ? o.hz : 10);
  // Active expiry gets 25% of the cron period, like Redis's slow cycle.
  keyspace().active_expire_cycle(now_us + period_us / 4);
  const int64_t expire_us = monotonic_us() - now_us;
  keyspace_stats().expire_cycle_us += static_cast<uint64_t>(expire_us);
  if (KEEL_UNLIKELY(g_latency_hook.threshold_us > 0)) latency_add_sample_if_needed("expire-cycle", expire_us / 1000);
  // While a BGSAVE child shares our pages, rehashing would copy the tables page by page.
  if (!g_fork_child_exists) keyspace().cron(1000);
  rdb_cron();  // the child's reports and exit, save points, a scheduled BGSAVE
  aof_cron();  // a scheduled or automatic rewrite, a postponed write, a retry after an error
  replication_cron();
  migrate_close_idle(g_clock.now_ms);
  // The instantaneous_* figures over the last 16 samples of 100 ms.
  const int64_t ms = g_clock.now_ms;
  if (ms - stats_.last_sample_ms >= 100) {
    const int64_t dt = ms - stats_.last_sample_ms;
    const bool first = stats_.last_sample_ms == 0;
    stats_.ops.add(dispatch_stats().total_commands_processed, dt, first);
    stats_.input.add(stats_.net_input_bytes, dt, first);
    stats_.output.add(stats_.net_output_bytes, dt, first);
    stats_.repl_input.add(stats_.net_repl_input_bytes, dt, first);
    stats_.repl_output.add(stats_.net_repl_output_bytes, dt, first);
    stats_.last_sample_ms = ms;
  }
  if (o.timeout > 0) {
    std::vector<Client*> idle;
    for (auto& [id, c] : clients_) {
      // A client with a reply waiting (a blocked client served since the last flush) is about
      // to interact: writing counts as an interaction, as in Redis.
      if (!(c->session.flags & (Session::kPubSub | Session::kMonitor | Session::kBlocked)) &&
          !c->pending_flush && ms - c->last_interaction_ms > o.timeout * 1000) {
        idle.push_back(c);
      }
    }
    for (Client* c : idle) {
      LOG_VERBOSE("Closing idle client");
      c->close();
    }
  }
  // used_memory_peak / MEMORY STATS peak.allocated, once a second (reading jemalloc's
  // statistics refreshes them all: too costly for every tick).
  static int64_t last_peak_ms = 0;
  if (ms - last_peak_ms >= 1000) {
    last_peak_ms = ms;
    memory_peak_update(used_memory());
  }
  // Output buffers give back the capacity the last period did not use; DEBUG REPLYBUFFER sets
  // the period (NEVER: -1) or stops the trimming.
  const DebugOptions& dbg = debug_options();
  if (dbg.reply_buffer_resizing && dbg.reply_buffer_peak_reset_ms >= 0 &&
      ms - last_trim_ms_ >= dbg.reply_buffer_peak_reset_ms) {
    last_trim_ms_ = ms;
    for (auto& [id, c] : clients_) c->trim_buffers();
  }
  cron_loops_++;
  // The timer period follows `hz` changes.
  uv_timer_set_repeat(&cron_timer_, static_cast<uint64_t>(1000 / (o.hz > 0 ? o.hz : 10)));
}

void Server::on_signal(uv_signal_t* sig, int signum) {
  Server* s = static_cast<Server*>(sig->data);
  if (s->shutting_down_) {
    LOG_WARNING("You insist... exiting now.");
    _exit(1);
  }
  LOG_WARNING("Received %s scheduling shutdown...", signum == SIGINT ? "SIGINT" : "SIGTERM");
  // shutdown-on-sigterm / shutdown-on-sigint: default (save when save points exist), save,
  // nosave, now, force.
  const std::string_view name = signum == SIGINT ? "shutdown-on-sigint" : "shutdown-on-sigterm";
  const auto v = config().get({&name, 1});
  const std::string how = v.empty() ? "default" : v[0].second;
  if (!s->save_before_exit(how == "nosave", how == "save", how == "force")) {
    LOG_WARNING("Errors trying to shut down the server. Check the logs for more information.");
    return;  // the save failed: keep serving, as Redis does
  }
  s->request_shutdown(0);
}

bool Server::save_before_exit(bool nosave, bool save, bool force) {
  LOG_WARNING("User requested shutdown...");
  // During the start-up load the dataset is partial: never saved over the file (Redis).
  if (g_loading_dataset) {
    nosave = true;
    save = false;
  }
  // Its snapshot would race with the final one (and nobody would reap it).
  if (rdb_child_active()) {
    LOG_WARNING("There is a child saving an .rdb. Killing it!");
    rdb_kill_child(true);
  }
  AofState& aof = aof_state();
  if (aof.status != AofStatus::kOff) {
    if (aof_rewrite_active()) {
      // Turned on at run time and not written yet: exiting now would lose the dataset.
      if (aof.status == AofStatus::kWaitRewrite) {
        if (!force) {
          LOG_WARNING("Writing initial AOF, can't exit.");
          return false;
        }
        LOG_WARNING("Writing initial AOF. Exit anyway.");
      }
      LOG_WARNING("There is a child rewriting the AOF. Killing it!");
      aof_kill_rewrite_child();
    }
    aof_shutdown_flush();
  }
  const PersistenceOptions& po = persistence_options();
  if ((po.save_points.empty() || nosave) && !save) return true;
  LOG_NOTICE("Saving the final RDB snapshot before exiting.");
  if (rdb_save_file(po.dbfilename)) return true;
  if (force) {
    LOG_WARNING("Error trying to save the DB. Exit anyway.");
    return true;
  }
  LOG_WARNING("Error trying to save the DB, can't exit.");
  return false;
}

// Start-up: the dataset from dir/dbfilename, as Redis loads it (a missing file is an empty
// dataset). False when the file exists but cannot be loaded completely: the process must exit
// rather than serve part of it.
//
// Meanwhile, as in Redis, the server is up: every loading-process-events-interval-bytes the
// loader runs the event loop once (loading_events), so clients connect, commands with the
// `loading` flag (INFO, CONFIG, ...) run and the others get -LOADING; the cron does not run.
bool Server::load_data() {
  // The manifest is read whether or not appendonly is on (a later CONFIG SET appendonly yes
  // continues its sequence numbers); a malformed one is fatal, as in Redis.
  if (!aof_load_manifest_from_disk()) return false;
  if (aof_options().appendonly) {
    // With appendonly yes the AOF is the dataset and the RDB file is not read (Redis's rule).
    LoadingState& ls = loading_state();
    ls = LoadingState{};
    ls.start_time = time(nullptr);
    g_loading_dataset = true;
    g_rdb_load_events = [] { g_server->loading_events(); };
    bool loaded = false;
    const bool ok = aof_load_on_startup(&loaded);
    g_rdb_load_events = nullptr;
    g_loading_dataset = false;
    if (!ok) return false;
    // Replayed commands are not client traffic (Redis runs them without call()): out of
    // commandstats, errorstats, the command count and SLOWLOG.
    if (loaded) {
      slowlog().reset();
      reset_command_stats();
      error_stats().reset();
      dispatch_stats().total_commands_processed = 0;
    }
    return aof_open_on_startup();
  }
  const std::string& file = persistence_options().dbfilename;
  const int64_t start = monotonic_us();
  LoadingState& ls = loading_state();
  ls = LoadingState{};
  ls.start_time = time(nullptr);
  struct stat sb;
  if (stat(file.c_str(), &sb) == 0) ls.total_bytes = static_cast<uint64_t>(sb.st_size);
  g_loading_dataset = true;
  g_rdb_load_events = [] { g_server->loading_events(); };
  RdbLoadResult r = rdb_load_file(file, false);
  g_rdb_load_events = nullptr;
  g_loading_dataset = false;
  switch (r.status) {
    case RdbLoadResult::kMissing: return true;
    case RdbLoadResult::kOpenError:
      LOG_WARNING("Fatal error loading the DB (%s): %s. Exiting.", file.c_str(), r.reason.c_str());
      return false;
    case RdbLoadResult::kError: {
      std::string where;
      if (!r.key.empty()) where = " (reading key '" + r.key + "', type " + std::to_string(r.type) + ")";
      LOG_WARNING("Internal error in RDB reading offset %llu of file %s -> %s%s",
                  static_cast<unsigned long long>(r.offset), file.c_str(), r.reason.c_str(),
                  where.c_str());
      LOG_WARNING("Fatal error loading the DB, check server logs. Exiting.");
      return false;
    }
    case RdbLoadResult::kOk: break;
  }
  LOG_NOTICE("DB loaded from disk: %.3f seconds", double(monotonic_us() - start) / 1e6);
  return true;
}

void Server::loading_events() {
  // A load started from inside the loop (DEBUG RELOAD is allowed while loading, as in Redis)
  // must not run the loop again: uv_run is not reentrant.
  static bool inside = false;
  if (inside) return;
  g_clock.now_ms = mstime();
  g_clock.lru_clock = static_cast<uint32_t>(g_clock.now_ms / 1000);
  inside = true;
  uv_run(loop_, UV_RUN_NOWAIT);
  inside = false;
  if (!shutting_down_) return;
  // SHUTDOWN (never saving while loading) or a signal: leave now, as Redis exits from inside
  // its load. The half-loaded dataset is not freed (_exit: no destructors).
  write_owed_replies();
  const ServerOptions& o = server_options();
  if (!o.pidfile.empty()) unlink(o.pidfile.c_str());
  LOG_WARNING("%s is now ready to exit, bye bye...", "Keel");
  _exit(exit_code_);
}

void Server::request_shutdown(int exit_code) {
  shutting_down_ = true;
  exit_code_ = exit_code;
  uv_stop(loop_);
}

void Server::finish_shutdown() { uv_stop(loop_); }

bool Server::relisten() {
  // uv_close closes the socket at once (only the callback is deferred), so the same address and
  // port can be bound again right away.
  for (uv_tcp_t* t : listeners_) {
    uv_close(reinterpret_cast<uv_handle_t*>(t), [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
  }
  listeners_.clear();
  if (listen_all()) return true;
  for (uv_tcp_t* t : listeners_) {
    uv_close(reinterpret_cast<uv_handle_t*>(t), [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
  }
  listeners_.clear();
  return false;
}

int Server::run() {
  if (!listen_all()) return 1;
  set_relisten_hook([](std::string*) { return g_server->relisten(); });
  const ServerOptions& o = server_options();
  LOG_NOTICE("Server initialized");
  apply_cpulist(cpu_lists().server, "server_cpulist");
  stats_.start_time_ms = mstime();
  persistence_state().lastsave = time(nullptr);
  g_clock.now_ms = mstime();
  g_clock.lru_clock = static_cast<uint32_t>(g_clock.now_ms / 1000);
  apply_memory_options();
  replication_init();
  uv_timer_init(loop_, &cron_timer_);
  cron_timer_.data = this;
  uv_idle_init(loop_, &evict_idle_);
  uv_prepare_init(loop_, &before_sleep_);
  before_sleep_.data = this;
  uv_prepare_start(&before_sleep_, on_before_sleep);
  uv_check_init(loop_, &read_batch_);
  read_batch_.data = this;
  uv_check_start(&read_batch_, on_read_batch);
  uv_timer_init(loop_, &commit_timer_);
  uv_timer_init(loop_, &block_timer_);
  block_timer_.data = this;
  uv_signal_init(loop_, &sigterm_);
  sigterm_.data = this;
  uv_signal_start(&sigterm_, on_signal, SIGTERM);
  uv_signal_init(loop_, &g_sigchld);
  uv_signal_start(&g_sigchld, [](uv_signal_t*, int) { rdb_check_child(); }, SIGCHLD);
  // A BGSAVE child closes its copies of the listening sockets (never the loop's registrations:
  // the epoll set is shared with the parent), so a parent killed mid-save frees the port.
  g_bgsave_hooks.in_child = [] {
    for (uv_tcp_t* t : g_server->listeners_) {
      uv_os_fd_t fd;
      if (uv_fileno(reinterpret_cast<uv_handle_t*>(t), &fd) == 0) close(fd);
    }
  };
  uv_signal_init(loop_, &sigint_);
  sigint_.data = this;
  uv_signal_start(&sigint_, on_signal, SIGINT);
  signal(SIGPIPE, SIG_IGN);
  (void)io_batch_init();

  aof_install_hooks();
  // The loop's handles exist before the load: clients are served (-LOADING) while it runs.
  if (!load_data()) return 1;
  LOG_NOTICE("Ready to accept connections tcp");
  replication_start();
  uint64_t period = static_cast<uint64_t>(1000 / (o.hz > 0 ? o.hz : 10));
  uv_timer_start(&cron_timer_, on_cron, period, period);

  while (!shutting_down_) uv_run(loop_, UV_RUN_DEFAULT);

  // Shutdown: flush what clients are owed (best effort), remove the pidfile, exit. Writes other
  // clients ran after the shutdown began reach the AOF before their replies do.
  if (aof_state().fd != -1) {
    aof_flush(true);
    aof_fsync_written();
  }
  write_owed_replies();
  if (!o.pidfile.empty()) unlink(o.pidfile.c_str());
  // libuv's signal handler writes to the loop's pipe: a SIGCHLD from a child killed by the
  // shutdown that arrives while static objects are destroyed (seen under ASan, where freeing is
  // slow) would run it on a torn-down process. Stopping the handles restores the default
  // dispositions.
  uv_signal_stop(&g_sigchld);
  uv_signal_stop(&sigterm_);
  uv_signal_stop(&sigint_);
  LOG_WARNING("%s is now ready to exit, bye bye...", "Keel");
  return exit_code_;
}

// ---- ServerApi -------------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> Server::config_get(
    std::span<const std::string_view> patterns) {
  return config().get(patterns);
}
std::string Server::config_set(std::span<const std::string_view> pairs) { return config().set(pairs); }
std::string Server::config_rewrite() { return config().rewrite(); }
bool Server::config_sensitive(std::string_view name) { return config().sensitive(name); }
void Server::config_resetstat() {
  reset_command_stats();
  error_stats().reset();
  KeyspaceStats& ks = keyspace_stats();
  const uint64_t dirty = ks.dirty;
  ks = KeyspaceStats{};
  ks.dirty = dirty;
  const int64_t start = stats_.start_time_ms;
  stats_ = ServerStats{};
  stats_.start_time_ms = start;
  dispatch_stats() = DispatchStats{};  // total_commands_processed, lazyfreed_objects
  lazyfree_reset_stats();              // and the lazyfree thread's share of lazyfreed_objects
  eviction_stats() = EvictionStats{};  // total_eviction_exceeded_time
}

namespace {
// CLIENT LIST / KILL TYPE: Redis's client classes. Keel has no replication yet, so every client
// is "normal" or, with subscriptions, "pubsub"; master/replica/slave match nobody.
enum class ClientType { kNormal, kReplica, kMaster, kPubSub, kInvalid };
ClientType client_type_by_name(std::string_view t) {
  if (equals_nocase(t, "normal")) return ClientType::kNormal;
  if (equals_nocase(t, "replica") || equals_nocase(t, "slave")) return ClientType::kReplica;
  if (equals_nocase(t, "master")) return ClientType::kMaster;
  if (equals_nocase(t, "pubsub")) return ClientType::kPubSub;
  return ClientType::kInvalid;
}
ClientType client_type_of(const Client* c) {
  if (c->session.flags & Session::kReplica) return ClientType::kReplica;
  return (c->session.flags & Session::kPubSub) ? ClientType::kPubSub : ClientType::kNormal;
}
}  // namespace

std::string Server::client_line(const Client* c) const {
  const Session& s = c->session;
  const int64_t now = mstime();
  char buf[1024];
  char flags[16];
  size_t nf = 0;
  if (s.flags & Session::kMonitor) flags[nf++] = 'O';
  if (s.flags & Session::kReplica) flags[nf++] = 'S';
  if (s.flags & Session::kPubSub) flags[nf++] = 'P';
  if (s.flags & Session::kMulti) flags[nf++] = 'x';
  if (s.flags & Session::kBlocked) flags[nf++] = 'b';
  if (s.flags & Session::kTracking) flags[nf++] = 't';
  if (s.flags & Session::kTrackingBrokenRedir) flags[nf++] = 'R';
  if (s.flags & Session::kTrackingBcast) flags[nf++] = 'B';
  if (s.flags & Session::kCloseAfterReply) flags[nf++] = 'c';
  if (s.flags & Session::kNoEvict) flags[nf++] = 'e';
  if (s.flags & Session::kNoTouch) flags[nf++] = 'T';
  if (nf == 0) flags[nf++] = 'N';
  flags[nf] = 0;
  // Output as Redis lays it out: up to 16 KB of replies not yet written play its fixed reply
  // buffer (obl), the rest its list of 16 KB blocks (oll, and omem their bytes: 0 while nothing
  // is queued there). While the socket is full (a write in progress) Redis has sent its fixed
  // buffer first, so everything pending is in the list.
  constexpr size_t kReplyChunk = 16 * 1024;
  const size_t pending = c->out.size() + c->inflight.size();
  const size_t obl = c->writing ? 0 : std::min(pending, kReplyChunk);
  const size_t omem = pending - obl;
  const size_t oll = (omem + kReplyChunk - 1) / kReplyChunk;
  // qbuf is everything in the query buffer, the running command included (as sdslen of Redis's
  // query buffer); after a while an idle client has none (Client::trim_buffers).
  snprintf(buf, sizeof(buf),
           "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d sub=%zu psub=%zu "
           "ssub=%zu multi=%lld watch=%zu qbuf=%zu qbuf-free=%zu argv-mem=%zu multi-mem=%zu rbs=%zu rbp=%zu "
           "obl=%zu oll=%zu omem=%zu tot-mem=%zu events=r%s cmd=%s user=%s redir=%lld resp=%d "
           "lib-name=%s lib-ver=%s",
           static_cast<unsigned long long>(s.id), s.addr.c_str(), c->laddr.c_str(), c->fd,
           s.name.c_str(), static_cast<long long>((now - c->ctime_ms) / 1000),
           static_cast<long long>((now - c->last_interaction_ms) / 1000), flags, s.db_index,
           pubsub_session_count(s, PubSubKind::kChannel), pubsub_session_count(s, PubSubKind::kPattern),
           pubsub_session_count(s, PubSubKind::kShard),
           static_cast<long long>(multi_queued_count(s)), multi_watch_count(s), c->query.size(),
           c->query.capacity() - c->query.size(), c->argv_bytes(), multi_memory(s),
           c->out.capacity(), c->out_peak, obl, oll, omem, c->memory() + multi_memory(s),
           c->writing ? "w" : "", s.last_cmd_name ? s.last_cmd_name : "NULL",
           s.user ? s.user->name.c_str() : "default",
           static_cast<long long>(tracking_redirect_of(s)), s.resp,
           s.lib_name.c_str(), s.lib_ver.c_str());
  return buf;
}

std::string Server::client_list(std::span<const uint64_t> ids, std::string_view type) {
  const ClientType want = type.empty() ? ClientType::kInvalid : client_type_by_name(type);
  std::vector<const Client*> list;
  for (auto& [id, c] : clients_) {
    if (c->closing) continue;
    if (!ids.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) continue;
    if (!type.empty() && client_type_of(c) != want) continue;
    list.push_back(c);
  }
  std::sort(list.begin(), list.end(), [](const Client* a, const Client* b) { return a->session.id < b->session.id; });
  std::string out;
  for (const Client* c : list) {
    out += client_line(c);
    out += '\n';
  }
  return out;
}

std::string Server::client_info(const Session& s) {
  return client_line(static_cast<const Client*>(s.client)) + "\n";
}

// CLIENT KILL, both forms. The caller's own connection is closed after its reply is written;
// the others are closed at once (collected first: closing edits clients_).
int64_t Server::client_kill(const Session& self, std::span<const std::string_view> filters, std::string* error) {
  std::string_view addr, laddr;
  bool has_addr = false, has_laddr = false, has_id = false, has_type = false, skipme = true;
  uint64_t id = 0;
  int64_t max_age = 0;
  ClientType type = ClientType::kNormal;
  const AclUser* kill_user = nullptr;
  const bool old_style = filters.size() == 1;
  if (old_style) {
    addr = filters[0];
    has_addr = true;
    skipme = false;
  } else {
    for (size_t i = 0; i < filters.size(); i += 2) {
      if (i + 1 >= filters.size()) {
        *error = "ERR syntax error";
        return -1;
      }
      std::string_view opt = filters[i], val = filters[i + 1];
      if (equals_nocase(opt, "id")) {
        int64_t v;
        if (!parse_int64(val, &v) || v <= 0) {
          *error = "ERR client-id should be greater than 0";
          return -1;
        }
        id = static_cast<uint64_t>(v);
        has_id = true;
      } else if (equals_nocase(opt, "type")) {
        type = client_type_by_name(val);
        if (type == ClientType::kInvalid) {
          *error = "ERR Unknown client type '" + std::string(val) + "'";
          return -1;
        }
        has_type = true;
      } else if (equals_nocase(opt, "addr")) {
        addr = val;
        has_addr = true;
      } else if (equals_nocase(opt, "laddr")) {
        laddr = val;
        has_laddr = true;
      } else if (equals_nocase(opt, "user")) {
        kill_user = acl_find_user(val);
        if (!kill_user) {
          *error = "ERR No such user '" + std::string(val) + "'";
          return -1;
        }
      } else if (equals_nocase(opt, "skipme")) {
        if (equals_nocase(val, "yes")) {
          skipme = true;
        } else if (equals_nocase(val, "no")) {
          skipme = false;
        } else {
          *error = "ERR syntax error";
          return -1;
        }
      } else if (equals_nocase(opt, "maxage")) {
        // Redis 7.4: connections older than this many seconds.
        if (!parse_int64(val, &max_age)) {
          *error = "ERR maxage is not an integer or out of range";
          return -1;
        }
        if (max_age <= 0) {
          *error = "ERR maxage should be greater than 0";
          return -1;
        }
      } else {
        *error = "ERR syntax error";
        return -1;
      }
    }
  }
  const int64_t now = mstime();
  std::vector<Client*> victims;
  for (auto& [cid, c] : clients_) {
    if (c->closing) continue;
    if (has_id && cid != id) continue;
    if (has_addr && c->session.addr != addr) continue;
    if (has_laddr && c->laddr != laddr) continue;
    if (has_type && client_type_of(c) != type) continue;
    if (kill_user && (c->session.user ? c->session.user : acl_default_user()) != kill_user) continue;
    if (skipme && &c->session == &self) continue;
    if (max_age > 0 && (now - c->ctime_ms) / 1000 <= max_age) continue;
    victims.push_back(c);
  }
  if (old_style && victims.empty()) {
    *error = "ERR No such client";
    return -1;
  }
  for (Client* c : victims) {
    if (&c->session == &self) {
      c->close_after_reply();
    } else {
      c->close();
    }
  }
  // The link to our master is not a Client: TYPE master (alone, or with only SKIPME / MAXAGE)
  // drops it; the replica reconnects and asks for a partial resync.
  int64_t master_killed = 0;
  if (has_type && type == ClientType::kMaster && !has_id && !has_addr && !has_laddr) {
    master_killed = replication_kill_master_link() ? 1 : 0;
  }
  return static_cast<int64_t>(victims.size()) + master_killed;
}

void Server::acl_sessions_update(const Session& self, std::span<AclUser* const> changed) {
  std::vector<Client*> victims;
  for (auto& [cid, c] : clients_) {
    if (c->closing) continue;
    AclUser* u = c->session.user ? c->session.user : acl_default_user();
    if (std::find(changed.begin(), changed.end(), u) != changed.end() || !acl_session_keeps(c->session, u)) {
      victims.push_back(c);
      continue;
    }
    acl_attach(c->session, u);
  }
  for (Client* c : victims) {
    if (&c->session == &self) {
      c->close_after_reply();
    } else {
      c->close();
    }
  }
}

void Server::add_monitor(Session& s) {
  s.flags |= Session::kMonitor;
  Client* c = static_cast<Client*>(s.client);
  if (std::find(monitors_.begin(), monitors_.end(), c) == monitors_.end()) monitors_.push_back(c);
  g_monitors_present = true;
}

void Server::feed_monitors(const Session& s, std::span<const std::string_view> args) {
  // RESET ends MONITOR by clearing the flag; such clients leave the list here.
  monitors_.erase(std::remove_if(monitors_.begin(), monitors_.end(),
                                 [](Client* m) { return !(m->session.flags & Session::kMonitor); }),
                  monitors_.end());
  g_monitors_present = !monitors_.empty();
  if (monitors_.empty()) return;
  // "+<sec>.<usec> [<db> <addr>] "arg" "arg"..."
  int64_t us = ustime();
  char head[128];
  snprintf(head, sizeof(head), "+%lld.%06lld [%d %s]", static_cast<long long>(us / 1000000),
           static_cast<long long>(us % 1000000), s.db_index, s.addr.c_str());
  std::string line = head;
  for (std::string_view a : args) {
    line += " \"";
    for (unsigned char ch : a) {
      switch (ch) {
        case '\\': line += "\\\\"; break;
        case '"': line += "\\\""; break;
        case '\n': line += "\\n"; break;
        case '\r': line += "\\r"; break;
        case '\t': line += "\\t"; break;
        case '\a': line += "\\a"; break;
        case '\b': line += "\\b"; break;
        default:
          if (isprint(ch)) {
            line += static_cast<char>(ch);
          } else {
            char hx[8];
            snprintf(hx, sizeof(hx), "\\x%02x", ch);
            line += hx;
          }
      }
    }
    line += '"';
  }
  line += "\r\n";
  for (Client* m : monitors_) {
    if (&m->session == &s || m->closing) continue;
    m->out.append(line);
    queue_flush(m);
  }
}

// SHUTDOWN: saves first when save points exist (unless NOSAVE) or with SAVE; a failed save
// cancels the shutdown unless FORCE.
int64_t Server::lastsave() const { return persistence_state().lastsave; }

std::string Server::shutdown(bool nosave, bool save, bool, bool force, bool abort) {
  if (abort) return "ERR No shutdown in progress.";
  if (!save_before_exit(nosave, save, force)) return "ERR Errors trying to SHUTDOWN. Check logs.";
  request_shutdown(0);
  return {};
}

// ---- Pub/sub delivery and client-output-buffer-limit ------------------------------------------

Session* Server::find_session(uint64_t id) {
  auto it = clients_.find(id);
  if (it == clients_.end() || it->second->closing) return nullptr;
  return &it->second->session;
}

Buffer* Server::session_output(Session& s) {
  Client* c = static_cast<Client*>(s.client);
  if (!c || c->closing || c->close_asap) return nullptr;
  return &c->out;
}

void Server::session_output_ready(Session& s) { queue_flush(static_cast<Client*>(s.client)); }

// Redis's rule (checkClientOutputBufferLimits): hard limit reached -> close; soft limit reached
// -> remember when, close once it has held for more than soft-seconds; under it -> forget. The
// pending bytes count both the buffer being filled and the one owned by an in-progress write.
bool Server::check_output_limits(Client* c) {
  if (c->closing || c->close_asap) return true;
  const uint64_t used = c->out.size() + c->inflight.size();
  // CVE-2025-21605 (Redis 7.4.3 / 8.0): a client that never authenticated (requirepass set)
  // may not pile up replies by not reading them, whatever the class limits say. Redis allows
  // 1024 bytes beyond its 16 KB reply buffer; Keel's output is one buffer, hence the sum.
  bool over = false;
  if (KEEL_LIKELY(c->session.authenticated)) {
    c->ever_authenticated = true;
  } else if (!c->ever_authenticated && used > kUnauthOutputLimit) {
    over = true;
  }
  const OutputBufferLimit& l =
      server_options().obuf_limits[(c->session.flags & Session::kReplica) ? kObufReplica
                                   : (c->session.flags & Session::kPubSub) ? kObufPubSub
                                                                           : kObufNormal];
  if (!over && l.hard == 0 && l.soft == 0) return false;
  if (!over) over = l.hard != 0 && used >= l.hard;
  if (!over && l.soft != 0 && used >= l.soft) {
    const int64_t now = mstime();
    if (c->obuf_soft_since_ms == 0) {
      c->obuf_soft_since_ms = now;
    } else {
      over = now - c->obuf_soft_since_ms > l.soft_seconds * 1000;
    }
  } else if (!over) {
    c->obuf_soft_since_ms = 0;
  }
  if (!over) return false;
  LOG_WARNING("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
              client_line(c).c_str());
  c->close_asap = true;
  close_asap_.push_back(c);
  stats_.client_output_buffer_limit_disconnections++;
  return true;
}

// Redis 7.0's client eviction: the limit is maxmemory-clients, or that percentage of maxmemory
// (none without maxmemory), at least 128 KB; the memory of a client is what clients_memory() counts for it
// (its block, query and output buffers). The biggest evictable client goes first.
void Server::evict_clients() {
  const int64_t v = server_options().maxmemory_clients;
  uint64_t limit = 0;
  if (v > 0) {
    limit = static_cast<uint64_t>(v);
  } else if (eviction_options().maxmemory != 0) {
    limit = eviction_options().maxmemory * static_cast<uint64_t>(-v) / 100;
  }
  if (limit == 0) return;
  // Redis's floor: a tiny setting must not cut every client off.
  if (limit < 128 * 1024) limit = 128 * 1024;
  auto mem = [](const Client* c) {
    return allocation_size(c) + c->query.capacity() + c->out.capacity() + c->inflight.capacity();
  };
  for (;;) {
    uint64_t total = 0;
    Client* biggest = nullptr;
    size_t biggest_mem = 0;
    for (const auto& [id, c] : clients_) {
      if (c->closing || c->close_asap) continue;
      const size_t m = mem(c);
      total += m;
      if (c->session.flags & Session::kNoEvict) continue;
      if (c == busy_caller_ || m <= biggest_mem) continue;
      biggest = c;
      biggest_mem = m;
    }
    if (total <= limit || biggest == nullptr) return;
    stats_.evicted_clients++;
    biggest->close_asap = true;
    close_asap_.push_back(biggest);
  }
}

// ---- Scripts past busy-reply-threshold ---------------------------------------------------------

bool Server::process_events_while_busy(Session& caller) {
  Client* c = static_cast<Client*>(caller.client);
  if (c && busy_caller_ != c && !c->closing) {
    busy_caller_ = c;
    c->read_paused = true;  // its query buffer holds the args
    c->update_poll();
  }
  in_busy_poll_ = true;
  uv_run(loop_, UV_RUN_NOWAIT);
  in_busy_poll_ = false;
  return shutting_down_;
}

void Server::script_done(Session& caller) {
  Client* c = static_cast<Client*>(caller.client);
  if (!c || c != busy_caller_) return;
  busy_caller_ = nullptr;
  c->read_paused = false;
  c->update_poll();
}

// ---- Blocking commands -------------------------------------------------------------------------

void Server::resume_session(Session& s) { resumed_.push_back(s.id); }

// Before sleeping: unblocked clients run what they had pipelined (which may unblock others),
// then the timer is re-armed for the earliest deadline of the clients still blocked.
void Server::run_resumed_and_arm_block_timer() {
  while (!resumed_.empty()) {
    std::vector<uint64_t> ids;
    ids.swap(resumed_);
    for (uint64_t id : ids) {
      auto it = clients_.find(id);
      if (it == clients_.end()) continue;
      Client* c = it->second;
      if (c->closing || c == busy_caller_ || (c->session.flags & Session::kBlocked)) continue;
      g_clock.now_ms = mstime();
      c->process_input();
    }
  }
  int64_t at = blocking_next_deadline();
  // A pause ends once the clock is past its end: wake up just after it.
  if (g_pause.type != PauseType::kNone && g_pause.end_ms < INT64_MAX && g_pause.end_ms + 1 < at) {
    at = g_pause.end_ms + 1;
  }
  if (at == INT64_MAX) {
    if (block_timer_at_ != 0) uv_timer_stop(&block_timer_);
    block_timer_at_ = 0;
    return;
  }
  if (at == block_timer_at_) return;
  block_timer_at_ = at;
  const int64_t now = mstime();
  const uint64_t delay = at > now ? static_cast<uint64_t>(at - now) : 0;
  uv_timer_start(&block_timer_, [](uv_timer_t* t) {
    Server* srv = static_cast<Server*>(t->data);
    srv->block_timer_at_ = 0;
    if (srv->in_busy_poll_) return;  // re-armed by the next before-sleep
    g_clock.now_ms = mstime();
    (void)pause_check_timeout(g_clock.now_ms, *srv);
    blocking_expire(g_clock.now_ms, *srv);
  }, delay, 0);
}

bool Server::debug_command_allowed(const Session& s) const {
  int mode = command_options().enable_debug_command;
  if (mode == 1) return true;
  if (mode == 2) return s.addr.rfind("127.0.0.1:", 0) == 0 || s.addr.rfind("::1:", 0) == 0;
  return false;
}

}  // namespace keel
