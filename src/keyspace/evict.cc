// Eviction: the pool of candidates, the policies, LFU counters and the time budget (evict.h).
#include "keyspace/evict.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "base/admission.h"
#include "base/lazyfree.h"
#include "base/memory.h"
#include "base/time.h"
#include "base/util_random.h"
#include "keyspace/keyspace.h"

namespace keel {

namespace {

EvictionOptions g_options;
EvictionStats g_stats;
bool g_pending = false;           // a run cut short by its time budget goes on next iteration

constexpr size_t kPoolSize = 16;  // Redis's EVPOOL_SIZE
constexpr uint32_t kLfuInitVal = 5;

// One candidate: its object (to recognise a key sampled again without comparing names), its db,
// its score (higher = evict first) and which of the pool's key buffers holds its name (a copy:
// the object may be freed before the candidate is picked).
struct Candidate {
  uint64_t score;
  const Object* obj;
  int db;
  uint32_t buf;
  uint32_t lru;  // the object's LRU field when sampled: a key touched since has a stale score
};

// A candidate's name: keys up to 64 bytes (nearly all) are copied into the fixed buffer, longer
// ones into a string that keeps its capacity. Either way a warm pool never allocates.
struct Name {
  static constexpr size_t kInline = 64;
  size_t len = 0;
  char bytes[kInline];
  std::string longer;

  void assign(std::string_view k) {
    len = k.size();
    if (len <= kInline) {
      memcpy(bytes, k.data(), len);
    } else {
      longer.assign(k);
    }
  }
  std::string_view view() const { return len <= kInline ? std::string_view(bytes, len) : std::string_view(longer); }
};

// Candidates sorted by ascending score; n used. Candidates move as small plain structs; the
// names stay in their buffers (the buf fields of all kPoolSize slots, used or not, are always a
// permutation of 0..kPoolSize-1).
struct Pool {
  Candidate c[kPoolSize];
  Name names[kPoolSize];
  size_t n = 0;

  Pool() {
    for (size_t i = 0; i < kPoolSize; i++) c[i] = Candidate{0, nullptr, 0, static_cast<uint32_t>(i), 0};
  }

  void offer(uint64_t score, int db, const Object* o) {
    if (n == kPoolSize && score <= c[0].score) return;  // worse than everything kept
    for (size_t i = 0; i < n; i++) {
      // The same object in the same db is the same key unless the object was freed and its
      // block reused for another key: only then do the names differ.
      if (c[i].obj == o && c[i].db == db && names[c[i].buf].view() == o->key()) return;  // already in
    }
    // k: the first slot whose score is higher: the new candidate goes after those it ties
    // with, so among equal scores the one sampled last is picked first. Its bucket and object
    // were just read by the sampling, while an older tie's have left the cache by the time it
    // is picked (at a ceiling most candidates tie: the LRU clock counts seconds, and under LFU
    // the new keys all start at LFU_INIT_VAL).
    size_t k = 0;
    while (k < n && c[k].score <= score) k++;
    uint32_t buf;
    if (n < kPoolSize) {
      // Shift the higher ones right; the unused slot at the end lends its buffer.
      buf = c[n].buf;
      for (size_t i = n; i > k; i--) c[i] = c[i - 1];
      n++;
    } else {
      // Full: drop the lowest (slot 0) and take its buffer; shift the lower ones left.
      k--;
      buf = c[0].buf;
      for (size_t i = 0; i < k; i++) c[i] = c[i + 1];
    }
    c[k] = Candidate{score, o, db, buf, o->lru()};
    names[buf].assign(o->key());
  }

