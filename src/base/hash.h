// The 64-bit hash used for keys, fields and members. Seeded once per process (set_hash_seed at
// start-up) so clients cannot precompute colliding keys. Not a cryptographic hash and not stable
// across processes: never persist its values.
// The hash table takes the bucket from the low bits and an 8-bit tag from the top bits, so both
// ends of the result are mixed (tests/cpp/ds/hashtable_test.cc checks both).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace keel {

namespace hash_detail {

// Odd 64-bit constants taken from the fractional parts of sqrt(2), sqrt(3), sqrt(5), sqrt(7)
// and the golden ratio; any odd constants with well-spread bits would do.
inline constexpr uint64_t kC0 = 0x9e3779b97f4a7c15ull;
inline constexpr uint64_t kC1 = 0x6a09e667f3bcc909ull;
inline constexpr uint64_t kC2 = 0xbb67ae8584caa73bull;
inline constexpr uint64_t kC3 = 0x3c6ef372fe94f82bull;
inline constexpr uint64_t kC4 = 0xa54ff53a5f1d36f1ull;

inline uint64_t load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t load32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Full 64x64->128 product folded to 64 bits: every output bit depends on every input bit.
// The operands are added back so that a zero operand does not erase the other one.
inline uint64_t fold(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return (static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64)) ^ a ^ b;
}

inline uint64_t g_seed = 0;  // written once by set_hash_seed() before the first table exists

}  // namespace hash_detail

// Hashes n bytes at p. Keys up to 16 bytes cost two 128-bit multiplies; longer input one more
// multiply per 16 bytes. Different seeds give unrelated functions.
inline uint64_t hash_bytes(const void* data, size_t n, uint64_t seed) {
  using namespace hash_detail;
  const auto* p = static_cast<const unsigned char*>(data);
  const uint64_t s1 = seed ^ kC1;
  const uint64_t s2 = std::rotl(seed, 29) ^ kC2;
  uint64_t h = seed ^ kC0 ^ (static_cast<uint64_t>(n) * kC3);
  uint64_t a, b;
  if (n <= 16) {
    // Two (possibly overlapping) words that together cover every byte; n tells them apart.
    if (n >= 8) {
      a = load64(p);
      b = load64(p + n - 8);
    } else if (n >= 4) {
      a = load32(p);
      b = load32(p + n - 4);
    } else if (n > 0) {
      a = (static_cast<uint64_t>(p[0]) << 16) | (static_cast<uint64_t>(p[n >> 1]) << 8) | p[n - 1];
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t left = n;
    while (left > 16) {
      h = fold(load64(p) ^ s1, load64(p + 8) ^ s2 ^ h);
      p += 16;
      left -= 16;
    }
    a = load64(p + left - 16);
    b = load64(p + left - 8);
  }
  h = fold(a ^ s1, b ^ s2 ^ h);
  // Finaliser: one more full multiply against a constant, then an xor-shift so the low bits
  // (the bucket index) see the high half of the product too.
  h = fold(h ^ kC4, kC0 ^ seed);
  h ^= h >> 31;
  return h;
}

// Sets the process-wide seed used by hash_key(). Call once at start-up, before any table that
// stores hash_key() results is filled (their hashes would no longer match).
inline void set_hash_seed(uint64_t seed) { hash_detail::g_seed = seed; }
inline uint64_t hash_seed() { return hash_detail::g_seed; }

// The hash every keyspace and collection table uses.
inline uint64_t hash_key(std::string_view s) {
  return hash_bytes(s.data(), s.size(), hash_detail::g_seed);
}

}  // namespace keel
