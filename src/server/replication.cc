// Replication, both sides, with Redis's protocol and offsets.
//
// Master side. The replication stream is one more PropagationSink on the change stream
// (commands/propagate.h): it encodes each command once (one StreamEncoder: every replica sees
// the same bytes, so the SELECTs are shared, as Redis's slaveseldb), appends the bytes to the
// backlog and to the output buffer of every online replica, and advances master_repl_offset by
// their length. PSYNC with our replid (or replid2 up to second_repl_offset, PSYNC2) and an
// offset the backlog still holds gets +CONTINUE and the backlog from there; anything else gets
// +FULLRESYNC <replid> <offset> and an RDB snapshot as a bulk, then the stream.
//
// Replica side. One outgoing connection to the master: PING, AUTH (masterauth/masteruser),
// REPLCONF listening-port, REPLCONF capa eof capa psync2, PSYNC <our replid> <our offset + 1>
// (a replica that ever had a backlog continues its own history, Redis's
// replicationCacheMasterUsingMyself) or PSYNC ? -1. The RDB (a $<len> bulk or the $EOF:<mark>
// form) is collected, checked in full (rdb_check_memory) before anything is touched, so a
// truncated or corrupt transfer leaves the old data in place (repl-diskless-load disabled);
// then saved as dbfilename, the dataset emptied and the file loaded. The stream is applied
// through a Session flagged kMaster (no replies, no -READONLY); the bytes of each applied
// command go to our own backlog and sub-replicas unchanged, so offsets match the master's.
#include "server/replication.h"

#include <fcntl.h>
#include <netdb.h>
#include <unistd.h>
#include <uv.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/admission.h"
#include "base/log.h"
#include "base/numbers.h"
#include "base/time.h"
#include "base/util_random.h"
#include "commands/command_rename.h"
#include "commands/command_table.h"
#include "commands/debug_state.h"
#include "commands/dispatch.h"
#include "commands/propagate.h"
#include "commands/replication_api.h"
#include "commands/session.h"
#include "commands/tracking.h"
#include "keyspace/keyspace.h"
#include "persistence/persistence.h"
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

LuaEngine& functions_for_persistence();  // cmd_scripting.cc: the FUNCTION libraries

namespace {

constexpr const char* kZeroId = "0000000000000000000000000000000000000000";

// ---- Master side state -----------------------------------------------------------------------

struct ReplicaInfo {
  Client* c = nullptr;
  int64_t listening_port = 0;
  std::string ip;
  int64_t ack_off = 0;
  int64_t ack_ms = 0;
  bool online = false;
  bool capa_eof = false;  // REPLCONF capa eof
};
std::vector<ReplicaInfo> g_replicas;  // every client that sent REPLCONF or PSYNC

int64_t g_master_off = 0;       // master_repl_offset (on a replica: what it applied)
std::string g_replid2 = kZeroId;
int64_t g_second_off = -1;

struct Backlog {
  bool active = false;
  std::string data;
  int64_t first = 0;  // offset of data[0]
} g_backlog;

StreamEncoder g_enc;
Buffer g_scratch;
bool g_applying_master = false;
bool g_is_replica = false;  // REPLICAOF host port in effect  // the master's stream is being applied: not re-encoded
int64_t g_last_ping_ms = 0;
// End of the last command written to the stream (not PINGs nor GETACKs): what WAIT waits for
// (Redis uses the client's own last write offset; every earlier write is before this one).
int64_t g_last_write_off = 0;
int64_t g_last_connect_ms = 0;

struct Waiter {
  Client* c;
  int64_t target;
  int64_t want;
  int64_t deadline_ms;  // 0 = none
};
std::vector<Waiter> g_waiters;

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
    if (r.online) cs.push_back(r.c);
  }
  for (Client* c : cs) c->close();
}

