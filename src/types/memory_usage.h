// MEMORY USAGE estimates shared by the collection types: Redis's sampling rule (look at the
// first `samples` members, scale their average to the whole collection; samples 0 or more
// than the size means all of them) over a HashTable of malloc'd entries.
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/memory.h"

namespace keel {

// Estimated bytes of the entries of table t: entry_bytes(e) for up to `samples` of them
// (visited in SCAN order), scaled to t.size().
template <class Table, class F>
size_t sampled_table_entries(const Table& t, size_t samples, F&& entry_bytes) {
  if (t.size() == 0) return 0;
  if (samples == 0 || samples > t.size()) samples = t.size();
  size_t seen = 0, bytes = 0;
  uint64_t cursor = 0;
  do {
    cursor = t.scan(cursor, [&](auto e) {
      if (seen < samples) {
        bytes += entry_bytes(e);
        seen++;
      }
    });
  } while (cursor != 0 && seen < samples);
  if (seen == 0) return 0;
  return static_cast<size_t>(static_cast<double>(bytes) / static_cast<double>(seen) *
                             static_cast<double>(t.size()));
}

}  // namespace keel
