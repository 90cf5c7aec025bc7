// The AOF (see aof.h and README.md "AOF"): the manifest, the writer and its fsync thread,
// start-up, switching on and off at run time, and the rewrite. Log lines and error texts are
// Redis 7.0's (aof.c), so operators' tooling reads them unchanged.
#include "persistence/aof.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "base/cpu_affinity.h"
#include "base/args.h"
#include "base/log.h"
#include "base/time.h"
#include "keyspace/keyspace.h"
#include "persistence/persistence.h"
#include "persistence/rdb_bgsave.h"
#include "persistence/rdb_io.h"
#include "persistence/rdb_save.h"

namespace keel {

AofHooks g_aof_hooks;

AofOptions& aof_options() {
  static AofOptions o;
  return o;
}

AofState& aof_state_slow() {
  static AofState s;
  g_aof_state = &s;
  return s;
}

namespace {

constexpr int64_t kWriteErrorLogPeriod = 30;   // seconds between two write-error log lines
constexpr int64_t kMaxPostponeSec = 2;         // everysec: a write waits at most this long
constexpr uint64_t kRewriteFailureLimit = 3;   // consecutive failures before backing off
// The buffer keeps up to this much capacity between writes, so steady traffic does not allocate
// (Redis frees it above 4 KB; a -P16 load of 50 clients writes ~100 KB per loop iteration).
constexpr size_t kKeepBuffer = 1 << 20;

int64_t now_s() { return time(nullptr); }

// ---- Background fsync (Redis's bio AOF_FSYNC / CLOSE_AOF jobs) ---------------------------------

std::atomic<int> g_fsync_delay_ms{0};  // DEBUG AOF-FSYNC-DELAY

struct FsyncJob {
  int fd;
  bool close_after;
};

class FsyncThread {
 public:
  void submit(int fd, bool close_after) {
    start();
    {
      std::lock_guard<std::mutex> g(mu_);
      jobs_.push_back({fd, close_after});
      pending_++;
    }
    cv_.notify_one();
  }
  uint64_t pending() const { return pending_.load(std::memory_order_acquire); }
  // A failed background fsync: its errno, 0 when the last one succeeded.
  int error() const { return error_.load(std::memory_order_acquire); }
  void clear_error() { error_.store(0, std::memory_order_release); }

