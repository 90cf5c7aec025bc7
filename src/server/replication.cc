// Replication, both sides, with Redis's protocol and offsets.
//
// Master side. The replication stream is one more PropagationSink on the change stream
// (commands/propagate.h): it encodes each command once (one StreamEncoder: every replica sees
// the same bytes, so the SELECTs are shared, as Redis's slaveseldb), appends the bytes to the
// backlog and to the output buffer of every online replica, and advances master_repl_offset by
// their length. PSYNC with our replid (or replid2 up to second_repl_offset, PSYNC2) and an
// offset the backlog still holds gets +CONTINUE and the backlog from there; anything else gets
// +FULLRESYNC <replid> <offset> and a snapshot written by a forked child (to dbfilename, then
// sent from the file; or diskless, through a pipe in the $EOF: form), then the stream (see
// "Full sync by fork").
//
// Replica side. One outgoing connection to the master: PING, AUTH (masterauth/masteruser),
// REPLCONF listening-port, REPLCONF capa eof capa psync2, PSYNC <our replid> <our offset + 1>
// (a replica that ever had a backlog continues its own history, Redis's
// replicationCacheMasterUsingMyself) or PSYNC ? -1. The RDB (a $<len> bulk or the $EOF:<mark>
// form) is written to temp-<unixtime>.<pid>.rdb as it arrives, checked in full
// (rdb_check_file) before anything is touched, so a
// truncated or corrupt transfer leaves the old data in place (repl-diskless-load disabled);
// then renamed to dbfilename, the dataset emptied and the file loaded. The stream is applied
// through a Session flagged kMaster (no replies, no -READONLY); the bytes of each applied
// command go to our own backlog and sub-replicas unchanged, so offsets match the master's.
#include "server/replication.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/admission.h"
#include "base/byte_ring.h"
#include "base/log.h"
#include "base/memory.h"
#include "base/numbers.h"
#include "base/time.h"
#include "base/util_random.h"
#include "commands/command_rename.h"
#include "commands/command_table.h"
#include "commands/debug_state.h"
#include "commands/dispatch.h"
#include "commands/pause.h"
#include "commands/propagate.h"
#include "commands/replication_api.h"
#include "commands/session.h"
#include "commands/tracking.h"
#include "keyspace/evict.h"
#include "keyspace/keyspace.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "persistence/rdb_bgsave.h"
#include "persistence/rdb_io.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "protocol/reply_writer.h"
#include "protocol/resp_parser.h"
#include "scripting/lua_engine.h"
#include "server/client.h"
#include "server/config.h"
#include "server/server.h"

namespace keel {

int64_t g_repl_write_off = 0;

LuaEngine& functions_for_persistence();  // cmd_scripting.cc: the FUNCTION libraries

namespace {

constexpr const char* kZeroId = "0000000000000000000000000000000000000000";

// ---- Master side state -----------------------------------------------------------------------

// Where a replica stands in a full sync (INFO: wait_bgsave, send_bulk, online).
enum class SyncState { kWaitStart, kWaitEnd, kSendBulk, kOnline };

struct ReplicaInfo {
  Client* c = nullptr;
  int64_t listening_port = 0;
  std::string ip;
  int64_t ack_off = 0;
  int64_t ack_ms = 0;
  bool online = false;    // the stream goes straight to its output buffer
  bool capa_eof = false;  // REPLCONF capa eof
  bool capa_psync2 = false;  // REPLCONF capa psync2: +CONTINUE names the replication ID
  // Full sync (see "Full sync by fork" below): while in_sync, the stream since the snapshot's
  // offset collects in `pending` and goes out after the snapshot.
  bool in_sync = false;
  bool legacy = false;     // SYNC: no +FULLRESYNC line
  bool eof_job = false;    // its snapshot comes through the pipe, in the $EOF: form
  bool wait_ack = false;   // diskless, snapshot sent: the stream starts at its first ACK
  SyncState state = SyncState::kWaitStart;
  int64_t wait_since_ms = 0;
  std::string pending;
  int rdb_fd = -1;         // disk sync: the snapshot file being sent
  int64_t rdb_left = 0;
};
std::vector<ReplicaInfo> g_replicas;  // every client that sent REPLCONF or PSYNC

int64_t g_master_off = 0;       // master_repl_offset (on a replica: what it applied)
ReplSyncCounts g_sync_counts;    // INFO stats sync_full / sync_partial_ok / sync_partial_err
std::string g_replid2 = kZeroId;
int64_t g_second_off = -1;

// The newest repl-backlog-size bytes of the stream (at least 16 KB), in a ring addressed by
// offset: ring.end_offset() is master_repl_offset + 1.
struct Backlog {
  bool active = false;
  ByteRing ring;
} g_backlog;

StreamEncoder g_enc;
Buffer g_scratch;
// Some online replica's output buffer got stream bytes since the last before-sleep: it is queued
// for its flush (and its output limit checked) there, once per loop iteration rather than once
// per command.
bool g_replicas_fed = false;
size_t backlog_cap(const ReplOptions& o) {
  return static_cast<size_t>(std::max<int64_t>(o.backlog_size, 16 * 1024));
}
// Called by CONFIG SET repl-backlog-size (replication_options_changed): trims at once.
void refresh_backlog_cap(const ReplOptions& o) {
  if (g_backlog.active) g_backlog.ring.set_limit(backlog_cap(o));
}
bool g_applying_master = false;  // the master's stream is being applied: not re-encoded
bool g_is_replica = false;       // REPLICAOF host port in effect
// The master's last PING to its replicas; the period counts from start-up or promotion too, so a
// master PINGs every repl-ping-replica-period seconds from then on (as Redis's cron-loop modulo)
// and never at once when its first replica comes online.
int64_t g_last_ping_ms = 0;
// End of the last command written to the stream (not PINGs nor GETACKs): what WAIT waits for
// (Redis uses the client's own last write offset; every earlier write is before this one).
int64_t& g_last_write_off = g_repl_write_off;
int64_t g_last_connect_ms = 0;
int64_t g_no_replicas_since_ms = 0;  // Redis's repl_no_slaves_since (0: not yet set)

struct Waiter {
  Client* c;
  int64_t target;
  int64_t want;
  int64_t deadline_ms;  // 0 = none
};
std::vector<Waiter> g_waiters;

// FAILOVER (Redis 6.2+): writes are held back (a pause of its own purpose) until a replica has
// acknowledged the whole stream, then this master turns into that replica's replica and asks
// it, with PSYNC <replid> <offset> FAILOVER, to take over; the pause ends with the reply.
enum class FailoverState : uint8_t { kNone, kWaitForSync, kInProgress };
struct FailoverJob {
  FailoverState state = FailoverState::kNone;
  std::string host;  // the target; empty while FAILOVER named none and none has caught up
  int64_t port = 0;
  bool force = false;   // at the timeout, fail over to the target anyway
  int64_t end_ms = 0;   // waiting-for-sync ends here (0: no timeout)
} g_failover;
void failover_abort(const char* why);
void failover_clear();

ReplicaInfo* find_replica(const Client* c) {
  for (ReplicaInfo& r : g_replicas) {
    if (r.c == c) return &r;
  }
  return nullptr;
}

std::string eof_mark() {
  static const char* kHex = "0123456789abcdef";
  std::string s(40, '0');
  for (char& ch : s) ch = kHex[random_u64() & 15];
  return s;
}

ReplicaInfo& replica_entry(Client* c) {
  if (ReplicaInfo* r = find_replica(c)) return *r;
  ReplicaInfo r;
  r.c = c;
  g_replicas.push_back(r);
  return g_replicas.back();
}

void drop_replica_clients() {
  std::vector<Client*> cs;
  for (ReplicaInfo& r : g_replicas) {
    if (r.online || r.in_sync) cs.push_back(r.c);
  }
  for (Client* c : cs) c->close();
}

// Bytes of the stream: into the backlog and to every replica (the offset is counted by the
// callers: feed_raw, and feed_encoded for the bytes it held back). The replicas' flushes and
// output limits wait for before-sleep (replication_before_sleep): one check per iteration.
void copy_out(const char* p, size_t n) {
  g_backlog.ring.append(p, n);
  for (ReplicaInfo& r : g_replicas) {
    if (r.c->closing) continue;
    if (r.in_sync && r.state != SyncState::kWaitStart) {
      r.pending.append(p, n);  // after its snapshot (full_sync_pending_over_limit)
      continue;
    }
    if (!r.online) continue;
    r.c->out.append(p, n);
    g_replicas_fed = true;
  }
}

// Consecutive commands of one client's batch that go out as the client sent them are
// consecutive bytes of its query buffer: feed_encoded counts their offset at once but copies
// them into the backlog and the replicas' buffers as one range (Redis copies each command; one
// copy per batch is ~140 fewer instructions per command at -P 16). The range points into that
// client's query buffer, so it is copied before anything else reaches the stream (feed_raw),
// before anything reads the backlog or the replicas' buffers (every entry point of this file
// below calls flush_held(), but eviction's size query), and at the end of the client's input processing
// (replication_flush_held from Client::process_input, before the query buffer changes).
struct Held {
  const char* p = nullptr;
  size_t n = 0;
} g_held;

void flush_held() {
  if (g_held.n == 0) return;
  const Held h = g_held;
  g_held = Held{};
  copy_out(h.p, h.n);
}

void feed_raw(const char* p, size_t n) {
  if (!g_backlog.active) return;
  flush_held();
  g_master_off += static_cast<int64_t>(n);
  copy_out(p, n);
}

// The replicas' writes are coalesced: a before-sleep flushes them only once some replica has
// kReplFlushBytes waiting, or when a timer fires, or at once when asked (WAIT's GETACK,
// shutdown). The timer gives the first unflushed bytes kReplQuietMs, or, while the stream runs
// continuously (bytes again within kReplBusyMs of the last flush), lets flushes be kReplBusyMs
// apart. Redis writes to its replicas in every loop iteration; on loopback each write also pays
// for the replica's receive path and wake-up, which made the master's CPU per command at an
// offered rate grow by 30-50% with a replica that keeps up (it sleeps between writes); one
// flush per millisecond still cost +14% at 300k SET/s, one per 4 ms +6-8%
// (utils/bench/RESULTS.md).
// A sparse stream reaches the replica a millisecond later at most, a busy one kReplBusyMs
// later; WAIT does not wait for the timer.
constexpr size_t kReplFlushBytes = 64 * 1024;
constexpr uint64_t kReplQuietMs = 1;
constexpr uint64_t kReplBusyMs = 4;
uint64_t g_last_flush_ms = 0;  // loop time of the last flush
bool g_flush_now = false;
uv_timer_t* g_coalesce_timer = nullptr;
bool g_coalesce_armed = false;

bool coalesce_replica_writes() {
  size_t most = 0;
  for (const ReplicaInfo& r : g_replicas) {
    if (r.online && !r.c->closing) most = std::max(most, r.c->out.size());
  }
  if (most >= kReplFlushBytes) return false;
  if (!g_coalesce_armed) {
    if (g_coalesce_timer == nullptr) {
      g_coalesce_timer = new uv_timer_t;
      uv_timer_init(server().loop(), g_coalesce_timer);
    }
    const uint64_t now = uv_now(server().loop());
    const uint64_t busy_end = g_last_flush_ms + kReplBusyMs;
    const uint64_t wait = now < busy_end ? std::max(kReplQuietMs, busy_end - now) : kReplQuietMs;
    // The before-sleep of the iteration whose timers fire this one does the flush.
    uv_timer_start(g_coalesce_timer, [](uv_timer_t*) {
      g_coalesce_armed = false;
      g_flush_now = true;
    }, wait, 0);
    g_coalesce_armed = true;
  }
  return true;
}

// Before sleep: the replicas fed (see above) get their flush queued, which checks their output
// limit first (past it they are closed before anything is written).
void flush_fed_replicas(bool force) {
  if (!g_replicas_fed) return;
  if (!force && !g_flush_now && coalesce_replica_writes()) return;
  g_flush_now = false;
  if (g_coalesce_armed) {
    uv_timer_stop(g_coalesce_timer);
    g_coalesce_armed = false;
  }
  g_replicas_fed = false;
  g_last_flush_ms = uv_now(server().loop());
  for (ReplicaInfo& r : g_replicas) {
    if (r.online && !r.c->closing && !r.c->out.empty()) server().queue_flush(r.c);
  }
}

class ReplSink final : public PropagationSink {
 public:
  void feed(int dbid, std::span<const std::string_view> argv, uint8_t targets) override {
    if (!streamed(targets)) return;
    g_scratch.clear();
    g_enc.append(g_scratch, dbid, argv);
    feed_raw(g_scratch.data(), g_scratch.size());
    g_last_write_off = g_master_off;
  }
  // A command as its client sent it: its bytes are the stream (after a SELECT if needed).
  void feed_encoded(int dbid, std::span<const std::string_view>, std::string_view raw,
                    uint8_t targets) override {
    if (!streamed(targets)) return;
    if (KEEL_UNLIKELY(dbid >= 0 && dbid != g_enc.selected_db())) {
      g_scratch.clear();
      g_enc.select(g_scratch, dbid);
      feed_raw(g_scratch.data(), g_scratch.size());
    }
    if (g_held.n != 0 && g_held.p + g_held.n == raw.data()) {
      g_held.n += raw.size();
    } else {
      flush_held();
      g_held = Held{raw.data(), raw.size()};
    }
    g_master_off += static_cast<int64_t>(raw.size());
    g_last_write_off = g_master_off;
  }

