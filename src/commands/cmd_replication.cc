// REPLCONF, PSYNC, SYNC, REPLICAOF, SLAVEOF, WAIT: argument checks here, the work in
// server/replication.cc through g_replication_hooks (commands/replication_api.h).
#include "commands/command.h"
#include "commands/command_table.h"
#include "base/numbers.h"
#include "commands/replication_api.h"

namespace keel {

ReplicationHooks g_replication_hooks;

namespace {

void cmd_replconf(CommandContext& cx) {
  // Redis: an odd number of arguments after REPLCONF is a syntax error.
  if ((cx.argc() - 1) % 2 != 0) return cx.reply().error(kErrSyntax);
  if (g_replication_hooks.replconf == nullptr) return cx.reply().ok();
  g_replication_hooks.replconf(cx.session(), cx.args().subspan(1), cx.reply());
}

void cmd_psync(CommandContext& cx) {
  if (g_replication_hooks.psync == nullptr) return cx.reply().error("ERR not supported");
  // Redis reads a fourth argument only when it is FAILOVER; anything else there is ignored.
  const bool failover = cx.argc() > 3 && cx.is_arg(3, "failover");
  g_replication_hooks.psync(cx.session(), cx.args()[1], cx.args()[2], false, failover, cx.reply());
}

void cmd_sync(CommandContext& cx) {
  if (g_replication_hooks.psync == nullptr) return cx.reply().error("ERR not supported");
  g_replication_hooks.psync(cx.session(), "?", "-1", true, false, cx.reply());
}

void cmd_replicaof(CommandContext& cx) {
  if (g_replication_hooks.replicaof == nullptr) return cx.reply().error("ERR not supported");
  if (cx.is_arg(1, "no") && cx.is_arg(2, "one")) {
    return g_replication_hooks.replicaof(cx.session(), "", "", cx.reply());
  }
  g_replication_hooks.replicaof(cx.session(), cx.args()[1], cx.args()[2], cx.reply());
}

void cmd_wait(CommandContext& cx) {
  int64_t n, timeout;
  if (!cx.int_arg(1, &n)) return;
  // Redis's getTimeoutFromObjectOrReply: "timeout is not an integer or out of range".
  if (!parse_int64(cx.args()[2], &timeout)) {
    return cx.reply().error("ERR timeout is not an integer or out of range");
  }
  if (timeout < 0) return cx.reply().error("ERR timeout is negative");
  if (g_replication_hooks.wait == nullptr) return cx.reply().integer(0);
  g_replication_hooks.wait(cx.session(), n, timeout, cx.reply());
}

// FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | FAILOVER ABORT. As Redis 7: ABORT only alone;
// each option at most once; the port and the timeout must be integers, the timeout above 0.
// The state checks (in progress, replica, no replicas, FORCE without TO and TIMEOUT, target)
// are the hook's.
void cmd_failover(CommandContext& cx) {
  FailoverRequest req;
  if (cx.argc() == 2 && cx.is_arg(1, "abort")) {
    req.abort = true;
  } else {
    for (size_t j = 1; j < cx.argc(); j++) {
      if (cx.is_arg(j, "timeout") && j + 1 < cx.argc() && req.timeout_ms == 0) {
        if (!cx.int_arg(j + 1, &req.timeout_ms)) return;
        if (req.timeout_ms <= 0) return cx.reply().error("ERR FAILOVER timeout must be greater than 0");
        j++;
      } else if (cx.is_arg(j, "to") && j + 2 < cx.argc() && req.host.empty()) {
        if (!cx.int_arg(j + 2, &req.port)) return;
        req.host = cx.args()[j + 1];
        j += 2;
      } else if (cx.is_arg(j, "force") && !req.force) {
        req.force = true;
      } else {
        return cx.reply().error(kErrSyntax);
      }
    }
  }
  if (g_replication_hooks.failover == nullptr) return cx.reply().error("ERR not supported");
  g_replication_hooks.failover(cx.session(), req, cx.reply());
}

CommandSpec kReplicationCommands[] = {
    {.name = "replconf", .handler = cmd_replconf, .arity = -1, .flags = kAdmin | kNoScript | kLoading | kStale | kAllowBusy, .group = "server",
     .summary = "An internal command for configuring the replication stream.", .since = "3.0.0", .complexity = "O(1)"},
    {.name = "psync", .handler = cmd_psync, .arity = -3, .flags = kAdmin | kNoScript | kNoMulti | kNoAsyncLoading, .group = "server",
     .summary = "An internal command used in replication.", .since = "2.8.0", .complexity = "O(1)"},
    {.name = "sync", .handler = cmd_sync, .arity = 1, .flags = kAdmin | kNoScript | kNoMulti | kNoAsyncLoading, .group = "server",
     .summary = "An internal command used in replication.", .since = "1.0.0", .complexity = "O(1)"},
    {.name = "replicaof", .handler = cmd_replicaof, .arity = 3, .flags = kAdmin | kNoScript | kStale | kNoAsyncLoading, .group = "server",
     .summary = "Configures a server as replica of another, or promotes it to a master.", .since = "5.0.0", .complexity = "O(1)"},
    {.name = "slaveof", .handler = cmd_replicaof, .arity = 3, .flags = kAdmin | kNoScript | kStale | kNoAsyncLoading, .group = "server",
     .summary = "Sets a Redis server as a replica of another, or promotes it to being a master.", .since = "1.0.0", .complexity = "O(1)"},
    {.name = "failover", .handler = cmd_failover, .arity = -1, .flags = kAdmin | kNoScript | kStale, .group = "server",
     .summary = "Starts a coordinated failover from a server to one of its replicas.", .since = "6.2.0", .complexity = "O(1)"},
    {.name = "wait", .handler = cmd_wait, .arity = 3, .flags = kNoScript, .acl = kAclConnection, .group = "generic",
     .summary = "Blocks until the asynchronous replication of all preceding write commands sent by the connection is completed.", .since = "3.0.0", .complexity = "O(1)",
     .tips = "request_policy:all_shards response_policy:agg_min"},
};

}  // namespace

std::span<CommandSpec> replication_commands() { return kReplicationCommands; }

}  // namespace keel
