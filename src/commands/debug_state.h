// State and helpers behind DEBUG subcommands that other code reads: test switches
// (REPLYBUFFER, SET-DISABLE-DENY-SCRIPTS), the replication ID (CHANGE-REPL-ID, shown by INFO
// replication), and Redis's dataset digest (DIGEST, DIGEST-VALUE).
#pragma once
#include <cstdint>
#include <string>

namespace keel {

class Object;

struct DebugOptions {
  // DEBUG REPLYBUFFER RESIZING 0|1: whether the cron shrinks idle output buffers.
  bool reply_buffer_resizing = true;
  // DEBUG REPLYBUFFER PEAK-RESET-TIME: how often (ms) the cron looks at output buffers to give
  // back capacity the last period did not use; -1 = never (NEVER).
  int64_t reply_buffer_peak_reset_ms = kDefaultPeakResetMs;
  // DEBUG SET-DISABLE-DENY-SCRIPTS 1: scripts may call commands flagged noscript.
  bool disable_deny_scripts = false;

  static constexpr int64_t kDefaultPeakResetMs = 1000;
};
DebugOptions& debug_options();

// INFO replication master_replid: 40 random hex characters chosen at start-up; DEBUG
// CHANGE-REPL-ID draws new ones.
const std::string& master_replid();
void change_master_replid();
// A replica takes its master's id (server/replication.cc).
void set_master_replid(const std::string& id);

// DEBUG DIGEST-VALUE: Redis's digest of one value (its type, its content in Redis's element
// order rules, its TTL flag) as 40 hex characters; `o` null gives 40 zeros.
std::string digest_value_hex(const Object* o);
// DEBUG DIGEST: the digest of every database (40 zeros when all are empty).
std::string digest_dataset_hex();

}  // namespace keel
