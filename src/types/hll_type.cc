// HyperLogLog values over string Objects (see hll_type.h); the byte format is ds/hyperloglog.
#include "types/hll_type.h"

#include <cstring>

#include "ds/hyperloglog.h"
#include "types/limits.h"
#include "types/string_type.h"

namespace keel {
namespace {

std::string_view bytes(const Object& o, char* scratch) { return o.string_view(scratch); }
const uint8_t* u8(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// The value as a private raw string of at least `cap` bytes of capacity, length unchanged.
RawString* editable(Object& o, size_t cap) { return o.make_raw_for_edit(cap); }

// Replaces a sparse value by its dense form. False when the opcodes are damaged.
bool promote(Object& o) {
  RawString* r = editable(o, hll::kDenseSize);
  uint8_t dense[hll::kDenseSize];
  if (!hll::sparse_to_dense(reinterpret_cast<uint8_t*>(r->data), r->len, dense)) return false;
  memcpy(r->data, dense, hll::kDenseSize);
  r->len = hll::kDenseSize;
  return true;
}

size_t sparse_max_bytes() {
  const int64_t v = encoding_limits().hll_sparse_max_bytes;
  return v < 0 ? 0 : static_cast<size_t>(v);
}

}  // namespace

Object* HllType::create(std::string_view key) {
  char* data;
  Object* o = StringType::create_raw_uninit(key, hll::kEmptySparseSize, &data);
  hll::write_empty(reinterpret_cast<uint8_t*>(data));
  return o;
}

bool HllType::is_hll(const Object& o) {
  char scratch[24];
  std::string_view s = bytes(o, scratch);
  return hll::valid_header(u8(s), s.size());
}

bool HllType::is_dense(const Object& o) {
  char scratch[24];
  return hll::encoding(u8(bytes(o, scratch))) == hll::kEncDense;
}

int HllType::add(Object& o, std::string_view element) {
  uint32_t index;
  const uint8_t count = hll::pattern(element, &index);
  if (is_dense(o)) {
    RawString* r = editable(o, hll::kDenseSize);
    auto* p = reinterpret_cast<uint8_t*>(r->data);
    if (hll::dense_get(p + hll::kHeaderSize, index) >= count) return 0;
    hll::dense_set(p + hll::kHeaderSize, index, count);
    hll::invalidate_cache(p);
    return 1;
  }
  // As Redis, a damaged sparse value is refused only when the edit meets the damage (the
  // register is past the opcodes' end, or the value must become dense).
  RawString* r = editable(o, o.string_length() + hll::kSparseSetGrowth);
  auto* p = reinterpret_cast<uint8_t*>(r->data);
  size_t len = r->len;
  switch (hll::sparse_set(p, &len, index, count, sparse_max_bytes())) {
    case hll::SetResult::kUnchanged:
      return 0;
    case hll::SetResult::kChanged:
      r->len = len;
      return 1;
    case hll::SetResult::kInvalid:
      return -1;
    case hll::SetResult::kPromote:
      break;
  }
  if (!promote(o)) return -1;
  auto* d = reinterpret_cast<uint8_t*>(o.raw()->data);
  hll::dense_set(d + hll::kHeaderSize, index, count);
  hll::invalidate_cache(d);
  return 1;
}

void HllType::invalidate_cache(Object& o) {
  hll::invalidate_cache(reinterpret_cast<uint8_t*>(editable(o, o.string_length())->data));
}

bool HllType::cached(const Object& o, uint64_t* card) {
  char scratch[24];
  std::string_view s = bytes(o, scratch);
  if (!hll::cache_valid(u8(s))) return false;
  *card = hll::cached_card(u8(s));
  return true;
}

bool HllType::count(Object& o, uint64_t* card, bool* cache_written) {
  *cache_written = false;
  char scratch[24];
  std::string_view s = bytes(o, scratch);
  if (hll::cache_valid(u8(s))) {
    *card = hll::cached_card(u8(s));
    return true;
  }
  if (!hll::count(u8(s), s.size(), card)) return false;
  RawString* r = editable(o, s.size());
  hll::set_cached_card(reinterpret_cast<uint8_t*>(r->data), *card);
  *cache_written = true;
  return true;
}

bool HllType::merge_into(const Object& o, uint8_t* max) {
  char scratch[24];
  std::string_view s = bytes(o, scratch);
  return hll::merge_max(u8(s), s.size(), max);
}

bool HllType::store_max(Object& o, const uint8_t* max, bool dense) {
  if (dense && !is_dense(o) && !promote(o)) return false;
  if (is_dense(o)) {
    // One private copy, then every register at once: unpack, raise, pack (the same bytes as
    // raising them one by one).
    auto* p = reinterpret_cast<uint8_t*>(editable(o, hll::kDenseSize)->data);
    uint8_t regs[hll::kRegisters];
    hll::dense_unpack(p + hll::kHeaderSize, regs);
    for (uint32_t i = 0; i < hll::kRegisters; i++) regs[i] = max[i] > regs[i] ? max[i] : regs[i];
    hll::dense_pack(regs, p + hll::kHeaderSize);
    hll::invalidate_cache(p);
    return true;
  }
  {
    char scratch[24];
    std::string_view s = bytes(o, scratch);
    if (!hll::sparse_valid(u8(s), s.size())) return false;
  }
  // Sparse: register by register through sparse_set, as PFADD would (the opcodes come out as
  // Redis writes them), until a register needs the dense form.
  const size_t max_bytes = sparse_max_bytes();
  bool is_sparse = true;
  for (uint32_t i = 0; i < hll::kRegisters; i++) {
    if (max[i] == 0) continue;
    if (!is_sparse) {
      hll::dense_set(reinterpret_cast<uint8_t*>(o.raw()->data) + hll::kHeaderSize, i, max[i]);
      continue;
    }
    RawString* r = editable(o, o.string_length() + hll::kSparseSetGrowth);
    size_t len = r->len;
    const hll::SetResult res =
        hll::sparse_set(reinterpret_cast<uint8_t*>(r->data), &len, i, max[i], max_bytes);
    if (res == hll::SetResult::kInvalid) return false;
    r->len = len;
    if (res == hll::SetResult::kPromote) {
      if (!promote(o)) return false;
      is_sparse = false;
      hll::dense_set(reinterpret_cast<uint8_t*>(o.raw()->data) + hll::kHeaderSize, i, max[i]);
    }
  }
  hll::invalidate_cache(reinterpret_cast<uint8_t*>(editable(o, o.string_length())->data));
  return true;
}

int HllType::to_dense(Object& o) {
  if (is_dense(o)) return 0;
  return promote(o) ? 1 : -1;
}

void HllType::registers(const Object& o, uint8_t* out) {
  char scratch[24];
  hll::dense_unpack(u8(bytes(o, scratch)) + hll::kHeaderSize, out);
}

std::string HllType::decode(const Object& o) {
  char scratch[24];
  std::string_view s = bytes(o, scratch);
  return hll::decode_sparse(u8(s), s.size());
}

}  // namespace keel
