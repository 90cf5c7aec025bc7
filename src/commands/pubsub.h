// Pub/sub state: the channel -> subscribers table, the pattern table and the shard-channel table,
// each session's own subscriptions, message delivery and the keyspace-notification publisher.
// The commands (SUBSCRIBE, PUBLISH, PUBSUB ...) live in cmd_pubsub.cc; the output buffers of other
// clients are reached through ServerApi::session_output (server/ owns the connections).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/buffer.h"

namespace keel {

struct Session;
struct CommandSpec;

enum class PubSubKind { kChannel = 0, kPattern = 1, kShard = 2 };

// Adds / removes one subscription of `s`; true when it changed something. Keeps the session's
// kPubSub flag equal to "has any subscription of any kind". O(1) expected (removal is O(number of
// subscribers of that name)).
bool pubsub_subscribe(Session& s, PubSubKind kind, std::string_view name);
bool pubsub_unsubscribe(Session& s, PubSubKind kind, std::string_view name);
// The names `s` is subscribed to (a copy: the caller may unsubscribe while walking it).
std::vector<std::string> pubsub_session_names(const Session& s, PubSubKind kind);
size_t pubsub_session_count(const Session& s, PubSubKind kind);
// Drops every subscription of `s` without replying (disconnect, RESET).
void pubsub_drop_session(Session& s);

// PUBLISH (shard = false) / SPUBLISH (shard = true): formats the message once per frame shape
// and appends it to every receiver (exact channel first, then each matching pattern). Returns the
// number of receivers. Never modifies the subscription tables.
size_t pubsub_publish(std::string_view channel, std::string_view message, bool shard);

// Introspection (PUBSUB, INFO, CLIENT LIST).
size_t pubsub_name_count(PubSubKind kind);                // distinct channels / patterns
size_t pubsub_subscriber_count(PubSubKind kind, std::string_view name);  // exact name
// Active names of `kind` matching the glob `pattern` (every name when pattern is null). The views
// stay valid until the next (un)subscribe.
std::vector<std::string_view> pubsub_names(PubSubKind kind, const std::string_view* pattern);

// Installs the keyspace-notification publisher into keyspace/notify.h (call once at start-up).
void pubsub_init();

// RESP2 subscribed context: may `c` run there? ((P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT,
// RESET.)
bool pubsub_allowed_in_context(const CommandSpec& c);

// Messages for the client of the running execution unit (the outermost command, with the
// commands its EXEC or script runs) are held back here and appended after the unit's reply
// (Redis 7.2+ order; also keeps a deferred aggregate header of the running command from being
// inserted in front of a push). call() flushes them at the end of the unit.
extern Buffer g_pubsub_deferred;
void pubsub_flush_deferred(Buffer* out);

}  // namespace keel
