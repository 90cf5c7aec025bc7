// The set type: its three encodings (intset, listpack, hashtable), every conversion between
// them at the set-max-* thresholds, and the member-level operations the set commands need.
// Commands (commands/cmd_set.cc) call only what is declared here and never look at an encoding.
// Keyspace bookkeeping (keysizes, events, deleting an emptied key) is not done here: Db is the
// choke point for that.
//
// Encodings (OBJECT ENCODING names, as Redis 7.4 reports them):
//   intset    Intset* (ds/intset.h): every member is a canonical int64 and the count stays
//             <= set-max-intset-entries.
//   listpack  uint8_t* listpack blob (ds/listpack.h): members in insertion order, while the
//             count <= set-max-listpack-entries and each member <= set-max-listpack-value bytes.
//   hashtable SetTable* of SetMember* entries, one allocation per member (length + bytes).
// Removals never convert back to a smaller encoding; *STORE results and the SPOP "rebuild"
// path build a fresh value that starts small (see set_type.cc for the exact rules).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "ds/hashtable.h"
#include "types/limits.h"
#include "types/object.h"

namespace keel {

// One member of a hashtable-encoded set: its length and bytes in one malloc'd block.
struct SetMember {
  uint32_t len;
  char data[];
  std::string_view view() const { return {data, len}; }
  static SetMember* create(std::string_view s);  // aborts if malloc fails
  static void destroy(SetMember* m);
};
static_assert(sizeof(SetMember) == 4);

struct SetMemberTraits {
  using Entry = SetMember*;
  static std::string_view key(const SetMember* m) { return m->view(); }
};
using SetTable = HashTable<SetMemberTraits>;

// One member as read from a set: an integer (intset, or a listpack integer entry) or a view of
// bytes (valid until the set is next mutated or freed).
struct SetElem {
  std::string_view str;
  int64_t ival = 0;
  bool is_int = false;
  // The member's text; an integer is formatted into buf (kInt64BufSize bytes).
  std::string_view text(char* buf) const;
};

// Callback used to stream members out (to a reply) without a std::function.
using SetEmit = void (*)(void* ctx, const SetElem& e);

class SetType {
 public:
  // ---- creation ---------------------------------------------------------------------------
  // A new empty set for `key` in the encoding Redis picks for a first member `first` and about
  // `size_hint` members (SADD on a new key, SMOVE's new destination): intset when `first` is an
  // integer and size_hint <= set-max-intset-entries, else listpack when size_hint <=
  // set-max-listpack-entries, else a hashtable pre-sized for size_hint.
  static Object* create(std::string_view key, std::string_view first, size_t size_hint);

  // ---- size and membership ----------------------------------------------------------------
  static size_t size(const Object& o);
  static bool contains(const Object& o, std::string_view member);
  static bool contains(const Object& o, const SetElem& e);  // no re-formatting of integers
  // Batch prefetch (server/client.cc run_batch): stage 0 brings in the bucket of a member whose
  // hash_key() is `member_hash`, stage 1 (once that arrived) the entries its tag matches. Only
  // the hashtable encoding has anything to fetch; the small encodings return at once.
  static void prefetch_member(const Object& o, uint64_t member_hash, int stage);

  // ---- mutation (may convert the encoding; never frees the object) ------------------------
  // Up-front conversion before adding about `size_hint` members (SADD with many arguments):
  // listpack or intset whose limit size_hint exceeds becomes a hashtable sized for it.
  static void maybe_convert(Object& o, size_t size_hint);
  // Adds a member; true when it was not there. Converts at the thresholds. O(1) hashtable,
  // O(n) listpack/intset.
  static bool add(Object& o, std::string_view member);
  static bool add(Object& o, const SetElem& e);
  // Removes a member; true when it was there. Never converts, never shrinks a hashtable.
  static bool remove(Object& o, std::string_view member);
  static bool remove(Object& o, const SetElem& e);
  // Call once at the end of a command that removed members: lets a hashtable shrink (never in
  // the per-member path, see ds/README.md).
  static void after_removals(Object& o);

  // ---- reading ----------------------------------------------------------------------------
  // Calls f(const SetElem&) for every member until f returns false. Intsets go in ascending
  // order, listpacks in insertion order, hashtables in table order. The set must not change
  // during the walk. Returns false if f stopped it.
  template <class F>
  static bool for_each(const Object& o, F&& f) {
    return for_each_raw(o, [](void* ctx, const SetElem& e) { return (*static_cast<F*>(ctx))(e); },
                        &f);
  }
  // One uniformly random member (the set must not be empty).
  static SetElem random_member(const Object& o);

  // SRANDMEMBER with a count: emits `count` members; with `unique` each member at most once
  // (count is then capped at the size by the caller), otherwise members may repeat. Returns
  // the number emitted.
  static size_t random_members(const Object& o, uint64_t count, bool unique, SetEmit emit,
                               void* ctx);
  // SPOP with 0 < count < size: removes `count` random members, emitting each (before it is
  // freed). When the members left * 5 <= count, the remaining members are moved into a freshly
  // built value (which may be a smaller encoding) and the old value's members are emitted.
  static void pop_random_many(Object& o, size_t count, SetEmit emit, void* ctx);

  // SSCAN step. Small encodings: every member in one call, returns 0. Hashtable: visits at
  // least `count` members' buckets from `cursor` (at most 10 * count empty steps), calling
  // emit for each, and returns the next cursor.
  static uint64_t scan(const Object& o, uint64_t cursor, int64_t count, SetEmit emit, void* ctx);

  // ---- building results (*STORE, SUNION, SDIFF) -------------------------------------------
  // The empty value a computed result starts from, for `key` (not yet in the keyspace):
  // SUNION(STORE)/SDIFF(STORE) start from an intset and grow by the usual rules.
  static Object* create_result(std::string_view key);
  // SINTERSTORE's start: an intset when the smallest input is one, else a listpack.
  static Object* create_inter_result(std::string_view key, const Object& smallest);
  // SINTERSTORE's last step: a listpack result whose members are all integers becomes an
  // intset when it fits.
  static void maybe_to_intset(Object& o);

  // Encodings, for tests and DEBUG (commands never switch on them).
  static Encoding encoding(const Object& o) { return o.encoding(); }

 private:
  using RawVisit = bool (*)(void* ctx, const SetElem& e);
  static bool for_each_raw(const Object& o, RawVisit f, void* ctx);
};

}  // namespace keel
