// The memory ceiling: maxmemory, the eight maxmemory-policy values and the eviction that keeps
// used memory under the ceiling (Redis's performEvictions). Approximate LRU and LFU as Redis:
// each round samples maxmemory-samples keys per db into a pool of the 16 best candidates and
// evicts the one with the highest score (idle time, 255 - LFU counter, or the nearest TTL).
//
// The LFU counter lives in the object's 32-bit LRU field as Redis lays out its 24 bits: the
// last decrement time in minutes (16 bits, wrapping) above an 8-bit logarithmic counter.
//
// Called by command admission (commands/dispatch.cc) before a command flagged deny-oom, and by
// the server after an eviction cut short by its time budget (maxmemory-eviction-tenacity).
#pragma once
#include <cstddef>
#include <cstdint>

#include "types/object.h"

namespace keel {

// The order of Redis's config enum (server/config_table.cc maps the names to these).
enum EvictPolicy : int {
  kPolicyVolatileLru = 0,
  kPolicyVolatileLfu = 1,
  kPolicyVolatileRandom = 2,
  kPolicyVolatileTtl = 3,
  kPolicyAllkeysLru = 4,
  kPolicyAllkeysLfu = 5,
  kPolicyAllkeysRandom = 6,
  kPolicyNoEviction = 7,
};

struct EvictionOptions {
  uint64_t maxmemory = 0;  // bytes; 0 = no ceiling
  int policy = kPolicyNoEviction;
  int64_t samples = 5;
  int64_t tenacity = 10;
  int64_t lfu_log_factor = 10;
  int64_t lfu_decay_time = 1;  // minutes per counter decrement; 0 = never decay
  bool lazy_eviction = false;  // lazyfree-lazy-eviction
  // A replica with replica-ignore-maxmemory yes (set by server/replication.cc): no eviction
  // and no -OOM (Redis's isSafeToPerformEvictions); the master's DELs keep it in step.
  bool replica_ignore = false;
  // Memory left out of the comparison with maxmemory (Redis's freeMemoryGetNotCountedMemory:
  // replica output buffers, the AOF buffer), installed by the server; asked only when used
  // memory is over the ceiling.
  size_t (*not_counted)() = nullptr;
};
EvictionOptions& eviction_options();
// After any of the options changed (CONFIG SET, the config file): the LFU flag of the
// keyspace clock and the admission gate that makes dispatch look at memory.
void eviction_options_changed();
inline bool lfu_policy_active() {
  const int p = eviction_options().policy;
  return p == kPolicyVolatileLfu || p == kPolicyAllkeysLfu;
}

// LFU: the counter after the decay its age asks for (OBJECT FREQ, the eviction score); does
// not write the object.
uint32_t lfu_decayed_counter(const Object* o);

// Under a ceiling, whether a keys or expires table holding `entries`, with `room` for more
// before it must grow, may double its bucket array to `new_bytes` with `used` bytes in use:
// only if that fits under maxmemory (Redis's rule) and the keys that can still come before
// the ceiling would not fit the room (ObjectTraits::grow_allowed, db.h).
bool grow_worthwhile(size_t used, size_t maxmemory, size_t entries, size_t room, size_t new_bytes);

enum class EvictResult { kOk, kRunning, kFail };
// Frees memory down to maxmemory by the policy. kOk: under the ceiling (or eviction is not
// allowed now: loading, CLIENT PAUSE); kRunning: the time budget ran out and the rest continues
// from eviction_continue(); kFail: over the ceiling and nothing (more) can be evicted.
EvictResult perform_evictions();
// True while an eviction cut short by its time budget is waiting to go on.
bool eviction_pending();
// The server's per-iteration hook: refreshes the memory figure and continues a pending eviction.
void eviction_continue();

struct EvictionStats {
  uint64_t exceeded_time_total_ms = 0;  // INFO total_eviction_exceeded_time
  int64_t exceeded_since_ms = 0;        // 0 = not over the ceiling now
};
EvictionStats& eviction_stats();
// INFO current_eviction_exceeded_time (ms), total_eviction_exceeded_time.
uint64_t eviction_current_exceeded_ms();
uint64_t eviction_total_exceeded_ms();

}  // namespace keel
