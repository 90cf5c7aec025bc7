// BGSAVE (see rdb_bgsave.h): fork, the child's life, the child-info pipe, reaping, save points.
#include "persistence/rdb_bgsave.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "base/cpu_affinity.h"
#include "base/log.h"
#include "base/time.h"
#include "keyspace/keyspace.h"
#include "persistence/aof.h"
#include "persistence/rdb_save.h"

namespace keel {

BgsaveHooks g_bgsave_hooks;
namespace {

constexpr int64_t kBgsaveRetryDelay = 5;  // seconds before retrying after a failure (Redis's)
constexpr int kChildKilledExit = 255;     // the child's exit status after SIGUSR1: no error
constexpr int64_t kChildInfoPeriodUs = 1000000;  // progress reports at most once a second
// A copy-on-write reading (a walk of /proc/self/smaps) may take at most 1% of the child's time:
// the next one waits 100 times as long as the last one took.
constexpr int64_t kCowDutyCycle = 100;

// One message of the child-info pipe. Smaller than PIPE_BUF, so each write is atomic and the
// parent always reads whole messages.
enum ChildInfoType : int32_t { kInfoCurrent = 0, kInfoFinalCowSize = 1 };
struct ChildInfo {
  int32_t type;
  uint64_t keys;            // keys written so far
  uint64_t cow;             // Private_Dirty bytes of the child
  int64_t cow_updated_us;   // monotonic time of that reading
};

int g_info_pipe[2] = {-1, -1};

void close_info_pipe() {
  for (int& fd : g_info_pipe) {
    if (fd != -1) close(fd);
    fd = -1;
  }
}

ChildType g_child_type = kChildNone;  // in the child: what it is writing

void remove_temp_file(ChildType type, int pid) { unlink(child_temp_name(type, pid).c_str()); }

// ---- The child ---------------------------------------------------------------------------------

int g_child_log_fd = -1;

// Decimal text of v into buf (async-signal-safe); returns the length.
size_t u64_text(uint64_t v, char* buf) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
  return n;
}

// SIGUSR1 is how the parent ends a child on purpose (FLUSHALL, SHUTDOWN). Only async-signal-
// safe calls: the line is built by hand, in Redis's format for lines logged from a handler.
void on_sigusr1_in_child(int) {
  char line[160];
  size_t n = u64_text(static_cast<uint64_t>(getpid()), line);
  static constexpr char kMid[] = ":signal-handler (";
  memcpy(line + n, kMid, sizeof(kMid) - 1);
  n += sizeof(kMid) - 1;
  n += u64_text(static_cast<uint64_t>(time(nullptr)), line + n);
  static constexpr char kEnd[] = ") Received SIGUSR1 in child, exiting now.\n";
  memcpy(line + n, kEnd, sizeof(kEnd) - 1);
  n += sizeof(kEnd) - 1;
  if (g_child_log_fd >= 0) {
    ssize_t w = write(g_child_log_fd, line, n);
    (void)w;
  }
  _exit(kChildKilledExit);
}

// Bytes of this process's memory that are private and dirty: after fork every page is shared
// with the parent, so this is what copy-on-write has duplicated so far (by either side).
// smaps_rollup (Linux 4.14+) has the sum; smaps has it per mapping.
uint64_t private_dirty_bytes() {
  for (const char* path : {"/proc/self/smaps_rollup", "/proc/self/smaps"}) {
    FILE* f = fopen(path, "r");
    if (!f) continue;
    char line[256];
    uint64_t kb = 0;
    while (fgets(line, sizeof(line), f)) {
      if (strncmp(line, "Private_Dirty:", 14) == 0) kb += strtoull(line + 14, nullptr, 10);
    }
    fclose(f);
    return kb * 1024;
  }
  return 0;
}

struct ChildCow {
  int64_t updated_us = 0;
  int64_t cost_us = 0;
  uint64_t cow = 0, peak = 0, sum = 0, readings = 0;
  int64_t last_report_us = 0;
} g_child_cow;

// Sends one message to the parent. Progress reports re-read the copy-on-write size only when
// the duty cycle allows; the final report always does and is logged. A parent that is gone
// (EPIPE) ends the child: its snapshot would have no one to serve.
void child_send_info(ChildInfoType type, uint64_t keys) {
  ChildCow& c = g_child_cow;
  const int64_t now = monotonic_us();
  if (type != kInfoCurrent || c.updated_us == 0 || now - c.updated_us > c.cost_us * kCowDutyCycle) {
    c.cow = private_dirty_bytes();
    c.updated_us = monotonic_us();
    c.cost_us = c.updated_us - now;
    c.peak = std::max(c.peak, c.cow);
    c.sum += c.cow;
    c.readings++;
    if (c.cow != 0 || type != kInfoCurrent) {
      KEEL_LOG(type != kInfoCurrent ? LogLevel::kNotice : LogLevel::kVerbose,
               "Fork CoW for %s: current %llu MB, peak %llu MB, average %llu MB",
               g_child_type == kChildAof ? "AOF rewrite" : "RDB",
               static_cast<unsigned long long>(c.cow >> 20),
               static_cast<unsigned long long>(c.peak >> 20),
               static_cast<unsigned long long>((c.sum / c.readings) >> 20));
    }
  }
  if (g_info_pipe[1] == -1) return;
  const ChildInfo ci{type, keys, c.cow, c.updated_us};
  if (write(g_info_pipe[1], &ci, sizeof(ci)) == static_cast<ssize_t>(sizeof(ci))) return;
  if (errno == EAGAIN) return;  // the parent is busy and the pipe full: skip this report
  LOG_WARNING("Child failed reporting info to parent, exiting. %s", strerror(errno));
  remove_temp_file(g_child_type, getpid());
  _exit(1);
}

// rdb_write_snapshot's callback, every 1024 keys: a report at most once a second.
void child_progress(uint64_t keys) {
  const int64_t now = monotonic_us();
  if (g_child_cow.last_report_us != 0 && now - g_child_cow.last_report_us < kChildInfoPeriodUs) {
    return;
  }
  g_child_cow.last_report_us = now;
  child_send_info(kInfoCurrent, keys);
}

[[noreturn]] void child_main(ChildType type, bool (*body)(void*), void* arg) {
  g_child_type = type;
  log_set_role('C');
  g_child_log_fd = log_fd();
  // libuv's handlers would forward these into the parent's loop through its signal pipe, which
  // the child shares: the child takes the default actions (a TERM ends it, which the parent
  // reports as a failed save) and SIGUSR1 ends it as a deliberate kill.
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGCHLD, SIG_DFL);
  struct sigaction sa = {};
  sa.sa_handler = on_sigusr1_in_child;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, nullptr);
  prctl(PR_SET_NAME, type == kChildAof ? "keel-aof-rewrite" : "keel-rdb-bgsave", 0, 0, 0);
  if (type == kChildAof) {
    apply_cpulist(cpu_lists().aof_rewrite, "aof_rewrite_cpulist");
  } else {
    apply_cpulist(cpu_lists().bgsave, "bgsave_cpulist");
  }
  if (g_bgsave_hooks.in_child) g_bgsave_hooks.in_child();
  if (g_info_pipe[0] != -1) close(g_info_pipe[0]);  // the parent's end: EPIPE if it dies
  g_info_pipe[0] = -1;
  g_rdb_save_progress = child_progress;
  const bool ok = body(arg);
  if (ok) child_send_info(kInfoFinalCowSize, 0);
  _exit(ok ? 0 : 1);
}

