// Configuration: the directive table (Redis names, aliases and defaults), redis.conf and
// command-line parsing with Redis's start-up error format, and CONFIG GET/SET/REWRITE. Each
// directive writes into the options struct of the layer that owns it (ProtocolLimits,
// CommandOptions, EncodingLimits, ServerOptions, LogOptions, the notify flags ...). The files
// behind it are listed in config_internal.h; the CONFIG command rows are in commands/cmd_config.cc.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/assert.h"

namespace keel {

// client-output-buffer-limit <class> <hard> <soft> <soft-seconds>, one per class.
struct OutputBufferLimit {
  uint64_t hard = 0;           // bytes; 0 = no limit
  uint64_t soft = 0;           // bytes; 0 = no limit
  int64_t soft_seconds = 0;
};
enum OutputBufferClass { kObufNormal = 0, kObufReplica = 1, kObufPubSub = 2, kObufClasses = 3 };

// Options owned by the server layer itself.
struct ServerOptions {
  std::vector<std::string> bind = {"127.0.0.1", "-::1"};
  int port = 6379;
  bool protected_mode = true;
  int64_t timeout = 0;          // seconds; 0 = never close idle clients
  int64_t tcp_keepalive = 300;  // seconds
  int64_t tcp_backlog = 511;
  bool daemonize = false;
  std::string pidfile;          // "" = none (daemonize yes then uses /var/run/redis.pid)
  std::string dir;              // unused: `dir` is the process cwd (chdir at load and CONFIG SET)
  int64_t hz = 10;              // 1..500 after clamping
  int64_t maxclients = 10000;
  bool prefetch = true;         // batch key prefetch (prefetch-batch-max-size > 0)
  bool io_uring = true;         // a loop iteration's socket I/O in io_uring calls (server/io_batch.h)
  bool disable_thp = true;      // key tables do not ask for huge pages (Server::run applies it)
  bool jemalloc_bg_thread = true;
  int64_t prefetch_batch_max_size = 16;
  int64_t maxmemory_clients = 0;  // maxmemory-clients: bytes, or -percent of maxmemory; 0 = off
  OutputBufferLimit obuf_limits[kObufClasses] = {
      {0, 0, 0}, {256ull << 20, 64ull << 20, 60}, {32ull << 20, 8ull << 20, 60}};
};
// The options, built on first use (no start-up order between translation units). Called on
// every loop iteration, so the accessor is inline: one load and a branch once built.
inline constinit ServerOptions* g_server_options = nullptr;
ServerOptions& server_options_slow();
inline ServerOptions& server_options() {
  if (KEEL_LIKELY(g_server_options != nullptr)) return *g_server_options;
  return server_options_slow();
}

class Config {
 public:
  // Loads the configuration: the file at `path` (empty = none), then standard input when
  // `from_stdin`, then `options` (the command-line directives as redis.conf text, one per line),
  // exactly as one text. On error prints Redis's FATAL CONFIG FILE ERROR block (or the "can't
  // open config file" log line) to stderr and returns false; the caller exits with status 1.
  bool load(const std::string& path, bool from_stdin, const std::string& options);
  // Absolute path of the config file, "" when started without one (INFO, CONFIG REWRITE).
  const std::string& file() const { return file_; }

  // CONFIG GET: (name, value) for every directive matching any pattern (glob, case-insensitive;
  // aliases match too). A literal name is reported as given.
  std::vector<std::pair<std::string, std::string>> get(std::span<const std::string_view> patterns);
  // CONFIG SET name value [name value ...]: validated, then applied all-or-nothing.
  // Returns "" on success, else the full error text (without '-').
  std::string set(std::span<const std::string_view> pairs);
  // CONFIG REWRITE: "" on success, else the error text.
  std::string rewrite();
  // True for a directive holding a secret (SLOWLOG shows "(redacted)" for its CONFIG SET value).
  bool sensitive(std::string_view name) const;

 private:
  std::string file_;
};
Config& config();

// The replication directives (stored with the accept-and-report ones, config_ignored.cc).
struct ReplOptions {
  std::string replicaof_host, masterauth, masteruser, announce_ip;
  int64_t replicaof_port = 0, backlog_size = 1 << 20, ping_period = 10, timeout = 60;
  int64_t priority = 100, min_to_write = 0, min_max_lag = 10;
  int64_t diskless_sync_delay = 5, diskless_sync_max_replicas = 0, backlog_ttl = 3600;
  int64_t announce_port = 0;  // replica-announce-port: sent as REPLCONF listening-port when set
  bool announced = true;      // replica-announced: INFO's replica_announced (Sentinel hides 0)
  bool read_only = true, serve_stale = true, diskless_sync = true;
  bool ignore_maxmemory = true;  // replica-ignore-maxmemory: a replica never evicts
  bool lazy_flush = false;       // replica-lazy-flush: the old dataset of a full sync is freed
                                 // on the lazyfree thread
  // rdb-del-sync-files: without save points or AOF, a replica deletes the snapshot it
  // received once loaded
  bool del_sync_files = false;
};
// The replication directives' values (server/config_repl.cc).
const ReplOptions& repl_options();
// REPLICAOF at run time changes what CONFIG GET replicaof / REWRITE show.
void set_replicaof_option(const std::string& host, int64_t port);

// Installed by the server once it listens: re-creates the listening sockets after a CONFIG SET
// of bind or port; false with *err (and the old sockets kept) when the new ones cannot be made.
void set_relisten_hook(bool (*fn)(std::string* err));

// Splits a config line into arguments with redis.conf's quoting rules ("double" with \n \r \t
// \b \a \xHH escapes, 'single' with \'); false on unbalanced quotes.
bool split_config_line(std::string_view line, std::vector<std::string>* out);
// Quotes `s` the way CONFIG REWRITE and the command-line conversion do: "..." with escapes.
std::string quote_config_value(std::string_view s);
// Parses a memory value: digits with an optional unit b, k, kb, m, mb, g, gb (any case).
bool parse_memory(std::string_view s, uint64_t* out);

}  // namespace keel
