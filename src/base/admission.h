// The admission gates: rare server states in which command admission must look closer (a failed
// BGSAVE with stop-writes-on-bgsave-error, a busy script, the dataset loading at start-up,
// CLIENT PAUSE, an AOF write error, a memory ceiling). Each is a byte of one small struct, so the
// common case -- none of them -- is a single 8-byte load and branch in execute_command
// (commands/dispatch.cc) instead of one load
// per state from four places. The layers that own a state write its byte (persistence/ for
// misconf and loading, commands/ for busy and pause); only dispatch reads them all.
#pragma once
#include <cstdint>
#include <cstring>

namespace keel {

struct AdmissionGates {
  bool misconf = false;  // the last BGSAVE failed (persistence.h: g_rdb_bgsave_failed)
  bool busy = false;     // a script runs past busy-reply-threshold (busy_state())
  bool loading = false;  // start-up load in progress (persistence.h: g_loading_dataset)
  bool paused = false;   // CLIENT PAUSE in effect (commands/pause.h)
  bool aof_error = false;  // the AOF cannot be written (persistence/aof.h: aof_write_error)
  bool maxmemory = false;  // a memory ceiling is set: run eviction, refuse deny-oom (keyspace/evict.h)
  bool pad[2] = {};
};
static_assert(sizeof(AdmissionGates) == 8);
inline constinit AdmissionGates g_admission_gates;

inline bool admission_gated() {
  uint64_t v;
  std::memcpy(&v, &g_admission_gates, sizeof v);
  return v != 0;
}

}  // namespace keel
