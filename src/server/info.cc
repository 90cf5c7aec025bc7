// INFO: one writer function per section, each reading its layer's statistics; Server::info
// prints the sections asked for, in Redis's order (the kSections table at the end). A new
// section is a function and a row.
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <string>
#include <vector>

#include "base/lazyfree.h"
#include "base/memory.h"
#include "base/time.h"
#include "base/util_random.h"
#include "commands/migrate.h"
#include "commands/acl.h"
#include "commands/blocking.h"
#include "commands/cmd_memory.h"
#include "commands/cmd_scripting.h"
#include "commands/command_table.h"
#include "commands/debug_state.h"
#include "commands/dispatch.h"
#include "commands/latency.h"
#include "commands/pause.h"
#include "commands/tracking.h"
#include "commands/pubsub.h"
#include "keyspace/evict.h"
#include "keyspace/keyspace.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "persistence/rdb_bgsave.h"
#include "scripting/lua_engine.h"
#include "server/config.h"
#include "server/server.h"
#include "server/replication.h"
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

// The sections INFO prints with no argument (and for "default").
constexpr std::string_view kDefaultSections[] = {"server", "clients", "memory", "persistence",
                                                 "stats", "replication", "cpu", "module_list",
                                                 "errorstats", "cluster", "keyspace", "keysizes"};

bool is_default(std::string_view name) {
  for (std::string_view d : kDefaultSections) {
    if (d == name) return true;
  }
  return false;
}

// Section selection as Redis does it: names are case-insensitive; "all" is every section but
// module-generated ones, "everything" is all of them, "default" the default list.
bool wanted(std::span<const std::string_view> sections, std::string_view name) {
  if (sections.empty()) return is_default(name);
  for (std::string_view s : sections) {
    if (equals_nocase(s, name) || equals_nocase(s, "everything") || equals_nocase(s, "all")) return true;
    if (equals_nocase(s, "default") && is_default(name)) return true;
    if (name == "module_list" && equals_nocase(s, "modules")) return true;
  }
  return false;
}

// Redis's bytesToHuman: "123B", "1.50K", "2.00M" ...
std::string human_bytes(uint64_t n) {
  char buf[64];
  const double d = static_cast<double>(n);
  if (n < 1024) {
    snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(n));
  } else if (n < (1ull << 20)) {
    snprintf(buf, sizeof(buf), "%.2fK", d / 1024);
  } else if (n < (1ull << 30)) {
    snprintf(buf, sizeof(buf), "%.2fM", d / (1 << 20));
  } else if (n < (1ull << 40)) {
    snprintf(buf, sizeof(buf), "%.2fG", d / (1ull << 30));
  } else if (n < (1ull << 50)) {
    snprintf(buf, sizeof(buf), "%.2fT", d / (1ull << 40));
  } else {
    snprintf(buf, sizeof(buf), "%.2fP", d / (1ull << 50));
  }
  return buf;
}

// 40 hex characters chosen at start-up (INFO run_id, master_replid).
const std::string& run_id() {
  static const std::string id = [] {
    std::string s;
    const char* hex = "0123456789abcdef";
    for (int i = 0; i < 40; i++) s += hex[random_u64() & 15];
    return s;
  }();
  return id;
}

uint64_t total_system_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

using ull = unsigned long long;
using ll = long long;

