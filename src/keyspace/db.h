// Db: one numbered database and the choke point through which every key is created, changed
// and removed. Each mutating method makes the single keysizes update for the change, bumps the
// dirty counter and signals WATCH; the keyspace emits its own events (new, expired), commands
// emit the rest. Keys carry the hash computed once at parse/prefetch time (KeyRef).
//
// Expiry: the expire time lives in the Object (no second lookup on access); `expires_` indexes
// the subset of keys that have one, for the active expiry cycle and INFO keyspace.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/hash.h"
#include "ds/hashtable.h"
#include "keyspace/keysizes.h"
#include "keyspace/lazyfree.h"
#include "types/object.h"

namespace keel {

struct KeyRef {
  std::string_view name;
  uint64_t hash;
  static KeyRef of(std::string_view s) { return {s, hash_key(s)}; }
};

struct ObjectTraits {
  using Entry = Object*;
  static std::string_view key(const Object* o) { return o->key(); }
  // A key comparison reads the header and the key, which start the block; blocks of most size
  // classes (48, 80, 96, 160 ...) are not line-aligned, so those bytes often end on the next line.
  [[gnu::always_inline]] static void prefetch(const Object* o) {
    __builtin_prefetch(o);
    __builtin_prefetch(reinterpret_cast<const char*>(o) + Object::kPrefetchSpan - 1);
  }
  // Redis's dictExpandAllowed for the keys and expires tables: under a memory ceiling a table
  // does not double (new_bytes of buckets) when that would take used memory past maxmemory,
  // nor when the keys that can still fit under the ceiling fit its `room` (filling up to
  // HashTable::kVetoPerBucket); it fills further and eviction keeps the keys within the
  // ceiling meanwhile. Defined in keyspace/evict.cc (grow_worthwhile, evict.h).
  static bool grow_allowed(size_t entries, size_t room, size_t new_bytes);
};
using ObjectTable = HashTable<ObjectTraits>;

// Counters shown by INFO stats, shared by all dbs.
struct KeyspaceStats {
  uint64_t expired_keys = 0;
  uint64_t expired_subkeys = 0;  // hash fields deleted because their TTL passed (Redis 7.4)
  uint64_t expired_stale_perc = 0;
  uint64_t expired_time_cap_reached_count = 0;
  uint64_t expire_cycle_us = 0;  // time spent in active expire cycles (expire_cycle_cpu_milliseconds)
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t evicted_keys = 0;
  uint64_t dirty = 0;  // changes since the last save
};
// A global, not a function-local static: Db::signal and call() read it for every write.
extern constinit KeyspaceStats g_keyspace_stats;
inline KeyspaceStats& keyspace_stats() { return g_keyspace_stats; }

// Hooks installed by upper layers. touched(): a key was modified (WATCH); null when no client
// watches anything.
struct KeyspaceHooks {
  void (*touched)(int dbid, std::string_view key) = nullptr;
  // Whole db about to be emptied (with_dbid -1) or swapped with db with_dbid (SWAPDB calls it
  // for both sides, before anything changes, so the hook can see what each key was).
  void (*flushed)(int dbid, int with_dbid) = nullptr;
  // A key was created, its value replaced whole (insert, overwrite, move_to's destination) or
  // it was deleted (removed, emptied, expired, moved away): blocked clients waiting on it may
  // be served, or (XREADGROUP) told that it is gone (commands/blocking.cc). Null when nobody is
  // blocked.
  void (*key_created)(int dbid, std::string_view key) = nullptr;
  // SWAPDB swapped the contents of the two dbs (called after the swap).
  void (*dbs_swapped)(int a, int b) = nullptr;
  // FLUSHDB / FLUSHALL emptied the db (called after): a blocked XREADGROUP learns its stream is
  // gone. Null when nobody is blocked.
  void (*emptied)(int dbid) = nullptr;
  // A key is being evicted (before its object is freed): its propagation as DEL or UNLINK.
  void (*evicted)(int dbid, std::string_view key) = nullptr;
  // A key is being deleted because it expired (lazily on access or by the active cycle), before
  // its object is freed: the propagation of the deletion (commands/propagate.h). Null when
  // nobody consumes the change stream.
  void (*expired)(int dbid, std::string_view key) = nullptr;
  // A hash field is being deleted because its TTL passed (lazily or by the active cycle): its
  // propagation as HDEL. Installed and removed with `expired`.
  void (*field_expired)(int dbid, std::string_view key, std::string_view field) = nullptr;
  // A key was modified (the same calls as touched()), for client-side caching's invalidation
  // (commands/tracking.h). Null while no tracking client remembers a key or a BCAST prefix.
  void (*tracking)(std::string_view key) = nullptr;
  // touched or tracking is installed: signal()'s one test. Whoever sets either calls
  // keyspace_hooks_updated().
  bool signal_hooks = false;
};
extern KeyspaceHooks g_keyspace_hooks;
inline void keyspace_hooks_updated() {
  g_keyspace_hooks.signal_hooks = g_keyspace_hooks.touched != nullptr || g_keyspace_hooks.tracking != nullptr;
}

// The clock commands see: fixed while one command runs, so a key cannot expire half-way.
struct KeyspaceClock {
  int64_t now_ms = 0;
  uint32_t lru_clock = 0;  // seconds, for OBJECT IDLETIME
  // Lookups leave the LRU alone: the running command's client has CLIENT NO-TOUCH on (set by
  // call() for the outermost command; a script's or EXEC's commands inherit it), or a fork
  // child exists (set_fork_child_exists, base/fork.h).
  bool no_touch = false;
  // An LFU maxmemory-policy is in effect: an access updates the key's LFU counter (Redis's
  // logarithmic counter + decay, keyspace/evict.h) instead of its LRU time.
  bool lfu = false;
  bool active_expire_enabled = true;
  // Set by the RDB loader (persistence/rdb_load.cc) for the whole load. As in Redis, a key whose
  // time has passed is not expired while loading (Db::expired), an EXPIRE with a time in the past
  // sets the time rather than deleting (what replaying an AOF needs) and INFO says loading:1.
  // Today the load runs before the server serves anyone (start-up, DEBUG RELOAD), so no command
  // or INFO can see it set yet; the loader that yields to the event loop will show it.
  bool loading = false;
  // CLIENT PAUSE in effect (commands/pause.h): a key past its time reads as missing but is not
  // deleted (lookups, SCAN, RANDOMKEY), and the active cycle does nothing, as in Redis.
  bool expire_paused = false;
  // A replica (server/replication.cc): as paused, permanently: keys past their time read as
  // missing for its clients and are deleted only by the master's DEL. pause_end restores this.
  bool replica = false;
};
extern KeyspaceClock g_clock;

class Db {
 public:
  // Where a key is or would be in the table; obtained from find_for_write(). obj() stays valid
  // until that object is removed or replaced. The table position inside is re-found
  // automatically when another lookup or mutation of this Db happened since (RENAME holds two
  // slots), so a Slot is always safe to pass back to its own Db.
  class Slot {
   public:
    Object* obj() const { return obj_; }
    explicit operator bool() const { return obj_ != nullptr; }
    Object* operator->() const { return obj_; }
    Object& operator*() const { return *obj_; }
    const KeyRef& key() const { return key_; }

