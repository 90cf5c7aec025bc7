// xoshiro256** (Blackman and Vigna): 256 bits of state, period 2^256 - 1, passes BigCrush, about
// 1 ns per number. The state is expanded from one 64-bit seed with splitmix64, as the authors
// recommend, so it is never all zero.
#include "base/util_random.h"

#include <chrono>
#include <random>

namespace keel {
namespace {

inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

inline uint64_t splitmix64(uint64_t* x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct RandomState {
  uint64_t s[4];
  bool seeded = false;
};

thread_local RandomState t_state;

void seed_state(RandomState* st, uint64_t seed) {
  for (uint64_t& word : st->s) word = splitmix64(&seed);
  st->seeded = true;
}

uint64_t initial_seed() {
  uint64_t seed =
      static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  std::random_device rd;  // may be deterministic on odd platforms; the clock still varies
  seed ^= (static_cast<uint64_t>(rd()) << 32) ^ rd();
  seed ^= reinterpret_cast<uintptr_t>(&t_state);  // distinct per thread
  return seed;
}

}  // namespace

uint64_t random_u64() {
  RandomState& st = t_state;
  if (__builtin_expect(!st.seeded, 0)) seed_state(&st, initial_seed());
  uint64_t* s = st.s;
  const uint64_t result = rotl(s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t random_bounded(uint64_t bound) {
  if (bound == 0) return 0;
  // Lemire's multiply-shift with rejection of the small biased zone.
  unsigned __int128 m = static_cast<unsigned __int128>(random_u64()) * bound;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(random_u64()) * bound;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double random_double() { return static_cast<double>(random_u64() >> 11) * 0x1.0p-53; }

void random_seed(uint64_t seed) { seed_state(&t_state, seed); }

}  // namespace keel