 private:
  void start() {
    if (started_) return;
    started_ = true;
    std::thread([this] { run(); }).detach();
  }
  void run() {
    apply_cpulist(cpu_lists().bio, "bio_cpulist");
    for (;;) {
      FsyncJob job;
      {
        std::unique_lock<std::mutex> g(mu_);
        cv_.wait(g, [this] { return !jobs_.empty(); });
        job = jobs_.front();
        jobs_.pop_front();
      }
      const int delay = g_fsync_delay_ms.load(std::memory_order_relaxed);
      if (delay > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      if (fdatasync(job.fd) == -1 && errno != EBADF && errno != EINVAL) {
        error_.store(errno, std::memory_order_release);
      } else if (!job.close_after) {
        error_.store(0, std::memory_order_release);
      }
      if (job.close_after) close(job.fd);
      pending_--;
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<FsyncJob> jobs_;
  std::atomic<uint64_t> pending_{0};
  std::atomic<int> error_{0};
  bool started_ = false;
};

FsyncThread& fsync_thread() {
  static FsyncThread* t = new FsyncThread;  // never destroyed: the thread outlives main()
  return *t;
}

bool fsync_in_progress() { return fsync_thread().pending() != 0; }

// ---- Names --------------------------------------------------------------------------------------

std::string base_name(int64_t seq) {
  const AofOptions& o = aof_options();
  return o.filename + "." + std::to_string(seq) + ".base" +
         (o.use_rdb_preamble ? ".rdb" : ".aof");
}
std::string incr_name(int64_t seq) {
  return aof_options().filename + "." + std::to_string(seq) + ".incr.aof";
}
std::string manifest_name() { return aof_options().filename + ".manifest"; }
std::string temp_manifest_name() { return "temp-" + aof_options().filename + ".manifest"; }
std::string temp_incr_name() { return "temp-" + aof_options().filename + ".incr"; }

bool file_exists(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}
bool dir_exists(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode);
}
bool dir_create_if_missing(const std::string& path) {
  return mkdir(path.c_str(), 0755) == 0 || errno == EEXIST;
}
uint64_t file_size(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0 ? static_cast<uint64_t>(sb.st_size) : 0;
}
void fsync_dir(const std::string& path) {
  const int dfd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (dfd < 0) return;
  if (fsync(dfd) != 0) LOG_WARNING("Failed to fsync AOF directory %s: %s", path.c_str(), strerror(errno));
  close(dfd);
}

// A name is written quoted (C escapes) when it holds blanks, quotes or unprintable bytes, as
// Redis writes the manifest.
std::string quote_name(const std::string& s) { return needs_repr(s) ? quote_repr(s) : s; }

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (tolower(static_cast<unsigned char>(a[i])) != tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// ---- Writing files ------------------------------------------------------------------------------

// write() until everything is written or an error (EINTR retried). Returns the bytes written,
// or -1 when nothing was.
ssize_t write_all(int fd, const char* p, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t w = write(fd, p + done, n - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return done > 0 ? static_cast<ssize_t>(done) : -1;
    }
    if (w == 0) break;
    done += static_cast<size_t>(w);
  }
  return static_cast<ssize_t>(done);
}

// A whole base file at `path`: the dataset as an RDB (the preamble), or as commands with
// aof-use-rdb-preamble no. With
// aof-rewrite-incremental-fsync, fdatasync every 4 MB. True when written and fsynced.
bool write_base_file(const std::string& path) {
  const PersistenceOptions& po = persistence_options();
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    LOG_WARNING("Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s", strerror(errno));
    return false;
  }
  int err = 0;
  {
    RdbOut out(fd, aof_options().rewrite_incremental_fsync ? size_t{4} << 20 : 0);
    if (aof_options().use_rdb_preamble) {
      rdb_write_snapshot(out, po.rdb_version, po.rdbcompression, po.rdbchecksum);
    } else if (!aof_write_commands(out)) {
      err = EINVAL;
    }
    if (!out.flush() && err == 0) err = out.error();
  }
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    LOG_WARNING("Write error writing append only file on disk: %s", strerror(err));
    unlink(path.c_str());
    return false;
  }
  return true;
}

bool persist_manifest(AofManifest& m) {
  const std::string dir = aof_dir_path();
  const std::string tmp = aof_file_path(temp_manifest_name());
  const std::string text = aof_manifest_text(m);
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    LOG_WARNING("Can't open the AOF manifest file %s: %s", temp_manifest_name().c_str(), strerror(errno));
    return false;
  }
  const ssize_t w = write_all(fd, text.data(), text.size());
  int err = w == static_cast<ssize_t>(text.size()) ? 0 : (w < 0 ? errno : ENOSPC);
  if (err == 0 && fsync(fd) != 0) err = errno;
  close(fd);
  if (err != 0) {
    LOG_WARNING("Error trying to write the temporary AOF manifest file %s: %s", temp_manifest_name().c_str(),
                strerror(err));
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), aof_file_path(manifest_name()).c_str()) == -1) {
    LOG_WARNING("Error trying to rename the temporary AOF manifest file %s into %s: %s",
                temp_manifest_name().c_str(), manifest_name().c_str(), strerror(errno));
    unlink(tmp.c_str());
    return false;
  }
  fsync_dir(dir);
  m.dirty = false;
  return true;
}

// The new base's name; the current base (if any) becomes history.
std::string new_base_and_mark_history(AofManifest& m) {
  // Redis puts history entries at the head of its list (the manifest lists them newest first).
  if (m.base) {
    m.base->type = 'h';
    m.history.insert(m.history.begin(), *m.base);
  }
  AofInfo b;
  b.seq = ++m.curr_base_seq;
  b.name = base_name(b.seq);
  b.type = 'b';
  m.base = b;
  m.dirty = true;
  return b.name;
}

std::string new_incr(AofManifest& m) {
  AofInfo i;
  i.seq = ++m.curr_incr_seq;
  i.name = incr_name(i.seq);
  i.type = 'i';
  m.incrs.push_back(i);
  m.dirty = true;
  return i.name;
}

// After a rewrite: every incremental file but the last (the one opened when it started) is
// covered by the new base.
void mark_rewritten_incrs_history(AofManifest& m, bool keep_last) {
  const size_t keep = keep_last && !m.incrs.empty() ? 1 : 0;
  const size_t moved = m.incrs.size() - keep;
  for (size_t k = 0; k < moved; k++) m.incrs[k].type = 'h';
  m.history.insert(m.history.begin(), m.incrs.begin(), m.incrs.begin() + static_cast<std::ptrdiff_t>(moved));
  m.incrs.erase(m.incrs.begin(), m.incrs.begin() + static_cast<std::ptrdiff_t>(moved));
  m.dirty = true;
}

