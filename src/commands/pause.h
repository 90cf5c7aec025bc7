// CLIENT PAUSE / UNPAUSE: the pause state and the sessions it holds back (Redis's postponed
// clients). Behaviour matched against Redis 7.0:
// - ALL holds back every command from every client (CLIENT UNPAUSE from another client too: it
//   runs when the pause ends); WRITE holds back commands flagged write or may_replicate
//   (PUBLISH, SCRIPT LOAD, ...), EXEC of a transaction that queued one, and EVAL / EVALSHA /
//   FCALL unless their script declares no-writes; reads run. Inside MULTI a write is held back
//   at queueing time (admission runs before the queueing).
// - A second PAUSE never weakens or shortens the first: the type is the stronger of the two and
//   the end the later one. Only UNPAUSE (or the end time passing) ends it.
// - A held-back session runs nothing more until the pause ends; then every held-back session
//   runs its held command again through admission (it may be held again by a new pause), then
//   what it had pipelined behind it, in the order the sessions were held.
// - While paused, keys are not expired: a key past its time reads as missing but is not
//   deleted, and the active expiry cycle does nothing (g_clock.expire_paused).
// - A held-back session counts in INFO blocked_clients and shows flag `b` in CLIENT LIST.
//
// Cost when no pause is set: execute_command tests one byte (g_pause.type).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "commands/command.h"
#include "commands/session.h"

namespace keel {

class ServerApi;

enum class PauseType : uint8_t { kNone = 0, kWrite = 1, kAll = 2 };

// Who paused (Redis 7's pause purposes): CLIENT PAUSE, or a FAILOVER holding writes back while
// its replica catches up. Each ends on its own (CLIENT UNPAUSE does not end a failover's pause);
// the pause in effect is the strongest of them.
enum class PausePurpose : uint8_t { kClient = 0, kFailover = 1 };
constexpr size_t kPausePurposes = 2;

struct PauseState {
  PauseType type = PauseType::kNone;  // in effect: the strongest purpose's
  int64_t end_ms = 0;  // absolute; the earliest end of the purposes in effect
  PauseType by[kPausePurposes] = {};
  int64_t end_by[kPausePurposes] = {};  // INT64_MAX: until ended explicitly
};
extern constinit PauseState g_pause;

// CLIENT PAUSE (and FAILOVER): merges with that purpose's pause in progress (stronger type,
// later end).
void pause_start(PauseType type, int64_t end_ms, PausePurpose why = PausePurpose::kClient);
// CLIENT UNPAUSE, the end time passed, or a failover that ended: that purpose's pause ends and
// every held-back session is resumed (ServerApi::resume_session), in the order they were held
// (a session still paused by another purpose is held again by its admission).
void pause_end(ServerApi& api, PausePurpose why = PausePurpose::kClient);
// Ends the pause when now_ms is past its end. Returns true when a pause is still in effect.
bool pause_check_timeout(int64_t now_ms, ServerApi& api);

// Admission (execute_command), while a pause is set: true when c (with args, from s) must wait.
bool pause_holds(const Session& s, const CommandSpec& c, std::span<const std::string_view> args);
// Holds s back: sets kBlocked | kPaused. The server keeps the held command and what followed it.
void pause_hold(Session& s);
// The session is going away.
void pause_drop_session(Session& s);
// INFO blocked_clients includes the held-back sessions, as in Redis 7.0.
size_t pause_held_count();

// EVAL / EVALSHA / FCALL: false when the script or function declares no-writes (defined in
// cmd_scripting.cc). An unknown script counts as writing, as the command's own flags say.
bool script_command_may_write(const CommandSpec& c, std::span<const std::string_view> args);

}  // namespace keel