bool bgsave_body(void* arg) { return rdb_save_file(*static_cast<const std::string*>(arg)); }

// Diskless sync: the snapshot into the pipe (blocking writes; the parent reads at the pace of
// its replicas). A parent that closed its end makes the write fail (EPIPE): exit 1.
bool pipe_body(void* arg) {
  const int* fds = static_cast<const int*>(arg);
  close(fds[0]);  // the parent's end: if the parent closes it, our writes fail instead of blocking
  const int fd = fds[1];
  const PersistenceOptions& po = persistence_options();
  RdbOut out(fd, 0);
  rdb_write_snapshot(out, po.rdb_version, po.rdbcompression, po.rdbchecksum);
  const bool ok = out.flush();
  close(fd);
  return ok;
}

// ---- The parent --------------------------------------------------------------------------------

void reset_child_stats(PersistenceState& st) {
  st.cow_peak = 0;
  st.cow_size = 0;
  st.cow_updated_us = 0;
  st.keys_processed = 0;
  st.keys_total = 0;
}

void update_child_info(const ChildInfo& ci) {
  PersistenceState& st = persistence_state();
  st.cow_peak = std::max(st.cow_peak, ci.cow);
  if (ci.type == kInfoCurrent) {
    st.cow_size = ci.cow;
    st.cow_updated_us = ci.cow_updated_us;
    st.keys_processed = ci.keys;
  } else if (ci.type == kInfoFinalCowSize) {
    if (st.child_type == kChildAof) {
      aof_state().last_cow_size = st.cow_peak;
    } else {
      st.last_cow_size = st.cow_peak;
    }
  }
}

