// Dispatch: resolves a parsed command to its table row and runs it after the generic checks, in
// this fixed order: unknown command, unknown subcommand, arity, authentication, (pub/sub context,
// MULTI queueing and OOM come with their features), then the handler. It also keeps the
// per-command stats, the slowlog and the MONITOR feed.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "commands/command.h"

namespace keel {

struct CommandOptions {
  int64_t slowlog_log_slower_than = 10000;  // microseconds; <0 disables, 0 logs everything
  int64_t slowlog_max_len = 128;
  std::string requirepass;
  int enable_debug_command = 0;  // 0 no, 1 yes, 2 local
  int databases = 16;
  bool keysizes_hist_assert = false;  // DEBUG KEYSIZES-HIST-ASSERT: recount after each command
};
// Globals, not function-local statics: read on every command, with no guard check.
extern constinit CommandOptions g_command_options;
inline CommandOptions& command_options() { return g_command_options; }

struct DispatchStats {
  uint64_t total_commands_processed = 0;
};
extern constinit DispatchStats g_dispatch_stats;
inline DispatchStats& dispatch_stats() { return g_dispatch_stats; }

// The row that would run args (the subcommand row for containers), or nullptr when unknown.
const CommandSpec* resolve_command(std::span<const std::string_view> args);

// Runs one command for session s, writing its reply through w. `hashes` (argc entries, 0 =
// not computed) carries key hashes from the prefetch pass; may be null. `resolved` is the
// result of resolve_command() when the caller already has it.
// The command's duration (commandstats, slowlog) is measured from `start_us`, a ustime()
// reading the caller already has, or from a fresh reading when 0. Returns the ustime() reading
// taken when the command ended, or 0 when it was rejected before running: a batch passes it on
// as the next command's start, so a pipeline reads the clock once per command instead of twice.
int64_t execute_command(Session& s, std::span<const std::string_view> args, uint64_t* hashes,
                        ReplyWriter& w, ServerApi& api, const CommandSpec* resolved = nullptr,
                        int64_t start_us = 0);

// The command whose handler is running (the innermost one inside EXEC or a script), or null
// between commands: for the crash report.
CommandContext* current_command();

// Set while a script that ran past busy-reply-threshold lets the server process events
// (cmd_scripting.cc): every command without the allow_busy flag is answered with `error`.
struct BusyState {
  const char* error = nullptr;
};
BusyState& busy_state();

// Installed by the server at start-up; used by execute_command and scripting callbacks.
void set_server_api(ServerApi* api);
ServerApi& server_api();

}  // namespace keel
