// Directives Keel accepts, stores and reports (CONFIG GET, CONFIG REWRITE) so that a Redis
// redis.conf and tools that set them keep working, but does not act on yet (syslog, threads,
// process title ...), and the deprecated names a config file may still hold.
#include <cstdlib>
#include <string>
#include <vector>

#include "server/config_internal.h"

namespace keel {
namespace config_detail {
namespace {
// Storage for accept-and-report directives that no layer reads yet.
struct Misc {
  bool activerehashing = true;
  bool dynamic_hz = true, always_show_logo = false;
  bool set_proc_title = true, syslog_enabled = false;
  bool activedefrag = false;
  bool io_threads_do_reads = false;
  int64_t active_expire_effort = 1, busy_reply_threshold = 5000;
  int64_t acllog_max_len = 128, io_threads = 1;
  int64_t shutdown_timeout = 10;
  int supervised = 0;
  std::string syslog_facility = "local0";
  std::string acl_pubsub_default = "resetchannels";
  std::string aclfile, unixsocket;
  std::string syslog_ident = "redis", ignore_warnings;
  // Present in Debian's stock redis.conf; accepted and reported so that file loads unchanged.
  bool cluster_enabled = false;
  int64_t unixsocketperm = 0;
  std::string oom_score_adj = "no", oom_score_adj_values = "0 200 800";
  std::string proc_title_template = "{title} {listen-addr} {server-mode}";
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
  v->push_back(b("dynamic-hz", nullptr, 0, KEEL_REF(misc().dynamic_hz), true));
  v->push_back(b("always-show-logo", nullptr, kImmutable, KEEL_REF(misc().always_show_logo),
               false));
  v->push_back(b("set-proc-title", nullptr, kImmutable, KEEL_REF(misc().set_proc_title), true));
  v->push_back(b("syslog-enabled", nullptr, kImmutable, KEEL_REF(misc().syslog_enabled), false));
  v->push_back(b("activedefrag", nullptr, 0, KEEL_REF(misc().activedefrag), false));
  v->push_back(b("io-threads-do-reads", nullptr, kImmutable, KEEL_REF(misc().io_threads_do_reads),
               false));
  v->push_back(b("cluster-enabled", nullptr, kImmutable, KEEL_REF(misc().cluster_enabled), false));
}

void add_ignored_numbers(std::vector<Directive>* v) {
  v->push_back(n("active-expire-effort", nullptr, 0, KEEL_REF(misc().active_expire_effort),
               Num::kI64, 1, 10, "1"));
  v->push_back(n("io-threads", nullptr, kImmutable, KEEL_REF(misc().io_threads), Num::kI64, 1, 128,
               "1"));
  v->push_back(n("shutdown-timeout", nullptr, 0, KEEL_REF(misc().shutdown_timeout), Num::kI64, 0,
               kIntMax, "10"));
  v->push_back(n("unixsocketperm", nullptr, kImmutable, KEEL_REF(misc().unixsocketperm),
               Num::kI64, 0, 0777, "0"));
}

// Strings, enums and multi-argument values.
void add_ignored_strings(std::vector<Directive>* v) {
  v->push_back(ei("supervised", kImmutable, KEEL_REF(misc().supervised), kSupervised, "no"));
  v->push_back(es("syslog-facility", kImmutable, KEEL_REF(misc().syslog_facility), kFacility,
                "local0"));
  v->push_back(s("unixsocket", nullptr, kImmutable, KEEL_REF(misc().unixsocket), ""));
  v->push_back(s("syslog-ident", nullptr, kImmutable, KEEL_REF(misc().syslog_ident), "redis"));
  v->push_back(s("ignore-warnings", nullptr, 0, KEEL_REF(misc().ignore_warnings), ""));
  v->push_back(es("oom-score-adj", 0, KEEL_REF(misc().oom_score_adj), kOomAdj, "no"));
  v->push_back(sp("oom-score-adj-values", kMultiArg, set_oom_values, get_oom_values,
                "0 200 800"));
  v->push_back(s("proc-title-template", nullptr, 0, KEEL_REF(misc().proc_title_template),
               "{title} {listen-addr} {server-mode}", check_proc_title));
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

