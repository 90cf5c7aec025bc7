// The replication directives (Redis's names, aliases, bounds and defaults), stored in one
// ReplOptions that server/replication.cc reads through repl_options(): replicaof, the master's
// credentials, what a replica announces, the backlog, the sync mode, the admission rules of a
// master (min-replicas-*) and of a replica (read-only, stale data, maxmemory, lazy flush).
#include <cstdlib>
#include <string>
#include <vector>

#include "server/config_internal.h"
#include "server/replication.h"

namespace keel {
namespace config_detail {
namespace {

ReplOptions& repl() {
  static ReplOptions o;
  return o;
}
// Accepted and reported only: a replica always loads a full sync from disk (Redis's
// "disabled"), and the replication socket keeps TCP_NODELAY.
struct ReplExtras {
  std::string diskless_load = "disabled";
  bool disable_tcp_nodelay = false;
} g_extras;

constexpr EnumItem kDisklessLoad[] = {
    {"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}, {nullptr, 0}};

// replicaof <host> <port> | replicaof no one: Redis's checks; start-up only (CONFIG SET refuses
// it as immutable; REPLICAOF changes it at run time through set_replicaof_option).
bool set_replicaof(const Directive&, const Args& args, std::string* err) {
  if (args.size() != 2) {
    *err = "wrong number of arguments";
    return false;
  }
  ReplOptions& o = repl();
  o.replicaof_host.clear();
  o.replicaof_port = 0;
  if (iequals(args[0], "no") && iequals(args[1], "one")) return true;
  char* end = nullptr;
  const long port = strtol(args[1].c_str(), &end, 10);
  if (port < 0 || port > 65535 || *end != '\0') {
    *err = "Invalid master port";
    return false;
  }
  o.replicaof_host = args[0];
  o.replicaof_port = port;
  return true;
}
std::string get_replicaof(const Directive&) {
  const ReplOptions& o = repl();
  return o.replicaof_host.empty() ? "" : o.replicaof_host + " " + std::to_string(o.replicaof_port);
}
// No line at all without a master (the file's replicaof lines are removed), and the host unquoted:
// Redis writes `replicaof 127.0.0.1 6379` (Sentinel rewrites it on every reconfiguration).
void rewrite_replicaof(const Directive& d, std::vector<std::pair<std::string, bool>>* out) {
  const ReplOptions& o = repl();
  if (o.replicaof_host.empty()) return;
  out->push_back({std::string(d.name) + " " + o.replicaof_host + " " + std::to_string(o.replicaof_port),
                  true});
}

}  // namespace

void add_repl_directives(std::vector<Directive>* v) {
  v->push_back(b("rdb-del-sync-files", nullptr, 0, KEEL_REF(repl().del_sync_files), false));
  v->push_back(b("replica-lazy-flush", "slave-lazy-flush", 0, KEEL_REF(repl().lazy_flush), false));
  v->push_back(b("replica-serve-stale-data", "slave-serve-stale-data", 0,
                 KEEL_REF(repl().serve_stale), true));
  v->push_back(b("replica-read-only", "slave-read-only", 0, KEEL_REF(repl().read_only), true));
  v->push_back(b("repl-diskless-sync", nullptr, 0, KEEL_REF(repl().diskless_sync), true));
  v->push_back(b("repl-disable-tcp-nodelay", nullptr, 0, KEEL_REF(g_extras.disable_tcp_nodelay),
                 false));
  v->push_back(b("replica-announced", nullptr, 0, KEEL_REF(repl().announced), true));
  v->push_back(b("replica-ignore-maxmemory", "slave-ignore-maxmemory", 0,
                 KEEL_REF(repl().ignore_maxmemory), true));
  {
    Directive d = n("repl-backlog-size", nullptr, kMemory, KEEL_REF(repl().backlog_size),
                    Num::kI64, 1, kLongMax, "1048576");
    d.post = [] { replication_options_changed(); };  // the backlog is trimmed to it at once
    v->push_back(d);
  }
  v->push_back(n("repl-backlog-ttl", nullptr, 0, KEEL_REF(repl().backlog_ttl), Num::kI64, 0,
                 kLongMax, "3600"));
  v->push_back(n("repl-timeout", nullptr, 0, KEEL_REF(repl().timeout), Num::kI64, 1, kIntMax, "60"));
  v->push_back(n("repl-diskless-sync-delay", nullptr, 0, KEEL_REF(repl().diskless_sync_delay),
                 Num::kI64, 0, kIntMax, "5"));
  v->push_back(n("replica-priority", "slave-priority", 0, KEEL_REF(repl().priority), Num::kI64, 0,
                 kIntMax, "100"));
  v->push_back(n("replica-announce-port", "slave-announce-port", 0, KEEL_REF(repl().announce_port),
                 Num::kI64, 0, 65535, "0"));
  v->push_back(n("min-replicas-to-write", "min-slaves-to-write", 0, KEEL_REF(repl().min_to_write),
                 Num::kI64, 0, kIntMax, "0"));
  v->push_back(n("min-replicas-max-lag", "min-slaves-max-lag", 0, KEEL_REF(repl().min_max_lag),
                 Num::kI64, 0, kIntMax, "10"));
  v->push_back(n("repl-diskless-sync-max-replicas", nullptr, 0,
                 KEEL_REF(repl().diskless_sync_max_replicas), Num::kI64, 0, kIntMax, "0"));
  v->push_back(n("repl-ping-replica-period", "repl-ping-slave-period", 0,
                 KEEL_REF(repl().ping_period), Num::kI64, 1, kIntMax, "10"));
  v->push_back(es("repl-diskless-load", 0, KEEL_REF(g_extras.diskless_load), kDisklessLoad,
                  "disabled"));
  v->push_back(s("masterauth", nullptr, kSensitive, KEEL_REF(repl().masterauth), ""));
  v->push_back(s("masteruser", nullptr, kSensitive, KEEL_REF(repl().masteruser), ""));
  v->push_back(s("replica-announce-ip", "slave-announce-ip", 0, KEEL_REF(repl().announce_ip), ""));
  {
    Directive d = sp("replicaof", kImmutable | kMultiArg, set_replicaof, get_replicaof, "",
                     rewrite_replicaof);
    d.alias = "slaveof";
    v->push_back(d);
  }
}

}  // namespace config_detail

const ReplOptions& repl_options() { return config_detail::repl(); }

void set_replicaof_option(const std::string& host, int64_t port) {
  config_detail::repl().replicaof_host = host;
  config_detail::repl().replicaof_port = port;
}

}  // namespace keel
