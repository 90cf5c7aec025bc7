// CLIENT PAUSE state and the held-back sessions (see pause.h for the rules matched).
#include "base/admission.h"
#include "commands/pause.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "commands/multi.h"
#include "commands/server_api.h"
#include "keyspace/db.h"

namespace keel {

constinit PauseState g_pause;

namespace {
// Held-back sessions, in the order they were held. A session is in it at most once (it runs
// nothing while held).
std::vector<Session*>& held() {
  static std::vector<Session*> v;
  return v;
}
}  // namespace

void pause_start(PauseType type, int64_t end_ms) {
  if (type > g_pause.type) g_pause.type = type;
  g_admission_gates.paused = g_pause.type != PauseType::kNone;
  if (end_ms > g_pause.end_ms) g_pause.end_ms = end_ms;
  g_clock.expire_paused = true;
}

void pause_end(ServerApi& api) {
  g_pause = PauseState{};
  g_admission_gates.paused = false;
  g_clock.expire_paused = g_clock.replica;
  std::vector<Session*> list;
  list.swap(held());
  for (Session* s : list) {
    s->flags &= ~(Session::kBlocked | Session::kPaused);
    api.resume_session(*s);
  }
}

bool pause_check_timeout(int64_t now_ms, ServerApi& api) {
  if (g_pause.type == PauseType::kNone) return false;
  if (now_ms <= g_pause.end_ms) return true;
  pause_end(api);
  return false;
}

bool pause_holds(const Session& s, const CommandSpec& c, std::span<const std::string_view> args) {
  if (g_pause.type == PauseType::kAll) return true;
  if (g_pause.type != PauseType::kWrite) return false;
  const bool scripted = !c.parent && (!strcmp(c.name, "eval") || !strcmp(c.name, "evalsha") ||
                                      !strcmp(c.name, "fcall"));
  if (scripted) return script_command_may_write(c, args);
  if (c.flags & (kWrite | kMayReplicate)) return true;
  if (!c.parent && !strcmp(c.name, "exec")) return multi_queue_may_write(s);
  return false;
}

void pause_hold(Session& s) {
  s.flags |= Session::kBlocked | Session::kPaused;
  held().push_back(&s);
}

void pause_drop_session(Session& s) {
  if (!(s.flags & Session::kPaused)) return;
  auto& v = held();
  v.erase(std::remove(v.begin(), v.end(), &s), v.end());
  s.flags &= ~(Session::kBlocked | Session::kPaused);
}

size_t pause_held_count() { return held().size(); }

}  // namespace keel
