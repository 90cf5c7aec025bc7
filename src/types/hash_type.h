// Hash values: the two encodings (listpack of field,value pairs in insertion order; HashDict of
// HashEntry pointers, field and value in one allocation), the conversion between them at the
// hash-max-listpack-* thresholds (one way: a hash never goes back to listpack), and every read
// and edit the hash commands make. Handlers in commands/cmd_hash.cc never look at encodings.
// Nothing here knows about Db, keysizes or notifications: callers take size() before an edit and
// report it to Db::length_changed() after.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/util_random.h"
#include "ds/hashtable.h"
#include "ds/listpack.h"
#include "types/limits.h"
#include "types/object.h"
#include "types/object_listpack.h"

namespace keel {

// One field of a hashtable-encoded hash: the header, then the field bytes, then the value bytes,
// in one allocation (its usable size may exceed the bytes in use; a value edit that fits is made
// in place).
//
//   +-----------+-----------+---------------+---------------+
//   | flen u32  | vlen u32  | field bytes   | value bytes   |
//   +-----------+-----------+---------------+---------------+
struct HashEntry {
  uint32_t flen;
  uint32_t vlen;
  char data[];
  std::string_view field() const { return {data, flen}; }
  std::string_view value() const { return {data + flen, vlen}; }
};
static_assert(sizeof(HashEntry) == 8);

struct HashEntryTraits {
  using Entry = HashEntry*;
  static std::string_view key(const HashEntry* e) { return e->field(); }
};
using HashDict = HashTable<HashEntryTraits>;

// Scratch space for values read out of a listpack integer entry (the views returned point here).
struct HashScratch {
  char field[kLpIntBufSize];
  char value[kLpIntBufSize];
};

namespace hash_detail {
inline const HashDict& dict_of(const Object& o) { return *static_cast<const HashDict*>(o.ptr()); }
}  // namespace hash_detail

struct HashType {
  // Longest field or value a hash can hold (HashEntry lengths are 32-bit). Larger arguments are
  // refused by the commands before anything changes.
  static constexpr size_t kMaxItemBytes = UINT32_MAX;

  // A new, empty listpack hash under `key`. The caller fills it (prepare_for + set) before
  // Db::insert, so an empty hash is never visible.
  static Object* create(std::string_view key);

  // Redis's up-front conversion before HSET/HMSET/HSETNX add `args` (field, value, field,
  // value...): a listpack hash becomes a hashtable when the pair count alone exceeds
  // hash-max-listpack-entries (the table is then pre-sized for it, even if fields repeat), when
  // an argument is longer than hash-max-listpack-value, or when the listpack would pass 1 GB.
  static void prepare_for(Object& o, std::span<const std::string_view> args,
                          const EncodingLimits& lim);

  // A listpack hash becomes a hashtable pre-sized for size_hint fields (RDB load of a hash over
  // hash-max-listpack-entries). Nothing happens to a hashtable.
  static void convert_to_hashtable(Object& o, size_t size_hint);

  static size_t size(const Object& o);
  // Batch prefetch (server/client.cc run_batch): stage 0 brings in the bucket of a member whose
  // hash_key() is `member_hash`, stage 1 (once that arrived) the entries its tag matches. Only
  // the hashtable encoding has anything to fetch; the small encodings return at once.
  static void prefetch_member(const Object& o, uint64_t member_hash, int stage);

  // The value of `field` into *out (a view into the hash or into `scratch`, valid until the next
  // edit); false when absent.
  static bool get(const Object& o, std::string_view field, HashScratch& scratch,
                  std::string_view* out);
  static bool exists(const Object& o, std::string_view field);

  // Sets field to value; true when the field is new. A field or value longer than
  // hash-max-listpack-value converts a listpack hash first; a listpack that grows past
  // hash-max-listpack-entries converts after the insertion. O(n) for listpack, O(1) otherwise.
  static bool set(Object& o, std::string_view field, std::string_view value,
                  const EncodingLimits& lim);
  // Removes field; true when it was there. Call removals_done() once after a batch of removals.
  static bool remove(Object& o, std::string_view field);
  // End of a command that removed fields: lets a hashtable shrink (never back to listpack).
  static void removals_done(Object& o);

  enum class IncrResult { kOk, kNotNumber, kOverflow, kNanOrInf };
  // HINCRBY: field (absent = 0) += delta. kNotNumber: the value is not an integer.
  static IncrResult incr_by(Object& o, std::string_view field, int64_t delta, int64_t* result,
                            const EncodingLimits& lim);
  // HINCRBYFLOAT: field (absent = 0) += delta as long double; on success the new text (Redis's
  // human long double form) is written to buf (kLongDoubleBufSize bytes) and *len set.
  static IncrResult incr_by_float(Object& o, std::string_view field, long double delta,
                                  char* buf, size_t* len, const EncodingLimits& lim);

  // Calls f(field, value) for every pair: insertion order for listpack, table order otherwise.
  // The views are valid during the call only. f must not edit the hash.
  template <class F>
  static void for_each(const Object& o, F&& f);

