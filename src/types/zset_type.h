// The sorted-set type: its two encodings (listpack, skiplist), the conversion at the
// zset-max-listpack-* thresholds, and the member/range operations the zset commands need.
// Commands (commands/cmd_zset.cc) call only what is declared here and never look at an encoding.
// Keyspace bookkeeping (keysizes, events, deleting an emptied key) is not done here: Db is the
// choke point for that.
//
// Encodings (OBJECT ENCODING names, as Redis 7.4 reports them):
//   listpack  uint8_t* listpack blob: member, score, member, score ... ordered by (score, member).
//             A score that is an integer within +-2^62 is an integer entry, else the shortest
//             round-trip text ("1.5", "inf"). Used while count <= zset-max-listpack-entries and
//             every member <= zset-max-listpack-value bytes.
//   skiplist  ZsetBig*: a Skiplist (ds/skiplist.h) plus a HashTable whose entries are the
//             skiplist nodes themselves (key = node->member()), one allocation per member.
// Removals never convert back; *STORE results are built fresh in the smallest fitting encoding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ds/hashtable.h"
#include "ds/skiplist.h"
#include "types/limits.h"
#include "types/object.h"

namespace keel {

// Callback that receives members in order: the member view is valid only during the call.
using ZEmit = void (*)(void* ctx, std::string_view member, double score);

class ZsetType {
 public:
  // ---- creation -----------------------------------------------------------------------------
  // A new empty zset for `key` in the encoding Redis picks for about `size_hint` members of at
  // most `max_len` bytes (ZADD on a new key): listpack when both are within the limits.
  static Object* create(std::string_view key, size_t size_hint, size_t max_len);
  // Up-front conversion before adding about `size_hint` members (ZADD with many arguments):
  // a listpack becomes a skiplist when size_hint exceeds zset-max-listpack-entries (Redis
  // 7.4 looks at the count only; a long member converts when it is actually added).
  static void maybe_convert(Object& o, size_t size_hint);

  // SORT's conversion (Redis's zsetConvert to skiplist before sorting, which SORT and SORT_RO
  // still do in 7.4 / 8.0): a listpack becomes a skiplist of its size; a skiplist stays.
  static void convert_to_skiplist(Object& o);

  // ---- size and lookup ----------------------------------------------------------------------
  static size_t size(const Object& o);
  static bool score(const Object& o, std::string_view member, double* out);
  // Batch prefetch (server/client.cc run_batch): stage 0 brings in the bucket of a member whose
  // hash_key() is `member_hash`, stage 1 (once that arrived) the entries its tag matches. Only
  // the hashtable encoding has anything to fetch; the small encodings return at once.
  static void prefetch_member(const Object& o, uint64_t member_hash, int stage);
  // Batch prefetch, stage 2 (after stage 1 brought the member's entry in): starts in out[] the
  // skiplist descents an operation on `member` will make, for Skiplist::run_descents: to its
  // current position when it is in the zset (ZREM, ZRANK, a score update), and to its position
  // at the new score when `new_score` is given (ZADD); with `increment`, *new_score is added to
  // the current score (ZINCRBY, ZADD INCR). Returns how many it started (at most 2 and at most
  // cap); none for a listpack.
  static size_t start_descents(const Object& o, std::string_view member, uint64_t member_hash,
                               const double* new_score, bool increment,
                               Skiplist::Descent* out, size_t cap);
  // 0-based rank of `member` (from the highest when rev); false when absent.
  static bool rank(const Object& o, std::string_view member, bool rev, size_t* rank,
                   double* score);

  // ---- mutation -----------------------------------------------------------------------------
  enum AddFlags : int { kNx = 1, kXx = 2, kGt = 4, kLt = 8, kIncr = 16 };
  enum class AddResult : uint8_t {
    kNop,      // not applied (NX on an existing member, XX on a missing one, GT/LT refused)
    kAdded,    // new member
    kUpdated,  // score changed
    kSame,     // member exists, score unchanged
    kNaN,      // INCR produced NaN: nothing changed
  };
  // ZADD's per-member step (Redis zsetAdd). With kIncr `score` is the increment. *new_score gets
  // the resulting score unless kNop/kNaN. Converts at the thresholds.
  static AddResult add(Object& o, double score, std::string_view member, int flags,
                       double* new_score);
  // True when the member was there. Never converts, never shrinks the table (after_removals).
  static bool remove(Object& o, std::string_view member);
  // Call once at the end of a command that removed members: lets the table shrink.
  static void after_removals(Object& o);

