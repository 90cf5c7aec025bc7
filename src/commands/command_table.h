// The command table: every family's rows, collected at start-up into a case-insensitive lookup.
// Lookup folds case into a stack buffer and probes an open-addressing array: no allocation.
// Each family lives in cmd_<family>.cc and exports its rows through <family>_commands().
#pragma once
#include <span>
#include <string_view>
#include <vector>

#include "commands/command.h"

namespace keel {

std::span<CommandSpec> connection_commands();
std::span<CommandSpec> server_commands();
std::span<CommandSpec> keys_commands();
std::span<CommandSpec> string_commands();
std::span<CommandSpec> bitmap_commands();
std::span<CommandSpec> hll_commands();       // PF*
std::span<CommandSpec> config_commands();
std::span<CommandSpec> pubsub_commands();
std::span<CommandSpec> scripting_commands();
std::span<CommandSpec> multi_commands();
std::span<CommandSpec> list_commands();
std::span<CommandSpec> hash_commands();
std::span<CommandSpec> set_commands();
std::span<CommandSpec> zset_commands();
std::span<CommandSpec> geo_commands();       // GEO*
std::span<CommandSpec> sort_commands();      // SORT SORT_RO
std::span<CommandSpec> stream_commands();    // X*
std::span<CommandSpec> persistence_commands();
std::span<CommandSpec> standalone_commands();  // ROLE CLUSTER MODULE
std::span<CommandSpec> memory_commands();      // MEMORY
std::span<CommandSpec> latency_commands();     // LATENCY
std::span<CommandSpec> replication_commands(); // REPLCONF PSYNC SYNC REPLICAOF SLAVEOF WAIT
std::span<CommandSpec> acl_commands();         // ACL (cmd_acl.cc)
// Lets persistence/ list and load FUNCTION libraries (cmd_persistence.cc); call at start-up.
void install_persistence_hooks();

void init_command_table();
const CommandSpec* lookup_command(std::string_view name);
const CommandSpec* lookup_subcommand(const CommandSpec& parent, std::string_view name);
// Every top-level command, in table order (COMMAND, COMMAND LIST, INFO commandstats).
const std::vector<CommandSpec*>& all_commands();
void reset_command_stats();

}  // namespace keel