// Bytes of the stream: into the backlog and to every online replica.
void feed_raw(const char* p, size_t n) {
  if (!g_backlog.active) return;
  g_backlog.data.append(p, n);
  g_master_off += static_cast<int64_t>(n);
  const size_t cap = static_cast<size_t>(std::max<int64_t>(repl_options().backlog_size, 16 * 1024));
  if (g_backlog.data.size() > 2 * cap) {
    const size_t drop = g_backlog.data.size() - cap;
    g_backlog.data.erase(0, drop);
    g_backlog.first += static_cast<int64_t>(drop);
  }
  for (ReplicaInfo& r : g_replicas) {
    if (!r.online || r.c->closing) continue;
    r.c->out.append(p, n);
    server().queue_flush(r.c);
    server().check_output_limits(r.c);
  }
}

class ReplSink final : public PropagationSink {
 public:
  void feed(int dbid, std::span<const std::string_view> argv, uint8_t targets) override {
    // A replica streams only what its master sent (applied by apply_stream, bytes unchanged);
    // its own changes (a writable replica's writes) stay local, as in Redis.
    if (!(targets & kPropagateRepl) || g_applying_master || !g_backlog.active ||
        g_is_replica) {
      return;
    }
    g_scratch.clear();
    g_enc.append(g_scratch, dbid, argv);
    feed_raw(g_scratch.data(), g_scratch.size());
    g_last_write_off = g_master_off;
  }
};
ReplSink g_sink;
bool g_sink_attached = false;

void create_backlog() {
  if (g_backlog.active) return;
  g_backlog.active = true;
  g_backlog.data.clear();
  g_backlog.first = g_master_off + 1;
  g_enc.reset();
  if (!g_sink_attached) {
    propagation_add_sink(&g_sink);
    g_sink_attached = true;
  }
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
  int step = 0;
  int64_t last_io_ms = 0;
  int64_t down_since_ms = 0;
  // Transfer.
  bool eof_mode = false;
  std::string eof_mark;
  int64_t bulk_left = -1;  // -1: the $ line has not arrived yet
  std::string rdb;
  std::string full_replid;
  int64_t full_off = 0;
  // Stream.
  Session session;
  RequestParser parser;
  int64_t last_ack_ms = 0;
} g_link;

void update_gates();

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
  g_link.rdb.clear();
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

