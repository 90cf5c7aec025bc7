// Quicklist: the big list encoding, a doubly linked list of listpack nodes with Redis's fill
// rules, LZF compression of inner nodes and "plain" nodes for single huge elements. Also the
// limit helpers the list type uses to switch listpack <-> quicklist at Redis's boundaries.
// No server knowledge: fill and compress depth are passed in (list-max-listpack-size,
// list-compress-depth).
//
//   head                                                              tail
//   [lp raw] <-> [lp raw] <-> [LZF] <-> [LZF] <-> [plain raw] <-> [lp raw]
//   |<-- depth -->|                                       |<-- depth -->|
//
// Node limits (fill): fill >= 0 -> at most max(fill,1) entries and at most 8192 bytes;
// fill < 0 -> at most 4/8/16/32/64 KB for -1..-5 (below -5 acts as -5), any count.
// An element larger than the node byte limit (8192 for fill >= 0) is stored alone in a plain
// node holding its raw bytes. With depth d > 0, every node more than d nodes from both ends is
// LZF-compressed when it is at least 48 bytes and compression saves more than 8 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ds/listpack.h"

namespace keel {

struct QuicklistLimit {
  size_t bytes;  // SIZE_MAX when the limit is a count
  size_t count;  // SIZE_MAX when the limit is in bytes
};
inline constexpr size_t kQuicklistSafetyBytes = 8192;  // byte cap for count-limited nodes
inline constexpr size_t kQuicklistMinCompressBytes = 48;
inline constexpr size_t kQuicklistMinCompressImprove = 8;

// The node limit for `fill` (list-max-listpack-size).
QuicklistLimit quicklist_node_limit(int fill);
// True if a node (or a listpack list) of `bytes` bytes and `count` entries would be over the
// limit: for byte limits bytes > limit; for count limits bytes > 8192 or count > limit.
bool quicklist_exceeds_limit(int fill, size_t bytes, size_t count);
// True if an element of `len` bytes gets a plain node of its own.
bool quicklist_is_large_element(size_t len, int fill);
// DEBUG QUICKLIST-PACKED-THRESHOLD: while the threshold is not the default (1 GB), an element
// of at least that many bytes gets a plain node whatever the fill (Redis's packed_threshold).
inline constexpr size_t kQuicklistDefaultPackedThreshold = size_t{1} << 30;
void quicklist_set_packed_threshold(size_t bytes);

// The list type's listpack -> quicklist test before adding elements (LPUSH/RPUSH/LINSERT/LSET):
// `add_bytes` is the sum of the raw lengths of the new elements (not their encoded size) and
// `add_count` their number, exactly as Redis estimates it. With fill -2 and 100-byte elements
// the 80th push converts (79 * 103 + 7 + 100 > 8192).
inline bool list_listpack_needs_quicklist(int fill, size_t lp_bytes, size_t lp_count,
                                          size_t add_bytes, size_t add_count) {
  return quicklist_exceeds_limit(fill, lp_bytes + add_bytes, lp_count + add_count);
}

class Quicklist {
 public:
  enum class End : uint8_t { kHead, kTail };

  // A node as stored, for RDB save and DEBUG output. `data` is the LZF block when compressed
  // (`stored_bytes` long, decompressing to `bytes`), else the listpack or the plain element.
  struct NodeView {
    const uint8_t* data;
    size_t stored_bytes;
    size_t bytes;
    size_t count;
    bool plain;
    bool compressed;
  };

 private:
  struct Node {
    Node* prev = nullptr;
    Node* next = nullptr;
    uint8_t* data = nullptr;  // listpack blob, plain bytes, or LZF block
    size_t sz = 0;            // uncompressed bytes
    uint32_t lzf_sz = 0;      // compressed bytes when compressed
    uint32_t count = 0;
    bool plain = false;
    bool compressed = false;
    bool recompress = false;  // decompressed temporarily for access
  };

 public:
  // Iterates one way from a position. Reading with entry() and moving with next() do not
  // change the list; erase() deletes the current element and moves to the following one (in
  // the iteration direction). Any other mutation of the quicklist invalidates the iterator
  // (except insert(), which takes it and leaves it invalid). Views from entry() stay valid
  // until the next call on the iterator or the quicklist. Destroying it recompresses the node
  // it had to decompress.
  class Iterator {
   public:
    Iterator() = default;
    Iterator(Iterator&& o) noexcept { *this = std::move(o); }
    Iterator& operator=(Iterator&& o) noexcept;
    ~Iterator() { reset(); }

