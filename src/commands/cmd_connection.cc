// Connection commands: PING ECHO QUIT SELECT (the rest of the family lands with its tests).
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "keyspace/keyspace.h"

namespace keel {
namespace {

// PING [message] -> +PONG, or the message as a bulk string.
void cmd_ping(CommandContext& cx) {
  if (cx.argc() > 2) return cx.reply_arity_error();
  if (cx.argc() == 2) return cx.reply().bulk(cx.arg(1));
  cx.reply().simple("PONG");
}

// ECHO message -> the message.
void cmd_echo(CommandContext& cx) { cx.reply().bulk(cx.arg(1)); }

// QUIT -> +OK, then the connection closes once the reply is written.
void cmd_quit(CommandContext& cx) {
  cx.session().flags |= Session::kCloseAfterReply;
  cx.reply().ok();
}

// SELECT index
void cmd_select(CommandContext& cx) {
  int idx;
  if (!cx.db_index_arg(1, &idx)) return;
  cx.session().db_index = idx;
  cx.session().db = &keyspace().db(idx);
  cx.reply().ok();
}

CommandSpec kConnectionCommands[] = {
    {"ping", cmd_ping, -1, kFast | kStale, 0, 0, 0, kAclConnection, "connection", "Returns the server's liveliness response.", "1.0.0", "O(1)"},
    {"echo", cmd_echo, 2, kFast | kStale, 0, 0, 0, kAclConnection, "connection", "Returns the given string.", "1.0.0", "O(1)"},
    {"quit", cmd_quit, -1, kAllowBusy | kNoAuth | kStale | kFast, 0, 0, 0, kAclConnection, "connection", "Closes the connection.", "1.0.0", "O(1)"},
    {"select", cmd_select, 2, kLoading | kStale | kFast, 0, 0, 0, kAclConnection, "connection", "Changes the selected database.", "1.0.0", "O(1)"},
};

}  // namespace

std::span<CommandSpec> connection_commands() { return kConnectionCommands; }

}  // namespace keel
