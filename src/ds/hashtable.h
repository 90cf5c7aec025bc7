// HashTable<Traits>: the one hash table behind the keyspace and the big set/hash/zset encodings.
// It stores caller-owned entry pointers in 64-byte buckets with 8-bit hash tags, grows and
// shrinks incrementally (two tables during a resize), and supports a Redis-style SCAN cursor.
// It knows nothing about the server: no values, expiry or notifications live here.
// Layout, invariants and the resize policy are described (with a diagram) in src/ds/README.md.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>

#include "base/assert.h"
#include "base/fork.h"
#include "base/hash.h"

namespace keel {

namespace ht_detail {

static_assert(std::endian::native == std::endian::little, "tag matching reads meta+tags as a word");

inline constexpr int kSlots = 7;                // slots per bucket
inline constexpr uint8_t kChained = 0x80;       // meta bit: slots[6] holds the child bucket
inline constexpr uint8_t kAllSlots = 0x7f;      // meta bits 0..6: slot i holds an entry
inline constexpr uint8_t kHeadSlots = 0x3f;     // usable slots of a chained bucket

// One cache line. meta and tags are read together as one little-endian word: byte 0 is meta,
// byte i+1 is the tag of slot i.
struct alignas(64) Bucket {
  uint8_t meta;
  uint8_t tags[kSlots];
  void* slots[kSlots];

  bool chained() const { return meta & kChained; }
  Bucket* child() const { return chained() ? static_cast<Bucket*>(slots[kSlots - 1]) : nullptr; }
  unsigned used() const { return meta & kAllSlots; }
  unsigned free_slots() const { return ~meta & (chained() ? kHeadSlots : kAllSlots); }
};
static_assert(sizeof(Bucket) == 64);

// Shared by every table that has no storage yet, so lookups need no "allocated?" branch. Its meta
// stays 0; inserts never target it because an unallocated table always grows first.
inline Bucket g_empty_bucket{};

// Bitmask of the slots whose tag equals `tag` and that hold an entry: bit i = slot i.
inline unsigned match_tags(const Bucket& b, uint8_t tag) {
  uint64_t w;
  std::memcpy(&w, &b, 8);
  const uint64_t x = w ^ (0x0101010101010101ull * tag);
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  // Exact zero-byte test (no borrow between bytes): bit 7 of byte i is set iff byte i of x is 0.
  uint64_t z = ~(((x & kLow7) + kLow7) | x | kLow7);
  z >>= 8;  // drop the meta byte; byte i now describes slot i
  // Gather bit 7 of each byte into bits 0..6.
  unsigned m = static_cast<unsigned>(((z >> 7) * 0x0102040810204080ull) >> 56);
  return m & b.meta & (b.chained() ? kHeadSlots : kAllSlots);
}

inline uint8_t tag_of(uint64_t hash) { return static_cast<uint8_t>(hash >> 56); }

[[noreturn]] inline void out_of_memory() { std::abort(); }

inline Bucket* new_child() {
  void* p = std::aligned_alloc(64, sizeof(Bucket));
  if (p == nullptr) out_of_memory();
  std::memset(p, 0, sizeof(Bucket));
  return static_cast<Bucket*>(p);
}

// Reverses the bits of v (used by the SCAN cursor).
inline uint64_t reverse_bits(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
  return __builtin_bswap64(v);
}

// Increments the masked (low) part of a SCAN cursor in reverse-bit order: the high cursor bits
// are set first so the carry runs past them and the cursor wraps to 0 after the last bucket.
inline uint64_t next_cursor(uint64_t cursor, uint64_t mask) {
  cursor |= ~mask;
  return reverse_bits(reverse_bits(cursor) + 1);
}

// Entries in a bucket's meta bits 0..6 (std::popcount is a libgcc call on baseline x86-64).
inline constexpr auto kPopcount7 = [] {
  struct T {
    uint8_t v[128];
  } t{};
  for (unsigned i = 0; i < 128; i++) t.v[i] = static_cast<uint8_t>(std::popcount(i));
  return t;
}();
inline unsigned popcount7(unsigned m) { return kPopcount7.v[m & 0x7f]; }

// The slot of the k-th entry (k from 0) of a bucket whose meta bits 0..6 are m: a table lookup
// instead of clearing k low bits one by one (eviction picks a few per evicted key).
inline constexpr auto kNthSlot = [] {
  struct T {
    uint8_t v[128][8];
  } t{};
  for (unsigned m = 0; m < 128; m++) {
    unsigned k = 0;
    for (unsigned slot = 0; slot < 7; slot++) {
      if (m & (1u << slot)) t.v[m][k++] = static_cast<uint8_t>(slot);
    }
  }
  return t;
}();

// One step of the published splitmix64 generator: turns the caller's random word into a stream.
inline uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A uniform random word mapped onto [0, n) by a multiply and a shift instead of `r % n`: a
// 64-bit division costs tens of cycles, and eviction draws a dozen candidates per evicted key.
// The bias is at most n / 2^64.
inline uint64_t below(uint64_t r, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * n) >> 64);
}

}  // namespace ht_detail