   private:
    friend class Db;
    Object* obj_ = nullptr;
    ObjectTable::Position pos_;
    uint64_t epoch_ = 0;
    KeyRef key_;
  };

  explicit Db(int id) : id_(id) {}
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  int id() const { return id_; }
  size_t size() const { return keys_.size(); }
  size_t expires_count() const { return expires_.size(); }
  const KeySizes& keysizes() const { return hist_; }
  // MEMORY STATS: bucket memory of the key table and of the expiry index, and the part of the
  // key table's old buckets still held while it rehashes.
  size_t table_memory() const { return keys_.memory_usage(); }
  size_t expires_memory() const { return expires_.memory_usage(); }
  size_t rehashing_memory() const { return keys_.rehashing_memory() + expires_.rehashing_memory(); }

  // Read lookup: nullptr when absent or expired (an expired key is deleted here and "expired"
  // is emitted). Counts hits/misses, emits "keymiss" and updates the LRU clock unless flags
  // say otherwise (Redis's LOOKUP_NOTOUCH / NONOTIFY / NOSTATS).
  enum LookupFlags : int { kNoTouch = 1, kNoNotify = 2, kNoStats = 4 };
  Object* find(const KeyRef& key, int flags = 0);
  // Lookup without side effects at all (no expiry deletion, no stats): OBJECT, DEBUG, SCAN.
  Object* peek(const KeyRef& key) const;