  // Removes the best candidate (the last); its name stays valid until the next offer.
  bool pop(int* db, std::string_view* key, uint32_t* lru) {
    if (n == 0) return false;
    n--;
    *db = c[n].db;
    *key = names[c[n].buf].view();
    *lru = c[n].lru;
    return true;
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

bool volatile_policy(int p) { return p <= kPolicyVolatileTtl; }

// Minutes elapsed since the 16-bit minute time `t`, wrapping as Redis's LFUTimeElapsed.
uint32_t lfu_elapsed(uint32_t t) {
  const uint32_t now = static_cast<uint32_t>(g_clock.now_ms / 60000) & 65535;
  return now >= t ? now - t : 65535 - t + now;
}

uint64_t score_of(const Object* o, int policy) {
  switch (policy) {
    case kPolicyVolatileTtl:
      // The nearest expiry goes first.
      return UINT64_MAX - static_cast<uint64_t>(o->expire_ms());
    case kPolicyVolatileLfu:
    case kPolicyAllkeysLfu: return 255 - lfu_decayed_counter(o);
    default: {
      const uint32_t now = g_clock.lru_clock;
      return now >= o->lru() ? now - o->lru() : 0;
    }
  }
}

// Redis's evictionTimeLimitUs: 50 us per tenacity step up to 10, then 15% more per step, and
// no limit at 100.
uint64_t time_limit_us() {
  const int64_t t = g_options.tenacity;
  if (t <= 10) return 50 * static_cast<uint64_t>(t);
  if (t < 100) return static_cast<uint64_t>(500.0 * std::pow(1.15, static_cast<double>(t - 10)));
  return UINT64_MAX;
}

// Whether eviction may run now (Redis's isSafeToPerformEvictions): not while loading, nor while
// CLIENT PAUSE keeps the dataset still, nor on a replica with replica-ignore-maxmemory yes.
// A replica holds expiry (g_clock.expire_paused) but may evict unless replica-ignore-maxmemory.
bool safe_to_evict() { return !g_clock.loading && !g_admission_gates.paused && !g_options.replica_ignore; }

// Bytes above the ceiling (0 when under it).
size_t over_ceiling() {
  size_t used = used_memory_fast();
  if (KEEL_LIKELY(used <= g_options.maxmemory)) return 0;
  if (g_options.not_counted != nullptr) {
    const size_t nc = g_options.not_counted();
    used = used > nc ? used - nc : 0;
  }
  return used > g_options.maxmemory ? used - g_options.maxmemory : 0;
}

// Evicts one key by the policy: the pool's best candidate that still exists (refilled from
// every db first), or a random key for the random policies. False when nothing can be evicted.
bool evict_one(bool lazy) {
  Keyspace& ks = keyspace();
  const int policy = g_options.policy;
  const bool volatile_only = volatile_policy(policy);
  Object* sample[64];
  if (policy == kPolicyAllkeysRandom || policy == kPolicyVolatileRandom) {
    static int next_db = 0;
    // Reused across calls: the eviction path never allocates once warm.
    static std::string key;
    for (int i = 0; i < ks.count(); i++) {
      const int j = next_db++ % ks.count();
      if (ks.db(j).sample(volatile_only, sample, 1) == 1) {
        key.assign(sample[0]->key());
        return ks.db(j).evict(key, lazy);
      }
    }
    return false;
  }
  Pool& p = pool();
  const size_t want = static_cast<size_t>(std::clamp<int64_t>(g_options.samples, 1, 64));
  const int dbs = ks.count();
  for (;;) {
    size_t total = 0;
    for (int i = 0; i < dbs; i++) {
      Db& db = ks.db(i);
      const size_t keys = volatile_only ? db.expires_count() : db.size();
      if (keys == 0) continue;
      total += keys;
      const size_t n = db.sample(volatile_only, sample, want);
      for (size_t k = 0; k < n; k++) p.offer(score_of(sample[k], policy), i, sample[k]);
    }
    if (total == 0) return false;
    int dbid = 0;
    std::string_view key;
    uint32_t lru = 0;
    // LRU and LFU scores come from the LRU field: a candidate read or written since it was
    // sampled goes back into the pool with its present score instead of being evicted on the
    // old one (Redis evicts it anyway; on evict.py's Zipf cache that costs hits: the hot keys
    // are the ones touched meanwhile). A re-offered key cannot change again before it is
    // popped, so the loop ends.
    const bool rescore = policy != kPolicyVolatileTtl;
    while (p.pop(&dbid, &key, &lru)) {
      Db& db = ks.db(dbid);
      if (volatile_only) {
        const Object* o = db.peek(KeyRef::of(key));
        if (o == nullptr || !o->has_expire()) continue;  // gone (or persisted) meanwhile
      }
      const Object* touched = nullptr;
      if (db.evict(key, lazy, rescore ? &lru : nullptr, &touched)) return true;
      if (touched != nullptr) p.offer(score_of(touched, policy), dbid, touched);  // else gone
    }
    // Every candidate was stale: sample again.
  }
}

}  // namespace

bool grow_worthwhile(size_t used, size_t maxmemory, size_t entries, size_t room, size_t new_bytes) {
  if (used + new_bytes > maxmemory) return false;  // Redis's dictExpandAllowed
  // A cache at its ceiling keeps the table it has when it gets there: a doubled bucket array
  // that the keys never need is memory taken from keys (at 100k keys of 128 bytes, 2 MB of
  // buckets instead of 1 MB is 6% fewer keys and a lower hit rate). Forecast the keys still
  // to come at the present cost per key; that cost counts the server's fixed memory and the
  // other tables too, so the forecast is low and a needed growth is at worst late (the
  // table grows anyway at kVetoPerBucket).
  const size_t table_bytes = new_bytes / 2;
  if (entries == 0 || used <= table_bytes) return true;
  const size_t per_key = std::max<size_t>(1, (used - table_bytes) / entries);
  return (maxmemory - used) / per_key > room;
}

bool ObjectTraits::grow_allowed(size_t entries, size_t room, size_t new_bytes) {
  return g_options.maxmemory == 0 ||
         grow_worthwhile(used_memory_fast(), g_options.maxmemory, entries, room, new_bytes);
}

EvictionOptions& eviction_options() { return g_options; }
EvictionStats& eviction_stats() { return g_stats; }
bool eviction_pending() { return g_pending; }

uint32_t lfu_decayed_counter(const Object* o) {
  const uint32_t v = o->lru();
  uint32_t counter = v & 255;
  if (g_options.lfu_decay_time <= 0) return counter;
  // Touched within the present minute (the common case for a sampled or accessed key): no
  // decay and no division.
  const uint32_t elapsed = lfu_elapsed((v >> 8) & 65535);
  if (elapsed == 0) return counter;
  const uint32_t periods = elapsed / static_cast<uint32_t>(g_options.lfu_decay_time);
  return periods > counter ? 0 : counter - periods;
}

void Db::lfu_touch(Object* o) {
  uint32_t counter = lfu_decayed_counter(o);
  // Redis's LFULogIncr: the higher the counter, the less likely an access raises it.
  if (counter <= kLfuInitVal) {
    counter++;  // p = 1 below: any draw in [0, 1) raises it, so none is made
  } else if (counter < 255) {
    const double base = static_cast<double>(counter - kLfuInitVal);
    const double p = 1.0 / (base * static_cast<double>(g_options.lfu_log_factor) + 1.0);
    if (random_double() < p) counter++;
  }
  o->set_lru((lfu_minutes() << 8) | counter);
}

uint64_t eviction_current_exceeded_ms() {
  if (g_stats.exceeded_since_ms == 0) return 0;
  return static_cast<uint64_t>(mstime() - g_stats.exceeded_since_ms);
}
uint64_t eviction_total_exceeded_ms() { return g_stats.exceeded_time_total_ms + eviction_current_exceeded_ms(); }

EvictResult perform_evictions() {
  if (!safe_to_evict()) return EvictResult::kOk;
  size_t to_free = over_ceiling();
  EvictResult result = EvictResult::kFail;
  if (to_free == 0) {
    // Looks fine from the fast figure; the pending run (if any) is over.
    result = EvictResult::kOk;
  } else if (g_options.policy != kPolicyNoEviction) {
    // The clock is first read once 16 keys are freed (nearly every call frees one or two, and
    // the read was 2% of a SET at the ceiling): the budget runs from there, 16 keys late
    // (tens of microseconds against 50-500), and a zero budget stops at 16 keys as Redis's.
    int64_t start = 0;
    const uint64_t limit = time_limit_us();
    const bool lazy = g_options.lazy_eviction;
    size_t keys_freed = 0;
    result = EvictResult::kOk;
    while (to_free > 0) {
      if (!evict_one(lazy)) {
        result = EvictResult::kFail;
        break;
      }
      keys_freed++;
      if ((keys_freed & 15) == 0) {
        if (start == 0 && limit != 0) {
          start = monotonic_us();
        } else if (limit == 0 || static_cast<uint64_t>(monotonic_us() - start) > limit) {
          if (over_ceiling() > 0) result = EvictResult::kRunning;
          break;
        }
      }
      to_free = over_ceiling();
    }
    if (result == EvictResult::kFail && lazyfree_stats().pending > 0) {
      // Out of keys, but some memory is on its way back from the lazyfree thread: wait a
      // little for it, as Redis does.
      usleep(static_cast<useconds_t>(std::min<uint64_t>(limit, 1000)));
      if (over_ceiling() == 0) result = EvictResult::kOk;
    }
  }
  g_pending = result == EvictResult::kRunning;
  if (result == EvictResult::kOk) {
    if (g_stats.exceeded_since_ms != 0) {
      g_stats.exceeded_time_total_ms += static_cast<uint64_t>(mstime() - g_stats.exceeded_since_ms);
      g_stats.exceeded_since_ms = 0;
    }
  } else if (g_stats.exceeded_since_ms == 0) {
    g_stats.exceeded_since_ms = mstime();
  }
  return result;
}

void eviction_continue() {
  if (g_options.maxmemory == 0) return;
  if (g_pending) (void)perform_evictions();
}

void eviction_options_changed() {
  g_clock.lfu = lfu_policy_active();
  // The admission gate (base/admission.h): dispatch looks at memory only with a ceiling set.
  g_admission_gates.maxmemory = g_options.maxmemory != 0;
  pool().n = 0;  // scores of another policy mean nothing now
  if (g_options.maxmemory == 0) g_pending = false;
}

}  // namespace keel
