// Ziplist: Redis's compact sequence format before listpack (Redis <= 6.2). Keel never creates
// one; RDB files and DUMP payloads from older servers still carry them (RDB types 10 list, 12
// zset, 13 hash, and the nodes of the version-1 quicklist type 14), and Redis 7 converts them
// to listpacks on load. This file only validates untrusted ziplist bytes and reads / converts
// them; the per-type checks (even count for hashes, duplicates) belong to the loader.
//
//   +-------------+------------+-----------+---------+-----+---------+------+
//   | zlbytes u32 | zltail u32 | zllen u16 | entry 0 | ... | entry N | 0xFF |
//   +-------------+------------+-----------+---------+-----+---------+------+
//     all little-endian; zltail = offset of the last entry; zllen 65535 = unknown
//   entry = prevlen | encoding | data
//   prevlen: 1 byte (0..253) or 0xFE + u32 LE: the byte size of the previous entry (0 first)
//   encoding (first byte)        data
//   00LLLLLL                     string, len < 64
//   01LLLLLL LLLLLLLL            string, 14-bit length (big-endian)
//   10xxxxxx + u32 BE length     string, 32-bit length (Redis writes 0x80)
//   0xC0 / 0xD0 / 0xE0           int16 / int32 / int64, little-endian
//   0xF0                         int24, little-endian
//   0xFE                         int8
//   0xF1 .. 0xFD                 the integer (byte & 0x0F) - 1, i.e. 0..12, no data
#pragma once

#include <cstddef>
#include <cstdint>

#include "ds/listpack.h"

namespace keel {

inline constexpr size_t kZiplistHeaderSize = 10;
inline constexpr size_t kZiplistEmptyBytes = 11;  // header + 0xFF
inline constexpr uint16_t kZiplistCountUnknown = 65535;

// Checks that p[0..len) is a ziplist the reader below can walk without reading out of bounds.
// Shallow (deep=false): len >= 11, zlbytes == len, zltail inside the blob, last byte 0xFF. Deep
// also walks every entry: prevlen and encoding bytes inside the blob, a valid encoding byte,
// the data inside the blob before the terminator, each prevlen equal to the size of the entry
// before (0 for the first), zltail equal to the offset of the last entry (when there is one),
// the walk ends exactly on the terminator, and the count matches zllen unless it is 65535.
// Never reads outside p[0..len). O(len) when deep, O(1) otherwise.
[[nodiscard]] bool ziplist_validate(const uint8_t* p, size_t len, bool deep);

// Forward reader over a ziplist that passed ziplist_validate(deep). String values are views
// into the blob (valid while it lives).
class ZiplistReader {
 public:
  explicit ZiplistReader(const uint8_t* zl) : zl_(zl), off_(kZiplistHeaderSize) {}
  // The next element, false after the last.
  bool next(LpEntry* out);

 private:
  const uint8_t* zl_;
  size_t off_;
};

// Appends every element of a (deep-)validated ziplist to `lp`, in order, with listpack's own
// encoding choice (a string that is a canonical int64 becomes an integer entry, as Redis's
// conversion does). Returns false, leaving `lp` unchanged, if the result would pass Redis's
// 1 GB listpack limit (kLpSafeBytes); the loader then has to pick a bigger encoding.
[[nodiscard]] bool ziplist_append_to_listpack(const uint8_t* zl, Listpack& lp);

}  // namespace keel