  // One HSCAN step. listpack: every pair, returns 0. hashtable: visits buckets from `cursor` until
  // at least `count` pairs were seen (or 10*count empty steps), returns the next cursor (0 =
  // done). f(field, value) as in for_each.
  template <class F>
  static uint64_t scan(const Object& o, uint64_t cursor, size_t count, F&& f);

  // A uniformly random pair (the hash is not empty).
  static void random_pair(const Object& o, HashScratch& scratch, std::string_view* field,
                          std::string_view* value);
  // HRANDFIELD with a negative count: `count` independent uniform picks, f(field, value) each.
  // A listpack is indexed once (O(n) + O(count)).
  template <class F>
  static void random_pairs(const Object& o, uint64_t count, F&& f);
  // HRANDFIELD with a positive count below size(): `count` distinct pairs, each subset equally
  // likely. f(field, value) for each, in no particular order.
  template <class F>
  static void random_distinct(const Object& o, uint64_t count, F&& f);
  // Average bytes of one field plus its value (sampled for a hashtable); sizes HRANDFIELD's
  // repeated-pick reply before it is written.
  static size_t average_pair_bytes(const Object& o);

  // CollectionOps (registered for Type::kHash).
  static void free_value(Encoding e, void* p);
  static void* copy_value(Encoding e, const void* p);
  static int64_t length(Encoding e, const void* p);
  static size_t memory_usage(Encoding e, const void* p, size_t samples);  // MEMORY USAGE

 private:
  // The listpack pair positions in order (field positions), for the random pickers.
  static void pair_positions(const Listpack& lp, LpPos* out);
  static const HashEntry* random_entry(const HashDict& d);
  // Collects `count` distinct entries of a table (count < size) into out.
  static void distinct_entries(const HashDict& d, uint64_t count, const HashEntry** out);
};

// ---- templates -----------------------------------------------------------------------------

template <class F>
void HashType::for_each(const Object& o, F&& f) {
  if (o.encoding() == Encoding::kListpack) {
    LpView lp(o);
    HashScratch s;
    for (LpPos p = lp->first(); p != kLpNone;) {
      const LpPos v = lp->next(p);
      f(lp->get(p).str(s.field), lp->get(v).str(s.value));
      p = lp->next(v);
    }
    return;
  }
  hash_detail::dict_of(o).for_each(
      [&](const HashEntry* e) { f(e->field(), e->value()); });
}

template <class F>
uint64_t HashType::scan(const Object& o, uint64_t cursor, size_t count, F&& f) {
  if (o.encoding() == Encoding::kListpack) {
    for_each(o, f);
    return 0;
  }
  const HashDict& d = hash_detail::dict_of(o);
  size_t seen = 0;
  size_t steps = count * 10;
  do {
    cursor = d.scan(cursor, [&](const HashEntry* e) {
      seen++;
      f(e->field(), e->value());
    });
  } while (cursor != 0 && steps-- > 0 && seen < count);
  return cursor;
}

template <class F>
void HashType::random_pairs(const Object& o, uint64_t count, F&& f) {
  if (o.encoding() == Encoding::kListpack) {
    LpView lp(o);
    const size_t n = lp->size() / 2;
    LpPos stack_pos[64];
    LpPos* pos = n <= 64 ? stack_pos : new LpPos[n];
    pair_positions(*lp, pos);
    HashScratch s;
    for (uint64_t i = 0; i < count; i++) {
      const LpPos p = pos[random_bounded(n)];
      f(lp->get(p).str(s.field), lp->get(lp->next(p)).str(s.value));
    }
    if (pos != stack_pos) delete[] pos;
    return;
  }
  const HashDict& d = hash_detail::dict_of(o);
  for (uint64_t i = 0; i < count; i++) {
    const HashEntry* e = random_entry(d);
    f(e->field(), e->value());
  }
}

template <class F>
void HashType::random_distinct(const Object& o, uint64_t count, F&& f) {
  if (o.encoding() == Encoding::kListpack) {
    // Selection sampling (Knuth's algorithm S): one pass, each pair taken with probability
    // needed / remaining, so every subset of `count` pairs is equally likely.
    LpView lp(o);
    uint64_t remaining = lp->size() / 2;
    HashScratch s;
    for (LpPos p = lp->first(); p != kLpNone && count > 0; remaining--) {
      const LpPos v = lp->next(p);
      if (random_bounded(remaining) < count) {
        f(lp->get(p).str(s.field), lp->get(v).str(s.value));
        count--;
      }
      p = lp->next(v);
    }
    return;
  }
  const HashDict& d = hash_detail::dict_of(o);
  const HashEntry* stack_out[64];
  const HashEntry** out = count <= 64 ? stack_out : new const HashEntry*[count];
  distinct_entries(d, count, out);
  for (uint64_t i = 0; i < count; i++) f(out[i]->field(), out[i]->value());
  if (out != stack_out) delete[] out;
}

}  // namespace keel