std::string resp_command(std::initializer_list<std::string_view> args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (std::string_view a : args) {
    s += "$" + std::to_string(a.size()) + "\r\n";
    s.append(a);
    s += "\r\n";
  }
  return s;
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
  const ReplOptions o = repl_options();
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
  g_link.in.append(buf->base, static_cast<size_t>(n));
  g_link.last_io_ms = mstime();
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

// The RDB has arrived in full: check it, then replace the dataset with it.
void transfer_done() {
  LOG_NOTICE("MASTER <-> REPLICA sync: Finished with success");
  const RdbLoadResult chk =
      rdb_check_memory(reinterpret_cast<const uint8_t*>(g_link.rdb.data()), g_link.rdb.size());
  if (chk.status != RdbLoadResult::kOk) {
    LOG_WARNING("Failed trying to load the MASTER synchronization DB from socket: %s (offset %llu); "
                "the current dataset is kept",
                chk.reason.c_str(), static_cast<unsigned long long>(chk.offset));
    link_close("MASTER <-> REPLICA sync failed: the RDB from the master is corrupt, retrying");
    return;
  }
  const std::string file = persistence_options().dbfilename;
  const std::string tmp = "temp-" + std::to_string(getpid()) + "." + std::to_string(mstime()) + ".rdb";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  size_t off = 0;
  while (ok && off < g_link.rdb.size()) {
    const ssize_t w = write(fd, g_link.rdb.data() + off, g_link.rdb.size() - off);
    if (w <= 0) ok = false; else off += static_cast<size_t>(w);
  }
  if (fd >= 0) close(fd);
  if (!ok || rename(tmp.c_str(), file.c_str()) != 0) {
    unlink(tmp.c_str());
    link_close("Failed trying to rename the temp DB into the final name; the current dataset is kept");
    return;
  }
  LOG_NOTICE("MASTER <-> REPLICA sync: Flushing old data");
  keyspace().flush_all();
  tracking_flushed();
  functions_for_persistence().reset();
  LOG_NOTICE("MASTER <-> REPLICA sync: Loading DB in memory");
  const RdbLoadResult r = rdb_load_file(file, false);
  g_link.rdb.clear();
  g_link.rdb.shrink_to_fit();
  if (r.status != RdbLoadResult::kOk) {
    link_close("Failed trying to load the MASTER synchronization DB from disk");
    return;
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

void apply_stream() {
  static Buffer discard;
  static ReplyWriter w;
  std::string& in = g_link.in;
  size_t pos = 0;
  for (;;) {
    const size_t start = pos;
    const RequestParser::Result r = g_link.parser.parse(in.data(), in.size(), pos);
    if (r == RequestParser::Result::kNeedMore) break;
    if (r == RequestParser::Result::kError) {
      LOG_WARNING("Protocol error from MASTER: %s", std::string(g_link.parser.error()).c_str());
      in.clear();
      link_close("MASTER stream corrupt: link dropped, the replica will resync");
      return;
    }
    std::vector<std::string_view> args;
    for (const ArgSpan& a : g_link.parser.args()) args.emplace_back(in.data() + a.off, a.len);
    if (!args.empty()) {
      w.reset(&discard, 2);
      g_applying_master = true;
      // The master's commands see every key as alive (Redis's lookupKey for the master client):
      // the master sends the DEL when it expires one.
      const bool was_loading = g_clock.loading;
      g_clock.loading = true;
      (void)execute_command(g_link.session, std::span<const std::string_view>(args), nullptr, w,
                            server(), nullptr, 0);
      g_clock.loading = was_loading;
      g_applying_master = false;
      discard.clear();
    }
    feed_raw(in.data() + start, pos - start);
    g_last_write_off = g_master_off;
    if (g_link.state != LinkState::kConnected) return;  // the command dropped the link
  }
  in.erase(0, pos);
  g_link.parser.rebase(pos);
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
        g_link.rdb.clear();
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
  if (g_link.state == LinkState::kTransfer) {
    if (g_link.bulk_left < 0 && !g_link.eof_mode) {
      while (!g_link.in.empty() && g_link.in[0] == '\n') g_link.in.erase(0, 1);  // keep-alives
      if (!take_line(&line)) return;
      if (line.rfind("$EOF:", 0) == 0 && line.size() == 45) {
        g_link.eof_mode = true;
        g_link.eof_mark = line.substr(5);
      } else if (line[0] == '$') {
        int64_t n;
        if (!parse_int64(std::string_view(line).substr(1), &n) || n < 0) {
          link_close("Bad protocol from MASTER, the first byte is not '$'");
          return;
        }
        g_link.bulk_left = n;
        g_link.eof_mode = false;
      } else {
        link_close(("Bad protocol from MASTER, the first byte is not '$': " + line).c_str());
        return;
      }
    }
    if (g_link.eof_mode) {
      // The mark may straddle two reads, and the master's stream may follow it in the same read
      // (Keel's master streams at once): look for it in the new bytes, keep what follows.
      const size_t from = g_link.rdb.size() >= 40 ? g_link.rdb.size() - 40 : 0;
      g_link.rdb += g_link.in;
      g_link.in.clear();
      const size_t at = g_link.rdb.find(g_link.eof_mark, from);
      if (at != std::string::npos) {
        g_link.in.assign(g_link.rdb, at + 40, std::string::npos);
        g_link.rdb.resize(at);
        g_link.eof_mode = false;
        transfer_done();
      }
    } else {
      const size_t take = std::min<size_t>(g_link.in.size(), static_cast<size_t>(g_link.bulk_left));
      g_link.rdb.append(g_link.in, 0, take);
      g_link.in.erase(0, take);
      g_link.bulk_left -= static_cast<int64_t>(take);
      if (g_link.bulk_left == 0) {
        g_link.bulk_left = -1;
        transfer_done();
      }
    }
  }
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
  const ReplOptions o = repl_options();
  const int64_t now = mstime();
  bool noreplicas = false;
  if (o.min_to_write > 0 && !g_is_replica) noreplicas = good_replicas(o, now) < o.min_to_write;
  g_admission_gates.noreplicas = noreplicas;
  g_admission_gates.masterdown = g_is_replica && !o.serve_stale && g_link.state != LinkState::kConnected;
  g_admission_gates.replica_ro = g_is_replica && o.read_only;
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
    } else if (!equals_nocase(opt, "rdb-only") &&
               !equals_nocase(opt, "rdb-filter-only")) {
      return w.error_fmt("ERR Unrecognized REPLCONF option: %.*s", static_cast<int>(opt.size()),
                         opt.data());
    }
  }
  w.ok();
}

void hook_psync(Session& s, std::string_view replid, std::string_view offset_arg, bool legacy,
                ReplyWriter& w) {
  Client* c = static_cast<Client*>(s.client);
  if (c == nullptr || (s.flags & Session::kReplica)) return;  // already a replica: ignored
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
    const int64_t first = g_backlog.first;
    const int64_t last = first + static_cast<int64_t>(g_backlog.data.size());  // next byte
    if (ours && off >= first && off <= last) {
      w.raw("+CONTINUE " + master_replid() + "\r\n");
      if (off < last) w.raw(std::string_view(g_backlog.data).substr(static_cast<size_t>(off - first)));
      s.flags |= Session::kReplica;
      r->online = true;
      r->ack_off = off - 1;
      r->ack_ms = mstime();
      LOG_NOTICE("Partial resynchronization request from %s accepted. Sending %lld bytes of backlog starting from offset %lld.",
                 s.addr.c_str(), static_cast<long long>(last - off), static_cast<long long>(off));
      return;
    }
  }
  LOG_NOTICE("Replica %s asks for synchronization", s.addr.c_str());
  if (!legacy && replid != "?") {
    LOG_NOTICE("Partial resynchronization not accepted: Replication ID mismatch or offset out of range (Replica asked for '%.*s' offset %.*s)",
               static_cast<int>(replid.size()), replid.data(), static_cast<int>(offset_arg.size()),
               offset_arg.data());
  }
  create_backlog();
  g_enc.reset();  // the stream after the snapshot starts with a SELECT
  std::string rdb;
  {
    RdbOut out(&rdb);
    const PersistenceOptions& po = persistence_options();
    rdb_write_snapshot(out, po.rdb_version, po.rdbcompression, po.rdbchecksum);
    out.flush();
  }
  if (!legacy) {
    w.raw("+FULLRESYNC " + master_replid() + " " + std::to_string(g_master_off) + "\r\n");
  }
  if (repl_options().diskless_sync && !legacy && r->capa_eof) {
    // repl-diskless-sync yes: the $EOF:<mark> form, the end found by the 40-byte mark (what a
    // replica that announced capa eof expects from a diskless master).
    const std::string mark = eof_mark();
    w.raw("$EOF:" + mark + "\r\n");
    w.raw(rdb);
    w.raw(mark);
    LOG_NOTICE("Snapshot for replica %s sent diskless, with the $EOF: mark", s.addr.c_str());
  } else {
    w.raw("$" + std::to_string(rdb.size()) + "\r\n");
    w.raw(rdb);
    LOG_NOTICE("Snapshot for replica %s sent as a $<length> bulk", s.addr.c_str());
  }
  LOG_NOTICE("Synchronization with replica %s succeeded (%zu bytes of RDB)", s.addr.c_str(), rdb.size());
  s.flags |= Session::kReplica;
  r->online = true;
  r->ack_off = 0;
  r->ack_ms = mstime();
}

