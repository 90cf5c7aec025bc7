// The directives that have behaviour behind them: their rows (Redis names, aliases, bounds and
// defaults, each writing into the options struct of the layer that owns it) and the special
// setters and getters of the multi-argument or side-effecting ones (bind, port, save, dir,
// loglevel, notify-keyspace-events, client-output-buffer-limit). The directives accepted for
// compatibility without behaviour are in config_ignored.cc.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "base/cpu_affinity.h"
#include "base/crash.h"
#include "base/log.h"
#include "base/memory.h"
#include "base/numbers.h"
#include "commands/dispatch.h"
#include "commands/latency.h"
#include "commands/tracking.h"
#include "keyspace/evict.h"
#include "keyspace/lazyfree.h"
#include "keyspace/notify.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "protocol/resp_parser.h"
#include "scripting/lua_engine.h"
#include "commands/acl.h"
#include "server/config_internal.h"
#include "types/limits.h"

namespace keel {
namespace config_detail {

int g_enable_protected_configs = 0;
bool g_reading_config_file = false;

namespace {

constexpr EnumItem kYesNoLocal[] = {{"no", 0}, {"yes", 1}, {"local", 2}, {nullptr, 0}};
constexpr EnumItem kPolicies[] = {{"volatile-lru", 0},   {"volatile-lfu", 1}, {"volatile-random", 2},
                                  {"volatile-ttl", 3},   {"allkeys-lru", 4},  {"allkeys-lfu", 5},
                                  {"allkeys-random", 6}, {"noeviction", 7},   {nullptr, 0}};
constexpr EnumItem kLogLevels[] = {{"debug", 0},   {"verbose", 1}, {"notice", 2},
                                   {"warning", 3}, {"nothing", 4}, {nullptr, 0}};
constexpr EnumItem kSanitize[] = {{"no", 0}, {"yes", 1}, {"clients", 2}, {nullptr, 0}};
constexpr EnumItem kAclPubsubDefault[] = {{"allchannels", 1}, {"resetchannels", 0}, {nullptr, 0}};

// ---- Special directives ---------------------------------------------------------------------

// The listener hook: installed by the server once it listens, so bind/port changes rebind.
bool (*g_relisten)(std::string* err) = nullptr;

bool apply_port(std::string* err) {
  if (!g_relisten || g_relisten(err)) return true;
  *err = "Unable to listen on this port";
  return false;
}
bool apply_bind(std::string* err) {
  if (!g_relisten || g_relisten(err)) return true;
  *err = "Failed to bind to specified addresses.";
  return false;
}

bool set_bind(const Directive&, const Args& args, std::string* err) {
  if (args.size() > 16) {
    *err = "Too many bind addresses specified.";
    return false;
  }
  if (args.empty()) {
    *err = "wrong number of arguments";
    return false;
  }
  server_options().bind = args;
  return true;
}
std::string get_bind(const Directive&) {
  std::string out;
  for (const std::string& a : server_options().bind) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

// save: "" or <seconds> <changes> pairs (seconds >= 1, changes >= 0, read with strtoll as
// Redis does). CONFIG SET replaces the list; while a config file loads, the first save line
// drops Redis's default points and each further line adds its pairs (save "" empties it).
bool set_save(const Directive& d, const Args& args, std::string* err) {
  if (args.size() == 1 && args[0].find(' ') != std::string::npos) {
    // save "3600 1 300 100" in a file: one quoted argument holding the pairs.
    Args parts;
    std::string_view v = args[0];
    for (size_t start = 0;;) {
      const size_t sp = v.find(' ', start);
      parts.emplace_back(v.substr(start, sp == std::string_view::npos ? sp : sp - start));
      if (sp == std::string_view::npos) break;
      start = sp + 1;
    }
    return set_save(d, parts, err);
  }
  std::vector<SavePoint>& points = persistence_options().save_points;
  Args a = args;
  if (a.size() == 1 && a[0].empty()) {
    points.clear();
    a.clear();
  }
  std::vector<SavePoint> add;
  bool valid = a.size() % 2 == 0;
  for (size_t i = 0; valid && i < a.size(); i++) {
    char* end = nullptr;
    const long long v = strtoll(a[i].c_str(), &end, 10);
    valid = *end == '\0' && (i % 2 == 0 ? v >= 1 : v >= 0);
    if (valid && i % 2 == 1) add.push_back({strtoll(a[i - 1].c_str(), nullptr, 10), v});
  }
  if (!valid) {
    *err = "Invalid save parameters";
    return false;
  }
  static bool file_had_save = false;
  if (!g_reading_config_file || !file_had_save) points.clear();
  if (g_reading_config_file) file_had_save = true;
  points.insert(points.end(), add.begin(), add.end());
  return true;
}
std::string get_save(const Directive&) {
  std::string out;
  for (const SavePoint& p : persistence_options().save_points) {
    if (!out.empty()) out += ' ';
    out += std::to_string(p.seconds) + " " + std::to_string(p.changes);
  }
  return out;
}
// One "save <seconds> <changes>" line per point, or save "" so the defaults stay off.
void rewrite_save(const Directive&, std::vector<std::pair<std::string, bool>>* out) {
  const std::vector<SavePoint>& points = persistence_options().save_points;
  if (points.empty()) out->push_back({"save \"\"", true});
  for (const SavePoint& p : points) {
    out->push_back({"save " + std::to_string(p.seconds) + " " + std::to_string(p.changes), true});
  }
}

// appendonly: read from the file before start-up (the server then loads the AOF); CONFIG SET
// switches the AOF on (a rewrite writes the first base, persistence/aof.h) or off.
bool set_appendonly(const Directive&, const Args& args, std::string* err) {
  bool on;
  if (iequals(args[0], "yes")) {
    on = true;
  } else if (iequals(args[0], "no")) {
    on = false;
  } else {
    *err = "argument must be 'yes' or 'no'";
    return false;
  }
  AofOptions& o = aof_options();
  if (!g_reading_config_file && on != o.appendonly) {
    if (on && !aof_start(err, exec_depth() > 1)) return false;
    if (!on) aof_stop();
  }
  o.appendonly = on;
  return true;
}
std::string get_appendonly(const Directive&) { return aof_options().appendonly ? "yes" : "no"; }

constexpr EnumItem kFsync[] = {{"everysec", kAofFsyncEverysec}, {"always", kAofFsyncAlways},
                               {"no", kAofFsyncNo}, {nullptr, 0}};

bool set_dir(const Directive&, const Args& args, std::string* err) {
  if (chdir(args[0].c_str()) == -1) {
    *err = strerror(errno);
    return false;
  }
  return true;
}
std::string get_dir(const Directive&) {
  char buf[4096];
  if (!getcwd(buf, sizeof(buf))) return "";
  return buf;
}
void rewrite_dir(const Directive& d, std::vector<std::pair<std::string, bool>>* out) {
  out->push_back({std::string(d.name) + " " + quote_config_value(get_dir(d)), true});
}

bool set_loglevel(const Directive& d, const Args& args, std::string* err) {
  const EnumItem* e = find_enum(kLogLevels, args[0]);
  if (!e) {
    *err = "argument(s) must be one of the following: " + enum_names(kLogLevels);
    return false;
  }
  (void)d;
  log_options().level = static_cast<LogLevel>(e->value);
  return true;
}
std::string get_loglevel(const Directive&) {
  return kLogLevels[static_cast<int>(log_options().level)].name;
}

bool set_notify(const Directive&, const Args& args, std::string* err) {
  std::optional<uint32_t> f = parse_notify_flags(args[0]);
  if (!f) {
    *err = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
    return false;
  }
  set_notify_flags(*f);
  return true;
}
std::string get_notify(const Directive&) { return format_notify_flags(g_notify.flags); }
void rewrite_quoted(const Directive& d, std::vector<std::pair<std::string, bool>>* out) {
  const std::string v = d.get(d);
  out->push_back({std::string(d.name) + " " + quote_config_value(v), v != d.def});
}

constexpr const char* kObufNames[kObufClasses] = {"normal", "slave", "pubsub"};

bool set_obuf(const Directive&, const Args& args, std::string* err) {
  if (args.size() % 4 != 0) {
    *err = "Wrong number of arguments in buffer limit configuration.";
    return false;
  }
  OutputBufferLimit next[kObufClasses];
  bool seen[kObufClasses] = {};
  for (size_t i = 0; i < args.size(); i += 4) {
    int cls = -1;
    if (iequals(args[i], "normal")) cls = kObufNormal;
    if (iequals(args[i], "slave") || iequals(args[i], "replica")) cls = kObufReplica;
    if (iequals(args[i], "pubsub")) cls = kObufPubSub;
    if (cls < 0) {
      *err = "Invalid client class specified in buffer limit configuration.";
      return false;
    }
    uint64_t hard, soft;
    int64_t secs;
    if (!parse_memory(args[i + 1], &hard) || !parse_memory(args[i + 2], &soft) ||
        !parse_int64(args[i + 3], &secs) || secs < 0) {
      *err = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
      return false;
    }
    next[cls] = {hard, soft, secs};
    seen[cls] = true;
  }
  for (int c = 0; c < kObufClasses; c++) {
    if (seen[c]) server_options().obuf_limits[c] = next[c];
  }
  return true;
}
std::string obuf_text(int c, const OutputBufferLimit& l, bool units) {
  std::string out = kObufNames[c];
  out += ' ';
  out += units ? format_memory(l.hard) : std::to_string(l.hard);
  out += ' ';
  out += units ? format_memory(l.soft) : std::to_string(l.soft);
  out += ' ';
  out += std::to_string(l.soft_seconds);
  return out;
}
std::string get_obuf(const Directive&) {
  std::string out;
  for (int c = 0; c < kObufClasses; c++) {
    if (c) out += ' ';
    out += obuf_text(c, server_options().obuf_limits[c], false);
  }
  return out;
}
void rewrite_obuf(const Directive& d, std::vector<std::pair<std::string, bool>>* out) {
  const ServerOptions defaults;
  for (int c = 0; c < kObufClasses; c++) {
    const OutputBufferLimit& l = server_options().obuf_limits[c];
    const OutputBufferLimit& def = defaults.obuf_limits[c];
    const bool changed =
        l.hard != def.hard || l.soft != def.soft || l.soft_seconds != def.soft_seconds;
    out->push_back({std::string(d.name) + " " + obuf_text(c, l, true), changed});
  }
}

// appendfilename / appenddirname: a name, not a path (Redis's pathIsBaseName check).
bool check_aof_name(const Directive& d, const Args& args, std::string* err) {
  if (args[0].find('/') != std::string::npos) {
    *err = std::string(d.name) + (strcmp(d.name, "appenddirname") == 0 ? " can't be a path, just a dirname"
                                                                     : " can't be a path, just a filename");
    return false;
  }
  return true;
}

bool check_dbfilename(const Directive&, const Args& args, std::string* err) {
  if (args[0].find('/') != std::string::npos) {
    *err = "dbfilename can't be a path, just a filename";
    return false;
  }
  return true;
}

void post_hz() {
  int64_t& hz = server_options().hz;
  if (hz < 1) hz = 1;
  if (hz > 500) hz = 500;
}
// CONFIG SET jemalloc-bg-thread; the start-up value is applied by Server::run. Like Redis, a
// jemalloc without background-thread support is not an error.
bool apply_jemalloc_bg_thread(std::string*) {
  set_allocator_background_thread(server_options().jemalloc_bg_thread);
  return true;
}
void post_prefetch() {
  ServerOptions& o = server_options();
  o.prefetch = o.prefetch_batch_max_size > 0;
}

std::string g_shutdown_on_sigint = "default", g_shutdown_on_sigterm = "default";
constexpr EnumItem kShutdownOnSig[] = {{"default", 0}, {"save", 1}, {"nosave", 2},
                                       {"now", 3},     {"force", 4}, {nullptr, 0}};

// Network, process, limits, logging, crash reports, slowlog, memory.
// latency-tracking-info-percentiles: parsed and checked by commands/latency.cc.
bool set_percentiles(const Directive&, const Args& args, std::string* err) {
  const std::vector<std::string_view> views(args.begin(), args.end());
  return latency_set_percentiles(views, err);
}
std::string get_percentiles(const Directive&) { return latency_percentiles_text(); }

void add_server_directives(std::vector<Directive>* v) {
  v->push_back(sp("bind", kMultiArg, set_bind, get_bind, "127.0.0.1 -::1", nullptr,
                apply_bind));
  {
    Directive d = n("port", nullptr, 0, KEEL_REF(server_options().port), Num::kInt, 0, 65535,
                    "6379");
    d.apply = apply_port;
    v->push_back(d);
  }
  v->push_back(b("protected-mode", nullptr, 0, KEEL_REF(server_options().protected_mode), true));
  {
    Directive d = b("latency-tracking", nullptr, 0, KEEL_REF(latency_options().tracking), true);
    d.post = latency_options_changed;
    v->push_back(d);
  }
  {
    Directive d = n("latency-monitor-threshold", nullptr, 0,
                    KEEL_REF(latency_options().monitor_threshold_ms), Num::kI64, 0, kLongMax, "0");
    d.post = latency_options_changed;
    v->push_back(d);
  }
  v->push_back(sp("latency-tracking-info-percentiles", kMultiArg, set_percentiles, get_percentiles,
                  "50 99 99.9"));
  // These choose DEL or UNLINK in the propagated stream as Redis (commands/dispatch.h,
  // CommandOptions) and, where Keel frees lazily, the lazyfree thread (keyspace/lazyfree.h).
  {
    Directive d = b("lazyfree-lazy-expire", nullptr, 0, KEEL_REF(command_options().lazyfree_lazy_expire), false);
    d.post = [] { g_keyspace_lazyfree.expire = command_options().lazyfree_lazy_expire; };
    v->push_back(d);
  }
  {
    Directive d = b("lazyfree-lazy-server-del", nullptr, 0,
                    KEEL_REF(command_options().lazyfree_lazy_server_del), false);
    d.post = [] { g_keyspace_lazyfree.server_del = command_options().lazyfree_lazy_server_del; };
    v->push_back(d);
  }
  v->push_back(b("lazyfree-lazy-user-del", nullptr, 0, KEEL_REF(command_options().lazyfree_lazy_user_del),
                 false));
  v->push_back(b("lazyfree-lazy-user-flush", nullptr, 0,
                 KEEL_REF(command_options().lazyfree_lazy_user_flush), false));
  // Client-side caching: keys the tracking table may hold (commands/tracking.h); 0 = no limit.
  v->push_back(n("tracking-table-max-keys", nullptr, 0, KEEL_REF(tracking_options().table_max_keys),
               Num::kI64, 0, kLongMax, "1000000"));
  v->push_back(n("timeout", nullptr, 0, KEEL_REF(server_options().timeout), Num::kI64, 0, kIntMax,
               "0"));
  v->push_back(n("tcp-keepalive", nullptr, 0, KEEL_REF(server_options().tcp_keepalive), Num::kI64,
               0, kIntMax, "300"));
  v->push_back(n("tcp-backlog", nullptr, kImmutable, KEEL_REF(server_options().tcp_backlog),
               Num::kI64, 0, kIntMax, "511"));
  v->push_back(b("daemonize", nullptr, kImmutable, KEEL_REF(server_options().daemonize), false));
  v->push_back(s("pidfile", nullptr, kImmutable, KEEL_REF(server_options().pidfile), ""));
  // CPU affinity (base/cpu_affinity.h): applied by each thread or child as it starts.
  v->push_back(s("server_cpulist", nullptr, kImmutable, KEEL_REF(cpu_lists().server), ""));
  v->push_back(s("bio_cpulist", nullptr, kImmutable, KEEL_REF(cpu_lists().bio), ""));
  v->push_back(s("aof_rewrite_cpulist", nullptr, kImmutable, KEEL_REF(cpu_lists().aof_rewrite), ""));
  v->push_back(s("bgsave_cpulist", nullptr, kImmutable, KEEL_REF(cpu_lists().bgsave), ""));
  v->push_back(sp("loglevel", 0, set_loglevel, get_loglevel, "notice"));
  v->push_back(s("logfile", nullptr, kImmutable, KEEL_REF(log_options().file), ""));
  v->push_back(n("databases", nullptr, kImmutable, KEEL_REF(command_options().databases),
               Num::kInt, 1, kIntMax, "16"));
  v->push_back(sp("dir", kProtected, set_dir, get_dir, "", rewrite_dir));
  {
    Directive d = n("hz", nullptr, 0, KEEL_REF(server_options().hz), Num::kI64, 0, kIntMax, "10");
    d.post = post_hz;
    v->push_back(d);
  }
  v->push_back(n("maxclients", nullptr, 0, KEEL_REF(server_options().maxclients), Num::kI64, 1,
               kUIntMax, "10000"));
  {
    // requirepass is the default user's password (commands/acl.h).
    Directive d = s("requirepass", nullptr, kSensitive, KEEL_REF(command_options().requirepass), "");
    d.post = [] { acl_set_requirepass(command_options().requirepass); };
    v->push_back(d);
  }
  v->push_back(n("acllog-max-len", nullptr, 0, KEEL_REF(acl_options().log_max_len), Num::kI64, 0,
               kLongMax, "128"));
  v->push_back(ei("acl-pubsub-default", 0, KEEL_REF(acl_options().pubsub_default), kAclPubsubDefault,
                  "resetchannels"));
  v->push_back(s("aclfile", nullptr, kImmutable, KEEL_REF(acl_options().aclfile), ""));
  v->push_back(sp("notify-keyspace-events", 0, set_notify, get_notify, "", rewrite_quoted));
  v->push_back(n("proto-max-bulk-len", nullptr, kMemory,
               KEEL_REF(protocol_limits().proto_max_bulk_len), Num::kI64, 1 << 20, kLongMax,
               "536870912"));
  v->push_back(n("client-query-buffer-limit", nullptr, kMemory,
               KEEL_REF(protocol_limits().client_query_buffer_limit), Num::kSize, 1 << 20,
               kLongMax, "1073741824"));
  v->push_back(ei("enable-debug-command", kImmutable,
                KEEL_REF(command_options().enable_debug_command), kYesNoLocal, "no"));
  v->push_back(ei("enable-protected-configs", kImmutable,
                KEEL_REF(g_enable_protected_configs), kYesNoLocal, "no"));
  v->push_back(n("slowlog-log-slower-than", nullptr, 0,
               KEEL_REF(command_options().slowlog_log_slower_than), Num::kI64, -1, kLongMax,
               "10000"));
  v->push_back(n("slowlog-max-len", nullptr, 0, KEEL_REF(command_options().slowlog_max_len),
               Num::kI64, 0, kLongMax, "128"));
  // The memory ceiling and eviction (keyspace/evict.h); each change re-derives the LFU flag and
  // the admission gate.
  {
    Directive d = n("maxmemory", nullptr, kMemory | kUnsigned, KEEL_REF(eviction_options().maxmemory),
                    Num::kU64, 0, kLongMax, "0");
    d.post = eviction_options_changed;
    v->push_back(d);
    d = ei("maxmemory-policy", 0, KEEL_REF(eviction_options().policy), kPolicies, "noeviction");
    d.post = eviction_options_changed;
    v->push_back(d);
    d = n("maxmemory-samples", nullptr, 0, KEEL_REF(eviction_options().samples), Num::kI64, 1, kIntMax, "5");
    v->push_back(d);
    d = n("maxmemory-eviction-tenacity", nullptr, 0, KEEL_REF(eviction_options().tenacity), Num::kI64, 0,
          100, "10");
    v->push_back(d);
    d = n("lfu-log-factor", nullptr, 0, KEEL_REF(eviction_options().lfu_log_factor), Num::kI64, 0, kIntMax,
          "10");
    v->push_back(d);
    d = n("lfu-decay-time", nullptr, 0, KEEL_REF(eviction_options().lfu_decay_time), Num::kI64, 0, kIntMax,
          "1");
    v->push_back(d);
    v->push_back(b("lazyfree-lazy-eviction", nullptr, 0, KEEL_REF(eviction_options().lazy_eviction), false));
  }
  // Client eviction (server/server.cc, Server::evict_clients): bytes, or a percentage of
  // maxmemory stored negated.
  v->push_back(n("maxmemory-clients", nullptr, kMemory | kPercent, KEEL_REF(server_options().maxmemory_clients),
                 Num::kI64, -100, kLongMax, "0"));
  {
    // Hidden, as Redis 8 (which has the same directive for its I/O threads) hides it.
    Directive d = n("prefetch-batch-max-size", nullptr, kHidden,
                    KEEL_REF(server_options().prefetch_batch_max_size), Num::kI64, 0, 128, "16");
    d.post = post_prefetch;
    v->push_back(d);
  }
  // Keel's own, hidden: `no` reads and sends with one recv()/send() per client (server/io_batch.h).
  v->push_back(b("io-uring", nullptr, kHidden, KEEL_REF(server_options().io_uring), true));
  v->push_back(sp("client-output-buffer-limit", kMultiArg, set_obuf, get_obuf,
                "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
                rewrite_obuf));
  {
    // Redis installs or removes its fatal-signal handlers when this changes; so does Keel.
    Directive d = b("crash-log-enabled", nullptr, 0, KEEL_REF(crash_options().log_enabled), true);
    d.post = crash_handlers_refresh;
    v->push_back(d);
  }
  v->push_back(b("disable-thp", nullptr, kImmutable, KEEL_REF(server_options().disable_thp), true));
  {
    Directive d = b("jemalloc-bg-thread", nullptr, 0, KEEL_REF(server_options().jemalloc_bg_thread),
                    true);
    d.apply = apply_jemalloc_bg_thread;
    v->push_back(d);
  }
  v->push_back(b("crash-memcheck-enabled", nullptr, 0, KEEL_REF(crash_options().memcheck_enabled),
               true));
  v->push_back(n("busy-reply-threshold", "lua-time-limit", 0,
               KEEL_REF(scripting_options().busy_reply_threshold), Num::kI64, 0, kLongMax, "5000"));
  v->push_back(es("shutdown-on-sigint", 0, KEEL_REF(g_shutdown_on_sigint), kShutdownOnSig,
                "default"));
  v->push_back(es("shutdown-on-sigterm", 0, KEEL_REF(g_shutdown_on_sigterm),
                kShutdownOnSig, "default"));
}

// Encoding thresholds (types/limits.h).
void add_encoding_directives(std::vector<Directive>* v) {
  v->push_back(n("list-max-listpack-size", "list-max-ziplist-size", 0,
               KEEL_REF(encoding_limits().list_max_listpack_size), Num::kI64, kIntMin, kIntMax,
               "-2"));
  v->push_back(n("list-compress-depth", nullptr, 0,
               KEEL_REF(encoding_limits().list_compress_depth), Num::kI64, 0, kIntMax, "0"));
  v->push_back(n("hash-max-listpack-entries", "hash-max-ziplist-entries", 0,
               KEEL_REF(encoding_limits().hash_max_listpack_entries), Num::kI64, 0, kLongMax,
               "512"));
  v->push_back(n("hash-max-listpack-value", "hash-max-ziplist-value", kMemory,
               KEEL_REF(encoding_limits().hash_max_listpack_value), Num::kI64, 0, kLongMax,
               "64"));
  v->push_back(n("set-max-intset-entries", nullptr, 0,
               KEEL_REF(encoding_limits().set_max_intset_entries), Num::kI64, 0, kLongMax,
               "512"));
  v->push_back(n("set-max-listpack-entries", nullptr, 0,
               KEEL_REF(encoding_limits().set_max_listpack_entries), Num::kI64, 0, kLongMax,
               "128"));
  v->push_back(n("set-max-listpack-value", nullptr, kMemory,
               KEEL_REF(encoding_limits().set_max_listpack_value), Num::kI64, 0, kLongMax,
               "64"));
  v->push_back(n("zset-max-listpack-entries", "zset-max-ziplist-entries", 0,
               KEEL_REF(encoding_limits().zset_max_listpack_entries), Num::kI64, 0, kLongMax,
               "128"));
  v->push_back(n("zset-max-listpack-value", "zset-max-ziplist-value", kMemory,
               KEEL_REF(encoding_limits().zset_max_listpack_value), Num::kI64, 0, kLongMax,
               "64"));
  v->push_back(n("stream-node-max-bytes", nullptr, kMemory,
               KEEL_REF(encoding_limits().stream_node_max_bytes), Num::kI64, 0, kLongMax,
               "4096"));
  v->push_back(n("stream-node-max-entries", nullptr, 0,
               KEEL_REF(encoding_limits().stream_node_max_entries), Num::kI64, 0, kLongMax,
               "100"));
  v->push_back(n("hll-sparse-max-bytes", nullptr, kMemory,
               KEEL_REF(encoding_limits().hll_sparse_max_bytes), Num::kI64, 0, kLongMax,
               "3000"));
}

// RDB (persistence/persistence.h) and AOF (persistence/aof.h).
void add_persistence_directives(std::vector<Directive>* v) {
  v->push_back(sp("save", kMultiArg, set_save, get_save, "3600 1 300 100 60 10000", rewrite_save));
  v->push_back(sp("appendonly", 0, set_appendonly, get_appendonly, "no"));
  // The AOF (persistence/aof.h). The names are immutable, as in Redis.
  v->push_back(s("appendfilename", nullptr, kImmutable, KEEL_REF(aof_options().filename),
               "appendonly.aof", check_aof_name));
  v->push_back(s("appenddirname", nullptr, kImmutable, KEEL_REF(aof_options().dirname),
               "appendonlydir", check_aof_name));
  v->push_back(ei("appendfsync", 0, KEEL_REF(aof_options().fsync), kFsync, "everysec"));
  v->push_back(b("no-appendfsync-on-rewrite", nullptr, 0, KEEL_REF(aof_options().no_fsync_on_rewrite),
               false));
  v->push_back(n("auto-aof-rewrite-percentage", nullptr, 0, KEEL_REF(aof_options().auto_rewrite_perc),
               Num::kI64, 0, kIntMax, "100"));
  v->push_back(n("auto-aof-rewrite-min-size", nullptr, kMemory,
               KEEL_REF(aof_options().auto_rewrite_min_size), Num::kI64, 0, kLongMax, "67108864"));
  v->push_back(b("aof-load-truncated", nullptr, 0, KEEL_REF(aof_options().load_truncated), true));
  v->push_back(b("aof-use-rdb-preamble", nullptr, 0, KEEL_REF(aof_options().use_rdb_preamble), true));
  v->push_back(b("aof-timestamp-enabled", nullptr, 0, KEEL_REF(aof_options().timestamp_enabled), false));
  v->push_back(b("aof-rewrite-incremental-fsync", nullptr, 0,
               KEEL_REF(aof_options().rewrite_incremental_fsync), true));
  {
    // Turning the collection back on deletes the history files kept meanwhile (Redis).
    Directive d = b("aof-disable-auto-gc", nullptr, 0, KEEL_REF(aof_options().disable_auto_gc), false);
    d.post = aof_delete_history_files;
    v->push_back(d);
  }
  v->push_back(b("rdbcompression", nullptr, 0, KEEL_REF(persistence_options().rdbcompression), true));
  v->push_back(b("rdbchecksum", nullptr, kImmutable, KEEL_REF(persistence_options().rdbchecksum), true));
  // Keel's own: the RDB version SAVE and DUMP write (10 for Redis 7.0, 11 for 7.2+ and Valkey).
  v->push_back(n("rdb-version", nullptr, 0, KEEL_REF(persistence_options().rdb_version), Num::kInt,
               10, 12, "11"));
  v->push_back(ei("sanitize-dump-payload", 0, KEEL_REF(persistence_options().sanitize_dump_payload), kSanitize,
                "no"));
  v->push_back(s("dbfilename", nullptr, kProtected, KEEL_REF(persistence_options().dbfilename), "dump.rdb",
               check_dbfilename));
  v->push_back(b("rdb-save-incremental-fsync", nullptr, 0,
               KEEL_REF(persistence_options().incremental_fsync), true));
  v->push_back(b("stop-writes-on-bgsave-error", nullptr, 0,
               KEEL_REF(persistence_options().stop_writes_on_bgsave_error), true));
  // Redis's test knob (hidden from CONFIG GET patterns): microseconds slept after each key saved.
  v->push_back(n("rdb-key-save-delay", nullptr, kHidden, KEEL_REF(persistence_options().key_save_delay),
               Num::kInt, kIntMin, kIntMax, "0"));
  // Redis's test knobs for the start-up load (hidden): microseconds slept after each key
  // loaded, and how many bytes are read between two turns of the event loop.
  v->push_back(n("key-load-delay", nullptr, kHidden, KEEL_REF(persistence_options().key_load_delay),
               Num::kInt, kIntMin, kIntMax, "0"));
  v->push_back(n("loading-process-events-interval-bytes", nullptr, kHidden,
               KEEL_REF(persistence_options().loading_events_interval), Num::kI64, 1024, kIntMax,
               "2097152"));
}

}  // namespace

const std::vector<Directive>& table() {
  static const std::vector<Directive> t = [] {
    std::vector<Directive> v;
    add_server_directives(&v);
    add_encoding_directives(&v);
    add_persistence_directives(&v);
    add_repl_directives(&v);
    add_ignored_directives(&v);
    return v;
  }();
  return t;
}

}  // namespace config_detail

void set_relisten_hook(bool (*fn)(std::string* err)) { config_detail::g_relisten = fn; }

}  // namespace keel