// Traits: struct T { using Entry = X*; static std::string_view key(const X* e); };
// Optional: static uint64_t hash(std::string_view key); defaults to hash_key(). Callers must pass
// that same hash to every method taking `hash`.
// Optional: static void prefetch(const X* e), prefetching what a key comparison reads of an
// entry; defaults to the entry's first cache line.
// Entries are non-null pointers owned by the caller; the table never frees them.
// Not thread-safe. Every pointer into the table (Position) dies at the next mutation.
template <class Traits>
class HashTable {
  using Bucket = ht_detail::Bucket;

 public:
  using Entry = typename Traits::Entry;
  static_assert(std::is_pointer_v<Entry>, "entries are stored as pointers");

  // Grow when size > kMaxPerBucket * buckets (fill 5/7 = 71% of slots); the new table has about
  // twice the buckets. Shrink (only in shrink_if_needed) at fill <= 1/8 of slots, to about half
  // the maximum fill, so one insert/erase flip-flop never resizes twice.
  static constexpr size_t kMaxPerBucket = 5;
  // A table whose Traits define `static bool grow_allowed(size_t entries, size_t room,
  // size_t new_bytes)` (entries held, entries it can still take without growing, bytes of the
  // doubled bucket array) and answer false goes on filling (overflow chains) up to this many
  // entries per bucket before it grows anyway: Redis's 1.618 x its normal maximum fill
  // (HASHTABLE_MAX_LOAD_FACTOR).
  static constexpr size_t kVetoPerBucket = 8;
  // A table this small is resized in one go (at most 40 entries rehashed); larger ones move one
  // bucket per mutation plus whatever the cron gives them.
  static constexpr size_t kSyncRehashBuckets = 8;
  // Old-table memory behind the rehash index is returned to the OS in steps of this many bytes,
  // so the final free() does not unmap hundreds of MB at once (measured: 13 ms for 128 MB).
  static constexpr size_t kReleaseChunk = 256 << 10;
  // While a fork child exists (base/fork.h) a table grows only past this many times its normal
  // maximum fill (20 entries per bucket, chains of about three buckets), shrinks only below a
  // quarter of its normal minimum, and a resize in progress moves entries only when old and
  // new sizes differ by this factor or the new table is itself that overloaded: Redis 7.4's
  // dict_force_resize_ratio (4) applied to Keel's buckets.
  static constexpr size_t kForkOverload = 4;

  class Position {
   public:
    Position() = default;
    bool found() const { return found_; }
    explicit operator bool() const { return found(); }
    Entry entry() const {
      KEEL_DCHECK(found_);
      return static_cast<Entry>(bucket_->slots[slot_]);
    }
    // Replaces the stored pointer; the new entry must have the same key.
    void set(Entry e) {
      KEEL_DCHECK(found_ && e != nullptr);
      bucket_->slots[slot_] = to_raw(e);
    }

   private:
    friend class HashTable;
    Bucket* bucket_ = nullptr;  // found: holds the entry; else: insert target (see find_position)
    uint64_t hash_ = 0;
    int slot_ = -1;  // found: the entry's slot; else: a free slot of bucket_, or -1 (chain full)
    bool found_ = false;
  };

