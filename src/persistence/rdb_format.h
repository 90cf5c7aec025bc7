// RDB format constants: versions, value type codes, opcodes, length and string encodings.
// The meaning of each is described in persistence/README.md.
#pragma once
#include <cstdint>

namespace keel {

// Versions Keel reads (1 .. kRdbMaxVersion) and writes (10, 11 or 12; rdb-version).
inline constexpr int kRdbMinVersion = 1;
inline constexpr int kRdbMaxVersion = 12;
inline constexpr int kRdbDefaultVersion = 11;

// Value types (the byte before a key, and the first byte of a DUMP payload).
enum RdbType : uint8_t {
  kRdbString = 0,
  kRdbList = 1,
  kRdbSet = 2,
  kRdbZset = 3,
  kRdbHash = 4,
  kRdbZset2 = 5,
  kRdbModulePreGa = 6,
  kRdbModule2 = 7,
  kRdbHashZipmap = 9,
  kRdbListZiplist = 10,
  kRdbSetIntset = 11,
  kRdbZsetZiplist = 12,
  kRdbHashZiplist = 13,
  kRdbListQuicklist = 14,
  kRdbStreamListpacks = 15,
  kRdbHashListpack = 16,
  kRdbZsetListpack = 17,
  kRdbListQuicklist2 = 18,
  kRdbStreamListpacks2 = 19,
  kRdbSetListpack = 20,
  kRdbStreamListpacks3 = 21,
  kRdbHashMetadataPreGa = 22,
  kRdbHashListpackExPreGa = 23,
  kRdbHashMetadata = 24,
  kRdbHashListpackEx = 25,
};
inline constexpr int kRdbLastType = kRdbHashListpackEx;

// Opcodes between keys.
enum RdbOpcode : uint8_t {
  kRdbOpSlotInfo = 244,
  kRdbOpFunction2 = 245,
  kRdbOpFunctionPreGa = 246,
  kRdbOpModuleAux = 247,
  kRdbOpIdle = 248,
  kRdbOpFreq = 249,
  kRdbOpAux = 250,
  kRdbOpResizeDb = 251,
  kRdbOpExpireTimeMs = 252,
  kRdbOpExpireTime = 253,
  kRdbOpSelectDb = 254,
  kRdbOpEof = 255,
};

// Length encodings: the two top bits of the first byte.
inline constexpr uint8_t kRdbLen6 = 0;      // 00xxxxxx
inline constexpr uint8_t kRdbLen14 = 1;     // 01xxxxxx xxxxxxxx (big-endian)
inline constexpr uint8_t kRdbLen32 = 0x80;  // then u32 big-endian
inline constexpr uint8_t kRdbLen64 = 0x81;  // then u64 big-endian
inline constexpr uint8_t kRdbEncVal = 3;    // 11xxxxxx: a special string encoding follows

// Special string encodings (the low six bits after 11).
inline constexpr uint8_t kRdbEncInt8 = 0;
inline constexpr uint8_t kRdbEncInt16 = 1;
inline constexpr uint8_t kRdbEncInt32 = 2;
inline constexpr uint8_t kRdbEncLzf = 3;

// LIST_QUICKLIST_2 node containers.
inline constexpr uint64_t kQuicklistNodePlain = 1;
inline constexpr uint64_t kQuicklistNodePacked = 2;

// Strings longer than this are tried with LZF when rdbcompression is on.
inline constexpr size_t kRdbLzfMinLength = 20;

// A short name for a value type, for error messages ("stream", "module", ...).
const char* rdb_type_name(int type);

}  // namespace keel