  // Write lookup: deletes the key first if it has expired; updates a live key's LRU clock
  // (Redis's lookupKeyWrite touches too) unless g_clock.no_touch.
  Slot find_for_write(const KeyRef& key);
  // Adds obj at an empty slot (obj->key() == slot key). Emits "new". An expire time already in
  // obj (a COPY clone) is indexed.
  void insert(Slot& slot, Object* obj);
  // Replaces a key's whole value with obj (the old object is freed). With keep_ttl the key keeps
  // the old TTL state (obj may move to a block with the expire field: use slot.obj() after);
  // otherwise obj's own expire field (usually none) is the key's TTL.
  // One keysizes update old -> new. The old value is freed as a server deletion
  // (lazyfree-lazy-server-del).
  void overwrite(Slot& slot, Object* obj, bool keep_ttl = false);
  // SET's path: writes a string value, reusing the key's block when it fits. Inserts when the
  // slot is empty (emits "new"). expire_room: a TTL follows (SET EX), so a new block gets the
  // expire field and set_expire will not have to move it.
  void set_string(Slot& slot, std::string_view value, bool keep_ttl = false, bool expire_room = false);
  // Deletes the key (no event: the command emits "del" or its own event). With `lazy` a big
  // value is freed by the lazyfree thread (keyspace/lazyfree.h): DEL / UNLINK say which.
  void remove(Slot& slot, bool lazy);
  // A deletion the server decides (an emptied collection, RENAME's or a *STORE's destination,
  // GETDEL ...): lazy when lazyfree-lazy-server-del is on, as Redis's dbDelete.
  void remove(Slot& slot) { remove(slot, g_keyspace_lazyfree.server_del); }
  // After an in-place change of the value at slot (APPEND, LPUSH, SADD ...): one keysizes update
  // from (same type, old_len) to the current length. An emptied collection is deleted and true
  // is returned (the command then emits "del").
  bool length_changed(Slot& slot, int64_t old_len);
  // length_changed for a change that is not the command's own (hash fields that expired): no
  // dirty count; an emptied hash is deleted without one either.
  bool length_changed_quiet(Slot& slot, int64_t old_len);
  // Convenience for DEL/UNLINK: true when the key existed.
  bool remove(const KeyRef& key);

  // RDB load (start-up, DEBUG RELOAD): adds obj with its TTL and LRU as they are, making the
  // KEYSIZES update but no dirty count, event or WATCH signal. A key already present is a
  // duplicate: false (obj not taken) unless `replace`, which frees the old one.
  bool load_add(Object* obj, bool replace);
  // RDB load: the RESIZEDB hint (the caller bounds it by the input size).
  void load_reserve(size_t keys, size_t expires) {
    keys_.reserve(keys);
    expires_.reserve(expires);
  }

  // Expiry. when_ms is absolute; set_expire on an absent slot is a bug. The key's first TTL may
  // move its object to a bigger block (Object::with_expire): take the object from the slot
  // afterwards, not from a pointer held from before.
  void set_expire(Slot& slot, int64_t when_ms);
  bool persist(Slot& slot);  // false when the key had no TTL
  // Eviction (keyspace/evict.cc): n uniformly random keys (volatile_only: keys with a TTL) into
  // out; returns how many (fewer when the table is smaller or empty).
  size_t sample(bool volatile_only, Object** out, size_t n) const;
  // Evicts the key (stats, "evicted" event, the evicted hook, WATCH; no dirty count). With
  // `lazy` a big value is handed to the lazyfree thread. False when the key is gone.
  // With `sampled_lru` (the LRU field seen when the key was sampled) a key whose field changed
  // since (read or written meanwhile: its score is stale) is not evicted: *touched is set to
  // its object and the answer is false.
  bool evict(std::string_view key, bool lazy, const uint32_t* sampled_lru = nullptr,
             const Object** touched = nullptr);

  // Redis's rule (keyIsExpired): a key is expired once the clock has passed its time, so a key
  // whose time equals the current millisecond is still readable. EXPIRE with a time <= now
  // deletes at once (the command checks that itself).
  bool expired(const Object* o) const {
    return o->has_expire() && o->expire_ms() < g_clock.now_ms && !g_clock.loading;
  }

  // Moves the object at `from` to key `to` in db `dst` (RENAME when dst is this db, MOVE).
  // The destination slot must be empty (callers delete an overwritten destination first).
  void move_to(Slot& from, Db& dst, Slot& to);

  // FLUSHDB: removes everything, zeroes the histograms; returns the number of keys removed,
  // which is what it adds to the dirty counter (Redis).
  // With `async` the keys are freed by the lazyfree thread (FLUSHDB ASYNC), counted there.
  size_t flush(bool async = false);
  void swap(Db& other);  // SWAPDB: contents and histograms change places, ids stay
  Object* random_key();  // skips (and deletes) expired keys; nullptr when empty
  // Deletes o's key when it has expired, emitting "expired" (SCAN meeting a stale key). Returns
  // true then, and o is freed (unless expiry is paused: then o stays, still expired); other
  // objects stay valid. o must belong to this Db.
  bool expire_if_needed(Object* o);
  // SCAN step over the keys: calls f(Object*) for a few buckets and returns the next cursor.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& f) const {
    return keys_.scan(cursor, f);
  }
  template <class F>
  void for_each(F&& f) const {
    keys_.for_each(f);
  }
  // always_inline: see HashTable::prefetch_bucket (a call to a prefetch-only function is
  // deleted by GCC as side-effect free).
  [[gnu::always_inline]] void prefetch(uint64_t hash) const { keys_.prefetch_bucket(hash); }
  [[gnu::always_inline]] void prefetch_entries(uint64_t hash) const { keys_.prefetch_entries(hash); }