 private:
  // A replica streams only what its master sent (applied by apply_stream, bytes unchanged);
  // its own changes (a writable replica's writes) stay local, as in Redis.
  static bool streamed(uint8_t targets) {
    return (targets & kPropagateRepl) && !g_applying_master && g_backlog.active && !g_is_replica;
  }
};
ReplSink g_sink;
bool g_sink_attached = false;

void create_backlog() {
  if (g_backlog.active) return;
  g_backlog.active = true;
  g_backlog.ring.reset(g_master_off + 1, backlog_cap(repl_options()));
  g_enc.reset();
  if (!g_sink_attached) {
    propagation_add_sink(&g_sink);
    g_sink_attached = true;
  }
}

// ---- Full sync by fork ------------------------------------------------------------------------
//
// As Redis: a replica that needs a full sync waits (wait_bgsave) for a forked child to write a
// snapshot of the dataset at one offset, announced to it by +FULLRESYNC <replid> <offset> when
// the child is forked; the stream from that offset collects in its `pending`. With
// repl-diskless-sync no (or a replica without capa eof, SYNC included) the child is a BGSAVE to
// dbfilename; once it is reaped the parent sends the file to each of its replicas as a
// $<length> bulk, a chunk at a time as their sockets drain (send_bulk), then the pending stream
// (online). With repl-diskless-sync yes the child writes into a pipe after
// repl-diskless-sync-delay seconds (or once repl-diskless-sync-max-replicas wait); the parent
// forwards what it reads to every replica of that sync as $EOF:<mark> ... <mark>, and starts
// the stream at the replica's first REPLCONF ACK (so the mark is the last thing the replica
// reads before it loads). A replica arriving while a disk child for replication runs attaches
// to it (a copy of a sibling's pending stream); otherwise it waits for the next fork.

constexpr size_t kSyncHighWater = 1 << 20;  // snapshot bytes buffered per replica at most
constexpr size_t kSyncChunk = 64 * 1024;

struct SyncJob {
  bool disk = false;       // a BGSAVE started for replication is running
  bool pipe = false;       // a diskless child is running / its pipe is being read
  int64_t offset = 0;      // the snapshot's offset (the +FULLRESYNC one)
  int pipe_fd = -1;
  uv_poll_t* poll = nullptr;
  bool polling = false;
  bool pipe_eof = false;
  int child_ok = -1;       // -1 running, 0 failed, 1 succeeded
  std::string mark;
} g_job;

uv_timer_t* g_pump_timer = nullptr;

bool waiting_for_fork(const ReplicaInfo& r) { return r.in_sync && r.state == SyncState::kWaitStart; }

size_t out_bytes(const Client* c) { return c->out.size() + c->inflight.size(); }

void send_fullresync(ReplicaInfo& r, int64_t offset) {
  if (r.legacy) return;
  const std::string line = "+FULLRESYNC " + master_replid() + " " + std::to_string(offset) + "\r\n";
  r.c->out.append(line.data(), line.size());
  server().queue_flush(r.c);
}

void close_replicas(std::vector<Client*> cs) {
  for (Client* c : cs) c->close();
}

// The snapshot and everything before the stream are out: the stream flows from here.
void go_online(ReplicaInfo& r) {
  r.in_sync = false;
  r.wait_ack = false;
  r.state = SyncState::kOnline;
  r.online = true;
  r.ack_ms = mstime();
  if (!r.pending.empty()) {
    r.c->out.append(r.pending.data(), r.pending.size());
    std::string().swap(r.pending);
  }
  server().queue_flush(r.c);
  server().check_output_limits(r.c);
  LOG_NOTICE("Synchronization with replica %s succeeded", r.c->session.addr.c_str());
}

void pipe_stop_polling() {
  if (g_job.poll != nullptr && g_job.polling) uv_poll_stop(g_job.poll);
  g_job.polling = false;
}

void pipe_close() {
  pipe_stop_polling();
  if (g_job.poll != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(g_job.poll),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
    g_job.poll = nullptr;
  }
  if (g_job.pipe_fd != -1) close(g_job.pipe_fd);
  g_job.pipe_fd = -1;
}

std::vector<ReplicaInfo*> pipe_replicas() {
  std::vector<ReplicaInfo*> v;
  for (ReplicaInfo& r : g_replicas) {
    if (r.in_sync && r.eof_job && r.state == SyncState::kWaitEnd && !r.c->closing) v.push_back(&r);
  }
  return v;
}

// The diskless snapshot is complete only when the pipe is at EOF and the child succeeded.
void pipe_job_finish() {
  if (!g_job.pipe || !g_job.pipe_eof || g_job.child_ok == -1) return;
  std::vector<Client*> failed;
  for (ReplicaInfo* r : pipe_replicas()) {
    if (g_job.child_ok != 1) {
      LOG_WARNING("Diskless rdb transfer to replica %s failed: the child returned an error",
                  r->c->session.addr.c_str());
      failed.push_back(r->c);
      continue;
    }
    r->c->out.append(g_job.mark.data(), g_job.mark.size());
    server().queue_flush(r->c);
    r->state = SyncState::kOnline;  // as Redis: online, the stream waits for its first ACK
    r->wait_ack = true;
    LOG_NOTICE("Snapshot for replica %s sent diskless, with the $EOF: mark",
               r->c->session.addr.c_str());
  }
  g_job.pipe = false;
  g_job.child_ok = -1;
  pipe_close();
  close_replicas(std::move(failed));
}

// Reads the pipe while every replica of the sync has room; stops polling when one has not
// (replication_before_sleep starts it again once they drained).
void pipe_pump() {
  if (g_job.pipe_fd == -1) return;
  std::vector<ReplicaInfo*> rs = pipe_replicas();
  if (rs.empty()) {
    // Nobody left to send it to: end the child rather than let it finish for nothing.
    LOG_WARNING("Diskless rdb transfer, last replica dropped, killing fork child.");
    pipe_close();
    g_job.pipe_eof = true;
    rdb_kill_child(false);
    return;
  }
  static char buf[kSyncChunk];
  for (;;) {
    for (ReplicaInfo* r : rs) {
      if (out_bytes(r->c) >= kSyncHighWater) {
        pipe_stop_polling();
        return;
      }
    }
    const ssize_t n = read(g_job.pipe_fd, buf, sizeof(buf));
    if (n > 0) {
      for (ReplicaInfo* r : rs) {
        r->c->out.append(buf, static_cast<size_t>(n));
        server().queue_flush(r->c);
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!g_job.polling && g_job.poll != nullptr) {
        uv_poll_start(g_job.poll, UV_READABLE, [](uv_poll_t*, int, int) { pipe_pump(); });
        g_job.polling = true;
      }
      return;
    }
    // EOF (or a read error, which the child's exit status confirms or not).
    g_job.pipe_eof = true;
    pipe_close();
    pipe_job_finish();
    return;
  }
}

// Disk sync: sends the next chunks of the file to the replica while its output is small.
// Returns true when the socket took everything and more could be sent right away. Closing the
// client removes its entry at once (replication_client_closed): r is not used after that.
bool disk_pump(ReplicaInfo& r) {
  static char buf[kSyncChunk];
  Client* const c = r.c;
  while (r.rdb_left > 0 && out_bytes(c) < kSyncHighWater) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(r.rdb_left, sizeof(buf)));
    const ssize_t n = read(r.rdb_fd, buf, want);
    if (n <= 0) {
      LOG_WARNING("Read error sending DB to replica: %s", n < 0 ? strerror(errno) : "premature EOF");
      c->close();
      return false;
    }
    r.c->out.append(buf, static_cast<size_t>(n));
    r.rdb_left -= n;
  }
  if (r.rdb_left == 0) {
    close(r.rdb_fd);
    r.rdb_fd = -1;
    LOG_NOTICE("Snapshot for replica %s sent as a $<length> bulk", r.c->session.addr.c_str());
    go_online(r);
    return false;
  }
  c->flush();  // may close c
  return !c->closing && !c->writing;
}

