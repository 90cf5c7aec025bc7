// MEMORY: USAGE (what one key costs), STATS (where the server's memory goes), DOCTOR (a
// plain-language reading of STATS), MALLOC-STATS and PURGE (jemalloc's report and arena purge),
// HELP. Sizes come from the allocator (size classes), not from the bytes requested; the
// per-type estimates live in types/ (object_memory_usage).
#include "commands/cmd_memory.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "base/memory.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/server_api.h"
#include "keyspace/keyspace.h"

namespace keel {

MemoryOverview memory_overview(ServerApi& api) {
  MemoryOverview m;
  m.used = used_memory();
  m.peak = memory_peak_update(m.used);
  m.startup = memory_startup();
  m.rss = rss_memory();
  m.clients = api.clients_memory();
  m.buffers = api.buffers_memory();
  m.replica_clients = std::min(m.buffers.replica_clients, m.clients);
  m.nclients = api.client_count();
  m.alloc = allocator_stats();
  for (int i = 0; i < keyspace().count(); i++) {
    const Db& db = keyspace().db(i);
    m.keys += db.size();
    m.db_lut += db.table_memory() + db.expires_memory();
    m.db_rehashing += db.rehashing_memory();
    if (db.rehashing_memory() > 0) m.rehashing_tables++;
  }
  m.overhead = m.startup + m.clients + m.buffers.replication_backlog + m.buffers.aof_buffer +
               m.db_lut + m.keys * Object::kHeaderSize;
  return m;
}

namespace {

constexpr size_t kDefaultSamples = 5;  // Redis's OBJ_COMPUTE_SIZE_DEF_SAMPLES
// The key table's share of a key: the entry pointer in its bucket.
constexpr size_t kKeyTableEntryBytes = sizeof(void*);

// MEMORY USAGE key [SAMPLES count] -> bytes, or null for a missing key. As in Redis the key is
// found without expiring it (a logically expired key still in memory is measured), and
// SAMPLES 0 means every member.
void cmd_memory_usage(CommandContext& cx) {
  size_t samples = kDefaultSamples;
  for (size_t i = 3; i < cx.argc(); i++) {
    if (cx.is_arg(i, "samples") && i + 1 < cx.argc()) {
      int64_t n;
      if (!cx.int_arg(i + 1, &n)) return;
      if (n < 0) return cx.reply().error(kErrSyntax);
      samples = n == 0 ? 0 : static_cast<size_t>(n);
      i++;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  const Object* o = cx.db().peek(cx.key(2));
  if (o == nullptr) return cx.reply().null();
  cx.reply().integer(static_cast<int64_t>(object_memory_usage(o, samples) + kKeyTableEntryBytes));
}

double ratio(size_t a, size_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }
int64_t diff(size_t a, size_t b) { return static_cast<int64_t>(a) - static_cast<int64_t>(b); }

// MEMORY STATS -> a map of Redis's fields (7.4 layout: per-db maps, then the keyspace totals
// and the allocator's figures). Cluster links and the Lua caches are 0 here.
void cmd_memory_stats(CommandContext& cx) {
  const MemoryOverview m = memory_overview(cx.server());
  ReplyWriter& w = cx.reply();
  const size_t token = w.begin_deferred();
  size_t fields = 0;
  auto num = [&](const char* k, int64_t v) {
    w.bulk(k);
    w.integer(v);
    fields++;
  };
  auto dbl = [&](const char* k, double v) {
    w.bulk(k);
    w.dbl(v);
    fields++;
  };
  num("peak.allocated", static_cast<int64_t>(m.peak));
  num("total.allocated", static_cast<int64_t>(m.used));
  num("startup.allocated", static_cast<int64_t>(m.startup));
  num("replication.backlog", static_cast<int64_t>(m.buffers.replication_backlog));
  num("clients.slaves", static_cast<int64_t>(m.replica_clients));
  num("clients.normal", static_cast<int64_t>(m.clients - m.replica_clients));
  num("cluster.links", 0);
  num("aof.buffer", static_cast<int64_t>(m.buffers.aof_buffer));
  num("lua.caches", 0);
  num("functions.caches", 0);
  for (int i = 0; i < keyspace().count(); i++) {
    const Db& db = keyspace().db(i);
    if (db.size() == 0) continue;
    w.bulk("db." + std::to_string(i));
    w.map(2);
    num("overhead.hashtable.main",
        static_cast<int64_t>(db.table_memory() + db.size() * Object::kHeaderSize));
    num("overhead.hashtable.expires", static_cast<int64_t>(db.expires_memory()));
    fields -= 1;  // the two inner fields are one entry of the outer map
  }
  num("overhead.db.hashtable.lut", static_cast<int64_t>(m.db_lut));
  num("overhead.db.hashtable.rehashing", static_cast<int64_t>(m.db_rehashing));
  num("overhead.total", static_cast<int64_t>(m.overhead));
  num("db.dict.rehashing.count", static_cast<int64_t>(m.rehashing_tables));
  num("keys.count", static_cast<int64_t>(m.keys));
  const size_t net = m.net();
  num("keys.bytes-per-key", m.keys ? static_cast<int64_t>(net / m.keys) : 0);
  const size_t dataset = m.dataset();
  num("dataset.bytes", static_cast<int64_t>(dataset));
  dbl("dataset.percentage", 100.0 * ratio(dataset, net));
  dbl("peak.percentage", 100.0 * ratio(m.used, m.peak));
  num("allocator.allocated", static_cast<int64_t>(m.alloc.allocated));
  num("allocator.active", static_cast<int64_t>(m.alloc.active));
  num("allocator.resident", static_cast<int64_t>(m.alloc.resident));
  num("allocator.muzzy", static_cast<int64_t>(m.alloc.muzzy));
  dbl("allocator-fragmentation.ratio", ratio(m.alloc.active, m.alloc.allocated));
  num("allocator-fragmentation.bytes", diff(m.alloc.active, m.alloc.allocated));
  dbl("allocator-rss.ratio", ratio(m.alloc.resident, m.alloc.active));
  num("allocator-rss.bytes", diff(m.alloc.resident, m.alloc.active));
  dbl("rss-overhead.ratio", ratio(m.rss, m.alloc.resident));
  num("rss-overhead.bytes", diff(m.rss, m.alloc.resident));
  dbl("fragmentation", ratio(m.rss, m.used));
  num("fragmentation.bytes", diff(m.rss, m.used));
  w.end_deferred_map(token, fields);
}

// MEMORY DOCTOR: the same checks Redis makes (a nearly empty instance, a peak well above the
// current use, RSS or allocator fragmentation, large client buffers), worded for Keel.
std::string memory_doctor_report(ServerApi& api) {
  const MemoryOverview m = memory_overview(api);
  constexpr size_t kMB = 1024 * 1024;
  if (m.used < 5 * kMB) {
    return "This instance uses less than 5 MB: too little for the memory checks to say "
           "anything useful. Ask again once it holds some data.\n";
  }
  std::string out;
  char buf[512];
  int n = 0;
  if (m.peak > m.used + m.used / 2) {
    snprintf(buf, sizeof(buf),
             "%d. Peak memory: the server once used %.1f MB, %.0f%% more than the %.1f MB it "
             "uses now. Memory freed since then may still be held by the process (see RSS); "
             "the peak matters for sizing maxmemory and the machine.\n",
             ++n, double(m.peak) / kMB, 100.0 * (ratio(m.peak, m.used) - 1.0), double(m.used) / kMB);
    out += buf;
  }
  const double frag = ratio(m.rss, m.used);
  if (frag > 1.4 && m.rss - m.used > 10 * kMB) {
    snprintf(buf, sizeof(buf),
             "%d. Fragmentation: the process holds %.1f MB of RAM for %.1f MB of data (ratio "
             "%.2f). Pages freed inside the allocator are not always returned to the system; "
             "MEMORY PURGE gives back what it can.\n",
             ++n, double(m.rss) / kMB, double(m.used) / kMB, frag);
    out += buf;
  }
  const double afrag = ratio(m.alloc.active, m.alloc.allocated);
  if (afrag > 1.1 && m.alloc.active - m.alloc.allocated > 10 * kMB) {
    snprintf(buf, sizeof(buf),
             "%d. Allocator fragmentation: %.1f MB of partly used pages (ratio %.2f), typical "
             "after many deletions of values of mixed sizes.\n",
             ++n, double(m.alloc.active - m.alloc.allocated) / kMB, afrag);
    out += buf;
  }
  if (m.nclients > 0 && m.clients / m.nclients > 200 * 1024) {
    snprintf(buf, sizeof(buf),
             "%d. Client buffers: %zu connections hold %.1f MB, %.0f KB each on average. Big "
             "pipelines, slow readers of large replies or pub/sub subscribers falling behind "
             "do this; client-output-buffer-limit caps it.\n",
             ++n, m.nclients, double(m.clients) / kMB, double(m.clients) / m.nclients / 1024);
    out += buf;
  }
  if (n == 0) return "No memory problem found: peak, fragmentation and client buffers look normal.\n";
  return "Memory checks found " + std::to_string(n) + " thing(s) to look at:\n\n" + out;
}

void cmd_memory_doctor(CommandContext& cx) { cx.reply().verbatim(memory_doctor_report(cx.server())); }

void cmd_memory_malloc_stats(CommandContext& cx) { cx.reply().verbatim(allocator_report()); }

void cmd_memory_purge(CommandContext& cx) {
  if (!allocator_purge()) return cx.reply().error("ERR Error purging dirty pages");
  cx.reply().ok();
}

void cmd_memory_help(CommandContext& cx) {
  reply_help(cx, "MEMORY",
             {"DOCTOR", "    Return memory problems reports.", "MALLOC-STATS",
              "    Return internal statistics report from the memory allocator.", "PURGE",
              "    Attempt to purge dirty pages for reclamation by the allocator.", "STATS",
              "    Return information about the memory usage of the server.",
              "USAGE <key> [SAMPLES <count>]",
              "    Return memory in bytes used by <key> and its value. Nested values are",
              "    sampled up to <count> times (default: 5, 0 means sample all)."});
}

CommandSpec kMemorySubcommands[] = {
    {.name = "doctor", .handler = cmd_memory_doctor, .arity = 2, .group = "server",
     .summary = "Outputs a memory problems report.", .since = "4.0.0", .complexity = "O(1)",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "help", .handler = cmd_memory_help, .arity = 2, .flags = kLoading | kStale, .group = "server",
     .summary = "Returns helpful text about the different subcommands.", .since = "4.0.0", .complexity = "O(1)"},
    {.name = "malloc-stats", .handler = cmd_memory_malloc_stats, .arity = 2, .group = "server",
     .summary = "Returns the allocator statistics.", .since = "4.0.0", .complexity = "Depends on how much memory is allocated, could be slow",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "purge", .handler = cmd_memory_purge, .arity = 2, .group = "server",
     .summary = "Asks the allocator to release memory.", .since = "4.0.0", .complexity = "Depends on how much memory is allocated, could be slow",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "stats", .handler = cmd_memory_stats, .arity = 2, .group = "server",
     .summary = "Returns details about memory usage.", .since = "4.0.0", .complexity = "O(1)",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "usage", .handler = cmd_memory_usage, .arity = -3, .flags = kReadOnly, .group = "server",
     .summary = "Estimates the memory usage of a key.", .since = "4.0.0", .complexity = "O(N) where N is the number of samples.",
     .keys = {ks(kKsRO, 2)}},
};

CommandSpec kMemoryCommands[] = {
    {.name = "memory", .handler = nullptr, .arity = -2, .group = "server",
     .summary = "A container for memory diagnostics commands.", .since = "4.0.0", .complexity = "Depends on subcommand.",
     .subcommands = kMemorySubcommands},
};

}  // namespace

std::span<CommandSpec> memory_commands() { return kMemoryCommands; }

}  // namespace keel
