// Listpack: Redis's compact sequence format, byte-exact, owned as one malloc'd blob so RDB can
// save and load it as-is. Used by small lists, hashes (field,value pairs), sets and zsets
// (member,score pairs), and as the node payload of ds/quicklist.h. The per-type rules (which
// values go where, conversion thresholds) live in types/; this file only knows the bytes.
//
//   +-----------------+----------------+---------+---------+-----+------+
//   | total-bytes u32 | num-elems u16  | entry 0 | entry 1 | ... | 0xFF |
//   +-----------------+----------------+---------+---------+-----+------+
//     little-endian     65535 = unknown
//   entry = encoding+data (E bytes) | backlen (1..5 bytes, holds E, readable right-to-left)
//
//   first byte   meaning                           E
//   0xxxxxxx     uint 0..127                       1
//   10LLLLLL     string, len < 64                  1 + len
//   110xxxxx b   int13, two's complement           2
//   1110LLLL b   string, len < 4096 (len hi first) 2 + len
//   0xF0 u32le   string, any len                   5 + len
//   0xF1..0xF4   int16 / int24 / int32 / int64 LE  3 / 4 / 5 / 9
//   0xFF         end of listpack
//
// backlen of E: E <= 127 -> 1 byte; < 16383 -> 2; < 2097151 -> 3; < 268435455 -> 4; else 5.
// Seven bits per byte, most significant group at the lowest address with bit 7 clear, every
// later byte has bit 7 set.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/numbers.h"

namespace keel {

inline constexpr size_t kLpHeaderSize = 6;
inline constexpr size_t kLpEmptyBytes = 7;  // header + 0xFF
inline constexpr uint8_t kLpEof = 0xFF;
inline constexpr uint16_t kLpCountUnknown = 65535;
// Redis never lets a listpack grow past 1 GB; the types convert before that (lpSafeToAdd).
inline constexpr size_t kLpSafeBytes = size_t{1} << 30;
// Buffer size for LpEntry::str() of an integer entry.
inline constexpr size_t kLpIntBufSize = kInt64BufSize;

// One decoded element: either bytes (a view into the listpack, valid until it is mutated or
// freed) or an integer.
struct LpEntry {
  std::string_view sval;  // when !is_int
  int64_t ival = 0;       // when is_int
  bool is_int = false;

  // The element as text. For an integer the digits are written into `buf` (kLpIntBufSize bytes)
  // and the view points there; otherwise the view points into the listpack.
  std::string_view str(char* buf) const {
    if (!is_int) return sval;
    return std::string_view(buf, format_int64(ival, buf));
  }
  // Value equality with a string as a client would see it ("12" equals the integer 12).
  bool equals(std::string_view s) const;
};

// A position is the byte offset of an entry from the start of the blob. 0 means "none" (no
// entry starts inside the header). Offsets survive reallocation, so a position stays valid
// across mutations that happen *after* it; any insertion or deletion at or before it shifts it.
using LpPos = uint32_t;
inline constexpr LpPos kLpNone = 0;

enum class LpWhere : uint8_t { kBefore, kAfter };

// Bytes that storing `v` adds to a listpack (encoding + data + backlen), with the same integer
// detection as append(). O(len) for the integer check. Use for "would it fit" decisions.
size_t lp_entry_size_for(std::string_view v);
size_t lp_entry_size_for_int(int64_t v);

// Checks that `p[0..len)` is a listpack that every reader here can walk without reading out of
// bounds. Shallow (deep=false): header total-bytes == len, len >= 7, last byte 0xFF. Deep also
// walks every entry: valid encoding byte, encoding and data inside the blob, backlen bytes that
// are exactly the canonical encoding of the entry size, the walk ends on the terminator, and
// the element count matches the header unless it is 65535. Never reads outside p[0..len).
// O(len) when deep, O(1) otherwise.
[[nodiscard]] bool listpack_validate(const uint8_t* p, size_t len, bool deep);

// Owner of one listpack blob (exactly bytes() long, from malloc). Move-only; one pointer wide.
// Every mutation may reallocate the blob: pointers from data() and string views from entries
// are invalidated by any mutation; LpPos offsets follow the rule above.
class Listpack {
 public:
  Listpack();  // empty listpack, 7 bytes
  // Inline so that the many short-lived views the types create cost nothing to destroy.
  ~Listpack() {
    if (lp_) std::free(lp_);
  }
  Listpack(Listpack&& o) noexcept : lp_(o.lp_) { o.lp_ = nullptr; }
  Listpack& operator=(Listpack&& o) noexcept;
  Listpack(const Listpack&) = delete;
  Listpack& operator=(const Listpack&) = delete;