// Every replica in send_bulk gets more of its file; a replica whose socket swallowed all of it
// (nothing in flight, so no write completion will wake the loop) is pumped again on the next
// iteration by a zero timer.
void sync_pump() {
  bool again = false;
  std::vector<Client*> over;
  std::vector<Client*> sending;
  const OutputBufferLimit& lim = server_options().obuf_limits[kObufReplica];
  for (ReplicaInfo& r : g_replicas) {
    if (!r.in_sync || r.c->closing) continue;
    if (lim.hard != 0 && r.pending.size() + out_bytes(r.c) >= lim.hard) {
      LOG_WARNING("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
                  r.c->session.addr.c_str());
      over.push_back(r.c);
      continue;
    }
    if (r.state == SyncState::kSendBulk && r.rdb_fd != -1) sending.push_back(r.c);
  }
  close_replicas(std::move(over));
  // A pump may close its client, which edits g_replicas: each one is looked up afresh.
  for (Client* c : sending) {
    if (ReplicaInfo* r = find_replica(c); r != nullptr && !c->closing) again |= disk_pump(*r);
  }
  if (g_job.pipe_fd != -1 && !g_job.polling) pipe_pump();
  if (again) {
    if (g_pump_timer == nullptr) {
      g_pump_timer = new uv_timer_t;
      uv_timer_init(server().loop(), g_pump_timer);
    }
    uv_timer_start(g_pump_timer, [](uv_timer_t*) { sync_pump(); }, 0, 0);
  }
}

// Forks the child for the replicas waiting for one: to the pipe when every one of them can
// take the $EOF: form and repl-diskless-sync is on, else a BGSAVE to dbfilename.
void start_sync_fork(bool to_pipe) {
  std::vector<ReplicaInfo*> ws;
  for (ReplicaInfo& r : g_replicas) {
    if (waiting_for_fork(r) && !r.c->closing) ws.push_back(&r);
  }
  if (ws.empty()) return;
  bool ok;
  if (to_pipe) {
    int fd = -1;
    ok = rdb_fork_to_pipe(&fd);
    if (ok) {
      g_job = SyncJob();
      g_job.pipe = true;
      g_job.pipe_fd = fd;
      g_job.mark = eof_mark();
      g_job.poll = new uv_poll_t;
      uv_poll_init(server().loop(), g_job.poll, fd);
    }
  } else {
    LOG_NOTICE("Starting BGSAVE for SYNC with target: disk");
    ok = rdb_bgsave(persistence_options().dbfilename);
    if (ok) g_job.disk = true;
  }
  if (!ok) {
    LOG_WARNING("BGSAVE for replication failed");
    std::vector<Client*> cs;
    for (ReplicaInfo* r : ws) cs.push_back(r->c);
    close_replicas(std::move(cs));
    return;
  }
  g_job.offset = g_master_off;
  g_enc.reset();  // the stream after the snapshot starts with a SELECT
  for (ReplicaInfo* r : ws) {
    send_fullresync(*r, g_job.offset);
    r->state = SyncState::kWaitEnd;
    r->eof_job = to_pipe;
    r->pending.clear();
    if (to_pipe) {
      const std::string pre = "$EOF:" + g_job.mark + "\r\n";
      r->c->out.append(pre.data(), pre.size());
      server().queue_flush(r->c);
    }
  }
  if (to_pipe) pipe_pump();
}

// Starts a fork when replicas wait and no child runs: at once for a disk sync, after
// repl-diskless-sync-delay seconds (or repl-diskless-sync-max-replicas replicas) for a
// diskless one, as Redis's replicationStartPendingFork.
void maybe_start_sync_fork() {
  if (any_child_active()) return;
  const ReplOptions& o = repl_options();
  const int64_t now = mstime();
  int64_t waiting = 0, max_idle = 0;
  bool all_eof = true;
  for (const ReplicaInfo& r : g_replicas) {
    if (!waiting_for_fork(r) || r.c->closing) continue;
    waiting++;
    max_idle = std::max(max_idle, (now - r.wait_since_ms) / 1000);
    all_eof &= r.capa_eof;  // SYNC with capa eof too (redis-cli --rdb), as Redis
  }
  if (waiting == 0) return;
  const bool to_pipe = o.diskless_sync && all_eof;
  if (to_pipe && max_idle < o.diskless_sync_delay &&
      !(o.diskless_sync_max_replicas > 0 && waiting >= o.diskless_sync_max_replicas)) {
    return;
  }
  start_sync_fork(to_pipe);
}

// rdb-del-sync-files on the master: the snapshot a disk-based sync wrote, recognised by its
// inode and modification time (a SAVE or BGSAVE since then renamed another file over it).
struct SyncSnapshotFile {
  bool valid = false;
  dev_t dev = 0;
  ino_t ino = 0;
  struct timespec mtime = {};
};
SyncSnapshotFile g_sync_file;

bool same_file(const struct stat& sb, const SyncSnapshotFile& f) {
  return sb.st_dev == f.dev && sb.st_ino == f.ino && sb.st_mtim.tv_sec == f.mtime.tv_sec &&
         sb.st_mtim.tv_nsec == f.mtime.tv_nsec;
}

// As Redis's removeRDBUsedToSyncReplicas: with rdb-del-sync-files and neither save points nor
// AOF, the file goes once no replica waits for it or is being sent it.
void remove_sync_snapshot() {
  if (!g_sync_file.valid) return;
  if (!repl_options().del_sync_files) {
    g_sync_file.valid = false;
    return;
  }
  if (!persistence_options().save_points.empty() || aof_options().appendonly || g_job.disk) return;
  for (const ReplicaInfo& r : g_replicas) {
    if (r.in_sync && !r.eof_job) return;  // waiting for a snapshot, or being sent one
  }
  const std::string& file = persistence_options().dbfilename;
  struct stat sb;
  if (lstat(file.c_str(), &sb) == 0 && same_file(sb, g_sync_file)) {
    LOG_NOTICE("Removing the RDB file used to feed replicas in a persistence-less instance");
    unlink(file.c_str());
  }
  g_sync_file.valid = false;
}

// BgsaveHooks::rdb_child_done: the snapshot of a disk sync is on disk (or failed), or the
// diskless child ended.
void on_rdb_child_done(int child_type, bool ok) {
  flush_held();
  if (child_type == kChildRdbPipe) {
    g_job.child_ok = ok ? 1 : 0;
    if (!ok && g_job.pipe) {
      g_job.pipe_eof = true;  // whatever is left in the pipe is not worth sending
      pipe_close();
    }
    pipe_job_finish();
  } else if (g_job.disk) {
    g_job.disk = false;
    std::vector<Client*> failed;
    const std::string& file = persistence_options().dbfilename;
    struct stat fsb;
    if (ok && stat(file.c_str(), &fsb) == 0) {
      g_sync_file = {true, fsb.st_dev, fsb.st_ino, fsb.st_mtim};
    }
    for (ReplicaInfo& r : g_replicas) {
      if (!r.in_sync || r.eof_job || r.state != SyncState::kWaitEnd || r.c->closing) continue;
      const int fd = ok ? open(file.c_str(), O_RDONLY | O_CLOEXEC) : -1;
      struct stat sb;
      if (fd == -1 || fstat(fd, &sb) != 0) {
        LOG_WARNING(ok ? "SYNC failed. Can't open/stat DB after BGSAVE: %s"
                       : "SYNC failed. BGSAVE child returned an error%s",
                    ok ? strerror(errno) : "");
        if (fd != -1) close(fd);
        failed.push_back(r.c);
        continue;
      }
      r.rdb_fd = fd;
      r.rdb_left = sb.st_size;
      r.state = SyncState::kSendBulk;
      const std::string pre = "$" + std::to_string(sb.st_size) + "\r\n";
      r.c->out.append(pre.data(), pre.size());
      server().queue_flush(r.c);
    }
    close_replicas(std::move(failed));
  }
  maybe_start_sync_fork();
  sync_pump();
}

