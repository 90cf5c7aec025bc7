// The list type: its two encodings (listpack while small, quicklist beyond), the conversions
// between them at list-max-listpack-size, and the element-level operations the list commands
// need. Commands (commands/cmd_list.cc) call only what is declared here and never look at an
// encoding. Keyspace bookkeeping (keysizes, events, deleting an emptied key) belongs to Db.
//
// Encodings (OBJECT ENCODING names, as Redis 7.4 reports them):
//   listpack   uint8_t* listpack blob (ds/listpack.h), while it fits one quicklist node.
//   quicklist  Quicklist* (ds/quicklist.h) with the fill and compress depth of the moment it
//              was created.
// Growing (push, LINSERT, LSET) converts listpack -> quicklist before adding when the listpack
// plus the new raw bytes would exceed the node limit; shrinking (pops, LREM, LTRIM, LSET)
// converts back when the quicklist is one packed node within half the limit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ds/listpack.h"
#include "types/object.h"

namespace keel {

// Receives elements streamed out of a list (to a reply) without a std::function. The entry's
// view is valid only during the call.
using ListEmit = void (*)(void* ctx, const LpEntry& e);

class ListType {
 public:
  enum class End : uint8_t { kHead, kTail };

  // A new, empty listpack list object for `key` (the caller pushes before inserting it in Db,
  // as Redis creates the list and then adds the elements).
  static Object* create(std::string_view key);

  static size_t size(const Object& o);

  // Pushes the values one by one at `end` (LPUSH a b c leaves c first). Converts to quicklist
  // first when the listpack would outgrow its node limit. O(values) amortised.
  static void push(Object& o, End end, std::span<const std::string_view> values);
  static void push(Object& o, End end, std::string_view value) { push(o, end, {&value, 1}); }

  // Pops up to `count` elements from `end`, calling emit(ctx, e) for each, in pop order, before
  // it is removed. Returns how many were popped. Converts back to listpack when it shrank
  // enough. The list may be left empty (the caller reports to Db, which deletes it).
  static size_t pop(Object& o, End end, size_t count, ListEmit emit, void* ctx);
  // Pops one element into *out (reusing its capacity). False when empty.
  static bool pop_one(Object& o, End end, std::string* out);

  // LINDEX: the element at index (negative from the tail) into emit; false when out of range.
  static bool index(const Object& o, int64_t index, ListEmit emit, void* ctx);
  // LSET: false when out of range (nothing changed).
  static bool set(Object& o, int64_t index, std::string_view value);
  // LRANGE after Redis's normalisation: the number of elements in [start, stop] (0 when empty)
  // via range_count, then each of them through emit.
  static size_t range_count(const Object& o, int64_t start, int64_t stop, int64_t* from);
  static void range(const Object& o, int64_t from, size_t n, ListEmit emit, void* ctx);
  // LTRIM with Redis's index rules; the list may become empty.
  static void trim(Object& o, int64_t start, int64_t stop);
  // LREM: count > 0 from the head, < 0 from the tail, 0 all. Returns how many were removed.
  static size_t remove(Object& o, std::string_view value, int64_t count);
  // LINSERT: true when the pivot was found (then value was inserted).
  static bool insert(Object& o, std::string_view pivot, std::string_view value, bool after);
  // LPOS: walks from the head (rank > 0) or the tail (rank < 0) for at most maxlen elements
  // (0 = all), calling found(ctx, index) for each match from the |rank|-th on until it returns
  // false.
  using PosFound = bool (*)(void* ctx, int64_t index);
  static void positions(const Object& o, std::string_view value, int64_t rank, int64_t maxlen,
                        PosFound found, void* ctx);

  // DEBUG OBJECT's quicklist fields (ql_nodes, ql_avg_node, ql_listpack_max, ql_compressed,
  // ql_uncompressed_size). False for a listpack list.
  struct QuicklistInfo {
    size_t nodes = 0;
    size_t count = 0;
    int fill = 0;
    bool compressed = false;  // created with a compress depth
    size_t raw_bytes = 0;     // sum of the nodes' uncompressed sizes
  };
  static bool quicklist_info(const Object& o, QuicklistInfo* out);
};

}  // namespace keel
