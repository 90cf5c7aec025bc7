// The memory figures MEMORY STATS / DOCTOR (cmd_memory.cc) and INFO memory (server/info.cc)
// report, computed in one place so that the overhead and dataset figures agree.
#pragma once
#include <cstddef>

#include "base/memory.h"
#include "commands/server_api.h"

namespace keel {

struct MemoryOverview {
  size_t used = 0, peak = 0, startup = 0, rss = 0;
  size_t clients = 0, nclients = 0;  // every connection, replicas included
  size_t replica_clients = 0;        // the replicas' share of `clients`
  ServerApi::BufferMemory buffers;
  size_t db_lut = 0, db_rehashing = 0, rehashing_tables = 0;
  // Redis's overhead: start-up memory, client buffers, the replication backlog, the AOF buffer
  // and the keyspace's own structures (buckets and one object header per key; Keel's key bytes
  // live in the object and count as data).
  size_t overhead = 0, keys = 0;
  AllocatorStats alloc;
  size_t dataset() const { return used > overhead ? used - overhead : 0; }
  size_t net() const { return used > startup ? used - startup : 0; }  // above start-up
};
// Reads them now (refreshes the allocator's statistics and the peak).
MemoryOverview memory_overview(ServerApi& api);

}  // namespace keel