// PSYNC that cannot continue, or SYNC: the replica waits for a snapshot.
void full_sync_request(ReplicaInfo& r, Session& s, bool legacy) {
  g_sync_counts.full++;
  s.flags |= Session::kReplica;
  r.in_sync = true;
  r.online = false;
  r.legacy = legacy;
  r.state = SyncState::kWaitStart;
  r.wait_since_ms = mstime();
  r.ack_off = 0;
  r.ack_ms = mstime();
  r.pending.clear();
  if (g_job.disk) {
    // A BGSAVE for replication to disk is running: share its snapshot when a sibling waits for
    // it (its pending stream starts at the snapshot's offset).
    for (const ReplicaInfo& o : g_replicas) {
      if (&o == &r || !o.in_sync || o.eof_job || o.state != SyncState::kWaitEnd) continue;
      r.pending = o.pending;
      r.state = SyncState::kWaitEnd;
      r.eof_job = false;
      send_fullresync(r, g_job.offset);
      LOG_NOTICE("Waiting for end of BGSAVE for SYNC");
      return;
    }
    LOG_NOTICE("Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
    return;
  }
  if (rdb_child_active()) {
    LOG_NOTICE(g_job.pipe ? "Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC"
                          : "Waiting for next BGSAVE for SYNC");
    return;
  }
  if (any_child_active()) {
    LOG_NOTICE("No BGSAVE in progress, but another BG operation is active. BGSAVE for replication delayed");
    return;
  }
  const ReplOptions& o = repl_options();
  if (o.diskless_sync && r.capa_eof && o.diskless_sync_delay > 0) {
    LOG_NOTICE("Delay next BGSAVE for diskless SYNC");
  }
  maybe_start_sync_fork();
}

// Every second: a newline to replicas waiting for a snapshot to be written, so their link does
// not time out (Redis does the same; replicas skip it).
void sync_keepalive() {
  for (ReplicaInfo& r : g_replicas) {
    if (!r.in_sync || r.c->closing) continue;
    if (r.state == SyncState::kWaitStart || (r.state == SyncState::kWaitEnd && !r.eof_job)) {
      r.c->out.append("\n", 1);
      server().queue_flush(r.c);
    }
  }
}

const char* sync_state_name(const ReplicaInfo& r) {
  if (!r.in_sync) return "online";
  switch (r.state) {
    case SyncState::kWaitStart:
    case SyncState::kWaitEnd: return "wait_bgsave";
    case SyncState::kSendBulk: return "send_bulk";
    case SyncState::kOnline: return "online";
  }
  return "online";
}

// ---- Replica side state ----------------------------------------------------------------------

enum class LinkState { kNone, kConnect, kConnecting, kHandshake, kTransfer, kConnected };
const char* link_state_name(LinkState s) {
  switch (s) {
    case LinkState::kNone: return "none";
    case LinkState::kConnect: return "connect";
    case LinkState::kConnecting: return "connecting";
    case LinkState::kHandshake: return "handshake";
    case LinkState::kTransfer: return "sync";
    case LinkState::kConnected: return "connected";
  }
  return "none";
}

struct Link {
  LinkState state = LinkState::kNone;
  std::string host;
  int port = 0;
  uv_tcp_t* tcp = nullptr;
  uv_connect_t connect_req;
  std::string in;
  // What arrived while a master's command was running and let the loop poll (a busy script:
  // Server::process_events_while_busy): the batch being applied points into `in`, so these
  // bytes wait here and are applied after it (apply_stream).
  std::string later;
  int step = 0;
  int64_t last_io_ms = 0;
  int64_t down_since_ms = 0;
  // Transfer.
  bool eof_mode = false;
  std::string eof_mark;
  int64_t bulk_left = -1;  // -1: the $ line has not arrived yet
  // The snapshot goes into temp-<unixtime>.<pid>.rdb in `dir` as it arrives (Redis's name);
  // in the $EOF: form the last 40 bytes read are held back until more come (the mark).
  int tmp_fd = -1;
  std::string tmp_name;
  std::string tail;
  int64_t transfer_size = -1;  // Redis's repl_transfer_size: -1 before the $ line, 0 for $EOF:
  int64_t transfer_read = 0;
  std::string full_replid;
  int64_t full_off = 0;
  // Stream.
  Session session;
  RequestParser parser;
  int64_t last_ack_ms = 0;
} g_link;

void update_gates();

// A transfer that will not complete: its temp file goes.
void transfer_discard() {
  if (g_link.tmp_fd != -1) close(g_link.tmp_fd);
  if (!g_link.tmp_name.empty()) unlink(g_link.tmp_name.c_str());
  g_link.tmp_fd = -1;
  g_link.tmp_name.clear();
  g_link.tail.clear();
  g_link.transfer_size = -1;
  g_link.transfer_read = 0;
}

// The $ line arrived: the temp file is created.
bool transfer_begin() {
  char name[64];
  snprintf(name, sizeof(name), "temp-%lld.%d.rdb", static_cast<long long>(time(nullptr)),
           static_cast<int>(getpid()));
  g_link.tmp_name = name;
  g_link.tmp_fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (g_link.tmp_fd == -1) {
    LOG_WARNING("Opening the temp file needed for MASTER <-> REPLICA synchronization: %s",
                strerror(errno));
    g_link.tmp_name.clear();
    return false;
  }
  return true;
}

bool transfer_write(const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = write(g_link.tmp_fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      LOG_WARNING("Write error or short write writing to the DB dumped on disk: %s",
                  w < 0 ? strerror(errno) : "short write");
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void on_link_closed(uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); }

void link_close(const char* why) {
  if (g_link.tcp != nullptr) {
    uv_read_stop(reinterpret_cast<uv_stream_t*>(g_link.tcp));
    uv_close(reinterpret_cast<uv_handle_t*>(g_link.tcp), on_link_closed);
    g_link.tcp = nullptr;
  }
  if (why != nullptr && g_link.state != LinkState::kNone) LOG_WARNING("%s", why);
  if (g_link.state == LinkState::kConnected) g_link.down_since_ms = mstime();
  g_link.in.clear();
  g_link.later.clear();
  transfer_discard();
  g_link.parser = RequestParser();
  if (g_link.state != LinkState::kNone) g_link.state = LinkState::kConnect;
  update_gates();
}

struct WriteReq {
  uv_write_t req;
  std::string data;
};

void link_send(std::string data) {
  if (g_link.tcp == nullptr) return;
  auto* w = new WriteReq;
  w->data = std::move(data);
  uv_buf_t b = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  const int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(g_link.tcp), &b, 1,
                          [](uv_write_t* r, int) { delete reinterpret_cast<WriteReq*>(r); });
  if (rc != 0) delete w;
}

// The link's commands to the master, encoded as the change stream encodes them.
std::string resp_command(std::initializer_list<std::string_view> args) {
  Buffer b;
  resp_append_command(b, args);
  return std::string(b.view());
}

void send_ack() {
  if (g_link.state != LinkState::kConnected) return;
  link_send(resp_command({"REPLCONF", "ACK", std::to_string(g_master_off)}));
  g_link.last_ack_ms = mstime();
}

// The port a master and Sentinel should use to reach us: replica-announce-port when set (NAT,
// containers), else the port we listen on.
std::string announced_port(const ReplOptions& o) {
  if (o.announce_port != 0) return std::to_string(o.announce_port);
  const std::string_view name = "port";
  const auto v = server().config_get({&name, 1});
  return v.empty() ? "0" : v[0].second;
}

// Handshake: sends the command of `step`, skipping the steps that do not apply.
void handshake_send() {
  const ReplOptions& o = repl_options();
  for (;;) {
    switch (g_link.step) {
      case 0:
        return link_send(resp_command({"PING"}));
      case 1:
        if (o.masterauth.empty()) break;
        if (!o.masteruser.empty()) return link_send(resp_command({"AUTH", o.masteruser, o.masterauth}));
        return link_send(resp_command({"AUTH", o.masterauth}));
      case 2:
        return link_send(resp_command({"REPLCONF", "listening-port", announced_port(o)}));
      case 3:
        if (o.announce_ip.empty()) break;
        return link_send(resp_command({"REPLCONF", "ip-address", o.announce_ip}));
      case 4:
        return link_send(resp_command({"REPLCONF", "capa", "eof", "capa", "psync2"}));
      case 5:
        if (g_failover.state == FailoverState::kInProgress) {
          return link_send(resp_command({"PSYNC", master_replid(), std::to_string(g_master_off + 1), "FAILOVER"}));
        }
        if (g_backlog.active) {
          return link_send(resp_command({"PSYNC", master_replid(), std::to_string(g_master_off + 1)}));
        }
        return link_send(resp_command({"PSYNC", "?", "-1"}));
      default:
        return;
    }
    g_link.step++;
  }
}

void process_link_input();

void on_link_alloc(uv_handle_t*, size_t, uv_buf_t* buf) {
  static char space[64 * 1024];
  *buf = uv_buf_init(space, sizeof(space));
}

void on_link_read(uv_stream_t*, ssize_t n, const uv_buf_t* buf) {
  if (n < 0) {
    link_close(g_link.state == LinkState::kTransfer
                   ? "I/O error trying to sync with MASTER: connection lost"
                   : "Connection with master lost.");
    return;
  }
  if (n == 0) return;
  g_link.last_io_ms = mstime();
  server().stats().net_repl_input_bytes += static_cast<uint64_t>(n);
  if (g_applying_master) {
    g_link.later.append(buf->base, static_cast<size_t>(n));  // see Link::later
    return;
  }
  g_link.in.append(buf->base, static_cast<size_t>(n));
  process_link_input();
}

void on_link_connected(uv_connect_t*, int status) {
  if (g_link.tcp == nullptr) return;
  if (status != 0) {
    LOG_WARNING("Error condition on socket for SYNC: %s", uv_strerror(status));
    link_close(nullptr);
    return;
  }
  LOG_NOTICE("Master replied to PING, replication can continue...");
  g_link.state = LinkState::kHandshake;
  g_link.step = 0;
  g_link.last_io_ms = mstime();
  uv_read_start(reinterpret_cast<uv_stream_t*>(g_link.tcp), on_link_alloc, on_link_read);
  handshake_send();
}

void link_connect() {
  if (g_link.state != LinkState::kConnect) return;
  LOG_NOTICE("Connecting to MASTER %s:%d", g_link.host.c_str(), g_link.port);
  sockaddr_storage addr{};
  if (uv_ip4_addr(g_link.host.c_str(), g_link.port, reinterpret_cast<sockaddr_in*>(&addr)) != 0 &&
      uv_ip6_addr(g_link.host.c_str(), g_link.port, reinterpret_cast<sockaddr_in6*>(&addr)) != 0) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(g_link.host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) {
      LOG_WARNING("Unable to connect to MASTER: can't resolve %s", g_link.host.c_str());
      return;
    }
    memcpy(&addr, res->ai_addr, res->ai_addrlen);
    reinterpret_cast<sockaddr_in*>(&addr)->sin_port = htons(static_cast<uint16_t>(g_link.port));
    freeaddrinfo(res);
  }
  g_link.tcp = new uv_tcp_t;
  uv_tcp_init(server().loop(), g_link.tcp);
  uv_tcp_nodelay(g_link.tcp, 1);
  g_link.state = LinkState::kConnecting;
  g_link.last_io_ms = mstime();
  if (uv_tcp_connect(&g_link.connect_req, g_link.tcp, reinterpret_cast<sockaddr*>(&addr),
                     on_link_connected) != 0) {
    LOG_WARNING("Unable to connect to MASTER: %s:%d", g_link.host.c_str(), g_link.port);
    link_close(nullptr);
    return;
  }
  LOG_NOTICE("MASTER <-> REPLICA sync started");
}

