// Pub/sub tables and delivery. Three tables of the same shape (name -> subscribers in subscription
// order): channels, patterns and shard channels; plus, per subscribed session, the set of names it
// holds of each kind. Publishing formats each frame once into a reused buffer; RESP2 and RESP3
// frames differ only in their first byte ('*' vs '>'), patched after the copy.
#include "commands/pubsub.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "base/glob.h"
#include "commands/command.h"
#include "commands/dispatch.h"
#include "commands/propagate.h"
#include "commands/server_api.h"
#include "commands/session.h"
#include "keyspace/notify.h"

namespace keel {

Buffer g_pubsub_deferred;

namespace {

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
struct NameEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};

using Subscribers = std::vector<Session*>;
using Table = std::unordered_map<std::string, Subscribers, NameHash, NameEq>;
using NameSet = std::unordered_set<std::string, NameHash, NameEq>;

struct SessionSubs {
  NameSet names[3];
  size_t total() const { return names[0].size() + names[1].size() + names[2].size(); }
};

struct PubSub {
  Table tables[3];  // indexed by PubSubKind
  std::unordered_map<const Session*, SessionSubs> sessions;
  Buffer frame;     // the message being delivered
  Buffer channel;   // keyspace-notification channel name
};
PubSub g;

Table& table(PubSubKind k) { return g.tables[static_cast<int>(k)]; }

void append_bulk(Buffer& b, std::string_view s) {
  char* p = b.reserve_tail(s.size() + 32);
  char* start = p;
  *p++ = '$';
  p = std::to_chars(p, p + 24, s.size()).ptr;
  *p++ = '\r';
  *p++ = '\n';
  if (!s.empty()) memcpy(p, s.data(), s.size());  // an empty view may have a null data()
  p += s.size();
  *p++ = '\r';
  *p++ = '\n';
  b.commit(static_cast<size_t>(p - start));
}

// Appends the formatted frame to one receiver. The client of the running execution unit gets it
// after the unit's reply; one that is closing (or over its output limit) gets nothing.
void deliver(Session& s, const Buffer& frame) {
  ServerApi& api = server_api();
  const bool deferred = &s == g_exec_unit.client && g_exec_unit.depth > 0;
  Buffer* out = deferred ? &g_pubsub_deferred : api.session_output(s);
  if (!out) return;
  if (deferred) g_unit_end_work = true;
  const size_t at = out->size();
  out->append(frame.data(), frame.size());
  if (s.resp >= 3) out->data()[at] = '>';
  if (!deferred) api.session_output_ready(s);
}

void deliver_all(const Subscribers& subs, const Buffer& frame) {
  for (Session* s : subs) deliver(*s, frame);
}

// The keyspace-notification hook (keyspace/notify.h). notify() has already tested the class mask.
// With nobody subscribed to anything it returns before formatting; the channel name is built in a
// reused buffer, so steady state allocates nothing.
void publish_notification(uint32_t, std::string_view event, std::string_view key, int dbid) {
  if (g.tables[0].empty() && g.tables[1].empty()) return;
  char db[16];
  const size_t dblen = static_cast<size_t>(std::to_chars(db, db + sizeof(db), dbid).ptr - db);
  Buffer& ch = g.channel;
  if (g_notify.flags & kNotifyKeyspace) {
    ch.clear();
    ch.append("__keyspace@", 11);
    ch.append(db, dblen);
    ch.append("__:", 3);
    ch.append(key);
    pubsub_publish(ch.view(), event, false);
  }
  if (g_notify.flags & kNotifyKeyevent) {
    ch.clear();
    ch.append("__keyevent@", 11);
    ch.append(db, dblen);
    ch.append("__:", 3);
    ch.append(event);
    pubsub_publish(ch.view(), key, false);
  }
}

void update_flag(Session& s, const SessionSubs* subs) {
  if (subs && subs->total() > 0) {
    s.flags |= Session::kPubSub;
  } else {
    s.flags &= ~Session::kPubSub;
  }
}

}  // namespace

bool pubsub_subscribe(Session& s, PubSubKind kind, std::string_view name) {
  SessionSubs& subs = g.sessions[&s];
  NameSet& mine = subs.names[static_cast<int>(kind)];
  const bool added = mine.emplace(name).second;
  if (added) {
    Table& t = table(kind);
    auto it = t.find(name);
    if (it == t.end()) it = t.emplace(std::string(name), Subscribers{}).first;
    it->second.push_back(&s);
  }
  update_flag(s, &subs);
  return added;
}

