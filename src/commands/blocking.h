// Blocking commands (BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP, and BZPOPMIN/BZPOPMAX/BZMPOP): a
// session that found nothing to pop is parked here, on a list of keys, with a deadline. Not
// here: what a command pops (its handler does that, in cmd_<type>.cc).
//
// How a blocking handler uses it:
//   1. Validate, parse the timeout with blocking_timeout_arg(), try to serve at once.
//   2. Nothing to serve: if blocking_may_block(cx) is false (inside EXEC, inside a script) reply
//      the timeout reply (null array) and return; else call block_on_keys() and write NO reply.
//   3. When a write creates one of the keys with the waited-for type (LPUSH, RENAME, RESTORE,
//      SWAPDB, ... anything that goes through Db::insert/overwrite/move_to/swap), the key is
//      marked ready. After the top-level command that did it (after a whole EXEC or script),
//      the server calls blocking_serve_ready(): for each ready key, in the order the keys became
//      ready, the sessions blocked on it are served in arrival (FIFO) order by running their
//      command again with its saved arguments through call() (each an execution unit of its
//      own, propagated as the non-blocking command it became), while the key still exists
//      with the right type. A handler that finds nothing again calls block_on_keys() again: the
//      session then stays blocked with its original deadline and queue position.
//   4. The deadline passing (blocking_expire), CLIENT UNBLOCK or a disconnect end the block.
// A served or timed-out session's reply goes to its output buffer and the server resumes the
// commands it had pipelined behind the blocking one (ServerApi::resume_session).
//
// Cost when nobody is blocked: the keyspace hooks are not installed (one null test per key
// creation in Db) and blocking_has_ready() is one load.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "commands/command.h"
#include "types/object.h"

namespace keel {

class ServerApi;

// Parses a timeout in seconds (fractions allowed) at argument i into an absolute deadline in
// ms (0 = wait forever). Replies "ERR timeout is not a float or out of range", "ERR timeout is
// negative" or "ERR timeout is out of range" and returns false on bad input.
bool blocking_timeout_arg(CommandContext& cx, size_t i, int64_t* deadline_ms);

// False when the session must not block: inside EXEC (MULTI) or a script (any call nested in
// another). Blocking commands then behave as if the timeout expired at once.
bool blocking_may_block(CommandContext& cx);
// For call(): the blocked command just run again (served) found nothing and stays blocked.
bool blocking_reblocked();

// Blocks cx's session on the keys at argument indexes `key_args` of cx (in the session's
// current db) until `deadline_ms` (0 = forever), waiting for a key of type `type`. Copies
// the arguments. The handler must not write a reply after calling this.
// `argv`, when given, is saved instead of cx's arguments (XREAD saves `$` as the ID it meant).
// `gone_error`, when given, is the error the session gets if one of its keys is deleted or gets
// another type while it waits (XREADGROUP: "UNBLOCKED the stream key no longer exists"), instead
// of waiting on.
void block_on_keys(CommandContext& cx, std::span<const size_t> key_args, Type type,
                   int64_t deadline_ms, std::span<const std::string_view> argv = {},
                   const char* gone_error = nullptr);

// True when a key some session waits for became ready since the last serve.
extern bool g_blocking_ready_pending;
inline bool blocking_has_ready() { return g_blocking_ready_pending; }
// Serves the sessions waiting on ready keys (see above). Called by the server after each
// top-level command when blocking_has_ready().
void blocking_serve_ready(ServerApi& api);

// Earliest deadline of a blocked session (INT64_MAX when none), and the expiry of every
// session whose deadline is <= now_ms: they get the timeout reply and resume.
int64_t blocking_next_deadline();
void blocking_expire(int64_t now_ms, ServerApi& api);

// CLIENT UNBLOCK: false when the session with that id is not blocked. `error` replies
// "-UNBLOCKED client unblocked via CLIENT UNBLOCK", else the timeout reply.
bool blocking_unblock(uint64_t session_id, bool error, ServerApi& api);

// The session is going away (disconnect, CLIENT KILL): forgets its block without a reply.
void blocking_drop_session(Session& s);

// INFO clients: blocked_clients, total_blocking_keys, clients_in_timeout_table. The first is
// read on every loop iteration: a count kept with the registry, read inline.
inline constinit size_t g_blocked_sessions = 0;
inline size_t blocking_clients() { return g_blocked_sessions; }
size_t blocking_keys();
size_t blocking_clients_with_timeout();

}  // namespace keel