void hook_replicaof(Session& s, std::string_view host, std::string_view port_arg, ReplyWriter& w) {
  if (host.empty()) {
    if (g_link.state != LinkState::kNone) {
      link_close(nullptr);
      g_link.state = LinkState::kNone;
      g_replid2 = master_replid();
      g_second_off = g_master_off + 1;
      change_master_replid();
      set_replica_mode(false);
      set_replicaof_option("", 0);
      drop_replica_clients();
      g_enc.reset();
      LOG_NOTICE("Setting secondary replication ID to %s, valid up to offset: %lld. New replication ID is %s",
                 g_replid2.c_str(), static_cast<long long>(g_second_off), master_replid().c_str());
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
  if (g_link.state != LinkState::kNone) {
    return w.error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.");
  }
  const int64_t target = g_last_write_off;
  const int64_t n = count_acked(target);
  Client* c = static_cast<Client*>(s.client);
  if (n >= want || c == nullptr || (s.flags & Session::kMulti) || g_exec_unit.depth > 1) {
    return w.integer(n);
  }
  s.flags |= Session::kBlocked;
  g_waiters.push_back({c, target, want, timeout_ms > 0 ? mstime() + timeout_ms : 0});
  // Ask the replicas for their offsets now rather than waiting for their next ACK.
  static const std::string_view getack[] = {"REPLCONF", "GETACK", "*"};
  g_scratch.clear();
  g_scratch.append("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n");
  (void)getack;
  feed_raw(g_scratch.data(), g_scratch.size());
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

}  // namespace

void replication_init() {
  g_replication_hooks.replconf = hook_replconf;
  g_replication_hooks.psync = hook_psync;
  g_replication_hooks.replicaof = hook_replicaof;
  g_replication_hooks.wait = hook_wait;
  g_replication_hooks.role = hook_role;
}

void replication_start() {
  const ReplOptions o = repl_options();
  if (!o.replicaof_host.empty()) start_link(o.replicaof_host, static_cast<int>(o.replicaof_port));
}

void replication_cron() {
  const int64_t now = mstime();
  const ReplOptions o = repl_options();
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
  if (any && g_link.state == LinkState::kNone && now - g_last_ping_ms >= o.ping_period * 1000) {
    g_last_ping_ms = now;
    static constexpr std::string_view kPing = "*1\r\n$4\r\nPING\r\n";
    feed_raw(kPing.data(), kPing.size());
  }
  serve_waiters(true);
  update_gates();
}

void replication_before_sleep() { serve_waiters(false); }

void replication_client_closed(Client* c) {
  for (size_t i = 0; i < g_replicas.size(); i++) {
    if (g_replicas[i].c == c) {
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
  if (g_link.state != LinkState::kConnected) return false;
  link_close("Connection with master lost.");
  g_last_connect_ms = 0;
  return true;
}

bool replication_is_replica(const Client* c) { return (c->session.flags & Session::kReplica) != 0; }

std::string replication_info() {
  std::string out;
  char buf[512];
  auto line = [&](const char* fmt, auto... a) {
    const int n = snprintf(buf, sizeof(buf), fmt, a...);
    if (n > 0) out.append(buf, std::min<size_t>(static_cast<size_t>(n), sizeof(buf) - 1));
    out += "\r\n";
  };
  const ReplOptions o = repl_options();
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
      line("master_sync_total_bytes:%lld", static_cast<long long>(
                                                g_link.eof_mode ? -1 : static_cast<int64_t>(g_link.rdb.size()) + g_link.bulk_left));
      line("master_sync_read_bytes:%zu", g_link.rdb.size());
      line("master_sync_left_bytes:%lld", static_cast<long long>(g_link.bulk_left));
      line("master_sync_perc:0.00");
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
  for (const ReplicaInfo& r : g_replicas) n += r.online;
  line("connected_slaves:%zu", n);
  // Redis shows it (either role) while min-replicas-to-write is in force.
  if (o.min_to_write > 0 && o.min_max_lag > 0) {
    line("min_slaves_good_slaves:%lld", static_cast<long long>(good_replicas(o, now)));
  }
  size_t i = 0;
  for (const ReplicaInfo& r : g_replicas) {
    if (!r.online) continue;
    line("slave%zu:ip=%s,port=%lld,state=online,offset=%lld,lag=%lld", i++, r.ip.c_str(),
         static_cast<long long>(r.listening_port), static_cast<long long>(r.ack_off),
         static_cast<long long>((now - r.ack_ms) / 1000));
  }
  line("master_failover_state:no-failover");
  line("master_replid:%s", master_replid().c_str());
  line("master_replid2:%s", g_replid2.c_str());
  line("master_repl_offset:%lld", static_cast<long long>(g_master_off));
  line("second_repl_offset:%lld", static_cast<long long>(g_second_off));
  line("repl_backlog_active:%d", g_backlog.active ? 1 : 0);
  line("repl_backlog_size:%lld", static_cast<long long>(o.backlog_size));
  line("repl_backlog_first_byte_offset:%lld",
       static_cast<long long>(g_backlog.active ? g_backlog.first : 0));
  line("repl_backlog_histlen:%zu", g_backlog.data.size());
  return out;
}

}  // namespace keel
