// Always-on and debug-only assertions, and branch hints. Nothing here formats unless a check fails.
#pragma once

namespace keel {
[[noreturn]] void assert_failed(const char* expr, const char* file, int line);
// Installed by the server: prints the command being executed when an assertion fails.
using CrashContextFn = void (*)();
void set_crash_context(CrashContextFn fn);
}  // namespace keel

#define KEEL_LIKELY(x) __builtin_expect(!!(x), 1)
#define KEEL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define KEEL_ASSERT(x) \
  (KEEL_LIKELY(x) ? (void)0 : ::keel::assert_failed(#x, __FILE__, __LINE__))
#ifdef NDEBUG
#define KEEL_DCHECK(x) ((void)0)
#else
#define KEEL_DCHECK(x) KEEL_ASSERT(x)
#endif