bool pubsub_unsubscribe(Session& s, PubSubKind kind, std::string_view name) {
  auto sit = g.sessions.find(&s);
  if (sit == g.sessions.end()) return false;
  NameSet& mine = sit->second.names[static_cast<int>(kind)];
  auto nit = mine.find(name);
  if (nit == mine.end()) return false;
  Table& t = table(kind);
  auto it = t.find(name);
  if (it != t.end()) {
    Subscribers& v = it->second;
    v.erase(std::remove(v.begin(), v.end(), &s), v.end());
    if (v.empty()) t.erase(it);
  }
  mine.erase(nit);
  if (sit->second.total() == 0) {
    g.sessions.erase(sit);
    update_flag(s, nullptr);
  }
  return true;
}

std::vector<std::string> pubsub_session_names(const Session& s, PubSubKind kind) {
  auto it = g.sessions.find(&s);
  if (it == g.sessions.end()) return {};
  const NameSet& n = it->second.names[static_cast<int>(kind)];
  return std::vector<std::string>(n.begin(), n.end());
}

size_t pubsub_session_count(const Session& s, PubSubKind kind) {
  auto it = g.sessions.find(&s);
  return it == g.sessions.end() ? 0 : it->second.names[static_cast<int>(kind)].size();
}

void pubsub_drop_session(Session& s) {
  if (&s == g_exec_unit.client && g_exec_unit.depth > 0) g_pubsub_deferred.clear();
  auto sit = g.sessions.find(&s);
  if (sit == g.sessions.end()) return;
  for (int k = 0; k < 3; k++) {
    Table& t = g.tables[k];
    for (const std::string& name : sit->second.names[k]) {
      auto it = t.find(name);
      if (it == t.end()) continue;
      Subscribers& v = it->second;
      v.erase(std::remove(v.begin(), v.end(), &s), v.end());
      if (v.empty()) t.erase(it);
    }
  }
  g.sessions.erase(sit);
  update_flag(s, nullptr);
}

size_t pubsub_publish(std::string_view channel, std::string_view message, bool shard) {
  size_t receivers = 0;
  Buffer& f = g.frame;
  const Table& exact = shard ? table(PubSubKind::kShard) : table(PubSubKind::kChannel);
  // Keyspace notifications usually have only pattern subscribers: no hashing of the channel then.
  auto it = exact.empty() ? exact.end() : exact.find(channel);
  if (it != exact.end()) {
    f.clear();
    if (shard) {
      f.append("*3\r\n$8\r\nsmessage\r\n", 18);
    } else {
      f.append("*3\r\n$7\r\nmessage\r\n", 17);
    }
    append_bulk(f, channel);
    append_bulk(f, message);
    deliver_all(it->second, f);
    receivers += it->second.size();
  }
  if (shard) return receivers;
  for (const auto& [pattern, subs] : table(PubSubKind::kPattern)) {
    if (!glob_match(pattern, channel)) continue;
    f.clear();
    f.append("*4\r\n$8\r\npmessage\r\n", 18);
    append_bulk(f, pattern);
    append_bulk(f, channel);
    append_bulk(f, message);
    deliver_all(subs, f);
    receivers += subs.size();
  }
  return receivers;
}

size_t pubsub_name_count(PubSubKind kind) { return table(kind).size(); }

size_t pubsub_subscriber_count(PubSubKind kind, std::string_view name) {
  const Table& t = table(kind);
  auto it = t.find(name);
  return it == t.end() ? 0 : it->second.size();
}

std::vector<std::string_view> pubsub_names(PubSubKind kind, const std::string_view* pattern) {
  std::vector<std::string_view> out;
  for (const auto& [name, subs] : table(kind)) {
    if (!pattern || glob_match(*pattern, name)) out.push_back(name);
  }
  return out;
}

void pubsub_init() { g_notify.publish = publish_notification; }

bool pubsub_allowed_in_context(const CommandSpec& c) {
  const char* name = c.parent ? c.parent->name : c.name;
  for (const char* ok : {"ping", "subscribe", "ssubscribe", "psubscribe", "unsubscribe",
                         "sunsubscribe", "punsubscribe", "quit", "reset"}) {
    if (strcmp(name, ok) == 0) return true;
  }
  return false;
}

void pubsub_flush_deferred(Buffer* out) {
  if (out) out->append(g_pubsub_deferred.data(), g_pubsub_deferred.size());
  g_pubsub_deferred.clear();
  g_pubsub_deferred.shrink_if_idle(64 * 1024);
}

}  // namespace keel
