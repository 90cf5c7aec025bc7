// Dispatch, in two parts as Redis's processCommand() and call():
// - execute_command() is admission, for a command arriving from a client: unknown command,
//   unknown subcommand, arity, authentication, -BUSY while a script runs, the RESP2 subscribed
//   context, MULTI queueing (the order Redis checks them in), CLIENT REPLY OFF/SKIP; then call().
// - call() runs one handler. It is the only way a handler runs: for client commands, for EXEC's
//   queue, for redis.call()/pcall() and FCALL, and for a blocked client being served. It owns
//   the execution unit (one nesting depth; the outermost call is the unit): the clock frozen for
//   the whole unit, commandstats / failed_calls, SLOWLOG, MONITOR, the propagation of what the
//   unit changed (propagate.h) and the pub/sub messages held back for the unit's own client.
#pragma once
#include <cstdint>
#include <initializer_list>
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
  // lazyfree-lazy-*: which deletion command a deletion the server decides is propagated as
  // (DEL or UNLINK), as Redis chooses; user-del, user-flush and expire also free big values on
  // the lazyfree thread (keyspace/lazyfree.h); server-del frees overwritten values and the
  // server's own deletions there (keyspace/db.h).
  bool lazyfree_lazy_expire = false;      // expired keys
  bool lazyfree_lazy_server_del = false;  // SPOP emptying a set, ...
  bool lazyfree_lazy_user_del = false;    // DEL is UNLINK, GETDEL propagates UNLINK
  bool lazyfree_lazy_user_flush = false;  // FLUSHALL / FLUSHDB without SYNC|ASYNC are ASYNC
};
// Globals, not function-local statics: read on every command, with no guard check.
extern constinit CommandOptions g_command_options;
inline CommandOptions& command_options() { return g_command_options; }

struct DispatchStats {
  uint64_t total_commands_processed = 0;
  // Objects counted in INFO lazyfreed_objects besides what the lazyfree thread counts itself
  // (base/lazyfree.h): none at present.
  uint64_t lazyfreed_objects = 0;
};
extern constinit DispatchStats g_dispatch_stats;
inline DispatchStats& dispatch_stats() { return g_dispatch_stats; }

// Admission's verdict on memory for the command being run (Redis's pre_command_oom_state): over
// maxmemory and nothing left to evict. A script started in that state refuses deny-oom
// redis.call()s until it has written (commands/cmd_scripting.cc).
extern constinit bool g_pre_command_oom;

// The execution unit: what the outermost call() is running.
struct ExecUnit {
  int depth = 0;              // call() nesting; 0 between units
  Session* client = nullptr;  // the outermost call's session (meaningful while depth > 0)
};
extern constinit ExecUnit g_exec_unit;
inline int exec_depth() { return g_exec_unit.depth; }

// The row that would run args (the subcommand row for containers), or nullptr when unknown.
const CommandSpec* resolve_command(std::span<const std::string_view> args);

// Admission and execution of a command received from a client (session s), writing its reply
// through w. `hashes` (argc entries, 0 = not computed) carries key hashes from the prefetch
// pass; may be null. `resolved` is the result of resolve_command() when the caller already has
// it. The command's duration (commandstats, slowlog) is measured from `start_us`, a ustime()
// reading the caller already has, or from a fresh reading when 0. Returns the ustime() reading
// taken when the command ended, or 0 when it was rejected before running: a batch passes it on
// as the next command's start, so a pipeline reads the clock once per command instead of twice.
int64_t execute_command(Session& s, std::span<const std::string_view> args, uint64_t* hashes,
                        ReplyWriter& w, ServerApi& api, const CommandSpec* resolved = nullptr,
                        int64_t start_us = 0);

// call() flags.
enum CallFlag : uint32_t {
  // A blocked client's command run again now that a key it waits for is ready (Redis's
  // CMD_CALL_REPROCESSING): not fed to MONITOR again, and its commandstats / SLOWLOG entry
  // covers both runs.
  kCallReprocessing = 1u << 0,
  // CLIENT REPLY OFF / SKIP was on when the outermost command was admitted: its reply is
  // dropped unless the command turned replies back on (the unit's deferred pushes never are).
  kCallSkipReply = 1u << 1,
};

// Runs c's handler for s (no admission checks: the caller made them, or is EXEC / a script
// that made its own). Returns the ustime() reading taken at the end (see execute_command).
int64_t call(Session& s, std::span<const std::string_view> args, uint64_t* hashes, ReplyWriter& w,
             ServerApi& api, const CommandSpec& c, int64_t start_us = 0, uint32_t flags = 0);

// A blocked command ended without being served (timeout, CLIENT UNBLOCK): counts its call,
// duration (the run that blocked) and SLOWLOG entry now, as Redis does when it unblocks.
void command_unblocked(Session& s, const CommandSpec& c, std::span<const std::string_view> args,
                       bool failed);

// The command whose handler is running (the innermost one inside EXEC or a script), or null
// between commands: for the crash report.
CommandContext* current_command();

// A subcommand HELP reply as Redis writes it: "<NAME> <subcommand> [<arg> [value] [opt] ...].
// Subcommands are:", the lines, then "HELP" / "    Prints this help." (cmd_server.cc).
void reply_help(CommandContext& cx, const char* upper_name, std::initializer_list<const char*> lines);

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
