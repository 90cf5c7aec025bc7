// CRC-64/Jones, slicing-by-8. Table 0 is the classic byte-at-a-time table of the reflected
// polynomial; table k advances a byte that sits k positions further from the end of an 8-byte
// word, so one step folds eight bytes with eight lookups.
#include "persistence/crc64.h"

#include <array>
#include <cstring>

namespace keel {
namespace {

constexpr uint64_t kPolyReflected = 0x95ac9329ac4bc9b5ull;  // 0xad93d23594c935a9 bit-reversed

using Tables = std::array<std::array<uint64_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint64_t i = 0; i < 256; i++) {
    uint64_t c = i;
    for (int b = 0; b < 8; b++) c = (c & 1) ? (c >> 1) ^ kPolyReflected : c >> 1;
    t[0][i] = c;
  }
  for (size_t k = 1; k < 8; k++) {
    for (size_t i = 0; i < 256; i++) {
      const uint64_t prev = t[k - 1][i];
      t[k][i] = t[0][prev & 0xff] ^ (prev >> 8);
    }
  }
  return t;
}

constexpr Tables kTables = make_tables();
static_assert(kTables[0][1] == 0x7ad870c830358979ull);

}  // namespace

uint64_t crc64(uint64_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  // Byte steps until 8-aligned, so the word loads below are aligned.
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = kTables[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    n--;
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);  // little-endian host (x86-64, aarch64)
    crc ^= w;
    crc = kTables[7][crc & 0xff] ^ kTables[6][(crc >> 8) & 0xff] ^
          kTables[5][(crc >> 16) & 0xff] ^ kTables[4][(crc >> 24) & 0xff] ^
          kTables[3][(crc >> 32) & 0xff] ^ kTables[2][(crc >> 40) & 0xff] ^
          kTables[1][(crc >> 48) & 0xff] ^ kTables[0][crc >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = kTables[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace keel