void receive_child_info() {
  if (g_info_pipe[0] == -1) return;
  ChildInfo ci;
  while (read(g_info_pipe[0], &ci, sizeof(ci)) == static_cast<ssize_t>(sizeof(ci))) {
    update_child_info(ci);
  }
}

// The child is gone: status, counters and logs as Redis's backgroundSaveDoneHandler.
void child_done(int pid, int exitcode, int bysignal) {
  PersistenceState& st = persistence_state();
  const int type = st.child_type;
  if (type == kChildAof) {
    receive_child_info();
    aof_rewrite_done(pid, exitcode, bysignal);
  } else if (type == kChildRdbPipe) {
    if (bysignal == 0 && exitcode == 0) {
      LOG_NOTICE("Background RDB transfer terminated with success");
    } else if (bysignal == 0) {
      LOG_WARNING("Background transfer error");
    } else {
      LOG_WARNING("Background transfer terminated by signal %d", bysignal);
    }
  } else if (bysignal == 0 && exitcode == 0) {
    LOG_NOTICE("Background saving terminated with success");
    uint64_t& dirty = keyspace_stats().dirty;
    dirty = dirty > st.dirty_before_bgsave ? dirty - st.dirty_before_bgsave : 0;
    st.lastsave = time(nullptr);
    g_rdb_bgsave_failed = false;
  } else if (bysignal == 0) {
    LOG_WARNING("Background saving error");
    g_rdb_bgsave_failed = true;
  } else {
    LOG_WARNING("Background saving terminated by signal %d", bysignal);
    remove_temp_file(kChildRdb, pid);
    // SIGUSR1 is the parent's own deliberate kill: not a failure.
    if (bysignal != SIGUSR1) g_rdb_bgsave_failed = true;
  }
  if (type == kChildRdb || type == kChildRdbPipe) {
    st.last_bgsave_time_sec = time(nullptr) - st.bgsave_start;
    st.bgsave_start = -1;
    receive_child_info();  // the final report, written just before the exit
  }
  st.child_pid = -1;
  st.child_type = kChildNone;
  reset_child_stats(st);
  close_info_pipe();
  set_fork_child_exists(false);
  if ((type == kChildRdb || type == kChildRdbPipe) && g_bgsave_hooks.rdb_child_done) {
    g_bgsave_hooks.rdb_child_done(type, bysignal == 0 && exitcode == 0);
  }
}

}  // namespace

std::string child_temp_name(ChildType type, int pid) {
  char name[64];
  if (type == kChildAof) {
    snprintf(name, sizeof(name), "temp-rewriteaof-bg-%d.aof", pid);
  } else {
    snprintf(name, sizeof(name), "temp-%d.rdb", pid);
  }
  return name;
}

int persistence_fork(ChildType type, bool (*body)(void*), void* arg) {
  PersistenceState& st = persistence_state();
  if (st.child_pid != -1) {
    errno = EBUSY;
    return -1;
  }
  // Without the pipe the child still saves; it just reports nothing.
  if (pipe2(g_info_pipe, O_NONBLOCK | O_CLOEXEC) != 0) g_info_pipe[0] = g_info_pipe[1] = -1;
  const int64_t start = monotonic_us();
  const pid_t pid = fork();
  if (pid == 0) child_main(type, body, arg);
  if (pid < 0) {
    const int err = errno;
    close_info_pipe();
    errno = err;
    return -1;
  }
  st.latest_fork_usec = monotonic_us() - start;
  st.total_forks++;
  st.child_pid = pid;
  st.child_type = type;
  reset_child_stats(st);
  st.keys_total = keyspace().total_keys();
  set_fork_child_exists(true);
  if (g_info_pipe[1] != -1) close(g_info_pipe[1]);  // the child's end
  g_info_pipe[1] = -1;
  return pid;
}

