// Reading AOF files: the start-up loader (aof_load_file) and keel-check-aof. Both read the same
// way: an optional RDB preamble (a file starting with "REDIS"), then RESP commands, `#` lines
// being annotations (aof-timestamp-enabled). Errors, log lines and the checker's report follow
// Redis 7.0 (aof.c loadSingleAppendOnlyFile, redis-check-aof.c).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/log.h"
#include "keyspace/db.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "persistence/rdb_load.h"

namespace keel {
namespace {

// Reads RESP commands from a file descriptor, from a start offset. Each command is parsed
// whole from a buffer that is refilled (and grown) until it holds it, so argv's views stay
// valid until the next call.
class AofScanner {
 public:
  enum Result { kCommand, kEnd, kTruncated, kFormat, kIoError };

  AofScanner(int fd, uint64_t start) : fd_(fd), base_(start) {
    if (lseek(fd, static_cast<off_t>(start), SEEK_SET) == -1) io_error_ = errno;
  }

  // The next command. kTruncated / kFormat set `error` (the checker's message) and
  // `error_offset`; kIoError sets io_errno.
  Result next(std::vector<std::string_view>* argv) {
    for (;;) {
      size_t used = 0;
      const Parse p = parse(argv, &used);
      if (p == Parse::kDone) {
        pos_ += used;
        lines_ += pending_lines_;
        return kCommand;
      }
      if (p == Parse::kAnnotation) {
        // keel-check-aof --truncate-to-timestamp: the first `#TS:` annotation later than the
        // limit is where the file is cut; the scan ends there.
        if (ts_limit >= 0 && ts_cut < 0) {
          const std::string_view a(buf_.data() + pos_, used);
          if (a.size() > 4 && a.substr(0, 4) == "#TS:" &&
              strtoll(std::string(a.substr(4)).c_str(), nullptr, 10) > ts_limit) {
            ts_cut = static_cast<int64_t>(base_ + pos_);
            return kEnd;
          }
        }
        pos_ += used;  // annotations are not counted as lines (redis-check-aof)
        continue;
      }
      if (p == Parse::kFormat) {
        lines_ += pending_lines_;
        return kFormat;
      }
      // More bytes are needed.
      if (eof_) {
        if (pos_ == buf_.size()) return kEnd;
        if (p == Parse::kAnnotationNoEol) {  // a last annotation without its newline
          pos_ = buf_.size();
          return kEnd;
        }
        lines_ += pending_lines_;
        return kTruncated;
      }
      if (!fill()) return kIoError;
    }
  }

  uint64_t offset() const { return base_ + pos_; }  // after the last whole command
  uint64_t lines() const { return lines_; }
  int64_t ts_limit = -1;  // --truncate-to-timestamp
  int64_t ts_cut = -1;    // where the first later annotation starts
  std::string error;
  uint64_t error_offset = 0;
  int io_errno() const { return io_error_; }

 private:
  enum class Parse { kDone, kAnnotation, kAnnotationNoEol, kMore, kFormat };

  bool fill() {
    if (io_error_ != 0) return false;
    // Drop what was consumed, then read at least as much again as is buffered (1 MB minimum).
    if (pos_ > 0) {
      buf_.erase(0, pos_);
      base_ += pos_;
      pos_ = 0;
    }
    const size_t want = std::max<size_t>(1 << 20, buf_.size());
    const size_t old = buf_.size();
    buf_.resize(old + want);
    ssize_t n;
    do {
      n = read(fd_, buf_.data() + old, want);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      io_error_ = errno;
      buf_.resize(old);
      return false;
    }
    buf_.resize(old + static_cast<size_t>(n));
    if (n == 0) eof_ = true;
    return true;
  }

  // One line from p (up to '\n'), without the CR LF.
  static bool line(const char* p, const char* end, std::string_view* out, const char** next) {
    const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!nl) return false;
    const char* e = nl;
    if (e > p && e[-1] == '\r') e--;
    *out = std::string_view(p, static_cast<size_t>(e - p));
    *next = nl + 1;
    return true;
  }

  Parse fail_format(const char* at, std::string msg) {
    error = std::move(msg);
    error_offset = base_ + static_cast<uint64_t>(at - buf_.data());
    return Parse::kFormat;
  }

