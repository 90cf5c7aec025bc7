// jemalloc statistics; sanitizer builds define KEEL_NO_JEMALLOC and fall back to mallinfo2.
#include "base/memory.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#ifndef KEEL_NO_JEMALLOC
#include <jemalloc/jemalloc.h>
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

bool set_allocator_background_thread(bool enable) {
#ifndef KEEL_NO_JEMALLOC
  return mallctl("background_thread", nullptr, nullptr, &enable, sizeof(enable)) == 0;
#else
  (void)enable;
  return false;
#endif
}

}  // namespace keel
