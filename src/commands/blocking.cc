// The registry of blocked sessions: per (db, key) FIFO queues of waiting sessions, the list of
// keys made ready by writes, and the deadlines. Serving re-runs the blocked command's handler
// with its saved arguments, as Redis 7 re-executes a blocked command once its key is ready; the
// type test before re-running keeps Redis's rule that a key created with another type (SET on
// a key a BLPOP waits for) does not wake the session.
// None of this is on the request path of a server with no blocked session.
#include "commands/blocking.h"

#include <climits>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/assert.h"
#include "base/numbers.h"
#include "base/time.h"
#include "commands/dispatch.h"
#include "commands/server_api.h"
#include "keyspace/keyspace.h"

namespace keel {

bool g_blocking_ready_pending = false;

namespace {

constexpr std::string_view kErrUnblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK";

struct Blocked {
  Session* s = nullptr;
  const CommandSpec* cmd = nullptr;
  std::vector<std::string> argv;       // the command's arguments, copied
  std::vector<std::string_view> views; // views of argv, what the handler sees
  std::vector<size_t> keys;            // argument indexes of the distinct keys
  int dbid = 0;
  Type type = Type::kList;
  int64_t deadline = 0;  // ms, 0 = none
  uint64_t seq = 0;      // arrival order (tie-break in the deadline index)
  const char* gone_error = nullptr;  // reply when a key goes away (XREADGROUP)
};

using Queue = std::deque<Blocked*>;
using KeyQueues = std::map<std::string, Queue, std::less<>>;

struct Registry {
  std::unordered_map<Session*, std::unique_ptr<Blocked>> by_session;
  std::unordered_map<uint64_t, Blocked*> by_id;
  std::vector<KeyQueues> waiting;                   // indexed by db id
  std::set<std::pair<int64_t, uint64_t>> deadlines; // (deadline, seq)
  std::unordered_map<uint64_t, Blocked*> by_seq;
  std::vector<std::pair<int, std::string>> ready;   // in the order keys became ready
  std::set<std::pair<int, std::string>, std::less<>> ready_set;
  uint64_t next_seq = 1;
  // Serving: the blocked session whose handler is being re-run, and whether it blocked again.
  Blocked* serving = nullptr;
  bool reblocked = false;
};

Registry& reg() {
  static Registry r;
  return r;
}

void mark_ready(int dbid, std::string_view key) {
  Registry& r = reg();
  if (dbid < 0 || static_cast<size_t>(dbid) >= r.waiting.size()) return;
  KeyQueues& q = r.waiting[static_cast<size_t>(dbid)];
  if (q.find(key) == q.end()) return;
  std::pair<int, std::string> k(dbid, std::string(key));
  if (!r.ready_set.insert(k).second) return;
  r.ready.push_back(std::move(k));
  g_blocking_ready_pending = true;
}

void on_key_created(int dbid, std::string_view key) { mark_ready(dbid, key); }

// Every key waited on in these dbs may have changed (SWAPDB; FLUSHDB / FLUSHALL with a == b).
void on_dbs_swapped(int a, int b) {
  Registry& r = reg();
  for (int db : {a, b}) {
    if (db < 0 || static_cast<size_t>(db) >= r.waiting.size()) continue;
    std::vector<std::string> keys;
    for (auto& [k, q] : r.waiting[static_cast<size_t>(db)]) keys.push_back(k);
    for (const std::string& k : keys) mark_ready(db, k);
  }
}

void on_emptied(int dbid) { on_dbs_swapped(dbid, dbid); }

void update_hooks() {
  g_blocked_sessions = reg().by_session.size();
  const bool on = g_blocked_sessions != 0;
  g_keyspace_hooks.key_created = on ? on_key_created : nullptr;
  g_keyspace_hooks.dbs_swapped = on ? on_dbs_swapped : nullptr;
  g_keyspace_hooks.emptied = on ? on_emptied : nullptr;
}

// Removes b from every structure and frees it; the session is no longer blocked.
void forget(Blocked* b) {
  Registry& r = reg();
  KeyQueues& kq = r.waiting[static_cast<size_t>(b->dbid)];
  for (size_t i : b->keys) {
    auto it = kq.find(b->views[i]);
    if (it == kq.end()) continue;
    Queue& q = it->second;
    for (auto qi = q.begin(); qi != q.end(); ++qi) {
      if (*qi == b) {
        q.erase(qi);
        break;
      }
    }
    if (q.empty()) kq.erase(it);
  }
  if (b->deadline) r.deadlines.erase({b->deadline, b->seq});
  r.by_seq.erase(b->seq);
  r.by_id.erase(b->s->id);
  b->s->flags &= ~Session::kBlocked;
  r.by_session.erase(b->s);  // frees b
  update_hooks();
}

// The reply of a blocked command that ends goes nowhere under CLIENT REPLY OFF, or SKIP given
// before the command (as in Redis, where the flags apply until the command completes).
void drop_muted_reply(Session& s, Buffer* out, size_t mark) {
  if (s.flags & (Session::kReplyOff | Session::kReplySkip)) out->resize(mark);
  s.flags &= ~Session::kReplySkip;
}

// Ends b's block with a reply written by `write` (timeout, CLIENT UNBLOCK) and resumes it. The
// command's call is counted now (commandstats, SLOWLOG), as Redis does when it unblocks.
template <class F>
void finish_with(Blocked* b, ServerApi& api, bool failed, F&& write) {
  Session& s = *b->s;
  command_unblocked(s, *b->cmd, b->views, failed);
  forget(b);
  if (Buffer* out = api.session_output(s)) {
    const size_t mark = out->size();
    ReplyWriter w(out, s.resp);
    write(w);
    drop_muted_reply(s, out, mark);
    api.session_output_ready(s);
  }
  api.resume_session(s);
}

// Re-runs b's command through call() (a unit of its own). True when it was served (the session
// is no longer blocked).
bool serve(Blocked* b, ServerApi& api) {
  Registry& r = reg();
  Session& s = *b->s;
  Buffer* out = api.session_output(s);
  if (out == nullptr) {  // closing: nothing can be delivered, leave the data where it is
    forget(b);
    return true;
  }
  const size_t mark = out->size();
  ReplyWriter w(out, s.resp);
  r.serving = b;
  r.reblocked = false;
  call(s, b->views, nullptr, w, api, *b->cmd, 0, kCallReprocessing);
  r.serving = nullptr;
  if (r.reblocked) return false;
  forget(b);
  drop_muted_reply(s, out, mark);
  api.session_output_ready(s);
  api.resume_session(s);
  return true;
}

}  // namespace

bool blocking_timeout_arg(CommandContext& cx, size_t i, int64_t* deadline_ms) {
  long double t;
  if (!parse_long_double(cx.arg(i), &t) || std::isnan(t)) {
    cx.reply().error(kErrTimeout);
    return false;
  }
  if (t < 0) {
    cx.reply().error(kErrNegativeTimeout);
    return false;
  }
  t *= 1000.0L;
  if (t > static_cast<long double>(LLONG_MAX)) {
    cx.reply().error("ERR timeout is out of range");
    return false;
  }
  const int64_t ms = static_cast<int64_t>(std::ceil(t));
  if (ms == 0) {
    *deadline_ms = 0;
    return true;
  }
  const int64_t now = cx.now_ms();
  if (ms > LLONG_MAX - now) {
    cx.reply().error("ERR timeout is out of range");
    return false;
  }
  *deadline_ms = now + ms;
  return true;
}

bool blocking_may_block(CommandContext& cx) {
  // Only a command a client sent directly (the outermost call) may block, or stay blocked when
  // it is run again; inside EXEC or a script it behaves as if the timeout expired at once
  // (Redis's CLIENT_DENY_BLOCKING).
  return exec_depth() == 1 && cx.session().client != nullptr;
}

bool blocking_reblocked() { return reg().reblocked; }

void block_on_keys(CommandContext& cx, std::span<const size_t> key_args, Type type,
                   int64_t deadline_ms, std::span<const std::string_view> argv, const char* gone_error) {
  Registry& r = reg();
  Session& s = cx.session();
  if (r.serving && r.serving->s == &s) {  // the served handler found nothing: stay as we are
    r.reblocked = true;
    return;
  }
  KEEL_ASSERT(!(s.flags & Session::kBlocked));
  auto owned = std::make_unique<Blocked>();
  Blocked* b = owned.get();
  b->s = &s;
  b->cmd = &cx.command();
  if (argv.empty()) argv = cx.args();
  b->argv.assign(argv.begin(), argv.end());
  b->views.assign(b->argv.begin(), b->argv.end());
  b->dbid = s.db->id();
  b->type = type;
  b->deadline = deadline_ms;
  b->gone_error = gone_error;
  b->seq = r.next_seq++;
  if (r.waiting.size() <= static_cast<size_t>(b->dbid)) r.waiting.resize(static_cast<size_t>(b->dbid) + 1);
  KeyQueues& kq = r.waiting[static_cast<size_t>(b->dbid)];
  for (size_t i : key_args) {
    bool dup = false;
    for (size_t j : b->keys) dup = dup || b->views[j] == b->views[i];
    if (dup) continue;  // BLPOP k k 0 waits once on k
    b->keys.push_back(i);
    auto it = kq.find(b->views[i]);
    if (it == kq.end()) it = kq.emplace(std::string(b->views[i]), Queue()).first;
    it->second.push_back(b);
  }
  if (deadline_ms) r.deadlines.insert({deadline_ms, b->seq});
  r.by_seq[b->seq] = b;
  r.by_id[s.id] = b;
  r.by_session[&s] = std::move(owned);
  s.flags |= Session::kBlocked;
  update_hooks();
}

void blocking_serve_ready(ServerApi& api) {
  Registry& r = reg();
  // Never from inside a unit (a busy script letting the server poll): each served client is a
  // unit of its own, after the one that made its key ready.
  if (exec_depth() != 0) return;
  // A key that expired while the command that readied it ran (EXEC with DEBUG SLEEP) must not
  // be served: look at it with the real clock, not the one frozen for that command.
  g_clock.now_ms = mstime();
  while (!r.ready.empty()) {
    std::vector<std::pair<int, std::string>> ready;
    ready.swap(r.ready);
    r.ready_set.clear();
    g_blocking_ready_pending = false;
    for (auto& [dbid, key] : ready) {
      if (static_cast<size_t>(dbid) >= r.waiting.size()) continue;
      KeyQueues& kq = r.waiting[static_cast<size_t>(dbid)];
      auto it = kq.find(key);
      if (it == kq.end()) continue;
      // Snapshot the queue: serving edits it (and may free it).
      std::vector<uint64_t> order;
      for (Blocked* b : it->second) order.push_back(b->seq);
      Db& db = keyspace().db(dbid);
      const KeyRef kr = KeyRef::of(key);
      for (uint64_t seq : order) {
        auto bi = r.by_seq.find(seq);
        if (bi == r.by_seq.end()) continue;  // served meanwhile through another key
        Blocked* b = bi->second;
        const Object* o = db.find(kr, Db::kNoTouch | Db::kNoStats | Db::kNoNotify);
        if (o == nullptr || o->type() != b->type) {
          if (b->gone_error) {  // XREADGROUP: its stream is gone
            const char* err = b->gone_error;
            finish_with(b, api, true, [err](ReplyWriter& w) { w.error(err); });
            continue;
          }
          continue;  // gone (the others keep waiting), or waits for another type (BLPOP vs BZPOPMIN)
        }
        serve(b, api);
      }
    }
  }
  g_blocking_ready_pending = false;
}

int64_t blocking_next_deadline() {
  const Registry& r = reg();
  return r.deadlines.empty() ? INT64_MAX : r.deadlines.begin()->first;
}

void blocking_expire(int64_t now_ms, ServerApi& api) {
  Registry& r = reg();
  while (!r.deadlines.empty() && r.deadlines.begin()->first <= now_ms) {
    Blocked* b = r.by_seq[r.deadlines.begin()->second];
    finish_with(b, api, false, [](ReplyWriter& w) { w.null_array(); });
  }
}

bool blocking_unblock(uint64_t session_id, bool error, ServerApi& api) {
  Registry& r = reg();
  auto it = r.by_id.find(session_id);
  if (it == r.by_id.end()) return false;
  finish_with(it->second, api, error, [error](ReplyWriter& w) {
    if (error) {
      w.error(kErrUnblocked);
    } else {
      w.null_array();
    }
  });
  return true;
}

void blocking_drop_session(Session& s) {
  auto it = reg().by_session.find(&s);
  if (it != reg().by_session.end()) forget(it->second.get());
}

size_t blocking_keys() {
  size_t n = 0;
  for (const KeyQueues& kq : reg().waiting) n += kq.size();
  return n;
}
size_t blocking_clients_with_timeout() { return reg().deadlines.size(); }

}  // namespace keel
