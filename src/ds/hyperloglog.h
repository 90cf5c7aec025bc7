// HyperLogLog in Redis's byte format, so a value written by either server counts the same in
// the other. Only the bytes live here (no Object, no config): types/hll_type.cc applies them to
// string values.
//
//   offset 0      4     5         8                         16
//          +------+-----+---------+-------------------------+----------------------------+
//          | HYLL | enc | 3 x 0   | cached cardinality u64  | registers (dense) or       |
//          |      | 0/1 | unused  | LE; bit 63 set = stale  | opcodes (sparse)           |
//          +------+-----+---------+-------------------------+----------------------------+
//
// 16384 registers (P = 14) of 6 bits; an element hashes with MurmurHash64A (seed 0xadc83b19):
// the low 14 bits pick the register, the position of the first set bit in the other 50 (bit 50
// forced on, so 1..51) is the value kept when larger than the register's.
// Dense (enc 0): exactly 12288 register bytes after the header, register i at bit 6*i, least
// significant bits first (a register may straddle two bytes).
// Sparse (enc 1): opcodes that run over all 16384 registers in order:
//   00xxxxxx            ZERO   xxxxxx+1 (1..64) registers at 0
//   01xxxxxx yyyyyyyy   XZERO  (xxxxxx yyyyyyyy)+1 (1..16384) registers at 0
//   1vvvvvxx            VAL    xx+1 (1..4) registers at vvvvv+1 (1..32)
// A new HLL is sparse: the header and one XZERO of 16384. A value above 32, or an edit that
// would take the sparse form past hll-sparse-max-bytes, converts it to dense for good.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace keel::hll {

inline constexpr int kP = 14;
inline constexpr uint32_t kRegisters = 1u << kP;
inline constexpr int kBits = 6;
inline constexpr int kQ = 64 - kP;  // bits left for the run of zeros
inline constexpr uint8_t kRegisterMax = (1u << kBits) - 1;
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kDenseSize = kHeaderSize + (kRegisters * kBits + 7) / 8;  // 12304
inline constexpr uint8_t kEncDense = 0;
inline constexpr uint8_t kEncSparse = 1;
inline constexpr int kSparseValMax = 32;
inline constexpr size_t kEmptySparseSize = kHeaderSize + 2;
// The most a sparse_set() can add to the sparse bytes (a 1-byte opcode becomes 5 bytes).
inline constexpr size_t kSparseSetGrowth = 4;

// Austin Appleby's MurmurHash64A, reading 8-byte blocks little-endian on every platform.
uint64_t murmurhash64a(const void* key, size_t len, uint64_t seed);
// The register an element goes to and the value it proposes (1..51).
uint8_t pattern(std::string_view element, uint32_t* index);

// Header checks of a stored value: the magic, an encoding of 0 or 1, and a dense value of
// exactly kDenseSize bytes. Says nothing about the sparse opcodes (sparse_valid).
bool valid_header(const uint8_t* p, size_t len);
// True when the sparse opcodes after the header cover exactly kRegisters registers.
bool sparse_valid(const uint8_t* p, size_t len);
inline uint8_t encoding(const uint8_t* p) { return p[4]; }

bool cache_valid(const uint8_t* p);
uint64_t cached_card(const uint8_t* p);
void set_cached_card(uint8_t* p, uint64_t card);
void invalidate_cache(uint8_t* p);

// Dense registers (`regs` = the bytes after the header).
uint8_t dense_get(const uint8_t* regs, uint32_t i);
void dense_set(uint8_t* regs, uint32_t i, uint8_t v);
// All kRegisters dense registers at once, three bytes (four registers) at a time: what a merge
// or a count reads, without dense_get's per-register shifts and bounds check.
void dense_unpack(const uint8_t* regs, uint8_t* out);
// The inverse: packs kRegisters values (each 0..63) into the dense register bytes.
void dense_pack(const uint8_t* in, uint8_t* regs);

// The empty sparse HLL (18 bytes): what PFADD creates.
void write_empty(uint8_t* out);

enum class SetResult : uint8_t { kUnchanged, kChanged, kPromote, kInvalid };
// Raises register `index` of a sparse HLL (p, *len) to `count` when that is larger. The buffer
// must have room for *len + kSparseSetGrowth bytes. kPromote: nothing was changed, the caller
// converts to dense (count > 32, or the result would pass max_bytes) and sets it there.
// kInvalid: the opcodes do not reach `index`.
SetResult sparse_set(uint8_t* p, size_t* len, uint32_t index, uint8_t count, size_t max_bytes);
// The dense form (kDenseSize bytes into `dense`) of a sparse HLL: same header bytes (so the same
// cache), encoding 0. False when the opcodes do not cover exactly kRegisters registers.
bool sparse_to_dense(const uint8_t* p, size_t len, uint8_t* dense);

// Histogram of register values (64 bins); false on an invalid sparse form.
bool histogram(const uint8_t* p, size_t len, int histo[64]);
// max[i] = max(max[i], register i) for all registers; false on an invalid sparse form.
bool merge_max(const uint8_t* p, size_t len, uint8_t* max);
// Histogram of kRegisters raw byte registers.
void raw_histogram(const uint8_t* max, int histo[64]);
// Otmar Ertl's improved estimator over the register histogram (what Redis 5+ uses).
uint64_t estimate(const int histo[64]);
// Estimate of a stored HLL; false on an invalid sparse form.
bool count(const uint8_t* p, size_t len, uint64_t* card);

// PFDEBUG DECODE's text: "z:n" (ZERO), "Z:n" (XZERO), "v:value,len" separated by spaces.
std::string decode_sparse(const uint8_t* p, size_t len);

}  // namespace keel::hll
