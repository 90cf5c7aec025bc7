// CRC-64/Jones as Redis uses it for RDB files and DUMP payloads: reflected polynomial
// 0xad93d23594c935a9, initial value 0, no final xor (check("123456789") = 0xe9c6d914c4b8d9ca).
// Table-driven, eight bytes per step (slicing-by-8); the tables are built at compile time.
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel {

// Continues `crc` over p[0..n). Start with 0.
uint64_t crc64(uint64_t crc, const void* p, size_t n);

}  // namespace keel
