// Intset: Redis's sorted integer array for small all-integer sets (OBJECT ENCODING "intset"),
// byte for byte, in one malloc'd blob so RDB can save and load it as it is (RDB type 11).
// Only the data structure lives here; the set-type conversions (intset -> listpack/hashtable at
// set-max-intset-entries or on a non-integer member) belong in types/set_type.cc.
//
//   offset 0        4         8
//          +--------+---------+---------+---------+-- ... --+
//          |encoding| length  | value 0 | value 1 |         |   all fields little-endian
//          | u32 LE | u32 LE  |  width  |  width  |         |   encoding = width in bytes
//          +--------+---------+---------+---------+-- ... --+   (2, 4 or 8)
//
// Invariants: encoding is 2, 4 or 8; the blob is exactly 8 + length * encoding bytes; values are
// signed, strictly ascending (hence unique). The width only grows (16 -> 32 -> 64 bit) when a
// value needs it and never narrows, even when the value that needed it is removed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel {

// The blob itself: an `Intset*` points at byte 0 of the layout above. Never dereference it
// directly; use the functions below. Always allocated with malloc (freed with intset_free).
struct Intset;

inline constexpr size_t kIntsetHeaderSize = 8;

// Width in bytes (2, 4 or 8) of the narrowest encoding that holds `v`.
uint32_t intset_value_width(int64_t v);

// A new empty intset (16-bit encoding, 8 bytes). Aborts if malloc fails.
Intset* intset_new();
void intset_free(Intset* is);
// A copy of `is` (one malloc of intset_bytes(is)).
Intset* intset_dup(const Intset* is);
// Validates `len` bytes at `p` with intset_validate and returns a malloc'd copy, or nullptr if
// they are not a valid intset (RDB load, RESTORE). `p` needs no alignment.
Intset* intset_from_bytes(const uint8_t* p, size_t len);

// Adds `value`. Returns the (possibly moved) intset: the caller must replace its pointer, the
// old one is invalid afterwards. *added (optional) says whether the value was new. A value wider
// than the current encoding upgrades every value to the new width first. O(n) (memmove + one
// realloc); a present value costs one binary search and no allocation.
[[nodiscard]] Intset* intset_add(Intset* is, int64_t value, bool* added);
// Removes `value` if present; same pointer contract as intset_add. The blob shrinks by one value
// (realloc) but keeps its width. *removed (optional) says whether it was present. O(n).
[[nodiscard]] Intset* intset_remove(Intset* is, int64_t value, bool* removed);

// Binary search. O(log n).
bool intset_find(const Intset* is, int64_t value);
// Binary search that also reports a position: when found, *index is the value's index; when
// not, *index is where it would be inserted (0..size). Returns whether it was found.
bool intset_search(const Intset* is, int64_t value, uint32_t* index);

// Value at `index` (< intset_size). O(1).
int64_t intset_get(const Intset* is, uint32_t index);
// A uniformly random value (keel::random_bounded). The intset must not be empty.
int64_t intset_random(const Intset* is);
// Smallest / largest value. The intset must not be empty.
int64_t intset_min(const Intset* is);
int64_t intset_max(const Intset* is);

// Number of values.
uint32_t intset_size(const Intset* is);
// Current width in bytes: 2, 4 or 8 (the encoding field).
uint32_t intset_width(const Intset* is);
// Blob length in bytes (8 + size * width): what RDB writes and what MEMORY USAGE counts.
size_t intset_bytes(const Intset* is);
// The blob's bytes, for RDB save and DUMP.
const uint8_t* intset_data(const Intset* is);

// Checks untrusted bytes (RDB, RESTORE) without reading outside [p, p + len) and without
// assuming alignment: header present, encoding 2/4/8, len == 8 + length * encoding, length > 0
// (Redis rejects an empty intset as corrupt), values strictly ascending (no duplicates). It does
// not require the narrowest width: a 64-bit intset of small values is valid, as after a removal.
// O(n).
[[nodiscard]] bool intset_validate(const uint8_t* p, size_t len);

// Ascending iteration: `for (int64_t v : IntsetValues(is))`. The intset must not change while
// an iterator is live (any add/remove may move or reallocate the blob).
class IntsetValues {
 public:
  class Iterator {
   public:
    Iterator(const uint8_t* p, uint32_t width) : p_(p), width_(width) {}
    int64_t operator*() const;
    Iterator& operator++() {
      p_ += width_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return p_ == o.p_; }
    bool operator!=(const Iterator& o) const { return p_ != o.p_; }

   private:
    const uint8_t* p_;
    uint32_t width_;
  };

  explicit IntsetValues(const Intset* is) : is_(is) {}
  Iterator begin() const;
  Iterator end() const;

 private:
  const Intset* is_;
};

}  // namespace keel
