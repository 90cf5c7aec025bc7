// Crash reports (crash.h): the fatal-signal handler, the assertion and panic reports, the
// async-signal-safe writer and the symbolised stack trace. Line texts follow Redis's bug report
// (debug.c) with KEEL in place of REDIS, so people and tools that read Redis reports find the
// same sections.
#include "base/crash.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "base/assert.h"
#include "base/log.h"

namespace keel {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr unsigned kWatchdogSeconds = 30;
constexpr int kMaxFrames = 100;

CrashOptions g_options;
CrashReportBody g_body = nullptr;
const char* g_program = "Keel";
int64_t g_utc_offset_s = 0;

// 0: no report; 1: a report is being written (by g_owner); 2: a fault interrupted it and the
// reduced report is being written.
std::atomic<int> g_state{0};
pthread_t g_owner;
int g_exit_signal = SIGABRT;  // what the process dies of once the report is written
// The first crash's stack, captured before anything else so that a fault later in the report
// can still print it (raw, without demangling).
void* g_frames[kMaxFrames];
int g_nframes = 0;
int g_skip_frames = 0;  // the handler's own frame

char g_out[8192];
size_t g_out_len = 0;

// The handler runs on its own stack, so a stack overflow is reported too. Static: untouched
// pages of .bss cost no memory.
alignas(16) char g_altstack[256 * 1024];
bool g_prepared = false;  // crash_handlers_setup ran
bool g_fault_in_report = false;
// A read-only page for the test hook to write to: a real fault, not undefined behaviour a
// sanitizer would stop first.
volatile char* g_fault_page = nullptr;

void write_all(const char* p, size_t n) {
  const int fd = log_fd();
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGALRM: return "SIGALRM";
    default: return "signal";
  }
}

// Ends the process with `sig` and its default action (core dump where enabled), so the exit
// status tells what happened.
[[noreturn]] void die(int sig) {
  crash_out::flush();
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  kill(getpid(), sig);
  _exit(128 + sig);
}

[[noreturn]] void wait_forever() {
  for (;;) pause();
}

// 1: this thread writes the report; 0: this thread is already writing one (a fault inside the
// report); -1: another thread is (this one waits to be killed with the process).
int enter_report(int exit_signal) {
  int expected = 0;
  if (g_state.compare_exchange_strong(expected, 1)) {
    g_owner = pthread_self();
    g_exit_signal = exit_signal;
    return 1;
  }
  return pthread_equal(g_owner, pthread_self()) ? 0 : -1;
}

void on_watchdog(int) {
  static const char kMsg[] =
      "\nThe crash report did not complete within its time limit; exiting without it.\n";
  write_all(kMsg, sizeof(kMsg) - 1);
  die(g_exit_signal);
}

void start_watchdog() {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_watchdog;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NODEFER | SA_ONSTACK;
  sigaction(SIGALRM, &sa, nullptr);
  alarm(kWatchdogSeconds);
}

void set_default_actions() {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int sig : kFatalSignals) sigaction(sig, &sa, nullptr);
}

// ---- local symbols of the executable -------------------------------------------------------
// dladdr() only sees the dynamic symbol table, which -rdynamic fills with functions of external
// linkage; static functions and everything in anonymous namespaces (most command handlers) would
// print as "+0x...". At start-up the executable's own .symtab is mapped read-only and its
// function symbols are indexed by address, so the handler can name them with a binary search
// (no allocation, no locks). A stripped binary simply has no table.
struct LocalSym {
  uintptr_t addr;  // relative to the load base
  uintptr_t size;
  const char* name;  // into the mapped string table
};
LocalSym* g_local_syms = nullptr;
size_t g_local_nsyms = 0;
uintptr_t g_exe_base = 0;  // load address of the executable (PIE)

int find_exe_base(dl_phdr_info* info, size_t, void* out) {
  // The first object dl_iterate_phdr reports is the executable itself.
  *static_cast<uintptr_t*>(out) = info->dlpi_addr;
  return 1;
}