void delete_history_files() {
  AofManifest& m = aof_state().manifest;
  if (m.history.empty() || aof_options().disable_auto_gc) return;
  for (const AofInfo& h : m.history) {
    LOG_NOTICE("Removing the history file %s in the background", h.name.c_str());
    unlink(aof_file_path(h.name).c_str());
  }
  m.history.clear();
  persist_manifest(m);
}

// ---- Writer -------------------------------------------------------------------------------------

void update_misconf_text() {
  AofState& a = aof_state();
  const int bio_err = fsync_thread().error();
  if (a.status != AofStatus::kOff && (!a.last_write_ok || bio_err != 0)) {
    a.write_error = std::string("MISCONF Errors writing to the AOF file: ") +
                    strerror(a.last_write_ok ? bio_err : a.last_write_errno);
    g_admission_gates.aof_error = true;
  } else {
    a.write_error.clear();
    g_admission_gates.aof_error = false;
  }
}

void submit_fsync(AofState& a) {
  fsync_thread().submit(a.fd, false);
  a.fsync_pending = false;
}

// The fsync part of a flush (Redis's try_fsync). appendfsync always fsyncs here only when
// `force`d (shutdown, the rewrite's switch of files): before-sleep's writes are fsynced by the
// server's group commit (aof_fsync_written, aof.h).
void try_fsync(AofState& a, bool sync_in_progress, bool force) {
  const AofOptions& o = aof_options();
  if (o.no_fsync_on_rewrite && any_child_active()) {
    a.durable_bytes = a.written_bytes;  // the policy's choice: nothing waits for an fsync
    return;
  }
  if (o.fsync == kAofFsyncAlways) {
    if (!force) return;
    if (fdatasync(a.fd) == -1) {
      LOG_WARNING("Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. Exiting...",
                  strerror(errno));
      _exit(1);
    }
    a.fsync_pending = false;
    a.durable_bytes = a.written_bytes;
    a.last_fsync_ms = mstime();
  } else if (o.fsync == kAofFsyncEverysec && mstime() - a.last_fsync_ms >= 1000) {
    if (!sync_in_progress) submit_fsync(a);
    a.last_fsync_ms = mstime();
  }
}

}  // namespace

std::string aof_dir_path() { return aof_options().dirname; }
std::string aof_file_path(const std::string& name) { return aof_options().dirname + "/" + name; }

std::string aof_manifest_text(const AofManifest& m) {
  std::string out;
  auto line = [&](const AofInfo& i) {
    out += "file " + quote_name(i.name) + " seq " + std::to_string(i.seq) + " type " + i.type + "\n";
  };
  if (m.base) line(*m.base);
  for (const AofInfo& h : m.history) line(h);
  for (const AofInfo& i : m.incrs) line(i);
  return out;
}

bool aof_parse_manifest(std::string_view text, AofManifest* m, std::string* err, int* lineno,
                        std::string* line_text) {
  *m = AofManifest{};
  *lineno = 0;
  int64_t max_incr_seq = 0;
  size_t pos = 0;
  bool any = false;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    const bool last = eol == std::string_view::npos;
    if (last) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++*lineno;
    if (line.size() > 1024) {
      *err = "The AOF manifest file contains too long line";
      *line_text = std::string(line.substr(0, 1024));
      return false;
    }
    *line_text = std::string(line);
    if (!line.empty() && line[0] == '#') continue;
    // Redis trims trailing CR/LF and spaces, then needs an even number >= 6 of tokens.
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    *line_text = std::string(line);
    std::vector<std::string> tok;
    if (!split_args(line, &tok) || tok.size() < 6 || tok.size() % 2 != 0) {
      *err = "Invalid AOF manifest file format";
      return false;
    }
    AofInfo info;
    info.type = 0;
    for (size_t i = 0; i + 1 < tok.size(); i += 2) {
      if (iequal(tok[i], "file")) {
        info.name = tok[i + 1];
        if (info.name.find('/') != std::string::npos) {
          *err = "File can't be a path, just a filename";
          return false;
        }
      } else if (iequal(tok[i], "seq")) {
        info.seq = strtoll(tok[i + 1].c_str(), nullptr, 10);
      } else if (iequal(tok[i], "type")) {
        // Only the first character counts (Redis reads "bb" as "b").
        info.type = tok[i + 1].empty() ? 0 : tok[i + 1][0];
      }
      // Unknown keys are ignored (later versions may add some).
    }
    if (info.name.empty() || info.seq == 0 || info.type == 0) {
      *err = "Invalid AOF manifest file format";
      return false;
    }
    if (info.type == 'b') {
      if (m->base) {
        *err = "Found duplicate base file information";
        return false;
      }
      m->base = info;
      m->curr_base_seq = info.seq;
    } else if (info.type == 'h') {
      m->history.push_back(info);
    } else if (info.type == 'i') {
      if (info.seq <= max_incr_seq) {
        *err = "Found a non-monotonic sequence number";
        return false;
      }
      max_incr_seq = info.seq;
      m->incrs.push_back(info);
      m->curr_incr_seq = info.seq;
    } else {
      *err = "Unknown AOF file type";
      return false;
    }
    any = true;
    if (last) break;
  }
  if (!any) {
    *lineno = 0;
    *err = "Found an empty AOF manifest";
    return false;
  }
  return true;
}

