// Intset implementation: the blob is read and written only through memcpy of little-endian
// fields, so a blob handed over by RDB load needs no particular alignment and the code has no
// type-punning. See intset.h for the layout and invariants.
#include "ds/intset.h"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "base/assert.h"
#include "base/util_random.h"

namespace keel {

static_assert(std::endian::native == std::endian::little,
              "intset fields are little-endian on disk and are copied as they are");

namespace {

uint8_t* bytes(Intset* is) { return reinterpret_cast<uint8_t*>(is); }
const uint8_t* bytes(const Intset* is) { return reinterpret_cast<const uint8_t*>(is); }

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
void store_u32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }

// Reads one signed value of `width` bytes.
int64_t load_value(const uint8_t* p, uint32_t width) {
  if (width == 2) {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  if (width == 4) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Writes `v` (which fits `width`) as `width` bytes.
void store_value(uint8_t* p, uint32_t width, int64_t v) {
  if (width == 2) {
    const int16_t x = static_cast<int16_t>(v);
    std::memcpy(p, &x, 2);
  } else if (width == 4) {
    const int32_t x = static_cast<int32_t>(v);
    std::memcpy(p, &x, 4);
  } else {
    std::memcpy(p, &v, 8);
  }
}

uint32_t width_of(const Intset* is) { return load_u32(bytes(is)); }
uint32_t size_of(const Intset* is) { return load_u32(bytes(is) + 4); }
const uint8_t* values(const Intset* is) { return bytes(is) + kIntsetHeaderSize; }
uint8_t* values(Intset* is) { return bytes(is) + kIntsetHeaderSize; }

Intset* checked_realloc(Intset* is, size_t n) {
  void* p = std::realloc(is, n);
  if (p == nullptr) std::abort();  // the allocator is out of memory; maxmemory guards before this
  return static_cast<Intset*>(p);
}

Intset* checked_malloc(size_t n) {
  void* p = std::malloc(n);
  if (p == nullptr) std::abort();
  return static_cast<Intset*>(p);
}

// Lower bound over a sorted array of `n` values of `width` bytes: the first index whose value is
// >= v (n if none). Sets *found when that value equals v.
uint32_t lower_bound(const uint8_t* vals, uint32_t n, uint32_t width, int64_t v, bool* found) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (load_value(vals + size_t{mid} * width, width) < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *found = lo < n && load_value(vals + size_t{lo} * width, width) == v;
  return lo;
}

// Adds `v`, which needs a wider encoding than the current one. Since it does not fit the old
// width it is either below every value (negative) or above every value (positive), so it goes at
// one end and no search is needed. Values are widened from the last to the first: each one's new
// slot starts at or after its old slot, so nothing unread is overwritten.
Intset* upgrade_and_add(Intset* is, int64_t v, uint32_t new_width) {
  const uint32_t old_width = width_of(is);
  const uint32_t n = size_of(is);
  const bool prepend = v < 0;
  is = checked_realloc(is, kIntsetHeaderSize + (size_t{n} + 1) * new_width);
  uint8_t* vals = values(is);
  const size_t shift = prepend ? 1 : 0;
  for (uint32_t i = n; i-- > 0;) {
    const int64_t x = load_value(vals + size_t{i} * old_width, old_width);
    store_value(vals + (i + shift) * new_width, new_width, x);
  }
  store_value(vals + (prepend ? 0 : size_t{n} * new_width), new_width, v);
  store_u32(bytes(is), new_width);
  store_u32(bytes(is) + 4, n + 1);
  return is;
}

}  // namespace

uint32_t intset_value_width(int64_t v) {
  if (v >= std::numeric_limits<int16_t>::min() && v <= std::numeric_limits<int16_t>::max()) {
    return 2;
  }
  if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
    return 4;
  }
  return 8;
}

Intset* intset_new() {
  Intset* is = checked_malloc(kIntsetHeaderSize);
  store_u32(bytes(is), 2);
  store_u32(bytes(is) + 4, 0);
  return is;
}

void intset_free(Intset* is) { std::free(is); }

Intset* intset_dup(const Intset* is) {
  const size_t n = intset_bytes(is);
  Intset* copy = checked_malloc(n);
  std::memcpy(copy, is, n);
  return copy;
}

Intset* intset_from_bytes(const uint8_t* p, size_t len) {
  if (!intset_validate(p, len)) return nullptr;
  Intset* is = checked_malloc(len);
  std::memcpy(is, p, len);
  return is;
}

Intset* intset_add(Intset* is, int64_t value, bool* added) {
  const uint32_t need = intset_value_width(value);
  const uint32_t width = width_of(is);
  const uint32_t n = size_of(is);
  // set-max-intset-entries is capped at 2^30, so the u32 length can never be exhausted.
  KEEL_ASSERT(n < std::numeric_limits<uint32_t>::max());
  if (need > width) {
    if (added) *added = true;
    return upgrade_and_add(is, value, need);
  }
  bool found;
  const uint32_t pos = lower_bound(values(is), n, width, value, &found);
  if (found) {
    if (added) *added = false;
    return is;
  }
  is = checked_realloc(is, kIntsetHeaderSize + (size_t{n} + 1) * width);
  uint8_t* at = values(is) + size_t{pos} * width;
  std::memmove(at + width, at, size_t{n - pos} * width);
  store_value(at, width, value);
  store_u32(bytes(is) + 4, n + 1);
  if (added) *added = true;
  return is;
}

Intset* intset_remove(Intset* is, int64_t value, bool* removed) {
  const uint32_t width = width_of(is);
  const uint32_t n = size_of(is);
  bool found = false;
  uint32_t pos = 0;
  // A value wider than the encoding cannot be present.
  if (intset_value_width(value) <= width) pos = lower_bound(values(is), n, width, value, &found);
  if (removed) *removed = found;
  if (!found) return is;
  uint8_t* at = values(is) + size_t{pos} * width;
  std::memmove(at, at + width, size_t{n - pos - 1} * width);
  store_u32(bytes(is) + 4, n - 1);
  return checked_realloc(is, kIntsetHeaderSize + size_t{n - 1} * width);
}

bool intset_find(const Intset* is, int64_t value) {
  uint32_t index;
  return intset_search(is, value, &index);
}

bool intset_search(const Intset* is, int64_t value, uint32_t* index) {
  const uint32_t width = width_of(is);
  const uint32_t n = size_of(is);
  if (intset_value_width(value) > width) {
    *index = value < 0 ? 0 : n;
    return false;
  }
  bool found;
  *index = lower_bound(values(is), n, width, value, &found);
  return found;
}

int64_t intset_get(const Intset* is, uint32_t index) {
  KEEL_DCHECK(index < size_of(is));
  const uint32_t width = width_of(is);
  return load_value(values(is) + size_t{index} * width, width);
}

int64_t intset_random(const Intset* is) {
  const uint32_t n = size_of(is);
  KEEL_DCHECK(n > 0);
  return intset_get(is, static_cast<uint32_t>(random_bounded(n)));
}

int64_t intset_min(const Intset* is) {
  KEEL_DCHECK(size_of(is) > 0);
  return intset_get(is, 0);
}

int64_t intset_max(const Intset* is) {
  KEEL_DCHECK(size_of(is) > 0);
  return intset_get(is, size_of(is) - 1);
}

uint32_t intset_size(const Intset* is) { return size_of(is); }
uint32_t intset_width(const Intset* is) { return width_of(is); }
size_t intset_bytes(const Intset* is) {
  return kIntsetHeaderSize + size_t{size_of(is)} * width_of(is);
}
const uint8_t* intset_data(const Intset* is) { return bytes(is); }

bool intset_validate(const uint8_t* p, size_t len) {
  if (p == nullptr || len < kIntsetHeaderSize) return false;
  const uint32_t width = load_u32(p);
  if (width != 2 && width != 4 && width != 8) return false;
  const uint32_t n = load_u32(p + 4);
  // n * 8 < 2^35: no overflow in 64-bit size_t.
  if (n == 0 || kIntsetHeaderSize + uint64_t{n} * width != len) return false;
  const uint8_t* vals = p + kIntsetHeaderSize;
  int64_t prev = load_value(vals, width);
  for (uint32_t i = 1; i < n; ++i) {
    const int64_t v = load_value(vals + size_t{i} * width, width);
    if (v <= prev) return false;
    prev = v;
  }
  return true;
}

int64_t IntsetValues::Iterator::operator*() const { return load_value(p_, width_); }

IntsetValues::Iterator IntsetValues::begin() const { return Iterator(values(is_), width_of(is_)); }

IntsetValues::Iterator IntsetValues::end() const {
  const uint32_t width = width_of(is_);
  return Iterator(values(is_) + size_t{size_of(is_)} * width, width);
}

}  // namespace keel
