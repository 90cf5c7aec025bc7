// Rax: an ordered radix tree of byte-string keys (at most 255 bytes) to non-null void* values,
// the index of a stream's listpack nodes (keys are 16-byte big-endian IDs, so byte order is ID
// order). Path-compressed: a node holds the label bytes that follow the edge byte leading to it,
// so 16-byte keys that differ only in their last bytes share one chain.
//
//   node (one malloc):  has_value u8 | label_len u8 | nchild u16 | label[label_len] |
//                       edge bytes[nchild] (ascending) | pad to 8 | value ptr (only when
//                       has_value) | child ptrs[nchild]
//
// A 4-byte header, and a value slot only in nodes that end a key (as Redis's rax): setting or
// removing the value of an existing node reallocates it. A stream's leaf (label + value) is
// 16 or 32 bytes instead of 24-40, and a branch 8-16 bytes less than with the value pointer
// in every header.
//
//   keys 00..00 01, 00..00 02, 00..01 00 (16 bytes each):
//   root(label "00 x14") --00--> n1(label "") --01--> leaf(label "", value)
//                                             --02--> leaf(label "", value)
//                        --01--> leaf(label "00", value)
//
// A node's key is its parent's key + the edge byte + its own label; a node with a value ends a
// key. Invariants (check() verifies them): edges ascending and unique; no node except the root
// is without value with fewer than two children (such nodes are merged into their single
// child or removed). Lookups are O(key length); seeks (>=, >, <=, <) descend once. Iteration
// re-seeks from the last key returned, so an iterator survives any mutation of the tree.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace keel {

class Rax {
 public:
  static constexpr size_t kMaxKey = 255;
  Rax();
  ~Rax();
  Rax(const Rax&) = delete;
  Rax& operator=(const Rax&) = delete;
  Rax(Rax&& o) noexcept;
  Rax& operator=(Rax&& o) noexcept;

  size_t size() const { return size_; }
  size_t node_count() const { return nodes_; }
  // The number of nodes Redis's rax would have for the same keys (XINFO STREAM's
  // radix-tree-nodes): one per position that is the root, a key end, a branch point (two or more
  // children) or the first position after a branch edge; runs of single-child positions in
  // between are one compressed node. O(nodes).
  size_t redis_node_count() const;
  // Bytes the tree's nodes take (allocator size classes), for MEMORY USAGE.
  size_t memory_usage() const;

  // Inserts or replaces; true when the key was new.
  bool insert(std::string_view key, void* value);
  // The value, or nullptr when absent.
  void* find(std::string_view key) const;
  // Removes the key; true when it was there (its value is not freed).
  bool remove(std::string_view key, void** old = nullptr);
  // Frees every node; values are passed to free_value when given.
  void clear(void (*free_value)(void*) = nullptr);

  enum class Seek : uint8_t { kGE, kGT, kLE, kLT };
  // Finds the nearest key to `key` in the given direction; writes it to out/out_len (a buffer
  // of kMaxKey bytes, which must not overlap `key`) and returns its value, or nullptr when
  // there is none.
  void* seek(Seek op, std::string_view key, uint8_t* out, size_t* out_len) const;
  void* first(uint8_t* out, size_t* out_len) const;
  void* last(uint8_t* out, size_t* out_len) const;
  // As last(), but returns where the last key's value is stored (nullptr when empty): a value
  // replaced through it needs no second walk. Valid until the next insert or remove.
  void** last_slot(uint8_t* out, size_t* out_len);

  // Calls f(key, value) in ascending order.
  template <class F>
  void for_each(F&& f) const {
    uint8_t buf[kMaxKey];
    size_t len;
    void* v = first(buf, &len);
    while (v) {
      f(std::string_view(reinterpret_cast<const char*>(buf), len), v);
      v = seek(Seek::kGT, std::string_view(reinterpret_cast<const char*>(buf), len), buf, &len);
    }
  }

  // Test support: verifies the invariants above and the element count.
  bool check() const;

  struct Node;  // defined in rax.cc

 private:
  Node* root_;
  size_t size_ = 0;
  size_t nodes_ = 1;
};

}  // namespace keel