    bool valid() const { return node_ != nullptr; }
    LpEntry entry();
    void next();
    void erase();
    bool forward() const { return forward_; }

   private:
    friend class Quicklist;
    void reset();
    void move_to_node(Node* n);
    Quicklist* ql_ = nullptr;
    Node* node_ = nullptr;
    LpPos pos_ = kLpNone;  // unused for plain nodes
    bool forward_ = true;
  };

  Quicklist(int fill, int compress_depth);
  ~Quicklist();
  Quicklist(Quicklist&& o) noexcept;
  Quicklist& operator=(Quicklist&& o) noexcept;
  Quicklist(const Quicklist&) = delete;
  Quicklist& operator=(const Quicklist&) = delete;

  // Takes `lp` as the single node (as Redis does when a listpack list outgrows the limit; the
  // push that caused it then goes through push()). An empty listpack gives an empty quicklist.
  static Quicklist from_listpack(Listpack&& lp, int fill, int compress_depth);

  size_t count() const { return count_; }
  size_t node_count() const { return len_; }
  int fill() const { return fill_; }
  int compress_depth() const { return depth_; }

  // O(1) plus the node's memmove.
  void push(End end, std::string_view v);
  void push_head(std::string_view v) { push(End::kHead, v); }
  void push_tail(std::string_view v) { push(End::kTail, v); }
  // Removes the element at `end`, copying it into *out (may be null). False if empty.
  bool pop(End end, std::string* out);

  // Iterator at the first (kHead, moving forward) or last (kTail, moving backward) element.
  Iterator begin(End from);
  // Iterator at `index` (negative from the tail), moving forward or backward. Invalid if out
  // of range. O(nodes) + O(node).
  Iterator at(long index, bool forward = true);

  // Inserts `v` before or after the iterator's element (LINSERT), then invalidates `it`.
  void insert(Iterator& it, std::string_view v, LpWhere where);
  // LSET: replaces the element at `index`. False if out of range.
  bool replace_at(long index, std::string_view v);
  // Deletes `n` elements from `start` (negative from the tail); returns how many (LTRIM).
  size_t erase_range(long start, size_t n);

  // The half-limit rule: true when the list has one packed node within the limit (halved for
  // both bytes and count when `shrinking`, i.e. after pops, LREM, LTRIM, LSET).
  bool can_convert_to_listpack(bool shrinking) const;
  // Moves the single node's listpack out; the quicklist is left empty. Requires
  // can_convert_to_listpack(false) or an empty quicklist (which gives an empty listpack).
  Listpack take_listpack();

  // MEMORY USAGE: this structure plus its nodes, estimated from the first `samples` nodes
  // (0 = all) scaled by elements, as Redis does: (their bytes / their elements) * count().
  size_t memory_usage(size_t samples) const;

  // RDB load: appends a whole node.
  void append_listpack_node(Listpack&& lp);
  void append_plain_node(std::string_view v);

  template <class F>
  void for_each_node(F&& f) const {
    for (const Node* n = head_; n != nullptr; n = n->next) {
      f(NodeView{n->data, n->compressed ? n->lzf_sz : n->sz, n->sz, n->count, n->plain,
                 n->compressed});
    }
  }

 private:
  Node* new_node(std::string_view v);
  void link(Node* at, Node* n, bool after);
  void unlink_free(Node* n);
  void delete_node(Node* n);
  bool allow_insert(const Node* n, size_t len) const;
  bool allow_merge(const Node* a, const Node* b) const;
  Node* merge(Node* a, Node* b);
  Node* split(Node* n, size_t k);
  void node_insert(Node* n, LpPos pos, std::string_view v, LpWhere where);
  void ensure_raw(Node* n);
  void compress_node(Node* n);
  static void decompress_node(Node* n);
  void compress_around(Node* n, bool wide = false);
  void release_node(Node* n);
  Node* locate(long index, size_t* offset) const;
  void clear();

  Node* head_ = nullptr;
  Node* tail_ = nullptr;
  size_t count_ = 0;
  size_t len_ = 0;
  int fill_;
  int depth_;
};

}  // namespace keel
