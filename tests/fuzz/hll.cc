// Fuzz target: the HyperLogLog bytes of ds/hyperloglog.h on untrusted values (any string a
// client SETs or RESTOREs can be handed to PFADD / PFCOUNT / PFMERGE / PFDEBUG).
//
// Input: byte 0 picks the value:
//   0: the rest of the input as it is;
//   1: a sparse header (stale cache) followed by the rest as opcodes;
//   2: a sparse HLL built by adding elements taken from the input, then one byte XORed
//      (position and mask from the input);
//   3: a dense header followed by register bytes from the input, padded to the dense size.
// Then the rest of the input drives sparse_set edits (register index, value 1..63).
// Checked: every function sees an exact-size heap copy (a read or write one byte too far is an
// ASan report); for a value with a valid header, the sparse walkers agree on validity
// (sparse_valid, histogram, merge_max, sparse_to_dense); a valid sparse value has the same
// registers, histogram and count as its dense form; edits keep a valid value valid, never write
// past len + kSparseSetGrowth, leave it unchanged on kUnchanged / kPromote / kInvalid, respect
// the size limit, and the registers after each edit are the model's max.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ds/hyperloglog.h"
#include "fuzz_util.h"

namespace hll = keel::hll;
using keel::fuzz::Input;
using keel::fuzz::exact_copy;

namespace {

std::string sparse_header() {
  std::string h("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80", 16);
  return h;
}

std::string make_value(Input& in) {
  const uint8_t mode = in.u8() % 4;
  if (mode == 0) return std::string(in.bytes(in.u16() % 4096));
  if (mode == 1) return sparse_header() + std::string(in.bytes(in.u16() % 4096));
  if (mode == 3) {
    std::string v("HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80", 16);
    v += std::string(in.bytes(in.u16() % 13000));
    v.resize(hll::kDenseSize, '\0');
    return v;
  }
  std::vector<uint8_t> b(70000);
  hll::write_empty(b.data());
  size_t len = hll::kEmptySparseSize;
  const int n = in.u8();
  for (int i = 0; i < n; i++) {
    const uint32_t idx = in.u16() % hll::kRegisters;
    const uint8_t c = static_cast<uint8_t>(in.u8() % 32 + 1);
    if (hll::sparse_set(b.data(), &len, idx, c, 60000) != hll::SetResult::kChanged) continue;
  }
  std::string v(reinterpret_cast<char*>(b.data()), len);
  const uint16_t at = in.u16();
  const uint8_t mask = in.u8();
  if (!v.empty()) v[at % v.size()] = static_cast<char>(v[at % v.size()] ^ mask);
  return v;
}

void registers_of_dense(const uint8_t* d, std::vector<uint8_t>* out) {
  out->resize(hll::kRegisters);
  for (uint32_t i = 0; i < hll::kRegisters; i++) (*out)[i] = hll::dense_get(d + hll::kHeaderSize, i);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const std::string v = make_value(in);
  const auto exact = exact_copy(v);
  const uint8_t* p = exact.get();
  if (!hll::valid_header(p, v.size())) return 0;

  // The walkers agree on validity; a valid value reads the same sparse or dense.
  int histo[64];
  std::vector<uint8_t> max(hll::kRegisters);
  const bool hok = hll::histogram(p, v.size(), histo);
  const bool mok = hll::merge_max(p, v.size(), max.data());
  uint64_t card = 0;
  const bool cok = hll::count(p, v.size(), &card);
  hll::decode_sparse(p, v.size());
  const bool sparse = hll::encoding(p) == hll::kEncSparse;
  FUZZ_CHECK(hok == mok && mok == cok);
  if (sparse) {
    const bool valid = hll::sparse_valid(p, v.size());
    FUZZ_CHECK(valid == hok);
    auto dense = std::make_unique<uint8_t[]>(hll::kDenseSize);
    FUZZ_CHECK(hll::sparse_to_dense(p, v.size(), dense.get()) == valid);
    if (valid) {
      std::vector<uint8_t> regs;
      registers_of_dense(dense.get(), &regs);
      FUZZ_CHECK(regs == max);
      int dh[64];
      FUZZ_CHECK(hll::histogram(dense.get(), hll::kDenseSize, dh));
      FUZZ_CHECK(std::memcmp(dh, histo, sizeof dh) == 0);
      uint64_t dc;
      FUZZ_CHECK(hll::count(dense.get(), hll::kDenseSize, &dc) && dc == card);
    }
  } else {
    FUZZ_CHECK(hok);
  }
  if (!sparse) return 0;

  // Edits, each on an exact-size buffer with the documented room.
  const bool valid = hok;
  const size_t max_bytes = 16 + in.u16() % 4000;
  std::string cur = v;
  std::vector<uint8_t> model = max;
  while (in.left() >= 3) {
    const uint32_t idx = in.u16() % hll::kRegisters;
    const uint8_t c = static_cast<uint8_t>(in.u8() % 63 + 1);
    const size_t room = cur.size() + hll::kSparseSetGrowth;
    std::unique_ptr<uint8_t[]> b(new uint8_t[room]);
    std::memcpy(b.get(), cur.data(), cur.size());
    size_t len = cur.size();
    const hll::SetResult r = hll::sparse_set(b.get(), &len, idx, c, max_bytes);
    FUZZ_CHECK(len <= room);
    if (r != hll::SetResult::kChanged) {
      FUZZ_CHECK(len == cur.size() && std::memcmp(b.get(), cur.data(), len) == 0);
      if (valid) {
        if (r == hll::SetResult::kUnchanged) FUZZ_CHECK(model[idx] >= c);
        if (r == hll::SetResult::kPromote) FUZZ_CHECK(c > 32 || cur.size() + hll::kSparseSetGrowth > max_bytes);
        FUZZ_CHECK(r != hll::SetResult::kInvalid);
      }
      if (r == hll::SetResult::kPromote) break;
      continue;
    }
    FUZZ_CHECK(!hll::cache_valid(b.get()));
    if (valid) {
      FUZZ_CHECK(c > model[idx]);
      FUZZ_CHECK(len <= cur.size() || len <= max_bytes);
      model[idx] = c;
    }
    cur.assign(reinterpret_cast<char*>(b.get()), len);
    if (valid) {
      const auto e = exact_copy(cur);
      FUZZ_CHECK(hll::sparse_valid(e.get(), cur.size()));
      std::vector<uint8_t> now(hll::kRegisters);
      FUZZ_CHECK(hll::merge_max(e.get(), cur.size(), now.data()));
      FUZZ_CHECK(now == model);
    }
  }
  return 0;
}