  HashTable() = default;
  HashTable(const HashTable&) = delete;
  HashTable& operator=(const HashTable&) = delete;
  HashTable(HashTable&& o) noexcept { steal(o); }
  HashTable& operator=(HashTable&& o) noexcept {
    if (this != &o) {
      release_all();
      steal(o);
    }
    return *this;
  }
  // Frees the table's memory, not the entries (use clear(free_entry) for that).
  ~HashTable() { release_all(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The entry with `key`, or nullptr. Never mutates (no rehash step). O(1) expected: one bucket
  // (two while rehashing) plus its rare overflow children; key bytes are read only on a tag hit.
  Entry find(std::string_view key, uint64_t hash) const {
    const uint8_t tag = ht_detail::tag_of(hash);
    if (resizing()) [[unlikely]] {
      const size_t i0 = hash & t_[0].mask;
      if (i0 >= rehash_idx_) {
        if (Entry e = find_in_chain(&t_[0].b[i0], key, tag)) return e;
      }
      return find_in_chain(&t_[1].b[hash & t_[1].mask], key, tag);
    }
    return find_in_chain(&t_[0].b[hash & t_[0].mask], key, tag);
  }
  Entry find(std::string_view key) const { return find(key, hash_of_key(key)); }

  // Looks `key` up for a write. If found, the Position gives the entry and allows set()/erase();
  // otherwise it remembers where insert(pos, e) will put the entry, so find+insert is one probe.
  // Runs one incremental rehash step first when a resize is in progress.
  Position find_position(std::string_view key, uint64_t hash) {
    if (resizing() && may_rehash()) rehash_step();
    Position pos;
    pos.hash_ = hash;
    const uint8_t tag = ht_detail::tag_of(hash);
    if (resizing()) {
      const size_t i0 = hash & t_[0].mask;
      if (i0 >= rehash_idx_ && locate_in_chain(&t_[0].b[i0], key, tag, pos)) return pos;
    }
    const Table& t = t_[resizing() ? 1 : 0];
    Bucket* b = &t.b[hash & t.mask];
    Bucket* prev = nullptr;
    Bucket* free_b = nullptr;
    int free_slot = -1;
    for (;;) {
      if (locate_in_bucket(b, key, tag, pos)) return pos;
      if (free_b == nullptr) {
        if (const unsigned f = b->free_slots()) {
          free_b = b;
          free_slot = std::countr_zero(f);
        }
      }
      Bucket* c = b->child();
      if (c == nullptr) break;
      prev = b;
      b = c;
    }
    if (KEEL_UNLIKELY(prev != nullptr) && b->meta == 0) {
      // An overflow bucket that erases emptied (erase never frees one: a visit may be walking
      // the chain) goes now, before an insert: under a memory ceiling's churn chains grow and
      // drain, and empty children kept would hold up to half the buckets' worth of memory.
      unlink_last_child(prev, b);
      if (free_b == b) {
        free_b = prev;
        free_slot = ht_detail::kSlots - 1;
      }
      b = prev;
    }
    pos.bucket_ = free_b ? free_b : b;
    pos.slot_ = free_slot;
    return pos;
  }
  Position find_position(std::string_view key) { return find_position(key, hash_of_key(key)); }

  // Inserts e (whose key was just looked up) at pos. pos comes from find_position() with
  // !pos.found() and no mutation since. May start a grow; allocates only then or when the
  // bucket chain is full. pos is consumed (do not reuse it).
  void insert(Position& pos, Entry e) {
    KEEL_DCHECK(!pos.found_ && pos.bucket_ != nullptr && e != nullptr);
    if (prepare_for_insert()) {
      place(pos.hash_, to_raw(e));
    } else {
      put(pos.bucket_, pos.slot_, ht_detail::tag_of(pos.hash_), to_raw(e));
    }
    ++size_;
    pos.found_ = false;
    pos.bucket_ = nullptr;
  }
  // Inserts e if no entry has its key; returns false (and stores nothing) if one does.
  bool insert(Entry e, uint64_t hash) {
    Position pos = find_position(Traits::key(e), hash);
    if (pos.found()) return false;
    insert(pos, e);
    return true;
  }
  bool insert(Entry e) { return insert(e, hash_of_entry(e)); }

  // Unlinks the entry at pos (pos.found()). Does not free it, never shrinks, never allocates.
  void erase(Position& pos) {
    KEEL_DCHECK(pos.found_);
    pos.bucket_->meta &= static_cast<uint8_t>(~(1u << pos.slot_));
    --size_;
    pos.found_ = false;
    pos.bucket_ = nullptr;
  }
  // Unlinks and returns the entry with `key`, or nullptr.
  Entry erase(std::string_view key, uint64_t hash) {
    Position pos = find_position(key, hash);
    if (!pos.found()) return nullptr;
    Entry e = pos.entry();
    erase(pos);
    return e;
  }
  Entry erase(std::string_view key) { return erase(key, hash_of_key(key)); }

  // Batch-prefetch step 1: the bucket(s) that may hold `hash` (both tables while rehashing).
  // The prefetch helpers are always_inline: GCC's IPA pure-const pass sees a function whose
  // only effect is __builtin_prefetch as side-effect free and deletes calls to it before
  // inlining, which silently removed the whole batch prefetch from Client::run_batch
  // (utils/check_codegen.sh, run by `make test`, checks the instructions are there).
  [[gnu::always_inline]] void prefetch_bucket(uint64_t hash) const {
    if (resizing()) {
      if ((hash & t_[0].mask) >= rehash_idx_) __builtin_prefetch(&t_[0].b[hash & t_[0].mask]);
      __builtin_prefetch(&t_[1].b[hash & t_[1].mask]);
    } else {
      __builtin_prefetch(&t_[0].b[hash & t_[0].mask]);
    }
  }
  // Step 0 or 1 by number, for callers that run the steps as passes over a batch.
  [[gnu::always_inline]] void prefetch_step(uint64_t hash, int step) const {
    if (step == 0) {
      prefetch_bucket(hash);
    } else {
      prefetch_entries(hash);
    }
  }
  // Batch-prefetch step 2 (after the buckets arrived): the entries whose tag matches. Only the
  // head bucket of each chain is examined; a stale or wrong guess costs one useless prefetch.
  [[gnu::always_inline]] void prefetch_entries(uint64_t hash) const {
    const uint8_t tag = ht_detail::tag_of(hash);
    if (resizing()) {
      if ((hash & t_[0].mask) >= rehash_idx_) prefetch_matches(t_[0].b[hash & t_[0].mask], tag);
      prefetch_matches(t_[1].b[hash & t_[1].mask], tag);
    } else {
      prefetch_matches(t_[0].b[hash & t_[0].mask], tag);
    }
  }

  // Calls f(Entry) for every entry. f must not mutate the table.
  template <class F>
  void for_each(F&& f) const {
    for (int ti = 0; ti < 2; ++ti) {
      const Table& t = t_[ti];
      if (ti == 1 && !resizing()) break;
      for (size_t i = (ti == 0 && resizing()) ? rehash_idx_ : 0; i < t.n; ++i) {
        visit_chain(&t.b[i], f);
      }
    }
  }

  // One SCAN step: visits the bucket(s) the cursor designates (with their overflow chains),
  // calls f(Entry) for each entry there, and returns the next cursor (0 = done). Start with 0.
  // Every entry present from the first to the last call is reported at least once, even if the
  // table grows, shrinks or rehashes between calls; some may be reported more than once.
  // f must not mutate the table.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& f) const {
    if (size_ == 0) return 0;
    if (!resizing()) {
      const Table& t = t_[0];
      visit_chain(&t.b[cursor & t.mask], f);
      return ht_detail::next_cursor(cursor, t.mask);
    }
    // Both tables: the small table's bucket, then every bucket of the large table whose index
    // ends with the same bits (they hold exactly the entries that would be in the small one).
    // Old-table buckets below rehash_idx_ are empty (and may be unmapped): skip them.
    auto visit = [&](int ti, size_t i) {
      if (ti == 1 || i >= rehash_idx_) visit_chain(&t_[ti].b[i], f);
    };
    const int small = t_[0].n < t_[1].n ? 0 : 1;
    const int large = 1 - small;
    const uint64_t small_mask = t_[small].mask;
    const uint64_t large_mask = t_[large].mask;
    visit(small, cursor & small_mask);
    do {
      visit(large, cursor & large_mask);
      cursor = ht_detail::next_cursor(cursor, large_mask);
    } while (cursor & (large_mask ^ small_mask));
    return cursor;
  }

  // A random entry, nullptr if empty. Works while rehashing. Every entry has the same chance
  // except those in overflow chains longer than 7 (slightly less likely). Expected cost is
  // O(1 / slot fill) bucket probes; falls back to a linear walk after 64 misses.
  Entry random_entry(uint64_t rnd) const {
    if (size_ == 0) return nullptr;
    uint64_t state = rnd;
    const size_t total = live_buckets();
    // Rejection sampling: pick a bucket uniformly, then one of its 7 slot positions (pick_rank):
    // P(entry) = 1 / (7 * buckets) for chains of up to 7 entries.
    const LiveView live = live_view();
    for (int attempt = 0; attempt < 64; ++attempt) {
      const Bucket* b = live.at(ht_detail::below(ht_detail::splitmix(state), total));
      const int rank = pick_rank(b, state);
      if (rank >= 0) return nth_in_chain(b, static_cast<unsigned>(rank));
    }
    // Very sparse table: walk from a random bucket to the next non-empty one.
    size_t k = ht_detail::below(ht_detail::splitmix(state), total);
    for (;; k = (k + 1 == total) ? 0 : k + 1) {
      const Bucket* b = live_bucket(k);
      if (const unsigned count = chain_count(b)) {
        return nth_in_chain(b, ht_detail::below(ht_detail::splitmix(state), count));
      }
    }
  }

  // n entries for eviction's pool, read as one stream over calls: buckets drawn uniformly,
  // each bucket's chain read whole, and a call that needs fewer entries than the last bucket
  // holds leaves the rest of it to the next call (`ahead` keeps the place). So every entry is
  // as likely as any other to be sampled (its bucket is drawn with probability 1/buckets and
  // all of the bucket is read, over one or two calls), while a call reads 2-3 bucket lines
  // instead of the ~10 that independent rejection-sampled draws (random_entry's) need at usual
  // fills: at a memory ceiling every command evicts a key, and those lines were its main cost.
  // The keys of one bucket were hashed there, so they are no more alike in age or use than any
  // others. The first 16 buckets of a call are not read twice in it (only a very sparse table
  // reads more; a repeat there gives eviction's pool a candidate it holds and ignores).
  // Returns min(n, size()).
  // A request for at least every entry of a small table returns each entry once (a walk of at
  // most kWalkAll buckets): a pool policy asked to look at every key does so.
  //
  // `ahead` (kept by the caller between calls, one per table) also holds the bucket numbers of
  // the calls to come, drawn kDepth ahead and prefetched when drawn, a command or more before
  // they are read; the overflow buckets of chained heads are prefetched a call ahead. A resize
  // (the numbering changed) starts again.
  struct SampleAhead {
    static constexpr size_t kDepth = 8;  // a call uses 2-3 buckets at usual fills
    size_t total = 0;                    // live_buckets() when drawn
    size_t n = 0;                        // queued, oldest first
    size_t q[kDepth];
    bool has_rest = false;  // the last call left entries of bucket rest_bucket unread
    size_t rest_bucket = 0;
    unsigned rest_pos = 0;  // the first unread position in its chain
  };
  size_t random_entries(uint64_t rnd, Entry* out, size_t n, SampleAhead& a) const {
    if (size_ == 0 || n == 0) return 0;
    uint64_t state = rnd;
    const size_t total = live_buckets();
    constexpr size_t kWalkAll = 64;
    if (n >= size_ && total <= kWalkAll) {
      size_t got = 0;
      for_each([&](Entry e) { out[got++] = e; });
      return got;
    }
    if (n > size_) n = size_;
    if (a.total != total) {
      a.total = total;
      a.n = 0;
      a.has_rest = false;
    }
    const LiveView live = live_view();
    size_t got = 0;
    size_t used = 0;  // queued buckets consumed
    constexpr size_t kTaken = 16;
    size_t taken[kTaken];
    size_t ntaken = 0;
    auto read = [&](size_t k, unsigned from) {
      if (ntaken < kTaken) taken[ntaken++] = k;
      const Bucket* b = live.at(k);
      const unsigned count = chain_count(b);
      const unsigned end = take_chain(b, from, count, out, got, n);
      a.has_rest = end < count;
      a.rest_bucket = k;
      a.rest_pos = end;
    };
    // A new bucket: not one read already in this call, and not empty (meta 0: no entry and
    // no chain).
    auto read_new = [&](size_t k) {
      for (size_t i = 0; i < ntaken; i++) {
        if (taken[i] == k) return;
      }
      if (live.at(k)->meta != 0) read(k, 0);
    };
    if (a.has_rest) read(a.rest_bucket, a.rest_pos);
    for (int misses = 0; got < n && misses < 64;) {
      const size_t before = got;
      read_new(used < a.n ? a.q[used++] : ht_detail::below(ht_detail::splitmix(state), total));
      if (got == before) misses++;
    }
    // A very sparse table: one walk over the buckets from a random one.
    size_t k = ht_detail::below(ht_detail::splitmix(state), total);
    for (size_t step = 0; step < total && got < n; step++, k = (k + 1 == total) ? 0 : k + 1) read_new(k);
    // The buckets still queued were prefetched by an earlier call: their chains' next buckets
    // can be asked for now. New draws refill the queue, prefetched.
    a.n -= used;
    for (size_t i = 0; i < a.n; i++) {
      a.q[i] = a.q[i + used];
      const Bucket* head = live.at(a.q[i]);
      if (head->chained()) __builtin_prefetch(head->child());
    }
    while (a.n < SampleAhead::kDepth) {
      const size_t k = ht_detail::below(ht_detail::splitmix(state), total);
      a.q[a.n++] = k;
      __builtin_prefetch(live.at(k));
    }
    return got;
  }

  // The buckets that hold entries, numbered 0 .. live_buckets()-1: while rehashing, the old
  // table's not yet moved ones, then the new table's.
  size_t live_buckets() const { return resizing() ? t_[0].n - rehash_idx_ + t_[1].n : t_[0].n; }
  const Bucket* live_bucket(size_t k) const { return live_view().at(k); }
  // live_bucket's numbering resolved once, for callers that draw many buckets.
  struct LiveView {
    const Bucket* b0;  // the old (or only) table's first live bucket
    size_t n0;         // its live buckets
    const Bucket* b1;  // the new table's buckets while resizing
    const Bucket* at(size_t k) const { return k < n0 ? b0 + k : b1 + (k - n0); }
  };
  LiveView live_view() const {
    if (!resizing()) return {t_[0].b, t_[0].n, nullptr};
    return {t_[0].b + rehash_idx_, t_[0].n - rehash_idx_, t_[1].b};
  }

  // True from the start of a resize until the old table is gone.
  bool rehashing() const { return resizing(); }

  // Cron: advances a resize in progress for about `microseconds`.
  void rehash_for_us(int64_t microseconds) {
    if (!resizing() || !may_rehash()) return;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::microseconds(microseconds);
    while (resizing()) {
      for (int i = 0; i < 128 && resizing(); ++i) rehash_step();
      if (std::chrono::steady_clock::now() >= deadline) break;
    }
  }

  // Cron or end of a bulk delete: starts a shrink when at most 1/8 of the slots are used. The
  // new table has about half the maximum fill. Does nothing while a resize is in progress.
  void shrink_if_needed() {
    if (resizing() || t_[0].n == 0) return;
    const size_t sparse = g_fork_child_exists ? 8 * kForkOverload : 8;
    if (size_ * sparse > t_[0].n * ht_detail::kSlots) return;
    if (size_ == 0 && children_ == 0) {
      free_table(t_[0]);
      t_[0] = Table{};
      return;
    }
    const size_t n = buckets_for(size_, kMaxPerBucket / 2.0);
    if (n < t_[0].n) start_resize(n);
  }

  // Makes room for n entries without further growth. Completes a resize in progress first
  // (a pause proportional to the table size: call it before the table is big).
  void reserve(size_t n) {
    while (resizing()) rehash_step();
    const size_t want = buckets_for(n, kMaxPerBucket);
    if (want > t_[0].n) start_resize(want);
  }

  // Calls free_entry(e) for every entry, then frees all table memory. O(buckets).
  template <class F>
  void clear(F&& free_entry) {
    for_each(free_entry);
    release_all();
  }

  // Buckets in both tables (not counting overflow children).
  size_t bucket_count() const { return t_[0].n + t_[1].n; }
  // While rehashing, the bytes of the old bucket array not yet given back (MEMORY STATS).
  size_t rehashing_memory() const {
    if (!resizing()) return 0;
    const size_t old_bytes = t_[0].n * sizeof(Bucket);
    return old_bytes > released_ ? old_bytes - released_ : 0;
  }
  // Bytes of table memory: bucket arrays and overflow buckets, not the entries.
  size_t memory_usage() const {
    return (t_[0].n + t_[1].n + children_) * sizeof(Bucket) + (t_[0].raw ? 64 : 0) +
           (t_[1].raw ? 64 : 0);
  }

 private:
  struct Table {
    Bucket* b = &ht_detail::g_empty_bucket;
    uint64_t mask = 0;
    size_t n = 0;         // 0: no storage (b is the shared empty bucket)
    void* raw = nullptr;  // what the allocator returned
  };

  static void* to_raw(Entry e) { return const_cast<void*>(static_cast<const void*>(e)); }

  static uint64_t hash_of_key(std::string_view key) {
    if constexpr (requires { Traits::hash(key); }) {
      return Traits::hash(key);
    } else {
      return hash_key(key);
    }
  }
  static uint64_t hash_of_entry(const void* e) {
    return hash_of_key(Traits::key(static_cast<Entry>(const_cast<void*>(e))));
  }

  // Resize states: t_[1].n == 0: one table. t_[1].n != 0: resizing, entries move from t_[0]
  // (buckets >= rehash_idx_ still hold theirs) to t_[1] (new inserts go there).
  bool resizing() const { return t_[1].n != 0; }

  static Entry find_in_chain(const Bucket* b, std::string_view key, uint8_t tag) {
    do {
      for (unsigned m = ht_detail::match_tags(*b, tag); m != 0; m &= m - 1) {
        Entry e = static_cast<Entry>(b->slots[std::countr_zero(m)]);
        if (Traits::key(e) == key) return e;
      }
      b = b->child();
    } while (b != nullptr);
    return nullptr;
  }

  static bool locate_in_bucket(Bucket* b, std::string_view key, uint8_t tag, Position& pos) {
    for (unsigned m = ht_detail::match_tags(*b, tag); m != 0; m &= m - 1) {
      const int i = std::countr_zero(m);
      if (Traits::key(static_cast<Entry>(b->slots[i])) == key) {
        pos.bucket_ = b;
        pos.slot_ = i;
        pos.found_ = true;
        return true;
      }
    }
    return false;
  }

  static bool locate_in_chain(Bucket* b, std::string_view key, uint8_t tag, Position& pos) {
    do {
      if (locate_in_bucket(b, key, tag, pos)) return true;
      b = b->child();
    } while (b != nullptr);
    return false;
  }

  [[gnu::always_inline]] static void prefetch_entry(const void* e) {
    if constexpr (requires { Traits::prefetch(static_cast<Entry>(const_cast<void*>(e))); }) {
      Traits::prefetch(static_cast<Entry>(const_cast<void*>(e)));
    } else {
      __builtin_prefetch(e);
    }
  }

  [[gnu::always_inline]] static void prefetch_matches(const Bucket& b, uint8_t tag) {
    for (unsigned m = ht_detail::match_tags(b, tag); m != 0; m &= m - 1) {
      prefetch_entry(b.slots[std::countr_zero(m)]);
    }
  }

  template <class F>
  static void visit_chain(const Bucket* b, F& f) {
    do {
      for (unsigned m = b->used(); m != 0; m &= m - 1) {
        f(static_cast<Entry>(b->slots[std::countr_zero(m)]));
      }
      b = b->child();
    } while (b != nullptr);
  }

  static unsigned chain_count(const Bucket* b) {
    unsigned c = 0;
    do {
      c += ht_detail::popcount7(b->used());
      b = b->child();
    } while (b != nullptr);
    return c;
  }

  // One uniform draw's decision for bucket b (random_entry's rule): the position in b's chain
  // of the entry picked, or -1 when the draw is rejected. One random position among
  // max(count, 7): a partly filled bucket is accepted with probability count/7, and then each
  // of its entries is equally likely.
  static int pick_rank(const Bucket* b, uint64_t& state) {
    const unsigned count = chain_count(b);
    if (count == 0) return -1;
    const uint64_t pos = ht_detail::below(ht_detail::splitmix(state), std::max(count, unsigned{ht_detail::kSlots}));
    return pos < count ? static_cast<int>(pos) : -1;
  }

  static Entry nth_in_chain(const Bucket* b, unsigned k) {
    for (;;) {
      unsigned m = b->used();
      const unsigned c = ht_detail::popcount7(m);
      if (k < c) return static_cast<Entry>(b->slots[ht_detail::kNthSlot.v[m][k]]);
      k -= c;
      b = b->child();
    }
  }

  // random_entries' step: appends the entries at positions [from, count) of b's chain (count
  // entries) to out while got < n; returns the position after the last one taken.
  static unsigned take_chain(const Bucket* b, unsigned from, unsigned count, Entry* out, size_t& got, size_t n) {
    unsigned pos = 0;  // the chain position of b's first entry
    for (; b != nullptr && got < n; b = b->child()) {
      const unsigned m = b->used();
      const unsigned c = ht_detail::popcount7(m);
      for (unsigned j = from > pos ? from - pos : 0; j < c && got < n; j++) {
        out[got++] = static_cast<Entry>(b->slots[ht_detail::kNthSlot.v[m][j]]);
        from = pos + j + 1;
      }
      pos += c;
    }
    return std::min(from, count);
  }

  // Frees c, the empty last bucket of its chain, whose parent is b; b's link slot becomes an
  // ordinary free slot.
  void unlink_last_child(Bucket* b, Bucket* c) {
    b->slots[ht_detail::kSlots - 1] = nullptr;
    b->meta = static_cast<uint8_t>(b->meta & ht_detail::kHeadSlots);
    std::free(c);
    --children_;
  }

  // Stores raw at (b, slot); slot -1 means b is the full last bucket of its chain: a child is
  // linked first (the entry of slot 6 moves into it to make room for the link).
  void put(Bucket* b, int slot, uint8_t tag, void* raw) {
    if (slot < 0) {
      Bucket* c = ht_detail::new_child();
      ++children_;
      c->slots[0] = b->slots[ht_detail::kSlots - 1];
      c->tags[0] = b->tags[ht_detail::kSlots - 1];
      c->meta = 1;
      b->slots[ht_detail::kSlots - 1] = c;
      b->meta = static_cast<uint8_t>((b->meta & ht_detail::kHeadSlots) | ht_detail::kChained);
      b = c;
      slot = 1;
    }
    b->slots[slot] = raw;
    b->tags[slot] = tag;
    b->meta |= static_cast<uint8_t>(1u << slot);
  }

  // Stores raw (known absent) in the table that receives inserts.
  void place(uint64_t hash, void* raw) { place_in(t_[resizing() ? 1 : 0], hash, raw); }

  void place_in(Table& t, uint64_t hash, void* raw) {
    Bucket* b = &t.b[hash & t.mask];
    for (;;) {
      if (const unsigned f = b->free_slots()) {
        put(b, std::countr_zero(f), ht_detail::tag_of(hash), raw);
        return;
      }
      Bucket* c = b->child();
      if (c == nullptr) break;
      b = c;
    }
    put(b, -1, ht_detail::tag_of(hash), raw);
  }

  // Called before adding one entry. Returns true if the table changed in a way that may have
  // invalidated a Position's insert target (a resize started or extra entries were moved).
  bool prepare_for_insert() {
    if (resizing()) {
      // Inserts outran the rehash (only possible with very few lookups between inserts): help
      // it along with a few more steps rather than letting the new table overfill.
      if (size_ >= t_[1].n * kMaxPerBucket && may_rehash()) {
        for (int i = 0; i < 8 && resizing(); ++i) rehash_step();
        return true;
      }
      return false;
    }
    // The fork test only once the normal limit is passed: the common insert pays nothing for it.
    if (KEEL_UNLIKELY(size_ + 1 > t_[0].n * kMaxPerBucket) &&
        (!g_fork_child_exists || size_ + 1 > t_[0].n * kMaxPerBucket * kForkOverload)) {
      // A table whose Traits may veto growth (the keyspace under a memory ceiling, as Redis's
      // dictExpandAllowed) stays as it is until kVetoPerBucket entries per bucket.
      if constexpr (requires(size_t n) { Traits::grow_allowed(n, n, n); }) {
        if (t_[0].n != 0 && size_ + 1 <= t_[0].n * kVetoPerBucket &&
            !Traits::grow_allowed(size_, t_[0].n * kVetoPerBucket - size_, 2 * t_[0].n * sizeof(Bucket))) {
          return false;
        }
      }
      start_resize(buckets_for(size_ + 1, kMaxPerBucket));  // 2x
      return true;
    }
    return false;
  }

  // Smallest power-of-two bucket count holding `count` entries at `per_bucket` on average.
  static size_t buckets_for(size_t count, double per_bucket) {
    const double need = static_cast<double>(count) / per_bucket;
    size_t n = 1;
    while (static_cast<double>(n) < need) n <<= 1;
    return n;
  }

  static Table alloc_table(size_t n) {
    Table t;
    const size_t bytes = n * sizeof(Bucket);
    // calloc: large blocks come straight from fresh mmap'd (already zero) pages, so a 256 MB
    // table costs microseconds now and its page faults are spread over the rehash steps.
    void* raw = std::calloc(1, bytes);
    if (raw != nullptr && (reinterpret_cast<uintptr_t>(raw) & 63) != 0) {
      std::free(raw);  // glibc returns 16-byte aligned blocks; over-allocate and align
      raw = std::calloc(1, bytes + 64);
    }
    if (raw == nullptr) ht_detail::out_of_memory();
    advise_huge_pages(raw, bytes);
    t.raw = raw;
    t.b = reinterpret_cast<Bucket*>((reinterpret_cast<uintptr_t>(raw) + 63) & ~uintptr_t{63});
    t.n = n;
    t.mask = n - 1;
    return t;
  }

  // A large table is read at random, one bucket per lookup: with 4 KB pages nearly every
  // lookup also misses the TLB, and the batch prefetch of a bucket cannot hide a page walk
  // (measured: GET misses on 5M keys spent 40% of the server's time on the first load of the
  // bucket, prefetch on or off). Asking for transparent huge pages (THP "madvise" mode, the
  // Debian default) covers a 64 MB table with 32 TLB entries. Only the whole 2 MB pages inside
  // the block are advised; the table is still freed with free(). Only when huge pages are
  // allowed (disable-thp no) and no fork child exists: with a child, a write to a huge page
  // copies 2 MB (base/fork.h).
  static void advise_huge_pages(void* raw, size_t bytes) {
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    if (bytes < 2 * kHuge || !g_huge_pages_allowed || g_fork_child_exists) return;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(raw) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(raw) + bytes) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }

