// Transactions family: MULTI EXEC DISCARD WATCH UNWATCH. The queue and the WATCH registry live
// in multi.cc; dispatch.cc queues commands while the session is in MULTI and flags rejected ones.
#include "commands/command.h"
#include "commands/multi.h"

namespace keel {
namespace {

// MULTI -> +OK; the following commands are queued until EXEC or DISCARD.
void cmd_multi(CommandContext& cx) {
  Session& s = cx.session();
  if (s.flags & Session::kMulti) return cx.reply().error("ERR MULTI calls can not be nested");
  s.flags |= Session::kMulti;
  cx.reply().ok();
}

// EXEC -> array of the queued commands' replies; null array when a watched key changed (or
// expired); EXECABORT when a command was rejected while queueing. Always ends the transaction
// and forgets the watched keys.
void cmd_exec(CommandContext& cx) {
  Session& s = cx.session();
  cx.prevent_propagation();  // the queued commands propagate themselves, as one transaction
  if (!(s.flags & Session::kMulti)) return cx.reply().error("ERR EXEC without MULTI");
  if (multi_watched_key_expired(s)) s.flags |= Session::kDirtyCas;
  if (s.flags & Session::kMultiError) {
    multi_discard(s);
    return cx.reply().error("EXECABORT Transaction discarded because of previous errors.");
  }
  if (s.flags & Session::kDirtyCas) {
    multi_discard(s);
    return cx.reply().null_array();
  }
  multi_exec(s, cx.reply(), cx.server());
}

// DISCARD -> +OK: drops the queue and the watched keys.
void cmd_discard(CommandContext& cx) {
  Session& s = cx.session();
  if (!(s.flags & Session::kMulti)) return cx.reply().error("ERR DISCARD without MULTI");
  multi_discard(s);
  cx.reply().ok();
}

// WATCH key [key ...] -> +OK. Keys are watched in the session's current db.
void cmd_watch(CommandContext& cx) {
  Session& s = cx.session();
  if (s.flags & Session::kMulti) return cx.reply().error("ERR WATCH inside MULTI is not allowed");
  // Already dirty: EXEC will fail whatever happens, so there is nothing to watch (Redis 7).
  if (!(s.flags & Session::kDirtyCas)) {
    for (size_t i = 1; i < cx.argc(); i++) multi_watch(s, cx.db().id(), cx.arg(i));
  }
  cx.reply().ok();
}

// UNWATCH -> +OK: forgets every watched key, and with them a pending "dirty" verdict.
void cmd_unwatch(CommandContext& cx) {
  Session& s = cx.session();
  multi_unwatch_all(s);
  s.flags &= ~Session::kDirtyCas;
  cx.reply().ok();
}

constexpr uint32_t kTxFlags = kNoScript | kLoading | kStale | kFast | kAllowBusy;

CommandSpec kMultiCommands[] = {
    {.name = "multi", .handler = cmd_multi, .arity = 1, .flags = kTxFlags, .acl = kAclTransaction, .group = "transactions",
     .summary = "Starts a transaction.", .since = "1.2.0", .complexity = "O(1)"},
    {.name = "exec", .handler = cmd_exec, .arity = 1, .flags = kNoScript | kLoading | kStale | kSkipSlowlog, .acl = kAclTransaction, .group = "transactions",
     .summary = "Executes all commands in a transaction.", .since = "1.2.0", .complexity = "Depends on commands in the transaction"},
    {.name = "discard", .handler = cmd_discard, .arity = 1, .flags = kTxFlags, .acl = kAclTransaction, .group = "transactions",
     .summary = "Discards a transaction.", .since = "2.0.0", .complexity = "O(N), when N is the number of queued commands"},
    {.name = "watch", .handler = cmd_watch, .arity = -2, .flags = kTxFlags, .acl = kAclTransaction, .group = "transactions",
     .summary = "Monitors changes to keys to determine the execution of a transaction.", .since = "2.2.0", .complexity = "O(1) for every key.",
     .keys = {ks(kKsRO, 1, fk_range(-1, 1, 0))}},
    {.name = "unwatch", .handler = cmd_unwatch, .arity = 1, .flags = kTxFlags, .acl = kAclTransaction, .group = "transactions",
     .summary = "Forgets about watched keys of a transaction.", .since = "2.2.0", .complexity = "O(1)"},
};

}  // namespace

std::span<CommandSpec> multi_commands() { return kMultiCommands; }

}  // namespace keel
