// Transactions: each session's MULTI queue (commands copied out of the query buffer, since the
// parsed arguments are views that die with the next read) and the WATCH registry
// (db + key -> watching sessions). The commands themselves (MULTI EXEC DISCARD WATCH UNWATCH)
// live in cmd_multi.cc; dispatch.cc calls the hooks below to queue and to flag errors.
//
// Cost when unused: the registry installs the keyspace touched()/flushed() hooks only while at
// least one key is watched, so a write to a key nobody watches costs the one null test in
// Db::signal; a session outside MULTI pays one flag test in dispatch.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/assert.h"
#include "commands/session.h"

namespace keel {

struct CommandSpec;
class ReplyWriter;
class ServerApi;

// Per-session transaction state, created lazily by MULTI or WATCH and freed by
// multi_drop_session(). Defined in multi.cc.
struct MultiState;

// Commands that run at once even inside MULTI (Redis's list): EXEC DISCARD MULTI WATCH QUIT
// RESET. Everything else is queued.
bool multi_runs_immediately(const CommandSpec& c);

// Dispatch found `c` valid inside MULTI: copies args into the queue and replies +QUEUED, or
// rejects a no_multi command ("ERR Command not allowed inside a transaction", flagging the
// transaction). Nothing is stored when the transaction is already doomed (EXEC will not run it).
void multi_queue(Session& s, std::span<const std::string_view> args, const CommandSpec& c,
                 ReplyWriter& w);

// Dispatch rejected a command (unknown command or subcommand, arity, auth) before queueing or
// running it. Inside MULTI this flags the transaction so EXEC answers EXECABORT. When the
// rejected command is EXEC itself, Redis discards the transaction at once and answers
// "-EXECABORT Transaction discarded because of: <error>": then this returns true and the
// caller writes that reply instead of the plain error. Outside MULTI: one branch, false.
bool multi_reject_slow(Session& s, const CommandSpec* c);
inline bool multi_reject(Session& s, const CommandSpec* c) {
  if (KEEL_LIKELY(!(s.flags & Session::kMulti))) return false;
  return multi_reject_slow(s, c);
}

// Disconnect and RESET: forgets the queue, every watched key and the transaction flags, and
// frees the state. Safe on a session that never used transactions.
void multi_drop_session(Session& s);

// Introspection for CLIENT LIST / CLIENT INFO: queued commands (-1 outside MULTI), watched
// keys, bytes held by the queue.
// Whether the open transaction has a write queued (EXEC is then refused by MISCONF).
bool multi_queued_write(const Session& s);
// Whether the open transaction has a deny-oom command queued (EXEC is then refused by -OOM).
bool multi_queued_denyoom(const Session& s);
int64_t multi_queued_count(const Session& s);
size_t multi_watch_count(const Session& s);
size_t multi_memory(const Session& s);

// Registry operations used by cmd_multi.cc.
void multi_watch(Session& s, int dbid, std::string_view key);
void multi_unwatch_all(Session& s);
// True when a watched key (not already expired when WATCH ran) exists but has logically expired
// by now: Redis fails such a transaction even though nobody deleted the key yet.
bool multi_watched_key_expired(const Session& s);
// Clears the queue and the MULTI/error/dirty flags and unwatches (DISCARD, EXEC's end).
void multi_discard(Session& s);
// Runs the queue (EXEC after the checks): array header, then each command through call() so
// stats, keyspace events and keysizes behave as outside a transaction; EXEC's own call() is the
// execution unit (one clock, one propagated MULTI/EXEC).
void multi_exec(Session& s, ReplyWriter& w, ServerApi& api);
// CLIENT PAUSE WRITE: the queue holds a command flagged write or may_replicate (EXEC waits).
bool multi_queue_may_write(const Session& s);
// Number of watched keys in the whole server (tests, INFO).
size_t multi_watched_keys_total();

}  // namespace keel
