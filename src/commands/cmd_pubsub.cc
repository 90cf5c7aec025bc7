// Pub/sub commands: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH, the sharded
// SSUBSCRIBE SUNSUBSCRIBE SPUBLISH (standalone mode: one shard, so they behave like a separate
// channel namespace) and the PUBSUB container. The tables and delivery live in pubsub.cc.
#include <initializer_list>
#include <string>
#include <vector>

#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/propagate.h"
#include "commands/pubsub.h"

namespace keel {

// Defined in cmd_server.cc: the HELP reply layout every container shares.

namespace {

// Subscription replies are pushes in RESP3 and 3-element arrays in RESP2. The count is the
// session's channels + patterns for the classic commands and its shard channels for the S ones
// (Redis keeps them apart).
size_t reply_count(const Session& s, PubSubKind kind) {
  if (kind == PubSubKind::kShard) return pubsub_session_count(s, PubSubKind::kShard);
  return pubsub_session_count(s, PubSubKind::kChannel) +
         pubsub_session_count(s, PubSubKind::kPattern);
}

// With CLIENT REPLY OFF or SKIP the confirmation still goes out, as every push does in Redis
// 7.2+ (and 7.0.15): it is written where pub/sub messages to the running session wait, which
// dispatch appends after the (dropped) reply.
void reply_subscription(CommandContext& cx, const char* what, const std::string_view* name,
                        PubSubKind kind) {
  ReplyWriter pushed;
  const bool muted = cx.session().flags & (Session::kReplyOff | Session::kReplySkip);
  if (muted) {
    pushed.reset(&g_pubsub_deferred, cx.session().resp);
    g_unit_end_work = true;
  }
  ReplyWriter& w = muted ? pushed : cx.reply();
  w.push(3);
  w.bulk(what);
  if (name) {
    w.bulk(*name);
  } else {
    w.null();
  }
  w.integer(static_cast<int64_t>(reply_count(cx.session(), kind)));
}

// SUBSCRIBE / PSUBSCRIBE / SSUBSCRIBE name [name ...]: one confirmation per argument, also for a
// name the client already had.
void subscribe(CommandContext& cx, PubSubKind kind, const char* what) {
  for (size_t i = 1; i < cx.argc(); i++) {
    const std::string_view name = cx.arg(i);
    pubsub_subscribe(cx.session(), kind, name);
    reply_subscription(cx, what, &name, kind);
  }
}

// UNSUBSCRIBE / PUNSUBSCRIBE / SUNSUBSCRIBE [name ...]: without names, every subscription of
// that kind; with none at all, a single confirmation with a null name.
void unsubscribe(CommandContext& cx, PubSubKind kind, const char* what) {
  Session& s = cx.session();
  if (cx.argc() > 1) {
    for (size_t i = 1; i < cx.argc(); i++) {
      const std::string_view name = cx.arg(i);
      pubsub_unsubscribe(s, kind, name);
      reply_subscription(cx, what, &name, kind);
    }
    return;
  }
  const std::vector<std::string> names = pubsub_session_names(s, kind);
  if (names.empty()) return reply_subscription(cx, what, nullptr, kind);
  for (const std::string& n : names) {
    pubsub_unsubscribe(s, kind, n);
    const std::string_view name = n;
    reply_subscription(cx, what, &name, kind);
  }
}

void cmd_subscribe(CommandContext& cx) { subscribe(cx, PubSubKind::kChannel, "subscribe"); }
void cmd_psubscribe(CommandContext& cx) { subscribe(cx, PubSubKind::kPattern, "psubscribe"); }
void cmd_ssubscribe(CommandContext& cx) { subscribe(cx, PubSubKind::kShard, "ssubscribe"); }
void cmd_unsubscribe(CommandContext& cx) { unsubscribe(cx, PubSubKind::kChannel, "unsubscribe"); }
void cmd_punsubscribe(CommandContext& cx) {
  unsubscribe(cx, PubSubKind::kPattern, "punsubscribe");
}
void cmd_sunsubscribe(CommandContext& cx) {
  unsubscribe(cx, PubSubKind::kShard, "sunsubscribe");
}

// PUBLISH channel message -> integer: receivers (channel subscribers + matching pattern
// subscriptions).
void cmd_publish(CommandContext& cx) {
  cx.force_propagation(kPropagateRepl);  // replicas deliver it to their own subscribers (not AOF)
  cx.reply().integer(static_cast<int64_t>(pubsub_publish(cx.arg(1), cx.arg(2), false)));
}

// SPUBLISH shardchannel message -> integer: shard-channel subscribers (patterns never match).
void cmd_spublish(CommandContext& cx) {
  cx.force_propagation(kPropagateRepl);
  cx.reply().integer(static_cast<int64_t>(pubsub_publish(cx.arg(1), cx.arg(2), true)));
}

// ---- PUBSUB -----------------------------------------------------------------------------------

void reply_bad_subcommand(CommandContext& cx) {
  cx.reply().error_fmt(
      "ERR unknown subcommand or wrong number of arguments for '%.128s'. Try PUBSUB HELP.",
      std::string(cx.arg(1)).c_str());
}

// PUBSUB CHANNELS|SHARDCHANNELS [pattern] -> array of active names.
void list_names(CommandContext& cx, PubSubKind kind) {
  if (cx.argc() > 3) return reply_bad_subcommand(cx);
  std::string_view pattern;
  if (cx.argc() == 3) pattern = cx.arg(2);
  const std::vector<std::string_view> names =
      pubsub_names(kind, cx.argc() == 3 ? &pattern : nullptr);
  cx.reply().array(names.size());
  for (std::string_view n : names) cx.reply().bulk(n);
}

// PUBSUB NUMSUB|SHARDNUMSUB [name ...] -> flat array name, count, ... (an array in RESP3 too).
void count_subscribers(CommandContext& cx, PubSubKind kind) {
  cx.reply().array((cx.argc() - 2) * 2);
  for (size_t i = 2; i < cx.argc(); i++) {
    cx.reply().bulk(cx.arg(i));
    cx.reply().integer(static_cast<int64_t>(pubsub_subscriber_count(kind, cx.arg(i))));
  }
}

void cmd_pubsub_channels(CommandContext& cx) { list_names(cx, PubSubKind::kChannel); }
void cmd_pubsub_shardchannels(CommandContext& cx) { list_names(cx, PubSubKind::kShard); }
void cmd_pubsub_numsub(CommandContext& cx) { count_subscribers(cx, PubSubKind::kChannel); }
void cmd_pubsub_shardnumsub(CommandContext& cx) { count_subscribers(cx, PubSubKind::kShard); }

// PUBSUB NUMPAT -> integer: distinct patterns subscribed by anyone.
void cmd_pubsub_numpat(CommandContext& cx) {
  cx.reply().integer(static_cast<int64_t>(pubsub_name_count(PubSubKind::kPattern)));
}

void cmd_pubsub_help(CommandContext& cx) {
  reply_help(cx, "PUBSUB",
             {"CHANNELS [<pattern>]",
              "    Return the currently active channels matching a <pattern> (default: '*').",
              "NUMPAT", "    Return number of subscriptions to patterns.",
              "NUMSUB [<channel> ...]",
              "    Return the number of subscribers for the specified channels, excluding",
              "    pattern subscriptions(default: no channels).",
              "SHARDCHANNELS [<pattern>]",
              "    Return the currently active shard level channels matching a <pattern> "
              "(default: '*').",
              "SHARDNUMSUB [<shardchannel> ...]",
              "    Return the number of subscribers for the specified shard level channel(s)"});
}

constexpr uint32_t kSubFlags = kPubSubCmd | kNoScript | kLoading | kStale;
constexpr uint32_t kInfoFlags = kPubSubCmd | kLoading | kStale;

CommandSpec kPubSubSubcommands[] = {
    {.name = "channels", .handler = cmd_pubsub_channels, .arity = -2, .flags = kInfoFlags, .group = "pubsub",
     .summary = "List active channels", .since = "2.8.0", .complexity = "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)"},
    {.name = "numsub", .handler = cmd_pubsub_numsub, .arity = -2, .flags = kInfoFlags, .group = "pubsub",
     .summary = "Get the count of subscribers for channels", .since = "2.8.0", .complexity = "O(N) for the NUMSUB subcommand, where N is the number of requested channels"},
    {.name = "numpat", .handler = cmd_pubsub_numpat, .arity = 2, .flags = kInfoFlags, .group = "pubsub",
     .summary = "Get the count of unique patterns pattern subscriptions", .since = "2.8.0", .complexity = "O(1)"},
    {.name = "shardchannels", .handler = cmd_pubsub_shardchannels, .arity = -2, .flags = kInfoFlags, .group = "pubsub",
     .summary = "List active shard channels", .since = "7.0.0", .complexity = "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels)."},
    {.name = "shardnumsub", .handler = cmd_pubsub_shardnumsub, .arity = -2, .flags = kInfoFlags, .group = "pubsub",
     .summary = "Get the count of subscribers for shard channels", .since = "7.0.0", .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels"},
    {.name = "help", .handler = cmd_pubsub_help, .arity = 2, .flags = kLoading | kStale, .group = "pubsub",
     .summary = "Show helpful text about the different subcommands", .since = "6.2.0", .complexity = "O(1)"},
};

CommandSpec kPubSubCommands[] = {
    {.name = "subscribe", .handler = cmd_subscribe, .arity = -2, .flags = kSubFlags, .group = "pubsub",
     .summary = "Listen for messages published to the given channels", .since = "2.0.0", .complexity = "O(N) where N is the number of channels to subscribe to."},
    {.name = "unsubscribe", .handler = cmd_unsubscribe, .arity = -1, .flags = kSubFlags, .group = "pubsub",
     .summary = "Stop listening for messages posted to the given channels", .since = "2.0.0", .complexity = "O(N) where N is the number of clients already subscribed to a channel."},
    {.name = "psubscribe", .handler = cmd_psubscribe, .arity = -2, .flags = kSubFlags, .group = "pubsub",
     .summary = "Listen for messages published to channels matching the given patterns", .since = "2.0.0", .complexity = "O(N) where N is the number of patterns the client is already subscribed to."},
    {.name = "punsubscribe", .handler = cmd_punsubscribe, .arity = -1, .flags = kSubFlags, .group = "pubsub",
     .summary = "Stop listening for messages posted to channels matching the given patterns", .since = "2.0.0", .complexity = "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client)."},
    {.name = "publish", .handler = cmd_publish, .arity = 3, .flags = kPubSubCmd | kLoading | kStale | kFast | kMayReplicate, .group = "pubsub",
     .summary = "Post a message to a channel", .since = "2.0.0", .complexity = "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client)."},
    {.name = "ssubscribe", .handler = cmd_ssubscribe, .arity = -2, .flags = kSubFlags, .group = "pubsub",
     .summary = "Listen for messages published to the given shard channels", .since = "7.0.0", .complexity = "O(N) where N is the number of shard channels to subscribe to.",
     .keys = {ks(kKsNotKey, 1, fk_range(-1, 1, 0))}},
    {.name = "sunsubscribe", .handler = cmd_sunsubscribe, .arity = -1, .flags = kSubFlags, .group = "pubsub",
     .summary = "Stop listening for messages posted to the given shard channels", .since = "7.0.0", .complexity = "O(N) where N is the number of clients already subscribed to a shard channel.",
     .keys = {ks(kKsNotKey, 1, fk_range(-1, 1, 0))}},
    {.name = "spublish", .handler = cmd_spublish, .arity = 3, .flags = kPubSubCmd | kLoading | kStale | kFast | kMayReplicate, .group = "pubsub",
     .summary = "Post a message to a shard channel", .since = "7.0.0", .complexity = "O(N) where N is the number of clients subscribed to the receiving shard channel.",
     .keys = {ks(kKsNotKey)}},
    {.name = "pubsub", .handler = nullptr, .arity = -2, .group = "pubsub",
     .summary = "A container for Pub/Sub commands", .since = "2.8.0", .complexity = "Depends on subcommand.",
     .subcommands = kPubSubSubcommands},
};

}  // namespace

std::span<CommandSpec> pubsub_commands() { return kPubSubCommands; }

}  // namespace keel
