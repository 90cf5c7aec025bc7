// ROLE, CLUSTER and MODULE: what a standalone Redis answers when it has no replication link, no
// cluster support enabled and no module loaded. Client libraries and tools probe these (ROLE
// to find the master, CLUSTER INFO to detect a cluster, MODULE LIST for RedisJSON & co.), so
// they exist with Redis's arities and errors even though the features behind them do not.
#include <initializer_list>

#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/replication_api.h"
#include "commands/dispatch.h"

namespace keel {

// Defined in cmd_server.cc.

namespace {

// ROLE: the replication layer answers (server/replication.cc); without it, a lone master.
void cmd_role(CommandContext& cx) {
  ReplyWriter& w = cx.reply();
  if (g_replication_hooks.role != nullptr) return g_replication_hooks.role(w);
  w.array(3);
  w.bulk("master");
  w.integer(0);
  w.array(0);
}

// Every CLUSTER subcommand (HELP included) of a server started with cluster-enabled no. The
// arity of the subcommand is checked first, by dispatch, as in Redis.
void cmd_cluster_disabled(CommandContext& cx) {
  cx.reply().error("ERR This instance has cluster support disabled");
}

// MODULE LOAD / LOADEX / UNLOAD with Redis's default enable-module-command no (Keel loads no
// modules, so it never allows them). They carry kProtected, so dispatch refuses them before
// this runs (at admission, as Redis: never queued in MULTI); kept for callers that bypass it.
void cmd_module_not_allowed(CommandContext& cx) { cx.reply().error(kErrModuleNotAllowed); }

void cmd_module_list(CommandContext& cx) { cx.reply().array(0); }

void cmd_module_help(CommandContext& cx) {
  reply_help(
      cx, "MODULE",
      {"LIST", "    Return a list of loaded modules.", "LOAD <path> [<arg> ...]",
       "    Load a module library from <path>, passing to it any optional arguments.",
       "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
       "    Load a module library from <path>, while passing it module configurations and "
       "optional arguments.",
       "UNLOAD <name>", "    Unload a module."});
}

constexpr uint32_t kClusterAdmin = kAdmin | kStale;
constexpr uint32_t kModuleAdmin = kAdmin | kNoScript;

// An optional last argument is the row's COMMAND INFO tips.
#define CLUSTER_ROW(name_, arity_, flags_, summary_, since_, complexity_, ...)                   \
  {.name = name_, .handler = cmd_cluster_disabled, .arity = arity_, .flags = flags_,              \
   .group = "cluster", .summary = summary_, .since = since_,                                       \
   .complexity = complexity_ __VA_OPT__(, .tips = __VA_ARGS__)}

CommandSpec kClusterSubcommands[] = {
    CLUSTER_ROW("addslots", -3, kClusterAdmin | kNoAsyncLoading, "Assigns new hash slots to a node.", "3.0.0", "O(N) where N is the total number of hash slot arguments"),
    CLUSTER_ROW("addslotsrange", -4, kClusterAdmin | kNoAsyncLoading, "Assigns new hash slot ranges to a node.", "7.0.0", "O(N) where N is the total number of the slots between the start slot and end slot arguments."),
    CLUSTER_ROW("bumpepoch", 2, kClusterAdmin | kNoAsyncLoading, "Advances the cluster config epoch.", "3.0.0", "O(1)", "nondeterministic_output"),
    CLUSTER_ROW("count-failure-reports", 3, kClusterAdmin, "Returns the number of active failure reports active for a node.", "3.0.0", "O(N) where N is the number of failure reports", "nondeterministic_output"),
    CLUSTER_ROW("countkeysinslot", 3, kStale, "Returns the number of keys in a hash slot.", "3.0.0", "O(1)"),
    CLUSTER_ROW("delslots", -3, kClusterAdmin | kNoAsyncLoading, "Sets hash slots as unbound for a node.", "3.0.0", "O(N) where N is the total number of hash slot arguments"),
    CLUSTER_ROW("delslotsrange", -4, kClusterAdmin | kNoAsyncLoading, "Sets hash slot ranges as unbound for a node.", "7.0.0", "O(N) where N is the total number of the slots between the start slot and end slot arguments."),
    CLUSTER_ROW("failover", -2, kClusterAdmin | kNoAsyncLoading, "Forces a replica to perform a manual failover of its master.", "3.0.0", "O(1)"),
    CLUSTER_ROW("flushslots", 2, kClusterAdmin | kNoAsyncLoading, "Deletes all slots information from a node.", "3.0.0", "O(1)"),
    CLUSTER_ROW("forget", 3, kClusterAdmin | kNoAsyncLoading, "Removes a node from the nodes table.", "3.0.0", "O(1)"),
    CLUSTER_ROW("getkeysinslot", 4, kStale, "Returns the key names in a hash slot.", "3.0.0", "O(N) where N is the number of requested keys", "nondeterministic_output"),
    CLUSTER_ROW("help", 2, kLoading | kStale, "Returns helpful text about the different subcommands.", "5.0.0", "O(1)"),
    CLUSTER_ROW("info", 2, kStale, "Returns information about the state of a node.", "3.0.0", "O(1)", "nondeterministic_output"),
    CLUSTER_ROW("keyslot", 3, kStale, "Returns the hash slot for a key.", "3.0.0", "O(N) where N is the number of bytes in the key"),
    CLUSTER_ROW("links", 2, kStale, "Returns a list of all TCP links to and from peer nodes.", "7.0.0", "O(N) where N is the total number of Cluster nodes", "nondeterministic_output"),
    CLUSTER_ROW("meet", -4, kClusterAdmin | kNoAsyncLoading, "Forces a node to handshake with another node.", "3.0.0", "O(1)"),
    CLUSTER_ROW("myid", 2, kStale, "Returns the ID of a node.", "3.0.0", "O(1)"),
    CLUSTER_ROW("myshardid", 2, kStale, "Returns the shard ID of a node.", "7.2.0", "O(1)"),
    CLUSTER_ROW("nodes", 2, kStale, "Returns the cluster configuration for a node.", "3.0.0", "O(N) where N is the total number of Cluster nodes", "nondeterministic_output"),
    CLUSTER_ROW("replicas", 3, kClusterAdmin, "Lists the replica nodes of a master node.", "5.0.0", "O(N) where N is the number of replicas.", "nondeterministic_output"),
    CLUSTER_ROW("replicate", 3, kClusterAdmin | kNoAsyncLoading, "Configure a node as replica of a master node.", "3.0.0", "O(1)"),
    CLUSTER_ROW("reset", -2, kClusterAdmin | kNoScript, "Resets a node.", "3.0.0", "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side effect."),
    CLUSTER_ROW("saveconfig", 2, kClusterAdmin | kNoAsyncLoading, "Forces a node to save the cluster configuration to disk.", "3.0.0", "O(1)"),
    CLUSTER_ROW("set-config-epoch", 3, kClusterAdmin | kNoAsyncLoading, "Sets the configuration epoch for a new node.", "3.0.0", "O(1)"),
    CLUSTER_ROW("setslot", -4, kClusterAdmin | kNoAsyncLoading, "Binds a hash slot to a node.", "3.0.0", "O(1)"),
    CLUSTER_ROW("shards", 2, kStale, "Returns the mapping of cluster slots to shards.", "7.0.0", "O(N) where N is the total number of cluster nodes", "nondeterministic_output"),
    CLUSTER_ROW("slaves", 3, kClusterAdmin, "Lists the replica nodes of a master node.", "3.0.0", "O(N) where N is the number of replicas.", "nondeterministic_output"),
    CLUSTER_ROW("slots", 2, kStale, "Returns the mapping of cluster slots to nodes.", "3.0.0", "O(N) where N is the total number of Cluster nodes", "nondeterministic_output"),
};
#undef CLUSTER_ROW

CommandSpec kModuleSubcommands[] = {
    {.name = "help", .handler = cmd_module_help, .arity = 2, .flags = kLoading | kStale, .group = "server",
     .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0", .complexity = "O(1)"},
    {.name = "list", .handler = cmd_module_list, .arity = 2, .flags = kModuleAdmin, .group = "server",
     .summary = "Returns all loaded modules.", .since = "4.0.0", .complexity = "O(N) where N is the number of loaded modules.",
     .tips = "nondeterministic_output_order"},
    {.name = "load", .handler = cmd_module_not_allowed, .arity = -3, .flags = kModuleAdmin | kProtected | kNoAsyncLoading, .group = "server",
     .summary = "Loads a module.", .since = "4.0.0", .complexity = "O(1)"},
    {.name = "loadex", .handler = cmd_module_not_allowed, .arity = -3, .flags = kModuleAdmin | kProtected | kNoAsyncLoading, .group = "server",
     .summary = "Loads a module using extended parameters.", .since = "7.0.0", .complexity = "O(1)"},
    {.name = "unload", .handler = cmd_module_not_allowed, .arity = 3, .flags = kModuleAdmin | kProtected | kNoAsyncLoading, .group = "server",
     .summary = "Unloads a module.", .since = "4.0.0", .complexity = "O(1)"},
};

CommandSpec kStandaloneCommands[] = {
    {.name = "role", .handler = cmd_role, .arity = 1, .flags = kNoScript | kLoading | kStale | kFast, .acl = kAclDangerous | kAclAdmin, .group = "server",
     .summary = "Returns the replication role.", .since = "2.8.12", .complexity = "O(1)"},
    {.name = "cluster", .handler = nullptr, .arity = -2, .group = "cluster",
     .summary = "A container for Redis Cluster commands.", .since = "3.0.0", .complexity = "Depends on subcommand.",
     .subcommands = kClusterSubcommands},
    {.name = "module", .handler = nullptr, .arity = -2, .group = "server",
     .summary = "A container for module commands.", .since = "4.0.0", .complexity = "Depends on subcommand.",
     .subcommands = kModuleSubcommands},
};

}  // namespace

std::span<CommandSpec> standalone_commands() { return kStandaloneCommands; }

}  // namespace keel
