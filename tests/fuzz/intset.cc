// Fuzz target: intset_validate / intset_from_bytes (ds/intset.h) on untrusted blobs (RESTORE,
// RDB type 11), then use of what they accept.
//
// Input: byte 0 picks the blob:
//   0: the rest of the input as it is;
//   1: the rest with a consistent header (encoding from the first byte: 2, 4 or 8; length =
//      what fits), so that the ordering check decides;
//   2: sorted distinct values from the input at a width from the first byte, then one byte
//      XORed (position and mask from the input).
// Checked: validation of an exact-size heap copy never reads past it; an accepted blob has a
// 2/4/8 encoding, a length that matches its size, strictly ascending values (read back with
// intset_get and the iterator, which agree), finds every value; intset_from_bytes copies it
// exactly; then adds and removes (values from the input, narrow and wide) against a std::set,
// and the result still validates and equals the model.
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ds/intset.h"
#include "fuzz_util.h"

using keel::Intset;
using keel::fuzz::Input;
using keel::fuzz::exact_copy;

namespace {

void put_u32(std::string& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b[at + i] = static_cast<char>(v >> (8 * i));
}

uint32_t width_from(uint8_t b) { return b % 3 == 0 ? 2 : b % 3 == 1 ? 4 : 8; }

int64_t value_of_width(uint64_t raw, uint32_t width) {
  if (width == 2) return static_cast<int16_t>(raw);
  if (width == 4) return static_cast<int32_t>(raw);
  return static_cast<int64_t>(raw);
}

std::string make_blob(Input& in) {
  const uint8_t mode = in.u8() % 3;
  if (mode == 0) return std::string(in.rest());
  const uint32_t width = width_from(in.u8());
  if (mode == 1) {
    std::string b(in.rest());
    if (b.size() < keel::kIntsetHeaderSize) return b;
    const size_t n = (b.size() - keel::kIntsetHeaderSize) / width;
    b.resize(keel::kIntsetHeaderSize + n * width);
    put_u32(b, 0, width);
    put_u32(b, 4, static_cast<uint32_t>(n));
    return b;
  }
  std::set<int64_t> vals;
  const size_t n = in.u8();
  for (size_t i = 0; i < n && !in.empty(); i++) vals.insert(value_of_width(in.u64(), width));
  std::string b(keel::kIntsetHeaderSize, '\0');
  put_u32(b, 0, width);
  put_u32(b, 4, static_cast<uint32_t>(vals.size()));
  for (int64_t v : vals) {
    for (uint32_t i = 0; i < width; i++) b.push_back(static_cast<char>(static_cast<uint64_t>(v) >> (8 * i)));
  }
  const size_t at = in.u32() % b.size();
  b[at] = static_cast<char>(b[at] ^ in.u8());
  return b;
}

void check_equal(const Intset* is, const std::set<int64_t>& model) {
  FUZZ_CHECK(keel::intset_validate(keel::intset_data(is), keel::intset_bytes(is)) == !model.empty());
  FUZZ_CHECK(keel::intset_size(is) == model.size());
  FUZZ_CHECK(keel::intset_bytes(is) == keel::kIntsetHeaderSize + model.size() * keel::intset_width(is));
  uint32_t i = 0;
  auto it = model.begin();
  for (int64_t v : keel::IntsetValues(is)) {
    FUZZ_CHECK(it != model.end() && v == *it);
    FUZZ_CHECK(keel::intset_get(is, i) == v);
    ++it;
    ++i;
  }
  FUZZ_CHECK(it == model.end());
  if (!model.empty()) {
    FUZZ_CHECK(keel::intset_min(is) == *model.begin());
    FUZZ_CHECK(keel::intset_max(is) == *model.rbegin());
    FUZZ_CHECK(model.count(keel::intset_random(is)) == 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const std::string blob = make_blob(in);
  const std::unique_ptr<uint8_t[]> exact = exact_copy(blob);
  const bool ok = keel::intset_validate(exact.get(), blob.size());
  Intset* is = keel::intset_from_bytes(exact.get(), blob.size());
  FUZZ_CHECK((is != nullptr) == ok);
  if (!ok) return 0;

  FUZZ_CHECK(keel::intset_bytes(is) == blob.size());
  FUZZ_CHECK(std::memcmp(keel::intset_data(is), blob.data(), blob.size()) == 0);
  const uint32_t width = keel::intset_width(is);
  FUZZ_CHECK(width == 2 || width == 4 || width == 8);
  std::set<int64_t> model;
  int64_t prev = 0;
  for (uint32_t i = 0; i < keel::intset_size(is); i++) {
    const int64_t v = keel::intset_get(is, i);
    FUZZ_CHECK(i == 0 || v > prev);
    FUZZ_CHECK(keel::intset_value_width(v) <= width);
    prev = v;
    model.insert(v);
  }
  check_equal(is, model);
  for (int64_t v : model) {
    uint32_t idx;
    FUZZ_CHECK(keel::intset_search(is, v, &idx) && keel::intset_get(is, idx) == v);
  }

  for (int op = 0; op < 16 && !in.empty(); op++) {
    const uint8_t kind = in.u8();
    // Small values hit existing members, wide ones force an upgrade.
    const int64_t v = (kind & 2) ? static_cast<int64_t>(in.u64()) : static_cast<int8_t>(in.u8());
    bool changed = false;
    if (kind & 1) {
      is = keel::intset_add(is, v, &changed);
      FUZZ_CHECK(changed == model.insert(v).second);
    } else {
      is = keel::intset_remove(is, v, &changed);
      FUZZ_CHECK(changed == (model.erase(v) == 1));
    }
    FUZZ_CHECK(keel::intset_find(is, v) == (model.count(v) == 1));
    check_equal(is, model);
  }
  keel::intset_free(is);
  return 0;
}
