// Client-side caching (CLIENT TRACKING): the table of keys tracking clients read, the BCAST
// prefix table, and the invalidation messages. Behaviour matched against Redis 7.0:
// - default mode: the keys a tracking client reads with a read-only command (its keys by the
//   command's key positions; inside EXEC and scripts too, for the client that runs them, but not
//   EVAL_RO / EVALSHA_RO / FCALL_RO themselves) are remembered, key name only (not the db).
//   OPTIN: only for the command after CLIENT CACHING YES (a whole MULTI ... EXEC counts as
//   one); OPTOUT: except for the command after CLIENT CACHING NO.
// - any change to a remembered key (every Db mutation, expiry included: the keyspace's
//   tracking hook, next to WATCH's in Db::signal) sends each client that read it one
//   `invalidate [key]` message and forgets the key; NOLOOP clients get none for their own
//   changes. FLUSHALL / FLUSHDB send every tracking client `invalidate` with a null and empty
//   the whole table.
// - BCAST: no table; keys changed under a client's prefixes (the empty prefix: all) are
//   collected per prefix and sent before the server sleeps, one message per prefix with the
//   keys sorted (NOLOOP drops the client's own).
// - the message goes to the client (RESP3: a `>2 invalidate <keys>` push), or with REDIRECT to
//   that client: RESP3 a push, RESP2 a `message` on `__redis__:invalidate` when it has any
//   subscription. A redirect client that is gone: a `tracking-redir-broken` push to a RESP3
//   tracking client, and flag R.
// - messages for the client whose execution unit is running go out after the unit's reply
//   (before its pub/sub messages), as Redis 7 sends them after the command.
// - tracking-table-max-keys: past it, keys are evicted from the table (each one invalidated)
//   before the server sleeps.
//
// Cost when nobody tracks: call() tests g_tracking_clients for read-only commands; Db::signal
// tests the tracking hook, installed only while the table or the prefix table holds something.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/buffer.h"
#include "commands/command.h"
#include "commands/session.h"

namespace keel {

class ServerApi;

// Per-session tracking state (the flags live in Session::flags). Defined here, owned by the
// session (freed by tracking_drop_session).
struct TrackingState {
  uint64_t redirect = 0;              // client id, 0 = none
  std::vector<std::string> prefixes;  // BCAST prefixes, sorted
};

// Number of sessions with tracking on (INFO tracking_clients). A global: read by call().
extern constinit size_t g_tracking_clients;
struct TrackingOptions {
  int64_t table_max_keys = 1000000;  // tracking-table-max-keys (0 = no limit)
};
TrackingOptions& tracking_options();

// call(), after a read-only command ran for session s (any depth).
void tracking_remember_keys(Session& s, const CommandSpec& c, std::span<const std::string_view> args);
// execute_command, after a client command: CLIENT CACHING applies to one command (or one
// transaction).
inline void tracking_command_done(Session& s, const CommandSpec& c) {
  if (KEEL_UNLIKELY(s.flags & Session::kTrackingCaching) && !(s.flags & Session::kMulti) &&
      !(c.parent && c.parent->name[0] == 'c' && std::string_view(c.parent->name) == "client")) {
    s.flags &= ~Session::kTrackingCaching;
  }
}

// FLUSHALL / FLUSHDB: every tracking client is told to drop everything.
void tracking_flushed();

// Messages for the running unit's client, appended after its reply (call(), end of unit).
extern Buffer g_tracking_deferred;
void tracking_flush_deferred(Buffer* out);

// Before the server sleeps: BCAST messages, and the table kept under tracking-table-max-keys.
bool tracking_before_sleep_pending();
void tracking_before_sleep();

// The session is going away (disconnect) or RESET: tracking off.
void tracking_drop_session(Session& s);

// INFO.
size_t tracking_total_keys();
size_t tracking_total_items();
size_t tracking_total_prefixes();

// CLIENT LIST redir=: -1 when tracking is off, else the redirect id (0: none).
int64_t tracking_redirect_of(const Session& s);

// CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO.
void cmd_client_tracking(CommandContext& cx);
void cmd_client_caching(CommandContext& cx);
void cmd_client_getredir(CommandContext& cx);
void cmd_client_trackinginfo(CommandContext& cx);

}  // namespace keel
