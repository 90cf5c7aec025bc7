// The event loop: accept, read callbacks (into Client::process_input), the before-sleep flush of
// pending replies, the cron timer (expiry, rehash, timeouts, stats) and signal-driven shutdown.
#include "server/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/glob.h"
#include "base/log.h"
#include "base/time.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "keyspace/keyspace.h"
#include "server/config.h"

namespace keel {
namespace {
Server* g_server = nullptr;

void on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
  Client* c = static_cast<Client*>(h->data);
  size_t want = 16 * 1024;
  size_t need = c->parser.bytes_wanted();
  if (need > want) want = need;
  char* p = c->query.reserve_tail(want);
  *buf = uv_buf_init(p, static_cast<unsigned>(c->query.capacity() - c->query.size()));
}

void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t*) {
  Client* c = static_cast<Client*>(stream->data);
  if (nread < 0) {
    c->close();
    return;
  }
  if (nread == 0) return;
  c->query.commit(static_cast<size_t>(nread));
  c->net_in += static_cast<uint64_t>(nread);
  c->server->stats().net_input_bytes += static_cast<uint64_t>(nread);
  if (c->query.size() > protocol_limits().client_query_buffer_limit) {
    LOG_WARNING("Closing client that reached max query buffer length: id=%llu addr=%s",
                static_cast<unsigned long long>(c->session.id), c->session.addr.c_str());
    c->server->stats().client_query_buffer_limit_disconnections++;
    c->close();
    return;
  }
  c->process_input();
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

uint64_t ServerStats::instantaneous_ops() const {
  uint64_t sum = 0;
  for (uint64_t s : samples) sum += s;
  return sum / 16;
}

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
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&c->tcp), &fd) == 0) c->fd = fd;
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
  uv_read_start(reinterpret_cast<uv_stream_t*>(&c->tcp), on_alloc, on_read);
}

void Server::queue_flush(Client* c) {
  if (c->pending_flush || c->closing) return;
  c->pending_flush = true;
  pending_.push_back(c);
}

void Server::client_closed(Client* c) {
  clients_.erase(c->session.id);
  if (c->pending_flush) {
    pending_.erase(std::remove(pending_.begin(), pending_.end(), c), pending_.end());
    c->pending_flush = false;
  }
  if (c->session.flags & Session::kMonitor) {
    monitors_.erase(std::remove(monitors_.begin(), monitors_.end(), c), monitors_.end());
  }
}

void Server::on_before_sleep(uv_prepare_t* p) {
  Server* s = static_cast<Server*>(p->data);
  // Flushing may close clients, which edits pending_; work on a detached list.
  std::vector<Client*> work;
  work.swap(s->pending_);
  for (Client* c : work) c->pending_flush = false;
  for (Client* c : work) {
    if (!c->closing) c->flush();
  }
  work.clear();
  if (s->pending_.empty()) s->pending_.swap(work);  // keep the capacity
  if (s->shutting_down_) s->finish_shutdown();
}

void Server::on_cron(uv_timer_t* t) { static_cast<Server*>(t->data)->cron(); }

