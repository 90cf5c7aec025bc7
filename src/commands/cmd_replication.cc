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
  g_replication_hooks.psync(cx.session(), cx.args()[1], cx.args()[2], false, cx.reply());
}

void cmd_sync(CommandContext& cx) {
  if (g_replication_hooks.psync == nullptr) return cx.reply().error("ERR not supported");
  g_replication_hooks.psync(cx.session(), "?", "-1", true, cx.reply());
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
    {.name = "wait", .handler = cmd_wait, .arity = 3, .flags = kNoScript, .acl = kAclConnection, .group = "generic",
     .summary = "Blocks until the asynchronous replication of all preceding write commands sent by the connection is completed.", .since = "3.0.0", .complexity = "O(1)",
     .tips = "request_policy:all_shards response_policy:agg_min"},
};

}  // namespace

std::span<CommandSpec> replication_commands() { return kReplicationCommands; }

}  // namespace keel