  Parse parse(std::vector<std::string_view>* argv, size_t* used) {
    argv->clear();
    pending_lines_ = 0;
    const char* start = buf_.data() + pos_;
    const char* end = buf_.data() + buf_.size();
    if (start == end) return Parse::kMore;
    const char* p = start;
    std::string_view l;
    if (*p == '#') {
      if (!line(p, end, &l, &p)) return Parse::kAnnotationNoEol;
      *used = static_cast<size_t>(p - start);
      return Parse::kAnnotation;
    }
    if (*p != '*') return fail_format(p, "");
    if (!line(p, end, &l, &p)) return more(start, "Expected \\r\\n after the array length");
    pending_lines_++;
    const long argc = strtol(std::string(l.substr(1)).c_str(), nullptr, 10);
    if (argc < 1) return fail_format(start, "");
    for (long j = 0; j < argc; j++) {
      const char* hdr = p;
      if (p == end) return more(hdr, "Expected to read a bulk length");
      if (*p != '$') {
        return fail_format(p, std::string("Expected prefix '$', got: '") + *p + "'");
      }
      if (!line(p, end, &l, &p)) return more(hdr, "Expected \\r\\n after the bulk length");
      pending_lines_++;
      const long len = strtol(std::string(l.substr(1)).c_str(), nullptr, 10);
      if (len < 0) return fail_format(hdr, "Invalid bulk length");
      if (static_cast<size_t>(end - p) < static_cast<size_t>(len) + 2) {
        char msg[96];
        const size_t have = static_cast<size_t>(end - p);
        snprintf(msg, sizeof(msg), "Expected to read %ld bytes, got %zu bytes", len + 2,
                 have > static_cast<size_t>(len) + 2 ? static_cast<size_t>(len) + 2 : have);
        return more(p, msg);
      }
      argv->emplace_back(p, static_cast<size_t>(len));
      p += len + 2;
      pending_lines_++;
    }
    *used = static_cast<size_t>(p - start);
    return Parse::kDone;
  }

  // Not enough bytes: more must be read, or (at EOF) the command is truncated at `at`.
  Parse more(const char* at, const char* msg) {
    error = msg;
    error_offset = base_ + static_cast<uint64_t>(at - buf_.data());
    return Parse::kMore;
  }

  int fd_;
  uint64_t base_;          // file offset of buf_[0]
  std::string buf_;
  size_t pos_ = 0;         // consumed bytes of buf_
  bool eof_ = false;
  int io_error_ = 0;
  uint64_t lines_ = 0, pending_lines_ = 0;
};

bool is_multi(std::string_view a) { return a.size() == 5 && strncasecmp(a.data(), "multi", 5) == 0; }
bool is_exec(std::string_view a) { return a.size() == 4 && strncasecmp(a.data(), "exec", 4) == 0; }

bool has_rdb_preamble(int fd) {
  char sig[5];
  return pread(fd, sig, 5, 0) == 5 && memcmp(sig, "REDIS", 5) == 0;
}

}  // namespace