bool aof_persist_manifest() { return persist_manifest(aof_state().manifest); }

void aof_delete_history_files() {
  if (aof_state().status != AofStatus::kOff) delete_history_files();
}

uint64_t aof_pending_bio_fsync() { return fsync_thread().pending(); }

void aof_set_fsync_delay_ms(int ms) { g_fsync_delay_ms.store(ms, std::memory_order_relaxed); }

std::string_view aof_write_error() { return aof_state().write_error; }

void aof_flush(bool force) {
  AofState& a = aof_state();
  if (a.fd == -1) return;
  const AofOptions& o = aof_options();
  const bool everysec = o.fsync == kAofFsyncEverysec;
  const bool sync_in_progress = everysec && fsync_in_progress();
  if (a.buf.empty()) {
    // everysec: what was written in the last second still reaches the disk when writes stop.
    if (everysec && a.fsync_pending && !sync_in_progress && mstime() - a.last_fsync_ms >= 1000) {
      try_fsync(a, sync_in_progress, force);
    }
    if (fsync_thread().error() != 0 || !a.write_error.empty()) update_misconf_text();
    return;
  }
  if (everysec && !force && sync_in_progress) {
    const int64_t now = now_s();
    if (a.flush_postponed_start == 0) {
      a.flush_postponed_start = now;
      return;
    }
    if (now - a.flush_postponed_start < kMaxPostponeSec) return;
    a.delayed_fsync++;
    LOG_NOTICE("Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer "
               "without waiting for fsync to complete, this may slow down Redis.");
  }
  a.flush_postponed_start = 0;
  const size_t len = a.buf.size();
  ssize_t nwritten = write_all(a.fd, a.buf.data(), len);
  if (nwritten != static_cast<ssize_t>(len)) {
    const int64_t now = now_s();
    const bool can_log = now - a.last_write_error_log > kWriteErrorLogPeriod;
    if (can_log) a.last_write_error_log = now;
    if (nwritten == -1) {
      a.last_write_errno = errno;
      if (can_log) LOG_WARNING("Error writing to the AOF file: %s", strerror(errno));
    } else {
      if (can_log) {
        LOG_WARNING("Short write while writing to the AOF file: (nwritten=%lld, expected=%lld)",
                    static_cast<long long>(nwritten), static_cast<long long>(len));
      }
      // Take the partial command back out so the file stays loadable.
      if (ftruncate(a.fd, static_cast<off_t>(a.last_incr_size)) == -1) {
        if (can_log) {
          LOG_WARNING("Could not remove short write from the append-only file.  Redis may refuse to "
                      "load the AOF the next time it starts.  ftruncate: %s", strerror(errno));
        }
      } else {
        nwritten = -1;
      }
      a.last_write_errno = ENOSPC;
    }
    if (o.fsync == kAofFsyncAlways) {
      LOG_WARNING("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...");
      _exit(1);
    }
    a.last_write_ok = false;
    if (nwritten > 0) {
      a.current_size += static_cast<uint64_t>(nwritten);
      a.last_incr_size += static_cast<uint64_t>(nwritten);
      a.buf.consume_front(static_cast<size_t>(nwritten));
    }
    update_misconf_text();
    return;
  }
  if (!a.last_write_ok) {
    LOG_WARNING("AOF write error looks solved, Redis can write again.");
    a.last_write_ok = true;
  }
  a.current_size += len;
  a.last_incr_size += len;
  a.written_bytes += len;
  a.fsync_pending = true;
  a.buf.clear();
  a.buf.shrink_if_idle(kKeepBuffer);
  try_fsync(a, sync_in_progress, force);
  if (!a.write_error.empty() || fsync_thread().error() != 0) update_misconf_text();
}

void aof_fsync_written() {
  AofState& a = aof_state();
  if (a.fd == -1 || a.durable_bytes >= a.written_bytes) return;
  if (aof_options().fsync != kAofFsyncAlways) return;  // (everysec and no: not the loop's job)
  try_fsync(a, false, true);
}

