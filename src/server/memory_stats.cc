// Server-side figures for MEMORY STATS and MEMORY DOCTOR (commands/cmd_memory.cc).
#include "base/memory.h"
#include "persistence/aof.h"
#include "server/client.h"
#include "server/replication.h"
#include "server/server.h"

namespace keel {

// Redis's clients.normal: per connection its structure, query buffer and reply buffers.
size_t Server::clients_memory() const {
  size_t n = 0;
  for (const auto& [id, c] : clients_) {
    n += allocation_size(c) + c->query.capacity() + c->out.capacity() + c->inflight.capacity();
  }
  return n;
}

ServerApi::BufferMemory Server::buffers_memory() const {
  const ReplMemory r = replication_memory();
  return {r.replica_clients, r.replica_streams, r.backlog, aof_state().buf.capacity()};
}

}  // namespace keel