void load_local_symbols() {
  const int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  void* map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  }
  close(fd);
  if (map == MAP_FAILED) return;
  const size_t size = static_cast<size_t>(st.st_size);
  const auto* base = static_cast<const unsigned char*>(map);
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  const bool ok = memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
                  eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shoff < size &&
                  eh->e_shnum <= (size - eh->e_shoff) / sizeof(Elf64_Shdr);
  if (!ok) {
    munmap(map, size);
    return;
  }
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr& strs = sh[sh[i].sh_link];
    if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset || strs.sh_offset > size ||
        strs.sh_size > size - strs.sh_offset || strs.sh_size == 0) {
      break;
    }
    const auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
    const size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    const char* names = reinterpret_cast<const char*>(base + strs.sh_offset);
    // Owned for the life of the process (as is the mapping): the handler reads them.
    auto* table = new LocalSym[n];
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
      if (ELF64_ST_TYPE(syms[j].st_info) != STT_FUNC || syms[j].st_value == 0 ||
          syms[j].st_name >= strs.sh_size) {
        continue;
      }
      table[k++] = {syms[j].st_value, syms[j].st_size, names + syms[j].st_name};
    }
    std::sort(table, table + k, [](const LocalSym& a, const LocalSym& b) { return a.addr < b.addr; });
    g_local_syms = table;
    g_local_nsyms = k;
    dl_iterate_phdr(find_exe_base, &g_exe_base);
    return;  // the mapping stays: the names point into it
  }
  munmap(map, size);
}

// The function of the executable holding `a` (an absolute address), or null.
const LocalSym* local_symbol(uintptr_t a) {
  if (g_local_nsyms == 0 || a < g_exe_base) return nullptr;
  const uintptr_t rel = a - g_exe_base;
  size_t lo = 0, hi = g_local_nsyms;  // first entry with addr > rel
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (g_local_syms[mid].addr <= rel) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return nullptr;
  const LocalSym& s = g_local_syms[lo - 1];
  return rel < s.addr + (s.size ? s.size : 1) ? &s : nullptr;
}

void report_start() {
  crash_out::str("\n\n=== KEEL BUG REPORT START: Cut & paste starting from here ===\n");
}

void report_end() {
  crash_out::str(
      "\n=== KEEL BUG REPORT END. Make sure to include from START to END. ===\n\n"
      "       Please report the crash by opening an issue in Keel's issue tracker,\n"
      "       with this report and the configuration the server ran with.\n\n"
      "  Suspect RAM error? Keel has no memory tester of its own: run memtester or\n"
      "  memtest86+ for several hours to verify it.\n\n");
  crash_out::flush();
}

// One line of the trace in backtrace_symbols_fd's format, "file(symbol+0xoff)[0xaddr]", with
// C++ names demangled when `demangle` (that allocates: not in the reduced report). A return
// address is looked up one byte back: after a call to a noreturn function (assert_failed) it
// is the first byte of whatever follows the caller. The faulting instruction itself is exact.
void write_frame(void* addr, bool demangle, bool return_address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  Dl_info di;
  const void* lookup = return_address ? reinterpret_cast<const void*>(a - 1) : addr;
  if (dladdr(lookup, &di) == 0 || di.dli_fname == nullptr) {
    crash_out::str("[0x");
    crash_out::hex(a);
    crash_out::str("]\n");
    return;
  }
  crash_out::str(di.dli_fname);
  crash_out::str("(");
  const char* sname = di.dli_sname;
  uintptr_t saddr = reinterpret_cast<uintptr_t>(di.dli_saddr);
  if (sname == nullptr && reinterpret_cast<uintptr_t>(di.dli_fbase) == g_exe_base) {
    if (const LocalSym* ls = local_symbol(reinterpret_cast<uintptr_t>(lookup))) {
      sname = ls->name;
      saddr = g_exe_base + ls->addr;
    }
  }
  if (sname != nullptr) {
    char* name = nullptr;
    if (demangle && sname[0] == '_' && sname[1] == 'Z') {
      int status = -1;
      name = abi::__cxa_demangle(sname, nullptr, nullptr, &status);
      if (status != 0) name = nullptr;
    }
    // The demangled string is not freed: free() on a possibly corrupted heap is not worth it
    // in a process about to end.
    crash_out::str(name ? name : sname);
    crash_out::str("+0x");
    crash_out::hex(a - saddr);
  } else {
    crash_out::str("+0x");
    crash_out::hex(a - reinterpret_cast<uintptr_t>(di.dli_fbase));
  }
  crash_out::str(")[0x");
  crash_out::hex(a);
  crash_out::str("]\n");
}