  // One step of the active expiry cycle on this db; returns keys expired. Stops at deadline_us.
  size_t active_expire(int64_t deadline_us, size_t* sampled);

  // Hash-field expiry (Redis 7.4). Hashes whose fields have TTLs are indexed by key under their
  // earliest field TTL (Redis's db->hexpires), for the active cycle and INFO's subexpiry.
  // Every Db method that adds, replaces, moves or removes a key keeps the index; a command that
  // changes field TTLs calls hfe_update (length_changed does it too).
  void hfe_update(const Object* o);
  size_t hfe_count() const { return hfe_min_.size(); }
  // The active cycle's part for fields: deletes up to max_fields expired fields of the indexed
  // hashes, earliest first, each hash with its events ("hexpired", "del" when emptied) and its
  // KEYSIZES update. Stops at deadline_us. Returns the fields deleted.
  size_t active_expire_fields(int64_t deadline_us, size_t max_fields);
  void cron(int64_t budget_us);  // incremental rehash and shrink of the tables
  // Recounts the histograms from the keys (DEBUG KEYSIZES-CHECK); true when they match.
  bool keysizes_consistent(std::string* diff) const;
  int64_t avg_ttl() const { return avg_ttl_; }

 private:
  // count_dirty false: an expiry, which Redis does not count in the dirty counter (it is
  // propagated by the expired hook instead, so a read command stays unpropagated).
  // lazy: a big value goes to the lazyfree thread (keyspace/lazyfree.h).
  void erase_object(Slot& slot, int64_t old_len, bool count_dirty = true, bool lazy = false);
  void expire_now(Slot& slot);
  // An access: the LRU time, or under an LFU policy the LFU counter.
  static void touch(Object* o) {
    if (KEEL_UNLIKELY(g_clock.lfu)) {
      lfu_touch(o);
    } else {
      o->set_lru(g_clock.lru_clock);
    }
  }
  static void lfu_touch(Object* o);
  // A new key's LFU field: the current time in minutes (16 bits) and Redis's LFU_INIT_VAL, 5.
  static uint32_t lfu_initial() { return (lfu_minutes() << 8) | 5; }
  static uint32_t lfu_minutes() { return static_cast<uint32_t>(g_clock.now_ms / 60000) & 65535; }
  // Makes slot.pos_ current (re-probes when the table changed since it was taken).
  void ensure_pos(Slot& slot) {
    if (slot.epoch_ != epoch_) {
      slot.pos_ = keys_.find_position(slot.key_.name, slot.key_.hash);
      slot.epoch_ = ++epoch_;
    }
  }
  void hfe_forget(std::string_view key);
  // The two encodings of hashes with field TTLs are 12 and 13: one compare on every mutation.
  static_assert(static_cast<unsigned>(Encoding::kListpackEx) == 12 &&
                static_cast<unsigned>(Encoding::kHashtableEx) == 13);
  static bool has_field_ttls(const Object* o) {
    return (static_cast<unsigned>(o->encoding()) | 1u) == 13u;
  }
  void hfe_note_gone(const Object* o) {
    if (KEEL_UNLIKELY(has_field_ttls(o))) hfe_forget(o->key());
  }
  void hfe_note_added(const Object* o) {
    if (KEEL_UNLIKELY(has_field_ttls(o))) hfe_update(o);
  }
  void signal(std::string_view key, bool count_dirty = true) {
    if (KEEL_LIKELY(count_dirty)) keyspace_stats().dirty++;
    if (KEEL_UNLIKELY(g_keyspace_hooks.signal_hooks)) signal_hooks(key);
  }
  void signal_hooks(std::string_view key) const;  // WATCH, then client-side caching

  int id_;
  ObjectTable keys_;
  ObjectTable expires_;
  // sample()'s place in its stream of buckets and the buckets drawn ahead (keys_, expires_):
  // eviction samples once per evicted key, and finds them in cache (HashTable::random_entries).
  mutable ObjectTable::SampleAhead sample_ahead_[2];
  KeySizes hist_;
  uint64_t epoch_ = 0;  // bumped by every probe/mutation that may move table positions
  uint64_t expire_cursor_ = 0;
  int64_t avg_ttl_ = 0;
  // Hash-field expiry index: key -> earliest field TTL, and the same pairs in time order.
  std::unordered_map<std::string, int64_t> hfe_min_;
  std::set<std::pair<int64_t, std::string>> hfe_by_time_;
};

}  // namespace keel
