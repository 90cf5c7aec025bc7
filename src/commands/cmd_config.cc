// CONFIG GET / SET / RESETSTAT / REWRITE / HELP. The directive table and all validation live in
// server/config*.cc behind ServerApi::config_*; these handlers only shape the replies.
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/server_api.h"

namespace keel {
namespace {

// CONFIG GET pattern [pattern ...] -> map of name -> value (an array of pairs in RESP2).
void cmd_config_get(CommandContext& cx) {
  const auto pairs = cx.server().config_get(cx.args().subspan(2));
  cx.reply().map(pairs.size());
  for (const auto& [name, value] : pairs) {
    cx.reply().bulk(name);
    cx.reply().bulk(value);
  }
}

// CONFIG SET name value [name value ...] -> +OK, all applied or none. The value of a secret
// (requirepass, masterauth ...) reaches SLOWLOG as "(redacted)", whatever the outcome. The
// argument array is the caller's mutable batch storage; only the views are replaced.
void cmd_config_set(CommandContext& cx) {
  const std::string err = cx.server().config_set(cx.args().subspan(2));
  for (size_t i = 2; i + 1 < cx.argc(); i += 2) {
    if (cx.server().config_sensitive(cx.arg(i))) {
      const_cast<std::string_view&>(cx.args()[i + 1]) = "(redacted)";
    }
  }
  if (!err.empty()) return cx.reply().error(err);
  cx.reply().ok();
}

// CONFIG RESETSTAT -> +OK
void cmd_config_resetstat(CommandContext& cx) {
  cx.server().config_resetstat();
  cx.reply().ok();
}

// CONFIG REWRITE -> +OK, or the error text (no config file, I/O failure).
void cmd_config_rewrite(CommandContext& cx) {
  const std::string err = cx.server().config_rewrite();
  if (!err.empty()) return cx.reply().error(err);
  cx.reply().ok();
}

// CONFIG HELP -> the subcommand list as status lines (Redis's exact text).
void cmd_config_help(CommandContext& cx) {
  reply_help(cx, "CONFIG",
             {"GET <pattern>",
              "    Return parameters matching the glob-like <pattern> and their values.",
              "SET <directive> <value>",
              "    Set the configuration <directive> to <value>.",
              "RESETSTAT",
              "    Reset statistics reported by the INFO command.",
              "REWRITE",
              "    Rewrite the configuration file."});
}

constexpr uint32_t kConfigFlags = kAdmin | kNoScript | kLoading | kStale;

CommandSpec kConfigSubcommands[] = {
    {.name = "get", .handler = cmd_config_get, .arity = -3, .flags = kConfigFlags, .acl = kAclDangerous, .group = "server",
     .summary = "Returns the effective values of configuration parameters.", .since = "2.0.0", .complexity = "O(N) when N is the number of configuration parameters provided"},
    {.name = "set", .handler = cmd_config_set, .arity = -4, .flags = kConfigFlags, .acl = kAclDangerous, .group = "server",
     .summary = "Sets configuration parameters in-flight.", .since = "2.0.0", .complexity = "O(N) when N is the number of configuration parameters provided",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "resetstat", .handler = cmd_config_resetstat, .arity = 2, .flags = kConfigFlags, .acl = kAclDangerous, .group = "server",
     .summary = "Resets the server's statistics.", .since = "2.0.0", .complexity = "O(1)"},
    {.name = "rewrite", .handler = cmd_config_rewrite, .arity = 2, .flags = kConfigFlags, .acl = kAclDangerous, .group = "server",
     .summary = "Persists the effective configuration to file.", .since = "2.8.0", .complexity = "O(1)"},
    {.name = "help", .handler = cmd_config_help, .arity = 2, .flags = kLoading | kStale, .group = "server",
     .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0", .complexity = "O(1)"},
};

CommandSpec kConfigCommands[] = {
    {.name = "config", .handler = nullptr, .arity = -2, .group = "server",
     .summary = "A container for server configuration commands.", .since = "2.0.0", .complexity = "Depends on subcommand.",
     .subcommands = kConfigSubcommands},
};

}  // namespace

std::span<CommandSpec> config_commands() { return kConfigCommands; }

}  // namespace keel