void write_stack_trace(void* eip) {
  crash_out::str("\n------ STACK TRACE ------\n");
  // Frames up to the faulting instruction (the signal trampoline, the instruction) are not
  // return addresses.
  int exact_until = -1;
  if (eip) {
    crash_out::str("EIP:\n");
    write_frame(eip, true, false);
    for (int i = g_skip_frames; i < g_nframes; i++) {
      if (g_frames[i] == eip) exact_until = i;
    }
  }
  crash_out::str("\nBacktrace:\n");
  for (int i = g_skip_frames; i < g_nframes; i++) write_frame(g_frames[i], true, i > exact_until);
  crash_out::flush();
}

void* instruction_pointer(void* secret) {
  const ucontext_t* uc = static_cast<const ucontext_t*>(secret);
  if (!uc) return nullptr;
#if defined(__x86_64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.pc);
#else
  return nullptr;
#endif
}

void write_registers(void* secret) {
#if defined(__x86_64__)
  const ucontext_t* uc = static_cast<const ucontext_t*>(secret);
  if (!uc) return;
  const greg_t* g = uc->uc_mcontext.gregs;
  struct Pair {
    const char* a;
    int ra;
    const char* b;
    int rb;
  };
  static const Pair kRows[] = {
      {"RAX:", REG_RAX, " RBX:", REG_RBX}, {"RCX:", REG_RCX, " RDX:", REG_RDX},
      {"RDI:", REG_RDI, " RSI:", REG_RSI}, {"RBP:", REG_RBP, " RSP:", REG_RSP},
      {"R8 :", REG_R8, " R9 :", REG_R9},   {"R10:", REG_R10, " R11:", REG_R11},
      {"R12:", REG_R12, " R13:", REG_R13}, {"R14:", REG_R14, " R15:", REG_R15},
      {"RIP:", REG_RIP, " EFL:", REG_EFL},
  };
  crash_out::str("\n------ REGISTERS ------\n");
  for (const Pair& p : kRows) {
    crash_out::str(p.a);
    crash_out::hex(static_cast<uint64_t>(g[p.ra]), 16);
    crash_out::str(p.b);
    crash_out::hex(static_cast<uint64_t>(g[p.rb]), 16);
    crash_out::str("\n");
  }
  crash_out::str("CSGSFS:");
  crash_out::hex(static_cast<uint64_t>(g[REG_CSGSFS]), 16);
  crash_out::str("\n");
  crash_out::flush();
#else
  (void)secret;
#endif
}

// The part after the stack trace: the server's sections, then the memory test section.
void write_report_tail() {
  if (g_fault_in_report) *g_fault_page = 1;  // the test hook's second fault
  if (g_body) g_body();
  crash_out::flush();
  if (g_options.memcheck_enabled) {
    // Redis writes test patterns over every anonymous mapping of the process here. Keel does
    // not: with other threads running and jemalloc's retained (untouched) address space that
    // would commit memory the process never used, and under ASan it would walk the shadow
    // mappings. The section says so instead of pretending.
    crash_out::str("\n------ FAST MEMORY TEST ------\n");
    crash_out::line_start();
    crash_out::str(
        "Fast memory test skipped: Keel does not test memory after a crash. To check this "
        "machine's RAM, run memtester or memtest86+ for several hours.\n");
  }
  crash_out::flush();
}

// A fault (or failed assertion) while the report was being written: print the stack of the
// first crash without demangling, the END line, and end the process with the first signal.
[[noreturn]] void reduced_report(const char* what, int sig) {
  if (g_state.exchange(2) == 2) die(g_exit_signal);
  set_default_actions();  // one more fault: default action
  crash_out::str("\n");
  crash_out::line_start();
  crash_out::str("Crashed running the crash report (");
  crash_out::str(what);
  if (sig != 0) {
    crash_out::str(" ");
    crash_out::i64(sig);
    crash_out::str(" (");
    crash_out::str(signal_name(sig));
    crash_out::str(")");
  }
  crash_out::str("). Reduced report: the stack trace of the first crash follows.\n");
  if (g_nframes > g_skip_frames) {
    crash_out::str("\nBacktrace:\n");
    crash_out::flush();
    backtrace_symbols_fd(g_frames + g_skip_frames, g_nframes - g_skip_frames, log_fd());
  }
  report_end();
  die(g_exit_signal);
}