void info_server(std::string& out, Server& srv) {
  const ServerOptions& o = server_options();
  const int64_t now = mstime();
  utsname u;
  uname(&u);
  line(out, "redis_version:%s", kRedisCompatVersion);
  line(out, "redis_git_sha1:00000000");
  line(out, "redis_git_dirty:0");
  line(out, "redis_build_id:0");
  line(out, "keel_version:%s", kKeelVersion);
  line(out, "redis_mode:standalone");
  line(out, "os:%s %s %s", u.sysname, u.release, u.machine);
  line(out, "arch_bits:64");
  line(out, "monotonic_clock:POSIX clock_gettime");
  line(out, "multiplexing_api:libuv");
  line(out, "atomicvar_api:c11-builtin");
  line(out, "gcc_version:%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
  line(out, "process_id:%d", int(getpid()));
  line(out, "process_supervised:no");
  line(out, "run_id:%s", run_id().c_str());
  line(out, "tcp_port:%d", o.port);
  line(out, "server_time_usec:%lld", ll(ustime()));
  line(out, "uptime_in_seconds:%lld", ll((now - srv.stats().start_time_ms) / 1000));
  line(out, "uptime_in_days:%lld", ll((now - srv.stats().start_time_ms) / 86400000));
  line(out, "hz:%lld", ll(o.hz));
  line(out, "configured_hz:%lld", ll(o.hz));
  line(out, "lru_clock:%u", g_clock.lru_clock & ((1u << 24) - 1));
  line(out, "executable:%s", executable_path().c_str());
  line(out, "config_file:%s", config().file().c_str());
  line(out, "io_threads_active:0");
  line(out, "listener0:name=tcp,bind=%s,port=%d", o.bind.empty() ? "*" : o.bind[0].c_str(), o.port);
}

void info_clients(std::string& out, Server& srv) {
  const ServerOptions& o = server_options();
  size_t max_in = 0, max_out = 0, pubsub = 0;
  for (auto& [id, c] : srv.clients()) {
    max_in = std::max(max_in, c->query.capacity());
    max_out = std::max(max_out, c->out.size() + c->inflight.size());
    if (c->session.flags & Session::kPubSub) pubsub++;
  }
  line(out, "connected_clients:%zu", srv.clients().size());
  line(out, "cluster_connections:0");
  line(out, "maxclients:%lld", ll(o.maxclients));
  line(out, "client_recent_max_input_buffer:%zu", max_in);
  line(out, "client_recent_max_output_buffer:%zu", max_out);
  line(out, "blocked_clients:%zu", blocking_clients() + pause_held_count());
  line(out, "tracking_clients:%zu", g_tracking_clients);
  line(out, "pubsub_clients:%zu", pubsub);
  line(out, "watching_clients:0");
  line(out, "clients_in_timeout_table:%zu", blocking_clients_with_timeout());
  line(out, "total_watched_keys:0");
  line(out, "total_blocking_keys:%zu", blocking_keys());
  line(out, "total_blocking_keys_on_nokey:0");
}

void info_memory(std::string& out, Server& srv) {
  const EvictionOptions& eo = eviction_options();
  // The figures MEMORY STATS reports too (commands/cmd_memory.h), read once.
  const MemoryOverview m = memory_overview(srv);
  const size_t used = m.used, rss = m.rss, peak = m.peak;
  const uint64_t sysmem = total_system_memory();
  const uint64_t maxmem = eo.maxmemory;
  line(out, "used_memory:%zu", used);
  line(out, "used_memory_human:%s", human_bytes(used).c_str());
  line(out, "used_memory_rss:%zu", rss);
  line(out, "used_memory_rss_human:%s", human_bytes(rss).c_str());
  line(out, "used_memory_peak:%zu", peak);
  line(out, "used_memory_peak_human:%s", human_bytes(peak).c_str());
  line(out, "used_memory_peak_perc:%.2f%%", peak ? 100.0 * double(used) / double(peak) : 0.0);
  const size_t overhead = m.overhead, dataset = m.dataset(), net = m.net();
  line(out, "used_memory_overhead:%zu", overhead);
  line(out, "used_memory_startup:%zu", memory_startup());
  line(out, "used_memory_dataset:%zu", dataset);
  line(out, "used_memory_dataset_perc:%.2f%%", net ? 100.0 * double(dataset) / double(net) : 0.0);
  const AllocatorStats& alloc = m.alloc;
  line(out, "allocator_allocated:%zu", alloc.allocated);
  line(out, "allocator_active:%zu", alloc.active);
  line(out, "allocator_resident:%zu", alloc.resident);
  line(out, "total_system_memory:%llu", ull(sysmem));
  line(out, "total_system_memory_human:%s", human_bytes(sysmem).c_str());
  // The scripting engines, with Redis 7's names and order (used_memory_lua is the old name
  // of used_memory_vm_eval).
  const ScriptingMemory sm = scripting_memory();
  line(out, "used_memory_lua:%zu", sm.vm_eval);
  line(out, "used_memory_vm_eval:%zu", sm.vm_eval);
  line(out, "used_memory_lua_human:%s", human_bytes(sm.vm_eval).c_str());
  line(out, "used_memory_scripts_eval:%zu", sm.scripts_eval);
  line(out, "number_of_cached_scripts:%zu", sm.cached_scripts);
  line(out, "number_of_functions:%zu", sm.function_count);
  line(out, "number_of_libraries:%zu", sm.library_count);
  line(out, "used_memory_vm_functions:%zu", sm.vm_functions);
  line(out, "used_memory_vm_total:%zu", sm.vm_eval + sm.vm_functions);
  line(out, "used_memory_vm_total_human:%s", human_bytes(sm.vm_eval + sm.vm_functions).c_str());
  line(out, "used_memory_functions:%zu", sm.functions);
  line(out, "used_memory_scripts:%zu", sm.scripts_eval + sm.functions);
  line(out, "used_memory_scripts_human:%s", human_bytes(sm.scripts_eval + sm.functions).c_str());
  line(out, "maxmemory:%llu", ull(maxmem));
  line(out, "maxmemory_human:%s", human_bytes(maxmem).c_str());
  static constexpr const char* kPolicyNames[] = {"volatile-lru",   "volatile-lfu", "volatile-random",
                                                 "volatile-ttl",   "allkeys-lru",  "allkeys-lfu",
                                                 "allkeys-random", "noeviction"};
  line(out, "maxmemory_policy:%s", kPolicyNames[eo.policy & 7]);
  auto ratio = [](size_t a, size_t b) { return b ? double(a) / double(b) : 0.0; };
  line(out, "allocator_frag_ratio:%.2f", ratio(alloc.active, alloc.allocated));
  line(out, "allocator_frag_bytes:%lld", ll(alloc.active) - ll(alloc.allocated));
  line(out, "allocator_rss_ratio:%.2f", ratio(alloc.resident, alloc.active));
  line(out, "allocator_rss_bytes:%lld", ll(alloc.resident) - ll(alloc.active));
  line(out, "rss_overhead_ratio:%.2f", ratio(rss, alloc.resident));
  line(out, "rss_overhead_bytes:%lld", ll(rss) - ll(alloc.resident));
  line(out, "mem_fragmentation_ratio:%.2f", used ? double(rss) / double(used) : 0.0);
  line(out, "mem_fragmentation_bytes:%lld", ll(rss) - ll(used));
  // What the maxmemory comparison leaves out (replica output buffers, the AOF buffer).
  line(out, "mem_not_counted_for_evict:%zu", memory_not_counted_for_evict());
  // The buffers apart, with Redis 7's names (Keel's backlog is a ring of its own; the stream
  // waiting for the replicas is their share of the replication buffers).
  const ServerApi::BufferMemory& buffers = m.buffers;
  line(out, "mem_replication_backlog:%zu", buffers.replication_backlog);
  line(out, "mem_total_replication_buffers:%zu", buffers.replication_backlog + buffers.replica_streams);
  line(out, "mem_clients_slaves:%zu", m.replica_clients);
  line(out, "mem_clients_normal:%zu", m.clients - m.replica_clients);
  line(out, "mem_cluster_links:0");
  line(out, "mem_aof_buffer:%zu", buffers.aof_buffer);
  line(out, "mem_allocator:%s", allocator_name());
  line(out, "active_defrag_running:0");
  // What the lazyfree thread (base/lazyfree.h) has queued and has freed: big values, flushed
  // databases, Lua states.
  const LazyfreeStats lazy = lazyfree_stats();
  line(out, "lazyfree_pending_objects:%llu", ull(lazy.pending));
  line(out, "lazyfreed_objects:%llu", ull(dispatch_stats().lazyfreed_objects + lazy.freed));
}

// Redis 7.0's and 7.4's fields, in their order. The current_* fields describe the running
// BGSAVE child (what it last reported through the child-info pipe) and are 0 without one.
void info_persistence(std::string& out, Server&) {
  const PersistenceState& st = persistence_state();
  const int64_t now_s = time(nullptr);
  const uint64_t cow_age_s =
      st.cow_updated_us ? static_cast<uint64_t>((monotonic_us() - st.cow_updated_us) / 1000000) : 0;
  const double fork_perc =
      st.keys_total ? 100.0 * double(st.keys_processed) / double(st.keys_total) : 0.0;
  line(out, "loading:%d", g_clock.loading ? 1 : 0);
  line(out, "async_loading:0");
  line(out, "current_cow_peak:%llu", ull(st.cow_peak));
  line(out, "current_cow_size:%llu", ull(st.cow_size));
  line(out, "current_cow_size_age:%llu", ull(cow_age_s));
  line(out, "current_fork_perc:%.2f", fork_perc);
  line(out, "current_save_keys_processed:%llu", ull(st.keys_processed));
  line(out, "current_save_keys_total:%llu", ull(st.keys_total));
  line(out, "rdb_changes_since_last_save:%llu", ull(keyspace_stats().dirty));
  line(out, "rdb_bgsave_in_progress:%d", rdb_child_active() ? 1 : 0);
  line(out, "rdb_last_save_time:%lld", ll(st.lastsave));
  line(out, "rdb_last_bgsave_status:%s", g_rdb_bgsave_failed ? "err" : "ok");
  line(out, "rdb_last_bgsave_time_sec:%lld", ll(st.last_bgsave_time_sec));
  line(out, "rdb_current_bgsave_time_sec:%lld", ll(rdb_child_active() ? now_s - st.bgsave_start : -1));
  line(out, "rdb_saves:%llu", ull(st.saves));
  line(out, "rdb_last_cow_size:%llu", ull(st.last_cow_size));
  line(out, "rdb_last_load_keys_expired:%llu", ull(st.keys_expired));
  line(out, "rdb_last_load_keys_loaded:%llu", ull(st.keys_loaded));
  const AofState& aof = aof_state();
  const bool aof_on = aof.status != AofStatus::kOff;
  line(out, "aof_enabled:%d", aof_on ? 1 : 0);
  line(out, "aof_rewrite_in_progress:%d", aof_rewrite_active() ? 1 : 0);
  line(out, "aof_rewrite_scheduled:%d", aof.rewrite_scheduled ? 1 : 0);
  line(out, "aof_last_rewrite_time_sec:%lld", ll(aof.last_rewrite_time));
  line(out, "aof_current_rewrite_time_sec:%lld", ll(aof.rewrite_start >= 0 ? now_s - aof.rewrite_start : -1));
  line(out, "aof_last_bgrewrite_status:%s", aof.last_bgrewrite_ok ? "ok" : "err");
  line(out, "aof_rewrites:%llu", ull(aof.rewrites));
  line(out, "aof_rewrites_consecutive_failures:%llu", ull(aof.consecutive_failures));
  line(out, "aof_last_write_status:%s", aof.write_error.empty() ? "ok" : "err");
  line(out, "aof_last_cow_size:%llu", ull(aof.last_cow_size));
  line(out, "module_fork_in_progress:0");
  line(out, "module_fork_last_cow_size:0");
  if (aof_on) {  // Redis shows these only while the AOF is on
    line(out, "aof_current_size:%llu", ull(aof.current_size));
    line(out, "aof_base_size:%llu", ull(aof.base_size));
    line(out, "aof_pending_rewrite:%d", aof.rewrite_scheduled ? 1 : 0);
    line(out, "aof_buffer_length:%zu", aof.buf.size());
    line(out, "aof_pending_bio_fsync:%llu", ull(aof_pending_bio_fsync()));
    line(out, "aof_delayed_fsync:%llu", ull(aof.delayed_fsync));
  }
  if (g_loading_dataset) {
    // The start-up load in progress, Redis 7.0's figures: the ETA extrapolates the rate so
    // far (1 s in the first second).
    const LoadingState& ls = loading_state();
    double perc = 0;
    uint64_t remaining = 1;
    if (ls.total_bytes) {
      perc = 100.0 * double(ls.loaded_bytes) / double(ls.total_bytes);
      remaining = ls.total_bytes > ls.loaded_bytes ? ls.total_bytes - ls.loaded_bytes : 0;
    }
    const int64_t elapsed = now_s - ls.start_time;
    const int64_t eta = elapsed <= 0 ? 1 : static_cast<int64_t>(uint64_t(elapsed) * remaining / (ls.loaded_bytes + 1));
    line(out, "loading_start_time:%lld", ll(ls.start_time));
    line(out, "loading_total_bytes:%llu", ull(ls.total_bytes));
    line(out, "loading_rdb_used_mem:%llu", ull(ls.rdb_used_mem));
    line(out, "loading_loaded_bytes:%llu", ull(ls.loaded_bytes));
    line(out, "loading_loaded_perc:%.2f", perc);
    line(out, "loading_eta_seconds:%lld", ll(eta));
  }
}

void info_stats(std::string& out, Server& srv) {
  const ServerStats& st = srv.stats();
  const KeyspaceStats& ks = keyspace_stats();
  line(out, "total_connections_received:%llu", ull(st.total_connections_received));
  line(out, "total_commands_processed:%llu", ull(dispatch_stats().total_commands_processed));
  line(out, "instantaneous_ops_per_sec:%llu", ull(st.instantaneous_ops()));
  line(out, "total_net_input_bytes:%llu", ull(st.net_input_bytes));
  line(out, "total_net_output_bytes:%llu", ull(st.net_output_bytes));
  line(out, "total_net_repl_input_bytes:%llu", ull(st.net_repl_input_bytes));
  line(out, "total_net_repl_output_bytes:%llu", ull(st.net_repl_output_bytes));
  line(out, "instantaneous_input_kbps:%.2f", double(st.input.per_second()) / 1024);
  line(out, "instantaneous_output_kbps:%.2f", double(st.output.per_second()) / 1024);
  line(out, "instantaneous_input_repl_kbps:%.2f", double(st.repl_input.per_second()) / 1024);
  line(out, "instantaneous_output_repl_kbps:%.2f", double(st.repl_output.per_second()) / 1024);
  line(out, "rejected_connections:%llu", ull(st.rejected_connections));
  const ReplSyncCounts sync = replication_sync_counts();
  line(out, "sync_full:%llu", ull(sync.full));
  line(out, "sync_partial_ok:%llu", ull(sync.partial_ok));
  line(out, "sync_partial_err:%llu", ull(sync.partial_err));
  line(out, "expired_keys:%llu", ull(ks.expired_keys));
  line(out, "expired_subkeys:%llu", ull(ks.expired_subkeys));
  line(out, "expired_stale_perc:%.2f", double(ks.expired_stale_perc));
  line(out, "expired_time_cap_reached_count:%llu", ull(ks.expired_time_cap_reached_count));
  line(out, "expire_cycle_cpu_milliseconds:%llu", ull(ks.expire_cycle_us / 1000));
  line(out, "evicted_keys:%llu", ull(ks.evicted_keys));
  line(out, "evicted_clients:%llu", ull(st.evicted_clients));
  line(out, "total_eviction_exceeded_time:%llu", ull(eviction_total_exceeded_ms()));
  line(out, "current_eviction_exceeded_time:%llu", ull(eviction_current_exceeded_ms()));
  line(out, "keyspace_hits:%llu", ull(ks.keyspace_hits));
  line(out, "keyspace_misses:%llu", ull(ks.keyspace_misses));
  line(out, "pubsub_channels:%zu", pubsub_name_count(PubSubKind::kChannel));
  line(out, "pubsub_patterns:%zu", pubsub_name_count(PubSubKind::kPattern));
  line(out, "pubsubshard_channels:%zu", pubsub_name_count(PubSubKind::kShard));
  line(out, "latest_fork_usec:%lld", ll(persistence_state().latest_fork_usec));
  line(out, "total_forks:%llu", ull(persistence_state().total_forks));
  line(out, "migrate_cached_sockets:%zu", migrate_cached_sockets());
  // Keel has no replica-side expiry of writable replicas' keys, no defragmenter.
  line(out, "slave_expires_tracked_keys:0");
  line(out, "active_defrag_hits:0");
  line(out, "active_defrag_misses:0");
  line(out, "active_defrag_key_hits:0");
  line(out, "active_defrag_key_misses:0");
  line(out, "total_active_defrag_time:0");
  line(out, "current_active_defrag_time:0");
  line(out, "tracking_total_keys:%zu", tracking_total_keys());
  line(out, "tracking_total_items:%zu", tracking_total_items());
  line(out, "tracking_total_prefixes:%zu", tracking_total_prefixes());
  line(out, "unexpected_error_replies:0");
  line(out, "total_error_replies:%llu", ull(error_stats().total));
  line(out, "dump_payload_sanitizations:%llu", ull(persistence_state().dump_payload_sanitizations));
  line(out, "total_reads_processed:%llu", ull(st.reads_processed));
  line(out, "total_writes_processed:%llu", ull(st.writes_processed));
  line(out, "io_threaded_reads_processed:0");  // one thread does all the I/O
  line(out, "io_threaded_writes_processed:0");
  line(out, "client_query_buffer_limit_disconnections:%llu", ull(st.client_query_buffer_limit_disconnections));
  line(out, "client_output_buffer_limit_disconnections:%llu", ull(st.client_output_buffer_limit_disconnections));
  // Redis counts the resizes of its clients' reply buffers that its cron makes; Keel's cron
  // makes none.
  line(out, "reply_buffer_shrinks:0");
  line(out, "reply_buffer_expands:0");
  // Redis 7.2+ (7.0 has none of these).
  const AclDeniedCounts& acl = acl_denied_counts();
  line(out, "acl_access_denied_auth:%llu", ull(acl.auth));
  line(out, "acl_access_denied_cmd:%llu", ull(acl.cmd));
  line(out, "acl_access_denied_key:%llu", ull(acl.key));
  line(out, "acl_access_denied_channel:%llu", ull(acl.channel));
}

void info_replication(std::string& out, Server&) { out += replication_info(); }

void info_cpu(std::string& out, Server&) {
  rusage ru, ch;
  getrusage(RUSAGE_SELF, &ru);
  getrusage(RUSAGE_CHILDREN, &ch);
  line(out, "used_cpu_sys:%ld.%06ld", long(ru.ru_stime.tv_sec), long(ru.ru_stime.tv_usec));
  line(out, "used_cpu_user:%ld.%06ld", long(ru.ru_utime.tv_sec), long(ru.ru_utime.tv_usec));
  line(out, "used_cpu_sys_children:%ld.%06ld", long(ch.ru_stime.tv_sec), long(ch.ru_stime.tv_usec));
  line(out, "used_cpu_user_children:%ld.%06ld", long(ch.ru_utime.tv_sec), long(ch.ru_utime.tv_usec));
  line(out, "used_cpu_sys_main_thread:%ld.%06ld", long(ru.ru_stime.tv_sec), long(ru.ru_stime.tv_usec));
  line(out, "used_cpu_user_main_thread:%ld.%06ld", long(ru.ru_utime.tv_sec), long(ru.ru_utime.tv_usec));
}

void info_module_list(std::string&, Server&) {}

void info_commandstats(std::string& out, Server&) {
  auto emit = [&](auto& self, const CommandSpec& c) -> void {
    const CommandStats& st = *c.stats;
    if (st.calls || st.rejected_calls || st.failed_calls) {
      line(out, "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,failed_calls=%llu",
           c.full_name, ull(st.calls), ull(st.usec), st.calls ? double(st.usec) / double(st.calls) : 0.0,
           ull(st.rejected_calls), ull(st.failed_calls));
    }
    for (const CommandSpec& sub : c.subcommands) self(self, sub);
  };
  for (const CommandSpec* c : all_commands()) emit(emit, *c);
}

void info_errorstats(std::string& out, Server&) {
  // In byte order of the codes, as Redis lists them (its table is a radix tree).
  const ErrorStats& es = error_stats();
  std::vector<const ErrorStats::Code*> codes;
  for (int i = 0; i < es.ncodes; i++) codes.push_back(&es.codes[i]);
  std::sort(codes.begin(), codes.end(),
            [](const ErrorStats::Code* a, const ErrorStats::Code* b) { return strcmp(a->name, b->name) < 0; });
  for (const ErrorStats::Code* c : codes) line(out, "errorstat_%s:count=%llu", c->name, ull(c->count));
}

void info_latencystats(std::string& out, Server&) {
  latency_info_section(out);  // commands/latency.cc
}

void info_cluster(std::string& out, Server&) {
  line(out, "cluster_enabled:0");
}

void info_keyspace(std::string& out, Server&) {
  for (int i = 0; i < keyspace().count(); i++) {
    Db& db = keyspace().db(i);
    if (db.size() == 0) continue;
    line(out, "db%d:keys=%zu,expires=%zu,avg_ttl=%lld,subexpiry=%zu", i, db.size(), db.expires_count(),
         ll(db.avg_ttl()), db.hfe_count());
  }
}

void info_keysizes(std::string& out, Server&) {
  for (int i = 0; i < keyspace().count(); i++) {
    Db& db = keyspace().db(i);
    if (db.size() == 0) continue;
    db.keysizes().append_info(i, out);
  }
}

}  // namespace

std::string Server::info(std::span<const std::string_view> sections) {
  // The sections in Redis's order: name (as INFO selects it), title, writer.
  struct Section {
    const char* name;
    const char* title;
    void (*write)(std::string& out, Server& srv);
  };
  static constexpr Section kSections[] = {
      {"server", "Server", info_server},
      {"clients", "Clients", info_clients},
      {"memory", "Memory", info_memory},
      {"persistence", "Persistence", info_persistence},
      {"stats", "Stats", info_stats},
      {"replication", "Replication", info_replication},
      {"cpu", "CPU", info_cpu},
      {"module_list", "Modules", info_module_list},
      {"commandstats", "Commandstats", info_commandstats},
      {"errorstats", "Errorstats", info_errorstats},
      {"latencystats", "Latencystats", info_latencystats},
      {"cluster", "Cluster", info_cluster},
      {"keyspace", "Keyspace", info_keyspace},
      {"keysizes", "Keysizes", info_keysizes},
  };
  std::string out;
  for (const Section& s : kSections) {
    if (!wanted(sections, s.name)) continue;
    if (!out.empty()) out += "\r\n";
    out += "# ";
    out += s.title;
    out += "\r\n";
    s.write(out, *this);
  }
  return out;
}

}  // namespace keel