  static void free_table(Table& t) {
    std::free(t.raw);
    t = Table{};
  }

  // While a fork child exists, a resize in progress moves entries only when it is big (old and
  // new sizes kForkOverload apart) or the new table is itself overloaded; otherwise lookups and
  // the cron leave both tables as they are (base/fork.h).
  bool may_rehash() const {
    if (!g_fork_child_exists) return true;
    const size_t a = t_[0].n, b = t_[1].n;
    return b >= kForkOverload * a || a >= kForkOverload * b ||
           size_ >= b * kMaxPerBucket * kForkOverload;
  }

  void start_resize(size_t n) {
    if (t_[0].n == 0) {  // nothing to move
      t_[0] = alloc_table(n);
      return;
    }
    t_[1] = alloc_table(n);
    rehash_idx_ = 0;
    released_ = 0;
    if (t_[0].n <= kSyncRehashBuckets) {
      while (resizing()) rehash_step();
    }
  }

  // Moves the next non-empty bucket chain of the old table (looking at no more than 10 empty
  // buckets) and finishes the resize when the old table is exhausted. Bounded work: one chain.
  void rehash_step() {
    Table& from = t_[0];
    int empty_budget = 10;
    while (rehash_idx_ < from.n) {
      Bucket* b = &from.b[rehash_idx_++];
      if (b->meta == 0) {
        if (--empty_budget == 0) break;
        continue;
      }
      move_chain(b);
      break;
    }
    if (rehash_idx_ == from.n) {
      free_table(t_[0]);
      t_[0] = t_[1];
      t_[1] = Table{};
      rehash_idx_ = 0;
    } else {
      release_moved();
    }
  }

