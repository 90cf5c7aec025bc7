// HyperLogLog bytes (see hyperloglog.h for the layout). Every walk over sparse opcodes is
// bounded by the buffer and by the register count, so damaged values are reported, never read
// or written past their end.
#include "ds/hyperloglog.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace keel::hll {
namespace {

constexpr uint64_t kSeed = 0xadc83b19ULL;
constexpr size_t kDenseRegBytes = kDenseSize - kHeaderSize;
constexpr double kAlphaInf = 0.721347520444481703680;  // 1 / (2 ln 2)

// Opcode decoding.
inline bool is_zero(uint8_t b) { return (b & 0xc0) == 0x00; }
inline bool is_xzero(uint8_t b) { return (b & 0xc0) == 0x40; }
inline int zero_len(uint8_t b) { return (b & 0x3f) + 1; }
inline int xzero_len(const uint8_t* p) { return (((p[0] & 0x3f) << 8) | p[1]) + 1; }
inline int val_value(uint8_t b) { return ((b >> 2) & 0x1f) + 1; }
inline int val_len(uint8_t b) { return (b & 0x3) + 1; }
inline uint8_t make_val(int value, int len) {
  return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (len - 1));
}
constexpr int kZeroMaxLen = 64;
constexpr int kValMaxLen = 4;

// Writes a run of `len` zero registers (1..16384) at out; returns its byte count.
int put_zeros(uint8_t* out, int len) {
  if (len <= kZeroMaxLen) {
    out[0] = static_cast<uint8_t>(len - 1);
    return 1;
  }
  out[0] = static_cast<uint8_t>(0x40 | ((len - 1) >> 8));
  out[1] = static_cast<uint8_t>((len - 1) & 0xff);
  return 2;
}

// Calls f(value, run) for each opcode of a sparse body; stops early when f returns false or the
// opcodes run past the end of the buffer. Returns the number of registers covered, or -1 when
// an XZERO is cut by the end of the buffer.
template <class F>
int64_t walk_sparse(const uint8_t* p, size_t len, F&& f) {
  const uint8_t* q = p + kHeaderSize;
  const uint8_t* end = p + len;
  int64_t idx = 0;
  while (q < end) {
    int run, value = 0;
    if (is_zero(*q)) {
      run = zero_len(*q);
      q++;
    } else if (is_xzero(*q)) {
      if (q + 1 >= end) return -1;
      run = xzero_len(q);
      q += 2;
    } else {
      run = val_len(*q);
      value = val_value(*q);
      q++;
    }
    if (idx + run > kRegisters) return idx + run;  // overflow: invalid whatever follows
    if (!f(idx, value, run)) return idx + run;
    idx += run;
  }
  return idx;
}

}  // namespace