void Server::cron() {
  const int64_t now_us = monotonic_us();
  g_clock.now_ms = mstime();
  g_clock.lru_clock = static_cast<uint32_t>(g_clock.now_ms / 1000);
  const ServerOptions& o = server_options();
  const int64_t period_us = 1000000 / (o.hz > 0 ? o.hz : 10);
  // Active expiry gets 25% of the cron period, like Redis's slow cycle.
  keyspace().active_expire_cycle(now_us + period_us / 4);
  keyspace().cron(1000);
  // instantaneous_ops_per_sec over the last 16 samples of 100 ms.
  const int64_t ms = g_clock.now_ms;
  if (ms - stats_.last_sample_ms >= 100) {
    uint64_t ops = dispatch_stats().total_commands_processed;
    int64_t dt = ms - stats_.last_sample_ms;
    stats_.samples[stats_.sample_idx] = stats_.last_sample_ms ? (ops - stats_.last_sample_ops) * 1000 / uint64_t(dt) : 0;
    stats_.sample_idx = (stats_.sample_idx + 1) % 16;
    stats_.last_sample_ms = ms;
    stats_.last_sample_ops = ops;
  }
  if (o.timeout > 0) {
    std::vector<Client*> idle;
    for (auto& [id, c] : clients_) {
      if (!(c->session.flags & (Session::kPubSub | Session::kMonitor)) &&
          ms - c->last_interaction_ms > o.timeout * 1000) {
        idle.push_back(c);
      }
    }
    for (Client* c : idle) {
      LOG_VERBOSE("Closing idle client");
      c->close();
    }
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
  s->request_shutdown(0);
}

void Server::request_shutdown(int exit_code) {
  shutting_down_ = true;
  exit_code_ = exit_code;
  uv_stop(loop_);
}

void Server::finish_shutdown() { uv_stop(loop_); }

int Server::run() {
  if (!listen_all()) return 1;
  const ServerOptions& o = server_options();
  LOG_NOTICE("Server initialized");
  LOG_NOTICE("Ready to accept connections tcp");
  stats_.start_time_ms = mstime();
  lastsave_ = time(nullptr);
  g_clock.now_ms = mstime();
  g_clock.lru_clock = static_cast<uint32_t>(g_clock.now_ms / 1000);

  uv_timer_init(loop_, &cron_timer_);
  cron_timer_.data = this;
  uint64_t period = static_cast<uint64_t>(1000 / (o.hz > 0 ? o.hz : 10));
  uv_timer_start(&cron_timer_, on_cron, period, period);
  uv_prepare_init(loop_, &before_sleep_);
  before_sleep_.data = this;
  uv_prepare_start(&before_sleep_, on_before_sleep);
  uv_signal_init(loop_, &sigterm_);
  sigterm_.data = this;
  uv_signal_start(&sigterm_, on_signal, SIGTERM);
  uv_signal_init(loop_, &sigint_);
  sigint_.data = this;
  uv_signal_start(&sigint_, on_signal, SIGINT);
  signal(SIGPIPE, SIG_IGN);

  while (!shutting_down_) uv_run(loop_, UV_RUN_DEFAULT);

  // Shutdown: flush what clients are owed (best effort), remove the pidfile, exit.
  for (Client* c : pending_) {
    if (!c->closing && !c->out.empty()) {
      uv_buf_t b = uv_buf_init(c->out.data(), static_cast<unsigned>(c->out.size()));
      uv_try_write(reinterpret_cast<uv_stream_t*>(&c->tcp), &b, 1);
    }
  }
  LOG_WARNING("User requested shutdown...");
  if (!o.pidfile.empty()) unlink(o.pidfile.c_str());
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
  dispatch_stats().total_commands_processed = 0;
}

std::string Server::client_line(const Client* c) const {
  const Session& s = c->session;
  const int64_t now = mstime();
  char buf[1024];
  std::string flags;
  if (s.flags & Session::kMonitor) flags += 'O';
  if (s.flags & Session::kPubSub) flags += 'P';
  if (s.flags & Session::kMulti) flags += 'x';
  if (s.flags & Session::kNoEvict) flags += 'e';
  if (s.flags & Session::kNoTouch) flags += 'T';
  if (flags.empty()) flags = "N";
  snprintf(buf, sizeof(buf),
           "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d sub=0 psub=0 "
           "ssub=0 multi=-1 qbuf=%zu qbuf-free=%zu argv-mem=0 multi-mem=0 rbs=%zu rbp=%zu obl=%zu "
           "oll=0 omem=%zu tot-mem=%zu events=r cmd=%s user=default redir=-1 resp=%d "
           "lib-name=%s lib-ver=%s",
           static_cast<unsigned long long>(s.id), s.addr.c_str(), c->laddr.c_str(), c->fd,
           s.name.c_str(), static_cast<long long>((now - c->ctime_ms) / 1000),
           static_cast<long long>((now - c->last_interaction_ms) / 1000), flags.c_str(),
           s.db_index, c->query.size(), c->query.capacity() - c->query.size(), c->query.capacity(),
           c->query.size(), c->out.size(), c->out.capacity() + c->inflight.capacity(),
           c->query.capacity() + c->out.capacity() + c->inflight.capacity() + sizeof(Client),
           s.last_cmd.empty() ? "NULL" : s.last_cmd.c_str(), s.resp, s.lib_name.c_str(),
           s.lib_ver.c_str());
  return buf;
}

std::string Server::client_list(std::span<const uint64_t> ids, std::string_view) {
  std::vector<const Client*> list;
  for (auto& [id, c] : clients_) {
    if (ids.empty() || std::find(ids.begin(), ids.end(), id) != ids.end()) list.push_back(c);
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

int64_t Server::client_kill(const Session&, std::span<const std::string_view>, std::string* error) {
  *error = "ERR not implemented";
  return -1;
}

void Server::add_monitor(Session& s) {
  s.flags |= Session::kMonitor;
  monitors_.push_back(static_cast<Client*>(s.client));
}

void Server::feed_monitors(const Session& s, std::span<const std::string_view> args) {
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
    if (&m->session == &s) continue;
    m->out.append(line);
    queue_flush(m);
  }
}

std::string Server::shutdown(bool, bool, bool, bool, bool) {
  request_shutdown(0);
  return {};
}

bool Server::debug_command_allowed(const Session& s) const {
  int mode = command_options().enable_debug_command;
  if (mode == 1) return true;
  if (mode == 2) return s.addr.rfind("127.0.0.1:", 0) == 0 || s.addr.rfind("::1:", 0) == 0;
  return false;
}

}  // namespace keel