AofLoadStatus aof_load_file(const std::string& name, bool last, uint64_t before) {
  const AofOptions& o = aof_options();
  const std::string path = aof_file_path(name);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      LOG_WARNING("The append log file %s doesn't exist: %s", name.c_str(), strerror(errno));
      return AofLoadStatus::kNotExist;
    }
    LOG_WARNING("Fatal error: can't open the append log file %s for reading: %s", name.c_str(), strerror(errno));
    return AofLoadStatus::kFailed;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0 || sb.st_size == 0) {
    close(fd);
    return AofLoadStatus::kEmpty;
  }
  LoadingState& ls = loading_state();
  uint64_t start = 0;
  const bool old_style = name == o.filename;
  if (has_rdb_preamble(fd)) {
    LOG_NOTICE(old_style ? "Reading RDB preamble from AOF file..." : "Reading RDB base file on AOF loading...");
    RdbLoadResult r = rdb_load_file(path, false, /*aof_preamble=*/true);
    if (r.status != RdbLoadResult::kOk) {
      if (r.status == RdbLoadResult::kError) {
        LOG_WARNING("Internal error in RDB reading offset %llu of file %s -> %s",
                    static_cast<unsigned long long>(r.offset), name.c_str(), r.reason.c_str());
      }
      LOG_WARNING(old_style ? "Error reading the RDB preamble of the AOF file %s, AOF loading aborted"
                            : "Error reading the RDB base file %s, AOF loading aborted",
                  name.c_str());
      close(fd);
      return AofLoadStatus::kFailed;
    }
    start = r.end_offset;
    if (old_style) LOG_NOTICE("Reading the remaining AOF tail...");
  }
  AofScanner sc(fd, start);
  std::vector<std::string_view> argv;
  std::vector<std::vector<std::string>> multi;  // a transaction's commands, run at its EXEC
  bool in_multi = false;
  uint64_t valid_up_to = start, valid_before_multi = start;
  uint64_t next_events = start + static_cast<uint64_t>(persistence_options().loading_events_interval);
  const bool was_loading = g_clock.loading;
  g_clock.loading = true;
  AofLoadStatus ret = AofLoadStatus::kOk;
  bool truncated = false;
  for (;;) {
    const AofScanner::Result res = sc.next(&argv);
    if (res == AofScanner::kEnd) break;
    if (res == AofScanner::kTruncated) {
      truncated = true;
      break;
    }
    if (res == AofScanner::kFormat) {
      LOG_WARNING("Bad file format reading the append only file %s: make a backup of your AOF file, then use "
                  "./redis-check-aof --fix <filename.manifest>", name.c_str());
      ret = AofLoadStatus::kFailed;
      break;
    }
    if (res == AofScanner::kIoError) {
      LOG_WARNING("Unrecoverable error reading the append only file %s: %s", name.c_str(), strerror(sc.io_errno()));
      ret = AofLoadStatus::kFailed;
      break;
    }
    if (!g_aof_hooks.known(argv)) {
      LOG_WARNING("Unknown command '%s' reading the append only file %s", std::string(argv[0]).c_str(),
                  name.c_str());
      ret = AofLoadStatus::kFailed;
      break;
    }
    if (is_multi(argv[0])) {
      // A MULTI inside a transaction changes nothing (Redis's EXEC refuses the nested one).
      if (!in_multi) valid_before_multi = valid_up_to;
      in_multi = true;
    } else if (in_multi && is_exec(argv[0])) {
      std::vector<std::string_view> views;
      for (const auto& cmd : multi) {
        views.assign(cmd.begin(), cmd.end());
        g_aof_hooks.exec(views);
      }
      multi.clear();
      in_multi = false;
    } else if (in_multi) {
      multi.emplace_back(argv.begin(), argv.end());
    } else {
      g_aof_hooks.exec(argv);
    }
    valid_up_to = sc.offset();
    if (g_rdb_load_events != nullptr && valid_up_to >= next_events) {
      next_events = valid_up_to + static_cast<uint64_t>(persistence_options().loading_events_interval);
      ls.loaded_bytes = before + valid_up_to;
      g_rdb_load_events();
    }
  }
  g_clock.loading = was_loading;
  close(fd);
  if (ret == AofLoadStatus::kFailed) return ret;
  // A transaction without its EXEC at the end is treated as a short read: it is dropped.
  if (!truncated && in_multi) {
    LOG_WARNING("Revert incomplete MULTI/EXEC transaction in AOF file %s", name.c_str());
    truncated = true;
  }
  // Cut before an unfinished transaction also when its last command is cut short. (Redis 7.0
  // cuts after the last whole command, inside the transaction: what the server appends next
  // then belongs to that MULTI, and the next load reverts it with it, acknowledged writes
  // included. A SIGKILL during the AOF write of a MULTI or a script's effects leaves such a
  // file.)
  if (in_multi) valid_up_to = valid_before_multi;
  if (!truncated) return AofLoadStatus::kOk;
  if (o.load_truncated && last) {
    LOG_WARNING("!!! Warning: short read while loading the AOF file %s!!!", name.c_str());
    LOG_WARNING("!!! Truncating the AOF %s at offset %llu !!!", name.c_str(),
                static_cast<unsigned long long>(valid_up_to));
    if (truncate(path.c_str(), static_cast<off_t>(valid_up_to)) == -1) {
      LOG_WARNING("Error truncating the AOF file %s: %s", name.c_str(), strerror(errno));
    } else {
      LOG_WARNING("AOF %s loaded anyway because aof-load-truncated is enabled", name.c_str());
      return AofLoadStatus::kTruncated;
    }
  } else if (o.load_truncated) {
    // Only the last file may be cut short; aof_load_on_startup says so.
    return AofLoadStatus::kTruncated;
  }
  LOG_WARNING("Unexpected end of file reading the append only file %s. You can: 1) Make a backup of your AOF "
              "file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the "
              "'aof-load-truncated' configuration option to yes and restart the server.", name.c_str());
  return AofLoadStatus::kFailed;
}

