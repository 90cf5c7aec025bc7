// Encoding thresholds of the collection types (the *-max-listpack-* / intset directives). The
// configuration layer writes them (redis.conf, CONFIG SET); the type layer reads them when it
// decides whether a small encoding may grow or must convert. Plain integers, no behaviour here.
#pragma once
#include <cstdint>

namespace keel {

struct EncodingLimits {
  int64_t list_max_listpack_size = -2;    // >0: entries per quicklist node; -1..-5: 4kb..64kb
  int64_t list_compress_depth = 0;        // quicklist nodes left uncompressed at each end
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;   // bytes
  int64_t set_max_intset_entries = 512;
  int64_t set_max_listpack_entries = 128;
  int64_t set_max_listpack_value = 64;    // bytes
  int64_t zset_max_listpack_entries = 128;
  int64_t zset_max_listpack_value = 64;   // bytes
  int64_t stream_node_max_bytes = 4096;
  int64_t stream_node_max_entries = 100;
  int64_t hll_sparse_max_bytes = 3000;
};

// The process-wide limits (constant-initialised, so reading them costs a load, no guard).
inline EncodingLimits g_encoding_limits;
inline EncodingLimits& encoding_limits() { return g_encoding_limits; }

}  // namespace keel