void on_fatal_signal(int sig, siginfo_t* info, void* secret) {
  const int entered = enter_report(sig);
  if (entered < 0) wait_forever();
  if (entered == 0) reduced_report("signal", sig);
  g_nframes = backtrace(g_frames, kMaxFrames);
  g_skip_frames = 1;
  start_watchdog();
  report_start();
  crash_out::line_start();
  crash_out::str(g_program);
  crash_out::str(" crashed by signal: ");
  crash_out::i64(sig);
  crash_out::str(" (");
  crash_out::str(signal_name(sig));
  crash_out::str("), si_code: ");
  crash_out::i64(info->si_code);
  crash_out::str("\n");
  if (sig == SIGSEGV || sig == SIGBUS) {
    crash_out::line_start();
    crash_out::str("Accessing address: 0x");
    crash_out::hex(reinterpret_cast<uintptr_t>(info->si_addr));
    crash_out::str("\n");
  }
  if (info->si_code == SI_USER && info->si_pid != -1) {
    crash_out::line_start();
    crash_out::str("Killed by PID: ");
    crash_out::i64(info->si_pid);
    crash_out::str(", UID: ");
    crash_out::i64(info->si_uid);
    crash_out::str("\n");
  }
  void* eip = instruction_pointer(secret);
  if (eip) {
    crash_out::line_start();
    crash_out::str("Crashed running the instruction at: 0x");
    crash_out::hex(reinterpret_cast<uintptr_t>(eip));
    crash_out::str("\n");
  }
  crash_out::flush();
  write_stack_trace(eip);
  write_registers(secret);
  write_report_tail();
  report_end();
  die(sig);
}

// Assertion and panic reports: `lines` are written as log lines after the START line.
[[noreturn]] void fatal_report(const char* const* lines, int n) {
  const int entered = enter_report(SIGABRT);
  if (entered < 0) wait_forever();
  if (entered == 0) reduced_report(lines[n - 1], 0);
  g_nframes = backtrace(g_frames, kMaxFrames);
  g_skip_frames = 0;
  start_watchdog();
  report_start();
  for (int i = 0; i < n; i++) {
    crash_out::line_start();
    crash_out::str(lines[i]);
    crash_out::str("\n");
  }
  crash_out::flush();
  if (g_options.log_enabled) {
    write_stack_trace(nullptr);
    write_report_tail();
  }
  report_end();
  die(SIGABRT);
}

}  // namespace

CrashOptions& crash_options() { return g_options; }

void set_crash_report_body(CrashReportBody fn) { g_body = fn; }

void crash_fault_in_report(bool on) {
  if (on && !g_fault_page) {
    void* p = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    g_fault_page = static_cast<volatile char*>(p);
  }
  g_fault_in_report = on;
}

void crash_handlers_setup(const char* program) {
  g_program = program;
  // The log's local time without localtime() in the handler: the offset now (a DST change
  // while running shifts report timestamps by an hour, nothing else).
  const time_t now = time(nullptr);
  struct tm lt;
  if (localtime_r(&now, &lt)) g_utc_offset_s = lt.tm_gmtoff;
  if (!g_prepared) {
    g_prepared = true;
    // backtrace() loads libgcc's unwinder (malloc, dlopen) on its first call: do it now, not
    // on a broken heap.
    void* warm[4];
    backtrace(warm, 4);
    load_local_symbols();
    stack_t ss;
    memset(&ss, 0, sizeof(ss));
    ss.ss_sp = g_altstack;
    ss.ss_size = sizeof(g_altstack);
    sigaltstack(&ss, nullptr);
  }
  crash_handlers_refresh();
}