uint64_t murmurhash64a(const void* key, size_t len, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const auto* data = static_cast<const uint8_t*>(key);
  uint64_t h = seed ^ (len * m);
  const size_t blocks = len / 8;
  for (size_t i = 0; i < blocks; i++) {
    uint64_t k = 0;
    for (int b = 7; b >= 0; b--) k = (k << 8) | data[i * 8 + b];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const uint8_t* tail = data + blocks * 8;
  const size_t rest = len & 7;
  if (rest) {
    for (size_t b = rest; b-- > 0;) h ^= static_cast<uint64_t>(tail[b]) << (8 * b);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

uint8_t pattern(std::string_view element, uint32_t* index) {
  uint64_t h = murmurhash64a(element.data(), element.size(), kSeed);
  *index = static_cast<uint32_t>(h & (kRegisters - 1));
  h >>= kP;
  h |= uint64_t{1} << kQ;
  return static_cast<uint8_t>(std::countr_zero(h) + 1);
}

bool valid_header(const uint8_t* p, size_t len) {
  if (len < kHeaderSize) return false;
  if (memcmp(p, "HYLL", 4) != 0) return false;
  if (p[4] > kEncSparse) return false;
  if (p[4] == kEncDense && len != kDenseSize) return false;
  return true;
}

bool sparse_valid(const uint8_t* p, size_t len) {
  return walk_sparse(p, len, [](int64_t, int, int) { return true; }) == kRegisters;
}

bool cache_valid(const uint8_t* p) { return (p[15] & 0x80) == 0; }

uint64_t cached_card(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[8 + i];
  return v;
}

void set_cached_card(uint8_t* p, uint64_t card) {
  for (int i = 0; i < 8; i++) p[8 + i] = static_cast<uint8_t>(card >> (8 * i));
}

void invalidate_cache(uint8_t* p) { p[15] |= 0x80; }

uint8_t dense_get(const uint8_t* regs, uint32_t i) {
  const size_t bit = size_t{i} * kBits;
  const size_t byte = bit / 8;
  const unsigned fb = bit & 7;
  unsigned v = regs[byte] >> fb;
  // The last register ends inside its byte: never read the byte after the registers.
  if (fb > 8 - kBits && byte + 1 < kDenseRegBytes) v |= static_cast<unsigned>(regs[byte + 1]) << (8 - fb);
  return static_cast<uint8_t>(v & kRegisterMax);
}

void dense_set(uint8_t* regs, uint32_t i, uint8_t v) {
  const size_t bit = size_t{i} * kBits;
  const size_t byte = bit / 8;
  const unsigned fb = bit & 7;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(kRegisterMax << fb)) | (v << fb));
  if (fb > 8 - kBits && byte + 1 < kDenseRegBytes) {
    const unsigned fb8 = 8 - fb;
    regs[byte + 1] = static_cast<uint8_t>((regs[byte + 1] & ~(kRegisterMax >> fb8)) | (v >> fb8));
  }
}

// Eight registers are six bytes: read as a little-endian 48-bit word, register k is bits
// 6k..6k+5. Spreading that word to eight bytes (and back) takes three mask-and-shift steps
// (24-bit halves to 32-bit lanes, 12-bit quarters to 16-bit lanes, 6-bit registers to bytes)
// instead of eight shifts and masks.
void dense_unpack(const uint8_t* regs, uint8_t* out) {
  if constexpr (std::endian::native == std::endian::little) {
    for (size_t g = 0; g < kRegisters / 8; g++, regs += 6, out += 8) {
      // Two loads combined in a register: a 6-byte memcpy into a zeroed word is compiled to
      // partial stores and an 8-byte reload, a failed store-to-load forward on every group
      // (that stall was most of a 3-key PFCOUNT).
      uint32_t lo;
      uint16_t hi;
      memcpy(&lo, regs, 4);
      memcpy(&hi, regs + 4, 2);
      uint64_t w = lo | (uint64_t{hi} << 32);
      w = (w & 0xFFFFFFULL) | ((w & 0xFFFFFF000000ULL) << 8);
      w = (w & 0x00000FFF00000FFFULL) | ((w & 0x00FFF00000FFF000ULL) << 4);
      w = (w & 0x003F003F003F003FULL) | ((w & 0x0FC00FC00FC00FC0ULL) << 2);
      memcpy(out, &w, 8);
    }
  } else {
    for (uint32_t i = 0; i < kRegisters; i++) out[i] = dense_get(regs, i);
  }
}

void dense_pack(const uint8_t* in, uint8_t* regs) {
  if constexpr (std::endian::native == std::endian::little) {
    for (size_t g = 0; g < kRegisters / 8; g++, regs += 6, in += 8) {
      uint64_t w;
      memcpy(&w, in, 8);
      w &= 0x3F3F3F3F3F3F3F3FULL;
      w = (w & 0x003F003F003F003FULL) | ((w & 0x3F003F003F003F00ULL) >> 2);
      w = (w & 0x00000FFF00000FFFULL) | ((w & 0x0FFF00000FFF0000ULL) >> 4);
      w = (w & 0xFFFFFFULL) | ((w & 0x00FFFFFF00000000ULL) >> 8);
      memcpy(regs, &w, 6);
    }
  } else {
    for (uint32_t i = 0; i < kRegisters; i++) dense_set(regs, i, in[i] & kRegisterMax);
  }
}

void write_empty(uint8_t* out) {
  memset(out, 0, kEmptySparseSize);
  memcpy(out, "HYLL", 4);
  out[4] = kEncSparse;
  put_zeros(out + kHeaderSize, kRegisters);
}

SetResult sparse_set(uint8_t* p, size_t* len, uint32_t index, uint8_t count, size_t max_bytes) {
  if (count > kSparseValMax) return SetResult::kPromote;
  uint8_t* const start = p + kHeaderSize;
  uint8_t* end = p + *len;
  // Find the opcode whose run holds `index`, and the one before it.
  uint8_t* q = start;
  uint8_t* prev = nullptr;
  uint64_t first = 0;  // 64 bits: a damaged value may claim far more runs than registers
  int span = 0, oplen = 0;
  while (q < end) {
    if (is_zero(*q)) {
      span = zero_len(*q);
      oplen = 1;
    } else if (is_xzero(*q)) {
      if (q + 1 >= end) return SetResult::kInvalid;
      span = xzero_len(q);
      oplen = 2;
    } else {
      span = val_len(*q);
      oplen = 1;
    }
    if (index <= first + span - 1) break;
    prev = q;
    q += oplen;
    first += span;
  }
  if (q >= end) return SetResult::kInvalid;

  const bool val = !is_zero(*q) && !is_xzero(*q);
  if (val) {
    if (val_value(*q) >= count) return SetResult::kUnchanged;
    if (span == 1) {
      *q = make_val(count, 1);
      goto merge;
    }
  }
  if (is_zero(*q) && span == 1) {
    *q = make_val(count, 1);
    goto merge;
  }
  {
    // Split the run: [left part] VAL(count, 1) [right part], at most 5 bytes.
    uint8_t seq[5];
    int n = 0;
    const uint64_t last = first + span - 1;
    if (!val) {
      if (index != first) n += put_zeros(seq + n, static_cast<int>(index - first));
      seq[n++] = make_val(count, 1);
      if (index != last) n += put_zeros(seq + n, static_cast<int>(last - index));
    } else {
      const int cur = val_value(*q);
      if (index != first) seq[n++] = make_val(cur, static_cast<int>(index - first));
      seq[n++] = make_val(count, 1);
      if (index != last) seq[n++] = make_val(cur, static_cast<int>(last - index));
    }
    const int delta = n - oplen;
    if (delta > 0 && *len + static_cast<size_t>(delta) > max_bytes) return SetResult::kPromote;
    if (delta != 0) memmove(q + n, q + oplen, static_cast<size_t>(end - (q + oplen)));
    memcpy(q, seq, static_cast<size_t>(n));
    *len = static_cast<size_t>(static_cast<int64_t>(*len) + delta);
    end = p + *len;
  }

merge:
  // Join adjacent VAL opcodes of the same value, looking at up to 5 opcodes from the one before
  // the edit (a merge re-examines the merged opcode against its right neighbour).
  {
    uint8_t* m = prev ? prev : start;
    int scan = 5;
    while (m < end && scan--) {
      if (is_xzero(*m)) {
        m += 2;
        continue;
      }
      if (is_zero(*m)) {
        m++;
        continue;
      }
      if (m + 1 < end && !is_zero(m[1]) && !is_xzero(m[1]) && val_value(*m) == val_value(m[1])) {
        const int l = val_len(*m) + val_len(m[1]);
        if (l <= kValMaxLen) {
          m[1] = make_val(val_value(*m), l);
          memmove(m, m + 1, static_cast<size_t>(end - m - 1));
          (*len)--;
          end--;
          continue;
        }
      }
      m++;
    }
  }
  invalidate_cache(p);
  return SetResult::kChanged;
}

bool sparse_to_dense(const uint8_t* p, size_t len, uint8_t* dense) {
  memset(dense, 0, kDenseSize);
  memcpy(dense, p, kHeaderSize);
  dense[4] = kEncDense;
  uint8_t regs[kRegisters] = {};
  const int64_t n = walk_sparse(p, len, [&](int64_t idx, int value, int run) {
    if (value) memset(regs + idx, value, static_cast<size_t>(run));
    return true;
  });
  if (n != kRegisters) return false;
  dense_pack(regs, dense + kHeaderSize);
  return true;
}

bool histogram(const uint8_t* p, size_t len, int histo[64]) {
  memset(histo, 0, 64 * sizeof(int));
  if (encoding(p) == kEncDense) {
    const uint8_t* regs = p + kHeaderSize;
    for (size_t g = 0; g < kRegisters / 4; g++, regs += 3) {
      const uint32_t w = regs[0] | (uint32_t{regs[1]} << 8) | (uint32_t{regs[2]} << 16);
      histo[w & kRegisterMax]++;
      histo[(w >> 6) & kRegisterMax]++;
      histo[(w >> 12) & kRegisterMax]++;
      histo[w >> 18]++;
    }
    return true;
  }
  const int64_t n = walk_sparse(p, len, [&](int64_t, int value, int run) {
    histo[value] += run;
    return true;
  });
  return n == kRegisters;
}

bool merge_max(const uint8_t* p, size_t len, uint8_t* max) {
  if (encoding(p) == kEncDense) {
    // Unpacked first, then a byte-wise max the compiler turns into vector instructions.
    uint8_t regs[kRegisters];
    dense_unpack(p + kHeaderSize, regs);
    for (uint32_t i = 0; i < kRegisters; i++) max[i] = regs[i] > max[i] ? regs[i] : max[i];
    return true;
  }
  // Only VAL opcodes raise anything; a zero run is skipped whole.
  const int64_t n = walk_sparse(p, len, [&](int64_t idx, int value, int run) {
    for (int i = 0; value && i < run; i++) {
      if (value > max[idx + i]) max[idx + i] = static_cast<uint8_t>(value);
    }
    return true;
  });
  return n == kRegisters;
}

void raw_histogram(const uint8_t* max, int histo[64]) {
  // Four partial histograms: neighbouring registers often hold the same value, and a single
  // array would chain those increments through one memory slot (a store-to-load dependency per
  // register: that loop was 90% of a 3-key PFCOUNT). A word of eight zero registers (a sparse
  // HLL's unused ones) counts at once, as Redis does.
  int h[4][64] = {};
  static_assert(kRegisters % 8 == 0);
  for (uint32_t i = 0; i < kRegisters; i += 8) {
    uint64_t w;
    memcpy(&w, max + i, sizeof w);
    if (w == 0) {
      h[0][0] += 8;
      continue;
    }
    for (uint32_t j = 0; j < 8; j++) h[j & 3][max[i + j] & 63]++;
  }
  for (int k = 0; k < 64; k++) histo[k] = h[0][k] + h[1][k] + h[2][k] + h[3][k];
}

namespace {
// sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1), iterated until the sum stops changing.
double sigma(double x) {
  if (x == 1.0) return INFINITY;
  double y = 1, z = x, prev;
  do {
    x *= x;
    prev = z;
    z += x * y;
    y += y;
  } while (prev != z);
  return z;
}
// tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3.
double tau(double x) {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0, z = 1 - x, prev;
  do {
    x = std::sqrt(x);
    prev = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (prev != z);
  return z / 3;
}
}  // namespace

uint64_t estimate(const int histo[64]) {
  const double m = kRegisters;
  double z = m * tau((m - histo[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += histo[j];
    z *= 0.5;
  }
  z += m * sigma(histo[0] / m);
  return static_cast<uint64_t>(std::llroundl(kAlphaInf * m * m / z));
}

bool count(const uint8_t* p, size_t len, uint64_t* card) {
  int histo[64];
  if (!histogram(p, len, histo)) return false;
  *card = estimate(histo);
  return true;
}

std::string decode_sparse(const uint8_t* p, size_t len) {
  std::string out;
  const uint8_t* q = p + kHeaderSize;
  const uint8_t* end = p + len;
  while (q < end) {
    if (is_zero(*q)) {
      out += "z:" + std::to_string(zero_len(*q)) + " ";
      q++;
    } else if (is_xzero(*q)) {
      if (q + 1 >= end) break;
      out += "Z:" + std::to_string(xzero_len(q)) + " ";
      q += 2;
    } else {
      out += "v:" + std::to_string(val_value(*q)) + "," + std::to_string(val_len(*q)) + " ";
      q++;
    }
  }
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace keel::hll