bool take_line(std::string* line) {
  // A master preparing a snapshot sends bare newlines as keep-alives (Redis does).
  size_t skip = 0;
  while (skip < g_link.in.size() && g_link.in[skip] == '\n') skip++;
  if (skip > 0) g_link.in.erase(0, skip);
  const size_t nl = g_link.in.find("\r\n");
  if (nl == std::string::npos) return false;
  line->assign(g_link.in, 0, nl);
  g_link.in.erase(0, nl + 2);
  return true;
}

// The RDB has arrived in full (in the temp file): check it, then replace the dataset with it.
void transfer_done() {
  LOG_NOTICE("MASTER <-> REPLICA sync: Finished with success");
  bool ok = fsync(g_link.tmp_fd) == 0;
  ok = close(g_link.tmp_fd) == 0 && ok;
  g_link.tmp_fd = -1;
  if (!ok) {
    link_close("Failed trying to sync the temp DB to disk in MASTER <-> REPLICA synchronization");
    return;
  }
  const RdbLoadResult chk = rdb_check_file(g_link.tmp_name);
  if (chk.status != RdbLoadResult::kOk) {
    LOG_WARNING("Failed trying to load the MASTER synchronization DB from socket: %s (offset %llu); "
                "the current dataset is kept",
                chk.reason.c_str(), static_cast<unsigned long long>(chk.offset));
    link_close("MASTER <-> REPLICA sync failed: the RDB from the master is corrupt, retrying");
    return;
  }
  const std::string file = persistence_options().dbfilename;
  if (rename(g_link.tmp_name.c_str(), file.c_str()) != 0) {
    LOG_WARNING("Failed trying to rename the temp DB into %s in MASTER <-> REPLICA synchronization: %s",
                file.c_str(), strerror(errno));
    link_close("MASTER <-> REPLICA sync failed: the current dataset is kept, retrying");
    return;
  }
  g_link.tmp_name.clear();
  g_link.transfer_size = -1;
  g_link.transfer_read = 0;
  LOG_NOTICE("MASTER <-> REPLICA sync: Flushing old data");
  keyspace().flush_all(repl_options().lazy_flush);
  tracking_flushed();
  functions_for_persistence().reset();
  LOG_NOTICE("MASTER <-> REPLICA sync: Loading DB in memory");
  const RdbLoadResult r = rdb_load_file(file, false);
  if (r.status != RdbLoadResult::kOk) {
    link_close("Failed trying to load the MASTER synchronization DB from disk");
    return;
  }
  // rdb-del-sync-files: a replica without persistence does not keep the master's snapshot
  // (a restart would load that old dataset), as Redis.
  if (repl_options().del_sync_files && persistence_options().save_points.empty() &&
      !aof_options().appendonly) {
    LOG_NOTICE("Removing the RDB file obtained from the master. This replica has persistence "
               "disabled");
    unlink(file.c_str());
  }
  set_master_replid(g_link.full_replid);
  g_replid2 = kZeroId;
  g_second_off = -1;
  g_master_off = g_link.full_off;
  g_backlog.active = false;
  create_backlog();
  drop_replica_clients();  // a new history: sub-replicas must resync
  g_link.session.db_index = 0;
  g_link.session.db = &keyspace().db(0);
  g_link.parser = RequestParser();
  g_link.state = LinkState::kConnected;
  g_link.last_ack_ms = 0;
  update_gates();
  send_ack();
}

// While the master's commands run, nothing they change is encoded again (this server streams
// the master's bytes), and they see every key as alive (Redis's lookupKey for the master
// client): the master sends the DEL when it expires one. Set once per parsed batch, restored on
// every way out.
struct ApplyingMaster {
  bool was_loading = g_clock.loading;
  ApplyingMaster() { g_applying_master = g_clock.loading = true; }
  ~ApplyingMaster() {
    g_applying_master = false;
    g_clock.loading = was_loading;
  }
};

// The master's stream as a client's pipeline is run (Client::process_input): the complete
// commands of what arrived are parsed as one batch, their keys prefetched, then executed; each
// command's bytes go on to this server's own backlog and replicas as they were received.
void apply_stream() {
  static Buffer discard;
  static ReplyWriter w;
  static std::vector<Client::BatchCmd> batch;
  static std::vector<std::string_view> args;
  static std::vector<uint64_t> hashes;
  constexpr size_t kMaxBatch = 64;
  std::string& in = g_link.in;
  size_t pos = 0;
  for (;;) {
    // Every byte the master sent counts in the offset, also any between two commands: a
    // command's bytes run from the end of the one before it.
    size_t from = pos;
    const RequestParser::Result r =
        parse_batch(g_link.parser, in.data(), in.size(), pos, true, kMaxBatch, false, batch, args);
    if (!batch.empty()) prefetch_batch(*g_link.session.db, batch, args, hashes);
    {
      const ApplyingMaster applying;
      for (const Client::BatchCmd& b : batch) {
        w.reset(&discard, 2);
        (void)execute_command(g_link.session, std::span<const std::string_view>(&args[b.first_arg], b.argc),
                              &hashes[b.first_arg], w, server(), b.spec, 0);
        discard.clear();
        feed_raw(in.data() + from, b.end - from);
        from = b.end;
        g_last_write_off = g_master_off;
        if (g_link.state != LinkState::kConnected) return;  // the command dropped the link
      }
    }
    if (r == RequestParser::Result::kError) {
      LOG_WARNING("Protocol error from MASTER: %s", std::string(g_link.parser.error()).c_str());
      in.clear();
      link_close("MASTER stream corrupt: link dropped, the replica will resync");
      return;
    }
    if (r == RequestParser::Result::kNeedMore) break;
  }
  in.erase(0, pos);
  g_link.parser.rebase(pos);
  if (!g_link.later.empty()) {
    in.append(g_link.later);
    g_link.later.clear();
    apply_stream();
  }
}

// The snapshot after +FULLRESYNC: the $ line, then its bytes into the temp file. False when the
// link was closed.
bool receive_snapshot() {
  std::string line;
  if (g_link.tmp_fd == -1) {
    while (!g_link.in.empty() && g_link.in[0] == '\n') g_link.in.erase(0, 1);  // keep-alives
    if (!take_line(&line)) return true;
    if (line.rfind("$EOF:", 0) == 0 && line.size() == 45) {
      g_link.eof_mode = true;
      g_link.eof_mark = line.substr(5);
      g_link.transfer_size = 0;
      LOG_NOTICE("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk");
    } else if (line[0] == '$') {
      int64_t n;
      if (!parse_int64(std::string_view(line).substr(1), &n) || n < 0) {
        link_close("Bad protocol from MASTER, the first byte is not '$'");
        return false;
      }
      g_link.bulk_left = n;
      g_link.eof_mode = false;
      g_link.transfer_size = n;
      LOG_NOTICE("MASTER <-> REPLICA sync: receiving %lld bytes from master to disk",
                 static_cast<long long>(n));
    } else {
      link_close(("Bad protocol from MASTER, the first byte is not '$': " + line).c_str());
      return false;
    }
    g_link.transfer_read = 0;
    if (!transfer_begin()) {
      link_close(nullptr);
      return false;
    }
  }
  bool done = false;
  if (g_link.eof_mode) {
    // Everything but the last 40 bytes seen can be written: the mark ends the transfer. It may
    // straddle two reads, and a master that streams at once may send its stream behind it in
    // the same read (Keel's waits for the first ACK, as Redis; others need not): look for it
    // in the kept bytes plus the new ones, and leave what follows it for the stream.
    g_link.tail += g_link.in;
    g_link.transfer_read += static_cast<int64_t>(g_link.in.size());
    g_link.in.clear();
    const size_t mlen = g_link.eof_mark.size();
    const size_t at = g_link.tail.find(g_link.eof_mark);
    if (at != std::string::npos) {
      g_link.in.assign(g_link.tail, at + mlen, std::string::npos);
      g_link.transfer_read -= static_cast<int64_t>(g_link.in.size());
      g_link.tail.resize(at);
      done = true;
    }
    const size_t keep = done ? 0 : std::min(g_link.tail.size(), mlen);
    if (!transfer_write(g_link.tail.data(), g_link.tail.size() - keep)) {
      link_close(nullptr);
      return false;
    }
    g_link.tail.erase(0, g_link.tail.size() - keep);
  } else {
    const size_t take = std::min<size_t>(g_link.in.size(), static_cast<size_t>(g_link.bulk_left));
    if (!transfer_write(g_link.in.data(), take)) {
      link_close(nullptr);
      return false;
    }
    g_link.in.erase(0, take);
    g_link.bulk_left -= static_cast<int64_t>(take);
    g_link.transfer_read += static_cast<int64_t>(take);
    done = g_link.bulk_left == 0;
  }
  if (done) {
    g_link.bulk_left = -1;
    g_link.eof_mode = false;
    transfer_done();
    return g_link.state != LinkState::kConnect && g_link.state != LinkState::kNone;
  }
  return true;
}

