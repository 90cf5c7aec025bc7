// Memory statistics from jemalloc (or from the C library in sanitizer builds, which cannot use
// jemalloc): used_memory for INFO and maxmemory, RSS, and the per-thread allocation counter that
// tests use to prove the hot path does not allocate.
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel {

size_t used_memory();       // bytes allocated by the program (jemalloc stats.allocated)
size_t rss_memory();        // resident set size from /proc/self/statm
uint64_t thread_allocated_bytes();  // jemalloc thread.allocated; 0 when unavailable
const char* allocator_name();

}  // namespace keel
