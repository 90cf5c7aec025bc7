// BGSAVE: the forked child that writes the snapshot, the child-info pipe through which it
// reports copy-on-write and progress, reaping it in the parent, the cron's save points and
// scheduled saves, and the MISCONF rule that follows a failed background save.
// State lives in PersistenceState (persistence.h); INFO persistence reads it there.
#pragma once
#include <string>
#include <string_view>

#include "persistence/persistence.h"

namespace keel {

// Redis's text for writes refused after a failed background save.
inline constexpr std::string_view kErrMisconf =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the "
    "RDB error.";

struct BgsaveHooks {
  // Runs in a freshly forked child before it writes: the server closes its listening sockets,
  // so a child that outlives a killed parent does not hold the port.
  void (*in_child)() = nullptr;
  // Parent, when an RDB child (to disk or to a pipe) has been reaped: replication serves the
  // replicas waiting for that snapshot (ok: the child succeeded).
  void (*rdb_child_done)(int child_type, bool ok) = nullptr;
};
extern BgsaveHooks g_bgsave_hooks;

// Forks a child that writes `filename` as SAVE does (temp-<childpid>.rdb in `dir`, fsync,
// rename, fsync of the directory) and exits; the parent returns at once. False when a child
// already exists or fork() failed (then logged, and the BGSAVE status is err). Counts in
// rdb_saves either way, as Redis.
bool rdb_bgsave(const std::string& filename);

// One forked child at a time, of either kind (Redis's child_type). kChildRdbPipe writes the
// snapshot into a pipe for a diskless full sync (Redis's RDB child with a socket target): for
// BGSAVE, SAVE and INFO it is an RDB child too.
enum ChildType : int { kChildNone = 0, kChildRdb = 1, kChildAof = 2, kChildRdbPipe = 3 };
inline bool rdb_child_active() {
  const PersistenceState& st = persistence_state();
  return st.child_pid != -1 && (st.child_type == kChildRdb || st.child_type == kChildRdbPipe);
}
inline bool any_child_active() { return persistence_state().child_pid != -1; }

// The fork shared by BGSAVE and the AOF rewrite: the child-info pipe, the child's signal and
// socket set-up, its progress and copy-on-write reports, the fork gate, and reaping (an AOF
// child's end goes to aof_rewrite_done). `body` runs in the child and returns success; the
// child then exits 0 or 1. Returns the child's pid, or -1 with errno set (nothing to reap).
int persistence_fork(ChildType type, bool (*body)(void* arg), void* arg);
// The child's temp file, removed when it is killed: temp-<pid>.rdb or temp-rewriteaof-bg-<pid>.aof.
std::string child_temp_name(ChildType type, int pid);

// Diskless full sync: forks a child that writes the snapshot into a pipe and exits; *read_fd
// gets the parent's end (non-blocking; EOF once the child is done). Not counted as a BGSAVE
// (no LASTSAVE, no dirty reset). False when a child exists or fork/pipe failed (logged).
bool rdb_fork_to_pipe(int* read_fd);

// Parent: reads what the child reported through the pipe and reaps it if it has exited (never
// blocks): success, error or signal decide the BGSAVE status, the dirty counter and LASTSAVE.
// Called on SIGCHLD and from the cron.
void rdb_check_child();

// Ends the child with SIGUSR1, which is not a failure (FLUSHALL, SHUTDOWN); the exit is reaped
// later. With remove_temp its temp file is unlinked now (SHUTDOWN: nobody will reap it).
void rdb_kill_child(bool remove_temp);

// The cron's part, every tick: the child's reports and exit, else the save points (`save`),
// then a scheduled BGSAVE. After a failed background save the next try waits 5 seconds.
void rdb_cron();

// MISCONF applies: the last background save failed, save points exist and
// stop-writes-on-bgsave-error is yes. Dispatch asks only when g_rdb_bgsave_failed is set.
bool rdb_writes_denied();

// The fork gate (base/fork.h) is raised when the child is forked and lowered when it is reaped,
// through set_fork_child_exists() (keyspace/keyspace.h): while it is up the parent avoids
// writing pages it does not have to (no table growth unless badly overloaded, no incremental
// rehash from the cron, no LRU writes on reads, no huge pages).

}  // namespace keel
