// Always-on and debug-only assertions, panics, and branch hints. Nothing here formats unless a
// check fails. A failure writes a crash report (base/crash.h) and aborts.
#pragma once

namespace keel {
[[noreturn]] void assert_failed(const char* expr, const char* file, int line);
// Redis's serverPanic: "Guru Meditation: <message> #<file>:<line>", crash report, abort.
[[noreturn]] void panic_failed(const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
}  // namespace keel

#define KEEL_LIKELY(x) __builtin_expect(!!(x), 1)
#define KEEL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define KEEL_ASSERT(x) \
  (KEEL_LIKELY(x) ? (void)0 : ::keel::assert_failed(#x, __FILE__, __LINE__))
#define KEEL_PANIC(...) ::keel::panic_failed(__FILE__, __LINE__, __VA_ARGS__)
#ifdef NDEBUG
#define KEEL_DCHECK(x) ((void)0)
#else
#define KEEL_DCHECK(x) KEEL_ASSERT(x)
#endif