void aof_shutdown_flush() {
  AofState& a = aof_state();
  if (a.fd == -1) return;
  LOG_NOTICE("Calling fsync() on the AOF file.");
  aof_flush(true);
  fdatasync(a.fd);
}

// ---- Start-up -----------------------------------------------------------------------------------

bool aof_load_manifest_from_disk() {
  AofState& a = aof_state();
  const std::string path = aof_file_path(manifest_name());
  if (!dir_exists(aof_dir_path()) || !file_exists(path)) return true;
  FILE* f = fopen(path.c_str(), "r");
  if (!f) {
    LOG_WARNING("Fatal error: can't open the AOF manifest %s for reading: %s", manifest_name().c_str(),
                strerror(errno));
    return false;
  }
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  fclose(f);
  std::string err, line_text;
  int lineno = 0;
  if (!aof_parse_manifest(text, &a.manifest, &err, &lineno, &line_text)) {
    LOG_WARNING("\n*** FATAL AOF MANIFEST FILE ERROR ***\n");
    if (lineno > 0) {
      LOG_WARNING("Reading the manifest file, at line %d\n", lineno);
      LOG_WARNING(">>> '%s'\n", line_text.c_str());
    }
    LOG_WARNING("%s\n", err.c_str());
    return false;
  }
  return true;
}

bool aof_load_on_startup(bool* loaded) {
  AofState& a = aof_state();
  AofManifest& m = a.manifest;
  const AofOptions& o = aof_options();
  *loaded = false;
  // An old single file in `dir` not yet managed by a manifest: moved into the directory as the
  // base (Redis 7's upgrade).
  if (file_exists(o.filename)) {
    const bool no_dir = !dir_exists(aof_dir_path());
    const bool empty_manifest = !m.base && m.incrs.empty();
    const bool only_old_base = m.base && m.incrs.empty() && m.base->name == o.filename &&
                               !file_exists(aof_file_path(o.filename));
    if (no_dir || empty_manifest || only_old_base) {
      if (!dir_create_if_missing(aof_dir_path())) {
        LOG_WARNING("Can't open or create append-only dir %s: %s", aof_dir_path().c_str(), strerror(errno));
        return false;
      }
      m = AofManifest{};
      AofInfo b;
      b.name = o.filename;
      b.seq = 1;
      b.type = 'b';
      m.base = b;
      m.curr_base_seq = 1;
      if (!persist_manifest(m)) return false;
      if (rename(o.filename.c_str(), aof_file_path(o.filename).c_str()) == -1) {
        LOG_WARNING("Error trying to rename the old AOF file %s into dir %s: %s", o.filename.c_str(),
                    aof_dir_path().c_str(), strerror(errno));
        return false;
      }
      fsync_dir(".");
      fsync_dir(aof_dir_path());
      LOG_NOTICE("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
                 o.filename.c_str(), aof_dir_path().c_str());
    }
  }
  if (!m.base && m.incrs.empty()) return true;
  // Every file named must exist before anything is loaded.
  uint64_t total = 0;
  std::vector<const AofInfo*> files;
  if (m.base) files.push_back(&*m.base);
  for (const AofInfo& i : m.incrs) files.push_back(&i);
  for (const AofInfo* f : files) {
    struct stat sb;
    if (stat(aof_file_path(f->name).c_str(), &sb) != 0) {
      LOG_WARNING("Unable to obtain the AOF file %s length. stat: %s", f->name.c_str(), strerror(errno));
      return false;
    }
    total += static_cast<uint64_t>(sb.st_size);
  }
  if (total == 0) return true;
  *loaded = true;
  loading_state().total_bytes = total;
  const int64_t start = monotonic_us();
  uint64_t before = 0;
  for (size_t k = 0; k < files.size(); k++) {
    const AofInfo& f = *files[k];
    const bool last = k + 1 == files.size();
    const int64_t t0 = monotonic_us();
    const AofLoadStatus r = aof_load_file(f.name, last, before);
    before += file_size(aof_file_path(f.name));
    if (r == AofLoadStatus::kTruncated && !last) {
      LOG_WARNING("Fatal error: the truncated file is not the last file");
      return false;
    }
    if (r == AofLoadStatus::kFailed || r == AofLoadStatus::kNotExist) return false;
    if (r == AofLoadStatus::kOk || r == AofLoadStatus::kTruncated) {
      LOG_NOTICE("DB loaded from %s file %s: %.3f seconds", f.type == 'b' ? "base" : "incr", f.name.c_str(),
                 double(monotonic_us() - t0) / 1e6);
    }
  }
  a.current_size = 0;
  for (const AofInfo* f : files) a.current_size += file_size(aof_file_path(f->name));
  a.base_size = a.current_size;
  LOG_NOTICE("DB loaded from append only file: %.3f seconds", double(monotonic_us() - start) / 1e6);
  return true;
}