// ---- keel-check-aof -----------------------------------------------------------------------------

namespace {

enum class CheckResult { kValid, kEmpty, kInvalid, kFailed };

struct CheckOutcome {
  CheckResult result = CheckResult::kValid;
  uint64_t size = 0, ok_up_to = 0;
  int64_t ts_cut = -1;  // --truncate-to-timestamp: the offset to cut at (-1: nothing later)
};

// Checks one file: the RDB preamble (through the RDB checker) and the commands after it.
CheckOutcome check_file(const std::string& path, const std::string& shown, int64_t ts_limit) {
  CheckOutcome out;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    printf("Cannot open file %s: %s, aborting...\n", path.c_str(), strerror(errno));
    out.result = CheckResult::kFailed;
    return out;
  }
  struct stat sb;
  fstat(fd, &sb);
  out.size = static_cast<uint64_t>(sb.st_size);
  if (out.size == 0) {
    close(fd);
    out.result = CheckResult::kEmpty;
    return out;
  }
  uint64_t start = 0;
  if (has_rdb_preamble(fd)) {
    std::string data(out.size, '\0');
    if (pread(fd, data.data(), data.size(), 0) != static_cast<ssize_t>(data.size())) {
      printf("Cannot read file %s: %s, aborting...\n", path.c_str(), strerror(errno));
      close(fd);
      out.result = CheckResult::kFailed;
      return out;
    }
    printf("[offset 0] Checking RDB file %s\n", shown.c_str());
    RdbLoadResult r = rdb_check_memory(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    if (r.status != RdbLoadResult::kOk) {
      printf("--- RDB ERROR DETECTED ---\n[offset %llu] %s\n", static_cast<unsigned long long>(r.offset),
             r.reason.c_str());
      printf("RDB preamble of AOF file is not sane, aborting.\n");
      close(fd);
      out.result = CheckResult::kFailed;
      return out;
    }
    printf("[offset %llu] \\o/ RDB looks OK! \\o/\n", static_cast<unsigned long long>(r.end_offset));
    printf("[info] %llu keys read\n", static_cast<unsigned long long>(r.keys_loaded));
    printf("[info] %llu already expired\n", static_cast<unsigned long long>(r.keys_expired));
    printf("RDB preamble is OK, proceeding with AOF tail...\n");
    start = r.end_offset;
  }
  AofScanner sc(fd, start);
  sc.ts_limit = ts_limit;
  std::vector<std::string_view> argv;
  bool in_multi = false;
  uint64_t ok = start, before_multi = start;
  std::string error;
  uint64_t error_offset = 0;
  bool bad = false;
  for (;;) {
    const AofScanner::Result res = sc.next(&argv);
    if (res == AofScanner::kEnd) {
      if (!in_multi) ok = sc.offset();  // trailing annotations are fine
      break;
    }
    if (res == AofScanner::kIoError) {
      printf("Failed to read from %s: %s\n", shown.c_str(), strerror(sc.io_errno()));
      close(fd);
      out.result = CheckResult::kFailed;
      return out;
    }
    if (res == AofScanner::kFormat) {
      if (sc.error.empty()) {
        printf("AOF %s format error\n", shown.c_str());
      } else {
        printf("0x%16llx: %s\n", static_cast<unsigned long long>(sc.error_offset), sc.error.c_str());
      }
      bad = true;
      break;
    }
    if (res == AofScanner::kTruncated) {
      error = sc.error;
      error_offset = sc.error_offset;
      bad = true;
      break;
    }
    if (is_multi(argv[0])) {
      if (in_multi) {
        error = "Unexpected MULTI";
        error_offset = ok;
        bad = true;
        break;
      }
      before_multi = ok;
      in_multi = true;
    } else if (is_exec(argv[0])) {
      if (!in_multi) {
        error = "Unexpected EXEC";
        error_offset = ok;
        bad = true;
        break;
      }
      in_multi = false;
    }
    ok = sc.offset();
  }
  if (!bad && in_multi) {
    error = "Reached EOF before reading EXEC for MULTI";
    error_offset = ok;
    bad = true;
  }
  if (bad && in_multi) ok = before_multi;
  if (!bad && sc.ts_cut >= 0) {  // cut there; what follows is not looked at
    close(fd);
    out.ts_cut = sc.ts_cut;
    out.ok_up_to = static_cast<uint64_t>(sc.ts_cut);
    out.result = CheckResult::kValid;
    return out;
  }
  if (!error.empty()) printf("0x%16llx: %s\n", static_cast<unsigned long long>(error_offset), error.c_str());
  close(fd);
  out.ok_up_to = ok;
  out.result = ok == out.size ? CheckResult::kValid : CheckResult::kInvalid;
  // redis-check-aof prints no analysis when asked to cut at a timestamp and the file is whole.
  if (ts_limit >= 0 && out.result == CheckResult::kValid) return out;
  printf("AOF analyzed: filename=%s, size=%llu, ok_up_to=%llu, ok_up_to_line=%llu, diff=%llu\n", shown.c_str(),
         static_cast<unsigned long long>(out.size), static_cast<unsigned long long>(ok),
         static_cast<unsigned long long>(sc.lines() + 1), static_cast<unsigned long long>(out.size - ok));
  out.result = ok == out.size ? CheckResult::kValid : CheckResult::kInvalid;
  return out;
}

// --fix: truncates the file after asking, as redis-check-aof.
bool fix_file(const std::string& path, const std::string& shown, const CheckOutcome& c) {
  printf("This will shrink the AOF %s from %llu bytes, with %llu bytes, to %llu bytes\n", shown.c_str(),
         static_cast<unsigned long long>(c.size), static_cast<unsigned long long>(c.size - c.ok_up_to),
         static_cast<unsigned long long>(c.ok_up_to));
  printf("Continue? [y/N]: ");
  fflush(stdout);
  char buf[2];
  if (fgets(buf, sizeof(buf), stdin) == nullptr || (buf[0] != 'y' && buf[0] != 'Y')) {
    printf("Aborting...\n");
    return false;
  }
  if (truncate(path.c_str(), static_cast<off_t>(c.ok_up_to)) == -1) {
    printf("Failed to truncate AOF %s\n", shown.c_str());
    return false;
  }
  printf("Successfully truncated AOF %s\n", shown.c_str());
  return true;
}

bool looks_like_manifest(const std::string& path) {
  FILE* f = fopen(path.c_str(), "r");
  if (!f) return false;
  char buf[1100];
  bool manifest = false;
  while (fgets(buf, sizeof(buf), f)) {
    if (buf[0] == '#') continue;
    manifest = strncmp(buf, "file ", 5) == 0;
    break;
  }
  fclose(f);
  return manifest;
}

}  // namespace

