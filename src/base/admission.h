// The admission gates: rare server states in which command admission must look closer (a failed
// BGSAVE with stop-writes-on-bgsave-error, a busy script, the dataset loading at start-up,
// CLIENT PAUSE, an AOF write error, a memory ceiling, the replication refusals). Each is a byte
// of one small struct, so the common case -- none of them -- is two 8-byte loads, an or and one
// branch in execute_command (commands/dispatch.cc) instead of one load per state from several
// places. The layers that own a state write its byte (persistence/ for misconf and loading,
// commands/ for busy and pause, keyspace/ for maxmemory, server/replication.cc for the
// replication states); only dispatch reads them all.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace keel {

struct AdmissionGates {
  bool misconf = false;  // the last BGSAVE failed (persistence.h: g_rdb_bgsave_failed)
  bool busy = false;     // a script runs past busy-reply-threshold (busy_state())
  bool loading = false;  // start-up load in progress (persistence.h: g_loading_dataset)
  bool paused = false;   // CLIENT PAUSE in effect (commands/pause.h)
  bool aof_error = false;  // the AOF cannot be written (persistence/aof.h: aof_write_error)
  bool replica_ro = false;  // a replica with replica-read-only yes (server/replication.cc)
  bool noreplicas = false;  // fewer good replicas than min-replicas-to-write (replication.cc)
  bool masterdown = false;  // link down and replica-serve-stale-data no (replication.cc)
  bool maxmemory = false;  // a memory ceiling is set: run eviction, refuse deny-oom (keyspace/evict.h)
  bool pad[7] = {};
};
static_assert(sizeof(AdmissionGates) == 16);
inline constinit AdmissionGates g_admission_gates;

inline bool admission_gated() {
  uint64_t v[2];
  std::memcpy(v, &g_admission_gates, sizeof v);
  return (v[0] | v[1]) != 0;
}

// True when the memory ceiling is the only gate set (execute_command runs eviction on its fast
// path then).
inline bool admission_only_maxmemory() {
  static_assert(offsetof(AdmissionGates, maxmemory) == 8);
  uint64_t v[2];
  std::memcpy(v, &g_admission_gates, sizeof v);
  return v[0] == 0 && v[1] == 1;
}

}  // namespace keel
