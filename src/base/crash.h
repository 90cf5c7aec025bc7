// Crash reports in the layout of Redis's bug report: on SIGSEGV, SIGBUS, SIGFPE, SIGILL and
// SIGABRT, and on a failed KEEL_ASSERT or a KEEL_PANIC, the log gets a block between
// "=== KEEL BUG REPORT START ..." and "=== KEEL BUG REPORT END ..." lines with the signal, the
// faulting address, a symbolised stack trace and what the server layer adds (the command being
// run, INFO, CLIENT LIST). Then the process ends with the signal's status (SIGABRT for
// assertions and panics).
//
// The report runs in a signal handler, possibly on a corrupted heap: everything up to the stack
// trace is formatted into a static buffer and written with write(2); the parts that need the
// heap (demangling, INFO) come after the parts that do not. Function names come from the
// dynamic symbol table (dladdr) and, for functions with internal linkage, from the executable's
// own .symtab, mapped and indexed at start-up. A fault while reporting re-enters
// the handler, which prints the raw stack trace captured first, the END line, and ends the
// process with the original signal; a third fault gets the default action. A watchdog alarm
// ends the process if the report hangs (e.g. on a lock held by the crashed code).
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel {

struct CrashOptions {
  bool log_enabled = true;       // crash-log-enabled: handlers installed, full reports
  bool memcheck_enabled = true;  // crash-memcheck-enabled: the FAST MEMORY TEST section
};
CrashOptions& crash_options();

// Installs the fatal-signal handlers when crash-log-enabled is yes and removes them (default
// actions) when no. Called at start-up (after the log is open) and by CONFIG SET.
// `program` names the server in the report's first line ("Keel 0.1.0 crashed by signal ...").
void crash_handlers_setup(const char* program);
// Applies a changed crash-log-enabled (CONFIG SET); nothing before crash_handlers_setup.
void crash_handlers_refresh();

// The server layer's part of the report, run after the stack trace. It writes through the
// crash_out functions below; it may use the heap but should do its heap-free parts first.
using CrashReportBody = void (*)();
void set_crash_report_body(CrashReportBody fn);

// Test hook (DEBUG SEGFAULT-IN-REPORT): the next report faults right after its stack trace,
// to exercise the reduced report.
void crash_fault_in_report(bool on);

// Async-signal-safe output to the log's descriptor through a static buffer (no allocation).
namespace crash_out {
void raw(const char* s, size_t n);
void str(const char* s);
void u64(uint64_t v);
void i64(int64_t v);
void hex(uint64_t v, int min_digits = 0);  // lower-case, no "0x"
// Starts a line in the log's format, "<pid>:M <dd Mon yyyy hh:mm:ss.mmm> # ".
void line_start();
// `s` quoted as Redis's sdscatrepr does ("..." with \n \r \t \a \b \\ \" \xHH escapes), at most
// `max` bytes of it, then " ... (N more bytes)" when cut.
void repr(const char* s, size_t n, size_t max);
void flush();
}  // namespace crash_out

// Formats `unix_ms` plus `utc_offset_s` as the log's "dd Mon yyyy hh:mm:ss.mmm" (24 bytes
// and a NUL) without localtime (not async-signal-safe). Exposed for the unit test.
void crash_format_time(int64_t unix_ms, int64_t utc_offset_s, char out[32]);

}  // namespace keel
