// Directives Keel accepts, stores and reports (CONFIG GET, CONFIG REWRITE) so that a Redis
// redis.conf and tools that set them keep working, but does not act on yet (eviction tuning,
// syslog, threads ...), the deprecated names a config file may still hold, and the replication
// directives, which server/replication.cc reads through repl_options().
#include <cstdlib>
#include <string>
#include <vector>

#include "server/config_internal.h"
#include "server/replication.h"

namespace keel {
namespace config_detail {
namespace {
// Storage for accept-and-report directives that no layer reads yet.
struct Misc {
  bool activerehashing = true;
  bool replica_lazy_flush = false;
  bool rdb_del_sync_files = false, dynamic_hz = true, always_show_logo = false;
  bool set_proc_title = true, syslog_enabled = false;
  bool activedefrag = false;
  bool replica_serve_stale = true, replica_read_only = true, replica_ignore_maxmemory = true;
  bool repl_diskless_sync = true, io_threads_do_reads = false;
  int64_t active_expire_effort = 1, busy_reply_threshold = 5000;
  int64_t acllog_max_len = 128, io_threads = 1;
  int64_t repl_backlog_size = 1 << 20, repl_timeout = 60, repl_diskless_sync_delay = 5;
  int64_t replica_priority = 100, min_replicas_to_write = 0, min_replicas_max_lag = 10;
  int64_t replica_announce_port = 0;  // 0: the replica announces its own port
  int64_t shutdown_timeout = 10;
  int supervised = 0;
  std::string syslog_facility = "local0";
  std::string repl_diskless_load = "disabled", acl_pubsub_default = "resetchannels";
  std::string masterauth, masteruser, aclfile, unixsocket;
  std::string syslog_ident = "redis", replica_announce_ip, ignore_warnings;
  // Present in Debian's stock redis.conf; accepted and reported so that file loads unchanged.
  bool repl_disable_tcp_nodelay = false, replica_announced = true, cluster_enabled = false;
  int64_t repl_diskless_sync_max_replicas = 0, unixsocketperm = 0;
  std::string oom_score_adj = "no", oom_score_adj_values = "0 200 800";
  std::string proc_title_template = "{title} {listen-addr} {server-mode}";
  // Replication (comes later): the master given by replicaof, Redis's defaults.
  std::string replicaof_host;  // "" = this server is a master
  int64_t replicaof_port = 0, repl_ping_replica_period = 10, repl_backlog_ttl = 3600;
  std::string tls_key_file_pass, tls_client_key_file_pass;
  // Redis's hidden directives (test and debugging knobs; CONFIG GET * does not list them).
  bool use_exit_on_panic = false;
  int64_t watchdog_period = 0;
};
Misc& misc() {
  static Misc m;
  return m;
}

constexpr EnumItem kSupervised[] = {
    {"upstart", 1}, {"systemd", 2}, {"auto", 3}, {"no", 0}, {nullptr, 0}};
constexpr EnumItem kFacility[] = {{"user", 0},   {"local0", 1}, {"local1", 2}, {"local2", 3},
                                  {"local3", 4}, {"local4", 5}, {"local5", 6}, {"local6", 7},
                                  {"local7", 8}, {nullptr, 0}};
constexpr EnumItem kDisklessLoad[] = {
    {"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}, {nullptr, 0}};
constexpr EnumItem kOomAdj[] = {
    {"no", 0}, {"yes", 1}, {"relative", 2}, {"absolute", 3}, {nullptr, 0}};

// Multi-argument directives stored as their space-joined text (no behaviour behind them yet).
std::string join_args(const Args& args) {
  std::string v;
  for (const auto& a : args) v += (v.empty() ? "" : " ") + std::string(a);
  return v;
}
bool set_oom_values(const Directive&, const Args& args, std::string*) {
  misc().oom_score_adj_values = join_args(args);
  return true;
}
std::string get_oom_values(const Directive&) { return misc().oom_score_adj_values; }

// replicaof <host> <port> | replicaof no one. Redis's checks; start-up only (CONFIG SET refuses
// it as immutable). Keel has no replication yet: a master is remembered and reported, and the
// server keeps running as a master (Server::run logs that).
bool set_replicaof(const Directive&, const Args& args, std::string* err) {
  if (args.size() != 2) {
    *err = "wrong number of arguments";
    return false;
  }
  Misc& m = misc();
  m.replicaof_host.clear();
  m.replicaof_port = 0;
  if (iequals(args[0], "no") && iequals(args[1], "one")) return true;
  char* end = nullptr;
  const long port = strtol(args[1].c_str(), &end, 10);
  if (port < 0 || port > 65535 || *end != '\0') {
    *err = "Invalid master port";
    return false;
  }
  m.replicaof_host = args[0];
  m.replicaof_port = port;
  return true;
}
std::string get_replicaof(const Directive&) {
  const Misc& m = misc();
  return m.replicaof_host.empty() ? "" : m.replicaof_host + " " + std::to_string(m.replicaof_port);
}
// No line at all without a master (the file's replicaof lines are removed), and the host unquoted:
// Redis writes `replicaof 127.0.0.1 6379` (Sentinel rewrites it on every reconfiguration).
void rewrite_replicaof(const Directive& d, std::vector<std::pair<std::string, bool>>* out) {
  if (misc().replicaof_host.empty()) return;
  out->push_back({std::string(d.name) + " " + misc().replicaof_host + " " +
                      std::to_string(misc().replicaof_port),
                  true});
}

// proc-title-template: Redis's check (Keel does not change its process title, but a template
// Redis would refuse is refused here too). {{ and }} stand for braces; a variable must be one of
// Redis's names and closed; expanded with an empty {title}, the text must not be blank.
bool check_proc_title(const Directive&, const Args& args, std::string* err) {
  static constexpr const char* kVars[] = {"title", "listen-addr", "server-mode", "port",
                                          "tls-port", "unixsocket", "config-file"};
  const std::string& v = args[0];
  std::string expanded;
  bool valid = true;
  for (size_t i = 0; valid && i < v.size(); i++) {
    if (v.compare(i, 2, "{{") == 0 || v.compare(i, 2, "}}") == 0) {
      expanded += v[i++];
    } else if (v[i] != '{') {
      expanded += v[i];
    } else {
      const size_t close = v.find('}', i + 1);
      const std::string name = close == std::string::npos ? "" : v.substr(i + 1, close - i - 1);
      valid = false;
      for (const char* known : kVars) valid |= name == known;
      // Every variable but these expands to something non-empty in a standalone server.
      if (name != "title" && name != "server-mode" && name != "unixsocket") expanded += 'x';
      if (name == "unixsocket") expanded += misc().unixsocket;
      i = close;
    }
  }
  if (valid && expanded.find_first_not_of(' ') != std::string::npos) return true;
  *err = "template format is invalid or contains unknown variables";
  return false;
}

void add_ignored_bools(std::vector<Directive>* v) {
  v->push_back(b("activerehashing", nullptr, 0, KEEL_REF(misc().activerehashing), true));
  v->push_back(b("replica-lazy-flush", "slave-lazy-flush", 0, KEEL_REF(misc().replica_lazy_flush),
               false));
  v->push_back(b("rdb-del-sync-files", nullptr, 0, KEEL_REF(misc().rdb_del_sync_files), false));
  v->push_back(b("dynamic-hz", nullptr, 0, KEEL_REF(misc().dynamic_hz), true));
  v->push_back(b("always-show-logo", nullptr, kImmutable, KEEL_REF(misc().always_show_logo),
               false));
  v->push_back(b("set-proc-title", nullptr, kImmutable, KEEL_REF(misc().set_proc_title), true));
  v->push_back(b("syslog-enabled", nullptr, kImmutable, KEEL_REF(misc().syslog_enabled), false));
  v->push_back(b("activedefrag", nullptr, 0, KEEL_REF(misc().activedefrag), false));
  v->push_back(b("replica-serve-stale-data", "slave-serve-stale-data", 0,
               KEEL_REF(misc().replica_serve_stale), true));
  v->push_back(b("replica-read-only", "slave-read-only", 0, KEEL_REF(misc().replica_read_only),
               true));
  v->push_back(b("repl-diskless-sync", nullptr, 0, KEEL_REF(misc().repl_diskless_sync), true));
  v->push_back(b("io-threads-do-reads", nullptr, kImmutable, KEEL_REF(misc().io_threads_do_reads),
               false));
  v->push_back(b("repl-disable-tcp-nodelay", nullptr, 0,
               KEEL_REF(misc().repl_disable_tcp_nodelay), false));
  v->push_back(b("replica-announced", nullptr, 0, KEEL_REF(misc().replica_announced), true));
  v->push_back(b("replica-ignore-maxmemory", "slave-ignore-maxmemory", 0,
                 KEEL_REF(misc().replica_ignore_maxmemory), true));
  v->push_back(b("cluster-enabled", nullptr, kImmutable, KEEL_REF(misc().cluster_enabled), false));
}

void add_ignored_numbers(std::vector<Directive>* v) {
  v->push_back(n("active-expire-effort", nullptr, 0, KEEL_REF(misc().active_expire_effort),
               Num::kI64, 1, 10, "1"));
  v->push_back(n("io-threads", nullptr, kImmutable, KEEL_REF(misc().io_threads), Num::kI64, 1, 128,
               "1"));
  {
    Directive d = n("repl-backlog-size", nullptr, kMemory, KEEL_REF(misc().repl_backlog_size),
                    Num::kI64, 1, kLongMax, "1048576");
    d.post = [] { replication_options_changed(); };  // the backlog is trimmed to it at once
    v->push_back(d);
  }
  v->push_back(n("repl-backlog-ttl", nullptr, 0, KEEL_REF(misc().repl_backlog_ttl), Num::kI64, 0,
               kLongMax, "3600"));
  v->push_back(n("repl-timeout", nullptr, 0, KEEL_REF(misc().repl_timeout), Num::kI64, 1, kIntMax,
               "60"));
  v->push_back(n("repl-diskless-sync-delay", nullptr, 0,
               KEEL_REF(misc().repl_diskless_sync_delay), Num::kI64, 0, kIntMax, "5"));
  v->push_back(n("replica-priority", "slave-priority", 0, KEEL_REF(misc().replica_priority),
               Num::kI64, 0, kIntMax, "100"));
  v->push_back(n("replica-announce-port", "slave-announce-port", 0,
               KEEL_REF(misc().replica_announce_port), Num::kI64, 0, 65535, "0"));
  v->push_back(n("min-replicas-to-write", "min-slaves-to-write", 0,
               KEEL_REF(misc().min_replicas_to_write), Num::kI64, 0, kIntMax, "0"));
  v->push_back(n("min-replicas-max-lag", "min-slaves-max-lag", 0,
               KEEL_REF(misc().min_replicas_max_lag), Num::kI64, 0, kIntMax, "10"));
  v->push_back(n("shutdown-timeout", nullptr, 0, KEEL_REF(misc().shutdown_timeout), Num::kI64, 0,
               kIntMax, "10"));
  v->push_back(n("repl-diskless-sync-max-replicas", nullptr, 0,
               KEEL_REF(misc().repl_diskless_sync_max_replicas), Num::kI64, 0, kIntMax, "0"));
  v->push_back(n("repl-ping-replica-period", "repl-ping-slave-period", 0,
               KEEL_REF(misc().repl_ping_replica_period), Num::kI64, 1, kIntMax, "10"));
  v->push_back(n("unixsocketperm", nullptr, kImmutable, KEEL_REF(misc().unixsocketperm),
               Num::kI64, 0, 0777, "0"));
}

// Strings, enums and multi-argument values.
void add_ignored_strings(std::vector<Directive>* v) {
  v->push_back(ei("supervised", kImmutable, KEEL_REF(misc().supervised), kSupervised, "no"));
  v->push_back(es("syslog-facility", kImmutable, KEEL_REF(misc().syslog_facility), kFacility,
                "local0"));
  v->push_back(es("repl-diskless-load", 0, KEEL_REF(misc().repl_diskless_load), kDisklessLoad,
                "disabled"));
  v->push_back(s("masterauth", nullptr, kSensitive, KEEL_REF(misc().masterauth), ""));
  v->push_back(s("masteruser", nullptr, kSensitive, KEEL_REF(misc().masteruser), ""));
  v->push_back(s("unixsocket", nullptr, kImmutable, KEEL_REF(misc().unixsocket), ""));
  v->push_back(s("syslog-ident", nullptr, kImmutable, KEEL_REF(misc().syslog_ident), "redis"));
  v->push_back(s("replica-announce-ip", "slave-announce-ip", 0,
               KEEL_REF(misc().replica_announce_ip), ""));
  v->push_back(s("ignore-warnings", nullptr, 0, KEEL_REF(misc().ignore_warnings), ""));
  v->push_back(es("oom-score-adj", 0, KEEL_REF(misc().oom_score_adj), kOomAdj, "no"));
  v->push_back(sp("oom-score-adj-values", kMultiArg, set_oom_values, get_oom_values,
                "0 200 800"));
  v->push_back(s("proc-title-template", nullptr, 0, KEEL_REF(misc().proc_title_template),
               "{title} {listen-addr} {server-mode}", check_proc_title));
  {
    Directive d = sp("replicaof", kImmutable | kMultiArg, set_replicaof, get_replicaof, "",
                     rewrite_replicaof);
    d.alias = "slaveof";
    v->push_back(d);
  }
  // Not secrets for Redis's SLOWLOG either (it shows their CONFIG SET values).
  v->push_back(s("tls-key-file-pass", nullptr, 0, KEEL_REF(misc().tls_key_file_pass), ""));
  v->push_back(s("tls-client-key-file-pass", nullptr, 0,
               KEEL_REF(misc().tls_client_key_file_pass), ""));
}

// Redis's HIDDEN_CONFIG directives: answered by name, never listed by CONFIG GET patterns (the
// real ones, rdb-key-save-delay, key-load-delay, loading-process-events-interval-bytes, are in
// config_table.cc).
void add_hidden_directives(std::vector<Directive>* v) {
  v->push_back(b("use-exit-on-panic", nullptr, kHidden, KEEL_REF(misc().use_exit_on_panic), false));
  v->push_back(n("watchdog-period", nullptr, kHidden, KEEL_REF(misc().watchdog_period), Num::kI64,
               0, kIntMax, "0"));
}

}  // namespace

void add_ignored_directives(std::vector<Directive>* v) {
  add_ignored_bools(v);
  add_ignored_numbers(v);
  add_ignored_strings(v);
  add_hidden_directives(v);
}

// Directives accepted in a file for compatibility and ignored (name, exact argc with the name).
bool deprecated_directive(std::string_view name, size_t argc) {
  return argc == 2 && (name == "list-max-ziplist-entries" || name == "list-max-ziplist-value" ||
                       name == "lua-replicate-commands");
}

}  // namespace config_detail
}  // namespace keel

namespace keel {
ReplOptions repl_options() {
  const config_detail::Misc& m = config_detail::misc();
  ReplOptions o;
  o.replicaof_host = m.replicaof_host;
  o.replicaof_port = m.replicaof_port;
  o.masterauth = m.masterauth;
  o.masteruser = m.masteruser;
  o.announce_ip = m.replica_announce_ip;
  o.announce_port = m.replica_announce_port;
  o.announced = m.replica_announced;
  o.backlog_size = m.repl_backlog_size;
  o.ping_period = m.repl_ping_replica_period;
  o.timeout = m.repl_timeout;
  o.priority = m.replica_priority;
  o.min_to_write = m.min_replicas_to_write;
  o.min_max_lag = m.min_replicas_max_lag;
  o.read_only = m.replica_read_only;
  o.ignore_maxmemory = m.replica_ignore_maxmemory;
  o.serve_stale = m.replica_serve_stale;
  o.diskless_sync = m.repl_diskless_sync;
  o.diskless_sync_delay = m.repl_diskless_sync_delay;
  o.backlog_ttl = m.repl_backlog_ttl;
  o.diskless_sync_max_replicas = m.repl_diskless_sync_max_replicas;
  return o;
}
void set_replicaof_option(const std::string& host, int64_t port) {
  config_detail::misc().replicaof_host = host;
  config_detail::misc().replicaof_port = port;
}
}  // namespace keel
