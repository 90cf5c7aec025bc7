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

namespace {
// The pause in effect from the purposes' own.
void pause_refresh() {
  g_pause.type = PauseType::kNone;
  g_pause.end_ms = 0;
  for (size_t i = 0; i < kPausePurposes; i++) {
    if (g_pause.by[i] == PauseType::kNone) continue;
    if (g_pause.type == PauseType::kNone || g_pause.end_by[i] < g_pause.end_ms) g_pause.end_ms = g_pause.end_by[i];
    if (g_pause.by[i] > g_pause.type) g_pause.type = g_pause.by[i];
  }
  g_admission_gates.paused = g_pause.type != PauseType::kNone;
  g_clock.expire_paused = g_admission_gates.paused || g_clock.replica;
}
}  // namespace

void pause_start(PauseType type, int64_t end_ms, PausePurpose why) {
  const size_t i = static_cast<size_t>(why);
  if (type > g_pause.by[i]) g_pause.by[i] = type;
  if (end_ms > g_pause.end_by[i]) g_pause.end_by[i] = end_ms;
  pause_refresh();
}

void pause_end(ServerApi& api, PausePurpose why) {
  const size_t i = static_cast<size_t>(why);
  g_pause.by[i] = PauseType::kNone;
  g_pause.end_by[i] = 0;
  pause_refresh();
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
  for (size_t i = 0; i < kPausePurposes; i++) {
    if (g_pause.by[i] != PauseType::kNone && now_ms > g_pause.end_by[i]) {
      pause_end(api, static_cast<PausePurpose>(i));
    }
  }
  return g_pause.type != PauseType::kNone;
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
