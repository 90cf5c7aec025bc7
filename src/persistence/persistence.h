// Persistence options and state shared by the RDB writer and loader, the commands (SAVE,
// DUMP/RESTORE, DEBUG RELOAD, LASTSAVE) and the server (load at start-up, save at shutdown).
// server/config_table.cc writes the options; nothing here knows about the configuration file.
// Function libraries live in scripting/, a sibling layer: commands/ installs FunctionHooks so
// the writer can list them and the loader can load them.
#pragma once
#include "base/admission.h"
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/rdb_format.h"

namespace keel {

struct SavePoint {
  int64_t seconds;
  int64_t changes;
};

enum class SanitizePayload : int { kNo = 0, kYes = 1, kClients = 2 };

struct PersistenceOptions {
  // save: Redis's defaults until a config file line or CONFIG SET says otherwise.
  std::vector<SavePoint> save_points = {{3600, 1}, {300, 100}, {60, 10000}};
  std::string dbfilename = "dump.rdb";
  bool rdbcompression = true;
  bool rdbchecksum = true;         // immutable, as in Redis
  bool incremental_fsync = true;   // rdb-save-incremental-fsync: fdatasync every 4 MB
  int sanitize_dump_payload = 0;   // SanitizePayload
  int rdb_version = kRdbDefaultVersion;  // rdb-version: 10, 11 or 12
  bool stop_writes_on_bgsave_error = true;  // MISCONF after a failed BGSAVE (rdb_bgsave.h)
  int key_save_delay = 0;  // rdb-key-save-delay (tests): microseconds slept after each key
  int key_load_delay = 0;  // key-load-delay (tests): microseconds slept after each key loaded
  // loading-process-events-interval-bytes: the start-up load lets the event loop run (clients
  // get -LOADING, INFO answers) each time this many more bytes of the file have been read.
  int64_t loading_events_interval = 2 * 1024 * 1024;
  std::string redis_ver = "7.4.0";       // the redis-ver AUX field (set at start-up)
};
PersistenceOptions& persistence_options();

struct PersistenceState {
  int64_t lastsave = 0;              // unix seconds of the last successful save (boot time)
  int64_t last_save_duration_us = 0;
  uint64_t saves = 0;                // rdb_saves: SAVEs (any synchronous save) and BGSAVEs
  uint64_t dump_payload_sanitizations = 0;  // RESTOREs whose payload was checked deeply
  uint64_t keys_loaded = 0;          // by the last load
  uint64_t keys_expired = 0;         // dropped by the last load
  // BGSAVE (rdb_bgsave.cc). The status of the last one is g_rdb_bgsave_failed below.
  int child_pid = -1;                // the forked child (BGSAVE or AOF rewrite), -1 when none
  int child_type = 0;                // kChildRdb or kChildAof (rdb_bgsave.h) while one exists
  int64_t bgsave_start = -1;         // unix seconds the running child was forked
  int64_t last_bgsave_time_sec = -1; // duration of the last finished one
  int64_t last_bgsave_try = 0;       // unix seconds of the last attempt (retry delay)
  uint64_t dirty_before_bgsave = 0;  // changes the running child has in its snapshot
  bool bgsave_scheduled = false;     // BGSAVE SCHEDULE / BGSAVE in MULTI: the cron starts it
  // From the child, through the child-info pipe: copy-on-write bytes and progress.
  uint64_t cow_peak = 0;             // current_cow_peak
  uint64_t cow_size = 0;             // current_cow_size
  int64_t cow_updated_us = 0;        // monotonic time of that reading (0 = none yet)
  uint64_t keys_processed = 0;       // current_save_keys_processed
  uint64_t keys_total = 0;           // current_save_keys_total (keys at fork)
  uint64_t last_cow_size = 0;        // rdb_last_cow_size: the peak of the last good child
  int64_t latest_fork_usec = 0;      // INFO stats
  uint64_t total_forks = 0;
};
PersistenceState& persistence_state();

// The start-up load while it runs (INFO persistence loading_* fields). Redis's names; the
// server sets the start time and the size, the loader the rest.
struct LoadingState {
  int64_t start_time = 0;      // loading_start_time: unix seconds
  uint64_t total_bytes = 0;    // loading_total_bytes: the file's size
  uint64_t loaded_bytes = 0;   // loading_loaded_bytes: read so far
  uint64_t rdb_used_mem = 0;   // loading_rdb_used_mem: the file's used-mem AUX field
};
LoadingState& loading_state();
// The dataset is being loaded at start-up (not DEBUG RELOAD): dispatch answers -LOADING to
// commands without the `loading` flag, SHUTDOWN does not save.
inline bool& g_loading_dataset = g_admission_gates.loading;  // base/admission.h
inline constexpr std::string_view kErrLoading = "LOADING Redis is loading the dataset in memory";
// Set by the server around its start-up load only (DEBUG RELOAD stays synchronous, as in
// Redis): called by the loader each time loading-process-events-interval-bytes more bytes
// have been read, with every key read so far in the keyspace, to run the event loop.
extern void (*g_rdb_load_events)();

// Redis's debugDelay (rdb-key-save-delay, key-load-delay): usec > 0 sleeps that long; -n
// sleeps 1 us with probability 1/n.
void rdb_debug_delay(int usec);

struct FunctionHooks {
  // Calls f(ctx, code) for every library, in name order.
  void (*for_each_library)(void* ctx, void (*f)(void* ctx, std::string_view code)) = nullptr;
  // Loads one library (replace: an existing one of the same name is replaced); false with
  // *err set on failure.
  bool (*load_library)(std::string_view code, bool replace, std::string* err) = nullptr;
  void (*flush)() = nullptr;  // drops every library (DEBUG RELOAD)
};
extern FunctionHooks g_function_hooks;

// The status of the last background save (rdb_last_bgsave_status): false after a child failed
// or could not be forked, true again after any successful save. A plain global because
// dispatch tests it before every command (MISCONF, rdb_bgsave.h).
inline bool& g_rdb_bgsave_failed = g_admission_gates.misconf;  // base/admission.h

}  // namespace keel
