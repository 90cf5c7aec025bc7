// HyperLogLog values: Redis strings holding the bytes of ds/hyperloglog.h. Applies PFADD,
// PFCOUNT's cache, PFMERGE and PFDEBUG's conversions to a string Object (always made a private
// raw string before an edit, as Redis's dbUnshareStringValue). Keyspace bookkeeping (keysizes,
// events, dirty) is the caller's: take object_length() before and report it to Db after.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "types/object.h"

namespace keel {

struct HllType {
  // A new empty (sparse, 18-byte raw string) HLL under `key`.
  static Object* create(std::string_view key);
  // A string with a valid HLL header (Redis's isHLLObjectOrReply): the caller has checked the
  // type; false means "WRONGTYPE Key is not a valid HyperLogLog string value.".
  static bool is_hll(const Object& o);
  static bool is_dense(const Object& o);

  // PFADD of one element: 1 when a register changed, 0 when not, -1 when the edit meets damage
  // in a sparse value (the register lies past the opcodes, or a damaged value must become
  // dense); nothing is changed then. May convert to dense (hll-sparse-max-bytes, or a
  // value above 32). Invalidates the cached cardinality when it changes something.
  static int add(Object& o, std::string_view element);
  // Marks the cached cardinality stale (PFADD that changed something, a new key).
  static void invalidate_cache(Object& o);
  // The cached cardinality when the cache is valid (no edit, so a read lookup will do).
  static bool cached(const Object& o, uint64_t* card);
  // PFCOUNT of one key: the cached cardinality, or the estimate, which is then cached
  // (*cache_written). False on a damaged value.
  static bool count(Object& o, uint64_t* card, bool* cache_written);
  // max[i] = max(max[i], register i) over kRegisters registers. False on a damaged value.
  static bool merge_into(const Object& o, uint8_t* max);
  // PFMERGE's destination: converts to dense when `dense`, raises every register to max[i] and
  // invalidates the cache. False on a damaged value.
  static bool store_max(Object& o, const uint8_t* max, bool dense);
  // PFDEBUG TODENSE / GETREG: 1 converted, 0 already dense, -1 damaged.
  static int to_dense(Object& o);
  // The registers of a dense HLL into out[kRegisters].
  static void registers(const Object& o, uint8_t* out);
  // PFDEBUG DECODE of a sparse HLL.
  static std::string decode(const Object& o);
};

}  // namespace keel
