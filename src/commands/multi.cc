// The MULTI queue and the WATCH registry. Redis behaviours matched here (checked against 7.0):
// - a queued command's arguments are copied into one per-session arena (the parser's views die
//   with the next read); the arena and vectors keep their capacity between transactions, so a
//   steady MULTI/SET/EXEC loop does not allocate;
// - touching a watched key marks every watcher dirty and unwatches it at once (Redis 7: nothing
//   more can change the outcome), except for a watcher that watched the key when it had already
//   logically expired and the touch is that key's deletion: logically no change;
// - FLUSHDB/FLUSHALL/SWAPDB dirty only watchers of keys that exist in the emptied db or, for
//   SWAPDB, in the db swapped in (with the same expired-key rules as Redis's
//   touchAllWatchedKeysInDb).
#include "commands/acl.h"
#include "commands/multi.h"

#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "commands/cmd_scripting.h"
#include "commands/command.h"
#include "commands/dispatch.h"
#include "keyspace/keyspace.h"
#include "protocol/reply_writer.h"

namespace keel {

struct QueuedCommand {
  const CommandSpec* spec;
  uint32_t first_arg;  // index into MultiState::args
  uint32_t argc;
};

struct WatchedKey {
  int dbid;
  std::string key;
};

struct MultiState {
  // Queue: args[i] = (offset, length) into arena.
  std::vector<QueuedCommand> cmds;
  std::vector<std::pair<size_t, size_t>> args;
  std::string arena;
  std::vector<WatchedKey> watched;
  // A queued command is a write (a function or shebang script that may write counts): after a
  // failed BGSAVE, MISCONF refuses EXEC itself (Redis's mstate.cmd_flags).
  bool queued_write = false;
  // A queued command is deny-oom (a shebang script without allow-oom / no-writes counts): over
  // maxmemory, EXEC itself is refused with -OOM (Redis's mstate.cmd_flags & CMD_DENYOOM).
  bool queued_denyoom = false;
};

namespace {

// Above this, a finished transaction gives its queue memory back instead of keeping it.
constexpr size_t kKeepArenaBytes = 64 * 1024;
constexpr size_t kKeepCommands = 1024;

struct Watcher {
  Session* session;
  bool expired;  // the key had logically expired when this session watched it
};

struct SvHash {
  using is_transparent = void;
  size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
};
using WatchMap = std::unordered_map<std::string, std::vector<Watcher>, SvHash, std::equal_to<>>;

struct Registry {
  std::vector<WatchMap> dbs;  // indexed by db id, grown on demand
  size_t total = 0;           // (session, key) pairs
  std::vector<Session*> scratch;  // sessions to dirty, reused (no allocation per touch)
};
Registry g_reg;

MultiState& state(Session& s) {
  if (!s.multi) s.multi = new MultiState();
  return *s.multi;
}

void on_touched(int dbid, std::string_view key);
void on_flushed(int dbid, int with_dbid);

void install_hooks(bool on) {
  g_keyspace_hooks.touched = on ? on_touched : nullptr;
  keyspace_hooks_updated();
  g_keyspace_hooks.flushed = on ? on_flushed : nullptr;
}

void mark_dirty_collected() {
  // Unwatching edits the registry lists that were being walked, so it happens afterwards.
  for (Session* s : g_reg.scratch) {
    s->flags |= Session::kDirtyCas;
    multi_unwatch_all(*s);
  }
  g_reg.scratch.clear();
}

void on_touched(int dbid, std::string_view key) {
  if (static_cast<size_t>(dbid) >= g_reg.dbs.size()) return;
  WatchMap& m = g_reg.dbs[static_cast<size_t>(dbid)];
  auto it = m.find(key);
  if (it == m.end()) return;
  bool absent = false, absent_known = false;
  for (Watcher& w : it->second) {
    if (w.expired) {
      // Watched while already expired: its deletion (by expiry or anything else) changes
      // nothing logically. The touch comes after the change, so "absent now" means deleted.
      if (!absent_known) {
        absent = keyspace().db(dbid).peek(KeyRef::of(key)) == nullptr;
        absent_known = true;
      }
      if (absent) {
        w.expired = false;
        continue;
      }
    }
    g_reg.scratch.push_back(w.session);
  }
  mark_dirty_collected();
}

void on_flushed(int dbid, int with_dbid) {
  if (static_cast<size_t>(dbid) >= g_reg.dbs.size()) return;
  WatchMap& m = g_reg.dbs[static_cast<size_t>(dbid)];
  if (m.empty()) return;
  Db& emptied = keyspace().db(dbid);
  Db* with = with_dbid >= 0 ? &keyspace().db(with_dbid) : nullptr;
  for (auto& [key, watchers] : m) {
    const KeyRef k = KeyRef::of(key);
    const bool in_emptied = emptied.peek(k) != nullptr;
    const Object* repl = with ? with->peek(k) : nullptr;
    if (!in_emptied && !repl) continue;
    const bool repl_expired = repl && with->expired(repl);
    for (Watcher& w : watchers) {
      if (w.expired) {
        if (!repl) {  // the expired key is simply deleted: no logical change
          w.expired = false;
          continue;
        }
        if (repl_expired) continue;  // still (another) expired key
      } else if (!in_emptied && repl_expired) {
        w.expired = true;  // a missing key is replaced by an expired one: still missing
        continue;
      }
      g_reg.scratch.push_back(w.session);
    }
  }
  // Several keys may name the same session; multi_unwatch_all on an already unwatched session
  // is a no-op, so duplicates are harmless.
  mark_dirty_collected();
}

}  // namespace

bool multi_runs_immediately(const CommandSpec& c) {
  const char* n = (c.parent ? c.parent : &c)->name;
  return !strcmp(n, "exec") || !strcmp(n, "discard") || !strcmp(n, "multi") ||
         !strcmp(n, "watch") || !strcmp(n, "quit") || !strcmp(n, "reset");
}

void multi_queue(Session& s, std::span<const std::string_view> args, const CommandSpec& c,
                 ReplyWriter& w) {
  if (c.flags & kNoMulti) {
    c.stats->rejected_calls++;
    s.flags |= Session::kMultiError;
    return w.error("ERR Command not allowed inside a transaction");
  }
  // A doomed transaction (error or dirty) will not run: keep nothing, still answer QUEUED.
  if (!(s.flags & (Session::kMultiError | Session::kDirtyCas))) {
    MultiState& m = state(s);
    if ((c.flags & kWrite) || ((c.flags & kNoMandatoryKeys) && script_admission_writes(c, args))) {
      m.queued_write = true;
    }
    if ((c.flags & kDenyOom) || ((c.flags & kNoMandatoryKeys) && script_admission_denyoom(c, args))) {
      m.queued_denyoom = true;
    }
    m.cmds.push_back({&c, static_cast<uint32_t>(m.args.size()), static_cast<uint32_t>(args.size())});
    for (std::string_view a : args) {
      m.args.emplace_back(m.arena.size(), a.size());
      m.arena.append(a);
    }
  }
  w.simple("QUEUED");
}

bool multi_reject_slow(Session& s, const CommandSpec* c) {
  if (c && !c->parent && !strcmp(c->name, "exec")) {
    multi_discard(s);
    return true;
  }
  s.flags |= Session::kMultiError;
  return false;
}

void multi_watch(Session& s, int dbid, std::string_view key) {
  if (g_reg.dbs.size() <= static_cast<size_t>(dbid)) g_reg.dbs.resize(static_cast<size_t>(dbid) + 1);
  WatchMap& m = g_reg.dbs[static_cast<size_t>(dbid)];
  auto it = m.find(key);
  if (it == m.end()) it = m.emplace(std::string(key), std::vector<Watcher>()).first;
  for (const Watcher& w : it->second) {
    if (w.session == &s) return;  // already watched
  }
  Db& db = keyspace().db(dbid);
  const Object* o = db.peek(KeyRef::of(key));
  it->second.push_back({&s, o && db.expired(o)});
  state(s).watched.push_back({dbid, std::string(key)});
  if (g_reg.total++ == 0) install_hooks(true);
}

void multi_unwatch_all(Session& s) {
  if (!s.multi || s.multi->watched.empty()) return;
  for (const WatchedKey& wk : s.multi->watched) {
    WatchMap& m = g_reg.dbs[static_cast<size_t>(wk.dbid)];
    auto it = m.find(wk.key);
    if (it == m.end()) continue;
    std::vector<Watcher>& v = it->second;
    for (size_t i = 0; i < v.size(); i++) {
      if (v[i].session == &s) {
        v[i] = v.back();
        v.pop_back();
        g_reg.total--;
        break;
      }
    }
    if (v.empty()) m.erase(it);
  }
  s.multi->watched.clear();
  if (g_reg.total == 0) install_hooks(false);
}

bool multi_watched_key_expired(const Session& s) {
  if (!s.multi) return false;
  for (const WatchedKey& wk : s.multi->watched) {
    const WatchMap& m = g_reg.dbs[static_cast<size_t>(wk.dbid)];
    auto it = m.find(wk.key);
    if (it == m.end()) continue;
    for (const Watcher& w : it->second) {
      if (w.session != &s) continue;
      if (w.expired) break;  // was already expired at WATCH time
      Db& db = keyspace().db(wk.dbid);
      const Object* o = db.peek(KeyRef::of(wk.key));
      if (o && db.expired(o)) return true;
      break;
    }
  }
  return false;
}

void multi_discard(Session& s) {
  s.flags &= ~(Session::kMulti | Session::kMultiError | Session::kDirtyCas);
  if (!s.multi) return;
  multi_unwatch_all(s);
  MultiState& m = *s.multi;
  m.cmds.clear();
  m.args.clear();
  m.arena.clear();
  m.queued_write = false;
  m.queued_denyoom = false;
  if (m.arena.capacity() > kKeepArenaBytes || m.cmds.capacity() > kKeepCommands) {
    std::string().swap(m.arena);
    std::vector<QueuedCommand>().swap(m.cmds);
    std::vector<std::pair<size_t, size_t>>().swap(m.args);
  }
}

void multi_drop_session(Session& s) {
  multi_discard(s);
  delete s.multi;
  s.multi = nullptr;
}

void multi_exec(Session& s, ReplyWriter& w, ServerApi& api) {
  multi_unwatch_all(s);  // as Redis: nothing can fail the transaction any more
  // Take the queue out of the session: a queued command cannot reach it (MULTI is not queued,
  // RESET and disconnects do not run synchronously inside a command), but this way nothing a
  // command does can invalidate what is being iterated.
  std::vector<QueuedCommand> cmds;
  std::vector<std::pair<size_t, size_t>> offs;
  std::string arena;
  if (s.multi) {
    cmds.swap(s.multi->cmds);
    offs.swap(s.multi->args);
    arena.swap(s.multi->arena);
    s.multi->queued_write = false;
    s.multi->queued_denyoom = false;
  }
  s.flags &= ~(Session::kMulti | Session::kMultiError | Session::kDirtyCas);
  w.array(cmds.size());
  // Inner commands reply through their own writer on the same buffer, so their error replies
  // count in errorstats and in their own failed_calls but do not make EXEC a failed call (as in
  // Redis). A queued HELLO can change the protocol: it is carried back.
  ReplyWriter inner(w.buffer(), w.resp());
  std::string_view views[64];
  std::vector<std::string_view> big;
  for (const QueuedCommand& q : cmds) {
    std::string_view* v = views;
    if (q.argc > std::size(views)) {
      big.resize(q.argc);
      v = big.data();
    }
    for (uint32_t i = 0; i < q.argc; i++) {
      const auto& [off, len] = offs[q.first_arg + i];
      v[i] = std::string_view(arena.data() + off, len);
    }
    const std::span<const std::string_view> args(v, q.argc);
    // ACL rules may have changed since the command was queued: Redis checks again here.
    if (KEEL_UNLIKELY(s.flags & Session::kAclRestricted)) {
      std::string why;
      if (!acl_exec_recheck(s, *q.spec, args, api, &why)) {
        inner.error(
            "NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
            "EXEC call. This command is no longer allowed for the following reason: " + why);
        continue;
      }
    }
    // Admission ran when the command was queued; EXEC's own call() holds the unit (one clock,
    // one propagated transaction, blocking commands do not block).
    call(s, args, nullptr, inner, api, *q.spec);
  }
  w.set_resp(inner.resp());
  s.last_cmd_name = "exec";
  // Give the (cleared) buffers back so the next transaction reuses their capacity.
  if (s.multi && s.multi->cmds.empty() && arena.capacity() <= kKeepArenaBytes &&
      cmds.capacity() <= kKeepCommands) {
    cmds.clear();
    offs.clear();
    arena.clear();
    s.multi->cmds.swap(cmds);
    s.multi->args.swap(offs);
    s.multi->arena.swap(arena);
  }
}

bool multi_queued_write(const Session& s) {
  return (s.flags & Session::kMulti) && s.multi && s.multi->queued_write;
}

bool multi_queued_denyoom(const Session& s) {
  return (s.flags & Session::kMulti) && s.multi && s.multi->queued_denyoom;
}

int64_t multi_queued_count(const Session& s) {
  if (!(s.flags & Session::kMulti)) return -1;
  return s.multi ? static_cast<int64_t>(s.multi->cmds.size()) : 0;
}

size_t multi_watch_count(const Session& s) { return s.multi ? s.multi->watched.size() : 0; }

size_t multi_memory(const Session& s) {
  if (!s.multi) return 0;
  // What the transaction holds now (capacity kept for reuse is not the client's doing).
  const MultiState& m = *s.multi;
  size_t n = m.arena.size() + m.cmds.size() * sizeof(QueuedCommand) +
             m.args.size() * sizeof(m.args[0]);
  for (const WatchedKey& wk : m.watched) n += sizeof(WatchedKey) + wk.key.size();
  return n;
}

size_t multi_watched_keys_total() { return g_reg.total; }

bool multi_queue_may_write(const Session& s) {
  if (!s.multi) return false;
  for (const QueuedCommand& q : s.multi->cmds) {
    if (q.spec->flags & (kWrite | kMayReplicate)) return true;
  }
  return false;
}

}  // namespace keel