void process_link_input() {
  std::string line;
  while (g_link.state == LinkState::kHandshake) {
    if (!take_line(&line)) return;
    const int step = g_link.step;
    if (step == 1 && line[0] == '-') {
      link_close(("Unable to AUTH to MASTER: " + line).c_str());
      return;
    }
    if (step == 5) {
      // Our FAILOVER's request: the target took over (either reply) or refused.
      if (g_failover.state == FailoverState::kInProgress) {
        if (line.rfind("+FULLRESYNC", 0) == 0 || line.rfind("+CONTINUE", 0) == 0) {
          failover_clear();
        } else {
          LOG_WARNING("Failover target rejected psync request: %s", line.c_str());
          failover_abort("Failover target rejected psync request");
          return;
        }
      }
      if (line.rfind("+FULLRESYNC", 0) == 0) {
        char id[64] = {};
        long long off = 0;
        if (sscanf(line.c_str() + 11, " %40s %lld", id, &off) != 2) {
          link_close("Master replied with a malformed +FULLRESYNC");
          return;
        }
        g_link.full_replid = id;
        g_link.full_off = off;
        LOG_NOTICE("Full resync from master: %s:%lld", id, off);
        g_link.state = LinkState::kTransfer;
        g_link.bulk_left = -1;
        g_link.eof_mode = false;
        transfer_discard();
        break;
      }
      if (line.rfind("+CONTINUE", 0) == 0) {
        std::string id = line.size() > 10 ? line.substr(10) : "";
        if (!id.empty() && id != master_replid()) {
          g_replid2 = master_replid();
          g_second_off = g_master_off + 1;
          set_master_replid(id);
          drop_replica_clients();
        }
        LOG_NOTICE("Successful partial resynchronization with master.");
        LOG_NOTICE("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        create_backlog();
        g_link.session.db_index = -1;  // the master sends a SELECT first
        g_link.session.db = &keyspace().db(0);
        g_link.parser = RequestParser();
        g_link.state = LinkState::kConnected;
        update_gates();
        send_ack();
        break;
      }
      link_close(("Unexpected reply to PSYNC from master: " + line).c_str());
      return;
    }
    g_link.step++;
    handshake_send();
  }
  if (g_link.state == LinkState::kTransfer && !receive_snapshot()) return;
  if (g_link.state == LinkState::kConnected && !g_link.in.empty()) apply_stream();
}

// Replicas that count for min-replicas-to-write: online, acknowledged within min-replicas-max-lag.
int64_t good_replicas(const ReplOptions& o, int64_t now) {
  int64_t good = 0;
  for (const ReplicaInfo& r : g_replicas) good += r.online && (now - r.ack_ms) / 1000 <= o.min_max_lag;
  return good;
}

// The admission gates of min-replicas-to-write, replica-serve-stale-data and replica-read-only
// (base/admission.h): every cron tick and whenever the link changes state.
void update_gates() {
  const ReplOptions& o = repl_options();
  const int64_t now = mstime();
  bool noreplicas = false;
  if (o.min_to_write > 0 && !g_is_replica) noreplicas = good_replicas(o, now) < o.min_to_write;
  g_admission_gates.noreplicas = noreplicas;
  g_admission_gates.masterdown = g_is_replica && !o.serve_stale && g_link.state != LinkState::kConnected;
  g_admission_gates.replica_ro = g_is_replica && o.read_only;
  eviction_options().replica_ignore = g_is_replica && o.ignore_maxmemory;
}

void set_replica_mode(bool on) {
  g_is_replica = on;
  g_clock.replica = on;
  g_clock.expire_paused = on || g_admission_gates.paused;
  update_gates();
  g_admission_gates.replica_ro = on && repl_options().read_only;
}

void start_link(const std::string& host, int port) {
  link_close(nullptr);
  g_link.host = host;
  g_link.port = port;
  g_link.state = LinkState::kConnect;
  g_link.down_since_ms = mstime();
  g_link.session.flags = Session::kMaster;
  g_link.session.authenticated = true;
  g_link.session.db = &keyspace().db(0);
  set_replica_mode(true);
  create_backlog();  // our own history: PSYNC continues it when the master shares it
  link_connect();
}

// ---- Command hooks ---------------------------------------------------------------------------

void hook_replconf(Session& s, std::span<const std::string_view> args, ReplyWriter& w) {
  flush_held();
  Client* c = static_cast<Client*>(s.client);
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    const std::string_view opt = args[i], val = args[i + 1];
    if (equals_nocase(opt, "ack")) {
      // From a replica: no reply ever (Redis).
      ReplicaInfo* r = c ? find_replica(c) : nullptr;
      int64_t off;
      if (r != nullptr && parse_int64(val, &off)) {
        if (off > r->ack_off) r->ack_off = off;
        r->ack_ms = mstime();
        if (r->wait_ack) go_online(*r);  // diskless: loaded, the stream can follow
      }
      return;
    }
    if (equals_nocase(opt, "getack")) {
      if (s.flags & Session::kMaster) send_ack();
      return;
    }
    if (equals_nocase(opt, "listening-port")) {
      int64_t port;
      if (!parse_int64(val, &port)) return w.error(kErrNotInteger);
      if (c != nullptr) replica_entry(c).listening_port = port;
    } else if (equals_nocase(opt, "ip-address")) {
      if (c != nullptr) replica_entry(c).ip = std::string(val);
    } else if (equals_nocase(opt, "capa")) {
      if (c != nullptr && equals_nocase(val, "eof")) replica_entry(c).capa_eof = true;
      if (c != nullptr && equals_nocase(val, "psync2")) replica_entry(c).capa_psync2 = true;
    } else if (!equals_nocase(opt, "rdb-only") &&
               !equals_nocase(opt, "rdb-filter-only")) {
      return w.error_fmt("ERR Unrecognized REPLCONF option: %.*s", static_cast<int>(opt.size()),
                         opt.data());
    }
  }
  w.ok();
}

void promote_to_master();

void hook_psync(Session& s, std::string_view replid, std::string_view offset_arg, bool legacy,
                bool failover, ReplyWriter& w) {
  flush_held();
  Client* c = static_cast<Client*>(s.client);
  if (c == nullptr || (s.flags & Session::kReplica)) return;  // already a replica: ignored
  if (failover) {
    // Our master's FAILOVER names us: its history (our replid) is ours, we take over and
    // answer its PSYNC as its master.
    LOG_NOTICE("Failover request received for replid %.*s.", static_cast<int>(replid.size()), replid.data());
    if (g_link.state == LinkState::kNone) return w.error("ERR PSYNC FAILOVER can't be sent to a master.");
    if (replid != master_replid()) return w.error("ERR PSYNC FAILOVER replid must match my replid.");
    promote_to_master();
    LOG_NOTICE("MASTER MODE enabled (failover request from '%s')", s.addr.c_str());
  }
  if (g_failover.state != FailoverState::kNone) {
    return w.error("NOMASTERLINK Can't SYNC while failing over");
  }
  if (g_link.state != LinkState::kNone && g_link.state != LinkState::kConnected) {
    return w.error("NOMASTERLINK Can't SYNC while not connected with my master");
  }
  ReplicaInfo* r = &replica_entry(c);
  if (r->ip.empty()) {
    const size_t colon = s.addr.rfind(':');
    r->ip = colon == std::string::npos ? s.addr : s.addr.substr(0, colon);
  }
  int64_t off = -1;
  if (!legacy && replid != "?" && parse_int64(offset_arg, &off) && g_backlog.active) {
    const bool ours = replid == master_replid() ||
                      (replid == g_replid2 && off <= g_second_off);
    const int64_t first = g_backlog.ring.first_offset();
    const int64_t last = g_backlog.ring.end_offset();  // next byte
    if (ours && off >= first && off <= last) {
      // As Redis: the ID only for a replica that said it understands it (capa psync2).
      w.raw(r->capa_psync2 ? "+CONTINUE " + master_replid() + "\r\n" : std::string("+CONTINUE\r\n"));
      std::string_view a, b;  // the backlog from `off`: two pieces when the ring wraps there
      g_backlog.ring.read_from(off, &a, &b);
      if (!a.empty()) w.raw(a);
      if (!b.empty()) w.raw(b);
      s.flags |= Session::kReplica;
      r->online = true;
      r->ack_off = off - 1;
      r->ack_ms = mstime();
      g_sync_counts.partial_ok++;
      LOG_NOTICE("Partial resynchronization request from %s accepted. Sending %lld bytes of backlog starting from offset %lld.",
                 s.addr.c_str(), static_cast<long long>(last - off), static_cast<long long>(off));
      return;
    }
  }
  LOG_NOTICE("Replica %s asks for synchronization", s.addr.c_str());
  if (!legacy && replid != "?") {
    g_sync_counts.partial_err++;
    LOG_NOTICE("Partial resynchronization not accepted: Replication ID mismatch or offset out of range (Replica asked for '%.*s' offset %.*s)",
               static_cast<int>(replid.size()), replid.data(), static_cast<int>(offset_arg.size()),
               offset_arg.data());
  }
  create_backlog();
  full_sync_request(*r, s, legacy);
}

// REPLICAOF NO ONE, and a FAILOVER's target or its aborted source: the history so far becomes
// replid2 (PSYNC2: the former master and siblings continue from it), a new replid begins.
void promote_to_master() {
  link_close(nullptr);
  g_link.state = LinkState::kNone;
  g_replid2 = master_replid();
  g_second_off = g_master_off + 1;
  change_master_replid();
  set_replica_mode(false);
  set_replicaof_option("", 0);
  g_no_replicas_since_ms = mstime();  // the backlog TTL starts now (as Redis)
  g_last_ping_ms = g_no_replicas_since_ms;
  drop_replica_clients();
  g_enc.reset();
  LOG_NOTICE("Setting secondary replication ID to %s, valid up to offset: %lld. New replication ID is %s",
             g_replid2.c_str(), static_cast<long long>(g_second_off), master_replid().c_str());
}

