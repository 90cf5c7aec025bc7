// Keyspace notification entry point. notify() is called by commands (for their own events) and
// by the keyspace (new, expired, evicted). Its first instruction tests the configured class mask,
// so with notifications off a mutation pays one branch. Publishing is done by a hook installed by
// the pub/sub layer above; this layer never includes it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/assert.h"

namespace keel {

enum NotifyClass : uint32_t {
  kNotifyKeyspace = 1u << 0,  // K
  kNotifyKeyevent = 1u << 1,  // E
  kNotifyGeneric = 1u << 2,   // g
  kNotifyString = 1u << 3,    // $
  kNotifyList = 1u << 4,      // l
  kNotifySet = 1u << 5,       // s
  kNotifyHash = 1u << 6,      // h
  kNotifyZset = 1u << 7,      // z
  kNotifyExpired = 1u << 8,   // x
  kNotifyEvicted = 1u << 9,   // e
  kNotifyStream = 1u << 10,   // t
  kNotifyKeyMiss = 1u << 11,  // m
  kNotifyModule = 1u << 12,   // d
  kNotifyNew = 1u << 13,      // n
};

struct NotifyState {
  uint32_t flags = 0;  // as configured (K/E and classes)
  uint32_t mask = 0;   // classes that publish: 0 unless K or E is set
  void (*publish)(uint32_t cls, std::string_view event, std::string_view key, int dbid) = nullptr;
};
extern NotifyState g_notify;

inline void notify(uint32_t cls, std::string_view event, std::string_view key, int dbid) {
  if (KEEL_LIKELY(!(g_notify.mask & cls))) return;
  if (g_notify.publish) g_notify.publish(cls, event, key, dbid);
}

// "notify-keyspace-events" text <-> flags, with Redis's letters and canonical order.
std::optional<uint32_t> parse_notify_flags(std::string_view s);
std::string format_notify_flags(uint32_t flags);
void set_notify_flags(uint32_t flags);

}  // namespace keel
