// Fast non-cryptographic PRNG for sampling: SCAN/RANDOMKEY picks, eviction and expiry sampling,
// SRANDMEMBER/ZRANDMEMBER/HRANDFIELD. xoshiro256** with one state per thread, seeded once from
// std::random_device and the clock. Not for anything security-related (use /dev/urandom there).
#pragma once

#include <cstdint>

namespace keel {

// Next 64 random bits. O(1), no allocation, no locking (the state is thread_local).
uint64_t random_u64();
// Uniform in [0, bound) without modulo bias; bound == 0 returns 0.
uint64_t random_bounded(uint64_t bound);
// Uniform double in [0, 1) with 53 random bits.
double random_double();
// Reseed this thread's generator deterministically (tests, DEBUG commands). The state is
// expanded from `seed` with splitmix64, so any seed, including 0, is fine.
void random_seed(uint64_t seed);

}  // namespace keel
