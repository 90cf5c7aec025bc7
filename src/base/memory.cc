// jemalloc statistics; sanitizer builds define KEEL_NO_JEMALLOC and fall back to mallinfo2.
#include "base/memory.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#ifndef KEEL_NO_JEMALLOC
#include <jemalloc/jemalloc.h>  // also declares malloc_usable_size
#else
#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__)
// From the ASan runtime (its header is not shipped with Debian's g++).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif
#endif

namespace keel {

size_t used_memory() {
#ifndef KEEL_NO_JEMALLOC
  // stats.allocated is refreshed by bumping the epoch; that costs a few microseconds, so callers
  // on hot paths (maxmemory checks) should cache the value per event-loop iteration.
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  mallctl("epoch", &epoch, &sz, &epoch, sz);
  size_t allocated = 0;
  sz = sizeof(allocated);
  if (mallctl("stats.allocated", &allocated, &sz, nullptr, 0) != 0) return 0;
  return allocated;
#elif defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();  // ASan's allocator does not fill mallinfo
#else
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
#endif
}

size_t rss_memory() {
  FILE* f = fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int n = fscanf(f, "%lu %lu", &size, &resident);
  fclose(f);
  if (n != 2) return 0;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

uint64_t thread_allocated_bytes() {
#ifndef KEEL_NO_JEMALLOC
  uint64_t v = 0;
  size_t sz = sizeof(v);
  if (mallctl("thread.allocated", &v, &sz, nullptr, 0) != 0) return 0;
  return v;
#else
  return 0;
#endif
}

const char* allocator_name() {
#ifndef KEEL_NO_JEMALLOC
  return "jemalloc";
#else
  return "libc";
#endif
}

size_t usable_size_of_new(void* block, size_t request) {
#ifndef KEEL_NO_JEMALLOC
  (void)block;
  return nallocx(request, 0);
#else
  (void)request;
  return malloc_usable_size(block);
#endif
}

void* resize_block(void* block, size_t old_size, size_t new_size) {
#ifndef KEEL_NO_JEMALLOC
  if (block != nullptr && nallocx(old_size, 0) == nallocx(new_size, 0)) return block;
#else
  (void)old_size;
#endif
  return std::realloc(block, new_size);
}

size_t allocation_size(const void* block) {
  if (block == nullptr) return 0;
  // With jemalloc linked this is jemalloc's malloc_usable_size (the block's size class).
  return malloc_usable_size(const_cast<void*>(block));
}

namespace {
size_t g_startup_memory = 0;
size_t g_peak_memory = 0;
}  // namespace

void memory_mark_startup() { g_startup_memory = used_memory(); }
size_t memory_startup() { return g_startup_memory; }

size_t memory_peak_update(size_t used) {
  if (used > g_peak_memory) g_peak_memory = used;
  return g_peak_memory;
}

AllocatorStats allocator_stats() {
  AllocatorStats st;
#ifndef KEEL_NO_JEMALLOC
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  mallctl("epoch", &epoch, &sz, &epoch, sz);
  auto get = [](const char* name, size_t* out) {
    size_t len = sizeof(*out);
    if (mallctl(name, out, &len, nullptr, 0) != 0) *out = 0;
  };
  get("stats.allocated", &st.allocated);
  get("stats.active", &st.active);
  get("stats.resident", &st.resident);
  get("stats.retained", &st.retained);
  size_t pmuzzy = 0;
  char name[64];
  snprintf(name, sizeof(name), "stats.arenas.%u.pmuzzy", static_cast<unsigned>(MALLCTL_ARENAS_ALL));
  get(name, &pmuzzy);
  st.muzzy = pmuzzy * static_cast<size_t>(sysconf(_SC_PAGESIZE));
#else
  st.allocated = used_memory();
  st.active = st.allocated;
  st.resident = rss_memory();
#endif
  return st;
}

std::string allocator_report() {
#ifndef KEEL_NO_JEMALLOC
  std::string out;
  malloc_stats_print(
      [](void* ctx, const char* text) { static_cast<std::string*>(ctx)->append(text); }, &out,
      nullptr);
  return out;
#else
  return "Stats not supported for the current allocator";
#endif
}

bool allocator_purge() {
#ifndef KEEL_NO_JEMALLOC
  char name[64];
  snprintf(name, sizeof(name), "arena.%u.purge", static_cast<unsigned>(MALLCTL_ARENAS_ALL));
  return mallctl(name, nullptr, nullptr, nullptr, 0) == 0;
#else
  return true;
#endif
}

bool set_allocator_background_thread(bool enable) {
#ifndef KEEL_NO_JEMALLOC
  return mallctl("background_thread", nullptr, nullptr, &enable, sizeof(enable)) == 0;
#else
  (void)enable;
  return false;
#endif
}

}  // namespace keel
