// The append-only file, in Redis 7's multi-part layout (see README.md, "AOF"):
// - the manifest: which base, history and incremental files make up the AOF (aof.cc);
// - the writer: the encoded change stream (fed by a PropagationSink the server installs) is kept
//   in a buffer and written before the replies of the same loop iteration leave, with the
//   appendfsync policy's fsync (always: in the loop; everysec: a background thread);
// - the rewrite: a forked child writes a new base while the parent goes on appending to a new
//   incremental file; the manifest switches atomically when the child succeeds;
// - the loader and the checker (aof_load.cc): base (RDB preamble or commands), then the
//   incremental files, each command executed through a hook the server installs.
// Everything is off (no sink, no thread, no file) while appendonly is no.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/assert.h"
#include "base/buffer.h"

namespace keel {

enum AofFsync : int { kAofFsyncEverysec = 0, kAofFsyncAlways = 1, kAofFsyncNo = 2 };

struct AofOptions {
  bool appendonly = false;
  std::string filename = "appendonly.aof";  // appendfilename (immutable)
  std::string dirname = "appendonlydir";    // appenddirname (immutable)
  int fsync = kAofFsyncEverysec;            // appendfsync
  bool no_fsync_on_rewrite = false;         // no-appendfsync-on-rewrite
  int64_t auto_rewrite_perc = 100;          // auto-aof-rewrite-percentage
  int64_t auto_rewrite_min_size = 64 << 20; // auto-aof-rewrite-min-size
  bool load_truncated = true;               // aof-load-truncated
  bool use_rdb_preamble = true;             // aof-use-rdb-preamble
  bool timestamp_enabled = false;           // aof-timestamp-enabled
  bool rewrite_incremental_fsync = true;    // aof-rewrite-incremental-fsync
  bool disable_auto_gc = false;             // aof-disable-auto-gc: keep history files
};
AofOptions& aof_options();

// aof_state: Redis's AOF_OFF / AOF_ON / AOF_WAIT_REWRITE (turned on at run time: the first
// rewrite must finish before the files exist).
enum class AofStatus { kOff, kOn, kWaitRewrite };

// One file of the manifest.
struct AofInfo {
  std::string name;
  int64_t seq = 0;
  char type = 'i';  // 'b' base, 'h' history, 'i' incremental
};

struct AofManifest {
  std::optional<AofInfo> base;
  std::vector<AofInfo> incrs;    // in sequence order
  std::vector<AofInfo> history;  // to be deleted
  int64_t curr_base_seq = 0;
  int64_t curr_incr_seq = 0;
  bool dirty = false;  // differs from the file on disk
};

struct AofState {
  AofStatus status = AofStatus::kOff;
  AofManifest manifest;
  Buffer buf;            // encoded commands not yet written (aof_buffer_length)
  int fd = -1;           // the incremental file being appended to
  uint64_t epoch = 0;    // bumped when the stream must start with a SELECT again
  int64_t last_ts = 0;   // aof-timestamp-enabled: the second of the last #TS annotation
  uint64_t current_size = 0;  // aof_current_size: base + incrementals
  uint64_t base_size = 0;     // aof_base_size: the size when the last rewrite ended (auto rewrite)
  uint64_t last_incr_size = 0;
  int64_t last_fsync_ms = 0;
  bool fsync_pending = false;        // written since the last fsync
  // Bytes written to the AOF files since start, and of them known to be on disk (appendfsync
  // always: a reply produced when written_bytes was X leaves once durable_bytes >= X).
  uint64_t written_bytes = 0;
  uint64_t durable_bytes = 0;
  int64_t flush_postponed_start = 0; // everysec: a write waiting for a background fsync
  uint64_t delayed_fsync = 0;        // aof_delayed_fsync
  bool last_write_ok = true;         // aof_last_write_status
  int last_write_errno = 0;
  int64_t last_write_error_log = 0;
  std::string write_error;           // the MISCONF text while the AOF cannot be written
  // Rewrite.
  bool rewrite_scheduled = false;
  int64_t rewrite_start = -1;        // unix seconds; -1 without a rewrite child
  int64_t last_rewrite_time = -1;
  bool last_bgrewrite_ok = true;
  uint64_t rewrites = 0;
  uint64_t consecutive_failures = 0;
  int64_t last_rewrite_try = 0;
  uint64_t last_cow_size = 0;
  std::string temp_incr;  // AOF turned on at run time: the temp incremental file being written
};
// Built on first use; inline because the loop asks for it every iteration (config.h's
// server_options does the same).
inline constinit AofState* g_aof_state = nullptr;
AofState& aof_state_slow();
inline AofState& aof_state() {
  if (KEEL_LIKELY(g_aof_state != nullptr)) return *g_aof_state;
  return aof_state_slow();
}

// ---- Writer -------------------------------------------------------------------------------------

// Writes the buffer (and fsyncs as the policy says). `force`: write even if an everysec fsync
// is still running (shutdown, rewrite start). Called in before-sleep, before replies leave.
void aof_flush(bool force);
// appendfsync always is a group commit: aof_flush(false) only writes, and the server decides
// when to fsync everything written (this call, in the loop) and holds the replies produced
// meanwhile (Server::hold_for_fsync): no reply leaves before its write is on disk, and clients
// whose requests arrive a little apart still share one fsync.
void aof_fsync_written();
// Whether replies wait for the group commit (always, with the AOF open).
inline bool aof_group_commit_on() {
  return aof_state().fd != -1 && aof_options().fsync == kAofFsyncAlways;
}
// The cron's part (once per tick): a postponed write, a retry after a write error, a scheduled
// or automatic rewrite.
void aof_cron();
// The text refusing writes after an AOF write or fsync error, or empty (Redis's
// writeCommandsDeniedByDiskError for the AOF).
std::string_view aof_write_error();
// Background fsyncs queued or running (aof_pending_bio_fsync).
uint64_t aof_pending_bio_fsync();
// DEBUG AOF-FSYNC-DELAY (Keel only, tests): every background fsync first sleeps this long, as a
// stalled disk would make it last.
void aof_set_fsync_delay_ms(int ms);
// Shutdown: writes and fsyncs what is buffered ("Calling fsync() on the AOF file.").
void aof_shutdown_flush();

// Installed by the server: attach / detach the propagation sink that feeds the buffer.
struct AofHooks {
  void (*attach)() = nullptr;
  void (*detach)() = nullptr;
  // Whether argv names a command the server knows (checked when it is read, as Redis).
  bool (*known)(const std::vector<std::string_view>& argv) = nullptr;
  // Executes one command of a file being loaded (a session of its own, no reply; MULTI and
  // EXEC never come here: the loader runs a transaction's commands when it reads its EXEC).
  void (*exec)(const std::vector<std::string_view>& argv) = nullptr;
};
extern AofHooks g_aof_hooks;

// ---- Paths and manifest -------------------------------------------------------------------------

std::string aof_dir_path();                       // <appenddirname> (relative to dir)
std::string aof_file_path(const std::string& name);  // <appenddirname>/<name>
std::string aof_manifest_text(const AofManifest& m);
// Parses manifest text; false with *err (Redis's reason) and *line (1-based, 0 = none).
bool aof_parse_manifest(std::string_view text, AofManifest* m, std::string* err, int* line,
                        std::string* line_text);
// Writes the manifest (temp file, fsync, rename, directory fsync). False (logged) on failure.
bool aof_persist_manifest();
// Deletes the history files and drops them from the manifest (not with aof-disable-auto-gc).
void aof_delete_history_files();

// ---- Start-up and switching on / off ------------------------------------------------------------

// Reads dir/appenddirname/<appendfilename>.manifest if it exists (whether or not appendonly is
// on, as Redis). False (logged, fatal) when it is malformed.
bool aof_load_manifest_from_disk();
// appendonly yes at start-up: upgrades an old single file, loads base and incrementals.
// Returns false when the process must exit (logged). *loaded: there was something to load.
bool aof_load_on_startup(bool* loaded);
// After the load: creates the base if there is none, opens (or creates) the last incremental,
// persists the manifest, switches the writer on. False (logged) when the process must exit.
bool aof_open_on_startup();
// CONFIG SET appendonly yes / no. `defer`: inside a transaction, whose commands propagate only
// when it ends: the rewrite is scheduled for the cron, so its snapshot cannot already hold
// changes that will then also be appended.
bool aof_start(std::string* err, bool defer = false);
void aof_stop();

// ---- Rewrite ------------------------------------------------------------------------------------

// BGREWRITEAOF: starts the child (a new incremental file is opened first). False when it
// could not start (logged); *err holds the reply's text.
bool aof_rewrite_background(std::string* err);
bool aof_rewrite_active();
// The fork machinery (rdb_bgsave.cc) calls this when the rewrite child is gone.
void aof_rewrite_done(int pid, int exitcode, int bysignal);
// SHUTDOWN / CONFIG SET appendonly no: kill the rewrite child and remove its temp files.
void aof_kill_rewrite_child();

// The dataset as commands, for a base written with aof-use-rdb-preamble no (aof_rewrite.cc).
class RdbOut;
bool aof_write_commands(RdbOut& out);

// ---- Loading and checking (aof_load.cc) ---------------------------------------------------------

enum class AofLoadStatus { kOk, kEmpty, kNotExist, kTruncated, kFailed };
// Loads one file of the AOF (RDB preamble and/or commands). `last`: the last file, the only
// one that may be truncated; `before`: bytes of the files loaded before it (loading progress).
AofLoadStatus aof_load_file(const std::string& name, bool last, uint64_t before = 0);
// keel-check-aof [--fix] FILE|MANIFEST: redis-check-aof's report; returns the exit code.
int aof_check_main(int argc, char** argv);

}  // namespace keel