namespace {
// --truncate-to-timestamp: false (and the message) when the file cannot be cut as asked.
bool apply_ts_cut(const std::string& path, const std::string& shown, const CheckOutcome& c,
                  int64_t ts, bool last, bool* cut) {
  *cut = false;
  if (ts < 0) return true;
  if (c.ts_cut < 0) {
    printf("Truncate nothing in AOF %s to timestamp %lld\n", shown.c_str(), static_cast<long long>(ts));
    return true;
  }
  if (c.ts_cut == 0) {
    printf("AOF %s has nothing before timestamp %lld, aborting...\n", shown.c_str(), static_cast<long long>(ts));
    return false;
  }
  if (!last) {
    // This line names the file by its path from the manifest's directory ("./" when none).
    const std::string where = path.find('/') == std::string::npos ? "./" + path : path;
    printf("Failed to truncate AOF %s to timestamp %lld to offset %lld because it is not the last file.\n",
           where.c_str(), static_cast<long long>(ts), static_cast<long long>(c.ts_cut));
    printf("If you insist, please delete all files after this file according to the manifest file and delete "
           "the corresponding records in manifest file manually. Then re-run redis-check-aof.\n");
    return false;
  }
  if (truncate(path.c_str(), static_cast<off_t>(c.ts_cut)) == -1) {
    printf("Failed to truncate AOF %s to timestamp %lld\n", shown.c_str(), static_cast<long long>(ts));
    return false;
  }
  printf("Successfully truncated AOF %s to timestamp %lld\n", shown.c_str(), static_cast<long long>(ts));
  *cut = true;
  return true;
}
}  // namespace

