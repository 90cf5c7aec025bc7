// The directive table and everything that reads or writes it: redis.conf / command-line loading
// with Redis's fatal start-up errors, CONFIG GET (glob over names and aliases), CONFIG SET
// (validate all, set all, apply once, roll back on failure) and CONFIG REWRITE (in-place update
// of the file that keeps comments and line order). Not here: the CONFIG command rows
// (commands/cmd_config.cc) and what each option does once set (its owning layer).
#include "server/config.h"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <limits>
#include <optional>

#include "base/crash.h"
#include "base/glob.h"
#include "base/log.h"
#include "base/numbers.h"
#include "commands/dispatch.h"
#include "commands/latency.h"
#include "keyspace/notify.h"
#include "persistence/persistence.h"
#include "protocol/resp_parser.h"
#include "scripting/lua_engine.h"
#include "server/version.h"
#include "types/limits.h"

namespace keel {

ServerOptions& server_options() {
  static ServerOptions o;
  return o;
}

Config& config() {
  static Config c;
  return c;
}

namespace {

// ---- The table --------------------------------------------------------------------------------

enum DirectiveFlag : uint32_t {
  kImmutable = 1u << 0,  // start-up only: CONFIG SET says "can't set immutable config"
  kProtected = 1u << 1,  // CONFIG SET only with enable-protected-configs yes/local
  kSensitive = 1u << 2,  // a secret (kept out of logs)
  kMultiArg = 1u << 3,   // takes any number of arguments (CONFIG SET splits the value on ' ')
  kMemory = 1u << 4,     // numeric with memory units (1mb, 2gb ...)
  kUnsigned = 1u << 5,   // numeric stored as uint64 (upper bound UINT64_MAX)
};

enum class Kind : uint8_t { kBool, kNum, kEnumInt, kEnumStr, kString, kSpecial };
enum class Num : uint8_t { kInt, kI64, kU64, kSize };

struct EnumItem {
  const char* name;
  int value;
};

struct Directive;
using Args = std::vector<std::string>;
using SetFn = bool (*)(const Directive&, const Args&, std::string* err);
using GetFn = std::string (*)(const Directive&);
using ApplyFn = bool (*)(std::string* err);
// (line, force): force = write the line even when the file has no line for this directive.
using RewriteFn = void (*)(const Directive&, std::vector<std::pair<std::string, bool>>* out);

struct Directive {
  const char* name;
  const char* alias = nullptr;
  Kind kind = Kind::kSpecial;
  uint32_t flags = 0;
  void* (*target)() = nullptr;     // where the value lives (per kind: bool*, int*, std::string*...)
  Num num = Num::kI64;
  int64_t min = 0, max = 0;
  const EnumItem* items = nullptr;  // null-name terminated
  const char* def = "";             // the default as CONFIG GET prints it (rewrite "force" test)
  SetFn set = nullptr;              // kSpecial, or a validity check for the generic kinds
  GetFn get = nullptr;              // kSpecial
  ApplyFn apply = nullptr;          // CONFIG SET only: run once after every value is set
  RewriteFn rewrite = nullptr;      // kSpecial lines; null = "name <get value>"
  void (*post)() = nullptr;         // after a successful generic set (clamping, derived flags)
};

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kIntMin = std::numeric_limits<int>::min();
constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kUIntMax = std::numeric_limits<uint32_t>::max();

// Storage for accept-and-report directives that no layer reads yet.
struct Misc {
  bool activerehashing = true, lazyfree_eviction = false, lazyfree_expire = false;
  bool lazyfree_server_del = false, lazyfree_user_del = false, lazyfree_user_flush = false;
  bool replica_lazy_flush = false, stop_writes_on_bgsave_error = true;
  bool rdb_del_sync_files = false, dynamic_hz = true, always_show_logo = false;
  bool set_proc_title = true, syslog_enabled = false;
  bool jemalloc_bg_thread = true, activedefrag = false, latency_tracking = true;
  bool aof_load_truncated = true, aof_use_rdb_preamble = true, aof_timestamp = false;
  bool no_appendfsync_on_rewrite = false, replica_serve_stale = true, replica_read_only = true;
  bool repl_diskless_sync = true, io_threads_do_reads = false;
  int64_t eviction_tenacity = 10, lfu_log_factor = 10, lfu_decay_time = 1;
  int64_t active_expire_effort = 1, latency_monitor_threshold = 0, busy_reply_threshold = 5000;
  int64_t tracking_table_max_keys = 1000000, acllog_max_len = 128, io_threads = 1;
  int64_t repl_backlog_size = 1 << 20, repl_timeout = 60, repl_diskless_sync_delay = 5;
  int64_t replica_priority = 100, min_replicas_to_write = 0, min_replicas_max_lag = 10;
  int64_t auto_aof_rewrite_percentage = 100, auto_aof_rewrite_min_size = 64 << 20;
  int64_t shutdown_timeout = 10;
  int enable_protected_configs = 0, supervised = 0;
  std::string appendfsync = "everysec", syslog_facility = "local0";
  std::string repl_diskless_load = "disabled", acl_pubsub_default = "resetchannels";
  std::string appendfilename = "appendonly.aof";
  std::string appenddirname = "appendonlydir", masterauth, masteruser, aclfile, unixsocket;
  std::string syslog_ident = "redis", replica_announce_ip, ignore_warnings;
  // Present in Debian's stock redis.conf; accepted and reported so that file loads unchanged.
  bool aof_rewrite_incremental_fsync = true, disable_thp = true;
  bool repl_disable_tcp_nodelay = false, replica_announced = true, cluster_enabled = false;
  int64_t repl_diskless_sync_max_replicas = 0, maxmemory_clients = 0, unixsocketperm = 0;
  std::string oom_score_adj = "no", oom_score_adj_values = "0 200 800";
  std::string proc_title_template = "{title} {listen-addr} {server-mode}";
  std::string latency_tracking_info_percentiles = "50 99 99.9";
  std::string shutdown_on_sigint = "default", shutdown_on_sigterm = "default";
};
Misc& misc() {
  static Misc m;
  return m;
}

constexpr EnumItem kYesNoLocal[] = {{"no", 0}, {"yes", 1}, {"local", 2}, {nullptr, 0}};
constexpr EnumItem kPolicies[] = {{"volatile-lru", 0},   {"volatile-lfu", 1}, {"volatile-random", 2},
                                  {"volatile-ttl", 3},   {"allkeys-lru", 4},  {"allkeys-lfu", 5},
                                  {"allkeys-random", 6}, {"noeviction", 7},   {nullptr, 0}};
constexpr EnumItem kLogLevels[] = {{"debug", 0},   {"verbose", 1}, {"notice", 2},
                                   {"warning", 3}, {"nothing", 4}, {nullptr, 0}};
constexpr EnumItem kFsync[] = {{"everysec", 0}, {"always", 1}, {"no", 2}, {nullptr, 0}};
constexpr EnumItem kSupervised[] = {
    {"upstart", 1}, {"systemd", 2}, {"auto", 3}, {"no", 0}, {nullptr, 0}};
constexpr EnumItem kFacility[] = {{"user", 0},   {"local0", 1}, {"local1", 2}, {"local2", 3},
                                  {"local3", 4}, {"local4", 5}, {"local5", 6}, {"local6", 7},
                                  {"local7", 8}, {nullptr, 0}};
constexpr EnumItem kSanitize[] = {{"no", 0}, {"yes", 1}, {"clients", 2}, {nullptr, 0}};
constexpr EnumItem kDisklessLoad[] = {
    {"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}, {nullptr, 0}};
constexpr EnumItem kOomAdj[] = {
    {"no", 0}, {"yes", 1}, {"relative", 2}, {"absolute", 3}, {nullptr, 0}};
constexpr EnumItem kShutdownOnSig[] = {{"default", 0}, {"save", 1}, {"nosave", 2},
                                       {"now", 3},     {"force", 4}, {nullptr, 0}};
constexpr EnumItem kPubsubDefault[] = {{"allchannels", 1}, {"resetchannels", 0}, {nullptr, 0}};

#define KEEL_REF(expr) []() -> void* { return static_cast<void*>(&(expr)); }

Directive b(const char* name, const char* alias, uint32_t flags, void* (*t)(), bool def) {
  Directive d{name};
  d.alias = alias, d.kind = Kind::kBool, d.flags = flags, d.target = t, d.def = def ? "yes" : "no";
  return d;
}
Directive n(const char* name, const char* alias, uint32_t flags, void* (*t)(), Num num,
            int64_t min, int64_t max, const char* def) {
  Directive d{name};
  d.alias = alias, d.kind = Kind::kNum, d.flags = flags, d.target = t, d.num = num;
  d.min = min, d.max = max, d.def = def;
  return d;
}
Directive ei(const char* name, uint32_t flags, void* (*t)(), const EnumItem* items,
             const char* def) {
  Directive d{name};
  d.kind = Kind::kEnumInt, d.flags = flags, d.target = t, d.items = items, d.def = def;
  return d;
}
Directive es(const char* name, uint32_t flags, void* (*t)(), const EnumItem* items,
             const char* def) {
  Directive d{name};
  d.kind = Kind::kEnumStr, d.flags = flags, d.target = t, d.items = items, d.def = def;
  return d;
}
Directive s(const char* name, const char* alias, uint32_t flags, void* (*t)(), const char* def,
            SetFn check = nullptr) {
  Directive d{name};
  d.alias = alias, d.kind = Kind::kString, d.flags = flags, d.target = t, d.def = def;
  d.set = check;
  return d;
}
Directive sp(const char* name, uint32_t flags, SetFn set, GetFn get, const char* def,
             RewriteFn rw = nullptr, ApplyFn apply = nullptr) {
  Directive d{name};
  d.kind = Kind::kSpecial, d.flags = flags, d.set = set, d.get = get, d.def = def;
  d.rewrite = rw, d.apply = apply;
  return d;
}

// ---- Value helpers --------------------------------------------------------------------------

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (tolower(static_cast<unsigned char>(a[i])) != tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return out;
}

// CONFIG REWRITE's memory form: the largest of gb/mb/kb that divides the value, else bytes.
std::string format_memory(uint64_t v) {
  constexpr uint64_t kKb = 1024, kMb = kKb * 1024, kGb = kMb * 1024;
  if (v && v % kGb == 0) return std::to_string(v / kGb) + "gb";
  if (v && v % kMb == 0) return std::to_string(v / kMb) + "mb";
  if (v && v % kKb == 0) return std::to_string(v / kKb) + "kb";
  return std::to_string(v);
}

int64_t read_num(const Directive& d) {
  void* p = d.target();
  switch (d.num) {
    case Num::kInt: return *static_cast<int*>(p);
    case Num::kI64: return *static_cast<int64_t*>(p);
    case Num::kU64: return static_cast<int64_t>(*static_cast<uint64_t*>(p));
    case Num::kSize: return static_cast<int64_t>(*static_cast<size_t*>(p));
  }
  return 0;
}

void write_num(const Directive& d, int64_t v) {
  void* p = d.target();
  switch (d.num) {
    case Num::kInt: *static_cast<int*>(p) = static_cast<int>(v); break;
    case Num::kI64: *static_cast<int64_t*>(p) = v; break;
    case Num::kU64: *static_cast<uint64_t*>(p) = static_cast<uint64_t>(v); break;
    case Num::kSize: *static_cast<size_t*>(p) = static_cast<size_t>(v); break;
  }
}

std::string enum_names(const EnumItem* items) {
  std::string out;
  for (const EnumItem* e = items; e->name; e++) {
    if (!out.empty()) out += ", ";
    out += e->name;
  }
  return out;
}

const EnumItem* find_enum(const EnumItem* items, std::string_view v) {
  for (const EnumItem* e = items; e->name; e++) {
    if (iequals(e->name, v)) return e;
  }
  return nullptr;
}

std::string get_value(const Directive& d) {
  switch (d.kind) {
    case Kind::kBool: return *static_cast<bool*>(d.target()) ? "yes" : "no";
    case Kind::kNum:
      if (d.flags & kUnsigned) return std::to_string(*static_cast<uint64_t*>(d.target()));
      return std::to_string(read_num(d));
    case Kind::kEnumInt: {
      const int v = *static_cast<int*>(d.target());
      for (const EnumItem* e = d.items; e->name; e++) {
        if (e->value == v) return e->name;
      }
      return "unknown";
    }
    case Kind::kEnumStr:
    case Kind::kString: return *static_cast<std::string*>(d.target());
    case Kind::kSpecial: return d.get(d);
  }
  return {};
}

// Sets one directive from its arguments (already split). False with *err on a bad value; the
// stored value is then unchanged.
bool set_value(const Directive& d, const Args& args, std::string* err) {
  if (d.kind == Kind::kSpecial) return d.set(d, args, err);
  const std::string& v = args[0];
  switch (d.kind) {
    case Kind::kBool: {
      bool val;
      if (iequals(v, "yes")) {
        val = true;
      } else if (iequals(v, "no")) {
        val = false;
      } else {
        *err = "argument must be 'yes' or 'no'";
        return false;
      }
      if (d.set && !d.set(d, args, err)) return false;
      *static_cast<bool*>(d.target()) = val;
      break;
    }
    case Kind::kNum: {
      int64_t val = 0;
      if (d.flags & kMemory) {
        uint64_t u;
        if (!parse_memory(v, &u)) {
          *err = "argument must be a memory value";
          return false;
        }
        val = static_cast<int64_t>(u);
        if (d.flags & kUnsigned) {
          *static_cast<uint64_t*>(d.target()) = u;
          break;
        }
      } else if (!parse_int64(v, &val)) {
        *err = "argument couldn't be parsed into an integer";
        return false;
      }
      if (val < d.min || val > d.max) {
        *err = "argument must be between " + std::to_string(d.min) + " and " +
               std::to_string(d.max) + " inclusive";
        return false;
      }
      write_num(d, val);
      break;
    }
    case Kind::kEnumInt:
    case Kind::kEnumStr: {
      const EnumItem* e = find_enum(d.items, v);
      if (!e) {
        *err = "argument(s) must be one of the following: " + enum_names(d.items);
        return false;
      }
      if (d.kind == Kind::kEnumInt) {
        *static_cast<int*>(d.target()) = e->value;
      } else {
        *static_cast<std::string*>(d.target()) = e->name;
      }
      break;
    }
    case Kind::kString:
      if (d.set && !d.set(d, args, err)) return false;
      *static_cast<std::string*>(d.target()) = v;
      break;
    case Kind::kSpecial: break;
  }
  if (d.post) d.post();
  return true;
}

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
bool g_reading_config_file = false;
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
// latency-tracking-info-percentiles: parsed and checked by commands/latency.cc.
bool set_percentiles(const Directive&, const Args& args, std::string* err) {
  const std::vector<std::string_view> views(args.begin(), args.end());
  return latency_set_percentiles(views, err);
}
std::string get_percentiles(const Directive&) { return latency_percentiles_text(); }
// One "save <seconds> <changes>" line per point, or save "" so the defaults stay off.
void rewrite_save(const Directive&, std::vector<std::pair<std::string, bool>>* out) {
  const std::vector<SavePoint>& points = persistence_options().save_points;
  if (points.empty()) out->push_back({"save \"\"", true});
  for (const SavePoint& p : points) {
    out->push_back({"save " + std::to_string(p.seconds) + " " + std::to_string(p.changes), true});
  }
}

bool set_appendonly(const Directive&, const Args& args, std::string* err) {
  if (iequals(args[0], "no")) {
    server_options().appendonly = false;
    return true;
  }
  *err = iequals(args[0], "yes")
             ? "AOF is not supported: persistence is not implemented yet (use appendonly no)"
             : "argument must be 'yes' or 'no'";
  return false;
}
std::string get_appendonly(const Directive&) { return server_options().appendonly ? "yes" : "no"; }

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
void post_prefetch() {
  ServerOptions& o = server_options();
  o.prefetch = o.prefetch_batch_max_size > 0;
}

const std::vector<Directive>& table() {
  static const std::vector<Directive> t = [] {
    std::vector<Directive> v;
    ServerOptions& so = server_options();
    (void)so;
    // Network and process.
    v.push_back(sp("bind", kMultiArg, set_bind, get_bind, "127.0.0.1 -::1", nullptr,
                   apply_bind));
    {
      Directive d = n("port", nullptr, 0, KEEL_REF(server_options().port), Num::kInt, 0, 65535,
                      "6379");
      d.apply = apply_port;
      v.push_back(d);
    }
    v.push_back(b("protected-mode", nullptr, 0, KEEL_REF(server_options().protected_mode), true));
    v.push_back(n("timeout", nullptr, 0, KEEL_REF(server_options().timeout), Num::kI64, 0, kIntMax,
                  "0"));
    v.push_back(n("tcp-keepalive", nullptr, 0, KEEL_REF(server_options().tcp_keepalive), Num::kI64,
                  0, kIntMax, "300"));
    v.push_back(n("tcp-backlog", nullptr, kImmutable, KEEL_REF(server_options().tcp_backlog),
                  Num::kI64, 0, kIntMax, "511"));
    v.push_back(b("daemonize", nullptr, kImmutable, KEEL_REF(server_options().daemonize), false));
    v.push_back(s("pidfile", nullptr, kImmutable, KEEL_REF(server_options().pidfile), ""));
    v.push_back(sp("loglevel", 0, set_loglevel, get_loglevel, "notice"));
    v.push_back(s("logfile", nullptr, kImmutable, KEEL_REF(log_options().file), ""));
    v.push_back(n("databases", nullptr, kImmutable, KEEL_REF(command_options().databases),
                  Num::kInt, 1, kIntMax, "16"));
    v.push_back(sp("dir", kProtected, set_dir, get_dir, "", rewrite_dir));
    {
      Directive d = n("hz", nullptr, 0, KEEL_REF(server_options().hz), Num::kI64, 0, kIntMax, "10");
      d.post = post_hz;
      v.push_back(d);
    }
    v.push_back(n("maxclients", nullptr, 0, KEEL_REF(server_options().maxclients), Num::kI64, 1,
                  kUIntMax, "10000"));
    v.push_back(s("requirepass", nullptr, kSensitive, KEEL_REF(command_options().requirepass), ""));
    v.push_back(sp("notify-keyspace-events", 0, set_notify, get_notify, "", rewrite_quoted));
    v.push_back(n("proto-max-bulk-len", nullptr, kMemory,
                  KEEL_REF(protocol_limits().proto_max_bulk_len), Num::kI64, 1 << 20, kLongMax,
                  "536870912"));
    v.push_back(n("client-query-buffer-limit", nullptr, kMemory,
                  KEEL_REF(protocol_limits().client_query_buffer_limit), Num::kSize, 1 << 20,
                  kLongMax, "1073741824"));
    v.push_back(ei("enable-debug-command", kImmutable,
                   KEEL_REF(command_options().enable_debug_command), kYesNoLocal, "no"));
    v.push_back(ei("enable-protected-configs", kImmutable,
                   KEEL_REF(misc().enable_protected_configs), kYesNoLocal, "no"));
    v.push_back(n("slowlog-log-slower-than", nullptr, 0,
                  KEEL_REF(command_options().slowlog_log_slower_than), Num::kI64, -1, kLongMax,
                  "10000"));
    v.push_back(n("slowlog-max-len", nullptr, 0, KEEL_REF(command_options().slowlog_max_len),
                  Num::kI64, 0, kLongMax, "128"));
    v.push_back(n("maxmemory", nullptr, kMemory | kUnsigned, KEEL_REF(server_options().maxmemory),
                  Num::kU64, 0, kLongMax, "0"));
    v.push_back(es("maxmemory-policy", 0, KEEL_REF(server_options().maxmemory_policy), kPolicies,
                   "noeviction"));
    v.push_back(n("maxmemory-samples", nullptr, 0, KEEL_REF(server_options().maxmemory_samples),
                  Num::kI64, 1, kIntMax, "5"));
    {
      Directive d = n("prefetch-batch-max-size", nullptr, 0,
                      KEEL_REF(server_options().prefetch_batch_max_size), Num::kI64, 0, 128, "16");
      d.post = post_prefetch;
      v.push_back(d);
    }
    v.push_back(sp("save", kMultiArg, set_save, get_save, "3600 1 300 100 60 10000", rewrite_save));
    v.push_back(sp("appendonly", 0, set_appendonly, get_appendonly, "no"));
    v.push_back(sp("client-output-buffer-limit", kMultiArg, set_obuf, get_obuf,
                   "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
                   rewrite_obuf));
    // Encoding thresholds (types/limits.h).
    EncodingLimits& el = encoding_limits();
    (void)el;
    v.push_back(n("list-max-listpack-size", "list-max-ziplist-size", 0,
                  KEEL_REF(encoding_limits().list_max_listpack_size), Num::kI64, kIntMin, kIntMax,
                  "-2"));
    v.push_back(n("list-compress-depth", nullptr, 0,
                  KEEL_REF(encoding_limits().list_compress_depth), Num::kI64, 0, kIntMax, "0"));
    v.push_back(n("hash-max-listpack-entries", "hash-max-ziplist-entries", 0,
                  KEEL_REF(encoding_limits().hash_max_listpack_entries), Num::kI64, 0, kLongMax,
                  "512"));
    v.push_back(n("hash-max-listpack-value", "hash-max-ziplist-value", kMemory,
                  KEEL_REF(encoding_limits().hash_max_listpack_value), Num::kI64, 0, kLongMax,
                  "64"));
    v.push_back(n("set-max-intset-entries", nullptr, 0,
                  KEEL_REF(encoding_limits().set_max_intset_entries), Num::kI64, 0, kLongMax,
                  "512"));
    v.push_back(n("set-max-listpack-entries", nullptr, 0,
                  KEEL_REF(encoding_limits().set_max_listpack_entries), Num::kI64, 0, kLongMax,
                  "128"));
    v.push_back(n("set-max-listpack-value", nullptr, kMemory,
                  KEEL_REF(encoding_limits().set_max_listpack_value), Num::kI64, 0, kLongMax,
                  "64"));
    v.push_back(n("zset-max-listpack-entries", "zset-max-ziplist-entries", 0,
                  KEEL_REF(encoding_limits().zset_max_listpack_entries), Num::kI64, 0, kLongMax,
                  "128"));
    v.push_back(n("zset-max-listpack-value", "zset-max-ziplist-value", kMemory,
                  KEEL_REF(encoding_limits().zset_max_listpack_value), Num::kI64, 0, kLongMax,
                  "64"));
    v.push_back(n("stream-node-max-bytes", nullptr, kMemory,
                  KEEL_REF(encoding_limits().stream_node_max_bytes), Num::kI64, 0, kLongMax,
                  "4096"));
    v.push_back(n("stream-node-max-entries", nullptr, 0,
                  KEEL_REF(encoding_limits().stream_node_max_entries), Num::kI64, 0, kLongMax,
                  "100"));
    v.push_back(n("hll-sparse-max-bytes", nullptr, kMemory,
                  KEEL_REF(encoding_limits().hll_sparse_max_bytes), Num::kI64, 0, kLongMax,
                  "3000"));
    // Accepted and reported; no behaviour behind them yet.
    v.push_back(b("activerehashing", nullptr, 0, KEEL_REF(misc().activerehashing), true));
    v.push_back(b("lazyfree-lazy-eviction", nullptr, 0, KEEL_REF(misc().lazyfree_eviction), false));
    v.push_back(b("lazyfree-lazy-expire", nullptr, 0, KEEL_REF(misc().lazyfree_expire), false));
    v.push_back(b("lazyfree-lazy-server-del", nullptr, 0, KEEL_REF(misc().lazyfree_server_del),
                  false));
    v.push_back(b("lazyfree-lazy-user-del", nullptr, 0, KEEL_REF(misc().lazyfree_user_del), false));
    v.push_back(b("lazyfree-lazy-user-flush", nullptr, 0, KEEL_REF(misc().lazyfree_user_flush),
                  false));
    v.push_back(b("replica-lazy-flush", "slave-lazy-flush", 0, KEEL_REF(misc().replica_lazy_flush),
                  false));
    v.push_back(b("stop-writes-on-bgsave-error", nullptr, 0,
                  KEEL_REF(misc().stop_writes_on_bgsave_error), true));
    v.push_back(b("rdbcompression", nullptr, 0, KEEL_REF(persistence_options().rdbcompression), true));
    v.push_back(b("rdbchecksum", nullptr, kImmutable, KEEL_REF(persistence_options().rdbchecksum), true));
    // Keel's own: the RDB version SAVE and DUMP write (10 for Redis 7.0, 11 for 7.2+ and Valkey).
    v.push_back(n("rdb-version", nullptr, 0, KEEL_REF(persistence_options().rdb_version), Num::kInt,
                  10, 12, "11"));
    v.push_back(b("rdb-del-sync-files", nullptr, 0, KEEL_REF(misc().rdb_del_sync_files), false));
    v.push_back(b("dynamic-hz", nullptr, 0, KEEL_REF(misc().dynamic_hz), true));
    v.push_back(b("always-show-logo", nullptr, kImmutable, KEEL_REF(misc().always_show_logo),
                  false));
    v.push_back(b("set-proc-title", nullptr, kImmutable, KEEL_REF(misc().set_proc_title), true));
    v.push_back(b("syslog-enabled", nullptr, kImmutable, KEEL_REF(misc().syslog_enabled), false));
    {
      // Redis installs or removes its fatal-signal handlers when this changes; so does Keel.
      Directive d = b("crash-log-enabled", nullptr, 0, KEEL_REF(crash_options().log_enabled), true);
      d.post = crash_handlers_refresh;
      v.push_back(d);
    }
    v.push_back(b("crash-memcheck-enabled", nullptr, 0, KEEL_REF(crash_options().memcheck_enabled),
                  true));
    v.push_back(b("jemalloc-bg-thread", nullptr, 0, KEEL_REF(misc().jemalloc_bg_thread), true));
    v.push_back(b("activedefrag", nullptr, 0, KEEL_REF(misc().activedefrag), false));
    {
      Directive d = b("latency-tracking", nullptr, 0, KEEL_REF(latency_options().tracking), true);
      d.post = latency_options_changed;
      v.push_back(d);
    }
    v.push_back(b("aof-load-truncated", nullptr, 0, KEEL_REF(misc().aof_load_truncated), true));
    v.push_back(b("aof-use-rdb-preamble", nullptr, 0, KEEL_REF(misc().aof_use_rdb_preamble), true));
    v.push_back(b("aof-timestamp-enabled", nullptr, 0, KEEL_REF(misc().aof_timestamp), false));
    v.push_back(b("no-appendfsync-on-rewrite", nullptr, 0,
                  KEEL_REF(misc().no_appendfsync_on_rewrite), false));
    v.push_back(b("replica-serve-stale-data", "slave-serve-stale-data", 0,
                  KEEL_REF(misc().replica_serve_stale), true));
    v.push_back(b("replica-read-only", "slave-read-only", 0, KEEL_REF(misc().replica_read_only),
                  true));
    v.push_back(b("repl-diskless-sync", nullptr, 0, KEEL_REF(misc().repl_diskless_sync), true));
    v.push_back(b("io-threads-do-reads", nullptr, kImmutable, KEEL_REF(misc().io_threads_do_reads),
                  false));
    v.push_back(n("maxmemory-eviction-tenacity", nullptr, 0, KEEL_REF(misc().eviction_tenacity),
                  Num::kI64, 0, 100, "10"));
    v.push_back(n("lfu-log-factor", nullptr, 0, KEEL_REF(misc().lfu_log_factor), Num::kI64, 0,
                  kIntMax, "10"));
    v.push_back(n("lfu-decay-time", nullptr, 0, KEEL_REF(misc().lfu_decay_time), Num::kI64, 0,
                  kIntMax, "1"));
    v.push_back(n("active-expire-effort", nullptr, 0, KEEL_REF(misc().active_expire_effort),
                  Num::kI64, 1, 10, "1"));
    {
      Directive d = n("latency-monitor-threshold", nullptr, 0,
                      KEEL_REF(latency_options().monitor_threshold_ms), Num::kI64, 0, kLongMax, "0");
      d.post = latency_options_changed;
      v.push_back(d);
    }
    v.push_back(n("busy-reply-threshold", "lua-time-limit", 0,
                  KEEL_REF(scripting_options().busy_reply_threshold), Num::kI64, 0, kLongMax, "5000"));
    v.push_back(n("tracking-table-max-keys", nullptr, 0, KEEL_REF(misc().tracking_table_max_keys),
                  Num::kI64, 0, kLongMax, "1000000"));
    v.push_back(n("acllog-max-len", nullptr, 0, KEEL_REF(misc().acllog_max_len), Num::kI64, 0,
                  kLongMax, "128"));
    v.push_back(n("io-threads", nullptr, kImmutable, KEEL_REF(misc().io_threads), Num::kI64, 1, 128,
                  "1"));
    v.push_back(n("repl-backlog-size", nullptr, kMemory, KEEL_REF(misc().repl_backlog_size),
                  Num::kI64, 1, kLongMax, "1048576"));
    v.push_back(n("repl-timeout", nullptr, 0, KEEL_REF(misc().repl_timeout), Num::kI64, 1, kIntMax,
                  "60"));
    v.push_back(n("repl-diskless-sync-delay", nullptr, 0,
                  KEEL_REF(misc().repl_diskless_sync_delay), Num::kI64, 0, kIntMax, "5"));
    v.push_back(n("replica-priority", "slave-priority", 0, KEEL_REF(misc().replica_priority),
                  Num::kI64, 0, kIntMax, "100"));
    v.push_back(n("min-replicas-to-write", "min-slaves-to-write", 0,
                  KEEL_REF(misc().min_replicas_to_write), Num::kI64, 0, kIntMax, "0"));
    v.push_back(n("min-replicas-max-lag", "min-slaves-max-lag", 0,
                  KEEL_REF(misc().min_replicas_max_lag), Num::kI64, 0, kIntMax, "10"));
    v.push_back(n("auto-aof-rewrite-percentage", nullptr, 0,
                  KEEL_REF(misc().auto_aof_rewrite_percentage), Num::kI64, 0, kIntMax, "100"));
    v.push_back(n("auto-aof-rewrite-min-size", nullptr, kMemory,
                  KEEL_REF(misc().auto_aof_rewrite_min_size), Num::kI64, 0, kLongMax, "67108864"));
    v.push_back(n("shutdown-timeout", nullptr, 0, KEEL_REF(misc().shutdown_timeout), Num::kI64, 0,
                  kIntMax, "10"));
    v.push_back(es("appendfsync", 0, KEEL_REF(misc().appendfsync), kFsync, "everysec"));
    v.push_back(ei("supervised", kImmutable, KEEL_REF(misc().supervised), kSupervised, "no"));
    v.push_back(es("syslog-facility", kImmutable, KEEL_REF(misc().syslog_facility), kFacility,
                   "local0"));
    v.push_back(ei("sanitize-dump-payload", 0, KEEL_REF(persistence_options().sanitize_dump_payload), kSanitize,
                   "no"));
    v.push_back(es("repl-diskless-load", 0, KEEL_REF(misc().repl_diskless_load), kDisklessLoad,
                   "disabled"));
    v.push_back(es("acl-pubsub-default", 0, KEEL_REF(misc().acl_pubsub_default), kPubsubDefault,
                   "resetchannels"));
    v.push_back(s("dbfilename", nullptr, kProtected, KEEL_REF(persistence_options().dbfilename), "dump.rdb",
                  check_dbfilename));
    v.push_back(s("appendfilename", nullptr, kImmutable, KEEL_REF(misc().appendfilename),
                  "appendonly.aof"));
    v.push_back(s("appenddirname", nullptr, kImmutable, KEEL_REF(misc().appenddirname),
                  "appendonlydir"));
    v.push_back(s("masterauth", nullptr, kSensitive, KEEL_REF(misc().masterauth), ""));
    v.push_back(s("masteruser", nullptr, 0, KEEL_REF(misc().masteruser), ""));
    v.push_back(s("aclfile", nullptr, kImmutable, KEEL_REF(misc().aclfile), ""));
    v.push_back(s("unixsocket", nullptr, kImmutable, KEEL_REF(misc().unixsocket), ""));
    v.push_back(s("syslog-ident", nullptr, kImmutable, KEEL_REF(misc().syslog_ident), "redis"));
    v.push_back(s("replica-announce-ip", "slave-announce-ip", 0,
                  KEEL_REF(misc().replica_announce_ip), ""));
    v.push_back(s("ignore-warnings", nullptr, 0, KEEL_REF(misc().ignore_warnings), ""));
    v.push_back(b("aof-rewrite-incremental-fsync", nullptr, 0,
                  KEEL_REF(misc().aof_rewrite_incremental_fsync), true));
    v.push_back(b("rdb-save-incremental-fsync", nullptr, 0,
                  KEEL_REF(persistence_options().incremental_fsync), true));
    v.push_back(b("disable-thp", nullptr, kImmutable, KEEL_REF(misc().disable_thp), true));
    v.push_back(b("repl-disable-tcp-nodelay", nullptr, 0,
                  KEEL_REF(misc().repl_disable_tcp_nodelay), false));
    v.push_back(b("replica-announced", nullptr, 0, KEEL_REF(misc().replica_announced), true));
    v.push_back(b("cluster-enabled", nullptr, kImmutable, KEEL_REF(misc().cluster_enabled), false));
    v.push_back(n("repl-diskless-sync-max-replicas", nullptr, 0,
                  KEEL_REF(misc().repl_diskless_sync_max_replicas), Num::kI64, 0, kIntMax, "0"));
    v.push_back(n("maxmemory-clients", nullptr, kMemory, KEEL_REF(misc().maxmemory_clients),
                  Num::kI64, 0, kLongMax, "0"));
    v.push_back(n("unixsocketperm", nullptr, kImmutable, KEEL_REF(misc().unixsocketperm),
                  Num::kI64, 0, 0777, "0"));
    v.push_back(es("oom-score-adj", 0, KEEL_REF(misc().oom_score_adj), kOomAdj, "no"));
    v.push_back(sp("oom-score-adj-values", kMultiArg, set_oom_values, get_oom_values,
                   "0 200 800"));
    v.push_back(s("proc-title-template", nullptr, kImmutable,
                  KEEL_REF(misc().proc_title_template), "{title} {listen-addr} {server-mode}"));
    v.push_back(sp("latency-tracking-info-percentiles", kMultiArg, set_percentiles,
                   get_percentiles, "50 99 99.9"));
    v.push_back(es("shutdown-on-sigint", 0, KEEL_REF(misc().shutdown_on_sigint), kShutdownOnSig,
                   "default"));
    v.push_back(es("shutdown-on-sigterm", 0, KEEL_REF(misc().shutdown_on_sigterm),
                   kShutdownOnSig, "default"));
    return v;
  }();
  return t;
}

#undef KEEL_REF

const Directive* lookup(std::string_view name) {
  for (const Directive& d : table()) {
    if (iequals(d.name, name) || (d.alias && iequals(d.alias, name))) return &d;
  }
  return nullptr;
}

// Directives accepted in a file for compatibility and ignored (name, exact argc with the name).
bool deprecated_directive(std::string_view name, size_t argc) {
  return argc == 2 && (name == "list-max-ziplist-entries" || name == "list-max-ziplist-value" ||
                       name == "lua-replicate-commands");
}

// The lines of one directive as CONFIG REWRITE writes them, each with its "force" bit.
void rewrite_lines(const Directive& d, std::vector<std::pair<std::string, bool>>* out) {
  if (d.rewrite) return d.rewrite(d, out);
  const std::string v = get_value(d);
  const bool force = v != d.def;
  std::string text;
  switch (d.kind) {
    case Kind::kNum:
      if (d.flags & kMemory) {
        text = format_memory(d.flags & kUnsigned ? *static_cast<uint64_t*>(d.target())
                                                 : static_cast<uint64_t>(read_num(d)));
      } else {
        text = v;
      }
      break;
    case Kind::kString: text = quote_config_value(v); break;
    default: text = v; break;
  }
  out->push_back({std::string(d.name) + " " + text, force});
}

bool read_whole_file(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "r");
  if (!f) return false;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out->append(buf, n);
  fclose(f);
  return true;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  if (text.empty()) return lines;
  size_t start = 0;
  for (;;) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string trim(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
}

void fatal_config_error(int linenum, const std::string& line, const std::string& err) {
  fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (Keel %s) ***\n", kKeelVersion);
  if (linenum > 0) {
    fprintf(stderr, "Reading the configuration file, at line %d\n", linenum);
    fprintf(stderr, ">>> '%s'\n", line.c_str());
  }
  fprintf(stderr, "%s\n", err.c_str());
  fflush(stderr);
}

bool load_text(const std::string& text, int depth);

// `include path`: a glob pattern includes every match (none is fine); a plain path must open.
bool include_file(const std::string& path, int depth) {
  if (depth > 16) {
    fatal_config_error(0, "", "Too many nested include directives");
    return false;
  }
  std::vector<std::string> files;
  if (path.find_first_of("*?[") != std::string::npos) {
    glob_t g;
    if (glob(path.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++) files.push_back(g.gl_pathv[i]);
      globfree(&g);
    }
  } else {
    files.push_back(path);
  }
  for (const std::string& f : files) {
    std::string text;
    if (!read_whole_file(f, &text)) {
      log_raw(LogLevel::kWarning, "Fatal error, can't open config file '%s': %s", f.c_str(),
              strerror(errno));
      return false;
    }
    if (!load_text(text, depth + 1)) return false;
  }
  return true;
}

bool load_text(const std::string& text, int depth) {
  const std::vector<std::string> lines = split_lines(text);
  std::vector<std::string> argv;
  for (size_t i = 0; i < lines.size(); i++) {
    const int linenum = static_cast<int>(i) + 1;
    const std::string line = trim(lines[i]);
    if (line.empty() || line[0] == '#') continue;
    if (!split_config_line(line, &argv)) {
      fatal_config_error(linenum, line, "Unbalanced quotes in configuration line");
      return false;
    }
    if (argv.empty()) continue;
    argv[0] = lower(argv[0]);
    if (const Directive* d = lookup(argv[0])) {
      if (!(d->flags & kMultiArg) && argv.size() != 2) {
        fatal_config_error(linenum, line, "wrong number of arguments");
        return false;
      }
      std::string err;
      if (!set_value(*d, Args(argv.begin() + 1, argv.end()), &err)) {
        fatal_config_error(linenum, line, err);
        return false;
      }
      continue;
    }
    if (deprecated_directive(argv[0], argv.size())) continue;
    if (argv[0] == "include" && argv.size() == 2) {
      if (!include_file(argv[1], depth)) return false;
      continue;
    }
    fatal_config_error(linenum, line, "Bad directive or wrong number of arguments");
    return false;
  }
  return true;
}

bool is_glob(std::string_view p) { return p.find_first_of("[*?") != std::string_view::npos; }

}  // namespace

void set_relisten_hook(bool (*fn)(std::string* err)) { g_relisten = fn; }

// ---- Parsing helpers --------------------------------------------------------------------------

bool parse_memory(std::string_view s, uint64_t* out) {
  if (!s.empty() && s[0] == '-') return false;
  size_t digits = 0;
  while (digits < s.size() && isdigit(static_cast<unsigned char>(s[digits]))) digits++;
  const std::string_view unit = s.substr(digits);
  uint64_t mul;
  if (unit.empty() || iequals(unit, "b")) {
    mul = 1;
  } else if (iequals(unit, "k")) {
    mul = 1000;
  } else if (iequals(unit, "kb")) {
    mul = 1024;
  } else if (iequals(unit, "m")) {
    mul = 1000 * 1000;
  } else if (iequals(unit, "mb")) {
    mul = 1024 * 1024;
  } else if (iequals(unit, "g")) {
    mul = 1000ull * 1000 * 1000;
  } else if (iequals(unit, "gb")) {
    mul = 1024ull * 1024 * 1024;
  } else {
    return false;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < digits; i++) {
    const uint64_t dgt = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - dgt) / 10) return false;
    v = v * 10 + dgt;
  }
  if (v > UINT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

bool split_config_line(std::string_view line, std::vector<std::string>* out) {
  out->clear();
  size_t i = 0;
  const size_t n = line.size();
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (;;) {
    while (i < n && isspace(static_cast<unsigned char>(line[i]))) i++;
    if (i >= n) return true;
    std::string cur;
    bool inq = false, insq = false, done = false;
    while (!done) {
      if (inq) {
        if (i >= n) return false;  // unterminated "
        if (line[i] == '\\' && i + 3 < n && line[i + 1] == 'x' && hex(line[i + 2]) >= 0 &&
            hex(line[i + 3]) >= 0) {
          cur += static_cast<char>(hex(line[i + 2]) * 16 + hex(line[i + 3]));
          i += 3;
        } else if (line[i] == '\\' && i + 1 < n) {
          i++;
          switch (line[i]) {
            case 'n': cur += '\n'; break;
            case 'r': cur += '\r'; break;
            case 't': cur += '\t'; break;
            case 'b': cur += '\b'; break;
            case 'a': cur += '\a'; break;
            default: cur += line[i]; break;
          }
        } else if (line[i] == '"') {
          // The closing quote must be followed by a space or the end of the line.
          if (i + 1 < n && !isspace(static_cast<unsigned char>(line[i + 1]))) return false;
          done = true;
        } else {
          cur += line[i];
        }
      } else if (insq) {
        if (i >= n) return false;
        if (line[i] == '\\' && i + 1 < n && line[i + 1] == '\'') {
          i++;
          cur += '\'';
        } else if (line[i] == '\'') {
          if (i + 1 < n && !isspace(static_cast<unsigned char>(line[i + 1]))) return false;
          done = true;
        } else {
          cur += line[i];
        }
      } else {
        if (i >= n) break;
        switch (line[i]) {
          case ' ': case '\n': case '\r': case '\t': case '\0': done = true; break;
          case '"': inq = true; break;
          case '\'': insq = true; break;
          default: cur += line[i]; break;
        }
      }
      if (i < n) i++;
    }
    out->push_back(std::move(cur));
  }
}

std::string quote_config_value(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      default:
        if (isprint(c)) {
          out += static_cast<char>(c);
        } else {
          char buf[8];
          snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        }
    }
  }
  out += '"';
  return out;
}

// ---- Config -----------------------------------------------------------------------------------

bool Config::load(const std::string& path, bool from_stdin, const std::string& options) {
  std::string text;
  if (!path.empty()) {
    if (path[0] == '/') {
      file_ = path;
    } else {
      char cwd[4096];
      file_ = getcwd(cwd, sizeof(cwd)) ? std::string(cwd) + "/" + path : path;
    }
    if (!read_whole_file(path, &text)) {
      log_raw(LogLevel::kWarning, "Fatal error, can't open config file '%s': %s", path.c_str(),
              strerror(errno));
      return false;
    }
  }
  if (from_stdin) {
    LOG_WARNING("Reading config from stdin");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) text.append(buf, n);
  }
  if (!options.empty()) {
    text += '\n';
    text += options;
  }
  g_reading_config_file = true;
  const bool loaded = load_text(text, 0);
  g_reading_config_file = false;
  if (!loaded) return false;
  if (!log_options().file.empty()) {
    // Fail now rather than lose the log later, as Redis does.
    FILE* f = fopen(log_options().file.c_str(), "a");
    if (!f) {
      fatal_config_error(0, "", std::string("Can't open the log file: ") + strerror(errno));
      return false;
    }
    fclose(f);
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> Config::get(
    std::span<const std::string_view> patterns) {
  std::vector<std::pair<std::string, std::string>> out;
  auto seen = [&](std::string_view name) {
    for (const auto& [k, v] : out) {
      if (iequals(k, name)) return true;
    }
    return false;
  };
  for (std::string_view p : patterns) {
    if (!is_glob(p)) {
      // A literal name is looked up directly and reported as the client spelled it.
      if (seen(p)) continue;
      if (const Directive* d = lookup(p)) out.emplace_back(std::string(p), get_value(*d));
      continue;
    }
    for (const Directive& d : table()) {
      for (const char* name : {d.name, d.alias}) {
        if (!name || seen(name) || !glob_match(p, name, true)) continue;
        out.emplace_back(name, get_value(d));
      }
    }
  }
  return out;
}

std::string Config::set(std::span<const std::string_view> pairs) {
  if (pairs.size() % 2 != 0) return "ERR syntax error";
  const size_t count = pairs.size() / 2;
  std::vector<const Directive*> dirs(count, nullptr);
  // 1. Resolve every name; the first problem in argument order (unknown name, immutable or
  // protected directive, a directive given twice) is the one reported, before any value is read.
  for (size_t i = 0; i < count; i++) {
    std::string_view name = pairs[2 * i];
    const Directive* d = lookup(name);
    if (!d) {
      return "ERR Unknown option or number of arguments for CONFIG SET - '" + std::string(name) +
             "'";
    }
    const char* problem = nullptr;
    if (d->flags & kImmutable) {
      problem = "can't set immutable config";
    } else if ((d->flags & kProtected) && misc().enable_protected_configs == 0) {
      problem = "can't set protected config";
    } else {
      // Redis registers an alias as its own table entry, so only the same name given twice is
      // a duplicate ("hash-max-ziplist-entries 4 hash-max-listpack-entries 4" is accepted).
      for (size_t j = 0; j < i && !problem; j++) {
        if (iequals(pairs[2 * j], name)) problem = "duplicate parameter";
      }
    }
    if (problem) {
      return "ERR CONFIG SET failed (possibly related to argument '" + std::string(name) +
             "') - " + problem;
    }
    dirs[i] = d;
  }

  // 2. Back up, then set every value; a bad value restores what was set so far.
  std::vector<std::string> old(count);
  for (size_t i = 0; i < count; i++) old[i] = get_value(*dirs[i]);
  auto args_of = [](const Directive& d, std::string_view value) {
    Args a;
    if (!(d.flags & kMultiArg)) {
      a.emplace_back(value);
      return a;
    }
    if (value.empty()) return a;
    size_t start = 0;
    for (;;) {
      size_t sp = value.find(' ', start);
      a.emplace_back(value.substr(start, sp == std::string_view::npos ? sp : sp - start));
      if (sp == std::string_view::npos) break;
      start = sp + 1;
    }
    return a;
  };
  auto restore = [&](size_t upto) {
    for (size_t j = 0; j < upto; j++) {
      std::string e;
      if (!set_value(*dirs[j], args_of(*dirs[j], old[j]), &e)) {
        LOG_WARNING("Failed restoring failed CONFIG SET command. Error setting %s to '%s': %s",
                    dirs[j]->name, old[j].c_str(), e.c_str());
      }
    }
  };
  for (size_t i = 0; i < count; i++) {
    std::string e;
    if (!set_value(*dirs[i], args_of(*dirs[i], pairs[2 * i + 1]), &e)) {
      restore(i + 1);
      // Redis names the table entry that matched: an alias ("zset-max-ziplist-value") when the
      // alias was given. Names are matched without case and registered in lower case.
      std::string given(pairs[2 * i]);
      for (char& ch : given) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
      return "ERR CONFIG SET failed (possibly related to argument '" + given + "') - " + e;
    }
  }
  // 3. Apply once per distinct apply function; a failure restores every value and re-applies.
  std::vector<std::pair<ApplyFn, size_t>> applies;
  for (size_t i = 0; i < count; i++) {
    if (!dirs[i]->apply) continue;
    bool dup = false;
    for (auto& [fn, idx] : applies) dup |= fn == dirs[i]->apply;
    if (!dup) applies.emplace_back(dirs[i]->apply, i);
  }
  for (auto& [fn, idx] : applies) {
    std::string e;
    if (!fn(&e)) {
      LOG_WARNING(
          "Failed applying new configuration. Possibly related to new %s setting. Restoring "
          "previous settings.",
          dirs[idx]->name);
      restore(count);
      for (auto& [fn2, idx2] : applies) {
        std::string e2;
        if (!fn2(&e2)) LOG_WARNING("Failed applying restored failed CONFIG SET command: %s", e2.c_str());
      }
      return "ERR CONFIG SET failed (possibly related to argument '" +
             std::string(dirs[idx]->name) + "') - " + e;
    }
  }
  return "";
}

std::string Config::rewrite() {
  if (file_.empty()) return "ERR The server is running without a config file";
  static const std::string kSignature = "# Generated by CONFIG REWRITE";
  std::string text;
  if (!read_whole_file(file_, &text) && errno != ENOENT) {
    return std::string("ERR Rewriting config file: ") + strerror(errno);
  }
  // Old lines, with the line numbers of each directive (canonical name) still to be rewritten.
  std::vector<std::string> lines;
  std::vector<std::pair<const Directive*, std::vector<size_t>>> where;
  bool needs_signature = true;
  std::vector<std::string> argv;
  for (const std::string& raw : split_lines(text)) {
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') {
      if (line == kSignature) needs_signature = false;
      lines.push_back(line);
      continue;
    }
    const Directive* d = nullptr;
    if (split_config_line(line, &argv) && !argv.empty()) d = lookup(argv[0]);
    if (!d) {
      // include, deprecated directives and anything else we do not manage stay as they are.
      lines.push_back(line);
      continue;
    }
    auto it = std::find_if(where.begin(), where.end(), [&](auto& w) { return w.first == d; });
    if (it == where.end()) {
      where.push_back({d, {}});
      it = where.end() - 1;
    }
    it->second.push_back(lines.size());
    lines.push_back(line);
  }
  std::vector<std::pair<std::string, bool>> out;
  for (const Directive& d : table()) {
    out.clear();
    rewrite_lines(d, &out);
    auto it = std::find_if(where.begin(), where.end(), [&](auto& w) { return w.first == &d; });
    size_t used = 0;
    for (const auto& [line, force] : out) {
      if (it != where.end() && used < it->second.size()) {
        lines[it->second[used++]] = line;  // update in place
      } else if (force) {
        if (needs_signature) {
          lines.push_back(kSignature);
          needs_signature = false;
        }
        lines.push_back(line);
      }
    }
    if (it != where.end()) {
      for (; used < it->second.size(); used++) lines[it->second[used]].clear();  // orphans
    }
  }
  // Runs of blank lines collapse into one, as Redis writes them.
  std::string content;
  bool was_empty = false;
  for (const std::string& l : lines) {
    if (l.empty()) {
      if (was_empty) continue;
      was_empty = true;
    } else {
      was_empty = false;
    }
    content += l;
    content += '\n';
  }
  // Write a temporary file next to the old one and rename it over, so a crash never leaves a
  // half-written config.
  std::string tmp = file_ + ".tmp-XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd == -1) return std::string("ERR Rewriting config file: ") + strerror(errno);
  size_t off = 0;
  while (off < content.size()) {
    ssize_t w = write(fd, content.data() + off, content.size() - off);
    if (w <= 0) {
      const int saved = errno;
      close(fd);
      unlink(tmp.c_str());
      return std::string("ERR Rewriting config file: ") + strerror(saved);
    }
    off += static_cast<size_t>(w);
  }
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0644 & ~mask);
  fsync(fd);
  close(fd);
  if (rename(tmp.c_str(), file_.c_str()) == -1) {
    const int saved = errno;
    unlink(tmp.c_str());
    return std::string("ERR Rewriting config file: ") + strerror(saved);
  }
  LOG_NOTICE("CONFIG REWRITE executed with success.");
  return "";
}

}  // namespace keel