  // ---- ranges -------------------------------------------------------------------------------
  // Ranks start..end, 0-based inclusive and within [0, size), in ascending order or, with rev,
  // descending (rank 0 = highest).
  static void range_by_rank(const Object& o, size_t start, size_t end, bool rev, ZEmit emit,
                            void* ctx);
  // Members in `r` (ascending, or descending with rev), skipping `offset` of them and emitting
  // at most `limit` (limit < 0: no limit). Returns the number emitted.
  static size_t range_by_score(const Object& o, const ZsetRange& r, bool rev, size_t offset,
                               int64_t limit, ZEmit emit, void* ctx);
  static size_t range_by_lex(const Object& o, const ZsetLexRange& r, bool rev, size_t offset,
                             int64_t limit, ZEmit emit, void* ctx);
  static size_t count_in_range(const Object& o, const ZsetRange& r);
  static size_t count_in_lex_range(const Object& o, const ZsetLexRange& r);
  // Removal of ranges (no per-member shrink; call after_removals once). Return removed count.
  static size_t remove_range_by_rank(Object& o, size_t start, size_t end);  // 0-based, valid
  static size_t remove_range_by_score(Object& o, const ZsetRange& r);
  static size_t remove_range_by_lex(Object& o, const ZsetLexRange& r);
  // ZPOPMIN/ZPOPMAX: removes min(count, size) members from the low (or high) end, emitting each
  // in pop order before it is freed. Returns the number popped.
  static size_t pop(Object& o, bool max, size_t count, ZEmit emit, void* ctx);

  // ---- iteration ----------------------------------------------------------------------------
  static void for_each(const Object& o, ZEmit emit, void* ctx);  // ascending (score, member)
  template <class F>
  static void for_each(const Object& o, F&& f) {
    for_each(o, &thunk<std::remove_reference_t<F>>, &f);
  }
  // ZRANDMEMBER with a count: `unique` emits min(count, size) distinct members, otherwise
  // `count` members that may repeat. The zset must not be empty.
  static void random_members(const Object& o, uint64_t count, bool unique, ZEmit emit, void* ctx);
  // ZSCAN step: a listpack is returned whole (cursor 0); a skiplist walks its table's buckets
  // until at least `count` members were emitted (or 10 * count buckets). Returns the next cursor.
  static uint64_t scan(const Object& o, uint64_t cursor, int64_t count, ZEmit emit, void* ctx);

  // Encodings, for tests and DEBUG (commands never switch on them).
  static Encoding encoding(const Object& o) { return o.encoding(); }
  // Checks listpack order / skiplist + table consistency (tests).
  static bool check(const Object& o);

  template <class F>
  static void thunk(void* ctx, std::string_view m, double s) {
    (*static_cast<F*>(ctx))(m, s);
  }
};

// Builds the result of ZUNION / ZINTER / ZDIFF / ZRANGESTORE: a member -> score map that is
// sorted once at the end. Members are copied in (one allocation each).
class ZsetAccumulator {
 public:
  struct Entry {
    double score;
    uint32_t len;
    char data[];
    std::string_view member() const { return {data, len}; }
  };
  ZsetAccumulator() = default;
  ~ZsetAccumulator();
  ZsetAccumulator(const ZsetAccumulator&) = delete;
  ZsetAccumulator& operator=(const ZsetAccumulator&) = delete;

  void reserve(size_t n) { table_.reserve(n); }
  size_t size() const { return table_.size(); }
  // The entry for `member`, or nullptr.
  Entry* find(std::string_view member) const;
  // The entry for `member`, created with `score` when absent (*created says which).
  Entry* upsert(std::string_view member, double score, bool* created);
  // Removes and frees the entry for `member` if present.
  void erase(std::string_view member);
  // Sorts the entries by (score, member) and emits them (ascending, or descending with rev).
  void emit_sorted(bool rev, ZEmit emit, void* ctx);
  // Moves the entries into a new zset object under `key` (listpack when it fits the limits).
  // The accumulator is empty afterwards. Must not be empty.
  Object* build(std::string_view key);

 private:
  struct Traits {
    using Entry = ZsetAccumulator::Entry*;
    static std::string_view key(const ZsetAccumulator::Entry* e) { return e->member(); }
  };
  void sort_entries();
  HashTable<Traits> table_;
  std::vector<Entry*> sorted_;
};

}  // namespace keel