int aof_check_main(int argc, char** argv) {
  bool fix = false;
  int64_t ts = -1;
  if (argc == 3 && strcmp(argv[1], "--fix") == 0) {
    fix = true;
  } else if (argc == 4 && strcmp(argv[1], "--truncate-to-timestamp") == 0) {
    char* end = nullptr;
    errno = 0;
    ts = strtoll(argv[2], &end, 10);
    if (errno != 0 || end == argv[2] || *end != '\0' || ts < 0) {
      printf("Invalid timestamp, aborting...\n");
      return 1;
    }
  } else if (argc == 3) {
    printf("Invalid argument: %s\n", argv[1]);
    return 1;
  } else if (argc != 2) {
    printf("Usage: %s [--fix|--truncate-to-timestamp $timestamp] <file.manifest|file.aof>\n", argv[0]);
    return 1;
  }
  const std::string input = argv[argc - 1];
  if (!looks_like_manifest(input)) {
    printf("Start checking Old-Style AOF\n");
    const CheckOutcome c = check_file(input, input, ts);
    if (c.result == CheckResult::kFailed) return 1;
    bool cut = false;
    if (!apply_ts_cut(input, input, c, ts, true, &cut)) return 1;
    if (cut) return 0;
    if (c.result == CheckResult::kEmpty) {
      printf("Empty AOF file: %s\n", input.c_str());
      return 0;
    }
    if (c.result == CheckResult::kValid) {
      printf("AOF %s is valid\n", input.c_str());
      return 0;
    }
    if (!fix) {
      printf("AOF %s is not valid. Use the --fix option to try fixing it.\n", input.c_str());
      return 1;
    }
    return fix_file(input, input, c) ? 0 : 1;
  }
  printf("Start checking Multi Part AOF\n");
  FILE* f = fopen(input.c_str(), "r");
  std::string text;
  if (f) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
    fclose(f);
  }
  AofManifest m;
  std::string err, line_text;
  int lineno = 0;
  if (!aof_parse_manifest(text, &m, &err, &lineno, &line_text)) {
    printf("Invalid AOF manifest file format: %s (line %d)\n", err.c_str(), lineno);
    return 1;
  }
  const size_t slash = input.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : input.substr(0, slash + 1);
  std::vector<AofInfo> files;
  if (m.base) files.push_back(*m.base);
  for (const AofInfo& i : m.incrs) files.push_back(i);
  for (size_t k = 0; k < files.size(); k++) {
    const AofInfo& fi = files[k];
    const bool is_base = fi.type == 'b';
    const bool last = k + 1 == files.size();
    const std::string path = dir + fi.name;
    if (is_base) {
      int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      const bool rdb = fd >= 0 && has_rdb_preamble(fd);
      if (fd >= 0) close(fd);
      printf("Start to check BASE AOF (%s format).\n", rdb ? "RDB" : "RESP");
    } else if (k == (m.base ? 1u : 0u)) {
      printf("Start to check INCR files.\n");
    }
    const CheckOutcome c = check_file(path, fi.name, ts);
    const char* kind = is_base ? "BASE" : "INCR";
    if (c.result == CheckResult::kFailed) return 1;
    bool cut = false;
    if (!apply_ts_cut(path, fi.name, c, ts, last, &cut)) return 1;
    if (cut) continue;
    if (c.result == CheckResult::kEmpty) {
      printf("%s AOF %s is empty\n", kind, fi.name.c_str());
      continue;
    }
    if (c.result == CheckResult::kValid) {
      printf("%s AOF %s is valid\n", kind, fi.name.c_str());
      continue;
    }
    if (!last) {
      // Only the last file may be truncated: a damaged earlier file cannot be fixed by cutting.
      printf("%s AOF %s is not valid and is not the last file: it can't be fixed by truncation.\n", kind,
             fi.name.c_str());
      return 1;
    }
    if (!fix) {
      printf("AOF %s is not valid. Use the --fix option to try fixing it.\n", fi.name.c_str());
      return 1;
    }
    if (!fix_file(path, fi.name, c)) return 1;
  }
  printf("All AOF files and manifest are valid\n");
  return 0;
}

}  // namespace keel