  void move_chain(Bucket* head) {
    for (Bucket* b = head; b != nullptr; b = b->child()) {
      for (unsigned m = b->used(); m != 0; m &= m - 1) {
        prefetch_entry(b->slots[std::countr_zero(m)]);
      }
    }
    Bucket* b = head;
    while (b != nullptr) {
      for (unsigned m = b->used(); m != 0; m &= m - 1) {
        void* raw = b->slots[std::countr_zero(m)];
        place_in(t_[1], hash_of_entry(raw), raw);
      }
      Bucket* next = b->child();
      if (b != head) {
        std::free(b);
        --children_;
      }
      b = next;
    }
    head->meta = 0;
  }

  // Returns whole pages of the old table below the rehash index to the OS (they are never read
  // as anything but empty buckets again: zero pages read as meta == 0).
  void release_moved() {
    const uintptr_t base = reinterpret_cast<uintptr_t>(t_[0].b);
    const uintptr_t done = base + rehash_idx_ * sizeof(Bucket);
    const uintptr_t start = (base + released_ + 4095) & ~uintptr_t{4095};
    if (done < start || done - start < kReleaseChunk) return;
    const uintptr_t end = done & ~uintptr_t{4095};
    madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
    released_ = end - base;
  }

  void free_children(Table& t) {
    if (children_ == 0) return;
    for (size_t i = 0; i < t.n; ++i) {
      Bucket* c = t.b[i].child();
      while (c != nullptr) {
        Bucket* next = c->child();
        std::free(c);
        --children_;
        c = next;
      }
    }
  }

  void release_all() {
    free_children(t_[0]);
    free_children(t_[1]);
    free_table(t_[0]);
    free_table(t_[1]);
    size_ = 0;
    rehash_idx_ = 0;
    released_ = 0;
    children_ = 0;
  }

  void steal(HashTable& o) {
    t_[0] = o.t_[0];
    t_[1] = o.t_[1];
    size_ = o.size_;
    rehash_idx_ = o.rehash_idx_;
    released_ = o.released_;
    children_ = o.children_;
    o.t_[0] = Table{};
    o.t_[1] = Table{};
    o.size_ = o.rehash_idx_ = o.released_ = o.children_ = 0;
  }

  Table t_[2];
  size_t size_ = 0;
  size_t rehash_idx_ = 0;  // resizing: old-table buckets below this index are empty
  size_t released_ = 0;    // resizing: bytes from t_[0].b already returned with madvise
  size_t children_ = 0;    // overflow buckets allocated in either table
};

}  // namespace keel