void hook_replicaof(Session& s, std::string_view host, std::string_view port_arg, ReplyWriter& w) {
  flush_held();
  if (g_failover.state != FailoverState::kNone) {
    return w.error("ERR REPLICAOF not allowed while failing over.");
  }
  if (host.empty()) {
    if (g_link.state != LinkState::kNone) {
      promote_to_master();
      LOG_NOTICE("MASTER MODE enabled (user request from '%s')", s.addr.c_str());
    }
    return w.ok();
  }
  int64_t port;
  if (!parse_int64(port_arg, &port) || port < 0 || port > 65535) {
    return w.error("ERR Invalid master port");
  }
  if (g_link.state != LinkState::kNone && g_link.host == host && g_link.port == port) {
    LOG_NOTICE("REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.");
    return w.simple("OK Already connected to specified master");
  }
  start_link(std::string(host), static_cast<int>(port));
  set_replicaof_option(std::string(host), port);
  LOG_NOTICE("REPLICAOF %.*s:%lld enabled (user request from '%s')", static_cast<int>(host.size()),
             host.data(), static_cast<long long>(port), s.addr.c_str());
  w.ok();
}

int64_t count_acked(int64_t target) {
  int64_t n = 0;
  for (const ReplicaInfo& r : g_replicas) {
    if (r.online && r.ack_off >= target) n++;
  }
  return n;
}

void hook_wait(Session& s, int64_t want, int64_t timeout_ms, ReplyWriter& w) {
  flush_held();
  if (g_link.state != LinkState::kNone) {
    return w.error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.");
  }
  Client* c = static_cast<Client*>(s.client);
  // The waiting client's own last write (Redis's c->woff); without a client (a script's
  // caller is gone) every write so far.
  const int64_t target = c != nullptr ? c->repl_woff : g_last_write_off;
  const int64_t n = count_acked(target);
  if (n >= want || c == nullptr || (s.flags & Session::kMulti) || g_exec_unit.depth > 1) {
    return w.integer(n);
  }
  s.flags |= Session::kBlocked;
  g_waiters.push_back({c, target, want, timeout_ms > 0 ? mstime() + timeout_ms : 0});
  // Ask the replicas for their offsets now rather than waiting for their next ACK; not while
  // paused (as Redis: the stream does not move during a pause; their own ACKs answer).
  if (g_pause.type != PauseType::kNone) return;
  static constexpr std::string_view kGetack = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
  feed_raw(kGetack.data(), kGetack.size());
  g_flush_now = true;  // the GETACK and the writes it follows leave in this iteration
}

void serve_waiters(bool timeouts) {
  if (g_waiters.empty()) return;
  const int64_t now = mstime();
  std::vector<Waiter> keep;
  std::vector<std::pair<Client*, int64_t>> done;
  for (const Waiter& wt : g_waiters) {
    const int64_t n = count_acked(wt.target);
    if (n >= wt.want || (timeouts && wt.deadline_ms != 0 && now >= wt.deadline_ms)) {
      done.push_back({wt.c, n});
    } else {
      keep.push_back(wt);
    }
  }
  g_waiters.swap(keep);
  static const CommandSpec* wait_spec = lookup_original_command("wait");
  for (auto [c, n] : done) {
    Session& s = c->session;
    char buf[32];
    const int len = snprintf(buf, sizeof(buf), ":%lld\r\n", static_cast<long long>(n));
    if (!(s.flags & (Session::kReplyOff | Session::kReplySkip))) c->out.append(buf, static_cast<size_t>(len));
    s.flags &= ~(Session::kBlocked | Session::kReplySkip);
    static const std::string_view args[] = {"wait"};
    if (wait_spec != nullptr) command_unblocked(s, *wait_spec, std::span<const std::string_view>(args, 1), false);
    server().queue_flush(c);
    server().resume_session(s);
  }
}

void hook_role(ReplyWriter& w) {
  flush_held();
  if (g_link.state != LinkState::kNone) {
    w.array(5);
    w.bulk("slave");
    w.bulk(g_link.host);
    w.integer(g_link.port);
    w.bulk(link_state_name(g_link.state));
    w.integer(g_link.state == LinkState::kConnected ? g_master_off : -1);
    return;
  }
  w.array(3);
  w.bulk("master");
  w.integer(g_master_off);
  size_t n = 0;
  for (const ReplicaInfo& r : g_replicas) n += r.online;
  w.array(n);
  for (const ReplicaInfo& r : g_replicas) {
    if (!r.online) continue;
    w.array(3);
    w.bulk(r.ip);
    w.bulk(std::to_string(r.listening_port));
    w.bulk(std::to_string(r.ack_off));
  }
}

// repl-backlog-ttl: a master (never a replica, which may be promoted and serve its siblings)
// with no replica for that many seconds frees its backlog, and takes a new replid and clears
// replid2 as Redis does: without a backlog master_repl_offset stops moving, so the old
// history could not be continued correctly anyway. 0 keeps the backlog forever.
void backlog_ttl_check(int64_t now, const ReplOptions& o) {
  if (g_no_replicas_since_ms == 0) g_no_replicas_since_ms = now;
  if (o.backlog_ttl == 0 || !g_backlog.active || g_link.state != LinkState::kNone) return;
  for (const ReplicaInfo& r : g_replicas) {
    if (r.online || r.in_sync) {
      g_no_replicas_since_ms = now;
      return;
    }
  }
  if ((now - g_no_replicas_since_ms) / 1000 <= o.backlog_ttl) return;
  change_master_replid();
  g_replid2 = kZeroId;
  g_second_off = -1;
  g_backlog.active = false;
  g_backlog.ring.reset(0, 1);  // frees its storage
  LOG_NOTICE("Replication backlog freed after %d seconds without connected replicas.",
             static_cast<int>(o.backlog_ttl));
}

// ---- FAILOVER ---------------------------------------------------------------------------------

void failover_clear() {
  g_failover = FailoverJob{};
  pause_end(server(), PausePurpose::kFailover);
}

void failover_abort(const char* why) {
  if (g_failover.host.empty()) {
    LOG_NOTICE("FAILOVER to any replica aborted: %s", why);
  } else {
    LOG_NOTICE("FAILOVER to %s:%lld aborted: %s", g_failover.host.c_str(), static_cast<long long>(g_failover.port), why);
  }
  if (g_failover.state == FailoverState::kInProgress) {
    promote_to_master();  // our data is intact: we are the master again, with a new replid
    LOG_NOTICE("MASTER MODE enabled (failover aborted)");
  }
  failover_clear();
}

// The target caught up (or FORCE at the timeout): this master becomes its replica and sends it
// PSYNC ... FAILOVER (handshake_send) from its own history.
void failover_go() {
  g_failover.state = FailoverState::kInProgress;
  start_link(g_failover.host, static_cast<int>(g_failover.port));
  set_replicaof_option(g_failover.host, g_failover.port);
}

void failover_check(int64_t now) {
  flush_held();
  if (g_failover.end_ms != 0 && now >= g_failover.end_ms) {
    if (!g_failover.force) return failover_abort("Replica never caught up before timeout");
    LOG_NOTICE("FAILOVER to %s:%lld time out exceeded, failing over.", g_failover.host.c_str(),
               static_cast<long long>(g_failover.port));
    return failover_go();
  }
  const ReplicaInfo* pick = nullptr;
  for (const ReplicaInfo& r : g_replicas) {
    if (!r.online || r.c->closing || r.ack_off != g_master_off) continue;
    if (!g_failover.host.empty() && (r.ip != g_failover.host || r.listening_port != g_failover.port)) continue;
    pick = &r;
    break;
  }
  // Nothing reaches the stream while paused (no PINGs, no GETACKs, as Redis), so the offset
  // stays put and a replica's own ACK (every second) says when it has everything.
  if (pick == nullptr) return;
  if (g_failover.host.empty()) {
    g_failover.host = pick->ip;
    g_failover.port = pick->listening_port;
  }
  LOG_NOTICE("Failover target %s:%lld is synced, failing over.", g_failover.host.c_str(),
             static_cast<long long>(g_failover.port));
  failover_go();
}

void failover_cron(int64_t now) {
  if (g_failover.state == FailoverState::kWaitForSync) return failover_check(now);
  // Our PSYNC FAILOVER did not get through (the link to the target failed before its reply):
  // the target did not take over, so we stay the master.
  if (g_failover.state == FailoverState::kInProgress && g_link.state == LinkState::kConnect) {
    failover_abort("Failover target could not be reached");
  }
}

void hook_failover(Session& s, const FailoverRequest& req, ReplyWriter& w) {
  (void)s;
  flush_held();
  if (req.abort) {
    if (g_failover.state == FailoverState::kNone) return w.error("ERR No failover in progress.");
    failover_abort("Failover manually aborted");
    return w.ok();
  }
  if (g_failover.state != FailoverState::kNone) return w.error("ERR FAILOVER already in progress.");
  if (g_link.state != LinkState::kNone) return w.error("ERR FAILOVER is not valid when server is a replica.");
  size_t replicas = 0;
  for (const ReplicaInfo& r : g_replicas) replicas += r.online || r.in_sync;
  if (replicas == 0) return w.error("ERR FAILOVER requires connected replicas.");
  if (req.force && (req.timeout_ms == 0 || req.host.empty())) {
    return w.error("ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
  }
  if (!req.host.empty()) {
    const ReplicaInfo* target = nullptr;
    for (const ReplicaInfo& r : g_replicas) {
      if ((r.online || r.in_sync) && r.ip == req.host && r.listening_port == req.port) target = &r;
    }
    if (target == nullptr) return w.error("ERR FAILOVER target HOST and PORT is not a replica.");
    if (!target->online) return w.error("ERR FAILOVER target replica is not online.");
    LOG_NOTICE("FAILOVER requested to %.*s:%lld.", static_cast<int>(req.host.size()), req.host.data(),
               static_cast<long long>(req.port));
  } else {
    LOG_NOTICE("FAILOVER requested to any replica.");
  }
  const int64_t now = mstime();
  g_failover.state = FailoverState::kWaitForSync;
  g_failover.host = std::string(req.host);
  g_failover.port = req.port;
  g_failover.force = req.force;
  g_failover.end_ms = req.timeout_ms != 0 ? now + req.timeout_ms : 0;
  pause_start(PauseType::kWrite, INT64_MAX, PausePurpose::kFailover);
  w.ok();
}

}  // namespace