bool rdb_bgsave(const std::string& filename) {
  PersistenceState& st = persistence_state();
  if (st.child_pid != -1) return false;
  st.saves++;
  st.dirty_before_bgsave = keyspace_stats().dirty;
  st.last_bgsave_try = time(nullptr);
  static std::string file;  // read by the child after the fork
  file = filename;
  const int pid = persistence_fork(kChildRdb, bgsave_body, &file);
  if (pid < 0) {
    g_rdb_bgsave_failed = true;
    LOG_WARNING("Can't save in background: fork: %s", strerror(errno));
    return false;
  }
  LOG_NOTICE("Background saving started by pid %ld", static_cast<long>(pid));
  st.bgsave_start = time(nullptr);
  return true;
}

bool rdb_fork_to_pipe(int* read_fd) {
  PersistenceState& st = persistence_state();
  if (st.child_pid != -1) return false;
  static int fds[2] = {-1, -1};  // read by the child after the fork
  if (pipe2(fds, O_CLOEXEC) != 0) {
    LOG_WARNING("Can't create the pipe for a diskless sync: %s", strerror(errno));
    return false;
  }
  const int pid = persistence_fork(kChildRdbPipe, pipe_body, fds);
  if (pid < 0) {
    LOG_WARNING("Can't save in background: fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  close(fds[1]);  // the child's end: EOF reaches the parent when the child is done
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  *read_fd = fds[0];
  LOG_NOTICE("Starting BGSAVE for SYNC with target: replicas sockets");
  st.bgsave_start = time(nullptr);
  return true;
}

void rdb_check_child() {
  PersistenceState& st = persistence_state();
  if (st.child_pid == -1) return;
  receive_child_info();
  int status = 0;
  const pid_t r = waitpid(st.child_pid, &status, WNOHANG);
  if (r == 0) return;
  if (r == -1) {
    // Only if something else reaped it: its outcome is unknown, so it counts as a failure.
    LOG_WARNING("waitpid() returned an error: %s. child_type: %s, child_pid = %d",
                strerror(errno), st.child_type == kChildAof ? "AOF" : "RDB", st.child_pid);
    if (errno != ECHILD) return;
    child_done(st.child_pid, 1, 0);
    return;
  }
  int exitcode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  int bysignal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  if (exitcode == kChildKilledExit) {  // its SIGUSR1 handler exited
    bysignal = SIGUSR1;
    exitcode = 1;
  }
  child_done(st.child_pid, exitcode, bysignal);
}

void rdb_kill_child(bool remove_temp) {
  if (!rdb_child_active()) return;
  const int pid = persistence_state().child_pid;
  kill(pid, SIGUSR1);
  if (remove_temp) remove_temp_file(kChildRdb, pid);
}

void rdb_cron() {
  PersistenceState& st = persistence_state();
  const PersistenceOptions& po = persistence_options();
  const int64_t now = time(nullptr);
  auto may_retry = [&] {
    return !g_rdb_bgsave_failed || now - st.last_bgsave_try > kBgsaveRetryDelay;
  };
  if (st.child_pid != -1) {
    rdb_check_child();
  } else {
    // The first save point reached starts a BGSAVE: enough changes, and strictly more seconds
    // than its period since the last successful save.
    const int64_t dirty = static_cast<int64_t>(keyspace_stats().dirty);
    for (const SavePoint& sp : po.save_points) {
      if (dirty >= sp.changes && now - st.lastsave > sp.seconds && may_retry()) {
        LOG_NOTICE("%lld changes in %lld seconds. Saving...", static_cast<long long>(sp.changes),
                   static_cast<long long>(sp.seconds));
        rdb_bgsave(po.dbfilename);
        break;
      }
    }
  }
  if (st.child_pid == -1 && st.bgsave_scheduled && may_retry()) {
    if (rdb_bgsave(po.dbfilename)) st.bgsave_scheduled = false;
  }
}

bool rdb_writes_denied() {
  const PersistenceOptions& po = persistence_options();
  return g_rdb_bgsave_failed && po.stop_writes_on_bgsave_error && !po.save_points.empty();
}

}  // namespace keel
