// INFO: section text assembled from every layer's statistics.
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <algorithm>
#include <string>

#include "base/memory.h"
#include "base/time.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "keyspace/keyspace.h"
#include "server/config.h"
#include "server/server.h"
#include "server/version.h"

namespace keel {
namespace {

void line(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void line(std::string& out, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n > 0) out.append(buf, std::min<size_t>(size_t(n), sizeof(buf) - 1));
  out += "\r\n";
}

bool wanted(std::span<const std::string_view> sections, std::string_view name, bool in_default) {
  if (sections.empty()) return in_default;
  for (std::string_view s : sections) {
    if (equals_nocase(s, name) || equals_nocase(s, "everything")) return true;
    if (equals_nocase(s, "all") && name != "modules") return true;
    if (equals_nocase(s, "default") && in_default) return true;
  }
  return false;
}

}  // namespace

std::string Server::info(std::span<const std::string_view> sections) {
  std::string out;
  auto section = [&](const char* title) {
    if (!out.empty()) out += "\r\n";
    out += "# ";
    out += title;
    out += "\r\n";
  };
  const int64_t now = mstime();
  if (wanted(sections, "server", true)) {
    section("Server");
    utsname u;
    uname(&u);
    line(out, "redis_version:%s", kRedisCompatVersion);
    line(out, "keel_version:%s", kKeelVersion);
    line(out, "redis_mode:standalone");
    line(out, "os:%s %s %s", u.sysname, u.release, u.machine);
    line(out, "arch_bits:64");
    line(out, "multiplexing_api:libuv");
    line(out, "process_id:%d", int(getpid()));
    line(out, "tcp_port:%d", server_options().port);
    line(out, "server_time_usec:%lld", static_cast<long long>(ustime()));
    line(out, "uptime_in_seconds:%lld", static_cast<long long>((now - stats_.start_time_ms) / 1000));
    line(out, "uptime_in_days:%lld", static_cast<long long>((now - stats_.start_time_ms) / 86400000));
    line(out, "hz:%lld", static_cast<long long>(server_options().hz));
    line(out, "configured_hz:%lld", static_cast<long long>(server_options().hz));
    line(out, "executable:%s", executable_path().c_str());
    line(out, "config_file:%s", config().file().c_str());
  }
  if (wanted(sections, "clients", true)) {
    section("Clients");
    line(out, "connected_clients:%zu", clients_.size());
    line(out, "maxclients:%lld", static_cast<long long>(server_options().maxclients));
    line(out, "blocked_clients:0");
  }
  if (wanted(sections, "memory", true)) {
    section("Memory");
    size_t used = used_memory(), rss = rss_memory();
    line(out, "used_memory:%zu", used);
    line(out, "used_memory_rss:%zu", rss);
    line(out, "maxmemory:%lld", static_cast<long long>(server_options().maxmemory));
    line(out, "mem_fragmentation_ratio:%.2f", used ? double(rss) / double(used) : 0.0);
    line(out, "mem_allocator:%s", allocator_name());
  }
  if (wanted(sections, "persistence", true)) {
    section("Persistence");
    line(out, "loading:0");
    line(out, "rdb_changes_since_last_save:%llu", static_cast<unsigned long long>(keyspace_stats().dirty));
    line(out, "rdb_bgsave_in_progress:0");
    line(out, "rdb_last_save_time:%lld", static_cast<long long>(lastsave_));
    line(out, "aof_enabled:0");
  }
  if (wanted(sections, "stats", true)) {
    section("Stats");
    const KeyspaceStats& ks = keyspace_stats();
    line(out, "total_connections_received:%llu", static_cast<unsigned long long>(stats_.total_connections_received));
    line(out, "total_commands_processed:%llu", static_cast<unsigned long long>(dispatch_stats().total_commands_processed));
    line(out, "instantaneous_ops_per_sec:%llu", static_cast<unsigned long long>(stats_.instantaneous_ops()));
    line(out, "total_net_input_bytes:%llu", static_cast<unsigned long long>(stats_.net_input_bytes));
    line(out, "total_net_output_bytes:%llu", static_cast<unsigned long long>(stats_.net_output_bytes));
    line(out, "rejected_connections:%llu", static_cast<unsigned long long>(stats_.rejected_connections));
    line(out, "expired_keys:%llu", static_cast<unsigned long long>(ks.expired_keys));
    line(out, "expired_time_cap_reached_count:%llu", static_cast<unsigned long long>(ks.expired_time_cap_reached_count));
    line(out, "evicted_keys:%llu", static_cast<unsigned long long>(ks.evicted_keys));
    line(out, "keyspace_hits:%llu", static_cast<unsigned long long>(ks.keyspace_hits));
    line(out, "keyspace_misses:%llu", static_cast<unsigned long long>(ks.keyspace_misses));
    line(out, "total_error_replies:%llu", static_cast<unsigned long long>(error_stats().total));
    line(out, "client_query_buffer_limit_disconnections:%llu", static_cast<unsigned long long>(stats_.client_query_buffer_limit_disconnections));
  }
  if (wanted(sections, "replication", true)) {
    section("Replication");
    line(out, "role:master");
    line(out, "connected_slaves:0");
  }
  if (wanted(sections, "cpu", true)) {
    section("CPU");
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    line(out, "used_cpu_sys:%ld.%06ld", long(ru.ru_stime.tv_sec), long(ru.ru_stime.tv_usec));
    line(out, "used_cpu_user:%ld.%06ld", long(ru.ru_utime.tv_sec), long(ru.ru_utime.tv_usec));
  }
  if (wanted(sections, "commandstats", false)) {
    section("Commandstats");
    auto emit = [&](auto& self, const CommandSpec& c) -> void {
      const CommandStats& st = *c.stats;
      if (st.calls || st.rejected_calls || st.failed_calls) {
        line(out, "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,failed_calls=%llu",
             c.full_name, static_cast<unsigned long long>(st.calls), static_cast<unsigned long long>(st.usec),
             st.calls ? double(st.usec) / double(st.calls) : 0.0,
             static_cast<unsigned long long>(st.rejected_calls), static_cast<unsigned long long>(st.failed_calls));
      }
      for (const CommandSpec& sub : c.subcommands) self(self, sub);
    };
    for (const CommandSpec* c : all_commands()) emit(emit, *c);
  }
  if (wanted(sections, "errorstats", true)) {
    section("Errorstats");
    const ErrorStats& es = error_stats();
    for (int i = 0; i < es.ncodes; i++) {
      line(out, "errorstat_%s:count=%llu", es.codes[i].name, static_cast<unsigned long long>(es.codes[i].count));
    }
  }
  if (wanted(sections, "keyspace", true)) {
    section("Keyspace");
    for (int i = 0; i < keyspace().count(); i++) {
      Db& db = keyspace().db(i);
      if (db.size() == 0) continue;
      line(out, "db%d:keys=%zu,expires=%zu,avg_ttl=%lld", i, db.size(), db.expires_count(),
           static_cast<long long>(db.avg_ttl()));
    }
  }
  if (wanted(sections, "keysizes", true)) {
    section("Keysizes");
    for (int i = 0; i < keyspace().count(); i++) {
      Db& db = keyspace().db(i);
      if (db.size() == 0) continue;
      db.keysizes().append_info(i, out);
    }
  }
  return out;
}

}  // namespace keel
