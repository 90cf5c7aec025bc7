// Hash values: the two encodings (listpack of field,value pairs in insertion order; HashDict of
// HashEntry pointers, field and value in one allocation), the conversion between them at the
// hash-max-listpack-* thresholds (one way: a hash never goes back to listpack), and every read
// and edit the hash commands make. Handlers in commands/cmd_hash.cc never look at encodings.
// Nothing here knows about Db, keysizes or notifications: callers take size() before an edit and
// report it to Db::length_changed() after.
#pragma once
#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>

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

// A hashtable hash whose fields may carry TTLs (Encoding::kHashtableEx, Redis 7.4's dict with
// HFE metadata; OBJECT ENCODING answers "hashtable"). The table and its HashEntry blocks are
// those of HashDict, so every read of a plain hashtable works on it unchanged; the TTLs of the
// fields that have one live beside it, by entry (lookups) and in expiry order (the earliest
// field for active expiry). A hash without TTLs never pays for this: it stays a HashDict.
struct HashDictEx : HashDict {
  std::unordered_map<const HashEntry*, int64_t> ttl;
  std::set<std::pair<int64_t, const HashEntry*>> by_time;

  int64_t ttl_of(const HashEntry* e) const {
    if (ttl.empty()) return 0;
    auto it = ttl.find(e);
    return it == ttl.end() ? 0 : it->second;
  }
  // ms 0 removes the TTL.
  void set_ttl(const HashEntry* e, int64_t ms);
  void forget(const HashEntry* e) { set_ttl(e, 0); }
  // An entry was reallocated (a value edit that did not fit): its TTL follows it.
  void moved(const HashEntry* from, const HashEntry* to);
};

// Scratch space for values read out of a listpack integer entry (the views returned point here).
struct HashScratch {
  char field[kLpIntBufSize];
  char value[kLpIntBufSize];
};

namespace hash_detail {
// A HashDictEx is a HashDict at the same address (single non-virtual base), so the plain reads
// serve both hashtable encodings.
inline const HashDict& dict_of(const Object& o) { return *static_cast<const HashDict*>(o.ptr()); }
inline const HashDictEx& dict_ex_of(const Object& o) {
  return *static_cast<const HashDictEx*>(o.ptr());
}
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

  // ---- field TTLs (Redis 7.4 hash-field expiry; hash_type_ttl.cc) ---------------------------
  // Encodings with TTL support: listpackex (field, value, ttl triplets, fields with a TTL first in
  // expiry order, then the others in insertion order; ttl 0 = none, as Redis stores them) and
  // kHashtableEx. A hash gets TTL support with its first field TTL and keeps it (as Redis: a
  // listpackex stays listpackex after HPERSIST). TTLs are absolute unix ms; 0 means none.
  static bool has_field_ttls(const Object& o) {
    return o.encoding() == Encoding::kListpackEx || o.encoding() == Encoding::kHashtableEx;
  }
  // listpack -> listpackex, hashtable -> kHashtableEx; nothing when it already has TTL support.
  static void enable_field_ttls(Object& o);
  // The value and TTL of `field` (ttl 0 = none; any encoding); false when absent. Does not look
  // at the clock: an expired field is returned with its past TTL.
  static bool get_with_ttl(const Object& o, std::string_view field, HashScratch& scratch,
                           std::string_view* value, int64_t* ttl);
  // Sets the TTL of an existing field (ms 0 removes it); false when the field is absent. The hash
  // must have TTL support.
  static bool set_field_ttl(Object& o, std::string_view field, int64_t ms);
  // HSETEX KEEPTTL / HINCRBY on a TTL hash: sets the value and keeps the field's TTL.
  static bool set_keep_ttl(Object& o, std::string_view field, std::string_view value,
                           const EncodingLimits& lim);
  // The earliest field TTL, 0 when no field has one.
  static int64_t min_field_ttl(const Object& o);
  // Fields whose TTL is before now_ms (not yet deleted).
  static size_t expired_count(const Object& o, int64_t now_ms);
  // Removes up to `max` fields whose TTL is before now_ms, earliest first, calling f(field) for
  // each just before it goes; returns how many. Call removals_done() after.
  template <class F>
  static size_t remove_expired(Object& o, int64_t now_ms, size_t max, F&& f);
  // Calls f(field, value, ttl) for every field (ttl 0 = none; any encoding).
  template <class F>
  static void for_each_with_ttl(const Object& o, F&& f);
  // HSCAN step with TTLs: as scan(), f(field, value, ttl).
  template <class F>
  static uint64_t scan_with_ttl(const Object& o, uint64_t cursor, size_t count, F&& f);

  // CollectionOps (registered for Type::kHash).
  static void free_value(Encoding e, void* p);
  static void* copy_value(Encoding e, const void* p);
  static int64_t length(Encoding e, const void* p);
  static size_t memory_usage(Encoding e, const void* p, size_t samples);  // MEMORY USAGE

