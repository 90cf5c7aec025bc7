// Memory statistics from jemalloc (or from the C library in sanitizer builds, which cannot use
// jemalloc): used_memory for INFO and maxmemory, RSS, and the per-thread allocation counter that
// tests use to prove the hot path does not allocate.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace keel {

// Bytes allocated by the program: what INFO used_memory reports and maxmemory is compared
// with. jemalloc's stats.allocated when first asked, then exact per-thread deltas (see
// used_memory_fast); the allocator's own figure is in allocator_stats().
size_t used_memory();
// The figure itself: jemalloc's stats.allocated when first asked, plus what the calling (main)
// thread allocated minus what it freed since, read from jemalloc's per-thread counters (two
// loads, no epoch bump), plus what other threads reported through memory_add_foreign (the
// lazyfree thread). Without jemalloc (sanitizer builds) it is used_memory().
size_t used_memory_fast();
// The calling thread's bytes allocated minus freed, ever (0 without jemalloc): a thread that
// frees the main thread's memory measures itself around the work and reports the difference.
int64_t thread_net_allocated();
void memory_add_foreign(int64_t delta);
size_t rss_memory();        // resident set size from /proc/self/statm
uint64_t thread_allocated_bytes();  // jemalloc thread.allocated; 0 when unavailable
const char* allocator_name();
// Usable size of `block`, which was just returned by malloc(request). With jemalloc this is the
// size class of `request` (arithmetic, no lookup of the block); otherwise malloc_usable_size.
size_t usable_size_of_new(void* block, size_t request);
// realloc(block, new_size) for a block last (re)allocated at old_size bytes, skipping the call
// when jemalloc would keep the block where it is anyway (both sizes in the same size class): a
// listpack that grows or shrinks by a few bytes per push or pop then costs no allocator call.
// Sanitizer builds always realloc, so ASan checks accesses against the exact size.
void* resize_block(void* block, size_t old_size, size_t new_size);
// jemalloc's background purging thread (jemalloc-bg-thread): true when the allocator accepted
// the setting; false without jemalloc or when it lacks background-thread support.
bool set_allocator_background_thread(bool enable);

// ---- MEMORY USAGE / STATS / MALLOC-STATS / PURGE ------------------------------------------
// Bytes the allocator reserved for a live block (its size class); 0 for null.
size_t allocation_size(const void* block);
// used_memory() when the server finished starting (before loading data): MEMORY STATS'
// startup.allocated.
void memory_mark_startup();
size_t memory_startup();
// Raises the recorded peak to `used` if higher; returns the peak (INFO used_memory_peak).
size_t memory_peak_update(size_t used);
struct AllocatorStats {
  size_t allocated = 0;  // bytes in live allocations
  size_t active = 0;     // bytes of pages holding them
  size_t resident = 0;   // bytes of resident pages the allocator maps (metadata included)
  size_t muzzy = 0;      // bytes of purged-lazily (MADV_FREE) pages
  size_t retained = 0;   // virtual memory kept mapped but returned to the OS
};
AllocatorStats allocator_stats();  // refreshes jemalloc's statistics first
// The allocator's own report (jemalloc's malloc_stats_print), or a one-line note without it.
std::string allocator_report();
// Returns unused dirty pages of every arena to the OS; false when the allocator refused.
bool allocator_purge();

}  // namespace keel
