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
  // PSYNC replid offset [FAILOVER] / SYNC (replid empty, offset -1, legacy = true). FAILOVER:
  // our master asks us to take its place (its FAILOVER command).
  void (*psync)(Session& s, std::string_view replid, std::string_view offset, bool legacy,
                bool failover, ReplyWriter& w) = nullptr;
  // REPLICAOF host port / NO ONE (host empty).
  void (*replicaof)(Session& s, std::string_view host, std::string_view port, ReplyWriter& w) =
      nullptr;
  // WAIT numreplicas timeout: replies at once or blocks the session.
  void (*wait)(Session& s, int64_t numreplicas, int64_t timeout_ms, ReplyWriter& w) = nullptr;
  void (*role)(ReplyWriter& w) = nullptr;
  // FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | FAILOVER ABORT, arguments checked.
  void (*failover)(Session& s, const struct FailoverRequest& req, ReplyWriter& w) = nullptr;
};

struct FailoverRequest {
  bool abort = false;
  bool force = false;
  std::string_view host;  // empty: no TO (the first replica that catches up)
  int64_t port = 0;
  int64_t timeout_ms = 0;  // 0: none
};
extern ReplicationHooks g_replication_hooks;

}  // namespace keel