void crash_handlers_refresh() {
  if (!g_prepared) return;
  if (!g_options.log_enabled) {
    set_default_actions();
    return;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  // NODEFER: a fault inside the handler enters it again (the reduced report) instead of
  // killing the process without the END line.
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  for (int sig : kFatalSignals) sigaction(sig, &sa, nullptr);
}

void assert_failed(const char* expr, const char* file, int line) {
  char where[512];
  snprintf(where, sizeof(where), "==> %s:%d '%s' is not true", file, line, expr);
  const char* lines[] = {"=== ASSERTION FAILED ===", where};
  fatal_report(lines, 2);
}

void panic_failed(const char* file, int line, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  char guru[768];
  snprintf(guru, sizeof(guru), "Guru Meditation: %s #%s:%d", msg, file, line);
  const char* lines[] = {"------------------------------------------------",
                         "!!! Software Failure. Press left mouse button to continue", guru};
  fatal_report(lines, 3);
}

void crash_format_time(int64_t unix_ms, int64_t utc_offset_s, char out[32]) {
  static const char kMonths[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int64_t ms = unix_ms % 1000;
  int64_t secs = unix_ms / 1000;
  if (ms < 0) {
    ms += 1000;
    secs--;
  }
  secs += utc_offset_s;
  int64_t days = secs / 86400;
  int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    days--;
  }
  // Days since 1970-01-01 to a civil date (proleptic Gregorian), with 400-year eras that start
  // on March 1st so the leap day is the last day of an era's year.
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  auto two = [](char* p, int64_t v) {
    p[0] = static_cast<char>('0' + v / 10 % 10);
    p[1] = static_cast<char>('0' + v % 10);
  };
  char* p = out;
  two(p, day);
  p[2] = ' ';
  memcpy(p + 3, kMonths[month - 1], 3);
  p[6] = ' ';
  two(p + 7, year / 100);
  two(p + 9, year % 100);
  p[11] = ' ';
  two(p + 12, sod / 3600);
  p[14] = ':';
  two(p + 15, sod / 60 % 60);
  p[17] = ':';
  two(p + 18, sod % 60);
  p[20] = '.';
  p[21] = static_cast<char>('0' + ms / 100);
  two(p + 22, ms % 100);
  p[24] = 0;
}

namespace crash_out {

void flush() {
  if (g_out_len == 0) return;
  const size_t n = g_out_len;
  g_out_len = 0;
  write_all(g_out, n);
}

void raw(const char* s, size_t n) {
  if (n > sizeof(g_out) - g_out_len) {
    flush();
    if (n > sizeof(g_out)) {
      write_all(s, n);
      return;
    }
  }
  memcpy(g_out + g_out_len, s, n);
  g_out_len += n;
}

void str(const char* s) { raw(s, strlen(s)); }

void u64(uint64_t v) {
  char buf[24];
  size_t i = sizeof(buf);
  do {
    buf[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  raw(buf + i, sizeof(buf) - i);
}

void i64(int64_t v) {
  if (v < 0) {
    raw("-", 1);
    u64(~static_cast<uint64_t>(v) + 1);
  } else {
    u64(static_cast<uint64_t>(v));
  }
}

void hex(uint64_t v, int min_digits) {
  char buf[16];
  int i = 16;
  do {
    buf[--i] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v != 0);
  while (16 - i < min_digits && i > 0) buf[--i] = '0';
  raw(buf + i, static_cast<size_t>(16 - i));
}

void line_start() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  char when[32];
  crash_format_time(static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000, g_utc_offset_s,
                    when);
  i64(getpid());
  str(":M ");
  str(when);
  str(" # ");
}

void repr(const char* s, size_t n, size_t max) {
  const size_t shown = n < max ? n : max;
  raw("\"", 1);
  for (size_t i = 0; i < shown; i++) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\\': raw("\\\\", 2); break;
      case '"': raw("\\\"", 2); break;
      case '\n': raw("\\n", 2); break;
      case '\r': raw("\\r", 2); break;
      case '\t': raw("\\t", 2); break;
      case '\a': raw("\\a", 2); break;
      case '\b': raw("\\b", 2); break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          raw(reinterpret_cast<const char*>(&c), 1);
        } else {
          raw("\\x", 2);
          hex(c, 2);
        }
    }
  }
  raw("\"", 1);
  if (shown < n) {
    str(" ... (");
    u64(n - shown);
    str(" more bytes)");
  }
}

}  // namespace crash_out
}  // namespace keel
