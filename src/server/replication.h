// Replication (Redis's protocol): the master side (REPLCONF, PSYNC/SYNC, the backlog fed by a
// propagation sink, streaming to replicas, WAIT) and the replica side (REPLICAOF, the
// handshake, loading the master's RDB, applying its stream). See server/README.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace keel {

class Client;

// Installs the command hooks (commands/replication_api.h); at start-up, before listening.
void replication_init();
// After the dataset is loaded: a `replicaof` directive starts the link.
void replication_start();
// Once per cron tick: connects / retries, sends ACKs and PINGs, times links out.
void replication_cron();
// A client went away (a replica, or anyone waiting in WAIT).
void replication_client_closed(Client* c);
// Before sleep: queues the flush of the replicas the stream fed (their output limits are
// checked there, once per iteration), answers WAITs that are satisfied.
void replication_before_sleep();
// Before sleep, right before the clients' flushes: the replicas fed since
// replication_before_sleep (by resumed clients, eviction) get their flush queued too, unless
// their writes are being coalesced (replication.cc, kReplFlushBytes); `force` (shutting down)
// flushes whatever waits.
void replication_flush_replicas(bool force);
// End of a client's input processing (Client::process_input): the stream bytes held back as a
// range of its query buffer (consecutive commands sent as they came) are copied into the
// backlog and the replicas' buffers before that buffer changes.
void replication_flush_held();
// CLIENT KILL TYPE master: drops the link to our master (true when there was one up).
bool replication_kill_master_link();
// After CONFIG SET of a replication directive the stream's hot path copies (repl-backlog-size).
void replication_options_changed();
// INFO replication.
std::string replication_info();
// What eviction leaves out of used memory (INFO mem_not_counted_for_evict), as Redis: the
// replicas' output buffers (and the stream buffered for a replica while it syncs) and the AOF
// buffer.
size_t memory_not_counted_for_evict();
// INFO stats: full syncs started (SYNC and PSYNC), partial resyncs accepted, and PSYNCs that
// asked for a partial resync and got a full one.
struct ReplSyncCounts {
  uint64_t full = 0;
  uint64_t partial_ok = 0;
  uint64_t partial_err = 0;
};
ReplSyncCounts replication_sync_counts();
// INFO memory / MEMORY STATS: the backlog's storage, the replicas' connections (buffers
// allocated, with the stream held for a syncing one) and the stream bytes waiting for them.
struct ReplMemory {
  size_t backlog = 0;          // mem_replication_backlog
  size_t replica_clients = 0;  // mem_clients_slaves
  size_t replica_streams = 0;  // with the backlog: mem_total_replication_buffers
};
ReplMemory replication_memory();
// End of the last write command in the replication stream (not PINGs nor GETACKs). The client
// loop copies it into Client::repl_woff when a command moved it: WAIT waits for the waiting
// client's own last write, as Redis's c->woff.
extern int64_t g_repl_write_off;

// Whether the session is a replica (CLIENT LIST flag S, TYPE replica, output limit class).
bool replication_is_replica(const Client* c);

}  // namespace keel
