// jemalloc statistics; sanitizer builds define KEEL_NO_JEMALLOC and fall back to mallinfo2.
#include "base/memory.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/assert.h"
#include "base/cpu_affinity.h"

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

namespace {
// What the allocator's statistics say is allocated now.
size_t allocator_allocated_now() {
#ifndef KEEL_NO_JEMALLOC
  // stats.allocated is refreshed by bumping the epoch, which costs a few microseconds.
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
}  // namespace

namespace {
// This thread's jemalloc counters (thread.allocatedp / thread.deallocatedp): pointers read
// once per thread, after which a read is a load.
struct ThreadCounters {
  const uint64_t* allocated = nullptr;
  const uint64_t* deallocated = nullptr;
  bool ready = false;
};
thread_local ThreadCounters t_counters;

const ThreadCounters& thread_counters() {
  ThreadCounters& t = t_counters;
  if (KEEL_UNLIKELY(!t.ready)) {
    t.ready = true;
#ifndef KEEL_NO_JEMALLOC
    uint64_t* p = nullptr;
    size_t sz = sizeof(p);
    if (mallctl("thread.allocatedp", &p, &sz, nullptr, 0) == 0) t.allocated = p;
    sz = sizeof(p);
    if (mallctl("thread.deallocatedp", &p, &sz, nullptr, 0) == 0) t.deallocated = p;
#endif
  }
  return t;
}

// The maxmemory figure: stats.allocated once, then exact per-thread deltas. stats.allocated
// itself is not re-read: it counts the regions parked in thread caches as allocated, so mixing
// a fresh read with exact deltas would make a just-freed key look still allocated (and
// eviction overshoot).
struct FastFigure {
  bool ready = false;
  size_t base = 0;
  uint64_t base_net = 0;  // the main thread's allocated - deallocated at `base`
};
FastFigure g_fast;
std::atomic<int64_t> g_foreign{0};  // net bytes other threads reported (memory_add_foreign)
}  // namespace

int64_t thread_net_allocated() {
  const ThreadCounters& t = thread_counters();
  if (!t.allocated || !t.deallocated) return 0;
  return static_cast<int64_t>(*t.allocated - *t.deallocated);
}

void memory_add_foreign(int64_t delta) { g_foreign.fetch_add(delta, std::memory_order_relaxed); }

size_t used_memory_fast() {
  const ThreadCounters& t = thread_counters();
  if (!t.allocated || !t.deallocated) return allocator_allocated_now();
  FastFigure& f = g_fast;
  if (KEEL_UNLIKELY(!f.ready)) {
    f.ready = true;
    f.base = allocator_allocated_now();
    f.base_net = *t.allocated - *t.deallocated;
  }
  // Unsigned wrap-around keeps the difference right when this thread freed more than it
  // allocated since the base was taken.
  const uint64_t delta = (*t.allocated - *t.deallocated) - f.base_net;
  const int64_t v = static_cast<int64_t>(f.base) + static_cast<int64_t>(delta) +
                    g_foreign.load(std::memory_order_relaxed);
  return v > 0 ? static_cast<size_t>(v) : 0;
}

size_t used_memory() { return used_memory_fast(); }

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
  // As Redis prints it (INFO mem_allocator: "jemalloc-5.3.0"), from the headers built against.
#define KEEL_STR2(x) #x
#define KEEL_STR(x) KEEL_STR2(x)
  return "jemalloc-" KEEL_STR(JEMALLOC_VERSION_MAJOR) "." KEEL_STR(JEMALLOC_VERSION_MINOR) "." KEEL_STR(
      JEMALLOC_VERSION_BUGFIX);
#undef KEEL_STR
#undef KEEL_STR2
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
  // One purge thread for all arenas, created when enabled, so that bio_cpulist binds it as
  // it binds lazyfree (purging what lazyfree freed must not take the main thread's CPU);
  // jemalloc would otherwise start more later, wherever they happen to run.
  size_t one = 1;
  (void)mallctl("max_background_threads", nullptr, nullptr, &one, sizeof(one));
  const std::string& bio = cpu_lists().bio;
  const std::vector<int> before = bio.empty() ? std::vector<int>() : process_thread_ids();
  const bool ok = mallctl("background_thread", nullptr, nullptr, &enable, sizeof(enable)) == 0;
  if (ok && enable && !bio.empty()) {
    for (int tid : process_thread_ids()) {
      if (std::find(before.begin(), before.end(), tid) == before.end()) {
        apply_cpulist(bio, "bio_cpulist", tid);
      }
    }
  }
  return ok;
#else
  (void)enable;
  return false;
#endif
}

}  // namespace keel
