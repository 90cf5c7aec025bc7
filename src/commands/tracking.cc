// Client-side caching: the tracking table (key -> ids of the clients that read it), the BCAST
// prefix table, invalidation delivery and CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO.
// See tracking.h for the rules matched.
#include "commands/tracking.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>

#include "base/numbers.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/key_specs.h"
#include "commands/server_api.h"
#include "keyspace/db.h"

namespace keel {

constinit size_t g_tracking_clients = 0;
Buffer g_tracking_deferred;

namespace {

constexpr std::string_view kInvalidateChannel = "__redis__:invalidate";

struct SvHash {
  using is_transparent = void;
  size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
};

struct Bcast {
  std::vector<Session*> clients;
  // Keys changed since the last broadcast -> id of the client whose unit changed it last (0:
  // none, e.g. the active expiry cycle), for NOLOOP. Sorted, as Redis sends them.
  std::map<std::string, uint64_t, std::less<>> pending;
};

struct Tables {
  std::unordered_map<std::string, std::vector<uint64_t>, SvHash, std::equal_to<>> keys;
  size_t items = 0;  // (key, client) pairs
  std::map<std::string, Bcast, std::less<>> prefixes;
  bool bcast_pending = false;
  std::vector<Session*> sessions;  // every session with tracking on (flush)
  int64_t evict_effort = 0;        // grows while the table stays above its limit
  std::vector<KeyArg> scratch;     // key positions, reused
};

Tables& tables() {
  static Tables t;
  return t;
}

void on_key_changed(std::string_view key);

void update_hook() {
  const Tables& t = tables();
  g_keyspace_hooks.tracking = (!t.keys.empty() || !t.prefixes.empty()) ? on_key_changed : nullptr;
  keyspace_hooks_updated();
}

// The output a message for `target` goes to: after the running unit's reply when target is
// that unit's client, else its output buffer now. Null when it cannot receive anything.
Buffer* output_for(Session& target) {
  if (&target == g_exec_unit.client && g_exec_unit.depth > 0) {
    g_unit_end_work = true;
    return &g_tracking_deferred;
  }
  return server_api().session_output(target);
}

void output_done(Session& target, Buffer* out) {
  if (out != &g_tracking_deferred) server_api().session_output_ready(target);
}

// One invalidation message from tracking client c: `keys` (nullptr: a null, the flush).
void send_invalidation(Session& c, const std::string_view* keys, size_t n) {
  Session* target = &c;
  bool redirected = false;
  if (c.tracking && c.tracking->redirect != 0) {
    target = server_api().find_session(c.tracking->redirect);
    if (target == nullptr) {
      // Redis tells a RESP3 client each time a message is lost this way.
      if (c.resp > 2) {
        if (Buffer* out = output_for(c)) {
          ReplyWriter w(out, c.resp);
          w.push(2);
          w.bulk("tracking-redir-broken");
          w.integer(static_cast<int64_t>(c.tracking->redirect));
          output_done(c, out);
        }
      }
      c.flags |= Session::kTrackingBrokenRedir;
      return;
    }
    redirected = true;
  }
  const bool push = target->resp > 2;
  // RESP2 has no pushes: only a redirect target in the subscribed context can be told.
  if (!push && !(redirected && (target->flags & Session::kPubSub))) return;
  Buffer* out = output_for(*target);
  if (out == nullptr) return;
  ReplyWriter w(out, target->resp);
  if (push) {
    w.push(2);
    w.bulk("invalidate");
  } else {
    w.array(3);
    w.bulk("message");
    w.bulk(kInvalidateChannel);
  }
  if (keys == nullptr) {
    w.null();
  } else {
    w.array(n);
    for (size_t i = 0; i < n; i++) w.bulk(keys[i]);
  }
  output_done(*target, out);
}

// The client whose unit is running (Redis's current client), for NOLOOP.
uint64_t current_client_id() {
  return g_exec_unit.depth > 0 && g_exec_unit.client ? g_exec_unit.client->id : 0;
}

// Sends key's invalidation to every client that read it and forgets it.
void invalidate_key(std::string_view key, bool noloop_applies) {
  Tables& t = tables();
  auto it = t.keys.find(key);
  if (it == t.keys.end()) return;
  std::vector<uint64_t> ids = std::move(it->second);
  std::string name(key);  // the view may die with the erase (it can be the table's own key)
  t.keys.erase(it);
  t.items -= ids.size();
  const uint64_t current = noloop_applies ? current_client_id() : 0;
  const std::string_view k = name;
  for (uint64_t id : ids) {
    Session* s = server_api().find_session(id);
    if (s == nullptr || !(s->flags & Session::kTracking) || (s->flags & Session::kTrackingBcast)) continue;
    if ((s->flags & Session::kTrackingNoloop) && id == current) continue;
    send_invalidation(*s, &k, 1);
  }
}

void on_key_changed(std::string_view key) {
  Tables& t = tables();
  if (!t.prefixes.empty()) {
    const uint64_t who = current_client_id();
    for (auto& [prefix, b] : t.prefixes) {
      if (key.substr(0, prefix.size()) != prefix) continue;
      b.pending[std::string(key)] = who;
      t.bcast_pending = true;
    }
  }
  if (!t.keys.empty()) invalidate_key(key, true);
  update_hook();
}

void remember(Session& s, std::string_view key) {
  Tables& t = tables();
  auto it = t.keys.find(key);
  if (it == t.keys.end()) it = t.keys.emplace(std::string(key), std::vector<uint64_t>()).first;
  std::vector<uint64_t>& ids = it->second;
  if (std::find(ids.begin(), ids.end(), s.id) != ids.end()) return;
  ids.push_back(s.id);
  t.items++;
}

void add_prefix(Session& s, std::string_view prefix) {
  Tables& t = tables();
  std::vector<std::string>& mine = s.tracking->prefixes;
  auto at = std::lower_bound(mine.begin(), mine.end(), prefix);
  if (at != mine.end() && *at == prefix) return;
  mine.insert(at, std::string(prefix));
  auto it = t.prefixes.find(prefix);
  if (it == t.prefixes.end()) it = t.prefixes.emplace(std::string(prefix), Bcast()).first;
  it->second.clients.push_back(&s);
}

void disable(Session& s) {
  if (!(s.flags & Session::kTracking)) return;
  Tables& t = tables();
  if ((s.flags & Session::kTrackingBcast) && s.tracking) {
    for (const std::string& p : s.tracking->prefixes) {
      auto it = t.prefixes.find(p);
      if (it == t.prefixes.end()) continue;
      auto& v = it->second.clients;
      v.erase(std::remove(v.begin(), v.end(), &s), v.end());
      if (v.empty()) t.prefixes.erase(it);  // its pending keys go with it
    }
    s.tracking->prefixes.clear();
  }
  s.flags &= ~(Session::kTracking | Session::kTrackingBrokenRedir | Session::kTrackingBcast |
               Session::kTrackingOptin | Session::kTrackingOptout | Session::kTrackingCaching |
               Session::kTrackingNoloop);
  t.sessions.erase(std::remove(t.sessions.begin(), t.sessions.end(), &s), t.sessions.end());
  g_tracking_clients--;
  update_hook();
}

// Redis's prefix overlap rule: one is a prefix of the other.
bool overlaps(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

}  // namespace

TrackingOptions& tracking_options() {
  static TrackingOptions o;
  return o;
}

void tracking_remember_keys(Session& s, const CommandSpec& c, std::span<const std::string_view> args) {
  // A script's commands run on the script's own session: the keys are its caller's.
  Session* caller = s.client != nullptr ? &s : g_exec_unit.client;
  if (caller == nullptr) return;
  const uint32_t f = caller->flags;
  if (!(f & Session::kTracking) || (f & Session::kTrackingBcast)) return;
  if (((f & Session::kTrackingOptin) && !(f & Session::kTrackingCaching)) ||
      ((f & Session::kTrackingOptout) && (f & Session::kTrackingCaching))) {
    return;
  }
  // The read-only script commands are not tracked themselves, only what they run.
  if (!c.parent && (!strcmp(c.name, "eval_ro") || !strcmp(c.name, "evalsha_ro") || !strcmp(c.name, "fcall_ro"))) {
    return;
  }
  Tables& t = tables();
  t.scratch.clear();
  command_keys(c, args, &t.scratch);  // from the row's key specs, as COMMAND GETKEYS
  for (const KeyArg& k : t.scratch) {
    if (static_cast<size_t>(k.pos) < args.size()) remember(*caller, args[static_cast<size_t>(k.pos)]);
  }
  update_hook();
}

void tracking_flushed() {
  Tables& t = tables();
  if (g_tracking_clients != 0) {
    // A copy: sending never changes who tracks, but stay safe against it.
    std::vector<Session*> list = t.sessions;
    for (Session* s : list) send_invalidation(*s, nullptr, 0);
  }
  t.keys.clear();
  t.items = 0;
  update_hook();
}

void tracking_flush_deferred(Buffer* out) {
  if (out) out->append(g_tracking_deferred.data(), g_tracking_deferred.size());
  g_tracking_deferred.clear();
  g_tracking_deferred.shrink_if_idle(64 * 1024);
}

bool tracking_before_sleep_pending() {
  const Tables& t = tables();
  const int64_t max = tracking_options().table_max_keys;
  return t.bcast_pending || (max > 0 && t.keys.size() > static_cast<size_t>(max));
}

void tracking_before_sleep() {
  Tables& t = tables();
  if (t.bcast_pending) {
    t.bcast_pending = false;
    std::vector<std::string_view> keys;
    for (auto& [prefix, b] : t.prefixes) {
      if (b.pending.empty()) continue;
      for (Session* s : b.clients) {
        keys.clear();
        const bool noloop = (s->flags & Session::kTrackingNoloop) != 0;
        for (auto& [k, who] : b.pending) {
          if (noloop && who == s->id) continue;
          keys.push_back(k);
        }
        if (!keys.empty()) send_invalidation(*s, keys.data(), keys.size());
      }
      b.pending.clear();
    }
  }
  // tracking-table-max-keys: evict (invalidate) keys until under the limit, with an effort
  // that grows while the table stays above it (Redis's trackingLimitUsedSlots).
  const int64_t max = tracking_options().table_max_keys;
  if (max > 0 && t.keys.size() > static_cast<size_t>(max)) {
    int64_t effort = 100 * (t.evict_effort + 1);
    while (t.keys.size() > static_cast<size_t>(max) && effort-- > 0) {
      const std::string key = t.keys.begin()->first;
      invalidate_key(key, false);
    }
    t.evict_effort = t.keys.size() > static_cast<size_t>(max) ? t.evict_effort + 1 : 0;
    update_hook();
  }
}

void tracking_drop_session(Session& s) {
  disable(s);
  delete s.tracking;
  s.tracking = nullptr;
}

size_t tracking_total_keys() { return tables().keys.size(); }
size_t tracking_total_items() { return tables().items; }
size_t tracking_total_prefixes() { return tables().prefixes.size(); }

int64_t tracking_redirect_of(const Session& s) {
  if (!(s.flags & Session::kTracking)) return -1;
  return s.tracking ? static_cast<int64_t>(s.tracking->redirect) : 0;
}

// ---- CLIENT subcommands -----------------------------------------------------------------------

// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]: the
// options are parsed (and REDIRECT's client looked up) before ON/OFF is, in Redis's order.
void cmd_client_tracking(CommandContext& cx) {
  Session& s = cx.session();
  uint64_t redirect = 0;
  uint32_t opts = 0;
  std::vector<std::string_view> prefixes;
  for (size_t j = 3; j < cx.argc(); j++) {
    const bool more = j + 1 < cx.argc();
    if (cx.is_arg(j, "redirect") && more) {
      j++;
      if (redirect != 0) return cx.reply().error("ERR A client can only redirect to a single other client");
      int64_t id;
      if (!cx.int_arg(j, &id)) return;
      if (id <= 0 || !cx.server().client_exists(static_cast<uint64_t>(id))) {
        return cx.reply().error("ERR The client ID you want redirect to does not exist");
      }
      redirect = static_cast<uint64_t>(id);
    } else if (cx.is_arg(j, "bcast")) {
      opts |= Session::kTrackingBcast;
    } else if (cx.is_arg(j, "optin")) {
      opts |= Session::kTrackingOptin;
    } else if (cx.is_arg(j, "optout")) {
      opts |= Session::kTrackingOptout;
    } else if (cx.is_arg(j, "noloop")) {
      opts |= Session::kTrackingNoloop;
    } else if (cx.is_arg(j, "prefix") && more) {
      prefixes.push_back(cx.arg(++j));
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  if (cx.is_arg(2, "off")) {
    disable(s);
    return cx.reply().ok();
  }
  if (!cx.is_arg(2, "on")) return cx.reply().error(kErrSyntax);

  const bool bcast = (opts & Session::kTrackingBcast) != 0;
  if (!bcast && !prefixes.empty()) return cx.reply().error("ERR PREFIX option requires BCAST mode to be enabled");
  if ((s.flags & Session::kTracking) && bcast != ((s.flags & Session::kTrackingBcast) != 0)) {
    return cx.reply().error(
        "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then "
        "re-enabling it with a different mode.");
  }
  if (bcast && (opts & (Session::kTrackingOptin | Session::kTrackingOptout))) {
    return cx.reply().error("ERR OPTIN and OPTOUT are not compatible with BCAST");
  }
  if ((opts & Session::kTrackingOptin) && (opts & Session::kTrackingOptout)) {
    return cx.reply().error("ERR You can't specify both OPTIN mode and OPTOUT mode");
  }
  if (((opts & Session::kTrackingOptin) && (s.flags & Session::kTrackingOptout)) ||
      ((opts & Session::kTrackingOptout) && (s.flags & Session::kTrackingOptin))) {
    return cx.reply().error(
        "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
        "re-enabling it with a different mode.");
  }
  if (bcast) {
    for (size_t i = 0; i < prefixes.size(); i++) {
      if (s.tracking) {
        for (const std::string& have : s.tracking->prefixes) {
          if (overlaps(prefixes[i], have)) {
            return cx.reply().error_fmt(
                "ERR Prefix '%s' overlaps with an existing prefix '%s'. Prefixes for a single client "
                "must not overlap.",
                std::string(prefixes[i]).c_str(), have.c_str());
          }
        }
      }
      for (size_t j = 0; j < prefixes.size(); j++) {
        if (i != j && overlaps(prefixes[i], prefixes[j])) {
          return cx.reply().error_fmt(
              "ERR Prefix '%s' overlaps with another provided prefix '%s'. Prefixes for a single "
              "client must not overlap.",
              std::string(prefixes[i]).c_str(), std::string(prefixes[j]).c_str());
        }
      }
    }
  }

  Tables& t = tables();
  if (!(s.flags & Session::kTracking)) {
    g_tracking_clients++;
    t.sessions.push_back(&s);
  }
  if (!s.tracking) s.tracking = new TrackingState();
  s.flags &= ~(Session::kTrackingBrokenRedir | Session::kTrackingBcast | Session::kTrackingOptin |
               Session::kTrackingOptout | Session::kTrackingNoloop);
  s.flags |= Session::kTracking | opts;
  s.tracking->redirect = redirect;
  if (bcast) {
    if (prefixes.empty()) add_prefix(s, "");
    for (std::string_view p : prefixes) add_prefix(s, p);
  }
  update_hook();
  cx.reply().ok();
}

// CLIENT CACHING YES|NO
void cmd_client_caching(CommandContext& cx) {
  Session& s = cx.session();
  if (!(s.flags & Session::kTracking)) {
    return cx.reply().error(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
        "OPTOUT mode enabled");
  }
  if (cx.is_arg(2, "yes")) {
    if (!(s.flags & Session::kTrackingOptin)) {
      return cx.reply().error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
    }
  } else if (cx.is_arg(2, "no")) {
    if (!(s.flags & Session::kTrackingOptout)) {
      return cx.reply().error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
    }
  } else {
    return cx.reply().error(kErrSyntax);
  }
  s.flags |= Session::kTrackingCaching;
  cx.reply().ok();
}

void cmd_client_getredir(CommandContext& cx) { cx.reply().integer(tracking_redirect_of(cx.session())); }

// CLIENT TRACKINGINFO -> flags (a set), redirect, prefixes.
void cmd_client_trackinginfo(CommandContext& cx) {
  const Session& s = cx.session();
  const uint32_t f = s.flags;
  std::vector<const char*> flags;
  if (!(f & Session::kTracking)) {
    flags.push_back("off");
  } else {
    flags.push_back("on");
    if (f & Session::kTrackingBcast) flags.push_back("bcast");
    if (f & Session::kTrackingOptin) {
      flags.push_back("optin");
      if (f & Session::kTrackingCaching) flags.push_back("caching-yes");
    }
    if (f & Session::kTrackingOptout) {
      flags.push_back("optout");
      if (f & Session::kTrackingCaching) flags.push_back("caching-no");
    }
    if (f & Session::kTrackingNoloop) flags.push_back("noloop");
    if (f & Session::kTrackingBrokenRedir) flags.push_back("broken_redirect");
  }
  ReplyWriter& w = cx.reply();
  w.map(3);
  w.bulk("flags");
  w.set(flags.size());
  for (const char* fl : flags) w.bulk(fl);
  w.bulk("redirect");
  w.integer(tracking_redirect_of(s));
  w.bulk("prefixes");
  const bool bcast = (f & Session::kTracking) && (f & Session::kTrackingBcast) && s.tracking;
  w.array(bcast ? s.tracking->prefixes.size() : 0);
  if (bcast) {
    for (const std::string& p : s.tracking->prefixes) w.bulk(p);
  }
}

}  // namespace keel
