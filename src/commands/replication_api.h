// Replication's command surface: REPLCONF, PSYNC, SYNC, REPLICAOF/SLAVEOF, WAIT and ROLE are
// parsed in commands/cmd_replication.cc; what they do needs the connections, so server/
// (server/replication.cc) installs these hooks at start-up (the layer rule of src/README.md).
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

namespace keel {

struct Session;
class ReplyWriter;

struct ReplicationHooks {
  // REPLCONF <option> <value> ... (the arguments after REPLCONF). Replies itself (nothing for
  // ACK, as Redis).
  void (*replconf)(Session& s, std::span<const std::string_view> args, ReplyWriter& w) = nullptr;
  // PSYNC replid offset / SYNC (replid empty, offset -1, legacy = true).
  void (*psync)(Session& s, std::string_view replid, std::string_view offset, bool legacy,
                ReplyWriter& w) = nullptr;
  // REPLICAOF host port / NO ONE (host empty).
  void (*replicaof)(Session& s, std::string_view host, std::string_view port, ReplyWriter& w) =
      nullptr;
  // WAIT numreplicas timeout: replies at once or blocks the session.
  void (*wait)(Session& s, int64_t numreplicas, int64_t timeout_ms, ReplyWriter& w) = nullptr;
  void (*role)(ReplyWriter& w) = nullptr;
};
extern ReplicationHooks g_replication_hooks;

}  // namespace keel