 private:
  // Entries per field in a listpack of this encoding: 2 (listpack) or 3 (listpackex).
  static unsigned lp_stride(const Object& o) { return o.encoding() == Encoding::kListpackEx ? 3 : 2; }
  static bool is_lp(const Object& o) {
    return o.encoding() == Encoding::kListpack || o.encoding() == Encoding::kListpackEx;
  }
  static std::string_view lp_field_at(const Listpack& lp, LpPos p, char* buf) { return lp.get(p).str(buf); }
  // The listpack pair positions in order (field positions), for the random pickers.
  static void pair_positions(const Listpack& lp, LpPos* out, unsigned stride = 2);
  static const HashEntry* random_entry(const HashDict& d);
  // The listpackex removal behind remove_expired: erases the first n triplets.
  static void lpx_erase_first(Object& o, size_t n);
  // set() / set_keep_ttl() on a hash with TTL support.
  static bool set_ex(Object& o, std::string_view field, std::string_view value,
                     const EncodingLimits& lim, bool keep_ttl);
  static void dict_ex_erase(Object& o, const HashEntry* e);
  // Collects `count` distinct entries of a table (count < size) into out.
  static void distinct_entries(const HashDict& d, uint64_t count, const HashEntry** out);
};

// ---- templates -----------------------------------------------------------------------------

template <class F>
void HashType::for_each(const Object& o, F&& f) {
  if (o.encoding() == Encoding::kListpackEx) [[unlikely]] {
    for_each_with_ttl(o, [&](std::string_view fl, std::string_view v, int64_t) { f(fl, v); });
    return;
  }
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
  if (is_lp(o)) {
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
  if (is_lp(o)) {
    LpView lp(o);
    const unsigned stride = lp_stride(o);
    const size_t n = lp->size() / stride;
    LpPos stack_pos[64];
    LpPos* pos = n <= 64 ? stack_pos : new LpPos[n];
    pair_positions(*lp, pos, stride);
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
  if (is_lp(o)) {
    // Selection sampling (Knuth's algorithm S): one pass, each pair taken with probability
    // needed / remaining, so every subset of `count` pairs is equally likely.
    LpView lp(o);
    const unsigned stride = lp_stride(o);
    uint64_t remaining = lp->size() / stride;
    HashScratch s;
    for (LpPos p = lp->first(); p != kLpNone && count > 0; remaining--) {
      const LpPos v = lp->next(p);
      if (random_bounded(remaining) < count) {
        f(lp->get(p).str(s.field), lp->get(v).str(s.value));
        count--;
      }
      p = lp->next(v);
      if (stride == 3) p = lp->next(p);
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

template <class F>
void HashType::for_each_with_ttl(const Object& o, F&& f) {
  if (is_lp(o)) {
    LpView lp(o);
    HashScratch s;
    const bool ex = o.encoding() == Encoding::kListpackEx;
    for (LpPos p = lp->first(); p != kLpNone;) {
      const LpPos v = lp->next(p);
      int64_t ttl = 0;
      if (ex) {
        const LpPos t = lp->next(v);
        ttl = lp->get(t).ival;
        f(lp->get(p).str(s.field), lp->get(v).str(s.value), ttl);
        p = lp->next(t);
      } else {
        f(lp->get(p).str(s.field), lp->get(v).str(s.value), ttl);
        p = lp->next(v);
      }
    }
    return;
  }
  if (o.encoding() == Encoding::kHashtableEx) {
    const HashDictEx& d = hash_detail::dict_ex_of(o);
    d.for_each([&](const HashEntry* e) { f(e->field(), e->value(), d.ttl_of(e)); });
    return;
  }
  hash_detail::dict_of(o).for_each([&](const HashEntry* e) { f(e->field(), e->value(), 0); });
}

template <class F>
uint64_t HashType::scan_with_ttl(const Object& o, uint64_t cursor, size_t count, F&& f) {
  if (is_lp(o)) {
    for_each_with_ttl(o, f);
    return 0;
  }
  const HashDict& d = hash_detail::dict_of(o);
  const HashDictEx* dx =
      o.encoding() == Encoding::kHashtableEx ? &hash_detail::dict_ex_of(o) : nullptr;
  size_t seen = 0;
  size_t steps = count * 10;
  do {
    cursor = d.scan(cursor, [&](const HashEntry* e) {
      seen++;
      f(e->field(), e->value(), dx ? dx->ttl_of(e) : 0);
    });
  } while (cursor != 0 && steps-- > 0 && seen < count);
  return cursor;
}

template <class F>
size_t HashType::remove_expired(Object& o, int64_t now_ms, size_t max, F&& f) {
  size_t n = 0;
  if (o.encoding() == Encoding::kListpackEx) {
    // Fields with a TTL come first, earliest first: the expired ones are a prefix.
    {
      LpView lp(o);
      HashScratch s;
      for (LpPos p = lp->first(); p != kLpNone && n < max;) {
        const LpPos v = lp->next(p);
        const LpPos t = lp->next(v);
        const int64_t ttl = lp->get(t).ival;
        if (ttl == 0 || ttl >= now_ms) break;
        f(lp->get(p).str(s.field));
        n++;
        p = lp->next(t);
      }
    }
    if (n > 0) lpx_erase_first(o, n);
    return n;
  }
  if (o.encoding() == Encoding::kHashtableEx) {
    auto& d = *static_cast<HashDictEx*>(o.ptr());
    while (n < max && !d.by_time.empty() && d.by_time.begin()->first < now_ms) {
      const HashEntry* e = d.by_time.begin()->second;
      f(e->field());
      dict_ex_erase(o, e);
      n++;
    }
  }
  return n;
}

}  // namespace keel