  // Takes ownership of a malloc'd blob that passed listpack_validate (deep, or produced here).
  static Listpack adopt(uint8_t* blob);
  // Copies `len` bytes that the caller has validated.
  static Listpack copy_of(const uint8_t* p, size_t len);
  Listpack clone() const { return copy_of(data(), bytes()); }
  // Gives up the blob (caller frees it with free()); this object becomes null (only
  // destruction or assignment is allowed afterwards).
  uint8_t* release() {
    uint8_t* p = lp_;
    lp_ = nullptr;
    return p;
  }

  const uint8_t* data() const { return lp_; }
  size_t bytes() const;  // total-bytes header, O(1)
  bool empty() const { return lp_[kLpHeaderSize] == kLpEof; }
  // Element count. O(1) unless the header says 65535 (unknown): then it walks the entries and,
  // if it finds fewer than 65535, stores the count back in the header (as Redis's lpLength
  // does; logically const, it writes through the owned pointer).
  size_t size() const;

  // ---- reading ----
  LpPos first() const;                  // kLpNone if empty
  LpPos last() const;                   // kLpNone if empty
  LpPos next(LpPos pos) const;          // kLpNone after the last
  LpPos prev(LpPos pos) const;          // kLpNone before the first
  LpEntry get(LpPos pos) const;         // pos must be an entry
  size_t entry_bytes(LpPos pos) const;  // encoding + data + backlen of the entry at pos
  // Entry at `index`; negative counts from the tail (-1 = last). kLpNone if out of range.
  // O(n), walking from the nearer end.
  LpPos seek(long index) const;
  // First entry at or after `start` whose value equals `v`, comparing only every (skip+1)-th
  // entry: skip=1 searches hash fields / zset members from first(). kLpNone if not found.
  // Integers are compared numerically only when `v` is a canonical int64. O(n).
  LpPos find(std::string_view v, LpPos start, unsigned skip = 0) const;

  // ---- writing (each reallocates once; O(bytes) for the memmove) ----
  void append(std::string_view v);
  void append_int(int64_t v);
  void prepend(std::string_view v);
  void prepend_int(int64_t v);
  // Appends many elements with one reallocation (HSET/ZADD/RPUSH batches, building in RDB load).
  // The values must not point into this listpack (the single-element calls allow that).
  void append_all(std::span<const std::string_view> vs);
  // Appends every entry of `o` (which must be another listpack) with one reallocation.
  void append_listpack(const Listpack& o);
  // Inserts before or after the entry at `pos` and returns the new entry's position.
  LpPos insert(LpPos pos, std::string_view v, LpWhere where);
  LpPos insert_int(LpPos pos, int64_t v, LpWhere where);
  // Replaces the entry at `pos` (the position is unchanged; later positions shift).
  void replace(LpPos pos, std::string_view v);
  void replace_int(LpPos pos, int64_t v);
  // Deletes the entry at `pos`; returns the position of the entry that followed (now at `pos`)
  // or kLpNone if it was the last.
  LpPos erase(LpPos pos);
  // Deletes up to `count` entries starting at `pos`; returns how many were deleted.
  size_t erase_at(LpPos pos, size_t count);
  // Deletes up to `count` entries starting at `index` (negative from the tail), like
  // lpDeleteRange. Returns how many were deleted.
  size_t erase_range(long index, size_t count);

 private:
  explicit Listpack(uint8_t* p) : lp_(p) {}
  struct Encoded;
  LpPos insert_encoded(uint32_t offset, const Encoded& e);
  void replace_encoded(LpPos pos, const Encoded& e);
  bool aliases(const Encoded& e) const;
  void erase_bytes(uint32_t offset, size_t len, size_t entries);
  void set_bytes(size_t n);
  void add_count(long delta);

  uint8_t* lp_;
};
static_assert(sizeof(Listpack) == sizeof(void*));

// Borrowed access to a blob whose owner keeps the pointer (a collection object, a set's value
// slot). ListpackView reads it; ListpackEdit edits it and, when the scope ends, stores the
// (possibly reallocated) blob back through the owner's pointer. Neither frees the blob.
class ListpackView {
 public:
  explicit ListpackView(const void* blob)
      : lp_(Listpack::adopt(static_cast<uint8_t*>(const_cast<void*>(blob)))) {}
  ~ListpackView() { (void)lp_.release(); }
  ListpackView(const ListpackView&) = delete;
  ListpackView& operator=(const ListpackView&) = delete;
  const Listpack& operator*() const { return lp_; }
  const Listpack* operator->() const { return &lp_; }

 private:
  Listpack lp_;
};

class ListpackEdit {
 public:
  explicit ListpackEdit(void*& owner) : owner_(owner), lp_(Listpack::adopt(static_cast<uint8_t*>(owner))) {}
  ~ListpackEdit() { owner_ = lp_.release(); }
  ListpackEdit(const ListpackEdit&) = delete;
  ListpackEdit& operator=(const ListpackEdit&) = delete;
  Listpack& operator*() { return lp_; }
  Listpack* operator->() { return &lp_; }

 private:
  void*& owner_;
  Listpack lp_;
};

}  // namespace keel