ReplSyncCounts replication_sync_counts() { return g_sync_counts; }

ReplMemory replication_memory() {
  flush_held();
  ReplMemory m;
  m.backlog = g_backlog.active ? g_backlog.ring.capacity() : 0;
  for (const ReplicaInfo& r : g_replicas) {
    m.replica_streams += out_bytes(r.c) + r.pending.size();
    m.replica_clients += allocation_size(r.c) + r.c->query.capacity() + r.c->out.capacity() +
                         r.c->inflight.capacity() + r.pending.capacity();
  }
  return m;
}

// Eviction asks on every check while over the ceiling, so this one entry point does not copy
// out the held range (that would make the copies per command again): held bytes are not in any
// buffer yet, and the buffers' sizes are what is left out of the used-memory figure.
size_t memory_not_counted_for_evict() {
  size_t n = aof_state().buf.size();
  for (const ReplicaInfo& r : g_replicas) n += out_bytes(r.c) + r.pending.size();
  return n;
}

void replication_options_changed() {
  flush_held();
  refresh_backlog_cap(repl_options());
}

void replication_init() {
  eviction_options().not_counted = memory_not_counted_for_evict;
  g_replication_hooks.replconf = hook_replconf;
  g_replication_hooks.psync = hook_psync;
  g_replication_hooks.replicaof = hook_replicaof;
  g_replication_hooks.wait = hook_wait;
  g_replication_hooks.role = hook_role;
  g_replication_hooks.failover = hook_failover;
  g_bgsave_hooks.rdb_child_done = on_rdb_child_done;
}

void replication_start() {
  g_last_ping_ms = mstime();
  const ReplOptions& o = repl_options();
  if (!o.replicaof_host.empty()) start_link(o.replicaof_host, static_cast<int>(o.replicaof_port));
}

void replication_cron() {
  flush_held();
  const int64_t now = mstime();
  const ReplOptions& o = repl_options();
  switch (g_link.state) {
    case LinkState::kConnect:
      if (now - g_last_connect_ms >= 1000) {
        g_last_connect_ms = now;
        link_connect();
      }
      break;
    case LinkState::kConnecting:
    case LinkState::kHandshake:
    case LinkState::kTransfer:
      if (now - g_link.last_io_ms > o.timeout * 1000) link_close("Timeout connecting to the MASTER...");
      break;
    case LinkState::kConnected:
      if (now - g_link.last_io_ms > o.timeout * 1000) {
        link_close("MASTER timeout: no data nor PING received...");
      } else if (now - g_link.last_ack_ms >= 1000) {
        send_ack();
      }
      break;
    case LinkState::kNone:
      break;
  }
  // PING the replicas every repl-ping-replica-period seconds (a master only: a replica's
  // sub-replicas get its master's PINGs).
  bool any = false;
  for (const ReplicaInfo& r : g_replicas) any |= r.online;
  // Not while paused (CLIENT PAUSE, FAILOVER): the offset stays put, as in Redis.
  if (any && g_link.state == LinkState::kNone && g_pause.type == PauseType::kNone &&
      now - g_last_ping_ms >= o.ping_period * 1000) {
    g_last_ping_ms = now;
    static constexpr std::string_view kPing = "*1\r\n$4\r\nPING\r\n";
    feed_raw(kPing.data(), kPing.size());
  }
  static int64_t last_keepalive_ms = 0;
  if (now - last_keepalive_ms >= 1000) {
    last_keepalive_ms = now;
    sync_keepalive();
  }
  // A diskless child whose replicas all left before it wrote anything: end it.
  if (g_job.pipe_fd != -1 && pipe_replicas().empty()) pipe_pump();
  remove_sync_snapshot();
  maybe_start_sync_fork();
  backlog_ttl_check(now, o);
  serve_waiters(true);
  failover_cron(now);
  update_gates();
}

void replication_before_sleep() {
  // A server with no replica, no WAIT and no snapshot in flight (the common case) stops here.
  if (g_replicas.empty() && g_waiters.empty() && g_held.n == 0 && g_job.pipe_fd == -1) return;
  flush_held();
  flush_fed_replicas(false);  // first: a replica past its limit is closed by this before-sleep
  serve_waiters(false);
  if (g_failover.state == FailoverState::kWaitForSync) failover_check(mstime());
  sync_pump();
}

void replication_flush_replicas(bool force) {
  flush_held();
  flush_fed_replicas(force);
}

void replication_flush_held() { flush_held(); }

void replication_client_closed(Client* c) {
  flush_held();
  for (size_t i = 0; i < g_replicas.size(); i++) {
    if (g_replicas[i].c == c) {
      if (g_replicas[i].rdb_fd != -1) close(g_replicas[i].rdb_fd);
      if (g_replicas[i].online || g_replicas[i].in_sync) g_no_replicas_since_ms = mstime();
      if (g_replicas[i].online) LOG_NOTICE("Connection with replica %s lost.", c->session.addr.c_str());
      g_replicas.erase(g_replicas.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  for (size_t i = 0; i < g_waiters.size(); i++) {
    if (g_waiters[i].c == c) {
      g_waiters.erase(g_waiters.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
}

bool replication_kill_master_link() {
  flush_held();
  if (g_link.state != LinkState::kConnected) return false;
  link_close("Connection with master lost.");
  g_last_connect_ms = 0;
  return true;
}

bool replication_is_replica(const Client* c) { return (c->session.flags & Session::kReplica) != 0; }

std::string replication_info() {
  flush_held();
  std::string out;
  char buf[512];
  auto line = [&](const char* fmt, auto... a) {
    const int n = snprintf(buf, sizeof(buf), fmt, a...);
    if (n > 0) out.append(buf, std::min<size_t>(static_cast<size_t>(n), sizeof(buf) - 1));
    out += "\r\n";
  };
  const ReplOptions& o = repl_options();
  const int64_t now = mstime();
  if (g_link.state == LinkState::kNone) {
    line("role:master");
  } else {
    const bool up = g_link.state == LinkState::kConnected;
    line("role:slave");
    line("master_host:%s", g_link.host.c_str());
    line("master_port:%d", g_link.port);
    line("master_link_status:%s", up ? "up" : "down");
    line("master_last_io_seconds_ago:%lld",
         up ? static_cast<long long>((now - g_link.last_io_ms) / 1000) : -1LL);
    line("master_sync_in_progress:%d", g_link.state == LinkState::kTransfer ? 1 : 0);
    line("slave_read_repl_offset:%lld", static_cast<long long>(g_master_off));
    line("slave_repl_offset:%lld", static_cast<long long>(g_master_off));
    if (g_link.state == LinkState::kTransfer) {
      // As Redis: total -1 before the $ line and 0 in the $EOF: form; left = total - read.
      const int64_t total = g_link.transfer_size, got = g_link.transfer_read;
      line("master_sync_total_bytes:%lld", static_cast<long long>(total));
      line("master_sync_read_bytes:%lld", static_cast<long long>(got));
      line("master_sync_left_bytes:%lld", static_cast<long long>(total - got));
      line("master_sync_perc:%.2f", total != 0 ? static_cast<double>(got) / static_cast<double>(total) * 100 : 0.0);
      line("master_sync_last_io_seconds_ago:%lld", static_cast<long long>((now - g_link.last_io_ms) / 1000));
    }
    if (!up) {
      line("master_link_down_since_seconds:%lld",
           static_cast<long long>(g_link.down_since_ms ? (now - g_link.down_since_ms) / 1000 : -1));
    }
    line("slave_priority:%lld", static_cast<long long>(o.priority));
    line("slave_read_only:%d", o.read_only ? 1 : 0);
    line("replica_announced:%d", o.announced ? 1 : 0);
  }
  size_t n = 0;
  for (const ReplicaInfo& r : g_replicas) n += r.online || r.in_sync;
  line("connected_slaves:%zu", n);
  // Redis shows it (either role) while min-replicas-to-write is in force.
  if (o.min_to_write > 0 && o.min_max_lag > 0) {
    line("min_slaves_good_slaves:%lld", static_cast<long long>(good_replicas(o, now)));
  }
  size_t i = 0;
  for (const ReplicaInfo& r : g_replicas) {
    if (!r.online && !r.in_sync) continue;
    line("slave%zu:ip=%s,port=%lld,state=%s,offset=%lld,lag=%lld", i++, r.ip.c_str(),
         static_cast<long long>(r.listening_port), sync_state_name(r),
         static_cast<long long>(r.ack_off),
         static_cast<long long>((now - r.ack_ms) / 1000));
  }
  line("master_failover_state:%s", g_failover.state == FailoverState::kNone           ? "no-failover"
                                   : g_failover.state == FailoverState::kWaitForSync ? "waiting-for-sync"
                                                                                     : "failover-in-progress");
  line("master_replid:%s", master_replid().c_str());
  line("master_replid2:%s", g_replid2.c_str());
  line("master_repl_offset:%lld", static_cast<long long>(g_master_off));
  line("second_repl_offset:%lld", static_cast<long long>(g_second_off));
  line("repl_backlog_active:%d", g_backlog.active ? 1 : 0);
  line("repl_backlog_size:%lld", static_cast<long long>(o.backlog_size));
  line("repl_backlog_first_byte_offset:%lld",
       static_cast<long long>(g_backlog.active ? g_backlog.ring.first_offset() : 0));
  line("repl_backlog_histlen:%zu", g_backlog.active ? g_backlog.ring.size() : size_t{0});
  return out;
}

}  // namespace keel