namespace {
bool open_incr_for_append(const std::string& name, int* fd) {
  *fd = open(aof_file_path(name).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (*fd == -1) {
    LOG_WARNING("Can't open the append-only file %s: %s", name.c_str(), strerror(errno));
    return false;
  }
  return true;
}

void switch_on() {
  AofState& a = aof_state();
  a.status = AofStatus::kOn;
  a.epoch++;
  a.last_fsync_ms = mstime();
  if (g_aof_hooks.attach) g_aof_hooks.attach();
}
}  // namespace

bool aof_open_on_startup() {
  AofState& a = aof_state();
  AofManifest& m = a.manifest;
  if (!dir_create_if_missing(aof_dir_path())) {
    LOG_WARNING("Can't open or create append-only dir %s: %s", aof_dir_path().c_str(), strerror(errno));
    return false;
  }
  // Nothing on disk: the base is the current (empty) dataset.
  if (!m.base && m.incrs.empty()) {
    const std::string name = new_base_and_mark_history(m);
    if (!write_base_file(aof_file_path(name))) return false;
    LOG_NOTICE("Creating AOF base file %s on server start", name.c_str());
    // Not counted in aof_current_size (Redis 7.0 starts that at 0 here too).
  }
  const bool existed = !m.incrs.empty();
  const std::string name = existed ? m.incrs.back().name : new_incr(m);
  if (!open_incr_for_append(name, &a.fd)) return false;
  if (m.dirty && !persist_manifest(m)) return false;
  a.last_incr_size = file_size(aof_file_path(name));
  LOG_NOTICE("%s AOF incr file %s on server start", existed ? "Opening" : "Creating", name.c_str());
  switch_on();
  delete_history_files();
  return true;
}

// ---- On / off at run time -----------------------------------------------------------------------

bool aof_start(std::string* err, bool defer) {
  AofState& a = aof_state();
  if (a.status != AofStatus::kOff) return true;
  a.status = AofStatus::kWaitRewrite;
  if (defer && !aof_rewrite_active()) {
    a.rewrite_scheduled = true;
  } else if (any_child_active() && persistence_state().child_type != kChildAof) {
    a.rewrite_scheduled = true;
    LOG_NOTICE("AOF was enabled but there is already another background operation. An AOF "
               "background was scheduled to start when possible.");
  } else {
    if (aof_rewrite_active()) {
      LOG_NOTICE("AOF was enabled but there is already an AOF rewriting in background. Stopping "
                 "background AOF and starting a rewrite now.");
      aof_kill_rewrite_child();
      // Reaped now (it exits at once on SIGUSR1): the new rewrite needs the fork slot.
      for (int i = 0; i < 5000 && aof_rewrite_active(); i++) {
        rdb_check_child();
        if (aof_rewrite_active()) usleep(1000);
      }
    }
    std::string e;
    if (!aof_rewrite_background(&e)) {
      a.status = AofStatus::kOff;
      LOG_WARNING("Redis needs to enable the AOF but can't trigger a background AOF rewrite "
                  "operation. Check the above logs for more info about the error.");
      *err = "Unable to turn on AOF. Check server logs.";
      return false;
    }
  }
  a.last_fsync_ms = mstime();
  return true;
}

void aof_stop() {
  AofState& a = aof_state();
  if (a.status == AofStatus::kOff) return;
  if (aof_rewrite_active()) aof_kill_rewrite_child();
  if (a.fd != -1) {
    aof_flush(true);
    if (fdatasync(a.fd) == -1) LOG_WARNING("Fail to fsync the AOF file: %s", strerror(errno));
    // Closed by the fsync thread, after any fsync of it still queued there.
    fsync_thread().submit(a.fd, true);
    a.fd = -1;
  }
  a.status = AofStatus::kOff;
  a.rewrite_scheduled = false;
  a.last_incr_size = 0;
  a.fsync_pending = false;
  a.buf.clear();
  if (g_aof_hooks.detach) g_aof_hooks.detach();
  a.last_write_ok = true;
  update_misconf_text();
}

// ---- Rewrite ------------------------------------------------------------------------------------

namespace {

bool rewrite_child_body(void*) {
  char tmp[64];
  snprintf(tmp, sizeof(tmp), "temp-rewriteaof-bg-%d.aof", static_cast<int>(getpid()));
  if (!write_base_file(tmp)) return false;
  LOG_NOTICE("Successfully created the temporary AOF base file %s", tmp);
  return true;
}

// Opens the incremental file the parent appends to while the child writes: the next incr of
// the manifest (persisted now), or the temp incr while the AOF is being turned on.
bool open_new_incr_for_rewrite() {
  AofState& a = aof_state();
  if (a.status == AofStatus::kOff) return true;
  AofManifest next = a.manifest;
  std::string name;
  if (a.status == AofStatus::kWaitRewrite) {
    name = temp_incr_name();
  } else {
    name = new_incr(next);
  }
  const int fd = open(aof_file_path(name).c_str(), O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
  if (fd == -1) {
    LOG_WARNING("Can't open the append-only file %s: %s", name.c_str(), strerror(errno));
    return false;
  }
  if (a.status == AofStatus::kOn && !persist_manifest(next)) {
    close(fd);
    unlink(aof_file_path(name).c_str());
    return false;
  }
  LOG_NOTICE("Creating AOF incr file %s on background rewrite", name.c_str());
  // The old file still needs its fsync (everysec); with always it already had it.
  if (a.fd != -1) fsync_thread().submit(a.fd, true);
  a.fd = fd;
  a.fsync_pending = false;
  a.last_fsync_ms = mstime();
  a.last_incr_size = 0;
  if (a.status == AofStatus::kWaitRewrite) {
    a.temp_incr = name;
    // The new file starts a new stream: switching on the sink now, so what the child misses
    // is appended to the temp incr.
    a.epoch++;
    if (g_aof_hooks.attach) g_aof_hooks.attach();
  } else {
    a.manifest = next;
  }
  return true;
}

bool rewrite_limited() {
  AofState& a = aof_state();
  if (a.consecutive_failures < kRewriteFailureLimit) return false;
  // 1, 2, 4 ... minutes, at most an hour, after the last try.
  const uint64_t shift = std::min<uint64_t>(a.consecutive_failures - kRewriteFailureLimit, 6);
  const int64_t delay = std::min<int64_t>(60, int64_t{1} << shift) * 60;
  if (now_s() - a.last_rewrite_try < delay) {
    static int64_t last_log = 0;
    if (now_s() - last_log > 60) {
      last_log = now_s();
      LOG_WARNING("Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes",
                  static_cast<int>(delay / 60));
    }
    return true;
  }
  return false;
}

}  // namespace

bool aof_rewrite_active() {
  return any_child_active() && persistence_state().child_type == kChildAof;
}

bool aof_rewrite_background(std::string* err) {
  AofState& a = aof_state();
  if (any_child_active()) {
    *err = "ERR Background append only file rewriting already in progress";
    return false;
  }
  a.last_rewrite_try = now_s();
  if (!dir_create_if_missing(aof_dir_path())) {
    LOG_WARNING("Can't open or create append-only dir %s: %s", aof_dir_path().c_str(), strerror(errno));
    a.last_bgrewrite_ok = false;
    *err = "ERR Can't execute an AOF background rewriting. Please check the server logs for more information.";
    return false;
  }
  aof_flush(true);
  if (!open_new_incr_for_rewrite()) {
    a.last_bgrewrite_ok = false;
    *err = "ERR Can't execute an AOF background rewriting. Please check the server logs for more information.";
    return false;
  }
  a.epoch++;  // the new incremental file starts with a SELECT
  a.rewrites++;
  const int pid = persistence_fork(kChildAof, rewrite_child_body, nullptr);
  if (pid < 0) {
    a.last_bgrewrite_ok = false;
    LOG_WARNING("Can't rewrite append only file in background: fork: %s", strerror(errno));
    *err = "ERR Can't execute an AOF background rewriting. Please check the server logs for more information.";
    return false;
  }
  LOG_NOTICE("Background append only file rewriting started by pid %ld", static_cast<long>(pid));
  a.rewrite_scheduled = false;
  a.rewrite_start = now_s();
  return true;
}

void aof_rewrite_done(int pid, int exitcode, int bysignal) {
  AofState& a = aof_state();
  const std::string tmp = child_temp_name(kChildAof, pid);
  auto fail = [&] {
    a.last_bgrewrite_ok = false;
    a.consecutive_failures++;
  };
  if (bysignal == 0 && exitcode == 0) {
    LOG_NOTICE("Background AOF rewrite terminated with success");
    AofManifest next = a.manifest;
    const std::string base = new_base_and_mark_history(next);
    const std::string base_path = aof_file_path(base);
    bool ok = true;
    if (rename(tmp.c_str(), base_path.c_str()) == -1) {
      LOG_WARNING("Error trying to rename the temporary AOF base file %s into %s: %s", tmp.c_str(),
                  base.c_str(), strerror(errno));
      fail();
      ok = false;
    }
    if (ok) LOG_NOTICE("Successfully renamed the temporary AOF base file %s into %s", tmp.c_str(), base.c_str());
    if (ok && a.status == AofStatus::kWaitRewrite) {
      // Every older incremental file is covered by the new base; the temp one becomes the next.
      mark_rewritten_incrs_history(next, false);
      const std::string incr = new_incr(next);
      if (rename(aof_file_path(a.temp_incr).c_str(), aof_file_path(incr).c_str()) == -1) {
        LOG_WARNING("Error trying to rename the temporary AOF incr file %s into %s: %s",
                    a.temp_incr.c_str(), incr.c_str(), strerror(errno));
        unlink(base_path.c_str());
        fail();
        ok = false;
      } else {
        LOG_NOTICE("Successfully renamed the temporary AOF incr file %s into %s", a.temp_incr.c_str(),
                   incr.c_str());
      }
    } else if (ok) {
      mark_rewritten_incrs_history(next, a.status == AofStatus::kOn);
    }
    if (ok && !persist_manifest(next)) {
      unlink(base_path.c_str());
      fail();
      ok = false;
    }
    if (ok) {
      a.manifest = next;
      fsync_dir(aof_dir_path());
      if (a.fd != -1) {
        a.epoch++;
        a.current_size = file_size(base_path) + a.last_incr_size;
        a.base_size = a.current_size;
      }
      a.last_bgrewrite_ok = true;
      a.consecutive_failures = 0;
      delete_history_files();
      LOG_NOTICE("Background AOF rewrite finished successfully");
      if (a.status == AofStatus::kWaitRewrite) {
        a.status = AofStatus::kOn;
        a.temp_incr.clear();
      }
    }
  } else if (bysignal == 0) {
    fail();
    LOG_WARNING("Background AOF rewrite terminated with error");
  } else {
    if (bysignal != SIGUSR1) fail();
    LOG_WARNING("Background AOF rewrite terminated by signal %d", bysignal);
  }
  unlink(tmp.c_str());
  if (a.status == AofStatus::kWaitRewrite) {
    // Not on yet: what was buffered for the temp file is dropped with it, and the rewrite is
    // tried again (Redis).
    if (g_aof_hooks.detach) g_aof_hooks.detach();
    a.buf.clear();
    if (a.fd != -1) fsync_thread().submit(a.fd, true);
    a.fd = -1;
    if (!a.temp_incr.empty()) unlink(aof_file_path(a.temp_incr).c_str());
    a.temp_incr.clear();
    a.rewrite_scheduled = true;
  }
  a.last_rewrite_time = a.rewrite_start >= 0 ? now_s() - a.rewrite_start : -1;
  a.rewrite_start = -1;
}

void aof_kill_rewrite_child() {
  if (!aof_rewrite_active()) return;
  AofState& a = aof_state();
  const int pid = persistence_state().child_pid;
  LOG_NOTICE("Killing running AOF rewrite child: %ld", static_cast<long>(pid));
  kill(pid, SIGUSR1);
  unlink(child_temp_name(kChildAof, pid).c_str());
  if (a.status == AofStatus::kWaitRewrite && !a.temp_incr.empty()) {
    unlink(aof_file_path(a.temp_incr).c_str());
  }
}

void aof_cron() {
  AofState& a = aof_state();
  const AofOptions& o = aof_options();
  if (!any_child_active() && a.rewrite_scheduled && !rewrite_limited()) {
    std::string err;
    aof_rewrite_background(&err);
  }
  if (a.status == AofStatus::kOn && !any_child_active() && o.auto_rewrite_perc > 0 &&
      a.current_size > static_cast<uint64_t>(o.auto_rewrite_min_size)) {
    const uint64_t base = a.base_size ? a.base_size : 1;
    const int64_t growth = static_cast<int64_t>(a.current_size * 100 / base) - 100;
    if (growth >= o.auto_rewrite_perc && !rewrite_limited()) {
      LOG_NOTICE("Starting automatic rewriting of AOF on %lld%% growth", static_cast<long long>(growth));
      std::string err;
      aof_rewrite_background(&err);
    }
  }
  if (a.fd == -1) return;
  // A write postponed by a busy fsync, and (once a second) a retry after a write error.
  static int64_t last_retry = 0;
  if (a.flush_postponed_start != 0) aof_flush(false);
  if (!a.last_write_ok && now_s() != last_retry) {
    last_retry = now_s();
    aof_flush(false);
  }
  if (a.buf.empty() && a.fsync_pending) aof_flush(false);
  update_misconf_text();
}

}  // namespace keel
